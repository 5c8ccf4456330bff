/*
 * plot: gnuplot 4.6's dumb-terminal rendering of lkp-tests' mmplot, redone
 * in C. See plot.h for the output; the steps below name the gnuplot
 * functions they follow (src/graphics.c, src/axis.c, term/dumb.trm).
 */
#include "plot.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* gnuplot's "20 tics per decade" guide for setup_tics() and its SIGNIF. */
#define PLOT_TIC_GUIDE 20
#define PLOT_SIGNIF 0.01
/* gen_tics() gives up when more tics than the terminal is wide are asked. */
#define PLOT_MAX_TICS PLOT_COLS

/* dumb.trm priorities: a cell only takes a higher one. */
enum plot_prio {
	PRIO_DOTS = 1,		/* lt 0 ("axis") lines: the good series' dots */
	PRIO_BORDER = 2,	/* frame and tick marks */
	PRIO_POINT = 4,		/* 'O' and '*' */
	PRIO_TEXT = 5,		/* title and tick labels */
};

enum plot_pen { PEN_DOTS, PEN_BORDER };

/* The character canvas; y = 0 is the bottom row, as in gnuplot. */
struct plot_canvas {
	char cell[PLOT_ROWS][PLOT_COLS];
	unsigned char prio[PLOT_ROWS][PLOT_COLS];
	int x, y;		/* pen position */
	enum plot_pen pen;
};

struct plot_tics {
	size_t n;
	double pos[PLOT_MAX_TICS + 2];
	char label[PLOT_MAX_TICS + 2][48];
	size_t widest;
};

static void canvas_init(struct plot_canvas *cv)
{
	memset(cv->cell, ' ', sizeof(cv->cell));
	memset(cv->prio, 0, sizeof(cv->prio));
	cv->x = cv->y = 0;
	cv->pen = PEN_BORDER;
}

static void set_pixel(struct plot_canvas *cv, int x, int y, char c, int prio)
{
	if (x < 0 || x >= PLOT_COLS || y < 0 || y >= PLOT_ROWS)
		return;
	if (prio > cv->prio[y][x]) {
		cv->cell[y][x] = c;
		cv->prio[y][x] = (unsigned char)prio;
	}
}

static int sign_of(int v)
{
	return v > 0 ? 1 : v < 0 ? -1 : 0;
}

static void canvas_move(struct plot_canvas *cv, int x, int y)
{
	cv->x = x;
	cv->y = y;
}

/* DUMB_vector(): endpoints '+', steep runs ':' or '|', flat runs '.' or '-'. */
static void canvas_vector(struct plot_canvas *cv, int x, int y)
{
	int dx = x - cv->x, dy = y - cv->y;
	int adx = dx < 0 ? -dx : dx, ady = dy < 0 ? -dy : dy;
	bool dots = cv->pen == PEN_DOTS;
	int prio = dots ? PRIO_DOTS : PRIO_BORDER;

	if (ady > adx) {
		char pen = dots ? ':' : '|';

		set_pixel(cv, cv->x, cv->y, '+', prio);
		for (int d = 1; d < ady; d++)
			set_pixel(cv, cv->x + (int)((double)dx * d / ady + 0.5),
				  cv->y + d * sign_of(dy), pen, prio);
		set_pixel(cv, x, y, '+', prio);
	} else if (adx > ady) {
		char pen = dots ? '.' : '-';

		set_pixel(cv, cv->x, cv->y, '+', prio);
		for (int d = 1; d < adx; d++)
			set_pixel(cv, cv->x + d * sign_of(dx),
				  cv->y + (int)((double)dy * d / adx + 0.5), pen, prio);
		set_pixel(cv, x, y, '+', prio);
	} else {
		for (int d = 0; d <= adx; d++)
			set_pixel(cv, cv->x + d * sign_of(dx), cv->y + d * sign_of(dy), '+', prio);
	}
	cv->x = x;
	cv->y = y;
}

/* DUMB_put_text(): pushed left to fit, cut at the right edge. */
static void canvas_text(struct plot_canvas *cv, int x, int y, const char *s)
{
	int len = (int)strlen(s);

	if (x + len > PLOT_COLS)
		x = PLOT_COLS - len > 0 ? PLOT_COLS - len : 0;
	for (; x < PLOT_COLS && *s; x++, s++)
		set_pixel(cv, x, y, *s, PRIO_TEXT);
}

/* Rows top to bottom, trailing spaces trimmed, each ending in '\n'. */
static void canvas_emit(const struct plot_canvas *cv, struct strbuf *out)
{
	for (int y = PLOT_ROWS - 1; y >= 0; y--) {
		int len = PLOT_COLS;

		while (len > 0 && cv->cell[y][len - 1] == ' ')
			len--;
		strbuf_add(out, cv->cell[y], (size_t)len);
		strbuf_addch(out, '\n');
	}
}

/* axis.c quantize_normal_tics(): a 1, 2 or 5 x 10^k step for `guide` tics. */
static double quantize_normal_tics(double arg, int guide)
{
	double power = pow(10.0, floor(log10(arg)));
	double xnorm = arg / power;
	double posns = guide / xnorm;
	double tics;

	if (posns > 40)
		tics = 0.05;
	else if (posns > 20)
		tics = 0.1;
	else if (posns > 10)
		tics = 0.2;
	else if (posns > 4)
		tics = 0.5;
	else if (posns > 2)
		tics = 1;
	else if (posns > 0.5)
		tics = 2;
	else
		tics = ceil(xnorm);
	return tics * power;
}

/* axis_checked_extend_empty_range(): [v:v] becomes [v-1%:v+1%], [0:0] [-1:1]. */
static void extend_empty_range(double *min, double *max)
{
	if (*max - *min == 0.0) {
		double widen = *max == 0.0 ? 1.0 : 0.01 * fabs(*max);

		*min -= widen;
		*max += widen;
		/* subnormals: 1% may vanish (gnuplot would loop; we do not) */
		if (*max - *min == 0.0) {
			*min -= 1.0;
			*max += 1.0;
		}
	}
}

/*
 * axis.c copy_or_invent_formatstring(): "% g", but "%.<p>f" when the axis
 * does not cross 0 and min(|range|, |min|) < 1e-4 (p = digits needed for
 * that, at most 14). gnuplot 4.6 and 5.4 both do this, even though "%.5f"
 * can print the same label at neighbouring tics.
 */
static void tic_format(double min, double max, char *fmt, size_t size)
{
	double a = fabs(max - min), b = fabs(min);
	double precision = ceil(-log10(a < b ? a : b));

	snprintf(fmt, size, "%% g");
	if (min * max > 0 && precision > 4)
		snprintf(fmt, size, "%%.%df", precision > 14 ? 14 : (int)precision);
}

/* axis.c gen_tics() for TIC_COMPUTED, with the labels. */
static void gen_tics(double lmin, double lmax, double step, struct plot_tics *tics)
{
	char fmt[8];

	double start, end, internal_min, internal_max, prev;
	size_t guard = 0;

	tics->n = 0;
	tics->widest = 0;
	tic_format(lmin, lmax, fmt, sizeof(fmt));
	if (!(step > 0))
		return;
	start = step * floor(lmin / step);
	end = step * ceil(lmax / step);
	if (end < start) {
		double t = end;

		end = start;
		start = t;
	}
	end += PLOT_SIGNIF * step;
	if (step < fabs(lmax) + fabs(lmin)) {
		internal_max = lmax + step * PLOT_SIGNIF;
		internal_min = lmin - step * PLOT_SIGNIF;
	} else {
		internal_max = lmax;
		internal_min = lmin;
	}
	if ((internal_max - internal_min) / step > PLOT_COLS)
		return;		/* "Too many axis ticks requested" */
	/* "tick interval too small for machine precision" */
	prev = start - step;
	for (double t = start; t <= end; t += step) {
		if (fabs(t - prev) < step / 4.) {
			step = end - start;
			break;
		}
		prev = t;
	}
	if (!(step > 0))
		return;
	for (double t = start; t <= end && guard++ < PLOT_MAX_TICS + 2; t += step) {
		double user = fabs(t) < step * PLOT_SIGNIF ? 0.0 : t;
		size_t len;

		if (t > internal_max)
			break;
		if (t < internal_min || tics->n >= PLOT_MAX_TICS + 2)
			continue;
		snprintf(tics->label[tics->n], sizeof(tics->label[0]), fmt, user);
		tics->pos[tics->n] = t;
		len = strlen(tics->label[tics->n]);
		if (len > tics->widest)
			tics->widest = len;
		tics->n++;
	}
}

/* (int)(lower + (v - min) * scale + 0.5), gnuplot's AXIS_MAP */
static int axis_map(double v, int lower, double min, double scale)
{
	return (int)(lower + (v - min) * scale + 0.5);
}

static bool series_range(const double *v, size_t n, double *min, double *max, bool have)
{
	for (size_t i = 0; v && i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		if (!have || v[i] < *min)
			*min = v[i];
		if (!have || v[i] > *max)
			*max = v[i];
		have = true;
	}
	return have;
}

void plot_title(struct strbuf *out, const char *metric)
{
	const unsigned char *s = (const unsigned char *)metric;

	while (*s) {
		unsigned char c = *s++;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("_.:+=-", c)) {
			strbuf_addch(out, c);
			continue;
		}
		strbuf_addch(out, '_');
		if (c >= 0xc0)	/* one '_' for the whole UTF-8 character */
			while ((*s & 0xc0) == 0x80)
				s++;
	}
}

/* Where the plot goes on the canvas, and how a value maps to a column or a row. */
struct plot_area {
	int xleft, xright, ybot, ytop;
	double xmin, ymin, xscale, yscale;
};

/* The y tics with their labels, the border and the title (gnuplot's place_grid, plot_border). */
static void draw_frame(struct plot_canvas *cv, const struct plot_area *a, const struct plot_tics *tics,
		       const struct strbuf *name)
{
	/* place_grid(): tick marks pointing in, labels right-aligned */
	cv->pen = PEN_BORDER;
	for (size_t i = 0; i < tics->n; i++) {
		int y = axis_map(tics->pos[i], a->ybot, a->ymin, a->yscale);

		canvas_move(cv, a->xleft, y);
		canvas_vector(cv, a->xleft + 1, y);
		canvas_text(cv, a->xleft - 1 - (int)strlen(tics->label[i]), y, tics->label[i]);
	}

	/* plot_border() */
	canvas_move(cv, a->xleft, a->ytop);
	canvas_vector(cv, a->xleft, a->ybot);
	canvas_vector(cv, a->xright, a->ybot);
	canvas_vector(cv, a->xright, a->ytop);
	canvas_vector(cv, a->xleft, a->ytop);

	/*
	 * The title, centred. gnuplot drops a title longer than 85
	 * characters (it would start left of column 1); we show its head.
	 */
	if (name->len) {
		int x = (a->xleft + a->xright) / 2 - (int)(name->len / 2);

		canvas_text(cv, x > 0 ? x : 0, PLOT_ROWS - 2, name->buf);
	}
}

/* The samples: the bad ones first ('O'), so a good '*' never hides one; the good ones joined by dots. */
static void draw_samples(struct plot_canvas *cv, const struct plot_area *a, const double *good, size_t ngood,
			 const double *bad, size_t nbad)
{
	bool prev = false;

	for (size_t i = 0; i < nbad; i++)
		if (isfinite(bad[i]))
			set_pixel(cv, axis_map((double)(i + 1), a->xleft, a->xmin, a->xscale),
				  axis_map(bad[i], a->ybot, a->ymin, a->yscale), 'O', PRIO_POINT);

	/* plot_lines() with lt 0, then plot_points() with pt -22 ('*') */
	cv->pen = PEN_DOTS;
	for (size_t i = 0; i < ngood; i++) {
		int x, y;

		if (!isfinite(good[i])) {
			prev = false;
			continue;
		}
		x = axis_map((double)(i + 1), a->xleft, a->xmin, a->xscale);
		y = axis_map(good[i], a->ybot, a->ymin, a->yscale);
		if (!prev)
			canvas_move(cv, x, y);
		canvas_vector(cv, x, y);
		prev = true;
	}
	for (size_t i = 0; i < ngood; i++)
		if (isfinite(good[i]))
			set_pixel(cv, axis_map((double)(i + 1), a->xleft, a->xmin, a->xscale),
				  axis_map(good[i], a->ybot, a->ymin, a->yscale), '*', PRIO_POINT);
}

void plot_samples(struct strbuf *out, const char *title, const double *good, size_t ngood,
		  const double *bad, size_t nbad)
{
	struct strbuf name = STRBUF_INIT;
	struct plot_canvas cv;
	struct plot_tics tics;
	struct plot_area a;
	double ymin = 0, ymax = 0, xmin, xmax, ystep;

	if (!good)
		ngood = 0;
	if (!bad)
		nbad = 0;
	if (!series_range(good, ngood, &ymin, &ymax, series_range(bad, nbad, &ymin, &ymax, false)))
		return;		/* "all points y value undefined!" */

	/* y: autoscale, then extend to whole tics (setup_tics, round_outward) */
	extend_empty_range(&ymin, &ymax);
	if (!isfinite(ymax - ymin))
		return;		/* "axis range undefined or overflow" */
	ystep = quantize_normal_tics(fabs(ymin - ymax), PLOT_TIC_GUIDE);
	ymin = ystep * floor(ymin / ystep);
	ymax = ystep * ceil(ymax / ystep);
	if (!isfinite(ymin) || !isfinite(ymax) || !isfinite(ymax - ymin))
		return;
	gen_tics(ymin, ymax, ystep, &tics);

	/* x: the sample indexes, no tics, so no extension */
	xmin = 1;
	xmax = (double)(ngood > nbad ? ngood : nbad);
	extend_empty_range(&xmin, &xmax);

	/* boundary(): title + blank line on top, 2 rows below, labels + 2 left */
	if (title)
		plot_title(&name, title);
	a.ytop = PLOT_ROWS - 1 - (name.len ? 3 : 2);
	a.ybot = 2;
	a.xleft = (int)tics.widest + 2;
	a.xright = PLOT_COLS - 1 - 2 - 1;
	a.xmin = xmin;
	a.ymin = ymin;
	a.xscale = (a.xright - a.xleft) / (xmax - xmin);
	a.yscale = (a.ytop - a.ybot) / (ymax - ymin);

	canvas_init(&cv);
	draw_frame(&cv, &a, &tics, &name);
	draw_samples(&cv, &a, good, ngood, bad, nbad);
	canvas_emit(&cv, out);
	strbuf_release(&name);
}

void plot_legend(struct strbuf *out)
{
	strbuf_addstr(out, "[*] bisect-good sample\n[O] bisect-bad  sample\n");
}

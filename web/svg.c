/*
 * svg: the metric history chart. See svg.h.
 */
#include "svg.h"
#include "html.h"
#include "../lib/results/compare.h"
#include "../lib/util/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SVG_LEFT 80	/* room for the y labels */
#define SVG_RIGHT 20
#define SVG_TOP 24	/* room for the mail marks */
#define SVG_BOTTOM 40	/* room for the x labels */
#define SVG_MAX_DOTS 12	/* a commit with more runs gets a min-max bar */
#define SVG_X_LABELS 8

struct svg_scale {
	double lo, hi;	/* y range */
	size_t n;	/* columns */
};

static double svg_x(const struct svg_scale *sc, size_t i)
{
	double w = SVG_WIDTH - SVG_LEFT - SVG_RIGHT;
	return SVG_LEFT + (sc->n > 1 ? w * (double)i / (double)(sc->n - 1) : w / 2);
}

static double svg_y(const struct svg_scale *sc, double v)
{
	double h = SVG_HEIGHT - SVG_TOP - SVG_BOTTOM;
	return SVG_TOP + h * (1 - (v - sc->lo) / (sc->hi - sc->lo));
}

static void svg_label(struct strbuf *out, double x, double y, const char *anchor, const char *text)
{
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y, anchor);
	html_escape(out, text);
	strbuf_addstr(out, "</text>\n");
}

/* A step of 1, 2 or 5 times a power of ten that cuts range into about 4 parts. */
static double nice_step(double range)
{
	double raw = range / 4, p = pow(10, floor(log10(raw))), f = raw / p;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

/* The first series a point is in (its dots take that colour). */
static size_t first_series(const struct node *p)
{
	double k = 0;
	const struct node *in = node_get(p, "series");
	if (in && in->n && json_number(in->vals[0], &k) && k >= 0)
		return (size_t)k % SVG_SERIES;
	return 0;
}

/* "abcdef123456 subject" for a tooltip */
static void commit_words(struct strbuf *t, const struct node *p)
{
	const char *subject = node_str(node_get(p, "subject"));
	strbuf_addf(t, "%.12s", node_str(node_get(p, "commit")));
	if (subject && *subject)
		strbuf_addf(t, " %s", subject);
}

static void change_points(struct strbuf *out, const struct svg_scale *sc, const struct node *cps)
{
	struct strbuf t = STRBUF_INIT;
	double v, id;

	for (size_t i = 0; cps && i < cps->n; i++) {
		const struct node *cp = cps->vals[i];
		if (!json_number(node_get(cp, "index"), &v) || v < 0 || v >= (double)sc->n)
			continue;
		double x = svg_x(sc, (size_t)v);
		if (json_number(node_get(cp, "bisection"), &id))
			strbuf_addf(out, "<a href=\"/bisections/%.0f\">", id);
		strbuf_addf(out, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"><title>", x, SVG_TOP, x,
			    SVG_HEIGHT - SVG_BOTTOM);
		strbuf_reset(&t);
		strbuf_addstr(&t, "first commit of a change: ");
		commit_words(&t, cp);
		html_escape(out, t.buf);
		strbuf_addstr(out, "</title></line>");
		if (json_number(node_get(cp, "bisection"), &id))
			strbuf_addstr(out, "</a>");
		if (json_number(node_get(cp, "mail"), &id)) {
			strbuf_addf(out, "<a href=\"/reports/%.0f\"><text class=\"mailmark\" x=\"%.1f\" y=\"%d\" "
					 "text-anchor=\"middle\">✉<title>", id, x, SVG_TOP - 6);
			strbuf_reset(&t);
			strbuf_addf(&t, "the report mail: %s", node_str(node_get(cp, "mail_subject")));
			html_escape(out, t.buf);
			strbuf_addstr(out, "</title></text></a>");
		}
		strbuf_addch(out, '\n');
	}
	strbuf_release(&t);
}

/* A commit's runs: dots (or a bar), in its first series' colour, linked to its page. */
static void runs(struct strbuf *out, const struct svg_scale *sc, size_t i, const struct node *p)
{
	const struct node *s = node_get(p, "samples");
	struct strbuf t = STRBUF_INIT;
	size_t k0 = first_series(p);
	double lo, hi, v;

	strbuf_addstr(out, "<a href=\"/commit/");
	html_url_escape(out, node_str(node_get(p, "commit")));
	strbuf_addstr(out, "\">");
	if (s && s->n > SVG_MAX_DOTS && json_number(node_get(p, "min"), &lo) && json_number(node_get(p, "max"), &hi)) {
		/* many runs: their range as a bar, not a pile of dots */
		strbuf_addf(out, "<line class=\"range series-%zu\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"><title>", k0,
			    svg_x(sc, i), svg_y(sc, lo), svg_x(sc, i), svg_y(sc, hi));
		commit_words(&t, p);
		strbuf_addf(&t, ": %zu runs, ", s->n);
		compare_format_value(&t, lo);
		strbuf_addstr(&t, " to ");
		compare_format_value(&t, hi);
		html_escape(out, t.buf);
		strbuf_addstr(out, "</title></line>");
	} else {
		for (size_t k = 0; s && k < s->n; k++) {
			if (!json_number(s->vals[k], &v) || !isfinite(v))
				continue;
			strbuf_addf(out, "<circle class=\"run series-%zu\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.8\"><title>", k0,
				    svg_x(sc, i), svg_y(sc, v));
			strbuf_reset(&t);
			commit_words(&t, p);
			strbuf_addstr(&t, ": ");
			compare_format_value(&t, v);
			html_escape(out, t.buf);
			strbuf_addstr(out, "</title></circle>");
		}
	}
	strbuf_addstr(out, "</a>\n");
	strbuf_release(&t);
}

void svg_history(struct strbuf *out, const char *metric, const struct node *points, const struct node *series,
		 const struct node *cps)
{
	struct svg_scale sc = { INFINITY, -INFINITY, points->n };
	struct strbuf t = STRBUF_INIT;
	double v;

	for (size_t i = 0; i < points->n; i++) {
		const struct node *s = node_get(points->vals[i], "samples");
		for (size_t k = 0; s && k < s->n; k++)
			if (json_number(s->vals[k], &v) && isfinite(v)) {
				sc.lo = fmin(sc.lo, v);
				sc.hi = fmax(sc.hi, v);
			}
	}
	if (!isfinite(sc.lo))
		return;
	/* from 0 (a throughput of 90 against 100 is a tenth less, and looks it), 5 % of air on top */
	sc.lo = fmin(sc.lo, 0);
	sc.hi = fmax(sc.hi, 0);
	if (sc.hi == sc.lo)
		sc.hi = sc.lo + 1;
	sc.hi += (sc.hi - sc.lo) * 0.05;

	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"history\" width=\"%d\" height=\"%d\" "
			 "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
	html_escape(out, metric);
	strbuf_addstr(out, " over commits\">\n");
	/* the grid at round values, the axes */
	double step = nice_step(sc.hi - sc.lo);
	for (double g = ceil(sc.lo / step) * step; g <= sc.hi + step * 1e-9; g += step) {
		strbuf_addf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", SVG_LEFT,
			    svg_y(&sc, g), SVG_WIDTH - SVG_RIGHT, svg_y(&sc, g));
		strbuf_reset(&t);
		compare_format_value(&t, fabs(g) < step * 1e-9 ? 0 : g);
		const char *lbl = t.buf;
		while (*lbl == ' ')
			lbl++;
		svg_label(out, SVG_LEFT - 6, svg_y(&sc, g) + 4, "end", lbl);
	}
	strbuf_addf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", SVG_LEFT, SVG_TOP, SVG_LEFT,
		    SVG_HEIGHT - SVG_BOTTOM);
	strbuf_addf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>\n", SVG_LEFT, svg_y(&sc, 0),
		    SVG_WIDTH - SVG_RIGHT, svg_y(&sc, 0));
	change_points(out, &sc, cps);
	/* a line through the means of each series' commits */
	for (size_t k = 0; series && k < series->n; k++) {
		strbuf_addf(out, "<polyline class=\"series series-%zu\" points=\"", k % SVG_SERIES);
		for (size_t i = 0; i < sc.n; i++) {
			const struct node *in = node_get(points->vals[i], "series");
			bool has = false;
			double si;
			for (size_t j = 0; in && j < in->n && !has; j++)
				has = json_number(in->vals[j], &si) && (size_t)si == k;
			if (has && json_number(node_get(points->vals[i], "mean"), &v) && isfinite(v))
				strbuf_addf(out, "%.1f,%.1f ", svg_x(&sc, i), svg_y(&sc, v));
		}
		strbuf_addstr(out, "\"><title>");
		html_escape(out, node_str(node_get(series->vals[k], "name")));
		strbuf_addstr(out, "</title></polyline>\n");
	}
	for (size_t i = 0; i < sc.n; i++)
		runs(out, &sc, i, points->vals[i]);
	/* commits under the x axis: the first, the last, and a few between */
	size_t every = sc.n > SVG_X_LABELS ? (sc.n + SVG_X_LABELS - 1) / SVG_X_LABELS : 1;
	for (size_t i = 0; i < sc.n; i++) {
		if (i % every && i != sc.n - 1)
			continue;
		if (i != sc.n - 1 && sc.n - 1 - i < every / 2 + 1 && i)
			continue;	/* too close to the last one */
		strbuf_reset(&t);
		strbuf_addf(&t, "%.7s", node_str(node_get(points->vals[i], "commit")));
		svg_label(out, svg_x(&sc, i), SVG_HEIGHT - SVG_BOTTOM + 16,
			  sc.n == 1 ? "middle" : i == 0 ? "start" : i == sc.n - 1 ? "end" : "middle", t.buf);
	}
	strbuf_addstr(out, "</svg>\n");
	strbuf_release(&t);
}

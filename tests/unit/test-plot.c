/*
 * Unit tests: lib/plot, the ASCII per-sample plots of LKP report mails.
 * Golden files (tests/fixtures/plot/<case>.txt, made by lib/plot and checked
 * by eye), gnuplot 4.6 captures of the same cases (see the README there),
 * and structural checks that do not depend on either.
 *
 * PLOT_UPDATE_GOLDEN=1 build/san/tests/test-plot rewrites the golden files.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/results/plot.h"
#include "../../lib/util/strbuf.h"

/* ---- helpers ---------------------------------------------------------- */

static char fixture_dir[4096];

static void find_fixtures(void)
{
	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "plot");
}

static void fixture_path(char *path, size_t size, const char *name, const char *suffix)
{
	snprintf(path, size, "%s/%s%s", fixture_dir, name, suffix);
}

static void load_fixture(struct strbuf *sb, const char *name, const char *suffix)
{
	char path[8192];

	fixture_path(path, sizeof(path), name, suffix);
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path))
		fail_msg("cannot read fixture %s: %s", path, strerror(errno));
}

#define MAX_SAMPLES 512

/* A <case>.in: "title <metric>", "good <v>...", "bad <v>...", '#' comments. */
struct plot_case {
	char title[512];
	double good[MAX_SAMPLES], bad[MAX_SAMPLES];
	size_t ngood, nbad;
	bool differs;		/* "# differs-from-gnuplot-4.6" */
};

static size_t parse_values(const char *p, double *v)
{
	size_t n = 0;
	char *end;

	for (;;) {
		double d = strtod(p, &end);
		if (end == p)
			break;
		assert_true(n < MAX_SAMPLES);
		v[n++] = d;
		p = end;
	}
	while (*p == ' ')
		p++;
	assert_int_equal(*p, '\0');
	return n;
}

static void load_case(struct plot_case *pc, const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;

	memset(pc, 0, sizeof(*pc));
	load_fixture(&sb, name, ".in");
	for (line = strtok_r(sb.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#') {
			if (strstr(line, "differs-from-gnuplot-4.6"))
				pc->differs = true;
		} else if (!strncmp(line, "title ", 6)) {
			snprintf(pc->title, sizeof(pc->title), "%s", line + 6);
		} else if (!strncmp(line, "good", 4)) {
			pc->ngood = parse_values(line + 4, pc->good);
		} else if (!strncmp(line, "bad", 3)) {
			pc->nbad = parse_values(line + 3, pc->bad);
		} else {
			fail_msg("%s.in: bad line '%s'", name, line);
		}
	}
	strbuf_release(&sb);
}

static void render_case(struct strbuf *out, const struct plot_case *pc)
{
	plot_samples(out, pc->title, pc->good, pc->ngood, pc->bad, pc->nbad);
}

/* The plot as 20 NUL-terminated lines, checking the shape on the way. */
struct plot_lines {
	char l[PLOT_ROWS][PLOT_COLS + 1];
};

static void split_plot(const char *s, size_t len, struct plot_lines *pl)
{
	size_t row = 0;
	const char *p = s, *end = s + len;

	memset(pl, 0, sizeof(*pl));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		assert_non_null(nl);	/* every line ends in '\n' */
		assert_true(row < PLOT_ROWS);
		assert_true(nl - p <= PLOT_COLS);
		memcpy(pl->l[row], p, (size_t)(nl - p));
		if (nl > p)
			assert_int_not_equal(nl[-1], ' ');	/* trimmed */
		for (const char *c = p; c < nl; c++)
			assert_true(*c >= ' ' && *c <= '~');
		row++;
		p = nl + 1;
	}
	assert_int_equal(row, PLOT_ROWS);
}

static void plot_to_lines(struct plot_lines *pl, const char *title, const double *good, size_t ngood,
			  const double *bad, size_t nbad)
{
	struct strbuf sb = STRBUF_INIT;

	plot_samples(&sb, title, good, ngood, bad, nbad);
	split_plot(sb.buf, sb.len, pl);
	strbuf_release(&sb);
}

static char at(const struct plot_lines *pl, int row, int col)
{
	if (row < 0 || row >= PLOT_ROWS || col < 0 || col >= (int)strlen(pl->l[row]))
		return ' ';
	return pl->l[row][col];
}

/* Rows of the frame: top border, bottom border (line indexes). */
#define TOP 3
#define BOTTOM 17

/*
 * The frame read back from the text: borders' columns, and the y range from
 * the labels of the top and bottom rows (both are ticks: autoscale extends
 * the range to whole ticks).
 */
struct frame {
	int xleft, xright;
	double ymin, ymax;
};

static void read_frame(const struct plot_lines *pl, struct frame *f)
{
	char *end;
	const char *top = pl->l[TOP], *bottom = pl->l[BOTTOM];

	f->ymax = strtod(top, &end);
	assert_true(end != top);
	assert_int_equal(*end, ' ');
	f->xleft = (int)(end - top) + 1;
	f->ymin = strtod(bottom, &end);
	assert_true(end != bottom);
	assert_int_equal((int)(end - bottom) + 1, f->xleft);
	f->xright = (int)strlen(top) - 1;
	assert_int_equal((int)strlen(bottom) - 1, f->xright);
	assert_true(f->ymax > f->ymin);
}

/* Where sample i (from 1) of a plot with n indexes lands: linear, rounded. */
static int col_of(const struct frame *f, size_t i, size_t n)
{
	double xmin = 1, xmax = (double)n;

	if (n == 1) {
		xmin = 0.99;
		xmax = 1.01;
	}
	return (int)(f->xleft + ((double)i - xmin) * (f->xright - f->xleft) / (xmax - xmin) + 0.5);
}

static int row_of(const struct frame *f, double v)
{
	return BOTTOM - (int)((v - f->ymin) * (BOTTOM - TOP) / (f->ymax - f->ymin) + 0.5);
}

/* How many c inside the frame (the title and labels left out). */
static int count_char(const struct plot_lines *pl, const struct frame *f, char c)
{
	int n = 0;

	for (int r = TOP; r <= BOTTOM; r++)
		for (int x = f->xleft; x <= f->xright; x++)
			n += at(pl, r, x) == c;
	return n;
}

/* The label left of row r ("" when none). */
static void label_of(const struct plot_lines *pl, const struct frame *f, int r, char *buf, size_t size)
{
	const char *s = pl->l[r];
	int i = 0;

	while (i < f->xleft && s[i] == ' ')
		i++;
	snprintf(buf, size, "%.*s", f->xleft - 1 - i > 0 ? f->xleft - 1 - i : 0, s + i);
}

static const char *const cases[] = {
	"clat-90", "few-bad", "flat", "flat-zero", "huge", "instructions", "ipc",
	"long-title", "many", "nan", "negative", "no-bad", "no-good", "node-stores",
	"one-each", "steep", "tiny", "tiny-fixed",
};

/* ---- golden files and gnuplot --------------------------------------------- */

static void test_plot_golden_files(void **state)
{
	struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;
	struct plot_case pc;
	bool update = getenv("PLOT_UPDATE_GOLDEN") != NULL;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		strbuf_reset(&out);
		load_case(&pc, cases[i]);
		render_case(&out, &pc);
		if (update) {
			char path[8192];
			FILE *f;

			fixture_path(path, sizeof(path), cases[i], ".txt");
			f = fopen(path, "w");
			assert_non_null(f);
			assert_int_equal(fwrite(out.buf, 1, out.len, f), out.len);
			assert_int_equal(fclose(f), 0);
			continue;
		}
		load_fixture(&want, cases[i], ".txt");
		if (strcmp(out.buf, want.buf))
			fail_msg("%s: plot differs from %s.txt:\n%s", cases[i], cases[i], out.buf);
	}
	strbuf_release(&out);
	strbuf_release(&want);
}

/*
 * gnuplot 4.6 made the plots of the LKP mails. Its output is ours with a
 * leading form feed and without the last newline ("nofeed": the last row,
 * always empty here, has none).
 */
static void test_plot_same_as_gnuplot_4_6(void **state)
{
	struct strbuf out = STRBUF_INIT, cap = STRBUF_INIT;
	struct plot_case pc;
	int compared = 0;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		load_case(&pc, cases[i]);
		if (pc.differs)
			continue;
		strbuf_reset(&out);
		render_case(&out, &pc);
		load_fixture(&cap, cases[i], ".gnuplot-4.6.txt");
		/* rows 19..1 end in '\n', row 0 (empty) is the last */
		assert_true(cap.len > 0 && cap.buf[0] == '\f');
		strbuf_addch(&cap, '\n');
		if (strcmp(out.buf, cap.buf + 1))
			fail_msg("%s: differs from gnuplot 4.6:\n%s\n--- gnuplot:\n%s", cases[i], out.buf,
				 cap.buf + 1);
		compared++;
	}
	assert_true(compared >= 15);
	strbuf_release(&out);
	strbuf_release(&cap);
}

/* ---- structure -------------------------------------------------------------- */

static void test_plot_shape_of_every_case(void **state)
{
	struct strbuf out = STRBUF_INIT, title = STRBUF_INIT;
	struct plot_lines pl;
	struct plot_case pc;
	struct frame f;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		strbuf_reset(&out);
		strbuf_reset(&title);
		load_case(&pc, cases[i]);
		render_case(&out, &pc);
		split_plot(out.buf, out.len, &pl);	/* 20 lines, <= 80 columns */
		assert_string_equal(pl.l[0], "");
		assert_string_equal(pl.l[2], "");
		assert_string_equal(pl.l[18], "");
		assert_string_equal(pl.l[19], "");
		plot_title(&title, pc.title);
		if (title.len < PLOT_COLS)
			assert_non_null(strstr(pl.l[1], title.buf));
		read_frame(&pl, &f);
		assert_true(f.xright == 76);
		/* no tics on the right border: only '|', or a point */
		for (int r = TOP + 1; r < BOTTOM; r++)
			assert_non_null(strchr("|*O", at(&pl, r, f.xright)));
		if (!strcmp(cases[i], "tiny-fixed"))
			continue;	/* "%.5f" labels: the range cannot be read back */
		/* every bad sample is an 'O', every good one a '*' or hidden by an 'O' */
		for (size_t j = 0; j < pc.nbad; j++)
			if (isfinite(pc.bad[j]))
				assert_int_equal(at(&pl, row_of(&f, pc.bad[j]),
						    col_of(&f, j + 1, pc.ngood > pc.nbad ? pc.ngood : pc.nbad)), 'O');
		for (size_t j = 0; j < pc.ngood; j++)
			if (isfinite(pc.good[j]))
				assert_non_null(strchr("*O", at(&pl, row_of(&f, pc.good[j]),
						col_of(&f, j + 1, pc.ngood > pc.nbad ? pc.ngood : pc.nbad))));
	}
	strbuf_release(&out);
	strbuf_release(&title);
}

static void test_plot_title_centred(void **state)
{
	static const double good[] = { 20000, 20500, 19800, 20100 }, bad[] = { 12000, 12100 };
	struct plot_lines pl;
	struct frame f;
	size_t lead;
	(void)state;

	plot_to_lines(&pl, "fio.write_clat_90%_us", good, 4, bad, 2);
	read_frame(&pl, &f);
	lead = strspn(pl.l[1], " ");
	assert_string_equal(pl.l[1] + lead, "fio.write_clat_90__us");
	/* centred over the frame: gnuplot's (xleft + xright) / 2 - len / 2 */
	assert_int_equal(lead, (f.xleft + f.xright) / 2 - 21 / 2);
	assert_true(abs((int)(2 * lead + 21) - (f.xleft + f.xright)) <= 1);
}

static void test_plot_bad_samples_in_their_columns(void **state)
{
	static const double good[] = { 5.0e8, 5.1e8, 5.3e8, 5.0e8, 5.0e8, 4.6e8, 4.4e8, 4.2e8, 4.0e8, 3.9e8 };
	static const double bad[] = { 7.2e8, 6.1e8, 6.6e8, 7.0e8 };
	struct plot_lines pl;
	struct frame f;
	(void)state;

	plot_to_lines(&pl, "perf-stat.node-stores", good, ARRAY_SIZE(good), bad, ARRAY_SIZE(bad));
	read_frame(&pl, &f);
	assert_int_equal(count_char(&pl, &f, 'O'), 4);
	/* both series start at x = 1: the O's occupy the left part */
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int col = col_of(&f, i + 1, ARRAY_SIZE(good));

		assert_int_equal(at(&pl, row_of(&f, bad[i]), col), 'O');
		assert_true(col < f.xleft + (f.xright - f.xleft) / 2);
	}
	assert_int_equal(col_of(&f, 1, ARRAY_SIZE(good)), f.xleft);
	assert_int_equal(col_of(&f, ARRAY_SIZE(good), ARRAY_SIZE(good)), f.xright);
}

/* Frame far from 0, as the 003 mail's perf-stat.iTLB-load-misses: 4.3e+07..3.3e+07. */
static void test_plot_range_far_from_zero(void **state)
{
	static const double good[] = { 4.23e7, 4.1e7, 4.05e7, 4.0e7, 4.12e7, 4.08e7 };
	static const double bad[] = { 3.38e7, 3.5e7, 3.46e7 };
	struct plot_lines pl;
	struct frame f;
	char label[32];
	int nlabels = 0;
	(void)state;

	plot_to_lines(&pl, "perf-stat.iTLB-load-misses", good, ARRAY_SIZE(good), bad, ARRAY_SIZE(bad));
	read_frame(&pl, &f);
	assert_true(f.ymax == 4.3e7);
	assert_true(f.ymin == 3.3e7);
	assert_true(strncmp(pl.l[TOP], "  4.3e+07 ++", 12) == 0);
	assert_true(strncmp(pl.l[BOTTOM], "  3.3e+07 ++", 12) == 0);
	/* every labelled row has the tick mark "++" (or a point on the border) */
	for (int r = TOP; r <= BOTTOM; r++) {
		label_of(&pl, &f, r, label, sizeof(label));
		if (!*label) {
			assert_non_null(strchr("|*O", at(&pl, r, f.xleft)));
			continue;
		}
		nlabels++;
		assert_non_null(strchr("+*O", at(&pl, r, f.xleft)));
		assert_int_equal(at(&pl, r, f.xleft + 1), '+');
	}
	assert_int_equal(nlabels, 11);	/* 1e6 steps */
}

static void test_plot_largest_good_on_top_rows(void **state)
{
	static const double good[] = { 0.41, 0.39, 0.43, 0.40, 0.38, 0.42 };
	static const double bad[] = { 0.03, 0.02, 0.04 };
	struct plot_lines pl;
	struct frame f;
	int top_star = -1;
	(void)state;

	plot_to_lines(&pl, "perf-stat.ipc", good, ARRAY_SIZE(good), bad, ARRAY_SIZE(bad));
	read_frame(&pl, &f);
	/* near 0 relative to the spread: the axis starts at 0, as in the 000 mail */
	assert_true(f.ymin == 0);
	assert_true(strncmp(pl.l[BOTTOM], "     0 ++", 9) == 0);
	/* the top is the first tick above the largest sample */
	assert_true(f.ymax >= 0.43 && f.ymax - 0.43 < 0.05);
	for (int r = 0; r < PLOT_ROWS && top_star < 0; r++)
		if (strchr(pl.l[r] + f.xleft, '*'))
			top_star = r;
	assert_int_equal(top_star, row_of(&f, 0.43));
	assert_true(top_star <= TOP + 1);
	assert_int_equal(at(&pl, top_star, col_of(&f, 3, 6)), '*');
}

static void test_plot_point_on_left_border_at_tick(void **state)
{
	static const double good[] = { 5000, 5200, 5100 }, bad[] = { 4000, 4100 };
	struct plot_lines pl;
	struct frame f;
	(void)state;

	plot_to_lines(&pl, "x", good, 3, bad, 2);
	read_frame(&pl, &f);
	assert_int_equal(at(&pl, row_of(&f, 5000), f.xleft), '*');
	assert_int_equal(at(&pl, row_of(&f, 5000), f.xleft + 1), '+');
	assert_int_equal(at(&pl, row_of(&f, 4000), f.xleft), 'O');
	assert_int_equal(at(&pl, row_of(&f, 4000), f.xleft + 1), '+');
	assert_non_null(strstr(pl.l[row_of(&f, 5000)], " 5000 *+"));
	assert_non_null(strstr(pl.l[row_of(&f, 4000)], " 4000 O+"));
}

static void test_plot_flat_line(void **state)
{
	static const double good[] = { 750, 750, 750, 750, 750, 750 }, bad[] = { 750, 750 };
	struct plot_lines pl;
	struct frame f;
	int r;
	(void)state;

	plot_to_lines(&pl, "vmstat.system.in", good, 6, bad, 2);
	read_frame(&pl, &f);
	/* [750:750] widened by 1% each way, then to whole tics */
	assert_true(f.ymin < 750 && f.ymax > 750);
	r = row_of(&f, 750);
	assert_true(r > TOP && r < BOTTOM);
	/* an O hides the * of the same index; the rest is one dotted row */
	assert_int_equal(at(&pl, r, col_of(&f, 1, 6)), 'O');
	assert_int_equal(at(&pl, r, col_of(&f, 2, 6)), 'O');
	for (size_t i = 3; i <= 6; i++)
		assert_int_equal(at(&pl, r, col_of(&f, i, 6)), '*');
	for (int c = col_of(&f, 1, 6) + 1; c < f.xright; c++)
		assert_non_null(strchr(c == f.xleft + 1 ? "O*.+" : "O*.", at(&pl, r, c)));
	assert_int_equal(count_char(&pl, &f, 'O'), 2);
	assert_int_equal(count_char(&pl, &f, '*'), 4);
	assert_int_equal(count_char(&pl, &f, ':'), 0);
}

static void test_plot_one_sample_each(void **state)
{
	static const double good[] = { 52000 }, bad[] = { 48000 };
	struct plot_lines pl;
	struct frame f;
	int mid;
	(void)state;

	plot_to_lines(&pl, "hackbench.throughput", good, 1, bad, 1);
	read_frame(&pl, &f);
	mid = col_of(&f, 1, 1);
	assert_int_equal(mid, (f.xleft + f.xright + 1) / 2);
	assert_int_equal(at(&pl, row_of(&f, 52000), mid), '*');
	assert_int_equal(at(&pl, row_of(&f, 48000), mid), 'O');
	assert_int_equal(count_char(&pl, &f, '*'), 1);
	assert_int_equal(count_char(&pl, &f, 'O'), 1);
	assert_int_equal(count_char(&pl, &f, '.'), 0);
}

static void test_plot_no_bad_samples(void **state)
{
	static const double good[] = { 100, 102, 98, 101, 99, 103, 100 };
	struct plot_lines pl, pl2;
	struct frame f;
	(void)state;

	plot_to_lines(&pl, "reaim.jobs_per_min", good, ARRAY_SIZE(good), NULL, 0);
	read_frame(&pl, &f);
	assert_int_equal(count_char(&pl, &f, 'O'), 0);
	assert_int_equal(count_char(&pl, &f, '*'), 7);
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_int_equal(at(&pl, row_of(&f, good[i]), col_of(&f, i + 1, 7)), '*');
	/* a non-NULL empty series is the same */
	plot_to_lines(&pl2, "reaim.jobs_per_min", good, ARRAY_SIZE(good), good, 0);
	assert_memory_equal(&pl, &pl2, sizeof(pl));
}

static void test_plot_negative_values(void **state)
{
	static const double good[] = { -120, -80, 40, 15, -60 }, bad[] = { -150, -140, -170 };
	struct plot_lines pl;
	struct frame f;
	char label[32];
	(void)state;

	plot_to_lines(&pl, "sched_debug.cfs_rq:/.spread0.avg", good, 5, bad, 3);
	assert_non_null(strstr(pl.l[1], "sched_debug.cfs_rq:_.spread0.avg"));
	read_frame(&pl, &f);
	assert_true(f.ymin <= -170 && f.ymax >= 40);
	assert_true(f.ymin < 0 && f.ymax > 0);
	label_of(&pl, &f, BOTTOM, label, sizeof(label));
	assert_int_equal(label[0], '-');
	label_of(&pl, &f, TOP, label, sizeof(label));
	assert_true(isdigit((unsigned char)label[0]));
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(at(&pl, row_of(&f, bad[i]), col_of(&f, i + 1, 5)), 'O');
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(at(&pl, row_of(&f, good[i]), col_of(&f, i + 1, 5)), '*');
}

static void test_plot_huge_values(void **state)
{
	static const double good[] = { 1.43e13, 1.39e13, 1.45e13, 1.41e13 }, bad[] = { 1.62e13, 1.6e13 };
	struct plot_lines pl;
	struct frame f;
	(void)state;

	plot_to_lines(&pl, "perf-stat.cpu-cycles", good, 4, bad, 2);
	read_frame(&pl, &f);
	assert_non_null(strstr(pl.l[TOP], "e+13 ++"));
	assert_true(f.ymax >= 1.62e13 && f.ymin <= 1.39e13 && f.ymin > 0);
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(at(&pl, row_of(&f, bad[i]), col_of(&f, i + 1, 4)), 'O');

	/* 1e300 still plots; a spread that overflows a double does not */
	static const double big[] = { 1e300, 3e300 }, over[] = { -1.5e308, 1.5e308 };
	struct strbuf sb = STRBUF_INIT;

	plot_samples(&sb, "big", big, 2, NULL, 0);
	split_plot(sb.buf, sb.len, &pl);
	strbuf_reset(&sb);
	plot_samples(&sb, "over", over, 2, NULL, 0);
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

static void test_plot_tiny_values(void **state)
{
	static const double good[] = { 0.0011, 0.0009, 0.0013, 0.001 }, bad[] = { 0.0031, 0.0029 };
	struct plot_lines pl;
	struct frame f;
	char label[32];
	(void)state;

	plot_to_lines(&pl, "perf-stat.dTLB-load-miss-rate%", good, 4, bad, 2);
	read_frame(&pl, &f);
	label_of(&pl, &f, row_of(&f, 0.001), label, sizeof(label));
	assert_string_equal(label, "0.001");
	assert_true(f.ymin <= 0.0009 && f.ymax >= 0.0031);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(at(&pl, row_of(&f, good[i]), col_of(&f, i + 1, 4)), '*');
}

static void test_plot_non_finite_skipped(void **state)
{
	static const double good[] = { 10, NAN, 10, INFINITY, 10, 10 }, bad[] = { NAN, 5, -INFINITY, 13 };
	struct plot_lines pl;
	struct frame f;
	int r, c5, c6;
	(void)state;

	plot_to_lines(&pl, "x", good, 6, bad, 4);
	read_frame(&pl, &f);
	/* the range ignores them, the others keep their index */
	assert_true(f.ymin == 5 && f.ymax == 13);
	assert_int_equal(count_char(&pl, &f, '*'), 4);
	assert_int_equal(count_char(&pl, &f, 'O'), 2);
	assert_int_equal(at(&pl, row_of(&f, 5), col_of(&f, 2, 6)), 'O');
	assert_int_equal(at(&pl, row_of(&f, 13), col_of(&f, 4, 6)), 'O');
	r = row_of(&f, 10);
	assert_true(r > TOP && r < BOTTOM);
	/* the dotted line only joins neighbours: 5 -> 6 */
	c5 = col_of(&f, 5, 6);
	c6 = col_of(&f, 6, 6);
	for (int c = f.xleft + 1; c < f.xright; c++) {
		char ch = at(&pl, r, c);

		if (c > c5 && c < c6)
			assert_int_equal(ch, '.');
		else if (c != col_of(&f, 3, 6) && c != c5)
			assert_true(ch == ' ' || ch == '+');	/* '+' = a tick mark */
	}
}

static void test_plot_nothing_without_finite_samples(void **state)
{
	static const double nan3[] = { NAN, INFINITY, -INFINITY };
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	strbuf_addstr(&sb, "before\n");
	plot_samples(&sb, "x", nan3, 3, nan3, 2);
	plot_samples(&sb, "x", NULL, 0, NULL, 0);
	plot_samples(&sb, "x", NULL, 5, NULL, 7);
	assert_string_equal(sb.buf, "before\n");
	strbuf_release(&sb);
}

static void test_plot_appends_deterministically(void **state)
{
	static const double good[] = { 3, 1, 4, 1, 5, 9, 2, 6 }, bad[] = { 5, 3, 5 };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	(void)state;

	strbuf_addstr(&a, "head\n");
	plot_samples(&a, "pi", good, 8, bad, 3);
	plot_samples(&b, "pi", good, 8, bad, 3);
	assert_string_equal(a.buf + 5, b.buf);
	assert_memory_equal(a.buf, "head\n", 5);
	plot_samples(&b, "pi", good, 8, bad, 3);
	assert_int_equal(b.len, 2 * (a.len - 5));
	assert_memory_equal(b.buf, b.buf + b.len / 2, b.len / 2);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_plot_many_samples(void **state)
{
	double good[500], bad[300];
	struct plot_lines pl;
	struct frame f;
	(void)state;

	for (size_t i = 0; i < 500; i++)
		good[i] = 1000 + (double)(i % 17) * 3;
	for (size_t i = 0; i < 300; i++)
		bad[i] = 2000 - (double)(i % 11) * 5;
	plot_to_lines(&pl, "many", good, 500, bad, 300);
	read_frame(&pl, &f);
	/* the bad samples (x 1..300 of 500) stay left of x = 301 */
	for (int r = TOP + 1; r < BOTTOM; r++) {
		const char *o = strrchr(pl.l[r], 'O');

		if (o)
			assert_true(o - pl.l[r] <= col_of(&f, 300, 500));
	}
}

static void test_plot_long_title(void **state)
{
	static const double good[] = { 12.5, 12.8 }, bad[] = { 15.2 };
	struct strbuf name = STRBUF_INIT;
	struct plot_lines pl;
	const char *t = "perf-profile.calltrace.cycles-pp.entry_SYSCALL_64_after_hwframe."
			"__x64_sys_write.ksys_write.vfs_write.xfs_file_write_iter";
	(void)state;

	plot_to_lines(&pl, t, good, 2, bad, 1);
	plot_title(&name, t);
	assert_true(name.len > PLOT_COLS);
	assert_int_equal(strlen(pl.l[1]), PLOT_COLS);
	assert_memory_equal(pl.l[1], name.buf, PLOT_COLS);
	strbuf_release(&name);

	/* 80 characters: pushed left to fit */
	char t80[81];
	memset(t80, 'm', 80);
	t80[80] = '\0';
	plot_to_lines(&pl, t80, good, 2, bad, 1);
	assert_string_equal(pl.l[1], t80);
}

static void test_plot_empty_title(void **state)
{
	static const double good[] = { 1, 2, 3 };
	struct plot_lines pl;
	(void)state;

	/* gnuplot without a title: the frame starts one row higher */
	plot_to_lines(&pl, "", good, 3, NULL, 0);
	assert_string_equal(pl.l[0], "");
	assert_string_equal(pl.l[1], "");
	assert_non_null(strstr(pl.l[2], "3 ++---"));
	assert_non_null(strstr(pl.l[BOTTOM], "1 *+---"));
	plot_to_lines(&pl, NULL, good, 3, NULL, 0);
	assert_non_null(strstr(pl.l[2], "3 ++---"));
}

static void test_plot_title_sanitized(void **state)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "fio.write_clat_90%_us", "fio.write_clat_90__us" },
		{ "fio.latency_4ms%", "fio.latency_4ms_" },
		{ "sched_debug.cfs_rq:/.load.avg", "sched_debug.cfs_rq:_.load.avg" },
		{ "a+b=c-d:e.f_g", "a+b=c-d:e.f_g" },
		{ "with space\tand\ttab", "with_space_and_tab" },
		{ "caf\xc3\xa9 \xe2\x82\xac", "caf___" },	/* one '_' per UTF-8 character */
		{ "x\x80y", "x_y" },
		{ "", "" },
	};
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		strbuf_reset(&sb);
		plot_title(&sb, t[i].in);
		assert_string_equal(sb.buf, t[i].out);
	}
	strbuf_release(&sb);
}

static void test_plot_legend(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	strbuf_addstr(&sb, "x\n");
	plot_legend(&sb);
	assert_string_equal(sb.buf, "x\n[*] bisect-good sample\n[O] bisect-bad  sample\n");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plot_golden_files),
		cmocka_unit_test(test_plot_same_as_gnuplot_4_6),
		cmocka_unit_test(test_plot_shape_of_every_case),
		cmocka_unit_test(test_plot_title_centred),
		cmocka_unit_test(test_plot_bad_samples_in_their_columns),
		cmocka_unit_test(test_plot_range_far_from_zero),
		cmocka_unit_test(test_plot_largest_good_on_top_rows),
		cmocka_unit_test(test_plot_point_on_left_border_at_tick),
		cmocka_unit_test(test_plot_flat_line),
		cmocka_unit_test(test_plot_one_sample_each),
		cmocka_unit_test(test_plot_no_bad_samples),
		cmocka_unit_test(test_plot_negative_values),
		cmocka_unit_test(test_plot_huge_values),
		cmocka_unit_test(test_plot_tiny_values),
		cmocka_unit_test(test_plot_non_finite_skipped),
		cmocka_unit_test(test_plot_nothing_without_finite_samples),
		cmocka_unit_test(test_plot_appends_deterministically),
		cmocka_unit_test(test_plot_many_samples),
		cmocka_unit_test(test_plot_long_title),
		cmocka_unit_test(test_plot_empty_title),
		cmocka_unit_test(test_plot_title_sanitized),
		cmocka_unit_test(test_plot_legend),
	};
	find_fixtures();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * svg: the metric history chart. See svg.h.
 */
#include "svg.h"
#include "page.h"
#include "../lib/results/compare.h"
#include "../lib/util/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SVG_LEFT 80	/* room for the y labels */
#define SVG_RIGHT 20
#define SVG_TOP 20
#define SVG_BOTTOM 40	/* room for the x labels */
#define SVG_MAX_DOTS 12	/* a commit with more runs gets a min-max bar */

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
	strbuf_addf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"11\">", x, y, anchor);
	page_escape(out, text);
	strbuf_addstr(out, "</text>\n");
}

void svg_history(struct strbuf *out, const char *metric, const struct node *points, const struct node *change_points)
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
	/* 5 % of air; a flat series gets a range around its value */
	double pad = sc.hi > sc.lo ? (sc.hi - sc.lo) * 0.05 : fmax(fabs(sc.hi) * 0.05, 1);
	sc.lo -= pad;
	sc.hi += pad;

	strbuf_addf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"history\" width=\"%d\" height=\"%d\" "
			 "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SVG_WIDTH, SVG_HEIGHT, SVG_WIDTH, SVG_HEIGHT);
	page_escape(out, metric);
	strbuf_addstr(out, " over commits\">\n");
	/* axes and the y range */
	strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", SVG_LEFT, SVG_TOP, SVG_LEFT,
		    SVG_HEIGHT - SVG_BOTTOM);
	strbuf_addf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#888\"/>\n", SVG_LEFT,
		    SVG_HEIGHT - SVG_BOTTOM, SVG_WIDTH - SVG_RIGHT, SVG_HEIGHT - SVG_BOTTOM);
	for (int k = 0; k <= 4; k++) {
		double val = sc.lo + (sc.hi - sc.lo) * k / 4;
		strbuf_reset(&t);
		compare_format_value(&t, val);
		svg_label(out, SVG_LEFT - 6, svg_y(&sc, val) + 4, "end", t.buf);
	}
	/* change points under the data */
	for (size_t i = 0; change_points && i < change_points->n; i++) {
		const struct node *cp = change_points->vals[i];
		if (!json_number(node_get(cp, "index"), &v) || v < 0 || v >= (double)sc.n)
			continue;
		double x = svg_x(&sc, (size_t)v);
		strbuf_addf(out, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#d00\" "
				 "stroke-dasharray=\"4 3\"><title>", x, SVG_TOP, x, SVG_HEIGHT - SVG_BOTTOM);
		strbuf_reset(&t);
		strbuf_addf(&t, "first commit of a change: %.12s", node_str(node_get(cp, "commit")));
		page_escape(out, t.buf);
		strbuf_addstr(out, "</title></line>\n");
	}
	/* the means as a line, the runs as dots, each commit's name in a tooltip */
	strbuf_addstr(out, "<polyline class=\"mean\" fill=\"none\" stroke=\"#36c\" points=\"");
	for (size_t i = 0; i < sc.n; i++)
		if (json_number(node_get(points->vals[i], "mean"), &v) && isfinite(v))
			strbuf_addf(out, "%.1f,%.1f ", svg_x(&sc, i), svg_y(&sc, v));
	strbuf_addstr(out, "\"/>\n");
	for (size_t i = 0; i < sc.n; i++) {
		const struct node *p = points->vals[i], *s = node_get(p, "samples");
		double lo, hi;
		if (s && s->n > SVG_MAX_DOTS && json_number(node_get(p, "min"), &lo) &&
		    json_number(node_get(p, "max"), &hi)) {
			/* many runs: their range as a bar, not a pile of dots */
			strbuf_addf(out, "<line class=\"range\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
					 "stroke=\"#36c\" stroke-width=\"3\"><title>", svg_x(&sc, i), svg_y(&sc, lo),
				    svg_x(&sc, i), svg_y(&sc, hi));
			strbuf_reset(&t);
			strbuf_addf(&t, "%.12s: %zu runs, ", node_str(node_get(p, "commit")), s->n);
			compare_format_value(&t, lo);
			strbuf_addstr(&t, " to ");
			compare_format_value(&t, hi);
			page_escape(out, t.buf);
			strbuf_addstr(out, "</title></line>\n");
			continue;
		}
		for (size_t k = 0; s && k < s->n; k++) {
			if (!json_number(s->vals[k], &v) || !isfinite(v))
				continue;
			strbuf_addf(out, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"#36c\"><title>",
				    svg_x(&sc, i), svg_y(&sc, v));
			strbuf_reset(&t);
			strbuf_addf(&t, "%.12s: ", node_str(node_get(p, "commit")));
			compare_format_value(&t, v);
			page_escape(out, t.buf);
			strbuf_addstr(out, "</title></circle>\n");
		}
	}
	/* the first and last commits under the x axis */
	strbuf_reset(&t);
	strbuf_addf(&t, "%.12s", node_str(node_get(points->vals[0], "commit")));
	svg_label(out, svg_x(&sc, 0), SVG_HEIGHT - SVG_BOTTOM + 16, sc.n > 1 ? "start" : "middle", t.buf);
	if (sc.n > 1) {
		strbuf_reset(&t);
		strbuf_addf(&t, "%.12s", node_str(node_get(points->vals[sc.n - 1], "commit")));
		svg_label(out, svg_x(&sc, sc.n - 1), SVG_HEIGHT - SVG_BOTTOM + 16, "end", t.buf);
	}
	strbuf_addstr(out, "</svg>\n");
	strbuf_release(&t);
}

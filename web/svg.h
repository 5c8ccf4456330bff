/*
 * svg (prefix svg_): the metric history chart of the dashboard, as inline
 * SVG (no script, no external file): one column a commit in the order they
 * were first run, a dot a run (a min-max bar for a commit with many runs),
 * a line through the means, and a red line at each change point. Every
 * text in it is escaped.
 */
#ifndef LKP_WEB_SVG_H
#define LKP_WEB_SVG_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#define SVG_WIDTH 900
#define SVG_HEIGHT 320

/*
 * Append the chart: points is store_history()'s sequence with samples as
 * numbers; change_points a sequence of maps with commit and index (into
 * points). Nothing is drawn for a point without samples.
 */
void svg_history(struct strbuf *out, const char *metric, const struct node *points, const struct node *change_points);

#endif

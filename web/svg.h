/*
 * svg (prefix svg_): the metric history chart of the dashboard, as inline
 * SVG (no script, no external file, no inline style: classes the
 * stylesheet colours): one column a commit in the order they were first
 * run, a dot a run (a min-max bar for a commit with many runs), one line
 * through the means a series (a watched tree), the y axis from 0, a dashed
 * red line at each change point linked to its bisection and a mark linked
 * to its mail. Every commit's dots link to its page and say on hover which
 * commit they are. Every text in it is escaped.
 */
#ifndef LKP_WEB_SVG_H
#define LKP_WEB_SVG_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#define SVG_WIDTH 900
#define SVG_HEIGHT 320
#define SVG_SERIES 6		/* colours (.series-0 .. .series-5); more series reuse them */

/*
 * Append the chart: points are maps with commit, subject, samples (numbers),
 * mean, min, max and series (indexes into series, whose maps have a name);
 * change_points maps with commit, subject, index (into points), bisection
 * and, when mailed, mail and mail_subject. Nothing is drawn for a point
 * without samples.
 */
void svg_history(struct strbuf *out, const char *metric, const struct node *points, const struct node *series,
		 const struct node *change_points);

#endif

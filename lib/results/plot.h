/*
 * plot: the ASCII per-sample plots of LKP report mails (lkp-tests'
 * lib/plot.rb mmplot), drawn natively: no gnuplot at run time.
 *
 * lkp-tests pipes each metric to gnuplot:
 *   set terminal dumb nofeed size 80,20; set title '<metric>';
 *   set noxtics; set ytics nomirror;
 *   plot '-' with points pt 15 lt 0 notitle,           (bad:  'O')
 *        '-' with linespoints pt -22 lt 0 notitle      (good: '*' + dots)
 * with x = sample index from 1. The mails of 2017-2021 were made by
 * gnuplot 4.6, and this module redoes what 4.6 does, step by step
 * (margins from the widest "% g" tick label, autoscale extended to the
 * next tick of a 1/2/5x10^k step chosen for about 20 tics per decade,
 * the dumb terminal's line drawing with priorities: dots < border <
 * points < text). For finite samples the output is byte for byte gnuplot
 * 4.6's, minus its leading form feed and plus a final newline, except for
 * titles too long to centre (gnuplot drops them; we print their first 80
 * characters); see tests/fixtures/plot/README for the captures and the
 * other deliberate differences.
 *
 * Output shape: PLOT_ROWS lines of at most PLOT_COLS columns, each ending
 * in '\n', trailing spaces trimmed (gnuplot 4.6 trims them too):
 *   line 0       empty
 *   line 1       the title, centred over the frame
 *   line 2       empty
 *   lines 3..17  the frame (15 rows): y tick labels right-aligned left of
 *                the left border, "++" at each tick, top and bottom rows
 *                are the border ("+---+"); the right border has no ticks
 *   lines 18, 19 empty
 * Deterministic: the same samples always give the same bytes; no locale,
 * no clock, no environment.
 */
#ifndef LKP_PLOT_H
#define LKP_PLOT_H

#include "../util/strbuf.h"

#include <stddef.h>

#define PLOT_COLS 80
#define PLOT_ROWS 20

/*
 * Append an 80x20 plot of the samples to out: `good` (base commit, '*'
 * joined by dots) and `bad` (new commit, 'O'), x = sample index from 1
 * (both series start at x = 1; the x range is 1..max(ngood, nbad)).
 * title is the metric name, sanitized as LKP does (plot_title()).
 *
 * Non-finite samples (NaN, +-inf) are skipped: not drawn, not counted in
 * the y range, and the dotted line of the good series is broken there (as
 * gnuplot does for undefined points); the other samples keep their index.
 * A NULL series is the same as an empty one. When no sample at all is
 * finite, or the spread of the samples overflows a double (magnitudes
 * near 1e308), nothing is appended (gnuplot refuses to plot those too).
 */
void plot_samples(struct strbuf *out, const char *title, const double *good, size_t ngood,
		  const double *bad, size_t nbad);

/* The two legend lines printed after all plots: "[*] bisect-good sample\n[O] bisect-bad  sample\n" */
void plot_legend(struct strbuf *out);

/*
 * Append LKP's plot title for a metric name: every character outside
 * [a-zA-Z0-9_.:+=-] becomes '_' (Ruby's tr('^a-zA-Z0-9_.:+=-', '_'), one
 * '_' per UTF-8 character), e.g. "fio.write_clat_90%_us" ->
 * "fio.write_clat_90__us". The same name lkp-tests gives the PNG files.
 */
void plot_title(struct strbuf *out, const char *metric);

#endif

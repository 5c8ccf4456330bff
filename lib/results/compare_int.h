/*
 * compare_int: what the files of lib/results/compare share and nobody else
 * may see: a side's moments, lkp-tests'
 * summaries, selection and order of rows. The public API is compare.h.
 * The calls go one way: compare_render.c -> compare.c -> compare_lkp.c ->
 * compare_metric.c (each may also call those after it).
 */
#ifndef LKP_COMPARE_INT_H
#define LKP_COMPARE_INT_H

#include "compare.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static inline bool has_suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);
	return n >= m && !strcmp(s + n - m, x);
}

/* ---- metrics (compare_metric.c) ---- */

/* The part before the first dot: the program that made the metric. */
size_t compare_metric_base_len(const char *m);

/* ---- the rows (compare.c), for the tables ---- */

/* Mean and population stddev of s->v, in lkp-tests' arithmetic (compare.c). */
void compare_moments(struct compare_side *s);

/* ---- lkp-tests' summary, selection and order (compare_lkp.c) ---- */

/*
 * lkp-tests' StatSummary: sorted, leading -1s dropped (its "empty data
 * point"), min(n>>5, max_margin) samples off each end, then the min, the
 * middle element ("mean" in lkp-tests, a median) and the max. false: no
 * sample left.
 */
struct lkp_summary {
	size_t n;
	double min, median, max;
};

bool compare_lkp_summarize(const double *v, size_t n, size_t max_margin, struct lkp_summary *out);

/* A side in one pass of the selection: its matrix, and the columns (runs) that count. */
struct matrix;
struct pass_side {
	const struct matrix *m;
	const bool *keep;	/* columns kept (NULL: every one) */
	size_t ncols;		/* the matrix's columns */
	size_t cols;		/* those kept: lkp-tests' matrix_cols */
};

/* The values of the kept columns, zero-padded to the matrix's columns as lkp-tests pads them; NULL v: all 0. */
double *compare_pass_values(const struct pass_side *p, const double *v, size_t n, size_t *out);

/*
 * StatCompare#process for the new side a against the base b in one pass:
 * NULL when lkp-tests selects the stat, else why not. vb/va: the pass's
 * values (zero-padded); present_b: the base's matrix has the stat.
 */
const char *compare_lkp_select(const char *k, bool function, bool present_b, const struct pass_side *pb,
			       const double *vb, size_t nb, const struct pass_side *pa, const double *va, size_t na,
			       const struct compare_opts *o, bool incomplete_pass);

/* Compare.sort_stats; lkp_changes: per row, nsides-1 figures for the order (a base of 0 is 1e-100) */
void compare_sort_rows(struct compare_result *res, const double *lkp_changes);

#endif

/*
 * compare_lkp: lkp-tests' rules in a comparison, so that our rows are
 * theirs on the same samples: StatSummary, the selection of changed stats
 * (lib/stats.rb: StatCompare, _get_changed_stats, reasonable_perf_change?)
 * and the order of the changed rows (Compare.sort_stats). See compare.c.
 */
#include "compare_int.h"
#include "matrix.h"
#include "../stats/lkpetc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RATIO 5.0

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

bool compare_lkp_summarize(const double *v, size_t n, size_t max_margin, struct lkp_summary *out)
{
	size_t margin = n >> 5, lo = 0, hi = n;
	double *sorted;

	memset(out, 0, sizeof(*out));
	if (!n)
		return false;
	double small[64];
	sorted = n <= 64 ? small : xmalloc(n * sizeof(*sorted));
	memcpy(sorted, v, n * sizeof(*sorted));
	if (n <= 64) {
		/* a side's runs: an insertion sort beats qsort's calls on a few dozen */
		for (size_t i = 1; i < n; i++) {
			double x = sorted[i];
			size_t j = i;
			for (; j && sorted[j - 1] > x; j--)
				sorted[j] = sorted[j - 1];
			sorted[j] = x;
		}
	} else {
		qsort(sorted, n, sizeof(*sorted), cmp_double);
	}
	if (margin > max_margin)
		margin = max_margin;
	while (lo < hi && sorted[lo] == -1)
		lo++;
	/* Ruby's array[margin..-margin-1] of what is left */
	lo += margin;
	hi = hi - lo >= margin ? hi - margin : lo;
	if (lo < hi) {
		out->n = hi - lo;
		out->min = sorted[lo];
		out->max = sorted[hi - 1];
		out->median = sorted[lo + (hi - lo) / 2];
	}
	if (sorted != small)
		free(sorted);
	return out->n > 0;
}

/*
 * lkp-tests' reasonable_perf_change?: the first of perf-metrics-threshold.yaml
 * that matches (the larger maximum reaches the floor; a whole-number floor
 * also wants the change of the medians to reach half of it, in integer
 * division), else a floor for the family.
 */
static bool reasonable_change(const char *m, double delta, double max)
{
	double floor;
	bool whole;

	if (lkpetc_threshold(m, &floor, &whole))
		return !(max < floor) && !(whole && delta < trunc(floor / 2));
	if (has_prefix(m, "iostat"))
		return max > 1;
	if (has_prefix(m, "pagetypeinfo") || has_prefix(m, "buddyinfo") || has_prefix(m, "slabinfo"))
		return delta > 100;
	if (has_prefix(m, "proc-vmstat") || strstr(m, "meminfo"))
		return max > 1000;
	if (has_prefix(m, "lock_stat"))
		return delta > (strstr(m, "time") ? 1000 : 10000);
	if (has_prefix(m, "interrupts") || has_prefix(m, "softirqs"))
		return max > 10000;
	return true;
}

/* ---- lkp-tests' selection (lib/stats.rb: StatCompare, _get_changed_stats) ---- */

/* The values of the kept columns, zero-padded to the matrix's columns as lkp-tests pads them; NULL v: all 0. */
double *compare_pass_values(const struct pass_side *p, const double *v, size_t n, size_t *out)
{
	size_t total = n > p->ncols ? n : p->ncols;
	double *x = xcalloc(total ? total : 1, sizeof(*x));

	*out = 0;
	for (size_t c = 0; c < total; c++)
		if (!p->keep || c >= p->ncols || p->keep[c])
			x[(*out)++] = v && c < n ? v[c] : 0;
	return x;
}

static bool in_index(const struct pass_side *p, const char *key)
{
	return matrix_get(p->m, key) != NULL;
}

/* Does the base have a stat of this program (lock_stat, perf-profile: a monitor it ran)? */
static bool monitored(const struct pass_side *b, const char *k)
{
	size_t len = compare_metric_base_len(k) + 1;	/* "perf-profile." */

	for (size_t i = 0; i < b->m->ncol; i++)
		if (!strncmp(matrix_col_name(b->m, &b->m->col[i]), k, len))
			return true;
	return false;
}

/*
 * skip_function_stat?: a .fail/.error/.warn stat counts only when the base
 * has its .pass, a .pass only when the base has one of those (the kernel
 * log, last_state and stderr stats always count).
 */
static bool function_skipped(const struct pass_side *b, const char *k)
{
	static const char *const bad[] = { ".error", ".warn", ".fail" };
	const char *dot = strrchr(k, '.');
	size_t blen = dot ? (size_t)(dot - k) : strlen(k);
	char *name;
	bool has;

	if (has_prefix(k, "dmesg.") || has_prefix(k, "kmsg.") || has_prefix(k, "last_state.") || has_prefix(k, "stderr."))
		return false;
	for (size_t i = 0; i < 3; i++)
		if (has_suffix(k, bad[i])) {
			name = xasprintf("%.*s.pass", (int)blen, k);
			has = in_index(b, name);
			free(name);
			return !has;
		}
	if (has_suffix(k, ".pass")) {
		has = false;
		for (size_t i = 0; i < 3 && !has; i++) {
			name = xasprintf("%.*s%s", (int)blen, k, bad[i]);
			has = in_index(b, name);
			free(name);
		}
		return !has;
	}
	return false;
}

/* A whole number, as Ruby's JSON gives an Integer (perf-profile's rule depends on it). */
static bool is_whole(double v)
{
	return v == trunc(v);
}

/*
 * StatCompare#process for the new side a against the base b in one pass:
 * NULL when lkp-tests selects the stat, else why not. vb/va: the pass's
 * values (zero-padded); present_b: the base's matrix has the stat.
 */
const char *compare_lkp_select(const char *k, bool function, bool present_b, const struct pass_side *pb,
			       const double *vb, size_t nb, const struct pass_side *pa, const double *va, size_t na,
			       const struct compare_opts *o, bool incomplete_pass)
{
	struct lkp_summary sb, sa;

	if (incomplete_pass && !has_prefix(k, "dmesg.") && !has_prefix(k, "last_state.") && !has_prefix(k, "stderr."))
		return "a run is incomplete (last_state.is_incomplete_run): over every run only the kernel log, "
		       "last_state and stderr stats count";
	if (!(o && o->more) && !lkpetc_bisectable(k) && !lkpetc_report_allowed(k))
		return "left out by lkp-tests' stat-denylist (compare --more shows it)";
	if (function) {
		if (function_skipped(pb, k))
			return "a .fail/.error/.warn stat without its .pass in the base, or a .pass without them";
	} else if (pa->cols < 3 && pb->cols < 3) {
		return "fewer than 3 runs on both sides";
	}
	if (!present_b && !function &&
	    !((has_prefix(k, "lock_stat.") || has_prefix(k, "perf-profile.")) && monitored(pb, k)))
		return "not in the base";
	size_t margin = function ? 0 : 3;
	if (!compare_lkp_summarize(vb, nb, margin, &sb))
		return "no samples in the base";
	if (nb <= 3 && margin > 1)
		margin = 1;
	if (!compare_lkp_summarize(va, na, margin, &sa))
		return "no samples";
	/* perf-profile's own rule, when its threshold is of the samples' type (lkp-tests' is_a?) */
	bool user_pp = o && o->perf_profile_threshold > 0;
	double pp = user_pp ? o->perf_profile_threshold : 5;
	bool pp_rule = has_prefix(k, "perf-profile.") && is_whole(sa.median) != user_pp;
	if (pp_rule) {
		if (!(sa.median > pp || sb.median > pp))
			return "perf-profile: both medians at or below the threshold";
	} else if (function) {
		if (sa.max == sb.max)
			return "failure stat: the same maximum on both sides";
	} else if (!((sb.min > sa.median && sb.median > sa.max) || (sa.min > sb.median && sa.median > sb.max))) {
		return "the ranges of the samples overlap (LKP's separation rule)";
	}
	if (pp_rule && user_pp)
		return NULL;
	/* calc_stats_metrics, then skip_small_change? */
	const struct lkp_summary *high = sa.median > sb.median ? &sa : &sb, *low = high == &sa ? &sb : &sa;
	double max = sa.max > sb.max ? sa.max : sb.max, delta = high->median - low->median;
	double ratio = low->median > 0 ? high->median / low->median : MAX_RATIO;
	if (ratio > MAX_RATIO)
		ratio = MAX_RATIO;
	if (!(ratio > 1.01))
		return "a change of 1 % or less";
	if (!(ratio > 1.05) && !compare_is_perf_metric(k))
		return "a change of 5 % or less in a metric that is not a perf metric";
	if (!reasonable_change(k, delta, max))
		return "below lkp-tests' floor for the metric (perf-metrics-threshold.yaml, or its family's)";
	return NULL;
}

/* ---- lkp-tests' order of the changed rows (Compare.sort_stats) ---- */

struct sort_item {
	struct compare_row *row;
	long group;		/* the changed rows of its program: fewer first; failures first, tests 0 */
	size_t keylen;		/* of the name that sorts: perf-profile's first two components */
	const double *changes;	/* lkp-tests' figures: %reproduction, or the change of the means */
	size_t nchanges;
};

static int cmp_rows(const void *pa, const void *pb)
{
	const struct sort_item *a = pa, *b = pb;

	if (a->row->changed != b->row->changed)
		return a->row->changed ? -1 : 1;
	if (!a->row->changed)
		return strcmp(a->row->metric, b->row->metric);
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
	int c = strncmp(a->row->metric, b->row->metric, n);
	if (c)
		return c;
	if (a->keylen != b->keylen)
		return a->keylen < b->keylen ? -1 : 1;
	for (size_t i = 0; i < a->nchanges; i++)
		if (a->changes[i] != b->changes[i])
			return a->changes[i] < b->changes[i] ? -1 : 1;
	return strcmp(a->row->metric, b->row->metric);
}

/* A changed row by its metric's base name (sorted, rows of one base are neighbours). */
struct base_item {
	const char *metric;
	size_t len;	/* of the base */
	size_t row;
};

static int cmp_base(const void *pa, const void *pb)
{
	const struct base_item *a = pa, *b = pb;
	int c;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	c = strncmp(a->metric, b->metric, a->len);
	return c ? c : (a->row > b->row) - (a->row < b->row);
}

static bool same_base(const struct base_item *a, const struct base_item *b)
{
	return a->len == b->len && !strncmp(a->metric, b->metric, a->len);
}

static size_t sort_key_len(const char *m)
{
	const char *dot;

	if (!has_prefix(m, "perf-profile."))
		return strlen(m);
	dot = strchr(m + strlen("perf-profile."), '.');
	return dot ? (size_t)(dot - m) : strlen(m);
}

/* lkp_changes: per row, nsides-1 figures for the order (lkp-tests' arithmetic: a base of 0 is 1e-100) */
void compare_sort_rows(struct compare_result *res, const double *lkp_changes)
{
	struct sort_item *items = xcalloc(res->nrows ? res->nrows : 1, sizeof(*items));
	struct base_item *bases = xcalloc(res->nrows ? res->nrows : 1, sizeof(*bases));
	size_t nb = 0, nc = res->nsides - 1;

	for (size_t i = 0; i < res->nrows; i++) {
		items[i].row = &res->rows[i];
		items[i].keylen = sort_key_len(res->rows[i].metric);
		items[i].changes = lkp_changes + i * nc;
		items[i].nchanges = nc;
		if (res->rows[i].changed)
			bases[nb++] = (struct base_item){ res->rows[i].metric, compare_metric_base_len(res->rows[i].metric), i };
	}
	/*
	 * how many changed rows share each base — sorted once, counted in runs
	 * (not n x n); the first row of a base says whether its count starts
	 * at -10000 (failure stats lead), a test's own count is 0
	 */
	qsort(bases, nb, sizeof(*bases), cmp_base);
	for (size_t k = 0; k < nb;) {
		size_t e = k + 1;
		while (e < nb && same_base(&bases[k], &bases[e]))
			e++;
		const struct compare_row *first = &res->rows[bases[k].row];
		long count = (first->kind == COMPARE_FAILURE ? -10000 : 0) + (long)(e - k);
		if (count > 0 && compare_is_test_metric(first->metric))
			count = 0;
		for (size_t j = k; j < e; j++)
			items[bases[j].row].group = count;
		k = e;
	}
	free(bases);
	qsort(items, res->nrows, sizeof(*items), cmp_rows);
	struct compare_row *rows = xcalloc(res->nrows ? res->nrows : 1, sizeof(*rows));
	for (size_t i = 0; i < res->nrows; i++)
		rows[i] = *items[i].row;
	free(res->rows);
	res->rows = rows;
	free(items);
}

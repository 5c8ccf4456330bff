/*
 * compare: LKP's comparison of commits, metric by metric. The "changed"
 * decision and the layouts follow lkp-tests (lib/stats.rb, lib/compare.rb,
 * sbin/compare) so that our rows are theirs on the same samples; the
 * significance tests and effect sizes are ours, reported beside them.
 */
#include "compare.h"
#include "../util/json.h"
#include "../run/program.h"
#include "../stats/lkpetc.h"
#include "../stats/sigtest.h"

#include <fnmatch.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ABS_WIDTH 10
#define REL_WIDTH 10
#define ERR_WIDTH 6
#define MAX_RATIO 5.0

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool has_suffix(const char *s, const char *x)
{
	size_t n = strlen(s), m = strlen(x);
	return n >= m && !strcmp(s + n - m, x);
}

/* lkp-tests' function_stat?: its etc/failure and etc/pass patterns, counted per run */
bool compare_is_failure(const char *m)
{
	if (strstr(m, ".time.") || strstr(m, ".timestamp:") || strstr(m, ".bootstage:"))
		return false;
	return lkpetc_failure(m) || lkpetc_pass(m);
}

/* The part before the first dot: the program that made the metric. */
static size_t metric_base_len(const char *m)
{
	const char *dot = strchr(m, '.');
	return dot ? (size_t)(dot - m) : strlen(m);
}

bool compare_is_test_metric(const char *m)
{
	char base[64];
	size_t n = metric_base_len(m);
	const struct program *p;

	if (n >= sizeof(base))
		return false;
	memcpy(base, m, n);
	base[n] = '\0';
	p = program_find(base);
	return p && p->kind == PROGRAM_TEST;
}

/*
 * lkp-tests' perf_metric?: etc/perf-metrics-prefixes and -patterns, and
 * the prefix of every test program (its own figures, where 1-5 % is real).
 */
bool compare_is_perf_metric(const char *m)
{
	return lkpetc_perf_metric(m) || compare_is_test_metric(m);
}

/*
 * Our KPI table: which way is better. Patterns are fnmatch(3) globs on the
 * metric name, first match wins; the tests' throughput-like figures, their
 * latencies and times, instructions per cycle, power. A metric not here has no direction: a change in it
 * is reported as a change, never as a regression or an improvement.
 */
static const struct {
	const char *glob;
	int direction;
} kpi[] = {
	{ "fio.*_bw_MBps", +1 },
	{ "fio.*_iops", +1 },
	{ "fio.*_clat_*", -1 },
	{ "fio.*_slat_*", -1 },
	{ "fio.*_lat_*", -1 },
	{ "vm-scalability.throughput", +1 },
	{ "vm-scalability.median", +1 },
	{ "vm-scalability.workload", +1 },
	{ "*.throughput", +1 },
	{ "*.jobs_per_min", +1 },
	{ "*.ops_per_sec", +1 },
	{ "*.ops", +1 },
	{ "*.time.elapsed_time", -1 },
	{ "*.time.elapsed_time.max", -1 },
	{ "perf-stat.ipc", +1 },
	{ "perf-stat.overall.ipc", +1 },
	{ "perf-stat.cpi", -1 },
	{ "perf-stat.overall.cpi", -1 },
	/* power: less is better (lkp-tests' power index) */
	{ "turbostat.PkgWatt", -1 },
	{ "turbostat.RAMWatt", -1 },
	{ "turbostat.CorWatt", -1 },
};

int compare_direction(const char *metric)
{
	for (size_t i = 0; i < sizeof(kpi) / sizeof(kpi[0]); i++)
		if (!fnmatch(kpi[i].glob, metric, 0))
			return kpi[i].direction;
	return 0;
}

int compare_floors_add(struct compare_floors *f, const char *spec, struct strbuf *err)
{
	const char *eq = spec ? strrchr(spec, '=') : NULL;
	char *end;

	if (!eq || eq == spec) {
		strbuf_setf(err, "'%s': a floor is METRIC=PERCENT, e.g. command.throughput=2%% (a glob may stand for the metric)",
			    spec ? spec : "");
		return -1;
	}
	double pct = strtod(eq + 1, &end);
	if (end == eq + 1 || (*end && strcmp(end, "%")) || !(pct > 0) || !(pct < 1000)) {
		strbuf_setf(err, "'%s': '%s' is not a percentage above 0; write e.g. 2%% or 0.5", spec, eq + 1);
		return -1;
	}
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	f->v[f->n].glob = xstrndup(spec, (size_t)(eq - spec));
	f->v[f->n++].floor = pct / 100;
	return 0;
}

int compare_floors_add_map(struct compare_floors *f, const struct node *map, const char *where, struct strbuf *err)
{
	if (!map)
		return 0;
	if (map->type != NODE_MAP) {
		strbuf_setf(err, "%s: must be a map of metric (or glob) -> percent, e.g. command.throughput: 2%%", where);
		return -1;
	}
	for (size_t i = 0; i < map->n; i++) {
		const char *v = node_str(map->vals[i]);
		if (map->vals[i]->comment)
			continue;
		char *spec = xasprintf("%s=%s", map->keys[i], v ? v : "");
		int rc = v ? compare_floors_add(f, spec, err) : -1;
		free(spec);
		if (rc) {
			strbuf_setf(err, "%s.%s: '%s' is not a percentage; write e.g. 2%% or 0.5", where, map->keys[i],
				    v ? v : "");
			return -1;
		}
	}
	return 0;
}

void compare_floors_release(struct compare_floors *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].glob);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

double compare_floor_of(const struct compare_floors *f, const char *metric)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (!fnmatch(f->v[i].glob, metric, 0))
			return f->v[i].floor;
	/* lkp-tests' thresholds: 1 % for perf metrics (the test's own KPIs among them), 5 % for the rest */
	return compare_is_perf_metric(metric) ? 0.01 : 0.05;
}

struct decide_metric compare_metric_spec(const struct compare_floors *f, const char *metric)
{
	return (struct decide_metric){ compare_direction(metric), compare_floor_of(f, metric) };
}

/* ncompare gives a plain difference for these */
static bool absolute_change(const char *m)
{
	return has_prefix(m, "perf-profile") || has_suffix(m, "%");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Mean and population stddev of s->v, in lkp-tests' arithmetic so that the
 * tables print its digits: Ruby's Array#sum (Kahan-Babuska compensated)
 * over n, then (1/n) * the plain sum of squared deviations. Samples whose
 * sum overflows are summed over the largest one instead (no inf).
 */
static void moments(struct compare_side *s)
{
	double sum = 0, c = 0, sq = 0, scale = 0;

	for (size_t i = 0; i < s->n; i++) {
		double x = s->v[i], t = sum + x;
		c += fabs(sum) >= fabs(x) ? (sum - t) + x : (x - t) + sum;
		sum = t;
	}
	sum += c;
	if (s->n && isfinite(sum)) {
		double m = sum / (double)s->n;
		for (size_t i = 0; i < s->n; i++)
			sq += (s->v[i] - m) * (s->v[i] - m);
		s->mean = m;
		s->stddev = sqrt(1 / (double)s->n * sq);
		if (isfinite(s->stddev))
			return;
	}
	/* over the largest value, so that samples near 1e308 cannot overflow a sum */
	sum = sq = 0;
	for (size_t i = 0; i < s->n; i++)
		if (fabs(s->v[i]) > scale)
			scale = fabs(s->v[i]);
	if (!(scale > 0) || !isfinite(scale))
		scale = 1;
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i] / scale;
	double m = s->n ? sum / (double)s->n : 0;
	for (size_t i = 0; i < s->n; i++)
		sq += (s->v[i] / scale - m) * (s->v[i] / scale - m);
	s->mean = m * scale;
	s->stddev = s->n ? sqrt(sq / (double)s->n) * scale : 0;
}

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

static bool lkp_summarize(const double *v, size_t n, size_t max_margin, struct lkp_summary *out)
{
	size_t margin = n >> 5, lo = 0, hi = n;
	double *sorted;

	memset(out, 0, sizeof(*out));
	if (!n)
		return false;
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
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
	free(sorted);
	return out->n > 0;
}

/* A side as the tables show it: mean, population stddev, what failed; its LKP summary */
static void summarize(struct compare_side *s, size_t max_margin)
{
	struct lkp_summary ls;

	if (!s->n)
		return;
	moments(s);
	double fails = 0;
	for (size_t i = 0; i < s->n; i++)
		fails += s->v[i];
	/* lkp-tests' fail count is the sum of the runs' values (1 a run for the kernel log's stats) */
	s->fails = fails > 0 && fails < 1e15 ? (size_t)fails : 0;
	if (lkp_summarize(s->v, s->n, max_margin, &ls)) {
		s->min = ls.min;
		s->max = ls.max;
		s->median = ls.median;
	}
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

/* A matrix's columns sorted by metric, for lookups in O(log n) */
struct column {
	const char *key;
	const struct node *col;
};

static int cmp_column(const void *a, const void *b)
{
	return strcmp(((const struct column *)a)->key, ((const struct column *)b)->key);
}

static struct column *index_matrix(const struct node *m, size_t *n)
{
	struct column *c = xcalloc(m->n ? m->n : 1, sizeof(*c));

	*n = 0;
	for (size_t i = 0; i < m->n; i++)
		if (!m->vals[i]->comment)
			c[(*n)++] = (struct column){ m->keys[i], m->vals[i] };
	qsort(c, *n, sizeof(*c), cmp_column);
	return c;
}

static const struct node *column_get(const struct column *c, size_t n, const char *key)
{
	struct column k = { key, NULL };
	const struct column *hit = bsearch(&k, c, n, sizeof(*c), cmp_column);
	return hit ? hit->col : NULL;
}

/* The samples of one metric in a matrix: 0, 1 absent, -1 with why set. */
static int samples(const struct column *index, size_t nindex, const char *key, double **v, size_t *n,
		   const char **why)
{
	const struct node *col = column_get(index, nindex, key);

	*v = NULL;
	*n = 0;
	if (!col)
		return 1;
	if (col->type != NODE_SEQ) {
		double x;
		if (!json_number(col, &x)) {
			*why = "not a number";
			return -1;
		}
		*v = xmalloc(sizeof(**v));
		(*v)[(*n)++] = x;
	} else {
		*v = xmalloc((col->n ? col->n : 1) * sizeof(**v));
		for (size_t i = 0; i < col->n; i++) {
			double x;
			if (!json_number(col->vals[i], &x)) {
				*why = "not a number";
				return -1;
			}
			(*v)[(*n)++] = x;
		}
	}
	for (size_t i = 0; i < *n; i++)
		if (!isfinite((*v)[i])) {
			*why = "a sample is NaN or infinite";
			return -1;
		}
	if (!*n) {
		*why = "no samples";
		return -1;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- lkp-tests' selection (lib/stats.rb: StatCompare, _get_changed_stats) ---- */

/* A side in one pass of the selection: its matrix, and the columns (runs) that count. */
struct pass_side {
	const struct column *index;
	size_t nindex;
	const bool *keep;	/* columns kept (NULL: every one) */
	size_t ncols;		/* the matrix's columns */
	size_t cols;		/* those kept: lkp-tests' matrix_cols */
};

/* The values of the kept columns, zero-padded to the matrix's columns as lkp-tests pads them; NULL v: all 0. */
static double *pass_values(const struct pass_side *p, const double *v, size_t n, size_t *out)
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
	return column_get(p->index, p->nindex, key) != NULL;
}

/* Does the base have a stat of this program (lock_stat, perf-profile: a monitor it ran)? */
static bool monitored(const struct pass_side *b, const char *k)
{
	size_t len = metric_base_len(k) + 1;	/* "perf-profile." */

	for (size_t i = 0; i < b->nindex; i++)
		if (!strncmp(b->index[i].key, k, len))
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
static const char *lkp_select(const char *k, bool function, bool present_b, const struct pass_side *pb,
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
	if (!lkp_summarize(vb, nb, margin, &sb))
		return "no samples in the base";
	if (nb <= 3 && margin > 1)
		margin = 1;
	if (!lkp_summarize(va, na, margin, &sa))
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
static void sort_rows(struct compare_result *res, const double *lkp_changes)
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
			bases[nb++] = (struct base_item){ res->rows[i].metric, metric_base_len(res->rows[i].metric), i };
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

/* lkp-tests' matrix_cols: the runs a matrix holds */
static size_t matrix_cols(const struct node *m)
{
	const struct node *src = node_get(m, "stats_source");
	size_t cols = 0;

	if (src && src->type == NODE_SEQ)
		return src->n;
	for (size_t i = 0; i < m->n; i++)
		if (!m->vals[i]->comment && m->vals[i]->type == NODE_SEQ && m->vals[i]->n > cols)
			cols = m->vals[i]->n;
	return cols;
}

/* The runs to leave out of perf stats: last_state.is_incomplete_run is 1 there. NULL: none to leave out. */
static bool *complete_columns(const struct node *m, size_t ncols, size_t *kept, bool *has_key)
{
	const struct node *inc = node_get(m, "last_state.is_incomplete_run");
	bool *keep;

	*kept = ncols;
	*has_key = inc != NULL;
	if (!inc || inc->type != NODE_SEQ)
		return NULL;
	keep = xcalloc(ncols ? ncols : 1, sizeof(*keep));
	for (size_t c = 0; c < ncols; c++) {
		double x;
		keep[c] = !(c < inc->n && json_number(inc->vals[c], &x) && x == 1);
		if (!keep[c])
			(*kept)--;
	}
	return keep;
}

/* The values of a side for display and for the decision: the kept columns, or all (failure stats). */
static void side_values(struct compare_side *side, const double *v, size_t n, const bool *keep, size_t ncols)
{
	struct pass_side p = { .keep = keep, .ncols = ncols };
	size_t m;
	double *x = pass_values(&p, v, n, &m);

	side->v = x;
	side->n = m;
}

int compare_matrices(const struct node *const *matrices, const char *const *labels, size_t nsides,
		     const struct compare_opts *o, struct compare_result *res, struct strbuf *err)
{
	char **keys = NULL;
	size_t nkeys = 0;

	memset(res, 0, sizeof(*res));
	if (nsides < 2) {
		strbuf_setf(err, "compare needs two sides or more: a base and a commit");
		return -1;
	}
	for (size_t s = 0; s < nsides; s++)
		if (!matrices[s] || matrices[s]->type != NODE_MAP) {
			strbuf_setf(err, "%s: not a matrix (a map of metric -> samples)", labels[s]);
			return -1;
		}
	/* every metric of every side, once, sorted */
	for (size_t s = 0; s < nsides; s++)
		for (size_t i = 0; i < matrices[s]->n; i++)
			if (!matrices[s]->vals[i]->comment && strcmp(matrices[s]->keys[i], "stats_source")) {
				keys = xrealloc(keys, (nkeys + 1) * sizeof(*keys));
				keys[nkeys++] = matrices[s]->keys[i];
			}
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), cmp_str);
	struct column **index = xcalloc(nsides, sizeof(*index));
	size_t *nindex = xcalloc(nsides, sizeof(*nindex));
	struct pass_side *all = xcalloc(nsides, sizeof(*all)), *done = xcalloc(nsides, sizeof(*done));
	bool **keep = xcalloc(nsides, sizeof(*keep));
	bool incomplete = false, second_pass = true;
	for (size_t s = 0; s < nsides; s++) {
		bool has_key;
		size_t kept;
		index[s] = index_matrix(matrices[s], &nindex[s]);
		size_t ncols = matrix_cols(matrices[s]);
		keep[s] = complete_columns(matrices[s], ncols, &kept, &has_key);
		incomplete |= has_key;
		all[s] = (struct pass_side){ index[s], nindex[s], NULL, ncols, ncols };
		done[s] = (struct pass_side){ index[s], nindex[s], keep[s], ncols, kept };
		second_pass &= kept > 0;
	}
	res->nsides = nsides;
	res->all = o && o->all;
	res->labels = xcalloc(nsides, sizeof(*res->labels));
	for (size_t s = 0; s < nsides; s++)
		res->labels[s] = xstrdup(labels[s]);
	res->rows = xcalloc(nkeys ? nkeys : 1, sizeof(*res->rows));
	double *lkp_changes = xcalloc(nkeys ? nkeys * (nsides - 1) : 1, sizeof(*lkp_changes));
	for (size_t k = 0; k < nkeys; k++) {
		if (k && !strcmp(keys[k], keys[k - 1]))
			continue;
		struct compare_row *r = &res->rows[res->nrows];
		double *lc = lkp_changes + res->nrows * (nsides - 1);
		res->nrows++;
		r->metric = xstrdup(keys[k]);
		r->kind = compare_is_failure(r->metric) ? COMPARE_FAILURE : COMPARE_PERF;
		r->side = xcalloc(nsides, sizeof(*r->side));
		r->change = xcalloc(nsides, sizeof(*r->change));
		r->absolute = r->kind == COMPARE_PERF && absolute_change(r->metric);
		r->p_welch = r->p_mwu = r->hedges_g = r->cliffs_delta = NAN;
		r->direction = compare_direction(r->metric);
		r->why = "";
		double **raw = xcalloc(nsides, sizeof(*raw));
		size_t *nraw = xcalloc(nsides, sizeof(*nraw));
		bool bad = false;
		for (size_t s = 0; s < nsides; s++) {
			const char *why = NULL;
			int rc = samples(index[s], nindex[s], r->metric, &raw[s], &nraw[s], &why);
			if (rc < 0) {
				r->why = why;
				bad = true;
			} else if (rc == 0) {
				r->side[s].present = true;
			}
		}
		/* what the tables show: the complete runs of perf stats, every run of failure stats */
		for (size_t s = 0; s < nsides && !bad; s++) {
			bool fail = r->kind == COMPARE_FAILURE;
			side_values(&r->side[s], raw[s], nraw[s], fail ? NULL : keep[s], all[s].ncols);
			size_t margin = fail ? 0 : 3;
			if (s && r->side[0].n <= 3 && margin > 1)
				margin = 1;
			summarize(&r->side[s], margin);
		}
		for (size_t s = 0; s < nsides; s++)
			r->change[s] = NAN;
		if (bad || !r->side[0].present) {
			if (!*r->why)
				r->why = "not in the base";
			/* a failure stat only the new side has: a failure the base never had, selected below */
			if (bad || r->kind != COMPARE_FAILURE)
				goto next;
		}
		const struct compare_side *b = &r->side[0];
		for (size_t s = 1; s < nsides; s++) {
			const struct compare_side *a = &r->side[s];
			double avg0 = b->mean == 0 ? 1e-100 : b->mean;
			if (r->kind == COMPARE_FAILURE) {
				/* lkp-tests' %reproduction divides by the runs of the column before (its index is one off) */
				if (r->side[s - 1].n && b->n)
					r->change[s] = 100.0 * ((double)a->fails / (double)r->side[s - 1].n -
								(double)b->fails / (double)b->n);
				lc[s - 1] = r->change[s];
			} else if (r->absolute) {
				r->change[s] = a->mean - b->mean;
				lc[s - 1] = r->change[s];
			} else {
				if (b->mean > 0) {
					/* lkp-tests' 100.0 * (avg - avg0) / avg0, or the ratio first where that overflows */
					r->change[s] = 100.0 * (a->mean - b->mean) / b->mean;
					if (!isfinite(r->change[s]))
						r->change[s] = 100.0 * (a->mean / b->mean - 1);
				}
				lc[s - 1] = 100.0 * ((a->mean - avg0) / avg0);
			}
			if (!isfinite(lc[s - 1]))
				lc[s - 1] = 0;
		}
		/* lkp-tests' selection, each side against the base; the row is shown when one of them changed */
		bool fail = r->kind == COMPARE_FAILURE;
		const char *why = NULL;
		for (size_t s = 1; s < nsides; s++) {
			const char *w = NULL;
			size_t nb, na;
			double *vb, *va;
			bool picked = false;
			if (incomplete && fail) {
				vb = pass_values(&all[0], raw[0], nraw[0], &nb);
				va = pass_values(&all[s], raw[s], nraw[s], &na);
				w = lkp_select(r->metric, fail, r->side[0].present, &all[0], vb, nb, &all[s], va, na, o, true);
				picked = !w;
				free(vb);
				free(va);
			}
			if (!picked && (!incomplete || (second_pass && strcmp(r->metric, "last_state.is_incomplete_run")))) {
				const struct pass_side *pb = incomplete ? &done[0] : &all[0], *pa = incomplete ? &done[s] : &all[s];
				vb = pass_values(pb, raw[0], nraw[0], &nb);
				va = pass_values(pa, raw[s], nraw[s], &na);
				w = lkp_select(r->metric, fail, r->side[0].present, pb, vb, nb, pa, va, na, o, false);
				picked = !w;
				free(vb);
				free(va);
			} else if (!picked && !w) {
				w = "every run of a side is incomplete (last_state.is_incomplete_run)";
			}
			if (picked)
				r->changed = true;
			if (s == nsides - 1)
				why = w;
		}
		r->why = r->changed ? "" : why ? why : "";
		if (r->changed && r->kind == COMPARE_PERF && !r->absolute && !isfinite(r->change[nsides - 1])) {
			/* selected, but a percentage of a base <= 0 (or beyond a double) is no number */
			r->why = b->mean == 0 ? "changed, but the base mean is 0: no percentage"
				 : b->mean < 0 ? "changed, but the base mean is negative: no percentage"
					       : "changed, but the percentage is beyond what a number holds";
		}
		if (r->kind == COMPARE_PERF && r->side[nsides - 1].present) {
			const struct compare_side *a = &r->side[nsides - 1];
			r->p_welch = sigtest_welch(b->v, b->n, a->v, a->n, NULL, NULL);
			r->p_mwu = sigtest_mwu(b->v, b->n, a->v, a->n, NULL, &r->mwu_exact);
			r->hedges_g = sigtest_hedges_g(b->v, b->n, a->v, a->n);
			r->cliffs_delta = sigtest_cliffs_delta(b->v, b->n, a->v, a->n);
			/* the decision, paired where both sides ran in the same rounds */
			const uint64_t *ra = NULL, *rb = NULL;
			if (o && o->rounds && o->nrounds) {
				ra = o->nrounds[0] == b->n ? o->rounds[0] : NULL;
				rb = o->nrounds[nsides - 1] == a->n ? o->rounds[nsides - 1] : NULL;
			}
			struct decide_side db = { b->v, ra, b->n }, da = { a->v, rb, a->n };
			struct decide_metric dm = { r->direction, compare_floor_of(o ? o->floors : NULL, r->metric) };
			decide(&db, &da, &dm, &r->decision);
			r->verdict = r->decision.verdict == DECIDE_CHANGED ? r->decision.kind : 0;
		}
		if (r->changed)
			res->nchanged++;
next:
		for (size_t s = 0; s < nsides; s++)
			free(raw[s]);
		free(raw);
		free(nraw);
	}
	for (size_t s = 0; s < nsides; s++) {
		free(index[s]);
		free(keep[s]);
	}
	free(index);
	free(nindex);
	free(all);
	free(done);
	free(keep);
	free(keys);
	sort_rows(res, lkp_changes);
	free(lkp_changes);
	return 0;
}

void compare_result_release(struct compare_result *res)
{
	for (size_t i = 0; i < res->nrows; i++) {
		struct compare_row *r = &res->rows[i];
		for (size_t s = 0; s < res->nsides; s++)
			free((double *)r->side[s].v);
		free(r->side);
		free(r->change);
		free(r->metric);
	}
	for (size_t s = 0; s < res->nsides; s++)
		free(res->labels[s]);
	free(res->labels);
	free(res->rows);
	memset(res, 0, sizeof(*res));
}

/* How far a row moved: |ln(new/base)| for percentages, so -75 % and +300 % weigh alike */
static double moved(const struct compare_row *r, size_t last)
{
	double c = r->change[last];

	if (r->absolute)
		return fabs(c) / 100;
	return 1 + c / 100 > 0 ? fabs(log(1 + c / 100)) : INFINITY;
}

/*
 * Throughput-like metrics (higher is better) lead, as the reports led with
 * fio.write_bw_MBps or vm-scalability.throughput; then latencies and times.
 */
static int headline_rank(const struct compare_row *r)
{
	return (compare_is_test_metric(r->metric) ? 4 : 0) + (r->direction > 0 ? 2 : r->direction < 0 ? 1 : 0);
}

const struct compare_row *compare_headline(const struct compare_result *cmp, bool need_direction)
{
	const struct compare_row *best = NULL;
	size_t last = cmp->nsides - 1;

	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct compare_row *r = &cmp->rows[i];
		if (r->kind != COMPARE_PERF || r->decision.verdict != DECIDE_CHANGED || !isfinite(r->change[last]) ||
		    (need_direction && !r->verdict))
			continue;
		if (!need_direction && !compare_is_test_metric(r->metric))
			continue;
		if (!best || headline_rank(r) > headline_rank(best) ||
		    (headline_rank(r) == headline_rank(best) && moved(r, last) > moved(best, last)))
			best = r;
	}
	return best;
}

/* ---- ncompare ---- */

/*
 * A figure printed as an integer: truncated as Ruby's %d, and kept within
 * the type (a hostile matrix's 1e300 or NaN converted as is would be
 * undefined behaviour).
 */
static long long as_ll(double v)
{
	if (!(v > -9.2e18))
		return isnan(v) ? 0 : LLONG_MIN;
	return v < 9.2e18 ? (long long)v : LLONG_MAX;
}

static int as_int(double v)
{
	if (!(v > -2e9))
		return isnan(v) ? 0 : INT_MIN;
	return v < 2e9 ? (int)v : INT_MAX;
}

void compare_format_value(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addf(out, "%*s", ABS_WIDTH, "n/a");
	else if (fabs(v) < 1000)
		strbuf_addf(out, "%*.2f", ABS_WIDTH, v);
	else if (fabs(v) > 1e8)
		strbuf_addf(out, "%*.4g", ABS_WIDTH, v);
	else
		strbuf_addf(out, "%*lld", ABS_WIDTH, as_ll(v));	/* Ruby's %d truncates */
}

void compare_format_number(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addstr(out, "n/a");
	else if (fabs(v) < 1000)
		strbuf_addf(out, "%.2f", v);
	else if (fabs(v) > 1e8)
		strbuf_addf(out, "%.4g", v);
	else
		strbuf_addf(out, "%lld", as_ll(v));
}

void compare_format_change(struct strbuf *out, double p, bool absolute)
{
	if (!isfinite(p)) {
		strbuf_addf(out, "%*s%s", REL_WIDTH, "n/a", absolute ? "  " : "  ");
		return;
	}
	const char *fmt = fabs(p) < 100000 ? (absolute ? "%+*.1f  " : "%+*.1f%% ")
					   : (absolute ? "%+*.2g  " : "%+*.2g%% ");
	strbuf_addf(out, fmt, REL_WIDTH, p);
}

static void ncompare_stddev(struct strbuf *out, const struct compare_side *s)
{
	double sd = s->n > 1 ? s->stddev : -1;

	if (s->n > 1 && s->mean != 0) {
		sd = 100 * s->stddev / s->mean;	/* lkp-tests' order; the ratio first where 100 * 1e307 overflows */
		if (!isfinite(sd))
			sd = 100 * (s->stddev / s->mean);
	}
	if (sd > 2)
		strbuf_addf(out, " \xc2\xb1%*d%%", ERR_WIDTH - 3, as_int(sd));
	else
		strbuf_addf(out, "%*s", ERR_WIDTH, "");
}

/* A number of the --stats note: NaN and infinities said in words, never printed. */
static void note_num(struct strbuf *out, const char *fmt, double v, const char *otherwise)
{
	if (isfinite(v))
		strbuf_addf(out, fmt, v);
	else
		strbuf_addstr(out, otherwise);
}

/* --stats: the decision, then the tests beside it (p-values, Hedges' g), n. */
static void stats_note(struct strbuf *out, const struct compare_row *r, size_t last)
{
	const struct decision *d = &r->decision;

	strbuf_addf(out, "  (%s: %s; MWU%s p ", decide_verdict_name(d->verdict), d->why, r->mwu_exact ? " exact" : "");
	note_num(out, "%.2g", r->p_mwu, "n/a");
	/* Welch's p and Hedges' g need a variance: without one (g infinite) they say nothing */
	bool variance = isfinite(r->hedges_g);
	strbuf_addstr(out, ", Welch p ");
	note_num(out, "%.2g", variance ? r->p_welch : NAN, isinf(r->hedges_g) ? "n/a (no variance)" : "n/a");
	strbuf_addstr(out, ", g ");
	note_num(out, "%+.2f", r->hedges_g, isinf(r->hedges_g) ? "n/a (no variance)" : "n/a");
	strbuf_addf(out, ", n %zu:%zu)", r->side[0].n, r->side[last].n);
}

static bool shown(const struct compare_row *r, bool all)
{
	return r->changed || (all && r->side[0].present);
}

void compare_render_ncompare(struct strbuf *out, const struct compare_result *res, const char *axes_keys,
			     const char *axes_values, bool stats)
{
	size_t nh = res->nsides - 1, first = ABS_WIDTH + ERR_WIDTH, width = first + REL_WIDTH + 1;
	size_t nfail = 0, nperf = 0;

	strbuf_addstr(out, "=========================================================================================\n");
	if (axes_keys && *axes_keys)
		strbuf_addf(out, "%s:\n  %s\n\n", axes_keys, axes_values ? axes_values : "");
	strbuf_addstr(out, "commit: \n");
	for (size_t s = 0; s < res->nsides; s++)
		strbuf_addf(out, "  %s\n", res->labels[s]);
	strbuf_addch(out, '\n');
	strbuf_addf(out, "%*.*s ", (int)first, (int)first, res->labels[0]);
	for (size_t s = 1; s < res->nsides; s++)
		strbuf_addf(out, "%*.*s ", (int)width, (int)width, res->labels[s]);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < first; i++)
		strbuf_addch(out, '-');
	strbuf_addch(out, ' ');
	for (size_t s = 1; s < res->nsides; s++) {
		for (size_t i = 0; i < width; i++)
			strbuf_addch(out, '-');
		strbuf_addch(out, ' ');
	}
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < res->nrows; i++) {
		if (!shown(&res->rows[i], res->all))
			continue;
		if (res->rows[i].kind == COMPARE_FAILURE)
			nfail++;
		else
			nperf++;
	}
	if (nfail) {
		strbuf_addstr(out, "       fail:runs");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "  %reproduction    fail:runs");
		strbuf_addstr(out, "\n           |    ");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "         |             |    ");
		strbuf_addch(out, '\n');
		for (size_t i = 0; i < res->nrows; i++) {
			const struct compare_row *r = &res->rows[i];
			if (!shown(r, res->all) || r->kind != COMPARE_FAILURE)
				continue;
			for (size_t s = 0; s < res->nsides; s++) {
				if (s)
					strbuf_addf(out, "%*.0f%% ", REL_WIDTH, r->change[s]);
				if (r->side[s].fails)
					strbuf_addf(out, "%*zu", ABS_WIDTH + 1, r->side[s].fails);
				else
					strbuf_addf(out, "%*s", ABS_WIDTH + 1, "");
				strbuf_addf(out, ":%-*zu", ERR_WIDTH - 2, r->side[s].n);
			}
			strbuf_addf(out, "  %s\n", r->metric);
		}
	}
	if (nperf) {
		strbuf_addstr(out, "         %stddev");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "     %change         %stddev");
		strbuf_addstr(out, "\n             \\  ");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "        |                \\  ");
		strbuf_addch(out, '\n');
		for (size_t i = 0; i < res->nrows; i++) {
			const struct compare_row *r = &res->rows[i];
			if (!shown(r, res->all) || r->kind != COMPARE_PERF)
				continue;
			for (size_t s = 0; s < res->nsides; s++) {
				if (s)
					compare_format_change(out, r->change[s], r->absolute);
				compare_format_value(out, r->side[s].mean);
				ncompare_stddev(out, &r->side[s]);
			}
			strbuf_addf(out, "  %s", r->metric);
			if (stats)
				stats_note(out, r, res->nsides - 1);
			strbuf_addch(out, '\n');
		}
	}
	strbuf_addch(out, '\n');
}

/* ---- the classic layout (sbin/compare) ---- */

struct classic_fmt {
	bool is_float, is_exp;
};

static void classic_scan(struct classic_fmt *f, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* a float sample: one with a fraction (matrices do not keep "2.0") */
		if (v[i] != 0 && fabs(v[i]) < 100 && v[i] != trunc(v[i]))
			f->is_float = true;
		if (fabs(v[i]) >= 1e8)
			f->is_exp = true;
	}
}

static void classic_value(struct strbuf *out, const struct classic_fmt *f, double v, bool fail)
{
	if (fail) {
		if (v == 0)
			strbuf_addf(out, "%*s", ABS_WIDTH + 1, " ");
		else
			strbuf_addf(out, "%*lld", ABS_WIDTH + 1, as_ll(v));
	} else if (f->is_exp) {
		if (!f->is_float && fabs(v) < 1e8)
			strbuf_addf(out, "%*lld", ABS_WIDTH, as_ll(v));
		else
			strbuf_addf(out, "%*.4g", ABS_WIDTH, v);
	} else if (f->is_float) {
		strbuf_addf(out, "%*.2f", ABS_WIDTH, v);
	} else {
		strbuf_addf(out, "%*lld", ABS_WIDTH, as_ll(v));
	}
}

/*
 * One column of a classic row: the change against the base (not for the
 * base), the value and its stddev. stddev < 0: none (one run).
 */
static void classic_cell(struct strbuf *out, const char *metric, bool first, double v0, double v, double stddev,
			 const struct classic_fmt *f, bool fail, size_t runs, double fail_p)
{
	if (!first) {
		double p = fail ? fail_p : v0 != 0 ? 100.0 * (v / v0 - 1) : 0;
		if (!isfinite(p))
			strbuf_addf(out, "%*s ", REL_WIDTH - 1, "n/a");
		else if (fail)
			strbuf_addf(out, "%*.0f%% ", REL_WIDTH - 2, p);
		else if (has_prefix(metric, "perf-profile") || has_prefix(metric, "latency_stats"))
			strbuf_addf(out, "%*.0g ", REL_WIDTH - 1, v - v0);
		else if (fabs(p) < 3)
			strbuf_addf(out, "%*s", REL_WIDTH, "");
		else if (fabs(p) < 100000)
			strbuf_addf(out, "%*.0f%% ", REL_WIDTH - 2, p);
		else
			strbuf_addf(out, "%*.0g%% ", REL_WIDTH - 2, p);
	}
	classic_value(out, f, v, fail);
	if (fail) {
		strbuf_addf(out, ":%-*zu", ERR_WIDTH - 2, runs);
	} else if (stddev >= 0) {
		double pct = v != 0 ? 100 * (stddev / v) : stddev;
		if (pct > 3)
			strbuf_addf(out, " \xc2\xb1%*d%%", ERR_WIDTH - 3, as_int(pct));
		else
			strbuf_addf(out, "%*s", ERR_WIDTH, "");
	} else {
		strbuf_addf(out, "%*s", ERR_WIDTH, "");
	}
	strbuf_addstr(out, "  ");
}

static void classic_head(struct strbuf *out, const char *base_label, const char *new_label, const char *tail)
{
	const int w0 = ABS_WIDTH + ERR_WIDTH, w1 = REL_WIDTH + ABS_WIDTH + ERR_WIDTH;

	strbuf_addf(out, "%*.*s  %*.*s  %s\n", w0, w0, base_label, w1, w1, new_label, tail);
	strbuf_addf(out, "%.*s  %.*s  %s\n", w0, "--------------------------", w1,
		    "--------------------------", *tail ? "---------------------------" : "");
}

/* The head of a block of rows: failure stats (fail:runs, as lkp-tests' mails) or measurements. */
static void classic_block_head(struct strbuf *out, bool fail)
{
	if (fail) {
		strbuf_addstr(out, "       fail:runs  %reproduction    fail:runs\n");
		strbuf_addstr(out, "           |             |             |    \n");
	} else {
		strbuf_addstr(out, "         %stddev      change         %stddev\n");
		strbuf_addstr(out, "             \\          |                \\  \n");
	}
}

/* sbin/compare hides a row when a side's stddev is over half its mean, or a mean is negative */
static bool noisy(const struct compare_side *s)
{
	return s->n > 1 && (s->stddev > fabs(s->mean) / 2 || s->mean < 0);
}

void compare_render_classic(struct strbuf *out, const struct compare_result *res, const char *test_desc)
{
	if (test_desc)
		strbuf_addf(out, "testcase/path_params/tbox_group/run: %s\n\n", test_desc);
	classic_head(out, res->labels[0], res->labels[res->nsides - 1], "");
	int block = -1;	/* the kind of the rows above: a new kind gets its head */
	for (size_t i = 0; i < res->nrows; i++) {
		const struct compare_row *r = &res->rows[i];
		const struct compare_side *b = &r->side[0], *a = &r->side[res->nsides - 1];
		bool fail = r->kind == COMPARE_FAILURE;
		struct classic_fmt f = { 0 };
		if (!r->changed)
			continue;
		if (block != (int)fail)
			classic_block_head(out, fail);
		block = fail;
		classic_scan(&f, b->v, b->n);
		classic_scan(&f, a->v, a->n);
		classic_cell(out, r->metric, true, 0, fail ? (double)b->fails : b->mean, b->n > 1 ? b->stddev : -1, &f,
			     fail, b->n, 0);
		classic_cell(out, r->metric, false, b->mean, fail ? (double)a->fails : a->mean, a->n > 1 ? a->stddev : -1,
			     &f, fail, a->n, r->change[res->nsides - 1]);
		strbuf_addf(out, "%s\n", r->metric);
	}
	if (block < 0)
		classic_block_head(out, false);
}

void compare_render_field(struct strbuf *out, const char *base_label, const char *new_label, const char *metric,
			  const struct compare_field_row *rows, size_t nrows, bool show_noise)
{
	struct classic_fmt f = { 0 };
	double lsum0 = 0, lsum1 = 0;
	size_t shown_rows = 0;
	/* [2i] the base, [2i + 1] the new side of row i */
	struct compare_side *sd = xcalloc(2 * nrows + 1, sizeof(*sd));
	bool *keep = xcalloc(nrows ? nrows : 1, sizeof(*keep));

	for (size_t i = 0; i < nrows; i++) {
		struct compare_side *b = &sd[2 * i], *a = &sd[2 * i + 1];
		*b = (struct compare_side){ .n = rows[i].nbase, .v = rows[i].base };
		*a = (struct compare_side){ .n = rows[i].nnew, .v = rows[i].new_ };
		moments(b);
		moments(a);
		keep[i] = b->n && a->n && (show_noise || (!noisy(b) && !noisy(a)));
		if (!keep[i])
			continue;
		classic_scan(&f, b->v, b->n);
		classic_scan(&f, a->v, a->n);
		shown_rows++;
	}
	classic_head(out, base_label, new_label, "testcase/testparams/testbox");
	classic_block_head(out, false);
	for (size_t i = 0; i < nrows; i++) {
		const struct compare_side *b = &sd[2 * i], *a = &sd[2 * i + 1];
		if (!keep[i])
			continue;
		classic_cell(out, metric, true, b->mean, b->mean, b->n > 1 ? b->stddev : -1, &f, false, 0, 0);
		classic_cell(out, metric, false, b->mean, a->mean, a->n > 1 ? a->stddev : -1, &f, false, 0, 0);
		strbuf_addf(out, "%s\n", rows[i].test_desc);
		if (b->mean > 0)
			lsum0 += log(b->mean);
		if (a->mean > 0)
			lsum1 += log(a->mean);
	}
	if (shown_rows) {
		double g0 = exp(lsum0 / (double)shown_rows), g1 = exp(lsum1 / (double)shown_rows);
		classic_cell(out, metric, true, g0, g0, -1, &f, false, 0, 0);
		classic_cell(out, metric, false, g0, g1, -1, &f, false, 0, 0);
		strbuf_addf(out, "GEO-MEAN %s\n", metric);
	}
	free(keep);
	free(sd);
}

/* ---- JSON ---- */

static void json_num(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%.17g", v);
	else
		strbuf_addstr(out, "null");
}

/* A percentage of a decision: 6 digits say it (and %.17g of 2,000 rows is a tenth of a compare's time). */
static void json_pct(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%.6g", v);
	else
		strbuf_addstr(out, "null");
}

void compare_decision_json(struct strbuf *out, const struct decision *d)
{
	strbuf_addf(out, "{\"verdict\": \"%s\", \"change\": ",
		    d->verdict == DECIDE_CHANGED ? "changed" : d->verdict == DECIDE_SAME ? "same" : "unsure");
	json_pct(out, d->change);
	strbuf_addstr(out, ", \"low\": ");
	json_pct(out, d->lo);
	strbuf_addstr(out, ", \"high\": ");
	json_pct(out, d->hi);
	strbuf_addstr(out, ", \"floor\": ");
	json_pct(out, d->floor);
	strbuf_addf(out, ", \"pairs\": %zu, \"why\": ", d->pairs);
	json_emit_string(out, d->why);
	strbuf_addstr(out, "}");
}

void compare_render_json(struct strbuf *out, const struct compare_result *res)
{
	strbuf_addstr(out, "{\n  \"sides\": [");
	for (size_t s = 0; s < res->nsides; s++) {
		if (s)
			strbuf_addstr(out, ", ");
		json_emit_string(out, res->labels[s]);
	}
	strbuf_addf(out, "],\n  \"changed\": %zu,\n  \"rows\": [", res->nchanged);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct compare_row *r = &res->rows[i];
		strbuf_addstr(out, i ? ",\n    {" : "\n    {");
		strbuf_addstr(out, "\"metric\": ");
		json_emit_string(out, r->metric);
		strbuf_addf(out, ", \"kind\": \"%s\", \"changed\": %s, \"why\": ",
			    r->kind == COMPARE_FAILURE ? "failure" : "perf", r->changed ? "true" : "false");
		json_emit_string(out, r->why);
		strbuf_addf(out, ", \"direction\": %d, \"verdict\": \"%s\", \"absolute\": %s, \"change\": [", r->direction,
			    r->verdict > 0 ? "improvement" : r->verdict < 0 ? "regression" : "none",
			    r->absolute ? "true" : "false");
		for (size_t s = 1; s < res->nsides; s++) {
			if (s > 1)
				strbuf_addstr(out, ", ");
			json_num(out, r->change[s]);
		}
		strbuf_addstr(out, "], \"p_welch\": ");
		json_num(out, r->p_welch);
		strbuf_addstr(out, ", \"p_mwu\": ");
		json_num(out, r->p_mwu);
		strbuf_addf(out, ", \"mwu_exact\": %s, \"hedges_g\": ", r->mwu_exact ? "true" : "false");
		json_num(out, r->hedges_g);
		strbuf_addstr(out, ", \"cliffs_delta\": ");
		json_num(out, r->cliffs_delta);
		if (r->kind == COMPARE_PERF) {
			strbuf_addstr(out, ", \"decision\": ");
			compare_decision_json(out, &r->decision);
		}
		strbuf_addstr(out, ", \"sides\": [");
		for (size_t s = 0; s < res->nsides; s++) {
			const struct compare_side *d = &r->side[s];
			if (s)
				strbuf_addstr(out, ", ");
			if (!d->present) {
				strbuf_addstr(out, "null");
				continue;
			}
			strbuf_addf(out, "{\"n\": %zu, \"mean\": ", d->n);
			json_num(out, d->mean);
			strbuf_addstr(out, ", \"stddev\": ");
			json_num(out, d->stddev);
			strbuf_addstr(out, ", \"stddev_percent\": ");
			json_num(out, d->mean != 0 ? 100 * (d->stddev / fabs(d->mean)) : NAN);
			strbuf_addstr(out, ", \"median\": ");
			json_num(out, d->median);
			strbuf_addstr(out, ", \"min\": ");
			json_num(out, d->min);
			strbuf_addstr(out, ", \"max\": ");
			json_num(out, d->max);
			strbuf_addf(out, ", \"fails\": %zu}", d->fails);
		}
		strbuf_addstr(out, "]}");
	}
	strbuf_addstr(out, "\n  ]\n}\n");
}

/*
 * compare: LKP's comparison of commits, metric by metric. The "changed"
 * decision and the layouts follow lkp-tests (lib/stats.rb, lib/compare.rb,
 * sbin/compare) so that our rows are theirs on the same samples; the
 * significance tests and effect sizes are ours, reported beside them.
 */
#include "compare.h"
#include "../util/json.h"
#include "../run/program.h"
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

bool compare_is_failure(const char *m)
{
	static const char *const prefixes[] = { "dmesg.", "kmsg.", "last_state.", "stderr.", NULL };
	static const char *const suffixes[] = { ".fail", ".error", ".warn", NULL };

	if (strstr(m, ".time.") || strstr(m, ".timestamp:") || strstr(m, ".bootstage:"))
		return false;
	for (const char *const *p = prefixes; *p; p++)
		if (has_prefix(m, *p))
			return true;
	for (const char *const *s = suffixes; *s; s++)
		if (has_suffix(m, *s))
			return true;
	return false;
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

bool compare_is_perf_metric(const char *m)
{
	/* where changes of 1–5 % are real: counters, the tests' own figures */
	static const char *const prefixes[] = {
		"perf-stat.", "perf-profile.", "perf-sched.", "iostat.", "proc-vmstat.", "numa-vmstat.",
		"vmstat.cpu.", "vmstat.io.", "vmstat.swap.", "vmstat.system.", "sched_debug.",
		"turbostat.Busy%", "turbostat.%Busy", "turbostat.Bzy_MHz", "turbostat.Avg_MHz", "turbostat.C",
		"turbostat.CPU%c", "turbostat.Pkg%pc", "turbostat.PkgWatt", "turbostat.RAMWatt",
		"turbostat.CorWatt", "turbostat.GFXWatt", "turbostat.PkgTmp", "turbostat.CoreTmp", NULL,
	};
	for (const char *const *p = prefixes; *p; p++)
		if (has_prefix(m, *p))
			return true;
	return strstr(m, ".time.") || compare_is_test_metric(m);
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

/* LKP's StatSummary: sort, drop min(n>>5, max_margin) at each end, min/middle/max */
/* mean and population stddev (divided by n) of s->v */
static void moments(struct compare_side *s)
{
	double sum = 0, sq = 0, scale = 0;

	/* over the largest value, so that samples near 1e308 cannot overflow a sum */
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

static void summarize(struct compare_side *s, size_t max_margin)
{
	size_t n = s->n, margin = n >> 5;
	double *sorted;

	if (!n)
		return;
	moments(s);
	for (size_t i = 0; i < n; i++)
		s->fails += s->v[i] != 0;
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, s->v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	if (margin > max_margin)
		margin = max_margin;
	size_t lo = margin, hi = n - margin;	/* [lo, hi) */
	s->min = sorted[lo];
	s->max = sorted[hi - 1];
	s->median = sorted[lo + (hi - lo) / 2];
	free(sorted);
}

/* lkp-tests' reasonable_perf_change?: per-family floors on the size of a change */
static bool reasonable_change(const char *m, double delta, double max)
{
	if (has_prefix(m, "iostat"))
		return max > 1;
	if (has_prefix(m, "pagetypeinfo") || has_prefix(m, "buddyinfo") || has_prefix(m, "slabinfo"))
		return delta > 100;
	if (has_prefix(m, "proc-vmstat") || strstr(m, "meminfo"))
		return max > 1000;
	if (has_prefix(m, "interrupts") || has_prefix(m, "softirqs"))
		return max > 10000;
	return true;
}

/*
 * lkp-tests' decision for the new side a against the base b; NULL when
 * changed, else why not.
 */
static const char *lkp_changed(const struct compare_row *r, const struct compare_side *b, const struct compare_side *a,
			       const struct compare_opts *o)
{
	if (r->kind == COMPARE_FAILURE)
		return a->max != b->max ? NULL : "failure stat: the same maximum on both sides";
	if (a->n < 3 && b->n < 3)
		return "fewer than 3 runs on both sides";
	if (has_prefix(r->metric, "perf-profile.")) {
		double t = o->perf_profile_threshold > 0 ? o->perf_profile_threshold : 5;
		return a->median > t || b->median > t ? NULL : "perf-profile: both medians below the threshold";
	}
	if (!((b->min > a->median && b->median > a->max) || (a->min > b->median && a->median > b->max)))
		return "the ranges of the samples overlap (LKP's separation rule)";
	const struct compare_side *high = a->median > b->median ? a : b, *low = high == a ? b : a;
	double ratio = low->median > 0 ? high->median / low->median : MAX_RATIO;
	double delta = high->median - low->median, max = a->max > b->max ? a->max : b->max;
	if (ratio > MAX_RATIO)
		ratio = MAX_RATIO;
	if (!(ratio > 1.01))
		return "a change of 1 % or less";
	if (!(ratio > 1.05) && !compare_is_perf_metric(r->metric))
		return "a change of 5 % or less in a metric that is not a perf metric";
	if (!reasonable_change(r->metric, delta, max))
		return "below the floor for this family of metrics";
	return NULL;
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

/* lkp-tests' Compare.sort_stats key, precomputed */
struct sort_item {
	struct compare_row *row;
	long group;
};

static int cmp_rows(const void *pa, const void *pb)
{
	const struct sort_item *a = pa, *b = pb;
	if (a->row->changed != b->row->changed)
		return a->row->changed ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	int c = strcmp(a->row->metric, b->row->metric);
	if (c)
		return c;
	return 0;
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

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return strncmp(a->metric, b->metric, a->len);
}

static void sort_rows(struct compare_result *res)
{
	struct sort_item *items = xcalloc(res->nrows ? res->nrows : 1, sizeof(*items));
	struct base_item *bases = xcalloc(res->nrows ? res->nrows : 1, sizeof(*bases));
	size_t nb = 0;

	/* how many changed rows share each changed row's base: sorted once, counted in runs (not n x n) */
	for (size_t i = 0; i < res->nrows; i++) {
		items[i].row = &res->rows[i];
		if (res->rows[i].changed)
			bases[nb++] = (struct base_item){ res->rows[i].metric, metric_base_len(res->rows[i].metric), i };
	}
	qsort(bases, nb, sizeof(*bases), cmp_base);
	for (size_t k = 0; k < nb;) {
		size_t e = k + 1;
		while (e < nb && !cmp_base(&bases[k], &bases[e]))
			e++;
		for (size_t j = k; j < e; j++) {
			const struct compare_row *r = &res->rows[bases[j].row];
			long count = compare_is_test_metric(r->metric) ? 0 : (long)(e - k);
			items[bases[j].row].group = (r->kind == COMPARE_FAILURE ? -10000 : 0) + count;
		}
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
	for (size_t s = 0; s < nsides; s++)
		index[s] = index_matrix(matrices[s], &nindex[s]);
	res->nsides = nsides;
	res->all = o && o->all;
	res->labels = xcalloc(nsides, sizeof(*res->labels));
	for (size_t s = 0; s < nsides; s++)
		res->labels[s] = xstrdup(labels[s]);
	res->rows = xcalloc(nkeys ? nkeys : 1, sizeof(*res->rows));
	for (size_t k = 0; k < nkeys; k++) {
		if (k && !strcmp(keys[k], keys[k - 1]))
			continue;
		struct compare_row *r = &res->rows[res->nrows++];
		r->metric = xstrdup(keys[k]);
		r->kind = compare_is_failure(r->metric) ? COMPARE_FAILURE : COMPARE_PERF;
		r->side = xcalloc(nsides, sizeof(*r->side));
		r->change = xcalloc(nsides, sizeof(*r->change));
		r->absolute = r->kind == COMPARE_PERF && absolute_change(r->metric);
		r->p_welch = r->p_mwu = r->hedges_g = r->cliffs_delta = NAN;
		r->direction = compare_direction(r->metric);
		r->why = "";
		for (size_t s = 0; s < nsides; s++) {
			double *v;
			size_t n;
			const char *why = NULL;
			int rc = samples(index[s], nindex[s], r->metric, &v, &n, &why);
			if (rc < 0) {
				r->why = why;
				free(v);
				continue;
			}
			if (rc > 0) {
				if (!*r->why)
					r->why = s ? "missing on a compared side" : "not in the base";
				continue;
			}
			r->side[s].present = true;
			r->side[s].n = n;
			r->side[s].v = v;
		}
		bool complete = !*r->why;
		for (size_t s = 0; s < nsides; s++) {
			size_t margin = r->kind == COMPARE_FAILURE ? 0 : 3;
			if (s && r->side[0].n <= 3 && margin > 1)
				margin = 1;
			if (r->side[s].present)
				summarize(&r->side[s], margin);
		}
		for (size_t s = 1; s < nsides; s++) {
			const struct compare_side *b = &r->side[0], *a = &r->side[s];
			r->change[s] = NAN;
			if (!complete)
				continue;
			if (r->kind == COMPARE_FAILURE)
				r->change[s] = 100.0 * ((double)a->fails / (double)a->n - (double)b->fails / (double)b->n);
			else if (r->absolute)
				r->change[s] = a->mean - b->mean;
			else if (b->mean > 0)
				r->change[s] = 100.0 * (a->mean / b->mean - 1);	/* no a - b to overflow */
		}
		r->change[0] = NAN;
		if (!complete)
			continue;
		const struct compare_side *b = &r->side[0], *a = &r->side[nsides - 1];
		const struct compare_opts no = { 0 };
		const char *why = lkp_changed(r, b, a, o ? o : &no);
		r->changed = !why;
		r->why = why ? why : "";
		if (r->changed && r->kind == COMPARE_PERF && !r->absolute && !isfinite(r->change[nsides - 1])) {
			/* the separation holds, but a percentage of a base <= 0 (or beyond a double) is no number */
			r->why = b->mean == 0 ? "changed, but the base mean is 0: no percentage"
				 : b->mean < 0 ? "changed, but the base mean is negative: no percentage"
					       : "changed, but the percentage is beyond what a number holds";
		}
		if (r->kind == COMPARE_PERF) {
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
	}
	for (size_t s = 0; s < nsides; s++)
		free(index[s]);
	free(index);
	free(nindex);
	free(keys);
	sort_rows(res);
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

	if (s->n > 1 && s->mean != 0)
		sd = 100 * (sd / s->mean);	/* the ratio first: 100 * 1e307 overflows */
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
	strbuf_addstr(out, "         %stddev      change         %stddev\n");
	strbuf_addstr(out, "             \\          |                \\  \n");
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
	for (size_t i = 0; i < res->nrows; i++) {
		const struct compare_row *r = &res->rows[i];
		const struct compare_side *b = &r->side[0], *a = &r->side[res->nsides - 1];
		bool fail = r->kind == COMPARE_FAILURE;
		struct classic_fmt f = { 0 };
		if (!r->changed)
			continue;
		classic_scan(&f, b->v, b->n);
		classic_scan(&f, a->v, a->n);
		classic_cell(out, r->metric, true, 0, fail ? (double)b->fails : b->mean, b->n > 1 ? b->stddev : -1, &f,
			     fail, b->n, 0);
		classic_cell(out, r->metric, false, b->mean, fail ? (double)a->fails : a->mean, a->n > 1 ? a->stddev : -1,
			     &f, fail, a->n, r->change[res->nsides - 1]);
		strbuf_addf(out, "%s\n", r->metric);
	}
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

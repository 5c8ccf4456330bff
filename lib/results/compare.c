/*
 * compare: LKP's comparison of commits, metric by metric. The "changed"
 * decision and the layouts follow lkp-tests (lib/stats.rb, lib/compare.rb,
 * sbin/compare) so that our rows are theirs on the same samples; the
 * significance tests and effect sizes are ours, reported beside them.
 *
 * This file: the samples of each side, and the rows with their changes
 * and our decision. What a metric is (failure, test, perf; its direction
 * and floor) is compare_metric.c, lkp-tests' own selection and order of
 * rows compare_lkp.c, the tables (ncompare, classic, JSON) compare_render.c.
 */
#include "compare_int.h"
#include "matrix.h"
#include "../util/json.h"
#include "../stats/sigtest.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ncompare gives a plain difference for these */
static bool absolute_change(const char *m)
{
	return has_prefix(m, "perf-profile") || has_suffix(m, "%");
}

/*
 * Mean and population stddev of s->v, in lkp-tests' arithmetic so that the
 * tables print its digits: Ruby's Array#sum (Kahan-Babuska compensated)
 * over n, then (1/n) * the plain sum of squared deviations. Samples whose
 * sum overflows are summed over the largest one instead (no inf).
 */
void compare_moments(struct compare_side *s)
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

/* A side as the tables show it: mean, population stddev, what failed; its LKP summary */
static void summarize(struct compare_side *s, size_t max_margin)
{
	struct lkp_summary ls;

	if (!s->n)
		return;
	compare_moments(s);
	double fails = 0;
	for (size_t i = 0; i < s->n; i++)
		fails += s->v[i];
	/* lkp-tests' fail count is the sum of the runs' values (1 a run for the kernel log's stats) */
	s->fails = fails > 0 && fails < 1e15 ? (size_t)fails : 0;
	if (compare_lkp_summarize(s->v, s->n, max_margin, &ls)) {
		s->min = ls.min;
		s->max = ls.max;
		s->median = ls.median;
	}
}

/* A metric: its name, and its id when the sides share a pool of names. */
struct key {
	const char *name;
	int64_t id; /* -1: look it up by name */
};

/* The samples of one metric in a matrix (its cells, not copied): 0, 1 absent, -1 with why set. */
static int samples(const struct matrix *m, const struct key *key, const double **v, size_t *n, const char **why)
{
	const struct matrix_col *col = key->id >= 0 ? matrix_get_id(m, (uint32_t)key->id) : matrix_get(m, key->name);

	*v = NULL;
	*n = 0;
	if (!col)
		return 1;
	if (col->bad) {
		*why = "not a number";
		return -1;
	}
	*v = col->v;
	*n = col->n;
	if (!*n) {
		*why = "no samples";
		return -1;
	}
	return 0;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct key *)a)->name, ((const struct key *)b)->name);
}

/* The runs to leave out of perf stats: last_state.is_incomplete_run is 1 there. NULL: none to leave out. */
static bool *complete_columns(const struct matrix *m, size_t ncols, size_t *kept, bool *has_key)
{
	const struct matrix_col *inc = matrix_get(m, "last_state.is_incomplete_run");
	bool *keep;

	*kept = ncols;
	*has_key = inc != NULL;
	if (!inc || !inc->list)
		return NULL;
	keep = xcalloc(ncols ? ncols : 1, sizeof(*keep));
	for (size_t c = 0; c < ncols; c++) {
		keep[c] = !(c < inc->n && inc->v[c] == 1);
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

	if (!keep && n >= ncols) {
		side->v = v; /* every cell: the matrix's own (the result holds it) */
		side->n = n;
		return;
	}
	side->own = compare_pass_values(&p, v, n, &m);
	side->v = side->own;
	side->n = m;
}

static int check_matrices(const struct matrix *const *matrices, const char *const *labels, size_t nsides,
			  struct strbuf *err)
{
	if (nsides < 2) {
		strbuf_setf(err, "compare needs two sides or more: a base and a commit");
		return -1;
	}
	for (size_t s = 0; s < nsides; s++) {
		if (!matrices[s]) {
			strbuf_setf(err, "%s: not a matrix (a map of metric -> samples)", labels[s]);
			return -1;
		}
	}
	return 0;
}

/* Every metric of every side (stats_source aside) once, sorted by name. */
static struct key *matrix_keys(const struct matrix *const *matrices, size_t nsides, size_t *nkeys)
{
	const struct matrix_names *names = matrices[0]->names;
	bool one_pool = true;
	size_t alloc = 0;
	struct key *keys = NULL;

	for (size_t s = 1; s < nsides; s++)
		one_pool &= matrices[s]->names == names;
	/* one pool (the usual): each name once by its id; else every side's, deduplicated once sorted */
	size_t nnames = one_pool ? matrix_names_count(names) : 0;
	bool *seen = xcalloc(nnames ? nnames : 1, sizeof(*seen));
	*nkeys = 0;
	for (size_t s = 0; s < nsides; s++)
		for (size_t i = 0; i < matrices[s]->ncol; i++) {
			uint32_t id = matrices[s]->col[i].name;
			const char *k = matrix_names_get(matrices[s]->names, id);
			if ((one_pool && seen[id]) || !strcmp(k, "stats_source"))
				continue;
			if (one_pool)
				seen[id] = true;
			ALLOC_GROW(keys, *nkeys + 1, alloc);
			keys[(*nkeys)++] = (struct key){ k, one_pool ? (int64_t)id : -1 };
		}
	free(seen);
	if (*nkeys)
		qsort(keys, *nkeys, sizeof(*keys), cmp_key);
	size_t n = 0;
	for (size_t k = 0; k < *nkeys; k++)
		if (!n || strcmp(keys[k].name, keys[n - 1].name))
			keys[n++] = keys[k];
	*nkeys = n;
	return keys;
}

/*
 * The sides of a comparison as the selection's passes see them: every run
 * (all), and the complete runs only (done) when a side has incomplete runs.
 */
struct sides {
	size_t n;
	const struct matrix *const *m;
	struct pass_side *all, *done;
	bool **keep;		/* each side's complete columns (NULL: every one) */
	bool incomplete;	/* a side says which of its runs are incomplete */
	bool second_pass;	/* every side has a complete run */
};

static void sides_init(struct sides *sd, const struct matrix *const *matrices, size_t nsides)
{
	sd->n = nsides;
	sd->m = matrices;
	sd->all = xcalloc(nsides, sizeof(*sd->all));
	sd->done = xcalloc(nsides, sizeof(*sd->done));
	sd->keep = xcalloc(nsides, sizeof(*sd->keep));
	sd->incomplete = false;
	sd->second_pass = true;
	for (size_t s = 0; s < nsides; s++) {
		bool has_key;
		size_t kept;
		size_t ncols = matrix_runs(matrices[s]);
		sd->keep[s] = complete_columns(matrices[s], ncols, &kept, &has_key);
		sd->incomplete |= has_key;
		sd->all[s] = (struct pass_side){ matrices[s], NULL, ncols, ncols };
		sd->done[s] = (struct pass_side){ matrices[s], sd->keep[s], ncols, kept };
		sd->second_pass &= kept > 0;
	}
}

static void sides_release(struct sides *sd)
{
	for (size_t s = 0; s < sd->n; s++)
		free(sd->keep[s]);
	free(sd->all);
	free(sd->done);
	free(sd->keep);
}

/* A row of metric, nothing measured yet. */
static void row_init(struct compare_row *r, const char *metric, size_t nsides)
{
	memset(r, 0, sizeof(*r));
	r->metric = metric;
	r->kind = compare_is_failure(r->metric) ? COMPARE_FAILURE : COMPARE_PERF;
	r->side = xcalloc(nsides, sizeof(*r->side));
	r->change = xcalloc(nsides, sizeof(*r->change));
	for (size_t s = 0; s < nsides; s++)
		r->change[s] = NAN;
	r->absolute = r->kind == COMPARE_PERF && absolute_change(r->metric);
	r->p_welch = r->p_mwu = r->hedges_g = r->cliffs_delta = NAN;
	r->direction = compare_direction(r->metric);
	r->why = "";
}

/* Each side's samples of the row's metric (raw); false when a side's are unusable (r->why says why). */
static bool row_samples(struct compare_row *r, const struct key *key, const struct sides *sd, const double **raw,
			size_t *nraw)
{
	bool ok = true;

	for (size_t s = 0; s < sd->n; s++) {
		const char *why = NULL;
		int rc = samples(sd->m[s], key, &raw[s], &nraw[s], &why);
		if (rc < 0) {
			r->why = why;
			ok = false;
		} else if (rc == 0) {
			r->side[s].present = true;
		}
	}
	return ok;
}

/* What the tables show: the complete runs of perf stats, every run of failure stats. */
static void row_summarize(struct compare_row *r, const struct sides *sd, const double *const *raw, const size_t *nraw)
{
	bool fail = r->kind == COMPARE_FAILURE;

	for (size_t s = 0; s < sd->n; s++) {
		side_values(&r->side[s], raw[s], nraw[s], fail ? NULL : sd->keep[s], sd->all[s].ncols);
		size_t margin = fail ? 0 : 3;
		if (s && r->side[0].n <= 3 && margin > 1)
			margin = 1;
		summarize(&r->side[s], margin);
	}
}

/* Each side's change against the base: as the tables show it, and as lkp-tests sorts by it (lc). */
static void row_changes(struct compare_row *r, size_t nsides, double *lc)
{
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
}

/*
 * lkp-tests' selection of side s against the base: over every run first for
 * a failure stat when runs are incomplete, then over the complete runs.
 * True when selected; else *why says why not.
 */
static bool row_select_side(const struct compare_row *r, const struct sides *sd, size_t s, const double *const *raw,
			    const size_t *nraw, const struct compare_opts *o, const char **why)
{
	bool fail = r->kind == COMPARE_FAILURE;
	const char *w = NULL;
	size_t nb, na;
	double *vb, *va;
	bool picked = false;

	if (sd->incomplete && fail) {
		vb = compare_pass_values(&sd->all[0], raw[0], nraw[0], &nb);
		va = compare_pass_values(&sd->all[s], raw[s], nraw[s], &na);
		w = compare_lkp_select(r->metric, fail, r->side[0].present, &sd->all[0], vb, nb, &sd->all[s], va, na, o, true);
		picked = !w;
		free(vb);
		free(va);
	}
	if (!picked && (!sd->incomplete || (sd->second_pass && strcmp(r->metric, "last_state.is_incomplete_run")))) {
		const struct pass_side *pb = sd->incomplete ? &sd->done[0] : &sd->all[0];
		const struct pass_side *pa = sd->incomplete ? &sd->done[s] : &sd->all[s];
		vb = compare_pass_values(pb, raw[0], nraw[0], &nb);
		va = compare_pass_values(pa, raw[s], nraw[s], &na);
		w = compare_lkp_select(r->metric, fail, r->side[0].present, pb, vb, nb, pa, va, na, o, false);
		picked = !w;
		free(vb);
		free(va);
	} else if (!picked && !w) {
		w = "every run of a side is incomplete (last_state.is_incomplete_run)";
	}
	*why = w;
	return picked;
}

/* lkp-tests' selection, each side against the base: the row is shown when one of them changed. */
static void row_select(struct compare_row *r, const struct sides *sd, const double *const *raw, const size_t *nraw,
		       const struct compare_opts *o)
{
	const struct compare_side *b = &r->side[0];
	const char *why = NULL;

	for (size_t s = 1; s < sd->n; s++) {
		const char *w = NULL;
		if (row_select_side(r, sd, s, raw, nraw, o, &w))
			r->changed = true;
		if (s == sd->n - 1)
			why = w;
	}
	r->why = r->changed ? "" : why ? why : "";
	if (r->changed && r->kind == COMPARE_PERF && !r->absolute && !isfinite(r->change[sd->n - 1])) {
		/* selected, but a percentage of a base <= 0 (or beyond a double) is no number */
		r->why = b->mean == 0 ? "changed, but the base mean is 0: no percentage"
			 : b->mean < 0 ? "changed, but the base mean is negative: no percentage"
				       : "changed, but the percentage is beyond what a number holds";
	}
}

/* The decision for the last side against the base (a perf stat it has); terse: without its words. */
static void row_decide(struct compare_row *r, size_t nsides, const struct compare_opts *o, bool terse)
{
	const struct compare_side *b = &r->side[0], *a = &r->side[nsides - 1];

	/* paired where both sides ran in the same rounds */
	const uint64_t *ra = NULL, *rb = NULL;
	if (o && o->rounds && o->nrounds) {
		ra = o->nrounds[0] == b->n ? o->rounds[0] : NULL;
		rb = o->nrounds[nsides - 1] == a->n ? o->rounds[nsides - 1] : NULL;
	}
	struct decide_side db = { b->v, ra, b->n }, da = { a->v, rb, a->n };
	/* the row's direction is compare_metric_spec's, made once (lkp-tests' index files are many patterns) */
	struct decide_metric dm = { r->direction, compare_floor_of(o ? o->floors : NULL, r->metric) };
	(terse ? decide_terse : decide)(&db, &da, &dm, &r->decision);
	r->verdict = r->decision.verdict == DECIDE_CHANGED ? r->decision.kind : 0;
	r->decided = true;
}

/* Our tests beside the decision (the p-values, effect sizes), for a row that is kept. */
static void row_tests(struct compare_row *r, size_t nsides)
{
	const struct compare_side *b = &r->side[0], *a = &r->side[nsides - 1];

	r->p_welch = sigtest_welch(b->v, b->n, a->v, a->n, NULL, NULL);
	r->p_mwu = sigtest_mwu(b->v, b->n, a->v, a->n, NULL, &r->mwu_exact);
	r->hedges_g = sigtest_hedges_g(b->v, b->n, a->v, a->n);
	r->cliffs_delta = sigtest_cliffs_delta(b->v, b->n, a->v, a->n);
}

/* One row: its samples, what the tables show, the changes, lkp-tests' selection and our decision. */
static void compare_row(struct compare_result *res, struct compare_row *r, const struct key *key,
			const struct sides *sd, double *lc, const struct compare_opts *o)
{
	const double **raw = xcalloc(sd->n, sizeof(*raw));
	size_t *nraw = xcalloc(sd->n, sizeof(*nraw));
	bool ok = row_samples(r, key, sd, raw, nraw);

	if (ok)
		row_summarize(r, sd, raw, nraw);
	if (!ok || !r->side[0].present) {
		if (!*r->why)
			r->why = "not in the base";
		/* a failure stat only the new side has: a failure the base never had, selected below */
		if (!ok || r->kind != COMPARE_FAILURE)
			goto out;
	}
	row_changes(r, sd->n, lc);
	row_select(r, sd, raw, nraw, o);
	if (r->kind == COMPARE_PERF && r->side[sd->n - 1].present)
		row_decide(r, sd->n, o, o && o->shown_only); /* worded once it is known to be kept */
	if (r->changed)
		res->nchanged++;
out:
	free(raw);
	free(nraw);
}

static void row_release(struct compare_row *r, size_t nsides)
{
	for (size_t s = 0; s < nsides; s++)
		free(r->side[s].own);
	free(r->side);
	free(r->change);
}

/* Is a row one to keep with o->shown_only: a table shows it, or the decision says it changed? */
static bool row_shown(const struct compare_row *r, const struct compare_opts *o)
{
	return !o || !o->shown_only || r->changed || (o->all && r->side[0].present) ||
	       r->decision.verdict == DECIDE_CHANGED;
}

int compare_tables(const struct matrix *const *matrices, const char *const *labels, size_t nsides,
		   const struct compare_opts *o, struct compare_result *res, struct strbuf *err)
{
	struct sides sd;
	size_t nkeys, alloc = 0;
	struct key *keys;
	double *lkp_changes;

	memset(res, 0, sizeof(*res));
	if (check_matrices(matrices, labels, nsides, err))
		return -1;
	keys = matrix_keys(matrices, nsides, &nkeys);
	sides_init(&sd, matrices, nsides);
	res->nsides = nsides;
	res->all = o && o->all;
	res->labels = xcalloc(nsides, sizeof(*res->labels));
	res->mats = xcalloc(nsides, sizeof(*res->mats));
	for (size_t s = 0; s < nsides; s++) {
		res->labels[s] = xstrdup(labels[s]);
		res->mats[s] = matrix_ref((struct matrix *)matrices[s]);
	}
	lkp_changes = xcalloc(nkeys ? nkeys * (nsides - 1) : 1, sizeof(*lkp_changes));
	for (size_t k = 0; k < nkeys; k++) {
		ALLOC_GROW(res->rows, res->nrows + 1, alloc);
		struct compare_row *r = &res->rows[res->nrows];
		row_init(r, keys[k].name, nsides);
		if (o && o->floors) /* the job's word on which way is better comes first */
			r->direction = compare_direction_of(o->floors, r->metric);
		compare_row(res, r, &keys[k], &sd, lkp_changes + res->nrows * (nsides - 1), o);
		res->ncompared++;
		if (!row_shown(r, o)) {
			row_release(r, nsides); /* its slot is the next row's */
			continue;
		}
		if (r->decided && o && o->shown_only)
			row_decide(r, nsides, o, false);
		if (r->decided)
			row_tests(r, nsides);
		res->nrows++;
	}
	sides_release(&sd);
	free(keys);
	compare_sort_rows(res, lkp_changes);
	free(lkp_changes);
	return 0;
}

int compare_matrices(const struct node *const *matrices, const char *const *labels, size_t nsides,
		     const struct compare_opts *o, struct compare_result *res, struct strbuf *err)
{
	struct matrix_names *names = matrix_names_new();
	struct matrix **m = xcalloc(nsides ? nsides : 1, sizeof(*m));
	int ret;

	for (size_t s = 0; s < nsides; s++)
		m[s] = matrix_from_node(matrices[s], names);
	ret = compare_tables((const struct matrix *const *)m, labels, nsides, o, res, err);
	for (size_t s = 0; s < nsides; s++)
		matrix_unref(m[s]);
	free(m);
	matrix_names_unref(names);
	return ret;
}

void compare_result_release(struct compare_result *res)
{
	for (size_t i = 0; i < res->nrows; i++)
		row_release(&res->rows[i], res->nsides);
	for (size_t s = 0; s < res->nsides; s++) {
		free(res->labels[s]);
		if (res->mats)
			matrix_unref(res->mats[s]);
	}
	free(res->labels);
	free(res->mats);
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

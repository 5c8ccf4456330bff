/*
 * bisect: the search and the verdicts. See bisect.h. The graph is held as
 * one bitset of ancestors per commit (the range is at most a few thousand
 * commits: n^2 bits); candidates are a bitset too. The rounds run and the
 * statistics of their samples are bisect_rounds.c (shared: bisect_int.h).
 */
#include "bisect_int.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct search {
	size_t n, words;
	uint64_t *anc;		/* n rows of `words`: commit i and its ancestors in the range */
	uint64_t *cand;		/* commits that may still be the first bad one */
	bool *skipped;
};

static bool has(const uint64_t *set, size_t j)
{
	return set[j / 64] >> (j % 64) & 1;
}

static uint64_t *row(const struct search *s, size_t i)
{
	return s->anc + i * s->words;
}

static size_t count_and(const uint64_t *a, const uint64_t *b, size_t words)
{
	size_t c = 0;
	for (size_t w = 0; w < words; w++)
		c += (size_t)__builtin_popcountll(a[w] & b[w]);
	return c;
}

static void search_init(struct search *s, size_t n, size_t *const *parents, const size_t *nparents)
{
	s->n = n;
	s->words = (n + 63) / 64;
	size_t cells = n * s->words;
	s->anc = xcalloc(cells ? cells : 1, sizeof(uint64_t));
	s->cand = xcalloc(s->words ? s->words : 1, sizeof(uint64_t));
	s->skipped = xcalloc(n ? n : 1, sizeof(bool));
	for (size_t i = 0; i < n; i++) {
		uint64_t *r = row(s, i);
		r[i / 64] |= 1ULL << (i % 64);
		for (size_t k = 0; k < nparents[i]; k++)
			for (size_t w = 0; w < s->words; w++)
				r[w] |= row(s, parents[i][k])[w];
		s->cand[i / 64] |= 1ULL << (i % 64);
	}
}

static void search_release(struct search *s)
{
	free(s->anc);
	free(s->cand);
	free(s->skipped);
}

/* The candidates that can be tested (not skipped), as a new bitset. */
static uint64_t *testable_set(const struct search *s)
{
	uint64_t *t = xcalloc(s->words ? s->words : 1, sizeof(uint64_t));

	for (size_t i = 0; i < s->n; i++)
		if (has(s->cand, i) && !s->skipped[i])
			t[i / 64] |= 1ULL << (i % 64);
	return t;
}

/*
 * git bisect's choice: the commit whose ancestors split the candidates most
 * evenly; of two that split them alike, the one that splits the testable
 * candidates more evenly (a skipped commit can never be told apart: an
 * even split of what can be tested saves a build); -1 when done.
 */
static ssize_t search_next(const struct search *s)
{
	size_t total = count_and(s->cand, s->cand, s->words), best_v = 0, best_t = 0;
	uint64_t *testable = testable_set(s);
	size_t ttotal = count_and(testable, testable, s->words);
	ssize_t best = -1;

	for (size_t i = 0; i < s->n; i++) {
		if (!has(s->cand, i) || s->skipped[i])
			continue;
		size_t a = count_and(row(s, i), s->cand, s->words);
		size_t v = a < total - a ? a : total - a;
		size_t at = count_and(row(s, i), testable, s->words);
		size_t t = at < ttotal - at ? at : ttotal - at;
		if (v > best_v || (v && v == best_v && t > best_t)) {
			best_v = v;
			best_t = t;
			best = (ssize_t)i;
		}
	}
	free(testable);
	return best;
}

/* Does commit i still split the candidates (some on either side of it)? */
static bool search_splits(const struct search *s, size_t i)
{
	size_t total = count_and(s->cand, s->cand, s->words), a = count_and(row(s, i), s->cand, s->words);
	return has(s->cand, i) && !s->skipped[i] && a > 0 && a < total;
}

/*
 * k commits to test at once, splitting the candidates into k+1 parts as
 * evenly as their ancestry allows: for the j-th, the commit with about
 * j/(k+1) of the candidates among its ancestors (the same tie-break as
 * search_next). The first is search_next's when k is 1. Returns how many
 * (distinct) were found.
 */
static size_t search_points(const struct search *s, size_t k, size_t *out)
{
	if (k <= 1) {
		ssize_t i = search_next(s);
		if (i >= 0)
			out[0] = (size_t)i;
		return i >= 0;
	}
	size_t total = count_and(s->cand, s->cand, s->words), n = 0;
	uint64_t *testable = testable_set(s);
	size_t ttotal = count_and(testable, testable, s->words);

	for (size_t j = 1; j <= k; j++) {
		double target = (double)j * (double)total / (double)(k + 1);
		double best_d = INFINITY;
		size_t best_t = 0;
		ssize_t best = -1;
		for (size_t i = 0; i < s->n; i++) {
			if (!has(s->cand, i) || s->skipped[i])
				continue;
			size_t a = count_and(row(s, i), s->cand, s->words);
			if (!a || a >= total)
				continue;
			bool dup = false;
			for (size_t q = 0; q < n && !dup; q++)
				dup = out[q] == i;
			if (dup)
				continue;
			double dist = fabs((double)a - target);
			size_t at = count_and(row(s, i), testable, s->words);
			size_t t = at < ttotal - at ? at : ttotal - at;
			if (dist < best_d || (dist == best_d && t > best_t)) {
				best_d = dist;
				best_t = t;
				best = (ssize_t)i;
			}
		}
		if (best >= 0)
			out[n++] = (size_t)best;
	}
	free(testable);
	return n;
}

static void search_mark(struct search *s, size_t i, int verdict)
{
	if (!verdict) {
		s->skipped[i] = true;
		return;
	}
	for (size_t w = 0; w < s->words; w++)
		s->cand[w] = verdict > 0 ? s->cand[w] & row(s, i)[w] : s->cand[w] & ~row(s, i)[w];
}

size_t bisect_log2_ceil(size_t n)
{
	size_t k = 0;
	while (((size_t)1 << k) < n)
		k++;
	return k;
}

static void add_step(struct bisect_outcome *out, size_t i, int verdict, size_t runs, double l, bool sure)
{
	out->steps = xrealloc(out->steps, (out->nsteps + 1) * sizeof(*out->steps));
	out->steps[out->nsteps++] = (struct bisect_step){ i, verdict, runs, l, sure };
}

static double mean_of(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

/* One bisection's state between its phases: the ends, the model, the steps, the confirmation. */
struct bctx {
	struct bis b;
	struct search s;
	const struct bisect_opts *op;
	struct decide_metric metric;
	struct model m;
	size_t start, cap, limit, step_rounds, end_runs, confirm;
	double threshold;
	struct decision ends;
	uint64_t *ends_rounds;	/* the rounds the ends were decided on */
	size_t nends_rounds;
};

/*
 * The ends: do they differ by more than the floor? Rounds of both, in a
 * random order each, more while the decision is unsure and more runs could
 * settle it, up to the cap; then "not sure", never a guess. 0 when they
 * differ, 1 when the bisection ends there (out->status says how), -1 with
 * err set.
 */
static int measure_ends(struct bctx *c, struct strbuf *err)
{
	struct bis *b = &c->b;
	struct bisect_outcome *out = b->out;
	size_t n = b->n;
	const struct sampled *g;
	int rc;

	for (size_t want = c->end_runs;;) {
		rc = bisect_ensure_pairs(b, n, n - 1, want, err);
		if (rc > 0) {
			bool good_bad = bisect_get(b, n, &g, err) != 0;
			strbuf_setf(err, "the %s end of the range cannot be tested (it does not build or run)",
				    good_bad ? "good" : "bad");
			return -1;
		}
		if (rc < 0)
			return -1;
		size_t have;
		bisect_decide_between(b, n, n - 1, &c->metric, NULL, 0, &c->ends, &have);
		size_t next = decide_rounds(&c->ends, have, c->limit, NULL);
		if (next <= have || have < want)	/* decided, or the runs asked for did not come */
			break;
		want = next;
	}
	out->ends = c->ends;
	/* the rounds the ends were decided on: a confirmation of the ends themselves is not made of them */
	c->ends_rounds = xcalloc(b->cache[n].n + 1, sizeof(uint64_t));
	size_t *ig = xcalloc(b->cache[n].n + 1, sizeof(size_t));
	c->nends_rounds = bisect_pair_up(&b->cache[n], &b->cache[n - 1], ig, NULL);
	for (size_t k = 0; k < c->nends_rounds; k++)
		c->ends_rounds[k] = b->cache[n].round[ig[k]];
	free(ig);
	out->ends_change = c->ends.change;
	out->p = decide_p(&c->ends);
	if (c->ends.verdict == DECIDE_CHANGED)
		return 0;
	/* "no change" only when the interval lies within the floor: a wide one rules nothing out */
	const struct decision *e = &c->ends;
	bool same = e->verdict == DECIDE_SAME;
	out->status = same ? BISECT_NOT_REPRODUCED : BISECT_NOT_SURE;
	if (same)
		snprintf(out->why, sizeof(out->why), "the good and the bad end do not differ: no change to bisect: %s",
			 e->why);
	else
		snprintf(out->why, sizeof(out->why), "not sure the good and the bad end differ%s: %s",
			 e->settled ? " (more runs cannot tell)" : "", e->why);
	return 1;
}

/* The model, from the ends' rounds; the rounds a verdict starts with, adds and may take. */
static void fit_model(struct bctx *c)
{
	struct bis *b = &c->b;
	struct model *m = &c->m;
	const struct sampled *g = &b->cache[b->n], *bd = &b->cache[b->n - 1];

	*m = (struct model){ c->ends.log_scale, 1, 0, 0 };
	for (size_t i = 0; i < g->n; i++)
		m->scale = fmax(m->scale, fabs(g->v[i]));
	for (size_t i = 0; i < bd->n; i++)
		m->scale = fmax(m->scale, fabs(bd->v[i]));
	double *u;
	size_t k = bisect_round_diffs(m, g, bd, &u);
	m->delta = mean_of(u, k);
	double ss = 0;
	for (size_t i = 0; i < k; i++)
		ss += (u[i] - m->delta) * (u[i] - m->delta);
	m->sigma = k > 1 ? sqrt(ss / (double)(k - 1)) : 0;
	free(u);
	/*
	 * Not below what each end's runs spread (a round's difference is two
	 * runs': sqrt 2 times one's), and raised to a 75 % upper bound for
	 * the few rounds it comes from (Wilson-Hilferty's chi-square quantile):
	 * a spread underestimated by half would make every verdict look four
	 * times surer than it is, and one wild round decide.
	 */
	double within = sqrt(2) * bisect_pooled_sd(m, g, bd);
	if (within > m->sigma)
		m->sigma = within;
	if (k > 1) {
		double nu = (double)(k - 1), h = 2 / (9 * nu), q = 1 - h - 0.6745 * sqrt(h);
		m->sigma *= sqrt(nu / (nu * q * q * q));
	}
	/*
	 * How many rounds a verdict may take: the expected log-likelihood
	 * ratio of a round is d^2/2 (d: the shift in units of a round's
	 * noise), so reaching the threshold takes about 2A/d^2 rounds; allow
	 * three times that.
	 */
	double d_eff = m->sigma > 0 ? fabs(m->delta) / m->sigma : INFINITY;
	double want_r = 6 * c->threshold / (d_eff * d_eff);
	if (c->cap > c->limit)
		c->cap = c->limit;
	if (want_r > (double)c->cap)
		c->cap = want_r > (double)c->limit ? c->limit : (size_t)ceil(want_r);
	/* a shift many noise-stddevs wide: one round of a 6-sigma shift already carries a ratio of about 18 */
	if (!c->op->start_runs)
		c->start = d_eff >= 4 ? 1 : d_eff >= 2 ? 2 : c->start;
	/* then one round more at a time, two when a round says little */
	c->step_rounds = d_eff >= 2 ? 1 : 2;
	/* not below a twentieth of the shift, so one wild sample cannot decide */
	if (m->sigma < fabs(m->delta) / 20)
		m->sigma = fabs(m->delta) / 20;
	if (!(m->sigma > 0))
		m->sigma = 1e-12;
}

/* A commit of a step: its sequential test's state. */
struct point {
	size_t i, want, rounds;
	double l;
	int verdict;
	bool sure, done;
};

/*
 * How many commits the next step tests. One — git bisect's — unless
 * --max-points K >= 2 asks for more: every commit of a step but the one
 * the verdicts keep is a build binary bisection never makes (a step's
 * second commit is on its path only if the first one's verdict goes its
 * way), so more points at once always cost builds, and only the user can
 * say they are cheaper than the boxes' time. Then as many as the slots
 * hold (each commit's first rounds, two runs a round), and so that
 * speculation stays bounded, no more than the builds of the whole
 * bisection allow — twice those of a clean one, 2 (ceil(log2 N) + 2) — over
 * the steps they leave.
 */
static size_t step_points(struct bctx *c, const bool *asked, const struct bisect_oracle *o)
{
	size_t n = c->b.n, left = count_and(c->s.cand, c->s.cand, c->s.words), spent = 0, npts = 1;
	size_t budget = 2 * (bisect_log2_ceil(n) + 2);

	if (c->op->max_points < 2)
		return 1;
	for (size_t i = 0; i <= n; i++)
		spent += asked[i];
	size_t by_slots = (o->slots ? o->slots(o->ctx) : 1) / (2 * c->start);
	if (by_slots > c->op->max_points)
		by_slots = c->op->max_points;
	for (size_t kk = 2; kk <= by_slots && kk < left; kk++) {
		size_t steps = 0;
		for (double parts = 1; parts < (double)left; parts *= (double)(kk + 1))
			steps++;
		if (spent + kk * steps <= budget)
			npts = kk;
	}
	return npts;
}

/* One wave of a step: every open commit's rounds in one batch, then each one's ratio. 0, or -1 with err set. */
static int run_wave(struct bctx *c, struct point *pts, size_t np, struct strbuf *err)
{
	struct bis *b = &c->b;
	size_t n = b->n, *first = NULL, *second = NULL, nr = 0;
	const struct sampled *x, *g, *bd;
	int rc = 0;

	for (size_t q = 0; q < np && rc >= 0; q++) {
		if (pts[q].done)
			continue;
		rc = bisect_plan_with_ends(b, pts[q].i, pts[q].want, &first, &second, &nr, err);
		if (rc > 0) {
			pts[q].done = true;	/* skipped */
			pts[q].rounds = 0;
		}
	}
	if (rc >= 0 && nr)
		rc = bisect_run_rounds(b, first, second, nr, err) ? -1 : 0;
	free(first);
	free(second);
	if (rc < 0)
		return -1;
	for (size_t q = 0; q < np; q++) {
		struct point *pt = &pts[q];
		if (pt->done)
			continue;
		if ((rc = bisect_get(b, pt->i, &x, err)) < 0)
			return -1;
		if (rc > 0) {
			pt->done = true;	/* skipped */
			pt->rounds = 0;
			continue;
		}
		if ((rc = bisect_get(b, n, &g, err)) || (rc = bisect_get(b, n - 1, &bd, err))) {
			if (rc > 0)
				strbuf_setf(err, "an end of the range cannot be tested any more");
			return -1;
		}
		pt->l = bisect_llr(&c->m, x, g, bd, &pt->rounds);
		if (pt->rounds < pt->want) {
			pt->done = true;	/* its runs do not come: skipped */
			pt->rounds = 0;
		} else if (fabs(pt->l) >= c->threshold || pt->rounds >= c->cap) {
			pt->verdict = pt->l > 0 ? +1 : -1;
			pt->sure = fabs(pt->l) >= c->threshold;
			pt->done = true;
		} else {
			pt->want = pt->rounds + c->step_rounds > c->cap ? c->cap : pt->rounds + c->step_rounds;
		}
	}
	return 0;
}

/* The verdicts taken, in the commits' order; the commits still open and not moot: how many. */
static size_t take_verdicts(struct bctx *c, struct point *pts, size_t np, size_t *step)
{
	const struct bisect_oracle *o = c->b.o;
	size_t active = 0;

	for (size_t q = 0; q < np; q++) {
		struct point *pt = &pts[q];
		if (pt->i == SIZE_MAX)
			continue;	/* taken, or moot */
		if (pt->done || !search_splits(&c->s, pt->i)) {
			if (pt->done && (!pt->verdict || search_splits(&c->s, pt->i))) {
				search_mark(&c->s, pt->i, pt->verdict);
				add_step(c->b.out, pt->i, pt->verdict, pt->rounds, pt->l, pt->sure);
				if (o->progress)
					o->progress(o->ctx, ++*step, count_and(c->s.cand, c->s.cand, c->s.words), pt->i,
						    pt->verdict, pt->rounds);
			}
			pt->done = true;
			pt->i = SIZE_MAX;
			continue;
		}
		active++;
	}
	return active;
}

/*
 * The steps: one commit at a time, or k at once that split the candidates
 * into k+1 parts (step_points). Each commit's verdict is its own
 * sequential test; their rounds go out in one batch a wave, and a verdict
 * is taken as it comes, in the order the commits were chosen, unless the
 * verdicts before it left it outside the candidates (moot: its runs are
 * lost). 0, or -1 with err set.
 */
static int run_steps(struct bctx *c, struct strbuf *err)
{
	size_t n = c->b.n, step = 0;
	bool *asked = xcalloc(n + 1, sizeof(bool));
	struct point *pts = xcalloc(n + 1, sizeof(*pts));
	size_t *chosen = xcalloc(n + 1, sizeof(size_t));
	int rc = 0;

	asked[n] = asked[n - 1] = true;
	for (;;) {
		size_t np = search_points(&c->s, step_points(c, asked, c->b.o), chosen);
		if (!np)
			break;
		for (size_t q = 0; q < np; q++) {
			pts[q] = (struct point){ .i = chosen[q], .want = c->start };
			asked[chosen[q]] = true;
		}
		for (size_t active = np; active;) {
			if ((rc = run_wave(c, pts, np, err)))
				goto out;
			active = take_verdicts(c, pts, np, &step);
		}
	}
out:
	free(asked);
	free(pts);
	free(chosen);
	return rc;
}

/*
 * The commit to confirm, and what against: the one candidate and its first
 * parent; or, when skipped commits leave several and exactly one of them
 * can be tested (the others do not build), that one against the nearest
 * commit found good below it (or the good end), so that a regression behind
 * a broken commit is reported rather than dropped. 1 when there is none
 * (out says why).
 */
static int culprit_and_parent(struct bctx *c, size_t *const *parents, const size_t *nparents, size_t *cc, size_t *pp)
{
	struct search *s = &c->s;
	struct bisect_outcome *out = c->b.out;
	size_t n = c->b.n, left = count_and(s->cand, s->cand, s->words), testable = 0;

	*cc = 0;
	*pp = n;
	if (left == 1) {
		while (!has(s->cand, *cc))
			++*cc;
		*pp = nparents[*cc] ? parents[*cc][0] : n;
		return 0;
	}
	out->status = BISECT_AMBIGUOUS;
	snprintf(out->why, sizeof(out->why), "commits that cannot be tested leave more than one candidate");
	out->candidates = xcalloc(left ? left : 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++)
		if (has(s->cand, i)) {
			out->candidates[out->ncandidates++] = i;
			if (!s->skipped[i]) {
				testable++;
				*cc = i;
			}
		}
	if (testable != 1)
		return 1;
	for (size_t st = 0; st < out->nsteps; st++) {
		size_t g2 = out->steps[st].commit;
		if (out->steps[st].verdict < 0 && has(row(s, *cc), g2) &&
		    (*pp == n || count_and(row(s, g2), row(s, g2), s->words) > count_and(row(s, *pp), row(s, *pp), s->words)))
			*pp = g2;
	}
	return 0;
}

/*
 * Confirm: the culprit against its parent, in rounds of their own, decided
 * as the ends were; it must change the ends' way by at least a quarter of
 * the ends' change (else a gradual drift, or noise). 0 with out's status,
 * or -1 with err set.
 */
static int confirm_culprit(struct bctx *c, size_t cc, size_t p, struct strbuf *err)
{
	struct bisect_outcome *out = c->b.out;
	size_t n = c->b.n;
	struct decision conf;
	const struct decision *ends = &c->ends;
	double quarter = fabs(ends->change) / 4;
	enum bisect_status found = out->status == BISECT_AMBIGUOUS ? BISECT_AMBIGUOUS : BISECT_FOUND;
	/* rounds of the ends that a confirmation of the ends themselves leaves out (and makes anew) */
	size_t reused = p == n && cc == n - 1 ? c->nends_rounds : 0;

	out->culprit = cc;
	out->parent = p;
	for (size_t want = c->confirm;;) {
		int rc = bisect_ensure_pairs(&c->b, p, cc, want + reused, err);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			out->status = found == BISECT_AMBIGUOUS ? found : BISECT_NOT_REPRODUCED;
			snprintf(out->why, sizeof(out->why), "the culprit or its parent could not be measured again");
			return 0;
		}
		size_t have;
		bisect_decide_between(&c->b, p, cc, &c->metric, c->ends_rounds, c->nends_rounds, &conf, &have);
		out->confirm = conf;
		out->confirmed = true;
		out->p = decide_p(&conf);
		out->change = conf.change;
		bool same_way = conf.change * ends->change > 0;
		/* the interval on the ends' side of 0 stops short of a quarter of their change */
		bool small = ends->change < 0 ? conf.lo > -quarter : conf.hi < quarter;
		if (conf.verdict == DECIDE_CHANGED && same_way && fabs(conf.change) >= quarter) {
			/*
			 * Confirmed on rounds of their own; what is said of it is the
			 * decision on every round the two have (the ends' too, when they
			 * are the ends), the comparison a report of it makes again.
			 */
			struct decision all;
			bisect_decide_between(&c->b, p, cc, &c->metric, NULL, 0, &all, NULL);
			if (all.verdict == DECIDE_CHANGED && all.change * conf.change > 0) {
				conf = all;
				out->confirm = conf;
				out->p = decide_p(&conf);
				out->change = conf.change;
			}
			out->status = found;
			out->located = found == BISECT_AMBIGUOUS;
			snprintf(out->why, sizeof(out->why), "%s: %s",
				 out->located ? "commits that cannot be tested leave more than one candidate; the one that "
						"can be tested changed against the nearest good commit"
					      : "the culprit's change reproduces against its parent",
				 conf.why);
			return 0;
		}
		if (conf.verdict != DECIDE_UNSURE || small || conf.settled) {
			out->status = found == BISECT_AMBIGUOUS ? found : BISECT_NOT_REPRODUCED;
			snprintf(out->why, sizeof(out->why),
				 "the change does not reproduce between the culprit and its parent (a gradual drift, or "
				 "noise): %s", conf.why);
			return 0;
		}
		size_t next = decide_rounds(&conf, have, c->limit, NULL);
		if (next <= have || have < want) {
			out->status = found == BISECT_AMBIGUOUS ? found : BISECT_NOT_SURE;
			snprintf(out->why, sizeof(out->why),
				 "not sure the culprit's change reproduces against its parent: %s", conf.why);
			return 0;
		}
		want = next;
	}
}

int bisect_run(size_t n, size_t *const *parents, const size_t *nparents, const struct bisect_oracle *o,
	       const struct bisect_opts *opts, struct bisect_outcome *out, struct strbuf *err)
{
	static const struct bisect_opts d = { 0, 12, 5, 5, 0.01, 60, { 0, 0.01 }, 0, 0 };
	const struct bisect_opts *op = opts ? opts : &d;
	struct bctx c = { .op = op, .metric = op->metric };
	int ret = -1, rc;

	memset(out, 0, sizeof(*out));
	out->p = out->change = out->ends_change = NAN;
	if (!n) {
		strbuf_setf(err, "an empty range: nothing to bisect");
		return -1;
	}
	c.start = op->start_runs ? op->start_runs : 3;
	c.cap = op->max_runs ? op->max_runs : d.max_runs;
	c.limit = (op->run_limit ? op->run_limit : d.run_limit) / 2;
	c.end_runs = op->end_runs ? op->end_runs : d.end_runs;
	c.confirm = op->confirm_runs ? op->confirm_runs : d.confirm_runs;
	double alpha = op->alpha > 0 ? op->alpha : d.alpha;
	c.threshold = log((1 - alpha) / alpha);
	if (!(c.metric.floor > 0))
		c.metric.floor = 0.01;
	if (c.limit < c.end_runs)
		c.limit = c.end_runs;
	c.b = (struct bis){ o, out, n, xcalloc(n + 1, sizeof(size_t)), op->seed ? op->seed : 0x9E3779B97F4A7C15ULL,
			    xcalloc(n + 1, sizeof(struct sampled)), xcalloc(n + 1, sizeof(bool)) };
	search_init(&c.s, n, parents, nparents);

	if ((rc = measure_ends(&c, err)))
		goto out_ends;
	fit_model(&c);
	search_mark(&c.s, n - 1, +1);
	if (run_steps(&c, err))
		goto out;
	size_t cc, p;
	if (culprit_and_parent(&c, parents, nparents, &cc, &p) || !confirm_culprit(&c, cc, p, err))
		ret = 0;
	goto out;
out_ends:
	ret = rc > 0 ? 0 : -1;
out:
	free(c.ends_rounds);
	for (size_t i = 0; i <= n; i++) {
		out->commits += c.b.seen[i] > 0;
		out->runs += c.b.seen[i];
		bisect_sampled_release(&c.b.cache[i]);
	}
	free(c.b.seen);
	free(c.b.cache);
	free(c.b.fresh);
	search_release(&c.s);
	return ret;
}

void bisect_outcome_release(struct bisect_outcome *out)
{
	free(out->candidates);
	free(out->steps);
	memset(out, 0, sizeof(*out));
}

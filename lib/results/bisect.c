/*
 * bisect: the search and the verdicts. See bisect.h. The graph is held as
 * one bitset of ancestors per commit (the range is at most a few thousand
 * commits: n^2 bits); candidates are a bitset too.
 */
#include "bisect.h"
#include "../stats/sigtest.h"

#include <math.h>
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

/* git bisect's choice: the commit whose ancestors split the candidates most evenly; -1 when done */
static ssize_t search_next(const struct search *s)
{
	size_t total = count_and(s->cand, s->cand, s->words), best_v = 0;
	ssize_t best = -1;

	for (size_t i = 0; i < s->n; i++) {
		if (!has(s->cand, i) || s->skipped[i])
			continue;
		size_t a = count_and(row(s, i), s->cand, s->words);
		size_t v = a < total - a ? a : total - a;
		if (v > best_v) {
			best_v = v;
			best = (ssize_t)i;
		}
	}
	return best;
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

static double mean(const double *v, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : NAN;
}

static double var(const double *v, size_t n)
{
	double m = mean(v, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return n > 1 ? s / (double)(n - 1) : 0;
}

/*
 * The ends as two normal distributions with a common spread — of the
 * samples' logarithms when the metric is positive and the ends differ by
 * more than a factor of 2: throughput under noise that scales with it
 * (TCG's fio numbers spread over a factor of 5) is normal in log space.
 */
struct model {
	double good, bad, sigma;
	bool log;
};

static double scale(const struct model *m, double x)
{
	return m->log ? log(x) : x;
}

static double llr(const struct model *m, const double *x, size_t n)
{
	double l = 0;
	for (size_t i = 0; i < n; i++) {
		double v = scale(m, x[i]);
		l += ((v - m->good) * (v - m->good) - (v - m->bad) * (v - m->bad)) / (2 * m->sigma * m->sigma);
	}
	return l;
}

static bool all_positive(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0))
			return false;
	return true;
}

static void add_step(struct bisect_outcome *out, size_t i, int verdict, size_t runs, double l, bool sure)
{
	out->steps = xrealloc(out->steps, (out->nsteps + 1) * sizeof(*out->steps));
	out->steps[out->nsteps++] = (struct bisect_step){ i, verdict, runs, l, sure };
}

/* Copy what the oracle gave (it may move on the next call); seen[i]: samples of i so far. */
static int measure(const struct bisect_oracle *o, size_t *seen, size_t i, size_t runs, double **v, size_t *n,
		   struct strbuf *err)
{
	const double *p;
	int rc = o->measure(o->ctx, i, runs, &p, n, err);

	free(*v);
	*v = NULL;
	if (rc)
		return rc;
	if (*n > seen[i])
		seen[i] = *n;
	*v = xmalloc((*n ? *n : 1) * sizeof(double));
	memcpy(*v, p, *n * sizeof(double));
	return 0;
}

int bisect_run(size_t n, size_t *const *parents, const size_t *nparents, const struct bisect_oracle *o,
	       const struct bisect_opts *opts, struct bisect_outcome *out, struct strbuf *err)
{
	struct bisect_opts d = { 0, 12, 5, 5, 0.01, 60 };
	const struct bisect_opts *op = opts ? opts : &d;
	size_t start = op->start_runs ? op->start_runs : 3, cap = op->max_runs ? op->max_runs : d.max_runs;
	size_t limit = op->run_limit ? op->run_limit : 60;
	size_t end_runs = op->end_runs ? op->end_runs : d.end_runs;
	size_t confirm = op->confirm_runs ? op->confirm_runs : d.confirm_runs;
	double alpha = op->alpha > 0 ? op->alpha : d.alpha, threshold = log((1 - alpha) / alpha);
	double *g = NULL, *b = NULL, *x = NULL, *y = NULL;
	size_t ng = 0, nb = 0, nx = 0, ny = 0;
	size_t *seen = xcalloc(n + 1, sizeof(size_t));
	struct search s;
	int ret = -1, rc;

	memset(out, 0, sizeof(*out));
	if (!n) {
		strbuf_setf(err, "an empty range: nothing to bisect");
		free(seen);
		return -1;
	}
	search_init(&s, n, parents, nparents);

	/*
	 * The ends: do they differ at all? More runs while the evidence leans
	 * that way (p <= 0.25), up to the limit; a range with nothing in it
	 * stops after ten runs a side.
	 */
	double p_ends = 1;
	for (size_t runs = end_runs;; runs = runs + 3 > limit ? limit : runs + 3) {
		if ((rc = measure(o, seen, n, runs, &g, &ng, err)) || (rc = measure(o, seen, n - 1, runs, &b, &nb, err))) {
			if (rc > 0)
				strbuf_setf(err, "the %s end of the range cannot be tested (it does not build or run)",
					    g ? "bad" : "good");
			goto out;
		}
		p_ends = sigtest_mwu(g, ng, b, nb, NULL, NULL);
		if ((isfinite(p_ends) && p_ends <= alpha) || runs >= limit || (runs >= 10 && !(p_ends <= 0.25)))
			break;
	}
	out->p = p_ends;
	double mg = mean(g, ng), mb = mean(b, nb);
	out->ends_change = mg != 0 ? 100 * (mb - mg) / fabs(mg) : NAN;
	if (!(isfinite(p_ends) && p_ends <= alpha)) {
		out->status = BISECT_NOT_REPRODUCED;
		out->why = "the good and the bad end do not differ significantly: no change to bisect";
		ret = 0;
		goto out;
	}
	/* the noise both ends show; not below a twentieth of the shift, so one wild sample cannot decide */
	struct model m = { 0 };
	m.log = all_positive(g, ng) && all_positive(b, nb) && (mb > 2 * mg || mg > 2 * mb);
	for (size_t i = 0; i < ng; i++)
		g[i] = scale(&m, g[i]);
	for (size_t i = 0; i < nb; i++)
		b[i] = scale(&m, b[i]);
	m.good = mean(g, ng);
	m.bad = mean(b, nb);
	m.sigma = sqrt(((double)(ng - 1) * var(g, ng) + (double)(nb - 1) * var(b, nb)) / (double)(ng + nb - 2));
	/*
	 * How many runs a verdict may take: the expected log-likelihood ratio
	 * of a sample is d^2/2 (d: the shift in noise units), so reaching the
	 * threshold takes about 2A/d^2 runs; allow three times that.
	 */
	double d_eff = m.sigma > 0 ? fabs(m.bad - m.good) / m.sigma : INFINITY;
	double want = 6 * threshold / (d_eff * d_eff);
	if (want > (double)cap)
		cap = want > (double)limit ? limit : (size_t)ceil(want);
	/* the culprit against its parent: about 30/d^2 runs a side make a 1 % test at 90 % power; allow twice that */
	double want_c = 60 / (d_eff * d_eff);
	size_t cap_confirm = want_c > (double)cap ? (want_c > (double)limit ? limit : (size_t)ceil(want_c)) : cap;
	/*
	 * A shift many noise-stddevs wide needs fewer first runs: one sample
	 * of a 6-sigma shift already carries a log-likelihood ratio of about
	 * 18, four times the threshold (and the confirmation re-checks the end).
	 */
	if (!op->start_runs)
		start = d_eff >= 6 ? 1 : d_eff >= 4 ? 2 : start;
	if (m.sigma < fabs(m.bad - m.good) / 20)
		m.sigma = fabs(m.bad - m.good) / 20;
	if (!(m.sigma > 0))
		m.sigma = 1e-12;
	search_mark(&s, n - 1, +1);

	size_t step = 0;
	for (ssize_t next; (next = search_next(&s)) >= 0;) {
		size_t i = (size_t)next, runs = start;
		int verdict = 0;
		double l = 0;
		bool sure = false;
		for (;;) {
			rc = measure(o, seen, i, runs, &x, &nx, err);
			if (rc < 0)
				goto out;
			if (rc > 0)
				break;	/* skipped */
			l = llr(&m, x, nx);
			if (fabs(l) >= threshold || nx >= cap) {
				verdict = l > 0 ? +1 : -1;
				sure = fabs(l) >= threshold;
				break;
			}
			runs = nx + 2 > cap ? cap : nx + 2;
		}
		search_mark(&s, i, verdict);
		add_step(out, i, verdict, rc > 0 ? 0 : nx, l, sure);
		if (o->progress)
			o->progress(o->ctx, ++step, count_and(s.cand, s.cand, s.words), i, verdict, rc > 0 ? 0 : nx);
	}

	size_t left = count_and(s.cand, s.cand, s.words);
	if (left != 1) {
		out->status = BISECT_AMBIGUOUS;
		out->why = "commits that cannot be tested leave more than one candidate";
		out->candidates = xcalloc(left, sizeof(size_t));
		for (size_t i = 0; i < n; i++)
			if (has(s.cand, i))
				out->candidates[out->ncandidates++] = i;
		ret = 0;
		goto out;
	}
	size_t c = 0;
	while (!has(s.cand, c))
		c++;
	size_t p = nparents[c] ? parents[c][0] : n;
	/* confirm: the culprit against its parent, more runs, the same direction, a good part of the shift */
	out->culprit = c;
	out->parent = p;
	if (confirm > cap_confirm)
		cap_confirm = confirm;
	for (size_t runs = confirm;; runs = runs + 4 > cap_confirm ? cap_confirm : runs + 4) {
		if ((rc = measure(o, seen, p, runs, &y, &ny, err)) || (rc = measure(o, seen, c, runs, &x, &nx, err))) {
			if (rc < 0)
				goto out;
			out->status = BISECT_NOT_REPRODUCED;
			out->why = "the culprit or its parent could not be measured again";
			ret = 0;
			goto out;
		}
		double mp = mean(y, ny), mc = mean(x, nx);
		out->p = sigtest_mwu(y, ny, x, nx, NULL, NULL);
		out->change = mp != 0 ? 100 * (mc - mp) / fabs(mp) : NAN;
		bool same_way = (mc - mp) * (mb - mg) > 0, big = fabs(mc - mp) >= fabs(mb - mg) / 4;
		if (isfinite(out->p) && out->p <= alpha && same_way && big) {
			out->status = BISECT_FOUND;
			out->why = "the culprit's change reproduces against its parent";
			break;
		}
		if (runs >= cap_confirm) {
			out->status = BISECT_NOT_REPRODUCED;
			out->why = !same_way || !big ? "the change does not reproduce between the culprit and its parent "
						       "(a gradual drift, or noise)"
						     : "the culprit's change against its parent is not significant";
			break;
		}
	}
	ret = 0;
out:
	for (size_t i = 0; i <= n; i++) {
		out->commits += seen[i] > 0;
		out->runs += seen[i];
	}
	free(seen);
	free(g);
	free(b);
	free(x);
	free(y);
	search_release(&s);
	return ret;
}

void bisect_outcome_release(struct bisect_outcome *out)
{
	free(out->candidates);
	free(out->steps);
	memset(out, 0, sizeof(*out));
}

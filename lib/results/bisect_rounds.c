/*
 * bisect_rounds: the rounds a bisection runs and the samples they give:
 * what the oracle has of each commit, the rounds two commits share, new
 * batches in a random order, and the statistics a verdict is made of
 * (decide_between, the model's log-likelihood ratio). The search and the
 * verdicts built on these are bisect.c; what both share is bisect_int.h.
 */
#include "bisect_int.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64*: the rounds' orders and ids, reproducible from the seed */
static uint64_t next_random(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

void bisect_sampled_release(struct sampled *s)
{
	free(s->v);
	free(s->round);
	memset(s, 0, sizeof(*s));
}

/* Commit i's samples: 0, 1 when it cannot be tested, -1 with err set. */
int bisect_get(struct bis *b, size_t i, const struct sampled **out, struct strbuf *err)
{
	const double *v;
	const uint64_t *r;
	size_t n;

	if (!b->fresh[i]) {
		int rc = b->o->samples(b->o->ctx, i, &v, &r, &n, err);
		if (rc)
			return rc;
		struct sampled *s = &b->cache[i];
		bisect_sampled_release(s);
		s->v = xmalloc((n ? n : 1) * sizeof(double));
		s->round = xcalloc(n ? n : 1, sizeof(uint64_t));
		if (n)
			memcpy(s->v, v, n * sizeof(double));
		if (r && n)
			memcpy(s->round, r, n * sizeof(uint64_t));
		s->n = n;
		if (n > b->seen[i])
			b->seen[i] = n;
		b->fresh[i] = true;
	}
	*out = &b->cache[i];
	return 0;
}

/*
 * The rounds two commits' samples share: for each (the first sample of a
 * round only), the index of x's sample and of y's in ix[k], iy[k] (either
 * may be NULL). Returns how many.
 */
size_t bisect_pair_up(const struct sampled *x, const struct sampled *y, size_t *ix, size_t *iy)
{
	size_t k = 0;

	for (size_t i = 0; i < x->n; i++) {
		if (!x->round[i])
			continue;
		bool dup = false;
		for (size_t j = 0; j < i && !dup; j++)
			dup = x->round[j] == x->round[i];
		for (size_t j = 0; j < y->n && !dup; j++)
			if (y->round[j] == x->round[i]) {
				if (ix)
					ix[k] = i;
				if (iy)
					iy[k] = j;
				k++;
				break;
			}
	}
	return k;
}

static size_t shared_rounds(const struct sampled *x, const struct sampled *y)
{
	return bisect_pair_up(x, y, NULL, NULL);
}

/*
 * Run `rounds` new rounds, round r of commits first[r] and second[r] in a
 * random order, as one batch. 0, or -1 with err set.
 */
struct bisect_run *bisect_plan_rounds(uint64_t *rng, const size_t *first, const size_t *second, size_t rounds,
				      struct bisect_batch *batch)
{
	struct bisect_run *runs = xcalloc(2 * rounds + 1, sizeof(*runs));

	if (!*rng)
		*rng = 0x9E3779B97F4A7C15ULL;
	batch->id = next_random(rng);
	batch->runs = runs;
	batch->n = 2 * rounds;
	for (size_t r = 0; r < rounds; r++) {
		bool swap = next_random(rng) >> 63;
		uint64_t id = sampling_round_id(batch->id, r);
		runs[2 * r] = (struct bisect_run){ swap ? second[r] : first[r], r, 2 * r, id };
		runs[2 * r + 1] = (struct bisect_run){ swap ? first[r] : second[r], r, 2 * r + 1, id };
	}
	return runs;
}

int bisect_run_rounds(struct bis *b, const size_t *first, const size_t *second, size_t rounds, struct strbuf *err)
{
	struct bisect_batch batch;
	struct bisect_run *runs = bisect_plan_rounds(&b->rng, first, second, rounds, &batch);
	int rc = b->o->run(b->o->ctx, &batch, err);
	free(runs);
	b->out->batches++;
	for (size_t i = 0; i <= b->n; i++)
		b->fresh[i] = false;
	return rc;
}

/* At least `want` rounds of commits x and y together: 0, 1 one cannot be tested, -1 with err set. */
int bisect_ensure_pairs(struct bis *b, size_t x, size_t y, size_t want, struct strbuf *err)
{
	const struct sampled *sx, *sy;
	int rc;

	if ((rc = bisect_get(b, x, &sx, err)) || (rc = bisect_get(b, y, &sy, err)))
		return rc;
	size_t have = shared_rounds(sx, sy);
	if (have >= want)
		return 0;
	size_t k = want - have, *first = xcalloc(k, sizeof(size_t)), *second = xcalloc(k, sizeof(size_t));
	for (size_t r = 0; r < k; r++) {
		first[r] = x;
		second[r] = y;
	}
	rc = bisect_run_rounds(b, first, second, k, err);
	free(first);
	free(second);
	if (rc)
		return rc;
	if ((rc = bisect_get(b, x, &sx, err)) || (rc = bisect_get(b, y, &sy, err)))
		return rc;
	return 0;
}

/* Is round id r one of the n in ex? */
static bool among(uint64_t r, const uint64_t *ex, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		if (ex[i] == r)
			return true;
	return false;
}

/* x's samples but those of the rounds in ex (which the ends were decided on). */
static void without(const struct sampled *x, const uint64_t *ex, size_t nex, struct sampled *out)
{
	out->v = xcalloc(x->n + 1, sizeof(double));
	out->round = xcalloc(x->n + 1, sizeof(uint64_t));
	out->n = 0;
	for (size_t i = 0; i < x->n; i++)
		if (!among(x->round[i], ex, nex)) {
			out->v[out->n] = x->v[i];
			out->round[out->n++] = x->round[i];
		}
}

/*
 * Decide commit against base, leaving out the rounds in ex: a
 * confirmation of the ends themselves (a range of one commit) is made on
 * rounds of its own, not on those that made the ends look different.
 * *shared gets how many rounds the decision had.
 */
void bisect_decide_between(struct bis *b, size_t base, size_t commit, const struct decide_metric *m,
			   const uint64_t *ex, size_t nex, struct decision *d, size_t *shared)
{
	struct sampled x, y;

	without(&b->cache[base], ex, nex, &x);
	without(&b->cache[commit], ex, nex, &y);
	struct decide_side sa = { x.v, x.round, x.n }, sb = { y.v, y.round, y.n };
	decide(&sa, &sb, m, d);
	if (shared)
		*shared = shared_rounds(&x, &y);
	bisect_sampled_release(&x);
	bisect_sampled_release(&y);
}

static double scaled(const struct model *m, double v)
{
	if (m->log)
		return v > 0 ? log(v) : log(DBL_MIN);
	return v / m->scale;
}

/* The pooled standard deviation of two commits' samples, scaled. */
double bisect_pooled_sd(const struct model *m, const struct sampled *x, const struct sampled *y)
{
	double ss = 0;
	size_t df = 0;

	for (int k = 0; k < 2; k++) {
		const struct sampled *z = k ? y : x;
		double mean = 0;
		for (size_t i = 0; i < z->n; i++)
			mean += scaled(m, z->v[i]) / (double)z->n;
		for (size_t i = 0; i < z->n; i++)
			ss += (scaled(m, z->v[i]) - mean) * (scaled(m, z->v[i]) - mean);
		df += z->n ? z->n - 1 : 0;
	}
	return df ? sqrt(ss / (double)df) : 0;
}

/* The differences commit y - commit x over their shared rounds, scaled; their count. */
size_t bisect_round_diffs(const struct model *m, const struct sampled *x, const struct sampled *y, double **u)
{
	size_t *ix = xcalloc(x->n + 1, sizeof(size_t)), *iy = xcalloc(x->n + 1, sizeof(size_t));
	size_t k = bisect_pair_up(x, y, ix, iy);

	*u = xcalloc(k + 1, sizeof(double));
	for (size_t j = 0; j < k; j++)
		(*u)[j] = scaled(m, y->v[iy[j]]) - scaled(m, x->v[ix[j]]);
	free(ix);
	free(iy);
	return k;
}

/* The log-likelihood ratio, bad over good, of commit i's rounds with the ends. */
double bisect_llr(const struct model *m, const struct sampled *c, const struct sampled *good,
		  const struct sampled *bad, size_t *rounds)
{
	double *u, l = 0, s2 = 2 * m->sigma * m->sigma;
	size_t k = bisect_round_diffs(m, good, c, &u);

	/* with the good end: good means 0, bad means delta */
	for (size_t j = 0; j < k; j++)
		l += (u[j] * u[j] - (u[j] - m->delta) * (u[j] - m->delta)) / s2;
	*rounds = k;
	free(u);
	k = bisect_round_diffs(m, bad, c, &u);
	/* with the bad end: good means -delta, bad means 0 */
	for (size_t j = 0; j < k; j++)
		l += ((u[j] + m->delta) * (u[j] + m->delta) - u[j] * u[j]) / s2;
	*rounds += k;
	free(u);
	return l;
}

/*
 * The rounds commit i needs to have `want` with either end, each new one
 * with the end it has fewer rounds with (so both references are used
 * alike), appended to first/second (*k of them). 0, 1 when i or an end
 * cannot be tested, -1 with err set.
 */
int bisect_plan_with_ends(struct bis *b, size_t i, size_t want, size_t **first, size_t **second, size_t *k,
			  struct strbuf *err)
{
	const struct sampled *si, *sg, *sb;
	int rc;

	if ((rc = bisect_get(b, i, &si, err)) || (rc = bisect_get(b, b->n, &sg, err)) || (rc = bisect_get(b, b->n - 1, &sb, err)))
		return rc;
	size_t with_g = shared_rounds(si, sg), with_b = shared_rounds(si, sb);
	for (size_t r = with_g + with_b; r < want; r++) {
		bool good = with_g < with_b || (with_g == with_b && next_random(&b->rng) >> 63);
		*first = xrealloc(*first, (*k + 1) * sizeof(size_t));
		*second = xrealloc(*second, (*k + 1) * sizeof(size_t));
		(*first)[*k] = i;
		(*second)[(*k)++] = good ? b->n : b->n - 1;
		with_g += good;
		with_b += !good;
	}
	return 0;
}

int bisect_compare_pair(size_t nindex, const struct bisect_oracle *o, const struct bisect_opts *opts, size_t base,
			size_t commit, size_t want, struct decision *d, bool *futile_out, size_t *batches,
			struct strbuf *err)
{
	struct bisect_outcome out = { 0 };
	struct bis b = { o,
			 &out,
			 nindex - 1,
			 xcalloc(nindex, sizeof(size_t)),
			 opts->seed ? opts->seed : 0x9E3779B97F4A7C15ULL,
			 xcalloc(nindex, sizeof(struct sampled)),
			 xcalloc(nindex, sizeof(bool)) };
	size_t limit = (opts->run_limit ? opts->run_limit : 60) / 2;
	struct decide_metric m = opts->metric;
	bool futile = false;
	int rc;

	if (!(m.floor > 0))
		m.floor = 0.01;
	*d = (struct decision){ .verdict = DECIDE_UNSURE, .change = NAN };
	for (;;) {
		if ((rc = bisect_ensure_pairs(&b, base, commit, want, err)))
			break;
		size_t have;
		bisect_decide_between(&b, base, commit, &m, NULL, 0, d, &have);
		size_t next = decide_rounds(d, have, limit > want ? limit : want, &futile);
		if (d->verdict != DECIDE_UNSURE || d->settled || next <= have || have < want)
			break;
		want = next;
	}
	*batches = out.batches;
	*futile_out = futile;
	for (size_t i = 0; i < nindex; i++)
		bisect_sampled_release(&b.cache[i]);
	free(b.seen);
	free(b.cache);
	free(b.fresh);
	return rc;
}

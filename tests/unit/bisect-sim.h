/*
 * bisect-sim: a simulated commit range for lib/bisect's tests, bench/bisect
 * and bench/trust — a benchmark whose mean depends on the commit and whose
 * noise is seeded (normal, or bimodal), commits that cannot be built, and
 * a machine that drifts: every sample scaled by 1 + a sinusoid and/or a
 * bounded random walk of the run's sequence number (the drift's clock is
 * the runs made, one run a unit of time). Header-only; the oracle runs
 * batches in their order and keeps every sample with its round, as the
 * result roots do. A farm: `slots` runs at once (0: 1), a batch taking
 * ceil(runs / slots) waves of wall time.
 */
#ifndef LKP_BISECT_SIM_H
#define LKP_BISECT_SIM_H

#include "../../lib/results/bisect.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct scenario {
	size_t n;			/* commits; n-1 is the bad end, n the good end */
	size_t **parents, *nparents;
	double *mu;			/* each commit's true mean (n+1) */
	bool *broken;			/* cannot be built */
	double noise;			/* relative stddev */
	bool bimodal;			/* 20 % of the samples 3 noise-stddevs high */
	uint64_t rng;
	double **samples;		/* what was measured so far, per commit */
	uint64_t **rounds;		/* each sample's round (0: none) */
	size_t *nsamples;
	size_t total_runs;
	/* the machine's drift, a function of the runs made (t) */
	double drift_amp;		/* a sinusoid's relative amplitude (0.04: +-4 %) */
	double drift_period;		/* ... its period in runs */
	double drift_phase;
	double walk_step;		/* a random walk's relative step a run (0: none) */
	double walk_max;		/* ... kept within +-walk_max */
	double walk;
	size_t slots;			/* runs it makes at once (a farm's boxes; 0: one) */
	size_t waves;			/* wall time: each batch ceil(runs / slots) */
};

static uint64_t next_u64(struct scenario *s)
{
	/* xorshift64*: deterministic per seed */
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ULL;
}

static double uniform(struct scenario *s)
{
	return ((double)(next_u64(s) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct scenario *s)
{
	return sqrt(-2 * log(uniform(s))) * cos(2 * M_PI * uniform(s));
}

/* The machine's drift at the next run, advancing its clock. */
static double drift_next(struct scenario *s)
{
	double t = (double)s->total_runs, d = 0;

	if (s->drift_amp > 0 && s->drift_period > 0)
		d += s->drift_amp * sin(2 * M_PI * t / s->drift_period + s->drift_phase);
	if (s->walk_step > 0) {
		s->walk += gauss(s) * s->walk_step;
		if (s->walk > s->walk_max)
			s->walk = 2 * s->walk_max - s->walk;
		if (s->walk < -s->walk_max)
			s->walk = -2 * s->walk_max - s->walk;
		d += s->walk;
	}
	return d;
}

/* One more sample of commit i, in round `round` (0: none). */
static void sim_sample(struct scenario *s, size_t i, uint64_t round)
{
	double drift = drift_next(s), e = gauss(s) * s->noise;
	if (s->bimodal && uniform(s) < 0.2)
		e += 3 * s->noise;
	s->samples[i] = realloc(s->samples[i], (s->nsamples[i] + 1) * sizeof(double));
	s->rounds[i] = realloc(s->rounds[i], (s->nsamples[i] + 1) * sizeof(uint64_t));
	s->rounds[i][s->nsamples[i]] = round;
	s->samples[i][s->nsamples[i]++] = s->mu[i] * (1 + drift) * (1 + e);
	s->total_runs++;
}

static int sim_run(void *ctx, const struct bisect_batch *b, struct strbuf *err)
{
	struct scenario *s = ctx;
	size_t slots = s->slots ? s->slots : 1;
	(void)err;
	s->waves += (b->n + slots - 1) / slots;
	for (size_t k = 0; k < b->n; k++)
		if (!s->broken[b->runs[k].commit])
			sim_sample(s, b->runs[k].commit, b->runs[k].round_id);
	return 0;
}

static inline size_t sim_slots(void *ctx)
{
	struct scenario *s = ctx;
	return s->slots ? s->slots : 1;
}

static int sim_samples(void *ctx, size_t i, const double **v, const uint64_t **r, size_t *n, struct strbuf *err)
{
	struct scenario *s = ctx;
	(void)err;
	if (s->broken[i])
		return 1;
	*v = s->samples[i];
	*r = s->rounds[i];
	*n = s->nsamples[i];
	return 0;
}

/* A plain measurement (for baselines): at least `runs` samples of i, made now one after the other. */
static inline int oracle(void *ctx, size_t i, size_t runs, const double **v, size_t *n, struct strbuf *err)
{
	struct scenario *s = ctx;
	(void)err;
	if (s->broken[i])
		return 1;
	while (s->nsamples[i] < runs)
		sim_sample(s, i, 0);
	*v = s->samples[i];
	*n = s->nsamples[i];
	return 0;
}

/* A linear range of n commits; the change enters at `culprit` (n: none). */
static void linear(struct scenario *s, size_t n, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	s->rng = seed * 0x9E3779B97F4A7C15ULL + 1;
	s->parents = calloc(n, sizeof(*s->parents));
	s->nparents = calloc(n, sizeof(*s->nparents));
	s->mu = calloc(n + 1, sizeof(double));
	s->broken = calloc(n + 1, sizeof(bool));
	s->samples = calloc(n + 1, sizeof(*s->samples));
	s->rounds = calloc(n + 1, sizeof(*s->rounds));
	s->nsamples = calloc(n + 1, sizeof(size_t));
	for (size_t i = 0; i < n; i++) {
		s->parents[i] = calloc(2, sizeof(size_t));
		if (i)
			s->parents[i][s->nparents[i]++] = i - 1;
	}
	for (size_t i = 0; i <= n; i++)
		s->mu[i] = 1000;
}

/* commits from `culprit` on (and not the good end) get the shift */
static void shift_from(struct scenario *s, size_t culprit, double shift)
{
	for (size_t i = culprit; i < s->n; i++)
		s->mu[i] *= 1 + shift;
}

static void release(struct scenario *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->parents[i]);
	for (size_t i = 0; i <= s->n; i++) {
		free(s->samples[i]);
		free(s->rounds[i]);
	}
	free(s->parents);
	free(s->nparents);
	free(s->mu);
	free(s->broken);
	free(s->samples);
	free(s->rounds);
	free(s->nsamples);
}

/*
 * Scenario k of the seeded set the accuracy test and bench/bisect share:
 * 8-300 commits, a 5-75 % shift (either way) at a random commit, 1-10 %
 * noise, the shift at least the noise (a change the ends can show at all).
 */
static inline void seeded_range(struct scenario *s, uint64_t k, size_t *n, size_t *culprit, double *shift)
{
	linear(s, 8, 1000 + k);
	*n = 8 + (size_t)(uniform(s) * 292);
	release(s);
	linear(s, *n, 1000 + k);
	*shift = (0.05 + uniform(s) * 0.70) * (uniform(s) < 0.5 ? -1 : 1);
	s->noise = 0.01 + uniform(s) * 0.09;
	if (fabs(*shift) < s->noise)
		*shift = *shift < 0 ? -s->noise : s->noise;
	*culprit = (size_t)(uniform(s) * (double)(*n - 1));
	shift_from(s, *culprit, *shift);
}

#endif

/*
 * bisect: finding the first commit of a performance change in a commit
 * graph, with noisy measurements. The search is git bisect's (test the
 * commit whose ancestors split the remaining candidates most evenly); each
 * verdict is a sequential likelihood-ratio test of the commit's samples
 * against the two ends' distributions, adding runs while it is unsure; the
 * ends are checked to differ first, and the culprit is confirmed against
 * its parent before it is named. Measuring is the caller's (an oracle), so
 * the same code runs under the robot and under simulated tests.
 */
#ifndef LKP_BISECT_H
#define LKP_BISECT_H

#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * Samples of the metric for commit i of the range (0..n-1, parents before
 * children, n-1 the bad end) or i == n for the good end. The oracle makes
 * sure there are at least `runs` (measuring more when needed) and points
 * *v at all it has (valid until the next call). Returns 0, 1 when the
 * commit cannot be tested (it does not build or boot: skipped), -1 with err
 * set on an error that stops the bisection.
 */
struct bisect_oracle {
	int (*measure)(void *ctx, size_t i, size_t runs, const double **v, size_t *n, struct strbuf *err);
	void *ctx;
	/* optional: told of each verdict as it is made (progress) */
	void (*progress)(void *ctx, size_t step, size_t left, size_t i, int verdict, size_t runs);
};

struct bisect_opts {
	size_t start_runs;	/* runs of a commit before its first verdict (0: 3, or 2 / 1 when the
				 * ends' shift is over 4 / 6 noise stddevs) */
	size_t max_runs;	/* runs before a verdict is taken as it leans (12; more, up to run_limit,
				 * when the ends' shift is small against their noise) */
	size_t end_runs;	/* runs of each end at least (5) */
	size_t confirm_runs;	/* runs of the culprit and its parent at least (5) */
	double alpha;		/* error rate of a verdict and of the tests of ends and culprit (0.01) */
	size_t run_limit;	/* runs of one commit at most, when the shift is small against the noise (60) */
};

enum bisect_status {
	BISECT_FOUND,		/* the culprit, confirmed against its parent */
	BISECT_NOT_REPRODUCED,	/* the ends do not differ, or the culprit's change does not reproduce */
	BISECT_AMBIGUOUS,	/* skipped commits leave a set of candidates */
};

struct bisect_step {
	size_t commit;		/* index in the range (n: the good end) */
	int verdict;		/* +1 bad, -1 good, 0 skipped */
	size_t runs;
	double llr;		/* log-likelihood ratio, bad over good */
	bool sure;		/* |llr| reached the threshold (else: taken as it leaned at max_runs) */
};

struct bisect_outcome {
	enum bisect_status status;
	const char *why;		/* one line: how it ended */
	size_t culprit;			/* BISECT_FOUND */
	size_t parent;			/* the parent it was confirmed against (n: the good end) */
	double p;			/* Mann-Whitney U p of culprit vs parent (or of the ends) */
	double change;			/* % change of the culprit's mean over its parent's */
	double ends_change;		/* % change from the good end to the bad end */
	size_t *candidates;		/* BISECT_AMBIGUOUS: the commits that may be first bad */
	size_t ncandidates;
	struct bisect_step *steps;
	size_t nsteps;
	size_t commits;			/* commits measured (builds), the ends included */
	size_t runs;			/* samples taken */
};

/*
 * Bisect the range of n commits (parents[i]: indices of i's parents in the
 * range, all < i). 0 with *out filled (bisect_outcome_release()), or -1
 * with err set (the oracle failed, the ends cannot be tested).
 */
int bisect_run(size_t n, size_t *const *parents, const size_t *nparents, const struct bisect_oracle *o,
	       const struct bisect_opts *opts, struct bisect_outcome *out, struct strbuf *err);
void bisect_outcome_release(struct bisect_outcome *out);

/* log2 of the candidates, rounded up: what a clean bisection of n needs */
size_t bisect_log2_ceil(size_t n);

#endif

/*
 * bisect: finding the first commit of a performance change in a commit
 * graph, with noisy measurements. The search is git bisect's (test the
 * commit whose ancestors split the remaining candidates most evenly), or,
 * when the oracle can make more runs at once than that needs, k commits
 * at once splitting them into k+1 parts (multisection); each
 * verdict is a sequential likelihood-ratio test of the commit's samples
 * against the two ends' distributions, adding runs while it is unsure; the
 * ends are checked to differ first, and the culprit is confirmed against
 * its parent before it is named. Every comparison — the ends, a commit
 * against them, the culprit against its parent — is measured in
 * interleaved rounds (sampling.h) and compared pair by pair, so a machine
 * that drifts cannot pass for a change; the ends and the culprit are
 * decided by decide.h, the one decision report and the service use too.
 * Measuring is the caller's (an oracle that runs batches), so the same
 * code runs under the robot and under simulated tests.
 */
#ifndef LKP_BISECT_H
#define LKP_BISECT_H

#include "../stats/decide.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * One run a batch asks for: commit i of the range (0..n-1, parents before
 * children, n-1 the bad end; i == n the good end) in round `round` of the
 * batch, at `position` in its order. round_id identifies the round among
 * all rounds (sampling_round_id()): the samples of two commits with the
 * same round_id are a pair.
 */
struct bisect_run {
	size_t commit;
	size_t round, position;
	uint64_t round_id;
};

/*
 * A batch: runs to make in the order given — rounds of one run of each
 * commit compared, each round in a random order — the unit a provider
 * receives (a farm may run a batch's rounds at once; the order stays
 * recorded in each run).
 */
struct bisect_batch {
	uint64_t id;
	const struct bisect_run *runs;
	size_t n;
};

/*
 * Measuring is the caller's. run() makes a batch's runs (a commit that
 * cannot be tested is no error: its runs are left out, and samples() says
 * so afterwards); 0, or -1 with err set on an error that stops the
 * bisection. samples() points at everything measured of commit i so far,
 * with each sample's round id (0: a run of no round), valid until the next
 * call; 0, 1 when the commit cannot be tested (it does not build or boot:
 * skipped), -1 with err set.
 */
struct bisect_oracle {
	int (*run)(void *ctx, const struct bisect_batch *b, struct strbuf *err);
	int (*samples)(void *ctx, size_t i, const double **v, const uint64_t **rounds, size_t *n, struct strbuf *err);
	void *ctx;
	/* optional: told of each verdict as it is made (progress) */
	void (*progress)(void *ctx, size_t step, size_t left, size_t i, int verdict, size_t runs);
	/*
	 * optional: how many runs it can make at once now (a farm's free
	 * boxes); NULL: 1. With more than a commit's first rounds need,
	 * several commits are tested at once.
	 */
	size_t (*slots)(void *ctx);
};

struct bisect_opts {
	size_t start_runs;	/* rounds of a commit before its first verdict (0: 3, or 2 / 1 when the
				 * ends' shift is over 4 / 6 noise stddevs of a pair) */
	size_t max_runs;	/* rounds before a verdict is taken as it leans (12; more, up to
				 * run_limit / 2, when the ends' shift is small against their noise) */
	size_t end_runs;	/* rounds of the ends at least (5) */
	size_t confirm_runs;	/* rounds of the culprit and its parent at least (5) */
	double alpha;		/* error rate of a verdict (0.01) */
	size_t run_limit;	/* runs of one commit in one comparison at most (60: 30 rounds) */
	struct decide_metric metric;	/* direction and floor (0: 1 %) */
	uint64_t seed;		/* of the rounds' random orders and ids (0: a fixed one) */
	size_t max_points;	/* commits tested at once in a step, at most (0: as the slots allow) */
};

enum bisect_status {
	BISECT_FOUND,		/* the culprit, confirmed against its parent */
	BISECT_NOT_REPRODUCED,	/* the ends do not differ, or the culprit's change does not reproduce */
	BISECT_AMBIGUOUS,	/* skipped commits leave a set of candidates (see located) */
	BISECT_NOT_SURE,	/* the ends, or the culprit against its parent: not sure at the cap */
};

struct bisect_step {
	size_t commit;		/* index in the range (n: the good end) */
	int verdict;		/* +1 bad, -1 good, 0 skipped */
	size_t runs;		/* the commit's rounds against the ends */
	double llr;		/* log-likelihood ratio, bad over good */
	bool sure;		/* |llr| reached the threshold (else: taken as it leaned at max_runs) */
};

struct bisect_outcome {
	enum bisect_status status;
	char why[400];			/* one line: how it ended */
	size_t culprit;			/* BISECT_FOUND */
	size_t parent;			/* the parent it was confirmed against (n: the good end) */
	double p;			/* p of the confirmation (or of the ends) */
	double change;			/* % change of the culprit over its parent */
	double ends_change;		/* % change from the good end to the bad end */
	struct decision ends;		/* the decision on the ends */
	struct decision confirm;	/* on the culprit against its parent (when one was found) */
	bool confirmed;			/* confirm holds a decision */
	bool located;			/* BISECT_AMBIGUOUS: of the candidates, culprit is the one that can
					 * be tested, and its change against parent (the nearest commit found
					 * good, or the good end) is confirmed: report it, naming the set */
	size_t *candidates;		/* BISECT_AMBIGUOUS: the commits that may be first bad */
	size_t ncandidates;
	struct bisect_step *steps;
	size_t nsteps;
	size_t commits;			/* commits measured (builds), the ends included */
	size_t runs;			/* samples taken */
	size_t batches;			/* batches asked for */
};

/*
 * Bisect the range of n commits (parents[i]: indices of i's parents in the
 * range, all < i). 0 with *out filled (bisect_outcome_release()), or -1
 * with err set (the oracle failed, the ends cannot be tested).
 */
int bisect_run(size_t n, size_t *const *parents, const size_t *nparents, const struct bisect_oracle *o,
	       const struct bisect_opts *opts, struct bisect_outcome *out, struct strbuf *err);
void bisect_outcome_release(struct bisect_outcome *out);

/*
 * Plan a batch of `rounds` rounds, round r one run of first[r] and one of
 * second[r] in a random order (drawn from *rng, a xorshift state that
 * must not be 0), with a random batch id. Returns the runs (free() them),
 * which batch points to.
 */
struct bisect_run *bisect_plan_rounds(uint64_t *rng, const size_t *first, const size_t *second, size_t rounds,
				      struct bisect_batch *batch);

/*
 * Two commits the oracle knows (indices below nindex) compared in
 * interleaved rounds of their own, as a culprit is against its parent: at
 * least `want` shared rounds, then more by the persistence rule
 * (decide_rounds) up to opts's run limit, until the decision is sure,
 * settled or out of reach. The decision of commit against base into *d
 * (*futile: a change beyond the floor is out of reach of more rounds —
 * decide_rounds' "no change"), the batches asked for into *batches. 0; 1 when one of them cannot be
 * tested; -1 with err set (the oracle failed).
 */
int bisect_compare_pair(size_t nindex, const struct bisect_oracle *o, const struct bisect_opts *opts, size_t base,
			size_t commit, size_t want, struct decision *d, bool *futile, size_t *batches,
			struct strbuf *err);

/* log2 of the candidates, rounded up: what a clean bisection of n needs */
size_t bisect_log2_ceil(size_t n);

#endif

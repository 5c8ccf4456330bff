/*
 * decide: did a metric change between two commits? The one decision that
 * bisect (its ends, its culprit's confirmation), report (the mail and its
 * "how sure" paragraph), compare (the verdict column) and the service take,
 * so that they cannot disagree. lkp-tests' changed-row rule (compare.h)
 * still selects the rows of the tables; this decides what is reported.
 *
 * The estimate is the relative change of the new side over the base, with
 * a confidence interval; "changed" needs the whole interval beyond the
 * metric's floor (a change smaller than the floor is never reported, however
 * certain), "no change" the whole interval within it, and anything else is
 * "not sure". Runs that were made in the same round of an interleaved
 * batch (one run of each side, in a random order: see lib/results/sampling.h)
 * are compared pair by pair, which cancels a drift of the machine slower
 * than a round; otherwise the two sides are compared as independent
 * samples (Welch). Positive metrics are compared as logarithms (the change
 * is a ratio, noise that scales with the value is even), others as values
 * relative to the base's mean. Pure: no I/O, no allocation kept.
 */
#ifndef LKP_DECIDE_H
#define LKP_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The error rate of one decision: its interval is a 99.8 % one. A
 * comparison looks again after adding runs at most 5 times
 * (decide_rounds()), so that over all its looks the chance of calling a
 * change that is not there stays below 1 %.
 */
#define DECIDE_ALPHA 0.002
#define DECIDE_LEVEL "99.8%"

enum decide_verdict {
	DECIDE_UNSURE,		/* neither: more runs may tell (or the data cannot) */
	DECIDE_CHANGED,		/* the interval is beyond the floor */
	DECIDE_SAME,		/* the interval is within the floor */
};

/* What is being decided about. */
struct decide_metric {
	int direction;		/* +1 higher is better, -1 lower is better, 0 none */
	double floor;		/* the smallest relative change worth reporting: 0.01 is 1 % */
};

/* One side: its samples and, for each, the round it was measured in (0: none; rounds NULL: none). */
struct decide_side {
	const double *v;
	const uint64_t *round;
	size_t n;
};

struct decision {
	enum decide_verdict verdict;
	int sign;		/* CHANGED: +1 the new side is higher, -1 lower */
	int kind;		/* CHANGED with a direction: +1 improvement, -1 regression; else 0 */
	bool settled;		/* more runs cannot help (bad data, no relative change) */
	double change;		/* relative change in percent; NAN when there is none */
	double lo, hi;		/* its interval, percent (lo == hi: no variance) */
	double floor;		/* percent */
	size_t na, nb;		/* the samples of each side */
	size_t pairs;		/* rounds compared pair by pair (0: independent samples) */
	bool log_scale;		/* compared as logarithms */
	bool constant;		/* no variance (every pair the same difference, or both sides constant) */
	/* in the scale compared (log or value / scale), for decide_rounds() */
	double est, se, df, floor_at;
	char why[256];		/* one line: the estimate, its interval and what it means */
	char summary[160];	/* the estimate and its interval alone ("+0.6% (99.8% interval ...)") */
};

/*
 * Decide base a against new b for metric m. Never fails: too few runs,
 * NaN/infinite samples or a base mean of 0 give DECIDE_UNSURE with the
 * reason in why. Samples may be huge (1e308) or tiny without overflow.
 */
void decide(const struct decide_side *a, const struct decide_side *b, const struct decide_metric *m,
	    struct decision *d);
/*
 * decide() without the words: the verdict and figures only, why and
 * summary left empty where the figures would make them (a compare of
 * 200,000 metrics words the few it prints).
 */
void decide_terse(const struct decide_side *a, const struct decide_side *b, const struct decide_metric *m,
		  struct decision *d);

/*
 * The persistence rule: how many rounds a comparison that has `have`
 * should have before it is decided again, at most cap. Returns have (stop)
 * when d is decided, settled or at the cap; else the next look, about 1.6
 * times as many (at least 2 more), so that from 5 rounds a comparison
 * looks at most 5 times up to 30. An unsure comparison goes on to the cap
 * however wide its interval: "no change" is only an interval within the
 * floor. *futile (when given) says whether a change beyond the floor is
 * out of reach even at the cap (the estimate does not even lean beyond
 * the floor) — for choosing which metric to follow, never to stop.
 */
size_t decide_rounds(const struct decision *d, size_t have, size_t cap, bool *futile);

/*
 * The two-sided p of "no change at all" by the decision's own t-test (NAN
 * without variance): for the reader; the decision does not use it (computed
 * when asked: a compare decides thousands of metrics and prints no p of its).
 */
double decide_p(const struct decision *d);

/* "changed", "no change" or "not sure" */
const char *decide_verdict_name(enum decide_verdict v);

/* A percentage as the reasons write it: +1.2%, -75.0%, +14149%. */
void decide_format_percent(char *buf, size_t size, double pct);

#endif

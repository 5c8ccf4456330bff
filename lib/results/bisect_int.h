/*
 * bisect_int: what the files of lib/results/bisect share and nobody else
 * may see: the samples of the commits a bisection ran and the rounds it
 * asks for (bisect_rounds.c), which the search and its verdicts
 * (bisect.c) are built on. The public API is bisect.h.
 */
#ifndef LKP_BISECT_INT_H
#define LKP_BISECT_INT_H

#include "bisect.h"
#include "sampling.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the oracle has of one commit, copied (it may move on the next call). */
struct sampled {
	double *v;
	uint64_t *round;
	size_t n;
};

struct bis {
	const struct bisect_oracle *o;
	struct bisect_outcome *out;
	size_t n;
	size_t *seen;		/* samples of each commit so far */
	uint64_t rng;
	struct sampled *cache;	/* [n + 1]: the samples last read */
	bool *fresh;		/* cache[i] is still what the oracle has */
};

/*
 * The ends as two levels and the spread of a round's difference, in the
 * scale the decision compared them (logarithms of a positive metric): a
 * commit tested in a round with the good end shows a difference near 0 if
 * it is good and near delta if bad; with the bad end, near -delta or 0.
 */
struct model {
	bool log;
	double scale;		/* values are divided by it when not logarithms */
	double delta, sigma;
};

void bisect_sampled_release(struct sampled *s);
/* Commit i's samples: 0, 1 when it cannot be tested, -1 with err set. */
int bisect_get(struct bis *b, size_t i, const struct sampled **out, struct strbuf *err);
/* The rounds two commits' samples share (see bisect_rounds.c). */
size_t bisect_pair_up(const struct sampled *x, const struct sampled *y, size_t *ix, size_t *iy);
/* Run `rounds` new rounds of first[r] and second[r] as one batch. */
int bisect_run_rounds(struct bis *b, const size_t *first, const size_t *second, size_t rounds, struct strbuf *err);
/* At least `want` rounds of commits x and y together: 0, 1 one cannot be tested, -1 with err set. */
int bisect_ensure_pairs(struct bis *b, size_t x, size_t y, size_t want, struct strbuf *err);
/* Decide commit against base, leaving out the rounds in ex. */
void bisect_decide_between(struct bis *b, size_t base, size_t commit, const struct decide_metric *m,
			   const uint64_t *ex, size_t nex, struct decision *d, size_t *shared);
/* The pooled standard deviation of two commits' samples, scaled. */
double bisect_pooled_sd(const struct model *m, const struct sampled *x, const struct sampled *y);
/* The differences commit y - commit x over their shared rounds, scaled; their count. */
size_t bisect_round_diffs(const struct model *m, const struct sampled *x, const struct sampled *y, double **u);
/* The log-likelihood ratio, bad over good, of commit c's rounds with the ends. */
double bisect_llr(const struct model *m, const struct sampled *c, const struct sampled *good,
		  const struct sampled *bad, size_t *rounds);
/* The rounds commit i needs to have `want` with either end, appended to first/second. */
int bisect_plan_with_ends(struct bis *b, size_t i, size_t want, size_t **first, size_t **second, size_t *k,
			  struct strbuf *err);

#endif

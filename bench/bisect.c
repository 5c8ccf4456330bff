/*
 * bench/bisect: lib/bisect on a fixed set of seeded simulated ranges
 * (tests/unit/bisect-sim.h: 8-300 commits, a 5-75 % shift at a random
 * commit under 1-10 % noise), against a plain `git bisect run` with 3 runs
 * per commit and a threshold halfway between the ends' means. Prints
 * accuracy, builds against ceil(log2 N) and runs per bisection.
 * Targets (issue 6): >= 95 % right with <= ceil(log2 N)+2 builds on clean
 * shifts; fewer runs than the fixed-3 baseline at equal or better accuracy.
 */
#include "../tests/unit/bisect-sim.h"

#include <stdio.h>

#define SCENARIOS 400

struct tally {
	size_t right, wrong, none, builds, runs, over_builds, n;
	double builds_over_log2;
};

/* git bisect run, `per` runs a commit, "bad" when the mean is past the midpoint of the ends */
static void baseline(struct scenario *s, size_t culprit, size_t per, struct tally *t)
{
	const double *v = NULL;
	size_t n = 0, runs = 0;
	struct strbuf err = STRBUF_INIT;
	double mean_of[2];
	size_t ends[2] = { s->n, s->n - 1 };

	for (int k = 0; k < 2; k++) {
		oracle(s, ends[k], per, &v, &n, &err);
		mean_of[k] = 0;
		for (size_t j = 0; j < per; j++)
			mean_of[k] += v[j] / (double)per;
		runs += per;
	}
	double mid = (mean_of[0] + mean_of[1]) / 2;
	bool bad_high = mean_of[1] > mean_of[0];
	ssize_t lo = -1, hi = (ssize_t)s->n - 1;
	size_t builds = 2;
	while (hi - lo > 1) {
		ssize_t m = lo + (hi - lo) / 2;
		/* fresh runs per tested commit, as a script would do */
		size_t have = s->nsamples[m];
		oracle(s, (size_t)m, have + per, &v, &n, &err);
		double x = 0;
		for (size_t j = 0; j < per; j++)
			x += v[n - 1 - j] / (double)per;
		runs += per;
		builds++;
		if ((x > mid) == bad_high)
			hi = m;
		else
			lo = m;
	}
	if ((size_t)hi == culprit)
		t->right++;
	else
		t->wrong++;
	t->builds += builds;
	t->runs += runs;
	t->n++;
	strbuf_release(&err);
}

int main(void)
{
	struct tally ours = { 0 }, base = { 0 }, base5 = { 0 }, clean = { 0 }, base_clean = { 0 };

	for (uint64_t k = 0; k < SCENARIOS; k++) {
		struct scenario s, b;
		struct bisect_outcome out;
		struct strbuf err = STRBUF_INIT;
		size_t n, culprit;
		double shift;
		seeded_range(&s, k, &n, &culprit, &shift);
		/* the same range, its own noise, for the baseline */
		linear(&b, n, 1000 + k);
		b.noise = s.noise;
		shift_from(&b, culprit, shift);
		b.rng ^= 0x5555;

		struct bisect_oracle o = { sim_run, sim_samples, &s, NULL, NULL };
		if (bisect_run(s.n, s.parents, s.nparents, &o, NULL, &out, &err)) {
			fprintf(stderr, "bench/bisect: %s\n", err.buf);
			return 1;
		}
		bool right = out.status == BISECT_FOUND && out.culprit == culprit;
		ours.right += right;
		ours.wrong += out.status == BISECT_FOUND && !right;
		ours.none += out.status != BISECT_FOUND;
		ours.builds += out.commits;
		ours.runs += out.runs;
		ours.n++;
		ours.builds_over_log2 += (double)out.commits - (double)bisect_log2_ceil(n);
		/* clean shifts: at least 5 noise-stddevs */
		if (fabs(shift) >= 5 * s.noise) {
			clean.right += right;
			clean.builds += out.commits;
			clean.runs += out.runs;
			clean.over_builds += out.commits > bisect_log2_ceil(n) + 2;
			clean.n++;
		}
		baseline(&b, culprit, 3, &base);
		if (fabs(shift) >= 5 * s.noise)
			baseline(&b, culprit, 3, &base_clean);
		release(&b);
		linear(&b, n, 1000 + k);
		b.noise = s.noise;
		shift_from(&b, culprit, shift);
		b.rng ^= 0x7777;
		baseline(&b, culprit, 5, &base5);
		bisect_outcome_release(&out);
		release(&s);
		release(&b);
		strbuf_release(&err);
	}
	printf("%d seeded ranges (8-300 commits, 5-75 %% shift, 1-10 %% noise)\n", SCENARIOS);
	printf("  lkprobot bisect:  %5.1f %% right, %zu wrong, %zu without a culprit; %.1f builds (ceil(log2 N) %+.1f), %.1f runs a bisection\n",
	       100.0 * (double)ours.right / (double)ours.n, ours.wrong, ours.none, (double)ours.builds / (double)ours.n,
	       ours.builds_over_log2 / (double)ours.n, (double)ours.runs / (double)ours.n);
	printf("  git bisect run, 3 runs a commit, midpoint threshold: %5.1f %% right, %zu wrong; %.1f builds, %.1f runs a bisection\n",
	       100.0 * (double)base.right / (double)base.n, base.wrong, (double)base.builds / (double)base.n,
	       (double)base.runs / (double)base.n);
	printf("  git bisect run, 5 runs a commit, midpoint threshold: %5.1f %% right, %zu wrong; %.1f builds, %.1f runs a bisection\n",
	       100.0 * (double)base5.right / (double)base5.n, base5.wrong, (double)base5.builds / (double)base5.n,
	       (double)base5.runs / (double)base5.n);
	printf("  clean shifts (>= 5 noise stddevs, %zu ranges): lkprobot %.1f %% right (target >= 95 %%), %zu over ceil(log2 N)+2 builds (target 0), %.1f runs; git bisect run (3 runs) %.1f %% right, %.1f runs\n",
	       clean.n, 100.0 * (double)clean.right / (double)clean.n, clean.over_builds,
	       (double)clean.runs / (double)clean.n, 100.0 * (double)base_clean.right / (double)base_clean.n,
	       (double)base_clean.runs / (double)base_clean.n);
	return 0;
}

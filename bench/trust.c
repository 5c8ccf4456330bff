/*
 * bench/trust: can a maintainer believe the robot's verdicts on a machine
 * that drifts? Two parts.
 *
 * 1. bisect, simulated (lib/results/bisect with the seeded simulator of the
 *    unit tests, tests/unit/bisect-sim.h): ranges of 1-300 commits, noise
 *    1-10 % (a quarter of them bimodal: a fifth of the runs 3 noise-stddevs
 *    high), 5 % of the commits unbuildable (never the culprit), shifts of
 *    3-75 % either way and a quarter of the ranges with no change; the
 *    machine drifts — none, a sinusoid of 2-10 % with a period of 2 to 400
 *    runs, a bounded random walk (within +-10 %), or both — as a function of
 *    the run's sequence number (one run is one unit of time: "a period of
 *    20 runs" is 20 s of a 1-s benchmark, 20 min of a 1-min one).
 * 2. the service, for real: `lkprobot serve --once` on a local git tree
 *    with a `command` job whose benchmark (a shell script) drifts the same
 *    way with its own run counter; heads that change nothing (docs) and
 *    heads that bring a regression, one pass a head; reports counted in
 *    the store's outbox (the SMTP server is not there: mails stay queued).
 *
 * Prints: wrong culprits, false reports on no-change heads, right culprits
 * where |shift| >= 3 sigma (sigma the benchmark's noise; also with the
 * drift between neighbouring runs counted in), bisections over
 * ceil(log2 N)+2 builds, runs per range. Targets (issue 17): 0 wrong
 * culprits; <= 1 % false reports under drift; >= 95 % right where
 * |shift| >= 3 sigma; never over ceil(log2 N)+2 builds.
 *
 *   bench/trust [--ranges N] [--heads N] [--no-serve] [LKPROBOT]
 */
#include "../tests/unit/bisect-sim.h"
#include "../lib/run/run.h"
#include "../lib/store/store.h"
#include "../lib/sys/fsutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { DRIFT_NONE, DRIFT_SINE, DRIFT_WALK, DRIFT_BOTH, NDRIFT };
static const char *const drift_names[] = { "none", "sine", "random walk", "both" };

struct tally {
	size_t ranges, changed, nochange;
	size_t wrong, false_reports;
	size_t big, big_right;		/* |shift| >= 3 noise stddevs */
	size_t big_eff, big_eff_right;	/* ... counting the drift between neighbouring runs in */
	size_t over_builds;
	size_t runs_changed, runs_nochange;
	size_t not_sure;
};

static double log_uniform(struct scenario *s, double lo, double hi)
{
	return exp(log(lo) + uniform(s) * (log(hi) - log(lo)));
}

/* Range k of the seeded set; *culprit n when nothing changes. Returns the drift kind. */
static int trust_range(struct scenario *s, uint64_t k, size_t *culprit, double *shift)
{
	struct scenario seed;
	size_t n;
	bool nochange;

	linear(&seed, 1, 77000 + k);
	nochange = uniform(&seed) < 0.25;
	/* a no-change range is the service's head half of the time: one commit */
	n = nochange && uniform(&seed) < 0.5 ? 1 : 8 + (size_t)(uniform(&seed) * 292);
	uint64_t rng = seed.rng;
	release(&seed);
	linear(s, n, 1);
	s->rng = rng;
	s->noise = 0.01 + uniform(s) * 0.09;
	s->bimodal = uniform(s) < 0.25;
	*shift = nochange ? 0 : (0.03 + uniform(s) * 0.72) * (uniform(s) < 0.5 ? -1 : 1);
	*culprit = nochange ? n : (size_t)(uniform(s) * (double)(n - 1));
	if (!nochange)
		shift_from(s, *culprit, *shift);
	for (size_t i = 0; i + 1 < n; i++)
		s->broken[i] = i != *culprit && uniform(s) < 0.05;
	int kind = (int)(k % NDRIFT);
	if (kind == DRIFT_SINE || kind == DRIFT_BOTH) {
		s->drift_amp = 0.02 + uniform(s) * 0.08;
		s->drift_period = log_uniform(s, 2, 400);
		s->drift_phase = uniform(s) * 2 * M_PI;
	}
	if (kind == DRIFT_WALK || kind == DRIFT_BOTH) {
		s->walk_step = 0.005 + uniform(s) * 0.015;
		s->walk_max = kind == DRIFT_BOTH ? 0.10 - s->drift_amp : 0.10;
	}
	return kind;
}

/* The noise of back-to-back runs of one commit: the benchmark's and the drift's change from one run to the next. */
static double neighbour_noise(const struct scenario *s)
{
	double v = s->noise * s->noise;
	if (s->drift_amp > 0)
		v += pow(s->drift_amp * sin(M_PI / s->drift_period), 2);
	v += s->walk_step * s->walk_step;
	return sqrt(v);
}

static void simulated(size_t nranges)
{
	struct tally all = { 0 }, by[NDRIFT] = { { 0 } };

	for (uint64_t k = 0; k < nranges; k++) {
		struct scenario s;
		struct bisect_outcome out;
		struct strbuf err = STRBUF_INIT;
		size_t culprit;
		double shift;
		int kind = trust_range(&s, k, &culprit, &shift);
		struct bisect_oracle o = { sim_run, sim_samples, &s, NULL };
		struct bisect_opts opts = { .metric = { +1, 0.01 }, .seed = 1 + k };
		if (bisect_run(s.n, s.parents, s.nparents, &o, &opts, &out, &err)) {
			fprintf(stderr, "bench/trust: range %llu: %s\n", (unsigned long long)k, err.buf);
			exit(1);
		}
		struct tally *t[2] = { &all, &by[kind] };
		bool found = out.status == BISECT_FOUND;
		bool right = (found && out.culprit == culprit);
		for (size_t i = 0; i < out.ncandidates && out.status == BISECT_AMBIGUOUS; i++)
			right |= out.candidates[i] == culprit;
		for (int j = 0; j < 2; j++) {
			t[j]->ranges++;
			t[j]->not_sure += out.status == BISECT_NOT_SURE;
			t[j]->over_builds += out.commits > bisect_log2_ceil(s.n) + 2;
			if (culprit == s.n) {
				t[j]->nochange++;
				t[j]->false_reports += found;
				t[j]->runs_nochange += out.runs;
				continue;
			}
			t[j]->changed++;
			t[j]->runs_changed += out.runs;
			t[j]->wrong += found && out.culprit != culprit;
			if (fabs(shift) >= 3 * s.noise) {
				t[j]->big++;
				t[j]->big_right += right;
			}
			if (fabs(shift) >= 3 * neighbour_noise(&s)) {
				t[j]->big_eff++;
				t[j]->big_eff_right += right;
			}
		}
		if (getenv("TRUST_DEBUG") && out.commits > bisect_log2_ceil(s.n) + 2) {
			size_t nb = 0;
			for (size_t i = 0; i < s.n; i++)
				nb += s.broken[i];
			fprintf(stderr, "range %llu: n %zu, %zu builds, %zu steps, %zu broken, culprit %zu parent %zu found %d\n",
				(unsigned long long)k, s.n, out.commits, out.nsteps, nb, out.culprit, out.parent, found);
			for (size_t i = 0; i < out.nsteps; i++)
				fprintf(stderr, "   step %zu %d\n", out.steps[i].commit, out.steps[i].verdict);
		}
		if (getenv("TRUST_DEBUG") && ((found && !right) || (!right && fabs(shift) >= 3 * s.noise) ||
					      (culprit == s.n && found)))
			fprintf(stderr, "range %llu: n %zu culprit %zu shift %+.3f noise %.3f%s drift %s amp %.3f period %.1f walk %.4f: %s %zu: %s\n",
				(unsigned long long)k, s.n, culprit, shift, s.noise, s.bimodal ? " bimodal" : "",
				drift_names[kind], s.drift_amp, s.drift_period, s.walk_step,
				found ? "named" : "no culprit", out.culprit, out.why);
		bisect_outcome_release(&out);
		release(&s);
		strbuf_release(&err);
	}
	printf("bisect, simulated: %zu seeded ranges (1-300 commits, 1-10 %% noise, a quarter bimodal, 5 %% unbuildable, shifts 3-75 %% either way, a quarter no change; drift none, sine 2-10 %% with periods of 2-400 runs, random walk within +-10 %%, or both)\n",
	       all.ranges);
	printf("  wrong culprits:                        %zu (target 0)\n", all.wrong);
	printf("  false reports on no-change ranges:     %zu of %zu (%.1f %%; target <= 1 %%)\n", all.false_reports,
	       all.nochange, 100.0 * (double)all.false_reports / (double)(all.nochange ? all.nochange : 1));
	printf("  right where |shift| >= 3 sigma:        %.1f %% of %zu (target >= 95 %%); counting the drift between neighbouring runs in sigma: %.1f %% of %zu\n",
	       100.0 * (double)all.big_right / (double)(all.big ? all.big : 1), all.big,
	       100.0 * (double)all.big_eff_right / (double)(all.big_eff ? all.big_eff : 1), all.big_eff);
	printf("  over ceil(log2 N)+2 builds:            %zu (target 0)\n", all.over_builds);
	printf("  runs per range:                        %.1f with a change, %.1f without; %zu ended not sure\n",
	       (double)all.runs_changed / (double)(all.changed ? all.changed : 1),
	       (double)all.runs_nochange / (double)(all.nochange ? all.nochange : 1), all.not_sure);
	for (int d = 0; d < NDRIFT; d++)
		printf("  drift %-12s %4zu ranges: %zu wrong, %zu of %zu false, %.1f %% right >= 3 sigma (%zu), %zu over builds, %.1f runs\n",
		       drift_names[d], by[d].ranges, by[d].wrong, by[d].false_reports, by[d].nochange,
		       100.0 * (double)by[d].big_right / (double)(by[d].big ? by[d].big : 1), by[d].big, by[d].over_builds,
		       (double)(by[d].runs_changed + by[d].runs_nochange) / (double)(by[d].ranges ? by[d].ranges : 1));
}

int main(int argc, char **argv)
{
	size_t nranges = 800;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ranges") && i + 1 < argc)
			nranges = (size_t)atol(argv[++i]);
	}
	simulated(nranges);
	return 0;
}

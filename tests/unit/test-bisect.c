/*
 * Unit tests: lib/bisect against simulated commit ranges — a benchmark
 * whose mean depends on the commits in a commit's history and whose noise
 * is seeded (normal, or bimodal): clean shifts, no change, a gradual drift,
 * two regressions, merges, commits that cannot be built next to the
 * culprit; and the accuracy over a few hundred seeded scenarios. The real
 * processes and git repositories are in tests/cli/t0800-bisect.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/results/bisect.h"
#include "../../lib/results/sampling.h"

#include "bisect-sim.h"

/* Bisect the scenario; on a farm (s->slots) with at most max_points commits a step (0 or 1: one, as on one box). */
static int run_points(struct scenario *s, size_t max_points, struct bisect_outcome *out)
{
	struct bisect_oracle o = { sim_run, sim_samples, s, NULL, s->slots ? sim_slots : NULL };
	struct bisect_opts opts = { .max_points = max_points };
	struct strbuf err = STRBUF_INIT;
	int rc = bisect_run(s->n, s->parents, s->nparents, &o, &opts, out, &err);
	if (rc)
		print_error("bisect: %s\n", err.buf);
	strbuf_release(&err);
	return rc;
}

static int run(struct scenario *s, struct bisect_outcome *out)
{
	return run_points(s, 0, out);
}

static void test_clean_shift(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	linear(&s, 100, 1);
	s.noise = 0.01;
	shift_from(&s, 37, -0.30);
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_FOUND);
	assert_int_equal(out.culprit, 37);
	assert_int_equal(out.parent, 36);
	assert_true(out.change < -25 && out.change > -35);
	/* clean: ceil(log2 100) = 7 verdicts, the ends and the confirmation's parent */
	assert_true(out.nsteps <= bisect_log2_ceil(100) + 1);
	assert_true(out.commits <= bisect_log2_ceil(100) + 4);
	bisect_outcome_release(&out);
	release(&s);
}

static void test_no_change(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	/* noise of 5 % against a 1 % floor: 30 rounds rule no change out — not sure, with the interval */
	linear(&s, 50, 2);
	s.noise = 0.05;
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_NOT_SURE);
	assert_int_equal(out.nsteps, 0);
	assert_true(strstr(out.why, "not sure the good and the bad end differ") != NULL);
	assert_true(strstr(out.why, "99.8% interval") != NULL);
	assert_true(strstr(out.why, "30 rounds paired") != NULL);
	bisect_outcome_release(&out);
	release(&s);
	/* noise of 0.3 %: the interval lies within the floor — no change, ruled out */
	linear(&s, 50, 2);
	s.noise = 0.003;
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_NOT_REPRODUCED);
	assert_int_equal(out.nsteps, 0);
	assert_true(strstr(out.why, "do not differ") != NULL);
	assert_true(strstr(out.why, "within the 1% floor") != NULL);
	bisect_outcome_release(&out);
	release(&s);
}

static void test_drift(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	/* 1 % a commit over 30 commits: no single culprit */
	linear(&s, 30, 3);
	s.noise = 0.005;
	for (size_t i = 0; i < 30; i++)
		s.mu[i] = 1000 * (1 + 0.01 * (double)(i + 1));
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_NOT_REPRODUCED);
	bisect_outcome_release(&out);
	release(&s);
}

static void test_two_regressions(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	linear(&s, 64, 4);
	s.noise = 0.02;
	shift_from(&s, 10, 0.20);
	shift_from(&s, 50, 0.25);
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_FOUND);
	assert_true(out.culprit == 10 || out.culprit == 50);
	bisect_outcome_release(&out);
	release(&s);
}

static void test_bimodal(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	linear(&s, 40, 5);
	s.noise = 0.03;
	s.bimodal = true;
	shift_from(&s, 21, 0.40);
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_FOUND);
	assert_int_equal(out.culprit, 21);
	bisect_outcome_release(&out);
	release(&s);
}

/*
 * 0..9 mainline, 10..14 a side branch off 4, 15 merges 9 and 14, then
 * 16..19; the change is commit 12 on the side branch
 */
static void merge_scenario(struct scenario *s)
{
	linear(s, 20, 6);
	s->noise = 0.01;
	s->nparents[10] = 1;
	s->parents[10][0] = 4;
	s->parents[15][0] = 9;
	s->parents[15][1] = 14;
	s->nparents[15] = 2;
	for (size_t i = 0; i < 20; i++)
		if (i == 12 || i == 13 || i == 14 || i >= 15)
			s->mu[i] = 700;
}

static void test_merge(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	merge_scenario(&s);
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_FOUND);
	assert_int_equal(out.culprit, 12);
	assert_int_equal(out.parent, 11);
	bisect_outcome_release(&out);
	release(&s);
}

static void test_unbuildable(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	/* the culprit's parent cannot be built: the answer is a set {22, 23} */
	linear(&s, 40, 7);
	s.noise = 0.01;
	shift_from(&s, 23, -0.5);
	s.broken[22] = true;
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_AMBIGUOUS);
	assert_int_equal(out.ncandidates, 2);
	assert_int_equal(out.candidates[0], 22);
	assert_int_equal(out.candidates[1], 23);
	/* the one of them that can be tested is confirmed against the nearest good commit: it is reported */
	assert_true(out.located);
	assert_int_equal(out.culprit, 23);
	assert_true(out.parent < 22);
	assert_true(out.change < -40);
	bisect_outcome_release(&out);
	release(&s);

	/* a broken commit away from the culprit is stepped around */
	linear(&s, 40, 8);
	s.noise = 0.01;
	shift_from(&s, 23, -0.5);
	s.broken[20] = true;
	s.broken[21] = true;
	assert_int_equal(run(&s, &out), 0);
	assert_int_equal(out.status, BISECT_FOUND);
	assert_int_equal(out.culprit, 23);
	bisect_outcome_release(&out);
	release(&s);
}

/*
 * The seeded scenario set of bench/bisect too: shift 5-75 %, noise 1-10 %,
 * 8-300 commits. Never a wrong culprit; at least 95 % right where the shift
 * is 3 noise-stddevs or more (a smaller one may end "not sure", never as a
 * guess); no culprit on ranges where nothing changed.
 */
static void test_accuracy(void **state)
{
	size_t right = 0, wrong = 0, none = 0, total = 240, named_on_nochange = 0, nochange = 100;
	size_t big = 0, big_right = 0;
	(void)state;

	for (uint64_t k = 0; k < total; k++) {
		struct scenario s;
		struct bisect_outcome out;
		size_t n, culprit;
		double shift;
		seeded_range(&s, k, &n, &culprit, &shift);
		assert_int_equal(run(&s, &out), 0);
		bool ok = out.status == BISECT_FOUND && out.culprit == culprit;
		right += ok;
		wrong += out.status == BISECT_FOUND && !ok;
		none += out.status != BISECT_FOUND;
		if (fabs(shift) >= 3 * s.noise) {
			big++;
			big_right += ok;
		}
		if (!ok && getenv("BISECT_DEBUG"))
			print_message("  n %zu shift %.3f noise %.3f: %s\n", n, shift, s.noise, out.why);
		bisect_outcome_release(&out);
		release(&s);
	}
	for (uint64_t k = 0; k < nochange; k++) {
		struct scenario s;
		struct bisect_outcome out;
		linear(&s, 50, 5000 + k);
		s.noise = 0.01 + uniform(&s) * 0.09;
		s.bimodal = k % 3 == 0;
		assert_int_equal(run(&s, &out), 0);
		named_on_nochange += out.status == BISECT_FOUND;
		bisect_outcome_release(&out);
		release(&s);
	}
	print_message("accuracy: %zu/%zu right (%zu/%zu of the shifts >= 3 noise stddevs), %zu wrong, %zu without a culprit; culprits named on %zu/%zu no-change ranges\n",
		      right, total, big_right, big, wrong, none, named_on_nochange, nochange);
	assert_int_equal(wrong, 0);
	assert_true(big_right * 100 >= big * 95);
	assert_true(right * 100 >= total * 90);
	assert_int_equal(named_on_nochange, 0);
}

/*
 * A machine that drifts by +-8 % over 30 runs while a 6 % regression is
 * bisected: rounds in a random order, compared pair by pair, still name it;
 * on the same machine a range where nothing changed names nobody.
 */
static void test_drift_machine(void **state)
{
	struct scenario s;
	struct bisect_outcome out;
	(void)state;

	for (uint64_t k = 0; k < 20; k++) {
		linear(&s, 60, 9000 + k);
		s.noise = 0.01;
		s.drift_amp = 0.08;
		s.drift_period = 30;
		shift_from(&s, 41, -0.06);
		assert_int_equal(run(&s, &out), 0);
		assert_int_equal(out.status, BISECT_FOUND);
		assert_int_equal(out.culprit, 41);
		bisect_outcome_release(&out);
		release(&s);

		linear(&s, 60, 9100 + k);
		s.noise = 0.01;
		s.drift_amp = 0.08;
		s.drift_period = 30;
		assert_int_equal(run(&s, &out), 0);
		assert_int_not_equal(out.status, BISECT_FOUND);
		bisect_outcome_release(&out);
		release(&s);
	}
}

/*
 * Multisection: with 8 runs at once, a shift that needs one round a
 * verdict and --max-points 8, steps test several commits at once — the
 * same culprit as one at a time, in fewer waves, and never more than twice
 * the builds of a clean bisection; without --max-points (a farm's default:
 * no more builds than one box), exactly the bisection of one box.
 */
static void test_multisection(void **state)
{
	struct bisect_outcome one, farm, capped;
	struct scenario s;
	size_t waves_one, waves_farm;
	(void)state;

	linear(&s, 200, 31);
	s.noise = 0.01;
	shift_from(&s, 137, -0.30);
	assert_int_equal(run(&s, &one), 0);
	waves_one = s.waves;
	release(&s);

	linear(&s, 200, 31);
	s.noise = 0.01;
	s.slots = 8;
	shift_from(&s, 137, -0.30);
	assert_int_equal(run_points(&s, 8, &farm), 0);
	waves_farm = s.waves;
	release(&s);

	linear(&s, 200, 31);
	s.noise = 0.01;
	s.slots = 8;
	shift_from(&s, 137, -0.30);
	assert_int_equal(run(&s, &capped), 0);
	release(&s);

	assert_int_equal(one.status, BISECT_FOUND);
	assert_int_equal(farm.status, BISECT_FOUND);
	assert_int_equal(one.culprit, 137);
	assert_int_equal(farm.culprit, 137);
	/* several commits a step: fewer steps in time, more commits tested, within the budget */
	assert_true(farm.nsteps > one.nsteps);
	assert_true(farm.commits > one.commits);
	assert_true(farm.commits <= 2 * (bisect_log2_ceil(200) + 2));
	print_message("multisection: one box %zu waves %zu builds, 8 boxes %zu waves %zu builds\n", waves_one, one.commits,
		      waves_farm, farm.commits);
	assert_true(waves_farm * 2 < waves_one);
	/* the farm's default, one commit a step: the same commits as on one box, in the same order */
	assert_int_equal(capped.status, BISECT_FOUND);
	assert_int_equal(capped.commits, one.commits);
	assert_int_equal(capped.nsteps, one.nsteps);
	for (size_t i = 0; i < one.nsteps; i++)
		assert_int_equal(capped.steps[i].commit, one.steps[i].commit);
	bisect_outcome_release(&one);
	bisect_outcome_release(&farm);
	bisect_outcome_release(&capped);
}

/*
 * Multisection over merges, skipped commits and noise: the accuracy set
 * again on 4 and 16 boxes — never a wrong culprit, no culprit where
 * nothing changed, the builds within twice a clean bisection's.
 */
static void test_multisection_accuracy(void **state)
{
	size_t wrong = 0, big = 0, big_right = 0, over = 0, named_on_nochange = 0;
	(void)state;

	for (uint64_t k = 0; k < 160; k++) {
		struct scenario s;
		struct bisect_outcome out;
		size_t n, culprit;
		double shift;
		seeded_range(&s, k, &n, &culprit, &shift);
		s.slots = k % 2 ? 4 : 16;
		for (size_t i = 0; i + 1 < n; i++)
			s.broken[i] = i != culprit && uniform(&s) < 0.05;
		assert_int_equal(run_points(&s, 64, &out), 0);
		bool ok = (out.status == BISECT_FOUND || out.located) && out.culprit == culprit;
		wrong += (out.status == BISECT_FOUND || out.located) && !ok;
		if (fabs(shift) >= 3 * s.noise) {
			big++;
			big_right += ok || (out.status == BISECT_AMBIGUOUS && !out.located);
		}
		over += out.commits > 2 * (bisect_log2_ceil(n) + 2);
		bisect_outcome_release(&out);
		release(&s);
	}
	for (uint64_t k = 0; k < 40; k++) {
		struct scenario s;
		struct bisect_outcome out;
		linear(&s, 50, 7000 + k);
		s.noise = 0.01 + uniform(&s) * 0.09;
		s.slots = 8;
		assert_int_equal(run_points(&s, 64, &out), 0);
		named_on_nochange += out.status == BISECT_FOUND;
		bisect_outcome_release(&out);
		release(&s);
	}
	/* the merge of test_merge, several commits at once */
	struct scenario s;
	struct bisect_outcome out;
	merge_scenario(&s);
	s.slots = 8;
	assert_int_equal(run_points(&s, 64, &out), 0);
	assert_int_equal(out.status, BISECT_FOUND);
	assert_int_equal(out.culprit, 12);
	bisect_outcome_release(&out);
	release(&s);
	print_message("multisection accuracy: %zu wrong, %zu/%zu right where |shift| >= 3 sigma, %zu over the builds, "
		      "%zu named on 40 no-change ranges\n", wrong, big_right, big, over, named_on_nochange);
	assert_int_equal(wrong, 0);
	assert_true(big_right * 100 >= big * 95);
	assert_int_equal(over, 0);
	assert_int_equal(named_on_nochange, 0);
}

/*
 * A farm without --max-points: on 4 or 16 boxes, over the seeded ranges
 * (merges, broken commits, noise), the same commits built and the same
 * outcome as on one box — never more builds (issue 20).
 */
static void test_farm_no_more_builds(void **state)
{
	(void)state;
	for (uint64_t k = 0; k < 60; k++) {
		struct bisect_outcome out[2];
		for (int farm = 0; farm < 2; farm++) {
			struct scenario s;
			size_t n, culprit;
			double shift;
			seeded_range(&s, k, &n, &culprit, &shift);
			s.slots = farm ? (k % 2 ? 4 : 16) : 0;
			for (size_t i = 0; i + 1 < n; i++)
				s.broken[i] = i != culprit && uniform(&s) < 0.05;
			assert_int_equal(run(&s, &out[farm]), 0);
			release(&s);
		}
		assert_int_equal(out[1].commits, out[0].commits);
		assert_int_equal(out[1].status, out[0].status);
		assert_int_equal(out[1].culprit, out[0].culprit);
		bisect_outcome_release(&out[0]);
		bisect_outcome_release(&out[1]);
	}
}

/*
 * The rounds' plan and their tags: one run of each side a round, in either
 * order, every round a different id, and a tag in a run's job.yaml that
 * reads back to the same round.
 */
static void test_rounds_and_tags(void **state)
{
	size_t first[40], second[40], swapped = 0;
	uint64_t rng = 7;
	struct bisect_batch b;
	(void)state;

	for (size_t r = 0; r < 40; r++) {
		first[r] = 3;
		second[r] = 9;
	}
	struct bisect_run *runs = bisect_plan_rounds(&rng, first, second, 40, &b);
	assert_int_equal(b.n, 80);
	for (size_t r = 0; r < 40; r++) {
		const struct bisect_run *x = &runs[2 * r], *y = &runs[2 * r + 1];
		assert_int_equal(x->round, r);
		assert_int_equal(x->position, 2 * r);
		assert_int_equal(y->position, 2 * r + 1);
		assert_true(x->round_id == y->round_id && x->round_id == sampling_round_id(b.id, r));
		assert_true(x->commit + y->commit == 12 && x->commit != y->commit);
		swapped += x->commit == 9;
		for (size_t q = 0; q < r; q++)
			assert_true(runs[2 * q].round_id != x->round_id);
	}
	/* a random order: both orders, neither always */
	assert_true(swapped > 5 && swapped < 35);
	free(runs);

	struct strbuf tag = STRBUF_INIT;
	sampling_tag(&tag, 0x0123456789abcdefULL, 12, 25);
	assert_string_equal(tag.buf, "0123456789abcdef-12-25");
	assert_true(sampling_tag_round(tag.buf) == sampling_round_id(0x0123456789abcdefULL, 12));
	assert_true(sampling_tag_round("0123456789abcdef-12-26") == sampling_round_id(0x0123456789abcdefULL, 12));
	assert_true(sampling_tag_round("0123456789abcdef-13-25") != sampling_round_id(0x0123456789abcdefULL, 12));
	assert_true(sampling_tag_round("0123456789abcde-12-25") == 0);
	assert_true(sampling_tag_round("0123456789abcdef-12") == 0);
	assert_true(sampling_tag_round("0123456789abcdef-x-1") == 0);
	assert_true(sampling_tag_round(NULL) == 0);
	/* read back from a run's job.yaml (quoted or not), 0 without one */
	char dir[] = "/tmp/test-sampling.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *jp = xasprintf("%s/job.yaml", dir);
	char *text = xasprintf("suite: command\ncommand:\n  interleave: not-this-one\ninterleave: '%s'\n", tag.buf);
	FILE *f = fopen(jp, "w");
	fputs(text, f);
	fclose(f);
	assert_true(sampling_run_round(dir) == sampling_round_id(0x0123456789abcdefULL, 12));
	unlink(jp);
	assert_true(sampling_run_round(dir) == 0);
	rmdir(dir);
	free(jp);
	free(text);
	strbuf_release(&tag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_shift),
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_two_regressions),
		cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_unbuildable),
		cmocka_unit_test(test_accuracy),
		cmocka_unit_test(test_drift_machine),
		cmocka_unit_test(test_rounds_and_tags),
		cmocka_unit_test(test_multisection),
		cmocka_unit_test(test_multisection_accuracy),
		cmocka_unit_test(test_farm_no_more_builds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: lib/stats/decide — the one decision (changed, no change, not
 * sure) with its interval: constant sides, huge and negative samples, too
 * few runs, the floor, pairs of one round against a drifting machine, the
 * persistence rule; and the t quantiles it stands on.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../lib/stats/decide.h"
#include "../../lib/stats/sigtest.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static struct decide_side side(const double *v, size_t n)
{
	return (struct decide_side){ v, NULL, n };
}

/* no "inf", "nan" in a reason, whatever the numbers */
static void assert_words_only(const struct decision *d)
{
	static const char *const bad[] = { "inf%", "-inf", "+inf", " inf ", " inf)", "nan%", "-nan", " nan ", "(nan" };
	for (size_t i = 0; i < N(bad); i++)
		assert_null(strstr(d->why, bad[i]));
	assert_true(strlen(d->why) > 0);
	assert_null(strchr(d->why, '\n'));
}

static void test_t_quantiles(void **state)
{
	(void)state;
	/* the tables' values: t(0.975, 10), t(0.999, 4), t(0.995, 1), and the normal's 1.96 far out */
	assert_true(fabs(sigtest_t_quantile(0.05, 10) - 2.2281388519649) < 1e-9);
	assert_true(fabs(sigtest_t_quantile(0.002, 4) - 7.1731822) < 1e-6);
	assert_true(fabs(sigtest_t_quantile(0.01, 1) - 63.656741162872) < 1e-6);
	assert_true(fabs(sigtest_t_quantile(0.05, 1e7) - 1.959964) < 1e-5);
	/* and back */
	assert_true(fabs(sigtest_t_p(sigtest_t_quantile(0.002, 7.5), 7.5) - 0.002) < 1e-12);
	assert_true(isnan(sigtest_t_quantile(0, 3)));
	assert_true(isnan(sigtest_t_quantile(0.05, -1)));
	assert_true(sigtest_t_p(INFINITY, 3) == 0);
}

static void test_clear_change(void **state)
{
	static const double a[] = { 68769, 66500, 71038 }, b[] = { 17370, 17400, 17340 };
	struct decide_side sa = side(a, 3), sb = side(b, 3);
	struct decide_metric m = { +1, 0.01 };
	struct decision d;
	(void)state;

	/* the -75 % of example 1 with 3 runs a side: changed, not hedged */
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_CHANGED);
	assert_int_equal(d.sign, -1);
	assert_int_equal(d.kind, -1);	/* throughput down: a regression */
	assert_true(d.change < -74 && d.change > -76);
	assert_true(d.lo < d.change && d.change < d.hi && d.hi < -1);
	assert_int_equal(d.pairs, 0);
	assert_true(d.log_scale);
	assert_true(decide_p(&d) > 0 && decide_p(&d) < 0.01);
	assert_non_null(strstr(d.why, "beyond the 1% floor"));
	assert_words_only(&d);
	/* the same the other way round: the mirror image */
	struct decision e;
	decide(&sb, &sa, &m, &e);
	assert_int_equal(e.verdict, DECIDE_CHANGED);
	assert_int_equal(e.kind, +1);
	assert_true(fabs(log1p(e.change / 100) + log1p(d.change / 100)) < 1e-12);
	/* a metric with no direction: changed, neither regression nor improvement */
	m.direction = 0;
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.kind, 0);
}

static void test_constant_sides(void **state)
{
	static const double a[] = { 4, 4, 4 }, b[] = { 1, 1, 1 }, c[] = { 4, 4, 4, 4 };
	struct decide_side sa = side(a, 3), sb = side(b, 3), sc = side(c, 4);
	struct decide_metric m = { -1, 0.05 };
	struct decision d;
	(void)state;

	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_CHANGED);
	assert_true(d.constant);
	assert_true(d.change == -75 && d.lo == -75 && d.hi == -75);
	assert_int_equal(d.kind, +1);	/* lower is better */
	assert_true(isnan(decide_p(&d)));	/* no variance: no p-value, and none printed */
	assert_non_null(strstr(d.why, "no variance"));
	assert_words_only(&d);
	/* two alike runs a side are not taken at their word (a coarse metric's chance): not sure */
	struct decide_side s2a = side(a, 2), s2b = side(b, 2);
	decide(&s2a, &s2b, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_false(d.settled);
	assert_words_only(&d);
	/* the same value everywhere: no change, settled */
	decide(&sa, &sc, &m, &d);
	assert_int_equal(d.verdict, DECIDE_SAME);
	assert_true(d.settled);
	assert_true(d.change == 0);
	assert_words_only(&d);
}

static void test_huge_and_negative(void **state)
{
	static const double big_a[] = { 1e308, 1.01e308, 0.99e308 }, big_b[] = { 5e307, 5.2e307, 4.9e307 };
	static const double mixed_a[] = { 1e308, 9e307, 9.5e307, 1.05e308 }, mixed_b[] = { -1e308, -9e307, -1.1e308, -1e308 };
	static const double neg_a[] = { -5, -6, -5.5 }, neg_b[] = { -1, -2, -1.5 };
	static const double zero_a[] = { -1, 1, 0 }, zero_b[] = { 5, 6, 7 };
	struct decide_metric m = { +1, 0.01 };
	struct decision d;
	struct decide_side sa, sb;
	(void)state;

	/* near DBL_MAX: logarithms, nothing overflows */
	sa = side(big_a, 3);
	sb = side(big_b, 3);
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_CHANGED);
	assert_true(isfinite(d.change) && isfinite(d.lo) && isfinite(d.hi));
	assert_true(d.change < -45 && d.change > -55);
	assert_words_only(&d);
	/* huge values of both signs: over the largest, still finite */
	sa = side(mixed_a, 4);
	sb = side(mixed_b, 4);
	decide(&sa, &sb, &m, &d);
	assert_false(d.log_scale);
	assert_true(isfinite(d.change) && isfinite(d.lo) && isfinite(d.hi));
	assert_int_equal(d.verdict, DECIDE_CHANGED);
	assert_int_equal(d.sign, -1);
	assert_words_only(&d);
	/* a negative base mean: no relative change to decide on, and it says so (not "0") */
	sa = side(neg_a, 3);
	sb = side(neg_b, 3);
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_true(d.settled);
	assert_non_null(strstr(d.why, "the base's mean is negative"));
	assert_words_only(&d);
	sa = side(zero_a, 3);
	sb = side(zero_b, 3);
	decide(&sa, &sb, &m, &d);
	assert_non_null(strstr(d.why, "the base's mean is 0"));
	/* a NaN or an infinity decides nothing */
	static const double nan_b[] = { 1, NAN, 2 }, inf_b[] = { 1, INFINITY, 2 };
	sa = side(big_a, 3);
	sb = side(nan_b, 3);
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_true(d.settled);
	assert_words_only(&d);
	sb = side(inf_b, 3);
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_words_only(&d);
}

static void test_tiny_n(void **state)
{
	static const double one[] = { 100 }, three[] = { 50, 51, 49 }, two_a[] = { 100, 101 }, two_b[] = { 50, 51 };
	static const uint64_t ra[] = { 7, 8 }, rb[] = { 8, 7 };
	struct decide_metric m = { +1, 0.01 };
	struct decision d;
	struct decide_side sa = side(one, 1), sb = side(three, 3);
	(void)state;

	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_false(d.settled);	/* more runs will tell */
	assert_non_null(strstr(d.why, "too few runs"));
	sa = side(one, 0);
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_non_null(strstr(d.why, "no runs on the base side"));
	/* two runs a side in two rounds: a pair each, one degree of freedom: a wide interval */
	struct decide_side pa = { two_a, ra, 2 }, pb = { two_b, rb, 2 };
	decide(&pa, &pb, &m, &d);
	assert_int_equal(d.pairs, 2);
	assert_true(d.lo < d.change && d.change < d.hi);
	assert_words_only(&d);
	/* persistence: more rounds asked for, 1.6 times as many, never past the cap */
	assert_true(decide_rounds(&d, 2, 30, NULL) == 4);
	d.verdict = DECIDE_UNSURE;
	assert_true(decide_rounds(&d, 29, 30, NULL) <= 30);
}

/*
 * A machine whose speed climbs 1 % a run while a 3 % regression is
 * measured: all base runs, then all new ones, show the drift as a change
 * the other way; rounds of one run of each in a random order, compared
 * pair by pair, show the regression.
 */
static void test_pairs_cancel_drift(void **state)
{
	enum { R = 12 };
	double a[R], b[R], sa_[R], sb_[R];
	uint64_t ra[R], rb[R];
	struct decide_metric m = { +1, 0.01 };
	struct decision paired, blocks;
	unsigned seed = 12345;
	(void)state;

	for (int r = 0; r < R; r++) {
		bool swap = (seed = seed * 1103515245 + 12345) >> 30 & 1;
		double ta = 2 * r + (swap ? 1 : 0), tb = 2 * r + (swap ? 0 : 1);
		a[r] = 1000 * (1 + 0.01 * ta) * (1 + 0.002 * ((r * 7) % 5 - 2));
		b[r] = 970 * (1 + 0.01 * tb) * (1 + 0.002 * ((r * 3) % 5 - 2));
		ra[r] = rb[r] = 100 + (uint64_t)r;
		/* the same machine, one side after the other */
		sa_[r] = 1000 * (1 + 0.01 * r);
		sb_[r] = 970 * (1 + 0.01 * (R + r));
	}
	struct decide_side pa = { a, ra, R }, pb = { b, rb, R };
	decide(&pa, &pb, &m, &paired);
	assert_int_equal(paired.pairs, R);
	assert_int_equal(paired.verdict, DECIDE_CHANGED);
	assert_int_equal(paired.kind, -1);
	assert_true(paired.change < -2 && paired.change > -4);
	struct decide_side qa = side(sa_, R), qb = side(sb_, R);
	decide(&qa, &qb, &m, &blocks);
	assert_int_equal(blocks.pairs, 0);
	assert_true(blocks.change > 0);	/* the drift reads as an improvement */
	assert_int_not_equal(blocks.kind, -1);
}

static void test_floor(void **state)
{
	static const double a[] = { 1000, 1000.1, 999.9, 1000.05, 999.95 };
	double b[5], c[5];
	struct decide_metric m = { +1, 0.01 };
	struct decision d;
	(void)state;

	for (int i = 0; i < 5; i++) {
		b[i] = a[i] * 1.005;	/* +0.5 %: certain, and smaller than the floor */
		c[i] = a[i] * 1.02;	/* +2 %: beyond it */
	}
	struct decide_side sa = side(a, 5), sb = side(b, 5), sc = side(c, 5);
	decide(&sa, &sb, &m, &d);
	assert_true(decide_p(&d) < 1e-6);
	assert_int_equal(d.verdict, DECIDE_SAME);
	assert_non_null(strstr(d.why, "within the 1% floor"));
	decide(&sa, &sc, &m, &d);
	assert_int_equal(d.verdict, DECIDE_CHANGED);
	/* a floor of 5 %: the 2 % is no change */
	m.floor = 0.05;
	decide(&sa, &sc, &m, &d);
	assert_int_equal(d.verdict, DECIDE_SAME);
	assert_non_null(strstr(d.why, "the 5% floor"));
}

static void test_unsure_and_futile(void **state)
{
	static const double a[] = { 100, 110, 90, 105, 95 }, b[] = { 101, 93, 112, 97, 104 };
	struct decide_metric m = { +1, 0.01 };
	struct decision d;
	bool futile;
	(void)state;

	struct decide_side sa = side(a, 5), sb = side(b, 5);
	decide(&sa, &sb, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_non_null(strstr(d.why, "nor within it"));
	/* noise of 8 %, 5 rounds: a change of 10 % is still possible: go on */
	assert_int_equal(decide_rounds(&d, 5, 30, &futile), 8);
	assert_false(futile);
	/*
	 * 20 rounds of it and no change in sight: not even 30 will show a
	 * change beyond 1 % — said, but no reason to stop: the interval rules
	 * nothing out, so the rounds go on to the cap (and "not sure" there)
	 */
	double a4[20], b4[20];
	for (int i = 0; i < 20; i++) {
		a4[i] = a[i % 5];
		b4[i] = b[(i + i / 5) % 5];
	}
	struct decide_side sa4 = side(a4, 20), sb4 = side(b4, 20);
	decide(&sa4, &sb4, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_int_equal(decide_rounds(&d, 20, 30, &futile), 30);
	assert_true(futile);
	assert_int_equal(decide_rounds(&d, 30, 30, &futile), 30);
	assert_true(futile);
	/* the same noise and a 10 % shift in sight: go on */
	double c[5];
	for (int i = 0; i < 5; i++)
		c[i] = b[i] * 0.9;
	struct decide_side sc = side(c, 5);
	decide(&sa, &sc, &m, &d);
	assert_int_equal(d.verdict, DECIDE_UNSURE);
	assert_int_equal(decide_rounds(&d, 5, 30, &futile), 8);
	assert_false(futile);
	assert_string_equal(decide_verdict_name(DECIDE_UNSURE), "not sure");
}

static void test_percent_text(void **state)
{
	char buf[32];
	(void)state;
	decide_format_percent(buf, sizeof(buf), -74.73);
	assert_string_equal(buf, "-74.7%");
	decide_format_percent(buf, sizeof(buf), 14149.2);
	assert_string_equal(buf, "+14149%");
	decide_format_percent(buf, sizeof(buf), 3e300);
	assert_string_equal(buf, "+3e+300%");
	decide_format_percent(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "n/a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_quantiles),
		cmocka_unit_test(test_clear_change),
		cmocka_unit_test(test_constant_sides),
		cmocka_unit_test(test_huge_and_negative),
		cmocka_unit_test(test_tiny_n),
		cmocka_unit_test(test_pairs_cancel_drift),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_unsure_and_futile),
		cmocka_unit_test(test_percent_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

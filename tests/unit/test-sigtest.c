/*
 * Unit tests: lib/sigtest — Welch's t, Mann-Whitney U, Hedges' g and
 * Cliff's delta against SciPy, plus properties that need no reference.
 *
 * Reference numbers come from SciPy 1.10.1 / NumPy 1.24.2 (Debian 12's
 * python3-scipy), with a and b the arrays below as float64:
 *   Welch:   r = stats.ttest_ind(a, b, equal_var=False); r.pvalue,
 *            r.statistic; df = (va + vb)**2 / (va**2/(na-1) + vb**2/(nb-1))
 *            with va = np.var(a, ddof=1)/na, vb likewise
 *   MWU:     r = stats.mannwhitneyu(a, b, alternative='two-sided',
 *            method='exact' or 'asymptotic'); r.pvalue, r.statistic
 *            (use_continuity=True, the default)
 *   Hedges:  df = na+nb-2; sp = np.sqrt(((na-1)*np.var(a, ddof=1) +
 *            (nb-1)*np.var(b, ddof=1))/df); J = np.exp(special.gammaln(df/2)
 *            - special.gammaln((df-1)/2))/np.sqrt(df/2);
 *            g = (b.mean() - a.mean())/sp*J
 *   Cliff:   np.sign(b[None,:] - a[:,None]).sum() / (na*nb)
 * printed with '%.17g'. The generated samples are
 * [(i*mul % mod)/div + shift for i in range(n)], computed the same way
 * (exact integers, one division, one addition) by gen() below.
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

#include "../../lib/stats/sigtest.h"

#define N(x) (sizeof(x) / sizeof(*(x)))

/* Tolerances: closed forms and exact counts vs continued fractions. */
#define REL_EXACT 1e-9
#define REL_CF 1e-6

/* ---- helpers ---------------------------------------------------------- */

static void check_rel(double got, double want, double rel, const char *what, const char *name)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("%s %s: got %.17g, want NAN", name, what, got);
		return;
	}
	if (isinf(want) || want == 0) {
		if (got != want)
			fail_msg("%s %s: got %.17g, want %.17g", name, what, got, want);
		return;
	}
	if (!(fabs(got - want) <= rel * fabs(want)))
		fail_msg("%s %s: got %.17g, want %.17g (relative error %.3g > %.3g)",
			 name, what, got, want, fabs(got - want) / fabs(want), rel);
}

static double *gen(size_t n, unsigned mul, unsigned mod, double div, double shift)
{
	double *x = malloc(n * sizeof(*x));

	assert_non_null(x);
	for (size_t i = 0; i < n; i++)
		x[i] = (double)(i * mul % mod) / div + shift;
	return x;
}

/* ---- samples ---------------------------------------------------------- */

/* 3 runs a side, kernel-build-like seconds; b clearly slower */
static const double k3a[] = { 1012.5, 998.3, 1005.1 };
static const double k3b[] = { 1030.2, 1041.7, 1025.9 };
/* 3 vs 25, b skewed with two outliers; m25t has ties (48.2, 47.9, 48.0
 * twice, 50.6 also in m3a), m25 is the same without them */
static const double m3a[] = { 52.1, 49.8, 50.6 };
static const double m25t[] = {
	48.2, 47.9, 49.1, 48.8, 47.5, 48.0, 55.3, 48.4, 47.7, 48.9, 48.1, 47.6, 49.5,
	48.3, 47.8, 48.6, 52.7, 48.2, 47.9, 48.0, 48.5, 47.4, 48.7, 50.6, 60.2,
};
static const double m25[] = {
	48.2, 47.9, 49.1, 48.8, 47.5, 48.05, 55.3, 48.4, 47.7, 48.9, 48.1, 47.6, 49.5,
	48.3, 47.8, 48.6, 52.7, 48.25, 47.95, 48.0, 48.5, 47.4, 48.7, 51.0, 60.2,
};
/* 5 vs 5; f5b ties f5a at 3.4, f5c does not */
static const double f5a[] = { 3.1, 2.9, 3.4, 3.0, 3.2 };
static const double f5b[] = { 3.3, 3.6, 3.5, 3.9, 3.4 };
static const double f5c[] = { 3.3, 3.6, 3.5, 3.9, 3.45 };
/* totally separated */
static const double s4a[] = { 100, 101, 102, 103 };
static const double s5b[] = { 200, 201, 202, 203, 204 };
/* one side without variance */
static const double z3[] = { 7, 7, 7 };
static const double z4b[] = { 7.5, 8.1, 7.9, 8.4 };
/* interleaved, no ties, no clear change */
static const double i8a[] = { 12.0, 15.5, 11.2, 19.8, 14.1, 13.3, 25.0, 10.9 };
static const double i7b[] = { 13.7, 16.2, 12.5, 21.4, 18.8, 14.6, 17.1 };
/* heavy ties */
static const double ta[] = { 1, 1, 2, 2, 2, 3 };
static const double tb[] = { 2, 2, 3, 3, 4 };

struct gen_spec {
	size_t n;
	unsigned mul, mod;
	double div, shift;
};

/* distinct within each, and g50a/g50b and g60a/g12b share no value */
static const struct gen_spec g50a = { 50, 37, 101, 7, 0 };
static const struct gen_spec g50b = { 50, 53, 97, 5, 3.05 };
static const struct gen_spec g60a = { 60, 37, 101, 7, 0 };
static const struct gen_spec g12b = { 12, 53, 97, 5, 3.05 };
static const struct gen_spec g2000a = { 2000, 37, 101, 7, 0 };
static const struct gen_spec g3000b = { 3000, 53, 97, 5, 0.3 };

/* A case is either two fixed arrays or two generated ones. */
struct sides {
	const char *name;
	const double *a, *b;
	size_t na, nb;
	const struct gen_spec *ga, *gb;
};

#define FIXED(x, y) .name = #x " vs " #y, .a = x, .na = N(x), .b = y, .nb = N(y)
#define GEN(x, y) .name = #x " vs " #y, .ga = &x, .gb = &y

struct got_sides {
	const double *a, *b;
	size_t na, nb;
	double *fa, *fb;	/* generated, freed by put_sides() */
};

static struct got_sides get_sides(const struct sides *s)
{
	struct got_sides g = { s->a, s->b, s->na, s->nb, NULL, NULL };

	if (s->ga) {
		g.a = g.fa = gen(s->ga->n, s->ga->mul, s->ga->mod, s->ga->div, s->ga->shift);
		g.na = s->ga->n;
		g.b = g.fb = gen(s->gb->n, s->gb->mul, s->gb->mod, s->gb->div, s->gb->shift);
		g.nb = s->gb->n;
	}
	return g;
}

static void put_sides(struct got_sides *g)
{
	free(g->fa);
	free(g->fb);
}

/* ---- Welch ------------------------------------------------------------ */

static void test_welch_scipy(void **state)
{
	/* scipy 1.10.1: stats.ttest_ind(a, b, equal_var=False).pvalue, .statistic */
	static const struct {
		struct sides s;
		double p, t, df;
	} cases[] = {
		{ { FIXED(k3a, k3b) }, 0.0125017294639458, -4.3683261805326854, 3.9241501159089633 },
		{ { FIXED(m3a, m25t) }, 0.13165361134863748, 1.7591797908309676, 5.6985063322389751 },
		{ { FIXED(f5a, f5b) }, 0.014563499823256032, -3.1304951684997047, 7.7549066539013864 },
		{ { FIXED(s4a, s5b) }, 1.9981364410882887e-12, -104.96882654128579, 6.9807692307692317 },
		{ { FIXED(z3, z4b) }, 0.014073251011506874, -5.1656761925536685, 3 },
		{ { FIXED(i8a, i7b) }, 0.60585310704288142, -0.52996310231461119, 11.939289535689202 },
		{ { GEN(g2000a, g3000b) }, 4.9466765030433713e-85, -19.925615167853056, 4938.9109660254562 },
	};
	(void)state;

	for (size_t i = 0; i < N(cases); i++) {
		struct got_sides g = get_sides(&cases[i].s);
		double t = 0, df = 0;
		double p = sigtest_welch(g.a, g.na, g.b, g.nb, &t, &df);

		check_rel(p, cases[i].p, REL_CF, "p", cases[i].s.name);
		check_rel(t, cases[i].t, REL_EXACT, "t", cases[i].s.name);
		check_rel(df, cases[i].df, REL_EXACT, "df", cases[i].s.name);
		/* the outputs are optional */
		check_rel(sigtest_welch(g.a, g.na, g.b, g.nb, NULL, NULL), p, 0, "p without t, df",
			  cases[i].s.name);
		put_sides(&g);
	}
}

static void test_welch_identical(void **state)
{
	static const double shuffled[] = { 998.3, 1005.1, 1012.5 };
	double t = 1, df = 0;
	(void)state;

	assert_true(sigtest_welch(k3a, N(k3a), k3a, N(k3a), &t, &df) == 1);
	assert_true(t == 0);
	check_rel(df, 4, REL_EXACT, "df", "k3a vs k3a");
	assert_true(sigtest_welch(k3a, N(k3a), shuffled, N(shuffled), &t, NULL) == 1);
	assert_true(t == 0);
}

static void test_welch_zero_variance(void **state)
{
	static const double five3[] = { 5, 5, 5 }, five2[] = { 5, 5 }, six2[] = { 6, 6 };
	/* 0.1 * 3 / 3 != 0.1: a naive mean would give a variance of ~1e-35 */
	static const double tenth3[] = { 0.1, 0.1, 0.1 }, tenth4[] = { 0.1, 0.1, 0.1, 0.1 };
	double t, df;
	(void)state;

	assert_true(sigtest_welch(five3, 3, five2, 2, &t, &df) == 1);
	assert_true(t == 0);
	assert_true(isnan(df));
	assert_true(sigtest_welch(five3, 3, six2, 2, &t, &df) == 0);
	assert_true(t == -INFINITY);
	assert_true(isnan(df));
	assert_true(sigtest_welch(six2, 2, five3, 3, &t, NULL) == 0);
	assert_true(t == INFINITY);
	assert_true(sigtest_welch(tenth3, 3, tenth4, 4, &t, NULL) == 1);
	assert_true(t == 0);
	assert_true(sigtest_hedges_g(tenth3, 3, tenth4, 4) == 0);
	/* one side constant is ordinary (df = nb - 1): scipy agrees, above */
}

static void test_welch_undefined(void **state)
{
	static const double one[] = { 42 };
	double t = 0, df = 0;
	(void)state;

	assert_true(isnan(sigtest_welch(one, 1, k3b, N(k3b), &t, &df)));
	assert_true(isnan(t) && isnan(df));
	assert_true(isnan(sigtest_welch(k3a, N(k3a), one, 1, &t, &df)));
	assert_true(isnan(sigtest_welch(k3a, N(k3a), NULL, 0, &t, &df)));
	assert_true(isnan(sigtest_welch(NULL, 0, NULL, 0, NULL, NULL)));
}

/* ---- Mann-Whitney U --------------------------------------------------- */

static void test_mwu_exact_scipy(void **state)
{
	/* scipy 1.10.1: stats.mannwhitneyu(a, b, alternative='two-sided',
	 * method='exact').pvalue, .statistic */
	static const struct {
		struct sides s;
		double p, u;
	} cases[] = {
		{ { FIXED(k3a, k3b) }, 0.10000000000000001, 0 },
		{ { FIXED(m3a, m25) }, 0.050671550671550679, 64 },
		{ { FIXED(f5a, f5c) }, 0.015873015873015872, 1 },
		{ { FIXED(i8a, i7b) }, 0.33566433566433573, 19 },
		{ { FIXED(s4a, s5b) }, 0.015873015873015872, 0 },
		{ { GEN(g50a, g50b) }, 1.5588998489854302e-05, 638 },
	};
	(void)state;

	for (size_t i = 0; i < N(cases); i++) {
		struct got_sides g = get_sides(&cases[i].s);
		double u = -1;
		bool exact = false;
		double p = sigtest_mwu(g.a, g.na, g.b, g.nb, &u, &exact);

		if (!exact)
			fail_msg("%s: not exact", cases[i].s.name);
		check_rel(p, cases[i].p, REL_EXACT, "p", cases[i].s.name);
		check_rel(u, cases[i].u, 0, "u", cases[i].s.name);
		check_rel(sigtest_mwu(g.a, g.na, g.b, g.nb, NULL, NULL), p, 0, "p without u",
			  cases[i].s.name);
		put_sides(&g);
	}
}

static void test_mwu_exact_separated(void **state)
{
	double a[25], b[25], u;
	bool exact;
	(void)state;

	for (int i = 0; i < 25; i++) {
		a[i] = i;
		b[i] = 100 + i;
	}
	/*
	 * 2 / C(50, 25) = 2 / 126410606437752, from Python's exact integers.
	 * (scipy 1.10.1's method='exact' says 1.5821457204897228e-14: its
	 * float sums are 4e-16 off.)
	 */
	check_rel(sigtest_mwu(a, 25, b, 25, &u, &exact), 2.0 / 126410606437752.0, 1e-15, "p",
		  "0..24 vs 100..124");
	assert_true(exact);
	assert_true(u == 0);
	check_rel(sigtest_mwu(b, 25, a, 25, &u, &exact), 2.0 / 126410606437752.0, 1e-15, "p",
		  "100..124 vs 0..24");
	assert_true(u == 625);
	/* 50 vs 50 at the edge: 2 / C(100, 50), beyond 64-bit counts */
	{
		double *x = gen(50, 1, 1000, 1, 0), *y = gen(50, 1, 1000, 1, 1000);
		check_rel(sigtest_mwu(x, 50, y, 50, &u, &exact),
			  2.0 / 100891344545564193334812497256.0, 1e-15, "p", "0..49 vs 1000..1049");
		assert_true(exact);
		free(x);
		free(y);
	}
}

/*
 * Every order of m + n distinct runs, 1 <= m, n <= 6: the exact p-value
 * must be twice the share of orders with U at most min(U, mn - U), counted
 * here by brute force.
 */
static void test_mwu_exact_enumeration(void **state)
{
	(void)state;

	for (unsigned m = 1; m <= 6; m++) {
		for (unsigned n = 1; n <= 6; n++) {
			unsigned total = m + n, count[37] = { 0 }, orders = 0;

			for (unsigned mask = 0; mask < (1u << total); mask++) {
				unsigned u = 0, bs = 0;

				if ((unsigned)__builtin_popcount(mask) != m)
					continue;
				for (unsigned pos = 0; pos < total; pos++) {
					if (mask & (1u << pos))
						u += bs;	/* a here is above every b so far */
					else
						bs++;
				}
				count[u]++;
				orders++;
			}
			for (unsigned mask = 0; mask < (1u << total); mask++) {
				double a[6], b[6], want, got, ugot;
				unsigned ia = 0, ib = 0, bs = 0, u = 0, umin, below = 0;
				bool exact;
				char name[64];

				if ((unsigned)__builtin_popcount(mask) != m)
					continue;
				for (unsigned pos = 0; pos < total; pos++) {
					if (mask & (1u << pos)) {
						a[ia++] = pos * 1.5;
						u += bs;
					} else {
						b[ib++] = pos * 1.5;
						bs++;
					}
				}
				umin = u < m * n - u ? u : m * n - u;
				for (unsigned k = 0; k <= umin; k++)
					below += count[k];
				want = fmin(1, 2.0 * below / orders);
				got = sigtest_mwu(a, m, b, n, &ugot, &exact);
				snprintf(name, sizeof(name), "m=%u n=%u mask=%#x", m, n, mask);
				assert_true(exact);
				check_rel(ugot, u, 0, "u", name);
				check_rel(got, want, 1e-15, "p", name);
			}
		}
	}
}

static void test_mwu_asymptotic_scipy(void **state)
{
	/* scipy 1.10.1: stats.mannwhitneyu(a, b, alternative='two-sided',
	 * method='asymptotic').pvalue, .statistic; the first four have ties,
	 * the last two have a side over 50 */
	static const struct {
		struct sides s;
		double p, u;
	} cases[] = {
		{ { FIXED(m3a, m25t) }, 0.048901570992268079, 64.5 },
		{ { FIXED(f5a, f5b) }, 0.027802962434649296, 1.5 },
		{ { FIXED(ta, tb) }, 0.099278612116260087, 6 },
		{ { FIXED(z3, z4b) }, 0.043596644885541359, 0 },
		{ { GEN(g60a, g12b) }, 0.031305519553764503, 217 },
		{ { GEN(g2000a, g3000b) }, 4.2656118636689109e-65, 2148009 },
	};
	(void)state;

	for (size_t i = 0; i < N(cases); i++) {
		struct got_sides g = get_sides(&cases[i].s);
		double u = -1;
		bool exact = true;
		double p = sigtest_mwu(g.a, g.na, g.b, g.nb, &u, &exact);

		if (exact)
			fail_msg("%s: exact, want asymptotic", cases[i].s.name);
		check_rel(p, cases[i].p, REL_EXACT, "p", cases[i].s.name);
		check_rel(u, cases[i].u, 0, "u", cases[i].s.name);
		put_sides(&g);
	}
}

static void test_mwu_identical(void **state)
{
	static const double same[] = { 4, 4, 4, 4 }, one_a[] = { 1 }, one_b[] = { 2 };
	double u;
	bool exact;
	(void)state;

	/* identical sides are ties: asymptotic, U = mu, p = 1 */
	assert_true(sigtest_mwu(k3a, N(k3a), k3a, N(k3a), &u, &exact) == 1);
	assert_false(exact);
	assert_true(u == 4.5);
	/* every run equal: the variance is 0, p = 1 */
	assert_true(sigtest_mwu(same, 4, same, 3, &u, &exact) == 1);
	assert_false(exact);
	assert_true(u == 6);
	/* 1 vs 1 can never be significant */
	assert_true(sigtest_mwu(one_a, 1, one_b, 1, &u, &exact) == 1);
	assert_true(exact);
	assert_true(u == 0);
}

static void test_mwu_small_and_undefined(void **state)
{
	static const double one[] = { 10 }, five[] = { 1, 2, 3, 4, 5 };
	double u = 0;
	bool exact = true;
	(void)state;

	/* 1 vs 5, a above all: P(U = 5) = 1/6, two-sided 1/3 */
	check_rel(sigtest_mwu(one, 1, five, 5, &u, &exact), 1.0 / 3, 1e-15, "p", "1 vs 5");
	assert_true(exact);
	assert_true(u == 5);
	u = 0;
	exact = true;
	assert_true(isnan(sigtest_mwu(one, 1, NULL, 0, &u, &exact)));
	assert_true(isnan(u));
	assert_false(exact);
	assert_true(isnan(sigtest_mwu(NULL, 0, five, 5, NULL, NULL)));
}

/* ---- effect sizes ----------------------------------------------------- */

static void test_hedges_g(void **state)
{
	/* NumPy 1.24.2 / scipy.special.gammaln, the formula in the header comment */
	static const struct {
		struct sides s;
		double g;
	} cases[] = {
		{ { FIXED(k3a, k3b) }, 2.8458335261594105 },
		{ { FIXED(m3a, m25t) }, -0.54475269595645248 },
		{ { FIXED(f5a, f5b) }, 1.7872614161984177 },
		{ { FIXED(i8a, i7b) }, 0.25026216742472313 },
		{ { FIXED(z3, z4b) }, 2.8034173301802068 },
		{ { GEN(g2000a, g3000b) }, 0.54293241318960517 },
	};
	(void)state;

	for (size_t i = 0; i < N(cases); i++) {
		struct got_sides g = get_sides(&cases[i].s);

		check_rel(sigtest_hedges_g(g.a, g.na, g.b, g.nb), cases[i].g, REL_EXACT, "g",
			  cases[i].s.name);
		put_sides(&g);
	}
}

static void test_hedges_g_degenerate(void **state)
{
	static const double one[] = { 3 }, five3[] = { 5, 5, 5 }, six2[] = { 6, 6 };
	(void)state;

	assert_true(isnan(sigtest_hedges_g(one, 1, k3b, N(k3b))));
	assert_true(isnan(sigtest_hedges_g(k3a, N(k3a), one, 1)));
	assert_true(isnan(sigtest_hedges_g(NULL, 0, k3b, N(k3b))));
	assert_true(sigtest_hedges_g(five3, 3, five3, 2) == 0);
	assert_true(sigtest_hedges_g(five3, 3, six2, 2) == INFINITY);
	assert_true(sigtest_hedges_g(six2, 2, five3, 3) == -INFINITY);
	assert_true(sigtest_hedges_g(k3a, N(k3a), k3a, N(k3a)) == 0);
}

static void test_cliffs_delta(void **state)
{
	/* NumPy 1.24.2: np.sign(b[None,:] - a[:,None]).sum() / (na*nb) */
	static const struct {
		struct sides s;
		double d;
	} cases[] = {
		{ { FIXED(k3a, k3b) }, 1 },
		{ { FIXED(m3a, m25t) }, -0.71999999999999997 },
		{ { FIXED(f5a, f5b) }, 0.88 },
		{ { FIXED(ta, tb) }, 0.59999999999999998 },
		{ { FIXED(i8a, i7b) }, 0.32142857142857145 },
	};
	static const double one[] = { 50 };
	(void)state;

	for (size_t i = 0; i < N(cases); i++)
		check_rel(sigtest_cliffs_delta(cases[i].s.a, cases[i].s.na, cases[i].s.b, cases[i].s.nb),
			  cases[i].d, REL_EXACT, "delta", cases[i].s.name);
	assert_true(sigtest_cliffs_delta(k3b, N(k3b), k3a, N(k3a)) == -1);
	assert_true(sigtest_cliffs_delta(k3a, N(k3a), k3a, N(k3a)) == 0);
	/* one run of 50 vs m25t: 4 runs above (50.6, 52.7, 55.3, 60.2), 21 below */
	check_rel(sigtest_cliffs_delta(one, 1, m25t, N(m25t)), (4.0 - 21.0) / 25, REL_EXACT,
		  "delta", "50 vs m25t");
	assert_true(isnan(sigtest_cliffs_delta(one, 1, NULL, 0)));
	assert_true(isnan(sigtest_cliffs_delta(NULL, 0, one, 1)));
}

/* ---- inputs that are not numbers -------------------------------------- */

static void test_nonfinite(void **state)
{
	const double bad[] = { NAN, INFINITY, -INFINITY };
	(void)state;

	for (size_t k = 0; k < N(bad); k++) {
		double x[] = { 1.0, 2.0, 3.0 }, y[] = { 4.0, 5.0, 6.0, 7.0 };

		for (int side = 0; side < 2; side++) {
			double t = 0, df = 0, u = 0;
			bool exact = true;

			if (side)
				y[2] = bad[k];
			else
				x[1] = bad[k];
			assert_true(isnan(sigtest_welch(x, 3, y, 4, &t, &df)));
			assert_true(isnan(t) && isnan(df));
			assert_true(isnan(sigtest_mwu(x, 3, y, 4, &u, &exact)));
			assert_true(isnan(u));
			assert_false(exact);
			assert_true(isnan(sigtest_hedges_g(x, 3, y, 4)));
			assert_true(isnan(sigtest_cliffs_delta(x, 3, y, 4)));
		}
	}
}

/* ---- properties ------------------------------------------------------- */

static uint32_t lcg_state;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return lcg_state >> 8;
}

/* A skewed sample: a few slow outliers; coarse values make ties. */
static void random_sample(double *x, size_t n, bool coarse, double shift)
{
	for (size_t i = 0; i < n; i++) {
		double v = coarse ? (double)(lcg() % 8) : (double)(lcg() % 1000000) / 1000;

		if (lcg() % 10 == 0)
			v *= 3;
		x[i] = v + shift;
	}
}

/*
 * Swapping the sides keeps both p-values, negates t, g and delta and turns
 * U into na*nb - U; a side against itself is "no change" for every
 * function; p-values stay in [0,1].
 */
static void test_properties(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 7, 10, 25, 50, 51, 120 };
	(void)state;

	lcg_state = 12345;
	for (size_t i = 0; i < N(sizes); i++) {
		for (size_t j = 0; j < N(sizes); j++) {
			for (int coarse = 0; coarse < 2; coarse++) {
				size_t na = sizes[i], nb = sizes[j];
				double a[120], b[120], t1, t2, df1, df2, u1, u2, p1, p2;
				bool e1, e2;
				char name[64];

				snprintf(name, sizeof(name), "%zu vs %zu%s", na, nb, coarse ? " coarse" : "");
				random_sample(a, na, coarse, 0);
				random_sample(b, nb, coarse, (double)(lcg() % 3));

				p1 = sigtest_welch(a, na, b, nb, &t1, &df1);
				p2 = sigtest_welch(b, nb, a, na, &t2, &df2);
				if (na < 2 || nb < 2) {
					assert_true(isnan(p1) && isnan(p2));
				} else {
					assert_true(p1 >= 0 && p1 <= 1);
					check_rel(p2, p1, 1e-12, "welch p swapped", name);
					check_rel(t2, -t1, 1e-12, "welch t swapped", name);
					check_rel(df2, df1, 1e-12, "welch df swapped", name);
					check_rel(sigtest_hedges_g(b, nb, a, na), -sigtest_hedges_g(a, na, b, nb),
						  1e-12, "g swapped", name);
					assert_true(sigtest_welch(a, na, a, na, NULL, NULL) == 1);
					assert_true(sigtest_hedges_g(a, na, a, na) == 0);
				}

				p1 = sigtest_mwu(a, na, b, nb, &u1, &e1);
				p2 = sigtest_mwu(b, nb, a, na, &u2, &e2);
				assert_true(p1 >= 0 && p1 <= 1);
				check_rel(p2, p1, 1e-12, "mwu p swapped", name);
				check_rel(u2, (double)(na * nb) - u1, 0, "mwu u swapped", name);
				assert_true(e1 == e2);
				if (!coarse && na <= 50 && nb <= 50)
					assert_true(e1);	/* 1e6 distinct values: no ties */
				if (na > 50 || nb > 50)
					assert_false(e1);
				check_rel(sigtest_cliffs_delta(b, nb, a, na),
					  -sigtest_cliffs_delta(a, na, b, nb), 1e-12, "delta swapped", name);
				/* delta and U say the same thing */
				check_rel(sigtest_cliffs_delta(a, na, b, nb), 1 - 2 * u1 / (double)(na * nb),
					  1e-12, "delta vs u", name);

				assert_true(sigtest_mwu(a, na, a, na, &u1, NULL) == 1);
				assert_true(u1 == (double)(na * na) / 2);
				assert_true(sigtest_cliffs_delta(a, na, a, na) == 0);
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_welch_scipy),
		cmocka_unit_test(test_welch_identical),
		cmocka_unit_test(test_welch_zero_variance),
		cmocka_unit_test(test_welch_undefined),
		cmocka_unit_test(test_mwu_exact_scipy),
		cmocka_unit_test(test_mwu_exact_separated),
		cmocka_unit_test(test_mwu_exact_enumeration),
		cmocka_unit_test(test_mwu_asymptotic_scipy),
		cmocka_unit_test(test_mwu_identical),
		cmocka_unit_test(test_mwu_small_and_undefined),
		cmocka_unit_test(test_hedges_g),
		cmocka_unit_test(test_hedges_g_degenerate),
		cmocka_unit_test(test_cliffs_delta),
		cmocka_unit_test(test_nonfinite),
		cmocka_unit_test(test_properties),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

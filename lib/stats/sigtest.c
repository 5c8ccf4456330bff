/*
 * sigtest: Welch's t-test, the Mann-Whitney U test, Hedges' g and Cliff's
 * delta for comparing a metric's runs on two commits. See sigtest.h for the
 * rules; the numerical choices are explained next to the code.
 */
#include "sigtest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

/*
 * Mean and sample variance (n - 1). A side whose runs are all equal gets
 * exactly that value and variance 0: summing 0.1 three times and dividing
 * by 3 does not give 0.1 back, and a variance of 1e-35 instead of 0 would
 * turn "no change at all" into an infinitely significant one. The sum is
 * taken around x[0] for the same reason and to lose less to cancellation.
 */
static void moments(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0, m;
	bool constant = true;

	for (size_t i = 0; i < n; i++) {
		s += x[i] - x[0];
		if (x[i] != x[0])
			constant = false;
	}
	if (constant) {
		*mean = x[0];
		*var = 0;
		return;
	}
	m = x[0] + s / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - m;
		ss += d * d;
	}
	*mean = m;
	*var = n > 1 ? ss / (double)(n - 1) : 0;
}

/* glibc's lgamma() writes the global signgam; lgamma_r() is thread-safe. */
static double log_gamma(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}

/*
 * The continued fraction of the regularized incomplete beta function
 * (Abramowitz & Stegun 26.5.8),
 *
 *   I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * 1/(1+ d1/(1+ d2/(1+ ...)))
 *   d(2m+1) = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1))
 *   d(2m)   = m(b-m) x / ((a+2m-1)(a+2m))
 *
 * evaluated front to back with the modified Lentz method (Thompson and
 * Barnett 1986), which keeps the convergents' numerator and denominator
 * ratios instead of the convergents, so nothing overflows; a zero
 * denominator is nudged to TINY. It converges quickly for x < (a+1)/(a+b+2)
 * (the caller makes sure), in O(sqrt(max(a,b))) terms for large a or b.
 * Returns NAN if it does not settle (it should not happen).
 */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double f = tiny, c = tiny, d = 0;
	unsigned long max_terms = 1000 + 20 * (unsigned long)sqrt(fmax(a, b));

	for (unsigned long j = 1; j <= max_terms; j++) {
		double num, delta;

		if (j == 1) {
			num = 1;
		} else if (j % 2 == 0) {	/* d(2m+1), m = (j-2)/2 */
			double m = (double)((j - 2) / 2);
			num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		} else {			/* d(2m), m = (j-1)/2 */
			double m = (double)((j - 1) / 2);
			num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		}
		d = 1 + num * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		delta = c * d;
		f *= delta;
		if (j > 1 && fabs(delta - 1) < eps)
			return f;
	}
	return NAN;
}

/*
 * I_x(a,b) for a, b > 0, given x and y = 1 - x separately so that the
 * caller can compute whichever is small without cancellation.
 */
static double beta_reg(double a, double b, double x, double y)
{
	double front;

	if (x <= 0)
		return 0;
	if (y <= 0)
		return 1;
	front = exp(a * log(x) + b * log(y) +
		    log_gamma(a + b) - log_gamma(a) - log_gamma(b));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, y) / b;
}

/*
 * P(|T| >= |t|) for Student's t with df degrees of freedom (df real, > 0):
 * I_{df/(df+t^2)}(df/2, 1/2). Both df/(df+t^2) and t^2/(df+t^2) are formed
 * directly, so a small t (p near 1) and a large t (p near 0) both keep
 * their digits. lgamma's rounding limits this to ~1e-8 relative at df 1e6
 * and ~1e-7 at df 1e8 (checked against SciPy).
 */
static double t_two_sided(double t, double df)
{
	double t2 = t * t, p;

	if (!isfinite(t2))
		return 0;
	p = beta_reg(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
	return isnan(p) ? p : fmin(1, fmax(0, p));
}

double sigtest_t_p(double t, double df)
{
	if (!(df > 0) || isnan(t))
		return NAN;
	return t_two_sided(t, df);
}

/* Student's t density at t with df degrees of freedom. */
static double t_density(double t, double df)
{
	return exp(log_gamma((df + 1) / 2) - log_gamma(df / 2) - 0.5 * log(df * M_PI) - (df + 1) / 2 * log1p(t * t / df));
}

double sigtest_t_quantile(double p, double df)
{
	/* a few (p, df) at a time are asked for, over and over: remember the last ones */
	static _Thread_local struct {
		double p, df, t;
	} memo[16];
	static _Thread_local unsigned next;
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0) || !isfinite(df))
		return NAN;
	for (unsigned i = 0; i < sizeof(memo) / sizeof(memo[0]); i++)
		if (memo[i].p == p && memo[i].df == df)
			return memo[i].t;
	/* t_two_sided falls from 1 at t = 0 towards 0: a bracket [lo, hi] first (for Newton's sake) */
	while (df < 30 && t_two_sided(hi, df) > p && hi < 1e300) {
		lo = hi;
		hi *= 4;
	}
	/*
	 * Then Newton's method (the slope of the two-sided tail is twice the
	 * density), from the normal quantile (Abramowitz & Stegun 26.2.23)
	 * corrected for df (Cornish-Fisher), halving the bracket whenever a
	 * step would leave it: a few steps instead of some fifty halvings —
	 * compare asks for one per metric.
	 */
	double q = p / 2 < 0.5 ? p / 2 : 0.5, w = sqrt(-2 * log(q));
	double z = w - (2.515517 + 0.802853 * w + 0.010328 * w * w) / (1 + 1.432788 * w + 0.189269 * w * w + 0.001308 * w * w * w);
	/* z to full precision: Newton on the normal's upper tail (its slope is the density) */
	for (int k = 0; k < 3; k++)
		z += (0.5 * erfc(z / M_SQRT2) - q) / (exp(-z * z / 2) / sqrt(2 * M_PI));
	/* Abramowitz & Stegun 26.7.5: within 1e-6 (relative) from df 30 on; below, Newton finishes it */
	double z2 = z * z, z3 = z2 * z, z5 = z3 * z2, z7 = z5 * z2, z9 = z7 * z2;
	double t = z + (z3 + z) / 4 / df + (5 * z5 + 16 * z3 + 3 * z) / 96 / (df * df) +
		   (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384 / (df * df * df) +
		   (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160 / (df * df * df * df);
	if (df < 30 && !(t > lo && t < hi))
		t = lo + (hi - lo) / 2;
	for (int k = 0; k < 200 && df < 30; k++) {	/* from df 30 on, the expansion is within 1e-6 */
		double pt = t_two_sided(t, df);
		if (pt > p)
			lo = t;
		else
			hi = t;
		double nt = t + (pt - p) / (2 * t_density(t, df));
		if (!(nt > lo && nt < hi))
			nt = lo + (hi - lo) / 2;
		if (fabs(nt - t) <= 1e-13 * nt || hi - lo <= 1e-13 * hi) {
			t = nt;
			break;
		}
		t = nt;
	}
	memo[next % 16].p = p;
	memo[next % 16].df = df;
	memo[next % 16].t = t;
	next++;
	return t;
}

double sigtest_welch(const double *a, size_t na, const double *b, size_t nb,
		     double *t, double *df)
{
	double ma, va, mb, vb, wa, wb, s, ra, rb, tv, dfv, p;

	if (t)
		*t = NAN;
	if (df)
		*df = NAN;
	if (na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb))
		return NAN;
	moments(a, na, &ma, &va);
	moments(b, nb, &mb, &vb);
	wa = va / (double)na;
	wb = vb / (double)nb;
	s = wa + wb;
	/* s can also underflow to 0 with tiny but nonzero variances */
	if (s == 0) {
		if (ma == mb) {
			tv = 0;
			p = 1;
		} else {
			tv = copysign(INFINITY, ma - mb);
			p = 0;
		}
		if (t)
			*t = tv;
		return p;
	}
	tv = (ma - mb) / sqrt(s);
	/*
	 * Welch-Satterthwaite, s^2 / (wa^2/(na-1) + wb^2/(nb-1)), written with
	 * the shares wa/s and wb/s so that it cannot underflow to 0/0.
	 */
	ra = wa / s;
	rb = wb / s;
	dfv = 1 / (ra * ra / (double)(na - 1) + rb * rb / (double)(nb - 1));
	p = t_two_sided(tv, dfv);
	if (t)
		*t = tv;
	if (df)
		*df = dfv;
	return p;
}

static int cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;

	return (x > y) - (x < y);
}

/* What the rank-based functions need from the two sides. */
struct ranks {
	uint64_t gt;		/* pairs a_i > b_j */
	uint64_t eq;		/* pairs a_i == b_j */
	double tie_term;	/* sum of t^3 - t over groups of t equal values, a and b together */
	bool ties;		/* some value occurs twice, on either side */
};

/*
 * Sort copies of both sides and walk them together one distinct value at a
 * time: O((na+nb) log(na+nb)) rather than comparing every pair, so a
 * monitor's thousands of samples are no problem. The pair counts are at
 * most na*nb, which fits in 64 bits for any arrays that fit in memory.
 * Returns -1 when malloc fails or the sizes overflow.
 */
static int rank_pairs(const double *a, size_t na, const double *b, size_t nb,
		      struct ranks *r)
{
	double *sa, *sb;
	size_t i = 0, j = 0;

	memset(r, 0, sizeof(*r));
	if (na > SIZE_MAX / sizeof(double) || nb > SIZE_MAX / sizeof(double) - na)
		return -1;
	sa = malloc((na + nb) * sizeof(double));
	if (!sa)
		return -1;
	sb = sa + na;
	memcpy(sa, a, na * sizeof(double));
	memcpy(sb, b, nb * sizeof(double));
	qsort(sa, na, sizeof(double), cmp_double);
	qsort(sb, nb, sizeof(double), cmp_double);

	while (i < na || j < nb) {
		double v;
		uint64_t ca = 0, cb = 0, tg;

		if (j == nb || (i < na && sa[i] < sb[j]))
			v = sa[i];
		else
			v = sb[j];
		while (i + ca < na && sa[i + ca] == v)
			ca++;
		while (j + cb < nb && sb[j + cb] == v)
			cb++;
		/* the j values of b before this group are all below v */
		r->gt += ca * (uint64_t)j;
		r->eq += ca * cb;
		tg = ca + cb;
		if (tg > 1) {
			double td = (double)tg;
			r->tie_term += td * td * td - td;
			r->ties = true;
		}
		i += ca;
		j += cb;
	}
	free(sa);
	return 0;
}

/*
 * The exact two-sided p-value of U = umin (the smaller of U and na*nb - U)
 * without ties: 2 P(U <= umin) under the null hypothesis that all C(m+n, m)
 * orders of the pooled runs are equally likely.
 *
 * The number of orders with U = k is the coefficient of q^k in the Gaussian
 * binomial [m+n choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), so
 * the distribution is built one factor at a time in a single array:
 * multiplying by (1 - q^(n+i)) is c[k] -= c[k-n-i] (from the top down),
 * dividing by (1 - q^i) is c[k] += c[k-i] (from the bottom up). Only
 * k <= m*n/2 is needed (the distribution is symmetric and umin <= m*n/2),
 * and truncating a power series does not change its lower coefficients.
 *
 * The counts reach C(100, 50) ~ 1e29 for m = n = 50, beyond 64 bits but
 * within unsigned 128 bits. The intermediate products are not all
 * nonnegative, but unsigned arithmetic is exact modulo 2^128 and the final
 * coefficients are below 2^128, so the result is exact; doubles would lose
 * the small tail probabilities to cancellation. (unsigned __int128 is GCC's
 * and Clang's on every 64-bit target Debian builds lkprobot for.)
 */
static double mwu_exact_p(size_t m, size_t n, uint64_t umin)
{
	typedef unsigned __int128 u128;
	size_t kmax = m * n / 2;
	u128 *c, total = 1, tail = 0;
	double p;

	c = calloc(kmax + 1, sizeof(*c));
	if (!c)
		return NAN;
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		for (size_t k = kmax; k >= n + i; k--)
			c[k] -= c[k - n - i];
		for (size_t k = i; k <= kmax; k++)
			c[k] += c[k - i];
		total = total * (n + i) / i;	/* C(n+i, i), exact at every step */
	}
	for (size_t k = 0; k <= umin && k <= kmax; k++)
		tail += c[k];
	free(c);
	p = 2 * ((double)tail / (double)total);
	return fmin(1, p);
}

double sigtest_mwu(const double *a, size_t na, const double *b, size_t nb,
		   double *u, bool *exact)
{
	struct ranks r;
	double mn, n, ua, umax, var, z, p;
	bool use_exact;

	if (u)
		*u = NAN;
	if (exact)
		*exact = false;
	if (!na || !nb || !all_finite(a, na) || !all_finite(b, nb))
		return NAN;
	if (rank_pairs(a, na, b, nb, &r))
		return NAN;

	mn = (double)na * (double)nb;
	ua = (double)r.gt + (double)r.eq / 2;
	umax = fmax(ua, mn - ua);
	use_exact = !r.ties && na <= SIGTEST_MWU_EXACT_MAX && nb <= SIGTEST_MWU_EXACT_MAX;
	if (use_exact) {
		/* no ties: eq == 0 and U is the integer gt */
		uint64_t umin = r.gt < (uint64_t)na * nb - r.gt ? r.gt : (uint64_t)na * nb - r.gt;
		p = mwu_exact_p(na < nb ? na : nb, na < nb ? nb : na, umin);
	} else {
		/*
		 * SciPy 1.10's _get_mwu_z: the variance with the tie
		 * correction of Hollander & Wolfe, and 0.5 taken off U - mu
		 * since the p-value is the normal's upper tail at max(U).
		 * All runs equal makes the variance exactly 0 (the tie term is
		 * then n^3 - n, whose quotient n + 1 is exact), and U = mu.
		 */
		n = (double)na + (double)nb;
		var = mn / 12 * ((n + 1) - r.tie_term / (n * (n - 1)));
		if (var <= 0) {
			p = 1;
		} else {
			z = (umax - mn / 2 - 0.5) / sqrt(var);
			p = fmin(1, erfc(z / M_SQRT2));
		}
	}
	if (isnan(p))
		return p;
	if (u)
		*u = ua;
	if (exact)
		*exact = use_exact;
	return p;
}

/*
 * Hedges' J = Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)). For large df the
 * lgamma difference loses digits and 1 - 3/(4 df - 1) is then within
 * 1/(32 df^2) of it.
 */
static double hedges_j(double df)
{
	if (df > 1e6)
		return 1 - 3 / (4 * df - 1);
	return exp(log_gamma(df / 2) - log_gamma((df - 1) / 2)) / sqrt(df / 2);
}

double sigtest_hedges_g(const double *a, size_t na, const double *b, size_t nb)
{
	double ma, va, mb, vb, df, sp2;

	if (na < 2 || nb < 2 || !all_finite(a, na) || !all_finite(b, nb))
		return NAN;
	moments(a, na, &ma, &va);
	moments(b, nb, &mb, &vb);
	df = (double)na + (double)nb - 2;
	sp2 = ((double)(na - 1) * va + (double)(nb - 1) * vb) / df;
	if (sp2 == 0)
		return ma == mb ? 0 : copysign(INFINITY, mb - ma);
	return (mb - ma) / sqrt(sp2) * hedges_j(df);
}

double sigtest_cliffs_delta(const double *a, size_t na, const double *b, size_t nb)
{
	struct ranks r;
	uint64_t pairs, lt;

	if (!na || !nb || !all_finite(a, na) || !all_finite(b, nb))
		return NAN;
	if (rank_pairs(a, na, b, nb, &r))
		return NAN;
	pairs = (uint64_t)na * nb;
	lt = pairs - r.gt - r.eq;	/* pairs b_j > a_i */
	return ((double)lt - (double)r.gt) / (double)pairs;
}

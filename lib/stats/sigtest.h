/*
 * sigtest: did a benchmark metric change between two commits? Two-sample
 * significance tests (Welch's t, Mann-Whitney U) and effect sizes (Hedges'
 * g, Cliff's delta) for the few, skewed, sometimes tied runs of each side.
 *
 * Conventions shared by every function: a is the old side (base commit), b
 * the new one; a side is an array of n doubles and is not modified. Any
 * value that is NaN or +-infinity makes the result NAN (a broken run must
 * not look like a change or like no change). Finite values are expected to
 * be of sane magnitude (below ~1e150): sums of squares beyond DBL_MAX
 * overflow to infinity and the results become meaningless, though never UB.
 * p-values are two-sided and in [0,1]. Nothing is printed; the only memory
 * is temporary (sorted copies, the exact U distribution), and when malloc
 * fails the result is NAN.
 */
#ifndef LKP_SIGTEST_H
#define LKP_SIGTEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Two-sided Welch t-test of a vs b (scipy.stats.ttest_ind(a, b,
 * equal_var=False)). Returns the p-value in [0,1]; NAN when undefined
 * (either side has < 2 values, or a value is not finite). *t (mean_a -
 * mean_b over the standard error) and *df (Welch-Satterthwaite degrees of
 * freedom, real-valued) may be NULL; they get NAN when the p-value is NAN.
 * Both variances 0 (SciPy says NaN here): p = 1 and t = 0 when the means are
 * equal, else p = 0 and t = +-INFINITY; *df is NAN then (0/0).
 */
double sigtest_welch(const double *a, size_t na, const double *b, size_t nb,
		     double *t, double *df);

/*
 * Two-sided Mann-Whitney U test (scipy.stats.mannwhitneyu(a, b,
 * alternative='two-sided')). Exact p-value from the permutation distribution
 * of U when there are no ties and na, nb <= SIGTEST_MWU_EXACT_MAX; otherwise
 * the normal approximation with tie and continuity correction (SciPy's
 * method='asymptotic', use_continuity=True). *u gets U of a: the number of
 * pairs with a_i > b_j plus half the pairs with a_i == b_j (0.0 and -0.0
 * tie); *exact says which method was used. Both may be NULL. NAN (u NAN,
 * exact false) when either side is empty or a value is not finite.
 */
#define SIGTEST_MWU_EXACT_MAX 50
double sigtest_mwu(const double *a, size_t na, const double *b, size_t nb,
		   double *u, bool *exact);

/*
 * Hedges' g of b over a: (mean_b - mean_a) / pooled sd * J, the pooled sd
 * from both sample variances (n - 1 each) and J the exact small-sample
 * correction Gamma(df/2) / (sqrt(df/2) Gamma((df-1)/2)), df = na + nb - 2
 * (not the 1 - 3/(4 df - 1) approximation: with 3 runs a side they differ
 * by 0.3%). NAN when a side has < 2 values or a value is not finite. Pooled
 * sd 0: 0 when the means are equal, else +-INFINITY.
 */
double sigtest_hedges_g(const double *a, size_t na, const double *b, size_t nb);

/*
 * Cliff's delta of b over a: (#(b_j > a_i) - #(b_j < a_i)) / (na nb), in
 * [-1,1]; positive when b tends to be larger. NAN when a side is empty or a
 * value is not finite.
 */
double sigtest_cliffs_delta(const double *a, size_t na, const double *b, size_t nb);

/*
 * Student's t with df degrees of freedom (real, > 0): sigtest_t_p() is the
 * two-sided P(|T| >= |t|) (0 for an infinite t), sigtest_t_quantile() the
 * t > 0 with sigtest_t_p(t, df) = p, for 0 < p < 1 (scipy.stats.t.isf(p/2,
 * df)), found by bisection to 1e-12 relative. NAN for a df or p out of
 * range. The quantiles are remembered per thread (a comparison asks for the
 * same few again and again).
 */
double sigtest_t_p(double t, double df);
double sigtest_t_quantile(double p, double df);

#endif

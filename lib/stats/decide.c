/*
 * decide: the one decision, changed or not, with its interval. See
 * decide.h for the rules; the numerical choices are explained here.
 */
#include "decide.h"
#include "sigtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *decide_verdict_name(enum decide_verdict v)
{
	return v == DECIDE_CHANGED ? "changed" : v == DECIDE_SAME ? "no change" : "not sure";
}

void decide_format_percent(char *buf, size_t size, double pct)
{
	if (!isfinite(pct))
		snprintf(buf, size, "n/a");
	else if (fabs(pct) < 1000)
		snprintf(buf, size, "%+.1f%%", pct);
	else if (fabs(pct) < 1e9)
		snprintf(buf, size, "%+.0f%%", pct);
	else
		snprintf(buf, size, "%+.3g%%", pct);
}

/*
 * Mean and sample variance around x[0] (less lost to cancellation); a
 * constant side gets exactly its value and variance 0, so that "the same
 * value every time" is not a tiny, infinitely significant variance.
 */
static void moments(const double *x, size_t n, double *mean, double *var)
{
	double s = 0, ss = 0;
	bool constant = true;

	for (size_t i = 0; i < n; i++) {
		s += x[i] - x[0];
		constant &= x[i] == x[0];
	}
	if (constant) {
		*mean = x[0];
		*var = 0;
		return;
	}
	double m = x[0] + s / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	*mean = m;
	*var = n > 1 ? ss / (double)(n - 1) : 0;
}

struct tagged {
	uint64_t round;
	size_t i;
};

static int cmp_tagged(const void *pa, const void *pb)
{
	const struct tagged *a = pa, *b = pb;
	if (a->round != b->round)
		return a->round < b->round ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The side's samples with a round, by round (the first of a round only). */
static struct tagged *by_round(const struct decide_side *s, size_t *n)
{
	struct tagged *t = malloc((s->n ? s->n : 1) * sizeof(*t));
	size_t k = 0, m = 0;

	*n = 0;
	if (!t)
		return NULL;
	for (size_t i = 0; s->round && i < s->n; i++)
		if (s->round[i])
			t[k++] = (struct tagged){ s->round[i], i };
	qsort(t, k, sizeof(*t), cmp_tagged);
	for (size_t i = 0; i < k; i++)
		if (!m || t[m - 1].round != t[i].round)
			t[m++] = t[i];
	*n = m;
	return t;
}

static void floor_text(char *buf, size_t size, double floor_pct)
{
	snprintf(buf, size, "the %g%% floor", floor_pct);
}

/* Nothing decided yet: not sure, no figures. */
static void decision_init(struct decision *d, const struct decide_side *a, const struct decide_side *b,
			  const struct decide_metric *m)
{
	memset(d, 0, sizeof(*d));
	d->verdict = DECIDE_UNSURE;
	d->change = d->lo = d->hi = d->est = d->se = d->df = NAN;
	d->floor = m && m->floor > 0 ? 100 * m->floor : 0;
	d->na = a->n;
	d->nb = b->n;
}

/* What the samples of both sides are, all of them: finite, positive, one value; the largest finite magnitude. */
struct shape {
	bool positive, finite, same;
	double scale;
};

static struct shape sides_shape(const struct decide_side *a, const struct decide_side *b)
{
	struct shape sh = { true, true, true, 0 };

	for (int s = 0; s < 2; s++) {
		const struct decide_side *x = s ? b : a;
		for (size_t i = 0; i < x->n; i++) {
			sh.finite &= isfinite(x->v[i]) != 0;
			sh.positive &= x->v[i] > 0;
			sh.same &= x->v[i] == a->v[0];
			if (isfinite(x->v[i]) && fabs(x->v[i]) > sh.scale)
				sh.scale = fabs(x->v[i]);
		}
	}
	return sh;
}

/* Settled by the samples' shape alone (a NaN, or one value everywhere): true, d says how. */
static bool decided_by_shape(struct decision *d, const struct shape *sh)
{
	if (!sh->finite) {
		d->settled = true;
		snprintf(d->why, sizeof(d->why), "a sample is NaN or infinite: nothing to decide on");
		return true;
	}
	if (sh->same) {
		/* every run of both sides gave one value (0 included): nothing moved */
		d->verdict = DECIDE_SAME;
		d->settled = d->constant = true;
		d->change = d->lo = d->hi = 0;
		d->est = d->se = 0;
		d->log_scale = sh->positive;
		snprintf(d->why, sizeof(d->why), "every run of both sides gave the same value: no change");
		return true;
	}
	return false;
}

/* The rounds both sides ran in: u[] gets b's value less a's in each, *np how many. -1: out of memory. */
static int pair_rounds(const struct decide_side *a, const struct decide_side *b, const double *xa,
		       const double *xb, double *u, size_t *np)
{
	struct tagged *ta = NULL, *tb = NULL;
	size_t nta = 0, ntb = 0;
	int ret = 0;

	*np = 0;
	if (a->round && b->round) {
		ta = by_round(a, &nta);
		tb = by_round(b, &ntb);
		if (!ta || !tb) {
			ret = -1;
			goto out;
		}
	}
	for (size_t i = 0, j = 0; i < nta && j < ntb;) {
		if (ta[i].round < tb[j].round)
			i++;
		else if (ta[i].round > tb[j].round)
			j++;
		else
			u[(*np)++] = xb[tb[j++].i] - xa[ta[i++].i];
	}
out:
	free(ta);
	free(tb);
	return ret;
}

/* The estimate from the rounds' differences: their mean, its standard error and degrees of freedom. */
static void estimate_paired(struct decision *d, const double *u, size_t np, char *what, size_t size)
{
	double var;

	d->pairs = np;
	moments(u, np, &d->est, &var);
	d->se = sqrt(var / (double)np);
	d->df = (double)np - 1;
	snprintf(what, size, "%zu rounds paired", np);
}

/* The estimate from two independent sides (Welch); -1 with d->why when a side has fewer than 2 runs. */
static int estimate_welch(struct decision *d, const struct decide_side *a, const struct decide_side *b,
			  const double *xb, double ma, double va, char *what, size_t size)
{
	double mb, vb;

	if (a->n < 2 || b->n < 2) {
		snprintf(d->why, sizeof(d->why), "too few runs to tell (%zu and %zu; at least 2 a side, or paired rounds)",
			 a->n, b->n);
		return -1;
	}
	moments(xb, b->n, &mb, &vb);
	double wa = va / (double)a->n, wb = vb / (double)b->n, s = wa + wb;
	d->est = mb - ma;
	d->se = sqrt(s);
	if (s > 0) {
		/* Welch-Satterthwaite through the shares, which cannot underflow to 0/0 */
		double ra = wa / s, rb = wb / s;
		d->df = 1 / (ra * ra / (double)(a->n - 1) + rb * rb / (double)(b->n - 1));
	}
	snprintf(what, size, "%zu and %zu runs", a->n, b->n);
	return 0;
}

/* The change and its interval in percent, and the floor on the estimate's scale. */
static void interval(struct decision *d, bool positive, double ma)
{
	double lo = d->est, hi = d->est;

	if (d->se > 0 && d->df > 0) {
		double t = sigtest_t_quantile(DECIDE_ALPHA, d->df);
		lo = d->est - t * d->se;
		hi = d->est + t * d->se;
	} else {
		d->constant = true;
		d->se = 0;
	}
	/* percent: a ratio's change (capped where exp would overflow), or against the base's mean */
	if (positive) {
		d->change = 100 * expm1(fmin(d->est, 690));
		d->lo = 100 * expm1(fmin(lo, 690));
		d->hi = 100 * expm1(fmin(hi, 690));
		d->floor_at = log1p(d->floor / 100);
	} else {
		d->change = 100 * d->est / ma;
		d->lo = 100 * lo / ma;
		d->hi = 100 * hi / ma;
		d->floor_at = d->floor / 100 * ma;
	}
}

/* The verdict from the interval and the floor; few_runs: fewer than 3 runs a side (or pairs). */
static void verdict(struct decision *d, const struct decide_metric *m, bool few_runs)
{
	/*
	 * No variance at all is taken at its word only from 3 runs a side (or
	 * 3 pairs) on: two alike values of a metric with a coarse resolution
	 * (an elapsed time in hundredths of a second) are often chance.
	 */
	bool few = d->constant && few_runs;
	if (few) {
		/* not beyond, nor within: more runs will tell */
	} else if (d->lo > d->floor || d->hi < -d->floor) {
		d->verdict = DECIDE_CHANGED;
		d->sign = d->change > 0 ? +1 : -1;
		d->kind = m && m->direction ? (d->sign == m->direction ? +1 : -1) : 0;
	} else if (d->lo >= -d->floor && d->hi <= d->floor) {
		d->verdict = DECIDE_SAME;
	}
	if (few)
		d->se = NAN;	/* for decide_rounds: nothing to project from */
}

/* d->summary and d->why: the change, its interval, on what it stands, and where it is against the floor. */
static void explain(struct decision *d, const char *what, bool paired)
{
	char fl[32], c[24], l[24], h[24];

	floor_text(fl, sizeof(fl), d->floor);
	decide_format_percent(c, sizeof(c), d->change);
	decide_format_percent(l, sizeof(l), d->lo);
	decide_format_percent(h, sizeof(h), d->hi);
	const char *tail = d->verdict == DECIDE_CHANGED ? "beyond" : d->verdict == DECIDE_SAME ? "within" : NULL;
	if (d->constant)
		snprintf(d->summary, sizeof(d->summary), "%s with no variance (%s, each %s)", c, what,
			 paired ? "pair the same difference" : "side's runs all alike");
	else
		snprintf(d->summary, sizeof(d->summary), "%s (%s interval %s to %s, %s)", c, DECIDE_LEVEL, l, h, what);
	if (tail)
		snprintf(d->why, sizeof(d->why), "%s, %s %s", d->summary, tail, fl);
	else
		snprintf(d->why, sizeof(d->why), "%s: not beyond %s, nor within it", d->summary, fl);
}

static void decide_worded(const struct decide_side *a, const struct decide_side *b, const struct decide_metric *m,
			  struct decision *d, bool terse)
{
	double *xa, *xb, *u, ma, va;
	char what[56];
	size_t np;

	decision_init(d, a, b, m);
	if (!a->n || !b->n) {
		snprintf(d->why, sizeof(d->why), "no runs on the %s side", a->n ? "new" : "base");
		return;
	}
	struct shape sh = sides_shape(a, b);
	if (decided_by_shape(d, &sh))
		return;
	/* logarithms for positive metrics; else values over the largest one, so 1e308 cannot overflow */
	d->log_scale = sh.positive;
	/* one block: a's values, b's, the rounds' differences (a compare decides thousands of metrics) */
	xa = malloc((a->n + b->n + (a->n < b->n ? a->n : b->n) + 1) * sizeof(double));
	if (!xa) {
		snprintf(d->why, sizeof(d->why), "out of memory");
		return;
	}
	xb = xa + a->n;
	u = xb + b->n;
	for (size_t i = 0; i < a->n; i++)
		xa[i] = sh.positive ? log(a->v[i]) : a->v[i] / sh.scale;
	for (size_t i = 0; i < b->n; i++)
		xb[i] = sh.positive ? log(b->v[i]) : b->v[i] / sh.scale;
	moments(xa, a->n, &ma, &va);
	/* the relative scale of a change that is not a ratio: the base's mean */
	if (!sh.positive && !(ma > 0)) {
		d->settled = true;
		snprintf(d->why, sizeof(d->why), "the base's mean is %s: no relative change to decide on",
			 ma == 0 ? "0" : "negative");
		goto out;
	}
	if (pair_rounds(a, b, xa, xb, u, &np)) {
		snprintf(d->why, sizeof(d->why), "out of memory");
		goto out;
	}
	bool paired = np >= 3 || (np == 2 && a->n == 2 && b->n == 2);
	if (paired)
		estimate_paired(d, u, np, what, sizeof(what));
	else if (estimate_welch(d, a, b, xb, ma, va, what, sizeof(what)))
		goto out;
	interval(d, sh.positive, ma);
	verdict(d, m, paired ? np < 3 : a->n < 3 || b->n < 3);
	if (!terse)
		explain(d, what, paired);
out:
	free(xa);
}

void decide(const struct decide_side *a, const struct decide_side *b, const struct decide_metric *m, struct decision *d)
{
	decide_worded(a, b, m, d, false);
}

void decide_terse(const struct decide_side *a, const struct decide_side *b, const struct decide_metric *m,
		  struct decision *d)
{
	decide_worded(a, b, m, d, true);
}

double decide_p(const struct decision *d)
{
	return d->se > 0 && d->df > 0 ? sigtest_t_p(d->est / d->se, d->df) : NAN;
}

size_t decide_rounds(const struct decision *d, size_t have, size_t cap, bool *futile)
{
	if (futile)
		*futile = false;
	if (d->verdict != DECIDE_UNSURE || d->settled)
		return have;
	/*
	 * Out of reach: at the cap the interval would still be about
	 * t * se * sqrt(have / cap) wide on each side, so a change beyond the
	 * floor could only show if the truth were that far past the floor —
	 * and the estimate plus two standard errors does not get there. Said,
	 * never a reason to stop: a wide interval rules nothing out (a head
	 * is "no change" only when its interval lies within the floor), so
	 * the rounds go on to the cap and what is left there is "not sure".
	 */
	if (futile && isfinite(d->se) && d->se > 0 && have > 1 && cap > 1) {
		double n = have < cap ? (double)cap : (double)have;
		double w = sigtest_t_quantile(DECIDE_ALPHA, n - 1) * d->se * sqrt((double)have / n);
		*futile = fabs(d->est) + 2 * d->se < d->floor_at + w;
	}
	if (have >= cap)
		return have;
	size_t next = (size_t)ceil((double)have * 1.6);
	if (next < have + 2)
		next = have + 2;
	return next > cap ? cap : next;
}

/*
 * compare_render: the tables of a comparison — lkp-tests' ncompare and
 * classic layouts, one metric's field, and JSON — from a compare_result.
 * See compare.c.
 */
#include "compare_int.h"
#include "../util/json.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ABS_WIDTH 10
#define REL_WIDTH 10
#define ERR_WIDTH 6

/* ---- ncompare ---- */

/*
 * A figure printed as an integer: truncated as Ruby's %d, and kept within
 * the type (a hostile matrix's 1e300 or NaN converted as is would be
 * undefined behaviour).
 */
static long long as_ll(double v)
{
	if (!(v > -9.2e18))
		return isnan(v) ? 0 : LLONG_MIN;
	return v < 9.2e18 ? (long long)v : LLONG_MAX;
}

static int as_int(double v)
{
	if (!(v > -2e9))
		return isnan(v) ? 0 : INT_MIN;
	return v < 2e9 ? (int)v : INT_MAX;
}

void compare_format_value(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addf(out, "%*s", ABS_WIDTH, "n/a");
	else if (fabs(v) < 1000)
		strbuf_addf(out, "%*.2f", ABS_WIDTH, v);
	else if (fabs(v) > 1e8)
		strbuf_addf(out, "%*.4g", ABS_WIDTH, v);
	else
		strbuf_addf(out, "%*lld", ABS_WIDTH, as_ll(v));	/* Ruby's %d truncates */
}

void compare_format_number(struct strbuf *out, double v)
{
	if (!isfinite(v))
		strbuf_addstr(out, "n/a");
	else if (fabs(v) < 1000)
		strbuf_addf(out, "%.2f", v);
	else if (fabs(v) > 1e8)
		strbuf_addf(out, "%.4g", v);
	else
		strbuf_addf(out, "%lld", as_ll(v));
}

void compare_format_change(struct strbuf *out, double p, bool absolute)
{
	if (!isfinite(p)) {
		strbuf_addf(out, "%*s%s", REL_WIDTH, "n/a", absolute ? "  " : "  ");
		return;
	}
	const char *fmt = fabs(p) < 100000 ? (absolute ? "%+*.1f  " : "%+*.1f%% ")
					   : (absolute ? "%+*.2g  " : "%+*.2g%% ");
	strbuf_addf(out, fmt, REL_WIDTH, p);
}

static void ncompare_stddev(struct strbuf *out, const struct compare_side *s)
{
	double sd = s->n > 1 ? s->stddev : -1;

	if (s->n > 1 && s->mean != 0) {
		sd = 100 * s->stddev / s->mean;	/* lkp-tests' order; the ratio first where 100 * 1e307 overflows */
		if (!isfinite(sd))
			sd = 100 * (s->stddev / s->mean);
	}
	if (sd > 2)
		strbuf_addf(out, " \xc2\xb1%*d%%", ERR_WIDTH - 3, as_int(sd));
	else
		strbuf_addf(out, "%*s", ERR_WIDTH, "");
}

/* A number of the --stats note: NaN and infinities said in words, never printed. */
static void note_num(struct strbuf *out, const char *fmt, double v, const char *otherwise)
{
	if (isfinite(v))
		strbuf_addf(out, fmt, v);
	else
		strbuf_addstr(out, otherwise);
}

/* --stats: the decision, then the tests beside it (p-values, Hedges' g), n. */
static void stats_note(struct strbuf *out, const struct compare_row *r, size_t last)
{
	const struct decision *d = &r->decision;

	strbuf_addf(out, "  (%s: %s; MWU%s p ", decide_verdict_name(d->verdict), d->why, r->mwu_exact ? " exact" : "");
	note_num(out, "%.2g", r->p_mwu, "n/a");
	/* Welch's p and Hedges' g need a variance: without one (g infinite) they say nothing */
	bool variance = isfinite(r->hedges_g);
	strbuf_addstr(out, ", Welch p ");
	note_num(out, "%.2g", variance ? r->p_welch : NAN, isinf(r->hedges_g) ? "n/a (no variance)" : "n/a");
	strbuf_addstr(out, ", g ");
	note_num(out, "%+.2f", r->hedges_g, isinf(r->hedges_g) ? "n/a (no variance)" : "n/a");
	strbuf_addf(out, ", n %zu:%zu)", r->side[0].n, r->side[last].n);
}

static bool shown(const struct compare_row *r, bool all)
{
	return r->changed || (all && r->side[0].present);
}

void compare_render_ncompare(struct strbuf *out, const struct compare_result *res, const char *axes_keys,
			     const char *axes_values, bool stats)
{
	size_t nh = res->nsides - 1, first = ABS_WIDTH + ERR_WIDTH, width = first + REL_WIDTH + 1;
	size_t nfail = 0, nperf = 0;

	strbuf_addstr(out, "=========================================================================================\n");
	if (axes_keys && *axes_keys)
		strbuf_addf(out, "%s:\n  %s\n\n", axes_keys, axes_values ? axes_values : "");
	strbuf_addstr(out, "commit: \n");
	for (size_t s = 0; s < res->nsides; s++)
		strbuf_addf(out, "  %s\n", res->labels[s]);
	strbuf_addch(out, '\n');
	strbuf_addf(out, "%*.*s ", (int)first, (int)first, res->labels[0]);
	for (size_t s = 1; s < res->nsides; s++)
		strbuf_addf(out, "%*.*s ", (int)width, (int)width, res->labels[s]);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < first; i++)
		strbuf_addch(out, '-');
	strbuf_addch(out, ' ');
	for (size_t s = 1; s < res->nsides; s++) {
		for (size_t i = 0; i < width; i++)
			strbuf_addch(out, '-');
		strbuf_addch(out, ' ');
	}
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < res->nrows; i++) {
		if (!shown(&res->rows[i], res->all))
			continue;
		if (res->rows[i].kind == COMPARE_FAILURE)
			nfail++;
		else
			nperf++;
	}
	if (nfail) {
		strbuf_addstr(out, "       fail:runs");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "  %reproduction    fail:runs");
		strbuf_addstr(out, "\n           |    ");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "         |             |    ");
		strbuf_addch(out, '\n');
		for (size_t i = 0; i < res->nrows; i++) {
			const struct compare_row *r = &res->rows[i];
			if (!shown(r, res->all) || r->kind != COMPARE_FAILURE)
				continue;
			for (size_t s = 0; s < res->nsides; s++) {
				if (s)
					strbuf_addf(out, "%*.0f%% ", REL_WIDTH, r->change[s]);
				if (r->side[s].fails)
					strbuf_addf(out, "%*zu", ABS_WIDTH + 1, r->side[s].fails);
				else
					strbuf_addf(out, "%*s", ABS_WIDTH + 1, "");
				strbuf_addf(out, ":%-*zu", ERR_WIDTH - 2, r->side[s].n);
			}
			strbuf_addstr(out, "  "), strbuf_add_name(out, r->metric), strbuf_addch(out, '\n');
		}
	}
	if (nperf) {
		strbuf_addstr(out, "         %stddev");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "     %change         %stddev");
		strbuf_addstr(out, "\n             \\  ");
		for (size_t s = 0; s < nh; s++)
			strbuf_addstr(out, "        |                \\  ");
		strbuf_addch(out, '\n');
		for (size_t i = 0; i < res->nrows; i++) {
			const struct compare_row *r = &res->rows[i];
			if (!shown(r, res->all) || r->kind != COMPARE_PERF)
				continue;
			for (size_t s = 0; s < res->nsides; s++) {
				if (s)
					compare_format_change(out, r->change[s], r->absolute);
				compare_format_value(out, r->side[s].mean);
				ncompare_stddev(out, &r->side[s]);
			}
			strbuf_addstr(out, "  "), strbuf_add_name(out, r->metric); /* one row, whatever the name */
			if (stats)
				stats_note(out, r, res->nsides - 1);
			strbuf_addch(out, '\n');
		}
	}
	strbuf_addch(out, '\n');
}

/* ---- the classic layout (sbin/compare) ---- */

struct classic_fmt {
	bool is_float, is_exp;
};

static void classic_scan(struct classic_fmt *f, const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		/* a float sample: one with a fraction (matrices do not keep "2.0") */
		if (v[i] != 0 && fabs(v[i]) < 100 && v[i] != trunc(v[i]))
			f->is_float = true;
		if (fabs(v[i]) >= 1e8)
			f->is_exp = true;
	}
}

static void classic_value(struct strbuf *out, const struct classic_fmt *f, double v, bool fail)
{
	if (fail) {
		if (v == 0)
			strbuf_addf(out, "%*s", ABS_WIDTH + 1, " ");
		else
			strbuf_addf(out, "%*lld", ABS_WIDTH + 1, as_ll(v));
	} else if (f->is_exp) {
		if (!f->is_float && fabs(v) < 1e8)
			strbuf_addf(out, "%*lld", ABS_WIDTH, as_ll(v));
		else
			strbuf_addf(out, "%*.4g", ABS_WIDTH, v);
	} else if (f->is_float) {
		strbuf_addf(out, "%*.2f", ABS_WIDTH, v);
	} else {
		strbuf_addf(out, "%*lld", ABS_WIDTH, as_ll(v));
	}
}

/*
 * One column of a classic row: the change against the base (not for the
 * base), the value and its stddev. stddev < 0: none (one run).
 */
static void classic_cell(struct strbuf *out, const char *metric, bool first, double v0, double v, double stddev,
			 const struct classic_fmt *f, bool fail, size_t runs, double fail_p)
{
	if (!first) {
		double p = fail ? fail_p : v0 != 0 ? 100.0 * (v / v0 - 1) : 0;
		if (!isfinite(p))
			strbuf_addf(out, "%*s ", REL_WIDTH - 1, "n/a");
		else if (fail)
			strbuf_addf(out, "%*.0f%% ", REL_WIDTH - 2, p);
		else if (has_prefix(metric, "perf-profile") || has_prefix(metric, "latency_stats"))
			strbuf_addf(out, "%*.0g ", REL_WIDTH - 1, v - v0);
		else if (fabs(p) < 3)
			strbuf_addf(out, "%*s", REL_WIDTH, "");
		else if (fabs(p) < 100000)
			strbuf_addf(out, "%*.0f%% ", REL_WIDTH - 2, p);
		else
			strbuf_addf(out, "%*.0g%% ", REL_WIDTH - 2, p);
	}
	classic_value(out, f, v, fail);
	if (fail) {
		strbuf_addf(out, ":%-*zu", ERR_WIDTH - 2, runs);
	} else if (stddev >= 0) {
		double pct = v != 0 ? 100 * (stddev / v) : stddev;
		if (pct > 3)
			strbuf_addf(out, " \xc2\xb1%*d%%", ERR_WIDTH - 3, as_int(pct));
		else
			strbuf_addf(out, "%*s", ERR_WIDTH, "");
	} else {
		strbuf_addf(out, "%*s", ERR_WIDTH, "");
	}
	strbuf_addstr(out, "  ");
}

static void classic_head(struct strbuf *out, const char *base_label, const char *new_label, const char *tail)
{
	const int w0 = ABS_WIDTH + ERR_WIDTH, w1 = REL_WIDTH + ABS_WIDTH + ERR_WIDTH;

	strbuf_addf(out, "%*.*s  %*.*s  %s\n", w0, w0, base_label, w1, w1, new_label, tail);
	strbuf_addf(out, "%.*s  %.*s  %s\n", w0, "--------------------------", w1,
		    "--------------------------", *tail ? "---------------------------" : "");
}

/* The head of a block of rows: failure stats (fail:runs, as lkp-tests' mails) or measurements. */
static void classic_block_head(struct strbuf *out, bool fail)
{
	if (fail) {
		strbuf_addstr(out, "       fail:runs  %reproduction    fail:runs\n");
		strbuf_addstr(out, "           |             |             |    \n");
	} else {
		strbuf_addstr(out, "         %stddev      change         %stddev\n");
		strbuf_addstr(out, "             \\          |                \\  \n");
	}
}

/* sbin/compare hides a row when a side's stddev is over half its mean, or a mean is negative */
static bool noisy(const struct compare_side *s)
{
	return s->n > 1 && (s->stddev > fabs(s->mean) / 2 || s->mean < 0);
}

void compare_render_classic(struct strbuf *out, const struct compare_result *res, const char *test_desc)
{
	compare_render_classic_lead(out, res, test_desc, NULL, NULL);
}

/* The lead row's change column: the decision's estimate, as every other place writes it. */
static void lead_change(struct strbuf *out, const struct decision *d)
{
	struct strbuf c = STRBUF_INIT;

	compare_format_decision(&c, d);
	strbuf_addf(out, "%*s ", REL_WIDTH - 1, c.buf);
	strbuf_release(&c);
}

void compare_render_classic_lead(struct strbuf *out, const struct compare_result *res, const char *test_desc,
				 const struct compare_row *lead, const char *mark)
{
	if (test_desc)
		strbuf_addf(out, "testcase/path_params/tbox_group/run: %s\n\n", test_desc);
	classic_head(out, res->labels[0], res->labels[res->nsides - 1], "");
	int block = -1;	/* the kind of the rows above: a new kind gets its head */
	for (size_t i = 0; i < res->nrows; i++) {
		const struct compare_row *r = &res->rows[i];
		const struct compare_side *b = &r->side[0], *a = &r->side[res->nsides - 1];
		bool fail = r->kind == COMPARE_FAILURE, led = r == lead;
		struct classic_fmt f = { 0 };
		if (!r->changed && !led)
			continue;
		if (block != (int)fail)
			classic_block_head(out, fail);
		block = fail;
		classic_scan(&f, b->v, b->n);
		classic_scan(&f, a->v, a->n);
		classic_cell(out, r->metric, true, 0, fail ? (double)b->fails : b->mean, b->n > 1 ? b->stddev : -1, &f,
			     fail, b->n, 0);
		if (led)
			lead_change(out, &r->decision);
		classic_cell(out, r->metric, led, b->mean, fail ? (double)a->fails : a->mean, a->n > 1 ? a->stddev : -1,
			     &f, fail, a->n, r->change[res->nsides - 1]);
		strbuf_add_name(out, r->metric);
		strbuf_addf(out, "%s%s\n", led && mark ? "  " : "", led && mark ? mark : "");
	}
	if (block < 0)
		classic_block_head(out, false);
}

void compare_render_field(struct strbuf *out, const char *base_label, const char *new_label, const char *metric,
			  const struct compare_field_row *rows, size_t nrows, bool show_noise)
{
	struct classic_fmt f = { 0 };
	double lsum0 = 0, lsum1 = 0;
	size_t shown_rows = 0;
	/* [2i] the base, [2i + 1] the new side of row i */
	struct compare_side *sd = xcalloc(2 * nrows + 1, sizeof(*sd));
	bool *keep = xcalloc(nrows ? nrows : 1, sizeof(*keep));

	for (size_t i = 0; i < nrows; i++) {
		struct compare_side *b = &sd[2 * i], *a = &sd[2 * i + 1];
		*b = (struct compare_side){ .n = rows[i].nbase, .v = rows[i].base };
		*a = (struct compare_side){ .n = rows[i].nnew, .v = rows[i].new_ };
		compare_moments(b);
		compare_moments(a);
		keep[i] = b->n && a->n && (show_noise || (!noisy(b) && !noisy(a)));
		if (!keep[i])
			continue;
		classic_scan(&f, b->v, b->n);
		classic_scan(&f, a->v, a->n);
		shown_rows++;
	}
	classic_head(out, base_label, new_label, "testcase/testparams/testbox");
	classic_block_head(out, false);
	for (size_t i = 0; i < nrows; i++) {
		const struct compare_side *b = &sd[2 * i], *a = &sd[2 * i + 1];
		if (!keep[i])
			continue;
		classic_cell(out, metric, true, b->mean, b->mean, b->n > 1 ? b->stddev : -1, &f, false, 0, 0);
		classic_cell(out, metric, false, b->mean, a->mean, a->n > 1 ? a->stddev : -1, &f, false, 0, 0);
		strbuf_addf(out, "%s\n", rows[i].test_desc);
		if (b->mean > 0)
			lsum0 += log(b->mean);
		if (a->mean > 0)
			lsum1 += log(a->mean);
	}
	if (shown_rows) {
		double g0 = exp(lsum0 / (double)shown_rows), g1 = exp(lsum1 / (double)shown_rows);
		classic_cell(out, metric, true, g0, g0, -1, &f, false, 0, 0);
		classic_cell(out, metric, false, g0, g1, -1, &f, false, 0, 0);
		strbuf_addstr(out, "GEO-MEAN "), strbuf_add_name(out, metric), strbuf_addch(out, '\n');
	}
	free(keep);
	free(sd);
}

/* ---- JSON ---- */

static void json_num(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%.17g", v);
	else
		strbuf_addstr(out, "null");
}

/* A percentage of a decision: 6 digits say it (and %.17g of 2,000 rows is a tenth of a compare's time). */
void compare_format_decision(struct strbuf *out, const struct decision *d)
{
	double c = d->change;

	if (!isfinite(c))
		strbuf_addstr(out, "n/a");
	else if (fabs(c) < 1000)
		strbuf_addf(out, "%.1f%%", c);
	else if (fabs(c) < 1e9)
		strbuf_addf(out, "%.0f%%", c);
	else
		strbuf_addf(out, "%.3g%%", c);
}

const char *compare_kind_word(const struct compare_row *r)
{
	return r->verdict > 0 ? "improvement" : r->verdict < 0 ? "regression" : "change";
}

void compare_render_headline(struct strbuf *out, const struct compare_result *res)
{
	const struct compare_row *h = compare_headline(res, true);

	if (!h) {
		strbuf_addstr(out, "headline: none (lkprobot's decision: no metric with a direction changed)\n");
		return;
	}
	strbuf_addf(out, "headline: %s ", h->metric);
	compare_format_decision(out, &h->decision);
	strbuf_addf(out, " %s (%s)\n", compare_kind_word(h), h->decision.summary);
}

static void json_pct(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%.6g", v);
	else
		strbuf_addstr(out, "null");
}

void compare_decision_json(struct strbuf *out, const struct decision *d)
{
	strbuf_addf(out, "{\"verdict\": \"%s\", \"change\": ",
		    d->verdict == DECIDE_CHANGED ? "changed" : d->verdict == DECIDE_SAME ? "same" : "unsure");
	json_pct(out, d->change);
	strbuf_addstr(out, ", \"low\": ");
	json_pct(out, d->lo);
	strbuf_addstr(out, ", \"high\": ");
	json_pct(out, d->hi);
	strbuf_addstr(out, ", \"floor\": ");
	json_pct(out, d->floor);
	strbuf_addf(out, ", \"pairs\": %zu, \"kind\": ", d->pairs);
	if (d->kind)
		strbuf_addstr(out, d->kind > 0 ? "\"improvement\"" : "\"regression\"");
	else
		strbuf_addstr(out, "null");
	strbuf_addstr(out, ", \"why\": ");
	json_emit_string(out, d->why);
	strbuf_addstr(out, "}");
}

void compare_render_json(struct strbuf *out, const struct compare_result *res)
{
	strbuf_addstr(out, "{\n  \"sides\": [");
	for (size_t s = 0; s < res->nsides; s++) {
		if (s)
			strbuf_addstr(out, ", ");
		json_emit_string(out, res->labels[s]);
	}
	strbuf_addf(out, "],\n  \"changed\": %zu,\n  \"rows\": [", res->nchanged);
	for (size_t i = 0; i < res->nrows; i++) {
		const struct compare_row *r = &res->rows[i];
		strbuf_addstr(out, i ? ",\n    {" : "\n    {");
		strbuf_addstr(out, "\"metric\": ");
		json_emit_string(out, r->metric);
		strbuf_addf(out, ", \"kind\": \"%s\", \"changed\": %s, \"why\": ",
			    r->kind == COMPARE_FAILURE ? "failure" : "perf", r->changed ? "true" : "false");
		json_emit_string(out, r->why);
		strbuf_addf(out, ", \"direction\": %d, \"verdict\": \"%s\", \"absolute\": %s, \"change\": [", r->direction,
			    r->verdict > 0 ? "improvement" : r->verdict < 0 ? "regression" : "none",
			    r->absolute ? "true" : "false");
		for (size_t s = 1; s < res->nsides; s++) {
			if (s > 1)
				strbuf_addstr(out, ", ");
			json_num(out, r->change[s]);
		}
		strbuf_addstr(out, "], \"p_welch\": ");
		json_num(out, r->p_welch);
		strbuf_addstr(out, ", \"p_mwu\": ");
		json_num(out, r->p_mwu);
		strbuf_addf(out, ", \"mwu_exact\": %s, \"hedges_g\": ", r->mwu_exact ? "true" : "false");
		json_num(out, r->hedges_g);
		strbuf_addstr(out, ", \"cliffs_delta\": ");
		json_num(out, r->cliffs_delta);
		if (r->kind == COMPARE_PERF) {
			strbuf_addstr(out, ", \"decision\": ");
			compare_decision_json(out, &r->decision);
		}
		strbuf_addstr(out, ", \"sides\": [");
		for (size_t s = 0; s < res->nsides; s++) {
			const struct compare_side *d = &r->side[s];
			if (s)
				strbuf_addstr(out, ", ");
			if (!d->present) {
				strbuf_addstr(out, "null");
				continue;
			}
			strbuf_addf(out, "{\"n\": %zu, \"mean\": ", d->n);
			json_num(out, d->mean);
			strbuf_addstr(out, ", \"stddev\": ");
			json_num(out, d->stddev);
			strbuf_addstr(out, ", \"stddev_percent\": ");
			json_num(out, d->mean != 0 ? 100 * (d->stddev / fabs(d->mean)) : NAN);
			strbuf_addstr(out, ", \"median\": ");
			json_num(out, d->median);
			strbuf_addstr(out, ", \"min\": ");
			json_num(out, d->min);
			strbuf_addstr(out, ", \"max\": ");
			json_num(out, d->max);
			strbuf_addf(out, ", \"fails\": %zu}", d->fails);
		}
		strbuf_addstr(out, "]}");
	}
	strbuf_addstr(out, "\n  ]\n}\n");
}

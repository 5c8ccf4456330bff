/*
 * report_sure: how sure the robot is, in short lines under "How sure
 * lkprobot is:" — the one decision's change and interval, the runs and how
 * they were compared, the floor, p — and, on a noisy machine, its figures
 * and how many runs show the change. See report_int.h.
 */
#include "report_int.h"
#include "../lib/stats/sigtest.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_WIDTH 9 /* "  change:  ": the values start at column 11 */

void report_wrap(struct strbuf *out, const char *text)
{
	size_t col = 0;
	const char *p = text;

	while (*p) {
		size_t word = strcspn(p, " \n");
		if (col && col + 1 + word > 75) {
			strbuf_addch(out, '\n');
			col = 0;
		} else if (col) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, p, word);
		col += word;
		p += word;
		while (*p == ' ' || *p == '\n') {
			if (*p == '\n') {
				strbuf_addch(out, '\n');
				col = 0;
			}
			p++;
		}
	}
	if (col)
		strbuf_addch(out, '\n');
}

/* "  key:    " and text wrapped at 75 columns, the lines after the first under the first's start. */
static void field(struct strbuf *out, const char *key, const char *text)
{
	const size_t ind = 2 + KEY_WIDTH;
	size_t col = ind;
	const char *p = text;

	strbuf_addf(out, "  %s:%*s", key, (int)(KEY_WIDTH - strlen(key) - 1), "");
	for (bool first = true; *p; first = false) {
		size_t word = strcspn(p, " ");
		if (!first && col + 1 + word > 75) {
			strbuf_addf(out, "\n%*s", (int)ind, "");
			col = ind;
		} else if (!first) {
			strbuf_addch(out, ' ');
			col++;
		}
		strbuf_add(out, p, word);
		col += word;
		p += word;
		p += strspn(p, " ");
	}
	strbuf_addch(out, '\n');
}

/* A side's spread relative to its mean (0: one run, or no variance). */
static double rel_sd(const struct compare_side *s)
{
	return s->n > 1 && s->mean != 0 ? s->stddev / fabs(s->mean) : 0;
}

long report_threads(const struct node *job)
{
	const char *t = node_str(node_get(node_get(job, "facts"), "nr_threads"));

	if (!t)
		t = node_str(node_get(job, "nr_cpu"));
	return t ? strtol(t, NULL, 10) : 0;
}

size_t report_runs_needed(const struct compare_result *cmp, const struct compare_row *h)
{
	const struct decision *d = &h->decision;
	double sd = fmax(rel_sd(&h->side[0]), rel_sd(&h->side[cmp->nsides - 1]));
	/* on the logarithms: the change beyond the floor, and the spread of one run */
	double c = isfinite(d->change) && d->change > -100 ? fabs(log1p(d->change / 100)) : 0;
	double room = c - log1p(d->floor / 100);
	/*
	 * Two independent sets of n: the interval is t * sd * sqrt(2 / n)
	 * wide on each side; n that puts its edge inside the floor with a
	 * standard error to spare (one sigma of power more than the decision's
	 * quantile) shows the change about five times in six.
	 */
	double z = sigtest_t_quantile(DECIDE_ALPHA, 1e6) + 1;
	if (!(room > 0) || !(sd > 0))
		return !(room > 0) ? REPORT_MAX_RUNS : 5;
	double n = ceil(2 * (z * sd / room) * (z * sd / room));
	return n < 5 ? 5 : n > REPORT_MAX_RUNS ? REPORT_MAX_RUNS : (size_t)n;
}

/* The noise line: the spread of each side, the highest load seen; empty when the machine was quiet. */
static void noise_text(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	const struct compare_result *cmp = in->cmp;
	size_t last = cmp->nsides - 1;
	double b = rel_sd(&h->side[0]), a = rel_sd(&h->side[last]);
	long threads = report_threads(in->job);
	bool loaded = threads > 0 && in->load_max > (double)threads;

	if (b <= 0.05 && a <= 0.05 && !loaded)
		return;
	strbuf_addf(out, "a noisy machine: the runs' stddev was %.1f%% (%.12s) and %.1f%% (%.12s)", 100 * b,
		    cmp->labels[0], 100 * a, cmp->labels[last]);
	if (in->load_max > 0)
		strbuf_addf(out, ", the load average up to %.2f", in->load_max);
	if (in->load_max > 0 && threads > 0)
		strbuf_addf(out, " on %ld thread%s", threads, threads == 1 ? "" : "s");
	size_t n = report_runs_needed(cmp, h);
	strbuf_addf(out,
		    "; %s%zu runs of each commit, one after the other, show a change of this size (To reproduce "
		    "runs as many)",
		    n >= REPORT_MAX_RUNS ? "more than " : "about ", n);
}

void report_sure(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	const struct compare_result *cmp = in->cmp;
	const struct compare_side *b = &h->side[0], *a = &h->side[cmp->nsides - 1];
	const struct decision *d = &h->decision;
	struct strbuf v = STRBUF_INIT;
	char lo[32], hi[32];

	strbuf_addstr(out, "How sure lkprobot is:\n\n");
	compare_format_decision(&v, d);
	strbuf_addf(&v, " %s of %s, ", compare_kind_word(h), h->metric);
	decide_format_percent(lo, sizeof(lo), d->lo);
	decide_format_percent(hi, sizeof(hi), d->hi);
	if (d->constant)
		strbuf_addstr(&v, "exactly: no variance to doubt it");
	else
		strbuf_addf(&v, "%s confidence interval %s to %s", DECIDE_LEVEL, lo, hi);
	field(out, "change", v.buf);
	strbuf_reset(&v);
	if (d->pairs)
		strbuf_addf(&v,
			    "%zu rounds, each ran both commits one after the other in a random order, compared pair "
			    "by pair (a drift of the machine cancels out); %zu and %zu runs in all",
			    d->pairs, b->n, a->n);
	else
		strbuf_addf(&v, "%zu and %zu runs, compared as two independent sets (Welch's t%s)", b->n, a->n,
			    d->log_scale ? " on the logarithms" : "");
	if (d->constant)
		strbuf_addstr(&v, "; every run of each side gave the same value, or every round the same difference");
	field(out, "runs", v.buf);
	strbuf_reset(&v);
	strbuf_addf(&v, "the %s beyond the %g%% floor below which lkprobot reports no change of this metric",
		    d->constant ? "change is" : "whole interval is", d->floor);
	field(out, "floor", v.buf);
	double p = decide_p(d);
	if (isfinite(p)) {
		strbuf_reset(&v);
		strbuf_addf(&v, p < 1e-16 ? "< 1e-16" : "%.2g", p);
		strbuf_addstr(&v, " (of no change at all, by the same test)");
		field(out, "p", v.buf);
	}
	strbuf_reset(&v);
	noise_text(&v, in, h);
	if (v.len)
		field(out, "noise", v.buf);
	strbuf_reset(&v);
	if (!h->changed)
		strbuf_addf(&v,
			    "lkp-tests' rule does not select this row (%s); it leads the table all the same, "
			    "marked [1]; ",
			    h->why);
	strbuf_addf(&v, "%zu of %zu metrics changed by lkp-tests' rules", cmp->nchanged, cmp->nrows);
	field(out, "table", v.buf);
	strbuf_release(&v);
}

/*
 * bisect_result: a bisection's result — its names, its release, and its
 * JSON form and back. See bisect_result.h.
 */
#include "bisect_result.h"
#include "../lib/results/compare.h"
#include "../lib/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bisect_result_release(struct bisect_result *res)
{
	free(res->why);
	free(res->metric);
	free(res->subject);
	free(res->steps);
	for (size_t i = 0; i < res->nskipped; i++)
		free(res->skipped[i]);
	for (size_t i = 0; i < res->ncandidates; i++)
		free(res->candidates[i]);
	free(res->skipped);
	free(res->candidates);
	free(res->revert.why);
	free(res->revert.kcflags);
	free(res->layout.why);
	free(res->layout.kcflags);
	free(res->layout.table);
	free(res->again.why);
	free(res->again.table);
	memset(res, 0, sizeof(*res));
}

const char *check_status_name(enum check_status s)
{
	static const char *const names[] = { "not-made", "confirms", "refutes", "not-sure", "cannot" };
	return names[s];
}

const char *bisection_status_name(enum bisection_status s)
{
	static const char *const names[] = { "found", "not-reproduced", "ambiguous", "not-sure", "failed", "baseline" };
	return names[s];
}

static void json_double(struct strbuf *out, double v)
{
	if (isfinite(v))
		strbuf_addf(out, "%.6g", v);
	else
		strbuf_addstr(out, "null");
}

static void json_str_or_null(struct strbuf *out, const char *s)
{
	if (s)
		json_emit_string(out, s);
	else
		strbuf_addstr(out, "null");
}

static void json_ids(struct strbuf *out, const char *key, char *const *ids, size_t n)
{
	strbuf_addf(out, ", \"%s\": [", key);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s\"%s\"", i ? ", " : "", ids[i]);
	strbuf_addstr(out, "]");
}

static void json_failed(struct strbuf *out, const struct bisect_result *r)
{
	static const char *const ends[] = { "null", "\"good\"", "\"bad\"" };

	strbuf_addf(out, "{\"id\": %lld, \"status\": \"failed\", \"why\": ", r->id);
	json_emit_string(out, r->why ? r->why : "");
	strbuf_addstr(out, ", \"metric\": ");
	json_str_or_null(out, r->metric);
	strbuf_addf(out, ", \"untestable\": %s, \"builds\": %zu, \"runs\": %zu%s}\n", ends[r->untestable], r->builds,
		    r->runs, r->fault ? ", \"fault\": true" : "");
}

static void check_json(struct strbuf *out, const char *key, const struct bisection_check *c)
{
	strbuf_addf(out, "\"%s\": {\"status\": \"%s\", \"why\": ", key, check_status_name(c->status));
	json_str_or_null(out, c->why);
	strbuf_addstr(out, ", \"commit\": ");
	json_str_or_null(out, *c->commit ? c->commit : NULL);
	strbuf_addstr(out, ", \"kcflags\": ");
	json_str_or_null(out, c->kcflags);
	strbuf_addstr(out, ", \"decision\": ");
	if (c->decided)
		compare_decision_json(out, &c->d);
	else
		strbuf_addstr(out, "null");
	strbuf_addstr(out, ", \"base_mean\": ");
	json_double(out, c->decided ? c->base_mean : NAN);
	strbuf_addstr(out, ", \"commit_mean\": ");
	json_double(out, c->decided ? c->commit_mean : NAN);
	strbuf_addstr(out, ", \"table\": ");
	json_str_or_null(out, c->table);
	strbuf_addf(out, ", \"builds\": %zu, \"runs\": %zu}", c->builds, c->runs);
}

void bisect_checks_json(struct strbuf *out, const struct bisect_result *r)
{
	strbuf_addstr(out, "{");
	check_json(out, "revert", &r->revert);
	strbuf_addstr(out, ", ");
	check_json(out, "layout", &r->layout);
	strbuf_addstr(out, "}");
}

void bisect_result_json(struct strbuf *out, const struct bisect_result *r)
{
	if (r->status == BISECTION_FAILED) {
		json_failed(out, r);
		return;
	}
	strbuf_addf(out, "{\"id\": %lld, \"status\": \"%s\", \"why\": ", r->id, bisection_status_name(r->status));
	json_emit_string(out, r->why ? r->why : "");
	strbuf_addstr(out, ", \"metric\": ");
	json_emit_string(out, r->metric ? r->metric : "");
	strbuf_addstr(out, ", \"culprit\": ");
	json_str_or_null(out, r->named ? r->culprit : NULL);
	strbuf_addstr(out, ", \"parent\": ");
	json_str_or_null(out, r->named ? r->parent : NULL);
	strbuf_addstr(out, ", \"confidence\": ");
	json_double(out, isfinite(r->p) ? 1 - r->p : NAN);
	strbuf_addstr(out, ", \"p\": ");
	json_double(out, r->p);
	strbuf_addstr(out, ", \"change\": ");
	json_double(out, r->named ? r->change : NAN);
	strbuf_addstr(out, ", \"ends_change\": ");
	json_double(out, r->ends_change);
	strbuf_addstr(out, ", \"ends\": ");
	compare_decision_json(out, &r->ends);
	strbuf_addstr(out, ", \"confirmation\": ");
	if (r->confirmed)
		compare_decision_json(out, &r->confirm);
	else
		strbuf_addstr(out, "null");
	strbuf_addf(out, ", \"builds\": %zu, \"runs\": %zu, \"commits\": %zu, \"batches\": %zu, \"steps\": [",
		    r->builds, r->runs, r->commits, r->batches);
	for (size_t i = 0; i < r->nsteps; i++) {
		const struct bisection_step *s = &r->steps[i];
		strbuf_addf(out,
			    "%s{\"commit\": \"%s\", \"verdict\": \"%s\", \"runs\": %zu, \"llr\": %.4g, \"sure\": %s}",
			    i ? ", " : "", s->commit,
			    s->verdict > 0   ? "bad"
			    : s->verdict < 0 ? "good"
					     : "skip",
			    s->runs, s->llr, s->sure ? "true" : "false");
	}
	strbuf_addstr(out, "]");
	json_ids(out, "skipped", r->skipped, r->nskipped);
	json_ids(out, "candidates", r->candidates, r->ncandidates);
	if (r->named) {
		strbuf_addstr(out, ", ");
		check_json(out, "revert", &r->revert);
		strbuf_addstr(out, ", ");
		check_json(out, "layout", &r->layout);
	}
	if (r->again.status != CHECK_NOT_MADE) {
		strbuf_addstr(out, ", ");
		check_json(out, "again", &r->again);
	}
	strbuf_addstr(out, "}\n");
}

/* ---- reading it back ---- */

static double num_or_nan(const struct node *n)
{
	double v;
	return json_number(n, &v) ? v : NAN;
}

static size_t num_size(const struct node *n)
{
	double v;
	return json_number(n, &v) && v >= 0 ? (size_t)v : 0;
}

static char *str_dup(const struct node *n)
{
	return node_str(n) ? xstrdup(node_str(n)) : NULL;
}

/* A commit id: 40 hex digits (anything else is no commit of ours). */
static bool get_commit(const struct node *n, char out[GITREPO_HEXSZ + 1])
{
	const char *s = node_str(n);

	if (!s || strlen(s) != GITREPO_HEXSZ || strspn(s, "0123456789abcdef") != GITREPO_HEXSZ)
		return false;
	memcpy(out, s, GITREPO_HEXSZ + 1);
	return true;
}

static void get_ids(const struct node *seq, char ***ids, size_t *n)
{
	for (size_t i = 0; seq && seq->type == NODE_SEQ && i < seq->n; i++) {
		char id[GITREPO_HEXSZ + 1];
		if (!get_commit(seq->vals[i], id))
			continue;
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = xstrdup(id);
	}
}

static void get_decision(const struct node *n, struct decision *d)
{
	const char *v = node_str(node_get(n, "verdict")), *why = node_str(node_get(n, "why"));

	*d = (struct decision){ .verdict = DECIDE_UNSURE };
	if (v && !strcmp(v, "changed"))
		d->verdict = DECIDE_CHANGED;
	else if (v && !strcmp(v, "same"))
		d->verdict = DECIDE_SAME;
	d->change = num_or_nan(node_get(n, "change"));
	d->lo = num_or_nan(node_get(n, "low"));
	d->hi = num_or_nan(node_get(n, "high"));
	d->floor = num_or_nan(node_get(n, "floor"));
	d->pairs = num_size(node_get(n, "pairs"));
	const char *kind = node_str(node_get(n, "kind"));
	d->kind = kind && !strcmp(kind, "improvement") ? +1 : kind && !strcmp(kind, "regression") ? -1 : 0;
	d->sign = d->verdict == DECIDE_CHANGED && isfinite(d->change) ? (d->change > 0 ? +1 : -1) : 0;
	snprintf(d->why, sizeof(d->why), "%s", why ? why : "");
}

static void get_check(const struct node *n, struct bisection_check *c)
{
	const char *st = node_str(node_get(n, "status"));
	const struct node *d = node_get(n, "decision");
	char commit[GITREPO_HEXSZ + 1];

	for (int k = CHECK_NOT_MADE; st && k <= CHECK_CANNOT; k++)
		if (!strcmp(st, check_status_name(k)))
			c->status = k;
	c->why = str_dup(node_get(n, "why"));
	c->kcflags = str_dup(node_get(n, "kcflags"));
	c->table = str_dup(node_get(n, "table"));
	if (get_commit(node_get(n, "commit"), commit))
		memcpy(c->commit, commit, sizeof(c->commit));
	c->decided = d && d->type == NODE_MAP;
	if (c->decided)
		get_decision(d, &c->d);
	c->base_mean = num_or_nan(node_get(n, "base_mean"));
	c->commit_mean = num_or_nan(node_get(n, "commit_mean"));
	c->builds = num_size(node_get(n, "builds"));
	c->runs = num_size(node_get(n, "runs"));
}

static int get_status(const char *name, enum bisection_status *st)
{
	for (int k = BISECTION_FOUND; k <= BISECTION_BASELINE; k++)
		if (name && !strcmp(name, bisection_status_name(k))) {
			*st = k;
			return 0;
		}
	return -1;
}

static void get_steps(const struct node *seq, struct bisect_result *r)
{
	size_t n = seq && seq->type == NODE_SEQ ? seq->n : 0;

	r->steps = xcalloc(n + 1, sizeof(*r->steps));
	for (size_t i = 0; i < n; i++) {
		const struct node *s = seq->vals[i];
		struct bisection_step *st = &r->steps[r->nsteps];
		const char *v = node_str(node_get(s, "verdict"));
		if (!get_commit(node_get(s, "commit"), st->commit))
			continue;
		st->verdict = v && !strcmp(v, "bad") ? 1 : v && !strcmp(v, "good") ? -1 : 0;
		st->runs = num_size(node_get(s, "runs"));
		st->llr = num_or_nan(node_get(s, "llr"));
		st->sure = node_str(node_get(s, "sure")) && !strcmp(node_str(node_get(s, "sure")), "true");
		r->nsteps++;
	}
}

int bisect_result_parse(const char *text, size_t len, struct bisect_result *r, struct strbuf *err)
{
	struct node *js = json_parse(text, len, "the bisection's result", err);
	double id = 0;

	bisect_result_release(r);
	*r = (struct bisect_result){ .p = NAN, .change = NAN, .ends_change = NAN };
	if (!js)
		return -1;
	if (js->type != NODE_MAP || get_status(node_str(node_get(js, "status")), &r->status)) {
		strbuf_setf(err, "the bisection's result has no status lkprobot knows");
		node_free(js);
		return -1;
	}
	json_number(node_get(js, "id"), &id);
	r->id = (long long)id;
	r->known = true;
	r->why = str_dup(node_get(js, "why"));
	r->metric = str_dup(node_get(js, "metric"));
	r->builds = num_size(node_get(js, "builds"));
	r->runs = num_size(node_get(js, "runs"));
	if (r->status == BISECTION_FAILED) {
		const char *end = node_str(node_get(js, "untestable"));
		r->fault = node_str(node_get(js, "fault")) && !strcmp(node_str(node_get(js, "fault")), "true");
		r->untestable = end && !strcmp(end, "bad")    ? BISECTION_END_BAD
				: end && !strcmp(end, "good") ? BISECTION_END_GOOD
							      : BISECTION_END_NONE;
		node_free(js);
		return 0;
	}
	r->named = get_commit(node_get(js, "culprit"), r->culprit) && get_commit(node_get(js, "parent"), r->parent);
	r->p = num_or_nan(node_get(js, "p"));
	r->change = num_or_nan(node_get(js, "change"));
	r->ends_change = num_or_nan(node_get(js, "ends_change"));
	r->have_ends = node_get(js, "ends") && node_get(js, "ends")->type == NODE_MAP;
	if (r->have_ends)
		get_decision(node_get(js, "ends"), &r->ends);
	r->confirmed = node_get(js, "confirmation") && node_get(js, "confirmation")->type == NODE_MAP;
	if (r->confirmed)
		get_decision(node_get(js, "confirmation"), &r->confirm);
	r->commits = num_size(node_get(js, "commits"));
	r->batches = num_size(node_get(js, "batches"));
	get_steps(node_get(js, "steps"), r);
	get_ids(node_get(js, "skipped"), &r->skipped, &r->nskipped);
	get_ids(node_get(js, "candidates"), &r->candidates, &r->ncandidates);
	if (node_get(js, "revert"))
		get_check(node_get(js, "revert"), &r->revert);
	if (node_get(js, "layout"))
		get_check(node_get(js, "layout"), &r->layout);
	if (node_get(js, "again"))
		get_check(node_get(js, "again"), &r->again);
	node_free(js);
	return 0;
}

int bisect_checks_parse(const char *text, size_t len, struct bisect_result *r, struct strbuf *err)
{
	struct node *js = json_parse(text, len, "the bisection's checks", err);

	if (!js)
		return -1;
	if (js->type == NODE_MAP) {
		if (node_get(js, "revert"))
			get_check(node_get(js, "revert"), &r->revert);
		if (node_get(js, "layout"))
			get_check(node_get(js, "layout"), &r->layout);
	}
	node_free(js);
	return 0;
}

void bisect_layout_table(struct strbuf *t, const struct layout_figures *f)
{
	if (f->kcflags)
		strbuf_addf(t, "We recompiled the kernels with option \"%s\", and the\n%s %s:\n\n", f->kcflags,
			    f->worse ? "regression" : "improvement", f->gone ? "is gone" : "still exists");
	strbuf_addf(t, "%.16s  %.26s  testcase/testparams/testbox\n", f->parent, f->culprit);
	strbuf_addstr(t,
		      "----------------  --------------------------  ---------------------------\n"
		      "         %stddev      change         %stddev\n"
		      "             \\          |                \\  \n");
	for (int row = 0; row < 2; row++) {
		char change[16];
		snprintf(change, sizeof(change), "%+.0f%%", f->change);
		strbuf_addf(t, "%10.0f  %15s  %9.0f        ", f->base, change, f->commit);
		strbuf_addf(t, row ? "GEO-MEAN %s\n" : "%s\n", row ? f->metric : f->job);
	}
}

void bisect_checks_text(const struct bisect_result *r, struct strbuf *out)
{
	const struct bisection_check *c[2] = { &r->revert, &r->layout };

	for (int k = 0; k < 2; k++) {
		if (c[k]->status != CHECK_NOT_MADE && c[k]->why)
			strbuf_addf(out, "%s.\n", c[k]->why);
		if (c[k]->table)
			strbuf_addf(out, "\n%s", c[k]->table);
	}
}

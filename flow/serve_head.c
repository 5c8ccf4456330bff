/*
 * serve_head: a head's outcome and its JSON form. See serve_head.h.
 */
#include "serve_head.h"
#include "bisect_result.h"
#include "../lib/results/compare.h"
#include "../lib/util/json.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>

static const char *const head_names[] = { "done", "build_failed", "failed", "baseline" };
static const char *const report_names[] = { NULL, "queued", "not sent", "delivery failed", "error", "held" };

/* The name of a check's status as check_status_name() spells it (NULL: none, or not one). */
static const char *check_name(const char *s)
{
	for (int k = CHECK_NOT_MADE; s && k <= CHECK_CANNOT; k++)
		if (!strcmp(s, check_status_name(k)))
			return check_status_name(k);
	return NULL;
}

const char *head_status_name(enum head_status s)
{
	return head_names[s];
}

struct job_outcome *head_outcome_add(struct head_outcome *h)
{
	h->jobs = xrealloc(h->jobs, (h->njobs + 1) * sizeof(*h->jobs));
	memset(&h->jobs[h->njobs], 0, sizeof(*h->jobs));
	h->jobs[h->njobs].change = h->jobs[h->njobs].lo = h->jobs[h->njobs].hi = NAN;
	return &h->jobs[h->njobs++];
}

void head_outcome_release(struct head_outcome *h)
{
	for (size_t i = 0; i < h->njobs; i++) {
		struct job_outcome *j = &h->jobs[i];
		free(j->job);
		free(j->bisect);
		free(j->why);
		free(j->mail_error);
		free(j->report_why);
		free(j->metric);
	}
	free(h->jobs);
	free(h->error);
	memset(h, 0, sizeof(*h));
}

static void key(struct strbuf *out, const char *k, const char *v)
{
	strbuf_addf(out, ", \"%s\": ", k);
	json_emit_string(out, v);
}

static void number(struct strbuf *out, const char *k, double v)
{
	if (isfinite(v))
		strbuf_addf(out, ", \"%s\": %.6g", k, v);
	else
		strbuf_addf(out, ", \"%s\": null", k);
}

void job_outcome_change_text(const struct job_outcome *j, struct strbuf *out)
{
	struct decision d = { .change = j->change };
	char lo[32], hi[32];

	if (!j->metric || !isfinite(j->change))
		return;
	strbuf_addf(out, "%s ", j->metric);
	compare_format_decision(out, &d);
	decide_format_percent(lo, sizeof(lo), j->lo);
	decide_format_percent(hi, sizeof(hi), j->hi);
	if (isfinite(j->lo) && isfinite(j->hi))
		strbuf_addf(out, " (%s interval %s to %s)", DECIDE_LEVEL, lo, hi);
}

static void job_json(struct strbuf *out, const struct job_outcome *j)
{
	strbuf_addstr(out, "{\"job\": ");
	json_emit_string(out, j->job ? j->job : "");
	key(out, "bisect", j->bisect ? j->bisect : "error");
	key(out, "why", j->why ? j->why : "");
	if (j->kind)
		key(out, "kind", j->kind);
	if (j->named)
		key(out, "culprit", j->culprit);
	if (j->report)
		key(out, "report", report_names[j->report]);
	if (j->mail_error)
		key(out, "mail_error", j->mail_error);
	else if (j->report_why)
		key(out, "report_why", j->report_why);
	if (j->metric) {
		key(out, "metric", j->metric);
		number(out, "change", j->change);
		number(out, "low", j->lo);
		number(out, "high", j->hi);
	}
	if (j->revert)
		key(out, "revert", j->revert);
	if (j->layout)
		key(out, "layout", j->layout);
	strbuf_addstr(out, "}");
}

void head_outcome_result_json(struct strbuf *out, const struct head_outcome *h)
{
	if (h->error) {
		strbuf_addstr(out, "{\"error\": ");
		json_emit_string(out, h->error);
		strbuf_addstr(out, "}");
		return;
	}
	strbuf_addstr(out, "[");
	for (size_t i = 0; i < h->njobs; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		job_json(out, &h->jobs[i]);
	}
	strbuf_addstr(out, "]");
}

void head_outcome_json(struct strbuf *out, const struct head_outcome *h)
{
	strbuf_addf(out, "{\"status\": \"%s\", \"result\": ", head_status_name(h->status));
	head_outcome_result_json(out, h);
	strbuf_addstr(out, "}\n");
}

static char *dup_or_null(const struct node *n)
{
	return node_str(n) ? xstrdup(node_str(n)) : NULL;
}

static int name_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; s && i < n; i++)
		if (names[i] && !strcmp(names[i], s))
			return (int)i;
	return -1;
}

static void job_parse(const struct node *n, struct job_outcome *j)
{
	const char *kind = node_str(node_get(n, "kind")), *culprit = node_str(node_get(n, "culprit"));
	int r = name_index(report_names, sizeof(report_names) / sizeof(*report_names), node_str(node_get(n, "report")));

	j->job = dup_or_null(node_get(n, "job"));
	j->bisect = dup_or_null(node_get(n, "bisect"));
	j->why = dup_or_null(node_get(n, "why"));
	j->kind = kind && !strcmp(kind, "regression")	 ? "regression"
		  : kind && !strcmp(kind, "improvement") ? "improvement"
							 : NULL;
	if (culprit && strlen(culprit) == GITREPO_HEXSZ) {
		j->named = true;
		memcpy(j->culprit, culprit, GITREPO_HEXSZ + 1);
	}
	j->report = r > 0 ? (enum job_report)r : JOB_REPORT_NONE;
	j->revert = check_name(node_str(node_get(n, "revert")));
	j->layout = check_name(node_str(node_get(n, "layout")));
	j->mail_error = dup_or_null(node_get(n, "mail_error"));
	j->report_why = dup_or_null(node_get(n, "report_why"));
	j->metric = dup_or_null(node_get(n, "metric"));
	if (!json_number(node_get(n, "change"), &j->change))
		j->change = NAN;
	if (!json_number(node_get(n, "low"), &j->lo))
		j->lo = NAN;
	if (!json_number(node_get(n, "high"), &j->hi))
		j->hi = NAN;
}

/* The result's node (a list of jobs, or {"error": ...}) into h. */
static void result_of(const struct node *res, struct head_outcome *h)
{
	if (res->type == NODE_MAP)
		h->error = xstrdup(node_str(node_get(res, "error")) ? node_str(node_get(res, "error")) : "?");
	for (size_t i = 0; res->type == NODE_SEQ && i < res->n; i++)
		job_parse(res->vals[i], head_outcome_add(h));
}

int head_result_parse(const char *text, size_t len, struct head_outcome *h, struct strbuf *err)
{
	struct node *js = json_parse(text, len, "the head's result", err);

	head_outcome_release(h);
	if (!js)
		return -1;
	result_of(js, h);
	node_free(js);
	return 0;
}

int head_outcome_parse(const char *text, size_t len, struct head_outcome *h, struct strbuf *err)
{
	struct node *js = json_parse(text, len, "the head's result", err);
	const struct node *res = js ? node_get(js, "result") : NULL;
	int st = js ? name_index(head_names, 4, node_str(node_get(js, "status"))) : -1;

	head_outcome_release(h);
	if (!js || js->type != NODE_MAP || st < 0 || !res) {
		if (js)
			strbuf_setf(err, "the head's result has no status or result lkprobot knows");
		node_free(js);
		return -1;
	}
	h->status = (enum head_status)st;
	result_of(res, h);
	node_free(js);
	return 0;
}

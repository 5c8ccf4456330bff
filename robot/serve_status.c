/*
 * serve_status: `lkprobot status` — the heads the service has seen, one
 * line each in words: tree, branch, head and base, where it stands, and
 * each job's outcome (the bisection's verdict, the culprit, the report's
 * mail as the outbox has it now: queued, sent, failed); or as JSON
 * (--json: each head's result as data, each report's delivery state added
 * as "mail", its triage state as "state").
 */
#include "cmd.h"
#include "../flow/serve_head.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"
#include "../lib/util/paging.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The outbox's last message reporting culprit (its X-lkprobot-Commit header), NULL when none. */
static const struct node *mail_of(const struct node *outbox, const char *culprit)
{
	const struct node *found = NULL;
	char *want = xasprintf("X-lkprobot-Commit: %s", culprit);

	for (size_t i = 0; outbox && culprit && i < outbox->n; i++) {
		const char *h = node_str(node_get(outbox->vals[i], "headers"));
		const char *at = h ? strstr(h, want) : NULL;
		if (at && (at == h || at[-1] == '\n'))
			found = outbox->vals[i];
	}
	free(want);
	return found;
}

/* A message's delivery in words: "mailed", "mail queued", "mail failed: why"... */
static void mail_words(const struct node *m, struct strbuf *out)
{
	const char *st = node_str(node_get(m, "status")), *e = node_str(node_get(m, "last_error"));
	const char *h = node_str(node_get(m, "headers"));
	bool dry = h && strstr(h, "\nX-lkprobot-Dry-Run:");

	if (!st)
		st = "?";
	if (!strcmp(st, "sent"))
		strbuf_addf(out, "mailed%s", dry ? " (a dry run: to the operator only)" : "");
	else if (!strcmp(st, "queued"))
		strbuf_addf(out, "mail queued%s%s", e && *e ? ", to be tried again: " : "", e && *e ? e : "");
	else if (!strcmp(st, "connecting") || !strcmp(st, "sending"))
		strbuf_addstr(out, "mail being sent");
	else if (!strcmp(st, "failed"))
		strbuf_addf(out, "mail failed: %s", e && *e ? e : "?");
	else if (!strcmp(st, "in-doubt"))
		strbuf_addf(out, "mail in doubt, not sent again on its own ('lkprobot outbox retry %s' sends it): %s",
			    node_str(node_get(m, "id")) ? node_str(node_get(m, "id")) : "ID", e && *e ? e : "?");
	else
		strbuf_addf(out, "mail %s%s%s", st, e && *e ? ": " : "", e && *e ? e : "");
}

/* A bisection's verdict in words. */
static void verdict_words(const struct job_outcome *j, struct strbuf *out)
{
	const char *st = j->bisect, *what = j->kind ? j->kind : "a change";
	const char *culprit = j->named ? j->culprit : "?";

	if (!st || !strcmp(st, "error") || !strcmp(st, "failed"))
		strbuf_addstr(out, "failed");
	else if (!strcmp(st, "not-reproduced"))
		strbuf_addstr(out, "no change");
	else if (!strcmp(st, "found"))
		strbuf_addf(out, "%s, culprit %.12s", what, culprit);
	else if (!strcmp(st, "ambiguous"))
		strbuf_addf(out, "%s among commits not all testable, reported at %.12s", what, culprit);
	else if (!strcmp(st, "not-sure"))
		strbuf_addstr(out, "not sure");
	else if (!strcmp(st, "baseline"))
		strbuf_addstr(out, "measured on its own, the branch's baseline");
	else
		strbuf_addstr(out, st);
}

/* One job's outcome in words. */
static void job_words(const struct job_outcome *j, const struct node *outbox, struct strbuf *out)
{
	const char *base = j->job && strrchr(j->job, '/') ? strrchr(j->job, '/') + 1 : j->job;

	strbuf_addf(out, "%s: ", base ? base : "?");
	verdict_words(j, out);
	/* the change with its interval, every verdict: the mail's figure when one was made */
	struct strbuf c = STRBUF_INIT;
	job_outcome_change_text(j, &c);
	if (c.len)
		strbuf_addf(out, ": %s", c.buf);
	strbuf_release(&c);
	if (j->why && *j->why && (!j->bisect || strcmp(j->bisect, "found")))
		strbuf_addf(out, " (%s)", j->why);
	if (j->report == JOB_REPORT_NONE) {
		if (j->kind && !strcmp(j->kind, "improvement"))
			strbuf_addstr(out, ", recorded, not mailed");
		return;
	}
	strbuf_addstr(out, ", ");
	/* the mail as it stands now: delivered since, or retried by the operator */
	bool mailed = j->report == JOB_REPORT_QUEUED || j->report == JOB_REPORT_DELIVERY_FAILED;
	const struct node *m = mailed && j->named ? mail_of(outbox, j->culprit) : NULL;
	if (m)
		mail_words(m, out);
	else if (j->report == JOB_REPORT_QUEUED)
		strbuf_addstr(out, "report queued");
	else if (j->report == JOB_REPORT_DELIVERY_FAILED)
		strbuf_addf(out, "mail failed: %s", j->mail_error ? j->mail_error : "?");
	else if (j->report == JOB_REPORT_HELD)
		strbuf_addf(out, "not mailed: %s", j->report_why ? j->report_why : "a mail rule held it");
	else
		strbuf_addf(out, "report %s%s%s", j->report == JOB_REPORT_ERROR ? "error" : "not sent",
			    j->report_why ? ": " : "", j->report_why ? j->report_why : "");
}

/* A head's stored result — its jobs' outcomes, the error it ended with, or a failure's plain reason — in words. */
static void result_words(const char *r, const struct node *outbox, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	struct head_outcome h = { 0 };

	if ((*r != '[' && *r != '{') || head_result_parse(r, strlen(r), &h, &err))
		strbuf_addstr(out, r);
	else if (h.error)
		strbuf_addstr(out, h.error);
	for (size_t i = 0; !h.error && i < h.njobs; i++) {
		strbuf_addstr(out, i ? "; " : "");
		job_words(&h.jobs[i], outbox, out);
	}
	head_outcome_release(&h);
	strbuf_release(&err);
}

/* The triage state of the newest report of culprit (its store row), onto job j as "state" and "report_id". */
static void add_state(struct store *s, struct node *j, const char *culprit)
{
	struct strbuf err = STRBUF_INIT;
	struct node *rows = NULL;

	if (culprit && strlen(culprit) >= 7 && !store_reports_of_commit(s, culprit, &rows, &err) && rows->n) {
		const struct node *r = rows->vals[rows->n - 1];
		node_set(j, "state", node_dup(node_get(r, "state")));
		node_set(j, "report_id", node_dup(node_get(r, "id")));
	}
	node_free(rows);
	strbuf_release(&err);
}

/* --json: each result as data, each report's mail with its delivery state ("mail") and its triage state. */
static void status_json(struct store *s, struct node *heads, const struct node *outbox)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	for (size_t i = 0; i < heads->n; i++) {
		const char *r = node_str(node_get(heads->vals[i], "result"));
		struct node *rj = r ? json_parse(r, strlen(r), "result", &err) : NULL;
		for (size_t k = 0; rj && rj->type == NODE_SEQ && k < rj->n; k++) {
			const char *report = node_str(node_get(rj->vals[k], "report"));
			bool mailed = report && (!strcmp(report, "queued") || !strcmp(report, "delivery failed"));
			const struct node *m =
				mailed ? mail_of(outbox, node_str(node_get(rj->vals[k], "culprit"))) : NULL;
			if (m && node_str(node_get(m, "status"))) {
				struct node *st = node_new_scalar(node_str(node_get(m, "status")));
				st->quoted = 1;
				node_set(rj->vals[k], "mail", st);
			}
			if (mailed)
				add_state(s, rj->vals[k], node_str(node_get(rj->vals[k], "culprit")));
		}
		node_set(heads->vals[i], "result", rj ? rj : node_new(NODE_NULL));
		strbuf_reset(&err);
	}
	json_emit(&out, heads);
	printf("%s\n", out.buf);
	strbuf_release(&out);
	strbuf_release(&err);
}

/* The heads in words, one line each. */
static void status_text(const struct store_heads *heads, const struct node *outbox)
{
	struct strbuf line = STRBUF_INIT, safe = STRBUF_INIT;

	if (!heads->n)
		printf("no heads yet (the service records each branch's head when it polls the trees)\n");
	for (size_t i = 0; i < heads->n; i++) {
		const struct store_head *h = &heads->v[i];
		strbuf_reset(&line);
		strbuf_addf(&line, "%s %s %.12s", h->tree, h->branch, h->head);
		if (h->base && *h->base)
			strbuf_addf(&line, " (base %.12s)", h->base);
		strbuf_addf(&line, " %s", h->status);
		if (h->result && *h->result) {
			strbuf_addstr(&line, " — ");
			result_words(h->result, outbox, &line);
		}
		/* names, reasons and errors from the world in it: one line, nothing a terminal acts on */
		strbuf_reset(&safe);
		strbuf_add_name(&safe, line.buf);
		printf("%s\n", safe.buf);
	}
	strbuf_release(&line);
	strbuf_release(&safe);
}

/* The mailing lists' series that are not heads (applied ones are): one line each, with why. */
static void series_text(struct store *s)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT, safe = STRBUF_INIT;
	struct node *rows = NULL;

	if (store_series_list(s, NULL, &rows, &err))
		say_warn("%s", err.buf);
	for (size_t i = 0; rows && i < rows->n; i++) {
		const struct node *r = rows->vals[i];
		const char *state = node_str(node_get(r, "state")), *why = node_str(node_get(r, "why"));
		if (!state || !strcmp(state, "applied"))
			continue;
		strbuf_reset(&line);
		strbuf_addf(&line, "%s: series \"%s\" v%s by %s %s%s%s", node_str(node_get(r, "list")),
			    node_str(node_get(r, "subject")), node_str(node_get(r, "version")),
			    node_str(node_get(r, "author")), state, why ? ": " : "", why ? why : "");
		strbuf_reset(&safe);
		strbuf_add_name(&safe, line.buf);
		printf("%s\n", safe.buf);
	}
	node_free(rows);
	strbuf_release(&err);
	strbuf_release(&line);
	strbuf_release(&safe);
}

int serve_status(struct store *s, bool json, const char *limit, const char *after)
{
	struct strbuf err = STRBUF_INIT;
	struct node *heads = NULL, *outbox = NULL;
	struct store_heads rows = { 0 };
	int ret = EXIT_OK;
	long n;
	long long from;

	if (paging_limit("--limit", limit, &n, &err) || paging_after_id("--after", after, &from, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	if (store_outbox_list(s, &outbox, &err) ||
	    (json ? store_heads_page(s, from, n, &heads, &err) : store_head_rows(s, false, &rows, &err))) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
	} else if (json) {
		status_json(s, heads, outbox);
	} else {
		status_text(&rows, outbox);
		series_text(s);
	}
	node_free(heads);
	node_free(outbox);
	store_heads_release(&rows);
	strbuf_release(&err);
	return ret;
}

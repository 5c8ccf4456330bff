/*
 * serve_status: `lkprobot status` — the heads the service has seen, one
 * line each in words: tree, branch, head and base, where it stands, and
 * each job's outcome (the bisection's verdict, the culprit, the report's
 * mail as the outbox has it now: queued, sent, failed); or as JSON
 * (--json: each head's result as data, each report's delivery state added
 * as "mail").
 */
#include "cmd.h"
#include "serve.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"

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
	else
		strbuf_addf(out, "mail %s%s%s", st, e && *e ? ": " : "", e && *e ? e : "");
}

/* A bisection's verdict in words. */
static void verdict_words(const char *st, const char *kind, const char *culprit, struct strbuf *out)
{
	const char *what = kind ? kind : "a change";

	if (!st || !strcmp(st, "error") || !strcmp(st, "failed"))
		strbuf_addstr(out, "failed");
	else if (!strcmp(st, "not-reproduced"))
		strbuf_addstr(out, "no change");
	else if (!strcmp(st, "found"))
		strbuf_addf(out, "%s, culprit %.12s", what, culprit ? culprit : "?");
	else if (!strcmp(st, "ambiguous"))
		strbuf_addf(out, "%s among commits not all testable, reported at %.12s", what, culprit ? culprit : "?");
	else if (!strcmp(st, "not-sure"))
		strbuf_addstr(out, "not sure");
	else
		strbuf_addstr(out, st);
}

/* One job's outcome (its object in a head's result) in words. */
static void job_words(const struct node *j, const struct node *outbox, struct strbuf *out)
{
	const char *job = node_str(node_get(j, "job")), *st = node_str(node_get(j, "bisect"));
	const char *why = node_str(node_get(j, "why")), *kind = node_str(node_get(j, "kind"));
	const char *culprit = node_str(node_get(j, "culprit")), *report = node_str(node_get(j, "report"));
	const char *base = job && strrchr(job, '/') ? strrchr(job, '/') + 1 : job;

	strbuf_addf(out, "%s: ", base ? base : "?");
	verdict_words(st, kind, culprit, out);
	if (why && *why && (!st || strcmp(st, "found")))
		strbuf_addf(out, " (%s)", why);
	if (!report) {
		if (kind && !strcmp(kind, "improvement"))
			strbuf_addstr(out, ", recorded, not mailed");
		return;
	}
	strbuf_addstr(out, ", ");
	/* the mail as it stands now: delivered since, or retried by the operator */
	const struct node *m = strcmp(report, "queued") && strcmp(report, "delivery failed") ? NULL : mail_of(outbox, culprit);
	const char *mail_error = node_str(node_get(j, "mail_error")), *rwhy = node_str(node_get(j, "report_why"));
	if (m)
		mail_words(m, out);
	else if (!strcmp(report, "queued"))
		strbuf_addstr(out, "report queued");
	else if (!strcmp(report, "delivery failed"))
		strbuf_addf(out, "mail failed: %s", mail_error ? mail_error : "?");
	else
		strbuf_addf(out, "report %s%s%s", report, rwhy ? ": " : "", rwhy ? rwhy : "");
}

/* A head's result — a JSON list of its jobs, {"error": why}, or a failure's plain reason — in words. */
static void result_words(const char *r, const struct node *outbox, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;
	struct node *rj = r && (*r == '[' || *r == '{') ? json_parse(r, strlen(r), "result", &err) : NULL;

	if (rj && rj->type == NODE_SEQ) {
		for (size_t i = 0; i < rj->n; i++) {
			strbuf_addstr(out, i ? "; " : "");
			job_words(rj->vals[i], outbox, out);
		}
	} else if (rj && node_str(node_get(rj, "error"))) {
		strbuf_addstr(out, node_str(node_get(rj, "error")));
	} else if (r) {
		strbuf_addstr(out, r);
	}
	node_free(rj);
	strbuf_release(&err);
}

/* --json: each result as data, and each report's mail with its delivery state ("mail"). */
static void status_json(struct node *heads, const struct node *outbox)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	for (size_t i = 0; i < heads->n; i++) {
		const char *r = node_str(node_get(heads->vals[i], "result"));
		struct node *rj = r ? json_parse(r, strlen(r), "result", &err) : NULL;
		for (size_t k = 0; rj && rj->type == NODE_SEQ && k < rj->n; k++) {
			const char *report = node_str(node_get(rj->vals[k], "report"));
			bool mailed = report && (!strcmp(report, "queued") || !strcmp(report, "delivery failed"));
			const struct node *m = mailed ? mail_of(outbox, node_str(node_get(rj->vals[k], "culprit"))) : NULL;
			if (m && node_str(node_get(m, "status"))) {
				struct node *st = node_new_scalar(node_str(node_get(m, "status")));
				st->quoted = 1;
				node_set(rj->vals[k], "mail", st);
			}
		}
		node_set(heads->vals[i], "result", rj ? rj : node_new(NODE_NULL));
		strbuf_reset(&err);
	}
	json_emit(&out, heads);
	printf("%s\n", out.buf);
	strbuf_release(&out);
	strbuf_release(&err);
}

int serve_status(struct store *s, bool json)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	struct node *heads = NULL, *outbox = NULL;
	int ret = EXIT_OK;

	if (store_heads(s, false, &heads, &err) || store_outbox_list(s, &outbox, &err)) {
		ret = cmd_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	if (json) {
		status_json(heads, outbox);
		goto out;
	}
	if (!heads->n)
		printf("no heads yet (the service records each branch's head when it polls the trees)\n");
	for (size_t i = 0; i < heads->n; i++) {
		const struct node *h = heads->vals[i];
		const char *r = node_str(node_get(h, "result")), *base = node_str(node_get(h, "base"));
		strbuf_reset(&line);
		strbuf_addf(&line, "%s %s %.12s", node_str(node_get(h, "tree")), node_str(node_get(h, "branch")),
			    node_str(node_get(h, "head")));
		if (base && *base)
			strbuf_addf(&line, " (base %.12s)", base);
		strbuf_addf(&line, " %s", node_str(node_get(h, "status")));
		if (r && *r) {
			strbuf_addstr(&line, " — ");
			result_words(r, outbox, &line);
		}
		printf("%s\n", line.buf);
	}
out:
	node_free(heads);
	node_free(outbox);
	strbuf_release(&err);
	strbuf_release(&line);
	return ret;
}

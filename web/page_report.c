/*
 * page_report: a report mail as the developer reads it — its headers, the
 * text body, the attachments as links (decoded, one URL each) — with its
 * delivery state and the way to the commit and the bisection it is about.
 * See pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "../lib/store/store.h"
#include "../mail/mailread.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The mail id names, parsed: 200, or 400/404/500 with err set. */
static int read_mail(struct store *s, const char *rest, struct store_mail *m, struct mailread *mr, struct strbuf *err)
{
	long long id;

	if (!page_id_ok(rest, &id)) {
		strbuf_setf(err, "'%s': not a report id", rest ? rest : "");
		return 400;
	}
	if (store_outbox_get(s, id, m, err)) {
		strbuf_setf(err, "no report mail %lld", id);
		return 404;
	}
	mailread_parse(m->data, m->len, mr);
	return 200;
}

/* The report's triage (when the mail is one of the reports): its state, history and the replies' commands. */
static void triage_data(struct page_ctx *c, const char *message_id, struct node *out)
{
	struct strbuf e = STRBUF_INIT;
	struct node *row = NULL, *h = NULL, *cmds = NULL;
	int64_t id = message_id ? store_report_by_message(c->s, message_id, &e) : 0;

	if (id > 0 && !store_report_get(c->s, id, &row, &e) && !store_report_history(c->s, id, &h, &e) &&
	    !store_commands(c->s, id, &cmds, &e)) {
		struct node *t = node_new(NODE_MAP);
		node_append(t, "id", page_num((double)id));
		node_append(t, "state", page_str(page_get(row, "state")));
		node_append(t, "history", h);
		node_append(t, "commands", cmds);
		node_append(out, "triage", t);
		h = cmds = NULL;
	}
	node_free(row);
	node_free(h);
	node_free(cmds);
	strbuf_release(&e);
}

/* /reports/<id> */
static int report_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *rest = a->rest;
	struct store_mail m;
	struct mailread mr;
	int code = read_mail(c->s, rest, &m, &mr, err);

	if (code != 200)
		return code;
	node_append(out, "id", page_num((double)m.id));
	node_append(out, "message_id", page_str(m.message_id));
	node_append(out, "envelope_from", page_str(m.from));
	node_append(out, "rcpts", page_str(m.rcpts));
	node_append(out, "status", page_str(m.status));
	node_append(out, "attempts", page_num(m.attempts));
	node_append(out, "last_error", page_str(m.last_error));
	node_append(out, "created", page_num((double)m.created));
	node_append(out, "sent", page_num(m.sent ? (double)m.sent : NAN));
	/* what the reader sees: the headers that matter, the text, the attachments */
	struct node *hs = node_new(NODE_MAP);
	static const char *const names[][2] = { { "From", "from" }, { "To", "to" }, { "Cc", "cc" },
						{ "Subject", "subject" }, { "Date", "date" }, { "Message-ID", "message_id" },
						{ "X-lkprobot-Commit", "commit" }, { "X-lkprobot-Verdict", "verdict" } };
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		char *v = mailread_header(m.data, m.len, names[i][0]);
		if (v)
			node_append(hs, names[i][1], page_str(v));
		free(v);
	}
	node_append(out, "headers", hs);
	struct node *atts = node_new(NODE_SEQ);
	size_t na = 0;
	for (size_t i = 0; i < mr.nparts; i++) {
		const struct mailread_part *p = &mr.parts[i];
		if (!p->name) {
			if (!node_get(out, "body"))
				node_append(out, "body", page_str(p->data.buf));
			continue;
		}
		struct node *att = node_new(NODE_MAP);
		node_append(att, "n", page_num((double)++na));
		node_append(att, "name", page_str(p->name));
		node_append(att, "type", page_str(p->type));
		node_append(att, "size", page_num((double)p->data.len));
		node_push(atts, att);
	}
	if (!node_get(out, "body"))
		node_append(out, "body", page_str(""));
	node_append(out, "attachments", atts);
	/* the commit it is about, and the bisections that found it */
	const char *commit = page_get(hs, "commit");
	if (*commit) {
		node_append(out, "commit_ref", page_commit_ref(c, commit));
		struct node *bs = node_new(NODE_SEQ);
		const struct node *bis = page_bisections(c, err);
		for (size_t i = 0; bis && i < bis->n; i++)
			if (!strcmp(page_get(bis->vals[i], "culprit"), commit))
				node_push(bs, page_num(page_getnum(bis->vals[i], "id")));
		node_append(out, "bisections", bs);
	}
	triage_data(c, m.message_id, out);
	mailread_release(&mr);
	store_mail_release(&m);
	return 200;
}

/* /reports/<id>/<n>[/NAME]: attachment n (1 = the first after the text), decoded. */
static int attachment(const struct page_env *env, const char *id, const char *n, struct strbuf *body, char **type,
		      char **name, struct strbuf *err)
{
	struct store *s = store_open(env->db, err);
	struct store_mail m;
	struct mailread mr;
	long long want;
	int code;

	if (!s)
		return 500;
	if (!page_id_ok(n, &want)) {
		strbuf_setf(err, "'%s': not an attachment number", n ? n : "");
		store_close(s);
		return 400;
	}
	if ((code = read_mail(s, id, &m, &mr, err)) != 200) {
		store_close(s);
		return code;
	}
	code = 404;
	strbuf_setf(err, "report mail %s has no attachment %lld", id, want);
	for (size_t i = 0, k = 0; i < mr.nparts; i++) {
		if (!mr.parts[i].name || (long long)++k != want)
			continue;
		strbuf_add(body, mr.parts[i].data.buf, mr.parts[i].data.len);
		/* text shown as text, never as HTML; anything else as bytes to save */
		*type = xstrdup(!strncmp(mr.parts[i].type, "text/", 5) ? "text/plain; charset=utf-8"
									: "application/octet-stream");
		*name = xstrdup(mr.parts[i].name);
		code = 200;
		strbuf_reset(err);
		break;
	}
	mailread_release(&mr);
	store_mail_release(&m);
	store_close(s);
	return code;
}

/* Text escaped, its http:// and https:// addresses links (the url: line leads to the bisection). */
static void linkified(struct strbuf *b, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *h = strstr(p, "http://"), *hs = strstr(p, "https://");
		if (!h || (hs && hs < h))
			h = hs;
		if (!h) {
			html_escape(b, p);
			return;
		}
		char *before = xstrndup(p, (size_t)(h - p));
		html_escape(b, before);
		free(before);
		size_t n = strcspn(h, " \t\n\r\"'<>()[]{}`");
		while (n && strchr(".,;:", h[n - 1]))
			n--;	/* the sentence's end, not the address's */
		char *url = xstrndup(h, n);
		strbuf_addstr(b, "<a rel=\"noopener noreferrer\" href=\"");
		html_escape(b, url);
		strbuf_addstr(b, "\">");
		html_escape(b, url);
		strbuf_addstr(b, "</a>");
		free(url);
		p = h + n;	/* n >= 7: "http://" itself is never cut */
	}
}

static void kv(struct strbuf *b, const char *what, const char *value)
{
	if (!value || !*value)
		return;
	strbuf_addstr(b, "<tr><th>");
	html_escape(b, what);
	strbuf_addstr(b, "</th>");
	html_td(b, value);
	strbuf_addstr(b, "</tr>");
}

/* The triage: the state (with the forms that set it), its history, the replies' commands. */
static void triage_html(const struct page_env *env, const struct node *t, struct strbuf *b)
{
	const struct node *h = node_get(t, "history"), *cmds = node_get(t, "commands");
	static const char *const verbs[] = { "ack", "fixed", "invalid", "wontfix", "reopen" };

	strbuf_addstr(b, "<h2 id=\"triage\">Triage</h2>\n<p>");
	page_badge(b, page_get(t, "state"), NULL);
	strbuf_addf(b, " <a href=\"/regressions#r%s\">report %s</a></p>\n", page_get(t, "id"), page_get(t, "id"));
	for (size_t i = 0; env->actions && i < sizeof(verbs) / sizeof(*verbs); i++)
		page_action_form(b, "regressions", (long long)page_getnum(t, "id"), verbs[i]);
	if (h && h->n) {
		strbuf_addstr(
			b,
			"<table><tr><th>when</th><th>state</th><th>was</th><th>who</th><th>why</th><th>from</th></tr>");
		for (size_t i = 0; i < h->n; i++) {
			strbuf_addstr(b, "<tr>");
			html_td_time(b, page_getnum(h->vals[i], "at"));
			const char *cols[] = { "state", "was", "who", "why", "source" };
			for (size_t k = 0; k < 5; k++)
				html_td(b, page_get(h->vals[i], cols[k]));
			strbuf_addstr(b, "</tr>");
		}
		strbuf_addstr(b, "</table>\n");
	}
	if (cmds && cmds->n) {
		strbuf_addstr(
			b, "<table><tr><th>command</th><th>from</th><th>mail</th><th>status</th><th>answer</th></tr>");
		for (size_t i = 0; i < cmds->n; i++) {
			const struct node *x = cmds->vals[i];
			const char *args = page_get(x, "args");
			struct strbuf line = STRBUF_INIT;
			strbuf_addf(&line, "#lkprobot %s", page_get(x, "command"));
			if (*args && strncmp(args, "diff --git ", 11))
				strbuf_addf(&line, " %s", args);
			strbuf_addstr(b, "<tr>");
			html_td(b, line.buf);
			html_td(b, page_get(x, "sender"));
			html_td(b, page_get(x, "mail"));
			html_td(b, page_get(x, "status"));
			html_td(b, page_get(x, "result"));
			strbuf_addstr(b, "</tr>");
			strbuf_release(&line);
		}
		strbuf_addstr(b, "</table>\n");
	}
}

static void report_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;
	const struct node *hs = node_get(d, "headers"), *atts = node_get(d, "attachments");
	const struct node *ref = node_get(d, "commit_ref"), *bs = node_get(d, "bisections");
	const char *status = page_get(d, "status"), *id = page_get(d, "id");

	strbuf_addstr(&doc->title, *page_get(hs, "subject") ? page_get(hs, "subject") : "report mail");
	if (ref) {
		strbuf_addstr(b, "<p class=\"see\">About ");
		html_commit_subject(b, page_get(ref, "commit"), page_get(ref, "subject"));
		for (size_t i = 0; bs && i < bs->n; i++) {
			strbuf_addstr(b, " · ");
			html_link(b, "bisections", node_str(bs->vals[i]), "the bisection");
		}
		strbuf_addstr(b, "</p>\n");
	}
	strbuf_addstr(b, "<table class=\"kv\">");
	kv(b, "From", page_get(hs, "from"));
	kv(b, "To", page_get(hs, "to"));
	kv(b, "Cc", page_get(hs, "cc"));
	kv(b, "Date", page_get(hs, "date"));
	kv(b, "Message-ID", page_get(hs, "message_id"));
	strbuf_addstr(b, "<tr><th>delivery</th><td>");
	page_badge(b, status, page_get(d, "last_error"));
	strbuf_addf(b, " (%s attempt%s)</td></tr>", page_get(d, "attempts"), page_getnum(d, "attempts") == 1 ? "" : "s");
	kv(b, "envelope to", page_get(d, "rcpts"));
	strbuf_addstr(b, "</table>\n");
	if (env->actions && strcmp(status, "sent") && strcmp(status, "sending"))
		page_action_form(b, "reports", (long long)page_getnum(d, "id"), "resend");
	if (node_get(d, "triage"))
		triage_html(env, node_get(d, "triage"), b);
	strbuf_addstr(b, "<pre class=\"mail\">");
	linkified(b, page_get(d, "body"));
	strbuf_addstr(b, "</pre>\n");
	if (atts->n) {
		strbuf_addstr(b, "<h2>Attachments</h2>\n<ul>");
		for (size_t i = 0; i < atts->n; i++) {
			const struct node *a = atts->vals[i];
			strbuf_addf(b, "<li><a href=\"/reports/%s/%s/", id, page_get(a, "n"));
			html_url_escape(b, page_get(a, "name"));
			strbuf_addstr(b, "\">");
			html_escape(b, page_get(a, "name"));
			strbuf_addstr(b, "</a> <span class=\"muted\">(");
			html_escape(b, page_get(a, "type"));
			strbuf_addf(b, ", %s bytes)</span></li>", page_get(a, "size"));
		}
		strbuf_addstr(b, "</ul>\n");
	}
}

const struct page_def page_def_report = {
	.name = "reports",
	.rest = "ID",
	.data = report_data,
	.html = report_html,
	.file = attachment,
	.reads = STORE_READS(STORE_TOPIC_OUTBOX) | STORE_READS(STORE_TOPIC_BISECTIONS) |
		 STORE_READS(STORE_TOPIC_REPORTS),
};

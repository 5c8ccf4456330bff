/*
 * pagekit: what the pages share — the request's store and trees, the states
 * of heads and bisections, the lists and their tables. See pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "../lib/kernel/git.h"
#include "../lib/results/compare.h"
#include "../lib/util/json.h"
#include "../lib/store/store.h"
#include "../mail/mailread.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *page_arg(const struct page_args *a, const char *key)
{
	for (size_t i = 0; a && i < a->n; i++)
		if (!strcmp(a->keys[i], key))
			return a->vals[i] && *a->vals[i] ? a->vals[i] : NULL;
	return NULL;
}

/* ---- the request ---- */

int page_ctx_open(struct page_ctx *c, const struct page_env *env, struct strbuf *err)
{
	*c = (struct page_ctx){ .env = env };
	if (!(c->s = store_open(env->db, err)))
		return -1;
	c->repos = xcalloc(env->ntrees + 1, sizeof(*c->repos));
	c->repo_tried = xcalloc(env->ntrees + 1, sizeof(*c->repo_tried));
	c->commits = node_new(NODE_MAP);
	return 0;
}

void page_ctx_close(struct page_ctx *c)
{
	for (size_t i = 0; i <= c->env->ntrees; i++)
		gitrepo_close(c->repos[i]);
	free(c->repos);
	free(c->repo_tried);
	node_free(c->commits);
	node_free(c->mails);
	node_free(c->heads);
	node_free(c->bisections);
	store_close(c->s);
}

/* ---- small node helpers ---- */

struct node *page_str(const char *s)
{
	struct node *n = node_new_scalar(s ? s : "");
	n->quoted = 1;
	return n;
}

struct node *page_num(double v)
{
	struct node *n = node_new(NODE_SCALAR);
	struct strbuf b = STRBUF_INIT;

	if (isfinite(v))
		json_format_number(&b, v, v != floor(v) || fabs(v) >= 1e15);
	else
		strbuf_addstr(&b, "null");
	n->str = strbuf_detach(&b);
	return n;
}

const char *page_get(const struct node *m, const char *key)
{
	const char *s = node_str(node_get(m, key));
	return s && strcmp(s, "null") ? s : "";
}

double page_getnum(const struct node *m, const char *key)
{
	double v;
	/* json_number writes 0 for "null" (a NAN as the pages store it) before saying no */
	return json_number(node_get(m, key), &v) ? v : NAN;
}

bool page_id_ok(const char *s, long long *id)
{
	char *end;

	if (!s || !*s || strspn(s, "0123456789") != strlen(s) || strlen(s) > 18)
		return false;
	errno = 0;
	*id = strtoll(s, &end, 10);
	return !*end && !errno && *id > 0;
}

bool page_is_hex_id(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n >= 7 && n <= GITREPO_HEXSZ && strspn(s, "0123456789abcdef") == n;
}

/* ---- the request's trees ---- */

struct gitrepo *page_repo(struct page_ctx *c, size_t i)
{
	const char *path = i < c->env->ntrees	 ? c->env->trees[i].path
			   : i == c->env->ntrees ? c->env->series_repo
						 : NULL;

	if (!path)
		return NULL;
	if (!c->repo_tried[i]) {
		struct strbuf e = STRBUF_INIT;
		c->repo_tried[i] = true;
		if (gitrepo_open(&c->repos[i], path, &e))
			c->repos[i] = NULL;
		strbuf_release(&e);
	}
	return c->repos[i];
}

ssize_t page_tree_by_path(const struct page_ctx *c, const char *path)
{
	for (size_t i = 0; path && i < c->env->ntrees; i++)
		if (!strcmp(c->env->trees[i].path, path))
			return (ssize_t)i;
	return -1;
}

static char *when_text(int64_t t)
{
	struct strbuf b = STRBUF_INIT;
	html_time(&b, (double)t);
	return strbuf_detach(&b);
}

const struct node *page_commit_info(struct page_ctx *c, const char *id)
{
	if (!page_is_hex_id(id))
		return NULL;
	const struct node *known = node_get(c->commits, id);
	if (known)
		return known->type == NODE_MAP ? known : NULL;
	struct node *info = NULL, *trees = node_new(NODE_SEQ);
	struct strbuf e = STRBUF_INIT;
	/* the watched trees, then the series' repository for what none of them has (a patch of a list) */
	for (size_t i = 0; i <= c->env->ntrees && !(i == c->env->ntrees && info); i++) {
		struct gitrepo *r = page_repo(c, i);
		struct gitrepo_commit gc;
		const char *name = i < c->env->ntrees ? c->env->trees[i].name : PAGE_SERIES_TREE;
		if (!r || gitrepo_commit_info(r, id, &gc, &e)) {
			strbuf_reset(&e);
			continue;
		}
		node_push(trees, page_str(name));
		if (!info) {
			info = node_new(NODE_MAP);
			node_append(info, "commit", page_str(gc.id));
			node_append(info, "subject", page_str(gc.subject));
			node_append(info, "author", page_str(gc.author_name));
			node_append(info, "author_email", page_str(gc.author_email));
			node_append(info, "date", page_num((double)gc.author_time));
			node_append(info, "commit_date", page_num((double)gc.committer_time));
			char *when = when_text(gc.author_time);
			node_append(info, "date_text", page_str(when));
			free(when);
			node_append(info, "tree", page_str(name));
			struct node *parents = node_new(NODE_SEQ);
			for (size_t k = 0; k < gc.nparents; k++)
				node_push(parents, page_str(gc.parents[k]));
			node_append(info, "parents", parents);
			node_append(info, "message", page_str(gc.message));
		}
		gitrepo_commit_release(&gc);
	}
	strbuf_release(&e);
	if (info)
		node_append(info, "trees", trees);
	else
		node_free(trees);
	/* a prefix is kept under what it was asked as; its full id under that too */
	node_append(c->commits, id, info ? info : node_new(NODE_NULL));
	if (info && strcmp(id, page_get(info, "commit")))
		node_append(c->commits, page_get(info, "commit"), node_dup(info));
	return info;
}

struct node *page_commit_ref(struct page_ctx *c, const char *id)
{
	struct node *r = node_new(NODE_MAP);
	const struct node *info = page_commit_info(c, id);

	node_append(r, "commit", page_str(id));
	node_append(r, "subject", page_str(info ? page_get(info, "subject") : ""));
	return r;
}

/* ---- the store's lists, once a request ---- */

const struct node *page_heads(struct page_ctx *c, struct strbuf *err)
{
	if (!c->heads && store_heads(c->s, false, &c->heads, err))
		return NULL;
	return c->heads;
}

const struct node *page_bisections(struct page_ctx *c, struct strbuf *err)
{
	if (!c->bisections && store_bisections(c->s, &c->bisections, err))
		return NULL;
	return c->bisections;
}

const struct node *page_mails(struct page_ctx *c, struct strbuf *err)
{
	if (c->mails)
		return c->mails;
	struct node *list;
	if (store_outbox_list(c->s, &list, err))
		return NULL;
	for (size_t i = 0; i < list->n; i++) {
		struct node *m = list->vals[i];
		const char *h = page_get(m, "headers");
		const char *const keys[][2] = { { "Subject", "subject" },
						{ "X-lkprobot-Commit", "commit" },
						{ "X-lkprobot-Verdict", "verdict" },
						{ "To", "to" } };
		for (size_t k = 0; k < sizeof(keys) / sizeof(*keys); k++) {
			char *v = mailread_header(h, strlen(h), keys[k][0]);
			node_set(m, keys[k][1], page_str(v ? v : ""));
			free(v);
		}
		node_del(m, "headers");
		/* one envelope recipient a line */
		const char *rc = page_get(m, "rcpts");
		size_t nr = *rc ? 1 : 0;
		for (const char *p = rc; *p; p++)
			nr += *p == '\n' && p[1];
		node_set(m, "recipients", page_num((double)nr));
	}
	c->mails = list;
	return list;
}

const struct node *page_mail_about(struct page_ctx *c, const char *commit)
{
	struct strbuf e = STRBUF_INIT;
	const struct node *mails = commit && *commit ? page_mails(c, &e) : NULL;

	strbuf_release(&e);
	for (size_t i = mails ? mails->n : 0; i-- > 0;)
		if (!strcmp(page_get(mails->vals[i], "commit"), commit))
			return mails->vals[i];
	return NULL;
}

/* ---- states ---- */

/* A state word as a maintainer reads it: "not_sure" and "not-sure" are "not sure". */
static char *state_word(const char *s)
{
	char *w = xstrdup(*s ? s : "unknown");
	for (char *p = w; *p; p++)
		if (*p == '_' || *p == '-')
			*p = ' ';
	if (!strcmp(w, "not reproduced")) {
		free(w);
		w = xstrdup("no change");
	} else if (!strcmp(w, "ambiguous")) {
		free(w);
		w = xstrdup("not sure");
	} else if (!strcmp(w, "error")) {
		free(w);
		w = xstrdup("failed");
	}
	return w;
}

/* How bad a job's outcome is for the head's one state: found over failed over not sure over no change. */
static int state_rank(const char *w)
{
	static const char *const order[] = { "no change", "not sure", "failed", "build failed", "found" };
	for (int i = 0; i < 5; i++)
		if (!strcmp(w, order[i]))
			return i;
	return 2; /* a word the store learned later: as a failure, shown as it is */
}

/* The newest bisection between base and head (good and bad), NULL when none. */
static const struct node *bisection_of(struct page_ctx *c, const char *base, const char *head)
{
	struct strbuf e = STRBUF_INIT;
	const struct node *bis = page_bisections(c, &e);

	strbuf_release(&e);
	for (size_t i = 0; bis && i < bis->n; i++)
		if (!strcmp(page_get(bis->vals[i], "good"), base) && !strcmp(page_get(bis->vals[i], "bad"), head))
			return bis->vals[i];
	return NULL;
}

/* The first text among a result's reason keys: reason, why, error. */
static const char *reason_of(const struct node *m)
{
	static const char *const keys[] = { "reason", "why", "error" };
	for (size_t i = 0; i < 3; i++)
		if (*page_get(m, keys[i]))
			return page_get(m, keys[i]);
	return "";
}

/*
 * A job's change with its interval, as `lkprobot status` and the mail give
 * it: "command.throughput -21.9% (99.8% interval -33.7% to -7.9%)"; "" none.
 */
static char *job_change(const struct node *j)
{
	struct decision d = { .change = page_getnum(j, "change") };
	double lo = page_getnum(j, "low"), hi = page_getnum(j, "high");
	struct strbuf t = STRBUF_INIT;
	char l[32], u[32];

	if (*page_get(j, "metric") && isfinite(d.change)) {
		strbuf_addf(&t, "%s ", page_get(j, "metric"));
		compare_format_decision(&t, &d);
		decide_format_percent(l, sizeof(l), lo);
		decide_format_percent(u, sizeof(u), hi);
		if (isfinite(lo) && isfinite(hi))
			strbuf_addf(&t, " (%s interval %s to %s)", DECIDE_LEVEL, l, u);
	}
	return strbuf_detach(&t);
}

struct node *page_head_state(struct page_ctx *c, const struct node *h)
{
	struct node *st = node_new(NODE_MAP);
	const char *status = page_get(h, "status"), *res = page_get(h, "result");
	struct strbuf e = STRBUF_INIT;
	struct node *r = *res ? json_parse(res, strlen(res), "result", &e) : NULL;
	char *state = state_word(status);
	const char *kind = "", *culprit = "", *reason = reason_of(h);
	char *change = NULL;
	const struct node *bis = bisection_of(c, page_get(h, "base"), page_get(h, "head"));

	if (!strcmp(status, "testing")) {
		free(state);
		state = xstrdup(bis && !strcmp(page_get(bis, "status"), "running") && *page_get(bis, "metric")
					? "bisecting"
					: "testing");
	} else if ((!strcmp(status, "done") || !strcmp(status, "failed")) && r && r->type == NODE_SEQ && r->n) {
		/* the jobs' outcomes: the worst one is the head's */
		int rank = -1;
		for (size_t i = 0; i < r->n; i++) {
			const struct node *j = r->vals[i];
			char *w = state_word(page_get(j, "bisect"));
			int k = state_rank(w);
			if (k > rank) {
				rank = k;
				free(state);
				state = w;
				kind = page_get(j, "kind");
				culprit = page_get(j, "culprit");
				free(change);
				change = job_change(j);
				if (*reason_of(j))
					reason = reason_of(j);
			} else {
				free(w);
			}
		}
	} else if (r && r->type == NODE_MAP && *reason_of(r)) {
		reason = reason_of(r);
	}
	node_append(st, "state", page_str(state));
	if (*kind)
		node_append(st, "kind", page_str(kind));
	if (change && *change)
		node_append(st, "change", page_str(change));
	free(change);
	if (*reason)
		node_append(st, "reason", page_str(reason));
	if (*culprit) {
		node_append(st, "culprit", page_commit_ref(c, culprit));
		const struct node *m = page_mail_about(c, culprit);
		if (m) {
			struct node *mm = node_new(NODE_MAP);
			node_append(mm, "id", page_num(page_getnum(m, "id")));
			node_append(mm, "subject", page_str(page_get(m, "subject")));
			node_append(mm, "status", page_str(page_get(m, "status")));
			node_append(st, "mail", mm);
		}
	}
	if (bis)
		node_append(st, "bisection", page_num(page_getnum(bis, "id")));
	free(state);
	node_free(r);
	strbuf_release(&e);
	return st;
}

struct node *page_bisection_state(struct page_ctx *c, const struct node *b)
{
	struct node *st = node_new(NODE_MAP);
	const char *status = page_get(b, "status");
	char *state = state_word(status);
	const char *reason = reason_of(b);
	char *why = NULL;
	int refresh = 0;

	if (!strcmp(status, "running")) {
		/* running only while the service's test of its head is under way */
		struct strbuf e = STRBUF_INIT;
		struct node *heads = NULL; /* its head, asked by the bisection's ends: not every head read */
		const struct node *h = NULL;
		if (store_heads_between(c->s, page_get(b, "good"), page_get(b, "bad"), &heads, &e))
			heads = NULL;
		strbuf_release(&e);
		for (size_t i = heads ? heads->n : 0; i-- > 0 && !h;)
			if (!strcmp(page_get(heads->vals[i], "base"), page_get(b, "good")) &&
			    !strcmp(page_get(heads->vals[i], "head"), page_get(b, "bad")))
				h = heads->vals[i];
		if (h && !strcmp(page_get(h, "status"), "testing")) {
			refresh = 15;
		} else if (h) {
			free(state);
			state = xstrdup("stopped");
			why = xasprintf("ended without a verdict: the service's test of this head is %s%s%s",
					page_get(h, "status"), *reason_of(h) ? ": " : "", reason_of(h));
			reason = why;
		} else if (!*reason) {
			reason = "started by lkprobot bisect outside the service: its progress is what the store shows";
		}
		node_free(heads);
	}
	node_append(st, "state", page_str(state));
	if (*reason)
		node_append(st, "reason", page_str(reason));
	node_append(st, "refresh", page_num(refresh));
	free(state);
	free(why);
	return st;
}

void page_state_class(struct strbuf *b, const char *state)
{
	strbuf_addstr(b, "state state-");
	for (const char *p = state; *p; p++)
		strbuf_addch(b, (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ? *p : '-');
}

void page_state_html(struct strbuf *b, const struct node *st)
{
	const char *reason = page_get(st, "reason");

	/* "found regression", then why: the state and its kind read as one */
	page_badge(b, page_get(st, "state"), NULL);
	if (*page_get(st, "kind")) {
		strbuf_addch(b, ' ');
		page_badge(b, page_get(st, "kind"), NULL);
	}
	if (*page_get(st, "change")) {
		strbuf_addstr(b, " <span class=\"change\">");
		html_escape(b, page_get(st, "change"));
		strbuf_addstr(b, "</span>");
	}
	if (*reason) {
		strbuf_addstr(b, " <span class=\"reason\">");
		html_escape(b, reason);
		strbuf_addstr(b, "</span>");
	}
}

void page_badge(struct strbuf *b, const char *state, const char *reason)
{
	strbuf_addstr(b, "<span class=\"");
	page_state_class(b, state);
	strbuf_addstr(b, "\">");
	html_escape(b, state);
	strbuf_addstr(b, "</span>");
	if (reason && *reason) {
		strbuf_addstr(b, " <span class=\"reason\">");
		html_escape(b, reason);
		strbuf_addstr(b, "</span>");
	}
}

void page_action_form(struct strbuf *b, const char *what, long long id, const char *label)
{
	strbuf_addf(b, "<form method=\"post\" action=\"/api/%s/%lld/", what, id);
	html_escape(b, label);
	strbuf_addstr(b,
		      "\"><input type=\"password\" name=\"token\" placeholder=\"token\" autocomplete=\"off\" required>"
		      "<button>");
	html_escape(b, label);
	strbuf_addstr(b, "</button></form>");
}

void page_history_href(struct strbuf *b, const char *testcase, const char *path_params, const char *metric,
		       const char *tree)
{
	strbuf_addstr(b, "/history?testcase=");
	html_url_escape(b, testcase);
	strbuf_addstr(b, "&amp;path_params=");
	html_url_escape(b, path_params);
	if (metric) {
		strbuf_addstr(b, "&amp;metric=");
		html_url_escape(b, metric);
	}
	if (tree) {
		strbuf_addstr(b, "&amp;tree=");
		html_url_escape(b, tree);
	}
}

/* ---- heads ---- */

/* A head as the pages show it: the store's row, its result as JSON (not text), its subject, author, state. */
struct node *page_head_row(struct page_ctx *c, const struct node *h, bool git)
{
	struct node *x = node_dup(h);
	const char *res = page_get(h, "result");
	struct strbuf e = STRBUF_INIT;
	struct node *r = *res ? json_parse(res, strlen(res), "result", &e) : NULL;

	node_set(x, "result", r ? r : node_new(NODE_NULL));
	strbuf_release(&e);
	if (git) {
		const struct node *info = page_commit_info(c, page_get(h, "head"));
		node_append(x, "subject", page_str(info ? page_get(info, "subject") : ""));
		node_append(x, "author", page_str(info ? page_get(info, "author") : ""));
	}
	node_append(x, "state", page_head_state(c, h));
	return x;
}

void page_heads_html(struct strbuf *b, const struct node *heads, bool actions, bool tree_column)
{
	strbuf_addstr(b, "<table><tr>");
	if (tree_column)
		strbuf_addstr(b, "<th>tree</th><th>branch</th>");
	strbuf_addstr(b,
		      "<th>head</th><th>subject</th><th>author</th><th>state</th><th>culprit</th><th>mail</th>"
		      "<th>see</th><th>seen</th>");
	if (actions)
		strbuf_addstr(b, "<th>action</th>");
	strbuf_addstr(b, "</tr>\n");
	for (size_t i = 0; i < heads->n; i++) {
		const struct node *h = heads->vals[i], *st = node_get(h, "state");
		const struct node *cul = node_get(st, "culprit"), *mail = node_get(st, "mail");
		const char *kind = page_get(st, "kind");
		strbuf_addf(b, "<tr%s%s%s>", *kind ? " class=\"" : "", kind, *kind ? "\"" : "");
		if (tree_column) {
			html_td(b, page_get(h, "tree"));
			html_td(b, page_get(h, "branch"));
		}
		strbuf_addstr(b, "<td>");
		html_commit_link(b, page_get(h, "head"));
		strbuf_addstr(b, "</td>");
		html_td_class(b, "subject", page_get(h, "subject"));
		html_td(b, page_get(h, "author"));
		strbuf_addstr(b, "<td>");
		page_state_html(b, st);
		strbuf_addstr(b, "</td><td>");
		if (cul)
			html_commit_subject(b, page_get(cul, "commit"), page_get(cul, "subject"));
		strbuf_addstr(b, "</td><td>");
		if (mail)
			html_link(b, "reports", page_get(mail, "id"), page_get(mail, "subject"));
		strbuf_addstr(b, "</td><td>");
		if (*page_get(h, "base") && *page_get(h, "head")) {
			strbuf_addstr(b, "<a href=\"");
			html_compare_href(b, page_get(h, "base"), page_get(h, "head"));
			strbuf_addstr(b, "\">compare</a>");
		}
		if (node_get(st, "bisection")) {
			strbuf_addstr(b, " · ");
			html_link(b, "bisections", page_get(st, "bisection"), "bisection");
		}
		strbuf_addstr(b, "</td>");
		html_td_time(b, page_getnum(h, "first_seen"));
		if (actions) {
			long long id = (long long)page_getnum(h, "id");
			const char *status = page_get(h, "status");
			strbuf_addstr(b, "<td>");
			if (!strcmp(status, "queued") || !strcmp(status, "testing"))
				page_action_form(b, "heads", id, "cancel");
			else
				page_action_form(b, "heads", id, "retest");
			strbuf_addstr(b, "</td>");
		}
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

/* ---- bisections and mails as lists ---- */

/* A bisection as the lists show it: the row, its honest state, its tree's name, the culprit's subject. */
struct node *page_bisection_row(struct page_ctx *c, const struct node *x)
{
	struct node *r = node_dup(x);
	ssize_t t = page_tree_by_path(c, page_get(x, "tree"));

	node_append(r, "tree_name", page_str(t >= 0 ? c->env->trees[t].name : page_get(x, "tree")));
	node_append(r, "state", page_bisection_state(c, x));
	if (*page_get(x, "culprit"))
		node_append(r, "culprit_ref", page_commit_ref(c, page_get(x, "culprit")));
	return r;
}

void page_bisections_html(struct strbuf *b, const struct node *bis)
{
	if (!bis->n) {
		strbuf_addstr(b, "<p class=\"note\">No bisection yet.</p>\n");
		return;
	}
	strbuf_addstr(b,
		      "<table><tr><th>id</th><th>tree</th><th>good</th><th>bad</th><th>job</th><th>metric</th>"
		      "<th>state</th><th>culprit</th><th>started</th></tr>\n");
	for (size_t i = 0; i < bis->n; i++) {
		const struct node *x = bis->vals[i], *st = node_get(x, "state"), *cul = node_get(x, "culprit_ref");
		strbuf_addstr(b, "<tr><td>");
		html_link(b, "bisections", page_get(x, "id"), page_get(x, "id"));
		strbuf_addstr(b, "</td>");
		html_td(b, page_get(x, "tree_name"));
		strbuf_addstr(b, "<td>");
		html_commit_link(b, page_get(x, "good"));
		strbuf_addstr(b, "</td><td>");
		html_commit_link(b, page_get(x, "bad"));
		strbuf_addstr(b, "</td>");
		html_td(b, page_get(x, "job"));
		html_td(b, page_get(x, "metric"));
		strbuf_addstr(b, "<td>");
		page_state_html(b, st);
		strbuf_addstr(b, "</td><td>");
		if (cul)
			html_commit_subject(b, page_get(cul, "commit"), page_get(cul, "subject"));
		strbuf_addstr(b, "</td>");
		html_td_time(b, page_getnum(x, "created"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

void page_mails_html(struct strbuf *b, const struct node *mails, bool newest_first)
{
	if (!mails->n) {
		strbuf_addstr(b, "<p class=\"note\">No report mail yet.</p>\n");
		return;
	}
	strbuf_addstr(b,
		      "<table><tr><th>subject</th><th>commit</th><th>delivery</th><th>recipients</th>"
		      "<th>attempts</th><th>last error</th><th>queued</th></tr>\n");
	for (size_t k = 0; k < mails->n; k++) {
		const struct node *m = mails->vals[newest_first ? mails->n - 1 - k : k];
		strbuf_addstr(b, "<tr><td class=\"subject\">");
		html_link(b, "reports", page_get(m, "id"),
			  *page_get(m, "subject") ? page_get(m, "subject") : "(no subject)");
		strbuf_addstr(b, "</td><td>");
		html_commit_link(b, page_get(m, "commit"));
		strbuf_addstr(b, "</td><td>");
		page_badge(b, page_get(m, "status"), NULL);
		strbuf_addstr(b, "</td>");
		html_td(b, page_get(m, "recipients"));
		html_td(b, page_get(m, "attempts"));
		html_td(b, page_get(m, "last_error"));
		html_td_time(b, page_getnum(m, "created"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

/*
 * page_series: the patch series of the mailing lists (serve.lists), newest
 * first, one list or all — subject, version, author, where each stands
 * joined with its head's outcome (applied, testing, no change, a
 * regression with its change), and the ways on: the mail on the list,
 * the branch to fetch, the bisection, the report. See pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "../lib/store/store.h"
#include "../lib/util/paging.h"

#include <stdlib.h>
#include <string.h>

/* Heads by tree, branch and head: sorted once a request, searched for each series. */
static int by_head(const void *a, const void *b)
{
	const struct node *x = *(const struct node *const *)a, *y = *(const struct node *const *)b;
	int c = strcmp(page_get(x, "tree"), page_get(y, "tree"));
	c = c ? c : strcmp(page_get(x, "branch"), page_get(y, "branch"));
	c = c ? c : strcmp(page_get(x, "head"), page_get(y, "head"));
	/* the newest row of a head last: the one a search lands on is found by walking on */
	return c ? c : (page_getnum(x, "id") > page_getnum(y, "id")) - (page_getnum(x, "id") < page_getnum(y, "id"));
}

/* The newest head row of series row s (its list, branch and head) among the sorted v; NULL when none. */
static const struct node *head_of(const struct node *const *v, size_t n, const struct node *s)
{
	struct node *key = node_new(NODE_MAP);
	node_append(key, "tree", page_str(page_get(s, "list")));
	node_append(key, "branch", page_str(page_get(s, "branch")));
	node_append(key, "head", page_str(page_get(s, "head")));
	node_append(key, "id", page_num(1e18));
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (by_head(&v[mid], (const struct node *const *)&key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: the first row after the key; the one before it is the newest of that head, when it is one */
	const struct node *h = lo ? v[lo - 1] : NULL;
	if (h && (strcmp(page_get(h, "tree"), page_get(key, "tree")) ||
		  strcmp(page_get(h, "branch"), page_get(key, "branch")) ||
		  strcmp(page_get(h, "head"), page_get(key, "head"))))
		h = NULL;
	node_free(key);
	return h;
}

static const char *list_url(const struct page_env *env, const char *list)
{
	for (size_t i = 0; i < env->nlists; i++)
		if (!strcmp(env->lists[i].name, list))
			return env->lists[i].url;
	return NULL;
}

/*
 * Where series row s stands, as the page shows it: its own state until it
 * is applied; then its head's (queued: "applied"; testing, bisecting, no
 * change, found with its kind and change, failed ...). A map like
 * page_head_state's.
 */
static struct node *outcome_of(struct page_ctx *c, const struct node *s, const struct node *head)
{
	if (head && strcmp(page_get(head, "status"), "queued"))
		return page_head_state(c, head);
	struct node *st = node_new(NODE_MAP);
	node_append(st, "state", page_str(*page_get(s, "state") ? page_get(s, "state") : "unknown"));
	if (*page_get(s, "why"))
		node_append(st, "reason", page_str(page_get(s, "why")));
	else if (head)
		node_append(st, "reason", page_str("its head waits to be tested"));
	return st;
}

/* One series as the page shows it: the store's row, its first mail, mail_url, fetch and outcome. */
static struct node *series_row(struct page_ctx *c, const struct node *s, const struct node *head)
{
	struct node *x = node_dup(s);
	const char *key = page_get(s, "key"), *gt = strchr(key, '>'), *url = list_url(c->env, page_get(s, "list"));
	char *id = *key == '<' && gt ? xstrndup(key, (size_t)(gt - key + 1)) : NULL;

	if (id) {
		node_append(x, "message_id", page_str(id));
		if (url) {
			struct strbuf u = STRBUF_INIT;
			strbuf_addf(&u, "%s%s%.*s", url, url[strlen(url) - 1] == '/' ? "" : "/", (int)(strlen(id) - 2),
				    id + 1);
			node_append(x, "mail_url", page_str(u.buf));
			strbuf_release(&u);
		}
	}
	free(id);
	if (*page_get(s, "branch") && c->env->series_url) {
		char *fetch = xasprintf("git fetch %s %s", c->env->series_url, page_get(s, "branch"));
		node_append(x, "fetch", page_str(fetch));
		free(fetch);
	}
	if (head)
		node_append(x, "head_id", page_num(page_getnum(head, "id")));
	node_append(x, "outcome", outcome_of(c, s, head));
	return x;
}

/* A list's series (?list=NAME), or every list's, newest first, a page at a time (?limit=&after=). */
static int series_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *list = page_arg(a, "list");
	const struct node *heads = page_heads(c, err);
	struct node *rows = NULL;
	long limit;

	if (paging_limit("limit", page_arg(a, "limit"), &limit, err))
		return 400;
	if (!heads || store_series_list(c->s, list, &rows, err))
		return 500;
	const struct node **v = xcalloc(heads->n + 1, sizeof(*v));
	for (size_t i = 0; i < heads->n; i++)
		v[i] = heads->vals[i];
	qsort(v, heads->n, sizeof(*v), by_head);
	for (size_t i = rows->n; i-- > 0;) {
		const struct node *s = rows->vals[i];
		node_push(out, series_row(c, s, *page_get(s, "head") ? head_of(v, heads->n, s) : NULL));
	}
	free(v);
	node_free(rows);
	if (paging_window(out, "id", "after", page_arg(a, "after"), limit, err))
		return 400;
	return 200;
}

/* The links of a series: its mail on the list, the bisection, the report. */
static void html_ways(struct strbuf *b, const struct node *x)
{
	const struct node *st = node_get(x, "outcome"), *mail = node_get(st, "mail");
	const char *sep = "";

	if (*page_get(x, "mail_url")) {
		strbuf_addstr(b, "<a href=\"");
		html_escape(b, page_get(x, "mail_url"));
		strbuf_addstr(b, "\">mail</a>");
		sep = " · ";
	}
	if (node_get(st, "bisection")) {
		strbuf_addstr(b, sep);
		html_link(b, "bisections", page_get(st, "bisection"), "bisection");
		sep = " · ";
	}
	if (mail) {
		strbuf_addstr(b, sep);
		html_link(b, "reports", page_get(mail, "id"), "report");
	}
}

static void html_series_row(struct strbuf *b, const struct node *x, bool list_column)
{
	const struct node *st = node_get(x, "outcome");
	const char *kind = page_get(st, "kind");

	strbuf_addf(b, "<tr%s%s%s>", *kind ? " class=\"" : "", kind, *kind ? "\"" : "");
	if (list_column)
		html_td(b, page_get(x, "list"));
	html_td_class(b, "subject", page_get(x, "subject"));
	strbuf_addf(b, "<td>v%s</td>", page_get(x, "version"));
	html_td(b, page_get(x, "author"));
	strbuf_addstr(b, "<td>");
	page_state_html(b, st);
	if (node_get(st, "culprit")) {
		strbuf_addstr(b, "<br>culprit ");
		html_commit_subject(b, page_get(node_get(st, "culprit"), "commit"),
				    page_get(node_get(st, "culprit"), "subject"));
	}
	strbuf_addstr(b, "</td><td>");
	if (*page_get(x, "head")) {
		strbuf_addstr(b, "<a href=\"/commit/");
		html_url_escape(b, page_get(x, "head"));
		strbuf_addstr(b, "\">");
		html_escape(b, page_get(x, "branch"));
		strbuf_addstr(b, "</a>");
		if (*page_get(x, "fetch")) {
			strbuf_addstr(b, "<br><code>");
			html_escape(b, page_get(x, "fetch"));
			strbuf_addstr(b, "</code>");
		}
	}
	strbuf_addstr(b, "</td><td>");
	html_commit_link(b, page_get(x, "base"));
	strbuf_addstr(b, "</td><td>");
	html_ways(b, x);
	strbuf_addstr(b, "</td>");
	html_td_time(b, page_getnum(x, "first_seen"));
	strbuf_addstr(b, "</tr>\n");
}

static void series_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;
	bool one = d->n && env->nlists == 1;

	strbuf_addstr(&doc->title, "patch series");
	for (size_t i = 0; i < d->n; i++)
		one = one && !strcmp(page_get(d->vals[i], "list"), page_get(d->vals[0], "list"));
	strbuf_addf(b,
		    "<p class=\"note\">%zu series of %zu mailing list%s, newest first: each applied on its base "
		    "and its head tested like a pushed head.</p>\n",
		    d->n, env->nlists, env->nlists == 1 ? "" : "s");
	if (env->nlists > 1) {
		strbuf_addstr(b, "<ul class=\"filters\"><li><a href=\"/series\">every list</a></li>");
		for (size_t i = 0; i < env->nlists; i++) {
			strbuf_addstr(b, "<li><a href=\"/series?list=");
			html_url_escape(b, env->lists[i].name);
			strbuf_addstr(b, "\">");
			html_escape(b, env->lists[i].name);
			strbuf_addstr(b, "</a></li>");
		}
		strbuf_addstr(b, "</ul>\n");
	}
	if (!d->n) {
		strbuf_addstr(b, "<p class=\"note\">No series seen yet.</p>\n");
		return;
	}
	strbuf_addstr(b, "<table><tr>");
	if (!one)
		strbuf_addstr(b, "<th>list</th>");
	strbuf_addstr(b,
		      "<th>series</th><th>version</th><th>author</th><th>state</th><th>branch</th><th>base</th>"
		      "<th>see</th><th>seen</th></tr>\n");
	for (size_t i = 0; i < d->n; i++)
		html_series_row(b, d->vals[i], !one);
	strbuf_addstr(b, "</table>\n");
}

const struct page_def page_def_series = {
	.name = "series",
	.nav = "series",
	.list = true,
	.key = "id",
	.query = "[?list=NAME]",
	.data = series_data,
	.html = series_html,
};

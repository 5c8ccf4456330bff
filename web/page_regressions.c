/*
 * page_regressions: the maintainer's daily view — one row a report the
 * robot mailed, with its signed change and interval, metric, tree and
 * branch, culprit and subject, triage state, age and the ways to its mail,
 * bisection and history; filtered by state, tree and MAINTAINERS section,
 * a page at a time (?limit=&after=). With the token, its state is set
 * here too. See pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "../lib/store/store.h"
#include "../lib/util/paging.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const states[] = { "new", "acknowledged", "fixed", "invalid", "wont-fix", "duplicate", NULL };
/* The dashboard's verbs (POST /api/regressions/ID/VERB) and the states they set. */
static const char *const verbs[][2] = { { "ack", "acknowledged" },
					{ "fixed", "fixed" },
					{ "invalid", "invalid" },
					{ "wontfix", "wont-fix" },
					{ "reopen", "new" } };

const char *page_regression_state(const char *verb)
{
	for (size_t i = 0; i < sizeof(verbs) / sizeof(*verbs); i++)
		if (!strcmp(verbs[i][0], verb))
			return verbs[i][1];
	return NULL;
}

/* Is line (case aside) one of the lines of text? */
static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		if (len == n && !strncasecmp(p, line, n))
			return true;
		p += len + (p[len] == '\n');
	}
	return false;
}

/* A report's row as the page shows it: the store's, the culprit's subject, its age and history. */
static struct node *row_of(struct page_ctx *c, const struct node *r, time_t now)
{
	struct node *x = node_dup(r);
	struct node *h = NULL;
	struct strbuf e = STRBUF_INIT;

	node_set(x, "culprit_ref", page_commit_ref(c, page_get(r, "culprit")));
	node_set(x, "age", page_num(difftime(now, (time_t)page_getnum(r, "created"))));
	if (store_report_history(c->s, (int64_t)page_getnum(r, "id"), &h, &e))
		h = node_new(NODE_SEQ);
	node_set(x, "history", h);
	strbuf_release(&e);
	return x;
}

static int regressions_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *state = page_arg(a, "state"), *tree = page_arg(a, "tree"), *sect = page_arg(a, "maintainers");
	struct node *rows = NULL;
	long limit;
	time_t now = time(NULL);

	if (state && !page_regression_state(state)) {
		bool known = false;
		for (const char *const *s = states; *s; s++)
			known |= !strcmp(*s, state);
		if (!known) {
			strbuf_setf(err, "state '%s' is none of new, acknowledged, fixed, invalid, wont-fix, duplicate",
				    state);
			return 400;
		}
	}
	if (store_reports(c->s, &rows, err))
		return 500;
	for (size_t i = 0; i < rows->n; i++) {
		const struct node *r = rows->vals[i];
		if ((state && strcmp(page_get(r, "state"), state)) || (tree && strcmp(page_get(r, "tree"), tree)) ||
		    (sect && !has_line(page_get(r, "sections"), sect)))
			continue;
		node_push(out, row_of(c, r, now));
	}
	node_free(rows);
	if (paging_limit("limit", page_arg(a, "limit"), &limit, err) ||
	    paging_window(out, "id", "after", page_arg(a, "after"), limit, err))
		return 400;
	return 200;
}

/* "-30.5% [-31.2%, -29.8%]": the signed change and its interval. */
static void change_cell(struct strbuf *b, const struct node *r)
{
	double ch = page_getnum(r, "change"), lo = page_getnum(r, "lo"), hi = page_getnum(r, "hi");

	strbuf_addstr(b, "<td class=\"num\">");
	if (isfinite(ch))
		strbuf_addf(b, "%+.1f%%", ch);
	if (isfinite(lo) && isfinite(hi))
		strbuf_addf(b, " <span class=\"muted\">[%+.1f%%, %+.1f%%]</span>", lo, hi);
	strbuf_addstr(b, "</td>");
}

/* The metric, linked to its history (testcase/path_params and machine of the report). */
static void metric_cell(struct strbuf *b, const struct node *r)
{
	const char *tc = page_get(r, "testcase"), *slash = strchr(tc, '/');
	char *testcase = xstrndup(tc, slash ? (size_t)(slash - tc) : strlen(tc));

	strbuf_addstr(b, "<td><a href=\"");
	page_history_href(b, testcase, slash ? slash + 1 : "defaults", page_get(r, "metric"), NULL);
	strbuf_addstr(b, "\">");
	html_escape(b, page_get(r, "metric"));
	strbuf_addstr(b, "</a></td>");
	free(testcase);
}

/* Its state, its last reason, and with the token the forms that change it. */
static void state_cell(struct strbuf *b, const struct node *r, bool actions)
{
	const struct node *h = node_get(r, "history");
	const char *why = h && h->n ? page_get(h->vals[h->n - 1], "why") : "";

	strbuf_addstr(b, "<td>");
	page_badge(b, page_get(r, "state"), why);
	for (size_t i = 0; actions && i < sizeof(verbs) / sizeof(*verbs); i++)
		if (strcmp(page_get(r, "state"), verbs[i][1]))
			page_action_form(b, "regressions", (long long)page_getnum(r, "id"), verbs[i][0]);
	strbuf_addstr(b, "</td>");
}

static void filters(struct strbuf *b, const struct node *d)
{
	strbuf_addstr(b, "<p class=\"see\">State: <a href=\"/regressions\">all</a>");
	for (const char *const *s = states; *s; s++) {
		strbuf_addf(b, " · <a href=\"/regressions?state=%s\">", *s);
		html_escape(b, *s);
		strbuf_addstr(b, "</a>");
	}
	struct strbuf seen = STRBUF_INIT;
	for (size_t i = 0; i < d->n; i++) {
		const char *t = page_get(d->vals[i], "tree");
		if (!*t || has_line(seen.buf, t))
			continue;
		strbuf_addf(&seen, "%s\n", t);
		strbuf_addstr(b, seen.len == strlen(t) + 1 ? "<br>Tree: " : " · ");
		strbuf_addstr(b, "<a href=\"/regressions?tree=");
		html_url_escape(b, t);
		strbuf_addstr(b, "\">");
		html_escape(b, t);
		strbuf_addstr(b, "</a>");
	}
	strbuf_release(&seen);
	strbuf_addstr(b,
		      "</p>\n<form method=\"get\" action=\"/regressions\"><input name=\"maintainers\" "
		      "placeholder=\"MAINTAINERS section\"><button>filter</button></form>\n");
}

static void regressions_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;

	strbuf_addstr(&doc->title, "regressions");
	filters(b, d);
	if (!d->n) {
		strbuf_addstr(b, "<p>No report (of this kind) yet.</p>\n");
		return;
	}
	strbuf_addstr(b,
		      "<table><tr><th>report</th><th>change</th><th>metric</th><th>tree</th><th>culprit</th>"
		      "<th>state</th><th>age</th><th>see</th></tr>\n");
	for (size_t i = 0; i < d->n; i++) {
		const struct node *r = d->vals[i], *ref = node_get(r, "culprit_ref");
		strbuf_addf(b, "<tr id=\"r%s\"><td>%s %s</td>", page_get(r, "id"), page_get(r, "id"),
			    page_get(r, "kind"));
		change_cell(b, r);
		metric_cell(b, r);
		strbuf_addstr(b, "<td>");
		html_escape(b, page_get(r, "tree"));
		strbuf_addstr(b, " ");
		html_escape(b, page_get(r, "branch"));
		strbuf_addstr(b, "</td><td>");
		html_commit_subject(b, page_get(ref, "commit"), page_get(ref, "subject"));
		strbuf_addstr(b, "</td>");
		state_cell(b, r, env->actions);
		strbuf_addf(b, "<td>%.0f d</td><td>", floor(page_getnum(r, "age") / 86400));
		if (*page_get(r, "outbox"))
			html_link(b, "reports", page_get(r, "outbox"), "mail and history");
		if (*page_get(r, "bisection")) {
			strbuf_addstr(b, " · ");
			html_link(b, "bisections", page_get(r, "bisection"), "bisection");
		}
		strbuf_addstr(b, "</td></tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

const struct page_def page_def_regressions = {
	.name = "regressions",
	.nav = "regressions",
	.query = "?state=S&tree=T&maintainers=SECTION",
	.list = true,
	.key = "id",
	.data = regressions_data,
	.html = regressions_html,
	.reads = STORE_READS(STORE_TOPIC_REPORTS) | STORE_READS(STORE_TOPIC_OUTBOX) |
		 STORE_READS(STORE_TOPIC_BISECTIONS),
};

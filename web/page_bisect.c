/*
 * page_bisect: a bisection's page — its ends and culprit with their
 * subjects, its honest state, every commit of the range with what was
 * measured there, and the ways on: the compare of the culprit with its
 * parent, the metric's history, the mail, the head it tested. See
 * pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "../lib/kernel/git.h"
#include "../lib/results/compare.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BISECT_SHOWN 500	/* commits of a range listed; the rest counted */

/* One commit of the range: its subject, runs, failed runs and samples of the metric. */
static struct node *range_commit(struct page_ctx *c, const char *commit, const char *metric, struct node **first_run)
{
	struct store_query q = { .commit = commit };
	struct node *runs, *samples = node_new(NODE_SEQ), *cm = page_commit_ref(c, commit);
	struct strbuf e = STRBUF_INIT;
	size_t nruns = 0, failed = 0;

	if (!store_list_runs(c->s, &q, &runs, &e)) {
		for (size_t r = 0; r < runs->n; r++) {
			const struct node *run = runs->vals[r];
			struct node *st;
			bool has = !*metric;
			if (*metric && store_run_stats(c->s, page_get(run, "result_root"), &st, &e) == 0) {
				double v;
				if (json_number(node_get(st, metric), &v)) {
					node_push(samples, page_num(v));
					has = true;
				}
				node_free(st);
			}
			/* a run of this job: it has the metric, or failed before it could */
			bool bad = *page_get(run, "job_state") && strcmp(page_get(run, "job_state"), "finished");
			if (has || bad) {
				nruns++;
				failed += bad;
				if (first_run && !*first_run && has)
					*first_run = node_dup(run);
			}
		}
		node_free(runs);
	}
	strbuf_release(&e);
	node_append(cm, "runs", page_num((double)nruns));
	node_append(cm, "failed", page_num((double)failed));
	node_append(cm, "samples", samples);
	return cm;
}

/*
 * The ways on from bisection row: the compare (of the culprit with its
 * parent, else of the ends), the metric's history (the job of first_run),
 * the mail, the head it tested (whose kind its state takes when it found a
 * culprit).
 */
static struct node *ways_on(struct page_ctx *c, const struct node *row, const char *parent,
			    const struct node *first_run, struct node *state, struct strbuf *err)
{
	const char *metric = page_get(row, "metric"), *culprit = page_get(row, "culprit");
	struct node *see = node_new(NODE_MAP);

	node_append(see, "compare_base", page_str(*culprit && *parent ? parent : page_get(row, "good")));
	node_append(see, "compare_commit", page_str(*culprit ? culprit : page_get(row, "bad")));
	if (first_run && *metric) {
		node_append(see, "testcase", page_str(page_get(first_run, "testcase")));
		node_append(see, "path_params", page_str(page_get(first_run, "path_params")));
	}
	const struct node *m = page_mail_about(c, culprit);
	if (m) {
		node_append(see, "mail", page_num(page_getnum(m, "id")));
		node_append(see, "mail_subject", page_str(page_get(m, "subject")));
	}
	/* the head it bisects: asked by its ends, not every head read */
	struct node *heads = NULL;
	if (store_heads_between(c->s, page_get(row, "good"), page_get(row, "bad"), &heads, err))
		heads = NULL;
	for (size_t i = heads ? heads->n : 0; i-- > 0;)
		if (!strcmp(page_get(heads->vals[i], "base"), page_get(row, "good")) &&
		    !strcmp(page_get(heads->vals[i], "head"), page_get(row, "bad"))) {
			struct node *hr = page_head_row(c, heads->vals[i], false);
			const char *kind = page_get(node_get(hr, "state"), "kind");
			if (*kind && *culprit)
				node_append(state, "kind", page_str(kind));
			node_append(see, "head", hr);
			break;
		}
	node_free(heads);
	return see;
}

/* /bisections/<id> */
static int bisection_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *rest = a->rest;
	long long id;
	struct node *row;

	if (!page_id_ok(rest, &id)) {
		strbuf_setf(err, "'%s': not a bisection id", rest ? rest : "");
		return 400;
	}
	int rc = store_bisection_row(c->s, id, &row, err);
	if (rc < 0)
		return 500;
	if (rc) {
		strbuf_setf(err, "no bisection %lld", id);
		return 404;
	}
	const char *metric = page_get(row, "metric"), *culprit = page_get(row, "culprit");
	ssize_t ti = page_tree_by_path(c, page_get(row, "tree"));
	node_append(out, "bisection", row);
	node_append(out, "tree_name", page_str(ti >= 0 ? c->env->trees[ti].name : page_get(row, "tree")));
	node_append(out, "state", page_bisection_state(c, row));
	node_append(out, "good_ref", page_commit_ref(c, page_get(row, "good")));
	node_append(out, "bad_ref", page_commit_ref(c, page_get(row, "bad")));
	if (*culprit)
		node_append(out, "culprit_ref", page_commit_ref(c, culprit));
	/* the culprit's checks (the revert, the layout) as data, not text inside the row */
	const char *checks = page_get(row, "checks");
	struct strbuf ce = STRBUF_INIT;
	struct node *cj = *checks ? json_parse(checks, strlen(checks), "checks", &ce) : NULL;
	node_append(out, "checks", cj ? cj : node_new(NODE_NULL));
	strbuf_release(&ce);
	/* the range, when its repository is there: the good end first, the bad end last */
	struct gitrepo *repo = ti >= 0 ? page_repo(c, (size_t)ti) : NULL, *own = NULL;
	struct gitrepo_range range = { 0 };
	struct strbuf e = STRBUF_INIT;
	if (!repo && !gitrepo_open(&own, page_get(row, "tree"), &e))
		repo = own;
	if (repo && gitrepo_range(repo, page_get(row, "good"), page_get(row, "bad"), false, &range, &e))
		range.n = 0;
	struct node *commits = node_new(NODE_SEQ), *first_run = NULL;
	size_t n = range.n ? range.n + 1 : 2, measured = 0, with_samples = 0;
	char parent[GITREPO_HEXSZ + 1] = "";
	for (size_t i = 0; i < n; i++) {
		const char *cm = i == 0 ? page_get(row, "good") : range.n ? range.id[i - 1] : page_get(row, "bad");
		if (*culprit && !strcmp(cm, culprit) && i > 0 && range.n) {
			/* the culprit's parent in the range (the good end for the first commit) */
			size_t pi = range.nparents[i - 1] ? range.parents[i - 1][0] + 1 : 0;
			snprintf(parent, sizeof(parent), "%s", pi ? range.id[pi - 1] : page_get(row, "good"));
		}
		struct node *x = range_commit(c, cm, metric, i == n - 1 ? &first_run : NULL);
		measured += page_getnum(x, "runs") > 0;
		with_samples += node_get(x, "samples")->n > 0;
		if (i < BISECT_SHOWN || i == n - 1)
			node_push(commits, x);
		else
			node_free(x);
	}
	gitrepo_range_release(&range);
	gitrepo_close(own);
	strbuf_release(&e);
	if (*culprit && !*parent) {
		const struct node *info = page_commit_info(c, culprit), *ps = node_get(info, "parents");
		if (ps && ps->n)
			snprintf(parent, sizeof(parent), "%s", node_str(ps->vals[0]));
	}
	node_append(out, "commits", commits);
	node_append(out, "range", page_num((double)n));
	node_append(out, "measured", page_num((double)measured));
	node_append(out, "with_samples", page_num((double)with_samples));
	node_append(out, "see", ways_on(c, row, parent, first_run, node_get(out, "state"), err));
	node_free(first_run);
	return 200;
}

static void kv_commit(struct strbuf *b, const char *what, const struct node *ref)
{
	strbuf_addstr(b, "<tr><th>");
	html_escape(b, what);
	strbuf_addstr(b, "</th><td>");
	if (ref)
		html_commit_subject(b, page_get(ref, "commit"), page_get(ref, "subject"));
	strbuf_addstr(b, "</td></tr>");
}

/* The culprit's checks: what the revert and the layout check said, each a row. */
static void checks_html(struct strbuf *b, const struct node *checks)
{
	static const char *const kinds[][2] = { { "revert", "revert check" }, { "layout", "layout check" } };

	for (size_t k = 0; checks && checks->type == NODE_MAP && k < 2; k++) {
		const struct node *c = node_get(checks, kinds[k][0]);
		if (!c || !*page_get(c, "why"))
			continue;
		strbuf_addstr(b, "<tr><th>");
		html_escape(b, kinds[k][1]);
		strbuf_addstr(b, "</th><td>");
		html_escape(b, page_get(c, "status"));
		strbuf_addstr(b, ": ");
		html_escape(b, page_get(c, "why"));
		strbuf_addf(b, " (%s builds, %s runs)</td></tr>", page_get(c, "builds"), page_get(c, "runs"));
	}
}

/* The range, good end first: each commit with its runs, failed runs and the metric's samples and mean. */
static void html_range(const struct node *d, const char *culprit, struct strbuf *b)
{
	const struct node *commits = node_get(d, "commits");

	strbuf_addstr(b,
		      "<h2>The range (good end first)</h2>\n<table><tr><th>commit</th><th>subject</th><th>runs</th>"
		      "<th>failed</th><th>mean</th><th>samples</th></tr>\n");
	for (size_t i = 0; i < commits->n; i++) {
		const struct node *c = commits->vals[i], *sm = node_get(c, "samples");
		double sum = 0, v;
		struct strbuf list = STRBUF_INIT;
		for (size_t k = 0; k < sm->n; k++)
			if (json_number(sm->vals[k], &v)) {
				sum += v;
				if (k)
					strbuf_addch(&list, ' ');
				struct strbuf one = STRBUF_INIT;
				compare_format_value(&one, v);
				const char *p = one.buf;
				while (*p == ' ')
					p++;
				strbuf_addstr(&list, p);
				strbuf_release(&one);
			}
		strbuf_addf(b, "<tr%s><td>",
			    *culprit && !strcmp(page_get(c, "commit"), culprit) ? " class=\"culprit\"" : "");
		html_commit_link(b, page_get(c, "commit"));
		strbuf_addstr(b, "</td>");
		html_td_class(b, "subject", page_get(c, "subject"));
		html_td(b, page_get(c, "runs"));
		html_td(b, page_getnum(c, "failed") > 0 ? page_get(c, "failed") : "");
		html_td_num(b, sm->n ? sum / (double)sm->n : NAN);
		html_td(b, list.buf);
		strbuf_addstr(b, "</tr>\n");
		strbuf_release(&list);
	}
	strbuf_addstr(b, "</table>\n");
	if (page_getnum(d, "range") > (double)commits->n)
		strbuf_addf(b, "<p class=\"note\">%zu of %s commits listed.</p>\n", commits->n, page_get(d, "range"));
}

static void bisection_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;
	const struct node *x = node_get(d, "bisection");
	const struct node *st = node_get(d, "state"), *see = node_get(d, "see");
	const char *culprit = page_get(x, "culprit"), *metric = page_get(x, "metric");

	(void)env;
	strbuf_addf(&doc->title, "bisection %s: %s", page_get(x, "id"), page_get(st, "state"));
	doc->refresh = (int)page_getnum(st, "refresh");
	/* the ways on first: a reader from a mail wants these */
	strbuf_addstr(b, "<p class=\"see\">");
	strbuf_addstr(b, "<a href=\"");
	html_compare_href(b, page_get(see, "compare_base"), page_get(see, "compare_commit"));
	strbuf_addstr(b, *culprit ? "\">compare the culprit with its parent</a>" : "\">compare the ends</a>");
	if (node_get(see, "testcase")) {
		strbuf_addstr(b, " · <a href=\"");
		page_history_href(b, page_get(see, "testcase"), page_get(see, "path_params"), metric, NULL);
		strbuf_addstr(b, "\">the history of ");
		html_escape(b, metric);
		strbuf_addstr(b, "</a>");
	}
	if (node_get(see, "mail")) {
		strbuf_addstr(b, " · the mail: ");
		html_link(b, "reports", page_get(see, "mail"), page_get(see, "mail_subject"));
	}
	const struct node *h = node_get(see, "head");
	if (h) {
		strbuf_addstr(b, " · the head it tested: ");
		html_commit_link(b, page_get(h, "head"));
	}
	strbuf_addstr(b, "</p>\n<table class=\"kv\">");
	const char *keys[][2] = { { "tree", "tree_name" }, { "job", "job" }, { "provider", "provider" }, { "metric", "metric" } };
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		strbuf_addstr(b, "<tr><th>");
		html_escape(b, keys[i][0]);
		strbuf_addstr(b, "</th>");
		html_td(b, page_get(i ? x : d, keys[i][1]));
		strbuf_addstr(b, "</tr>");
	}
	strbuf_addstr(b, "<tr><th>state</th><td>");
	page_state_html(b, st);
	strbuf_addstr(b, "</td></tr>");
	if (*page_get(x, "why")) {
		/* the decision's reason: why a culprit was or was not reported, why it failed */
		strbuf_addstr(b, "<tr><th>why</th>");
		html_td(b, page_get(x, "why"));
		strbuf_addstr(b, "</tr>");
	}
	checks_html(b, node_get(d, "checks"));
	kv_commit(b, "good", node_get(d, "good_ref"));
	kv_commit(b, "bad", node_get(d, "bad_ref"));
	kv_commit(b, "culprit", node_get(d, "culprit_ref"));
	strbuf_addf(b, "<tr><th>measured</th><td>%s of %s commits have runs", page_get(d, "measured"), page_get(d, "range"));
	if (*metric)
		strbuf_addf(b, ", %s with samples of the metric", page_get(d, "with_samples"));
	strbuf_addstr(b, "</td></tr><tr><th>started</th>");
	html_td_time(b, page_getnum(x, "created"));
	strbuf_addstr(b, "</tr><tr><th>last change</th>");
	html_td_time(b, page_getnum(x, "updated"));
	strbuf_addstr(b, "</tr></table>\n");
	html_range(d, culprit, b);
}

const struct page_def page_def_bisection = {
	.name = "bisections",
	.rest = "ID",
	.data = bisection_data,
	.html = bisection_html,
	.reads = STORE_READS(STORE_TOPIC_BISECTIONS) | STORE_READS(STORE_TOPIC_HEADS) |
		 STORE_READS(STORE_TOPIC_OUTBOX) | STORE_READS(STORE_TOPIC_RUNS),
};

/*
 * page_overview: the home page (/, /overview), the one a maintainer opens
 * every day — per watched tree and branch (or the one the query names) the
 * newest heads with their subjects, authors, states, culprits and mails;
 * the queue, the last bisections and mails, the farm, the boxes and the
 * machines. See pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "../lib/store/store.h"
#include "../providers/provider.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OVERVIEW_HEADS 20	/* a branch's newest heads on the overview */
#define OVERVIEW_MAILS 20
#define OVERVIEW_BISECTIONS 20

static bool wanted(const struct page_args *a, const char *tree, const char *branch)
{
	const char *t = page_arg(a, "tree"), *br = page_arg(a, "branch");
	return (!t || !strcmp(t, tree)) && (!br || !strcmp(br, branch));
}

/* The group (tree, branch) in groups, made when new. */
static struct node *group_of(struct node *groups, const char *tree, const char *branch)
{
	for (size_t i = 0; i < groups->n; i++)
		if (!strcmp(page_get(groups->vals[i], "tree"), tree) && !strcmp(page_get(groups->vals[i], "branch"), branch))
			return groups->vals[i];
	struct node *g = node_new(NODE_MAP);
	node_append(g, "tree", page_str(tree));
	node_append(g, "branch", page_str(branch));
	node_append(g, "heads", node_new(NODE_SEQ));
	node_append(g, "total", page_num(0));
	node_push(groups, g);
	return g;
}

/* The providers' boxes now (Slurm's nodes, ...), each with what runs there: farm, farm_titles, farm_error. */
static void farm_now(const struct page_env *env, struct node *out)
{
	struct node *farm = node_new(NODE_SEQ), *titles = node_new(NODE_MAP);
	struct strbuf errs = STRBUF_INIT;

	for (size_t i = 0; i < env->ninventories; i++) {
		const struct web_inventory *inv = &env->inventories[i];
		struct node *its;
		struct strbuf e = STRBUF_INIT;
		if (provider_inventory(inv->ops, inv->cfg, &its, &e)) {
			strbuf_addf(&errs, "%s%s", errs.len ? "; " : "", e.buf);
		} else {
			for (size_t k = 0; k < its->n; k++)
				node_push(farm, node_dup(its->vals[k]));
			node_free(its);
		}
		node_set(titles, inv->ops->name, page_str(inv->ops->inventory_title));
		strbuf_release(&e);
	}
	node_append(out, "farm", farm);
	node_append(out, "farm_titles", titles);
	if (errs.len)
		node_append(out, "farm_error", page_str(errs.buf));
	strbuf_release(&errs);
}

static int newest_first(const void *a, const void *b)
{
	double x = page_getnum(*(const struct node *const *)a, "newest");
	double y = page_getnum(*(const struct node *const *)b, "newest");
	return (x < y) - (x > y);
}

/*
 * Each wanted branch's newest heads and count, and the queue (newest
 * first): asked of the store branch by branch, so that the page reads the
 * heads it shows, not every head. *total: every head of every branch.
 */
static int overview_heads(struct page_ctx *c, const struct page_args *a, struct node *groups, struct node *queue,
			  double *total, struct strbuf *err)
{
	struct node *branches = NULL, *todo = NULL;

	*total = 0;
	if (store_heads_branches(c->s, &branches, err) || store_heads(c->s, true, &todo, err)) {
		node_free(branches);
		return -1;
	}
	/* the branches the configuration does not name come in the order of their newest heads */
	if (branches->n > 1)
		qsort(branches->vals, branches->n, sizeof(*branches->vals), newest_first);
	for (size_t i = 0; i < branches->n; i++) {
		const struct node *b = branches->vals[i];
		const char *tree = page_get(b, "tree"), *branch = page_get(b, "branch");
		struct node *hs = NULL;
		*total += page_getnum(b, "total");
		if (!wanted(a, tree, branch))
			continue;
		struct node *g = group_of(groups, tree, branch), *gh = node_get(g, "heads");
		node_set(g, "total", page_num(page_getnum(b, "total")));
		if (store_heads_of_branch(c->s, tree, branch, OVERVIEW_HEADS, &hs, err)) {
			node_free(branches);
			node_free(todo);
			return -1;
		}
		for (size_t k = 0; k < hs->n; k++)
			node_push(gh, page_head_row(c, hs->vals[k], true));
		node_free(hs);
	}
	for (size_t i = todo->n; i-- > 0;)
		if (wanted(a, page_get(todo->vals[i], "tree"), page_get(todo->vals[i], "branch")))
			node_push(queue, page_head_row(c, todo->vals[i], true));
	node_free(branches);
	node_free(todo);
	return 0;
}

static int overview_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const struct page_env *env = c->env;
	const struct node *bis = page_bisections(c, err);
	const struct node *mails = bis ? page_mails(c, err) : NULL;
	struct node *machines = NULL, *boxes = NULL;

	if (!mails || store_machines(c->s, &machines, err) || store_boxes(c->s, &boxes, err)) {
		node_free(machines);
		return 500;
	}
	/* the trees: the configured ones with their branches, then any other the heads name */
	struct node *trees = node_new(NODE_SEQ), *groups = node_new(NODE_SEQ), *queue = node_new(NODE_SEQ);
	for (size_t i = 0; i < env->ntrees; i++) {
		struct node *t = node_new(NODE_MAP), *brs = node_new(NODE_SEQ);
		node_append(t, "name", page_str(env->trees[i].name));
		for (size_t k = 0; k < env->trees[i].nbranches; k++) {
			node_push(brs, page_str(env->trees[i].branches[k]));
			if (wanted(a, env->trees[i].name, env->trees[i].branches[k]))
				group_of(groups, env->trees[i].name, env->trees[i].branches[k]);
		}
		node_append(t, "branches", brs);
		node_push(trees, t);
	}
	double heads_total;
	if (overview_heads(c, a, groups, queue, &heads_total, err)) {
		node_free(trees);
		node_free(groups);
		node_free(queue);
		node_free(machines);
		node_free(boxes);
		return 500;
	}
	struct node *recent = node_new(NODE_SEQ);
	const char *ft = page_arg(a, "tree");
	for (size_t i = 0; i < bis->n && recent->n < OVERVIEW_BISECTIONS; i++) {
		struct node *r = page_bisection_row(c, bis->vals[i]);
		if (!ft || !strcmp(page_get(r, "tree_name"), ft))
			node_push(recent, r);
		else
			node_free(r);
	}
	struct node *last_mails = node_new(NODE_SEQ);
	for (size_t i = mails->n; i-- > 0 && last_mails->n < OVERVIEW_MAILS;)
		node_push(last_mails, node_dup(mails->vals[i]));
	struct node *filter = node_new(NODE_MAP);
	node_append(filter, "tree", page_str(page_arg(a, "tree")));
	node_append(filter, "branch", page_str(page_arg(a, "branch")));
	node_append(out, "filter", filter);
	node_append(out, "trees", trees);
	node_append(out, "queue", queue);
	node_append(out, "branches", groups);
	node_append(out, "heads_total", page_num(heads_total));
	node_append(out, "bisections", recent);
	node_append(out, "mails", last_mails);
	node_append(out, "mails_total", page_num((double)mails->n));
	node_append(out, "machines", machines);
	node_append(out, "boxes", boxes);	/* the ssh provider's real boxes: in service or not */
	struct node *acc = NULL;
	node_append(out, "accuracy", store_report_accuracy(c->s, &acc, err) ? node_new(NODE_SEQ) : acc);
	strbuf_reset(err);
	if (env->ninventories)
		farm_now(env, out);
	return 200;
}

/* <a href="/?tree=T&amp;branch=B">text</a>, marked when it is the filter in use */
static void filter_link(struct strbuf *b, const char *tree, const char *branch, const char *text, bool on)
{
	strbuf_addf(b, "<a%s href=\"/", on ? " class=\"on\"" : "");
	if (tree) {
		strbuf_addstr(b, "?tree=");
		html_url_escape(b, tree);
	}
	if (branch) {
		strbuf_addstr(b, "&amp;branch=");
		html_url_escape(b, branch);
	}
	strbuf_addstr(b, "\">");
	html_escape(b, text);
	strbuf_addstr(b, "</a>");
}

static void html_farm(const struct node *d, struct strbuf *b)
{
	const struct node *farm = node_get(d, "farm"), *boxes = node_get(d, "boxes");

	const struct node *titles = node_get(d, "farm_titles");
	/* one table a provider: its boxes, their states, what runs on each */
	for (size_t t = 0; titles && t < titles->n; t++) {
		size_t n = 0, busy = 0;
		for (size_t i = 0; farm && i < farm->n; i++)
			if (!strcmp(page_get(farm->vals[i], "provider"), titles->keys[t])) {
				n++;
				busy += !strncmp(page_get(farm->vals[i], "state"), "alloc", 5) ||
					!strcmp(page_get(farm->vals[i], "state"), "mixed") || *page_get(farm->vals[i], "running");
			}
		if (!n)
			continue;
		strbuf_addstr(b, "<h2>");
		html_escape(b, page_get(titles, titles->keys[t]));
		strbuf_addf(b, " (%zu boxes, %zu busy)</h2>\n<table><tr><th>box</th><th>features</th>"
			       "<th>state</th><th>CPUs</th><th>memory (MB)</th><th>running</th></tr>\n", n, busy);
		for (size_t i = 0; i < farm->n; i++) {
			const char *keys[] = { "name", "features", "state", "cpus", "memory_mb", "running" };
			if (strcmp(page_get(farm->vals[i], "provider"), titles->keys[t]))
				continue;
			strbuf_addstr(b, "<tr>");
			for (size_t k = 0; k < 6; k++)
				html_td(b, page_get(farm->vals[i], keys[k]));
			strbuf_addstr(b, "</tr>\n");
		}
		strbuf_addstr(b, "</table>\n");
	}
	if (node_get(d, "farm_error")) {
		strbuf_addstr(b, "<h2>The farm</h2>\n<p>");
		html_escape(b, page_get(d, "farm_error"));
		strbuf_addstr(b, "</p>\n");
	}
	if (boxes && boxes->n) {
		strbuf_addstr(b, "<h2>Test boxes (ssh)</h2>\n<table><tr><th>box</th><th>state</th><th>failures in a row</th>"
			       "<th>last error</th><th>last good run</th></tr>\n");
		for (size_t i = 0; i < boxes->n; i++) {
			const struct node *x = boxes->vals[i];
			strbuf_addstr(b, "<tr>");
			html_td(b, page_get(x, "name"));
			html_td(b, !strcmp(page_get(x, "in_service"), "0") ? "out of service (lkprobot box enable)" : "in service");
			html_td(b, page_get(x, "failures"));
			html_td(b, page_get(x, "last_error"));
			html_td_time(b, page_getnum(x, "last_ok"));
			strbuf_addstr(b, "</tr>\n");
		}
		strbuf_addstr(b, "</table>\n");
	}
}

static void html_machines(const struct node *machines, struct strbuf *b)
{
	strbuf_addf(b, "<h2>Machines (%zu)</h2>\n<p class=\"note\">One job at a time on each test box.</p>\n"
		       "<table><tr><th>testbox</th><th>tbox_group</th><th>CPUs</th><th>memory</th><th>model</th>"
		       "<th>runs</th><th>last run</th></tr>\n", machines->n);
	for (size_t i = 0; i < machines->n; i++) {
		const struct node *m = machines->vals[i];
		char mem[32] = "";
		if (isfinite(page_getnum(m, "memory")))
			snprintf(mem, sizeof(mem), "%.1f GiB", page_getnum(m, "memory") / (1024.0 * 1024 * 1024));
		strbuf_addstr(b, "<tr>");
		html_td(b, page_get(m, "name"));
		html_td(b, page_get(m, "tbox_group"));
		html_td(b, page_get(m, "nr_cpu"));
		html_td(b, mem);
		html_td(b, page_get(m, "model"));
		html_td(b, page_get(m, "runs"));
		html_td_time(b, page_getnum(m, "last_run"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

/* The accuracy record: per test and machine, what the triage made of the reports. */
static void html_accuracy(const struct node *acc, struct strbuf *b)
{
	if (!acc || !acc->n)
		return;
	strbuf_addstr(
		b,
		"<h2>Accuracy of the reports</h2>\n<p class=\"note\">From their triage states (<a "
		"href=\"/regressions\">regressions</a>): confirmed is acknowledged, fixed or won't fix; corrected "
		"a duplicate of another report.</p>\n<table><tr><th>test</th><th>machine</th><th>reports</th>"
		"<th>confirmed</th><th>invalid</th><th>corrected</th><th>not triaged</th></tr>\n");
	for (size_t i = 0; i < acc->n; i++) {
		const struct node *r = acc->vals[i];
		const char *cols[] = { "testcase", "machine", "reports", "confirmed", "invalid", "corrected", "new" };
		strbuf_addstr(b, "<tr>");
		for (size_t k = 0; k < 7; k++)
			html_td(b, page_get(r, cols[k]));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

static void overview_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;
	const struct node *queue = node_get(d, "queue"), *groups = node_get(d, "branches");
	const struct node *trees = node_get(d, "trees"), *filter = node_get(d, "filter");
	const char *ft = page_get(filter, "tree"), *fb = page_get(filter, "branch");

	strbuf_addstr(&doc->title, "lkprobot");
	doc->refresh = queue->n > 0 ? 15 : 0;
	strbuf_addf(b, "<p class=\"note\">%zu watched tree%s; %s heads seen, %zu to test; %s report mails.</p>\n",
		    trees->n, trees->n == 1 ? "" : "s", page_get(d, "heads_total"), queue->n, page_get(d, "mails_total"));
	if (trees->n) {
		strbuf_addstr(b, "<ul class=\"filters\"><li>");
		filter_link(b, NULL, NULL, "every tree", !*ft);
		strbuf_addstr(b, "</li>");
		for (size_t i = 0; i < trees->n; i++) {
			const struct node *t = trees->vals[i], *brs = node_get(t, "branches");
			const char *name = page_get(t, "name");
			strbuf_addstr(b, "<li>");
			filter_link(b, name, NULL, name, !strcmp(ft, name) && !*fb);
			for (size_t k = 0; k < brs->n; k++) {
				strbuf_addstr(b, k ? ", " : ": ");
				filter_link(b, name, node_str(brs->vals[k]), node_str(brs->vals[k]),
					    !strcmp(ft, name) && !strcmp(fb, node_str(brs->vals[k])));
			}
			strbuf_addstr(b, "</li>");
		}
		strbuf_addstr(b, "</ul>\n");
	}
	strbuf_addf(b, "<h2>Queue (%zu)</h2>\n", queue->n);
	if (queue->n)
		page_heads_html(b, queue, env->actions, true);
	else
		strbuf_addstr(b, "<p class=\"note\">Nothing to test.</p>\n");
	for (size_t i = 0; i < groups->n; i++) {
		const struct node *g = groups->vals[i], *gh = node_get(g, "heads");
		strbuf_addstr(b, "<h2>");
		html_escape(b, page_get(g, "tree"));
		strbuf_addstr(b, " · ");
		html_escape(b, page_get(g, "branch"));
		strbuf_addf(b, " (%zu of %s heads)</h2>\n", gh->n, page_get(g, "total"));
		if (gh->n)
			page_heads_html(b, gh, env->actions, false);
		else
			strbuf_addstr(b, "<p class=\"note\">No head seen yet.</p>\n");
	}
	strbuf_addstr(b, "<h2>Bisections</h2>\n");
	page_bisections_html(b, node_get(d, "bisections"));
	strbuf_addf(b, "<h2>Report mails (%s)</h2>\n", page_get(d, "mails_total"));
	page_mails_html(b, node_get(d, "mails"), false);
	html_accuracy(node_get(d, "accuracy"), b);
	html_farm(d, b);
	html_machines(node_get(d, "machines"), b);
}

const struct page_def page_def_overview = {
	.name = "overview",
	.home = true,
	.query = "[?tree=T&branch=B]",
	.nav = "overview",
	.live = true,
	.data = overview_data,
	.html = overview_html,
};

/*
 * page_history: a metric of one job over commits, in the order of their
 * commit dates (commits of no watched tree at their first run) — one series a watched
 * tree (a commit is in a tree's series when that tree's repository has it;
 * commits of no watched tree make a series of their own), narrowed to a
 * tree, a branch (commits the branch contains) or a tbox_group; the
 * commits bisections named and their mails marked. Without a metric, the
 * job's own metrics to choose from. See pagekit.h.
 */
#include "pagekit.h"
#include "html.h"
#include "svg.h"
#include "../lib/kernel/git.h"
#include "../lib/results/compare.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HISTORY_OTHER "other commits"	/* the series of commits no watched tree has */

/* Without a metric: the metrics of the job's newest run, the test's own first. */
static int job_metrics(struct page_ctx *c, const char *testcase, const char *pp, const char *tbox_group,
		       struct node *out, struct strbuf *err)
{
	struct store_query q = { .testcase = testcase, .path_params = pp, .tbox_group = tbox_group };
	struct node *runs, *stats = NULL;

	if (store_list_runs(c->s, &q, &runs, err))
		return 500;
	/* the newest run that has stats */
	for (size_t i = runs->n; i-- > 0 && !stats;) {
		if (page_getnum(runs->vals[i], "stats") > 0 &&
		    store_run_stats(c->s, page_get(runs->vals[i], "result_root"), &stats, err) < 0) {
			node_free(runs);
			return 500;
		}
	}
	node_free(runs);
	if (!stats) {
		strbuf_setf(err, "no run of %s/%s has metrics", testcase, pp);
		return 404;
	}
	struct node *own = node_new(NODE_SEQ), *other = node_new(NODE_SEQ);
	for (size_t i = 0; i < stats->n; i++)
		node_push(compare_is_test_metric(stats->keys[i]) ? own : other, page_str(stats->keys[i]));
	node_free(stats);
	node_append(out, "metrics", own);
	node_append(out, "other_metrics", other);
	return 200;
}

/* Points by date, then by first run, then by name (qsort is not stable). */
static int by_date(const void *a, const void *b)
{
	const struct node *x = *(struct node *const *)a, *y = *(struct node *const *)b;
	double dx = page_getnum(x, "date"), dy = page_getnum(y, "date");
	double rx = page_getnum(x, "first_run"), ry = page_getnum(y, "first_run");
	if (dx != dy)
		return dx < dy ? -1 : 1;
	if (rx != ry)
		return rx < ry ? -1 : 1;
	return strcmp(page_get(x, "commit"), page_get(y, "commit"));
}

/*
 * Commits of the same date (a script's, a rebase's) in an order where no
 * commit comes before its ancestor: each goes in before the first one it
 * is an ancestor of, after the rest.
 */
static void parents_first(struct page_ctx *c, struct node **v, size_t n)
{
	struct node **out = xcalloc(n, sizeof(*out));
	struct strbuf e = STRBUF_INIT;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct node *info = page_commit_info(c, page_get(v[i], "commit"));
		ssize_t t = -1;
		for (size_t ti = 0; info && ti < c->env->ntrees && t < 0; ti++)
			if (!strcmp(c->env->trees[ti].name, page_get(info, "tree")))
				t = (ssize_t)ti;
		struct gitrepo *r = t >= 0 ? page_repo(c, (size_t)t) : NULL;
		size_t at = k;
		for (size_t j = 0; r && j < k && at == k; j++)
			if (gitrepo_is_ancestor(r, page_get(info, "commit"), page_get(out[j], "commit"), &e) == 1)
				at = j;
		strbuf_reset(&e);
		memmove(out + at + 1, out + at, (k - at) * sizeof(*out));
		out[at] = v[i];
		k++;
	}
	memcpy(v, out, n * sizeof(*v));
	free(out);
	strbuf_release(&e);
}

/* Does tree i's branch contain commit? 1, 0 (or when it cannot tell). */
static bool on_branch(struct page_ctx *c, size_t i, const char *branch, const char *commit)
{
	struct gitrepo *r = page_repo(c, i);
	struct strbuf e = STRBUF_INIT;
	int yes = r ? gitrepo_is_ancestor(r, commit, branch, &e) : 0;
	strbuf_release(&e);
	return yes == 1;
}

/* The series: each watched tree (or the one asked for), with its tree's index while the points are placed. */
static struct node *tree_series(const struct page_env *env, const char *ft)
{
	struct node *series = node_new(NODE_SEQ);

	for (size_t i = 0; i < env->ntrees; i++) {
		if (ft && strcmp(ft, env->trees[i].name))
			continue;
		struct node *sr = node_new(NODE_MAP);
		node_append(sr, "name", page_str(env->trees[i].name));
		node_append(sr, "tree", page_num((double)i));
		node_push(series, sr);
	}
	return series;
}

/* A point's samples, text in the store, as numbers. */
static void samples_as_numbers(struct node *p)
{
	struct node *v = node_new(NODE_SEQ);
	char *end;

	for (const char *t = page_get(p, "samples"); *t;) {
		double x = strtod(t, &end);
		if (end == t)
			break;
		node_push(v, page_num(x));
		t = end;
	}
	node_set(p, "samples", v);
}

/*
 * The series a commit (its info, NULL when no tree has it) is in, as their
 * indices: each tree's that has it (and whose branch contains it, when fb
 * names one); else, when no tree or branch is asked for, the series of the
 * commits of none, made when first needed (its index in *other). NULL when
 * it is in none of them.
 */
static struct node *series_of(struct page_ctx *c, const struct node *info, struct node *series, const char *ft,
			      const char *fb, ssize_t *other)
{
	const struct node *trees = node_get(info, "trees");
	struct node *in = node_new(NODE_SEQ);

	for (size_t k = 0; k < series->n; k++) {
		const char *name = page_get(series->vals[k], "name");
		bool has = false;
		for (size_t j = 0; trees && j < trees->n && !has; j++)
			has = !strcmp(node_str(trees->vals[j]), name);
		if (has && fb)
			has = on_branch(c, (size_t)page_getnum(series->vals[k], "tree"), fb, page_get(info, "commit"));
		if (has)
			node_push(in, page_num((double)k));
	}
	if (!in->n && !ft && !fb) {
		if (*other < 0) {
			struct node *sr = node_new(NODE_MAP);
			node_append(sr, "name", page_str(c->env->ntrees ? HISTORY_OTHER : "every commit"));
			*other = (ssize_t)series->n;
			node_push(series, sr);
		}
		node_push(in, page_num((double)*other));
	}
	if (!in->n) {
		node_free(in);
		return NULL;
	}
	return in;
}

/* Points in the order of their commits' dates (a bisection measures its ends before the middle), parents first. */
static void in_date_order(struct page_ctx *c, struct node *pts)
{
	if (pts->n)
		qsort(pts->vals, pts->n, sizeof(*pts->vals), by_date);
	for (size_t i = 0, j; i < pts->n; i = j) {
		for (j = i + 1; j < pts->n && page_getnum(pts->vals[j], "date") == page_getnum(pts->vals[i], "date");
		     j++)
			;
		if (j - i > 1)
			parents_first(c, pts->vals + i, j - i);
	}
}

/* The change points: the points a bisection of metric found to be the first of a change; their mails. */
static struct node *change_points(struct page_ctx *c, const struct node *bis, const struct node *pts,
				  const char *metric)
{
	struct node *cps = node_new(NODE_SEQ);

	for (size_t i = 0; i < bis->n; i++) {
		const struct node *x = bis->vals[i];
		if (strcmp(page_get(x, "status"), "found") || strcmp(page_get(x, "metric"), metric))
			continue;
		for (size_t k = 0; k < pts->n; k++) {
			if (strcmp(page_get(pts->vals[k], "commit"), page_get(x, "culprit")))
				continue;
			struct node *cp = node_new(NODE_MAP);
			node_append(cp, "commit", page_str(page_get(x, "culprit")));
			node_append(cp, "subject", page_str(page_get(pts->vals[k], "subject")));
			node_append(cp, "index", page_num((double)k));
			node_append(cp, "bisection", page_num(page_getnum(x, "id")));
			const struct node *m = page_mail_about(c, page_get(x, "culprit"));
			if (m) {
				node_append(cp, "mail", page_num(page_getnum(m, "id")));
				node_append(cp, "mail_subject", page_str(page_get(m, "subject")));
			}
			node_push(cps, cp);
			break;
		}
	}
	return cps;
}

static int history_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *testcase = page_arg(a, "testcase"), *metric = page_arg(a, "metric");
	const char *pp = page_arg(a, "path_params") ? page_arg(a, "path_params") : "defaults";
	const char *tbox_group = page_arg(a, "tbox_group"), *ft = page_arg(a, "tree"), *fb = page_arg(a, "branch");
	struct node *pts;

	if (!testcase) {
		strbuf_setf(err, "history needs testcase= and path_params= (metric=, tbox_group=, tree=, branch= optional)");
		return 400;
	}
	node_append(out, "testcase", page_str(testcase));
	node_append(out, "path_params", page_str(pp));
	if (tbox_group)
		node_append(out, "tbox_group", page_str(tbox_group));
	if (ft)
		node_append(out, "tree", page_str(ft));
	if (fb)
		node_append(out, "branch", page_str(fb));
	if (!metric)
		return job_metrics(c, testcase, pp, tbox_group, out, err);
	node_append(out, "metric", page_str(metric));
	const struct node *bis = page_bisections(c, err), *mails = bis ? page_mails(c, err) : NULL;
	if (!mails || store_history(c->s, testcase, pp, metric, tbox_group, &pts, err))
		return 500;
	struct node *series = tree_series(c->env, ft), *kept = node_new(NODE_SEQ);
	ssize_t other = -1;
	for (size_t i = 0; i < pts->n; i++) {
		struct node *p = pts->vals[i], *in;
		const struct node *info = page_commit_info(c, page_get(p, "commit"));
		samples_as_numbers(p);
		node_append(p, "subject", page_str(info ? page_get(info, "subject") : ""));
		node_append(p, "date", page_num(info ? page_getnum(info, "commit_date") : page_getnum(p, "first_run")));
		if (!(in = series_of(c, info, series, ft, fb, &other)))
			continue; /* not in the tree or branch asked for */
		node_append(p, "series", in);
		node_push(kept, node_dup(p));
	}
	node_free(pts);
	in_date_order(c, kept);
	for (size_t k = 0; k < series->n; k++)
		node_del(series->vals[k], "tree");
	node_append(out, "series", series);
	node_append(out, "points", kept);
	node_append(out, "change_points", change_points(c, bis, kept, metric));
	return 200;
}

/* A link to this history with one argument changed (NULL value: dropped). */
static void self_href(struct strbuf *b, const struct node *d, const char *key, const char *value)
{
	static const char *const keys[] = { "testcase", "path_params", "metric", "tbox_group", "tree", "branch" };
	bool first = true;

	strbuf_addstr(b, "/history");
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		const char *v = !strcmp(keys[i], key) ? value : node_get(d, keys[i]) ? page_get(d, keys[i]) : NULL;
		if (!v)
			continue;
		strbuf_addf(b, "%s%s=", first ? "?" : "&amp;", keys[i]);
		html_url_escape(b, v);
		first = false;
	}
}

static void html_metrics(const struct node *d, const struct node *list, struct strbuf *b)
{
	strbuf_addstr(b, "<ul class=\"files\">");
	for (size_t i = 0; i < list->n; i++) {
		strbuf_addstr(b, "<li><a href=\"");
		self_href(b, d, "metric", node_str(list->vals[i]));
		strbuf_addstr(b, "\">");
		html_escape(b, node_str(list->vals[i]));
		strbuf_addstr(b, "</a></li>");
	}
	strbuf_addstr(b, "</ul>\n");
}

static void history_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	const struct node *pts = node_get(d, "points"), *cps = node_get(d, "change_points");
	const struct node *series = node_get(d, "series");
	struct strbuf *b = &doc->body;

	(void)env;
	if (!node_get(d, "metric")) {
		strbuf_addf(&doc->title, "%s/%s: its metrics", page_get(d, "testcase"), page_get(d, "path_params"));
		strbuf_addstr(b, "<h2>The test's own metrics</h2>\n");
		html_metrics(d, node_get(d, "metrics"), b);
		strbuf_addstr(b, "<details><summary>every other metric</summary>\n");
		html_metrics(d, node_get(d, "other_metrics"), b);
		strbuf_addstr(b, "</details>\n");
		return;
	}
	strbuf_addf(&doc->title, "%s: %s/%s", page_get(d, "metric"), page_get(d, "testcase"),
		    page_get(d, "path_params"));
	strbuf_addstr(b, "<ul class=\"filters\"><li><a href=\"");
	self_href(b, d, "metric", NULL);
	strbuf_addstr(b, "\">the job's other metrics</a></li>");
	if (node_get(d, "tree") || node_get(d, "branch")) {
		strbuf_addstr(b, "<li><a href=\"");
		self_href(b, d, "tree", NULL);
		strbuf_addstr(b, "\">every tree</a></li>");
	}
	strbuf_addstr(b, "</ul>\n");
	if (!pts->n) {
		strbuf_addstr(b, "<p>No run of this job has this metric (in the trees asked for).</p>\n");
		return;
	}
	strbuf_addf(b, "<p class=\"note\">%zu commits in the order of their commit dates; dots are runs (hover for the "
		       "commit), lines the means, one a tree; dashed red lines the commits a bisection found to be the "
		       "first of a change (%zu), ✉ their mails. The y axis starts at 0.</p>\n<p>",
		    pts->n, cps->n);
	for (size_t k = 0; k < series->n; k++) {
		strbuf_addf(b, "<span class=\"key series-%zu\"></span><a href=\"", k % SVG_SERIES);
		self_href(b, d, "tree", page_get(series->vals[k], "name"));
		strbuf_addstr(b, "\">");
		html_escape(b, page_get(series->vals[k], "name"));
		strbuf_addstr(b, "</a>");
	}
	strbuf_addstr(b, "</p>\n");
	svg_history(b, page_get(d, "metric"), pts, series, cps);
	strbuf_addstr(b, "<table><tr><th>commit</th><th>subject</th><th>series</th><th>first run</th><th>runs</th>"
			 "<th>mean</th><th>min</th><th>max</th></tr>\n");
	for (size_t i = pts->n; i-- > 0;) {
		const struct node *p = pts->vals[i], *in = node_get(p, "series");
		strbuf_addstr(b, "<tr><td>");
		html_commit_link(b, page_get(p, "commit"));
		strbuf_addstr(b, "</td>");
		html_td_class(b, "subject", page_get(p, "subject"));
		strbuf_addstr(b, "<td>");
		for (size_t k = 0; in && k < in->n; k++) {
			double si;
			if (json_number(in->vals[k], &si) && si >= 0 && (size_t)si < series->n) {
				strbuf_addstr(b, k ? ", " : "");
				html_escape(b, page_get(series->vals[(size_t)si], "name"));
			}
		}
		strbuf_addstr(b, "</td>");
		html_td_time(b, page_getnum(p, "first_run"));
		html_td(b, page_get(p, "runs"));
		html_td_num(b, page_getnum(p, "mean"));
		html_td_num(b, page_getnum(p, "min"));
		html_td_num(b, page_getnum(p, "max"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

const struct page_def page_def_history = {
	.name = "history",
	.query = "?testcase=T&path_params=P[&metric=M][&tbox_group=G][&tree=T][&branch=B]",
	.data = history_data,
	.html = history_html,
	.reads = STORE_READS(STORE_TOPIC_RUNS) | STORE_READS(STORE_TOPIC_BISECTIONS) | STORE_READS(STORE_TOPIC_OUTBOX),
};

/*
 * page_commit: a commit's page — any commit of a watched tree, measured or
 * not (subject, author, date, what was measured, what is queued, the
 * bisections and mails it is in) — and the compare of two commits. See
 * pagekit.h.
 */
#include "pagekit.h"
#include "../lib/results/calltrace.h"
#include "html.h"
#include "../lib/results/compare.h"
#include "../lib/results/plot.h"
#include "../lib/results/result.h"
#include "../lib/results/sides.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A commit name as given in a URL: letters, digits, '.', '_', '+', '-' (a sha or a kernel release). */
static bool commit_name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 200)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") == strlen(s);
}

/*
 * The commit a URL names, into full: a unique prefix of 7+ hex digits of a
 * commit of a watched tree or of the store, else the name as it is (a
 * kernel release). 200, 400 (not a commit name, an ambiguous prefix) or
 * 500 with err set.
 */
static int resolve(struct page_ctx *c, const char *name, struct strbuf *full, struct strbuf *err)
{
	if (!commit_name_ok(name)) {
		strbuf_setf(err, "'%s': not a commit name (a sha, a unique prefix of 7 or more hex digits, a release)",
			    name ? name : "");
		return 400;
	}
	strbuf_reset(full);
	const struct node *info = page_commit_info(c, name);
	if (info) {
		strbuf_addstr(full, page_get(info, "commit"));
		return 200;
	}
	if (page_is_hex_id(name) && strlen(name) < 40) {
		struct node *m;
		if (store_commit_match(c->s, name, &m, err))
			return 500;
		size_t n = m->n;
		if (n == 1)
			strbuf_addstr(full, page_get(m->vals[0], "commit"));
		node_free(m);
		if (n > 1) {
			strbuf_setf(err, "'%s': more than one commit starts so; give more digits", name);
			return 400;
		}
		if (n == 1)
			return 200;
	}
	strbuf_addstr(full, name);
	return 200;
}

/* ---- compare ---- */

static struct node *side_json(const struct compare_side *sd)
{
	struct node *m = node_new(NODE_MAP);
	struct node *v = node_new(NODE_SEQ);
	node_append(m, "present", node_new_scalar(sd->present ? "true" : "false"));
	node_append(m, "runs", page_num((double)sd->n));
	node_append(m, "mean", page_num(sd->present ? sd->mean : NAN));
	node_append(m, "stddev", page_num(sd->present ? sd->stddev : NAN));
	for (size_t i = 0; sd->present && i < sd->n; i++)
		node_push(v, page_num(sd->v[i]));
	node_append(m, "samples", v);
	return m;
}

/* The headline as every place says it: the metric, the decision's change and interval, what it is. */
static struct node *headline_json(const struct compare_row *h)
{
	struct node *m = node_new(NODE_MAP);
	struct strbuf c = STRBUF_INIT;

	compare_format_decision(&c, &h->decision);
	node_append(m, "metric", page_str(h->metric));
	node_append(m, "change", page_num(h->decision.change));
	node_append(m, "low", page_num(h->decision.lo));
	node_append(m, "high", page_num(h->decision.hi));
	node_append(m, "kind", page_str(compare_kind_word(h)));
	node_append(m, "text", page_str(c.buf));
	node_append(m, "why", page_str(h->decision.summary));
	strbuf_release(&c);
	return m;
}

/*
 * A new oops's or WARNING's row: its call trace ("calltrace"), beside the
 * first of the rows one trace gives (WARNING:, RIP: ...); `seen` the traces given.
 */
static void calltrace_row(struct node *x, const struct compare_row *row, const struct group *ng, struct node *seen)
{
	char *text = calltrace_new_oops(row, 1) ? calltrace_of(ng, row->metric) : NULL;

	for (size_t i = 0; text && i < seen->n; i++)
		if (!strcmp(node_str(seen->vals[i]), text)) {
			free(text);
			return;
		}
	if (!text)
		return;
	node_append(x, "calltrace", page_str(text));
	node_push(seen, page_str(text));
	free(text);
}

/*
 * base against commit, both from the store: each job they share, its rows
 * (changed only, unless all) and, when text, the ncompare table and plots.
 */
static int compare_pair(struct store *s, const char *base, const char *commit, bool all, struct node *out,
			struct strbuf *err)
{
	struct side *sides = xcalloc(2, sizeof(*sides));	/* sides_release() frees it */
	int code = 200;

	if (sides_from_store(&sides[0], s, base, err) || sides_from_store(&sides[1], s, commit, err)) {
		sides_release(sides, 2);
		return 404;
	}
	struct node *groups = node_new(NODE_SEQ);
	struct strbuf text = STRBUF_INIT;
	struct compare_opts co = { .all = all, .perf_profile_threshold = 5 };
	for (size_t gi = 0; gi < sides[0].ng; gi++) {
		const struct group *bg = &sides[0].g[gi], *ng = side_match(&sides[1], &sides[0], bg);
		if (!ng)
			continue;
		const struct matrix *mats[2] = { bg->matrix, ng->matrix };
		const char *labels[2] = { sides[0].label, sides[1].label };
		const struct group *grs[2] = { bg, ng };
		const uint64_t *rounds[2];
		size_t nrounds[2];
		struct compare_result res;
		struct compare_floors floors = { 0 };
		struct strbuf e = STRBUF_INIT;
		struct node *job = result_load_job(ng->run_dir, &e);
		/* the job's floors and directions (metric_direction:), as bisect and report take them */
		if (job && compare_floors_add_job(&floors, job, &e))
			compare_floors_release(&floors);
		node_free(job);
		strbuf_release(&e);
		co.floors = &floors;
		sides_rounds(grs, 2, rounds, nrounds);	/* runs of one round are compared as pairs */
		co.rounds = rounds;
		co.nrounds = nrounds;
		int rc = compare_tables(mats, labels, 2, &co, &res, err);
		compare_floors_release(&floors);
		if (rc) {
			code = 500;
			break;
		}
		struct node *g = node_new(NODE_MAP), *rows = node_new(NODE_SEQ), *traces = node_new(NODE_SEQ);
		node_append(g, "job", page_str(bg->desc));
		const struct compare_row *h = compare_headline(&res, true);
		if (h)
			node_append(g, "headline", headline_json(h));
		/* the headline's row first, as the report's table has it */
		for (size_t k = 0; k <= res.nrows; k++) {
			const struct compare_row *row = k ? &res.rows[k - 1] : h;
			if (!row || (k && row == h))
				continue;
			if (!row->changed && !all && !compare_is_test_metric(row->metric) && row != h)
				continue;
			struct node *x = node_new(NODE_MAP);
			node_append(x, "metric", page_str(row->metric));
			node_append(x, "base", side_json(&row->side[0]));
			node_append(x, "commit", side_json(&row->side[1]));
			/* a metric one side lacks has no change */
			bool both = row->side[0].present && row->side[1].present;
			node_append(x, "change", page_num(both ? row->change[1] : NAN));
			/* the decision's estimate: the headline's change as the mail gives it */
			node_append(x, "decision_change", page_num(both ? row->decision.change : NAN));
			node_append(x, "headline", node_new_scalar(row == h ? "true" : "false"));
			node_append(x, "absolute", node_new_scalar(row->absolute ? "true" : "false"));
			node_append(x, "changed", node_new_scalar(row->changed ? "true" : "false"));
			node_append(x, "verdict", page_str(row->verdict > 0 ? "improvement"
							   : row->verdict < 0 ? "regression" : ""));
			node_append(x, "p_mwu", page_num(both ? row->p_mwu : NAN));
			calltrace_row(x, row, ng, traces);
			node_push(rows, x);
		}
		node_free(traces);
		node_append(g, "rows", rows);
		strbuf_reset(&text);
		compare_render_ncompare(&text, &res, *bg->key ? "testcase/path_params/tbox_group/rootfs/kconfig/compiler"
								: NULL, bg->key, false);
		node_append(g, "table", page_str(text.buf));
		node_push(groups, g);
		compare_result_release(&res);
	}
	node_append(out, "base", page_str(sides[0].label));
	node_append(out, "commit", page_str(sides[1].label));
	node_append(out, "groups", groups);
	if (code == 200 && !groups->n) {
		strbuf_setf(err, "%s and %s share no job: nothing to compare", base, commit);
		code = 404;
	}
	strbuf_release(&text);
	sides_release(sides, 2);
	return code;
}

/* /compare?base=A&commit=B */
static int compare_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *base = page_arg(a, "base"), *commit = page_arg(a, "commit");
	struct strbuf b = STRBUF_INIT, n = STRBUF_INIT;
	int code;

	if (!commit_name_ok(base) || !commit_name_ok(commit)) {
		strbuf_setf(err, "compare needs base= and commit= (commit ids, unique prefixes or kernel releases)");
		return 400;
	}
	if ((code = resolve(c, base, &b, err)) == 200 && (code = resolve(c, commit, &n, err)) == 200)
		code = compare_pair(c->s, b.buf, n.buf, false, out, err);
	if (code == 200) {
		node_append(out, "base_ref", page_commit_ref(c, b.buf));
		node_append(out, "commit_ref", page_commit_ref(c, n.buf));
	}
	strbuf_release(&b);
	strbuf_release(&n);
	return code;
}

/* A compare side's mean, or "missing" when the side has no such metric. */
static void td_side(struct strbuf *b, const struct node *side, bool stddev)
{
	if (strcmp(page_get(side, "present"), "true")) {
		strbuf_addstr(b, stddev ? "<td></td>" : "<td class=\"num muted\">missing</td>");
		return;
	}
	double m = page_getnum(side, "mean");
	html_td_num(b, !stddev ? m : isfinite(m) && m ? 100 * page_getnum(side, "stddev") / fabs(m) : NAN);
}

/* A compare's rows as a table (links to the metric's history when job is known), and the plots. */
static void rows_html(struct strbuf *b, const struct node *rows, bool plots, const char *job)
{
	strbuf_addstr(b, "<table><tr><th>metric</th><th>base</th><th>±%stddev</th><th>commit</th>"
			 "<th>±%stddev</th><th>change</th><th>p (MWU)</th><th>verdict</th></tr>\n");
	/* the job's testcase and path_params, for the links to each metric's history */
	const char *slash = job ? strchr(job, '/') : NULL;
	const char *pp = slash ? slash + 1 : "", *pe = strchr(pp, '/');
	char *tc = job && *job ? xstrndup(job, slash ? (size_t)(slash - job) : strlen(job)) : NULL;
	char *ps = xstrndup(pp, pe ? (size_t)(pe - pp) : strlen(pp));
	for (size_t i = 0; i < rows->n; i++) {
		const struct node *r = rows->vals[i];
		const char *v = page_get(r, "verdict");
		strbuf_addf(b, "<tr%s%s%s><td>", *v ? " class=\"" : "", v, *v ? "\"" : "");
		if (tc) {
			strbuf_addstr(b, "<a href=\"");
			page_history_href(b, tc, ps, page_get(r, "metric"), NULL);
			strbuf_addstr(b, "\">");
			html_escape(b, page_get(r, "metric"));
			strbuf_addstr(b, "</a>");
		} else {
			html_escape(b, page_get(r, "metric"));
		}
		strbuf_addstr(b, "</td>");
		td_side(b, node_get(r, "base"), false);
		td_side(b, node_get(r, "base"), true);
		td_side(b, node_get(r, "commit"), false);
		td_side(b, node_get(r, "commit"), true);
		strbuf_addstr(b, "<td class=\"num\">");
		if (!strcmp(page_get(r, "headline"), "true") && isfinite(page_getnum(r, "decision_change"))) {
			/* the headline: the decision's figure, the one the mail and status give; the means' beside it */
			struct decision d = { .change = page_getnum(r, "decision_change") };
			strbuf_addstr(b, "<span title=\"lkprobot's decision\">");
			compare_format_decision(b, &d);
			strbuf_addstr(b, "</span> <span class=\"muted\">(means ");
			compare_format_change(b, page_getnum(r, "change"), !strcmp(page_get(r, "absolute"), "true"));
			strbuf_addstr(b, ")</span>");
		} else if (isfinite(page_getnum(r, "change")))
			compare_format_change(b, page_getnum(r, "change"), !strcmp(page_get(r, "absolute"), "true"));
		strbuf_addstr(b, "</td><td class=\"num\">");
		if (isfinite(page_getnum(r, "change")))
			html_pvalue(b, page_getnum(r, "p_mwu"));
		strbuf_addstr(b, "</td>");
		html_td(b, *v ? v : !strcmp(page_get(r, "changed"), "true") ? "changed" : "");
		strbuf_addstr(b, "</tr>\n");
		if (*page_get(r, "calltrace")) {
			/* the new oops's call trace, as the report quotes it */
			strbuf_addstr(b, "<tr class=\"calltrace\"><td colspan=\"8\"><pre>");
			html_escape(b, page_get(r, "calltrace"));
			strbuf_addstr(b, "</pre></td></tr>\n");
		}
	}
	strbuf_addstr(b, "</table>\n");
	free(tc);
	free(ps);
	if (!plots)
		return;
	/* the report mails' plots: base samples [*], commit samples [O] */
	struct strbuf p = STRBUF_INIT;
	for (size_t i = 0; i < rows->n; i++) {
		const struct node *r = rows->vals[i];
		if (strcmp(page_get(r, "changed"), "true"))
			continue;
		const struct node *bv = node_get(node_get(r, "base"), "samples"), *cv = node_get(node_get(r, "commit"), "samples");
		double *g = xcalloc(bv->n + 1, sizeof(double)), *x = xcalloc(cv->n + 1, sizeof(double));
		for (size_t k = 0; k < bv->n; k++)
			json_number(bv->vals[k], &g[k]);
		for (size_t k = 0; k < cv->n; k++)
			json_number(cv->vals[k], &x[k]);
		struct strbuf title = STRBUF_INIT;
		plot_title(&title, page_get(r, "metric"));
		plot_samples(&p, title.buf, g, bv->n, x, cv->n);
		strbuf_release(&title);
		free(g);
		free(x);
	}
	if (p.len) {
		plot_legend(&p);
		strbuf_addstr(b, "<pre class=\"plots\">");
		html_escape(b, p.buf);
		strbuf_addstr(b, "</pre>\n");
	}
	strbuf_release(&p);
}

static void compare_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;
	const struct node *groups = node_get(d, "groups");

	(void)env;
	strbuf_addf(&doc->title, "compare %.12s..%.12s", page_get(d, "base"), page_get(d, "commit"));
	strbuf_addstr(b, "<table class=\"kv\"><tr><th>base</th><td>");
	html_commit_subject(b, page_get(node_get(d, "base_ref"), "commit"), page_get(node_get(d, "base_ref"), "subject"));
	strbuf_addstr(b, "</td></tr><tr><th>commit</th><td>");
	html_commit_subject(b, page_get(node_get(d, "commit_ref"), "commit"), page_get(node_get(d, "commit_ref"), "subject"));
	strbuf_addstr(b, "</td></tr></table>\n<p class=\"note\">The metrics lkp-tests' rules call changed, and the "
			 "test's own metrics; each links to its history.</p>\n");
	for (size_t i = 0; i < groups->n; i++) {
		const struct node *g = groups->vals[i];
		strbuf_addstr(b, "<h2>");
		html_escape(b, page_get(g, "job"));
		strbuf_addstr(b, "</h2>\n");
		const struct node *h = node_get(g, "headline");
		if (h) {
			/* the figure the report mail, bisect and `lkprobot status` give */
			strbuf_addstr(b, "<p class=\"headline\">headline: ");
			html_escape(b, page_get(h, "metric"));
			strbuf_addch(b, ' ');
			html_escape(b, page_get(h, "text"));
			strbuf_addch(b, ' ');
			page_badge(b, page_get(h, "kind"), NULL);
			strbuf_addstr(b, " <span class=\"reason\">");
			html_escape(b, page_get(h, "why"));
			strbuf_addstr(b, "</span></p>\n");
		}
		rows_html(b, node_get(g, "rows"), true, page_get(g, "job"));
		strbuf_addstr(b, "<details><summary>the compare table</summary><pre>");
		html_escape(b, page_get(g, "table"));
		strbuf_addstr(b, "</pre></details>\n");
	}
}

/* ---- commit ---- */

/* The distinct jobs (testcase, path_params, tbox_group) of runs, each with its count. */
static struct node *jobs_of(const struct node *runs)
{
	struct node *jobs = node_new(NODE_SEQ);

	for (size_t i = 0; i < runs->n; i++) {
		const struct node *r = runs->vals[i];
		struct node *j = NULL;
		for (size_t k = 0; k < jobs->n && !j; k++)
			if (!strcmp(page_get(jobs->vals[k], "testcase"), page_get(r, "testcase")) &&
			    !strcmp(page_get(jobs->vals[k], "path_params"), page_get(r, "path_params")) &&
			    !strcmp(page_get(jobs->vals[k], "tbox_group"), page_get(r, "tbox_group")))
				j = jobs->vals[k];
		if (!j) {
			j = node_new(NODE_MAP);
			node_append(j, "testcase", page_str(page_get(r, "testcase")));
			node_append(j, "path_params", page_str(page_get(r, "path_params")));
			node_append(j, "tbox_group", page_str(page_get(r, "tbox_group")));
			node_append(j, "runs", page_num(0));
			node_push(jobs, j);
		}
		node_set(j, "runs", page_num(page_getnum(j, "runs") + 1));
	}
	return jobs;
}

/* /commit/<name> */
static int commit_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *name = a->rest;
	struct strbuf full = STRBUF_INIT;
	int code = resolve(c, name, &full, err);
	const char *commit = full.buf;

	if (code != 200) {
		strbuf_release(&full);
		return code;
	}
	struct store_query q = { .commit = commit };
	struct node *runs, *heads = NULL;
	/* the heads it is (or is the base of), asked by the commit: not every head read */
	const struct node *bis = store_heads_about(c->s, commit, &heads, err) ? NULL : page_bisections(c, err);
	const struct node *mails = bis ? page_mails(c, err) : NULL;
	if (!mails || store_list_runs(c->s, &q, &runs, err)) {
		node_free(heads);
		strbuf_release(&full);
		return 500;
	}
	const struct node *info = page_commit_info(c, commit);
	node_append(out, "commit", page_str(commit));
	if (info) {
		static const char *const keys[] = { "subject", "author", "author_email", "date", "tree", "trees", "parents",
						    "message" };
		for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++)
			node_append(out, keys[i], node_dup(node_get(info, keys[i])));
	}
	node_append(out, "runs", runs);
	node_append(out, "jobs", jobs_of(runs));
	/* the heads it is (or is the base of), the bisections it is an end or the culprit of, its mails */
	struct node *hs = node_new(NODE_SEQ), *bs = node_new(NODE_SEQ), *ms = node_new(NODE_SEQ), *vs = NULL;
	for (size_t i = heads->n; i-- > 0;) {
		const struct node *h = heads->vals[i];
		bool as_head = !strcmp(page_get(h, "head"), commit);
		if (!as_head && strcmp(page_get(h, "base"), commit))
			continue;
		struct node *row = page_head_row(c, h, true);
		node_append(row, "role", page_str(as_head ? "head" : "base"));
		node_push(hs, row);
		if (!vs && as_head && strcmp(page_get(h, "status"), "queued")) {
			struct strbuf e = STRBUF_INIT;
			vs = node_new(NODE_MAP);
			if (compare_pair(c->s, page_get(h, "base"), commit, false, vs, &e) != 200) {
				node_free(vs);
				vs = node_new(NODE_MAP);
				node_append(vs, "error", page_str(e.buf));
			}
			strbuf_release(&e);
		}
	}
	for (size_t i = 0; i < bis->n; i++) {
		const struct node *x = bis->vals[i];
		const char *role = !strcmp(page_get(x, "culprit"), commit) ? "culprit"
				   : !strcmp(page_get(x, "good"), commit) ? "good end"
				   : !strcmp(page_get(x, "bad"), commit) ? "bad end" : NULL;
		if (!role)
			continue;
		struct node *row = page_bisection_row(c, x);
		node_append(row, "role", page_str(role));
		node_push(bs, row);
	}
	for (size_t i = mails->n; i-- > 0;)
		if (!strcmp(page_get(mails->vals[i], "commit"), commit))
			node_push(ms, node_dup(mails->vals[i]));
	node_append(out, "heads", hs);
	node_append(out, "bisections", bs);
	node_append(out, "mails", ms);
	if (vs)
		node_append(out, "against_base", vs);
	if (!info && !runs->n && !hs->n && !bs->n) {
		strbuf_setf(err, "no commit %s in the watched trees, and no run, head or bisection of it in the store", name);
		code = 404;
	}
	node_free(heads);
	strbuf_release(&full);
	return code;
}

static void html_runs(const struct page_env *env, const struct node *runs, struct strbuf *b)
{
	strbuf_addstr(b, "<table><tr><th>testcase</th><th>path_params</th><th>tbox_group</th>"
			 "<th>run</th><th>state</th><th>metrics</th><th>accel</th><th>result root</th></tr>\n");
	for (size_t i = 0; i < runs->n; i++) {
		const struct node *r = runs->vals[i];
		const char *accel = page_get(node_get(r, "facts"), "accel");
		strbuf_addstr(b, "<tr>");
		html_td(b, page_get(r, "testcase"));
		html_td(b, page_get(r, "path_params"));
		html_td(b, page_get(r, "tbox_group"));
		html_td(b, page_get(r, "run"));
		html_td(b, page_get(r, "job_state"));
		html_td(b, page_get(r, "stats"));
		html_td(b, !strncmp(accel, "tcg", 3) ? "tcg (a functional check)" : accel);
		/* the result root, a link when it is under the dashboard's root (which /runs/ serves) */
		const char *rr = page_get(r, "result_root");
		size_t rl = strlen(env->root);
		bool served = !strncmp(rr, env->root, rl) && rr[rl] == '/';
		strbuf_addstr(b, "<td>");
		if (served) {
			strbuf_addstr(b, "<a href=\"/runs");
			html_path_escape(b, rr + rl);
			strbuf_addstr(b, "/\">");
		}
		strbuf_addstr(b, "<code>");
		html_escape(b, rr);
		strbuf_addstr(b, served ? "</code></a></td></tr>\n" : "</code></td></tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

/* The commit as git knows it: id, subject, author, date, trees, parents. */
static void html_about(const struct node *d, struct strbuf *b)
{
	const struct node *trees = node_get(d, "trees"), *parents = node_get(d, "parents");

	strbuf_addstr(b, "<table class=\"kv\"><tr><th>commit</th><td><code>");
	html_escape(b, page_get(d, "commit"));
	strbuf_addstr(b, "</code></td></tr>");
	if (node_get(d, "subject")) {
		strbuf_addstr(b, "<tr><th>subject</th>");
		html_td(b, page_get(d, "subject"));
		strbuf_addstr(b, "</tr><tr><th>author</th><td>");
		html_escape(b, page_get(d, "author"));
		strbuf_addstr(b, " &lt;");
		html_escape(b, page_get(d, "author_email"));
		strbuf_addstr(b, "&gt;</td></tr><tr><th>date</th>");
		html_td_time(b, page_getnum(d, "date"));
		strbuf_addstr(b, "</tr><tr><th>trees</th><td>");
		for (size_t i = 0; trees && i < trees->n; i++) {
			strbuf_addstr(b, i ? ", " : "");
			html_escape(b, node_str(trees->vals[i]));
		}
		strbuf_addstr(b, "</td></tr><tr><th>parents</th><td>");
		for (size_t i = 0; parents && i < parents->n; i++) {
			strbuf_addstr(b, i ? " " : "");
			html_commit_link(b, node_str(parents->vals[i]));
		}
		strbuf_addstr(b, "</td></tr>");
	} else {
		strbuf_addstr(b, "<tr><th>trees</th><td>in none of the watched trees (a name the store knows)</td></tr>");
	}
	strbuf_addstr(b, "</table>\n");
}

/* The bisections that found this commit to be the first of a change, each a line. */
static void html_culprit(const struct node *d, struct strbuf *b)
{
	const struct node *bis = node_get(d, "bisections"), *parents = node_get(d, "parents");

	for (size_t i = 0; i < bis->n; i++) {
		const struct node *x = bis->vals[i];
		if (strcmp(page_get(x, "role"), "culprit"))
			continue;
		strbuf_addstr(b, "<p class=\"culprit\"><span class=\"state state-found\">culprit</span> ");
		char *what = xasprintf("bisection %s", page_get(x, "id"));
		html_link(b, "bisections", page_get(x, "id"), what);
		free(what);
		strbuf_addstr(b, " of ");
		html_escape(b, page_get(x, "metric"));
		strbuf_addstr(b, " found this commit to be the first of a change");
		if (parents && parents->n) {
			strbuf_addstr(b, " (<a href=\"");
			html_compare_href(b, node_str(parents->vals[0]), page_get(d, "commit"));
			strbuf_addstr(b, "\">against its parent</a>)");
		}
		strbuf_addstr(b, ".</p>\n");
	}
}

/* The compare of the commit as a head with its base (vs), or why there is none. */
static void html_against_base(const struct node *vs, const char *commit, struct strbuf *b)
{
	const struct node *groups = node_get(vs, "groups");

	if (node_get(vs, "error")) {
		strbuf_addstr(b, "<h2>Against its base</h2>\n<p>");
		html_escape(b, page_get(vs, "error"));
		strbuf_addstr(b, "</p>\n");
		return;
	}
	strbuf_addstr(b, "<h2>Against its base ");
	html_commit_link(b, page_get(vs, "base"));
	strbuf_addstr(b, " (<a href=\"");
	html_compare_href(b, page_get(vs, "base"), commit);
	strbuf_addstr(b, "\">compare</a>)</h2>\n");
	for (size_t i = 0; i < groups->n; i++) {
		strbuf_addstr(b, "<h3>");
		html_escape(b, page_get(groups->vals[i], "job"));
		strbuf_addstr(b, "</h3>\n");
		rows_html(b, node_get(groups->vals[i], "rows"), false, page_get(groups->vals[i], "job"));
	}
}

/* Its runs: the jobs, each with a link to its metrics' history, then every run. */
static void html_measured(const struct page_env *env, const struct node *d, struct strbuf *b)
{
	const struct node *runs = node_get(d, "runs"), *jobs = node_get(d, "jobs");

	strbuf_addf(b, "<h2>What was measured (%zu runs)</h2>\n", runs->n);
	if (!runs->n) {
		strbuf_addstr(b, "<p class=\"note\">No run of this commit yet.</p>\n");
		return;
	}
	strbuf_addstr(b, "<ul>");
	for (size_t i = 0; i < jobs->n; i++) {
		const struct node *j = jobs->vals[i];
		strbuf_addstr(b, "<li>");
		html_escape(b, page_get(j, "testcase"));
		strbuf_addstr(b, "/");
		html_escape(b, page_get(j, "path_params"));
		strbuf_addstr(b, " on ");
		html_escape(b, page_get(j, "tbox_group"));
		strbuf_addf(b, ": %s runs — <a href=\"", page_get(j, "runs"));
		page_history_href(b, page_get(j, "testcase"), page_get(j, "path_params"), NULL, NULL);
		strbuf_addstr(b, "\">its metrics' history</a></li>");
	}
	strbuf_addstr(b, "</ul>\n");
	html_runs(env, runs, b);
}

static void commit_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	struct strbuf *b = &doc->body;
	const struct node *vs = node_get(d, "against_base");
	const struct node *heads = node_get(d, "heads"), *bis = node_get(d, "bisections"),
			  *mails = node_get(d, "mails");

	strbuf_addf(&doc->title, "commit %.12s", page_get(d, "commit"));
	if (*page_get(d, "subject"))
		strbuf_addf(&doc->title, ": %s", page_get(d, "subject"));
	html_about(d, b);
	html_culprit(d, b);
	if (mails->n) {
		strbuf_addstr(b, "<h2>Report mails</h2>\n");
		page_mails_html(b, mails, false);
	}
	if (heads->n) {
		strbuf_addstr(b, "<h2>The service's heads</h2>\n<p class=\"note\">As a head tested against its base, or as the "
				 "base of a later head.</p>\n");
		page_heads_html(b, heads, env->actions, true);
	}
	if (bis->n) {
		strbuf_addstr(b, "<h2>Bisections</h2>\n");
		page_bisections_html(b, bis);
	}
	if (vs)
		html_against_base(vs, page_get(d, "commit"), b);
	html_measured(env, d, b);
	if (*page_get(d, "message")) {
		strbuf_addstr(b, "<h2>Message</h2>\n<pre>");
		html_escape(b, page_get(d, "message"));
		strbuf_addstr(b, "</pre>\n");
	}
}

const struct page_def page_def_commit = {
	.name = "commit",
	.rest = "COMMIT",
	.data = commit_data,
	.html = commit_html,
	.reads = STORE_READS(STORE_TOPIC_RUNS) | STORE_READS(STORE_TOPIC_HEADS) | STORE_READS(STORE_TOPIC_BISECTIONS) |
		 STORE_READS(STORE_TOPIC_OUTBOX),
};

const struct page_def page_def_compare = {
	.name = "compare",
	.query = "?base=COMMIT&commit=COMMIT",
	.data = compare_data,
	.html = compare_html,
	.reads = STORE_READS(STORE_TOPIC_RUNS) | STORE_READS(STORE_TOPIC_HEADS) | STORE_READS(STORE_TOPIC_BISECTIONS) |
		 STORE_READS(STORE_TOPIC_OUTBOX),
};

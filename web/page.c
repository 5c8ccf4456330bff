/*
 * page: the dashboard's pages, data first, HTML from the data. See page.h.
 */
#include "page.h"
#include "svg.h"
#include "../lib/results/compare.h"
#include "../lib/kernel/git.h"
#include "../lib/util/json.h"
#include "../lib/results/plot.h"
#include "../lib/results/sides.h"
#include "../lib/store/store.h"
#include "../providers/provider.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OVERVIEW_HEADS 100
#define OVERVIEW_MAILS 50
#define OVERVIEW_BISECTIONS 20

void page_escape(struct strbuf *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': strbuf_addstr(out, "&amp;"); break;
		case '<': strbuf_addstr(out, "&lt;"); break;
		case '>': strbuf_addstr(out, "&gt;"); break;
		case '"': strbuf_addstr(out, "&quot;"); break;
		case '\'': strbuf_addstr(out, "&#39;"); break;
		default: strbuf_addch(out, *s);
		}
	}
}

/* s percent-encoded for a URL's path segment or query value */
static void url_escape(struct strbuf *out, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("-._~", c))
			strbuf_addch(out, (char)c);
		else
			strbuf_addf(out, "%%%c%c", hex[c >> 4], hex[c & 15]);
	}
}

void page_head(struct strbuf *b, const char *title, bool refresh)
{
	strbuf_addstr(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
	/* live progress without JavaScript: a page with work under way reloads itself */
	if (refresh)
		strbuf_addstr(b, "<meta http-equiv=\"refresh\" content=\"15\">");
	strbuf_addstr(b, "<title>");
	page_escape(b, title);
	strbuf_addstr(b, "</title><style>body{font-family:sans-serif;margin:1em 2em}"
			 "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
			 "td.num{text-align:right}.found,.regression{background:#fdd}.improvement{background:#dfd}"
			 "pre{white-space:pre-wrap}code{font-size:90%}svg{border:1px solid #ccc}"
			 "form{display:inline}</style></head><body>\n"
			 "<nav><a href=\"/\">overview</a> · <a href=\"/runs/\">result roots</a> · "
			 "<a href=\"/api/\">JSON</a></nav>\n<h1>");
	page_escape(b, title);
	strbuf_addstr(b, "</h1>\n");
}

void page_foot(struct strbuf *b)
{
	strbuf_addstr(b, "</body></html>\n");
}

/* ---- small node helpers ---- */

static struct node *str_node(const char *s)
{
	struct node *n = node_new_scalar(s ? s : "");
	n->quoted = 1;
	return n;
}

static struct node *num_node(double v)
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

static const char *get(const struct node *m, const char *key)
{
	const char *s = node_str(node_get(m, key));
	return s ? s : "";
}

static double getnum(const struct node *m, const char *key)
{
	double v = NAN;
	json_number(node_get(m, key), &v);
	return v;
}

/* A cell: <td>text</td>, escaped. */
static void td(struct strbuf *b, const char *s)
{
	strbuf_addstr(b, "<td>");
	page_escape(b, s);
	strbuf_addstr(b, "</td>");
}

static void td_num(struct strbuf *b, double v)
{
	strbuf_addstr(b, "<td class=\"num\">");
	if (isfinite(v))
		compare_format_value(b, v);
	strbuf_addstr(b, "</td>");
}

/* A commit as a link to its page: <a href="/commit/ID"><code>ID12</code></a>. */
static void commit_link(struct strbuf *b, const char *id)
{
	if (!id || !*id)
		return;
	strbuf_addstr(b, "<a href=\"/commit/");
	url_escape(b, id);
	strbuf_addstr(b, "\"><code>");
	struct strbuf s = STRBUF_INIT;
	strbuf_addf(&s, "%.12s", id);
	page_escape(b, s.buf);
	strbuf_release(&s);
	strbuf_addstr(b, "</code></a>");
}

/* <td><a href="/PAGE/ID">ID</a></td>: a row's link to its own page */
static void td_link(struct strbuf *b, const char *page, const char *id)
{
	strbuf_addf(b, "<td><a href=\"/%s/", page);
	url_escape(b, id);
	strbuf_addstr(b, "\">");
	page_escape(b, id);
	strbuf_addstr(b, "</a></td>");
}

static void td_commit(struct strbuf *b, const char *id)
{
	strbuf_addstr(b, "<td>");
	commit_link(b, id);
	strbuf_addstr(b, "</td>");
}

static void td_time(struct strbuf *b, double t)
{
	char when[32] = "";
	if (isfinite(t) && t > 0) {
		time_t tt = (time_t)t;
		struct tm tm;
		gmtime_r(&tt, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
	}
	td(b, when);
}

/* The last `keep` items of seq, newest first, as a new sequence. */
static struct node *newest(const struct node *seq, size_t keep)
{
	struct node *out = node_new(NODE_SEQ);
	for (size_t i = seq->n; i-- > 0 && out->n < keep;)
		node_push(out, node_dup(seq->vals[i]));
	return out;
}

/* A commit name as given in a URL: letters, digits, '.', '_', '+', '-' (a sha or a kernel release). */
static bool commit_name_ok(const char *s)
{
	if (!s || !*s || strlen(s) > 200)
		return false;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") == strlen(s);
}

static bool id_ok(const char *s, long long *id)
{
	char *end;
	if (!s || !*s)
		return false;
	errno = 0;
	*id = strtoll(s, &end, 10);
	return !*end && !errno && *id > 0;
}

/* ---- overview ---- */

static int data_overview(const struct page_env *env, struct store *s, struct node *out, struct strbuf *err)
{
	struct node *heads = NULL, *machines = NULL, *bis = NULL, *mails = NULL, *boxes = NULL;

	if (store_heads(s, false, &heads, err) || store_machines(s, &machines, err) || store_bisections(s, &bis, err) ||
	    store_outbox_list(s, &mails, err) || store_boxes(s, &boxes, err)) {
		node_free(heads);
		node_free(machines);
		node_free(bis);
		node_free(mails);
		return 500;
	}
	/* the queue: the heads still to test (store_heads(todo)'s rows, from the same read) */
	struct node *queue = node_new(NODE_SEQ);
	for (size_t i = 0; i < heads->n; i++)
		if (!strcmp(get(heads->vals[i], "status"), "queued") || !strcmp(get(heads->vals[i], "status"), "testing"))
			node_push(queue, node_dup(heads->vals[i]));
	node_append(out, "heads", newest(heads, OVERVIEW_HEADS));
	node_append(out, "heads_total", num_node((double)heads->n));
	node_append(out, "queue", queue);
	node_append(out, "machines", machines);
	node_append(out, "boxes", boxes);	/* the ssh provider's real boxes: in service or not */
	struct node *recent = node_new(NODE_SEQ);
	for (size_t i = 0; i < bis->n && recent->n < OVERVIEW_BISECTIONS; i++)
		node_push(recent, node_dup(bis->vals[i]));
	node_append(out, "bisections", recent);
	node_append(out, "mails", newest(mails, OVERVIEW_MAILS));
	if (env->farm) {
		/* the farm's capacity is Slurm's: its boxes and their states now */
		struct node *farm;
		struct strbuf e = STRBUF_INIT;
		if (slurm_boxes(&farm, &e))
			node_append(out, "farm_error", str_node(e.buf));
		else
			node_append(out, "farm", farm);
		strbuf_release(&e);
	}
	node_free(heads);
	node_free(bis);
	node_free(mails);
	return 200;
}

static void action_form(struct strbuf *b, const char *what, long long id, const char *label)
{
	strbuf_addf(b, "<form method=\"post\" action=\"/api/%s/%lld/", what, id);
	page_escape(b, label);
	strbuf_addstr(b, "\"><input type=\"password\" name=\"token\" placeholder=\"token\" size=\"8\" required>"
			 "<button>");
	page_escape(b, label);
	strbuf_addstr(b, "</button></form>");
}

static void html_heads(struct strbuf *b, const struct node *heads, bool actions)
{
	strbuf_addstr(b, "<table><tr><th>id</th><th>tree</th><th>branch</th><th>head</th><th>base</th>"
			 "<th>status</th><th>outcome</th><th>seen</th>");
	if (actions)
		strbuf_addstr(b, "<th>action</th>");
	strbuf_addstr(b, "</tr>\n");
	for (size_t i = 0; i < heads->n; i++) {
		const struct node *h = heads->vals[i];
		const char *r = get(h, "result"), *st = get(h, "status");
		strbuf_addstr(b, "<tr>");
		td(b, get(h, "id"));
		td(b, get(h, "tree"));
		td(b, get(h, "branch"));
		td_commit(b, get(h, "head"));
		td_commit(b, get(h, "base"));
		td(b, st);
		strbuf_addf(b, "<td%s>", strstr(r, "\"found\"") ? " class=\"found\"" : "");
		if (*get(h, "base") && *get(h, "head")) {
			strbuf_addstr(b, "<a href=\"/compare?base=");
			url_escape(b, get(h, "base"));
			strbuf_addstr(b, "&amp;commit=");
			url_escape(b, get(h, "head"));
			strbuf_addstr(b, "\">compare</a> ");
		}
		page_escape(b, r);
		strbuf_addstr(b, "</td>");
		td_time(b, getnum(h, "first_seen"));
		if (actions) {
			long long id = (long long)getnum(h, "id");
			strbuf_addstr(b, "<td>");
			if (!strcmp(st, "queued"))
				action_form(b, "heads", id, "cancel");
			else if (strcmp(st, "testing"))
				action_form(b, "heads", id, "retest");
			strbuf_addstr(b, "</td>");
		}
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

static void html_bisections(struct strbuf *b, const struct node *bis)
{
	strbuf_addstr(b, "<table><tr><th>id</th><th>good</th><th>bad</th><th>job</th><th>metric</th><th>status</th>"
			 "<th>culprit</th></tr>\n");
	for (size_t i = 0; i < bis->n; i++) {
		const struct node *x = bis->vals[i];
		strbuf_addstr(b, "<tr>");
		td_link(b, "bisections", get(x, "id"));
		td_commit(b, get(x, "good"));
		td_commit(b, get(x, "bad"));
		td(b, get(x, "job"));
		td(b, get(x, "metric"));
		strbuf_addf(b, "<td%s>", !strcmp(get(x, "status"), "found") ? " class=\"found\"" : "");
		page_escape(b, get(x, "status"));
		strbuf_addstr(b, "</td>");
		td_commit(b, get(x, "culprit"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
}

static void html_overview(const struct page_env *env, const struct node *d, struct strbuf *b)
{
	const struct node *queue = node_get(d, "queue"), *machines = node_get(d, "machines");
	const struct node *heads = node_get(d, "heads"), *mails = node_get(d, "mails");

	page_head(b, "lkprobot", queue->n > 0);
	strbuf_addf(b, "<h2>Queue (%zu)</h2>\n", queue->n);
	if (queue->n)
		html_heads(b, queue, env->actions);
	else
		strbuf_addstr(b, "<p>Nothing to test.</p>\n");
	const struct node *farm = node_get(d, "farm");
	if (farm) {
		size_t busy = 0;
		for (size_t i = 0; i < farm->n; i++)
			busy += !strncmp(get(farm->vals[i], "state"), "alloc", 5) || !strcmp(get(farm->vals[i], "state"), "mixed");
		strbuf_addf(b, "<h2>The Slurm farm (%zu boxes, %zu busy)</h2>\n<table><tr><th>box</th><th>features</th>"
			       "<th>state</th><th>CPUs</th><th>memory (MB)</th></tr>\n", farm->n, busy);
		for (size_t i = 0; i < farm->n; i++) {
			const char *keys[] = { "name", "features", "state", "cpus", "memory_mb" };
			strbuf_addstr(b, "<tr>");
			for (size_t k = 0; k < 5; k++)
				td(b, get(farm->vals[i], keys[k]));
			strbuf_addstr(b, "</tr>\n");
		}
		strbuf_addstr(b, "</table>\n");
	} else if (node_get(d, "farm_error")) {
		strbuf_addstr(b, "<h2>The Slurm farm</h2>\n<p>");
		page_escape(b, get(d, "farm_error"));
		strbuf_addstr(b, "</p>\n");
	}
	const struct node *boxes = node_get(d, "boxes");
	if (boxes && boxes->n) {
		strbuf_addstr(b, "<h2>Test boxes (ssh)</h2>\n<table><tr><th>box</th><th>state</th><th>failures in a row</th>"
			       "<th>last error</th><th>last good run</th></tr>\n");
		for (size_t i = 0; i < boxes->n; i++) {
			const struct node *x = boxes->vals[i];
			strbuf_addstr(b, "<tr>");
			td(b, get(x, "name"));
			td(b, !strcmp(get(x, "in_service"), "0") ? "out of service (lkprobot box enable)" : "in service");
			td(b, get(x, "failures"));
			td(b, get(x, "last_error"));
			td_time(b, getnum(x, "last_ok"));
			strbuf_addstr(b, "</tr>\n");
		}
		strbuf_addstr(b, "</table>\n");
	}
	strbuf_addf(b, "<h2>Machines (%zu)</h2>\n<p>One job at a time on each test box.</p>\n"
		       "<table><tr><th>testbox</th><th>tbox_group</th><th>CPUs</th><th>memory</th><th>model</th>"
		       "<th>runs</th><th>last run</th></tr>\n", machines->n);
	for (size_t i = 0; i < machines->n; i++) {
		const struct node *m = machines->vals[i];
		char mem[32] = "";
		if (isfinite(getnum(m, "memory")))
			snprintf(mem, sizeof(mem), "%.1f GiB", getnum(m, "memory") / (1024.0 * 1024 * 1024));
		strbuf_addstr(b, "<tr>");
		td(b, get(m, "name"));
		td(b, get(m, "tbox_group"));
		td(b, get(m, "nr_cpu"));
		td(b, mem);
		td(b, get(m, "model"));
		td(b, get(m, "runs"));
		td_time(b, getnum(m, "last_run"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n<h2>Bisections</h2>\n");
	html_bisections(b, node_get(d, "bisections"));
	strbuf_addf(b, "<h2>Heads tested (%zu of %s)</h2>\n", heads->n, get(d, "heads_total"));
	html_heads(b, heads, env->actions);
	strbuf_addf(b, "<h2>Report mails (%zu)</h2>\n<table><tr><th>id</th><th>Message-ID</th><th>status</th>"
		       "<th>attempts</th><th>last error</th></tr>\n", mails->n);
	for (size_t i = 0; i < mails->n; i++) {
		const struct node *m = mails->vals[i];
		strbuf_addstr(b, "<tr>");
		td_link(b, "reports", get(m, "id"));
		td(b, get(m, "message_id"));
		td(b, get(m, "status"));
		td(b, get(m, "attempts"));
		td(b, get(m, "last_error"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
	page_foot(b);
}

/* ---- compare (also the commit page's "against its base") ---- */

static struct node *side_json(const struct compare_side *sd)
{
	struct node *m = node_new(NODE_MAP);
	struct node *v = node_new(NODE_SEQ);
	node_append(m, "runs", num_node((double)sd->n));
	node_append(m, "mean", num_node(sd->present ? sd->mean : NAN));
	node_append(m, "stddev", num_node(sd->present ? sd->stddev : NAN));
	for (size_t i = 0; sd->present && i < sd->n; i++)
		node_push(v, num_node(sd->v[i]));
	node_append(m, "samples", v);
	return m;
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

	if (sides_from_store(&sides[0], s, base, err)) {
		sides_release(sides, 2);
		return 404;
	}
	if (sides_from_store(&sides[1], s, commit, err)) {
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
		const struct node *mats[2] = { bg->matrix, ng->matrix };
		const char *labels[2] = { sides[0].label, sides[1].label };
		const struct group *grs[2] = { bg, ng };
		const uint64_t *rounds[2];
		size_t nrounds[2];
		struct compare_result res;
		sides_rounds(grs, 2, rounds, nrounds);	/* runs of one round are compared as pairs */
		co.rounds = rounds;
		co.nrounds = nrounds;
		if (compare_matrices(mats, labels, 2, &co, &res, err)) {
			code = 500;
			break;
		}
		struct node *g = node_new(NODE_MAP), *rows = node_new(NODE_SEQ);
		node_append(g, "job", str_node(bg->desc));
		for (size_t r = 0; r < res.nrows; r++) {
			const struct compare_row *row = &res.rows[r];
			if (!row->changed && !all && !compare_is_test_metric(row->metric))
				continue;
			struct node *x = node_new(NODE_MAP);
			node_append(x, "metric", str_node(row->metric));
			node_append(x, "base", side_json(&row->side[0]));
			node_append(x, "commit", side_json(&row->side[1]));
			node_append(x, "change", num_node(row->change[1]));
			node_append(x, "absolute", node_new_scalar(row->absolute ? "true" : "false"));
			node_append(x, "changed", node_new_scalar(row->changed ? "true" : "false"));
			node_append(x, "verdict", str_node(row->verdict > 0 ? "improvement"
							   : row->verdict < 0 ? "regression" : ""));
			node_append(x, "p_mwu", num_node(row->p_mwu));
			node_push(rows, x);
		}
		node_append(g, "rows", rows);
		strbuf_reset(&text);
		compare_render_ncompare(&text, &res, *bg->key ? "testcase/path_params/tbox_group/rootfs/kconfig/compiler"
								: NULL, bg->key, false);
		node_append(g, "table", str_node(text.buf));
		node_push(groups, g);
		compare_result_release(&res);
	}
	node_append(out, "base", str_node(sides[0].label));
	node_append(out, "commit", str_node(sides[1].label));
	node_append(out, "groups", groups);
	if (code == 200 && !groups->n) {
		strbuf_setf(err, "%s and %s share no job: nothing to compare", base, commit);
		code = 404;
	}
	strbuf_release(&text);
	sides_release(sides, 2);
	return code;
}

static void html_rows(struct strbuf *b, const struct node *rows, bool plots, const char *job)
{
	strbuf_addstr(b, "<table><tr><th>metric</th><th>base</th><th>±%stddev</th><th>commit</th>"
			 "<th>±%stddev</th><th>change</th><th>p (MWU)</th><th>verdict</th></tr>\n");
	for (size_t i = 0; i < rows->n; i++) {
		const struct node *r = rows->vals[i];
		const struct node *bs = node_get(r, "base"), *cs = node_get(r, "commit");
		const char *v = get(r, "verdict");
		double bm = getnum(bs, "mean"), cm = getnum(cs, "mean");
		strbuf_addf(b, "<tr%s%s%s>", *v ? " class=\"" : "", v, *v ? "\"" : "");
		strbuf_addstr(b, "<td>");
		if (job && *job) {
			/* a link to this metric's history, for the job's testcase and path_params */
			const char *slash = strchr(job, '/');
			const char *pp = slash ? slash + 1 : "", *pe = strchr(pp, '/');
			struct strbuf tc = STRBUF_INIT, ps = STRBUF_INIT;
			strbuf_add(&tc, job, slash ? (size_t)(slash - job) : strlen(job));
			strbuf_add(&ps, pp, pe ? (size_t)(pe - pp) : strlen(pp));
			strbuf_addstr(b, "<a href=\"/history?testcase=");
			url_escape(b, tc.buf);
			strbuf_addstr(b, "&amp;path_params=");
			url_escape(b, ps.buf);
			strbuf_addstr(b, "&amp;metric=");
			url_escape(b, get(r, "metric"));
			strbuf_addstr(b, "\">");
			page_escape(b, get(r, "metric"));
			strbuf_addstr(b, "</a>");
			strbuf_release(&tc);
			strbuf_release(&ps);
		} else {
			page_escape(b, get(r, "metric"));
		}
		strbuf_addstr(b, "</td>");
		td_num(b, bm);
		td_num(b, isfinite(bm) && bm ? 100 * getnum(bs, "stddev") / fabs(bm) : NAN);
		td_num(b, cm);
		td_num(b, isfinite(cm) && cm ? 100 * getnum(cs, "stddev") / fabs(cm) : NAN);
		strbuf_addstr(b, "<td class=\"num\">");
		if (isfinite(getnum(r, "change")))
			compare_format_change(b, getnum(r, "change"), !strcmp(get(r, "absolute"), "true"));
		strbuf_addstr(b, "</td>");
		td_num(b, getnum(r, "p_mwu"));
		td(b, *v ? v : !strcmp(get(r, "changed"), "true") ? "changed" : "");
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
	if (!plots)
		return;
	/* the report mails' plots: base samples [*], commit samples [O] */
	struct strbuf p = STRBUF_INIT;
	for (size_t i = 0; i < rows->n; i++) {
		const struct node *r = rows->vals[i];
		if (strcmp(get(r, "changed"), "true"))
			continue;
		const struct node *bv = node_get(node_get(r, "base"), "samples"), *cv = node_get(node_get(r, "commit"), "samples");
		double *g = xcalloc(bv->n + 1, sizeof(double)), *x = xcalloc(cv->n + 1, sizeof(double));
		for (size_t k = 0; k < bv->n; k++)
			json_number(bv->vals[k], &g[k]);
		for (size_t k = 0; k < cv->n; k++)
			json_number(cv->vals[k], &x[k]);
		struct strbuf title = STRBUF_INIT;
		plot_title(&title, get(r, "metric"));
		plot_samples(&p, title.buf, g, bv->n, x, cv->n);
		strbuf_release(&title);
		free(g);
		free(x);
	}
	if (p.len) {
		plot_legend(&p);
		strbuf_addstr(b, "<pre class=\"plots\">");
		page_escape(b, p.buf);
		strbuf_addstr(b, "</pre>\n");
	}
	strbuf_release(&p);
}

static void html_compare(const struct node *d, struct strbuf *b)
{
	struct strbuf t = STRBUF_INIT;
	const struct node *groups = node_get(d, "groups");

	strbuf_addf(&t, "%.12s..%.12s", get(d, "base"), get(d, "commit"));
	page_head(b, t.buf, false);
	strbuf_addstr(b, "<p>base ");
	commit_link(b, get(d, "base"));
	strbuf_addstr(b, " against ");
	commit_link(b, get(d, "commit"));
	strbuf_addstr(b, ": the metrics lkp-tests' rules call changed, and the test's own metrics.</p>\n");
	for (size_t i = 0; i < groups->n; i++) {
		const struct node *g = groups->vals[i];
		strbuf_addstr(b, "<h2>");
		page_escape(b, get(g, "job"));
		strbuf_addstr(b, "</h2>\n");
		html_rows(b, node_get(g, "rows"), true, get(g, "job"));
		strbuf_addstr(b, "<details><summary>the compare table</summary><pre>");
		page_escape(b, get(g, "table"));
		strbuf_addstr(b, "</pre></details>\n");
	}
	page_foot(b);
	strbuf_release(&t);
}

/* ---- commit ---- */

static int data_commit(struct store *s, const char *commit, struct node *out, struct strbuf *err)
{
	struct store_query q = { .commit = commit };
	struct node *runs, *heads;

	if (!commit_name_ok(commit)) {
		strbuf_setf(err, "'%s': not a commit name", commit ? commit : "");
		return 400;
	}
	if (store_list_runs(s, &q, &runs, err))
		return 500;
	if (store_heads(s, false, &heads, err)) {
		node_free(runs);
		return 500;
	}
	node_append(out, "commit", str_node(commit));
	node_append(out, "runs", runs);
	/* the heads it is (or is the base of), and against its base: what changed */
	struct node *hs = node_new(NODE_SEQ), *vs = NULL;
	for (size_t i = 0; i < heads->n; i++) {
		const struct node *h = heads->vals[i];
		if (strcmp(get(h, "head"), commit) && strcmp(get(h, "base"), commit))
			continue;
		node_push(hs, node_dup(h));
		if (!vs && !strcmp(get(h, "head"), commit)) {
			struct strbuf e = STRBUF_INIT;
			vs = node_new(NODE_MAP);
			if (compare_pair(s, get(h, "base"), commit, false, vs, &e) != 200) {
				node_free(vs);
				vs = node_new(NODE_MAP);
				node_append(vs, "error", str_node(e.buf));
			}
			strbuf_release(&e);
		}
	}
	node_append(out, "heads", hs);
	if (vs)
		node_append(out, "against_base", vs);
	node_free(heads);
	if (!runs->n && !hs->n) {
		strbuf_setf(err, "no run and no head of commit %s in the store", commit);
		return 404;
	}
	return 200;
}

static void html_commit(const struct page_env *env, const struct node *d, struct strbuf *b)
{
	const struct node *runs = node_get(d, "runs"), *vs = node_get(d, "against_base");
	struct strbuf t = STRBUF_INIT;

	strbuf_addf(&t, "commit %s", get(d, "commit"));
	page_head(b, t.buf, false);
	strbuf_release(&t);
	if (node_get(d, "heads")->n) {
		strbuf_addstr(b, "<h2>As a head the service tested</h2>\n");
		html_heads(b, node_get(d, "heads"), env->actions);
	}
	if (vs && node_get(vs, "error")) {
		strbuf_addstr(b, "<p>Against its base: ");
		page_escape(b, get(vs, "error"));
		strbuf_addstr(b, "</p>\n");
	} else if (vs) {
		const struct node *groups = node_get(vs, "groups");
		strbuf_addstr(b, "<h2>Against its base ");
		commit_link(b, get(vs, "base"));
		strbuf_addstr(b, " (<a href=\"/compare?base=");
		url_escape(b, get(vs, "base"));
		strbuf_addstr(b, "&amp;commit=");
		url_escape(b, get(d, "commit"));
		strbuf_addstr(b, "\">compare</a>)</h2>\n");
		for (size_t i = 0; i < groups->n; i++) {
			strbuf_addstr(b, "<h3>");
			page_escape(b, get(groups->vals[i], "job"));
			strbuf_addstr(b, "</h3>\n");
			html_rows(b, node_get(groups->vals[i], "rows"), false, get(groups->vals[i], "job"));
		}
	}
	strbuf_addf(b, "<h2>Runs (%zu)</h2>\n<table><tr><th>testcase</th><th>path_params</th><th>tbox_group</th>"
		       "<th>run</th><th>state</th><th>metrics</th><th>accel</th><th>result root</th></tr>\n", runs->n);
	for (size_t i = 0; i < runs->n; i++) {
		const struct node *r = runs->vals[i];
		const char *accel = get(node_get(r, "facts"), "accel");
		strbuf_addstr(b, "<tr>");
		td(b, get(r, "testcase"));
		td(b, get(r, "path_params"));
		td(b, get(r, "tbox_group"));
		td(b, get(r, "run"));
		td(b, get(r, "job_state"));
		td(b, get(r, "stats"));
		td(b, !strncmp(accel, "tcg", 3) ? "tcg (a functional check)" : accel);
		/* the result root, a link when it is under the dashboard's root (which /runs/ serves) */
		const char *rr = get(r, "result_root");
		size_t rl = strlen(env->root);
		strbuf_addstr(b, "<td>");
		if (!strncmp(rr, env->root, rl) && rr[rl] == '/') {
			strbuf_addstr(b, "<a href=\"/runs");
			for (const char *seg = rr + rl; *seg == '/';) {
				const char *end = strchr(seg + 1, '/');
				size_t len = end ? (size_t)(end - seg - 1) : strlen(seg + 1);
				char *part = xstrndup(seg + 1, len);
				strbuf_addch(b, '/');
				url_escape(b, part);
				free(part);
				seg += len + 1;
			}
			strbuf_addstr(b, "/\">");
		}
		strbuf_addstr(b, "<code>");
		page_escape(b, rr);
		strbuf_addstr(b, "</code>");
		if (!strncmp(rr, env->root, rl) && rr[rl] == '/')
			strbuf_addstr(b, "</a>");
		strbuf_addstr(b, "</td></tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
	page_foot(b);
}

/* ---- history ---- */

static int data_history(struct store *s, const struct page_args *a, struct node *out, struct strbuf *err)
{
	struct node *pts, *bis;

	if (!a->testcase || !a->metric) {
		strbuf_setf(err, "history needs testcase=, path_params= and metric= (tbox_group= optional)");
		return 400;
	}
	if (store_history(s, a->testcase, a->path_params ? a->path_params : "defaults", a->metric, a->tbox_group, &pts,
			  err))
		return 500;
	if (store_bisections(s, &bis, err)) {
		node_free(pts);
		return 500;
	}
	/* samples as numbers */
	for (size_t i = 0; i < pts->n; i++) {
		struct node *p = pts->vals[i], *v = node_new(NODE_SEQ);
		const char *txt = get(p, "samples");
		char *end;
		for (const char *c = txt; *c;) {
			double x = strtod(c, &end);
			if (end == c)
				break;
			node_push(v, num_node(x));
			c = end;
		}
		node_set(p, "samples", v);
	}
	/* change points: commits a bisection of this metric found to be the first of a change */
	struct node *cps = node_new(NODE_SEQ);
	for (size_t i = 0; i < bis->n; i++) {
		const struct node *x = bis->vals[i];
		if (strcmp(get(x, "status"), "found") || strcmp(get(x, "metric"), a->metric))
			continue;
		for (size_t k = 0; k < pts->n; k++)
			if (!strcmp(get(pts->vals[k], "commit"), get(x, "culprit"))) {
				struct node *cp = node_new(NODE_MAP);
				node_append(cp, "commit", str_node(get(x, "culprit")));
				node_append(cp, "index", num_node((double)k));
				node_append(cp, "bisection", num_node(getnum(x, "id")));
				node_push(cps, cp);
				break;
			}
	}
	node_free(bis);
	node_append(out, "testcase", str_node(a->testcase));
	node_append(out, "path_params", str_node(a->path_params ? a->path_params : "defaults"));
	node_append(out, "metric", str_node(a->metric));
	if (a->tbox_group)
		node_append(out, "tbox_group", str_node(a->tbox_group));
	node_append(out, "points", pts);
	node_append(out, "change_points", cps);
	return 200;
}

static void html_history(const struct node *d, struct strbuf *b)
{
	const struct node *pts = node_get(d, "points"), *cps = node_get(d, "change_points");
	struct strbuf t = STRBUF_INIT;

	strbuf_addf(&t, "%s: %s/%s", get(d, "metric"), get(d, "testcase"), get(d, "path_params"));
	page_head(b, t.buf, false);
	strbuf_release(&t);
	if (!pts->n) {
		strbuf_addstr(b, "<p>No run of this job has this metric.</p>\n");
		page_foot(b);
		return;
	}
	strbuf_addf(b, "<p>%zu commits, in the order they were first run; dots are runs, the line their means; "
		       "red lines mark the commits a bisection found to be the first of a change (%zu).</p>\n",
		    pts->n, cps->n);
	svg_history(b, get(d, "metric"), pts, cps);
	strbuf_addstr(b, "<table><tr><th>commit</th><th>first run</th><th>runs</th><th>mean</th><th>min</th>"
			 "<th>max</th></tr>\n");
	for (size_t i = pts->n; i-- > 0;) {
		const struct node *p = pts->vals[i];
		strbuf_addstr(b, "<tr>");
		td_commit(b, get(p, "commit"));
		td_time(b, getnum(p, "first_run"));
		td(b, get(p, "runs"));
		td_num(b, getnum(p, "mean"));
		td_num(b, getnum(p, "min"));
		td_num(b, getnum(p, "max"));
		strbuf_addstr(b, "</tr>\n");
	}
	strbuf_addstr(b, "</table>\n");
	page_foot(b);
}

/* ---- bisection ---- */

static int data_bisection(struct store *s, const char *rest, struct node *out, struct strbuf *err)
{
	long long id;
	struct node *row;

	if (!id_ok(rest, &id)) {
		strbuf_setf(err, "'%s': not a bisection id", rest ? rest : "");
		return 400;
	}
	int rc = store_bisection_row(s, id, &row, err);
	if (rc < 0)
		return 500;
	if (rc) {
		strbuf_setf(err, "no bisection %lld", id);
		return 404;
	}
	node_append(out, "bisection", row);
	/* the range, when its repository is still there, and each commit's samples of the metric */
	struct gitrepo *repo;
	struct gitrepo_range range = { 0 };
	struct strbuf e = STRBUF_INIT;
	const char *metric = get(row, "metric");
	struct node *commits = node_new(NODE_SEQ);
	if (!gitrepo_open(&repo, get(row, "tree"), &e)) {
		if (gitrepo_range(repo, get(row, "good"), get(row, "bad"), false, &range, &e))
			range.n = 0;
		gitrepo_close(repo);
	}
	size_t n = range.n + 1;	/* the good end first, then the range (its last is bad) */
	for (size_t i = 0; i < n; i++) {
		const char *c = i ? range.id[i - 1] : get(row, "good");
		struct store_query q = { .commit = c };
		struct node *runs, *samples = node_new(NODE_SEQ), *cm = node_new(NODE_MAP);
		if (!store_list_runs(s, &q, &runs, &e)) {
			for (size_t r = 0; r < runs->n && *metric; r++) {
				struct node *st;
				if (store_run_stats(s, get(runs->vals[r], "result_root"), &st, &e) == 0) {
					double v;
					if (json_number(node_get(st, metric), &v))
						node_push(samples, num_node(v));
					node_free(st);
				}
			}
			node_free(runs);
		}
		node_append(cm, "commit", str_node(c));
		node_append(cm, "samples", samples);
		node_push(commits, cm);
	}
	if (!range.n) {
		/* no repository: the ends only */
		struct node *cm = node_new(NODE_MAP);
		node_append(cm, "commit", str_node(get(row, "bad")));
		node_append(cm, "samples", node_new(NODE_SEQ));
		node_push(commits, cm);
	}
	gitrepo_range_release(&range);
	strbuf_release(&e);
	size_t measured = 0;
	for (size_t i = 0; i < commits->n; i++)
		measured += node_get(commits->vals[i], "samples")->n > 0;
	node_append(out, "commits", commits);
	node_append(out, "measured", num_node((double)measured));
	return 200;
}

static void html_bisection(const struct node *d, struct strbuf *b)
{
	const struct node *x = node_get(d, "bisection"), *commits = node_get(d, "commits");
	struct strbuf t = STRBUF_INIT;
	const char *status = get(x, "status"), *culprit = get(x, "culprit");

	strbuf_addf(&t, "bisection %s", get(x, "id"));
	page_head(b, t.buf, !strcmp(status, "running"));
	strbuf_release(&t);
	strbuf_addstr(b, "<table>");
	const char *keys[] = { "tree", "job", "provider", "metric", "status", "why" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		strbuf_addstr(b, "<tr><th>");
		page_escape(b, keys[i]);
		strbuf_addstr(b, "</th>");
		td(b, get(x, keys[i]));
		strbuf_addstr(b, "</tr>");
	}
	strbuf_addstr(b, "<tr><th>good</th>");
	td_commit(b, get(x, "good"));
	strbuf_addstr(b, "</tr><tr><th>bad</th>");
	td_commit(b, get(x, "bad"));
	strbuf_addstr(b, "</tr><tr><th>culprit</th>");
	td_commit(b, culprit);
	strbuf_addf(b, "</tr><tr><th>progress</th><td>%s of %zu commits measured</td></tr></table>\n",
		    get(d, "measured"), commits->n);
	strbuf_addstr(b, "<h2>Samples per commit (good end first)</h2>\n<table><tr><th>commit</th><th>runs</th>"
			 "<th>mean</th><th>samples</th></tr>\n");
	for (size_t i = 0; i < commits->n; i++) {
		const struct node *c = commits->vals[i], *sm = node_get(c, "samples");
		double sum = 0, v;
		struct strbuf list = STRBUF_INIT;
		for (size_t k = 0; k < sm->n; k++)
			if (json_number(sm->vals[k], &v)) {
				sum += v;
				if (k)
					strbuf_addch(&list, ' ');
				compare_format_value(&list, v);
			}
		strbuf_addf(b, "<tr%s>", *culprit && !strcmp(get(c, "commit"), culprit) ? " class=\"found\"" : "");
		td_commit(b, get(c, "commit"));
		strbuf_addf(b, "<td>%zu</td>", sm->n);
		td_num(b, sm->n ? sum / (double)sm->n : NAN);
		td(b, list.buf);
		strbuf_addstr(b, "</tr>\n");
		strbuf_release(&list);
	}
	strbuf_addstr(b, "</table>\n");
	page_foot(b);
}

/* ---- report mails ---- */

static int data_report(struct store *s, const char *rest, struct node *out, struct strbuf *err)
{
	long long id;
	struct store_mail m;

	if (!id_ok(rest, &id)) {
		strbuf_setf(err, "'%s': not a report id", rest ? rest : "");
		return 400;
	}
	if (store_outbox_get(s, id, &m, err))
		return 404;
	node_append(out, "id", num_node((double)m.id));
	node_append(out, "message_id", str_node(m.message_id));
	node_append(out, "from", str_node(m.from));
	node_append(out, "rcpts", str_node(m.rcpts));
	node_append(out, "status", str_node(m.status));
	node_append(out, "attempts", num_node(m.attempts));
	node_append(out, "last_error", str_node(m.last_error));
	node_append(out, "created", num_node((double)m.created));
	node_append(out, "sent", num_node(m.sent ? (double)m.sent : NAN));
	node_append(out, "message", str_node(m.data));
	store_mail_release(&m);
	return 200;
}

static void html_report(const struct page_env *env, const struct node *d, struct strbuf *b)
{
	const char *msg = get(d, "message"), *body = strstr(msg, "\r\n\r\n");
	struct strbuf t = STRBUF_INIT, hdr = STRBUF_INIT;

	/* the Subject: line, unfolded, as the title */
	const char *subj = strstr(msg, "\r\nSubject: ");
	if (subj && (!body || subj < body)) {
		subj += 11;
		for (const char *p = subj; *p && p != body; p++) {
			if (p[0] == '\r' && p[1] == '\n' && (p[2] == ' ' || p[2] == '\t')) {
				p++;
				continue;
			}
			if (*p == '\r')
				break;
			strbuf_addch(&t, *p);
		}
	}
	page_head(b, t.len ? t.buf : "report", false);
	strbuf_addstr(b, "<table>");
	const char *keys[] = { "message_id", "from", "rcpts", "status", "attempts", "last_error" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		strbuf_addstr(b, "<tr><th>");
		page_escape(b, keys[i]);
		strbuf_addstr(b, "</th>");
		td(b, get(d, keys[i]));
		strbuf_addstr(b, "</tr>");
	}
	strbuf_addstr(b, "</table>\n");
	if (env->actions && strcmp(get(d, "status"), "sent") && strcmp(get(d, "status"), "sending"))
		action_form(b, "reports", (long long)getnum(d, "id"), "resend");
	if (body) {
		strbuf_add(&hdr, msg, (size_t)(body - msg));
		strbuf_addstr(b, "<details><summary>headers</summary><pre>");
		page_escape(b, hdr.buf);
		strbuf_addstr(b, "</pre></details>\n<pre class=\"mail\">");
		page_escape(b, body + 4);
		strbuf_addstr(b, "</pre>\n");
	}
	page_foot(b);
	strbuf_release(&t);
	strbuf_release(&hdr);
}

/* ---- the table of pages ---- */

int page_data(const struct page_env *env, const char *name, const struct page_args *a, struct node **out,
	      struct strbuf *err)
{
	struct store *s = store_open(env->db, err);
	int code = 404;

	*out = NULL;
	if (!s)
		return 500;
	struct node *d = node_new(NODE_MAP);
	if (!strcmp(name, "") || !strcmp(name, "overview")) {
		code = data_overview(env, s, d, err);
	} else if (!strcmp(name, "commit")) {
		code = data_commit(s, a->rest, d, err);
	} else if (!strcmp(name, "compare")) {
		if (!commit_name_ok(a->base) || !commit_name_ok(a->commit)) {
			strbuf_setf(err, "compare needs base= and commit= (commit ids or kernel releases)");
			code = 400;
		} else {
			code = compare_pair(s, a->base, a->commit, false, d, err);
		}
	} else if (!strcmp(name, "history")) {
		code = data_history(s, a, d, err);
	} else if (!strcmp(name, "bisections") && a->rest && *a->rest) {
		code = data_bisection(s, a->rest, d, err);
	} else if (!strcmp(name, "bisections")) {
		node_free(d);
		code = store_bisections(s, &d, err) ? 500 : 200;
	} else if (!strcmp(name, "reports")) {
		code = data_report(s, a->rest, d, err);
	} else if (!strcmp(name, "heads")) {
		node_free(d);
		code = store_heads(s, false, &d, err) ? 500 : 200;
	} else if (!strcmp(name, "outbox")) {
		node_free(d);
		code = store_outbox_list(s, &d, err) ? 500 : 200;
	} else if (!strcmp(name, "machines")) {
		node_free(d);
		code = store_machines(s, &d, err) ? 500 : 200;
	} else {
		strbuf_setf(err, "no such page");
	}
	store_close(s);
	if (code != 200) {
		node_free(d);
		return code;
	}
	*out = d;
	return 200;
}

bool page_html(const struct page_env *env, const char *name, const struct page_args *a, const struct node *data,
	       struct strbuf *out)
{
	(void)a;
	if (!strcmp(name, ""))
		html_overview(env, data, out);
	else if (!strcmp(name, "commit"))
		html_commit(env, data, out);
	else if (!strcmp(name, "compare"))
		html_compare(data, out);
	else if (!strcmp(name, "history"))
		html_history(data, out);
	else if (!strcmp(name, "bisections") && a->rest && *a->rest)
		html_bisection(data, out);
	else if (!strcmp(name, "reports"))
		html_report(env, data, out);
	else
		return false;
	return true;
}

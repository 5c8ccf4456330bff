/*
 * route: one request answered, without a socket — web_handle() of web.h.
 * /api/<page> is a page's data as JSON, /<page> its HTML (the table of
 * pages, pages.h), /<page>/<id>/<n>[/<name>] a page's files, /runs/ the
 * result root's files (streamed, regular files only, never the store),
 * /static/style.css and the icon, POST /api/<what>/<id>/<action> the
 * actions. httpd.c hands requests here from libmicrohttpd; tests and the
 * fuzzer call it directly.
 */
#include "gitdumb.h"
#include "site.h"
#include "html.h"
#include "pages.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"
#include "../lib/util/node.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TYPE_HTML "text/html; charset=utf-8"
#define TYPE_JSON "application/json"
#define TYPE_TEXT "text/plain; charset=utf-8"

static void error_page(struct web_response *rs, unsigned code, const char *what)
{
	char title[32];

	strbuf_reset(&rs->body);
	snprintf(title, sizeof(title), "%u", code);
	pages_head(&rs->body, title, 0);
	strbuf_addstr(&rs->body, "<p>");
	html_escape(&rs->body, what);
	strbuf_addstr(&rs->body, "</p>\n");
	html_foot(&rs->body);
	rs->status = code;
	rs->type = TYPE_HTML;
}

static void error_json(struct web_response *rs, unsigned code, const char *what)
{
	strbuf_reset(&rs->body);
	strbuf_addstr(&rs->body, "{\"error\": ");
	json_emit_string(&rs->body, what);
	strbuf_addstr(&rs->body, "}\n");
	rs->status = code;
	rs->type = TYPE_JSON;
}

static void method_not_allowed(struct web_response *rs, const char *allow, const char *what)
{
	error_page(rs, 405, what);
	rs->allow = allow;
}

/* ---- /runs/: the result root's files ---- */

/* The store and its companions (-wal, -shm, the sender's lock), wherever they are: never served, never listed. */
static bool is_store(const struct web *w, const char *real)
{
	const char *base = strrchr(real, '/');
	base = base ? base + 1 : real;
	return !strncmp(base, "lkprobot.db", 11) || (w->db_real && !strncmp(real, w->db_real, strlen(w->db_real)));
}

/* What a result file is shown as: text unless its name says it is packed. */
static const char *file_type(const char *name)
{
	static const char *const packed[] = { ".gz", ".xz", ".bz2", ".zst", ".cpio", ".img", ".tar", ".zip", ".bin",
					      ".ko", ".vmlinuz", NULL };
	const char *dot = strrchr(name, '.');
	if (dot && !strcmp(dot, ".json"))
		return TYPE_JSON;
	for (const char *const *p = packed; dot && *p; p++)
		if (!strcmp(dot, *p))
			return "application/octet-stream";
	if (!strncmp(name, "vmlinuz", 7) || !strncmp(name, "bzImage", 7))
		return "application/octet-stream";
	return TYPE_TEXT;
}

struct entry {
	char *name;
	bool dir;
	long long size;
	time_t mtime;
};

static int cmp_entries(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

static void listing(const struct web *w, const char *real, struct web_response *rs)
{
	const char *rel = real + strlen(w->root);
	DIR *d = opendir(real);
	struct dirent *de;
	struct entry *e = NULL;
	size_t n = 0;

	while (d && (de = readdir(d))) {
		struct stat st;
		char *p = xasprintf("%s/%s", real, de->d_name);
		bool skip = de->d_name[0] == '.' || is_store(w, p) || stat(p, &st) ||
			    (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode));
		free(p);
		if (skip)
			continue;	/* nothing that cannot be opened is offered */
		e = xrealloc(e, (n + 1) * sizeof(*e));
		e[n++] = (struct entry){ xstrdup(de->d_name), S_ISDIR(st.st_mode), (long long)st.st_size, st.st_mtime };
	}
	if (d)
		closedir(d);
	if (n)
		qsort(e, n, sizeof(*e), cmp_entries);
	struct strbuf *b = &rs->body, href = STRBUF_INIT;
	/* the directory's own path, each part escaped: every link is absolute */
	strbuf_addstr(&href, "/runs");
	html_path_escape(&href, rel);
	pages_head(b, *rel ? rel : "result roots", 0);
	if (*rel) {
		const char *up = strrchr(href.buf, '/');
		strbuf_addstr(b, "<p><a href=\"");
		strbuf_add(b, href.buf, (size_t)(up - href.buf));
		strbuf_addstr(b, "/\">..</a></p>\n");
	}
	strbuf_addstr(b, "<table><tr><th>name</th><th>size</th><th>modified</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(b, "<tr><td><a href=\"");
		strbuf_addstr(b, href.buf);
		strbuf_addch(b, '/');
		html_url_escape(b, e[i].name);
		strbuf_addstr(b, e[i].dir ? "/\">" : "\">");
		html_escape(b, e[i].name);
		strbuf_addstr(b, e[i].dir ? "/</a></td><td></td>" : "</a></td>");
		if (!e[i].dir)
			strbuf_addf(b, "<td class=\"num\">%lld</td>", e[i].size);
		html_td_time(b, (double)e[i].mtime);
		strbuf_addstr(b, "</tr>\n");
		free(e[i].name);
	}
	free(e);
	strbuf_addstr(b, "</table>\n");
	html_foot(b);
	strbuf_release(&href);
	rs->status = 200;
	rs->type = TYPE_HTML;
}

/* A file or directory under the result root; nothing outside it, whatever the path says, and nothing but those. */
static void runs(const struct web *w, const char *rel, struct web_response *rs)
{
	char *want = xasprintf("%s/%s", w->root, rel), real[PATH_MAX];
	size_t rl = strlen(w->root);
	struct stat st;

	if (!realpath(want, real) || strncmp(real, w->root, rl) || (real[rl] && real[rl] != '/') || is_store(w, real) ||
	    stat(real, &st)) {
		free(want);
		error_page(rs, 404, "no such file in the result root");
		return;
	}
	free(want);
	if (S_ISDIR(st.st_mode)) {
		listing(w, real, rs);
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		/* a FIFO would block a worker, a device is not a result */
		error_page(rs, 403, "not a regular file: only files and directories of the result root are served");
		return;
	}
	/* opened without blocking, and checked again: it must still be that regular file */
	int fd = open(real, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat fst;
	if (fd < 0 || fstat(fd, &fst) || !S_ISREG(fst.st_mode) || fst.st_ino != st.st_ino) {
		if (fd >= 0)
			close(fd);
		error_page(rs, 403, "cannot read that file");
		return;
	}
	const char *name = strrchr(real, '/');
	rs->status = 200;
	rs->type = file_type(name ? name + 1 : real);
	rs->fd = fd;
	rs->size = (uint64_t)fst.st_size;
}

/* ---- actions ---- */

/* The value of `key` in an x-www-form-urlencoded body, decoded; NULL when absent. */
static char *form_value(const char *body, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = body; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		if (strncmp(p, key, kl) || p[kl] != '=')
			continue;
		struct strbuf v = STRBUF_INIT;
		for (const char *q = p + kl + 1; *q && *q != '&'; q++) {
			unsigned hi, lo;
			if (*q == '+')
				strbuf_addch(&v, ' ');
			else if (*q == '%' && sscanf(q + 1, "%1x%1x", &hi, &lo) == 2) {
				strbuf_addch(&v, (char)(hi << 4 | lo));
				q += 2;
			} else
				strbuf_addch(&v, *q);
		}
		return strbuf_detach(&v);
	}
	return NULL;
}

/* Equal, in a time that does not depend on where they differ. */
static bool same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = la != lb;

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return !diff && la;
}

/* An action's path (after /api/): heads/ID/retest|cancel, reports/ID/resend — what, the id's text, the verb. */
static bool action_path(const char *path, char what[16], char idtext[32], char verb[16])
{
	int end = 0;
	if (sscanf(path, "%15[a-z]/%31[^/]/%15[a-z]%n", what, idtext, verb, &end) != 3 || path[end])
		return false;
	return (!strcmp(what, "heads") && (!strcmp(verb, "retest") || !strcmp(verb, "cancel"))) ||
	       (!strcmp(what, "reports") && !strcmp(verb, "resend")) ||
	       (!strcmp(what, "regressions") && page_regression_state(verb));
}

/* A report's triage state set from the dashboard (the body's why= says why): 0, 1 no such report, -1. */
static int triage_action(struct store *s, long long id, const char *verb, const char *body, int64_t now,
			 struct strbuf *err)
{
	char *why = body ? form_value(body, "why") : NULL;
	struct store_triage t = { .report = id,
				  .state = page_regression_state(verb),
				  .who = "the dashboard",
				  .why = why && *why ? why : NULL,
				  .source = "dashboard" };
	int rc = store_report_triage(s, &t, now, err);

	free(why);
	return rc;
}

/*
 * POST /api/heads/ID/retest|cancel, /api/reports/ID/resend,
 * /api/regressions/ID/ack|fixed|invalid|wontfix|reopen: with the token
 * as "Authorization: Bearer TOKEN" (answered with JSON) or a form's token=
 * field (answered with a redirect to the page it came from).
 */
static void action(const struct web *w, const struct web_request *rq, const char *path, struct web_response *rs)
{
	const char *auth = rq->authorization;
	char *form = rq->body ? form_value(rq->body, "token") : NULL;
	const char *given = auth && !strncmp(auth, "Bearer ", 7) ? auth + 7 : form;
	char what[16], verb[16], idtext[32];
	long long id;
	struct strbuf err = STRBUF_INIT;

	if (!action_path(path, what, idtext, verb)) {
		error_json(rs, 404, "no such action");
	} else if (!w->token) {
		error_json(rs, 403, "actions are off: the configuration has no serve.web_token_file");
	} else if (!given || !same_secret(given, w->token)) {
		error_json(rs, 403, "a token is needed for actions (Authorization: Bearer TOKEN, or the form's field)");
	} else if (!page_id_ok(idtext, &id)) {
		error_json(rs, 400, "not an id: a whole number from 1");
	} else {
		struct store *s = store_open(w->db, &err);
		int rc = -1;
		if (s) {
			int64_t now = (int64_t)time(NULL);
			if (!strcmp(verb, "retest"))
				rc = store_head_retest(s, id, now, &err);
			else if (!strcmp(verb, "cancel"))
				rc = store_head_cancel(s, id, now, &err);
			else if (!strcmp(what, "regressions"))
				rc = triage_action(s, id, verb, rq->body, now, &err);
			else
				rc = store_outbox_retry(s, id, now, &err);
			store_close(s);
		}
		if (rc) {
			error_json(rs, s ? 409 : 500, err.buf);
		} else if (given != form) {
			strbuf_addf(&rs->body, "{\"ok\": true, \"%s\": %lld, \"action\": \"%s\"}\n", what, id, verb);
			rs->status = 200;
			rs->type = TYPE_JSON;
		} else {
			/* from a form: back to the page, which shows the new state */
			rs->status = 303;
			rs->type = TYPE_TEXT;
			rs->location = !strcmp(what, "reports")	      ? xasprintf("/reports/%lld", id)
				       : !strcmp(what, "regressions") ? xasprintf("/regressions#r%lld", id)
								      : xstrdup("/");
		}
	}
	free(form);
	strbuf_release(&err);
}

/* ---- pages ---- */

/* The index of the JSON API: itself, the pages, the files, the actions. */
static void api_index(struct web_response *rs)
{
	strbuf_addstr(&rs->body, "{\"pages\": [\"/api/\"");
	pages_index(&rs->body, false);
	strbuf_addstr(&rs->body, "], \"files\": [\"/runs/PATH\"");
	pages_index(&rs->body, true);
	strbuf_addstr(
		&rs->body,
		"], \"actions\": [\"POST /api/heads/ID/retest\", \"POST /api/heads/ID/cancel\", "
		"\"POST /api/reports/ID/resend\", \"POST /api/regressions/ID/ack|fixed|invalid|wontfix|reopen\"]}\n");
	rs->status = 200;
	rs->type = TYPE_JSON;
}

/* Is path (after its '/') NAME/ID/N[/...], a file of page NAME (a report mail's attachment)? */
static bool is_page_file(const char *path)
{
	const char *slash = strchr(path, '/'), *next = slash ? strchr(slash + 1, '/') : NULL;

	if (!next || !next[1])
		return false;
	char *pagename = xstrndup(path, (size_t)(slash - path));
	bool yes = pages_has_files(pagename);
	free(pagename);
	return yes;
}

/* NAME/ID/N[/...]: file N of page NAME's ID, decoded (a report mail's attachment). */
static void page_file(const struct web *w, const char *path, struct web_response *rs)
{
	const char *rest = strchr(path, '/') + 1, *slash = strchr(rest, '/');
	char *pagename = xstrndup(path, (size_t)(rest - 1 - path)), *id = xstrndup(rest, (size_t)(slash - rest));
	char *n = xstrndup(slash + 1, strcspn(slash + 1, "/"));
	char *type = NULL, *name = NULL;
	struct strbuf err = STRBUF_INIT;
	int code = pages_file(&w->env, pagename, id, n, &rs->body, &type, &name, &err);

	if (code != 200) {
		error_page(rs, (unsigned)code, err.buf);
	} else {
		/* a constant type: a page's file is text or bytes */
		bool text = !strncmp(type, "text/", 5);
		rs->type = text ? TYPE_TEXT : "application/octet-stream";
		rs->status = 200;
		struct strbuf cd = STRBUF_INIT;
		strbuf_addstr(&cd, text ? "inline; filename*=utf-8''" : "attachment; filename*=utf-8''");
		html_url_escape(&cd, name);
		rs->disposition = strbuf_detach(&cd);
	}
	free(pagename);
	free(id);
	free(n);
	free(type);
	free(name);
	strbuf_release(&err);
}

/* A page: /api/<name>[/<rest>] as JSON, /<name>[/<rest>] as HTML, kept while the store is unchanged. */
static void page(struct web *w, const struct web_request *rq, const char *path, bool api, struct web_response *rs)
{
	struct page_args a = { .n = rq->nargs, .keys = rq->keys, .vals = rq->vals };
	struct strbuf name = STRBUF_INIT, err = STRBUF_INIT, key = STRBUF_INIT;
	const char *slash = strchr(path, '/');
	struct node *d = NULL;

	strbuf_add(&name, path, slash ? (size_t)(slash - path) : strlen(path));
	a.rest = slash ? slash + 1 : NULL;
	/* the same request on the same store: the page made before */
	struct cache_stamp st;
	const char *type;
	strbuf_addf(&key, "%s%c%s", api ? "api" : "html", 0x1f, path);
	for (size_t i = 0; i < rq->nargs; i++)
		strbuf_addf(&key, "%c%s=%s", 0x1f, rq->keys[i], rq->vals[i] ? rq->vals[i] : "");
	bool live = pages_live(&w->env, name.buf);
	if (!live)
		cache_stamp(w->cache, pages_reads(name.buf, a.rest), &st);
	if (!live && cache_get(w->cache, key.buf, &st, &rs->body, &type)) {
		rs->status = 200;
		rs->type = type;
		goto out;
	}
	int code = pages_data(&w->env, name.buf, &a, &d, &err);
	if (code != 200) {
		if (api)
			error_json(rs, (unsigned)code, err.buf);
		else
			error_page(rs, (unsigned)code, err.buf);
	} else if (api) {
		json_emit(&rs->body, d);
		strbuf_addch(&rs->body, '\n');
		rs->status = 200;
		rs->type = TYPE_JSON;
		if (!live)
			cache_put(w->cache, key.buf, &st, TYPE_JSON, rs->body.buf, rs->body.len);
	} else if (pages_html(&w->env, name.buf, &a, d, &rs->body)) {
		rs->status = 200;
		rs->type = TYPE_HTML;
		if (!live)
			cache_put(w->cache, key.buf, &st, TYPE_HTML, rs->body.buf, rs->body.len);
	} else {
		error_page(rs, 404, "no such page (its data is under /api/)");
	}
	node_free(d);
out:
	strbuf_release(&key);
	strbuf_release(&name);
	strbuf_release(&err);
}

/* A line break, an escape (%0a, %1b decoded) is in no path of ours: and it would reach the log. */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

void web_handle(struct web *w, const struct web_request *rq, struct web_response *rs)
{
	const char *path = rq->path ? rq->path : "";
	bool get = !strcmp(rq->method, "GET") || !strcmp(rq->method, "HEAD");
	char what[16], verb[16], idtext[32];

	memset(rs, 0, sizeof(*rs));
	strbuf_init(&rs->body, 0);
	rs->fd = -1;
	if (*path != '/' || strlen(path) > 4096 || has_control(path)) {
		error_page(rs, 400, "not a path this dashboard has");
		return;
	}
	if (rq->nargs > WEB_MAX_ARGS) {
		error_page(rs, 400, "too many query arguments (the pages take a few)");
		return;
	}
	if (!strcmp(rq->method, "POST")) {
		if (rq->body_too_big)
			error_json(rs, 413, "an action's body is a token, not more");
		else if (strncmp(path, "/api/", 5))
			method_not_allowed(rs, "GET, HEAD", "only the actions under /api/ take a POST");
		else
			action(w, rq, path + 5, rs);
		return;
	}
	if (!get) {
		method_not_allowed(rs, "GET, HEAD, POST", "the dashboard takes GET, and POST for its actions");
		return;
	}
	if (!strcmp(path, "/static/style.css") || !strcmp(path, "/favicon.svg") || !strcmp(path, "/favicon.ico")) {
		bool css = path[1] == 's';
		strbuf_addstr(&rs->body, css ? html_css : html_favicon);
		rs->status = 200;
		rs->type = css ? "text/css; charset=utf-8" : "image/svg+xml";
		rs->immutable = true;
	} else if (!strcmp(path, "/api/") || !strcmp(path, "/api")) {
		api_index(rs);
	} else if (!strncmp(path, "/api/", 5) && action_path(path + 5, what, idtext, verb)) {
		method_not_allowed(rs, "POST", "an action: POST it, with the token");
	} else if (!strncmp(path, "/api/", 5)) {
		page(w, rq, path + 5, true, rs);
	} else if (w->git_name && !strncmp(path, w->git_name, strlen(w->git_name))) {
		gitdumb_serve(w->git_repo, path + strlen(w->git_name), rs);
	} else if (!strncmp(path, "/runs/", 6) || !strcmp(path, "/runs")) {
		runs(w, path[5] ? path + 6 : "", rs);
	} else if (is_page_file(path + 1)) {
		page_file(w, path + 1, rs);
	} else {
		page(w, rq, path + 1, false, rs);
	}
}

void web_response_release(struct web_response *rs)
{
	strbuf_release(&rs->body);
	if (rs->fd >= 0)
		close(rs->fd);
	rs->fd = -1;
	free(rs->location);
	free(rs->disposition);
	rs->location = rs->disposition = NULL;
}

/*
 * web: the dashboard's pages and JSON. See web.h. One handler dispatches on
 * the path; pages are built in a strbuf and handed to libmicrohttpd.
 */
#include "web.h"
#include "../lib/json.h"
#include "../lib/node.h"
#include "../lib/store.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

struct web {
	struct MHD_Daemon *d;
	char *db, *root;
};

void web_escape(struct strbuf *out, const char *s)
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

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, struct strbuf *body)
{
	size_t len = body->len;
	struct MHD_Response *r = MHD_create_response_from_buffer(len, strbuf_detach(body), MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", type);
	/* nothing on these pages runs scripts or loads from elsewhere */
	MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'; script-src 'none'");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result error_page(struct MHD_Connection *c, unsigned code, const char *what)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_addf(&b, "<!DOCTYPE html><title>%u</title><p>", code);
	web_escape(&b, what);
	strbuf_addstr(&b, "</p>\n");
	return reply(c, code, "text/html; charset=utf-8", &b);
}

static void head(struct strbuf *b, const char *title)
{
	strbuf_addstr(b, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
	web_escape(b, title);
	strbuf_addstr(b, "</title><style>body{font-family:sans-serif;margin:1em 2em}"
			 "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
			 "td.found{background:#fdd}pre{white-space:pre-wrap}</style></head><body>\n"
			 "<p><a href=\"/\">overview</a> · <a href=\"/runs/\">result roots</a> · "
			 "<a href=\"/api/heads\">/api/heads</a> · <a href=\"/api/outbox\">/api/outbox</a></p>\n<h1>");
	web_escape(b, title);
	strbuf_addstr(b, "</h1>\n");
}

static int open_store(const struct web *w, struct store **s, struct strbuf *err)
{
	*s = store_open(w->db, err);
	return *s ? 0 : -1;
}

static enum MHD_Result overview(const struct web *w, struct MHD_Connection *c)
{
	struct strbuf b = STRBUF_INIT, err = STRBUF_INIT;
	struct store *s;
	struct node *heads = NULL, *mails = NULL;

	if (open_store(w, &s, &err) || store_heads(s, false, &heads, &err) || store_outbox_list(s, &mails, &err)) {
		enum MHD_Result r = error_page(c, 500, err.buf);
		if (s)
			store_close(s);
		node_free(heads);
		strbuf_release(&err);
		return r;
	}
	head(&b, "lkprobot");
	strbuf_addf(&b, "<h2>Heads tested (%zu)</h2>\n<table><tr><th>tree</th><th>branch</th><th>head</th>"
			"<th>base</th><th>status</th><th>outcome</th></tr>\n", heads->n);
	for (size_t i = heads->n; i-- > 0;) {
		const struct node *h = heads->vals[i];
		const char *r = node_str(node_get(h, "result"));
		bool found = r && strstr(r, "\"found\"");
		strbuf_addstr(&b, "<tr><td>");
		web_escape(&b, node_str(node_get(h, "tree")));
		strbuf_addstr(&b, "</td><td>");
		web_escape(&b, node_str(node_get(h, "branch")));
		strbuf_addstr(&b, "</td><td><code>");
		web_escape(&b, node_str(node_get(h, "head")));
		strbuf_addstr(&b, "</code></td><td><code>");
		web_escape(&b, node_str(node_get(h, "base")));
		strbuf_addstr(&b, "</code></td><td>");
		web_escape(&b, node_str(node_get(h, "status")));
		strbuf_addf(&b, "</td><td%s>", found ? " class=\"found\"" : "");
		web_escape(&b, r ? r : "");
		strbuf_addstr(&b, "</td></tr>\n");
	}
	strbuf_addf(&b, "</table>\n<h2>Report mails (%zu)</h2>\n<table><tr><th>id</th><th>Message-ID</th>"
			"<th>status</th><th>attempts</th><th>last error</th></tr>\n", mails->n);
	for (size_t i = mails->n; i-- > 0;) {
		const struct node *m = mails->vals[i];
		const char *cols[] = { "id", "message_id", "status", "attempts", "last_error" };
		strbuf_addstr(&b, "<tr>");
		for (int k = 0; k < 5; k++) {
			strbuf_addstr(&b, "<td>");
			web_escape(&b, node_str(node_get(m, cols[k])));
			strbuf_addstr(&b, "</td>");
		}
		strbuf_addstr(&b, "</tr>\n");
	}
	strbuf_addstr(&b, "</table>\n</body></html>\n");
	node_free(heads);
	node_free(mails);
	store_close(s);
	strbuf_release(&err);
	return reply(c, 200, "text/html; charset=utf-8", &b);
}

static enum MHD_Result api(const struct web *w, struct MHD_Connection *c, const char *what)
{
	struct strbuf b = STRBUF_INIT, err = STRBUF_INIT;
	struct store *s;
	struct node *n = NULL;
	int rc;

	if (open_store(w, &s, &err)) {
		enum MHD_Result r = error_page(c, 500, err.buf);
		strbuf_release(&err);
		return r;
	}
	rc = !strcmp(what, "heads") ? store_heads(s, false, &n, &err) : store_outbox_list(s, &n, &err);
	store_close(s);
	if (rc) {
		enum MHD_Result r = error_page(c, 500, err.buf);
		strbuf_release(&err);
		return r;
	}
	json_emit(&b, n);
	strbuf_addch(&b, '\n');
	node_free(n);
	strbuf_release(&err);
	return reply(c, 200, "application/json", &b);
}

/* A file or directory under the result root; nothing outside it, whatever the path says. */
static enum MHD_Result runs(const struct web *w, struct MHD_Connection *c, const char *rel)
{
	char *want = xasprintf("%s/%s", w->root, rel), real[PATH_MAX];
	struct strbuf b = STRBUF_INIT;
	struct stat st;
	size_t rl = strlen(w->root);

	if (!realpath(want, real) || strncmp(real, w->root, rl) || (real[rl] && real[rl] != '/')) {
		free(want);
		return error_page(c, 404, "no such file in the result root");
	}
	free(want);
	if (stat(real, &st))
		return error_page(c, 404, "no such file in the result root");
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(real);
		struct dirent *de;
		char **names = NULL;
		size_t n = 0;
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.') {
				names = xrealloc(names, (n + 1) * sizeof(*names));
				names[n++] = xstrdup(de->d_name);
			}
		if (d)
			closedir(d);
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (strcmp(names[i], names[j]) > 0) {
					char *t = names[i];
					names[i] = names[j];
					names[j] = t;
				}
		head(&b, real + rl);
		strbuf_addstr(&b, "<ul>\n");
		for (size_t i = 0; i < n; i++) {
			strbuf_addstr(&b, "<li><a href=\"");
			web_escape(&b, names[i]);
			strbuf_addstr(&b, "/\">");
			web_escape(&b, names[i]);
			strbuf_addstr(&b, "</a></li>\n");
			free(names[i]);
		}
		free(names);
		strbuf_addstr(&b, "</ul></body></html>\n");
		return reply(c, 200, "text/html; charset=utf-8", &b);
	}
	if (strbuf_read_file(&b, real))
		return error_page(c, 403, "cannot read that file");
	/* result files are text shown as text, never as HTML */
	return reply(c, 200, "text/plain; charset=utf-8", &b);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **state)
{
	const struct web *w = cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return error_page(c, 405, "the dashboard is read-only");
	if (!strcmp(url, "/"))
		return overview(w, c);
	if (!strcmp(url, "/api/heads"))
		return api(w, c, "heads");
	if (!strcmp(url, "/api/outbox"))
		return api(w, c, "outbox");
	if (!strncmp(url, "/runs/", 6) || !strcmp(url, "/runs"))
		return runs(w, c, url[5] ? url + 6 : "");
	return error_page(c, 404, "no such page");
}

struct web *web_start(const char *addr, const char *db, const char *result_root, struct strbuf *err)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const char *colon = strrchr(addr, ':');
	char host[64], real[PATH_MAX];
	long port = colon ? strtol(colon + 1, NULL, 10) : 0;

	if (!colon || (size_t)(colon - addr) >= sizeof(host) || port <= 0 || port > 65535) {
		strbuf_setf(err, "--listen %s: not ADDRESS:PORT (127.0.0.1:8080)", addr);
		return NULL;
	}
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1) {
		strbuf_setf(err, "--listen %s: '%s' is not an IPv4 address", addr, host);
		return NULL;
	}
	sin.sin_port = htons((uint16_t)port);
	if (!realpath(result_root, real)) {
		strbuf_setf(err, "%s: %s", result_root, strerror(errno));
		return NULL;
	}
	struct web *w = xcalloc(1, sizeof(*w));
	w->db = xstrdup(db);
	w->root = xstrdup(real);
	w->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, handle, w,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
				/* a few pages at once: each request reads the store on its own */
				MHD_OPTION_THREAD_POOL_SIZE, 4u, MHD_OPTION_END);
	if (!w->d) {
		strbuf_setf(err, "--listen %s: cannot listen there (in use?)", addr);
		free(w->db);
		free(w->root);
		free(w);
		return NULL;
	}
	return w;
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	MHD_stop_daemon(w->d);
	free(w->db);
	free(w->root);
	free(w);
}

/*
 * web: the dashboard's HTTP side. See web.h. One handler dispatches on the
 * path: /api/<page> is a page's data as JSON, /<page> its HTML (page.c),
 * /runs/ the result root's files, POST /api/<what>/<id>/<action> the
 * actions; a response is built in a strbuf and handed to libmicrohttpd.
 */
#include "web.h"
#include "cache.h"
#include "page.h"
#include "../lib/sys/dynlib.h"
#include "../lib/util/json.h"
#include "../lib/util/node.h"
#include "../lib/store/store.h"

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
#include <time.h>

/* The libmicrohttpd functions this file calls, loaded on first use (dynlib.h). */
#define MHD_API(X) \
	X(MHD_add_response_header) X(MHD_create_response_from_buffer) X(MHD_destroy_response) \
	X(MHD_queue_response) X(MHD_start_daemon) X(MHD_stop_daemon) X(MHD_lookup_connection_value)
static struct {
	MHD_API(DYNLIB_SLOT)
} mhd;
#define MHD_SYM(fn) DYNLIB_SYM(mhd, fn)
static struct dynlib mhd_lib = DYNLIB(LKP_SONAME_microhttpd, "libmicrohttpd12", MHD_API(MHD_SYM));

struct web {
	struct MHD_Daemon *d;
	char *db, *root;
	char *token;		/* NULL: read-only */
	bool farm;		/* show the Slurm farm's boxes */
	struct cache *cache;	/* rendered pages while the store is unchanged */
};

#define WEB_MAX_BODY 4096	/* an action's form: a token and nothing else */

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, const char *type, struct strbuf *body)
{
	size_t len = body->len;
	struct MHD_Response *r = mhd.MHD_create_response_from_buffer(len, strbuf_detach(body), MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	mhd.MHD_add_response_header(r, "Content-Type", type);
	/* nothing on these pages runs scripts or loads from elsewhere */
	mhd.MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'; script-src 'none'");
	mhd.MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	ret = mhd.MHD_queue_response(c, code, r);
	mhd.MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result error_page(struct MHD_Connection *c, unsigned code, const char *what)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_addf(&b, "<!DOCTYPE html><title>%u</title><p>", code);
	page_escape(&b, what);
	strbuf_addstr(&b, "</p>\n");
	return reply(c, code, "text/html; charset=utf-8", &b);
}

static enum MHD_Result error_json(struct MHD_Connection *c, unsigned code, const char *what)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_addstr(&b, "{\"error\": ");
	json_emit_string(&b, what);
	strbuf_addstr(&b, "}\n");
	return reply(c, code, "application/json", &b);
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
		qsort(names, n, sizeof(*names), cmp_names);
		page_head(&b, *(real + rl) ? real + rl : "/", false);
		strbuf_addstr(&b, "<ul>\n");
		for (size_t i = 0; i < n; i++) {
			strbuf_addstr(&b, "<li><a href=\"");
			page_escape(&b, names[i]);
			strbuf_addstr(&b, "/\">");
			page_escape(&b, names[i]);
			strbuf_addstr(&b, "</a></li>\n");
			free(names[i]);
		}
		free(names);
		strbuf_addstr(&b, "</ul>\n");
		page_foot(&b);
		return reply(c, 200, "text/html; charset=utf-8", &b);
	}
	if (strbuf_read_file(&b, real))
		return error_page(c, 403, "cannot read that file");
	/* result files are text shown as text, never as HTML */
	return reply(c, 200, "text/plain; charset=utf-8", &b);
}

/* A page: /api/<name>[/<rest>] as JSON, /<name>[/<rest>] as HTML. */
static enum MHD_Result page(const struct web *w, struct MHD_Connection *c, const char *path, bool api)
{
	struct page_env env = { .db = w->db, .root = w->root, .actions = w->token != NULL, .farm = w->farm };
	struct page_args a = { 0 };
	struct strbuf name = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
	const char *slash = strchr(path, '/');
	struct node *d;

	strbuf_add(&name, path, slash ? (size_t)(slash - path) : strlen(path));
	a.rest = slash ? slash + 1 : NULL;
	a.base = mhd.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "base");
	a.commit = mhd.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "commit");
	a.testcase = mhd.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "testcase");
	a.path_params = mhd.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "path_params");
	a.metric = mhd.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "metric");
	a.tbox_group = mhd.MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "tbox_group");
	if (a.tbox_group && !*a.tbox_group)
		a.tbox_group = NULL;
	/* the same request on the same store: the page made before */
	struct cache_stamp st;
	struct strbuf key = STRBUF_INIT;
	const char *type;
	const char *parts[] = { api ? "api" : "html", path, a.base, a.commit, a.testcase, a.path_params, a.metric,
				a.tbox_group };
	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++)
		strbuf_addf(&key, "%s%c", parts[i] ? parts[i] : "", 0x1f);
	cache_stamp(w->cache, &st);
	if (cache_get(w->cache, key.buf, &st, &b, &type)) {
		strbuf_release(&key);
		strbuf_release(&name);
		return reply(c, 200, type, &b);
	}
	int code = page_data(&env, name.buf, &a, &d, &err);
	enum MHD_Result r;
	if (code != 200) {
		r = api ? error_json(c, (unsigned)code, err.buf) : error_page(c, (unsigned)code, err.buf);
	} else if (api) {
		json_emit(&b, d);
		strbuf_addch(&b, '\n');
		cache_put(w->cache, key.buf, &st, "application/json", b.buf, b.len);
		r = reply(c, 200, "application/json", &b);
	} else if (page_html(&env, name.buf, &a, d, &b)) {
		cache_put(w->cache, key.buf, &st, "text/html; charset=utf-8", b.buf, b.len);
		r = reply(c, 200, "text/html; charset=utf-8", &b);
	} else {
		r = error_page(c, 404, "no such page (its data is under /api/)");
	}
	node_free(d);
	strbuf_release(&key);
	strbuf_release(&name);
	strbuf_release(&b);
	strbuf_release(&err);
	return r;
}

/* The index of the JSON API. */
static enum MHD_Result api_index(struct MHD_Connection *c)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_addstr(&b, "{\"pages\": [\"/api/\", \"/api/overview\", \"/api/heads\", \"/api/outbox\", \"/api/machines\", "
			  "\"/api/bisections\", \"/api/bisections/ID\", \"/api/commit/COMMIT\", "
			  "\"/api/compare?base=COMMIT&commit=COMMIT\", "
			  "\"/api/history?testcase=T&path_params=P&metric=M[&tbox_group=G]\", \"/api/reports/ID\"], "
			  "\"actions\": [\"POST /api/heads/ID/retest\", \"POST /api/heads/ID/cancel\", "
			  "\"POST /api/reports/ID/resend\"]}\n");
	return reply(c, 200, "application/json", &b);
}

/* The body of a POST, read in pieces: at most WEB_MAX_BODY bytes. */
struct web_upload {
	struct strbuf body;
	bool too_big;
};

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

/*
 * POST /api/heads/ID/retest|cancel, /api/reports/ID/resend: with the token
 * as "Authorization: Bearer TOKEN" (answered with JSON) or a form's token=
 * field (answered with a redirect to the page it came from).
 */
static enum MHD_Result action(const struct web *w, struct MHD_Connection *c, const char *path, const char *body)
{
	const char *auth = mhd.MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	char *form = body ? form_value(body, "token") : NULL;
	const char *given = auth && !strncmp(auth, "Bearer ", 7) ? auth + 7 : form;
	char what[16], verb[16];
	long long id;
	int end = 0;
	struct strbuf err = STRBUF_INIT;
	enum MHD_Result r;

	if (!w->token) {
		r = error_json(c, 403, "actions are off: the configuration has no serve.web_token_file");
		goto out;
	}
	if (!given || !same_secret(given, w->token)) {
		r = error_json(c, 403, "a token is needed for actions (Authorization: Bearer TOKEN, or the form's field)");
		goto out;
	}
	if (sscanf(path, "%15[a-z]/%lld/%15[a-z]%n", what, &id, verb, &end) != 3 || path[end] || id <= 0) {
		r = error_json(c, 404, "no such action");
		goto out;
	}
	struct store *s = store_open(w->db, &err);
	int rc = -1;
	bool known = true;
	if (s) {
		int64_t now = (int64_t)time(NULL);
		if (!strcmp(what, "heads") && !strcmp(verb, "retest"))
			rc = store_head_retest(s, id, now, &err);
		else if (!strcmp(what, "heads") && !strcmp(verb, "cancel"))
			rc = store_head_cancel(s, id, now, &err);
		else if (!strcmp(what, "reports") && !strcmp(verb, "resend"))
			rc = store_outbox_retry(s, id, now, &err);
		else
			known = false;
		store_close(s);
	}
	if (!known) {
		r = error_json(c, 404, "no such action");
	} else if (rc) {
		r = error_json(c, s ? 409 : 500, err.buf);
	} else if (!given || given != form) {
		struct strbuf b = STRBUF_INIT;
		strbuf_addf(&b, "{\"ok\": true, \"%s\": %lld, \"action\": \"%s\"}\n", what, id, verb);
		r = reply(c, 200, "application/json", &b);
	} else {
		/* from a form: back to the page, which shows the new state */
		struct strbuf b = STRBUF_INIT;
		char *to = !strcmp(what, "reports") ? xasprintf("/reports/%lld", id) : xstrdup("/");
		struct MHD_Response *resp = mhd.MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
		mhd.MHD_add_response_header(resp, "Location", to);
		r = mhd.MHD_queue_response(c, 303, resp);
		mhd.MHD_destroy_response(resp);
		free(to);
		strbuf_release(&b);
	}
out:
	free(form);
	strbuf_release(&err);
	return r;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **state)
{
	const struct web *w = cls;
	(void)version;

	if (!strcmp(method, "POST")) {
		struct web_upload *u = *state;
		if (!u) {
			/* the first call: only the headers are here */
			*state = u = xcalloc(1, sizeof(*u));
			return MHD_YES;
		}
		if (*upload_size) {
			if (u->body.len + *upload_size > WEB_MAX_BODY)
				u->too_big = true;
			else
				strbuf_add(&u->body, upload, *upload_size);
			*upload_size = 0;
			return MHD_YES;
		}
		if (u->too_big)
			return error_json(c, 413, "an action's body is a token, not more");
		if (strncmp(url, "/api/", 5))
			return error_page(c, 405, "only the actions under /api/ take a POST");
		return action(w, c, url + 5, u->body.buf ? u->body.buf : "");
	}
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return error_page(c, 405, "the dashboard takes GET, and POST for its actions");
	if (!strcmp(url, "/api/") || !strcmp(url, "/api"))
		return api_index(c);
	if (!strncmp(url, "/api/", 5))
		return page(w, c, url + 5, true);
	if (!strncmp(url, "/runs/", 6) || !strcmp(url, "/runs"))
		return runs(w, c, url[5] ? url + 6 : "");
	return page(w, c, url + 1, false);
}

/* MHD's end of a request: the POST body read so far goes. */
static void request_done(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why)
{
	struct web_upload *u = *state;
	(void)cls;
	(void)c;
	(void)why;
	if (u) {
		strbuf_release(&u->body);
		free(u);
		*state = NULL;
	}
}

struct web *web_start(const struct web_opts *o, struct strbuf *err)
{
	const char *addr = o->addr, *db = o->db, *result_root = o->result_root, *token = o->token;
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
	if (dynlib_load(&mhd_lib, err))
		return NULL;
	if (!realpath(result_root, real)) {
		strbuf_setf(err, "%s: %s", result_root, strerror(errno));
		return NULL;
	}
	struct web *w = xcalloc(1, sizeof(*w));
	w->db = xstrdup(db);
	w->root = xstrdup(real);
	w->token = token ? xstrdup(token) : NULL;
	w->farm = o->farm;
	w->cache = cache_new(db);
	w->d = mhd.MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL, handle, w,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sin, MHD_OPTION_CONNECTION_TIMEOUT, 30u,
				/* a few pages at once: each request reads the store on its own */
				MHD_OPTION_THREAD_POOL_SIZE, 4u, MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
				MHD_OPTION_END);
	if (!w->d) {
		strbuf_setf(err, "--listen %s: cannot listen there (in use?)", addr);
		free(w->db);
		free(w->root);
		free(w->token);
		cache_free(w->cache);
		free(w);
		return NULL;
	}
	return w;
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	mhd.MHD_stop_daemon(w->d);
	free(w->db);
	free(w->root);
	free(w->token);
	cache_free(w->cache);
	free(w);
}

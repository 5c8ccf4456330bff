/*
 * httpd: the dashboard's HTTP side — web_start, web_new and web_stop of
 * web.h, web_listen of site.h. libmicrohttpd's daemon (a pool of threads,
 * each with its own epoll set; connection, per-address and idle limits)
 * hands each request to web_handle() (route.c) and sends its answer back:
 * a buffer, or a result file streamed from its descriptor. The URLs others link to the
 * dashboard with are made here.
 */
#include "site.h"
#include "html.h"
#include "../lib/sys/dynlib.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

/* The libmicrohttpd functions this file calls, loaded on first use (dynlib.h). */
/* clang-format off */
#define MHD_API(X) \
	X(MHD_add_response_header) \
	X(MHD_create_response_from_buffer) \
	X(MHD_create_response_from_fd64) \
	X(MHD_destroy_response) \
	X(MHD_queue_response) \
	X(MHD_start_daemon) \
	X(MHD_stop_daemon) \
	X(MHD_lookup_connection_value) \
	X(MHD_get_connection_values)
/* clang-format on */
static struct {
	MHD_API(DYNLIB_SLOT)
} mhd;
#define MHD_SYM(fn) DYNLIB_SYM(mhd, fn)
static struct dynlib mhd_lib = DYNLIB(LKP_SONAME_microhttpd, "libmicrohttpd12", MHD_API(MHD_SYM));

/* Nothing on these pages runs a script, styles inline or loads from elsewhere. */
#define WEB_CSP \
	"default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'; " \
	"frame-ancestors 'none'"

/* What one request has gathered: whether it had too many arguments, a POST's body read in pieces. */
struct web_upload {
	bool too_many_args;
	bool headers_seen; /* a POST: the first call (headers only) is over */
	struct strbuf body;
	bool too_big;
};

/*
 * The request line, before libmicrohttpd splits the query: a query of more
 * than WEB_MAX_ARGS arguments is cut here, or libmicrohttpd's per-request
 * memory (which holds every argument) runs out and it drops the connection
 * without an answer; the request is then answered 400. The URI is
 * libmicrohttpd's own buffer of the request line (it is cut there itself
 * right after this call), which is why writing into it is sound.
 */
static void *request_start(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct web_upload *u = xcalloc(1, sizeof(*u));
	char *q = strchr(uri, '?');
	size_t n = q && q[1] ? 1 : 0;
	(void)cls;
	(void)c;
	strbuf_init(&u->body, 0);
	for (const char *p = q; p && *p; p++)
		n += *p == '&';
	if (n > WEB_MAX_ARGS) {
		u->too_many_args = true;
		q[1] = '\0';
	}
	return u;
}

/* The query arguments, as libmicrohttpd decoded them; counted past the limit, kept up to it. */
struct web_args {
	size_t n;
	const char *keys[WEB_MAX_ARGS + 1], *vals[WEB_MAX_ARGS + 1];
};

static enum MHD_Result collect_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct web_args *a = cls;
	(void)kind;
	if (a->n <= WEB_MAX_ARGS) {
		a->keys[a->n] = key;
		a->vals[a->n] = value;
	}
	a->n++;
	return MHD_YES;
}

static enum MHD_Result send_response(struct MHD_Connection *c, struct web_response *rs)
{
	struct MHD_Response *r;

	if (rs->fd >= 0) {
		/* streamed from the file (sendfile): libmicrohttpd owns and closes the descriptor */
		r = mhd.MHD_create_response_from_fd64(rs->size, rs->fd);
		if (r)
			rs->fd = -1;
	} else {
		size_t len = rs->body.len;
		r = mhd.MHD_create_response_from_buffer(len, strbuf_detach(&rs->body), MHD_RESPMEM_MUST_FREE);
	}
	if (!r)
		return MHD_NO;
	mhd.MHD_add_response_header(r, "Content-Type", rs->type);
	mhd.MHD_add_response_header(r, "Content-Security-Policy", WEB_CSP);
	mhd.MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	mhd.MHD_add_response_header(r, "Referrer-Policy", "same-origin");
	mhd.MHD_add_response_header(r, "Cache-Control", rs->immutable ? "public, max-age=86400" : "no-cache");
	if (rs->location)
		mhd.MHD_add_response_header(r, "Location", rs->location);
	if (rs->allow)
		mhd.MHD_add_response_header(r, "Allow", rs->allow);
	if (rs->disposition)
		mhd.MHD_add_response_header(r, "Content-Disposition", rs->disposition);
	enum MHD_Result ret = mhd.MHD_queue_response(c, rs->status, r);
	mhd.MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct web *w = cls;
	struct web_upload *u = *state;
	(void)version;

	if (!strcmp(method, "POST") && u) {
		if (!u->headers_seen) {
			/* the first call: only the headers are here */
			u->headers_seen = true;
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
	}
	struct web_args args = { 0 };
	mhd.MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, collect_arg, &args);
	struct web_request rq = {
		.method = method,
		.path = url,
		.nargs = u && u->too_many_args ? WEB_MAX_ARGS + 1 : args.n,
		.keys = args.keys,
		.vals = args.vals,
		.authorization = mhd.MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization"),
		.body = u ? u->body.buf : NULL,
		.body_too_big = u && u->too_big,
	};
	struct web_response rs;
	web_handle(w, &rq, &rs);
	enum MHD_Result ret = send_response(c, &rs);
	web_response_release(&rs);
	return ret;
}

/* libmicrohttpd's end of a request: the POST body read so far goes. */
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

/*
 * libmicrohttpd's complaints, at most one line a second on stderr: a
 * flood of connections over the limits must not become a flood of log.
 */
static void web_log(void *cls, const char *fmt, va_list ap)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static time_t last;
	static unsigned quiet;
	struct web *w = cls;
	time_t now = time(NULL);

	pthread_mutex_lock(&lock);
	if (w->starting) {
		/* why it cannot listen: the first complaint, in web_listen's one line */
		if (!w->start_err.len)
			strbuf_vaddf(&w->start_err, fmt, ap);
	} else if (now != last) {
		fprintf(stderr, "lkprobot serve: dashboard: ");
		vfprintf(stderr, fmt, ap);
		if (quiet)
			fprintf(stderr, "(and %u more such lines in the second before)\n", quiet);
		last = now;
		quiet = 0;
	} else {
		quiet++;
	}
	pthread_mutex_unlock(&lock);
}

/*
 * ADDR:PORT into a socket address: an IPv4 address, a host name (its IPv4
 * address when it has one: what 127.0.0.1 clients reach) or [IPv6].
 */
static int listen_addr(const char *addr, struct sockaddr_storage *ss, socklen_t *len, struct strbuf *err)
{
	const char *colon, *host = addr;
	size_t hl;

	if (*addr == '[') {
		const char *close = strchr(addr, ']');
		colon = close && close[1] == ':' ? close + 1 : NULL;
		host = addr + 1;
		hl = close ? (size_t)(close - host) : 0;
	} else {
		colon = strrchr(addr, ':');
		hl = colon ? (size_t)(colon - addr) : 0;
		if (colon && memchr(addr, ':', hl)) {
			strbuf_setf(err, "--listen %s: an IPv6 address goes in brackets ([::1]:8080)", addr);
			return -1;
		}
	}
	char *end;
	long port = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || !hl || *end || port <= 0 || port > 65535 || colon[1] == '+' || colon[1] == '-') {
		strbuf_setf(err, "--listen %s: not HOST:PORT (127.0.0.1:8080, localhost:8080, [::1]:8080)", addr);
		return -1;
	}
	char *h = xstrndup(host, hl), ps[8];
	snprintf(ps, sizeof(ps), "%ld", port);
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV },
			*res = NULL;
	int rc = getaddrinfo(h, ps, &hints, &res);
	if (rc) {
		strbuf_setf(err, "--listen %s: '%s': %s", addr, h, gai_strerror(rc));
		free(h);
		return -1;
	}
	const struct addrinfo *pick = res;
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
		if (ai->ai_family == AF_INET) {
			pick = ai;
			break;
		}
	memcpy(ss, pick->ai_addr, pick->ai_addrlen);
	*len = pick->ai_addrlen;
	freeaddrinfo(res);
	free(h);
	return 0;
}

/* As many connections as the descriptors allow, up to WEB_MAX_CONNECTIONS (the soft limit raised to the hard one). */
static unsigned connection_limit(void)
{
	struct rlimit rl;
	rlim_t want = WEB_MAX_CONNECTIONS + 256;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 256;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	/* room for the store, the trees, the result files being sent */
	rlim_t n = rl.rlim_cur > 512 ? rl.rlim_cur - 256 : rl.rlim_cur / 2;
	return n > WEB_MAX_CONNECTIONS ? WEB_MAX_CONNECTIONS : (unsigned)n;
}

struct web *web_new(const struct web_opts *o, struct strbuf *err)
{
	char real[PATH_MAX];

	if (!realpath(o->result_root, real)) {
		strbuf_setf(err, "%s: %s", o->result_root, strerror(errno));
		return NULL;
	}
	struct web *w = xcalloc(1, sizeof(*w));
	strbuf_init(&w->start_err, 0);
	w->db = xstrdup(o->db);
	w->root = xstrdup(real);
	if (realpath(o->db, real))
		w->db_real = xstrdup(real);
	w->token = o->token ? xstrdup(o->token) : NULL;
	w->public_url = o->public_url ? xstrdup(o->public_url) : NULL;
	if (o->git_repo) {
		const char *slash = strrchr(o->git_repo, '/');
		w->git_repo = xstrdup(o->git_repo);
		w->git_name = xasprintf("/git/%s/", slash ? slash + 1 : o->git_repo);
	}
	w->inventories = xcalloc(o->ninventories + 1, sizeof(*w->inventories));
	for (size_t i = 0; i < o->ninventories; i++) {
		const struct provider_config *c = o->inventories[i].cfg;
		struct provider_config *copy = xcalloc(1, sizeof(*copy));
		*copy = (struct provider_config){ .result_dir = c->result_dir ? xstrdup(c->result_dir) : NULL,
						  .cache = c->cache ? xstrdup(c->cache) : NULL,
						  .data_dir = c->data_dir ? xstrdup(c->data_dir) : NULL,
						  .db = c->db ? xstrdup(c->db) : NULL,
						  .opts = c->opts ? provider_options_dup(c->opts) : NULL };
		w->inventories[i] = (struct web_inventory){ o->inventories[i].ops, copy };
	}
	w->ninventories = o->ninventories;
	w->cache = cache_new(o->db);
	w->trees = xcalloc(o->ntrees + 1, sizeof(*w->trees));
	for (size_t i = 0; i < o->ntrees; i++) {
		const struct web_tree *t = &o->trees[i];
		char **br = xcalloc(t->nbranches + 1, sizeof(*br));
		for (size_t k = 0; k < t->nbranches; k++)
			br[k] = xstrdup(t->branches[k]);
		w->trees[i] =
			(struct web_tree){ xstrdup(t->name), xstrdup(t->path), (const char *const *)br, t->nbranches };
	}
	w->ntrees = o->ntrees;
	w->lists = xcalloc(o->nlists + 1, sizeof(*w->lists));
	for (size_t i = 0; i < o->nlists; i++)
		w->lists[i] = (struct web_list){ xstrdup(o->lists[i].name),
						 o->lists[i].url ? xstrdup(o->lists[i].url) : NULL };
	w->nlists = o->nlists;
	w->series_url = o->series_url ? xstrdup(o->series_url) : NULL;
	w->env = (struct page_env){ .db = w->db,
				    .root = w->root,
				    .actions = w->token != NULL,
				    .inventories = w->inventories,
				    .ninventories = w->ninventories,
				    .trees = w->trees,
				    .ntrees = w->ntrees,
				    .lists = w->lists,
				    .nlists = w->nlists,
				    .series_url = w->series_url,
				    .series_repo = w->git_repo };
	return w;
}

static int hex_digit(int c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

/*
 * The URL's and its arguments' %HH escapes decoded in place, except %00:
 * decoded, its NUL would end the string there for everything after, and
 * /api/reports/1%00x was report 1. Left as the text "%00", it is part of a
 * name no page has (400, 404).
 */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *w = s;
	(void)cls;
	(void)c;

	for (const char *r = s; *r;) {
		int hi = r[0] == '%' ? hex_digit((unsigned char)r[1]) : -1,
		    lo = hi >= 0 ? hex_digit((unsigned char)r[2]) : -1;
		if (lo >= 0 && (hi || lo)) {
			*w++ = (char)(hi * 16 + lo);
			r += 3;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

int web_listen(struct web *w, const char *addr, struct strbuf *err)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (listen_addr(addr, &ss, &len, err) || dynlib_load(&mhd_lib, err))
		return -1;
	unsigned flags =
		MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0);
	uint16_t port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						       : ((struct sockaddr_in *)&ss)->sin_port);
	w->starting = true;
	strbuf_reset(&w->start_err);
	w->d = mhd.MHD_start_daemon(flags, port, NULL, NULL, handle, w, MHD_OPTION_EXTERNAL_LOGGER, web_log, w,
				    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				    /* a few pages at once: each request reads the store on its own */
				    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)WEB_THREADS, MHD_OPTION_CONNECTION_LIMIT,
				    connection_limit(), MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)WEB_PER_IP,
				    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WEB_TIMEOUT, MHD_OPTION_URI_LOG_CALLBACK,
				    request_start, NULL, MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
				    MHD_OPTION_UNESCAPE_CALLBACK, unescape, NULL, MHD_OPTION_END);
	w->starting = false;
	if (!w->d) {
		strbuf_rtrim(&w->start_err);
		if (w->start_err.len)
			strbuf_setf(err, "--listen %s: cannot listen there: %s", addr, w->start_err.buf);
		else
			strbuf_setf(err, "--listen %s: cannot listen there (in use? no such address here?)", addr);
		return -1;
	}
	return 0;
}

struct web *web_start(const struct web_opts *o, struct strbuf *err)
{
	struct web *w = web_new(o, err);

	if (w && web_listen(w, o->addr, err)) {
		web_stop(w);
		return NULL;
	}
	return w;
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	if (w->d)
		mhd.MHD_stop_daemon(w->d);
	for (size_t i = 0; i < w->ntrees; i++) {
		free((char *)w->trees[i].name);
		free((char *)w->trees[i].path);
		for (size_t k = 0; k < w->trees[i].nbranches; k++)
			free((char *)w->trees[i].branches[k]);
		free((char **)w->trees[i].branches);
	}
	free(w->trees);
	for (size_t i = 0; i < w->nlists; i++) {
		free((char *)w->lists[i].name);
		free((char *)w->lists[i].url);
	}
	free(w->lists);
	free(w->series_url);
	for (size_t i = 0; i < w->ninventories; i++) {
		struct provider_config *c = (struct provider_config *)w->inventories[i].cfg;
		free((char *)c->result_dir);
		free((char *)c->cache);
		free((char *)c->data_dir);
		free((char *)c->db);
		provider_options_free((struct provider_options *)c->opts);
		free(c);
	}
	free(w->inventories);
	free(w->db);
	free(w->db_real);
	free(w->root);
	free(w->token);
	free(w->public_url);
	free(w->git_repo);
	free(w->git_name);
	cache_free(w->cache);
	strbuf_release(&w->start_err);
	free(w);
}

/* ---- the dashboard's addresses ---- */

int web_url_check(const char *base, struct strbuf *err)
{
	const char *host = !strncmp(base, "https://", 8) ? base + 8 : !strncmp(base, "http://", 7) ? base + 7 : NULL;

	if (!host) {
		strbuf_setf(err, "'%s': the dashboard's address starts with http:// or https://", base);
		return -1;
	}
	if (!*host || *host == '/' || *host == ':') {
		strbuf_setf(err, "'%s': no host name", base);
		return -1;
	}
	for (const char *p = base; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f || strchr("\"<>\\^`{|}?#", *p)) {
			strbuf_setf(err,
				    "'%s': a URL without spaces, quotes, a query or a fragment "
				    "(https://lkp.example.org/dashboard)",
				    base);
			return -1;
		}
	return 0;
}

static char *url_join(const char *base, const char *page, const char *id)
{
	struct strbuf b = STRBUF_INIT;
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	strbuf_add(&b, base, n);
	strbuf_addf(&b, "/%s/", page);
	html_url_escape(&b, id);
	return strbuf_detach(&b);
}

char *web_url_bisection(const char *base, long long id)
{
	char s[32];
	snprintf(s, sizeof(s), "%lld", id);
	return url_join(base, "bisections", s);
}

char *web_url_report(const char *base, long long id)
{
	char s[32];
	snprintf(s, sizeof(s), "%lld", id);
	return url_join(base, "reports", s);
}

char *web_url_commit(const char *base, const char *commit)
{
	return url_join(base, "commit", commit);
}

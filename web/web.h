/*
 * web: the dashboard `lkprobot serve --listen` runs (libmicrohttpd) —
 * overview (per tree and branch: each head's subject, author and state,
 * culprits, mails; the queue, machines, bisections), commit, compare,
 * metric history, bisection and report pages (page*.c), the result roots'
 * files — as HTML pages that need no JavaScript and as JSON under /api/;
 * the service's series repository as git's dumb HTTP under /git/ (gitdumb.h).
 * Read-only unless a token is configured; then POST actions (test a head
 * again, cancel a queued one, resend a mail) need it. Everything that comes
 * from commits, job files or results is escaped; files are served only from
 * inside the result root, streamed, regular files only, never the store.
 * Each request opens the store on its own (SQLite, WAL: readers do not
 * block the service).
 *
 * HTTP (httpd.c): a pool of WEB_THREADS threads, each with its own epoll
 * set, so a thousand idle or slow connections cost file descriptors, not
 * threads; at most WEB_PER_IP connections from one address; a connection
 * that sends nothing for WEB_TIMEOUT seconds is closed.
 *
 * web_handle() (route.c) answers one request without a socket: the
 * routing, pages and actions as the daemon runs them (tests and fuzzing
 * call it).
 */
#ifndef LKP_WEB_H
#define LKP_WEB_H

#include "../lib/util/strbuf.h"
#include "../providers/provider.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define WEB_THREADS 4
#define WEB_PER_IP 256		/* connections from one address */
#define WEB_MAX_CONNECTIONS 8192	/* at most: fewer when the file descriptor limit is lower */
#define WEB_TIMEOUT 15		/* seconds a connection may stay silent */
#define WEB_MAX_ARGS 32		/* query arguments of one request; more is a 400 */
#define WEB_MAX_BODY 4096	/* an action's form: a token and nothing else */

/* A provider whose boxes the overview shows, with what runs on each (its inventory). */
struct web_inventory {
	const struct provider_ops *ops;
	const struct provider_config *cfg;	/* copied (its strings and options) */
};

/* A watched tree, as the service's configuration names it. */
struct web_tree {
	const char *name;		/* as the heads name it */
	const char *path;		/* its repository (bisections name this) */
	const char *const *branches;
	size_t nbranches;
};

/* A mailing list of the service (serve.lists): its name, as its series and heads name it, and its archive's address. */
struct web_list {
	const char *name;
	const char *url; /* where its mails are read: <url>/<Message-ID> (NULL: not known) */
};

struct web_opts {
	const char *addr;		/* "127.0.0.1:8080", "localhost:8080", "[::1]:8080" */
	const char *db;			/* the store */
	const char *result_root;	/* what /runs/ serves */
	const char *token;		/* NULL: no actions */
	const struct web_inventory *inventories;	/* the overview shows their boxes, live */
	size_t ninventories;
	const struct web_tree *trees;	/* commit pages, subjects, one history series a tree */
	size_t ntrees;
	const char *public_url;		/* where readers reach the dashboard (serve.public_url); NULL: unknown */
	const char *git_repo;		/* a bare repository served as /git/<its name> (git's dumb HTTP); NULL: none */
	const struct web_list *lists;	/* the series page links their mails */
	size_t nlists;
	const char *series_url; /* where git fetches the series' branches (serve.series_url); NULL: not known */
};

struct web;

/* Listen on o->addr and serve; NULL with err set when it cannot. */
struct web *web_start(const struct web_opts *o, struct strbuf *err);
/* The same site without a socket (o->addr unused): for web_handle(). */
struct web *web_new(const struct web_opts *o, struct strbuf *err);
/* Stop listening (if it did) and free. */
void web_stop(struct web *w);

/*
 * The dashboard in a process of its own, as `lkprobot serve --listen` runs
 * it: web_start there, the service told whether it listens (NULL with err
 * set when not, within WEB_SPAWN_WAIT seconds). The service forks its
 * workers and children from a process that must have no threads: a fork
 * taken while a dashboard thread held a lock (libgit2's, SQLite's, the
 * allocator's) left a child that waited on it for ever. The dashboard's
 * process ignores SIGHUP and stops on SIGTERM (or when the service dies).
 */
#define WEB_SPAWN_WAIT 30
struct web_proc;
struct web_proc *web_spawn(const struct web_opts *o, struct strbuf *err);
/* Has its process ended? 1 with how in why ("killed by signal 11"), else 0. */
int web_proc_ended(struct web_proc *wp, struct strbuf *why);
/* Start it again after it ended. 0, or -1 with err set. */
int web_proc_restart(struct web_proc *wp, struct strbuf *err);
/* Stop it (SIGTERM; SIGKILL after WEB_TIMEOUT + 5 s) and free. */
void web_proc_stop(struct web_proc *wp);

/* One request as it came; strings are not owned. */
struct web_request {
	const char *method;		/* "GET", "HEAD", "POST", ... */
	const char *path;		/* percent-decoded, without the query */
	size_t nargs;			/* query arguments (decoded); more than WEB_MAX_ARGS is refused */
	const char *const *keys, *const *vals;	/* vals[i] may be NULL ("?flag") */
	const char *authorization;	/* the Authorization header; NULL: none */
	const char *body;		/* a POST's body (NUL-terminated); NULL: none */
	bool body_too_big;		/* it was over WEB_MAX_BODY and was not kept */
};

/* Its answer: a body, or a file to stream (fd >= 0, size bytes). */
struct web_response {
	unsigned status;
	const char *type;		/* Content-Type (a constant) */
	struct strbuf body;
	int fd;
	uint64_t size;
	char *location;			/* a redirect's Location; NULL: none */
	const char *allow;		/* a 405's Allow; NULL: none */
	char *disposition;		/* Content-Disposition; NULL: none */
	bool immutable;			/* may be kept by the browser (the stylesheet, the icon) */
};

/* Answer rq into rs (release it with web_response_release, which closes its fd). */
void web_handle(struct web *w, const struct web_request *rq, struct web_response *rs);
void web_response_release(struct web_response *rs);

/*
 * The dashboard's address of a bisection, a report mail and a commit, for
 * the mails and anyone else who links to it: base (serve.public_url, with
 * or without a trailing '/') + "/bisections/ID", "/reports/ID",
 * "/commit/SHA". Newly allocated.
 */
char *web_url_bisection(const char *base, long long id);
char *web_url_report(const char *base, long long id);
char *web_url_commit(const char *base, const char *commit);
/* Is base a URL the mails can carry: http:// or https://, a host, no query, fragment, space or control character? */
int web_url_check(const char *base, struct strbuf *err);

#endif

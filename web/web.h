/*
 * web: the dashboard `lkprobot serve --listen` runs (libmicrohttpd) —
 * overview (queue, machines, bisections, heads, mails), commit, compare,
 * metric history, bisection and report pages (page.c), the result roots'
 * files — as HTML pages that need no JavaScript and as JSON under /api/.
 * Read-only unless a token is configured; then POST actions (test a head
 * again, cancel a queued one, resend a mail) need it. Everything that comes
 * from commits, job files or results is escaped; files are served only from
 * inside the result root. Each request opens the store on its own (SQLite,
 * WAL: readers do not block the service).
 */
#ifndef LKP_WEB_H
#define LKP_WEB_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>

struct web;

struct web_opts {
	const char *addr;		/* "127.0.0.1:8080" */
	const char *db;			/* the store */
	const char *result_root;	/* what /runs/ serves */
	const char *token;		/* NULL: no actions */
	bool farm;			/* the overview shows the Slurm farm's boxes (sinfo) */
};

/* Listen and serve; NULL with err set when it cannot listen. */
struct web *web_start(const struct web_opts *o, struct strbuf *err);
void web_stop(struct web *w);

#endif

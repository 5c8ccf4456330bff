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

#include "../lib/strbuf.h"

struct web;

/*
 * Listen on addr ("127.0.0.1:8080") and serve the store at db and the
 * result root; token NULL: no actions. NULL with err set when it cannot
 * listen.
 */
struct web *web_start(const char *addr, const char *db, const char *result_root, const char *token,
		      struct strbuf *err);
void web_stop(struct web *w);

#endif

/*
 * web: the dashboard `lkprobot serve --listen` runs (libmicrohttpd) — the
 * heads the service tested and what came of them, the outbox, the result
 * roots' files — as HTML pages that need no JavaScript and as JSON under
 * /api/. Read-only. Everything that comes from commits, job files or
 * results is escaped; files are served only from inside the result root.
 * Each request opens the store on its own (SQLite, WAL: readers do not
 * block the service).
 */
#ifndef LKP_WEB_H
#define LKP_WEB_H

#include "../lib/strbuf.h"

struct web;

/*
 * Listen on addr ("127.0.0.1:8080") and serve the store at db and the
 * result root (both paths kept as given). NULL with err set when it cannot
 * listen.
 */
struct web *web_start(const char *addr, const char *db, const char *result_root, struct strbuf *err);
void web_stop(struct web *w);

/* Append s to out with &, <, >, " and ' as HTML entities. */
void web_escape(struct strbuf *out, const char *s);

#endif

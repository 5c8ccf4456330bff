/*
 * site: what the two halves of web.h share — the site a daemon serves
 * (httpd.c: libmicrohttpd, listening, limits) and answers requests for
 * (route.c: routing, files, actions, pages), and the process spawn.c runs
 * it in. Internal to web/.
 */
#ifndef LKP_WEB_SITE_H
#define LKP_WEB_SITE_H

#include "web.h"
#include "cache.h"
#include "pagekit.h"

struct web {
	struct MHD_Daemon *d;		/* NULL: no socket (web_new) */
	char *db, *root;		/* the store; the result root (a real path) */
	char *db_real;			/* the store's real path when it exists: never served */
	char *token;			/* NULL: read-only */
	char *public_url;
	char *git_repo, *git_name;		/* served as /git/<git_name>/ (gitdumb.h); NULL: none */
	struct web_inventory *inventories;	/* copies: their configurations owned here */
	size_t ninventories;
	struct web_tree *trees;		/* copies */
	size_t ntrees;
	struct web_list *lists; /* copies */
	size_t nlists;
	char *series_url;
	struct cache *cache;		/* rendered pages while the store is unchanged */
	struct page_env env;		/* what the pages see: points into this struct */
	bool starting;			/* web_listen under way: libmicrohttpd's complaint kept in start_err */
	struct strbuf start_err;
};

/* Start w's daemon on addr (httpd.c). 0, or -1 with err set. */
int web_listen(struct web *w, const char *addr, struct strbuf *err);

#endif

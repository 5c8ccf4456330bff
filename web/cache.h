/*
 * cache (prefix cache_): the dashboard's rendered pages, kept while what
 * they read of the store has not changed. A page is stamped, before it is
 * made, with the store's counters of the topics it reads (store_changes:
 * runs, heads, bisections, outbox, boxes, series) and the file's inode; a
 * request whose stamp is the same gets the kept bytes. So the runs a
 * busy service records leave the lists of mails and bisections kept, and
 * a mail sent leaves the history pages kept. A store that cannot say
 * (opened by an older lkprobot) stamps with its files as before (the
 * database and its WAL: inode, size, modification time), which any
 * commit changes. Pages are also dropped after CACHE_TTL seconds (what a
 * page shows from outside the store: the trees' commits). Thread-safe; at
 * most CACHE_ENTRIES pages (the oldest goes).
 */
#ifndef LKP_WEB_CACHE_H
#define LKP_WEB_CACHE_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>

#define CACHE_ENTRIES 64
#define CACHE_TTL 10

struct cache;

struct cache_stamp {
	long long v[10];
};

struct cache *cache_new(const char *db);
void cache_free(struct cache *c);

/* The store's stamp now, for a page that reads `reads` of it (STORE_READS() bits, store.h). */
void cache_stamp(struct cache *c, unsigned reads, struct cache_stamp *st);

/* The page kept under key, if made at stamp st: its bytes appended to body, its type. */
bool cache_get(struct cache *c, const char *key, const struct cache_stamp *st, struct strbuf *body,
	       const char **type);

/* Keep a page made from the store as it was at st. type must be a string constant. */
void cache_put(struct cache *c, const char *key, const struct cache_stamp *st, const char *type, const char *body,
	       size_t len);

#endif

/*
 * cache (prefix cache_): the dashboard's rendered pages, kept while the
 * store has not changed. A page is stamped with the store's files (the
 * database and its WAL: inode, size, modification time) as they were
 * before it was made; a request whose stamp is the same gets the kept
 * bytes, any commit to the store makes every page new again. Pages are
 * also dropped after CACHE_TTL seconds, so a change the stamp could miss
 * (two commits of the same size within one timestamp tick) lives at most
 * that long. Thread-safe; at most CACHE_ENTRIES pages (the oldest goes).
 */
#ifndef LKP_WEB_CACHE_H
#define LKP_WEB_CACHE_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>

#define CACHE_ENTRIES 64
#define CACHE_TTL 10

struct cache;

struct cache_stamp {
	long long v[8];
};

struct cache *cache_new(const char *db);
void cache_free(struct cache *c);

/* The store's stamp now. */
void cache_stamp(const struct cache *c, struct cache_stamp *st);

/* The page kept under key, if made at stamp st: its bytes appended to body, its type. */
bool cache_get(struct cache *c, const char *key, const struct cache_stamp *st, struct strbuf *body,
	       const char **type);

/* Keep a page made from the store as it was at st. type must be a string constant. */
void cache_put(struct cache *c, const char *key, const struct cache_stamp *st, const char *type, const char *body,
	       size_t len);

#endif

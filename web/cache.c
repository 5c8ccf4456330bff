/*
 * cache: rendered pages while the store is unchanged. See cache.h.
 */
#include "cache.h"
#include "../lib/store/store.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

struct cache_entry {
	char *key;
	struct cache_stamp st;
	const char *type;
	char *body;
	size_t len;
	time_t made;
};

struct cache {
	char *db, *wal;
	pthread_mutex_t lock;
	struct store *store; /* for the counters, opened on first use (under lock) */
	bool no_counters;    /* a store without them: file stamps */
	struct cache_entry e[CACHE_ENTRIES];
	size_t next;		/* the slot the next page takes (round robin: the oldest) */
};

struct cache *cache_new(const char *db)
{
	struct cache *c = xcalloc(1, sizeof(*c));

	c->db = xstrdup(db);
	c->wal = xasprintf("%s-wal", db);
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

void cache_free(struct cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < CACHE_ENTRIES; i++) {
		free(c->e[i].key);
		free(c->e[i].body);
	}
	if (c->store)
		store_close(c->store);
	pthread_mutex_destroy(&c->lock);
	free(c->db);
	free(c->wal);
	free(c);
}

static void stamp_file(const char *path, long long *v)
{
	struct stat st;

	if (stat(path, &st)) {
		memset(v, 0, 4 * sizeof(*v));
		return;
	}
	v[0] = (long long)st.st_ino;
	v[1] = (long long)st.st_size;
	v[2] = (long long)st.st_mtim.tv_sec;
	v[3] = (long long)st.st_mtim.tv_nsec;
}

_Static_assert(2 + STORE_NTOPICS <= sizeof(((struct cache_stamp *)0)->v) / sizeof(long long),
	       "a stamp holds the file and every topic's counter");

/* The store's counters into v (STORE_NTOPICS of them); false when it cannot say. */
static bool counters(struct cache *c, long long *v)
{
	struct strbuf err = STRBUF_INIT;
	int64_t n[STORE_NTOPICS];
	bool ok = false;

	pthread_mutex_lock(&c->lock);
	if (!c->store && !c->no_counters && !(c->store = store_open(c->db, &err)))
		c->no_counters = true;
	if (c->store && !store_changes(c->store, n, &err)) {
		for (int i = 0; i < STORE_NTOPICS; i++)
			v[i] = n[i];
		ok = true;
	} else if (c->store) {
		/* a fault now: file stamps this time, the store again next time */
		store_close(c->store);
		c->store = NULL;
	}
	pthread_mutex_unlock(&c->lock);
	strbuf_release(&err);
	return ok;
}

void cache_stamp(struct cache *c, unsigned reads, struct cache_stamp *st)
{
	long long n[STORE_NTOPICS];
	struct stat sb;

	memset(st, 0, sizeof(*st));
	if (counters(c, n)) {
		/* what the page reads, and the file (a store put in its place starts over) */
		st->v[0] = 1;
		st->v[1] = stat(c->db, &sb) ? 0 : (long long)sb.st_ino;
		for (int i = 0; i < STORE_NTOPICS; i++)
			st->v[2 + i] = reads & STORE_READS(i) ? n[i] : -1;
		return;
	}
	stamp_file(c->db, st->v + 2);
	stamp_file(c->wal, st->v + 6);
}

bool cache_get(struct cache *c, const char *key, const struct cache_stamp *st, struct strbuf *body,
	       const char **type)
{
	time_t now = time(NULL);
	bool hit = false;

	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < CACHE_ENTRIES && !hit; i++) {
		struct cache_entry *e = &c->e[i];
		if (!e->key || strcmp(e->key, key) || memcmp(&e->st, st, sizeof(*st)) || now - e->made >= CACHE_TTL)
			continue;
		strbuf_add(body, e->body, e->len);
		*type = e->type;
		hit = true;
	}
	pthread_mutex_unlock(&c->lock);
	return hit;
}

void cache_put(struct cache *c, const char *key, const struct cache_stamp *st, const char *type, const char *body,
	       size_t len)
{
	pthread_mutex_lock(&c->lock);
	struct cache_entry *e = NULL;
	for (size_t i = 0; i < CACHE_ENTRIES && !e; i++)
		if (c->e[i].key && !strcmp(c->e[i].key, key))
			e = &c->e[i];	/* a newer make of the same page */
	if (!e) {
		e = &c->e[c->next];
		c->next = (c->next + 1) % CACHE_ENTRIES;
	}
	free(e->key);
	free(e->body);
	e->key = xstrdup(key);
	e->st = *st;
	e->type = type;
	e->body = xmalloc(len + 1);
	memcpy(e->body, body, len);
	e->len = len;
	e->made = time(NULL);
	pthread_mutex_unlock(&c->lock);
}

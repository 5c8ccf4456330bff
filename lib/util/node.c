/*
 * node: ordered YAML-like trees with source positions. See node.h.
 */
#include "node.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/*
 * Interned file names: a hash table of counted names. A node holds a
 * reference to its file (node_set_pos, node_dup, node_free), so a name lives
 * as long as something points at it and no longer: a service that loads a
 * million result roots' job.yaml keeps only the names of the trees it holds.
 */
struct interned {
	struct interned *next; /* in its bucket */
	size_t refs, hash;
	char name[];
};
static struct {
	struct interned **bucket;
	size_t cap, n; /* cap a power of two (or 0), n names */
} names;

static size_t key_hash(const char *k);

static struct interned *interned_of(const char *name)
{
	return (struct interned *)(void *)(name - offsetof(struct interned, name));
}

static void names_resize(size_t cap)
{
	struct interned **b = xcalloc(cap, sizeof(*b));

	for (size_t i = 0; i < names.cap; i++)
		for (struct interned *e = names.bucket[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (cap - 1)];
			b[e->hash & (cap - 1)] = e;
		}
	free(names.bucket);
	names.bucket = b;
	names.cap = cap;
}

const char *node_intern(const char *file)
{
	struct interned *i;

	if (!file)
		return NULL;
	size_t h = key_hash(file);
	for (i = names.cap ? names.bucket[h & (names.cap - 1)] : NULL; i; i = i->next)
		if (i->hash == h && !strcmp(i->name, file)) {
			i->refs++;
			return i->name;
		}
	if (names.n + 1 > names.cap / 2 * 3 || !names.cap)
		names_resize(names.cap ? names.cap * 2 : 64);
	size_t len = strlen(file);
	i = xmalloc(sizeof(*i) + len + 1);
	memcpy(i->name, file, len + 1);
	i->refs = 1;
	i->hash = h;
	i->next = names.bucket[h & (names.cap - 1)];
	names.bucket[h & (names.cap - 1)] = i;
	names.n++;
	return i->name;
}

const char *node_intern_ref(const char *name)
{
	if (name)
		interned_of(name)->refs++;
	return name;
}

void node_unintern(const char *name)
{
	if (!name)
		return;
	struct interned *i = interned_of(name), **at = &names.bucket[i->hash & (names.cap - 1)];
	if (--i->refs)
		return;
	while (*at != i)
		at = &(*at)->next;
	*at = i->next;
	free(i);
	if (!--names.n) {
		free(names.bucket); /* nothing held: nothing kept */
		names.bucket = NULL;
		names.cap = 0;
	} else if (names.cap > 64 && names.n < names.cap / 8) {
		names_resize(names.cap / 2);
	}
}

size_t node_interned(void)
{
	return names.n;
}

struct node *node_new(enum node_type type)
{
	struct node *n = xcalloc(1, sizeof(*n));
	n->type = type;
	return n;
}

struct node *node_new_scalar(const char *s)
{
	struct node *n = node_new(NODE_SCALAR);
	n->str = xstrdup(s);
	return n;
}

struct node *node_new_comment(const char *text)
{
	struct node *n = node_new(NODE_NULL);
	n->comment = 1;
	n->str = xstrdup(text);
	return n;
}

/*
 * The hash index of a map's keys: open addressing over positions, rebuilt
 * when a key is deleted (positions move), extended when one is appended.
 * Maps of up to NODE_HASH_MIN keys are searched in place.
 */
#define NODE_HASH_MIN 16

struct node_hash {
	size_t cap;		/* a power of two, at least twice the keys */
	size_t n;		/* positions indexed: 0..n-1 */
	size_t *slot;		/* position + 1; 0 empty */
};

static size_t key_hash(const char *k)
{
	size_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 1099511628211ULL;
	return h;
}

static void hash_free(struct node *map)
{
	if (map->hash) {
		free(map->hash->slot);
		free(map->hash);
		map->hash = NULL;
	}
}

static void hash_put(struct node_hash *h, const char *key, size_t pos)
{
	size_t i = key_hash(key) & (h->cap - 1);

	while (h->slot[i])
		i = (i + 1) & (h->cap - 1);
	h->slot[i] = pos + 1;
}

/* Bring the index up to the map's keys: added ones put in, a grown map rehashed. */
static void hash_sync(struct node *map)
{
	struct node_hash *h = map->hash;

	if (h && h->n > map->n)
		hash_free(map), h = NULL;	/* keys went away behind our back */
	if (!h || 2 * map->n > h->cap) {
		size_t cap = 64;
		while (cap < 4 * map->n)
			cap *= 2;
		hash_free(map);
		h = map->hash = xcalloc(1, sizeof(*h));
		h->cap = cap;
		h->slot = xcalloc(cap, sizeof(*h->slot));
	}
	for (; h->n < map->n; h->n++)
		hash_put(h, map->keys[h->n], h->n);
}

void node_free(struct node *n)
{
	if (!n)
		return;
	hash_free(n);
	for (size_t i = 0; i < n->n; i++) {
		if (n->keys)
			free(n->keys[i]);
		node_free(n->vals[i]);
	}
	free(n->keys);
	free(n->vals);
	free(n->str);
	node_unintern(n->file);
	free(n);
}

struct node *node_dup(const struct node *n)
{
	struct node *c;

	if (!n)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *n;
	c->hash = NULL;
	node_intern_ref(c->file);
	c->str = n->str ? xstrdup(n->str) : NULL;
	c->keys = NULL;
	c->vals = NULL;
	c->alloc = n->n;
	if (n->n) {
		c->vals = xmalloc(n->n * sizeof(*c->vals));
		if (n->type == NODE_MAP)
			c->keys = xmalloc(n->n * sizeof(*c->keys));
		for (size_t i = 0; i < n->n; i++) {
			c->vals[i] = node_dup(n->vals[i]);
			if (c->keys)
				c->keys[i] = xstrdup(n->keys[i]);
		}
	}
	return c;
}

void node_set_pos(struct node *n, const char *file, int line, int col)
{
	if (file != n->file) {
		node_intern_ref(file);
		node_unintern(n->file);
		n->file = file;
	}
	n->line = line;
	n->col = col;
}

const char *node_str(const struct node *n)
{
	return n && n->type == NODE_SCALAR ? n->str : NULL;
}

bool node_is_null(const struct node *n)
{
	return !n || n->type == NODE_NULL;
}

ssize_t node_index(const struct node *map, const char *key)
{
	if (!map || map->type != NODE_MAP)
		return -1;
	if (map->n <= NODE_HASH_MIN) {
		for (size_t i = 0; i < map->n; i++)
			if (!map->vals[i]->comment && !strcmp(map->keys[i], key))
				return (ssize_t)i;
		return -1;
	}
	/* the index is a cache of the keys: kept even on a map the caller sees as const */
	struct node *m = (struct node *)map;
	hash_sync(m);
	size_t best = SIZE_MAX, cap = m->hash->cap;
	for (size_t i = key_hash(key) & (cap - 1); m->hash->slot[i]; i = (i + 1) & (cap - 1)) {
		size_t pos = m->hash->slot[i] - 1;
		/* the first entry of the key that is data (a key may repeat; comments are skipped) */
		if (pos < best && !m->vals[pos]->comment && !strcmp(m->keys[pos], key))
			best = pos;
	}
	return best == SIZE_MAX ? -1 : (ssize_t)best;
}

struct node *node_get(const struct node *map, const char *key)
{
	ssize_t i = node_index(map, key);
	return i < 0 ? NULL : map->vals[i];
}

void node_append(struct node *map, const char *key, struct node *val)
{
	size_t old = map->alloc;

	ALLOC_GROW(map->vals, map->n + 1, map->alloc);
	/* keys and vals share `alloc`: keys grow in step with vals */
	if (map->alloc != old || !map->keys)
		map->keys = xrealloc(map->keys, map->alloc * sizeof(*map->keys));
	map->keys[map->n] = xstrdup(key);
	map->vals[map->n] = val;
	map->n++;
}

void node_set(struct node *map, const char *key, struct node *val)
{
	ssize_t i = node_index(map, key);

	if (i >= 0) {
		node_free(map->vals[i]);
		map->vals[i] = val;
		return;
	}
	node_append(map, key, val);
}

bool node_del(struct node *map, const char *key)
{
	ssize_t i = node_index(map, key);

	if (i < 0)
		return false;
	hash_free(map);		/* the positions after i move */
	free(map->keys[i]);
	node_free(map->vals[i]);
	memmove(map->keys + i, map->keys + i + 1,
		(map->n - (size_t)i - 1) * sizeof(*map->keys));
	memmove(map->vals + i, map->vals + i + 1,
		(map->n - (size_t)i - 1) * sizeof(*map->vals));
	map->n--;
	return true;
}

void node_push(struct node *seq, struct node *item)
{
	ALLOC_GROW(seq->vals, seq->n + 1, seq->alloc);
	seq->vals[seq->n++] = item;
}

const char *node_type_name(const struct node *n)
{
	if (!n || n->type == NODE_NULL)
		return "an empty value";
	switch (n->type) {
	case NODE_SCALAR:
		return "a scalar";
	case NODE_SEQ:
		return "a list";
	case NODE_MAP:
		return "a mapping";
	default:
		return "a value";
	}
}

bool node_equal(const struct node *a, const struct node *b)
{
	if (node_is_null(a) || node_is_null(b))
		return node_is_null(a) && node_is_null(b);
	if (a->type != b->type)
		return false;
	if (a->type == NODE_SCALAR)
		return !strcmp(a->str, b->str);
	size_t i = 0, j = 0;
	for (;;) {
		while (i < a->n && a->vals[i]->comment)
			i++;
		while (j < b->n && b->vals[j]->comment)
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (a->type == NODE_MAP && strcmp(a->keys[i], b->keys[j]))
			return false;
		if (!node_equal(a->vals[i], b->vals[j]))
			return false;
		i++;
		j++;
	}
}

const struct node *node_find_deep(const struct node *n, const char *key)
{
	for (size_t i = 0; n && n->type == NODE_MAP && i < n->n; i++) {
		if (n->vals[i]->comment)
			continue;
		if (!strcmp(n->keys[i], key))
			return n->vals[i];
		const struct node *r = node_find_deep(n->vals[i], key);
		if (r)
			return r;
	}
	return NULL;
}

/*
 * node: the in-memory tree of a job (or any YAML document we load):
 * null, scalar, sequence and ordered map, each remembering the file, line
 * and column it came from so that errors can point at the user's text.
 *
 * Scalars are kept as text. `quoted` records that the source quoted the
 * scalar, which makes it a string even if it looks like a number or null;
 * the emitter uses it to keep the value's type on a round trip.
 * A map entry whose value has `comment` set is a provenance comment
 * ("#! jobs/x.yaml") rather than data; lookups skip it.
 *
 * A map's lookups are hashed once it has more than a few keys (a job of
 * 100,000 keys, a matrix of 100,000 metrics: linear, not quadratic); the
 * index follows node_set/append/del, so code that edits a map's keys or
 * count by hand must not (values may be swapped freely).
 *
 * This module knows nothing about YAML syntax (see yml.h) nor about jobs.
 */
#ifndef LKP_NODE_H
#define LKP_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum node_type { NODE_NULL, NODE_SCALAR, NODE_SEQ, NODE_MAP };

struct node {
	enum node_type type;
	unsigned quoted : 1;
	unsigned comment : 1;
	char *str;		/* NODE_SCALAR text (also comment text) */
	size_t n, alloc;
	char **keys;		/* NODE_MAP keys */
	struct node **vals;	/* NODE_MAP values, NODE_SEQ items */
	const char *file;	/* interned; a reference the node holds */
	int line, col;		/* 1-based; 0 when made by the program */
	struct node_hash *hash;	/* a large map's index of its keys (node.c's own) */
};

/*
 * Interned file names: equal names share one pointer, counted. node_intern()
 * returns a reference (drop it with node_unintern()); node_intern_ref() takes
 * another on a name node_intern() returned. A node holds one on its file.
 */
const char *node_intern(const char *file);
const char *node_intern_ref(const char *name);
void node_unintern(const char *name);
/* How many names are interned now (what nothing holds is gone). */
size_t node_interned(void);

struct node *node_new(enum node_type type);
struct node *node_new_scalar(const char *s);
struct node *node_new_comment(const char *text);
void node_free(struct node *n);
struct node *node_dup(const struct node *n);
/* file: NULL or an interned name (the node takes its own reference). */
void node_set_pos(struct node *n, const char *file, int line, int col);

/* Scalars. node_str() is NULL for anything but a scalar. */
const char *node_str(const struct node *n);
bool node_is_null(const struct node *n);

/* Maps. Lookups ignore comment entries. */
struct node *node_get(const struct node *map, const char *key);

/* Find a key anywhere under a map, depth first (lkp-tests' order for a job's keys). */
const struct node *node_find_deep(const struct node *n, const char *key);
ssize_t node_index(const struct node *map, const char *key);
/* Set key to val (taking ownership); keeps the position of an existing key. */
void node_set(struct node *map, const char *key, struct node *val);
/* Append without looking for an existing key (comments, fast builders). */
void node_append(struct node *map, const char *key, struct node *val);
bool node_del(struct node *map, const char *key);
/* Sequences. */
void node_push(struct node *seq, struct node *item);

/* A short name for the node's type, for error messages ("a list"). */
const char *node_type_name(const struct node *n);

/* Deep equality of data (positions, quoting and comments ignored). */
bool node_equal(const struct node *a, const struct node *b);

#endif

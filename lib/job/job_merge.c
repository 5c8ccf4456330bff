/*
 * job_merge: merging job maps, after lkp-tests' lib/hash.rb revise_hash:
 * top-level keys replace (or, for defaults, yield to) existing ones;
 * "accumulative" keys (need_*, mail_to, mail_cc, constraints) and `key+:`
 * append; `key-:` removes; `a.b.c:` sets a nested value.
 */
#include "job_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- merging (lkp-tests lib/hash.rb revise_hash) ---- */

static bool accumulative_key(const char *k)
{
	if (!strcmp(k, "mail_to") || !strcmp(k, "mail_cc") || !strcmp(k, "constraints"))
		return true;
	return !strncmp(k, "need_", 5) && strcmp(k, "need_memory") &&
	       strcmp(k, "need_cpu") && strcmp(k, "need_modules");
}

/* a (owned, may be NULL) accumulated with a copy of b; returns the result. */
static struct node *accumulate(struct node *a, const struct node *b)
{
	if (node_is_null(b)) {
		if (!a)
			return node_new(NODE_NULL);
		return a;
	}
	if (node_is_null(a)) {
		node_free(a);
		return node_dup(b);
	}
	if (a->type == NODE_SEQ) {
		if (b->type == NODE_SEQ)
			for (size_t i = 0; i < b->n; i++)
				node_push(a, node_dup(b->vals[i]));
		else
			node_push(a, node_dup(b));
		return a;
	}
	if (a->type == NODE_MAP) {
		if (b->type == NODE_MAP) {
			for (size_t i = 0; i < b->n; i++)
				if (!b->vals[i]->comment)
					node_set(a, b->keys[i], node_dup(b->vals[i]));
		} else if (b->type == NODE_SCALAR) {
			node_set(a, b->str, node_new(NODE_NULL));
		}
		return a;
	}
	/* a is a scalar */
	struct node *r;
	if (b->type == NODE_SEQ) {
		r = node_new(NODE_SEQ);
		node_push(r, a);
		for (size_t i = 0; i < b->n; i++)
			node_push(r, node_dup(b->vals[i]));
	} else if (b->type == NODE_MAP) {
		r = node_dup(b);
		if (node_index(r, a->str) < 0)
			node_append(r, a->str, node_new(NODE_NULL));
		node_free(a);
	} else {
		r = node_new(NODE_SEQ);
		node_push(r, a);
		node_push(r, node_dup(b));
	}
	return r;
}

ssize_t job_comment_index(const struct node *map, const char *text)
{
	for (size_t i = 0; i < map->n; i++)
		if (map->vals[i]->comment && !strcmp(map->vals[i]->str, text))
			return (ssize_t)i;
	return -1;
}

void job_append_comment(struct node *map, const char *text)
{
	if (job_comment_index(map, text) < 0)
		node_append(map, text, node_new_comment(text));
}

/* Walk a dotted path, creating maps; returns the map holding the last key. */
static struct node *dotted_parent(struct node *map, const char *path, const char **last)
{
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		char *k = xstrndup(path, (size_t)(dot - path));
		struct node *next = node_get(map, k);
		if (!next || next->type != NODE_MAP) {
			next = node_new(NODE_MAP);
			node_set(map, k, next);
		}
		free(k);
		map = next;
		path = dot + 1;
	}
	*last = path;
	return map;
}

static bool node_is_seq_uniq_member(const struct node *seq, const struct node *v, size_t upto)
{
	for (size_t i = 0; i < upto; i++)
		if (node_equal(seq->vals[i], v))
			return true;
	return false;
}

/* `key+: v`: v added to key's value (a list, without repeats). */
static void resolve_plus(struct node *map, const char *k, size_t len, struct node *v)
{
	char *base = xstrndup(k, len - 1);
	const char *last;
	struct node *parent = dotted_parent(map, base, &last);
	ssize_t j = node_index(parent, last);
	struct node *cur = j >= 0 ? parent->vals[j] : NULL;

	if (j >= 0)
		parent->vals[j] = NULL;
	cur = accumulate(cur, v);
	if (cur->type == NODE_SEQ) {
		size_t w = 0;
		for (size_t r = 0; r < cur->n; r++) {
			if (node_is_seq_uniq_member(cur, cur->vals[r], w)) {
				node_free(cur->vals[r]);
				continue;
			}
			cur->vals[w++] = cur->vals[r];
		}
		cur->n = w;
	}
	if (j >= 0)
		parent->vals[j] = cur;
	else
		node_append(parent, last, cur);
	free(base);
	node_del(map, k);
}

/* The items of a list named `name` (a string, or a map of one key) left out. */
static void seq_drop(struct node *seq, const char *name)
{
	size_t w = 0;

	for (size_t r = 0; r < seq->n; r++) {
		const char *s = node_str(seq->vals[r]);
		if (!s && seq->vals[r]->type == NODE_MAP && seq->vals[r]->n == 1)
			s = seq->vals[r]->keys[0];
		if (s && !strcmp(s, name)) {
			node_free(seq->vals[r]);
			continue;
		}
		seq->vals[w++] = seq->vals[r];
	}
	seq->n = w;
}

/*
 * `key-: v`: the names v lists (a map's keys, a list's items, a scalar)
 * taken out of key's value; `key-: ~` drops key.
 */
static void resolve_minus(struct node *map, const char *k, size_t len, struct node *v)
{
	char *base = xstrndup(k, len - 1);
	const char *last;
	struct node *parent = dotted_parent(map, base, &last);
	struct node *cur = node_get(parent, last);

	if (cur && !node_is_null(v) && (cur->type == NODE_MAP || cur->type == NODE_SEQ)) {
		struct node *dels = v;
		for (size_t d = 0; d < dels->n || (dels->type == NODE_SCALAR && d == 0); d++) {
			const char *name = dels->type == NODE_MAP   ? dels->keys[d]
					   : dels->type == NODE_SEQ ? node_str(dels->vals[d])
								    : dels->str;
			if (!name)
				continue;
			if (cur->type == NODE_MAP)
				node_del(cur, name);
			else
				seq_drop(cur, name);
			if (dels->type == NODE_SCALAR)
				break;
		}
		if (!cur->n)
			node_set(parent, last, node_new(NODE_NULL));
	} else if (cur && node_is_null(v)) {
		node_del(parent, last);
	}
	free(base);
	node_del(map, k);
}

/* `a.b.c: v`: v as c of b of a (a value there kept unless overwrite, or null). */
static void resolve_dotted(struct node *map, const char *k, struct node *v, bool overwrite)
{
	const char *last;
	char *key = xstrdup(k);
	struct node *val = node_dup(v);

	node_del(map, key);
	struct node *parent = dotted_parent(map, key, &last);
	ssize_t j = node_index(parent, last);
	if (j < 0)
		node_append(parent, last, val);
	else if (overwrite || node_is_null(parent->vals[j])) {
		node_free(parent->vals[j]);
		parent->vals[j] = val;
	} else {
		node_free(val);
	}
	free(key);
}

/* Resolve `key+`, `key-` and `a.b.c` entries left in a map after a merge. */
void job_resolve_special(struct node *map, bool overwrite)
{
	for (size_t i = 0; i < map->n;) {
		const char *k = map->keys[i];
		size_t len = strlen(k);
		struct node *v = map->vals[i];

		if (v->comment || !len) {
			i++;
			continue;
		}
		if (k[len - 1] == '+' && len > 1)
			resolve_plus(map, k, len, v);
		else if (k[len - 1] == '-' && len > 1)
			resolve_minus(map, k, len, v);
		else if (strchr(k, '.') && k[0] != '.' && k[len - 1] != '.')
			resolve_dotted(map, k, v, overwrite);
		else {
			i++;
			continue;
		}
		i = 0; /* positions may have shifted */
	}
}

/* original <- revisions (borrowed). */
void job_revise(struct node *original, const struct node *revisions, bool overwrite)
{
	if (revisions && revisions->type == NODE_MAP) {
		for (size_t i = 0; i < revisions->n; i++) {
			const char *k = revisions->keys[i];
			const struct node *v = revisions->vals[i];
			size_t len = strlen(k);

			if (v->comment) {
				job_append_comment(original, v->str);
				continue;
			}
			ssize_t j = node_index(original, k);
			if (j < 0) {
				node_append(original, k, node_dup(v));
			} else if ((len && (k[len - 1] == '+' || k[len - 1] == '-')) ||
				   accumulative_key(k)) {
				original->vals[j] = accumulate(original->vals[j], v);
			} else if (overwrite) {
				node_free(original->vals[j]);
				original->vals[j] = node_dup(v);
			}
		}
	}
	job_resolve_special(original, overwrite);
}

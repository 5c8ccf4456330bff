/*
 * matrix: compact matrices of samples and their pool of names. See
 * matrix.h. This file: the pool, the matrix, a run's stats added, a tree
 * converted; matrix_json.c reads matrix.json.
 */
#include "matrix.h"
#include "../util/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pool: names in blocks, an open-addressing table of ids ---- */

#define NAMES_BLOCK ((size_t)1 << 20)

struct matrix_names {
	size_t refs;
	const char **name; /* by id */
	uint32_t *hash;	   /* by id */
	size_t n, alloc;
	uint32_t *slot; /* id + 1, 0: empty; cap a power of two */
	size_t cap;
	char **block; /* the names' bytes */
	size_t nblock, used;
};

static uint32_t name_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

struct matrix_names *matrix_names_new(void)
{
	struct matrix_names *p = xcalloc(1, sizeof(*p));

	p->refs = 1;
	return p;
}

struct matrix_names *matrix_names_ref(struct matrix_names *p)
{
	p->refs++;
	return p;
}

void matrix_names_unref(struct matrix_names *p)
{
	if (!p || --p->refs)
		return;
	for (size_t i = 0; i < p->nblock; i++)
		free(p->block[i]);
	free(p->block);
	free(p->name);
	free(p->hash);
	free(p->slot);
	free(p);
}

static void names_grow(struct matrix_names *p)
{
	size_t cap = p->cap ? p->cap * 2 : 1024;
	uint32_t *slot = xcalloc(cap, sizeof(*slot));

	for (size_t id = 0; id < p->n; id++) {
		size_t i = p->hash[id] & (cap - 1);
		while (slot[i])
			i = (i + 1) & (cap - 1);
		slot[i] = (uint32_t)id + 1;
	}
	free(p->slot);
	p->slot = slot;
	p->cap = cap;
}

/* Room for len + 1 bytes of a name: the last block, or a new one. */
static char *names_room(struct matrix_names *p, size_t len)
{
	size_t need = len + 1;

	if (!p->nblock || p->used + need > NAMES_BLOCK) {
		p->block = xrealloc(p->block, (p->nblock + 1) * sizeof(*p->block));
		p->block[p->nblock++] = xmalloc(need > NAMES_BLOCK ? need : NAMES_BLOCK);
		p->used = 0;
	}
	char *at = p->block[p->nblock - 1] + p->used;
	p->used += need;
	return at;
}

static int64_t names_lookup(const struct matrix_names *p, const char *s, size_t len, uint32_t h, size_t *where)
{
	if (!p->cap)
		return -1;
	size_t i = h & (p->cap - 1);
	for (; p->slot[i]; i = (i + 1) & (p->cap - 1)) {
		uint32_t id = p->slot[i] - 1;
		if (p->hash[id] == h && !strncmp(p->name[id], s, len) && !p->name[id][len])
			return id;
	}
	if (where)
		*where = i;
	return -1;
}

uint32_t matrix_names_intern(struct matrix_names *p, const char *s, size_t len)
{
	uint32_t h = name_hash(s, len);
	size_t where = 0;
	int64_t id = names_lookup(p, s, len, h, &where);

	if (id >= 0)
		return (uint32_t)id;
	if (!p->cap || (p->n + 1) * 4 > p->cap * 3) {
		names_grow(p);
		names_lookup(p, s, len, h, &where);
	}
	if (p->n == p->alloc) {
		p->alloc = p->alloc ? p->alloc * 2 : 1024;
		p->name = xrealloc(p->name, p->alloc * sizeof(*p->name));
		p->hash = xrealloc(p->hash, p->alloc * sizeof(*p->hash));
	}
	char *copy = names_room(p, len);
	memcpy(copy, s, len);
	copy[len] = '\0';
	p->name[p->n] = copy;
	p->hash[p->n] = h;
	p->slot[where] = (uint32_t)p->n + 1;
	return (uint32_t)p->n++;
}

int64_t matrix_names_find(const struct matrix_names *p, const char *s)
{
	size_t len = strlen(s);
	return names_lookup(p, s, len, name_hash(s, len), NULL);
}

const char *matrix_names_get(const struct matrix_names *p, uint32_t id)
{
	return id < p->n ? p->name[id] : NULL;
}

size_t matrix_names_count(const struct matrix_names *p)
{
	return p->n;
}

/* ---- the matrix ---- */

struct matrix *matrix_new(struct matrix_names *names)
{
	struct matrix *m = xcalloc(1, sizeof(*m));

	m->refs = 1;
	m->names = matrix_names_ref(names);
	return m;
}

struct matrix *matrix_ref(struct matrix *m)
{
	m->refs++;
	return m;
}

void matrix_unref(struct matrix *m)
{
	if (!m || --m->refs)
		return;
	for (size_t i = 0; i < m->ncol; i++)
		free(m->col[i].v);
	for (size_t i = 0; i < m->nsource; i++)
		free(m->source[i]);
	free(m->source);
	free(m->col);
	free(m->at);
	matrix_names_unref(m->names);
	free(m);
}

const struct matrix_col *matrix_get_id(const struct matrix *m, uint32_t id)
{
	return id < m->natid && m->at[id] ? &m->col[m->at[id] - 1] : NULL;
}

const struct matrix_col *matrix_get(const struct matrix *m, const char *metric)
{
	int64_t id = matrix_names_find(m->names, metric);
	return id < 0 ? NULL : matrix_get_id(m, (uint32_t)id);
}

size_t matrix_runs(const struct matrix *m)
{
	size_t cols = 0;

	if (m->has_source)
		return m->nsource;
	for (size_t i = 0; i < m->ncol; i++)
		if (m->col[i].list && m->col[i].n > cols)
			cols = m->col[i].n;
	return cols;
}

/*
 * The column of a name, made empty (a key given twice: the last value
 * wins, in the first one's place, as a tree's map keeps it).
 */
struct matrix_col *matrix_column(struct matrix *m, uint32_t id)
{
	if (id >= m->natid) {
		size_t n = m->natid ? m->natid : 64;
		while (n <= id)
			n *= 2;
		m->at = xrealloc(m->at, n * sizeof(*m->at));
		memset(m->at + m->natid, 0, (n - m->natid) * sizeof(*m->at));
		m->memory += (n - m->natid) * sizeof(*m->at);
		m->natid = n;
	}
	if (m->at[id]) {
		struct matrix_col *c = &m->col[m->at[id] - 1];
		c->n = 0;
		c->list = c->bad = false;
		return c;
	}
	if (m->ncol == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 64;
		m->col = xrealloc(m->col, m->alloc * sizeof(*m->col));
	}
	m->memory += sizeof(struct matrix_col) + strlen(matrix_names_get(m->names, id)) + 1;
	m->col[m->ncol] = (struct matrix_col){ .name = id };
	m->at[id] = (uint32_t)++m->ncol;
	return &m->col[m->ncol - 1];
}

/* Append a cell (NAN: not a number). */
void matrix_push(struct matrix *m, struct matrix_col *c, double v)
{
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 4;
		c->v = xrealloc(c->v, cap * sizeof(*c->v));
		m->memory += (cap - c->cap) * sizeof(*c->v);
		c->cap = cap;
	}
	c->v[c->n++] = v;
	c->bad |= isnan(v);
}

/* The cells' room cut to what they hold (a matrix read whole keeps no slack). */
void matrix_fit(struct matrix *m, struct matrix_col *c)
{
	if (c->cap > c->n) {
		m->memory -= (c->cap - c->n) * sizeof(*c->v);
		c->cap = c->n;
		c->v = c->n ? xrealloc(c->v, c->n * sizeof(*c->v)) : (free(c->v), NULL);
	}
}

static double cell(const struct node *n)
{
	double x;
	return json_number(n, &x) ? x : NAN;
}

/* A value of a tree as a column: a list's cells, or one cell. */
static void column_of(struct matrix *m, struct matrix_col *c, const struct node *v)
{
	if (v->type == NODE_SEQ) {
		c->list = true;
		for (size_t k = 0; k < v->n; k++)
			matrix_push(m, c, cell(v->vals[k]));
	} else {
		matrix_push(m, c, cell(v));
	}
}

void matrix_set_source(struct matrix *m, const struct node *src)
{
	for (size_t i = 0; i < m->nsource; i++)
		free(m->source[i]);
	free(m->source);
	m->source = NULL;
	m->nsource = 0;
	m->has_source = src->type == NODE_SEQ;
	if (!m->has_source)
		return;
	m->source = xcalloc(src->n ? src->n : 1, sizeof(*m->source));
	for (size_t i = 0; i < src->n; i++) {
		const char *s = node_str(src->vals[i]);
		m->source[i] = s ? xstrdup(s) : NULL;
		m->memory += s ? strlen(s) + 1 : 0;
	}
	m->nsource = src->n;
}

struct matrix *matrix_from_node(const struct node *tree, struct matrix_names *names)
{
	if (!tree || tree->type != NODE_MAP)
		return NULL;
	struct matrix *m = matrix_new(names);
	for (size_t i = 0; i < tree->n; i++) {
		const char *k = tree->keys[i];
		if (tree->vals[i]->comment)
			continue;
		struct matrix_col *c = matrix_column(m, matrix_names_intern(names, k, strlen(k)));
		column_of(m, c, tree->vals[i]);
		matrix_fit(m, c);
		if (!strcmp(k, "stats_source"))
			matrix_set_source(m, tree->vals[i]);
	}
	return m;
}

/* stats_source as a column too (a list of what are no numbers), as a tree has it */
static void add_source(struct matrix *m, const char *source)
{
	uint32_t id = matrix_names_intern(m->names, "stats_source", strlen("stats_source"));
	const struct matrix_col *have = matrix_get_id(m, id);
	struct matrix_col *c;

	if (!have || !have->list) {
		c = matrix_column(m, id);
		c->list = true;
		for (size_t i = 0; i < m->nsource; i++)
			free(m->source[i]);
		m->nsource = 0;
		m->has_source = true;
	} else {
		c = &m->col[m->at[id] - 1];
	}
	matrix_push(m, c, NAN);
	m->source = xrealloc(m->source, (m->nsource + 1) * sizeof(*m->source));
	m->source[m->nsource++] = xstrdup(source);
}

void matrix_add_stats(struct matrix *m, const struct node *stats, const char *source)
{
	size_t cols = m->has_source ? m->nsource : 0;

	for (size_t i = 0; i < stats->n; i++) {
		const char *k = stats->keys[i];
		if (stats->vals[i]->comment || !strcmp(k, "stats_source"))
			continue;
		uint32_t id = matrix_names_intern(m->names, k, strlen(k));
		const struct matrix_col *have = matrix_get_id(m, id);
		struct matrix_col *c = have && have->list ? &m->col[m->at[id] - 1] : matrix_column(m, id);
		c->list = true;
		/* earlier runs without this metric count as 0 (lkp-tests pads) */
		while (c->n < cols)
			matrix_push(m, c, 0);
		/* a value that is a list or a map is one cell that is no number, as stats_matrix_add copies it */
		matrix_push(m, c, cell(stats->vals[i]));
	}
	/* metrics this run lacks: padded with 0 so columns stay runs */
	for (size_t i = 0; i < m->ncol; i++) {
		struct matrix_col *c = &m->col[i];
		if (c->list && strcmp(matrix_col_name(m, c), "stats_source"))
			while (c->n < cols + 1)
				matrix_push(m, c, 0);
	}
	add_source(m, source);
}

/*
 * matrix: a commit's runs as compare reads them — metric -> one sample per
 * run — held compactly: each metric's samples one array of doubles, its
 * name interned once in a pool the sides of a comparison share (200,000
 * metrics x 25 runs: about 8 bytes a sample, where a tree of nodes took 160).
 * Read straight from matrix.json (in pieces: the text is never whole in
 * memory), built from runs' stats.json, or converted from a node tree.
 */
#ifndef LKP_MATRIX_H
#define LKP_MATRIX_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most memory one matrix may take (samples, names, columns), whatever its file. */
#define MATRIX_MAX_MEMORY ((size_t)1 << 30)

/* Interned metric names, shared and counted: equal names are one pointer, with an id. */
struct matrix_names;
struct matrix_names *matrix_names_new(void);
struct matrix_names *matrix_names_ref(struct matrix_names *p);
void matrix_names_unref(struct matrix_names *p);
/* The id of a name (interned when new); matrix_names_find: -1 when not interned. */
uint32_t matrix_names_intern(struct matrix_names *p, const char *s, size_t len);
int64_t matrix_names_find(const struct matrix_names *p, const char *s);
const char *matrix_names_get(const struct matrix_names *p, uint32_t id);
size_t matrix_names_count(const struct matrix_names *p);

/*
 * One metric. A cell that is not a finite number (a string, null, a
 * NaN token, a list) is NAN: lkprobot's numbers are finite, so a NAN is
 * always one that was not a number.
 */
struct matrix_col {
	uint32_t name; /* its id in the pool */
	uint32_t n;    /* cells (1 for a value that is not a list) */
	uint32_t cap;  /* v's room */
	bool list;     /* the value was a list */
	bool bad;      /* a cell (or the value) is not a number */
	double *v;     /* the cells, in run order */
};

struct matrix {
	size_t refs;
	struct matrix_names *names;
	struct matrix_col *col; /* in the order of the file or of the runs */
	size_t ncol, alloc;
	uint32_t *at; /* name id -> column + 1 (0: none), natid of them */
	size_t natid;
	char **source; /* stats_source when it is a list: its strings (NULL: not a string) */
	size_t nsource;
	bool has_source; /* a stats_source list */
	size_t memory;	 /* about what it takes */
};

/* A new empty matrix on a pool (which it holds a reference on). */
struct matrix *matrix_new(struct matrix_names *names);
struct matrix *matrix_ref(struct matrix *m);
void matrix_unref(struct matrix *m);

/* The column of a metric; NULL: none. */
const struct matrix_col *matrix_get(const struct matrix *m, const char *metric);
const struct matrix_col *matrix_get_id(const struct matrix *m, uint32_t id);
static inline const char *matrix_col_name(const struct matrix *m, const struct matrix_col *c)
{
	return matrix_names_get(m->names, c->name);
}

/* lkp-tests' matrix_cols: stats_source's length, else the longest list. */
size_t matrix_runs(const struct matrix *m);

/*
 * Add a run's stats (a map metric -> value) as the next column, as
 * stats_matrix_add does to a tree: earlier runs without a metric count 0,
 * as does this run for a metric it lacks; source is the run's stats.json
 * (or directory), appended to stats_source.
 */
void matrix_add_stats(struct matrix *m, const struct node *stats, const char *source);

/* A matrix from a tree (a map metric -> samples, as matrix.json); NULL when it is not a map. */
struct matrix *matrix_from_node(const struct node *tree, struct matrix_names *names);

/*
 * Read a matrix.json: what json_parse() and matrix_from_node() would make
 * of it, with the same errors ("path:line:col: problem"), without ever
 * holding the text whole; past MATRIX_MAX_MEMORY, an error. A file that
 * is JSON but not a map: err says so ("not a matrix"). 0, or -1 with err.
 */
int matrix_load_json(const char *path, struct matrix_names *names, struct matrix **out, struct strbuf *err);
/* For tests: the window matrix_load_json starts with (1 MiB) and reads ahead of an entry (64 KiB); 0: those. */
void matrix_json_pieces(size_t first_window, size_t read_ahead);

/*
 * Building one by hand (matrix_json.c, tests): the column of a metric id,
 * made empty (a name given twice keeps its first place, its last value);
 * a cell appended (NAN: not a number); the room cut to the cells; the
 * stats_source list taken from a tree's value.
 */
struct matrix_col *matrix_column(struct matrix *m, uint32_t id);
void matrix_push(struct matrix *m, struct matrix_col *c, double v);
void matrix_fit(struct matrix *m, struct matrix_col *c);
void matrix_set_source(struct matrix *m, const struct node *src);

#endif

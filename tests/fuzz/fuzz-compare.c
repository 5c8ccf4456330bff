/*
 * Fuzz the compare input: a matrix (matrix.json: metric -> samples) read
 * from the input, compared against itself with every sample scaled (so
 * that rows change), and rendered in every layout compare and report use.
 * The same text read in pieces (matrix_load_json, windows of a few bytes)
 * must give what json_parse gives, cell for cell, or the same error.
 * Seeds: the JSON fixtures and matrices of real runs.
 */
#include "fuzzlib.h"
#include "../../lib/results/compare.h"
#include "../../lib/results/matrix.h"
#include "../../lib/stats/lkpetc.h"
#include "../../lib/util/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Two matrices alike, cell for cell (NAN as NAN); abort() where not. */
static void same(const struct matrix *a, const struct matrix *b)
{
	if (a->ncol != b->ncol || a->nsource != b->nsource || a->has_source != b->has_source)
		abort();
	for (size_t i = 0; i < a->ncol; i++) {
		const struct matrix_col *x = &a->col[i], *y = &b->col[i];
		if (strcmp(matrix_col_name(a, x), matrix_col_name(b, y)) || x->n != y->n || x->list != y->list ||
		    x->bad != y->bad)
			abort();
		for (size_t k = 0; k < x->n; k++)
			if (isnan(x->v[k]) ? !isnan(y->v[k]) : memcmp(&x->v[k], &y->v[k], sizeof(double)))
				abort();
	}
}

/* The input read in pieces against the tree json_parse made of it (NULL: it said err). */
static void read_in_pieces(const unsigned char *data, size_t size, const struct node *tree, const char *err)
{
	int fd = memfd_create("fuzz-matrix", MFD_CLOEXEC);
	char path[64];
	struct strbuf e = STRBUF_INIT;
	struct matrix_names *names = matrix_names_new();
	struct matrix *m = NULL;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	matrix_json_pieces(1 + size % 16, size % 5);
	int rc = matrix_load_json(path, names, &m, &e);
	matrix_json_pieces(0, 0);
	/* the errors name the file: compare what follows its name */
	if (!tree) {
		const char *a = strchr(err, ':'), *b = strstr(e.buf, path);
		if (rc != -1 || !a || !b || strcmp(a, b + strlen(path)))
			abort();
	} else if (tree->type != NODE_MAP) {
		if (rc != 1)
			abort();
	} else {
		struct matrix *want = matrix_from_node(tree, names);
		if (rc)
			abort();
		same(m, want);
		matrix_unref(want);
	}
	matrix_unref(m);
	matrix_names_unref(names);
	strbuf_release(&e);
	close(fd);
}

/* The same matrix with each number scaled by f (its text rewritten). */
static struct node *scaled(const struct node *m, double f)
{
	struct node *c = node_dup(m);

	for (size_t i = 0; c->type == NODE_MAP && i < c->n; i++) {
		struct node *col = c->vals[i];
		for (size_t k = 0; col->type == NODE_SEQ && k < col->n; k++) {
			double v;
			if (json_number(col->vals[k], &v)) {
				struct strbuf t = STRBUF_INIT;
				strbuf_addf(&t, "%.17g", v * f);
				free(col->vals[k]->str);
				col->vals[k]->str = strbuf_detach(&t);
			}
		}
	}
	return c;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	lkpetc_set_dir(".");	/* lkp-tests' data in the source tree (the harnesses run from its top) */
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct node *m = json_parse_max((const char *)data, size, "fuzz", (size_t)1 << 30, &err);

	read_in_pieces(data, size, m, err.buf);
	if (m && m->type == NODE_MAP) {
		struct node *n = scaled(m, size & 1 ? 0.5 : 1.25);
		const struct node *sides[2] = { m, n };
		const char *labels[2] = { "base", "new" };
		struct compare_result res;
		if (!compare_matrices(sides, labels, 2, NULL, &res, &err)) {
			compare_render_ncompare(&out, &res, NULL, "fuzz", size & 2);
			compare_render_classic(&out, &res, "fuzz");
			compare_render_json(&out, &res);
			compare_headline(&res, true);
			compare_result_release(&res);
		}
		node_free(n);
	}
	node_free(m);
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}

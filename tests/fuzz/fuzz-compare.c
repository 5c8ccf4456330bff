/*
 * Fuzz the compare input: a matrix (matrix.json: metric -> samples) read
 * from the input, compared against itself with every sample scaled (so
 * that rows change), and rendered in every layout compare and report use.
 * Seeds: the JSON fixtures and matrices of real runs.
 */
#include "fuzzlib.h"
#include "../../lib/results/compare.h"
#include "../../lib/stats/lkpetc.h"
#include "../../lib/util/json.h"

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
	struct node *m = json_parse((const char *)data, size, "fuzz", &err);

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

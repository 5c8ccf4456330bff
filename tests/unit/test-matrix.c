/*
 * Unit tests: lib/results/matrix — matrix.json read in pieces gives what
 * json_parse and matrix_from_node give on the whole text (cells, sources,
 * errors and their line:col), across the window's edges; its numbers are
 * strtod's; a run's stats added as stats_matrix_add adds them to a tree;
 * the shown_only compare keeps the rows the tables print, the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/results/compare.h"
#include "../../lib/results/matrix.h"
#include "../../lib/stats/lkpetc.h"
#include "../../lib/stats/stats.h"
#include "../../lib/util/json.h"

static char dir[] = "/tmp/test-matrix.XXXXXX";

static char *write_text(const char *text, size_t len)
{
	char *p = xasprintf("%s/matrix.json", dir);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	return p;
}

/* Two matrices hold the same columns, cells (bit for bit, NAN as NAN) and sources. */
static void assert_same(const struct matrix *a, const struct matrix *b)
{
	assert_int_equal(a->ncol, b->ncol);
	for (size_t i = 0; i < a->ncol; i++) {
		const struct matrix_col *x = &a->col[i], *y = &b->col[i];
		assert_string_equal(matrix_col_name(a, x), matrix_col_name(b, y));
		assert_int_equal(x->n, y->n);
		assert_int_equal(x->list, y->list);
		assert_int_equal(x->bad, y->bad);
		for (size_t k = 0; k < x->n; k++)
			assert_true(isnan(x->v[k]) ? isnan(y->v[k]) : !memcmp(&x->v[k], &y->v[k], sizeof(double)));
	}
	assert_int_equal(a->has_source, b->has_source);
	assert_int_equal(a->nsource, b->nsource);
	for (size_t i = 0; i < a->nsource; i++)
		assert_true(a->source[i] ? b->source[i] && !strcmp(a->source[i], b->source[i]) : !b->source[i]);
}

/* The text read both ways: the same matrix, or the same error (and 1 for JSON that is no map). */
static void check_text(const char *text, size_t len)
{
	struct matrix_names *names = matrix_names_new();
	struct strbuf e1 = STRBUF_INIT, e2 = STRBUF_INIT;
	char *path = write_text(text, len);
	struct matrix *m = NULL;
	int rc = matrix_load_json(path, names, &m, &e1);
	struct node *tree = json_parse_max(text, len, path, (size_t)1 << 30, &e2);

	if (!tree) {
		if (rc != -1)
			fail_msg("'%.60s': read, where json_parse says %s", text, e2.buf);
		assert_string_equal(e1.buf, e2.buf);
	} else if (tree->type != NODE_MAP) {
		assert_int_equal(rc, 1);
	} else {
		if (rc)
			fail_msg("'%.60s': %s", text, e1.buf);
		struct matrix *want = matrix_from_node(tree, names);
		assert_same(m, want);
		matrix_unref(want);
	}
	node_free(tree);
	matrix_unref(m);
	matrix_names_unref(names);
	unlink(path);
	free(path);
	strbuf_release(&e1);
	strbuf_release(&e2);
}

static void test_texts(void **state)
{
	static const char *const texts[] = {
		"{\"fio.a\": [1, 2.5, -3e2, 0, -0, 1e-7, 123456789012345678901234], \"stats_source\": "
		"[\"a/0/stats.json\", 7]}",
		"  {}  ",
		"{\"x\": [], \"y\": 5, \"z\": \"str\", \"w\": null, \"v\": {\"a\": [1]}, \"u\": [[1], {\"b\": 2}, "
		"true, \"3\"]}",
		"{\"n\": [1, NaN, Infinity, -Infinity, 1e999, -1e999, 4.9e-324, 1.7976931348623157e308]}",
		"{\"dup\": [1, 2], \"other\": [3], \"dup\": [4]}",
		"{\"k\\u00e9y\\n\": [1], \"\": [2], \"a\\\"b\": [3]}",
		"{\"last_state.is_incomplete_run\": [0, 1, \"x\"], \"stats_source\": \"not a list\"}",
		"\n\n  {\n  \"a\": [\n    1,\n    2\n  ],\n  \"b\": [\n 3 ]\n}\n",
		/* errors, each where json_parse puts it */
		"",
		"   \n ",
		"[1, 2]",
		"\"a map it is not\"",
		"{\"a\": [1, 2,]}",
		"{\"a\": [1, 2}",
		"{\"a\": [1 2]}",
		"{\"a\": [01]}",
		"{\"a\": [1.]}",
		"{\"a\": [1e]}",
		"{\"a\": [-]}",
		"{\"a\": [1], }",
		"{\"a\" [1]}",
		"{a: [1]}",
		"{\"a\": [1]} x",
		"{\"a\": [1]",
		"{\"a\": [1",
		"{\"a\": \"unterminated",
		"{\"a\": [\"bad \\q escape\"]}",
		"{\"a\": [\"ctl \x01 char\"]}",
		"{\"a\x01\": [1]}",
		"{\"a\": [1]}{",
		"{\"a\": "
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["
		"1]]]]",
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
		check_text(texts[i], strlen(texts[i]));
	/* in pieces of a few bytes: every entry cut somewhere */
	for (size_t w = 1; w <= 16; w *= 2) {
		matrix_json_pieces(w, w / 2);
		for (size_t i = 0; i < ARRAY_SIZE(texts); i++)
			check_text(texts[i], strlen(texts[i]));
	}
	matrix_json_pieces(0, 0);
}

/* Texts past the window (1 MiB) and its read-ahead: entries cut at every edge, one entry larger than the window. */
static void test_windows(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	strbuf_addstr(&sb, "{\n");
	for (int i = 0; i < 30000; i++)
		strbuf_addf(&sb, "  \"m\\u0041%d\":   [%d.%d, %de%d, \"s,]}\" , -%d]%s\n", i, i, i % 7, i, i % 30 - 15,
			    i, i % 3 ? "," : " ,");
	strbuf_addstr(&sb, "  \"big\": [");
	for (int i = 0; i < 300000; i++)
		strbuf_addf(&sb, "%s%d", i ? ", " : "", i);
	strbuf_addstr(&sb, "]\n}\n");
	check_text(sb.buf, sb.len);
	matrix_json_pieces(4096, 100);
	check_text(sb.buf, sb.len);
	matrix_json_pieces(0, 0);
	/* an error far in: its line and column counted across the pieces */
	size_t at = sb.len / 2;
	sb.buf[at] = '#';
	check_text(sb.buf, sb.len);
	strbuf_release(&sb);
}

/* The fast path's numbers are strtod's, bit for bit. */
static void test_numbers(void **state)
{
	struct strbuf sb = STRBUF_INIT;

	(void)state;
	srand(35);
	strbuf_addstr(&sb, "{\"n\": [");
	for (int i = 0; i < 20000; i++) {
		int digits = 1 + rand() % 20, frac = rand() % 3 ? rand() % 12 : 0;
		strbuf_addstr(&sb, i ? ", " : "");
		if (rand() % 4 == 0)
			strbuf_addch(&sb, '-');
		strbuf_addch(&sb, (char)('1' + rand() % 9));
		for (int d = 1; d < digits; d++)
			strbuf_addch(&sb, (char)('0' + rand() % 10));
		if (frac) {
			strbuf_addch(&sb, '.');
			for (int d = 0; d < frac; d++)
				strbuf_addch(&sb, (char)('0' + rand() % 10));
		}
		if (rand() % 3 == 0)
			strbuf_addf(&sb, "e%d", rand() % 60 - 30);
	}
	strbuf_addstr(&sb, "]}");
	check_text(sb.buf, sb.len);
	strbuf_release(&sb);
}

/* A run's stats added: what stats_matrix_add makes of a tree, compactly. */
static void test_add_stats(void **state)
{
	static const char *const runs[] = {
		"{\"a\": 1, \"b\": 2.5}",
		"{\"b\": 3, \"c\": \"text\"}",
		"{\"a\": 4, \"stats_source\": \"ignored\", \"d\": [1, 2]}",
	};
	struct matrix_names *names = matrix_names_new();
	struct matrix *m = matrix_new(names);
	struct node *tree = node_new(NODE_MAP);
	struct strbuf err = STRBUF_INIT;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct node *st = json_parse(runs[i], strlen(runs[i]), "stats", &err);
		char src[32];
		snprintf(src, sizeof(src), "/rt/%zu/stats.json", i);
		assert_non_null(st);
		stats_matrix_add(tree, st, src);
		matrix_add_stats(m, st, src);
		node_free(st);
	}
	struct matrix *want = matrix_from_node(tree, names);
	assert_same(m, want);
	assert_int_equal(matrix_runs(m), 3);
	assert_true(matrix_get(m, "c")->bad);
	assert_false(matrix_get(m, "a")->bad);
	assert_true(matrix_get(m, "a")->v[1] == 0); /* run 1 had no a: 0, as lkp-tests pads */
	matrix_unref(want);
	matrix_unref(m);
	matrix_names_unref(names);
	node_free(tree);
	strbuf_release(&err);
}

/* shown_only keeps what the tables print: the same tables, fewer rows. */
static void test_shown_only(void **state)
{
	struct node *a = node_new(NODE_MAP), *b = node_new(NODE_MAP);
	const char *labels[2] = { "base", "new" };
	struct strbuf err = STRBUF_INIT, t1 = STRBUF_INIT, t2 = STRBUF_INIT;

	(void)state;
	srand(7);
	for (int k = 0; k < 400; k++) {
		struct node *ca = node_new(NODE_SEQ), *cb = node_new(NODE_SEQ);
		char name[64];
		snprintf(name, sizeof(name), "%s.m%03d", k % 2 ? "fio" : "vmstat.cpu", k);
		for (int r = 0; r < 5; r++) {
			char num[64];
			snprintf(num, sizeof(num), "%.6g", 1000.0 * (1 + 0.02 * rand() / RAND_MAX));
			node_push(ca, node_new_scalar(num));
			snprintf(num, sizeof(num), "%.6g", 1000.0 * (k % 9 ? 1 : 1.4) * (1 + 0.02 * rand() / RAND_MAX));
			node_push(cb, node_new_scalar(num));
		}
		node_set(a, name, ca);
		node_set(b, name, cb);
	}
	const struct node *m[2] = { a, b };
	for (int all = 0; all < 2; all++) {
		struct compare_result full, kept;
		struct compare_opts o1 = { .all = all }, o2 = { .all = all, .shown_only = true };
		assert_int_equal(compare_matrices(m, labels, 2, &o1, &full, &err), 0);
		assert_int_equal(compare_matrices(m, labels, 2, &o2, &kept, &err), 0);
		strbuf_reset(&t1);
		strbuf_reset(&t2);
		compare_render_ncompare(&t1, &full, NULL, "x", true);
		compare_render_classic(&t1, &full, "x");
		compare_render_headline(&t1, &full);
		compare_render_ncompare(&t2, &kept, NULL, "x", true);
		compare_render_classic(&t2, &kept, "x");
		compare_render_headline(&t2, &kept);
		assert_string_equal(t1.buf, t2.buf);
		assert_int_equal(full.ncompared, 400);
		assert_int_equal(kept.ncompared, 400);
		assert_int_equal(full.nchanged, kept.nchanged);
		if (!all)
			assert_true(kept.nrows < full.nrows);
		compare_result_release(&full);
		compare_result_release(&kept);
	}
	node_free(a);
	node_free(b);
	strbuf_release(&err);
	strbuf_release(&t1);
	strbuf_release(&t2);
}

static int setup(void **state)
{
	(void)state;
	lkpetc_set_dir(".");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texts),	  cmocka_unit_test(test_windows),    cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_add_stats), cmocka_unit_test(test_shown_only),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

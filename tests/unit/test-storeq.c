/*
 * Unit tests: lib/store's reads by what is asked — a commit's runs found by
 * its name's prefix on the names' index, and the queries a page or a
 * compare makes searched on an index, never a scan of every row (their
 * cost must not grow with the runs of other commits in a farm's history).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/store/store_int.h"
#include "../../lib/util/node.h"
#include "../../lib/util/strbuf.h"

static struct store *open_memory(void)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(":memory:", &err);

	if (!s)
		fail_msg("store_open: %s", err.buf);
	strbuf_release(&err);
	return s;
}

static void record(struct store *s, const char *commit, int run_no)
{
	struct strbuf err = STRBUF_INIT;
	char root[256];

	snprintf(root, sizeof(root), "/r/fio-basic/pp/tb/debian/kc/gcc-12/%s/%d", commit, run_no);
	struct store_run r = {
		.result_root = root,
		.run_no = run_no,
		.testcase = "fio-basic",
		.path_params = "pp",
		.job_yaml = "testcase: fio-basic\n",
		.commit = commit,
		.tbox_group = "tb",
	};
	if (store_record_run(s, &r, &err))
		fail_msg("store_record_run: %s", err.buf);
	strbuf_release(&err);
}

/* The commits with runs starting with prefix, as "a b" (at most 2). */
static char *with_runs(struct store *s, const char *prefix)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct node *m;

	if (store_commit_with_runs(s, prefix, &m, &err))
		fail_msg("store_commit_with_runs: %s", err.buf);
	for (size_t i = 0; i < m->n; i++)
		strbuf_addf(&out, "%s%s", i ? " " : "", node_str(node_get(m->vals[i], "commit")));
	node_free(m);
	strbuf_release(&err);
	return strbuf_detach(&out);
}

static void test_storeq_commit_with_runs(void **state)
{
	struct store *s = open_memory();
	struct strbuf err = STRBUF_INIT;
	(void)state;

	record(s, "abc1", 0);
	record(s, "abc1", 1);
	record(s, "abc2", 0);
	record(s, "abd0", 0);
	record(s, "6.1.0-27-amd64", 0);
	/* its runs forgotten, the commit's row stays: no longer a side */
	assert_int_equal(store_forget_under(s, "/r/fio-basic/pp/tb/debian/kc/gcc-12/abd0", &err), 1);
	static const struct {
		const char *prefix, *want;
	} cases[] = {
		{ "ab", "abc1 abc2" },
		{ "abc1", "abc1" },
		{ "abd", "" },
		{ "6.1", "6.1.0-27-amd64" },
		{ "6.1.0-27-amd64", "6.1.0-27-amd64" },
		{ "b", "" },
		{ "abc10", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = with_runs(s, cases[i].prefix);
		if (strcmp(got, cases[i].want))
			fail_msg("prefix '%s': '%s', want '%s'", cases[i].prefix, got, cases[i].want);
		free(got);
	}
	strbuf_release(&err);
	store_close(s);
}

/* The plan of sql: every table searched on an index, none scanned. */
static void assert_searched(struct store *s, const char *sql)
{
	struct strbuf plan = STRBUF_INIT;
	char *explain = xasprintf("EXPLAIN QUERY PLAN %s", sql);
	sqlite3_stmt *q;

	assert_int_equal(sqlite3_prepare_v2(s->db, explain, -1, &q, NULL), SQLITE_OK);
	while (sqlite3_step(q) == SQLITE_ROW)
		strbuf_addf(&plan, "%s\n", (const char *)sqlite3_column_text(q, 3));
	sqlite3_finalize(q);
	if (strstr(plan.buf, "SCAN"))
		fail_msg("%s\nscans a table:\n%s", sql, plan.buf);
	free(explain);
	strbuf_release(&plan);
}

static void test_storeq_plans_search_an_index(void **state)
{
	struct store *s = open_memory();
	(void)state;

	for (int i = 0; i < 50; i++) {
		char c[16];
		snprintf(c, sizeof(c), "c%03d", i);
		record(s, c, 0);
	}
	assert_searched(s, store_runs_sql[ST_COMMIT_PREFIX]);
	assert_searched(s, store_runs_sql[ST_COMMIT_PREFIX_RUNS]);
	assert_searched(s, store_runs_sql[ST_RUN_STATS]);
	/* the heads a page shows: by commit, by a bisection's ends, by branch, the unfinished */
	for (enum stmt_id st = ST_HEADS_ABOUT; st <= ST_HEADS_BRANCH; st++)
		assert_searched(s, store_heads_sql[st]);
	assert_searched(s, store_heads_sql[ST_HEAD_TODO]);
	assert_searched(s, store_heads_sql[ST_HEAD_ONE]);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storeq_commit_with_runs),
		cmocka_unit_test(test_storeq_plans_search_an_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: lib/compare — lkp-tests' "changed" rules (separation, run
 * counts, the 1 % / 5 % floors, failure stats), ncompare's number formats
 * (as lib/compare.rb prints them under Ruby 3.1), directions and verdicts,
 * and properties: swapping the sides keeps the changed set and flips the
 * changes, identical sides never change.
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

#include "../../lib/results/compare.h"
#include "../../lib/stats/lkpetc.h"
#include "../../lib/util/node.h"

/* a matrix from "metric", n, samples... groups; NULL ends */
static struct node *matrix(const char *first, ...)
{
	struct node *m = node_new(NODE_MAP);
	va_list ap;

	va_start(ap, first);
	for (const char *k = first; k; k = va_arg(ap, const char *)) {
		int n = va_arg(ap, int);
		struct node *col = node_new(NODE_SEQ);
		for (int i = 0; i < n; i++) {
			char num[64];
			snprintf(num, sizeof(num), "%.17g", va_arg(ap, double));
			node_push(col, node_new_scalar(num));
		}
		node_set(m, k, col);
	}
	va_end(ap);
	return m;
}

static const struct compare_row *row(const struct compare_result *r, const char *metric)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].metric, metric))
			return &r->rows[i];
	fail_msg("no row %s", metric);
	return NULL;
}

/* the rows keep copies of the samples: the matrices may go (own) */
static void compare2(struct node *a, struct node *b, struct compare_result *res, bool own)
{
	const struct node *m[2] = { a, b };
	const char *l[2] = { "base", "new" };
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(compare_matrices(m, l, 2, NULL, res, &err), 0);
	strbuf_release(&err);
	if (own) {
		node_free(a);
		node_free(b);
	}
}

static void run_compare(struct node *a, struct node *b, struct compare_result *res)
{
	compare2(a, b, res, true);
}

static void test_formats(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	/* Ruby: format('%10.2f'/'%10d'/'%10.4g', ...) as Compare.show_perf_change picks them */
	compare_format_value(&sb, 0.7);
	compare_format_value(&sb, 68766.9);
	compare_format_value(&sb, 1.431e13);
	compare_format_value(&sb, -999.994);
	assert_string_equal(sb.buf, "      0.70     68766 1.431e+13   -999.99");
	strbuf_reset(&sb);
	compare_format_change(&sb, -43.33, false);
	compare_format_change(&sb, 144445.5, false);
	compare_format_change(&sb, -0.71, true);
	compare_format_change(&sb, NAN, false);
	assert_string_equal(sb.buf, "     -43.3%   +1.4e+05%       -0.7         n/a  ");
	strbuf_release(&sb);
}

static void test_separation_and_counts(void **state)
{
	struct compare_result r;
	(void)state;

	run_compare(matrix("fio.write_iops", 2, 100.0, 101.0, NULL), matrix("fio.write_iops", 2, 50.0, 51.0, NULL), &r);
	assert_string_equal(row(&r, "fio.write_iops")->why, "fewer than 3 runs on both sides");
	compare_result_release(&r);
	run_compare(matrix("fio.write_bw_MBps", 3, 100.0, 101.0, 102.0, "fio.read_bw_MBps", 3, 100.0, 110.0, 120.0, NULL),
		    matrix("fio.write_bw_MBps", 3, 50.0, 51.0, 52.0, "fio.read_bw_MBps", 3, 105.0, 115.0, 125.0, NULL),
		    &r);
	const struct compare_row *w = row(&r, "fio.write_bw_MBps");
	assert_true(w->changed);
	assert_int_equal(w->verdict, -1);	/* bandwidth down: a regression */
	assert_true(fabs(w->change[1] - (51.0 - 101.0) / 101.0 * 100) < 1e-9);
	assert_false(row(&r, "fio.read_bw_MBps")->changed);	/* overlapping ranges */
	/* changed rows come first */
	assert_string_equal(r.rows[0].metric, "fio.write_bw_MBps");
	assert_int_equal(r.nchanged, 1);
	compare_result_release(&r);
}

static void test_small_changes(void **state)
{
	struct compare_result r;
	(void)state;

	/* 3 % apart, separated: a perf metric counts, another metric does not */
	run_compare(matrix("perf-stat.cache-misses", 3, 1000.0, 1000.0, 1000.0, "meminfo.Foo", 3, 100000.0, 100000.0,
			   100000.0, "vmstat.system.cs", 3, 1000.0, 1000.0, 1000.0, NULL),
		    matrix("perf-stat.cache-misses", 3, 1030.0, 1030.0, 1030.0, "meminfo.Foo", 3, 103000.0, 103000.0,
			   103000.0, "vmstat.system.cs", 3, 1005.0, 1005.0, 1005.0, NULL),
		    &r);
	assert_true(row(&r, "perf-stat.cache-misses")->changed);
	assert_string_equal(row(&r, "meminfo.Foo")->why, "a change of 5 % or less in a metric that is not a perf metric");
	assert_string_equal(row(&r, "vmstat.system.cs")->why, "a change of 1 % or less");
	assert_int_equal(row(&r, "perf-stat.cache-misses")->verdict, 0);	/* no direction */
	compare_result_release(&r);
}

static void test_failure_and_absolute(void **state)
{
	struct compare_result r;
	struct strbuf out = STRBUF_INIT;
	(void)state;

	run_compare(matrix("dmesg.WARNING:at_foo", 3, 0.0, 0.0, 0.0, "mpstat.cpu.all.sys%", 3, 9.0, 9.5, 9.6, NULL),
		    matrix("dmesg.WARNING:at_foo", 4, 1.0, 0.0, 0.0, 0.0, "mpstat.cpu.all.sys%", 4, 20.0, 20.5, 21.0, 20.5,
			   NULL),
		    &r);
	const struct compare_row *d = row(&r, "dmesg.WARNING:at_foo");
	assert_int_equal(d->kind, COMPARE_FAILURE);
	assert_true(d->changed);
	assert_true(fabs(d->change[1] - 100.0 / 3) < 1e-9);	/* lkp-tests divides by the base's 3 runs */
	const struct compare_row *m = row(&r, "mpstat.cpu.all.sys%");
	assert_true(m->absolute);
	assert_true(fabs(m->change[1] - (20.5 - 9.366666666666667)) < 1e-9);
	compare_render_ncompare(&out, &r, NULL, NULL, false);
	/* lib/compare.rb: failure rows first, "%reproduction", fails blank when 0 */
	assert_non_null(strstr(out.buf, "       fail:runs  %reproduction    fail:runs\n"));
	assert_non_null(strstr(out.buf, "           :3           33%           1:4     dmesg.WARNING:at_foo\n"));
	assert_non_null(strstr(out.buf, "      9.37 ±  2%     +11.1       20.50        mpstat.cpu.all.sys%\n"));
	strbuf_release(&out);
	compare_result_release(&r);
}

static void test_properties(void **state)
{
	struct compare_result ab, ba, aa;
	(void)state;

	srand(7);
	for (int round = 0; round < 20; round++) {
		struct node *a = node_new(NODE_MAP), *b = node_new(NODE_MAP);
		static const char *const names[] = { "fio.read_iops", "perf-stat.ipc", "vmstat.system.in",
						     "fio.time.elapsed_time", "turbostat.Busy%" };
		for (size_t k = 0; k < 5; k++) {
			struct node *ca = node_new(NODE_SEQ), *cb = node_new(NODE_SEQ);
			double base = 1 + rand() % 1000, shift = 1 + (rand() % 3) * 0.2;
			for (int i = 0; i < 3 + rand() % 5; i++) {
				char num[64];
				snprintf(num, sizeof(num), "%.6g", base * (0.97 + 0.06 * rand() / RAND_MAX));
				node_push(ca, node_new_scalar(num));
				snprintf(num, sizeof(num), "%.6g", base * shift * (0.97 + 0.06 * rand() / RAND_MAX));
				node_push(cb, node_new_scalar(num));
			}
			node_set(a, names[k], ca);
			node_set(b, names[k], cb);
		}
		compare2(a, b, &ab, false);
		compare2(b, a, &ba, false);
		compare2(a, a, &aa, false);
		assert_int_equal(ab.nchanged, ba.nchanged);
		assert_int_equal(aa.nchanged, 0);
		for (size_t i = 0; i < ab.nrows; i++) {
			const struct compare_row *x = &ab.rows[i], *y = row(&ba, x->metric);
			assert_int_equal(x->changed, y->changed);
			if (x->absolute)
				assert_true(fabs(x->change[1] + y->change[1]) < 1e-9);
			else if (x->change[1] != 0)
				assert_true((x->change[1] > 0) != (y->change[1] > 0));
			assert_true(fabs(x->p_mwu - y->p_mwu) < 1e-12);
			assert_int_equal(x->verdict, -y->verdict);
		}
		compare_result_release(&ab);
		compare_result_release(&ba);
		compare_result_release(&aa);
		node_free(a);
		node_free(b);
	}
}

static void test_directions(void **state)
{
	(void)state;
	assert_int_equal(compare_direction("fio.write_bw_MBps"), 1);
	assert_int_equal(compare_direction("fio.read_clat_95%_us"), -1);
	assert_int_equal(compare_direction("vm-scalability.throughput"), 1);
	assert_int_equal(compare_direction("vm-scalability.time.elapsed_time"), -1);
	assert_int_equal(compare_direction("perf-stat.cache-misses"), 0);
	assert_true(compare_is_failure("dmesg.BUG:unable_to_handle_page_fault"));
	assert_true(compare_is_failure("xfstests.generic.001.fail"));
	assert_false(compare_is_failure("fio.time.elapsed_time"));
	assert_true(compare_is_perf_metric("fio.time.user_time"));
	assert_true(compare_is_perf_metric("fio.write_iops"));	/* the test's own */
	assert_false(compare_is_perf_metric("meminfo.MemFree"));
}

/* lkp-tests' data and its Ruby regexes read as POSIX ones */
static void test_lkpetc(void **state)
{
	struct strbuf err = STRBUF_INIT;
	regex_t re;

	(void)state;
	assert_int_equal(lkpetc_load(&err), 0);
	assert_false(lkpetc_bisectable("interrupts.CAL:Function_call_interrupts"));
	assert_false(lkpetc_report_allowed("interrupts.CAL:Function_call_interrupts"));
	assert_false(lkpetc_bisectable("perf-stat.ps.instructions"));
	assert_true(lkpetc_report_allowed("perf-stat.ps.instructions"));
	assert_true(lkpetc_bisectable("fio.write_iops"));
	assert_false(lkpetc_bisectable("dmesg.boot_failures"));
	assert_true(lkpetc_bisectable("dmesg.WARNING:at_fs/xfs/xfs_file.c:#xfs_file_write_iter"));
	assert_false(lkpetc_bisectable("kmsg.C12]"));		/* ^kmsg\.(C|T)[0-9]{1,5}\] */
	assert_false(lkpetc_bisectable("x{#:#}y"));		/* a { that is no count: literal */
	assert_true(lkpetc_perf_metric("turbostat.%Busy"));
	assert_false(lkpetc_perf_metric("turbostat.Avg_MHz"));
	assert_true(lkpetc_perf_metric("fio.time.elapsed_time"));	/* ^(.*\.)?time..* */
	assert_true(lkpetc_failure("dmesg.BUG:foo"));
	assert_true(lkpetc_failure("xfstests.generic.001.fail"));
	assert_true(lkpetc_pass("xfstests.generic.001.pass"));
	double floor;
	bool whole;
	assert_true(lkpetc_threshold("vmstat.system.cs", &floor, &whole));
	assert_true(floor == 100 && whole);
	assert_true(lkpetc_threshold("perf-profile.children.cycles-pp.x", &floor, &whole));
	assert_true(floor == 1 && whole);			/* perf-profile.*: 1 comes first */
	assert_true(lkpetc_threshold("fio.time.system_time", &floor, &whole));
	assert_false(lkpetc_threshold("time.system_time", &floor, &whole));	/* .*. wants a character */
	assert_false(lkpetc_threshold("fio.write_iops", &floor, &whole));
	/* which way is better: lkp-tests' index files, index-perf-all.yaml first */
	assert_int_equal(lkpetc_direction("fio.write_bw_MBps"), +1);	  /* fio\..+_bw_MBps: 1 */
	assert_int_equal(lkpetc_direction("fio.write_clat_mean_us"), -1); /* index-perf: fio\..+\_us: -1 */
	assert_int_equal(lkpetc_direction("fio.latency_4ms%"), -1);	  /* index-latency: fio\..+\%: -0.1 */
	assert_int_equal(lkpetc_direction("turbostat.PkgWatt"), -1);	  /* index-power */
	assert_int_equal(lkpetc_direction("kernel-size.text"), -1);	  /* index-size */
	assert_int_equal(lkpetc_direction("command.throughput"), +1);	  /* .+\.throughput: 1 */
	assert_int_equal(lkpetc_direction("command.latency_ns"), 0);	  /* no file names it */
	assert_int_equal(lkpetc_direction("xfio.write_bw_MBps"), 0);	  /* ^...$: the whole name */
	/* a job's metric_direction: wins; nothing else says latency_ns; the program's table after lkp-tests' */
	struct compare_floors f = { 0 };
	struct node *job = node_new(NODE_MAP), *dir = node_new(NODE_MAP);
	node_set(dir, "command.latency_*", node_new_scalar("lower"));
	node_set(dir, "command.throughput", node_new_scalar("lower"));
	node_set(job, "metric_direction", dir);
	assert_int_equal(compare_direction("command.latency_ns"), 0);
	assert_int_equal(compare_direction("perf-stat.ipc"), +1); /* perf_stat's table */
	assert_int_equal(compare_floors_add_job(&f, job, &err), 0);
	assert_int_equal(compare_direction_of(&f, "command.latency_ns"), -1);
	assert_int_equal(compare_direction_of(&f, "command.throughput"), -1);
	assert_int_equal(compare_direction_of(&f, "fio.write_iops"), +1);
	assert_true(compare_floor_of(&f, "command.latency_ns") == 0.01); /* a direction is no floor */
	node_set(dir, "command.x", node_new_scalar("sideways"));
	assert_int_equal(compare_floors_add_job(&f, job, &err), -1);
	assert_non_null(strstr(err.buf, "metric_direction.command.x: 'sideways' is not higher or lower"));
	compare_floors_release(&f);
	node_free(job);
	/* Ruby's regex notation */
	assert_int_equal(lkpetc_regcomp(&re, "^a\\d{2}\\-b[\\d]$", REG_NOSUB, &err), 0);
	assert_int_equal(regexec(&re, "a12-b7", 0, NULL, 0), 0);
	assert_int_not_equal(regexec(&re, "a1-b7", 0, NULL, 0), 0);
	regfree(&re);
	assert_int_equal(lkpetc_regcomp(&re, "},at", REG_NOSUB, &err), 0);
	assert_int_equal(regexec(&re, "x},at", 0, NULL, 0), 0);
	regfree(&re);
	assert_int_equal(lkpetc_regcomp(&re, "WARNING:.* at .* ([a-zA-Z.0-9_]+\\+0x)", 0, &err), 0);
	regfree(&re);
	assert_int_equal(lkpetc_regcomp(&re, "a(b", 0, &err), -1);
	assert_non_null(strstr(err.buf, "'a(b'"));
	/* Ruby's leftmost-first alternation over a list: the earliest start, then the earlier pattern */
	const struct lkpetc_list *oops = lkpetc_oops();
	size_t so, eo;
	const char *line = "[   12.345678] WARNING: CPU: 1 PID: 42 at fs/xfs/xfs_file.c:10 xfs_file_write_iter+0x10/0x20";
	assert_true(lkpetc_list_first(oops, line, &so, &eo));
	assert_int_equal(so, 15);
	assert_int_equal(eo, strlen(line));
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_separation_and_counts),
		cmocka_unit_test(test_small_changes),
		cmocka_unit_test(test_failure_and_absolute),
		cmocka_unit_test(test_properties),
		cmocka_unit_test(test_directions),
		cmocka_unit_test(test_lkpetc),
	};
	lkpetc_set_dir(".");	/* the source tree's lkp-etc/ (make check runs from the top) */
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests: lib/program — the program table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../lib/run/program.h"

static void test_program_table_checks_out(void **state)
{
	char msg[256] = "";
	(void)state;
	assert_int_equal(program_check(msg, sizeof(msg)), 0);
	assert_true(program_table_size >= 40);
}

static void test_program_find_every_entry(void **state)
{
	(void)state;
	for (size_t i = 0; i < program_table_size; i++) {
		const struct program *p = program_table[i];
		if (p->kind == PROGRAM_WRAPPER)
			assert_null(program_find(p->name));
		else
			assert_ptr_equal(program_find(p->name), p);
	}
	assert_null(program_find("no-such-program"));
	assert_null(program_find(""));
}

static void test_program_issue_programs_and_kinds(void **state)
{
	static const struct {
		const char *name;
		enum program_kind kind;
	} want[] = {
		{ "fio-setup-basic", PROGRAM_SETUP }, { "fio", PROGRAM_TEST },
		{ "vm-scalability", PROGRAM_TEST }, { "disk", PROGRAM_SETUP },
		{ "fs", PROGRAM_SETUP }, { "boot_params", PROGRAM_SETUP },
		{ "cpufreq_governor", PROGRAM_SETUP }, { "vmstat", PROGRAM_MONITOR },
		{ "perf-stat", PROGRAM_MONITOR }, { "turbostat", PROGRAM_MONITOR },
		{ "time", PROGRAM_STATS }, { "interrupts", PROGRAM_MONITOR },
		{ "proc-vmstat", PROGRAM_MONITOR }, { "meminfo", PROGRAM_MONITOR },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct program *p = program_find(want[i].name);
		assert_non_null(p);
		assert_int_equal(p->kind, want[i].kind);
	}
}

static void test_program_options_match_lkp(void **state)
{
	const struct program *p = program_find("fio-setup-basic");
	bool eq = true;
	(void)state;
	assert_true(program_has_option(p, "rw", &eq));
	assert_false(eq);
	assert_true(program_has_option(p, "test_size", NULL));
	assert_true(program_has_option(p, "stonewall", NULL));
	assert_false(program_has_option(p, "fs", NULL));
	assert_true(program_has_option(program_find("disk"), "nr_pmem", NULL));
	assert_true(program_has_option(program_find("fs"), "mount_option", NULL));
	assert_true(program_has_option(program_find("boot_params"), "bp2_memmap", NULL));
	assert_true(program_has_option(program_find("vm-scalability"), "unit_size", NULL));
	assert_true(program_has_option(&program_wrapper, "nr_instances", NULL));
	assert_true(program_is_workload(program_find("cpufreq_governor")));
	assert_false(program_is_workload(program_find("vmstat")));
	assert_string_equal(program_kind_name(PROGRAM_MONITOR), "monitor");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program_table_checks_out),
		cmocka_unit_test(test_program_find_every_entry),
		cmocka_unit_test(test_program_issue_programs_and_kinds),
		cmocka_unit_test(test_program_options_match_lkp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

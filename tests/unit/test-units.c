/* Unit tests: lib/units — lkp-tests' notations, parsed strictly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../lib/util/units.h"

static uint64_t secs(const char *s)
{
	struct strbuf e = STRBUF_INIT;
	uint64_t v = 0;
	assert_int_equal(units_seconds(s, &v, &e), 0);
	strbuf_release(&e);
	return v;
}

static uint64_t bytes(const char *s)
{
	struct strbuf e = STRBUF_INIT;
	uint64_t v = 0;
	assert_int_equal(units_bytes(s, &v, &e), 0);
	strbuf_release(&e);
	return v;
}

static uint64_t tasks(const char *s, int cpus)
{
	struct strbuf e = STRBUF_INIT;
	uint64_t v = 0;
	assert_int_equal(units_tasks(s, cpus, &v, &e), 0);
	strbuf_release(&e);
	return v;
}

static void test_units_seconds(void **state)
{
	(void)state;
	assert_int_equal(secs("200s"), 200);
	assert_int_equal(secs("5m"), 300);
	assert_int_equal(secs("1h"), 3600);
	assert_int_equal(secs("2d"), 172800);
	assert_int_equal(secs("1w"), 604800);
	assert_int_equal(secs("300"), 300);
}

static void test_units_seconds_rejects(void **state)
{
	const char *bad[] = { "", "5x", "s", "1.5m", "-3s", "10ss", "1 m", "99999999999999999999" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf e = STRBUF_INIT;
		uint64_t v;
		assert_int_equal(units_seconds(bad[i], &v, &e), -1);
		assert_non_null(strstr(e.buf, "not a duration"));
		strbuf_release(&e);
	}
}

static void test_units_bytes(void **state)
{
	(void)state;
	assert_int_equal(bytes("200G"), 200ULL << 30);
	assert_int_equal(bytes("96g"), 96ULL << 30);
	assert_int_equal(bytes("4k"), 4096);
	assert_int_equal(bytes("2MB"), 2 << 20);
	assert_int_equal(bytes("1T"), 1ULL << 40);
	assert_int_equal(bytes("512"), 512);
	assert_int_equal(bytes("128B"), 128);
}

static void test_units_bytes_rejects(void **state)
{
	const char *bad[] = { "", "G", "200Q", "2.5G", "4KiB", "20000000P" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf e = STRBUF_INIT;
		uint64_t v;
		assert_int_equal(units_bytes(bad[i], &v, &e), -1);
		strbuf_release(&e);
	}
}

static void test_units_tasks_percent_of_cpus(void **state)
{
	(void)state;
	assert_int_equal(tasks("50%", 56), 28);
	assert_int_equal(tasks("50%", 8), 4);
	assert_int_equal(tasks("1600%", 8), 128);
	/* truncated like lkp-tests: 33.3% of 3 CPUs is 0.999 -> 0 */
	assert_int_equal(tasks("33.3%", 3), 0);
	assert_int_equal(tasks("100%", 2), 2);
	assert_int_equal(tasks("16", 2), 16);
	assert_int_equal(tasks("8t", 2), 8);
}

static void test_units_tasks_rejects(void **state)
{
	const char *bad[] = { "", "%", "50%%", "x", "5T", "1.5" };
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct strbuf e = STRBUF_INIT;
		uint64_t v;
		assert_int_equal(units_tasks(bad[i], 8, &v, &e), -1);
		strbuf_release(&e);
	}
}

static void test_units_disk(void **state)
{
	struct units_disk d;
	struct strbuf e = STRBUF_INIT;
	(void)state;
	assert_int_equal(units_disk("2pmem", &d, &e), 0);
	assert_int_equal(d.nr_pmem, 2);
	assert_int_equal(d.nr_hdd, 0);
	assert_int_equal(units_disk("1HDD", &d, &e), 0);
	assert_int_equal(d.nr_hdd, 1);
	assert_int_equal(units_disk("4SSD", &d, &e), 0);
	assert_int_equal(d.nr_ssd, 4);
	assert_int_equal(units_disk("1BRD", &d, &e), 0);
	assert_int_equal(d.nr_brd, 1);
	assert_int_equal(units_disk("4G", &d, &e), 0);
	assert_int_equal(d.ramdisk_size, 4ULL << 30);
	assert_int_equal(units_disk("2floppy", &d, &e), -1);
	assert_int_equal(units_disk("pmem", &d, &e), -1);
	strbuf_release(&e);
}

static void test_units_memmap(void **state)
{
	struct strbuf e = STRBUF_INIT;
	uint64_t size, start;
	(void)state;
	assert_int_equal(units_memmap("104G!8G", &size, &start, &e), 0);
	assert_int_equal(size, 104ULL << 30);
	assert_int_equal(start, 8ULL << 30);
	assert_int_equal(units_memmap("104G", &size, &start, &e), -1);
	assert_int_equal(units_memmap("104G!x", &size, &start, &e), -1);
	strbuf_release(&e);
}

static void test_units_check_by_key(void **state)
{
	struct strbuf e = STRBUF_INIT;
	(void)state;
	assert_int_equal(units_check("runtime", "200s", &e), 0);
	assert_int_equal(units_check("runtime", "5x", &e), -1);
	assert_int_equal(units_check("test_size", "200G", &e), 0);
	assert_int_equal(units_check("nr_task", "50%", &e), 0);
	assert_int_equal(units_check("bp2_memmap", "104G!132G", &e), 0);
	assert_int_equal(units_check("bp_memmap", "oops", &e), -1);
	assert_int_equal(units_check("rw", "whatever", &e), 0);
	assert_null(units_kind_of("bs"));
	strbuf_release(&e);
}

static void test_units_format_bytes(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	units_format_bytes(256ULL << 30, &sb);
	assert_string_equal(sb.buf, "256G");
	strbuf_reset(&sb);
	units_format_bytes(1000, &sb);
	assert_string_equal(sb.buf, "1000");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units_seconds),
		cmocka_unit_test(test_units_seconds_rejects),
		cmocka_unit_test(test_units_bytes),
		cmocka_unit_test(test_units_bytes_rejects),
		cmocka_unit_test(test_units_tasks_percent_of_cpus),
		cmocka_unit_test(test_units_tasks_rejects),
		cmocka_unit_test(test_units_disk),
		cmocka_unit_test(test_units_memmap),
		cmocka_unit_test(test_units_check_by_key),
		cmocka_unit_test(test_units_format_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: providers/provider — the command a run's reproduce.json records
 * (runs: t0400, t0600); the status file a child's run writes and the batch
 * reads back (runs: t1100, t1310).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../providers/provider.h"

/* r's argv joined by spaces */
static char *argv_of(const struct provider_reproduce *r)
{
	struct strbuf s = STRBUF_INIT;
	char **argv;
	size_t n;

	provider_reproduce_argv(r, &argv, &n);
	assert_null(argv[n]);
	for (size_t i = 0; i < n; i++)
		strbuf_addf(&s, "%s%s", i ? " " : "", argv[i]);
	provider_argv_free(argv, n);
	return strbuf_detach(&s);
}

static void test_reproduce_run(void **state)
{
	struct provider_reproduce r = { 0 };
	(void)state;

	char *a = argv_of(&r);
	assert_string_equal(a, "lkprobot run job.yaml");
	free(a);
}

/* only options that were set, in the table's order, but those skipped; then the extra flags */
static void test_reproduce_qemu_commit(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct provider_options *o = provider_options_new(provider_find("qemu"));
	static const char *const skip[] = { "runs_per_boot", "kernel", NULL };
	(void)state;

	assert_int_equal(provider_options_set(o, "cpus", "4", &err), 0);
	assert_int_equal(provider_options_set(o, "pmem_size", "2G", &err), 0);
	assert_int_equal(provider_options_set(o, "runs_per_boot", "3", &err), 0);
	assert_int_equal(provider_options_set(o, "kernel", "/boot/vmlinuz", &err), 0);
	struct provider_reproduce r = { .command = "qemu", .commit = "0123abcd", .kconfig = "x86_64-pmem", .opts = o,
					.skip = skip, .extra = { "--runs", "3", "--reuse-boot" } };
	char *a = argv_of(&r);
	assert_string_equal(a, "lkprobot qemu --tree linux --commit 0123abcd --kconfig x86_64-pmem --pmem-size 2G "
			       "--cpus 4 --runs 3 --reuse-boot job.yaml");
	free(a);
	/* no kconfig: the default, not said; nothing skipped: each set option under its table's flag */
	r.kconfig = NULL;
	r.skip = NULL;
	memset(r.extra, 0, sizeof(r.extra));
	a = argv_of(&r);
	assert_string_equal(a, "lkprobot qemu --tree linux --commit 0123abcd --kernel /boot/vmlinuz --pmem-size 2G "
			       "--cpus 4 --reuse-boot 3 job.yaml");
	free(a);
	/* a kernel built with KCFLAGS (the layout check's): the flags go with the build's other words */
	r.kconfig = "x86_64-pmem";
	r.kcflags = "-falign-functions=32";
	r.skip = skip;
	a = argv_of(&r);
	assert_string_equal(a,
			    "lkprobot qemu --tree linux --commit 0123abcd --kconfig x86_64-pmem --kcflags "
			    "-falign-functions=32 --pmem-size 2G --cpus 4 job.yaml");
	free(a);
	provider_options_free(o);
	strbuf_release(&err);
}

/* a command of two words, its own argument, a bool option as its flag alone */
static void test_reproduce_box_and_bools(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct provider_options *ssh = provider_options_new(provider_find("ssh"));
	struct provider_options *local = provider_options_new(provider_find("local"));
	static const char *const skip[] = { "box", "boxes", NULL };
	(void)state;

	assert_int_equal(provider_options_set(ssh, "box", "lkp-csl-2sp6", &err), 0);
	assert_int_equal(provider_options_set(ssh, "boxes", "/etc/lkprobot/boxes.yaml", &err), 0);
	struct provider_reproduce r = { .command = "box run", .arg = "lkp-csl-2sp6", .opts = ssh, .skip = skip };
	char *a = argv_of(&r);
	assert_string_equal(a, "lkprobot box run lkp-csl-2sp6 job.yaml");
	free(a);
	assert_int_equal(provider_options_set(local, "compatible_names", "true", &err), 0);
	assert_int_equal(provider_options_set(local, "loop_disks", "false", &err), 0);
	struct provider_reproduce l = { .command = "run", .opts = local };
	a = argv_of(&l);
	assert_string_equal(a, "lkprobot run --compatible-names job.yaml");
	free(a);
	provider_options_free(ssh);
	provider_options_free(local);
	strbuf_release(&err);
}

/* reproduce.json: valid JSON, every argument a string (quotes and spaces kept) */
static void test_reproduce_json(void **state)
{
	struct strbuf out = STRBUF_INIT;
	char *argv[] = { "lkprobot", "qemu", "--append", "a=\"b c\"", "job.yaml", NULL };
	(void)state;

	provider_reproduce_json(&out, argv, 5);
	assert_string_equal(out.buf, "{\"argv\": [\"lkprobot\", \"qemu\", \"--append\", \"a=\\\"b c\\\"\", \"job.yaml\"]}\n");
	strbuf_release(&out);
}

static void test_status_round_trip(void **state)
{
	(void)state;
	struct provider_run r = { .run_dir = "/r/a b/0", .job_state = "boot_failed", .untestable = true, .stop = false };
	struct strbuf js = STRBUF_INIT, err = STRBUF_INIT;

	provider_status_json(&js, &r, "box gb: \"quoted\"", "gb");
	assert_string_equal(js.buf, "{\"run_dir\": \"/r/a b/0\", \"job_state\": \"boot_failed\", \"untestable\": true, "
				    "\"reason\": \"box gb: \\\"quoted\\\"\", \"node\": \"gb\", \"stop\": false}\n");
	struct provider_run back = { 0 };
	assert_int_equal(provider_status_read(js.buf, js.len, "s", &back, &err), 0);
	assert_string_equal(back.run_dir, "/r/a b/0");
	assert_string_equal(back.job_state, "boot_failed");
	assert_true(back.untestable);
	assert_false(back.stop);
	assert_string_equal(back.reason, "box gb: \"quoted\"");
	assert_string_equal(back.node, "gb");
	provider_run_release(&back);

	/* stop: the box could not be used; an unknown state reads as failed; an older file has no stop */
	strbuf_reset(&js);
	struct provider_run s = { .job_state = "failed", .stop = true };
	provider_status_json(&js, &s, "cannot reach it", NULL);
	assert_int_equal(provider_status_read(js.buf, js.len, "s", &back, &err), 0);
	assert_true(back.stop);
	assert_null(back.run_dir);
	assert_null(back.node);
	provider_run_release(&back);
	const char *old = "{\"run_dir\": null, \"job_state\": \"exploded\", \"untestable\": false, \"reason\": null, \"node\": \"n1\"}";
	assert_int_equal(provider_status_read(old, strlen(old), "s", &back, &err), 0);
	assert_false(back.stop);
	assert_string_equal(back.job_state, "failed");
	provider_run_release(&back);
	assert_int_equal(provider_status_read("{", 1, "s", &back, &err), -1);
	assert_true(err.len > 0);
	strbuf_release(&js);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reproduce_run),
		cmocka_unit_test(test_reproduce_qemu_commit),
		cmocka_unit_test(test_reproduce_box_and_bools),
		cmocka_unit_test(test_reproduce_json),
		cmocka_unit_test(test_status_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

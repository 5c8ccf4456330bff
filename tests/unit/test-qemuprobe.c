/*
 * Unit tests: the KVM probe's records (providers/qemu_probe_record.c) —
 * the key of a kernel, a record's round trip, what a record of another
 * kernel, host or QEMU says, and the console lines the probe reads (the
 * probe's boots themselves: t0610-kvm-hang.sh).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../providers/qemu.h"

static char dir[] = "/tmp/lkp-qemuprobe-test.XXXXXX";

static void key_set(struct qemu_probe_key *k, const char *host, const char *qemu, const char *kernel)
{
	k->host = xstrdup(host);
	k->qemu = xstrdup(qemu);
	k->kernel = xstrdup(kernel);
}

static char *records(void)
{
	return xasprintf("%s/kvm-probe", dir);
}

static void test_key_of_this_host(void **state)
{
	struct qemu_probe_key k;
	struct strbuf err = STRBUF_INIT;
	char *img = xasprintf("%s/vmlinux", dir);
	FILE *f = fopen(img, "w");
	(void)state;

	assert_non_null(f);
	fputs("not a kernel, but a file with a size\n", f);
	fclose(f);
	if (qemu_probe_key_get(&k, img, &err)) {
		/* no QEMU here: said so, with the package */
		assert_non_null(strstr(err.buf, "qemu-system-x86"));
	} else {
		/* the image's real path, size and mtime; the host's release; QEMU's version */
		char *want = xasprintf("%s %d ", img, 37);
		assert_int_equal(strncmp(k.kernel, want, strlen(want)), 0);
		assert_non_null(strstr(k.qemu, "QEMU emulator version"));
		assert_non_null(strchr(k.host, ';'));
		free(want);
		qemu_probe_key_release(&k);
	}
	strbuf_reset(&err);
	char *none = xasprintf("%s/no-such-vmlinux", dir);
	assert_int_equal(qemu_probe_key_get(&k, none, &err), -1);
	assert_non_null(strstr(err.buf, "no-such-vmlinux: No such file or directory"));
	free(none);
	free(img);
	strbuf_release(&err);
}

static void test_record_round_trip(void **state)
{
	struct qemu_probe_key a = { 0 }, b = { 0 };
	struct qemu_probe_record r;
	struct strbuf err = STRBUF_INIT;
	char *d = records();
	(void)state;

	key_set(&a, "6.1.0 x86_64; AMD EPYC", "/usr/bin/qemu-system-x86_64 1 2.0; QEMU 7.2", "/k/vmlinux 10 3.0");
	key_set(&b, "6.1.0 x86_64; AMD EPYC", "/usr/bin/qemu-system-x86_64 1 2.0; QEMU 7.2", "/k/vmlinux 10 4.0");
	assert_int_equal(qemu_probe_record_find(d, &a, &r), 0);
	/* a failure: its reason on one line, read back */
	assert_int_equal(qemu_probe_record_save(d, &a, false, "hung\nafter EDD", &err), 0);
	assert_int_equal(qemu_probe_record_find(d, &a, &r), 1);
	assert_false(r.boots);
	assert_string_equal(r.why, "hung after EDD");
	assert_string_equal(r.kernel, "/k/vmlinux");
	assert_int_equal(strlen(r.when), 20);
	char *path = qemu_probe_record_path(d, &a);
	assert_string_equal(r.path, path);
	qemu_probe_record_release(&r);
	/* the same file rebuilt (another mtime): no record, but the host's failure stands for it */
	assert_int_equal(qemu_probe_record_find(d, &b, &r), 0);
	assert_int_equal(qemu_probe_record_host(d, &b, &r), 1);
	assert_string_equal(r.why, "hung after EDD");
	assert_string_equal(r.path, path);
	qemu_probe_record_release(&r);
	/* once a kernel booted on this host and QEMU, another's failure is that kernel's own */
	assert_int_equal(qemu_probe_record_save(d, &b, true, NULL, &err), 0);
	assert_int_equal(qemu_probe_record_find(d, &b, &r), 1);
	assert_true(r.boots);
	qemu_probe_record_release(&r);
	assert_int_equal(qemu_probe_record_host(d, &a, &r), 0);
	/* a later answer replaces the earlier one */
	assert_int_equal(qemu_probe_record_save(d, &a, true, NULL, &err), 0);
	assert_int_equal(qemu_probe_record_find(d, &a, &r), 1);
	assert_true(r.boots);
	qemu_probe_record_release(&r);
	free(path);
	free(d);
	qemu_probe_key_release(&a);
	qemu_probe_key_release(&b);
	strbuf_release(&err);
}

static void test_record_other_host_or_qemu(void **state)
{
	struct qemu_probe_key a = { 0 }, newqemu = { 0 }, newhost = { 0 };
	struct qemu_probe_record r;
	struct strbuf err = STRBUF_INIT;
	char *d = xasprintf("%s/other", dir);
	(void)state;

	key_set(&a, "6.1.0 x86_64; AMD EPYC", "/usr/bin/qemu-system-x86_64 1 2.0; QEMU 7.2", "/k/vmlinux 10 3.0");
	key_set(&newqemu, "6.1.0 x86_64; AMD EPYC", "/usr/bin/qemu-system-x86_64 5 6.0; QEMU 8.0", "/k/vmlinux 10 3.0");
	key_set(&newhost, "6.6.0 x86_64; AMD EPYC", "/usr/bin/qemu-system-x86_64 1 2.0; QEMU 7.2", "/k/vmlinux 10 3.0");
	assert_int_equal(qemu_probe_record_save(d, &a, false, "oops", &err), 0);
	/* an updated QEMU or host kernel is probed again: nothing recorded for it */
	assert_int_equal(qemu_probe_record_find(d, &newqemu, &r), 0);
	assert_int_equal(qemu_probe_record_host(d, &newqemu, &r), 0);
	assert_int_equal(qemu_probe_record_find(d, &newhost, &r), 0);
	assert_int_equal(qemu_probe_record_host(d, &newhost, &r), 0);
	/* a record file whose key is another's (as a hash collision would make it): not its answer */
	char *pa = qemu_probe_record_path(d, &a), *pn = qemu_probe_record_path(d, &newqemu);
	assert_int_equal(rename(pa, pn), 0);
	assert_int_equal(qemu_probe_record_find(d, &newqemu, &r), 0);
	/* nor is a file that is no record */
	FILE *f = fopen(pa, "w");
	assert_non_null(f);
	fputs("host: 6.1.0 x86_64; AMD EPYC\nboots: perhaps\n", f);
	fclose(f);
	assert_int_equal(qemu_probe_record_find(d, &a, &r), 0);
	/* a directory that cannot be made: an error, said */
	char *bad = xasprintf("%s/a-file", pa);
	assert_int_equal(qemu_probe_record_save(bad, &a, true, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "cannot create"));
	free(bad);
	free(pa);
	free(pn);
	free(d);
	qemu_probe_key_release(&a);
	qemu_probe_key_release(&newqemu);
	qemu_probe_key_release(&newhost);
	strbuf_release(&err);
}

static void test_console_lines(void **state)
{
	(void)state;
	assert_true(qemu_console_kernel_line("[    0.000000] Linux version 6.1.0-57-amd64"));
	assert_true(qemu_console_kernel_line("[12345.678901] x"));
	assert_true(qemu_console_kernel_line("@@LKPROBOT initramfs (0.52 s since boot)"));
	assert_false(qemu_console_kernel_line("Probing EDD (edd=off to disable)... ok"));
	assert_false(qemu_console_kernel_line("SeaBIOS (version 1.16.2-debian-1.16.2-1)"));
	assert_false(qemu_console_kernel_line("[ ] not a time"));
	assert_false(qemu_console_kernel_line(""));
	assert_string_equal(qemu_console_oops("[    0.91] BUG: kernel NULL pointer dereference, address: 8"),
			    "BUG: kernel NULL pointer dereference, address: 8");
	assert_string_equal(qemu_console_oops("[    0.91] Oops: 0000 [#1] PREEMPT SMP NOPTI"),
			    "Oops: 0000 [#1] PREEMPT SMP NOPTI");
	assert_non_null(qemu_console_oops("[    1.0] Kernel panic - not syncing: VFS: Unable to mount root fs"));
	assert_non_null(qemu_console_oops("[    1.0] general protection fault, probably for non-canonical address"));
	assert_null(qemu_console_oops("[    1.0] WARNING: CPU: 0 PID: 1 at mm/x.c:1 f+0x1/0x2"));
	assert_null(qemu_console_oops("[    0.0] [Firmware Bug]: TSC doesn't count with P0 frequency!"));
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char *rm = xasprintf("rm -rf '%s'", dir);
	int rc = system(rm);
	free(rm);
	return rc;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_of_this_host),
		cmocka_unit_test(test_record_round_trip),
		cmocka_unit_test(test_record_other_host_or_qemu),
		cmocka_unit_test(test_console_lines),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* Unit tests: providers/box — the boxes file and a bzImage's release (no ssh here: t1300-box.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../providers/box.h"

static char dir[] = "/tmp/lkp-box-test.XXXXXX";

static char *write_file(const char *name, const char *text, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
	return p;
}

static int load(const char *text, const char *name, struct box *b, struct strbuf *err)
{
	char *p = write_file("boxes.yaml", text, strlen(text));
	int rc = box_load(p, name, b, err);
	free(p);
	return rc;
}

static void test_box_defaults(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct box b;
	(void)state;

	assert_int_equal(load("boxes:\n  lkp-csl-2sp6:\n    host: 10.0.0.5\n", "lkp-csl-2sp6", &b, &err), 0);
	assert_string_equal(b.host, "10.0.0.5");
	assert_string_equal(b.user, "root");
	assert_int_equal(b.port, 22);
	assert_string_equal(b.tbox_group, "lkp-csl-2sp6");
	assert_string_equal(b.workdir, "/lkp/lkprobot");
	assert_string_equal(b.fs_root, "/fs");
	assert_false(b.reboot);
	assert_null(b.power_cycle_cmd);
	assert_int_equal(b.boot_timeout, 300);
	assert_int_equal(b.max_failures, 3);
	box_release(&b);
	strbuf_release(&err);
}

static void test_box_full(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct box b;
	(void)state;

	assert_int_equal(load("boxes:\n  b1:\n    host: h1\n    port: 2222\n    user: lkp\n    boot: reboot\n"
			      "    reboot_cmd: [/usr/local/sbin/boot-kernel, --once]\n"
			      "    power_cycle_cmd: [ipmitool, -H, bmc1, chassis, power, cycle]\n"
			      "    boot_timeout: 600\n    max_failures: 1\n    cmdline: \"root=/dev/sda1 console=ttyS0\"\n",
			      "b1", &b, &err), 0);
	assert_int_equal(b.port, 2222);
	assert_true(b.reboot);
	assert_string_equal(b.reboot_cmd[1], "--once");
	assert_null(b.reboot_cmd[2]);
	assert_string_equal(b.power_cycle_cmd[5], "cycle");
	assert_int_equal(b.boot_timeout, 600);
	assert_int_equal(b.max_failures, 1);
	assert_string_equal(b.cmdline, "root=/dev/sda1 console=ttyS0");
	box_release(&b);
	strbuf_release(&err);
}

static void bad(const char *text, const char *name, const char *want)
{
	struct strbuf err = STRBUF_INIT;
	struct box b;

	assert_int_equal(load(text, name, &b, &err), -1);
	if (!strstr(err.buf, want))
		fail_msg("'%s' does not say '%s'", err.buf, want);
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
}

static void test_box_errors(void **state)
{
	(void)state;
	bad("boxes:\n  b1:\n    host: h\n    hots: x\n", "b1", "boxes.yaml:4:11: boxes.b1.hots: not a setting");
	bad("boxes:\n  b1:\n    user: u\n", "b1", "boxes.b1.host: every box needs the host");
	bad("boxes:\n  b1:\n    host: -oProxyCommand=x\n", "b1", "boxes.b1.host");
	bad("boxes:\n  b1:\n    host: h\n    port: 70000\n", "b1", "boxes.yaml:4:11: boxes.b1.port: must be a whole number from 1 to 65535");
	bad("boxes:\n  b1:\n    host: h\n    workdir: /a;rm\n", "b1", "boxes.b1.workdir: must be an absolute path");
	bad("boxes:\n  b1:\n    host: h\n    workdir: /a/../b\n", "b1", "boxes.b1.workdir");
	bad("boxes:\n  b1:\n    host: h\n    tbox_group: a/b\n", "b1", "boxes.b1.tbox_group");
	bad("boxes:\n  b1:\n    host: h\n    boot: pxe\n", "b1", "boxes.b1.boot: must be kexec or reboot");
	bad("boxes:\n  b1:\n    host: h\n    boot: reboot\n", "b1", "boot: reboot needs reboot_cmd");
	bad("boxes:\n  b1:\n    host: h\n    power_cycle_cmd: ipmitool -H x\n", "b1", "must be a command as a list");
	bad("boxes:\n  b1:\n    host: h\n    key: /nonexistent/key\n", "b1", "boxes.b1.key: cannot read '/nonexistent/key'");
	bad("boxes:\n  b1:\n    host: h\n", "b2", "no box 'b2'");
	bad("trees: []\n", "b1", "no boxes: map");
}

/* The x86 boot protocol's header: "HdrS" at 0x202, the version string's offset - 0x200 at 0x20e. */
static void test_box_kernel_release(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char img[0x800] = { 0 };
	(void)state;

	memcpy(img + 0x202, "HdrS", 4);
	img[0x20e] = 0x00;
	img[0x20f] = 0x04;	/* 0x400 + 0x200 */
	snprintf(img + 0x600, sizeof(img) - 0x600, "%s",
		 "6.1.0-57-amd64 (debian-kernel@lists.debian.org) #1 SMP PREEMPT_DYNAMIC");
	char *p = write_file("bzImage", img, sizeof(img));
	assert_int_equal(box_kernel_release(p, &out, &err), 0);
	assert_string_equal(out.buf, "6.1.0-57-amd64");
	free(p);
	char elf[0x300] = "\177ELF";
	p = write_file("vmlinux", elf, sizeof(elf));
	assert_int_equal(box_kernel_release(p, &out, &err), -1);
	assert_non_null(strstr(err.buf, "is not an x86 bzImage"));
	free(p);
	strbuf_release(&out);
	strbuf_release(&err);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd[] = { "boxes.yaml", "bzImage", "vmlinux" };
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char *p = xasprintf("%s/%s", dir, cmd[i]);
		unlink(p);
		free(p);
	}
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_box_defaults),
		cmocka_unit_test(test_box_full),
		cmocka_unit_test(test_box_errors),
		cmocka_unit_test(test_box_kernel_release),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

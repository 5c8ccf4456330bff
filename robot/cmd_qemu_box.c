/*
 * lkprobot qemu-box: a QEMU guest that stands in for a real pmem test box,
 * so that the ssh provider (`lkprobot box`, bisect --provider ssh) can be
 * tried and tested without one. The box has NVDIMMs, a persistent disk (a
 * host directory shared over 9p, its /mnt), an ssh server (dropbear) behind
 * a port forward, kexec-tools from the host's root, and QEMU's monitor on a
 * unix socket, through which `system_reset` power-cycles it.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/sys/fsutil.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/run/run.h"
#include "../lib/util/units.h"
#include "../providers/qemu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot qemu-box --dir DIR --ssh-port PORT --authorized-keys FILE [options]\n"
	"\n"
	"Boot a QEMU guest that behaves like a test box for the ssh provider: it\n"
	"runs until it is powered off or killed, survives kexec, and a reset\n"
	"(the monitor's system_reset) boots its own kernel again. DIR holds its\n"
	"state: disk/ (the box's /mnt, persistent; disk/initramfs.cpio is the box's\n"
	"/mnt/initramfs.cpio, the initrd of the kernels it is kexec'd into),\n"
	"host_key (dropbear, made with dropbearkey when missing), console (the\n"
	"serial console) and monitor (QEMU's monitor).\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 the box powered off, 1 it could not start or QEMU failed, 2 usage\n";

/* --memory, --pmem-size: a size (2G) into a uint64_t */
static int take_size(const struct opt *o, const char *value, struct strbuf *err)
{
	return units_bytes(value, o->dst, err);
}

int cmd_qemu_box(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct qemu_box_opts o = { .name = "qemu-box", .npmem = 2 };
	const char *dir = NULL, *keys = NULL, *image = NULL, *modules = NULL, *cache = NULL, *accel = NULL;
	const struct opt table[] = {
		OPT_STRING(0, "dir", "DIR", "the box's state directory (created)", &dir),
		OPT_INT(0, "ssh-port", "PORT", "127.0.0.1:PORT reaches the box's ssh", &o.ssh_port, 1, 65535, "a TCP port"),
		OPT_STRING(0, "authorized-keys", "F", "root's authorized_keys on the box", &keys),
		OPT_STRING(0, "name", "NAME", "its host name (default qemu-box)", &o.name),
		OPT_STRING('k', "kernel", "IMAGE", "the box's own kernel (default: Debian's, fetched once)", &image),
		OPT_STRING(0, "modules", "DIR", "that kernel's /lib/modules/<release>", &modules),
		OPT_INT(0, "pmem", "N", "NVDIMMs (default 2)", &o.npmem, 0, 64, "a number from 0 to 64"),
		OPT_CALL(0, "pmem-size", "SIZE", "each NVDIMM (default 1G)", take_size, &o.pmem_size),
		OPT_CALL(0, "memory", "SIZE", "RAM (default 2G)", take_size, &o.memory),
		OPT_INT(0, "cpus", "N", "CPUs (default 2)", &o.cpus, 1, 64, "a number from 1 to 64"),
		OPT_STRING(0, "append", "PARAMS", "more kernel parameters", &o.append),
		OPT_STRING(0, "cache", "DIR", "NVDIMM files and Debian's kernel (default as qemu's)", &cache),
		OPT_STRING(0, "accel", "A", "kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto)", &accel),
		OPT_END(),
	};
	char exe[PATH_MAX], keys_real[PATH_MAX];
	struct strbuf err = STRBUF_INIT, cd = STRBUF_INIT;
	struct qemu_kernel k = { 0 };
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	ret = EXIT_FAIL;
	if (!dir || !o.ssh_port || !keys || optind != argc)
		return cmd_error(EXIT_USAGE, "qemu-box needs --dir, --ssh-port and --authorized-keys; see 'lkprobot qemu-box --help'");
	if (qemu_accel_option(accel, &err)) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !realpath(keys, keys_real))
		return cmd_error(EXIT_USAGE, "--authorized-keys: cannot read '%s'", keys);
	exe[n] = '\0';
	if (cache)
		strbuf_addstr(&cd, cache);
	else
		kbuild_cache_dir(&cd);
	char *disk = xasprintf("%s/disk", dir);
	if (fsutil_mkdir_p(disk) || fsutil_mkdir_p(cd.buf)) {
		ret = cmd_error(EXIT_FAIL, "cannot create '%s' and '%s': %s", disk, cd.buf, strerror(errno));
		goto out;
	}
	char real[PATH_MAX];
	if (!realpath(dir, real)) {
		ret = cmd_error(EXIT_FAIL, "%s: %s", dir, strerror(errno));
		goto out;
	}
	/* on the box's own disk: its /mnt/initramfs.cpio, for the kernels kexec'd into */
	char *host_key = xasprintf("%s/host_key", real), *initrd = xasprintf("%s/disk/initramfs.cpio", real);
	char *console = xasprintf("%s/console", real), *monitor = xasprintf("%s/monitor", real);
	char *disk_real = xasprintf("%s/disk", real);
	if (access(host_key, R_OK)) {
		char *kargv[] = { "dropbearkey", "-t", "ed25519", "-f", host_key, NULL };
		if (run_exec(kargv, -1, -1, &err)) {
			ret = cmd_error(EXIT_FAIL, "cannot make the box's host key with dropbearkey (Debian package dropbear-bin): %s",
					err.buf);
			goto out2;
		}
	}
	unlink(monitor);
	o.lkprobot = exe;
	o.cache = cd.buf;
	o.initrd = initrd;
	o.disk = disk_real;
	o.authorized_keys = keys_real;
	o.host_key = host_key;
	o.console = console;
	o.monitor = monitor;
	if ((image ? qemu_kernel_file(&k, image, modules, &err) : qemu_kernel_debian(&k, cd.buf, &err)) ||
	    qemu_box_run(&k, &o, &err))
		ret = cmd_error(EXIT_FAIL, "box %s: %s", o.name, err.buf);
	else
		ret = EXIT_OK;
	qemu_kernel_release(&k);
out2:
	free(host_key);
	free(initrd);
	free(console);
	free(monitor);
	free(disk_real);
out:
	free(disk);
	strbuf_release(&err);
	strbuf_release(&cd);
	return ret;
}

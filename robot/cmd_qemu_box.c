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

/* The box's state directory: its files, by their real paths. */
struct box_state {
	char *disk, *host_key, *initrd, *console, *monitor;
};

/*
 * Make the state directory dir (its disk/, the host key when missing) and
 * the cache. EXIT_OK, or the exit code with the error said.
 */
static int box_state_make(const char *dir, const char *cache, struct box_state *st)
{
	struct strbuf err = STRBUF_INIT;
	char real[PATH_MAX];
	int ret = EXIT_FAIL;

	char *disk = xasprintf("%s/disk", dir);
	if (fsutil_mkdir_p(disk) || fsutil_mkdir_p(cache)) {
		ret = say_error(EXIT_FAIL, "cannot create '%s' and '%s': %s", disk, cache, strerror(errno));
		goto out;
	}
	if (!realpath(dir, real)) {
		ret = say_error(EXIT_FAIL, "%s: %s", dir, strerror(errno));
		goto out;
	}
	/* on the box's own disk: its /mnt/initramfs.cpio, for the kernels kexec'd into */
	st->host_key = xasprintf("%s/host_key", real);
	st->initrd = xasprintf("%s/disk/initramfs.cpio", real);
	st->console = xasprintf("%s/console", real);
	st->monitor = xasprintf("%s/monitor", real);
	st->disk = xasprintf("%s/disk", real);
	if (access(st->host_key, R_OK)) {
		char *kargv[] = { "dropbearkey", "-t", "ed25519", "-f", st->host_key, NULL };
		if (run_exec(kargv, -1, -1, &err)) {
			ret = say_error(
				EXIT_FAIL,
				"cannot make the box's host key with dropbearkey (Debian package dropbear-bin): %s",
				err.buf);
			goto out;
		}
	}
	unlink(st->monitor);
	ret = EXIT_OK;
out:
	free(disk);
	strbuf_release(&err);
	return ret;
}

static void box_state_opts(const struct box_state *st, struct qemu_box_opts *o)
{
	o->initrd = st->initrd;
	o->disk = st->disk;
	o->host_key = st->host_key;
	o->console = st->console;
	o->monitor = st->monitor;
}

static void box_state_release(struct box_state *st)
{
	free(st->disk);
	free(st->host_key);
	free(st->initrd);
	free(st->console);
	free(st->monitor);
}

/* Its kernel (-k's, else Debian's), booted until the box powers off: the exit code. */
static int box_start(const struct qemu_box_opts *o, const char *image, const char *modules)
{
	struct strbuf err = STRBUF_INIT;
	struct qemu_kernel k = { 0 };
	int ret = EXIT_OK;

	if ((image ? qemu_kernel_file(&k, image, modules, &err) : qemu_kernel_debian(&k, o->cache, &err)) ||
	    qemu_box_run(&k, o, &err))
		ret = say_error(EXIT_FAIL, "box %s: %s", o->name, err.buf);
	qemu_kernel_release(&k);
	strbuf_release(&err);
	return ret;
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
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	ret = EXIT_FAIL;
	if (!dir || !o.ssh_port || !keys || optind != argc)
		return say_error(
			EXIT_USAGE,
			"qemu-box needs --dir, --ssh-port and --authorized-keys; see 'lkprobot qemu-box --help'");
	if (qemu_accel_option(accel, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !realpath(keys, keys_real))
		return say_error(EXIT_USAGE, "--authorized-keys: cannot read '%s'", keys);
	exe[n] = '\0';
	if (cache)
		strbuf_addstr(&cd, cache);
	else
		kbuild_cache_dir(&cd);
	struct box_state st = { 0 };
	if ((ret = box_state_make(dir, cd.buf, &st)) == EXIT_OK) {
		o.lkprobot = exe;
		o.cache = cd.buf;
		o.authorized_keys = keys_real;
		box_state_opts(&st, &o);
		ret = box_start(&o, image, modules);
	}
	box_state_release(&st);
	strbuf_release(&err);
	strbuf_release(&cd);
	return ret;
}

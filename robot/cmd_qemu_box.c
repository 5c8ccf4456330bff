/*
 * lkprobot qemu-box: a QEMU guest that stands in for a real pmem test box,
 * so that the ssh provider (`lkprobot box`, bisect --provider ssh) can be
 * tried and tested without one. The box has NVDIMMs, a persistent disk (a
 * host directory shared over 9p, its /mnt), an ssh server (dropbear) behind
 * a port forward, kexec-tools from the host's root, and QEMU's monitor on a
 * unix socket, through which `system_reset` power-cycles it.
 */
#include "cmd.h"
#include "../lib/sys/fsutil.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/run/run.h"
#include "../lib/util/units.h"
#include "../providers/qemu.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot qemu-box --dir DIR --ssh-port PORT --authorized-keys FILE [options]\n"
	"\n"
	"Boot a QEMU guest that behaves like a test box for the ssh provider: it\n"
	"runs until it is powered off or killed, survives kexec, and a reset\n"
	"(the monitor's system_reset) boots its own kernel again. DIR holds its\n"
	"state: disk/ (the box's /mnt, persistent; disk/initramfs.cpio is the box's\n"
	"/mnt/initramfs.cpio, the initrd of the kernels it is kexec'd into),\n"
	"host_key (dropbear, made with dropbearkey when missing), console (the\n"
	"serial console) and monitor (QEMU's monitor).\n"
	"\n"
	"      --dir DIR            the box's state directory (created)\n"
	"      --ssh-port PORT      127.0.0.1:PORT reaches the box's ssh\n"
	"      --authorized-keys F  root's authorized_keys on the box\n"
	"      --name NAME          its host name (default qemu-box)\n"
	"  -k, --kernel IMAGE       the box's own kernel (default: Debian's, fetched once)\n"
	"      --modules DIR        that kernel's /lib/modules/<release>\n"
	"      --pmem N             NVDIMMs (default 2), --pmem-size SIZE each (default 1G)\n"
	"      --memory SIZE        RAM (default 2G), --cpus N (default 2)\n"
	"      --append PARAMS      more kernel parameters\n"
	"      --cache DIR          NVDIMM files and Debian's kernel (default as qemu's)\n"
	"      --accel A            kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto)\n"
	"  -h, --help               this help\n"
	"\n"
	"exit codes: 0 the box powered off, 1 it could not start or QEMU failed, 2 usage\n";

enum { OPT_DIR = 0x200, OPT_PORT, OPT_KEYS, OPT_NAME, OPT_MODULES, OPT_PMEM, OPT_PMEM_SIZE, OPT_MEMORY, OPT_CPUS,
       OPT_APPEND, OPT_CACHE, OPT_ACCEL };

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
		ret = cmd_error(EXIT_FAIL, "cannot create '%s' and '%s': %s", disk, cache, strerror(errno));
		goto out;
	}
	if (!realpath(dir, real)) {
		ret = cmd_error(EXIT_FAIL, "%s: %s", dir, strerror(errno));
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
			ret = cmd_error(EXIT_FAIL, "cannot make the box's host key with dropbearkey (Debian package dropbear-bin): %s",
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
		ret = cmd_error(EXIT_FAIL, "box %s: %s", o->name, err.buf);
	qemu_kernel_release(&k);
	strbuf_release(&err);
	return ret;
}

int cmd_qemu_box(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, OPT_DIR },
		{ "ssh-port", required_argument, NULL, OPT_PORT },
		{ "authorized-keys", required_argument, NULL, OPT_KEYS },
		{ "name", required_argument, NULL, OPT_NAME },
		{ "kernel", required_argument, NULL, 'k' },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "pmem", required_argument, NULL, OPT_PMEM },
		{ "pmem-size", required_argument, NULL, OPT_PMEM_SIZE },
		{ "memory", required_argument, NULL, OPT_MEMORY },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "append", required_argument, NULL, OPT_APPEND },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "accel", required_argument, NULL, OPT_ACCEL },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct qemu_box_opts o = { .name = "qemu-box", .npmem = 2 };
	const char *dir = NULL, *keys = NULL, *image = NULL, *modules = NULL, *cache = NULL, *accel = NULL;
	char exe[PATH_MAX], keys_real[PATH_MAX];
	struct strbuf err = STRBUF_INIT, cd = STRBUF_INIT;
	int c, ret = EXIT_FAIL;
	char *end;
	(void)ctx;

	optind = 1;
	while ((c = getopt_long(argc, argv, "k:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DIR: dir = optarg; break;
		case OPT_PORT:
			o.ssh_port = (int)strtol(optarg, &end, 10);
			if (*end || o.ssh_port < 1 || o.ssh_port > 65535)
				return cmd_error(EXIT_USAGE, "--ssh-port: '%s' is not a TCP port", optarg);
			break;
		case OPT_KEYS: keys = optarg; break;
		case OPT_NAME: o.name = optarg; break;
		case 'k': image = optarg; break;
		case OPT_MODULES: modules = optarg; break;
		case OPT_PMEM:
		case OPT_CPUS: {
			long v = strtol(optarg, &end, 10);
			if (*end || v < (c == OPT_PMEM ? 0 : 1) || v > 64)
				return cmd_error(EXIT_USAGE, "--%s: '%s' is not a number from %d to 64",
						 c == OPT_PMEM ? "pmem" : "cpus", optarg, c == OPT_PMEM ? 0 : 1);
			*(c == OPT_PMEM ? &o.npmem : &o.cpus) = (int)v;
			break;
		}
		case OPT_PMEM_SIZE:
		case OPT_MEMORY:
			if (units_bytes(optarg, c == OPT_MEMORY ? &o.memory : &o.pmem_size, &err))
				return cmd_error(EXIT_USAGE, "--%s: %s", c == OPT_MEMORY ? "memory" : "pmem-size", err.buf);
			break;
		case OPT_APPEND: o.append = optarg; break;
		case OPT_CACHE: cache = optarg; break;
		case OPT_ACCEL: accel = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
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

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
	struct qemu_kernel k = { 0 };
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

/*
 * lkprobot guest: the agent inside a guest booted by `lkprobot qemu`. It
 * runs as the guest's init, on the host's root shared read-only over 9p:
 * it makes the writable places a run needs (tmpfs, overlays), mounts the
 * host's result directory, turns raw NVDIMM namespaces into fsdax ones,
 * runs the job with the same engine as `lkprobot run`, says on the console
 * where the result root is, and powers the guest off.
 *
 * lkprobot box-init: the init of a QEMU guest standing in for a real test
 * box (`lkprobot qemu-box`). The same writable places, plus what a box has:
 * a persistent disk (the 9p share "disk" on /mnt), a network card, and an
 * ssh server (dropbear) that the ssh provider reaches through QEMU's port
 * forward. It stays up until the box is power-cycled, reset, or kexec'd
 * into the kernel under test, whose init is this again.
 */
#include "cmd.h"
#include "../lib/job/engine.h"
#include "../lib/job/job.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/sys/machine.h"
#include "../lib/run/run.h"
#include "../lib/util/yml.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void power_off(void)
{
	fflush(NULL);
	sync();
	reboot(RB_POWER_OFF);
	_exit(0);
}

static void fatal(const char *fmt, const char *arg)
{
	printf("@@LKPROBOT ERROR ");
	printf(fmt, arg);
	printf("\n");
	power_off();
}

static char *cmdline_param(const char *cmdline, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = cmdline; (p = strstr(p, key)); p += n)
		if ((p == cmdline || p[-1] == ' ') && p[n] == '=')
			return xstrndup(p + n + 1, strcspn(p + n + 1, " \n"));
	return NULL;
}

static void must_mount(const char *src, const char *dst, const char *type, const char *opts)
{
	fsutil_mkdir_p(dst);
	if (mount(src, dst, type, 0, opts)) {
		char *m = xasprintf("mount %s on %s: %s", type, dst, strerror(errno));
		fatal("%s", m);
	}
}

/* Host paths stay as they are; these become writable in the guest. */
static void writable_places(void)
{
	static const char *const tmpfs[] = { "/run", "/var/tmp", "/var/log", "/root", "/mnt", "/var/lib/ndctl", NULL };
	static const char *const overlay[] = { "/etc", "/tmp", NULL };

	for (const char *const *d = tmpfs; *d; d++)
		if (!access(*d, F_OK))
			must_mount("tmpfs", *d, "tmpfs", "mode=0755");
	for (const char *const *d = overlay; *d; d++) {
		char *up = xasprintf("/run/ov%s/upper", *d), *wk = xasprintf("/run/ov%s/work", *d);
		char *opts = xasprintf("lowerdir=%s,upperdir=%s,workdir=%s", *d, up, wk);
		fsutil_mkdir_p(up);
		fsutil_mkdir_p(wk);
		must_mount("overlay", *d, "overlay", opts);
		free(up);
		free(wk);
		free(opts);
	}
}

/* QEMU's label-less NVDIMMs are raw namespaces: DAX needs fsdax. */
static void fsdax_namespaces(void)
{
	DIR *d = opendir("/sys/bus/nd/devices");
	struct dirent *de;
	struct strbuf mode = STRBUF_INIT, err = STRBUF_INIT;

	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "namespace", 9))
			continue;
		char *p = xasprintf("/sys/bus/nd/devices/%s/mode", de->d_name);
		strbuf_reset(&mode);
		if (!strbuf_read_file(&mode, p) && !strncmp(mode.buf, "raw", 3)) {
			char *argv[] = { "ndctl", "create-namespace", "-f", "-e", de->d_name, "-m", "fsdax", NULL };
			printf("@@LKPROBOT fsdax %s\n", de->d_name);
			fflush(stdout);
			if (run_exec(argv, -1, -1, &err))
				printf("@@LKPROBOT note: ndctl could not make %s fsdax: %s\n", de->d_name, err.buf);
		}
		free(p);
	}
	if (d)
		closedir(d);
	strbuf_release(&mode);
	strbuf_release(&err);
}

/*
 * The initramfs loads the job's modules (file systems, msr) in the
 * background from /dev/.lkprobot-late, removing each file once loaded.
 */
static void wait_late_modules(void)
{
	static const char dir[] = "/dev/.lkprobot-late";

	for (int i = 0; rmdir(dir) && errno == ENOTEMPTY; i++) {
		if (i == 6000) {
			printf("@@LKPROBOT note: the job's kernel modules still load after 60 s; going on\n");
			break;
		}
		usleep(10000);
	}
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;	/* the loader, now ours */
}

int cmd_guest(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct strbuf cmdline = STRBUF_INIT, text = STRBUF_INIT, err = STRBUF_INIT;
	struct engine_result res;
	struct machine m;
	(void)argc;
	(void)argv;
	(void)ctx;

	if (getpid() != 1)
		return say_error(EXIT_USAGE,
				 "guest is the init of a guest booted by 'lkprobot qemu'; it is not run by hand");
	setvbuf(stdout, NULL, _IOLBF, 0);
	engine_marker(true, "guest", "");
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	/* the sched_debug and lock_stat monitors read debugfs (lkp-tests' boot mounts it too) */
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (strbuf_read_file(&cmdline, "/proc/cmdline"))
		fatal("%s", "cannot read /proc/cmdline");
	char *job_path = cmdline_param(cmdline.buf, "lkprobot.job");
	char *result = cmdline_param(cmdline.buf, "lkprobot.result");
	char *data = cmdline_param(cmdline.buf, "lkprobot.data");
	char *facts_path = cmdline_param(cmdline.buf, "lkprobot.facts");
	if (!job_path || !result || !data)
		fatal("%s", "lkprobot.job, lkprobot.result and lkprobot.data must be on the kernel command line");
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	setenv("LKPROBOT_DATA", data, 1);
	writable_places();
	must_mount("out", result, "9p", "trans=virtio,version=9p2000.L,msize=524288");
	fsdax_namespaces();
	wait_late_modules();
	engine_marker(true, "ready", "");

	if (strbuf_read_bounded(&text, job_path, JOB_MAX_BYTES, NULL))
		fatal("cannot read the job '%s'", job_path);
	struct node *job = yml_load_one(text.buf, job_path, &err);
	if (!job)
		fatal("%s", err.buf);
	machine_detect(&m);
	/* what the host knows about this machine (accel: kvm, or tcg and why) */
	struct node *facts = NULL;
	strbuf_reset(&text);
	if (facts_path && strbuf_read_bounded(&text, facts_path, JOB_MAX_BYTES, NULL))
		fatal("cannot read the facts '%s'", facts_path);
	if (facts_path && !(facts = yml_load_one(text.buf, facts_path, &err)))
		fatal("%s", err.buf);
	struct engine_opts eo = {
		.result_dir = result,
		.fs_root = "/run/fs",
		.facts = facts,
		.markers = true,
		.raw_only = true,
		.fresh_boot = true,
	};
	char *insmod = cmdline_param(cmdline.buf, "lkprobot.insmod");
	eo.insmod = insmod;
	char *runs_s = cmdline_param(cmdline.buf, "lkprobot.runs");
	int runs = runs_s ? atoi(runs_s) : 1;
	for (int i = 0; i < (runs > 0 ? runs : 1); i++) {
		if (engine_run(job, &m, &eo, &res, &err))
			fatal("%s", err.buf);
		char *what = xasprintf("RESULT %s", res.run_dir);
		engine_marker(true, what, res.job_state);
		free(what);
		engine_result_release(&res);
	}
	sync();
	umount(result);
	power_off();
	return 0;
}

/* Bring ifname up with addr/24 (0 when the address is NULL: loopback). */
static int net_up(const char *ifname, const char *addr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	int ret = -1;

	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (addr) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
		sin->sin_family = AF_INET;
		inet_pton(AF_INET, addr, &sin->sin_addr);
		if (ioctl(fd, SIOCSIFADDR, &ifr))
			goto out;
		inet_pton(AF_INET, "255.255.255.0", &sin->sin_addr);
		if (ioctl(fd, SIOCSIFNETMASK, &ifr))
			goto out;
	}
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		goto out;
	ifr.ifr_flags |= IFF_UP;
	ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
out:
	close(fd);
	return ret;
}

static pid_t start_sshd(const char *host_key)
{
	char *argv[] = { "dropbear", "-F", "-E", "-s", "-p", "22", "-r", (char *)host_key, NULL };
	struct proc p = { .argv = argv, .setsid = true };
	struct strbuf err = STRBUF_INIT;

	if (proc_start(&p, &err))
		printf("@@LKPROBOT ERROR %s\n", err.buf);
	strbuf_release(&err);
	return p.pid;
}

int cmd_box_init(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct strbuf cmdline = STRBUF_INIT, keys = STRBUF_INIT, err = STRBUF_INIT;
	(void)argc;
	(void)argv;
	(void)ctx;

	if (getpid() != 1)
		return say_error(EXIT_USAGE,
				 "box-init is the init of a box booted by 'lkprobot qemu-box'; it is not run by hand");
	setvbuf(stdout, NULL, _IOLBF, 0);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	/* the sched_debug and lock_stat monitors read debugfs (lkp-tests' boot mounts it too) */
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (strbuf_read_file(&cmdline, "/proc/cmdline"))
		fatal("%s", "cannot read /proc/cmdline");
	char *name = cmdline_param(cmdline.buf, "lkprobot.box_name");
	char *key_file = cmdline_param(cmdline.buf, "lkprobot.box_keys");
	char *host_key = cmdline_param(cmdline.buf, "lkprobot.box_hostkey");
	if (!key_file || !host_key)
		fatal("%s", "lkprobot.box_keys and lkprobot.box_hostkey must be on the kernel command line");
	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	setenv("HOME", "/root", 1);
	/* read before the writable places hide where they are (/var/tmp, /root...) */
	struct strbuf hk = STRBUF_INIT;
	if (strbuf_read_file(&keys, key_file) || strbuf_read_file(&hk, host_key))
		fatal("cannot read the authorized keys and the host key ('%s')", key_file);
	writable_places();
	if (mount("disk", "/mnt", "9p", 0, "trans=virtio,version=9p2000.L,msize=524288"))
		printf("@@LKPROBOT note: no persistent disk (9p tag 'disk'): %s\n", strerror(errno));
	sethostname(name ? name : "qemu-box", strlen(name ? name : "qemu-box"));
	/* root's authorized keys and the host key: dropbear wants them private */
	if (fsutil_mkdir_p("/root/.ssh") || chmod("/root/.ssh", 0700) ||
	    fsutil_write_atomic("/root/.ssh/authorized_keys", keys.buf, keys.len, &err) ||
	    chmod("/root/.ssh/authorized_keys", 0600) ||
	    fsutil_write_atomic("/run/dropbear_host_key", hk.buf, hk.len, &err) || chmod("/run/dropbear_host_key", 0600))
		fatal("cannot install the keys in /root/.ssh and /run: %s", err.buf);
	strbuf_release(&hk);
	fsdax_namespaces();
	wait_late_modules();
	net_up("lo", NULL);
	/* QEMU's user network: the guest is 10.0.2.15, the host 10.0.2.2 */
	int tries = 0;
	while (net_up("eth0", "10.0.2.15") && tries++ < 500)
		usleep(10000);
	if (tries > 500)
		fatal("%s", "eth0 did not come up (virtio_net)");
	pid_t sshd = start_sshd("/run/dropbear_host_key");
	printf("@@LKPROBOT box up: ssh on port 22 (%s)\n", name ? name : "qemu-box");
	for (;;) {
		int status;
		pid_t pid = wait(&status);
		if (pid < 0 && errno == ECHILD)
			pause();
		if (pid == sshd) {
			printf("@@LKPROBOT note: dropbear ended (status %d); starting it again\n", status);
			sleep(1);
			sshd = start_sshd("/run/dropbear_host_key");
		}
	}
}

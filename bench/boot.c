/*
 * bench/boot: what booting through lkprobot costs under QEMU. For the same
 * kernel (Debian's, from the cache `lkprobot qemu` fills) it measures
 *   bare:     qemu-system-x86_64 -kernel <vmlinux> with an initramfs whose
 *             init powers off at once (a shell that powers off);
 *   lkprobot: `lkprobot qemu` on the 5 s smoke fio job (2 NVDIMMs, xfs, DAX):
 *             QEMU start to the test's first second, and the test's end to
 *             the result root complete (power off, stats, store).
 * Target (issue 4): time to the test's first second <= 1.2x the bare boot
 * under TCG; robot overhead <= 2 % of a 200 s job. Prints the figures; the
 * time to the first second includes what lkp-tests does before a test too
 * (modules, fsdax, mkfs, mount, laying fio's files out). Needs root.
 *
 * usage (from the source tree): build/rel/bench/boot [lkprobot] [cache]
 */
#include "../lib/cpio.h"
#include "../lib/fsutil.h"
#include "../lib/strbuf.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double run(char *const argv[], const char *out_path)
{
	double t0 = now();
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (!freopen(out_path, "w", stdout) || !freopen(out_path, "a", stderr))
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	return now() - t0;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "./lkprobot";
	const char *cache = argc > 2 ? argv[2] : "/var/cache/lkprobot";
	char dir[] = "/tmp/lkp-bench-boot-XXXXXX";
	struct strbuf err = STRBUF_INIT, bb = STRBUF_INIT, out = STRBUF_INIT;

	if (geteuid()) {
		fprintf(stderr, "bench/boot: needs root\n");
		return 1;
	}
	if (!mkdtemp(dir))
		return 1;
	/* lkprobot first: it fetches the kernel into the cache if needed */
	char *res = xasprintf("%s/result", dir), *log = xasprintf("%s/lkprobot.out", dir);
	char *lk[] = { (char *)bin, "qemu", "--no-store", "--cache", (char *)cache, "-o", res,
		       "jobs/fio-basic/fio-basic-smoke.yaml", NULL };
	run(lk, log);	/* warm: kernel fetched, NVDIMMs made fsdax */
	double wall = run(lk, log);
	if (strbuf_read_file(&out, log) || !strstr(out.buf, "finished ")) {
		fprintf(stderr, "bench/boot: lkprobot qemu did not finish; see %s\n", log);
		return 1;
	}
	/* "(boot B s, total T s, ...)" and the markers are in the console (dmesg) */
	double boot = 0, total = 0, t_start = 0, t_end = 0;
	const char *b = strstr(out.buf, "(boot ");
	if (!b || sscanf(b, "(boot %lf s, test %lf..%lf s, total %lf s", &boot, &t_start, &t_end, &total) != 4) {
		fprintf(stderr, "bench/boot: cannot read the timings in %s\n", log);
		return 1;
	}

	/* the bare boot of the same kernel */
	char *vmlinux = NULL;
	char *deb = xasprintf("%s/debian", cache);
	DIR *d = opendir(deb);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && !vmlinux)
			vmlinux = xasprintf("%s/%s/vmlinux", deb, de->d_name);
	if (d)
		closedir(d);
	if (!vmlinux || strbuf_read_file(&bb, "/bin/busybox")) {
		fprintf(stderr, "bench/boot: no Debian kernel in %s or no busybox\n", deb);
		return 1;
	}
	struct cpio c;
	static const char init[] = "#!/bin/busybox sh\n/bin/busybox poweroff -f\n";
	cpio_init(&c);
	cpio_dir(&c, "bin", 0755);
	cpio_file(&c, "bin/busybox", 0755, bb.buf, bb.len);
	cpio_file(&c, "init", 0755, init, sizeof(init) - 1);
	cpio_finish(&c);
	char *initrd = xasprintf("%s/bare.cpio", dir);
	if (fsutil_write_atomic(initrd, c.out.buf, c.out.len, &err))
		return 1;
	char *bare_log = xasprintf("%s/bare.out", dir);
	char *q[] = { "qemu-system-x86_64", "-accel", "kvm", "-accel", "tcg", "-cpu", "max", "-smp", "2",
		      "-machine", "q35", "-m", "2048M", "-nodefaults", "-no-user-config", "-no-reboot",
		      "-display", "none", "-serial", "stdio", "-kernel", vmlinux, "-initrd", initrd,
		      "-append", "console=ttyS0 quiet panic=-1", NULL };
	double bare = run(q, bare_log);

	double over = wall - (t_end - t_start);
	printf("bare boot to power-off:                  %.2f s\n", bare);
	printf("lkprobot qemu, smoke fio job:            %.2f s wall\n", wall);
	printf("  QEMU start to the guest agent:         %.2f s = %.2fx the bare boot\n", boot, boot / bare);
	printf("  QEMU start to the test's first second: %.2f s = %.2fx the bare boot (target <= 1.2x: %s)\n",
	       t_start, t_start / bare, t_start / bare <= 1.2 ? "met" : "NOT met");
	printf("  test end to the result root complete:  %.2f s\n", wall - t_end);
	printf("  everything but the test:               %.2f s = %.1f %% of a 200 s job (target <= 2 %%: %s)\n",
	       over, 100 * over / (200 + over), 100 * over / (200 + over) <= 2 ? "met" : "NOT met");
	char *rm = xasprintf("rm -rf '%s'", dir);
	int rc = system(rm);
	return rc ? 1 : 0;
}

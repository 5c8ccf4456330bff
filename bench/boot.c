/*
 * bench/boot: what booting through lkprobot costs under QEMU. For the same
 * kernel (Debian's, from the cache `lkprobot qemu` fills, or -k IMAGE) it
 * measures, as the median of ROUNDS rounds:
 *   bare:     qemu-system-x86_64 -kernel <image> with an initramfs whose
 *             init powers off at once (a shell that powers off), on a
 *             plain q35 and on the same machine lkprobot boots (2 NVDIMMs,
 *             9p shares): the latter is the baseline, since the job asks
 *             for that machine;
 *   lkprobot: `lkprobot qemu` on the 5 s smoke fio job (2 NVDIMMs, xfs, DAX),
 *             split with the guest's console markers into
 *               boot:   QEMU start to the guest agent ready to run the job
 *                       (kernel, initramfs, modules, 9p root, the agent);
 *               setups: the job's own setups (mkfs on both NVDIMMs, mount,
 *                       fio laying its files out), which lkp-tests runs
 *                       before its test as well;
 *               after:  the test's end to the result root complete (power
 *                       off, stats, matrix).
 * Targets (issue 4): the boot <= 1.2x the bare boot under TCG; the robot's
 * overhead (the boot beyond the bare boot, plus the after-test part) <= 2 %
 * of a 200 s job. Prints the figures (the ratio is the median of each
 * round's own ratio). Needs root.
 *
 * usage (from the source tree):
 *   build/rel/bench/boot [-k IMAGE] [-n ROUNDS] [lkprobot [cache]]
 */
#include "bench.h"
#include "../lib/sys/fsutil.h"
#include "../lib/util/strbuf.h"
#include "../providers/qemu.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 15

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

/* The guest uptime in "@@LKPROBOT <what> ... (U s since boot)", or -1. */
static double marker_uptime(const char *console, const char *what)
{
	char *key = xasprintf("@@LKPROBOT %s", what);
	const char *m = strstr(console, key), *u;
	double up = -1;

	free(key);
	if (m && (u = strchr(m, '(')) && u < strchr(m, '\n'))
		sscanf(u, "(%lf s since boot)", &up);
	return up;
}

struct round {
	double wall, boot, setups, first, after, test;
};

/* One lkprobot qemu run; 0 with r filled, or -1. */
static int lkprobot_round(char *const lk[], const char *res, const char *log, struct round *r)
{
	struct strbuf out = STRBUF_INIT, console = STRBUF_INIT;
	char *rm = xasprintf("rm -rf '%s'", res);
	int ret = -1;

	if (system(rm)) {
		free(rm);
		return -1;
	}
	free(rm);
	r->wall = run(lk, log);
	double boot, t_start, t_end, total;
	const char *b, *f;
	if (strbuf_read_file(&out, log) || !(f = strstr(out.buf, "finished ")) || !(b = strstr(f, "(boot ")) ||
	    sscanf(b, "(boot %lf s, test %lf..%lf s, total %lf s", &boot, &t_start, &t_end, &total) != 4) {
		fprintf(stderr, "bench/boot: lkprobot qemu did not finish; see %s\n", log);
		goto out;
	}
	/* the run's dmesg: the path is the word after "finished " */
	char dir[4096];
	if (sscanf(f, "finished %4095s", dir) != 1)
		goto out;
	char *dmesg = xasprintf("%s/dmesg", dir);
	int rc = strbuf_read_file(&console, dmesg);
	free(dmesg);
	double ready = marker_uptime(console.buf, "ready"), start = marker_uptime(console.buf, "test-start");
	if (rc || ready < 0 || start < ready) {
		fprintf(stderr, "bench/boot: no 'ready'/'test-start' markers in %s/dmesg\n", dir);
		goto out;
	}
	r->setups = start - ready;
	r->first = t_start;
	r->boot = t_start - r->setups;
	r->test = t_end - t_start;
	r->after = r->wall - t_end;
	ret = 0;
out:
	strbuf_release(&out);
	strbuf_release(&console);
	return ret;
}

/*
 * The bare boot of the same kernel: its image (-k IMAGE, else the Debian
 * kernel of the cache) in *vmlinux, and an initramfs whose init powers off
 * at once, written in dir: its path, or NULL when either is missing.
 */
static char *bare_initrd(const char *dir, const char *image, const char *cache, char **vmlinux)
{
	struct strbuf err = STRBUF_INIT;

	*vmlinux = image ? xstrdup(image) : NULL;
	char *deb = xasprintf("%s/debian", cache);
	DIR *d = image ? NULL : opendir(deb);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && !*vmlinux)
			*vmlinux = xasprintf("%s/%s/vmlinux", deb, de->d_name);
	if (d)
		closedir(d);
	if (!*vmlinux) {
		fprintf(stderr, "bench/boot: no Debian kernel in %s\n", deb);
		return NULL;
	}
	char *initrd = xasprintf("%s/bare.cpio", dir);
	if (qemu_initramfs_tiny("#!/bin/busybox sh\n/bin/busybox poweroff -f\n", initrd, &err)) {
		fprintf(stderr, "bench/boot: %s\n", err.buf);
		return NULL;
	}
	return initrd;
}

/* The medians of the rounds, against the targets. */
static void print_figures(const char *vmlinux, int rounds, double *bare_v, double *same_v, double *ratio_v,
			  double v[6][MAX_ROUNDS])
{
	double plain = median(bare_v, rounds), bare = median(same_v, rounds), wall = median(v[0], rounds), boot = median(v[1], rounds),
	       setups = median(v[2], rounds), first = median(v[3], rounds), after = median(v[4], rounds),
	       test = median(v[5], rounds), ratio = median(ratio_v, rounds);
	/* the kernel's own boot is what any harness pays; the rest is ours */
	double over = boot - bare + after;

	printf("kernel: %s; median of %d rounds\n", vmlinux, rounds);
	printf("bare boot to power-off, plain q35:         %.2f s\n", plain);
	printf("bare boot to power-off, the same machine:  %.2f s (2 NVDIMMs, 9p shares): the baseline below\n", bare);
	printf("lkprobot qemu, smoke fio job:              %.2f s wall (test %.2f s)\n", wall, test);
	printf("  boot: QEMU start to the agent ready:     %.2f s = %.2fx the bare boot (target <= 1.2x: %s)\n",
	       boot, ratio, ratio <= 1.2 ? "met" : "NOT met");
	printf("  the job's setups (mkfs, mount, layout):  %.2f s\n", setups);
	printf("  QEMU start to the test's first second:   %.2f s = %.2fx the bare boot\n", first, first / bare);
	printf("  test end to the result root complete:    %.2f s\n", after);
	printf("  boot + after:                            %.2f s = %.1f %% of a 200 s job\n", boot + after,
	       100 * (boot + after) / (200 + boot + after));
	printf("  robot overhead (boot - bare + after):    %.2f s = %.1f %% of a 200 s job (target <= 2 %%: %s)\n",
	       over, 100 * over / (200 + over), 100 * over / (200 + over) <= 2 ? "met" : "NOT met");
}

/* The two bare boots of each round: a plain q35, and the machine lkprobot boots. */
struct bare {
	char *plain[32], *same[64];
	char *nv[2], *out9p;
	char *lockp;
	int lock_fd;
};

/*
 * The bare boots' command lines, with the accelerator `lkprobot qemu`
 * chooses for this kernel (the same probe), so that both sides compare.
 * 0, or -1 said on stderr.
 */
static int bare_argv(struct bare *b, const char *vmlinux, const char *initrd, const char *cache, const char *dir)
{
	struct strbuf err = STRBUF_INIT;
	struct qemu_kernel k;
	struct qemu_accel acc;

	if (qemu_kernel_file(&k, vmlinux, NULL, &err) || qemu_accel_choose(&acc, &k, cache, &err)) {
		fprintf(stderr, "bench/boot: %s\n", err.buf);
		return -1;
	}
	qemu_kernel_release(&k);
	char *accel = acc.kvm ? "kvm" : "tcg", *cpu = acc.kvm ? "host" : "max";
	char *q[] = { "qemu-system-x86_64",
		      "-accel",
		      accel,
		      "-cpu",
		      cpu,
		      "-smp",
		      "2",
		      "-machine",
		      "q35",
		      "-m",
		      "2048M",
		      "-nodefaults",
		      "-no-user-config",
		      "-no-reboot",
		      "-display",
		      "none",
		      "-serial",
		      "stdio",
		      "-kernel",
		      (char *)vmlinux,
		      "-initrd",
		      (char *)initrd,
		      "-append",
		      "console=ttyS0 quiet panic=-1",
		      NULL };
	/*
	 * The same machine as lkprobot's: 2 NVDIMMs (slot 0's fsdax files in
	 * the cache, locked as lkprobot locks them) and the two 9p shares;
	 * a kernel with the NVDIMM drivers built in sets their pages up at boot.
	 */
	b->lockp = xasprintf("%s/nvdimm-0.lock", cache);
	b->out9p = xasprintf("local,id=outfs,path=%s,security_model=none", dir);
	if ((b->lock_fd = open(b->lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		fprintf(stderr, "bench/boot: cannot open %s\n", b->lockp);
		return -1;
	}
	for (int i = 0; i < 2; i++)
		b->nv[i] = xasprintf("memory-backend-file,id=mem%d,share=on,mem-path=%s/nvdimm-0-%d.img,size=1024M", i,
				     cache, i);
	char *qm[] = { "qemu-system-x86_64",
		       "-accel",
		       accel,
		       "-cpu",
		       cpu,
		       "-smp",
		       "2",
		       "-machine",
		       "q35,nvdimm=on",
		       "-m",
		       "2048M,slots=2,maxmem=5120M",
		       "-nodefaults",
		       "-no-user-config",
		       "-no-reboot",
		       "-display",
		       "none",
		       "-serial",
		       "stdio",
		       "-monitor",
		       "none",
		       "-object",
		       b->nv[0],
		       "-device",
		       "nvdimm,id=nv0,memdev=mem0",
		       "-object",
		       b->nv[1],
		       "-device",
		       "nvdimm,id=nv1,memdev=mem1",
		       "-fsdev",
		       "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap",
		       "-device",
		       "virtio-9p-pci,fsdev=rootfs,mount_tag=root",
		       "-fsdev",
		       b->out9p,
		       "-device",
		       "virtio-9p-pci,fsdev=outfs,mount_tag=out",
		       "-kernel",
		       (char *)vmlinux,
		       "-initrd",
		       (char *)initrd,
		       "-append",
		       "console=ttyS0 quiet panic=-1",
		       NULL };
	memcpy(b->plain, q, sizeof(q));
	memcpy(b->same, qm, sizeof(qm));
	return 0;
}

/*
 * The rounds: each runs lkprobot and both bare boots back to back, and the
 * ratio is the median of the rounds' own ratios: this machine's speed
 * drifts by 30 % over minutes, which would bias a ratio of medians taken
 * minutes apart. 0, or -1 said on stderr.
 */
static int rounds_run(char *const lk[], const char *res, const char *log, struct bare *b, const char *bare_log,
		      int rounds, double *bare_v, double *same_v, double *ratio_v, double v[6][MAX_ROUNDS])
{
	struct round r;

	for (int i = 0; i < rounds; i++) {
		if (lkprobot_round(lk, res, log, &r))
			return -1;
		if (flock(b->lock_fd, LOCK_EX)) {
			fprintf(stderr, "bench/boot: cannot lock %s\n", b->lockp);
			return -1;
		}
		bare_v[i] = run(b->plain, bare_log);
		same_v[i] = run(b->same, bare_log);
		flock(b->lock_fd, LOCK_UN);
		ratio_v[i] = r.boot / same_v[i];
		v[0][i] = r.wall;
		v[1][i] = r.boot;
		v[2][i] = r.setups;
		v[3][i] = r.first;
		v[4][i] = r.after;
		v[5][i] = r.test;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *image = NULL;
	int rounds = 3, opt;

	while ((opt = getopt(argc, argv, "k:n:")) != -1) {
		if (opt == 'k')
			image = optarg;
		else if (opt == 'n' && atoi(optarg) > 0 && atoi(optarg) <= MAX_ROUNDS)
			rounds = atoi(optarg);
		else {
			fprintf(stderr, "usage: bench/boot [-k IMAGE] [-n ROUNDS (1-%d)] [lkprobot [cache]]\n", MAX_ROUNDS);
			return 2;
		}
	}
	const char *bin = optind < argc ? argv[optind] : "./lkprobot";
	const char *cache = optind + 1 < argc ? argv[optind + 1] : "/var/cache/lkprobot";
	char dir[] = "/tmp/lkp-bench-boot-XXXXXX";

	if (geteuid()) {
		fprintf(stderr, "bench/boot: needs root\n");
		return 1;
	}
	if (!mkdtemp(dir))
		return 1;
	/* lkprobot first: it fetches the kernel into the cache if needed */
	char *res = xasprintf("%s/result", dir), *log = xasprintf("%s/lkprobot.out", dir);
	char *lk[12] = { (char *)bin, "qemu", "--no-store", "--cache", (char *)cache, "-o", res };
	int nlk = 7;
	if (image) {
		lk[nlk++] = "-k";
		lk[nlk++] = (char *)image;
	}
	lk[nlk++] = "jobs/fio-basic/fio-basic-smoke.yaml";
	lk[nlk] = NULL;
	run(lk, log);	/* warm: kernel fetched, NVDIMMs made fsdax */

	char *vmlinux = NULL, *initrd = bare_initrd(dir, image, cache, &vmlinux);
	char *bare_log = xasprintf("%s/bare.out", dir);
	struct bare b = { .lock_fd = -1 };
	double bare_v[MAX_ROUNDS], same_v[MAX_ROUNDS], ratio_v[MAX_ROUNDS], v[6][MAX_ROUNDS];
	if (!initrd || bare_argv(&b, vmlinux, initrd, cache, dir) ||
	    rounds_run(lk, res, log, &b, bare_log, rounds, bare_v, same_v, ratio_v, v))
		return 1;
	close(b.lock_fd);
	print_figures(vmlinux, rounds, bare_v, same_v, ratio_v, v);
	char *rm = xasprintf("rm -rf '%s'", dir);
	int rc = system(rm);
	return rc ? 1 : 0;
}

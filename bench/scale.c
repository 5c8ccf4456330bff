/*
 * bench/scale: does the work grow linearly with the input? The real binary
 * on a job of 10,000 and of 100,000 keys (`split-job -n`: loaded, merged,
 * expanded, validated, named) and on a compare of 10,000 and of 100,000
 * metrics (two commit directories of 3 runs each: matrix.json read, every
 * row compared and rendered). Linear work takes ~10x as long for 10x the
 * input; the quadratic paths this replaced took ~100x (40,000 job keys
 * took 3.5 s; 16,000 metrics 3.4 s against 0.07 s for 2,000). Best of 3
 * runs each; prints figures, passes no judgement.
 *
 * usage: build/rel/bench/scale [path/to/lkprobot]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Seconds argv takes (stdout to /dev/null), best of 3; -1 when it fails. */
static double best_of_3(char *const argv[])
{
	double best = -1;

	for (int k = 0; k < 3; k++) {
		fflush(stdout);
		double t0 = now();
		pid_t pid = fork();
		int status;
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(127);
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "scale: %s %s failed\n", argv[0], argv[1]);
			return -1;
		}
		double t = now() - t0;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

static void write_job(const char *path, long keys)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fprintf(f, "suite: fio-basic\ntestcase: fio-basic\nfio-setup-basic:\n  rw: read\n  bs: 4k\nfio:\n");
	for (long i = 0; i < keys; i++)
		fprintf(f, "key%06ld: value %ld\n", i, i);
	fclose(f);
}

/* <dir>/<commit>/matrix.json with `metrics` metrics of 3 runs each, `shift` on every other one. */
static void write_matrix(const char *dir, const char *commit, long metrics, double shift)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, commit);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/matrix.json", dir, commit);
	if (!(f = fopen(path, "w"))) {
		perror(path);
		exit(1);
	}
	fprintf(f, "{\n");
	for (long i = 0; i < metrics; i++) {
		double v = 1000 + (double)(i % 97) * (i % 2 ? shift : 1);
		fprintf(f, "  \"fio.m%06ld\": [%g, %g, %g],\n", i, v, v * 1.01, v * 0.99);
	}
	fprintf(f, "  \"stats_source\": [\"%s/0/stats.json\", \"%s/1/stats.json\", \"%s/2/stats.json\"]\n}\n",
		commit, commit, commit);
	fclose(f);
}

int main(int argc, char **argv)
{
	char exe[4096], tmp[] = "/tmp/lkprobot-scale.XXXXXX";
	const char *lkprobot = argc > 1 ? argv[1] : NULL;
	const long sizes[] = { 10000, 100000 };
	double job_t[2], cmp_t[2];

	if (!lkprobot) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
		if (n <= 0)
			return 1;
		exe[n] = '\0';
		/* <tree>/build/rel/bench/scale -> <tree>/lkprobot */
		for (int up = 0; up < 4; up++)
			*strrchr(exe, '/') = '\0';
		snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "/lkprobot");
		lkprobot = exe;
	}
	if (!mkdtemp(tmp)) {
		perror(tmp);
		return 1;
	}
	for (int s = 0; s < 2; s++) {
		char job[4200], base[4200], newc[4200];
		snprintf(job, sizeof(job), "%s/job-%ld.yaml", tmp, sizes[s]);
		write_job(job, sizes[s]);
		char *split[] = { (char *)lkprobot, "split-job", "-n", job, NULL };
		job_t[s] = best_of_3(split);

		char dir[4096];
		snprintf(dir, sizeof(dir), "%.4000s/m%ld", tmp, sizes[s]);
		mkdir(dir, 0755);
		write_matrix(dir, "aaaa", sizes[s], 1.0);
		write_matrix(dir, "bbbb", sizes[s], 1.3);
		snprintf(base, sizeof(base), "%s/aaaa", dir);
		snprintf(newc, sizeof(newc), "%s/bbbb", dir);
		char *cmp[] = { (char *)lkprobot, "compare", base, newc, NULL };
		cmp_t[s] = best_of_3(cmp);
		printf("%6ld job keys:  split-job -n %.3f s     %6ld metrics: compare %.3f s\n", sizes[s], job_t[s],
		       sizes[s], cmp_t[s]);
	}
	printf("10x the input: job keys %.1fx the time, metrics %.1fx (linear: ~10x; quadratic: ~100x)\n",
	       job_t[1] / job_t[0], cmp_t[1] / cmp_t[0]);
	char *rm[] = { "/bin/rm", "-rf", tmp, NULL };
	best_of_3(rm);
	return 0;
}

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
 * Then a farm's history: `stats --reindex` of 1,000 and 10,000 result roots
 * (5 runs a commit; each root a job.yaml and a 200-metric stats.json, hard
 * links of one pair of files, as the store reads them), best of 3 each, and
 * the exponent k of time ~ roots^k between the sizes (1.0: linear); then
 * `compare --db` of two 5-run commits in the store each reindex made (it
 * should not grow with the store: k near 0). A third size (e.g. 100000) as
 * the second argument.
 *
 * usage: build/rel/bench/scale [-s] [path/to/lkprobot [max-roots]]
 * (-s: the farm's part alone)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <math.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The CPU seconds (user + system) of the fastest of best_of's runs: steadier than wall time on a busy machine. */
static double best_cpu;

/* Seconds argv takes (stdout to /dev/null), best of n; -1 when it fails. */
static double best_of(int n, char *const argv[])
{
	double best = -1;

	for (int k = 0; k < n; k++) {
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
		struct rusage ru;
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "scale: %s %s failed\n", argv[0], argv[1]);
			return -1;
		}
		double t = now() - t0;
		if (best < 0 || t < best) {
			best = t;
			best_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
				   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		}
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

/* dir/job-k.yaml and dir/stats-k.json: what every root links to (a file takes at most 65,000 links on ext4). */
static void write_template(const char *dir, long k, char job[4200], char stats[4200])
{
	FILE *f;

	snprintf(job, 4200, "%.4000s/job-%ld.yaml", dir, k);
	snprintf(stats, 4200, "%.4000s/stats-%ld.json", dir, k);
	if (!(f = fopen(job, "w"))) {
		perror(job);
		exit(1);
	}
	fprintf(f,
		"testcase: fio-basic\ntbox_group: tb\ntestbox: tb-1\nkconfig: kc\ncompiler: gcc-12\n"
		"rootfs: debian\njob_state: finished\n");
	fclose(f);
	if (!(f = fopen(stats, "w"))) {
		perror(stats);
		exit(1);
	}
	fprintf(f, "{\n");
	for (int m = 0; m < 200; m++)
		fprintf(f, "  \"fio.m%03d\": %d,\n", m, 1000 + m);
	fprintf(f, "  \"fio.write_bw_MBps\": 100\n}\n");
	fclose(f);
}

/* <dir>/fio-basic/pp/tb/debian/kc/gcc-12/<commit>/<run> for `roots` runs, 5 a commit. */
static void write_roots(const char *dir, long roots)
{
	char path[4096], job[4200], stats[4200];

	for (long r = 0; r < roots; r++) {
		static const char *const levels[] = { "fio-basic", "pp", "tb", "debian", "kc", "gcc-12" };
		if (r % 50000 == 0)
			write_template(dir, r / 50000, job, stats);
		int len = snprintf(path, sizeof(path), "%s", dir);
		for (int l = 0; l < 6; l++) {
			len += snprintf(path + len, sizeof(path) - len, "/%s", levels[l]);
			mkdir(path, 0755);
		}
		len += snprintf(path + len, sizeof(path) - len, "/%040ld", r / 5);
		mkdir(path, 0755);
		len += snprintf(path + len, sizeof(path) - len, "/%ld", r % 5);
		mkdir(path, 0755);
		snprintf(path + len, sizeof(path) - len, "/job.yaml");
		if (link(job, path))
			perror(path), exit(1);
		snprintf(path + len, sizeof(path) - len, "/stats.json");
		if (link(stats, path))
			perror(path), exit(1);
	}
}

/* k of time ~ size^k between two sizes */
static double exponent(double t0, double t1, long n0, long n1)
{
	return log(t1 / t0) / log((double)n1 / (double)n0);
}

/*
 * stats --reindex at 1k, 10k (and max) roots, then compare --db of two
 * commits (5 runs each) in the store it made, with the exponents between
 * sizes: the compare reads two commits' runs, whatever the store holds.
 */
static void farm(const char *lkprobot, const char *tmp, long max)
{
	long sizes[3] = { 1000, 10000, max };
	int nsizes = max > 10000 ? 3 : 2;
	double t[3], cpu[3], ct[3], ccpu[3];

	for (int s = 0; s < nsizes; s++) {
		char dir[4096], db[4200];
		snprintf(dir, sizeof(dir), "%.4000s/farm%ld", tmp, sizes[s]);
		mkdir(dir, 0755);
		write_roots(dir, sizes[s]);
		snprintf(db, sizeof(db), "%s/lkprobot.db", dir);
		char *reindex[] = { (char *)lkprobot, "stats", "--reindex", dir, "--db", db, NULL };
		t[s] = best_of(sizes[s] > 10000 ? 1 : 3, reindex); /* 100,000 roots: once */
		cpu[s] = best_cpu;
		char c1[48], c2[48];
		snprintf(c1, sizeof(c1), "%040ld", sizes[s] / 10);
		snprintf(c2, sizeof(c2), "%040ld", sizes[s] / 10 + 1);
		char *cmp[] = { (char *)lkprobot, "compare", "--db", db, c1, c2, NULL };
		ct[s] = best_of(3, cmp);
		ccpu[s] = best_cpu;
		printf("%7ld roots: stats --reindex %.3f s (cpu %.3f s)", sizes[s], t[s], cpu[s]);
		if (s)
			printf("  (k = %.2f, cpu k = %.2f)", exponent(t[s - 1], t[s], sizes[s - 1], sizes[s]),
			       exponent(cpu[s - 1], cpu[s], sizes[s - 1], sizes[s]));
		printf("\n%7ld runs:  compare --db of two commits %.3f s (cpu %.3f s)", sizes[s], ct[s], ccpu[s]);
		if (s)
			printf("  (k = %.2f, cpu k = %.2f)", exponent(ct[s - 1], ct[s], sizes[s - 1], sizes[s]),
			       exponent(ccpu[s - 1], ccpu[s], sizes[s - 1], sizes[s]));
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	char exe[4096], tmp[] = "/tmp/lkprobot-scale.XXXXXX";
	bool farm_only = argc > 1 && !strcmp(argv[1], "-s");
	if (farm_only)
		argc--, argv++;
	const char *lkprobot = argc > 1 ? argv[1] : NULL;
	long max = argc > 2 ? atol(argv[2]) : 0;
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
	for (int s = 0; s < 2 && !farm_only; s++) {
		char job[4200], base[4200], newc[4200];
		snprintf(job, sizeof(job), "%s/job-%ld.yaml", tmp, sizes[s]);
		write_job(job, sizes[s]);
		char *split[] = { (char *)lkprobot, "split-job", "-n", job, NULL };
		job_t[s] = best_of(3, split);

		char dir[4096];
		snprintf(dir, sizeof(dir), "%.4000s/m%ld", tmp, sizes[s]);
		mkdir(dir, 0755);
		write_matrix(dir, "aaaa", sizes[s], 1.0);
		write_matrix(dir, "bbbb", sizes[s], 1.3);
		snprintf(base, sizeof(base), "%s/aaaa", dir);
		snprintf(newc, sizeof(newc), "%s/bbbb", dir);
		char *cmp[] = { (char *)lkprobot, "compare", base, newc, NULL };
		cmp_t[s] = best_of(3, cmp);
		printf("%6ld job keys:  split-job -n %.3f s     %6ld metrics: compare %.3f s\n", sizes[s], job_t[s],
		       sizes[s], cmp_t[s]);
	}
	if (!farm_only)
		printf("10x the input: job keys %.1fx the time, metrics %.1fx (linear: ~10x; quadratic: ~100x)\n",
		       job_t[1] / job_t[0], cmp_t[1] / cmp_t[0]);
	farm(lkprobot, tmp, max);
	char *rm[] = { "/bin/rm", "-rf", tmp, NULL };
	best_of(1, rm);
	return 0;
}

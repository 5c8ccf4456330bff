/*
 * bench/compare: lkprobot's comparison on a large case — 2 commits x 25 runs
 * x 2,000 metrics (a tenth of them changed) — compared and rendered in the
 * three layouts. Target (issue 5): <= 50 ms. Prints ms and peak RSS.
 *
 * Then `lkprobot compare` itself on two commit directories of 25 runs
 * (matrix.json, a tenth of the metrics 30 % higher) at 2,000 and 200,000
 * metrics (and the sizes given: bench/compare [LKPROBOT [METRICS...]]),
 * best of 3: wall and CPU seconds, and the process's peak RSS, against
 * lkp-tests' ncompare on the same sizes (issue 35's figures: bbbc29c49,
 * Ruby 3.1). Targets (issue 35): 20x faster at 2,000 and 200,000 metrics,
 * within lkp-tests' 545 MiB at 200,000, within 1 GiB at 1,000,000.
 */
#include "bench.h"
#include "../lib/results/compare.h"
#include "../lib/results/matrix.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUNS 25
#define METRICS 2000

static struct node *matrix(unsigned seed, bool shifted)
{
	struct node *m = node_new(NODE_MAP);
	static const char *const family[] = { "fio.", "perf-stat.", "vmstat.system.", "proc-vmstat.", "turbostat." };

	srand(seed);
	for (int k = 0; k < METRICS; k++) {
		struct node *col = node_new(NODE_SEQ);
		char name[64], num[64];
		double base = 1000.0 * (k + 1), shift = shifted && k % 10 == 0 ? 1.3 : 1.0;
		snprintf(name, sizeof(name), "%smetric_%04d", family[k % 5], k);
		for (int r = 0; r < RUNS; r++) {
			double noise = 1 + ((double)rand() / RAND_MAX - 0.5) * 0.04;
			snprintf(num, sizeof(num), "%.6g", base * shift * noise);
			node_push(col, node_new_scalar(num));
		}
		node_set(m, name, col);
	}
	return m;
}

/* <dir>/<commit>/matrix.json: `metrics` metrics x RUNS runs, a tenth 30 % higher when shifted */
static void write_matrix(const char *dir, const char *commit, long metrics, bool shifted)
{
	static const char *const family[] = { "fio.", "perf-stat.", "vmstat.system.", "proc-vmstat.", "turbostat." };
	char path[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%.4000s/%s", dir, commit);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%.4000s/%s/matrix.json", dir, commit);
	if (!(f = fopen(path, "w"))) {
		perror(path);
		exit(1);
	}
	srand(shifted ? 2 : 1);
	fputs("{\n", f);
	for (long k = 0; k < metrics; k++) {
		double base = 1000.0 * (double)(k + 1), shift = shifted && k % 10 == 0 ? 1.3 : 1.0;
		fprintf(f, "  \"%smetric_%07ld\": [", family[k % 5], k);
		for (int r = 0; r < RUNS; r++)
			fprintf(f, "%s%.6g", r ? ", " : "",
				base * shift * (1 + ((double)rand() / RAND_MAX - 0.5) * 0.04));
		fputs("],\n", f);
	}
	fputs("  \"stats_source\": [", f);
	for (int r = 0; r < RUNS; r++)
		fprintf(f, "%s\"%s/%d/stats.json\"", r ? ", " : "", commit, r);
	fputs("]\n}\n", f);
	fclose(f);
}

/* argv run `best_of` times (stdout to /dev/null): the best wall seconds, its CPU seconds, the peak RSS (KiB). */
static int run_best(char *const argv[], int best_of, double *wall, double *cpu, long *rss)
{
	*wall = -1;
	*rss = 0;
	for (int k = 0; k < best_of; k++) {
		struct rusage ru;
		int status;
		fflush(stdout); /* the child's freopen would write what is buffered again */
		double t0 = now();
		pid_t pid = fork();
		if (pid == 0) {
			if (!freopen("/dev/null", "w", stdout))
				_exit(127);
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
			return -1;
		double t = now() - t0;
		if (*wall < 0 || t < *wall) {
			*wall = t;
			*cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
			       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
		}
		if (ru.ru_maxrss > *rss)
			*rss = ru.ru_maxrss;
	}
	return 0;
}

/* lkp-tests' ncompare on the same sizes (issue 35: bbbc29c49, Debian's Ruby 3.1, medians); 0: not measured */
static double lkp_seconds(long metrics)
{
	return metrics == 2000 ? 0.74 : metrics == 40000 ? 10.0 : metrics == 200000 ? 59.1 : 0;
}

/* lkprobot compare on two commit directories of each size, against lkp-tests' figures */
static void cli(const char *lkprobot, const long *sizes, size_t nsizes)
{
	char tmp[] = "/tmp/lkprobot-bench-compare.XXXXXX";

	if (!mkdtemp(tmp)) {
		perror(tmp);
		return;
	}
	printf("lkprobot compare, two commit directories (matrix.json) x %d runs, a tenth of the metrics changed:\n",
	       RUNS);
	for (size_t i = 0; i < nsizes; i++) {
		char dir[4200], base[4300], newc[4300];
		double wall, cpu, lkp = lkp_seconds(sizes[i]);
		long rss;
		snprintf(dir, sizeof(dir), "%s/m%ld", tmp, sizes[i]);
		mkdir(dir, 0755);
		write_matrix(dir, "c42a4508649e40af", sizes[i], false);
		write_matrix(dir, "2e12109d1c32c810088820478d21b5b7cd87a805", sizes[i], true);
		snprintf(base, sizeof(base), "%s/c42a4508649e40af", dir);
		snprintf(newc, sizeof(newc), "%s/2e12109d1c32c810088820478d21b5b7cd87a805", dir);
		char *argv[] = { (char *)lkprobot, "compare", base, newc, NULL };
		if (run_best(argv, sizes[i] > 200000 ? 1 : 3, &wall, &cpu, &rss)) {
			fprintf(stderr, "bench/compare: %s compare failed at %ld metrics\n", lkprobot, sizes[i]);
			break;
		}
		printf("  %8ld metrics: %7.3f s (cpu %7.3f s), peak RSS %6.1f MiB", sizes[i], wall, cpu,
		       (double)rss / 1024);
		if (lkp > 0)
			printf("; lkp-tests' ncompare %.2f s: %.1fx faster (cpu %.1fx)", lkp, lkp / wall, lkp / cpu);
		printf("\n");
		char *rm[] = { "/bin/rm", "-rf", dir, NULL };
		run_best(rm, 1, &wall, &cpu, &rss);
	}
	rmdir(tmp);
}

int main(int argc, char **argv)
{
	struct node *a = matrix(1, false), *b = matrix(2, true);
	/* the samples as lkprobot compare holds them (matrix.h), read once */
	struct matrix_names *names = matrix_names_new();
	struct matrix *ma = matrix_from_node(a, names), *mb = matrix_from_node(b, names);
	const struct matrix *mats[2] = { ma, mb };
	const char *labels[2] = { "c42a4508649e40af", "2e12109d1c32c810088820478d21b5b7cd87a805" };
	struct compare_opts o = { 0 };
	struct compare_result res;

	lkpetc_set_dir(".");	/* lkp-tests' data in the source tree (make bench runs from its top) */
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct rusage ru;
	double best = 1e9;
	size_t changed = 0;

	for (int i = 0; i < 5; i++) {
		double t0 = now();
		if (compare_tables(mats, labels, 2, &o, &res, &err)) {
			fprintf(stderr, "bench/compare: %s\n", err.buf);
			return 1;
		}
		strbuf_reset(&out);
		compare_render_ncompare(&out, &res, "testcase/path_params/tbox_group", "fio-basic/x/y", true);
		compare_render_classic(&out, &res, "fio-basic/x/y");
		compare_render_json(&out, &res);
		changed = res.nchanged;
		compare_result_release(&res);
		double t = now() - t0;
		if (t < best)
			best = t;
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("compare + render (ncompare, classic, json): 2 commits x %d runs x %d metrics, %zu changed\n", RUNS,
	       METRICS, changed);
	printf("  best of 5: %.1f ms (target <= 50 ms: %s), %zu bytes of output, peak RSS %.1f MiB\n", best * 1000,
	       best <= 0.050 ? "met" : "NOT met", out.len, (double)ru.ru_maxrss / 1024);
	node_free(a);
	node_free(b);
	matrix_unref(ma);
	matrix_unref(mb);
	matrix_names_unref(names);
	strbuf_release(&out);
	strbuf_release(&err);

	/* the binary: the argument, else <tree>/lkprobot beside build/rel/bench/compare */
	char exe[4096];
	const char *lkprobot = argc > 1 ? argv[1] : NULL;
	if (!lkprobot) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 32);
		if (n <= 0)
			return 1;
		exe[n] = '\0';
		for (int up = 0; up < 4; up++)
			*strrchr(exe, '/') = '\0';
		snprintf(exe + strlen(exe), sizeof(exe) - strlen(exe), "/lkprobot");
		lkprobot = exe;
	}
	long sizes[16] = { 2000, 200000 };
	size_t nsizes = 2;
	if (argc > 2)
		for (nsizes = 0; nsizes < 16 && (int)nsizes + 2 < argc; nsizes++)
			sizes[nsizes] = atol(argv[nsizes + 2]);
	cli(lkprobot, sizes, nsizes);
	return 0;
}

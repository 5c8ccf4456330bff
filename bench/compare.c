/*
 * bench/compare: lkprobot's comparison on a large case — 2 commits x 25 runs
 * x 2,000 metrics (a tenth of them changed) — compared and rendered in the
 * three layouts. Target (issue 5): <= 50 ms. Prints ms and peak RSS.
 */
#include "../lib/results/compare.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define RUNS 25
#define METRICS 2000

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

int main(void)
{
	struct node *a = matrix(1, false), *b = matrix(2, true);
	const struct node *mats[2] = { a, b };
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
		if (compare_matrices(mats, labels, 2, &o, &res, &err)) {
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
	strbuf_release(&out);
	strbuf_release(&err);
	return 0;
}

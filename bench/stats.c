/*
 * bench/stats: how fast lkprobot turns result roots into statistics — 1,000
 * result roots (fio + vmstat + perf-stat + time raw files, captured from the
 * real tools: tests/fixtures/tools, tests/fixtures/perf-stat) re-parsed into
 * <program>.json and stats.json, then the commit directories' matrix.json
 * rebuilt. Prints roots/s and peak RSS; passes no judgement.
 *
 * usage (from the source tree): build/rel/bench/stats [N]
 */
#include "bench.h"
#include "../lib/util/json.h"
#include "../lib/results/result.h"
#include "../lib/util/strbuf.h"
#include "../lib/util/yml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void copy(const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
	if (strbuf_read_file(&sb, from) || result_save_text(to, sb.buf, sb.len, &err)) {
		fprintf(stderr, "bench/stats: cannot copy %s to %s (run from the source tree)\n", from, to);
		exit(1);
	}
	strbuf_release(&sb);
	strbuf_release(&err);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, commits = 10;
	char base[] = "/tmp/lkp-bench-stats-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	static const char job_text[] =
		"testcase: fio-basic\nvmstat:\nperf-stat:\nfio-setup-basic:\n  rw: write\nfio:\n";
	struct node *job = yml_load_one(job_text, "bench", &err);

	if (!mkdtemp(base) || !job)
		return 1;
	/* n result roots spread over `commits` commit directories */
	for (int i = 0; i < n; i++) {
		char *rt = xasprintf("%s/fio-basic/write/box/debian/defconfig/gcc-12/commit%d", base, i % commits);
		char *run;
		int no;
		if (result_claim_run(rt, &run, &no, &err)) {
			fprintf(stderr, "bench/stats: %s\n", err.buf);
			return 1;
		}
		char *p;
		p = xasprintf("%s/fio.output", run); copy("tests/fixtures/tools/fio-write.json", p); free(p);
		p = xasprintf("%s/vmstat", run); copy("tests/fixtures/tools/vmstat.txt", p); free(p);
		p = xasprintf("%s/perf-stat", run); copy("tests/fixtures/perf-stat/lkprobot-monitor", p); free(p);
		p = xasprintf("%s/fio.time", run); copy("tests/fixtures/tools/time-dd.txt", p); free(p);
		p = xasprintf("%s/time", run); copy("tests/fixtures/tools/time-dd.txt", p); free(p);
		free(run);
		free(rt);
	}

	double t0 = now();
	for (int c = 0; c < commits; c++) {
		char *rt = xasprintf("%s/fio-basic/write/box/debian/defconfig/gcc-12/commit%d", base, c);
		for (int r = 0; r * commits + c < n; r++) {
			char *run = xasprintf("%s/%d", rt, r);
			struct node *problems = node_new(NODE_MAP);
			if (result_extract(run, job, problems, NULL, &err) || problems->n) {
				fprintf(stderr, "bench/stats: %s: %s\n", run, err.len ? err.buf : "parser problem");
				return 1;
			}
			node_free(problems);
			free(run);
		}
		if (result_update_matrix(rt, &err)) {
			fprintf(stderr, "bench/stats: %s\n", err.buf);
			return 1;
		}
		free(rt);
	}
	double t = now() - t0;

	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("stats: %d result roots (fio + vmstat + perf-stat + time) parsed, reduced and %d matrices built in %.3f s = %.0f roots/s, peak RSS %.1f MiB\n",
	       n, commits, t, n / t, ru.ru_maxrss / 1024.0);

	char *cmd = xasprintf("rm -rf '%s'", base);
	int rc = system(cmd);
	free(cmd);
	node_free(job);
	strbuf_release(&err);
	return rc ? 1 : 0;
}

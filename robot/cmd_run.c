/*
 * lkprobot run: run job files on this machine, as `lkp run job.yaml` does
 * on a test box: a job file is split into atomic jobs first, each is run
 * (--runs times) by the engine into an LKP result root, and each run is
 * recorded in the store.
 */
#include "cmd.h"
#include "../lib/job/engine.h"
#include "../lib/job/job.h"
#include "../lib/util/json.h"
#include "../lib/sys/machine.h"
#include "../lib/run/program.h"
#include "../lib/util/units.h"
#include "runstore.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot run [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Run each atomic job of the job files on this machine: setups, monitors,\n"
	"the test, stats. Results go to <RESULT_ROOT_DIR>/<testcase>/<path_params>/\n"
	"<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/<run>, as lkp-tests lays\n"
	"them out, and each run is recorded in the store.\n"
	"\n"
	"  -o, --result-root DIR  RESULT_ROOT_DIR (default /lkp/result)\n"
	"      --runs N           run each atomic job N times (default 1)\n"
	"      --loop-disks[=SIZE] stand loop devices over sparse files in for the\n"
	"                         job's disks (default size 1G): a functional check on\n"
	"                         machines without spare disks; no pmem, no DAX\n"
	"      --fs-root DIR      mount the job's file systems under DIR (default /fs)\n"
	"      --timeout-margin S kill the test S seconds past its runtime (default:\n"
	"                         the runtime itself, at least 60)\n"
	"      --db FILE          the store (default <RESULT_ROOT_DIR>/lkprobot.db)\n"
	"      --no-store         do not record the runs in the store\n"
	"      --compatible-names also write the metric names of older reports\n"
	"                         (fio.write_clat_mean_us, perf-stat.ipc, ...)\n"
	"  -t, --testbox NAME     convert units against hosts/<NAME> (default: this machine)\n"
	"  -s, --set 'KEY: VALUE' override a key (also KEY=VALUE arguments)\n"
	"      --no-defaults      do not merge jobs/include defaults nor the host file\n"
	JOBOPTS_LKP_SRC_HELP
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 every run finished, 1 a run failed, timed out or was\n"
	"interrupted (its result root says which in job.yaml), 2 bad job file or usage\n";

enum { OPT_RUNS = 0x200, OPT_LOOP, OPT_FSROOT, OPT_MARGIN, OPT_DB, OPT_NOSTORE, OPT_OLDNAMES };


/* The test's own key metrics, the ones a report leads with. */
static void print_key_metrics(const struct node *job, const struct node *stats)
{
	for (size_t i = 0; stats && i < stats->n; i++) {
		const char *k = stats->keys[i];
		const char *dot = strchr(k, '.');
		const struct program *p;
		char prog[64];

		if (!dot || (size_t)(dot - k) >= sizeof(prog))
			continue;
		memcpy(prog, k, (size_t)(dot - k));
		prog[dot - k] = '\0';
		if (!(p = program_find(prog)) || p->kind != PROGRAM_TEST || !node_get(job, prog))
			continue;
		if (strstr(k, "bw_MBps") || strstr(k, "_iops") || strstr(k, "throughput") ||
		    strstr(k, "clat_mean") || !strcmp(dot, ".median") || strstr(k, ".time.elapsed_time"))
			printf("  %-40s %s\n", k, stats->vals[i]->str);
	}
}

int cmd_run(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		JOBOPTS_LONGOPTS,
		{ "result-root", required_argument, NULL, 'o' },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "loop-disks", optional_argument, NULL, OPT_LOOP },
		{ "fs-root", required_argument, NULL, OPT_FSROOT },
		{ "timeout-margin", required_argument, NULL, OPT_MARGIN },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-store", no_argument, NULL, OPT_NOSTORE },
		{ "compatible-names", no_argument, NULL, OPT_OLDNAMES },
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct job_env env;
	struct engine_opts eo = { .result_dir = "/lkp/result" };
	struct atomic_list jobs = { 0 };
	struct machine m = { 0 };
	struct strbuf err = STRBUF_INIT;
	const char *db = NULL;
	bool use_store = true;
	long runs = 1;
	int ret = EXIT_USAGE, c, r;
	char *end;

	jobopts_init(&jo);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:s:h", longopts, NULL)) != -1) {
		if ((r = jobopts_option(&jo, c, optarg, &err)) < 0)
			goto bad;
		if (r)
			continue;
		switch (c) {
		case 'o': eo.result_dir = optarg; break;
		case OPT_RUNS:
			if (jobopts_runs(optarg, &runs, &err))
				goto bad;
			break;
		case OPT_LOOP:
			eo.loop_disks = true;
			if (optarg && units_bytes(optarg, &eo.loop_size, &err)) {
				char *e = strbuf_detach(&err);
				strbuf_setf(&err, "--loop-disks: %s", e);
				free(e);
				goto bad;
			}
			break;
		case OPT_FSROOT: eo.fs_root = optarg; break;
		case OPT_MARGIN:
			eo.timeout_margin = (unsigned)strtoul(optarg, &end, 10);
			if (*end || !eo.timeout_margin) {
				strbuf_setf(&err, "--timeout-margin: '%s' is not a number of seconds", optarg);
				goto bad;
			}
			break;
		case OPT_DB: db = optarg; break;
		case OPT_NOSTORE: use_store = false; break;
		case OPT_OLDNAMES: eo.older_names = true; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	if (machine_get(&m, ctx->data_dir, jo.testbox, &err))
		goto bad;
	if (!jo.testbox)
		jo.testbox = m.hostname;
	jobopts_env(&jo, ctx, &env);
	if (jobopts_atomic_jobs(&jo, &env, &jobs, &err))
		goto bad;
	/* refuse what cannot run before running anything */
	for (size_t i = 0; i < jobs.n; i++)
		if (engine_check_here(jobs.v[i], &err))
			goto bad;
	eo.progress = isatty(2);

	struct runstore rs;
	if (runstore_open(&rs, use_store, db, eo.result_dir, &err))
		goto bad;
	ret = EXIT_OK;
	for (size_t i = 0; i < jobs.n; i++) {
		for (long k = 0; k < runs; k++) {
			struct engine_result res;
			if (engine_run(jobs.v[i], &m, &eo, &res, &err)) {
				ret = cmd_error(EXIT_FAIL, "%s", err.buf);
				continue;
			}
			printf("%s %s (test %.1f s)\n", res.job_state, res.run_dir, res.test_seconds);
			if (res.reason)
				printf("  reason: %s\n", res.reason);
			print_key_metrics(jobs.v[i], res.stats);
			for (size_t u = 0; res.facts && u < res.facts->n; u++)
				printf("  %s: %s\n", res.facts->keys[u], res.facts->vals[u]->str);
			if (res.unavailable && res.unavailable->n)
				printf("  %zu thing(s) not measured here (see 'unavailable' in job.yaml)\n",
				       res.unavailable->n);
			if (runstore_record_dir(&rs, res.run_dir, &err))
				cmd_warn("%s", err.buf);
			if (strcmp(res.job_state, "finished"))
				ret = EXIT_FAIL;
			engine_result_release(&res);
		}
	}
	runstore_close(&rs);
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	jobopts_atomic_release(&jobs);
	machine_release(&m);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

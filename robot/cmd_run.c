/*
 * lkprobot run: run job files on this machine, as `lkp run job.yaml` does
 * on a test box: a job file is split into atomic jobs first, each is run
 * (--runs times) by the local provider (the engine, in the current
 * directory) into an LKP result root, and each run is recorded in the store.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/store/store.h"
#include "../lib/job/engine.h"
#include "../lib/job/job.h"
#include "../lib/util/json.h"
#include "../lib/sys/machine.h"
#include "../lib/run/program.h"
#include "../lib/util/units.h"
#include "../lib/util/yml.h"
#include "../flow/runjobs.h"
#include "../flow/runstore.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot run [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Run each atomic job of the job files on this machine: setups, monitors,\n"
	"the test, stats. Results go to <RESULT_ROOT_DIR>/<testcase>/<path_params>/\n"
	"<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/<run>, as lkp-tests lays\n"
	"them out, and each run is recorded in the store.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 every run finished, 1 a run failed, timed out or was\n"
	"interrupted (its result root says which in job.yaml), 2 bad job file or usage\n";

/* The key figures of the job's tests (their programs' headline metrics), the ones a report leads with. */
static void print_key_metrics(const struct node *job, const struct node *stats)
{
	for (size_t i = 0; stats && i < stats->n; i++) {
		const char *k = stats->keys[i];

		if (program_metric_headline(k) && node_get(job, program_of_metric(k)->name)) {
			struct strbuf name = STRBUF_INIT;
			strbuf_add_name(&name, k); /* a result root's stats.json may be anyone's */
			printf("  %-40s %s\n", name.buf, stats->vals[i]->str);
			strbuf_release(&name);
		}
	}
}

/* A run as `run` says it: state, result root, test time, key metrics, the facts and what was not measured (job.yaml's). */
static void print_run(const struct node *job, const struct provider_run *r)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char *jp = xasprintf("%s/job.yaml", r->run_dir);
	struct node *done =
		!strbuf_read_bounded(&text, jp, JOB_MAX_BYTES, NULL) ? yml_load_one(text.buf, jp, &err) : NULL;
	struct node *stats = runjobs_stats(r->run_dir);
	const struct node *facts = node_get(done, "facts"), *unavailable = node_get(done, "unavailable");

	printf("%s %s %s\n", r->job_state, r->run_dir, r->summary ? r->summary : "");
	if (r->reason) {
		struct strbuf why = STRBUF_INIT;
		strbuf_add_name(&why, r->reason);
		printf("  reason: %s\n", why.buf);
		strbuf_release(&why);
	}
	print_key_metrics(job, stats);
	/* the machine in one line, as the reports name it; then the other facts */
	const char *nt = node_str(node_get(facts, "nr_threads")), *cpu = node_str(node_get(facts, "cpu"));
	const char *mem = node_str(node_get(facts, "memory"));
	if (nt || cpu || mem)
		printf("  machine: %s%s%s%s%s%s\n", nt ? nt : "", nt ? " threads " : "", cpu ? cpu : "",
		       mem ? " with " : "", mem ? mem : "", mem ? " memory" : "");
	for (size_t u = 0; facts && facts->type == NODE_MAP && u < facts->n; u++)
		if (strcmp(facts->keys[u], "nr_threads") && strcmp(facts->keys[u], "cpu") &&
		    strcmp(facts->keys[u], "memory"))
			printf("  %s: %s\n", facts->keys[u], node_str(facts->vals[u]) ? node_str(facts->vals[u]) : "");
	if (unavailable && unavailable->n)
		printf("  %zu thing(s) not measured here (see 'unavailable' in job.yaml)\n", unavailable->n);
	node_free(stats);
	node_free(done);
	free(jp);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* --loop-disks[=SIZE]: the local provider's loop_disks, and loop_size when given (a size) */
static int take_loop(const struct opt *o, const char *value, struct strbuf *err)
{
	uint64_t size;

	if (value && units_bytes(value, &size, err))
		return -1;
	provider_options_set(o->dst, "loop_disks", "true", err);
	return value ? provider_options_set(o->dst, "loop_size", value, err) : 0;
}

/* --timeout-margin S: seconds, more than 0 */
static int take_margin(const struct opt *o, const char *value, struct strbuf *err)
{
	if (opt_provider_set(o, value, err) || !strtoul(value, NULL, 10)) {
		strbuf_setf(err, "'%s' is not a number of seconds", value);
		return -1;
	}
	return 0;
}

int cmd_run(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	const struct provider_ops *local = provider_find("local");
	struct provider_options *opts = provider_options_new(local);
	const char *result_dir = STORE_RESULT_ROOT;
	const char *db = NULL;
	bool use_store = true;
	long runs = 1;
	const struct opt table[] = {
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &result_dir),
		JOBOPTS_RUNS("run each atomic job N times (default 1)", &runs),
		OPT_CALL(0, "loop-disks", "[=SIZE]",
			 "stand loop devices over sparse files in for the\n"
			 "job's disks (default size 1G): a functional check on\n"
			 "machines without spare disks; no pmem, no DAX",
			 take_loop, opts),
		OPT_PROVIDER(0, "fs-root", "DIR", "mount the job's file systems under DIR (default /fs)", "fs_root",
			     opts),
		{ .kind = OPTK_CALL,
		  .name = "timeout-margin",
		  .arg = "S",
		  .help = "kill the test S seconds past its runtime (default:\nthe runtime itself, at least 60)",
		  .fn = take_margin,
		  .key = "timeout_margin",
		  .dst = opts },
		OPT_STRING(0, "db", "FILE", "the store (default <RESULT_ROOT_DIR>/lkprobot.db)", &db),
		OPT_NO(0, "no-store", "do not record the runs in the store", &use_store),
		OPT_PROVIDER(
			0, "compatible-names", NULL,
			"also write the metric names of older reports\n(fio.write_clat_mean_us, perf-stat.ipc, ...)",
			"compatible_names", opts),
		JOBOPTS_ROWS(&jo, "convert units against hosts/<NAME> (default: this machine)"),
		OPT_END(),
	};
	struct job_env env;
	struct atomic_list jobs = { 0 };
	struct machine m = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret;

	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	const char *given = jo.testbox;	/* the provider's machine: NULL is this one */
	if (machine_get(&m, ctx->data_dir, jo.testbox, &err))
		goto bad;
	if (!jo.testbox)
		jo.testbox = m.hostname;
	jobopts_env(&jo, ctx->data_dir, &env);
	if (jobopts_atomic_jobs(&jo, &env, &jobs, &err))
		goto bad;
	/* refuse what cannot run before running anything */
	for (size_t i = 0; i < jobs.n; i++)
		if (engine_check_here(jobs.v[i], &err))
			goto bad;

	struct runstore rs;
	if (runstore_open(&rs, use_store, db, result_dir, &err)) {
		ret = say_error(store_fault(errno) ? EXIT_FAIL : EXIT_USAGE, "%s",
				err.buf); /* a full disk is no bad input */
		goto out;
	}
	/* the local provider without a tree: the job as it is, here */
	struct provider_config pc = { .result_dir = result_dir, .data_dir = ctx->data_dir, .testbox = given,
				      .progress = isatty(2), .opts = opts };
	struct provider *p = provider_open(local, &pc, &err);
	if (!p || local->prepare(p, NULL, &err)) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
		if (p)
			local->close(p);
		runstore_close(&rs);
		goto out;
	}
	struct runjobs rj = { .ops = local, .p = p, .rs = &rs, .runs = runs, .print = print_run };
	ret = runjobs(&rj, jobs.v, jobs.n);
	local->close(p);
	runstore_close(&rs);
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	jobopts_atomic_release(&jobs);
	machine_release(&m);
	provider_options_free(opts);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

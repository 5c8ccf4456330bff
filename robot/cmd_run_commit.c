/*
 * lkprobot run-commit: one run of an atomic job on one commit through a
 * provider (local or qemu), its outcome written to a status file. It is
 * what a farm's node runs for the slurm provider: the batch script execs
 * it with an argv, and the robot reads the status file from the shared
 * result directory (a job's own file, not Slurm's accounting, says how it
 * went).
 */
#include "cmd.h"
#include "../lib/sys/fsutil.h"
#include "../lib/util/json.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/run/run.h"
#include "../lib/util/yml.h"
#include "../providers/provider.h"
#include "../providers/qemu.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot run-commit --provider P --tree DIR --commit ID -o DIR --status FILE\n"
	"                           [--cache DIR] [--kconfig NAME] [-t TESTBOX] [--accel A] ATOMIC_JOB.yaml\n"
	"(--cache: default $LKPROBOT_CACHE, else /var/cache/lkprobot; --accel: qemu's\n"
	"kvm, tcg or auto, default $LKPROBOT_ACCEL, else auto)\n"
	"\n"
	"Prepare the commit with the provider (local: check it out; qemu: build its\n"
	"kernel), run the atomic job once into a new result root under -o, and write\n"
	"the outcome to FILE as JSON: run_dir, job_state, untestable, reason, node\n"
	"($SLURMD_NODENAME, else the host name). Used by the slurm provider on a node.\n"
	"\n"
	"exit codes: 0 the status file is written (whatever the job's state), 1 it\n"
	"could not be, 2 usage\n";

static void status_json(struct strbuf *b, const struct provider_run *r, const char *reason)
{
	char host[256] = "";
	const char *node = getenv("SLURMD_NODENAME");

	if (!node) {
		gethostname(host, sizeof(host) - 1);
		node = host;
	}
	strbuf_addstr(b, "{\"run_dir\": ");
	if (r->run_dir)
		json_emit_string(b, r->run_dir);
	else
		strbuf_addstr(b, "null");
	strbuf_addstr(b, ", \"job_state\": ");
	json_emit_string(b, r->job_state ? r->job_state : "failed");
	strbuf_addf(b, ", \"untestable\": %s, \"reason\": ", r->untestable ? "true" : "false");
	if (reason)
		json_emit_string(b, reason);
	else
		strbuf_addstr(b, "null");
	strbuf_addstr(b, ", \"node\": ");
	json_emit_string(b, node);
	strbuf_addstr(b, "}\n");
}

int cmd_run_commit(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "provider", required_argument, NULL, 'P' },
		{ "tree", required_argument, NULL, 'T' },
		{ "commit", required_argument, NULL, 'C' },
		{ "status", required_argument, NULL, 'S' },
		{ "cache", required_argument, NULL, 'c' },
		{ "kconfig", required_argument, NULL, 'k' },
		{ "accel", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *provider = NULL, *tree = NULL, *commit = NULL, *status = NULL, *cache = NULL, *kconfig = NULL;
	const char *result_dir = NULL, *testbox = NULL, *accel = NULL;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, out = STRBUF_INIT;
	struct provider_run r = { 0 };
	struct provider *p = NULL;
	struct node *job = NULL;
	int c, ret = EXIT_FAIL;

	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': provider = optarg; break;
		case 'T': tree = optarg; break;
		case 'C': commit = optarg; break;
		case 'S': status = optarg; break;
		case 'c': cache = optarg; break;
		case 'k': kconfig = optarg; break;
		case 'o': result_dir = optarg; break;
		case 't': testbox = optarg; break;
		case 'A': accel = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	if (!provider || !tree || !commit || !status || !result_dir || optind != argc - 1)
		return cmd_error(EXIT_USAGE, "run-commit needs --provider, --tree, --commit, -o, --status and one job file");
	const struct provider_ops *ops = provider_find(provider);
	if (!ops || !strcmp(provider, "slurm"))
		return cmd_error(EXIT_USAGE, "--provider: '%s' is not a provider a node runs (local, qemu)", provider);
	if (accel && qemu_accel_option(accel, &err)) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	char data_real[PATH_MAX], res_real[PATH_MAX];
	if (!realpath(ctx->data_dir, data_real) || fsutil_mkdir_p(result_dir) || !realpath(result_dir, res_real))
		return cmd_error(EXIT_FAIL, "cannot find lkprobot's data or the result directory '%s'", result_dir);
	if (strbuf_read_file(&text, argv[optind]))
		return cmd_error(EXIT_USAGE, "cannot read the job '%s': %s", argv[optind], strerror(errno));
	if (!(job = yml_load_one(text.buf, argv[optind], &err))) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	struct strbuf cache_dir = STRBUF_INIT;
	if (cache)
		strbuf_addstr(&cache_dir, cache);
	else
		kbuild_cache_dir(&cache_dir);	/* as bisect's: $LKPROBOT_CACHE, /var/cache/lkprobot */
	struct provider_config pc = { .tree = tree, .result_dir = res_real, .cache = cache_dir.buf,
				      .data_dir = data_real, .kconfig = kconfig, .testbox = testbox,
				      /* two runs on one node share its work tree: one waits for the other */
				      .lock_wait = run_job_timeout(job) + RUN_JOB_MARGIN };
	const char *reason = NULL;
	if (fsutil_mkdir_p(pc.cache) || !(p = ops->open(&pc, &err))) {
		r.job_state = "failed";
		reason = err.len ? err.buf : "cannot create the cache";
	} else {
		int rc = ops->prepare(p, commit, &err);
		if (rc) {
			r.job_state = rc > 0 ? "build_failed" : "failed";
			r.untestable = rc > 0;
			reason = err.buf;
		} else if (ops->run_job(p, job, &r, &err)) {
			r.job_state = "failed";
			reason = err.buf;
		} else {
			reason = r.reason;
		}
	}
	status_json(&out, &r, reason);
	if (fsutil_write_atomic(status, out.buf, out.len, &err)) {
		ret = cmd_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	ret = EXIT_OK;
out:
	if (p)
		ops->close(p);
	provider_run_release(&r);
	node_free(job);
	strbuf_release(&cache_dir);
	strbuf_release(&err);
	strbuf_release(&text);
	strbuf_release(&out);
	return ret;
}

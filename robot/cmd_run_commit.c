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
	"                           [--cache DIR] [--kconfig NAME] [-t TESTBOX] [--accel A] [provider options]\n"
	"                           ATOMIC_JOB.yaml\n"
	"(--cache: default $LKPROBOT_CACHE, else /var/cache/lkprobot; --accel: qemu's\n"
	"kvm, tcg or auto, default $LKPROBOT_ACCEL, else auto)\n"
	"\n"
	"Prepare the commit with the provider (local: check it out; qemu: build its\n"
	"kernel), run the atomic job once into a new result root under -o, and write\n"
	"the outcome to FILE as JSON: run_dir, job_state, untestable, reason, node\n"
	"($SLURMD_NODENAME, else the host name). What a farm's box runs for the slurm\n"
	"provider; on a Slurm node the local provider keeps a work tree of its own\n"
	"for the node ($SLURMD_NODENAME), so that boxes sharing the cache do not wait\n"
	"for one another.\n"
	"\n"
	"exit codes: 0 the status file is written (whatever the job's state), 1 it\n"
	"could not be, 2 usage\n";

enum { OPT_PROVIDER_BASE = 0x800 };

/* The provider a node runs called name, else NULL with the usage error said. */
static const struct provider_ops *node_provider(const char *name)
{
	const struct provider_ops *ops = provider_find(name);

	if (!ops || !(ops->caps & PROVIDER_ON_NODE)) {
		struct strbuf names = STRBUF_INIT;
		for (const struct provider_ops *const *o = provider_all(); *o; o++)
			if ((*o)->caps & PROVIDER_ON_NODE)
				strbuf_addf(&names, "%s%s", names.len ? ", " : "", (*o)->name);
		cmd_error(EXIT_USAGE, "--provider: '%s' is not a provider a node runs (%s)", name, names.buf);
		strbuf_release(&names);
		return NULL;
	}
	return ops;
}

/*
 * Open the provider, prepare commit, run the job once into r: whatever
 * happens is in r (a commit that does not build: build_failed, untestable),
 * and *reason says why it did not finish (err's or r's).
 */
static void run_once(const struct provider_ops *ops, const struct provider_config *pc, const char *commit,
		     struct node *job, struct provider_run *r, const char **reason, struct strbuf *err)
{
	struct provider *p = NULL;

	if (fsutil_mkdir_p(pc->cache) || provider_check(ops, pc, err) || !(p = provider_open(ops, pc, err))) {
		r->job_state = "failed";
		*reason = err->len ? err->buf : "cannot create the cache";
	} else {
		int rc = ops->prepare(p, commit, err);
		if (rc) {
			r->job_state = rc > 0 ? "build_failed" : "failed";
			r->untestable = rc > 0;
			*reason = err->buf;
		} else if (provider_run_job(ops, p, job, r, err)) {
			r->job_state = "failed";
			*reason = err->buf;
		} else {
			*reason = r->reason;
		}
	}
	if (p)
		ops->close(p);
}

/* The status file the farm reads back: EXIT_OK once it is written. */
static int write_status(const char *status, const struct provider_run *r, const char *reason)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char host[256] = "";
	const char *node = getenv("SLURMD_NODENAME");
	int ret = EXIT_OK;

	if (!node) {
		gethostname(host, sizeof(host) - 1);
		node = host;
	}
	provider_status_json(&out, r, reason, r->node ? r->node : node);
	if (fsutil_write_atomic(status, out.buf, out.len, &err))
		ret = cmd_error(EXIT_FAIL, "%s", err.buf);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

int cmd_run_commit(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct option longopts[64] = {
		{ "provider", required_argument, NULL, 'P' },
		{ "tree", required_argument, NULL, 'T' },
		{ "commit", required_argument, NULL, 'C' },
		{ "status", required_argument, NULL, 'S' },
		{ "cache", required_argument, NULL, 'c' },
		{ "kconfig", required_argument, NULL, 'k' },
		{ "accel", required_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
	};
	const char *provider = NULL, *tree = NULL, *commit = NULL, *status = NULL, *cache = NULL, *kconfig = NULL;
	const char *result_dir = NULL, *testbox = NULL, *accel = NULL;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, cache_dir = STRBUF_INIT;
	struct provider_run r = { 0 };
	struct provider_cli cli = { 0 };
	struct provider_options *opts = NULL;
	const struct provider_ops *ops = NULL;
	struct node *job = NULL;
	int c, ret = EXIT_FAIL;

	size_t nl = 0;
	while (longopts[nl].name)
		nl++;
	provider_cli_longopts(longopts + nl, sizeof(longopts) / sizeof(longopts[0]) - nl - 1, OPT_PROVIDER_BASE);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:h", longopts, NULL)) != -1) {
		if (provider_cli_take(&cli, c, OPT_PROVIDER_BASE, optarg))
			continue;
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
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (!provider || !tree || !commit || !status || !result_dir || optind != argc - 1) {
		ret = cmd_error(EXIT_USAGE, "run-commit needs --provider, --tree, --commit, -o, --status and one job file");
		goto out;
	}
	if (!(ops = node_provider(provider))) {
		ret = EXIT_USAGE;
		goto out;
	}
	opts = provider_options_new(ops);
	if (provider_cli_apply(&cli, opts, &err) || (accel && qemu_accel_option(accel, &err))) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	char data_real[PATH_MAX], res_real[PATH_MAX];
	if (!realpath(ctx->data_dir, data_real) || fsutil_mkdir_p(result_dir) || !realpath(result_dir, res_real)) {
		ret = cmd_error(EXIT_FAIL, "cannot find lkprobot's data or the result directory '%s'", result_dir);
		goto out;
	}
	if (strbuf_read_file(&text, argv[optind])) {
		ret = cmd_error(EXIT_USAGE, "cannot read the job '%s': %s", argv[optind], strerror(errno));
		goto out;
	}
	if (!(job = yml_load_one(text.buf, argv[optind], &err))) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (cache)
		strbuf_addstr(&cache_dir, cache);
	else
		kbuild_cache_dir(&cache_dir);	/* as bisect's: $LKPROBOT_CACHE, /var/cache/lkprobot */
	struct provider_config pc = { .tree = tree, .result_dir = res_real, .cache = cache_dir.buf,
				      .data_dir = data_real, .kconfig = kconfig, .testbox = testbox,
				      .slot = getenv("SLURMD_NODENAME"), .opts = opts,
				      /* two runs on one node share its work tree: one waits for the other */
				      .lock_wait = run_job_timeout(job) + RUN_JOB_MARGIN };
	const char *reason = NULL;
	run_once(ops, &pc, commit, job, &r, &reason, &err);
	ret = write_status(status, &r, reason);
out:
	provider_options_free(opts);
	provider_cli_release(&cli);
	provider_run_release(&r);
	node_free(job);
	strbuf_release(&cache_dir);
	strbuf_release(&err);
	strbuf_release(&text);
	return ret;
}

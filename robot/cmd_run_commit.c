/*
 * lkprobot run-commit: one run of an atomic job on one commit through a
 * provider (local, qemu or ssh), its outcome written to a status file. It
 * is what a farm's node runs for the slurm provider — the batch script
 * execs it with an argv, and the robot reads the status file from the
 * shared result directory (a job's own file, not Slurm's accounting, says
 * how it went) — and what the ssh provider starts here for each box of a
 * tbox_group it runs on at once.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/sys/fsutil.h"
#include "../lib/job/job.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/run/run.h"
#include "../lib/util/yml.h"
#include "../providers/provider.h"
#include "../providers/qemu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot run-commit --provider P --tree DIR --commit ID -o DIR --status FILE\n"
	"                           [options] ATOMIC_JOB.yaml\n"
	"\n"
	"Prepare the commit with the provider (local: check it out; qemu, ssh: build\n"
	"its kernel), run the atomic job once into a new result root under -o, and\n"
	"write the outcome to FILE as JSON: run_dir, job_state, untestable, reason,\n"
	"node (the box, else $SLURMD_NODENAME, else the host name), stop (nothing\n"
	"could run: the provider did not open, the commit could not be prepared for\n"
	"a reason of this machine's, or the box is out of service). What a farm's box\n"
	"runs for the slurm provider, and the ssh provider for each box of a\n"
	"tbox_group; on a Slurm node the local provider keeps a work tree of its own\n"
	"for the node ($SLURMD_NODENAME), so that boxes sharing the cache do not wait\n"
	"for one another.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 the status file is written (whatever the job's state), 1 it\n"
	"could not be, 2 usage\n";

/* The provider a node runs called name, else NULL with the usage error said. */
static const struct provider_ops *node_provider(const char *name)
{
	const struct provider_ops *ops = provider_find(name);

	if (!ops || !(ops->caps & PROVIDER_ON_NODE)) {
		struct strbuf names = STRBUF_INIT;
		for (const struct provider_ops *const *o = provider_all(); *o; o++)
			if ((*o)->caps & PROVIDER_ON_NODE)
				strbuf_addf(&names, "%s%s", names.len ? ", " : "", (*o)->name);
		say_error(EXIT_USAGE, "--provider: '%s' is not a provider a node runs (%s)", name, names.buf);
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

	/* stop: what failed is this machine's or the box's, not the commit's */
	if (fsutil_mkdir_p(pc->cache) || provider_check(ops, pc, err) || !(p = provider_open(ops, pc, err))) {
		r->job_state = "failed";
		r->stop = true;
		*reason = err->len ? err->buf : "cannot create the cache";
	} else {
		int rc = ops->prepare(p, commit, err);
		if (rc) {
			r->job_state = rc > 0 ? "build_failed" : "failed";
			r->untestable = rc > 0;
			r->stop = rc < 0;
			*reason = err->buf;
		} else if (provider_run_job(ops, p, job, r, err)) {
			r->job_state = "failed";
			r->stop = true;
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
		ret = say_error(EXIT_FAIL, "%s", err.buf);
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

int cmd_run_commit(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *provider = NULL, *tree = NULL, *commit = NULL, *status = NULL, *cache = NULL, *kconfig = NULL;
	const char *result_dir = NULL, *testbox = NULL, *accel = NULL, *db = NULL, *kcflags = NULL;
	struct provider_cli cli = { 0 };
	struct opt prov[32];
	opt_provider_rows(prov, 32, &cli);
	const struct opt table[] = {
		OPT_STRING(0, "provider", "P", "the provider that prepares the commit and runs the job", &provider),
		OPT_STRING(0, "tree", "DIR", "the git repository", &tree),
		OPT_STRING(0, "commit", "ID", "the commit to test", &commit),
		OPT_STRING('o', "result-root", "DIR", "where the result root goes", &result_dir),
		OPT_STRING(0, "status", "FILE", "the outcome as JSON", &status),
		OPT_STRING(0, "cache", "DIR",
			   "kernels and work trees (default $LKPROBOT_CACHE, else /var/cache/lkprobot)", &cache),
		OPT_STRING(0, "kconfig", "NAME", "qemu, ssh: the kernel config", &kconfig),
		OPT_STRING(0, "kcflags", "FLAGS", "qemu, ssh: make's KCFLAGS of the build (the layout check's)",
			   &kcflags),
		OPT_STRING('t', "testbox", "NAME", "hosts/NAME describes the machine", &testbox),
		OPT_STRING(0, "accel", "A", "qemu: kvm, tcg or auto (default $LKPROBOT_ACCEL, else auto)", &accel),
		OPT_STRING(0, "db", "FILE",
			   "ssh: the store that keeps the boxes' state (default <result-root>/lkprobot.db)", &db),
		OPT_INCLUDE(prov),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT, cache_dir = STRBUF_INIT;
	struct provider_run r = { 0 };
	struct provider_options *opts = NULL;
	const struct provider_ops *ops = NULL;
	struct node *job = NULL;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_FAIL;
	if (!provider || !tree || !commit || !status || !result_dir || optind != argc - 1) {
		ret = say_error(EXIT_USAGE,
				"run-commit needs --provider, --tree, --commit, -o, --status and one job file");
		goto out;
	}
	if (!(ops = node_provider(provider))) {
		ret = EXIT_USAGE;
		goto out;
	}
	opts = provider_options_new(ops);
	if (provider_cli_apply(&cli, opts, &err) || (accel && qemu_accel_option(accel, &err))) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	char data_real[PATH_MAX], res_real[PATH_MAX];
	if (!realpath(ctx->data_dir, data_real) || fsutil_mkdir_p(result_dir) || !realpath(result_dir, res_real)) {
		ret = say_error(EXIT_FAIL, "cannot find lkprobot's data or the result directory '%s'", result_dir);
		goto out;
	}
	if (strbuf_read_bounded(&text, argv[optind], JOB_MAX_BYTES, NULL)) {
		ret = say_error(EXIT_USAGE, "cannot read the job '%s': %s", argv[optind], strerror(errno));
		goto out;
	}
	if (!(job = yml_load_one(text.buf, argv[optind], &err))) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (cache)
		strbuf_addstr(&cache_dir, cache);
	else
		kbuild_cache_dir(&cache_dir);	/* as bisect's: $LKPROBOT_CACHE, /var/cache/lkprobot */
	struct provider_config pc = { .tree = tree,
				      .result_dir = res_real,
				      .cache = cache_dir.buf,
				      .data_dir = data_real,
				      .kconfig = kconfig,
				      .kcflags = kcflags,
				      .testbox = testbox,
				      .db = db,
				      .slot = getenv("SLURMD_NODENAME"),
				      .opts = opts,
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

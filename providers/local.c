/*
 * provider local: the job runs on this machine through the engine — in a
 * checkout of the commit (one work tree reused across commits, so builds
 * in it stay incremental), where `command` builds and runs; or, without a
 * tree (`lkprobot run`), as it is, in the current directory. The work
 * tree is locked for as long as the provider is open: two bisections
 * checking out their commits in one tree would each measure the other's.
 * Boxes of a farm that share the cache (a slot each) have a work tree each.
 */
#include "provider.h"
#include "../lib/job/engine.h"
#include "../lib/sys/fsutil.h"
#include "../lib/kernel/git.h"
#include "../lib/sys/machine.h"
#include "../lib/util/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct provider {
	struct gitrepo *repo;	/* NULL: no tree, the job runs as it is */
	char *src;		/* the work tree */
	int lock_fd;		/* held on <src>.lock while we own the work tree */
	struct machine m;
	struct engine_opts eo;
	char *fs_root;
	struct provider_options *opts;	/* what it was opened with (reproduce.json) */
	char *loop_arg;			/* --loop-disks[=SIZE] (NULL: no loop disks) */
};

static const struct provider_option local_options[] = {
	{ "loop_disks", "loop-disks", PROVIDER_OPT_BOOL, 0, NULL,
	  "loop devices over sparse files stand in for the job's disks (lkprobot run --loop-disks)", NULL, NULL },
	{ "loop_size", "loop-size", PROVIDER_OPT_STRING, 0, "SIZE", "the size of each (default 1G)", NULL, NULL },
	{ "fs_root", "fs-root", PROVIDER_OPT_STRING, 0, "DIR", "where the job's file systems are mounted", NULL, NULL },
	{ "timeout_margin", "timeout-margin", PROVIDER_OPT_UINT, 0, "seconds", "the test is killed this long past its runtime",
	  NULL, NULL },
	{ "compatible_names", "compatible-names", PROVIDER_OPT_BOOL, 0, NULL, "also the metric names of older reports",
	  NULL, NULL },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL },
};

static void local_close(struct provider *p)
{
	if (!p)
		return;
	gitrepo_close(p->repo);
	machine_release(&p->m);
	if (p->lock_fd >= 0)
		close(p->lock_fd);
	free(p->src);
	free(p->fs_root);
	free(p->loop_arg);
	provider_options_free(p->opts);
	free(p);
}

static struct provider *local_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	const char *v;

	p->lock_fd = -1;
	p->eo = (struct engine_opts){ .result_dir = cfg->result_dir, .progress = cfg->progress,
				      .loop_disks = provider_opt_bool(cfg, "loop_disks"),
				      .older_names = provider_opt_bool(cfg, "compatible_names"),
				      .timeout_margin = (unsigned)provider_opt_uint(cfg, "timeout_margin", 0) };
	if ((v = provider_opt(cfg, "loop_size")) && units_bytes(v, &p->eo.loop_size, err))
		goto fail;
	if ((v = provider_opt(cfg, "fs_root")))
		p->eo.fs_root = p->fs_root = xstrdup(v);
	if (machine_get(&p->m, cfg->data_dir, cfg->testbox, err)) {
		free(p->fs_root);
		free(p);
		return NULL;
	}
	p->opts = cfg->opts ? provider_options_dup(cfg->opts) : NULL;
	if (p->eo.loop_disks)
		p->loop_arg = (v = provider_opt(cfg, "loop_size")) ? xasprintf("--loop-disks=%s", v) : xstrdup("--loop-disks");
	if (!cfg->tree)
		return p;
	if (gitrepo_open(&p->repo, cfg->tree, err))
		goto fail;
	/* one work tree per repository (and per box sharing the cache), in the cache */
	char hash[GITREPO_HEXSZ + 1];
	gitrepo_hash(cfg->tree, strlen(cfg->tree), hash);
	p->src = cfg->slot ? xasprintf("%s/src-%.12s-%s", cfg->cache, hash, cfg->slot)
			   : xasprintf("%s/src-%.12s", cfg->cache, hash);
	char *lock = xasprintf("%s.lock", p->src);
	p->lock_fd = fsutil_lock(lock, cfg->lock_wait > 0 ? cfg->lock_wait : 30, err);
	free(lock);
	if (p->lock_fd < 0) {
		strbuf_addstr(err, ": another run of this tree has its work tree; wait for it or give another --cache");
		goto fail;
	}
	if (fsutil_mkdir_p(p->src)) {
		strbuf_setf(err, "cannot create the work tree '%s'", p->src);
		goto fail;
	}
	p->eo.src_dir = p->src;
	return p;
fail:
	local_close(p);
	return NULL;
}

static int local_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	if (!commit)
		return 0;	/* what is there */
	if (!p->repo) {
		strbuf_setf(why, "no tree to check %.12s out of", commit);
		return -1;
	}
	return gitrepo_checkout(p->repo, commit, p->src, NULL, why) ? -1 : 0;
}

static int local_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct engine_result er;

	memset(res, 0, sizeof(*res));
	if (engine_run(job, &p->m, &p->eo, &er, err))
		return -1;
	res->run_dir = xstrdup(er.run_dir);
	res->job_state = er.job_state;
	res->untestable = er.test_status == 125;
	res->reason = er.reason ? xstrdup(er.reason) : NULL;
	res->summary = xasprintf("(test %.1f s)", er.test_seconds);
	engine_result_release(&er);
	return 0;
}

static const char *local_kconfig(struct provider *p)
{
	(void)p;
	return NULL;	/* the job's own (defconfig) */
}

/*
 * `lkprobot run` with the options set (the loop disks' size is part of
 * --loop-disks; where this machine mounts the file systems is its own
 * business). With a tree it ran in the commit's checkout: the same
 * command in a checkout of the commit (the report says how to make one).
 */
static void local_reproduce(struct provider *p, struct provider_reproduce *r)
{
	static const char *const skip[] = { "loop_disks", "loop_size", "fs_root", NULL };

	r->command = "run";
	r->opts = p->opts;
	r->skip = skip;
	r->extra[0] = p->loop_arg;
}

const struct provider_ops provider_local = {
	.name = "local",
	.summary = "the job runs here, in a checkout of each commit",
	.caps = PROVIDER_ON_NODE,
	.options = local_options,
	.open = local_open,
	.prepare = local_prepare,
	.run_job = local_run_job,
	.kconfig = local_kconfig,
	.close = local_close,
	.reproduce = local_reproduce,
};

/*
 * provider local: the job runs on this machine through the engine, in a
 * checkout of the commit (one work tree reused across commits, so builds
 * in it stay incremental); `command` builds and runs there. The work tree
 * is locked for as long as the provider is open: two bisections checking
 * out their commits in one tree would each measure the other's.
 */
#include "provider.h"
#include "../lib/job/engine.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/kernel/git.h"
#include "../lib/sys/machine.h"
#include "../lib/results/result.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct provider {
	struct gitrepo *repo;
	char *src;		/* the work tree */
	int lock_fd;		/* held on <src>.lock while we own the work tree */
	const char *result_dir;
	struct machine m;
	bool progress;
};

static struct provider *local_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	char hash[GITREPO_HEXSZ + 1];

	if (gitrepo_open(&p->repo, cfg->tree, err)) {
		free(p);
		return NULL;
	}
	/* one work tree per repository, in the cache */
	gitrepo_hash(cfg->tree, strlen(cfg->tree), hash);
	p->src = xasprintf("%s/src-%.12s", cfg->cache, hash);
	char *lock = xasprintf("%s.lock", p->src);
	p->lock_fd = fsutil_lock(lock, cfg->lock_wait > 0 ? cfg->lock_wait : 30, err);
	free(lock);
	if (p->lock_fd < 0 || fsutil_mkdir_p(p->src)) {
		if (p->lock_fd >= 0) {
			strbuf_setf(err, "cannot create the work tree '%s'", p->src);
			close(p->lock_fd);
		} else {
			strbuf_addstr(err, ": another run of this tree has its work tree; wait for it or give another --cache");
		}
		gitrepo_close(p->repo);
		free(p->src);
		free(p);
		return NULL;
	}
	p->result_dir = cfg->result_dir;
	p->progress = cfg->progress;
	if (machine_get(&p->m, cfg->data_dir, cfg->testbox, err)) {
		close(p->lock_fd);
		gitrepo_close(p->repo);
		free(p->src);
		free(p);
		return NULL;
	}
	return p;
}

static int local_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	return gitrepo_checkout(p->repo, commit, p->src, NULL, why) ? -1 : 0;
}

static int local_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct engine_opts eo = { .result_dir = p->result_dir, .src_dir = p->src, .progress = p->progress };
	struct engine_result er;

	memset(res, 0, sizeof(*res));
	if (engine_run(job, &p->m, &eo, &er, err))
		return -1;
	res->run_dir = xstrdup(er.run_dir);
	res->job_state = er.job_state;
	res->untestable = er.test_status == 125;
	res->reason = er.reason ? xstrdup(er.reason) : NULL;
	engine_result_release(&er);
	return 0;
}

static const char *local_kconfig(struct provider *p)
{
	(void)p;
	return NULL;	/* the job's own (defconfig) */
}

static void local_close(struct provider *p)
{
	if (!p)
		return;
	gitrepo_close(p->repo);
	machine_release(&p->m);
	close(p->lock_fd);
	free(p->src);
	free(p);
}

const struct provider_ops provider_local = {
	.name = "local",
	.open = local_open,
	.prepare = local_prepare,
	.run_job = local_run_job,
	.kconfig = local_kconfig,
	.close = local_close,
};

const struct provider_ops *provider_find(const char *name)
{
	static const struct provider_ops *const all[] = { &provider_local, &provider_qemu, &provider_slurm, &provider_ssh };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (!strcmp(all[i]->name, name))
			return all[i];
	return NULL;
}

void provider_run_release(struct provider_run *r)
{
	free(r->run_dir);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

int provider_run_batch(const struct provider_ops *ops, struct provider *p, struct provider_batch_item *items, size_t n,
		       char **prepared, struct strbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		items[i].prepared = -1;
		items[i].built = false;
		memset(&items[i].res, 0, sizeof(items[i].res));
	}
	if (ops->run_batch)
		return ops->run_batch(p, items, n, prepared, err);
	for (size_t i = 0; i < n; i++) {
		struct provider_batch_item *it = &items[i];
		bool untestable = false, build_failed = false;
		for (size_t k = 0; k < i && !untestable; k++) {
			untestable = items[k].prepared == 1 && !strcmp(items[k].commit, it->commit);
			build_failed |= items[k].prepared == 0 && items[k].res.untestable && !strcmp(items[k].commit, it->commit);
		}
		if (untestable) {
			it->prepared = 1;
			it->res.reason = xstrdup("the commit cannot be tested (said earlier in this batch)");
			continue;
		}
		if (build_failed)
			continue;	/* its build failed in a run of this batch: the caller decides (not reached) */
		if (!*prepared || strcmp(*prepared, it->commit)) {
			struct strbuf why = STRBUF_INIT;
			int rc = ops->prepare(p, it->commit, &why);
			if (rc) {
				if (rc < 0) {
					strbuf_setf(err, "%s", why.buf);
					strbuf_release(&why);
					return -1;
				}
				it->prepared = 1;
				it->res.reason = strbuf_detach(&why);
				continue;
			}
			strbuf_release(&why);
			free(*prepared);
			*prepared = xstrdup(it->commit);
			it->built = true;
		}
		if (ops->run_job(p, it->job, &it->res, err))
			return -1;
		it->prepared = 0;
		if (proc_stop_signal)
			break;	/* stopped: the rest of the batch is not run */
	}
	return 0;
}

void provider_batch_release(struct provider_batch_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		provider_run_release(&items[i].res);
}

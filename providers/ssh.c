/*
 * provider ssh: each run on a real test box (providers/box.h): the
 * commit's kernel built here with kbuild, copied to the box, kexec'd into
 * with the job's boot_params, the job run there and its result root
 * brought home. A kernel the box cannot load or boot is a commit that
 * cannot be tested, as under QEMU; a box that keeps failing goes out of
 * service, and then the provider stops with an error rather than blame
 * the commits.
 */
#include "box.h"
#include "provider.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/sys/machine.h"
#include "../lib/store/store.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct provider {
	struct provider_config cfg;
	struct box box;
	struct machine m;
	struct store *store;
	char *kernel;		/* the prepared commit's bzImage */
	char *kconfig_name;
};

static void sshp_close(struct provider *p)
{
	if (!p)
		return;
	box_release(&p->box);
	machine_release(&p->m);
	store_close(p->store);
	free(p->kernel);
	free(p->kconfig_name);
	free(p);
}

static struct provider *sshp_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	char *db = cfg->db ? xstrdup(cfg->db) : xasprintf("%s/lkprobot.db", cfg->result_dir);

	p->cfg = *cfg;
	if (!cfg->box) {
		strbuf_setf(err, "provider ssh: which box? (--box NAME, one of the boxes file's)");
		goto fail;
	}
	if (box_load(cfg->boxes ? cfg->boxes : box_default_file(), cfg->box, &p->box, err) ||
	    machine_get(&p->m, cfg->data_dir, p->box.tbox_group, err) || !(p->store = store_open(db, err)) ||
	    box_connect(&p->box, err))
		goto fail;
	const char *kc = cfg->kconfig ? cfg->kconfig : KBUILD_DEFAULT_KCONFIG;
	p->kconfig_name = xstrdup(strrchr(kc, '/') ? strrchr(kc, '/') + 1 : kc);
	free(db);
	return p;
fail:
	free(db);
	sshp_close(p);
	return NULL;
}

static int sshp_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	struct kbuild_opts ko = { .tree = p->cfg.tree, .rev = commit, .kconfig = p->cfg.kconfig,
				  .data_dir = p->cfg.data_dir, .cache = p->cfg.cache, .progress = p->cfg.progress };
	struct kbuild_result kr;
	int rc = kbuild_build(&ko, &kr, why);

	free(p->kernel);
	p->kernel = NULL;
	if (!rc && !kr.built) {
		strbuf_setf(why, "the kernel does not build: %s", kr.error ? kr.error : "see build.log");
		rc = 1;
	} else if (!rc) {
		p->kernel = xasprintf("%s/bzImage", kr.dir);
	}
	kbuild_result_release(&kr);
	return rc;
}

static int sshp_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct box_run r;

	memset(res, 0, sizeof(*res));
	if (!p->kernel) {
		strbuf_setf(err, "no kernel prepared");
		return -1;
	}
	if (box_run(&p->box, p->kernel, job, &p->m, p->cfg.result_dir, p->store, &r, err))
		return -1;
	res->run_dir = r.run_dir;
	res->job_state = r.job_state;
	res->reason = r.reason;
	/* a kernel that does not boot cannot be measured: like a build failure */
	res->untestable = !strcmp(r.job_state, "boot_failed");
	r.run_dir = r.reason = NULL;
	box_run_release(&r);
	return 0;
}

static const char *sshp_kconfig(struct provider *p)
{
	return p->kconfig_name;
}

const struct provider_ops provider_ssh = {
	.name = "ssh",
	.open = sshp_open,
	.prepare = sshp_prepare,
	.run_job = sshp_run_job,
	.kconfig = sshp_kconfig,
	.close = sshp_close,
};

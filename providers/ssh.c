/*
 * provider ssh: each run on a real test box (providers/box.h): the
 * commit's kernel built here with kbuild, copied to the box, kexec'd into
 * with the job's boot_params, the job run there and its result root
 * brought home. A kernel the box cannot load or boot is a commit that
 * cannot be tested, as under QEMU; a box that keeps failing goes out of
 * service, and then the provider stops with an error rather than blame
 * the commits. Without a commit (`lkprobot box run`) the kernel is the
 * one its options name, else the one the box runs now.
 */
#include "box.h"
#include "provider.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/sys/machine.h"
#include "../lib/store/store.h"

#include <errno.h>
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
	char *kernel;		/* the prepared commit's bzImage (NULL: the box's own kernel) */
	char *given;		/* the kernel the options name */
	char *release;		/* ... its release: the result path's commit when the job names none */
	char *kconfig_name;
	struct provider_options *opts;	/* what it was opened with (reproduce.json) */
};

static const struct provider_option ssh_options[] = {
	{ "box", NULL, PROVIDER_OPT_STRING, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE | PROVIDER_OPT_REQUIRED, "NAME",
	  "the box of the boxes file (its tbox_group is the testbox)", NULL, NULL },
	{ "boxes", NULL, PROVIDER_OPT_STRING, PROVIDER_OPT_CLI | PROVIDER_OPT_SERVE, "FILE",
	  "the boxes file (default $LKPROBOT_BOXES, /etc/lkprobot/boxes.yaml)", NULL, NULL },
	{ "kernel", NULL, PROVIDER_OPT_STRING, 0, "BZIMAGE",
	  "boot this kernel (lkprobot box run -k); default: the one the box runs", NULL, NULL },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL },
};

static const char *boxes_file(const struct provider_config *cfg)
{
	const char *f = provider_opt(cfg, "boxes");
	return f ? f : box_default_file();
}

/* The box the options name, loaded (one: several boxes of a tbox_group in parallel are not built yet). */
static int first_box(const struct provider_config *cfg, struct box *b, struct strbuf *err)
{
	const char *name = provider_opt(cfg, "box");

	if (!name) {
		strbuf_setf(err, "provider ssh: which box? (--box NAME, one of the boxes file's)");
		return -1;
	}
	return box_load(boxes_file(cfg), name, b, err);
}

static int sshp_check(const struct provider_config *cfg, const char **key, struct strbuf *err)
{
	const char *k = provider_opt(cfg, "kernel");
	struct box b;

	*key = "box";
	if (first_box(cfg, &b, err))
		return -1;
	box_release(&b);
	if (k) {
		struct strbuf rel = STRBUF_INIT;
		int rc = box_kernel_release(k, &rel, err);
		*key = "kernel";
		strbuf_release(&rel);
		return rc;
	}
	return 0;
}

static int sshp_testbox(const struct provider_config *cfg, char **out, struct strbuf *err)
{
	struct box b;

	/* the box's tbox_group names its hosts/ file and the result path */
	if (first_box(cfg, &b, err))
		return -1;
	*out = xstrdup(b.tbox_group);
	box_release(&b);
	return 0;
}

static void sshp_close(struct provider *p)
{
	if (!p)
		return;
	box_release(&p->box);
	machine_release(&p->m);
	store_close(p->store);
	free(p->kernel);
	free(p->given);
	free(p->release);
	free(p->kconfig_name);
	provider_options_free(p->opts);
	free(p);
}

static struct provider *sshp_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	char *db = cfg->db ? xstrdup(cfg->db) : xasprintf("%s/lkprobot.db", cfg->result_dir);
	const char *k = provider_opt(cfg, "kernel");

	p->cfg = *cfg;
	p->cfg.opts = NULL;	/* read here, not kept */
	p->opts = cfg->opts ? provider_options_dup(cfg->opts) : NULL;
	if (first_box(cfg, &p->box, err) || machine_get(&p->m, cfg->data_dir, p->box.tbox_group, err) ||
	    !(p->store = store_open(db, err)) || box_connect(&p->box, err))
		goto fail;
	const char *kc = cfg->kconfig ? cfg->kconfig : KBUILD_DEFAULT_KCONFIG;
	p->kconfig_name = xstrdup(strrchr(kc, '/') ? strrchr(kc, '/') + 1 : kc);
	if (k) {
		struct strbuf rel = STRBUF_INIT;
		if (box_kernel_release(k, &rel, err)) {
			strbuf_release(&rel);
			goto fail;
		}
		p->given = xstrdup(k);
		p->release = strbuf_detach(&rel);
	}
	free(db);
	return p;
fail:
	free(db);
	sshp_close(p);
	return NULL;
}

static int sshp_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	free(p->kernel);
	p->kernel = NULL;
	if (!commit) {
		p->kernel = p->given ? xstrdup(p->given) : NULL;
		return 0;
	}
	struct kbuild_opts ko = { .tree = p->cfg.tree, .rev = commit, .kconfig = p->cfg.kconfig,
				  .data_dir = p->cfg.data_dir, .cache = p->cfg.cache, .progress = p->cfg.progress };
	struct kbuild_result kr;
	int rc = kbuild_build(&ko, &kr, why);

	if (!rc && !kr.built) {
		strbuf_setf(why, PROVIDER_NO_BUILD "%s", kr.error ? kr.error : "see build.log");
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
	if (!p->kernel && p->cfg.tree) {
		strbuf_setf(err, "no kernel prepared");
		return -1;
	}
	/* the result path's commit: the kernel's release, when the job names no commit */
	if (p->release && p->kernel && !node_str(node_get(job, "commit")))
		node_set(job, "commit", node_new_scalar(p->release));
	if (box_run(&p->box, p->kernel, job, &p->m, p->cfg.result_dir, p->store, &r, err))
		return -1;
	res->run_dir = r.run_dir;
	res->job_state = r.job_state;
	res->reason = r.reason;
	/* a kernel that does not boot cannot be measured: like a build failure */
	res->untestable = !strcmp(r.job_state, "boot_failed");
	res->stop = r.out_of_service;
	res->node = xstrdup(p->box.name);
	r.run_dir = r.reason = NULL;
	box_run_release(&r);
	return 0;
}

static const char *sshp_kconfig(struct provider *p)
{
	return p->kconfig_name;
}

/* `lkprobot box run NAME` with the kernel given by hand (the boxes file is this site's: not named). */
static void sshp_reproduce(struct provider *p, struct provider_reproduce *r)
{
	static const char *const skip[] = { "box", "boxes", NULL };

	r->command = "box run";
	r->arg = p->box.name;
	r->opts = p->opts;
	r->skip = skip;
}

const struct provider_ops provider_ssh = {
	.name = "ssh",
	.summary = "each commit's kernel is kexec'd into on a real test box (see 'lkprobot box')",
	.caps = PROVIDER_BUILDS_KERNELS | PROVIDER_BOOTS | PROVIDER_NEEDS_BOX,
	.options = ssh_options,
	.check = sshp_check,
	.testbox = sshp_testbox,
	.open = sshp_open,
	.prepare = sshp_prepare,
	.run_job = sshp_run_job,
	.kconfig = sshp_kconfig,
	.close = sshp_close,
	.reproduce = sshp_reproduce,
};

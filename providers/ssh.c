/*
 * provider ssh: each run on a real test box (providers/box.h): the
 * commit's kernel built here with kbuild, copied to the box, kexec'd into
 * with the job's boot_params, the job run there and its result root
 * brought home. A kernel the box cannot load or boot is a commit that
 * cannot be tested, as under QEMU; a box that keeps failing goes out of
 * service, and then the provider stops with an error rather than blame
 * the commits. Without a commit (`lkprobot box run`) the kernel is the
 * one its options name, else the one the box runs now.
 *
 * `box:` may name a tbox_group instead of a box (a name that is not a
 * box's): then the runs of a batch go to the group's boxes at once, each
 * box one run at a time (ssh_group.c), and the kernels are built by the
 * runs (one build at a time in the kernel cache, the others' runs going on).
 */
#include "ssh_int.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/store/store.h"
#include "../lib/sys/fsutil.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct provider_option ssh_options[] = {
	{ "box", NULL, PROVIDER_OPT_STRING, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE | PROVIDER_OPT_REQUIRED, "NAME",
	  "the box of the boxes file (its tbox_group is the testbox), or a tbox_group: its boxes run at once", NULL,
	  NULL },
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

static void members_free(char **members, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(members[i]);
	free(members);
}

/*
 * What the box option names: a box of the boxes file (*members NULL), else
 * a tbox_group — the boxes whose tbox_group it is, in the file's order
 * (*n >= 1; each one's entry checked). 0, or -1 with err set.
 */
static int ssh_target(const struct provider_config *cfg, char ***members, size_t *n, struct strbuf *err)
{
	const char *name = provider_opt(cfg, "box"), *file = boxes_file(cfg);
	char **names;
	size_t nn;
	int ret = -1;

	*members = NULL;
	*n = 0;
	if (!name) {
		strbuf_setf(err, "provider ssh: which box? (--box NAME, one of the boxes file's)");
		return -1;
	}
	if (box_names(file, &names, &nn, err))
		return -1;
	for (size_t i = 0; i < nn; i++)
		if (!strcmp(names[i], name)) {
			ret = 0;	/* a box */
			goto out;
		}
	char **groups = xcalloc(nn + 1, sizeof(char *));	/* each box's tbox_group, for the error */
	for (size_t i = 0; i < nn; i++) {
		struct box b;
		if (box_load(file, names[i], &b, err)) {
			members_free(groups, nn);
			members_free(*members, *n);
			*members = NULL;
			*n = 0;
			goto out;
		}
		if (!strcmp(b.tbox_group, name)) {
			*members = xrealloc(*members, (*n + 2) * sizeof(char *));
			(*members)[(*n)++] = xstrdup(names[i]);
			(*members)[*n] = NULL;
		}
		groups[i] = xstrdup(b.tbox_group);
		box_release(&b);
	}
	if (*n) {
		ret = 0;
	} else {
		struct strbuf list = STRBUF_INIT;
		for (size_t i = 0; i < nn; i++) {
			bool seen = false;
			for (size_t j = 0; j < i; j++)
				seen |= !strcmp(groups[j], groups[i]);
			if (!seen)
				strbuf_addf(&list, "%s%s", list.len ? ", " : "", groups[i]);
		}
		strbuf_setf(err, "%s: no box and no tbox_group '%s' in boxes: (tbox_groups: %s; 'lkprobot box list' shows the boxes)",
			    file, name, list.len ? list.buf : "none");
		strbuf_release(&list);
	}
	members_free(groups, nn);
out:
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* What the box option names: a tbox_group (*group), or one box, loaded into b. 0, or -1 with err set. */
static int ssh_resolve(const struct provider_config *cfg, struct box *b, bool *group, struct strbuf *err)
{
	char **members;
	size_t n;

	if (ssh_target(cfg, &members, &n, err))
		return -1;
	*group = members != NULL;
	members_free(members, n);
	return *group ? 0 : box_load(boxes_file(cfg), provider_opt(cfg, "box"), b, err);
}

static int sshp_check(const struct provider_config *cfg, const char **key, struct strbuf *err)
{
	const char *k = provider_opt(cfg, "kernel");
	struct box b;
	bool group;

	*key = "box";
	if (ssh_resolve(cfg, &b, &group, err))
		return -1;
	if (group)
		return 0;
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
	bool group;

	/* the box's tbox_group (or the group named) names its hosts/ file and the result path */
	if (ssh_resolve(cfg, &b, &group, err))
		return -1;
	*out = xstrdup(group ? provider_opt(cfg, "box") : b.tbox_group);
	if (!group)
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
	free(p->built);
	free(p->given);
	free(p->release);
	free(p->kconfig_name);
	provider_options_free(p->opts);
	free(p->group);
	for (size_t k = 0; p->gone && k < p->nmembers; k++)
		free(p->gone[k]);
	free(p->gone);
	members_free(p->members, p->nmembers);
	free(p->boxes);
	free(p->spool);
	free(p);
}

/* The group's side of open: the spool, this lkprobot's path. 0, or -1 with err set. */
static int group_open(struct provider *p, const struct provider_config *cfg, struct strbuf *err)
{
	ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);

	p->group = xstrdup(provider_opt(cfg, "box"));
	p->boxes = xstrdup(boxes_file(cfg));
	p->spool = xasprintf("%s/.ssh", cfg->result_dir);
	p->gone = xcalloc(p->nmembers + 1, sizeof(char *));
	if (n <= 0) {
		strbuf_setf(err, "cannot tell where this lkprobot is (/proc/self/exe)");
		return -1;
	}
	p->exe[n] = '\0';
	if (fsutil_mkdir_p(p->spool)) {
		strbuf_setf(err, "cannot create '%s': %s", p->spool, strerror(errno));
		return -1;
	}
	return 0;
}

static struct provider *sshp_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	char *db = store_default_path(cfg->db, cfg->result_dir);
	const char *k = provider_opt(cfg, "kernel");

	p->cfg = *cfg;
	p->cfg.opts = NULL;	/* read here, not kept */
	p->opts = cfg->opts ? provider_options_dup(cfg->opts) : NULL;
	if (ssh_target(cfg, &p->members, &p->nmembers, err))
		goto fail;
	if (p->members) {
		/* a group: its runs' children reach the boxes; here the store tells which are in service */
		if (group_open(p, cfg, err) || machine_get(&p->m, cfg->data_dir, p->group, err) ||
		    !(p->store = store_open(db, err)))
			goto fail;
	} else if (box_load(boxes_file(cfg), provider_opt(cfg, "box"), &p->box, err) ||
		   machine_get(&p->m, cfg->data_dir, p->box.tbox_group, err) || !(p->store = store_open(db, err)) ||
		   box_connect(&p->box, err)) {
		goto fail;
	}
	const char *kc = cfg->kconfig ? cfg->kconfig : KBUILD_DEFAULT_KCONFIG;
	p->kconfig_name = kbuild_kconfig_name(kc, cfg->kcflags);
	p->kconfig_arg = kbuild_config_portable(cfg->kconfig, cfg->data_dir);
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
	free(p->built);
	p->kernel = p->built = NULL;
	if (p->group) {
		/* its runs build it on their way to a box (sshp_run_batch) */
		strbuf_setf(why, "provider ssh: a tbox_group runs batches of runs, not one prepared commit");
		return -1;
	}
	if (!commit) {
		p->kernel = p->given ? xstrdup(p->given) : NULL;
		return 0;
	}
	struct kbuild_opts ko = { .tree = p->cfg.tree,
				  .rev = commit,
				  .kconfig = p->cfg.kconfig,
				  .kcflags = p->cfg.kcflags,
				  .data_dir = p->cfg.data_dir,
				  .cache = p->cfg.cache,
				  .progress = p->cfg.progress };
	struct kbuild_result kr;
	int rc = kbuild_build(&ko, &kr, why);

	if (!rc && !kr.built) {
		strbuf_setf(why, PROVIDER_NO_BUILD "%s", kr.error ? kr.error : "see build.log");
		rc = 1;
	} else if (!rc) {
		p->kernel = xasprintf("%s/bzImage", kr.dir);
		p->built = xstrdup(kr.commit);
	}
	kbuild_result_release(&kr);
	return rc;
}

static int sshp_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct box_run r;

	memset(res, 0, sizeof(*res));
	if (p->group) {
		strbuf_setf(err, "provider ssh: a tbox_group runs batches of runs, not one prepared commit");
		return -1;
	}
	if (!p->kernel && p->cfg.tree) {
		strbuf_setf(err, "no kernel prepared");
		return -1;
	}
	/* the result path's commit, when the job names none: the commit built, else the given kernel's release */
	if (!node_str(node_get(job, "commit")) && (p->built || (p->release && p->kernel)))
		node_set(job, "commit", node_new_scalar(p->built ? p->built : p->release));
	/* and the configuration it was built with, as a bisection's runs name it */
	if (p->built && !node_str(node_get(job, "kconfig")))
		node_set(job, "kconfig", node_new_scalar(p->kconfig_name));
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

extern const struct provider_ops provider_ssh;

static int sshp_run_batch(struct provider *p, struct provider_batch_item *items, size_t n, char **prepared,
			  struct strbuf *err)
{
	if (p->group)
		return ssh_group_run_batch(p, items, n, err);
	return provider_run_serial(&provider_ssh, p, items, n, prepared, err);
}

static size_t sshp_slots(struct provider *p)
{
	return p->group ? ssh_group_slots(p) : 1;
}

static const char *sshp_kconfig(struct provider *p)
{
	return p->kconfig_name;
}

/*
 * `lkprobot box run NAME`: the commit built from the tree (--tree linux
 * --commit C), else the kernel given by hand, else the box's own (the
 * boxes file is this site's: not named).
 */
static void sshp_reproduce(struct provider *p, struct provider_reproduce *r)
{
	static const char *const skip[] = { "box", "boxes", NULL };
	static const char *const skip_built[] = { "box", "boxes", "kernel", NULL };

	r->command = "box run";
	r->arg = p->box.name;
	r->opts = p->opts;
	r->skip = p->built ? skip_built : skip;
	if (p->built) {
		r->commit = p->built;
		r->kconfig = p->kconfig_arg;
		r->kcflags = p->cfg.kcflags;
	}
}

const struct provider_ops provider_ssh = {
	.name = "ssh",
	.summary = "each commit's kernel is kexec'd into on a real test box (see 'lkprobot box')",
	.caps = PROVIDER_BUILDS_KERNELS | PROVIDER_KCFLAGS | PROVIDER_BOOTS | PROVIDER_NEEDS_BOX | PROVIDER_ON_NODE,
	.options = ssh_options,
	.check = sshp_check,
	.testbox = sshp_testbox,
	.open = sshp_open,
	.prepare = sshp_prepare,
	.run_job = sshp_run_job,
	.kconfig = sshp_kconfig,
	.close = sshp_close,
	.run_batch = sshp_run_batch,
	.slots = sshp_slots,
	.reproduce = sshp_reproduce,
};

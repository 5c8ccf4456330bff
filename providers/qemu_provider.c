/*
 * provider qemu: the commit's kernel, built with kbuild (the kernel cache
 * and the O= directory make rebuilds incremental), booted in QEMU with the
 * job's NVDIMMs; the job runs in the guest and the host extracts its stats,
 * as `lkprobot qemu --tree --commit` does. A kernel that does not build is
 * a commit that cannot be tested.
 */
#include "provider.h"
#include "qemu.h"
#include "../lib/sys/fsutil.h"
#include "../lib/kernel/git.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/run/run.h"
#include "../lib/util/units.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct provider {
	struct provider_config cfg;
	char exe[PATH_MAX], data[PATH_MAX], results[PATH_MAX];
	struct qemu_kernel k;
	bool have_kernel;
	char *kconfig_name;
	char *image, *modules;		/* the kernel the options name (lkprobot qemu -k) */
	struct qemu_opts qo;		/* the machine the options ask for */
	int runs;			/* runs in one boot (--reuse-boot) */
	char *append;
	/* for reproduce.json */
	struct provider_options *opts;	/* what it was opened with */
	char *built;			/* the commit the prepared kernel was built from (NULL: not built here) */
	const char *kconfig_arg;	/* --kconfig elsewhere (NULL: the default) */
	const char *accel;		/* the accelerator the user forced (NULL: the probe's) */
	char runs_arg[24];
};

static const struct provider_option qemu_options[] = {
	{ "kernel", NULL, PROVIDER_OPT_STRING, 0, "IMAGE", "boot this vmlinux or bzImage (lkprobot qemu -k)", NULL, NULL },
	{ "modules", NULL, PROVIDER_OPT_STRING, 0, "DIR", "the /lib/modules/<release> of that kernel", NULL, NULL },
	{ "pmem_size", "pmem-size", PROVIDER_OPT_STRING, 0, "SIZE", "each NVDIMM (default 1G)", NULL, NULL },
	{ "memory", NULL, PROVIDER_OPT_STRING, 0, "SIZE", "guest RAM (default 2G)", NULL, NULL },
	{ "cpus", NULL, PROVIDER_OPT_UINT, 0, "N", "guest CPUs (default 2)", NULL, NULL },
	{ "boot_timeout", "boot-timeout", PROVIDER_OPT_UINT, 0, "seconds", "for the guest to start lkprobot (default 120)",
	  NULL, NULL },
	{ "job_timeout", "job-timeout", PROVIDER_OPT_UINT, 0, "seconds", "for the job once the guest runs it (default: its runtime + 600)",
	  NULL, NULL },
	{ "append", NULL, PROVIDER_OPT_STRING, 0, "ARGS", "more kernel parameters (the job's boot_params are added)", NULL, NULL },
	{ "runs_per_boot", "reuse-boot", PROVIDER_OPT_UINT, 0, "N", "runs in one boot (lkprobot qemu --reuse-boot)", NULL, NULL },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL },
};

static int qprov_check(const struct provider_config *cfg, const char **key, struct strbuf *err)
{
	const char *image = provider_opt(cfg, "kernel"), *v;
	uint64_t size;

	if (image && access(image, R_OK)) {
		*key = "kernel";
		strbuf_setf(err, "%s: %s; give a kernel image (vmlinux or bzImage)", image, strerror(errno));
		return -1;
	}
	for (const char *const *k = (const char *const[]){ "pmem_size", "memory", NULL }; *k; k++)
		if ((v = provider_opt(cfg, *k)) && units_bytes(v, &size, err)) {
			*key = *k;
			return -1;
		}
	return 0;
}

static int qprov_testbox(const struct provider_config *cfg, char **out, struct strbuf *err)
{
	(void)cfg;
	(void)err;
	*out = xstrdup("qemu-pmem");	/* hosts/qemu-pmem: the machine QEMU makes */
	return 0;
}

static void qprov_close(struct provider *p)
{
	if (!p)
		return;
	if (p->have_kernel)
		qemu_kernel_release(&p->k);
	free(p->kconfig_name);
	free(p->image);
	free(p->modules);
	free(p->append);
	free(p->built);
	provider_options_free(p->opts);
	free(p);
}

static struct provider *qprov_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	const char *v;

	p->cfg = *cfg;
	p->cfg.opts = NULL;	/* read here, not kept */
	if (n <= 0 || !realpath(cfg->data_dir, p->data) || !realpath(cfg->result_dir, p->results)) {
		strbuf_setf(err, "cannot tell where lkprobot, its data and the result directory are");
		free(p);
		return NULL;
	}
	p->exe[n] = '\0';
	/*
	 * The guests run this binary from the host over 9p for hours: run a copy
	 * in the cache, so that rebuilding or upgrading lkprobot meanwhile does
	 * not pull it from under a booting guest.
	 */
	struct strbuf bin = STRBUF_INIT;
	char hash[41];
	if (strbuf_read_file(&bin, p->exe)) {
		strbuf_setf(err, "cannot read %s", p->exe);
		strbuf_release(&bin);
		free(p);
		return NULL;
	}
	gitrepo_hash(bin.buf, bin.len, hash);
	char *copy = xasprintf("%s/agent-%.12s", cfg->cache, hash);
	if (access(copy, X_OK)) {
		char *tmp = xasprintf("%s.tmp", copy);
		if (fsutil_write_atomic(tmp, bin.buf, bin.len, err) || chmod(tmp, 0755) || rename(tmp, copy)) {
			if (!err->len)
				strbuf_setf(err, "cannot copy lkprobot to %s", copy);
			free(tmp);
			free(copy);
			strbuf_release(&bin);
			free(p);
			return NULL;
		}
		free(tmp);
	}
	strbuf_release(&bin);
	snprintf(p->exe, sizeof(p->exe), "%s", copy);
	free(copy);
	const char *kc = cfg->kconfig ? cfg->kconfig : KBUILD_DEFAULT_KCONFIG;
	p->kconfig_name = kbuild_kconfig_name(kc, cfg->kcflags);
	if ((v = provider_opt(cfg, "kernel")))
		p->image = xstrdup(v);
	if ((v = provider_opt(cfg, "modules")))
		p->modules = xstrdup(v);
	if ((v = provider_opt(cfg, "append")))
		p->append = xstrdup(v);
	p->qo = (struct qemu_opts){ .cache = p->cfg.cache, .result_dir = p->results, .data_dir = p->data,
				    .lkprobot = p->exe, .progress = cfg->progress, .append = p->append,
				    .cpus = (int)provider_opt_uint(cfg, "cpus", 0),
				    .boot_timeout = (unsigned)provider_opt_uint(cfg, "boot_timeout", 0),
				    .job_timeout = (unsigned)provider_opt_uint(cfg, "job_timeout", 0) };
	if ((v = provider_opt(cfg, "pmem_size")))
		units_bytes(v, &p->qo.pmem_size, err);	/* checked by qprov_check */
	if ((v = provider_opt(cfg, "memory")))
		units_bytes(v, &p->qo.memory, err);
	strbuf_reset(err);
	p->runs = (int)provider_opt_uint(cfg, "runs_per_boot", 1);
	snprintf(p->runs_arg, sizeof(p->runs_arg), "%d", p->runs);
	p->opts = cfg->opts ? provider_options_dup(cfg->opts) : NULL;
	p->kconfig_arg = kbuild_config_portable(cfg->kconfig, p->data);
	p->accel = qemu_accel_forced();
	return p;
}

/* The newest kernel built in the cache (<cache>/kernels/<commit>-<config>/vmlinux), its commit in *commit. */
static char *newest_cached_kernel(const char *cache, char **commit)
{
	char *dir = xasprintf("%s/kernels", cache), *best = NULL;
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t best_t = 0;

	while (d && (de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		char *v = xasprintf("%s/%s/vmlinux", dir, de->d_name);
		if (!stat(v, &st) && st.st_mtime >= best_t) {
			best_t = st.st_mtime;
			free(best);
			best = v;
			free(*commit);
			*commit = xstrndup(de->d_name, strcspn(de->d_name, "-"));
		} else {
			free(v);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	return best;
}

/*
 * No commit: the kernel the options name (-k), else the newest built in
 * the kernel cache, else Debian's packaged kernel (fetched once).
 */
static int qprov_prepare_given(struct provider *p, struct strbuf *why)
{
	if (p->image)
		return qemu_kernel_file(&p->k, p->image, p->modules, why);
	char *commit = NULL, *cached = newest_cached_kernel(p->cfg.cache, &commit);
	int rc = cached ? qemu_kernel_file(&p->k, cached, NULL, why) : qemu_kernel_debian(&p->k, p->cfg.cache, why);
	if (cached && !rc) {
		free(p->k.commit);
		p->k.commit = commit;
		p->built = xstrdup(commit);
		commit = NULL;
		free(p->k.kconfig);
		p->k.kconfig = xstrdup(KBUILD_DEFAULT_KCONFIG);
		free(p->k.source);
		p->k.source = xasprintf("%s (the newest kernel in the kernel cache)", cached);
	}
	free(commit);
	free(cached);
	return rc;
}

static int qprov_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	if (p->have_kernel)
		qemu_kernel_release(&p->k);
	p->have_kernel = false;
	free(p->built);
	p->built = NULL;
	if (!commit) {
		int rc = qprov_prepare_given(p, why);
		p->have_kernel = !rc;
		return rc ? -1 : 0;
	}
	struct kbuild_opts ko = { .tree = p->cfg.tree,
				  .rev = commit,
				  .kconfig = p->cfg.kconfig,
				  .kcflags = p->cfg.kcflags,
				  .data_dir = p->data,
				  .cache = p->cfg.cache,
				  .progress = p->cfg.progress };
	struct kbuild_result kr;
	int rc = kbuild_build(&ko, &kr, why);

	if (rc) {
		kbuild_result_release(&kr);
		return -1;
	}
	if (!kr.built) {
		strbuf_setf(why, PROVIDER_NO_BUILD "%s", kr.error ? kr.error : "see build.log");
		kbuild_result_release(&kr);
		return 1;
	}
	char *img = xasprintf("%s/vmlinux", kr.dir);
	if (access(img, R_OK)) {
		free(img);
		img = xasprintf("%s/bzImage", kr.dir);
	}
	rc = qemu_kernel_file(&p->k, img, NULL, why);
	free(img);
	if (!rc) {
		free(p->k.commit);
		p->k.commit = xstrdup(kr.commit);
		free(p->k.kconfig);
		p->k.kconfig = xstrdup(p->kconfig_name);
		free(p->k.source);
		p->k.source = xasprintf("commit %s of %s, %s (%s)", kr.commit, p->cfg.tree,
					kr.cached ? "from the kernel cache" : "built now", kr.dir);
		p->have_kernel = true;
		p->built = xstrdup(kr.commit);
	}
	kbuild_result_release(&kr);
	return rc ? -1 : 0;
}

static const char *qprov_describe(struct provider *p)
{
	return p->have_kernel ? p->k.source : NULL;
}

static int qprov_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct qemu_opts qo = p->qo;
	struct qemu_result qr;

	memset(res, 0, sizeof(*res));
	if (!p->have_kernel) {
		strbuf_setf(err, "no kernel prepared");
		return -1;
	}
	/* the result path names the kernel that ran */
	if (!node_get(job, "commit"))
		node_set(job, "commit", node_new_scalar(p->k.commit));
	if (!node_get(job, "kconfig"))
		node_set(job, "kconfig", node_new_scalar(p->k.kconfig));
	if (!qo.job_timeout)
		qo.job_timeout = run_job_timeout(job);
	if (p->runs > 1) {
		qo.runs = p->runs;
		qo.job_timeout *= (unsigned)p->runs;
	}
	if (qemu_check_job(job, err) || qemu_run_job(&p->k, job, &qo, &qr, err))
		return -1;
	if (qr.run_dir)
		res->run_dir = xstrdup(qr.run_dir);
	/* a kernel that cannot boot or panics cannot be measured: like a build failure */
	res->job_state = qr.job_state;
	res->untestable = !strcmp(qr.job_state, "boot_failed") || !strcmp(qr.job_state, "panic");
	res->reason = qr.reason ? xstrdup(qr.reason) : NULL;
	res->summary = xasprintf("(boot %.1f s, test %.1f..%.1f s, total %.1f s, %s)", qr.boot_seconds, qr.test_start,
				 qr.test_end, qr.wall_seconds, qr.accel ? qr.accel : "?");
	if (qr.nruns) {
		res->run_dirs = xcalloc(qr.nruns, sizeof(char *));
		res->states = xcalloc(qr.nruns, sizeof(char *));
		for (size_t i = 0; i < qr.nruns; i++) {
			res->run_dirs[i] = xstrdup(qr.run_dirs[i]);
			res->states[i] = xstrdup(qr.states[i]);
		}
		res->nruns = qr.nruns;
	}
	qemu_result_release(&qr);
	return 0;
}

static const char *qprov_kconfig(struct provider *p)
{
	return p->kconfig_name;
}

/*
 * `lkprobot qemu`: the commit built from the tree, else the kernel image
 * given by hand; the options set; the runs of one boot; the accelerator
 * only when the user forced one (elsewhere the probe chooses again).
 */
static void qprov_reproduce(struct provider *p, struct provider_reproduce *r)
{
	static const char *const skip_built[] = { "runs_per_boot", "kernel", "modules", NULL };
	static const char *const skip[] = { "runs_per_boot", NULL };
	size_t e = 0;

	r->command = "qemu";
	r->opts = p->opts;
	r->skip = p->built ? skip_built : skip;
	if (p->built) {
		r->commit = p->built;
		r->kconfig = p->kconfig_arg;
		r->kcflags = p->cfg.kcflags;
	}
	if (p->runs > 1) {
		r->extra[e++] = "--runs";
		r->extra[e++] = p->runs_arg;
		r->extra[e++] = "--reuse-boot";
	}
	if (p->accel) {
		r->extra[e++] = "--accel";
		r->extra[e++] = p->accel;
	}
}

const struct provider_ops provider_qemu = {
	.name = "qemu",
	.summary = "each commit's kernel is built and booted in QEMU with the job's NVDIMMs",
	.caps = PROVIDER_BUILDS_KERNELS | PROVIDER_KCFLAGS | PROVIDER_BOOTS | PROVIDER_ON_NODE,
	.options = qemu_options,
	.check = qprov_check,
	.testbox = qprov_testbox,
	.open = qprov_open,
	.prepare = qprov_prepare,
	.run_job = qprov_run_job,
	.kconfig = qprov_kconfig,
	.describe = qprov_describe,
	.check_job = qemu_check_job,
	.close = qprov_close,
	.reproduce = qprov_reproduce,
};

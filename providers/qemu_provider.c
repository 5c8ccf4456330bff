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
};

static struct provider *qprov_open(const struct provider_config *cfg, struct strbuf *err)
{
	struct provider *p = xcalloc(1, sizeof(*p));
	ssize_t n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);

	p->cfg = *cfg;
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
	p->kconfig_name = xstrdup(strrchr(kc, '/') ? strrchr(kc, '/') + 1 : kc);
	return p;
}

static int qprov_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	struct kbuild_opts ko = { .tree = p->cfg.tree, .rev = commit, .kconfig = p->cfg.kconfig,
				  .data_dir = p->data, .cache = p->cfg.cache, .progress = p->cfg.progress };
	struct kbuild_result kr;
	int rc = kbuild_build(&ko, &kr, why);

	if (p->have_kernel)
		qemu_kernel_release(&p->k);
	p->have_kernel = false;
	if (rc) {
		kbuild_result_release(&kr);
		return -1;
	}
	if (!kr.built) {
		strbuf_setf(why, "the kernel does not build: %s", kr.error ? kr.error : "see build.log");
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
		p->have_kernel = true;
	}
	kbuild_result_release(&kr);
	return rc ? -1 : 0;
}

static int qprov_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct qemu_opts qo = { .cache = p->cfg.cache, .result_dir = p->results, .data_dir = p->data,
				.lkprobot = p->exe, .progress = p->cfg.progress };
	struct qemu_result qr;

	memset(res, 0, sizeof(*res));
	if (!p->have_kernel) {
		strbuf_setf(err, "no kernel prepared");
		return -1;
	}
	qo.job_timeout = run_job_timeout(job);
	if (qemu_check_job(job, err) || qemu_run_job(&p->k, job, &qo, &qr, err))
		return -1;
	if (qr.run_dir)
		res->run_dir = xstrdup(qr.run_dir);
	/* a kernel that cannot boot or panics cannot be measured: like a build failure */
	res->job_state = qr.job_state;
	res->untestable = !strcmp(qr.job_state, "boot_failed") || !strcmp(qr.job_state, "panic");
	res->reason = qr.reason ? xstrdup(qr.reason) : NULL;
	qemu_result_release(&qr);
	return 0;
}

static const char *qprov_kconfig(struct provider *p)
{
	return p->kconfig_name;
}

static void qprov_close(struct provider *p)
{
	if (!p)
		return;
	if (p->have_kernel)
		qemu_kernel_release(&p->k);
	free(p->kconfig_name);
	free(p);
}

const struct provider_ops provider_qemu = {
	.name = "qemu",
	.open = qprov_open,
	.prepare = qprov_prepare,
	.run_job = qprov_run_job,
	.kconfig = qprov_kconfig,
	.close = qprov_close,
};

/*
 * lkprobot install: what a job needs on this machine — the Debian packages
 * of its programs and file systems — installed with apt-get, and what no
 * package can fix (no pmem, not root) said plainly.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/job/job.h"
#include "../lib/run/program.h"
#include "../lib/run/run.h"
#include "../lib/sys/proc.h"
#include "../lib/util/sset.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot install [options] JOB.yaml... [key=value...]\n"
	"\n"
	"List the Debian packages the jobs need (their programs' tools, mkfs for\n"
	"their file systems, ndctl for pmem), install the missing ones with\n"
	"apt-get, and say what installing cannot fix (no pmem devices, not root).\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 everything needed is installed, 1 installing failed or\n"
	"something cannot be fixed by installing, 2 bad job file or usage\n";

struct needs {
	struct sset debs;
	char **order;		/* first-seen order for stable output */
	size_t n;
	bool pmem, root;
};

static void need(struct needs *nd, const char *deb)
{
	if (sset_add(&nd->debs, deb)) {
		nd->order = xrealloc(nd->order, (nd->n + 1) * sizeof(*nd->order));
		nd->order[nd->n++] = xstrdup(deb);
	}
}

static int collect(const struct node *job, void *arg, struct strbuf *err)
{
	struct needs *nd = arg;
	(void)err;

	for (size_t i = 0; i < job->n; i++) {
		const struct program *p;
		if (job->vals[i]->comment || !(p = program_find(job->keys[i])))
			continue;
		for (const char *const *d = p->debs; d && *d; d++)
			need(nd, *d);
		if (p->kind == PROGRAM_SETUP && p->setup && strcmp(p->name, "boot_params") &&
		    strcmp(p->name, "fio-setup-basic"))
			nd->root = true;
	}
	const char *fs = job_get_str(job, "fs");
	const struct node *fsn = node_get(job, "fs");
	if (!fs && fsn && fsn->type == NODE_MAP)
		fs = node_str(node_get(fsn, "fs"));
	if (fs && (!strcmp(fs, "ext4") || !strcmp(fs, "ext2")))
		need(nd, "e2fsprogs");
	else if (fs && !strcmp(fs, "xfs"))
		need(nd, "xfsprogs");
	else if (fs && !strcmp(fs, "btrfs"))
		need(nd, "btrfs-progs");
	const char *disk = job_get_str(job, "disk");
	const struct node *dn = node_get(job, "disk");
	if ((disk && strstr(disk, "pmem")) || (dn && dn->type == NODE_MAP && node_get(dn, "nr_pmem"))) {
		need(nd, "ndctl");
		nd->pmem = true;
	}
	return 0;
}

static bool installed(const char *deb)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char *argv[] = { "dpkg-query", "-W", "-f=${Status}", (char *)deb, NULL };
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = &out, .err = PROC_NULL };
	bool ok;
	int rc = proc_run(&p, &err);

	ok = rc == 0 && strstr(out.buf, "install ok installed");
	strbuf_release(&out);
	strbuf_release(&err);
	return ok;
}

static bool have_pmem(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	bool found = false;

	if (!d)
		return false;
	while ((de = readdir(d)))
		found |= !strncmp(de->d_name, "pmem", 4);
	closedir(d);
	return found;
}

int cmd_install(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	bool dry = false;
	const struct opt table[] = {
		OPT_BOOL('n', "dry-run", "list what is missing, install nothing", &dry),
		JOBOPTS_ROWS(&jo, "merge hosts/<NAME> as split-job does"),
		OPT_END(),
	};
	struct job_env env;
	struct needs nd = { 0 };
	struct strbuf err = STRBUF_INIT;
	char **missing = NULL;
	size_t nmissing = 0;
	int ret;

	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	jobopts_env(&jo, ctx->data_dir, &env);
	if (jobopts_expand(&jo, &env, collect, &nd, &err))
		goto bad;

	ret = EXIT_OK;
	for (size_t i = 0; i < nd.n; i++) {
		bool ok = installed(nd.order[i]);
		printf("%-16s %s\n", nd.order[i], ok ? "installed" : "missing");
		if (!ok) {
			missing = xrealloc(missing, (nmissing + 2) * sizeof(*missing));
			missing[nmissing++] = nd.order[i];
		}
	}
	if (nmissing && !dry) {
		if (geteuid()) {
			say_error(EXIT_FAIL,
				  "not root: cannot install %zu missing package(s); run 'lkprobot install' as root",
				  nmissing);
			ret = EXIT_FAIL;
		} else {
			char **av = xcalloc(nmissing + 7, sizeof(*av));
			size_t k = 0;
			av[k++] = "apt-get";
			av[k++] = "install";
			av[k++] = "-y";
			av[k++] = "-q";
			av[k++] = "--no-install-recommends";
			for (size_t i = 0; i < nmissing; i++)
				av[k++] = missing[i];
			setenv("DEBIAN_FRONTEND", "noninteractive", 1);
			int rc = run_exec(av, -1, -1, &err);
			if (rc) {
				/* the package lists may be missing on a fresh machine */
				char *upd[] = { "apt-get", "update", "-q", NULL };
				if (!run_exec(upd, -1, -1, &err))
					rc = run_exec(av, -1, -1, &err);
			}
			if (rc) {
				say_error(EXIT_FAIL, "apt-get could not install the missing packages%s%s",
					  rc < 0 ? ": " : "", rc < 0 ? err.buf : "");
				ret = EXIT_FAIL;
			}
			free(av);
		}
	}
	if (nd.pmem && !have_pmem()) {
		printf("cannot fix by installing: the job needs pmem and this machine has none (/sys/block/pmem*); "
		       "boot a kernel with memmap= or NVDIMMs ('lkprobot qemu'), or run with --loop-disks for a functional check\n");
		ret = EXIT_FAIL;
	}
	if (nd.root && geteuid()) {
		printf("cannot fix by installing: the job's setups (disks, file systems, sysfs) need root\n");
		ret = EXIT_FAIL;
	}
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	for (size_t i = 0; i < nd.n; i++)
		free(nd.order[i]);
	free(nd.order);
	free(missing);
	sset_release(&nd.debs);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

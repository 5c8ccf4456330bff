/*
 * fs: make a file system on each of the job's devices and mount it under
 * <fs_root>/<dev> (lkp-tests: /fs/<dev>) with the job's mount_option, after
 * lkp-tests' programs/fs/setup. xfs is made with -m reflink=0 (reflink and
 * DAX do not mix). When mount_option asks for dax, DAX is verified
 * (daxcheck.h): a kernel turns it off silently where the device cannot do
 * it, and results measured without DAX must not carry a DAX label.
 */
#include "../daxcheck.h"
#include "../program.h"
#include "../run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const fs_options[] = {
	"fs", "format", "mkfs", "mount", "mount_option", "nr_tmpfs", NULL,
};

/* The file system type: "fs: xfs" or "fs: {fs: xfs, ...}". */
static const char *fs_type(const struct run *r, const struct program *p)
{
	const struct node *v = node_get(r->job, p->name);

	if (node_str(v))
		return v->str;
	return run_param(r, p, "fs");
}

/* mkfs's words for `type` on dev into argv[8]; -1 for a type lkprobot does not make */
static int mkfs_argv(const char *type, const char *dev, char *argv[8])
{
	static const char *const words[][7] = {
		{ "xfs", "mkfs.xfs", "-f", "-q", "-m", "reflink=0", NULL },
		{ "ext4", "mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0", NULL },
		{ "ext2", "mkfs.ext2", "-q", "-F", NULL },
		{ "btrfs", "mkfs.btrfs", "-f", "-q", NULL },
	};

	for (size_t t = 0; t < sizeof(words) / sizeof(words[0]); t++) {
		if (strcmp(type, words[t][0]))
			continue;
		size_t n = 0;
		for (size_t i = 1; i < 7 && words[t][i]; i++)
			argv[n++] = (char *)words[t][i];
		argv[n++] = (char *)dev;
		argv[n] = NULL;
		return 0;
	}
	return -1;
}

/* mkfs on every device at once, as lkp-tests' fs setup does */
static int mkfs_all(const struct run *r, const char *type, struct strbuf *err)
{
	size_t n = r->npartitions;
	char *(*words)[8] = xcalloc(n, sizeof(*words));
	char ***argvs = xcalloc(n, sizeof(*argvs));
	int *codes = xcalloc(n, sizeof(*codes));
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		argvs[i] = words[i];
		if (mkfs_argv(type, r->partitions[i], words[i])) {
			strbuf_setf(err, "fs: file system '%s' is not one lkprobot makes (xfs, ext4, ext2, btrfs)", type);
			ret = -1;
		}
	}
	if (!ret)
		ret = run_cmds(r, argvs, n, "stderr", codes, err);
	for (size_t i = 0; i < n && !ret; i++)
		if (codes[i]) {
			strbuf_setf(err, "fs: %s %s failed (exit %d); see 'stderr' in the result root", argvs[i][0],
				    r->partitions[i], codes[i]);
			ret = -1;
		}
	free(words);
	free(argvs);
	free(codes);
	return ret;
}

static int fs_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	const char *type = fs_type(r, p);
	const char *opts = run_param(r, p, "mount_option");
	bool want_dax = false;

	if (!type)
		return 0;
	if (!r->npartitions) {
		strbuf_setf(err, "fs: no device to make '%s' on; the job needs disk: (e.g. disk: 1HDD)", type);
		return -1;
	}
	if (opts) {
		char *copy = xstrdup(opts);
		for (char *save = NULL, *o = strtok_r(copy, ",", &save); o; o = strtok_r(NULL, ",", &save))
			want_dax |= !strcmp(o, "dax") || !strcmp(o, "dax=always");
		free(copy);
	}
	free(r->fs);
	r->fs = xstrdup(type);
	if (mkdir(r->fs_root, 0755) && errno != EEXIST) {
		strbuf_setf(err, "fs: cannot create '%s': %s", r->fs_root, strerror(errno));
		return -1;
	}
	if (mkfs_all(r, type, err))
		return -1;
	for (size_t i = 0; i < r->npartitions; i++) {
		const char *dev = r->partitions[i];
		const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
		char *dir = xasprintf("%s/%s", r->fs_root, base);
		int rc;

		if (mkdir(dir, 0755) && errno != EEXIST) {
			strbuf_setf(err, "fs: cannot create '%s': %s", dir, strerror(errno));
			free(dir);
			return -1;
		}
		char *with[] = { "mount", "-t", (char *)type, "-o", (char *)opts, (char *)dev, dir, NULL };
		char *without[] = { "mount", "-t", (char *)type, (char *)dev, dir, NULL };
		rc = run_cmd(r, opts ? with : without, NULL, "stderr", NULL, err);
		if (rc) {
			if (rc > 0)
				strbuf_setf(err, "fs: mounting %s on %s (-o %s) failed (exit %d); see 'stderr' in the result root",
					    dev, dir, opts ? opts : "defaults", rc);
			free(dir);
			return -1;
		}
		run_list_add(&r->mount_points, &r->nmounts, dir);
		if (want_dax) {
			struct daxcheck d;
			if (daxcheck_mount(dev, dir, &d, err)) {
				free(dir);
				return -1;
			}
			/* one entry per device: "pmem0 queue/dax=1, ...; pmem1 queue/dax=1, ..." */
			const char *before = node_str(node_get(r->facts, "dax"));
			char *all = before ? xasprintf("%s; %s", before, d.why) : xstrdup(d.why);
			run_fact(r, "dax", all);
			free(all);
			if (!daxcheck_on(&d)) {
				strbuf_setf(err, "fs: mount_option asks for DAX but it is off on %s (%s): the device cannot do DAX (a loop device, or a raw NVDIMM namespace: 'ndctl create-namespace -m fsdax' converts it); results without DAX would be mislabelled",
					    dir, d.why);
				free(dir);
				return -1;
			}
			r->dax = true;
		}
		free(dir);
	}
	return 0;
}

static const char *const fs_debs[] = { "xfsprogs", "e2fsprogs", "util-linux", NULL };

const struct program program_fs = {
	.version = PROGRAM_VERSION,
	.name = "fs",
	.kind = PROGRAM_SETUP,
	.summary = "make a file system on each device and mount it under /fs/<dev>",
	.options = fs_options,
	.setup = fs_setup,
	.debs = fs_debs,
};

const struct program program_fs1 = {
	.version = PROGRAM_VERSION,
	.name = "fs1",
	.kind = PROGRAM_SETUP,
	.summary = "a second file system setup (as fs), for jobs with two file systems",
	.options = fs_options,
};

const struct program program_fs2 = {
	.version = PROGRAM_VERSION,
	.name = "fs2",
	.kind = PROGRAM_SETUP,
	.summary = "a third file system setup (as fs), e.g. NFS on top of a local file system",
	.options = fs_options,
};

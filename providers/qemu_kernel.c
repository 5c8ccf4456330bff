/*
 * qemu kernels: Debian's packaged kernel (fetched and unpacked once into
 * the cache), user-given images, and the initramfs that reaches the 9p
 * root. See qemu.h.
 *
 * The XZ-compressed vmlinuz of Debian costs 4-5 s to decompress under TCG
 * at every boot; the uncompressed vmlinux boots through its PVH entry, so
 * it is extracted once (the XZ stream inside vmlinuz, by `xz`).
 */
#include "qemu.h"
#include "../lib/sys/cpio.h"
#include "../lib/sys/fsutil.h"
#include "../lib/run/run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void qemu_kernel_release(struct qemu_kernel *k)
{
	free(k->image);
	free(k->release);
	free(k->modules);
	free(k->source);
	free(k->commit);
	free(k->kconfig);
	memset(k, 0, sizeof(*k));
}

static bool exists(const char *p)
{
	return !access(p, F_OK);
}

/* Extract the XZ stream of a bzImage/vmlinuz into `out`. */
static int extract_vmlinux(const char *vmlinuz, const char *out, struct strbuf *err)
{
	struct strbuf img = STRBUF_INIT;
	static const char magic[] = { (char)0xfd, '7', 'z', 'X', 'Z', 0 };
	char *tail = xasprintf("%s.xz", out), *tmp = xasprintf("%s.tmp", out);
	int ret = -1;

	if (strbuf_read_file(&img, vmlinuz)) {
		strbuf_setf(err, "cannot read '%s': %s", vmlinuz, strerror(errno));
		goto out;
	}
	const char *m = memmem(img.buf, img.len, magic, sizeof(magic));
	if (!m) {
		strbuf_setf(err, "'%s' has no XZ stream; give an uncompressed vmlinux with -k", vmlinuz);
		goto out;
	}
	if (fsutil_write(tail, m, img.len - (size_t)(m - img.buf))) {
		strbuf_setf(err, "cannot write '%s': %s", tail, strerror(errno));
		goto out;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	char *argv[] = { "xz", "-dc", "--single-stream", tail, NULL };
	int rc = fd < 0 ? -1 : run_exec(argv, fd, -1, err);
	if (fd >= 0)
		close(fd);
	if (rc || rename(tmp, out)) {
		if (rc > 0)
			strbuf_setf(err, "xz could not decompress the kernel in '%s' (exit %d)", vmlinuz, rc);
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	unlink(tail);
	free(tail);
	free(tmp);
	strbuf_release(&img);
	return ret;
}

/* The release linux-image-amd64 depends on (apt-cache depends): NULL with err set. */
static char *debian_release(struct strbuf *err)
{
	struct strbuf deps = STRBUF_INIT;
	char *q[] = { "apt-cache", "depends", "linux-image-amd64", NULL };
	char *release = NULL;

	if (run_exec_capture(q, &deps, err) >= 0) {
		const char *d = strstr(deps.buf, "Depends: linux-image-");
		if (d) {
			d += strlen("Depends: linux-image-");
			release = xstrndup(d, strcspn(d, " \n"));
		} else {
			strbuf_setf(err,
				    "cannot tell which kernel linux-image-amd64 depends on (apt-cache depends); run "
				    "'apt-get update'");
		}
	}
	strbuf_release(&deps);
	return release;
}

/* apt-get download linux-image-<release> into dir: the .deb's path, or NULL with err. */
static char *debian_download(const char *dir, const char *release, struct strbuf *err)
{
	char *pkg = xasprintf("linux-image-%s", release), *deb = NULL;
	/* root downloads into the cache itself: no _apt sandbox user */
	char *dl[] = { "apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", pkg, NULL };
	int rc = run_exec_in(dir, dl, -1, -1, err);

	free(pkg);
	if (rc) {
		if (rc > 0)
			strbuf_setf(err, "apt-get download linux-image-%s failed (exit %d)", release, rc);
		return NULL;
	}
	DIR *dd = opendir(dir);
	struct dirent *de;
	while (dd && (de = readdir(dd)))
		if (strstr(de->d_name, ".deb") && !deb)
			deb = xasprintf("%s/%s", dir, de->d_name);
	if (dd)
		closedir(dd);
	if (!deb)
		strbuf_setf(err, "apt-get download left no .deb in '%s'", dir);
	return deb;
}

/* depmod for the modules of release unpacked under root. 0, or -1 with err. */
static int debian_depmod(const char *root, const char *release, struct strbuf *err)
{
	/* a user's PATH has no sbin, where Debian keeps depmod */
	char *dm[] = { run_have("depmod") ? "depmod" : "/sbin/depmod", "-b", (char *)root, (char *)release, NULL };
	int rc = run_exec(dm, -1, -1, err);

	if (rc > 0) {
		strbuf_setf(err, "depmod failed for '%s' (exit %d)", root, rc);
	} else if (rc) {
		char *why = strbuf_detach(err);
		strbuf_setf(err, "cannot run depmod (Debian package kmod): %s", why);
		free(why);
	}
	return rc ? -1 : 0;
}

/*
 * Fetch Debian's linux-image-<release> into dir: unpacked under root,
 * depmod'ed, its vmlinux extracted. 0, or -1 with err.
 */
static int debian_fetch(const char *dir, const char *root, const char *release, const char *vmlinux, struct strbuf *err)
{
	if (fsutil_mkdir_p(dir)) {
		strbuf_setf(err, "cannot create '%s': %s", dir, strerror(errno));
		return -1;
	}
	char *deb = debian_download(dir, release, err);
	if (!deb)
		return -1;
	char *x[] = { "dpkg-deb", "-x", deb, (char *)root, NULL };
	int rc = run_exec(x, -1, -1, err);
	unlink(deb);
	free(deb);
	if (rc) {
		if (rc > 0)
			strbuf_setf(err, "dpkg-deb could not unpack linux-image-%s", release);
		return -1;
	}
	if (debian_depmod(root, release, err))
		return -1;
	char *vmlinuz = xasprintf("%s/boot/vmlinuz-%s", root, release);
	rc = extract_vmlinux(vmlinuz, vmlinux, err);
	free(vmlinuz);
	return rc;
}

/* The kernel of dir (fetched): k filled in. */
static void debian_kernel(struct qemu_kernel *k, const char *dir, const char *release)
{
	/* its config beside the image, where a run's kernel.config is copied from (kbuild_record_config) */
	char *config = xasprintf("%s/.config", dir), *target = xasprintf("root/boot/config-%s", release);
	if (symlink(target, config) && errno != EEXIST) {
		/* no config then: the runs record none */
	}
	free(config);
	free(target);
	k->image = xasprintf("%s/vmlinux", dir);
	k->release = xstrdup(release);
	k->modules = xasprintf("%s/root/lib/modules/%s", dir, release);
	k->source = xasprintf("Debian's linux-image-%s (the kernel linux-image-amd64 depends on)", release);
	k->commit = xstrdup(release);
	k->kconfig = xasprintf("debian-%s", release);
}

#define DEBIAN_FETCH_WAIT 3600 /* s: another run's fetch and unpacking of the Debian kernel */

int qemu_kernel_debian(struct qemu_kernel *k, const char *cache, struct strbuf *err)
{
	int ret = -1, lock_fd = -1;

	memset(k, 0, sizeof(*k));
	char *release = debian_release(err);
	if (!release)
		return -1;
	char *dir = xasprintf("%s/debian/%s", cache, release), *root = xasprintf("%s/root", dir);
	char *vmlinux = xasprintf("%s/vmlinux", dir);
	char *depfile = xasprintf("%s/lib/modules/%s/modules.dep", root, release);

	/* one fetch at a time: concurrent runs wait for the first to unpack it */
	char *lockp = xasprintf("%s/debian.lock", cache);
	fsutil_mkdir_p(cache);
	lock_fd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock_fd >= 0 && fsutil_lock_fd(lock_fd, lockp, DEBIAN_FETCH_WAIT, FSUTIL_LOCK_STOP, err)) {
		/* nothing fetched: err says who has it */
	} else if ((exists(vmlinux) && exists(depfile)) || !debian_fetch(dir, root, release, vmlinux, err)) {
		debian_kernel(k, dir, release);
		ret = 0;
	}
	if (lock_fd >= 0)
		close(lock_fd);
	free(lockp);
	free(release);
	free(dir);
	free(root);
	free(vmlinux);
	free(depfile);
	return ret;
}

int qemu_kernel_file(struct qemu_kernel *k, const char *image, const char *modules,
		     struct strbuf *err)
{
	memset(k, 0, sizeof(*k));
	if (access(image, R_OK)) {
		strbuf_setf(err, "%s: %s; give a kernel image (vmlinux or bzImage)", image, strerror(errno));
		return -1;
	}
	k->image = xstrdup(image);
	if (modules)
		k->modules = xstrdup(modules);
	k->source = xasprintf("%s (-k)", image);
	const char *base = strrchr(modules ? modules : "", '/');
	k->release = xstrdup(base ? base + 1 : "unknown");
	k->commit = xstrdup(k->release);
	k->kconfig = xstrdup("custom");
	return 0;
}

/* ---- initramfs ---- */

struct modlist {
	char **v;
	size_t n;
};

static bool in_list(const struct modlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i], s))
			return true;
	return false;
}

/* The modules.dep line of a module: "kernel/fs/xfs/xfs.ko: dep dep". */
static const char *dep_line(const char *dep, const char *name)
{
	char *ko = xasprintf("/%s.ko:", name);
	const char *hit = NULL;

	for (const char *p = dep; *p;) {
		const char *nl = strchr(p, '\n');
		const char *colon = strchr(p, ':');
		if (colon && (!nl || colon < nl)) {
			/* compare the basename, with '-' and '_' the same */
			const char *slash = p;
			for (const char *c = p; c < colon; c++)
				if (*c == '/')
					slash = c;
			size_t n = (size_t)(colon - slash) + 1, m = strlen(ko);
			bool same = n == m;
			for (size_t i = 0; same && i < n; i++) {
				char a = slash[i] == '-' ? '_' : slash[i], b = ko[i] == '-' ? '_' : ko[i];
				same = a == b;
			}
			if (same) {
				hit = p;
				break;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	free(ko);
	return hit;
}

/*
 * Add a module path and its dependencies (first) to the load order, but
 * none that is already in `loaded` (an earlier list; may be NULL).
 */
static void add_module(const char *dep, const char *rel, struct modlist *order, const struct modlist *loaded,
		       int depth)
{
	if (depth > 16 || in_list(order, rel) || (loaded && in_list(loaded, rel)))
		return;
	const char *base = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
	char *name = xstrndup(base, strcspn(base, "."));
	const char *line = dep_line(dep, name);
	free(name);
	if (line) {
		const char *colon = strchr(line, ':'), *nl = strchr(line, '\n');
		char *deps = xstrndup(colon + 1, (size_t)((nl ? nl : colon + strlen(colon)) - colon - 1));
		/* modules.dep lists the deepest dependency last: load from the end */
		char *words[64];
		size_t nw = 0;
		for (char *save = NULL, *w = strtok_r(deps, " ", &save); w && nw < 64; w = strtok_r(NULL, " ", &save))
			words[nw++] = w;
		for (size_t i = nw; i-- > 0;)
			add_module(dep, words[i], order, loaded, depth + 1);
		free(deps);
	}
	if (!in_list(order, rel)) {
		order->v = xrealloc(order->v, (order->n + 1) * sizeof(*order->v));
		order->v[order->n++] = xstrdup(rel);
	}
}

/*
 * The modules this job's guest needs: 9p and overlay to reach its root,
 * then only what the job uses (loading all file systems cost ~2 s of a
 * TCG boot: xfs alone takes 1.5 s to insmod there).
 */
static void job_modules(const struct node *job, const struct qemu_initramfs_needs *need,
			const char *dep, struct modlist *early, struct modlist *late)
{
	const char *want[16];
	size_t n = 0, nearly;
	static const char *const base[] = { "virtio_pci", "9pnet_virtio", "9p", "overlay", NULL };

	for (const char *const *b = base; *b; b++)
		want[n++] = *b;
	if (need->nvdimm)
		want[n++] = "nfit";
	if (need->nvdimm || need->memmap)
		want[n++] = "nd_pmem";
	if (need->memmap)
		want[n++] = "nd_e820";
	if (need->net)
		want[n++] = "virtio_net";
	nearly = n;
	/*
	 * Each file system the job makes; crc32c first: a soft dependency of
	 * libcrc32c that modules.dep does not list.
	 */
	static const char *const fs_keys[] = { "fs", "fs1", "fs2", NULL };
	const char *fss[3];
	size_t nfs = 0;
	for (const char *const *k = fs_keys; *k; k++) {
		/* `fs: xfs`, or `fs: {fs: xfs, mount_option: dax}` */
		const struct node *v = node_get(job, *k);
		const char *fs = node_str(v) ? node_str(v) : node_str(node_get(v, *k));
		if (fs)	/* Debian's ext4 module mounts ext2 too */
			fss[nfs++] = !strcmp(fs, "ext2") ? "ext4" : fs;
	}
	if (nfs)
		want[n++] = "crc32c_generic";
	for (size_t i = 0; i < nfs; i++)
		want[n++] = fss[i];
	if (node_get(job, "turbostat"))
		want[n++] = "msr";
	for (size_t i = 0; i < n; i++) {
		const char *line = dep_line(dep, want[i]);
		if (line) {
			char *rel = xstrndup(line, strcspn(line, ":"));
			add_module(dep, rel, i < nearly ? early : late, i < nearly ? NULL : early, 0);
			free(rel);
		}
	}
}

/*
 * The guest's first process. The modules the root needs load first; the
 * job's (file systems, msr) load in the background from a copy in /dev,
 * which moves to the new root, while the root comes up and lkprobot starts
 * over 9p (0.6 s under TCG, as long as xfs takes to load). Each module's
 * file goes once it is loaded: `lkprobot guest` waits for an empty
 * /dev/.lkprobot-late before it runs the job.
 */
static const char init_script[] =
	"#!/bin/sh\n"
	"# lkprobot's initramfs: load the modules, mount the host's root (9p),\n"
	"# hand over to lkprobot as the guest's agent.\n"
	"export PATH=/bin\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sys /sys\n"
	"mount -t devtmpfs dev /dev\n"
	"read up idle </proc/uptime; echo \"@@LKPROBOT initramfs ($up s since boot)\"\n"
	"for m in $(cat /modules.order); do insmod /mods/$m 2>/dev/null || echo \"insmod $m failed\"; done\n"
	"late=$(cat /modules.late)\n"
	"if [ -n \"$late\" ]; then\n"
	"  mkdir /dev/.lkprobot-late\n"
	"  for m in $late; do cp /mods/$m /dev/.lkprobot-late/; done\n"
	"  (cd /dev/.lkprobot-late &&\n"
	"   for m in $late; do insmod ./$m 2>/dev/null || echo \"insmod $m failed\"; rm -f ./$m; done) &\n"
	"fi\n"
	"init= role=guest\n"
	"for a in $(cat /proc/cmdline); do case \"$a\" in\n"
	"  lkprobot.init=*) init=${a#lkprobot.init=};; lkprobot.role=box) role=box-init;; esac; done\n"
	"n=0\n"
	"until mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=524288,cache=loose root /newroot 2>/dev/null; do\n"
	"  n=$((n+1)); [ $n -gt 200 ] && { echo '@@LKPROBOT ERROR the 9p root did not come up'; poweroff -f; }\n"
	"  sleep 0.05\n"
	"done\n"
	"mount --move /dev /newroot/dev\n"
	"umount /proc /sys\n"
	"exec switch_root /newroot \"$init\" $role\n";

/* The modules of l into mods/<prefix><nn>-<name>.ko, their names into order. */
static int cpio_modules(struct cpio *c, const struct qemu_kernel *k, const struct modlist *l, const char *prefix,
			struct strbuf *order, struct strbuf *err)
{
	struct strbuf file = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < l->n && !ret; i++) {
		char *src = xasprintf("%s/%s", k->modules, l->v[i]);
		const char *base = strrchr(l->v[i], '/') ? strrchr(l->v[i], '/') + 1 : l->v[i];
		char *dst = xasprintf("mods/%s%02zu-%s", prefix, i, base);
		strbuf_reset(&file);
		if (strbuf_read_file(&file, src)) {
			strbuf_setf(err, "cannot read module '%s': %s", src, strerror(errno));
			ret = -1;
		} else {
			cpio_file(c, dst, 0644, file.buf, file.len);
			strbuf_addf(order, "%s\n", dst + 5);
		}
		free(src);
		free(dst);
	}
	strbuf_release(&file);
	return ret;
}

/*
 * The busybox of every initramfs of ours, its applets and directories,
 * and `init` as its first process, into c (cpio_init'ed here). 0, or -1
 * with err (no busybox-static).
 */
static int initramfs_base(struct cpio *c, const char *init, size_t init_len, struct strbuf *err)
{
	struct strbuf bb = STRBUF_INIT;
	static const char *const applets[] = {
		"sh", "mount", "umount", "insmod", "switch_root", "cat", "echo", "sleep",
		"poweroff", "ls", "mkdir", "cp", "rm", "rmdir", NULL,
	};
	static const char *const dirs[] = { "bin", "dev", "proc", "sys", "newroot", "mods", NULL };

	if (strbuf_read_file(&bb, "/bin/busybox") || bb.len < 4 || memcmp(bb.buf, "\177ELF", 4)) {
		strbuf_setf(err, "the initramfs needs /bin/busybox from busybox-static; apt-get install busybox-static");
		strbuf_release(&bb);
		return -1;
	}
	cpio_init(c);
	for (const char *const *d = dirs; *d; d++)
		cpio_dir(c, *d, 0755);
	cpio_file(c, "bin/busybox", 0755, bb.buf, bb.len);
	for (const char *const *a = applets; *a; a++) {
		char *p = xasprintf("bin/%s", *a);
		cpio_symlink(c, p, "busybox");
		free(p);
	}
	cpio_file(c, "init", 0755, init, init_len);
	strbuf_release(&bb);
	return 0;
}

int qemu_initramfs_tiny(const char *init, const char *path, struct strbuf *err)
{
	struct cpio c;
	int ret;

	if (initramfs_base(&c, init, strlen(init), err))
		return -1;
	cpio_finish(&c);
	ret = fsutil_write_atomic(path, c.out.buf, c.out.len, err);
	strbuf_release(&c.out);
	return ret;
}

/* The modules of k this job needs into c, their load orders into order[0] (early) and order[1] (late). */
static int initramfs_modules(struct cpio *c, const struct qemu_kernel *k, const struct node *job,
			     const struct qemu_initramfs_needs *need, struct strbuf order[2], struct strbuf *err)
{
	struct strbuf dep = STRBUF_INIT;
	struct modlist mods[2] = { 0 };
	char *dp = xasprintf("%s/modules.dep", k->modules);
	int ret = -1;

	if (strbuf_read_file(&dep, dp)) {
		strbuf_setf(err, "%s/modules.dep is missing; run depmod for that kernel", k->modules);
	} else {
		job_modules(job, need, dep.buf, &mods[0], &mods[1]);
		ret = cpio_modules(c, k, &mods[0], "0", &order[0], err) ||
				      cpio_modules(c, k, &mods[1], "1", &order[1], err)
			      ? -1
			      : 0;
	}
	for (size_t l = 0; l < 2; l++) {
		for (size_t i = 0; i < mods[l].n; i++)
			free(mods[l].v[i]);
		free(mods[l].v);
	}
	free(dp);
	strbuf_release(&dep);
	return ret;
}

int qemu_initramfs(const struct qemu_kernel *k, const struct node *job, const struct qemu_initramfs_needs *need,
		   const char *path, struct strbuf *err)
{
	struct cpio c;
	struct strbuf order[2] = { STRBUF_INIT, STRBUF_INIT };
	int ret = -1;

	if (initramfs_base(&c, init_script, sizeof(init_script) - 1, err))
		return -1;
	if (!k->modules || !initramfs_modules(&c, k, job, need, order, err)) {
		cpio_file(&c, "modules.order", 0644, order[0].buf, order[0].len);
		cpio_file(&c, "modules.late", 0644, order[1].buf, order[1].len);
		cpio_finish(&c);
		ret = fsutil_write_atomic(path, c.out.buf, c.out.len, err);
	}
	strbuf_release(&c.out);
	strbuf_release(&order[0]);
	strbuf_release(&order[1]);
	return ret;
}

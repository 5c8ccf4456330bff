/*
 * qemu command lines: the argv of every QEMU lkprobot starts — the machine
 * (accelerator, CPUs, RAM, NVDIMMs and their locked backing files), a
 * job's boot (the 9p roots, the kernel and its parameters) and a test box's
 * (network, disk, console and monitor). Built as argv arrays: the paths and
 * parameters in them never pass through a shell. See qemu.h.
 *
 * Every guest kernel gets no_timer_check: under TCG on a loaded host the
 * emulated CPU can fall so far behind the clock that the kernel's IO-APIC
 * timer check fails and it panics ("IO-APIC + timer doesn't work!", seen in a
 * box's kexec under a load of 12); virtual machines skip that check.
 */
#include "qemu.h"
#include "../lib/job/job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

void qemu_argv_add(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

/* "-opt" and its value */
static void add2(char ***v, size_t *n, const char *opt, const char *val)
{
	qemu_argv_add(v, n, opt);
	qemu_argv_add(v, n, val);
}

/* "-opt" and its value, which is made here and freed */
static void add2_own(char ***v, size_t *n, const char *opt, char *val)
{
	add2(v, n, opt, val);
	free(val);
}

void qemu_argv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

int qemu_cmdline_safe(const char *what, const char *s, struct strbuf *err)
{
	if (strpbrk(s, " \t\n\"'")) {
		strbuf_setf(err, "%s '%s' has a space or quote, which the guest's kernel command line cannot carry; use a path without them",
			    what, s);
		return -1;
	}
	return 0;
}

/*
 * NVDIMM backing files are shared (share=on) with the guest: two QEMUs on
 * one set would write each other's pmem. Each QEMU takes a free slot of
 * files, held by a lock (*lock_fd) for as long as it runs.
 */
static int nvdimm_args(char ***argv, size_t *argc, const char *cache, int npmem, uint64_t pmem, int *lock_fd,
		       struct strbuf *err)
{
	int slot = -1;

	for (int s = 0; npmem && s < 64 && slot < 0; s++) {
		char *lp = xasprintf("%s/nvdimm-%d.lock", cache, s);
		int fd = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		free(lp);
		if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
			slot = s;
			*lock_fd = fd;
		} else if (fd >= 0) {
			close(fd);
		}
	}
	if (npmem && slot < 0) {
		strbuf_setf(err, "64 QEMU runs hold NVDIMM slots in '%s' already; wait for one to end", cache);
		return -1;
	}
	for (int i = 0; i < npmem; i++) {
		char *img = xasprintf("%s/nvdimm-%d-%d.img", cache, slot, i);
		int fd = open(img, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) || ((uint64_t)st.st_size != pmem && ftruncate(fd, (off_t)pmem))) {
			strbuf_setf(err, "cannot make the NVDIMM backing file '%s': %s", img, strerror(errno));
			if (fd >= 0)
				close(fd);
			free(img);
			return -1;
		}
		close(fd);
		add2_own(argv, argc, "-object",
			 xasprintf("memory-backend-file,id=mem%d,share=on,mem-path=%s,size=%lluM", i, img,
				   (unsigned long long)(pmem >> 20)));
		add2_own(argv, argc, "-device", xasprintf("nvdimm,id=nv%d,memdev=mem%d", i, i));
		free(img);
	}
	return 0;
}

int qemu_machine_argv(const struct qemu_machine *m, char ***argv, size_t *argc, int *lock_fd, struct strbuf *err)
{
	char num[32];

	qemu_argv_add(argv, argc, "qemu-system-x86_64");
	add2(argv, argc, "-accel", m->kvm ? "kvm" : "tcg");
	add2(argv, argc, "-cpu", m->kvm ? "host" : "max");
	snprintf(num, sizeof(num), "%d", m->cpus > 0 ? m->cpus : 2);
	add2(argv, argc, "-smp", num);
	add2(argv, argc, "-machine", m->npmem ? "q35,nvdimm=on" : "q35");
	add2_own(argv, argc, "-m",
		 m->npmem ? xasprintf("%lluM,slots=%d,maxmem=%lluM", (unsigned long long)(m->mem >> 20), m->npmem,
				      (unsigned long long)((m->mem + m->pmem * (uint64_t)m->npmem + (1ULL << 30)) >> 20))
			  : xasprintf("%lluM", (unsigned long long)(m->mem >> 20)));
	return nvdimm_args(argv, argc, m->cache, m->npmem, m->pmem, lock_fd, err);
}

int qemu_job_argv(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		  const struct qemu_machine *m, const struct qemu_job_files *f, char ***argv, size_t *argc, int *lock_fd,
		  struct strbuf *err)
{
	static const char *const fixed[] = {
		"-nodefaults", "-no-user-config", "-no-reboot", "-display", "none", "-serial", "stdio",
		"-monitor", "none",
		"-fsdev", "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap",
		"-device", "virtio-9p-pci,fsdev=rootfs,mount_tag=root", NULL,
	};
	struct strbuf append = STRBUF_INIT;

	if (qemu_machine_argv(m, argv, argc, lock_fd, err))
		return -1;
	for (const char *const *x = fixed; *x; x++)
		qemu_argv_add(argv, argc, *x);
	add2_own(argv, argc, "-fsdev", xasprintf("local,id=outfs,path=%s,security_model=none", o->result_dir));
	add2(argv, argc, "-device", "virtio-9p-pci,fsdev=outfs,mount_tag=out");
	add2(argv, argc, "-kernel", k->image);
	add2(argv, argc, "-initrd", f->initrd);
	strbuf_addf(&append,
		    "console=ttyS0 panic=-1 random.trust_cpu=on no_timer_check "
		    "lkprobot.init=%s lkprobot.job=%s lkprobot.result=%s lkprobot.data=%s lkprobot.facts=%s",
		    o->lkprobot, f->jobfile, o->result_dir, o->data_dir, f->facts);
	if (o->runs > 1)
		strbuf_addf(&append, " lkprobot.runs=%d", o->runs);
	job_boot_params(job, &append);
	if (o->append)
		strbuf_addf(&append, " %s", o->append);
	add2(argv, argc, "-append", append.buf);
	strbuf_release(&append);
	return 0;
}

int qemu_box_argv(const struct qemu_kernel *k, const struct qemu_box_opts *o, const struct qemu_machine *m,
		  char ***argv, size_t *argc, int *lock_fd, struct strbuf *err)
{
	/* no -no-reboot: a reset (power cycle) boots the box's own kernel again, as firmware would */
	static const char *const fixed[] = {
		"-nodefaults", "-no-user-config", "-display", "none",
		"-fsdev", "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap",
		"-device", "virtio-9p-pci,fsdev=rootfs,mount_tag=root",
		"-device", "virtio-net-pci,netdev=net0", NULL,
	};

	if (qemu_machine_argv(m, argv, argc, lock_fd, err))
		return -1;
	for (const char *const *x = fixed; *x; x++)
		qemu_argv_add(argv, argc, *x);
	add2_own(argv, argc, "-netdev", xasprintf("user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:22", o->ssh_port));
	add2_own(argv, argc, "-fsdev", xasprintf("local,id=disk,path=%s,security_model=none", o->disk));
	add2(argv, argc, "-device", "virtio-9p-pci,fsdev=disk,mount_tag=disk");
	add2_own(argv, argc, "-serial", xasprintf("file:%s", o->console));
	add2_own(argv, argc, "-monitor", xasprintf("unix:%s,server=on,wait=off", o->monitor));
	add2(argv, argc, "-kernel", k->image);
	add2(argv, argc, "-initrd", o->initrd);
	char *append = xasprintf(
		"console=ttyS0 random.trust_cpu=on no_timer_check lkprobot.init=%s lkprobot.role=box "
		"lkprobot.box_name=%s lkprobot.box_keys=%s lkprobot.box_hostkey=%s%s%s",
		o->lkprobot, o->name, o->authorized_keys, o->host_key, o->append ? " " : "",
		o->append ? o->append : "");
	add2_own(argv, argc, "-append", append);
	return 0;
}

int qemu_probe_argv(const struct qemu_kernel *k, const struct qemu_machine *m, const char *initrd, char ***argv,
		    size_t *argc, struct strbuf *err)
{
	static const char *const fixed[] = {
		"-nodefaults", "-no-user-config", "-no-reboot", "-display", "none",
		"-serial",     "stdio",		  "-monitor",	"none",	    NULL,
	};
	int lock_fd = -1; /* no NVDIMMs: nothing to lock */

	if (qemu_machine_argv(m, argv, argc, &lock_fd, err))
		return -1;
	for (const char *const *x = fixed; *x; x++)
		qemu_argv_add(argv, argc, *x);
	add2(argv, argc, "-kernel", k->image);
	add2(argv, argc, "-initrd", initrd);
	/* lkprobot.probe: what this QEMU is, to whoever reads ps (or a test's QEMU wrapper) */
	add2(argv, argc, "-append", "console=ttyS0 panic=-1 random.trust_cpu=on no_timer_check lkprobot.probe=kvm");
	return 0;
}

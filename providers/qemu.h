/*
 * qemu: the QEMU provider — a job runs in a freshly booted kernel with
 * emulated NVDIMMs, the same way `lkp qemu` runs it, with lkprobot itself as
 * the guest's agent.
 *
 * The host's root is shared read-only over 9p (cache=loose) and becomes the
 * guest's root after a small generated initramfs (busybox-static and, for a
 * modular kernel, the modules needed to reach the root and the pmem) has
 * mounted it; the result directory is shared writable at the same path, so
 * the guest's `lkprobot guest` writes the result root where the host
 * expects it. One NVDIMM per pmem the job asks for, backed by sparse files
 * in the cache; label-less NVDIMMs come up as raw namespaces, which the
 * guest converts to fsdax once (the info block persists in the file).
 * KVM is used when it works, TCG otherwise; TCG results are marked as
 * functional checks, not performance.
 */
#ifndef LKP_QEMU_H
#define LKP_QEMU_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

struct qemu_kernel {
	char *image;		/* what -kernel boots (an uncompressed vmlinux when we have one) */
	char *release;		/* uname -r of that kernel */
	char *modules;		/* its /lib/modules/<release> (depmod'ed), NULL: all built in */
	char *source;		/* where it came from, said to the user */
	char *commit;		/* the result path's <commit> */
	char *kconfig;		/* the result path's <kconfig> */
};

/*
 * Debian's packaged kernel, the one linux-image-amd64 depends on: fetched
 * with `apt-get download`, unpacked, depmod'ed and its vmlinux extracted,
 * all once, under <cache>/debian/. 0, or -1 with err set.
 */
int qemu_kernel_debian(struct qemu_kernel *k, const char *cache, struct strbuf *err);
/* A kernel image given by the user (-k); modules may be NULL. */
int qemu_kernel_file(struct qemu_kernel *k, const char *image, const char *modules,
		     struct strbuf *err);
void qemu_kernel_release(struct qemu_kernel *k);

/* What the guest's devices need from a modular kernel. */
struct qemu_initramfs_needs {
	bool nvdimm;		/* emulated NVDIMMs (nfit, nd_pmem) */
	bool memmap;		/* legacy memmap= pmem (nd_e820, nd_pmem) */
	bool net;		/* a virtio network card (a QEMU test box's ssh) */
};

/*
 * The initramfs for k and this job at `path` (uncompressed newc cpio): with
 * a modular kernel, only the modules the job needs (its file systems,
 * pmem drivers, msr for turbostat). 0, or -1 with err.
 */
int qemu_initramfs(const struct qemu_kernel *k, const struct node *job, const struct qemu_initramfs_needs *need,
		   const char *path, struct strbuf *err);
/*
 * An initramfs of busybox alone (its applets in /bin) whose first process
 * is the shell script `init`, at `path`: a boot that needs no module (the
 * KVM probe, bench/boot's bare boot). 0, or -1 with err.
 */
int qemu_initramfs_tiny(const char *init, const char *path, struct strbuf *err);

/*
 * The accelerator of every QEMU lkprobot starts (qemu_accel.c): KVM only
 * when a probe guest was seen to run under it here, TCG otherwise. Asked
 * for with --accel or LKPROBOT_ACCEL: kvm, tcg or auto (the default: KVM
 * when the probe passes).
 */
struct qemu_accel {
	bool kvm;
	bool asked;			/* kvm because --accel kvm asked for it (no TCG retry) */
	char why[1024];			/* tcg: why not KVM, one line */
};

/*
 * The probe has two steps. The firmware's (0.1 s, once a process): a 64
 * KiB guest that writes to an I/O port from its reset vector — KVM runs
 * guest code at all. The kernel's (qemu_probe.c): the kernel about to boot,
 * under KVM, with an initramfs whose init prints a marker and powers off;
 * it reaches user space in about a second where KVM works, and is given
 * QEMU_PROBE_SECONDS (a loaded host) before it counts as hung. A kernel's
 * answer is kept for the process and recorded in <cache>/kvm-probe/ for
 * the next ones (qemu_probe_record.c). A host and QEMU whose KVM failed a
 * kernel and booted none are not probed again with the next kernels: TCG
 * at once, said with the record to delete. --accel kvm probes again a
 * kernel recorded as failing, and fails with the reason when it still does.
 *
 * LKPROBOT_KVM_PROBE (the tests' hooks): "off" — no probe at all, KVM is
 * trusted (a boot that then dies is retried under TCG); "no-device" — no
 * look at /dev/kvm first: QEMU alone answers (a test's wrapper plays KVM).
 */
#define QEMU_PROBE_SECONDS 15

/* What decides whether a kernel boots under KVM here: a record's key. */
struct qemu_probe_key {
	char *host;   /* the host kernel's release and machine, the CPU model */
	char *qemu;   /* QEMU's binary (path, size, mtime) and its --version */
	char *kernel; /* the image's real path, size and mtime */
};
/* The key of the kernel `image` on this host and QEMU. 0, or -1 with err. */
int qemu_probe_key_get(struct qemu_probe_key *key, const char *image, struct strbuf *err);
void qemu_probe_key_release(struct qemu_probe_key *key);

/* A probe's answer as recorded. */
struct qemu_probe_record {
	bool boots;    /* the kernel reached user space under KVM */
	char why[512]; /* !boots: how it failed, one line */
	char when[32]; /* when (UTC) */
	char *path;    /* the record's file */
	char *kernel;  /* the kernel image it is about */
};
/* The record of key in dir (its file: qemu_probe_record_path). 1 found, 0 none (or not of this key). */
int qemu_probe_record_find(const char *dir, const struct qemu_probe_key *key, struct qemu_probe_record *r);
/* Did KVM on key's host and QEMU fail some kernel and boot none? 1 with r that failure, 0 not. */
int qemu_probe_record_host(const char *dir, const struct qemu_probe_key *key, struct qemu_probe_record *r);
/* Record the answer for key in dir (created). 0, or -1 with err. */
int qemu_probe_record_save(const char *dir, const struct qemu_probe_key *key, bool boots, const char *why,
			   struct strbuf *err);
char *qemu_probe_record_path(const char *dir, const struct qemu_probe_key *key);
void qemu_probe_record_release(struct qemu_probe_record *r);

/*
 * Boot k under KVM with the probe's initramfs, for QEMU_PROBE_SECONDS at
 * most: 1 it reached user space, 0 it did not (why: how, one line), -1
 * the probe could not run (err). *seconds: how long it took.
 */
int qemu_probe_kernel(const struct qemu_kernel *k, const char *cache, double *seconds, struct strbuf *why,
		      struct strbuf *err);

/*
 * A command's --accel ARG (NULL: none given; LKPROBOT_ACCEL is checked):
 * kept in LKPROBOT_ACCEL for the lkprobot processes this one starts; kvm
 * is proved at once. 0, or -1 with err (a bad word, or KVM that cannot run
 * a guest here: a usage error).
 */
int qemu_accel_option(const char *arg, struct strbuf *err);
/*
 * The accelerator of the next boot of kernel k (NULL: the firmware's step
 * alone), the probe's records in cache (NULL: none kept). Falling back to
 * TCG is said on stderr once per process and kernel, with the reason. -1
 * with err when kvm was asked for and cannot run a guest or boot k.
 */
int qemu_accel_choose(struct qemu_accel *a, const struct qemu_kernel *k, const char *cache, struct strbuf *err);
/* The accelerator the user forced (--accel or LKPROBOT_ACCEL: kvm or tcg), NULL: auto, the probe's choice. */
const char *qemu_accel_forced(void);
/* A QEMU under KVM died before its guest ran: the next boots of this process use TCG. */
void qemu_accel_failed(const char *why);
/*
 * Kernel k hung or oopsed under KVM where it runs under TCG: its next
 * boots use TCG (this process, and the next ones through the record).
 */
void qemu_accel_kernel_failed(const struct qemu_kernel *k, const char *cache, const char *why);
/* The last two lines of what QEMU wrote on stderr, joined by "; ", added to out. */
void qemu_stderr_tail(const struct strbuf *text, struct strbuf *out);

struct qemu_opts {
	const char *cache;		/* kernels, initramfs, NVDIMM backing files */
	const char *result_dir;		/* RESULT_ROOT_DIR, shared writable with the guest */
	const char *data_dir;		/* jobs/ and hosts/ (read by the guest's lkprobot) */
	const char *lkprobot;		/* this binary, run as the guest's agent */
	uint64_t pmem_size;		/* each NVDIMM (default 1 GiB) */
	uint64_t memory;		/* guest RAM (default 2 GiB) */
	int cpus;			/* guest CPUs (default 2) */
	unsigned boot_timeout;		/* seconds until the guest agent starts (default 120) */
	unsigned job_timeout;		/* seconds for the whole job in the guest */
	const char *append;		/* more kernel parameters (boot_params, tests) */
	int runs;			/* runs in this one boot (--reuse-boot); default 1 */
	bool progress;
};

struct qemu_result {
	char *run_dir;			/* the (last) result root the guest wrote (NULL if none) */
	char **run_dirs;		/* every result root of this boot, in order */
	char **states;			/* and each one's job_state */
	size_t nruns;
	const char *job_state;		/* finished, failed, timeout, killed, panic, boot_failed */
	char *reason;
	char *accel;			/* kvm or tcg */
	char *accel_why;		/* tcg: why not KVM (NULL for kvm) */
	double boot_seconds;		/* qemu start to the guest agent's start */
	double test_start, test_end;	/* qemu start to the (last) test's start and end */
	double wall_seconds;
};

/*
 * What QEMU cannot give the job, said before booting: a memmap= pmem
 * reservation in q35's 2G-4G PCI hole (mkfs would then see garbage).
 * 0, or -1 with err set.
 */
int qemu_check_job(const struct node *job, struct strbuf *err);

/*
 * Boot k with the NVDIMMs the atomic `job` asks for and run it in the
 * guest. The QEMU process never outlives this call (nor lkprobot: it dies
 * with its parent). The serial console is saved as `dmesg` in the result
 * root; the guest writes raw outputs only, and the host extracts each run's
 * stats and rebuilds the commit's matrix here (warnings on stderr). Returns
 * 0 when QEMU ran (the state says how it went), -1 with err set when it
 * could not start.
 */
int qemu_run_job(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		 struct qemu_result *res, struct strbuf *err);
void qemu_result_release(struct qemu_result *res);

/* A QEMU guest standing in for a real test box (`lkprobot qemu-box`). */
struct qemu_box_opts {
	const char *name;		/* its host name */
	const char *cache;		/* NVDIMM backing files */
	const char *lkprobot;		/* this binary: the box's init (box-init) */
	const char *initrd;		/* where its initramfs is written (a kexec'd kernel reuses it) */
	const char *disk;		/* a host directory: the box's persistent disk, /mnt */
	const char *authorized_keys;	/* root's, for the robot's ssh key */
	const char *host_key;		/* the box's dropbear host key */
	const char *console;		/* the serial console is written there */
	const char *monitor;		/* a unix socket: QEMU's monitor (system_reset is a power cycle) */
	const char *append;		/* more kernel parameters */
	int ssh_port;			/* 127.0.0.1:<port> reaches the box's port 22 */
	int npmem, cpus;
	uint64_t pmem_size, memory;
};

/*
 * Boot the box and wait until QEMU ends (a power-off, or a signal). Its
 * kernel keeps running across kexec; a reset boots k again. 0 when QEMU
 * ended by itself, -1 with err set.
 */
int qemu_box_run(const struct qemu_kernel *k, const struct qemu_box_opts *o, struct strbuf *err);

/* ---- between the qemu*.c files ---- */

/* The machine QEMU makes (qemu_cmdline.c). */
struct qemu_machine {
	bool kvm;
	int cpus;			/* 0: 2 */
	uint64_t mem, pmem;		/* RAM, each NVDIMM */
	int npmem;			/* NVDIMMs */
	const char *cache;		/* their backing files */
};

/* A job's boot: the files the guest reads. */
struct qemu_job_files {
	const char *jobfile, *initrd, *facts;
};

/* A running QEMU's console and stderr, read from their pipes (qemu_console.c). */
struct qemu_console {
	int out, err;				      /* the pipes (-1: closed) */
	struct strbuf *all;			      /* the console and QEMU's stderr, as they came (NULL: not kept) */
	struct strbuf *qerr;			      /* QEMU's stderr alone, its first 64 KiB (NULL: not kept) */
	void (*on_line)(void *arg, const char *line); /* each whole console line, trailing blanks cut */
	bool (*stop)(void *arg); /* after each read, and at least every 200 ms: true ends the watch */
	void *arg;
	struct strbuf line; /* the line being read */
};
/* c on the pipes out and err (closed by qemu_console_release); set on_line, stop and arg after. */
void qemu_console_init(struct qemu_console *c, int out, int err, struct strbuf *all, struct strbuf *qerr);
/* Read until QEMU closes its console (it ended) or stop() says so. */
void qemu_console_watch(struct qemu_console *c);
/* Once QEMU has ended: the rest of its stderr. */
void qemu_console_drain(struct qemu_console *c);
void qemu_console_release(struct qemu_console *c);
/* A line the kernel printed (printk's timestamp) or a marker of ours, not the firmware's or the boot loader's. */
bool qemu_console_kernel_line(const char *line);
/* Where an oops, a BUG or a panic starts in a console line; NULL when there is none. */
const char *qemu_console_oops(const char *line);

/* Append s to the NULL-terminated argv of *n entries (a copy). */
void qemu_argv_add(char ***v, size_t *n, const char *s);
void qemu_argv_free(char **v, size_t n);
/* No spaces or quotes: these paths travel on the kernel command line. 0, or -1 with err. */
int qemu_cmdline_safe(const char *what, const char *s, struct strbuf *err);
/*
 * QEMU and its machine: accelerator, CPUs, q35 with m's RAM and NVDIMMs,
 * their backing files made and locked through *lock_fd (a free slot of
 * them). 0, or -1 with err set.
 */
int qemu_machine_argv(const struct qemu_machine *m, char ***argv, size_t *argc, int *lock_fd, struct strbuf *err);
/* The whole command line of a job's boot (serial console on stdout). 0, or -1 with err set. */
int qemu_job_argv(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		  const struct qemu_machine *m, const struct qemu_job_files *f, char ***argv, size_t *argc, int *lock_fd,
		  struct strbuf *err);
/* The whole command line of the KVM probe's boot of k (serial console on stdout). 0, or -1 with err set. */
int qemu_probe_argv(const struct qemu_kernel *k, const struct qemu_machine *m, const char *initrd, char ***argv,
		    size_t *argc, struct strbuf *err);
/* The whole command line of a test box's boot. 0, or -1 with err set. */
int qemu_box_argv(const struct qemu_kernel *k, const struct qemu_box_opts *o, const struct qemu_machine *m,
		  char ***argv, size_t *argc, int *lock_fd, struct strbuf *err);

#endif

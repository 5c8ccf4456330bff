/*
 * qemu_accel: KVM or TCG for every QEMU lkprobot starts. See qemu.h.
 *
 * /dev/kvm answering KVM_GET_API_VERSION is not enough: on a nested
 * virtualization host (a cloud VM) KVM may refuse an MSR that QEMU sets at
 * the vCPU's reset, and QEMU aborts ("failed to set MSR 0x10a"). So the
 * probe's first step boots a guest: a 64 KiB firmware whose reset vector
 * writes 0x2a to QEMU's isa-debug-exit port, with the same -accel kvm -cpu
 * host as a real boot. QEMU then exits with (0x2a << 1) | 1 — only if the
 * vCPU really ran guest code under KVM. It takes about 0.1 s and is asked
 * once per process (no record: it is cheap). Running firmware is not
 * booting Linux, though (a nested host whose KVM hangs every kernel after
 * "Probing EDD... ok"): the second step boots the kernel itself
 * (qemu_probe.c), and its answers are kept, per kernel, for the process
 * and in the records (qemu_probe_record.c).
 */
#include "qemu.h"
#include "../lib/sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_VALUE 0x2a
#define PROBE_EXIT ((PROBE_VALUE << 1) | 1)	/* how isa-debug-exit turns a write into QEMU's exit status */
#define PROBE_SECONDS 20			/* a loaded host; the probe takes 0.1 s */

/* The probe's answer in this process: 0 not asked, 1 KVM runs guests, -1 it does not (probe_why). */
static int probe_state;
static char probe_why[512];

static const char *accel_env(void)
{
	const char *e = getenv("LKPROBOT_ACCEL");
	return e && *e ? e : NULL;
}

/* LKPROBOT_KVM_PROBE=off: no probe, KVM trusted */
static bool probe_off(void)
{
	const char *e = getenv("LKPROBOT_KVM_PROBE");
	return e && !strcmp(e, "off");
}

/* LKPROBOT_KVM_PROBE=no-device: QEMU alone says whether KVM runs (a test's wrapper plays it) */
static bool probe_no_device(void)
{
	const char *e = getenv("LKPROBOT_KVM_PROBE");
	return e && !strcmp(e, "no-device");
}

/* The firmware of the probe, written to a temporary file; NULL with err set. */
static char *probe_firmware(struct strbuf *err)
{
	/* mov al, 0x2a; out 0xf4, al; hlt; jmp back to the hlt */
	static const unsigned char code[] = { 0xb0, PROBE_VALUE, 0xe6, 0xf4, 0xf4, 0xeb, 0xfd };
	static unsigned char image[64 << 10];	/* QEMU takes a firmware of a multiple of 64 KiB */
	const char *tmp = getenv("TMPDIR");
	char *path = xasprintf("%s/lkprobot-kvm-probe.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	int fd = mkstemp(path);

	/* the reset vector, 16 bytes below 4 GiB: the end of the firmware */
	memcpy(image + sizeof(image) - 16, code, sizeof(code));
	if (fd < 0 || write(fd, image, sizeof(image)) != (ssize_t)sizeof(image)) {
		strbuf_setf(err, "cannot write the probe's firmware '%s': %s", path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		free(path);
		return NULL;
	}
	close(fd);
	return path;
}

/* Does a guest run under KVM here? Says why not in why. */
static bool kvm_probe(struct strbuf *why)
{
	const char *dev = getenv("LKPROBOT_KVM_DEVICE");
	struct strbuf qerr = STRBUF_INIT;
	int fd, status = 0;
	bool ok = false;

	if (!dev || !*dev)
		dev = "/dev/kvm";
	if (probe_no_device())
		goto firmware;
	if ((fd = open(dev, O_RDWR | O_CLOEXEC)) < 0) {
		strbuf_setf(why, "%s: %s", dev, strerror(errno));
		return false;
	}
	int v = ioctl(fd, KVM_GET_API_VERSION, 0);
	close(fd);
	if (v != KVM_API_VERSION) {
		strbuf_setf(why, "%s answers KVM API version %d, not %d", dev, v, KVM_API_VERSION);
		return false;
	}
firmware:;
	/* the tests' way to a probe that passes where a boot then fails: the TCG retry */
	if (probe_off())
		return true;
	char *fw = probe_firmware(why);
	if (!fw)
		return false;
	char *argv[] = { "qemu-system-x86_64", "-accel", "kvm", "-cpu", "host", "-machine", "q35", "-m", "16M",
			 "-nodefaults", "-no-user-config", "-display", "none", "-bios", fw,
			 "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", NULL };
	/* QEMU prints nothing on stdout here (-nodefaults): its stdout is where its stderr is kept */
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .err = PROC_TO_OUT, .capture = &qerr,
			  .capture_max = 8192, .timeout = PROBE_SECONDS, .grace = 0.5, .death_sig = SIGKILL };
	if (proc_run(&p, why) < 0)
		goto out;
	bool late = p.timed_out;
	status = p.status;
	ok = !late && WIFEXITED(status) && WEXITSTATUS(status) == PROBE_EXIT;
	if (!ok) {
		struct strbuf tail = STRBUF_INIT;
		qemu_stderr_tail(&qerr, &tail);
		if (late)
			strbuf_setf(why, "a QEMU guest under KVM did not finish the probe in %d s", PROBE_SECONDS);
		else
			strbuf_setf(why, "a QEMU guest under KVM %s %d%s%s", WIFSIGNALED(status) ? "died of signal" : "exited with",
				    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), tail.len ? ": " : "",
				    tail.buf ? tail.buf : "");
		strbuf_release(&tail);
	}
out:
	unlink(fw);
	free(fw);
	strbuf_release(&qerr);
	return ok;
}

/* The probe's answer, asked once. */
static bool kvm_works(void)
{
	if (!probe_state) {
		struct strbuf why = STRBUF_INIT;
		probe_state = kvm_probe(&why) ? 1 : -1;
		snprintf(probe_why, sizeof(probe_why), "%s", why.buf ? why.buf : "");
		strbuf_release(&why);
	}
	return probe_state > 0;
}

/* ---- the kernel's step: one answer a kernel, for the process ---- */

struct kernel_verdict {
	char *kernel; /* its key's kernel: path, size, mtime */
	bool boots;
	bool said; /* the fallback to TCG was said on stderr */
	char why[768];
	struct kernel_verdict *next;
};
static struct kernel_verdict *verdicts;

/* The records' directory under cache (NULL: none kept). */
static char *record_dir(const char *cache)
{
	return cache && *cache ? xasprintf("%s/kvm-probe", cache) : NULL;
}

/* Keep a kernel's answer in the records; a record that cannot be written is said once. */
static void verdict_save(const char *dir, const struct qemu_probe_key *key, bool boots, const char *why)
{
	static bool warned;
	struct strbuf err = STRBUF_INIT;

	if (dir && qemu_probe_record_save(dir, key, boots, why, &err) && !warned) {
		fprintf(stderr, "lkprobot: warning: the KVM probe's answer is not kept for the next runs: %s\n",
			err.buf);
		warned = true;
	}
	strbuf_release(&err);
}

/*
 * What the records say of key: 1 with v filled (the kernel's own record;
 * a host and QEMU that failed a kernel and booted none when !asked), 0
 * nothing: probe.
 */
static int verdict_recorded(const char *dir, const struct qemu_probe_key *key, bool asked, struct kernel_verdict *v)
{
	struct qemu_probe_record r;
	int found = 0;

	if (!dir)
		return 0;
	if (qemu_probe_record_find(dir, key, &r)) {
		/* --accel kvm insists: a recorded failure is probed again */
		if (r.boots || !asked) {
			v->boots = r.boots;
			snprintf(v->why, sizeof(v->why), "%s (probed %s, recorded in %s: delete it to probe again)",
				 r.why, r.when, r.path);
			found = 1;
		}
		qemu_probe_record_release(&r);
	} else if (!asked && qemu_probe_record_host(dir, key, &r)) {
		snprintf(v->why, sizeof(v->why),
			 "KVM booted no kernel here: %s (probed %s, recorded in %s: delete it, "
			 "or use --accel kvm, to probe again)",
			 r.why, r.when, r.path);
		found = 1;
		qemu_probe_record_release(&r);
	}
	return found;
}

/* Boot k under KVM to see: v filled and the answer recorded. 0, or -1 with err. */
static int verdict_probe(const struct qemu_kernel *k, const char *cache, const char *dir,
			 const struct qemu_probe_key *key, struct kernel_verdict *v, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	double took = 0;
	int rc = qemu_probe_kernel(k, cache, &took, &why, err);

	if (rc < 0) {
		strbuf_release(&why);
		return -1;
	}
	v->boots = rc > 0;
	if (!v->boots)
		snprintf(v->why, sizeof(v->why), "%s", why.buf);
	verdict_save(dir, key, v->boots, why.buf);
	strbuf_release(&why);
	return 0;
}

/*
 * The answer for kernel k: this process's, the records', else the probe's
 * (asked: --accel kvm, which probes again what the records say fails).
 * NULL with err when the kernel's key or the probe cannot be had.
 */
static struct kernel_verdict *kernel_verdict(const struct qemu_kernel *k, const char *cache, bool asked,
					     struct strbuf *err)
{
	struct qemu_probe_key key;
	struct kernel_verdict *v;

	if (qemu_probe_key_get(&key, k->image, err))
		return NULL;
	for (v = verdicts; v; v = v->next)
		if (!strcmp(v->kernel, key.kernel) && (v->boots || !asked))
			break;
	char *dir = v ? NULL : record_dir(cache);
	if (!v) {
		v = xcalloc(1, sizeof(*v));
		if (!verdict_recorded(dir, &key, asked, v) && verdict_probe(k, cache, dir, &key, v, err)) {
			free(v);
			v = NULL;
		} else {
			v->kernel = xstrdup(key.kernel);
			v->next = verdicts;
			verdicts = v;
		}
	}
	free(dir);
	qemu_probe_key_release(&key);
	return v;
}

void qemu_accel_kernel_failed(const struct qemu_kernel *k, const char *cache, const char *why)
{
	struct qemu_probe_key key;
	struct strbuf err = STRBUF_INIT;

	if (qemu_probe_key_get(&key, k->image, &err)) {
		strbuf_release(&err);
		return;
	}
	struct kernel_verdict *v = xcalloc(1, sizeof(*v));
	v->kernel = xstrdup(key.kernel);
	snprintf(v->why, sizeof(v->why), "%s (a boot of this kernel)", why);
	v->said = true; /* the retry said it */
	v->next = verdicts;
	verdicts = v;
	char *dir = record_dir(cache);
	if (!probe_off())
		verdict_save(dir, &key, false, v->why);
	free(dir);
	qemu_probe_key_release(&key);
	strbuf_release(&err);
}

/* kvm, tcg or auto from s; -1 when it is none of them. */
static int accel_word(const char *s, const char *what, struct strbuf *err)
{
	if (!s || !strcmp(s, "auto"))
		return 0;
	if (!strcmp(s, "kvm"))
		return 1;
	if (!strcmp(s, "tcg"))
		return 2;
	strbuf_setf(err, "%s: '%s' is not an accelerator; use kvm, tcg or auto", what, s);
	return -1;
}

/* kvm was asked for (by `asked`: "--accel kvm", "LKPROBOT_ACCEL=kvm") and cannot run a guest */
static int kvm_refused(const char *asked, struct strbuf *err)
{
	strbuf_setf(err, "%s: KVM cannot run a guest here (%s); use --accel tcg or auto", asked, probe_why);
	return -1;
}

int qemu_accel_option(const char *arg, struct strbuf *err)
{
	const char *what = arg ? "--accel" : "LKPROBOT_ACCEL";
	const char *want = arg ? arg : accel_env();
	int w = accel_word(want, what, err);

	if (w < 0)
		return -1;
	/* the lkprobot processes this one starts (bisect, run-commit on a Slurm node) choose the same */
	if (arg)
		setenv("LKPROBOT_ACCEL", arg, 1);
	if (w == 1 && !kvm_works())
		return kvm_refused(arg ? "--accel kvm" : "LKPROBOT_ACCEL=kvm", err);
	return 0;
}

int qemu_accel_choose(struct qemu_accel *a, const struct qemu_kernel *k, const char *cache, struct strbuf *err)
{
	const char *want = accel_env();
	int w = accel_word(want, "LKPROBOT_ACCEL", err);

	memset(a, 0, sizeof(*a));
	if (w < 0)
		return -1;
	if (w == 2) {
		snprintf(a->why, sizeof(a->why), "TCG was asked for (--accel tcg, LKPROBOT_ACCEL=tcg)");
		return 0;
	}
	if (!kvm_works()) {
		if (w == 1)
			return kvm_refused("LKPROBOT_ACCEL=kvm (--accel kvm)", err);
		static bool said;
		if (!said)
			fprintf(stderr, "lkprobot: KVM not used, TCG instead: %s\n", probe_why);
		said = true;
		snprintf(a->why, sizeof(a->why), "%s", probe_why);
		return 0;
	}
	/* KVM runs guest code; does it boot this kernel? */
	struct kernel_verdict *v = k && !probe_off() ? kernel_verdict(k, cache, w == 1, err) : NULL;
	if (k && !probe_off() && !v)
		return -1;
	if (!v || v->boots) {
		a->kvm = true;
		a->asked = w == 1;
		return 0;
	}
	if (w == 1) {
		strbuf_setf(err,
			    "LKPROBOT_ACCEL=kvm (--accel kvm): KVM cannot boot the kernel here (%s); use --accel tcg "
			    "or auto",
			    v->why);
		return -1;
	}
	if (!v->said)
		fprintf(stderr, "lkprobot: KVM not used, TCG instead: %s\n", v->why);
	v->said = true;
	snprintf(a->why, sizeof(a->why), "%s", v->why);
	return 0;
}

const char *qemu_accel_forced(void)
{
	struct strbuf err = STRBUF_INIT;
	int w = accel_word(accel_env(), "LKPROBOT_ACCEL", &err);

	strbuf_release(&err);
	return w == 1 ? "kvm" : w == 2 ? "tcg" : NULL;
}

void qemu_accel_failed(const char *why)
{
	probe_state = -1;
	snprintf(probe_why, sizeof(probe_why), "%s", why);
}

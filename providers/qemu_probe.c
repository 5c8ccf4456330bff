/*
 * qemu probe: does a Linux kernel reach its console and user space under
 * KVM here? The kernel about to boot is booted under KVM on the machine a
 * job gets (q35, -cpu host, 2 vCPUs) with a busybox initramfs whose init
 * prints a marker and powers off. Where KVM works that takes about a
 * second; a KVM that runs firmware but hangs a kernel (a nested host:
 * silent after "Probing EDD... ok") or oopses it is seen within
 * QEMU_PROBE_SECONDS instead of a whole boot timeout. See qemu.h.
 */
#include "qemu.h"
#include "../lib/sys/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROBE_MARK "@@LKPROBOT probe-init"

static const char probe_init[] =
	"#!/bin/sh\n"
	"# lkprobot's KVM probe: the kernel reached user space; say so and power off\n"
	"export PATH=/bin\n"
	"mount -t proc proc /proc\n"
	"read up idle </proc/uptime\n"
	"echo \"" PROBE_MARK
	" ($up s since boot)\"\n"
	"poweroff -f\n";

/* What the probe's console said. */
struct probe_watch {
	double deadline;
	bool reached;	/* the marker: user space */
	bool spoke;	/* a line of the kernel's */
	char oops[256]; /* the first oops or panic line */
	char last[256]; /* the last line, whoever printed it */
};

static void probe_line(void *arg, const char *line)
{
	struct probe_watch *pw = arg;
	const char *oops = qemu_console_oops(line);

	if (strstr(line, PROBE_MARK))
		pw->reached = true;
	pw->spoke |= qemu_console_kernel_line(line);
	if (oops && !pw->oops[0])
		snprintf(pw->oops, sizeof(pw->oops), "%s", oops);
	if (*line)
		snprintf(pw->last, sizeof(pw->last), "%s", line);
}

static bool probe_stop(void *arg)
{
	struct probe_watch *pw = arg;
	/* a service asked to stop (SIGTERM, proc_catch_stop) does not wait for the answer */
	return pw->reached || pw->oops[0] || proc_now() > pw->deadline || proc_stop_signal;
}

/* How the probe failed, one line, into why; st: QEMU's wait status when it ended by itself, else -1. */
static void probe_why(const struct qemu_kernel *k, const struct probe_watch *pw, int st, const struct strbuf *qerr,
		      struct strbuf *why)
{
	const char *last = pw->last[0] ? pw->last : NULL;

	if (pw->oops[0]) {
		strbuf_setf(why, "the kernel probe: %s under KVM failed before user space: %s", k->image, pw->oops);
	} else if (st != -1) {
		struct strbuf tail = STRBUF_INIT;
		qemu_stderr_tail(qerr, &tail);
		strbuf_setf(why, "the kernel probe: QEMU under KVM %s %d before %s reached user space%s%s",
			    WIFSIGNALED(st) ? "died of signal" : "exited with",
			    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st), k->image, tail.len ? ": " : "", tail.buf);
		strbuf_release(&tail);
	} else {
		strbuf_setf(why, "the kernel probe: %s under KVM %s within %d s%s%s%s", k->image,
			    pw->spoke ? "did not reach user space" : "printed no kernel line", QEMU_PROBE_SECONDS,
			    last ? " (the last line on its console: " : "", last ? last : "", last ? ")" : "");
	}
}

/* Boot argv and watch its console: 1 user space reached, 0 not (why), -1 with err. */
static int probe_run(const struct qemu_kernel *k, char **argv, struct strbuf *why, struct strbuf *err)
{
	struct strbuf qerr = STRBUF_INIT, werr = STRBUF_INIT;
	struct probe_watch pw = { .deadline = proc_now() + QEMU_PROBE_SECONDS };
	/* QEMU never outlives lkprobot, nor the probe: killed as soon as the answer is in */
	struct proc p = {
		.argv = argv, .in = PROC_NULL, .out = PROC_PIPE, .err = PROC_PIPE, .pgroup = true, .death_sig = SIGKILL
	};
	struct qemu_console con;

	if (proc_start(&p, err))
		return -1;
	qemu_console_init(&con, p.out, p.err, NULL, &qerr);
	con.on_line = probe_line;
	con.stop = probe_stop;
	con.arg = &pw;
	qemu_console_watch(&con);
	/* QEMU has ended, or has to now; the wait is no longer than its end */
	bool killed = proc_wait_for(&p, 0, &werr) == PROC_RUNNING;
	if (killed) {
		proc_signal(&p, SIGKILL);
		proc_wait(&p, &werr);
	}
	qemu_console_drain(&con);
	qemu_console_release(&con);
	int ret = pw.reached ? 1 : 0;
	if (!pw.reached && proc_stop_signal) {
		/* no answer: nothing is recorded */
		strbuf_setf(err, "the KVM probe was stopped (%s)", strsignal(proc_stop_signal));
		ret = -1;
	} else if (!pw.reached) {
		probe_why(k, &pw, killed ? -1 : p.status, &qerr, why);
	}
	strbuf_release(&qerr);
	strbuf_release(&werr);
	return ret;
}

int qemu_probe_kernel(const struct qemu_kernel *k, const char *cache, double *seconds, struct strbuf *why,
		      struct strbuf *err)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/lkprobot-kvm-probe.XXXXXX", tmp && *tmp ? tmp : "/tmp"), *initrd = NULL;
	struct qemu_machine m = { .kvm = true, .cpus = 2, .mem = 1ULL << 30, .cache = cache };
	char **argv = NULL;
	size_t argc = 0;
	int ret = -1;
	double t0 = proc_now();

	if (!mkdtemp(dir)) {
		strbuf_setf(err, "cannot create a directory for the KVM probe in '%s': %s", tmp && *tmp ? tmp : "/tmp",
			    strerror(errno));
		free(dir);
		return -1;
	}
	initrd = xasprintf("%s/initramfs.cpio", dir);
	if (!qemu_initramfs_tiny(probe_init, initrd, err) && !qemu_probe_argv(k, &m, initrd, &argv, &argc, err))
		ret = probe_run(k, argv, why, err);
	*seconds = proc_now() - t0;
	unlink(initrd);
	rmdir(dir);
	free(initrd);
	free(dir);
	qemu_argv_free(argv, argc);
	return ret;
}

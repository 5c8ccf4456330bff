/*
 * qemu box: a QEMU guest standing in for a real test box (`lkprobot
 * qemu-box`), booted and kept until it powers off. See qemu.h.
 */
#include "qemu.h"
#include "../lib/sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Did the box's console get as far as lkprobot (box-init's markers)? */
static bool box_started(const char *console)
{
	struct strbuf c = STRBUF_INIT;
	bool started = !strbuf_read_file(&c, console) && c.len && strstr(c.buf, "@@LKPROBOT");

	strbuf_release(&c);
	return started;
}

/* Run QEMU (argv) until it ends, its stderr passed on. 0 when it powered off, -1 with err (QEMU's last words in it). */
static int box_qemu(char **argv, struct strbuf *err)
{
	struct strbuf qerr = STRBUF_INIT;
	/* QEMU never outlives lkprobot, even if lkprobot is killed */
	struct proc p = { .argv = argv, .err = PROC_PIPE, .death_sig = SIGKILL };
	int ret = -1;

	if (proc_start(&p, err))
		return -1;
	/* QEMU's stderr is passed on as it comes, and its end kept for the error */
	char buf[4096];
	for (ssize_t n; (n = read(p.err, buf, sizeof(buf))) != 0;) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (write(2, buf, (size_t)n) < 0) {
			/* our stderr is gone: QEMU's words are still kept */
		}
		if (qerr.len > 65536)
			strbuf_reset(&qerr);
		strbuf_add(&qerr, buf, (size_t)n);
	}
	close(p.err);
	if (proc_wait(&p, err) < 0)
		goto out;
	int status = p.status;
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		ret = 0;
	} else {
		struct strbuf tail = STRBUF_INIT;
		qemu_stderr_tail(&qerr, &tail);
		strbuf_setf(err, "QEMU ended with %s %d%s%s", WIFSIGNALED(status) ? "signal" : "status",
			    WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), tail.len ? ": " : "",
			    tail.len ? tail.buf : "");
		strbuf_release(&tail);
	}
out:
	strbuf_release(&qerr);
	return ret;
}

/* One boot of the box, until QEMU ends. 0 when it powered off, -1 with err. */
static int box_boot(const struct qemu_kernel *k, const struct qemu_box_opts *o, const struct qemu_accel *acc,
		    struct strbuf *err)
{
	struct qemu_machine m = { .kvm = acc->kvm, .cpus = o->cpus, .npmem = o->npmem, .cache = o->cache,
				  .pmem = o->pmem_size ? o->pmem_size : 1ULL << 30,
				  .mem = o->memory ? o->memory : 2ULL << 30 };
	char **argv = NULL;
	size_t argc = 0;
	int lock_fd = -1, ret = -1;

	if (!qemu_box_argv(k, o, &m, &argv, &argc, &lock_fd, err)) {
		fprintf(stderr, "lkprobot: box %s: %s, ssh on 127.0.0.1:%d, console in %s, monitor %s\n", o->name,
			acc->kvm ? "KVM" : "TCG", o->ssh_port, o->console, o->monitor);
		ret = box_qemu(argv, err);
	}
	if (lock_fd >= 0)
		close(lock_fd);
	qemu_argv_free(argv, argc);
	return ret;
}

int qemu_box_run(const struct qemu_kernel *k, const struct qemu_box_opts *o, struct strbuf *err)
{
	struct qemu_accel acc;

	if (qemu_cmdline_safe("lkprobot", o->lkprobot, err) ||
	    qemu_cmdline_safe("the authorized keys", o->authorized_keys, err) ||
	    qemu_cmdline_safe("the host key", o->host_key, err) || qemu_cmdline_safe("the box name", o->name, err))
		return -1;
	/* the modules any job may need: the box's kernel serves many jobs */
	struct node *any = node_new(NODE_MAP);
	node_set(any, "fs", node_new_scalar("xfs"));
	node_set(any, "fs1", node_new_scalar("ext4"));
	struct qemu_initramfs_needs need = { .nvdimm = true, .memmap = true, .net = true };
	int rc = qemu_initramfs(k, any, &need, o->initrd, err);
	node_free(any);
	if (rc || qemu_accel_choose(&acc, k, o->cache, err))
		return -1;
	rc = box_boot(k, o, &acc, err);
	if (rc && acc.kvm && !acc.asked && !box_started(o->console)) {
		/* as for a job's boot: the probe passed, yet this guest did not run under KVM */
		struct strbuf why = STRBUF_INIT;
		strbuf_setf(&why, "QEMU under KVM died before the box started (%s)", err->buf);
		fprintf(stderr, "lkprobot: box %s: %s; booting again under TCG\n", o->name, why.buf);
		qemu_accel_failed(why.buf);
		acc.kvm = false;
		strbuf_reset(err);
		strbuf_release(&why);
		rc = box_boot(k, o, &acc, err);
	}
	return rc;
}

/*
 * qemu: a job's run in a kernel booted with emulated NVDIMMs — its files
 * set up, QEMU started, its console watched, and what the boot left
 * collected (its command line: qemu_cmdline.c; a test box's boot:
 * qemu_box.c). See qemu.h. The guest's side is `lkprobot guest`
 * (robot/cmd_guest.c).
 *
 * Markers on the serial console tell the host how far the guest got:
 *   "@@LKPROBOT initramfs"          the kernel reached our initramfs
 *   "@@LKPROBOT guest"              lkprobot runs as the guest's init
 *   "@@LKPROBOT RESULT <dir> <state>"  the job ran into that result root
 *   "@@LKPROBOT ERROR <why>"        the guest could not run the job
 * "Kernel panic" ends the run as a panic: the guest boots with panic=-1
 * and QEMU with -no-reboot, so a panic stops QEMU.
 */
#include "qemu.h"
#include "../lib/job/engine.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/job/job.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/results/result.h"
#include "../lib/run/run.h"
#include "../lib/util/units.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * A soft lockup reported as lasting this long (guest seconds) ends the run:
 * under TCG both vCPUs have been seen stuck for good (the job timeout
 * would only come 10 minutes later); a real soft lockup is a failure of
 * the kernel under test either way.
 */
#define QEMU_LOCKUP_SECONDS 120

/*
 * Under KVM the kernel's first console line comes within a second of
 * QEMU's start; a kernel silent this long under a KVM the probe let
 * through hangs there (seen: after "Probing EDD... ok" on a nested host).
 */
#define QEMU_KVM_QUIET_SECONDS 15

/* SIGINT/SIGTERM while QEMU runs: its console is saved, then the signal does what it did. */
static volatile sig_atomic_t qemu_stop_sig;

static void qemu_on_stop(int sig)
{
	qemu_stop_sig = sig;
}

static double now_mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void qemu_result_release(struct qemu_result *res)
{
	for (size_t i = 0; i < res->nruns; i++) {
		free(res->run_dirs[i]);
		free(res->states[i]);
	}
	free(res->run_dirs);
	free(res->states);
	free(res->run_dir);
	free(res->reason);
	free(res->accel);
	free(res->accel_why);
	memset(res, 0, sizeof(*res));
}

/* How many pmem devices the job's disk asks for. */
static int job_pmem(const struct node *job)
{
	const struct node *d = node_get(job, "disk");
	struct units_disk ud;
	struct strbuf e = STRBUF_INIT;
	int n = 0;

	if (node_str(d) && !units_disk(d->str, &ud, &e))
		n = ud.nr_pmem;
	else if (d && d->type == NODE_MAP && node_str(node_get(d, "nr_pmem")))
		n = atoi(node_str(node_get(d, "nr_pmem")));
	strbuf_release(&e);
	return n;
}

/*
 * Legacy pmem: the end of the highest memmap=SIZE!START reservation in the
 * job's boot_params, 0 when there is none. The guest needs RAM past it.
 */
static uint64_t memmap_end(const struct node *job)
{
	const struct node *bp = node_get(job, "boot_params");
	uint64_t end = 0;

	for (size_t i = 0; bp && bp->type == NODE_MAP && i < bp->n; i++) {
		uint64_t size, start;
		struct strbuf e = STRBUF_INIT;
		const char *v = node_str(bp->vals[i]);
		if (!bp->vals[i]->comment && v && strstr(bp->keys[i], "_memmap") &&
		    !units_memmap(v, &size, &start, &e) && start + size > end)
			end = start + size;
		strbuf_release(&e);
	}
	return end;
}

int qemu_check_job(const struct node *job, struct strbuf *err)
{
	const struct node *bp = node_get(job, "boot_params");
	const uint64_t g = 1ULL << 30;

	for (size_t i = 0; bp && bp->type == NODE_MAP && i < bp->n; i++) {
		uint64_t size, start;
		struct strbuf e = STRBUF_INIT;
		const char *v = node_str(bp->vals[i]);
		bool bad = !bp->vals[i]->comment && v && strstr(bp->keys[i], "_memmap") &&
			   !units_memmap(v, &size, &start, &e) && start < 4 * g && start + size > 2 * g;
		strbuf_release(&e);
		if (bad) {
			strbuf_setf(err, "boot_params: %s: memmap=%s reaches into the 2G-4G hole of QEMU's q35 machine, "
				    "which is not RAM; reserve below 2G or from 4G up (e.g. memmap=%.*s!4G)",
				    bp->keys[i], v, (int)strcspn(v, "!"), v);
			return -1;
		}
	}
	return 0;
}

/* One boot of qemu_run_job: its files and what it saw. */
struct qemu_boot {
	const char *work;		/* the run's work directory (the console when no result root) */
	struct qemu_job_files files;
	struct qemu_machine m;
	struct strbuf console;		/* the serial console, and QEMU's stderr */
	struct strbuf qerr;		/* QEMU's stderr alone */
	bool died_early;		/* QEMU ended by itself before the guest's lkprobot started, no panic */
	bool lockup;			/* killed on a lasting soft lockup the guest reported */
	bool started;			/* the guest's lkprobot started */
	bool kvm_failed;   /* under KVM (not asked for), the kernel hung or oopsed before it: QEMU killed */
	char kvm_why[512]; /* and how, one line */
	char how[32];			/* how QEMU ended: "signal 6", "status 1" */
};

/* The facts the guest records that the host knows: how the CPU is emulated. */
static int boot_facts(const char *work, const struct qemu_accel *acc, char **path, struct strbuf *err)
{
	struct node *facts = node_new(NODE_MAP);
	struct strbuf yaml = STRBUF_INIT;
	char *v = acc->kvm ? xstrdup("kvm") : xasprintf("%s; KVM not used: %s", ENGINE_TCG_NOTE, acc->why);
	struct node *n = node_new_scalar(v);
	int rc;

	n->quoted = 1;
	node_set(facts, "accel", n);
	yml_emit(&yaml, facts);
	*path = xasprintf("%s/facts.yaml", work);
	rc = fsutil_write_atomic(*path, yaml.buf, yaml.len, err);
	node_free(facts);
	free(v);
	strbuf_release(&yaml);
	return rc;
}

/* ---- start: QEMU with its console and stderr on pipes (lib/sys/proc) ---- */

/* A running QEMU of a job's boot and what its console said so far. */
struct qemu_watch {
	const struct qemu_opts *o;
	struct qemu_boot *b;
	struct qemu_result *res;
	struct proc p;			/* QEMU (p.pid 0: not started or reaped) */
	struct qemu_console con;	/* its console's and stderr's pipes */
	double t0, boot_deadline, job_deadline;
	bool started, panic, done, lockup, killed;
	bool watch_kvm;	   /* under KVM not asked for: a hang or an oops before the guest starts is KVM's */
	bool kernel_spoke; /* the kernel printed a line */
	const char *state;
};

/*
 * Start argv with w's pipes (its console and its stderr), in a process
 * group of its own — a Ctrl-C reaches lkprobot, which kills QEMU and says
 * so — with a death signal: QEMU never outlives lkprobot, even if lkprobot
 * is killed. 0, or -1 with err.
 */
static int boot_start(char **argv, struct qemu_watch *w, struct strbuf *err)
{
	w->p = (struct proc){ .argv = argv, .in = PROC_NULL, .out = PROC_PIPE, .err = PROC_PIPE, .pgroup = true,
			      .death_sig = SIGKILL };
	w->t0 = now_mono();
	if (proc_start(&w->p, err)) {
		w->p.pid = 0;
		return -1;
	}
	qemu_console_init(&w->con, w->p.out, w->p.err, &w->b->console, &w->b->qerr);
	return 0;
}

/* ---- watch the console: the guest's markers, a panic, a lockup, the deadlines ---- */

/* The guest wrote "@@LKPROBOT RESULT <dir> <state>": one more result root of this boot. */
static void boot_result(struct qemu_watch *w, const char *arg)
{
	struct qemu_result *res = w->res;
	char dir[4096], st[64];

	if (sscanf(arg, "%4095s %63s", dir, st) == 2) {
		free(res->run_dir);
		res->run_dir = xstrdup(dir);
		res->run_dirs = xrealloc(res->run_dirs, (res->nruns + 1) * sizeof(char *));
		res->states = xrealloc(res->states, (res->nruns + 1) * sizeof(char *));
		res->run_dirs[res->nruns] = xstrdup(dir);
		res->states[res->nruns++] = xstrdup(st);
		/* the worst state of the boot's runs */
		const char *this = !strcmp(st, "finished") ? "finished" : !strcmp(st, "timeout") ? "timeout"
				 : !strcmp(st, "killed") ? "killed" : "failed";
		if (!w->state || !strcmp(w->state, "finished"))
			w->state = this;
	}
	w->done = (int)res->nruns >= (w->o->runs > 1 ? w->o->runs : 1);
}

/*
 * Under KVM, before the guest's lkprobot starts: the kernel's first line,
 * or an oops (a panic too), which is KVM's failure. True when the line is
 * one (the boot ends: QEMU killed, booted again under TCG).
 */
static bool boot_kvm_line(struct qemu_watch *w, const char *line)
{
	const char *oops = qemu_console_oops(line);

	w->kernel_spoke |= qemu_console_kernel_line(line);
	if (!oops || w->b->kvm_failed)
		return false;
	w->b->kvm_failed = true;
	snprintf(w->b->kvm_why, sizeof(w->b->kvm_why), "the kernel under KVM failed before the guest started: %.300s",
		 oops);
	return true;
}

/* One whole line of the console. */
static void boot_line(void *arg, const char *line)
{
	struct qemu_watch *w = arg;
	struct qemu_result *res = w->res;
	const char *mark = strstr(line, "@@LKPROBOT ");

	if (w->o->progress)
		fprintf(stderr, "\r\033[K%.70s", line);
	if (w->watch_kvm && !w->started && boot_kvm_line(w, line))
		return;
	if (mark && !strncmp(mark + 11, "guest", 5) && !w->started) {
		w->started = true;
		res->boot_seconds = now_mono() - w->t0;
		w->job_deadline = now_mono() + (w->o->job_timeout ? w->o->job_timeout : 600);
	} else if (mark && !strncmp(mark + 11, "test-start", 10)) {
		res->test_start = now_mono() - w->t0;
	} else if (mark && !strncmp(mark + 11, "test-end", 8)) {
		res->test_end = now_mono() - w->t0;
	} else if (mark && !strncmp(mark + 11, "RESULT ", 7)) {
		boot_result(w, mark + 18);
	} else if (mark && !strncmp(mark + 11, "ERROR ", 6)) {
		free(res->reason);
		res->reason = xstrdup(mark + 17);
		w->state = "failed";
	} else if ((mark = strstr(line, "soft lockup - CPU#")) && strstr(mark, "stuck for ") &&
		   atoi(strstr(mark, "stuck for ") + 10) >= QEMU_LOCKUP_SECONDS) {
		/* a kernel stuck this long does not come back: stop now, not at the job timeout */
		free(res->reason);
		res->reason = xasprintf("the guest kernel reported a %s: QEMU killed", mark);
		w->state = "failed";
		w->lockup = true;
	} else if (strstr(line, "Kernel panic")) {
		w->panic = true;
		if (!res->reason)
			res->reason = xstrdup(strstr(line, "Kernel panic"));
	}
}

/* Kill QEMU now: state and reason (NULL: as they are) say why. */
static void boot_kill(struct qemu_watch *w, const char *state, char *reason)
{
	proc_signal(&w->p, SIGKILL);
	w->killed = true;
	if (state)
		w->state = state;
	if (reason) {
		free(w->res->reason);
		w->res->reason = reason;
	}
}

/* Should the boot end now (a lockup, a signal, KVM's failure, a deadline)? QEMU is killed then. */
static bool boot_stop(void *arg)
{
	struct qemu_watch *w = arg;
	const struct qemu_opts *o = w->o;
	double t = now_mono();

	if (w->lockup) {
		boot_kill(w, NULL, NULL);
		w->b->lockup = true;
	} else if (qemu_stop_sig) {
		boot_kill(w, "killed", xasprintf("lkprobot was stopped (%s): QEMU killed", strsignal(qemu_stop_sig)));
	} else if (w->b->kvm_failed) {
		boot_kill(w, "boot_failed", xasprintf("%s: QEMU killed", w->b->kvm_why));
	} else if (w->watch_kvm && !w->started && !w->kernel_spoke && t > w->t0 + QEMU_KVM_QUIET_SECONDS &&
		   t <= w->boot_deadline) {
		w->b->kvm_failed = true;
		snprintf(w->b->kvm_why, sizeof(w->b->kvm_why), "the kernel under KVM printed no line in its first %d s",
			 QEMU_KVM_QUIET_SECONDS);
		boot_kill(w, "boot_failed", xasprintf("%s: QEMU killed", w->b->kvm_why));
	} else if (!w->started && t > w->boot_deadline) {
		boot_kill(w, "boot_failed",
			  xasprintf("the guest did not start lkprobot within %u s of booting: QEMU killed (see dmesg)",
				    o->boot_timeout ? o->boot_timeout : 120));
	} else if (w->started && !w->done && t > w->job_deadline) {
		boot_kill(w, "timeout", xasprintf("the guest ran the job for more than %u s: QEMU killed",
						  o->job_timeout ? o->job_timeout : 600));
	}
	return w->killed;
}

/* Read the console until QEMU closes it or the boot must end. */
static void boot_watch(struct qemu_watch *w)
{
	w->boot_deadline = w->t0 + (w->o->boot_timeout ? w->o->boot_timeout : 120);
	w->con.on_line = boot_line;
	w->con.stop = boot_stop;
	w->con.arg = w;
	qemu_console_watch(&w->con);
	if (w->o->progress)
		fprintf(stderr, "\r\033[K");
}

/* QEMU has ended or been killed: reap it, keep the rest of its stderr, and say how the boot went. */
static void boot_end(struct qemu_watch *w)
{
	struct qemu_result *res = w->res;
	struct qemu_boot *b = w->b;
	struct strbuf werr = STRBUF_INIT;

	proc_wait(&w->p, &werr);	/* it has ended or been killed: no wait longer than its end */
	strbuf_release(&werr);
	int status = w->p.status;
	/* QEMU is gone: the rest of its stderr is there to read */
	qemu_console_drain(&w->con);
	res->wall_seconds = now_mono() - w->t0;
	b->started = w->started;
	if (w->panic) {
		w->state = "panic";
	} else if (!w->state) {
		struct strbuf tail = STRBUF_INIT;
		qemu_stderr_tail(&b->qerr, &tail);
		w->state = w->started ? "failed" : "boot_failed";
		b->died_early = !w->started && !w->killed;
		snprintf(b->how, sizeof(b->how), "%s %d", WIFSIGNALED(status) ? "signal" : "status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		if (!res->reason)
			res->reason = xasprintf("QEMU exited (%s) before the guest reported a result%s%s", b->how,
						tail.len ? ": " : "", tail.len ? tail.buf : "");
		strbuf_release(&tail);
	}
	res->job_state = w->state;
}

/*
 * Boot k once with acc and watch its console until the guest reports, the
 * boot or the job times out, or a signal stops lkprobot. 0 with res's
 * state and reason set, -1 with err when QEMU could not start.
 */
static int qemu_boot(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		     const struct qemu_accel *acc, struct qemu_boot *b, struct qemu_result *res, struct strbuf *err)
{
	struct qemu_watch w = {
		.o = o, .b = b, .res = res, .con = { .out = -1, .err = -1 }, .watch_kvm = acc->kvm && !acc->asked
	};
	char **argv = NULL, *facts = NULL;
	size_t argc = 0;
	int ret = -1, lock_fd = -1;

	free(res->accel);
	res->accel = xstrdup(acc->kvm ? "kvm" : "tcg");
	free(res->accel_why);
	res->accel_why = acc->kvm ? NULL : xstrdup(acc->why);
	b->m.kvm = acc->kvm;
	if (boot_facts(b->work, acc, &facts, err))
		goto out;
	b->files.facts = facts;
	if (qemu_job_argv(k, job, o, &b->m, &b->files, &argv, &argc, &lock_fd, err) || boot_start(argv, &w, err))
		goto out;
	ret = 0;
	struct sigaction stop = { .sa_handler = qemu_on_stop }, old_int, old_term;
	qemu_stop_sig = 0;
	sigaction(SIGINT, &stop, &old_int);
	sigaction(SIGTERM, &stop, &old_term);
	boot_watch(&w);
	boot_end(&w);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
out:
	if (w.p.pid > 0 && !w.p.ended) {
		struct strbuf werr = STRBUF_INIT;
		proc_signal(&w.p, SIGKILL);
		proc_wait(&w.p, &werr);
		strbuf_release(&werr);
	}
	qemu_console_release(&w.con);
	if (lock_fd >= 0)
		close(lock_fd);
	if (facts)
		unlink(facts);
	free(facts);
	qemu_argv_free(argv, argc);
	return ret;
}

/* Boot once more after a first boot that was not the job's doing: its result and console dropped. */
static int boot_again(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		      const struct qemu_accel *acc, struct qemu_boot *b, struct qemu_result *res, struct strbuf *err)
{
	qemu_result_release(res);
	strbuf_reset(&b->console);
	strbuf_reset(&b->qerr);
	b->died_early = b->lockup = b->started = b->kvm_failed = false;
	b->kvm_why[0] = '\0';
	return qemu_boot(k, job, o, acc, b, res, err);
}

/* ---- a job's run: its files, its boots, what it left ---- */

/*
 * The machine the job needs and the files of its boot in a new work
 * directory under the result directory (*work; freed by the caller): the
 * job, and the initramfs with the modules it needs. 0, or -1 with err.
 */
static int run_setup(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		     struct qemu_boot *b, char **work, struct strbuf *err)
{
	struct strbuf yaml = STRBUF_INIT;
	int rc = -1;

	b->m = (struct qemu_machine){ .cpus = o->cpus, .cache = o->cache, .npmem = job_pmem(job),
				      .pmem = o->pmem_size ? o->pmem_size : 1ULL << 30,
				      .mem = o->memory ? o->memory : 2ULL << 30 };
	/* memmap= pmem (lkp-tests' way) instead of NVDIMMs: RAM must reach past it */
	uint64_t mm = memmap_end(job);
	if (mm) {
		b->m.npmem = 0;
		if (b->m.mem < mm + (1ULL << 30))
			b->m.mem = mm + (1ULL << 30);
	}
	*work = xasprintf("%s/.lkprobot-qemu.XXXXXX", o->result_dir);
	if (fsutil_mkdir_p(o->result_dir) || !mkdtemp(*work)) {
		strbuf_setf(err, "cannot create a work directory in '%s': %s", o->result_dir, strerror(errno));
		return -1;
	}
	b->work = *work;
	b->files.jobfile = xasprintf("%s/job.yaml", *work);
	yml_emit(&yaml, job);
	if (fsutil_write_atomic(b->files.jobfile, yaml.buf, yaml.len, err))
		goto out;
	/* made per boot (a few ms): its modules depend on the job */
	b->files.initrd = xasprintf("%s/initramfs.cpio", *work);
	if (fsutil_mkdir_p(o->cache)) {
		strbuf_setf(err, "cannot create the cache '%s': %s", o->cache, strerror(errno));
		goto out;
	}
	struct qemu_initramfs_needs need = { .nvdimm = b->m.npmem > 0, .memmap = mm > 0 };
	rc = qemu_initramfs(k, job, &need, b->files.initrd, err);
out:
	strbuf_release(&yaml);
	return rc;
}

/*
 * The first boot under a KVM the probe let through did not reach the
 * guest: QEMU died, or the kernel hung or oopsed (b->kvm_failed). Boot once
 * more under TCG, said on stderr and in acc->why; when the guest started
 * there, KVM is what failed this kernel: the next boots of it (this
 * process, and the next ones: the probe's record) use TCG at once.
 */
static int kvm_retry(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		     struct qemu_accel *acc, struct qemu_boot *b, struct qemu_result *res, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, tail = STRBUF_INIT;
	bool died = b->died_early;

	if (died) {
		qemu_stderr_tail(&b->qerr, &tail);
		strbuf_setf(&why, "QEMU under KVM exited (%s) before the guest started%s%s", b->how,
			    tail.len ? ": " : "", tail.buf);
	} else {
		strbuf_setf(&why, "%s", b->kvm_why);
	}
	fprintf(stderr, "lkprobot: %s; booting again under TCG\n", why.buf);
	if (died)
		qemu_accel_failed(why.buf); /* QEMU itself: no boot of this process uses KVM again */
	acc->kvm = false;
	snprintf(acc->why, sizeof(acc->why), "%s; booted again under TCG", why.buf);
	int rc = boot_again(k, job, o, acc, b, res, err);
	if (!rc && !died && b->started)
		qemu_accel_kernel_failed(k, o->cache, why.buf);
	strbuf_release(&why);
	strbuf_release(&tail);
	return rc;
}

/*
 * Boot, and once more when the first boot was not the job's doing: a KVM
 * the probe trusted whose guest did not run, or a lockup under TCG. 0, or
 * -1 with err when QEMU could not start.
 */
static int run_boots(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		     struct qemu_accel *acc, struct qemu_boot *b, struct qemu_result *res, struct strbuf *err)
{
	if (qemu_boot(k, job, o, acc, b, res, err))
		return -1;
	if ((b->died_early || b->kvm_failed) && acc->kvm && !acc->asked && !qemu_stop_sig &&
	    kvm_retry(k, job, o, acc, b, res, err))
		return -1;
	if (b->lockup && !acc->kvm && !res->nruns && !qemu_stop_sig) {
		/*
		 * Under TCG a vCPU has been seen to stall for good in a kernel
		 * that runs fine elsewhere (1 boot in ~30 here, fio on DAX): a
		 * second boot tells an emulation stall from a kernel that locks
		 * up, which does so again and fails the run.
		 */
		fprintf(stderr, "lkprobot: %s under TCG; booting once more (a second lockup fails the run)\n",
			res->reason);
		if (boot_again(k, job, o, acc, b, res, err))
			return -1;
	}
	return 0;
}

/* warnings of the collection: the run stands without what they are about */
static void run_warn(struct strbuf *why)
{
	fprintf(stderr, "lkprobot: warning: %s\n", why->buf);
	strbuf_reset(why);
}

/*
 * What the boot left: the serial console as dmesg in every result root
 * (else in the work directory), the kernel's config, each run's stats
 * extracted from the guest's raw outputs and the commit's matrix rebuilt.
 * A signal that stopped lkprobot is raised again once the console is kept.
 */
static void run_collect(const struct qemu_kernel *k, const struct qemu_boot *b, struct qemu_result *res)
{
	struct strbuf why = STRBUF_INIT;

	for (size_t i = 0; i < (res->nruns ? res->nruns : 1); i++) {
		char *dmesg = res->nruns ? xasprintf("%s/dmesg", res->run_dirs[i]) : xasprintf("%s/dmesg", b->work);
		if (fsutil_write_atomic(dmesg, b->console.buf, b->console.len, &why))
			run_warn(&why);
		free(dmesg);
	}
	if (qemu_stop_sig) {
		/* the console is kept; now stop as the signal asked (a bisection resumes from here) */
		fprintf(stderr, "lkprobot: %s; the console is in %s/dmesg\n", res->reason,
			res->nruns ? res->run_dirs[res->nruns - 1] : b->work);
		raise(qemu_stop_sig);
	}
	if (!res->nruns && res->reason) {
		/* no result root: say where the console is kept */
		char *r = xasprintf("%s (console: %s/dmesg)", res->reason, b->work);
		free(res->reason);
		res->reason = r;
	}
	/* the guest wrote raw outputs; the host's parsers make the stats and the matrix */
	for (size_t i = 0; i < res->nruns; i++) {
		struct node *problems = node_new(NODE_MAP);
		if (kbuild_record_config(k->image, res->run_dirs[i], &why))
			run_warn(&why);
		if (result_restat(res->run_dirs[i], false, problems, &why))
			run_warn(&why);
		node_free(problems);
	}
	if (res->nruns) {
		char *rt = xstrdup(res->run_dirs[0]);
		*strrchr(rt, '/') = '\0';
		if (result_update_matrix(rt, &why))
			run_warn(&why);
		free(rt);
	}
	strbuf_release(&why);
}

int qemu_run_job(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		 struct qemu_result *res, struct strbuf *err)
{
	struct qemu_boot b = { .console = STRBUF_INIT, .qerr = STRBUF_INIT };
	struct qemu_accel acc;
	char *work = NULL;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (qemu_cmdline_safe("the result directory", o->result_dir, err) ||
	    qemu_cmdline_safe("lkprobot", o->lkprobot, err) ||
	    qemu_cmdline_safe("the data directory", o->data_dir, err) || qemu_accel_choose(&acc, k, o->cache, err))
		return -1;
	if (!run_setup(k, job, o, &b, &work, err) && !run_boots(k, job, o, &acc, &b, res, err)) {
		run_collect(k, &b, res);
		ret = 0;
	}
	if (b.files.jobfile)
		unlink(b.files.jobfile);
	if (b.files.initrd)
		unlink(b.files.initrd);
	if (work && res->run_dir)
		rmdir(work);
	free(work);
	free((char *)b.files.jobfile);
	free((char *)b.files.initrd);
	strbuf_release(&b.console);
	strbuf_release(&b.qerr);
	return ret;
}

/*
 * qemu: booting a kernel with emulated NVDIMMs and running a job in it.
 * See qemu.h. The guest's side is `lkprobot guest` (robot/cmd_guest.c).
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
#include "../lib/job/job.h"
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
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
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

static void addv(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static void freev(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
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
		char *obj = xasprintf("memory-backend-file,id=mem%d,share=on,mem-path=%s,size=%lluM", i, img,
				      (unsigned long long)(pmem >> 20));
		char *dev = xasprintf("nvdimm,id=nv%d,memdev=mem%d", i, i);
		addv(argv, argc, "-object");
		addv(argv, argc, obj);
		addv(argv, argc, "-device");
		addv(argv, argc, dev);
		free(obj);
		free(dev);
		free(img);
	}
	return 0;
}

/*
 * The command and the machine: the accelerator, CPUs (default 2), q35 with
 * mem bytes of RAM and npmem NVDIMMs of pmem bytes each (their backing
 * files locked through *lock_fd). 0, or -1 with err set.
 */
static int machine_args(char ***argv, size_t *argc, bool kvm, int cpus, uint64_t mem, const char *cache, int npmem,
			uint64_t pmem, int *lock_fd, struct strbuf *err)
{
	char num[32];

	addv(argv, argc, "qemu-system-x86_64");
	addv(argv, argc, "-accel");
	addv(argv, argc, kvm ? "kvm" : "tcg");
	addv(argv, argc, "-cpu");
	addv(argv, argc, kvm ? "host" : "max");
	snprintf(num, sizeof(num), "%d", cpus > 0 ? cpus : 2);
	addv(argv, argc, "-smp");
	addv(argv, argc, num);
	addv(argv, argc, "-machine");
	addv(argv, argc, npmem ? "q35,nvdimm=on" : "q35");
	char *m = npmem ? xasprintf("%lluM,slots=%d,maxmem=%lluM", (unsigned long long)(mem >> 20), npmem,
				    (unsigned long long)((mem + pmem * (uint64_t)npmem + (1ULL << 30)) >> 20))
			: xasprintf("%lluM", (unsigned long long)(mem >> 20));
	addv(argv, argc, "-m");
	addv(argv, argc, m);
	free(m);
	return nvdimm_args(argv, argc, cache, npmem, pmem, lock_fd, err);
}

/* No spaces or quotes: these paths travel on the kernel command line. */
static int cmdline_safe(const char *what, const char *s, struct strbuf *err)
{
	if (strpbrk(s, " \t\n\"'")) {
		strbuf_setf(err, "%s '%s' has a space or quote, which the guest's kernel command line cannot carry; use a path without them",
			    what, s);
		return -1;
	}
	return 0;
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
	const char *work, *jobfile, *initrd;
	int npmem;
	uint64_t mem, pmem;
	struct strbuf console;		/* the serial console, and QEMU's stderr */
	struct strbuf qerr;		/* QEMU's stderr alone */
	bool died_early;		/* QEMU ended by itself before the guest's lkprobot started, no panic */
	bool lockup;			/* killed on a lasting soft lockup the guest reported */
	char how[32];			/* how QEMU ended: "signal 6", "status 1" */
};

/* The facts the guest records that the host knows: how the CPU is emulated. */
static int boot_facts(const struct qemu_boot *b, const struct qemu_accel *acc, char **path, struct strbuf *err)
{
	struct node *facts = node_new(NODE_MAP);
	struct strbuf yaml = STRBUF_INIT;
	char *v = acc->kvm ? xstrdup("kvm") : xasprintf("%s; KVM not used: %s", ENGINE_TCG_NOTE, acc->why);
	struct node *n = node_new_scalar(v);
	int rc;

	n->quoted = 1;
	node_set(facts, "accel", n);
	yml_emit(&yaml, facts);
	*path = xasprintf("%s/facts.yaml", b->work);
	rc = fsutil_write_atomic(*path, yaml.buf, yaml.len, err);
	node_free(facts);
	free(v);
	strbuf_release(&yaml);
	return rc;
}

/*
 * Boot k once with acc and watch its console until the guest reports, the
 * boot or the job times out, or a signal stops lkprobot. 0 with res's
 * state and reason set, -1 with err when QEMU could not start.
 */
static int qemu_boot(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		     const struct qemu_accel *acc, struct qemu_boot *b, struct qemu_result *res, struct strbuf *err)
{
	struct strbuf append = STRBUF_INIT, line = STRBUF_INIT;
	char **argv = NULL, *facts = NULL;
	size_t argc = 0;
	int ret = -1, pfd[2] = { -1, -1 }, efd[2] = { -1, -1 }, lock_fd = -1;
	pid_t pid = -1;

	free(res->accel);
	res->accel = xstrdup(acc->kvm ? "kvm" : "tcg");
	free(res->accel_why);
	res->accel_why = acc->kvm ? NULL : xstrdup(acc->why);
	if (boot_facts(b, acc, &facts, err) ||
	    machine_args(&argv, &argc, acc->kvm, o->cpus, b->mem, o->cache, b->npmem, b->pmem, &lock_fd, err))
		goto out;
	static const char *const fixed[] = {
		"-nodefaults", "-no-user-config", "-no-reboot", "-display", "none", "-serial", "stdio",
		"-monitor", "none",
		"-fsdev", "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap",
		"-device", "virtio-9p-pci,fsdev=rootfs,mount_tag=root", NULL,
	};
	for (const char *const *f = fixed; *f; f++)
		addv(&argv, &argc, *f);
	char *outfs = xasprintf("local,id=outfs,path=%s,security_model=none", o->result_dir);
	addv(&argv, &argc, "-fsdev");
	addv(&argv, &argc, outfs);
	free(outfs);
	addv(&argv, &argc, "-device");
	addv(&argv, &argc, "virtio-9p-pci,fsdev=outfs,mount_tag=out");
	addv(&argv, &argc, "-kernel");
	addv(&argv, &argc, k->image);
	addv(&argv, &argc, "-initrd");
	addv(&argv, &argc, b->initrd);
	strbuf_addf(&append, "console=ttyS0 panic=-1 random.trust_cpu=on "
			     "lkprobot.init=%s lkprobot.job=%s lkprobot.result=%s lkprobot.data=%s lkprobot.facts=%s",
		    o->lkprobot, b->jobfile, o->result_dir, o->data_dir, facts);
	if (o->runs > 1)
		strbuf_addf(&append, " lkprobot.runs=%d", o->runs);
	job_boot_params(job, &append);
	if (o->append)
		strbuf_addf(&append, " %s", o->append);
	addv(&argv, &argc, "-append");
	addv(&argv, &argc, append.buf);

	if (pipe2(pfd, O_CLOEXEC) || pipe2(efd, O_CLOEXEC)) {
		strbuf_setf(err, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	double t0 = now_mono();
	pid = fork();
	if (pid < 0) {
		strbuf_setf(err, "cannot fork QEMU: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		/* QEMU never outlives lkprobot, even if lkprobot is killed */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(pfd[1], 1);
		dup2(efd[1], 2);
		signal(SIGINT, SIG_IGN);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run qemu-system-x86_64: %s\n", strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	close(efd[1]);
	pfd[1] = efd[1] = -1;
	ret = 0;

	struct sigaction stop = { .sa_handler = qemu_on_stop }, old_int, old_term;
	qemu_stop_sig = 0;
	sigaction(SIGINT, &stop, &old_int);
	sigaction(SIGTERM, &stop, &old_term);
	double boot_deadline = t0 + (o->boot_timeout ? o->boot_timeout : 120);
	double job_deadline = 0;
	bool started = false, panic = false, done = false, lockup = false, killed = false;
	const char *state = NULL;
	char buf[4096];
	for (;;) {
		struct pollfd p[2] = { { pfd[0], POLLIN, 0 }, { efd[0], POLLIN, 0 } };
		int pr = poll(p, efd[0] >= 0 ? 2 : 1, 200);
		if (pr > 0 && efd[0] >= 0 && (p[1].revents & (POLLIN | POLLHUP))) {
			/* QEMU's own messages: into the console, where they happened, and kept for the reason */
			ssize_t n = read(efd[0], buf, sizeof(buf));
			if (n > 0) {
				strbuf_add(&b->console, buf, (size_t)n);
				if (b->qerr.len < 65536)
					strbuf_add(&b->qerr, buf, (size_t)n);
			} else {
				close(efd[0]);
				efd[0] = -1;
			}
		}
		if (pr > 0 && (p[0].revents & (POLLIN | POLLHUP))) {
			ssize_t n = read(pfd[0], buf, sizeof(buf));
			if (n <= 0)
				break;	/* QEMU closed the console: it exited */
			strbuf_add(&b->console, buf, (size_t)n);
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] != '\n') {
					strbuf_addch(&line, buf[i]);
					continue;
				}
				strbuf_rtrim(&line);
				if (o->progress)
					fprintf(stderr, "\r\033[K%.70s", line.buf);
				const char *mark = strstr(line.buf, "@@LKPROBOT ");
				if (mark && !strncmp(mark + 11, "guest", 5) && !started) {
					started = true;
					res->boot_seconds = now_mono() - t0;
					job_deadline = now_mono() + (o->job_timeout ? o->job_timeout : 600);
				} else if (mark && !strncmp(mark + 11, "test-start", 10)) {
					res->test_start = now_mono() - t0;
				} else if (mark && !strncmp(mark + 11, "test-end", 8)) {
					res->test_end = now_mono() - t0;
				} else if (mark && !strncmp(mark + 11, "RESULT ", 7)) {
					char dir[4096], st[64];
					if (sscanf(mark + 18, "%4095s %63s", dir, st) == 2) {
						free(res->run_dir);
						res->run_dir = xstrdup(dir);
						res->run_dirs = xrealloc(res->run_dirs, (res->nruns + 1) * sizeof(char *));
						res->states = xrealloc(res->states, (res->nruns + 1) * sizeof(char *));
						res->run_dirs[res->nruns] = xstrdup(dir);
						res->states[res->nruns++] = xstrdup(st);
						/* the worst state of the boot's runs */
						const char *this = !strcmp(st, "finished") ? "finished" : !strcmp(st, "timeout") ? "timeout"
							: !strcmp(st, "killed") ? "killed" : "failed";
						if (!state || !strcmp(state, "finished"))
							state = this;
					}
					done = (int)res->nruns >= (o->runs > 1 ? o->runs : 1);
				} else if (mark && !strncmp(mark + 11, "ERROR ", 6)) {
					free(res->reason);
					res->reason = xstrdup(mark + 17);
					state = "failed";
				} else if ((mark = strstr(line.buf, "soft lockup - CPU#")) && strstr(mark, "stuck for ") &&
					   atoi(strstr(mark, "stuck for ") + 10) >= QEMU_LOCKUP_SECONDS) {
					/* a kernel stuck this long does not come back: stop now, not at the job timeout */
					free(res->reason);
					res->reason = xasprintf("the guest kernel reported a %s: QEMU killed", mark);
					state = "failed";
					lockup = true;
				} else if (strstr(line.buf, "Kernel panic")) {
					panic = true;
					if (!res->reason)
						res->reason = xstrdup(strstr(line.buf, "Kernel panic"));
				}
				strbuf_reset(&line);
			}
		}
		if (lockup) {
			kill(pid, SIGKILL);
			killed = true;
			b->lockup = true;
			break;
		}
		if (qemu_stop_sig) {
			kill(pid, SIGKILL);
			killed = true;
			state = "killed";
			free(res->reason);
			res->reason = xasprintf("lkprobot was stopped (%s): QEMU killed", strsignal(qemu_stop_sig));
			break;
		}
		double t = now_mono();
		if ((!started && t > boot_deadline) || (started && !done && t > job_deadline)) {
			kill(pid, SIGKILL);
			killed = true;
			state = started ? "timeout" : "boot_failed";
			free(res->reason);
			res->reason = started ? xasprintf("the guest ran the job for more than %u s: QEMU killed",
							  o->job_timeout ? o->job_timeout : 600)
					      : xasprintf("the guest did not start lkprobot within %u s of booting: QEMU killed (see dmesg)",
							  o->boot_timeout ? o->boot_timeout : 120);
			break;
		}
	}
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	pid = -1;
	/* QEMU is gone: the rest of its stderr is there to read */
	for (ssize_t n; efd[0] >= 0 && (n = read(efd[0], buf, sizeof(buf))) > 0;) {
		strbuf_add(&b->console, buf, (size_t)n);
		if (b->qerr.len < 65536)
			strbuf_add(&b->qerr, buf, (size_t)n);
	}
	res->wall_seconds = now_mono() - t0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (panic) {
		state = "panic";
	} else if (!state) {
		struct strbuf tail = STRBUF_INIT;
		qemu_stderr_tail(&b->qerr, &tail);
		state = started ? "failed" : "boot_failed";
		b->died_early = !started && !killed;
		snprintf(b->how, sizeof(b->how), "%s %d", WIFSIGNALED(status) ? "signal" : "status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		if (!res->reason)
			res->reason = xasprintf("QEMU exited (%s) before the guest reported a result%s%s", b->how,
						tail.len ? ": " : "", tail.len ? tail.buf : "");
		strbuf_release(&tail);
	}
	res->job_state = state;
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	for (int i = 0; i < 2; i++) {
		if (pfd[i] >= 0)
			close(pfd[i]);
		if (efd[i] >= 0)
			close(efd[i]);
	}
	if (lock_fd >= 0)
		close(lock_fd);
	if (facts)
		unlink(facts);
	free(facts);
	freev(argv, argc);
	strbuf_release(&append);
	strbuf_release(&line);
	return ret;
}

/* Boot once more after a first boot that was not the job's doing: its result and console dropped. */
static int boot_again(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		      const struct qemu_accel *acc, struct qemu_boot *b, struct qemu_result *res, struct strbuf *err)
{
	qemu_result_release(res);
	strbuf_reset(&b->console);
	strbuf_reset(&b->qerr);
	b->died_early = b->lockup = false;
	return qemu_boot(k, job, o, acc, b, res, err);
}

int qemu_run_job(const struct qemu_kernel *k, const struct node *job, const struct qemu_opts *o,
		 struct qemu_result *res, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, yaml = STRBUF_INIT;
	struct qemu_boot b = { .console = STRBUF_INIT, .qerr = STRBUF_INIT };
	struct qemu_accel acc;
	char *work = NULL, *jobfile = NULL, *initrd = NULL;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	b.npmem = job_pmem(job);
	b.pmem = o->pmem_size ? o->pmem_size : 1ULL << 30;
	b.mem = o->memory ? o->memory : 2ULL << 30;
	/* memmap= pmem (lkp-tests' way) instead of NVDIMMs: RAM must reach past it */
	uint64_t mm = memmap_end(job);
	if (mm) {
		b.npmem = 0;
		if (b.mem < mm + (1ULL << 30))
			b.mem = mm + (1ULL << 30);
	}
	if (cmdline_safe("the result directory", o->result_dir, err) ||
	    cmdline_safe("lkprobot", o->lkprobot, err) || cmdline_safe("the data directory", o->data_dir, err) ||
	    qemu_accel_choose(&acc, err))
		return -1;
	work = xasprintf("%s/.lkprobot-qemu.XXXXXX", o->result_dir);
	if (fsutil_mkdir_p(o->result_dir) || !mkdtemp(work)) {
		strbuf_setf(err, "cannot create a work directory in '%s': %s", o->result_dir, strerror(errno));
		goto out;
	}
	jobfile = xasprintf("%s/job.yaml", work);
	yml_emit(&yaml, job);
	if (fsutil_write_atomic(jobfile, yaml.buf, yaml.len, err))
		goto out;
	/* made per boot (a few ms): its modules depend on the job */
	initrd = xasprintf("%s/initramfs.cpio", work);
	if (fsutil_mkdir_p(o->cache)) {
		strbuf_setf(err, "cannot create the cache '%s': %s", o->cache, strerror(errno));
		goto out;
	}
	struct qemu_initramfs_needs need = { .nvdimm = b.npmem > 0, .memmap = mm > 0 };
	if (qemu_initramfs(k, job, &need, initrd, err))
		goto out;
	b.work = work;
	b.jobfile = jobfile;
	b.initrd = initrd;
	if (qemu_boot(k, job, o, &acc, &b, res, err))
		goto out;
	if (b.died_early && acc.kvm && !acc.asked) {
		/* the probe passed, yet this guest did not run under KVM: once more under TCG, and said so */
		qemu_stderr_tail(&b.qerr, &why);
		char *tail = strbuf_detach(&why);
		strbuf_setf(&why, "QEMU under KVM exited (%s) before the guest started%s%s", b.how, *tail ? ": " : "", tail);
		free(tail);
		fprintf(stderr, "lkprobot: %s; booting again under TCG\n", why.buf);
		qemu_accel_failed(why.buf);
		acc.kvm = false;
		snprintf(acc.why, sizeof(acc.why), "%s; booted again under TCG", why.buf);
		if (boot_again(k, job, o, &acc, &b, res, err))
			goto out;
	}
	if (b.lockup && !acc.kvm && !res->nruns && !qemu_stop_sig) {
		/*
		 * Under TCG a vCPU has been seen to stall for good in a kernel
		 * that runs fine elsewhere (1 boot in ~30 here, fio on DAX): a
		 * second boot tells an emulation stall from a kernel that locks
		 * up, which does so again and fails the run.
		 */
		fprintf(stderr, "lkprobot: %s under TCG; booting once more (a second lockup fails the run)\n",
			res->reason);
		if (boot_again(k, job, o, &acc, &b, res, err))
			goto out;
	}
	ret = 0;
	/* the serial console is the guest's dmesg, in every run of this boot */
	for (size_t i = 0; i <= res->nruns; i++) {
		if (i == res->nruns && res->nruns)
			break;
		char *dmesg = res->nruns ? xasprintf("%s/dmesg", res->run_dirs[i]) : xasprintf("%s/dmesg", work);
		if (fsutil_write_atomic(dmesg, b.console.buf, b.console.len, &why))
			fprintf(stderr, "lkprobot: warning: %s\n", why.buf);
		free(dmesg);
	}
	if (qemu_stop_sig) {
		/* the console is kept; now stop as the signal asked (a bisection resumes from here) */
		fprintf(stderr, "lkprobot: %s; the console is in %s/dmesg\n", res->reason,
			res->nruns ? res->run_dirs[res->nruns - 1] : work);
		raise(qemu_stop_sig);
	}
	if (!res->nruns && res->reason) {
		/* no result root: say where the console is kept */
		char *r = xasprintf("%s (console: %s/dmesg)", res->reason, work);
		free(res->reason);
		res->reason = r;
	}
	/* the guest wrote raw outputs; the host's parsers make the stats and the matrix */
	for (size_t i = 0; i < res->nruns; i++) {
		struct node *problems = node_new(NODE_MAP);
		if (result_restat(res->run_dirs[i], false, problems, &why))
			fprintf(stderr, "lkprobot: warning: %s\n", why.buf);
		node_free(problems);
	}
	if (res->nruns) {
		char *rt = xstrdup(res->run_dirs[0]);
		*strrchr(rt, '/') = '\0';
		if (result_update_matrix(rt, &why))
			fprintf(stderr, "lkprobot: warning: %s\n", why.buf);
		free(rt);
	}
out:
	if (jobfile)
		unlink(jobfile);
	if (initrd)
		unlink(initrd);
	if (work && res->run_dir)
		rmdir(work);
	free(work);
	free(jobfile);
	free(initrd);
	strbuf_release(&why);
	strbuf_release(&yaml);
	strbuf_release(&b.console);
	strbuf_release(&b.qerr);
	return ret;
}

/* Did the box's console get as far as lkprobot (box-init's markers)? */
static bool box_started(const char *console)
{
	struct strbuf c = STRBUF_INIT;
	bool started = !strbuf_read_file(&c, console) && c.len && strstr(c.buf, "@@LKPROBOT");

	strbuf_release(&c);
	return started;
}

/* One boot of the box, until QEMU ends. 0 when it powered off, -1 with err (QEMU's last words in it). */
static int box_boot(const struct qemu_kernel *k, const struct qemu_box_opts *o, const struct qemu_accel *acc,
		    struct strbuf *err)
{
	struct strbuf append = STRBUF_INIT, qerr = STRBUF_INIT;
	char **argv = NULL;
	size_t argc = 0;
	int lock_fd = -1, ret = -1, npmem = o->npmem, efd[2] = { -1, -1 };
	uint64_t pmem = o->pmem_size ? o->pmem_size : 1ULL << 30, mem = o->memory ? o->memory : 2ULL << 30;

	if (machine_args(&argv, &argc, acc->kvm, o->cpus, mem, o->cache, npmem, pmem, &lock_fd, err))
		goto out;
	/* no -no-reboot: a reset (power cycle) boots the box's own kernel again, as firmware would */
	static const char *const fixed[] = {
		"-nodefaults", "-no-user-config", "-display", "none",
		"-fsdev", "local,id=rootfs,path=/,security_model=none,readonly=on,multidevs=remap",
		"-device", "virtio-9p-pci,fsdev=rootfs,mount_tag=root",
		"-device", "virtio-net-pci,netdev=net0", NULL,
	};
	for (const char *const *f = fixed; *f; f++)
		addv(&argv, &argc, *f);
	char *s = xasprintf("user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:22", o->ssh_port);
	addv(&argv, &argc, "-netdev");
	addv(&argv, &argc, s);
	free(s);
	s = xasprintf("local,id=disk,path=%s,security_model=none", o->disk);
	addv(&argv, &argc, "-fsdev");
	addv(&argv, &argc, s);
	free(s);
	addv(&argv, &argc, "-device");
	addv(&argv, &argc, "virtio-9p-pci,fsdev=disk,mount_tag=disk");
	s = xasprintf("file:%s", o->console);
	addv(&argv, &argc, "-serial");
	addv(&argv, &argc, s);
	free(s);
	s = xasprintf("unix:%s,server=on,wait=off", o->monitor);
	addv(&argv, &argc, "-monitor");
	addv(&argv, &argc, s);
	free(s);
	addv(&argv, &argc, "-kernel");
	addv(&argv, &argc, k->image);
	addv(&argv, &argc, "-initrd");
	addv(&argv, &argc, o->initrd);
	strbuf_addf(&append, "console=ttyS0 random.trust_cpu=on lkprobot.init=%s lkprobot.role=box "
			     "lkprobot.box_name=%s lkprobot.box_keys=%s lkprobot.box_hostkey=%s",
		    o->lkprobot, o->name, o->authorized_keys, o->host_key);
	if (o->append)
		strbuf_addf(&append, " %s", o->append);
	addv(&argv, &argc, "-append");
	addv(&argv, &argc, append.buf);
	fprintf(stderr, "lkprobot: box %s: %s, ssh on 127.0.0.1:%d, console in %s, monitor %s\n", o->name,
		acc->kvm ? "KVM" : "TCG", o->ssh_port, o->console, o->monitor);
	if (pipe2(efd, O_CLOEXEC)) {
		strbuf_setf(err, "pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		strbuf_setf(err, "cannot fork QEMU: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		dup2(efd[1], 2);
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run qemu-system-x86_64: %s\n", strerror(errno));
		_exit(127);
	}
	close(efd[1]);
	efd[1] = -1;
	/* QEMU's stderr is passed on as it comes, and its end kept for the error */
	char buf[4096];
	for (ssize_t n; (n = read(efd[0], buf, sizeof(buf))) != 0;) {
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
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
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
	for (int i = 0; i < 2; i++)
		if (efd[i] >= 0)
			close(efd[i]);
	if (lock_fd >= 0)
		close(lock_fd);
	freev(argv, argc);
	strbuf_release(&append);
	strbuf_release(&qerr);
	return ret;
}

int qemu_box_run(const struct qemu_kernel *k, const struct qemu_box_opts *o, struct strbuf *err)
{
	struct qemu_accel acc;

	if (cmdline_safe("lkprobot", o->lkprobot, err) || cmdline_safe("the authorized keys", o->authorized_keys, err) ||
	    cmdline_safe("the host key", o->host_key, err) || cmdline_safe("the box name", o->name, err))
		return -1;
	/* the modules any job may need: the box's kernel serves many jobs */
	struct node *any = node_new(NODE_MAP);
	node_set(any, "fs", node_new_scalar("xfs"));
	node_set(any, "fs1", node_new_scalar("ext4"));
	struct qemu_initramfs_needs need = { .nvdimm = true, .memmap = true, .net = true };
	int rc = qemu_initramfs(k, any, &need, o->initrd, err);
	node_free(any);
	if (rc || qemu_accel_choose(&acc, err))
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

/*
 * engine: setups, monitors, the test, teardown and stats for one atomic
 * job. See engine.h.
 */
#include "engine.h"
#include "job.h"
#include "../run/monitor.h"
#include "../run/program.h"
#include "../run/programs/programs.h"
#include "../results/result.h"
#include "../stats/stats.h"
#include "../run/run.h"
#include "../sys/fsutil.h"
#include "../sys/machine.h"
#include "../sys/proc.h"
#include "../util/units.h"
#include "../util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_epoch(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

static int check(const struct node *job, bool here, struct strbuf *err)
{
	size_t tests = 0;
	bool needs_root = false;

	if (!job_is_atomic(job, NULL)) {
		strbuf_setf(err, "the job still has lists to expand; run it through 'lkprobot split-job' first, or give 'lkprobot run' the job file and it runs every atomic job");
		return -1;
	}
	for (size_t i = 0; i < job->n; i++) {
		const struct program *p;
		if (job->vals[i]->comment || !(p = program_find(job->keys[i])))
			continue;
		if (p->kind == PROGRAM_SETUP && !p->setup && !node_is_null(job->vals[i])) {
			strbuf_setf(err, "%s: lkprobot does not implement the setup '%s' yet; remove it from the job or run the job with lkp-tests",
				    p->name, p->name);
			return -1;
		}
		if (p->kind == PROGRAM_SETUP && p->setup && !p->setup_unprivileged &&
		    !node_is_null(job->vals[i]))
			needs_root = true;
		if (p->kind == PROGRAM_TEST) {
			if (!p->run) {
				strbuf_setf(err, "%s: lkprobot does not run the test '%s' yet", p->name, p->name);
				return -1;
			}
			tests++;
		}
		if (p->kind == PROGRAM_DAEMON) {
			strbuf_setf(err, "%s: lkprobot does not run daemons yet", p->name);
			return -1;
		}
	}
	if (!tests) {
		strbuf_setf(err, "the job names no test to run (fio:, vm-scalability:, ...)");
		return -1;
	}
	if (here && needs_root && geteuid()) {
		strbuf_setf(err, "the job's setups (disks, file systems, swap, sysfs) need root; run lkprobot as root");
		return -1;
	}
	return 0;
}

int engine_check(const struct node *job, struct strbuf *err)
{
	return check(job, false, err);
}

int engine_check_here(const struct node *job, struct strbuf *err)
{
	return check(job, true, err);
}

struct monitor_proc {
	const struct program *p;
	struct run *r;
	int out_fd;
	struct proc proc;	/* stderr a pipe: its last line says why it failed */
};

static int monitor_main(void *arg)
{
	struct monitor_proc *mp = arg;

	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_IGN);	/* a Ctrl-C stops the run, which stops us */
	return mp->p->monitor(mp->r, mp->p, mp->out_fd);
}

static int start_monitor(struct run *r, const struct program *p, struct monitor_proc *mp)
{
	char *raw = run_path(r, p->raw ? p->raw : p->name);
	int fd = open(raw, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	struct strbuf e = STRBUF_INIT;

	free(raw);
	if (fd < 0) {
		run_unavailable(r, p->name, "cannot start: %s", strerror(errno));
		return -1;
	}
	*mp = (struct monitor_proc){ .p = p, .r = r, .out_fd = fd };
	mp->proc = (struct proc){ .fn = monitor_main, .arg = mp, .in = PROC_NULL, .err = PROC_PIPE,
				  .keep_signals = true, .death_sig = SIGKILL };
	/*
	 * SIGTERM stays blocked in the child until the monitor waits for it
	 * (monitor_catch_stop): a stop sent right after the fork is not lost,
	 * it ends the first wait and the final snapshot is still taken.
	 */
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	int rc = proc_start(&mp->proc, &e);
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fd);
	if (rc) {
		run_unavailable(r, p->name, "cannot start: %s", e.buf);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	return 0;
}

static void stop_monitor(struct run *r, struct monitor_proc *mp)
{
	struct strbuf msg = STRBUF_INIT, e = STRBUF_INIT;
	char buf[1024];
	ssize_t n;
	int status;

	proc_end(&mp->proc, 10, &e);
	status = mp->proc.status;
	strbuf_release(&e);
	while ((n = read(mp->proc.err, buf, sizeof(buf))) > 0 && msg.len < 4096)
		strbuf_add(&msg, buf, (size_t)n);
	close(mp->proc.err);
	strbuf_rtrim(&msg);
	char *nl = strrchr(msg.buf, '\n');
	const char *last = nl ? nl + 1 : msg.buf;
	if (WIFEXITED(status) && WEXITSTATUS(status) == MONITOR_UNAVAILABLE)
		run_unavailable(r, mp->p->name, "%s", *last ? last : "not available on this machine");
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		run_unavailable(r, mp->p->name, "monitor failed (exit %d)%s%s", WEXITSTATUS(status),
				*last ? ": " : "", last);
	else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM)
		run_unavailable(r, mp->p->name, "monitor killed by signal %d", WTERMSIG(status));
	strbuf_release(&msg);
}

/* perf-stat events the machine cannot count: recorded, not failed */
static void note_unsupported_events(struct run *r)
{
	const struct program *p = program_find("perf-stat");
	struct strbuf text = STRBUF_INIT, list = STRBUF_INIT;
	char *raw;

	if (!p || !node_get(r->job, p->name))
		return;
	raw = run_path(r, p->raw ? p->raw : p->name);
	if (!strbuf_read_file(&text, raw) && perf_stat_unsupported(text.buf, &list) > 0)
		run_unavailable(r, "perf-stat events", "not supported here: %s", list.buf);
	free(raw);
	strbuf_release(&text);
	strbuf_release(&list);
}

static void teardown(struct run *r)
{
	struct strbuf e = STRBUF_INIT;

	for (size_t i = r->nmounts; i-- > 0;) {
		char *argv[] = { "umount", r->mount_points[i], NULL };
		int rc = run_cmd(r, argv, NULL, "stderr", NULL, &e);
		/* a killed test's I/O may keep the file system busy a moment */
		for (int tries = 0; rc && tries < 25; tries++) {
			sleep_ms(200);
			rc = run_cmd(r, argv, NULL, "stderr", NULL, &e);
		}
		if (rc) {
			/* still busy: a lazy unmount frees the device once its users go */
			char *lazy[] = { "umount", "-l", r->mount_points[i], NULL };
			run_cmd(r, lazy, NULL, "stderr", NULL, &e);
		}
		rmdir(r->mount_points[i]);
	}
	for (size_t i = 0; i < r->nswaps; i++) {
		char *argv[] = { "swapoff", r->swaps[i], NULL };
		run_cmd(r, argv, NULL, "stderr", NULL, &e);
	}
	for (size_t i = 0; i < r->nloops; i++) {
		char *argv[] = { "losetup", "-d", r->loops[i], NULL };
		const char *base = strrchr(r->loops[i], '/') ? strrchr(r->loops[i], '/') + 1 : r->loops[i];
		char *backing = xasprintf("/sys/block/%s/loop/backing_file", base);
		run_cmd(r, argv, NULL, "stderr", NULL, &e);
		/*
		 * Detaching is asynchronous while the device is still in use:
		 * after a lazy unmount the file system lets go of it only once a
		 * killed test's I/O has drained (seconds on a loaded machine).
		 */
		for (int tries = 0; !access(backing, F_OK) && tries < 300; tries++)
			sleep_ms(100);
		free(backing);
	}
	if (r->tmpdir)
		fsutil_remove_tree(r->tmpdir);
	strbuf_release(&e);
}

static void free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static void release_run(struct run *r)
{
	free(r->root);
	free(r->tmpdir);
	free_list(r->partitions, r->npartitions);
	free_list(r->mount_points, r->nmounts);
	free_list(r->loops, r->nloops);
	free_list(r->swaps, r->nswaps);
	free(r->fs);
	node_free(r->unavailable);
	node_free(r->facts);
}

static void set_str(struct node *m, const char *k, const char *v)
{
	struct node *n = node_new_scalar(v);
	node_set(m, k, n);
}

static void set_num(struct node *m, const char *k, double v, int decimals)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	node_set(m, k, node_new_scalar(buf));
}

/*
 * Room kept in the run's directory while the job runs, given back just
 * before its last job.yaml is written: a test whose output fills the disk
 * cannot leave the run saying "running" (it did: a 4 MB tmpfs filled by
 * the test's output).
 */
#define ENGINE_ROOM (256u << 10)
#define ENGINE_ROOM_FILE ".lkprobot-room"

static void room(const char *run_dir, bool keep)
{
	char *p = xasprintf("%s/%s", run_dir, ENGINE_ROOM_FILE);

	if (keep)
		fsutil_reserve(p, ENGINE_ROOM); /* without it the run goes on, as before */
	else
		fsutil_release(p);
	free(p);
}

static int write_job_yaml(const struct run *r, const struct node *job, const char *state,
			  const struct engine_result *res, struct strbuf *err)
{
	struct node *j = node_dup(job);
	struct strbuf out = STRBUF_INIT;
	double load[3];
	int ret;

	set_str(j, "job_state", state);
	set_num(j, "start_time", res->start_time, 0);
	if (res->end_time > 0) {
		set_num(j, "end_time", res->end_time, 0);
		if (getloadavg(load, 3) == 3) {
			char buf[64];
			snprintf(buf, sizeof(buf), "%.2f %.2f %.2f", load[0], load[1], load[2]);
			set_str(j, "loadavg", buf);
		}
	}
	if (res->reason)
		set_str(j, "job_state_reason", res->reason);
	set_str(j, "lkprobot_version", LKPROBOT_VERSION);
	if (r->facts && r->facts->n)
		node_set(j, "facts", node_dup(r->facts));
	if (r->unavailable && r->unavailable->n)
		node_set(j, "unavailable", node_dup(r->unavailable));
	if (res->problems && res->problems->n)
		node_set(j, "stats_problems", node_dup(res->problems));
	strbuf_addstr(&out, "---\n");
	yml_emit(&out, j);
	ret = run_write(r, "job.yaml", out.buf, out.len, err);
	node_free(j);
	strbuf_release(&out);
	return ret;
}

void engine_marker(bool on, const char *what, const char *name)
{
	struct timespec ts;

	if (!on)
		return;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	printf("@@LKPROBOT %s%s%s (%.2f s since boot)\n", what, *name ? " " : "", name,
	       (double)ts.tv_sec + (double)ts.tv_nsec / 1e9);
	fflush(stdout);
}

/*
 * Load the modules of o->insmod (finit_module: the file as it is, no
 * dependencies), each said on the console: a test module that WARNs or
 * oopses while the test runs, so that its kernel log is what is measured.
 */
static void insmod_all(const struct engine_opts *o)
{
	char *list = o->insmod ? xstrdup(o->insmod) : NULL, *save = NULL;

	for (char *path = list ? strtok_r(list, ",", &save) : NULL; path; path = strtok_r(NULL, ",", &save)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0)) {
			char *why = xasprintf("%s: %s", path, strerror(errno));
			engine_marker(o->markers, "insmod failed", why);
			free(why);
		} else {
			engine_marker(o->markers, "insmod", path);
		}
		if (fd >= 0)
			close(fd);
	}
	free(list);
}

/*
 * last_state: how the run ended, in lkp-tests' words (its lib/job.sh and
 * bin/run-lkp write these): a test that exited non-zero,
 * "test.<name>.exit_code.<code>: 1" and "exit_fail: 1"; a setup that
 * failed, "exit_fail: 1"; killed past its time, "soft_timeout: 1".
 */
static void write_last_state(struct run *r, const char *state, const struct program *test, int status)
{
	struct strbuf ls = STRBUF_INIT, e = STRBUF_INIT;

	if (!strcmp(state, "failed")) {
		if (test && status > 0)
			strbuf_addf(&ls, "test.%s.exit_code.%d: 1\n", test->name, status);
		strbuf_addstr(&ls, "exit_fail: 1\n");
	} else if (!strcmp(state, "timeout")) {
		strbuf_addstr(&ls, "soft_timeout: 1\n");
	}
	if (ls.len && run_write(r, "last_state", ls.buf, ls.len, &e))
		run_unavailable(r, "last_state", "%s", e.buf);
	strbuf_release(&ls);
	strbuf_release(&e);
}

struct test_child {
	struct run *r;
	const struct program *p;
};

static int test_main(void *arg)
{
	struct test_child *t = arg;

	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	return t->p->run(t->r, t->p);
}

/* Run one test program; returns the job state. */
static const char *run_test(struct run *r, const struct program *p, const struct engine_opts *o,
			    struct engine_result *res)
{
	uint64_t runtime = RUN_RUNTIME_DEFAULT;
	struct strbuf e = STRBUF_INIT, timef = STRBUF_INIT;
	const char *state = "finished";

	if (run_param_seconds(r, p, "runtime", RUN_RUNTIME_DEFAULT, &runtime, &e)) {
		res->reason = strbuf_detach(&e);
		return "failed";
	}
	double margin = o->timeout_margin ? o->timeout_margin : (runtime > 60 ? (double)runtime : 60.0);
	char *outp = run_path(r, "output");
	struct test_child tc = { r, p };
	/*
	 * Its own process group, so that a timeout or a stop ends what it
	 * started too; SIGKILL when we die, so that it never runs on in a
	 * checkout another run has taken over.
	 */
	struct proc t = { .fn = test_main, .arg = &tc, .in = PROC_NULL, .out_file = outp, .err = PROC_TO_OUT,
			  .pgroup = true, .death_sig = SIGKILL, .timeout = (double)runtime + margin, .grace = 10,
			  .stop = &proc_stop_signal };

	engine_marker(o->markers, "test-start", p->name);
	double t0 = proc_now();
	int code = -1, last_shown = -1;
	if (proc_start(&t, &e)) {
		res->reason = xasprintf("cannot start the test: %s", e.buf);
		free(outp);
		strbuf_release(&e);
		return "failed";
	}
	free(outp);
	insmod_all(o);
	while ((code = proc_wait_for(&t, o->progress ? 0.25 : -1, &e)) == PROC_RUNNING) {
		int now = (int)(proc_now() - t0);
		if (now != last_shown) {
			last_shown = now;
			fprintf(stderr, "\r%s: %d s of %llu s", p->name, now, (unsigned long long)runtime);
		}
	}
	if (o->progress)
		fprintf(stderr, "\r\033[K");
	res->test_seconds = proc_now() - t0;
	engine_marker(o->markers, "test-end", p->name);
	if (code < 0) {
		state = "failed";
		res->reason = xasprintf("lost the test process: %s", e.buf);
	} else if (t.stopped) {
		state = "killed";
		res->reason = xasprintf("interrupted by signal %d after %.0f s of the test", (int)proc_stop_signal,
					t.term_at - t0);
	} else if (t.timed_out) {
		state = "timeout";
		res->reason = xasprintf("%s ran %.0f s, past runtime %llu s + %.0f s margin: killed", p->name,
					t.term_at - t0, (unsigned long long)runtime, margin);
	}
	/*
	 * The test's own children (fio's job processes) may outlive it after a
	 * kill: the file systems can be unmounted only when they are gone.
	 */
	proc_kill_group(&t, 10);
	res->test_status = code;
	if (!strcmp(state, "finished") && code) {
		state = "failed";
		res->reason = xasprintf("%s exited with status %d; see 'output' in the result root",
					p->name, code);
	}
	/* a full disk, not the test: its output (or anything else on that file system) filled it */
	if (strcmp(state, "killed") && fsutil_full(r->root)) {
		char *was = res->reason;
		res->reason = xasprintf("no space left on %s: its file system filled while %s ran (%s)", r->root,
					p->name, was ? was : "it exited with status 0");
		free(was);
		state = "failed";
	}
	struct rusage ru = t.ru;
	/* GNU time -v format: <test>.time for this test, time for the job */
	char *cmd = xasprintf("lkprobot %s", p->name);
	time_format_rusage(&timef, cmd, &ru, res->test_seconds, code);
	free(cmd);
	char *tname = xasprintf("%s.time", p->name);
	if (run_write(r, tname, timef.buf, timef.len, &e) || run_write(r, "time", timef.buf, timef.len, &e)) {
		run_unavailable(r, "time", "%s", e.buf);
	}
	free(tname);
	strbuf_release(&timef);
	strbuf_release(&e);
	return state;
}

void engine_result_release(struct engine_result *res)
{
	free(res->rt);
	free(res->run_dir);
	free(res->reason);
	node_free(res->stats);
	node_free(res->unavailable);
	node_free(res->facts);
	node_free(res->problems);
	memset(res, 0, sizeof(*res));
}

/*
 * What the run sees of the machine it runs on (a guest's, a box's, this
 * one's), as the reports name a test machine: its threads and CPU model
 * (/proc/cpuinfo) and its memory (/proc/meminfo, in whole G as lkp-tests'
 * host files write it). A fact the run was given stays.
 */
static void machine_facts(struct run *r, const struct engine_opts *o)
{
	struct machine m;
	char buf[64];

	machine_detect(&m);
	if (!(o->facts && node_get(o->facts, "nr_threads"))) {
		snprintf(buf, sizeof(buf), "%d", m.nr_cpu);
		run_fact(r, "nr_threads", buf);
	}
	if (m.brand && *m.brand && !(o->facts && node_get(o->facts, "cpu")))
		run_fact(r, "cpu", m.brand);
	if (m.memory && !(o->facts && node_get(o->facts, "memory"))) {
		unsigned long long g = m.memory >> 30;
		if (g)
			snprintf(buf, sizeof(buf), "%lluG", g);
		else
			snprintf(buf, sizeof(buf), "%lluM", (unsigned long long)(m.memory >> 20));
		run_fact(r, "memory", buf);
	}
	machine_release(&m);
}

/*
 * The run's result directory claimed, its scratch directory made, and r
 * set up for it with the facts it starts with and reproduce.sh's header.
 */
static int begin_run(struct run *r, const struct node *job, const struct machine *m, const struct engine_opts *o,
		     struct engine_result *res, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, e = STRBUF_INIT;
	const char *tmp = getenv("TMPDIR");
	char *tmpl;

	strbuf_addf(&path, "%s/", o->result_dir);
	if (job_result_path(job, m, NULL, false, &path, err)) {
		strbuf_release(&path);
		return -1;
	}
	res->rt = strbuf_detach(&path);
	if (result_claim_run(res->rt, &res->run_dir, &res->run_no, err))
		return -1;
	tmpl = xasprintf("%s/lkprobot-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		strbuf_setf(err, "cannot create a scratch directory '%s': %s", tmpl, strerror(errno));
		free(tmpl);
		return -1;
	}
	r->job = job;
	r->machine = m;
	r->root = xstrdup(res->run_dir);
	r->tmpdir = tmpl;
	r->loop_disks = o->loop_disks;
	r->loop_size = o->loop_size ? o->loop_size : 1ULL << 30;
	r->fs_root = o->fs_root ? o->fs_root : "/fs";
	r->src_dir = o->src_dir;
	r->fresh_boot = o->fresh_boot;
	res->start_time = now_epoch();
	res->problems = node_new(NODE_MAP);
	for (size_t i = 0; o->facts && i < o->facts->n; i++)
		if (node_str(o->facts->vals[i]))
			run_fact(r, o->facts->keys[i], o->facts->vals[i]->str);
	machine_facts(r, o);
	/* a test box that is itself an emulated machine (`lkprobot qemu-box`) says so too */
	struct strbuf cpu = STRBUF_INIT;
	if (!(o->facts && node_get(o->facts, "accel")) && !strbuf_read_file(&cpu, "/proc/cpuinfo") &&
	    strstr(cpu.buf, "model name\t: QEMU TCG CPU"))
		run_fact(r, "accel", ENGINE_TCG_NOTE);
	strbuf_release(&cpu);

	static const char header[] = "#!/bin/sh\n# The commands lkprobot ran for this job, in order.\nset -e\n";
	run_write(r, "reproduce.sh", header, sizeof(header) - 1, &e);
	strbuf_release(&e);
	chmod(res->run_dir, 0755);
	return 0;
}

/* The job's setups, in job order: "finished", or "failed" with res->reason. */
static const char *run_setups(struct run *r, const struct node *job, const struct engine_opts *o,
			      struct engine_result *res, struct strbuf *e)
{
	for (size_t i = 0; i < job->n && !proc_stop_signal; i++) {
		const struct program *p;
		if (job->vals[i]->comment || !(p = program_find(job->keys[i])) ||
		    p->kind != PROGRAM_SETUP || !p->setup)
			continue;
		engine_marker(o->markers, "setup", p->name);
		if (p->setup(r, p, e)) {
			size_t n = strlen(p->name);
			/* "fs: ..." from the fs setup reads "setup fs: ..." */
			const char *msg = !strncmp(e->buf, p->name, n) && !strncmp(e->buf + n, ": ", 2)
						  ? e->buf + n + 2 : e->buf;
			res->reason = xasprintf("setup %s: %s", p->name, msg);
			return "failed";
		}
	}
	return "finished";
}

/* The job's monitors started (those lkprobot has no monitor for noted unavailable): *n of them. */
static struct monitor_proc *start_monitors(struct run *r, const struct node *job, const struct engine_opts *o,
					   size_t *n)
{
	struct monitor_proc *mons = NULL;

	*n = 0;
	engine_marker(o->markers, "monitors", "");
	for (size_t i = 0; i < job->n; i++) {
		const struct program *p;
		if (job->vals[i]->comment || !(p = program_find(job->keys[i])) ||
		    p->kind != PROGRAM_MONITOR)
			continue;
		if (!p->monitor) {
			run_unavailable(r, p->name, "monitor not implemented by lkprobot");
			continue;
		}
		mons = xrealloc(mons, (*n + 1) * sizeof(*mons));
		if (!start_monitor(r, p, &mons[*n]))
			(*n)++;
	}
	return mons;
}

/* The job's test(s), until one does not finish; *tested: the last one run. */
static const char *run_tests(struct run *r, const struct node *job, const struct engine_opts *o,
			     struct engine_result *res, const struct program **tested)
{
	const char *state = "finished";

	for (size_t i = 0; i < job->n && !strcmp(state, "finished"); i++) {
		const struct program *p;
		if (job->vals[i]->comment || !(p = program_find(job->keys[i])) ||
		    p->kind != PROGRAM_TEST)
			continue;
		state = run_test(r, p, o, res);
		*tested = p;
	}
	if (proc_stop_signal && !strcmp(state, "finished")) {
		state = "killed";
		free(res->reason);
		res->reason = xasprintf("interrupted by signal %d", (int)proc_stop_signal);
	}
	return state;
}

/* After the run: stats extracted, job.yaml with its state, the matrix updated; what was missing noted. */
static void record_run(struct run *r, const struct node *job, const struct engine_opts *o,
		       struct engine_result *res, const char *state, struct strbuf *e)
{
	if (o->raw_only)
		;	/* the host extracts */
	else if (result_extract(res->run_dir, job, res->problems, &res->stats, e))
		run_unavailable(r, "stats", "%s", e->buf);
	else if (o->older_names && !result_add_older_names(res->run_dir, e))
		stats_add_older_names(res->stats);
	room(res->run_dir, false);
	if (write_job_yaml(r, job, state, res, e))
		run_unavailable(r, "job.yaml", "%s", e->buf);
	if (!o->raw_only && result_update_matrix(res->rt, e))
		run_unavailable(r, "matrix", "%s", e->buf);
	res->unavailable = r->unavailable ? node_dup(r->unavailable) : node_new(NODE_MAP);
	res->facts = r->facts ? node_dup(r->facts) : node_new(NODE_MAP);
}

int engine_run(const struct node *job, const struct machine *m, const struct engine_opts *o,
	       struct engine_result *res, struct strbuf *err)
{
	struct run r = { 0 };
	struct strbuf e = STRBUF_INIT;
	struct monitor_proc *mons = NULL;
	size_t nmons = 0;
	const char *state;
	const struct program *tested = NULL;
	struct proc_saved_stop saved;

	memset(res, 0, sizeof(*res));
	if (engine_check_here(job, err))
		return -1;
	if (begin_run(&r, job, m, o, res, err))
		return -1;
	room(res->run_dir, true);
	if (write_job_yaml(&r, job, "running", res, err)) {
		room(res->run_dir, false);
		teardown(&r);
		release_run(&r);
		return -1;
	}

	proc_catch_stop(&saved);
	state = run_setups(&r, job, o, res, &e);
	if (!strcmp(state, "finished")) {
		mons = start_monitors(&r, job, o, &nmons);
		state = run_tests(&r, job, o, res, &tested);
	}
	for (size_t i = 0; i < nmons; i++)
		stop_monitor(&r, &mons[i]);
	free(mons);
	note_unsupported_events(&r);
	teardown(&r);
	proc_restore_stop(&saved);
	res->end_time = now_epoch();
	res->job_state = state;
	write_last_state(&r, state, tested, res->test_status);
	record_run(&r, job, o, res, state, &e);
	release_run(&r);
	strbuf_release(&e);
	return 0;
}

/*
 * proc: starting children, waiting for them with a bound, ending their
 * groups. See proc.h.
 *
 * The child is made with fork(): between fork and exec it only calls
 * async-signal-safe functions (the service forks while its dashboard's
 * threads run), and reports a failed exec back through a close-on-exec
 * pipe, so "not installed" is an error of proc_start(), not exit 127.
 * Waits poll a pidfd (Linux 5.3) and the capture pipe; without a pidfd
 * they look every 20 ms.
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define PROC_CAPTURE_MAX (16u << 20)

volatile sig_atomic_t proc_stop_signal;

static void proc_on_stop(int sig)
{
	proc_stop_signal = sig;
}

void proc_catch_stop(struct proc_saved_stop *saved)
{
	struct sigaction sa, old;

	proc_stop_signal = 0;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = proc_on_stop;
	sigaction(SIGTERM, &sa, saved ? &saved->term : NULL);
	/* an inherited "ignore SIGINT" (a shell's &, the engine's monitors) is kept */
	if (!sigaction(SIGINT, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	if (saved)
		saved->intr = old;
}

void proc_restore_stop(const struct proc_saved_stop *saved)
{
	sigaction(SIGTERM, &saved->term, NULL);
	sigaction(SIGINT, &saved->intr, NULL);
}

double proc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *proc_status_text(int code, char buf[32])
{
	if (code > 128 && code < 128 + 65)
		snprintf(buf, 32, "killed by signal %d", code - 128);
	else
		snprintf(buf, 32, "exit %d", code);
	return buf;
}

/* The environment with p->env applied (caller frees the array, not the strings). */
static char **proc_env(const struct proc *p)
{
	size_t n = 0, k = 0, add = 0;
	char **env;

	while (environ[n])
		n++;
	while (p->env[add])
		add++;
	env = xcalloc(n + add + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t j = 0; j < add && !replaced; j++) {
			size_t len = strcspn(p->env[j], "=");
			replaced = !strncmp(environ[i], p->env[j], len) && environ[i][len] == '=';
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < add; j++)
		if (strchr(p->env[j], '='))
			env[k++] = (char *)p->env[j];
	env[k] = NULL;
	return env;
}

/* What failed in the child before it ran: told to the parent through the report pipe. */
enum { FAIL_STDIO = 1, FAIL_CHDIR, FAIL_EXEC };

/* In the child: report the step and errno to the parent and end. */
static void __attribute__((noreturn)) child_fail(int fd, int step, int e)
{
	int msg[2] = { step, e };

	if (fd >= 0 && write(fd, msg, sizeof(msg)) < 0) {
		/* the parent sees exit 127 instead */
	}
	_exit(127);
}

/* In the child: put the fds where they belong (sources first moved above 2). */
static void child_stdio(int fds[3], int report)
{
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && fds[i] <= 2 && fds[i] != i) {
			int high = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
			if (high < 0)
				child_fail(report, FAIL_STDIO, errno);
			fds[i] = high;
		}
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && fds[i] != i && dup2(fds[i], i) < 0)
			child_fail(report, FAIL_STDIO, errno);
}

static int open_io(const char *file, int flags, struct strbuf *err)
{
	int fd = open(file, flags | O_CLOEXEC, 0644);

	if (fd < 0)
		strbuf_setf(err, "cannot open '%s': %s", file, strerror(errno));
	return fd;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* The fds of one start: what the child gets as 0, 1, 2 (-1: inherited), our ends of pipes, fds opened for it. */
struct start_fds {
	int child[3];
	int parent[3];
	int opened[3];
};

/* A struct proc before its start: nothing running, nothing known. */
static void proc_reset(struct proc *p)
{
	p->pid = 0;
	p->ended = false;
	p->status = 0;
	p->cap_fd = -1;
	p->pidfd = -1;
	p->timed_out = p->stopped = p->killed = p->truncated = false;
	p->start_errno = 0;
	p->term_at = 0;
	memset(&p->ru, 0, sizeof(p->ru));
}

/* Open the files, /dev/null and pipes of p's redirections into f. */
static int start_stdio(const struct proc *p, struct start_fds *f, struct strbuf *err)
{
	const char *files[3] = { p->in_file, p->out_file, p->err_file };
	int spec[3] = { p->in, p->out, p->err };
	int *child = f->child, *parent = f->parent, *opened = f->opened;

	for (int i = 0; i < 3; i++) {
		if (files[i]) {
			opened[i] = open_io(files[i], i ? O_WRONLY | O_CREAT | O_APPEND : O_RDONLY, err);
			if (opened[i] < 0)
				return -1;
			child[i] = opened[i];
		} else if (spec[i] == PROC_NULL) {
			if ((opened[i] = open_io("/dev/null", i ? O_WRONLY : O_RDONLY, err)) < 0)
				return -1;
			child[i] = opened[i];
		} else if (spec[i] == PROC_PIPE || (spec[i] == PROC_CAPTURE && i == 1)) {
			int pfd[2];
			if (pipe2(pfd, O_CLOEXEC)) {
				strbuf_setf(err, "cannot make a pipe: %s", strerror(errno));
				return -1;
			}
			parent[i] = i ? pfd[0] : pfd[1];
			child[i] = opened[i] = i ? pfd[1] : pfd[0];
		} else if (spec[i] == PROC_CAPTURE) {
			if (child[1] < 0 || p->out != PROC_CAPTURE) {
				strbuf_setf(err, "stderr can be captured only with stdout");
				return -1;
			}
			child[i] = child[1];
		} else if (spec[i] == PROC_TO_OUT && i == 2) {
			child[i] = child[1] >= 0 ? child[1] : 1;
		} else if (spec[i] > 0) {
			child[i] = spec[i];
		} else if (spec[i] < 0) {
			strbuf_setf(err, "bad redirection %d of fd %d", spec[i], i);
			return -1;
		}
	}
	return 0;
}

/* In the child after fork: its group, death signal, fds, directory; then the function or the program. */

/*
 * Is there a file NAME in a directory of $PATH? execvp answers EACCES, not
 * ENOENT, for a tool that is nowhere when one directory of PATH cannot be
 * searched (a user's PATH with root's directories in it): not installed is
 * what the caller must hear then. Only stat, in the child after fork.
 */
static bool on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[4096];
	size_t n = strlen(name);

	for (const char *d = path ? path : "/bin:/usr/bin"; *d;) {
		const char *end = strchr(d, ':');
		size_t len = end ? (size_t)(end - d) : strlen(d);
		struct stat st;
		if (len && len + n + 2 <= sizeof(buf)) {
			memcpy(buf, d, len);
			buf[len] = '/';
			memcpy(buf + len + 1, name, n + 1);
			if (!stat(buf, &st))
				return true;
		}
		d += len + (end ? 1 : 0);
	}
	return false;
}
/* How many threads this process has (/proc/self/status); 1 when it cannot be read. */
static int threads_here(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int n = 1;

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

static void __attribute__((noreturn)) child_run(const struct proc *p, struct start_fds *f, const int report[2],
						char **env, pid_t parent_pid)
{
	if (p->setsid)
		setsid();
	else if (p->pgroup)
		setpgid(0, 0);
	if (p->death_sig) {
		prctl(PR_SET_PDEATHSIG, p->death_sig);
		/* the parent died before the line above: nobody will send it */
		if (getppid() != parent_pid)
			_exit(128 + p->death_sig);
	}
	/* a function child must not keep our ends of its pipes: its stdin would never end */
	for (int i = 0; i < 3; i++)
		if (f->parent[i] >= 0)
			close(f->parent[i]);
	close(report[0]);
	child_stdio(f->child, report[1]);
	if (p->dir && chdir(p->dir))
		child_fail(report[1], FAIL_CHDIR, errno);
	if (p->fn && !p->argv) {
		close(report[1]);
		if (!p->keep_signals) {
			sigset_t none;
			sigemptyset(&none);
			sigprocmask(SIG_SETMASK, &none, NULL);
		}
		_exit(p->fn(p->arg) & 0xff);
	}
	/* a tool gets default signals: an empty mask, SIGPIPE not ignored */
	sigset_t none;
	sigemptyset(&none);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	execvpe(p->argv[0], p->argv, env ? env : environ);
	int e = errno;
	if (e == EACCES && !strchr(p->argv[0], '/') && !on_path(p->argv[0]))
		e = ENOENT;
	child_fail(report[1], FAIL_EXEC, e);
}

/* What the child reported before it ran, if it failed: 1 (reaped, err says why), else 0. */
static int child_failed(struct proc *p, int report, struct strbuf *err)
{
	int msg[2] = { 0, 0 };
	ssize_t n;

	while ((n = read(report, msg, sizeof(msg))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(msg))
		return 0;
	const char *what = p->argv ? p->argv[0] : "a child";
	int st;
	while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
		;
	p->pid = 0;
	p->start_errno = msg[1];
	if (msg[0] == FAIL_CHDIR)
		strbuf_setf(err, "cannot run '%s' in '%s': %s", what, p->dir, strerror(msg[1]));
	else if (msg[0] == FAIL_STDIO)
		strbuf_setf(err, "cannot run '%s': its stdin/stdout/stderr: %s", what, strerror(msg[1]));
	else
		strbuf_setf(err, "cannot run '%s': %s", what, strerror(msg[1]));
	return 1;
}

/* A started child: its pidfd, start time, and our ends of its pipes handed to p. */
static void child_started(struct proc *p, int parent[3])
{
#ifdef SYS_pidfd_open
	p->pidfd = (int)syscall(SYS_pidfd_open, p->pid, 0);
#endif
	p->started = proc_now();
	if (p->out == PROC_CAPTURE) {
		p->cap_fd = parent[1];
		parent[1] = -1;
		fcntl(p->cap_fd, F_SETFL, fcntl(p->cap_fd, F_GETFL) | O_NONBLOCK);
	}
	if (p->in == PROC_PIPE) {
		p->in = parent[0];
		parent[0] = -1;
	}
	if (p->out == PROC_PIPE) {
		p->out = parent[1];
		parent[1] = -1;
	}
	if (p->err == PROC_PIPE) {
		p->err = parent[2];
		parent[2] = -1;
	}
}

int proc_start(struct proc *p, struct strbuf *err)
{
	struct start_fds f = { { -1, -1, -1 }, { -1, -1, -1 }, { -1, -1, -1 } };
	int report[2] = { -1, -1 };
	char **env = NULL;
	pid_t me = getpid();
	int ret = -1;

	proc_reset(p);
	if (start_stdio(p, &f, err))
		goto out;
	if ((p->argv && !p->argv[0]) || (!p->argv && !p->fn)) {
		strbuf_setf(err, "nothing to run");
		goto out;
	}
	/*
	 * A fork keeps only the thread that forks: a lock another holds then is
	 * held in the child for ever. A thread on its way out (libcurl's
	 * resolver, let go after a timeout) is waited for, a while.
	 */
	int threads = p->fn && !p->argv ? threads_here() : 1;
	for (double end = proc_now() + PROC_THREADS_WAIT; threads > 1 && proc_now() < end; threads = threads_here())
		usleep(20000);
	if (threads > 1) {
		p->start_errno = EDEADLK;
		strbuf_setf(err,
			    "cannot fork to run a function: this process has %d threads, and a lock one of them "
			    "holds would stay held in the child (start the threads in a process of their own)",
			    threads);
		goto out;
	}
	if (p->env)
		env = proc_env(p);
	if (pipe2(report, O_CLOEXEC)) {
		strbuf_setf(err, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	fflush(NULL);
	p->pid = fork();
	if (p->pid < 0) {
		p->start_errno = errno;
		strbuf_setf(err, "cannot fork to run '%s': %s", p->argv ? p->argv[0] : "a child", strerror(errno));
		p->pid = 0;
		goto out;
	}
	if (p->pid == 0)
		child_run(p, &f, report, env, me);
	if (p->pgroup || p->setsid)
		setpgid(p->pid, p->pid);	/* whichever runs first: a kill of the group never misses */
	close_fd(&report[1]);
	if (child_failed(p, report[0], err))
		goto out;
	child_started(p, f.parent);
	ret = 0;
out:
	for (int i = 0; i < 3; i++) {
		close_fd(&f.opened[i]);
		close_fd(&f.parent[i]);
	}
	close_fd(&report[0]);
	close_fd(&report[1]);
	free(env);
	return ret;
}

void proc_signal(const struct proc *p, int sig)
{
	if (p->pid <= 0 || (p->ended && !(p->pgroup || p->setsid)))
		return;
	if (p->pgroup || p->setsid)
		kill(-p->pid, sig);
	else
		kill(p->pid, sig);
}

/* Read what the capture pipe holds now; at EOF close it. */
static void capture_read(struct proc *p)
{
	size_t max = p->capture_max ? p->capture_max : PROC_CAPTURE_MAX;
	char buf[8192];

	while (p->cap_fd >= 0) {
		ssize_t n = read(p->cap_fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_fd(&p->cap_fd);
			return;
		}
		size_t keep = (size_t)n;
		if (!p->capture || p->capture->len >= max)
			keep = 0;
		else if (p->capture->len + keep > max)
			keep = max - p->capture->len;
		if (keep < (size_t)n)
			p->truncated = true;
		if (keep)
			strbuf_add(p->capture, buf, keep);
	}
}

/* The timeout or the stop: SIGTERM (or EOF on stdin) once, SIGKILL after the grace. */
static void enforce(struct proc *p, double now)
{
	double grace = p->grace > 0 ? p->grace : 5;

	if (!p->term_at) {
		bool late = p->timeout > 0 && now >= p->started + p->timeout;
		bool stop = p->stop && *p->stop;
		if (!late && !stop)
			return;
		p->timed_out = late && !stop;
		p->stopped = stop;
		p->term_at = now;
		if (stop && p->stop_closes_stdin && p->in > 2)
			close_fd(&p->in);
		else
			proc_signal(p, stop && p->stop_sig ? p->stop_sig : SIGTERM);
		return;
	}
	if (!p->killed && now >= p->term_at + grace) {
		proc_signal(p, SIGKILL);
		p->killed = true;
	}
}

/* How long the next poll may sleep, seconds (< 0: until something happens). */
static double next_wake(const struct proc *p, double now, double until)
{
	double t = until;

	if (p->timeout > 0 && !p->term_at && (t < 0 || p->started + p->timeout < t))
		t = p->started + p->timeout;
	if (p->term_at && !p->killed) {
		double k = p->term_at + (p->grace > 0 ? p->grace : 5);
		if (t < 0 || k < t)
			t = k;
	}
	if (p->pidfd < 0 || p->stop) {
		/* no pidfd: look again soon; a stop flag set by a handler on another thread: the same */
		double tick = now + (p->pidfd < 0 ? 0.02 : 0.2);
		if (t < 0 || tick < t)
			t = tick;
	}
	return t < 0 ? -1 : (t > now ? t - now : 0);
}

static int finish(struct proc *p)
{
	int st = p->status;

	capture_read(p);
	/* a grandchild may hold the pipe: what it writes later is not ours to wait for */
	close_fd(&p->cap_fd);
	close_fd(&p->pidfd);
	if (p->stop_closes_stdin)
		close_fd(&p->in);
	p->ended = true;	/* no signal reaches a stranger that got its number now */
	return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
}

int proc_wait_for(struct proc *p, double seconds, struct strbuf *err)
{
	double until = seconds >= 0 ? proc_now() + seconds : -1;

	if (p->pid <= 0 || p->ended) {
		strbuf_setf(err, "no child to wait for");
		return -1;
	}
	for (;;) {
		pid_t w = wait4(p->pid, &p->status, WNOHANG, &p->ru);
		if (w == p->pid)
			return finish(p);
		if (w < 0 && errno != EINTR) {
			strbuf_setf(err, "cannot wait for '%s': %s", p->argv ? p->argv[0] : "a child", strerror(errno));
			return -1;
		}
		double now = proc_now();
		enforce(p, now);
		if (until >= 0 && now >= until)
			return PROC_RUNNING;
		double wake = next_wake(p, now, until);
		struct pollfd fds[2];
		nfds_t n = 0;
		if (p->pidfd >= 0)
			fds[n++] = (struct pollfd){ .fd = p->pidfd, .events = POLLIN };
		if (p->cap_fd >= 0)
			fds[n++] = (struct pollfd){ .fd = p->cap_fd, .events = POLLIN };
		struct timespec ts, *tp = NULL;
		if (wake >= 0) {
			ts.tv_sec = (time_t)wake;
			ts.tv_nsec = (long)((wake - (double)ts.tv_sec) * 1e9);
			if (ts.tv_nsec >= 1000000000L)
				ts.tv_nsec = 999999999L;
			tp = &ts;
		}
		if (ppoll(fds, n, tp, p->wait_mask) > 0 && p->cap_fd >= 0)
			capture_read(p);
	}
}

int proc_end(struct proc *p, double grace, struct strbuf *err)
{
	proc_signal(p, SIGTERM);
	int rc = proc_wait_for(p, grace, err);
	if (rc != PROC_RUNNING)
		return rc;
	proc_signal(p, SIGKILL);
	return proc_wait(p, err);
}

int proc_wait(struct proc *p, struct strbuf *err)
{
	return proc_wait_for(p, -1, err);
}

int proc_run(struct proc *p, struct strbuf *err)
{
	if (proc_start(p, err))
		return -1;
	return proc_wait(p, err);
}

void proc_kill_group(const struct proc *p, double seconds)
{
	pid_t g = p->pid;
	double end = proc_now() + seconds;
	struct timespec ts = { 0, 20000000L };

	if (!g || !(p->pgroup || p->setsid))
		return;
	while (kill(-g, 0) == 0 && proc_now() < end) {
		kill(-g, SIGKILL);
		nanosleep(&ts, NULL);
	}
}

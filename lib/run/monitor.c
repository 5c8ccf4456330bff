/*
 * monitor: stop handling, interruptible sleep, /proc snapshots and tool
 * spawning for the monitor programs. See monitor.h.
 */
#include "monitor.h"
#include "program.h"
#include "run.h"
#include "../util/sset.h"
#include "../stats/stats.h"
#include "../util/units.h"
#include "../sys/fsutil.h"
#include "../sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t monitor_child_flag;
static bool monitor_installed;
static sigset_t monitor_wait_mask;	/* the mask while waiting: ours unblocked */

static void monitor_on_child(int sig)
{
	(void)sig;
	monitor_child_flag = 1;
}

void monitor_catch_stop(void)
{
	struct sigaction sa;
	sigset_t block, prev;

	if (monitor_installed)
		return;
	proc_catch_stop(NULL);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = monitor_on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigaction(SIGCHLD, &sa, NULL);
	/* a reader that went away is a write error, not a silent death */
	signal(SIGPIPE, SIG_IGN);

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &prev);
	monitor_wait_mask = prev;
	sigdelset(&monitor_wait_mask, SIGTERM);
	sigdelset(&monitor_wait_mask, SIGINT);
	sigdelset(&monitor_wait_mask, SIGCHLD);
	monitor_installed = true;
}

bool monitor_stopped(void)
{
	return proc_stop_signal != 0;
}

/* One wait with our signals unblocked: up to `seconds` (< 0: no limit). */
static void monitor_wait(double seconds)
{
	struct timespec ts;

	if (seconds < 0) {
		ppoll(NULL, 0, NULL, &monitor_wait_mask);
		return;
	}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	if (ts.tv_nsec >= 1000000000L)
		ts.tv_nsec = 999999999L;
	ppoll(NULL, 0, &ts, &monitor_wait_mask);
}

bool monitor_sleep(double seconds)
{
	double end;

	monitor_catch_stop();
	end = proc_now() + seconds;
	for (;;) {
		if (proc_stop_signal)
			return true;
		if (seconds < 0) {
			monitor_wait(-1);
			continue;
		}
		double left = end - proc_now();
		if (left <= 0)
			return false;
		monitor_wait(left);
	}
}

int monitor_interval(const struct run *r, const struct program *p, double def,
		     double *out, struct strbuf *err)
{
	const char *v = run_param(r, p, "interval");
	struct strbuf e = STRBUF_INIT;
	uint64_t secs;
	char *end;
	double d;

	if (!v) {
		*out = def;
		return 0;
	}
	errno = 0;
	d = strtod(v, &end);
	if (end != v && !*end && !errno && isfinite(d) && d > 0 && d <= 86400 * 7) {
		*out = d;
		return 0;
	}
	if (!units_seconds(v, &secs, &e) && secs > 0 && secs <= 86400 * 7) {
		strbuf_release(&e);
		*out = (double)secs;
		return 0;
	}
	strbuf_setf(err, "interval: '%s' is not a positive number of seconds; write e.g. 1, 0.5 or 10s", v);
	strbuf_release(&e);
	return -1;
}

/* Keep the first line of each first word, as awk '!x[$1]++'. */
void monitor_add_dedup(struct strbuf *out, const char *text)
{
	struct sset seen = { 0 };
	struct strbuf key = STRBUF_INIT;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
		const char *k = p;

		while (k < p + len && (*k == ' ' || *k == '\t'))
			k++;
		strbuf_reset(&key);
		strbuf_add(&key, k, strcspn(k, " \t\n"));
		if (sset_add(&seen, key.buf))
			strbuf_add(out, p, len);
		p += len;
	}
	sset_release(&seen);
	strbuf_release(&key);
}

int monitor_snapshot(const char *path, unsigned flags, int out_fd, struct strbuf *err)
{
	struct strbuf snap = STRBUF_INIT, content = STRBUF_INIT;
	struct timespec ts;
	int ret = -1;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (flags & MONITOR_SNAP_NSEC)
		strbuf_addf(&snap, "time: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	else
		strbuf_addf(&snap, "time: %lld\n", (long long)ts.tv_sec);
	if (strbuf_read_file(&content, path)) {
		strbuf_setf(err, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (flags & MONITOR_SNAP_DEDUP)
		monitor_add_dedup(&snap, content.buf);
	else
		strbuf_add(&snap, content.buf, content.len);
	if (snap.len && snap.buf[snap.len - 1] != '\n')
		strbuf_addch(&snap, '\n');
	if (fsutil_write_all(out_fd, snap.buf, snap.len)) {
		strbuf_setf(err, "cannot write the snapshot of '%s': %s", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&snap);
	strbuf_release(&content);
	return ret;
}

/* monitor_snapshots' snapshot: one file */
struct monitor_file_snap {
	const char *path;
	unsigned flags;
};

static int monitor_file_snap(void *ctx, int out_fd, struct strbuf *err)
{
	const struct monitor_file_snap *f = ctx;

	return monitor_snapshot(f->path, f->flags, out_fd, err);
}

int monitor_snapshots(const char *name, const char *path, double interval, unsigned flags,
		      int out_fd)
{
	struct monitor_file_snap f = { path, flags };

	monitor_catch_stop();
	if (access(path, R_OK)) {
		fprintf(stderr, "%s: cannot read %s here: %s\n", name, path, strerror(errno));
		return MONITOR_UNAVAILABLE;
	}
	return monitor_snapshots_with(name, interval, monitor_file_snap, &f, out_fd);
}

int monitor_snapshots_with(const char *name, double interval, monitor_snap_fn *snap, void *ctx, int out_fd)
{
	struct strbuf err = STRBUF_INIT;
	int ret = 1;

	monitor_catch_stop();
	for (;;) {
		if (snap(ctx, out_fd, &err))
			goto out;
		if (monitor_stopped())
			break;
		if (monitor_sleep(interval > 0 ? interval : -1)) {
			/* lkp-tests' monitors take the last snapshot after the test */
			if (snap(ctx, out_fd, &err))
				goto out;
			break;
		}
	}
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "%s: %s\n", name, err.buf);
	strbuf_release(&err);
	return ret;
}

int monitor_exec(char *const argv[], int out_fd, unsigned flags, struct strbuf *err)
{
	static const char *const utc[] = { "TZ=UTC", NULL };
	static const char *const sysstat[] = { "LC_ALL=C", "S_TIME_FORMAT=ISO", NULL };
	bool stdin_stop = flags & MONITOR_EXEC_STOP_STDIN;
	struct proc p = { .argv = argv,
			  .in = stdin_stop ? PROC_PIPE : PROC_NULL,
			  .out = out_fd,
			  .err = flags & MONITOR_EXEC_STDERR ? PROC_TO_OUT : PROC_INHERIT,
			  .env = flags & MONITOR_EXEC_UTC	? utc
				 : flags & MONITOR_EXEC_SYSSTAT ? sysstat
								: NULL,
			  .death_sig = SIGKILL,
			  .stop = &proc_stop_signal,
			  .stop_closes_stdin = stdin_stop,
			  .grace = 5,
			  .stop_sig = flags & MONITOR_EXEC_STOP_SIGINT ? SIGINT : 0,
			  .wait_mask = &monitor_wait_mask };
	int rc;

	monitor_catch_stop();
	rc = proc_run(&p, err);
	if (rc < 0) {
		errno = p.start_errno ? p.start_errno : EIO;
		return -1;
	}
	if (proc_stop_signal && WIFSIGNALED(p.status) && !p.killed &&
	    (WTERMSIG(p.status) == SIGTERM || WTERMSIG(p.status) == SIGINT))
		return 0;	/* ended by our stop (or the same signal sent to its group) */
	return rc;
}

int monitor_capture(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .err = PROC_CAPTURE,
			  .capture = out, .death_sig = SIGKILL, .wait_mask = &monitor_wait_mask };
	int rc;

	monitor_catch_stop();
	rc = proc_run(&p, err);
	if (rc < 0)
		errno = p.start_errno ? p.start_errno : EIO;
	return rc;
}

int monitor_proc_file(const struct run *r, const struct program *p, const char *path,
		      double def_interval, unsigned flags, int out_fd)
{
	struct strbuf err = STRBUF_INIT;
	double interval;

	monitor_catch_stop();
	if (monitor_interval(r, p, def_interval, &interval, &err)) {
		fprintf(stderr, "%s: %s\n", p->name, err.buf);
		strbuf_release(&err);
		return 2;
	}
	strbuf_release(&err);
	return monitor_snapshots(p->name, path, interval, flags, out_fd);
}

int monitor_snapshot_line(const char **p, const char *end, size_t *lineno, struct strbuf *line,
			  const char *name, struct stats_samples *out, struct strbuf *err)
{
	while (*p < end) {
		const char *nl = memchr(*p, '\n', (size_t)(end - *p));

		(*lineno)++;
		if (!nl) {
			strbuf_setf(err, "%s: line %zu has no end (truncated file)", name, *lineno);
			return -1;
		}
		strbuf_reset(line);
		strbuf_add(line, *p, (size_t)(nl - *p));
		*p = nl + 1;
		if (strncmp(line->buf, "time:", 5))
			return 1;
		if (stats_add_text(out, "time", line->buf + 5, err)) {
			strbuf_setf(err, "%s: line %zu: bad time line '%s'", name, *lineno, line->buf);
			return -1;
		}
		return 2;
	}
	return 0;
}

size_t monitor_words(char *line, char ***w, size_t *alloc)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		ALLOC_GROW(*w, n + 1, *alloc);
		(*w)[n++] = t;
	}
	return n;
}

int monitor_parse_lines(const char *text, size_t len, const char *name, const char *what,
			size_t (*split)(char *line, char ***w, size_t *alloc), monitor_line_fn line, void *ctx,
			struct stats_samples *out, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT;
	const char *p = text, *end = text + len;
	char **w = NULL;
	size_t walloc = 0, lineno = 0;
	int rc;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "%s: the file has NUL bytes; not %s", name, what);
		return -1;
	}
	while ((rc = monitor_snapshot_line(&p, end, &lineno, &buf, name, out, err)) > 0) {
		if (rc == 2) /* a new snapshot: its time taken */
			continue;
		size_t n = (split ? split : monitor_words)(buf.buf, &w, &walloc);
		if (n && line(ctx, w, n, lineno, out, err)) {
			rc = -1;
			break;
		}
	}
	free(w);
	strbuf_release(&buf);
	return rc < 0 ? -1 : 0;
}

int monitor_run_to(char *const argv[], int out_fd, struct strbuf *said, struct strbuf *err)
{
	char path[] = "/tmp/lkprobot-monitor-err-XXXXXX";
	int fd = mkstemp(path), rc;

	if (fd < 0) {
		strbuf_setf(err, "cannot create a temporary file: %s", strerror(errno));
		return -1;
	}
	close(fd);
	struct proc p = { .argv = argv,
			  .in = PROC_NULL,
			  .out = out_fd,
			  .err_file = path,
			  .death_sig = SIGKILL,
			  .wait_mask = &monitor_wait_mask };
	monitor_catch_stop();
	rc = proc_run(&p, err);
	if (rc < 0)
		errno = p.start_errno ? p.start_errno : EIO;
	strbuf_read_file(said, path);
	unlink(path);
	return rc;
}

/*
 * run: helpers for programs running a job — parameters, result files,
 * reproduce.sh and spawning commands from argv. See run.h.
 */
#include "run.h"
#include "../sys/fsutil.h"
#include "program.h"
#include "../util/units.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

const char *run_param(const struct run *r, const struct program *p, const char *opt)
{
	const struct node *own = p ? node_get(r->job, p->name) : NULL;
	const struct node *v = NULL;

	if (own && own->type == NODE_MAP)
		v = node_get(own, opt);
	if (!v)
		v = node_get(r->job, opt);
	if (!v)
		v = node_find_deep(r->job, opt);
	return node_str(v);
}

static int param_conv(const struct run *r, const struct program *p, const char *opt,
		      uint64_t def, uint64_t *out, struct strbuf *err,
		      int (*conv)(const struct run *, const char *, uint64_t *, struct strbuf *))
{
	const char *v = run_param(r, p, opt);
	struct strbuf e = STRBUF_INIT;

	if (!v) {
		*out = def;
		return 0;
	}
	if (conv(r, v, out, &e)) {
		strbuf_setf(err, "%s: %s", opt, e.buf);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	return 0;
}

static int conv_seconds(const struct run *r, const char *v, uint64_t *out, struct strbuf *e)
{
	(void)r;
	return units_seconds(v, out, e);
}

static int conv_bytes(const struct run *r, const char *v, uint64_t *out, struct strbuf *e)
{
	(void)r;
	return units_bytes(v, out, e);
}

static int conv_tasks(const struct run *r, const char *v, uint64_t *out, struct strbuf *e)
{
	return units_tasks(v, r->machine ? r->machine->nr_cpu : 1, out, e);
}

int run_param_seconds(const struct run *r, const struct program *p, const char *opt,
		      uint64_t def, uint64_t *out, struct strbuf *err)
{
	return param_conv(r, p, opt, def, out, err, conv_seconds);
}

int run_param_bytes(const struct run *r, const struct program *p, const char *opt,
		    uint64_t def, uint64_t *out, struct strbuf *err)
{
	return param_conv(r, p, opt, def, out, err, conv_bytes);
}

int run_param_tasks(const struct run *r, const struct program *p, const char *opt,
		    uint64_t def, uint64_t *out, struct strbuf *err)
{
	return param_conv(r, p, opt, def, out, err, conv_tasks);
}

void run_unavailable(struct run *r, const char *what, const char *fmt, ...)
{
	struct strbuf why = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&why, fmt, ap);
	va_end(ap);
	if (!r->unavailable)
		r->unavailable = node_new(NODE_MAP);
	struct node *v = node_new_scalar(why.buf);
	v->quoted = 1;
	node_set(r->unavailable, what, v);
	strbuf_release(&why);
}

void run_fact(struct run *r, const char *what, const char *value)
{
	if (!r->facts)
		r->facts = node_new(NODE_MAP);
	struct node *v = node_new_scalar(value);
	v->quoted = 1;
	node_set(r->facts, what, v);
}

char *run_path(const struct run *r, const char *name)
{
	if (name[0] == '/')
		return xstrdup(name);
	return xasprintf("%s/%s", r->root, name);
}

int run_write(const struct run *r, const char *name, const char *data, size_t len,
	      struct strbuf *err)
{
	char *path = run_path(r, name);
	int ret = fsutil_write_atomic(path, data, len, err);

	free(path);
	return ret;
}

/* Quote one word for a POSIX shell reader: bare if safe, else '...'. */
static void shell_quote(struct strbuf *out, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+%@") == strlen(s)) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(out, "'\\''");
		else
			strbuf_addch(out, *s);
	}
	strbuf_addch(out, '\'');
}

static void log_line(const struct run *r, char *const argv[], const char *suffix)
{
	struct strbuf line = STRBUF_INIT;
	char *path = run_path(r, "reproduce.sh");
	int fd;

	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(&line, ' ');
		shell_quote(&line, argv[i]);
	}
	strbuf_addstr(&line, suffix);
	strbuf_addch(&line, '\n');
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0755);
	if (fd >= 0) {
		if (write(fd, line.buf, line.len) < 0) {
			/* reproduce.sh is a courtesy; the run goes on */
		}
		close(fd);
	}
	free(path);
	strbuf_release(&line);
}

void run_log_cmd(const struct run *r, char *const argv[])
{
	log_line(r, argv, "");
}

bool run_have(const char *cmd)
{
	const char *path = getenv("PATH");
	struct strbuf p = STRBUF_INIT;

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) == 0;
	if (!path)
		path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	for (const char *d = path; *d;) {
		size_t n = strcspn(d, ":");
		strbuf_reset(&p);
		strbuf_add(&p, d, n);
		strbuf_addf(&p, "/%s", cmd);
		if (!access(p.buf, X_OK)) {
			strbuf_release(&p);
			return true;
		}
		d += n;
		if (*d)
			d++;
	}
	strbuf_release(&p);
	return false;
}

static int open_for(const struct run *r, const char *name, int flags)
{
	char *path = run_path(r, name);
	int fd = open(path, flags | O_CLOEXEC, 0644);
	free(path);
	return fd;
}

/* Start argv with the given fds as 0, 1, 2 (-1: inherited), in dir (NULL: here). 0, or -1 with err set. */
static int spawn_start(const char *dir, char *const argv[], int in_fd, int out_fd, int err_fd, pid_t *pid,
		       struct strbuf *err)
{
	posix_spawn_file_actions_t fa;
	int rc;

	posix_spawn_file_actions_init(&fa);
	if (dir)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
	if (in_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	if (out_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (err_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	rc = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		strbuf_setf(err, "cannot run '%s': %s%s", argv[0], strerror(rc),
			    rc == ENOENT ? "; 'lkprobot install JOB' installs what a job needs" : "");
		return -1;
	}
	return 0;
}

/* Wait for a started child: its exit status, 128+signal, or -1 with err set. */
static int spawn_wait_pid(pid_t pid, const char *name, struct strbuf *err)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			strbuf_setf(err, "cannot wait for '%s': %s", name, strerror(errno));
			return -1;
		}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int spawn_wait_in(const char *dir, char *const argv[], int in_fd, int out_fd, int err_fd,
			 struct strbuf *err)
{
	pid_t pid;

	if (spawn_start(dir, argv, in_fd, out_fd, err_fd, &pid, err))
		return -1;
	return spawn_wait_pid(pid, argv[0], err);
}

static int spawn_wait(char *const argv[], int in_fd, int out_fd, int err_fd, struct strbuf *err)
{
	return spawn_wait_in(NULL, argv, in_fd, out_fd, err_fd, err);
}

int run_exec_in(const char *dir, char *const argv[], int out_fd, int err_fd, struct strbuf *err)
{
	int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int ret = spawn_wait_in(dir, argv, in_fd, out_fd, err_fd, err);

	if (in_fd >= 0)
		close(in_fd);
	return ret;
}

/* Spawn argv with stdout into out, stderr to err_fd (-1: inherited), and wait. */
static int capture(char *const argv[], int err_fd, struct strbuf *out, struct strbuf *err)
{
	int pfd[2], status, rc;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char buf[4096];
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC)) {
		strbuf_setf(err, "pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (err_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		strbuf_setf(err, "cannot run '%s': %s", argv[0], strerror(rc));
		return -1;
	}
	while ((n = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		strbuf_add(out, buf, (size_t)n);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

int run_exec_capture(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	return capture(argv, -1, out, err);
}

int run_exec(char *const argv[], int out_fd, int err_fd, struct strbuf *err)
{
	int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int ret = spawn_wait(argv, in_fd, out_fd, err_fd, err);

	if (in_fd >= 0)
		close(in_fd);
	return ret;
}

int run_cmd(const struct run *r, char *const argv[], const char *in_file,
	    const char *out_file, const char *err_file, struct strbuf *err)
{
	int in_fd = -1, out_fd = -1, err_fd = -1, ret = -1;

	run_log_cmd(r, argv);
	in_fd = in_file ? open_for(r, in_file, O_RDONLY) : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in_fd < 0) {
		strbuf_setf(err, "cannot open '%s': %s", in_file ? in_file : "/dev/null", strerror(errno));
		goto out;
	}
	if (out_file && (out_fd = open_for(r, out_file, O_WRONLY | O_CREAT | O_APPEND)) < 0) {
		strbuf_setf(err, "cannot write '%s': %s", out_file, strerror(errno));
		goto out;
	}
	if (err_file && (err_fd = open_for(r, err_file, O_WRONLY | O_CREAT | O_APPEND)) < 0) {
		strbuf_setf(err, "cannot write '%s': %s", err_file, strerror(errno));
		goto out;
	}
	ret = spawn_wait(argv, in_fd, out_fd, err_fd >= 0 ? err_fd : out_fd, err);
out:
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd >= 0)
		close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	return ret;
}

int run_cmds(const struct run *r, char **const argvs[], size_t n, const char *out_file, int codes[],
	     struct strbuf *err)
{
	int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int out_fd = out_file ? open_for(r, out_file, O_WRONLY | O_CREAT | O_APPEND) : -1;
	pid_t *pids = xcalloc(n ? n : 1, sizeof(*pids));
	int ret = 0;

	if (in_fd < 0 || (out_file && out_fd < 0)) {
		strbuf_setf(err, "cannot open '%s': %s", in_fd < 0 ? "/dev/null" : out_file, strerror(errno));
		ret = -1;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		log_line(r, argvs[i], " &");
		if (spawn_start(NULL, argvs[i], in_fd, out_fd, out_fd, &pids[i], err)) {
			pids[i] = 0;
			ret = -1;
		}
	}
	if (n) {
		char *wait_argv[] = { "wait", NULL };
		log_line(r, wait_argv, "");
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf e = STRBUF_INIT;
		codes[i] = pids[i] ? spawn_wait_pid(pids[i], argvs[i][0], &e) : -1;
		strbuf_release(&e);
	}
	if (in_fd >= 0)
		close(in_fd);
	if (out_fd >= 0)
		close(out_fd);
	free(pids);
	return ret;
}

static int capture(char *const argv[], int err_fd, struct strbuf *out, struct strbuf *err);

int run_capture(const struct run *r, char *const argv[], struct strbuf *out, struct strbuf *err)
{
	int err_fd, ret;

	run_log_cmd(r, argv);
	err_fd = open_for(r, "stderr", O_WRONLY | O_CREAT | O_APPEND);
	ret = capture(argv, err_fd, out, err);
	if (err_fd >= 0)
		close(err_fd);
	return ret;
}

void run_list_add(char ***list, size_t *n, const char *s)
{
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = xstrdup(s);
}

int run_write_sys(const struct run *r, const char *path, const char *value, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	char *rp = run_path(r, "reproduce.sh");
	int fd;
	ssize_t w;

	strbuf_addstr(&line, "echo ");
	shell_quote(&line, value);
	strbuf_addstr(&line, " > ");
	shell_quote(&line, path);
	strbuf_addch(&line, '\n');
	if ((fd = open(rp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0755)) >= 0) {
		if (write(fd, line.buf, line.len) < 0) {
			/* reproduce.sh is a courtesy */
		}
		close(fd);
	}
	free(rp);
	strbuf_release(&line);

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		strbuf_setf(err, "cannot open '%s': %s", path, strerror(errno));
		return -1;
	}
	w = write(fd, value, strlen(value));
	if (w < 0 || (size_t)w != strlen(value)) {
		strbuf_setf(err, "cannot write '%s' to '%s': %s", value, path,
			    w < 0 ? strerror(errno) : "short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

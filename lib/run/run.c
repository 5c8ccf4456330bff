/*
 * run: helpers for programs running a job — parameters, result files,
 * reproduce.sh and spawning commands from argv. See run.h.
 */
#include "run.h"
#include "../sys/fsutil.h"
#include "../sys/proc.h"
#include "program.h"
#include "../util/units.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

unsigned run_job_timeout(const struct node *job)
{
	const struct node *v = node_get(job, "runtime");
	struct strbuf e = STRBUF_INIT;
	uint64_t rt = RUN_RUNTIME_DEFAULT;

	if (!v)
		v = node_find_deep(job, "runtime");
	if (node_str(v) && (units_seconds(node_str(v), &rt, &e) || rt > 30 * 86400))
		rt = RUN_RUNTIME_DEFAULT;
	strbuf_release(&e);
	return (unsigned)rt + RUN_JOB_MARGIN;
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

static void log_line(const struct run *r, char *const argv[], const char *suffix)
{
	struct strbuf line = STRBUF_INIT;
	char *path = run_path(r, "reproduce.sh");
	int fd;

	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strbuf_addch(&line, ' ');
		strbuf_add_shell_word(&line, argv[i]);
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

/* A command's error: not installed is a job's missing dependency. */
static int spawn_failed(const struct proc *p, struct strbuf *err)
{
	if (p->start_errno == ENOENT)
		strbuf_addstr(err, "; 'lkprobot install JOB' installs what a job needs");
	return -1;
}

/*
 * A job's command must not outlive us: a fio left running on a file system
 * the next run makes again would spoil both.
 */
static int run_proc(struct proc *p, struct strbuf *err)
{
	int rc;

	p->death_sig = SIGKILL;
	rc = proc_run(p, err);
	return rc < 0 && !p->pid ? spawn_failed(p, err) : rc;
}

int run_exec_in(const char *dir, char *const argv[], int out_fd, int err_fd, struct strbuf *err)
{
	struct proc p = { .argv = argv, .dir = dir, .in = PROC_NULL, .out = out_fd < 0 ? PROC_INHERIT : out_fd,
			  .err = err_fd < 0 ? PROC_INHERIT : err_fd };
	return run_proc(&p, err);
}

int run_exec_capture(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = out };
	return run_proc(&p, err);
}

int run_exec(char *const argv[], int out_fd, int err_fd, struct strbuf *err)
{
	return run_exec_in(NULL, argv, out_fd, err_fd, err);
}

int run_cmd(const struct run *r, char *const argv[], const char *in_file,
	    const char *out_file, const char *err_file, struct strbuf *err)
{
	char *in = in_file ? run_path(r, in_file) : NULL, *out = out_file ? run_path(r, out_file) : NULL;
	char *errf = err_file ? run_path(r, err_file) : NULL;
	struct proc p = { .argv = argv, .in = PROC_NULL, .in_file = in, .out_file = out,
			  .err_file = errf, .err = out ? PROC_TO_OUT : PROC_INHERIT };
	int ret;

	run_log_cmd(r, argv);
	ret = run_proc(&p, err);
	free(in);
	free(out);
	free(errf);
	return ret;
}

int run_cmds(const struct run *r, char **const argvs[], size_t n, const char *out_file, int codes[],
	     struct strbuf *err)
{
	char *out = out_file ? run_path(r, out_file) : NULL;
	struct proc *ps = xcalloc(n ? n : 1, sizeof(*ps));
	int ret = 0;

	for (size_t i = 0; i < n && !ret; i++) {
		log_line(r, argvs[i], " &");
		ps[i] = (struct proc){ .argv = argvs[i], .in = PROC_NULL, .out_file = out, .err = PROC_TO_OUT,
				       .death_sig = SIGKILL };
		if (proc_start(&ps[i], err)) {
			ps[i].pid = 0;
			ret = spawn_failed(&ps[i], err);
		}
	}
	if (n) {
		char *wait_argv[] = { "wait", NULL };
		log_line(r, wait_argv, "");
	}
	for (size_t i = 0; i < n; i++) {
		struct strbuf e = STRBUF_INIT;
		codes[i] = ps[i].pid ? proc_wait(&ps[i], &e) : -1;
		strbuf_release(&e);
	}
	free(ps);
	free(out);
	return ret;
}

int run_capture(const struct run *r, char *const argv[], struct strbuf *out, struct strbuf *err)
{
	char *errf = run_path(r, "stderr");
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = out, .err_file = errf };
	int ret;

	run_log_cmd(r, argv);
	ret = run_proc(&p, err);
	free(errf);
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
	strbuf_add_shell_word(&line, value);
	strbuf_addstr(&line, " > ");
	strbuf_add_shell_word(&line, path);
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

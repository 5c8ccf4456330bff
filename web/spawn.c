/*
 * spawn: the dashboard in a process of its own (web_spawn and web_proc_*
 * of web.h). The service's process keeps no threads, so the workers it
 * forks start with no lock held by anyone; the dashboard's threads live in
 * a child that does nothing but serve. The child says "listening" (or its
 * one-line error) on a pipe, then waits for SIGTERM.
 */
#include "site.h"
#include "../lib/sys/proc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define SPAWN_LISTENING "listening"

struct web_proc {
	struct web *w; /* the site, made here: the child listens with its copy */
	char *addr;
	struct proc p;
	int code; /* how it ended (proc_wait's), once web_proc_ended saw it */
};

/* The child: listen, say so on stdout, serve until SIGTERM or SIGINT. */
static int spawn_main(void *arg)
{
	struct web_proc *wp = arg;
	struct strbuf err = STRBUF_INIT;
	sigset_t block, wait;

	/* ps -o comm and top tell it from the service */
	prctl(PR_SET_NAME, "lkprobot-web");
	/* the service reads its configuration again on SIGHUP; the dashboard keeps the one it started with */
	signal(SIGHUP, SIG_IGN);
	proc_catch_stop(NULL);
	/* blocked in the daemon's threads too (they inherit it): the stop comes here */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &wait);
	sigdelset(&wait, SIGTERM);
	sigdelset(&wait, SIGINT);
	int rc = web_listen(wp->w, wp->addr, &err);
	dprintf(1, "%s\n", rc ? err.buf : SPAWN_LISTENING);
	strbuf_release(&err);
	if (rc)
		return 2;
	/* what the pages might print goes to the service's log, not into the closed pipe */
	dup2(2, 1);
	while (!proc_stop_signal)
		sigsuspend(&wait);
	web_stop(wp->w);
	return 0;
}

/* The child's first line, waited for up to WEB_SPAWN_WAIT s. 0 when it listens, else -1 with err set. */
static int spawn_heard(struct web_proc *wp, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	double end = proc_now() + WEB_SPAWN_WAIT;
	char buf[512];
	int ret = -1;

	while (!memchr(line.buf, '\n', line.len) && line.len < 4096) {
		double left = end - proc_now();
		struct pollfd pfd = { .fd = wp->p.out, .events = POLLIN };
		int n = left > 0 ? poll(&pfd, 1, (int)(left * 1000) + 1) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			strbuf_setf(err, "--listen %s: the dashboard's process did not say it listens within %d s",
				    wp->addr, WEB_SPAWN_WAIT);
			goto out;
		}
		ssize_t r = read(wp->p.out, buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		strbuf_add(&line, buf, (size_t)r);
	}
	strbuf_rtrim(&line);
	if (!strcmp(line.buf, SPAWN_LISTENING)) {
		ret = 0;
	} else if (line.len) {
		strbuf_setf(err, "%s", line.buf);
	} else {
		char st[32];
		struct strbuf e = STRBUF_INIT;
		int rc = proc_wait_for(&wp->p, 5, &e);
		strbuf_setf(err, "--listen %s: the dashboard's process ended (%s) before it listened", wp->addr,
			    rc == PROC_RUNNING ? "still running" : proc_status_text(rc, st));
		strbuf_release(&e);
	}
out:
	close(wp->p.out);
	wp->p.out = PROC_NULL;
	strbuf_release(&line);
	return ret;
}

/* End the child, however it is: SIGTERM, then SIGKILL after the daemon's own time to close. */
static void spawn_end(struct web_proc *wp)
{
	struct strbuf e = STRBUF_INIT;

	if (!wp->p.pid || wp->p.ended)
		return;
	proc_end(&wp->p, WEB_TIMEOUT + 5, &e);
	strbuf_release(&e);
}

static int spawn_start(struct web_proc *wp, struct strbuf *err)
{
	wp->p = (struct proc){ .fn = spawn_main, .arg = wp, .in = PROC_NULL, .out = PROC_PIPE, .death_sig = SIGTERM };
	if (proc_start(&wp->p, err))
		return -1;
	if (spawn_heard(wp, err)) {
		spawn_end(wp);
		return -1;
	}
	return 0;
}

struct web_proc *web_spawn(const struct web_opts *o, struct strbuf *err)
{
	struct web_proc *wp = xcalloc(1, sizeof(*wp));

	wp->addr = xstrdup(o->addr);
	if (!(wp->w = web_new(o, err)) || spawn_start(wp, err)) {
		web_stop(wp->w);
		free(wp->addr);
		free(wp);
		return NULL;
	}
	return wp;
}

int web_proc_ended(struct web_proc *wp, struct strbuf *why)
{
	char st[32];

	if (!wp->p.ended) {
		struct strbuf e = STRBUF_INIT;
		int rc = proc_wait_for(&wp->p, 0, &e);
		strbuf_release(&e);
		if (rc == PROC_RUNNING)
			return 0;
		wp->code = rc;
	}
	strbuf_setf(why, "%s", wp->code < 0 ? "not waited for" : proc_status_text(wp->code, st));
	return 1;
}

int web_proc_restart(struct web_proc *wp, struct strbuf *err)
{
	spawn_end(wp);
	return spawn_start(wp, err);
}

void web_proc_stop(struct web_proc *wp)
{
	if (!wp)
		return;
	spawn_end(wp);
	web_stop(wp->w);
	free(wp->addr);
	free(wp);
}

/*
 * ssh_group: a batch's runs on the boxes of a tbox_group at once. Each run
 * is a child here — `lkprobot run-commit --provider ssh --box NAME` with
 * its job file and status file in the spool, in a process group of its
 * own — on a box no other run holds, one run a box at a time, in the
 * batch's order (its interleaved rounds). The children build their
 * commits' kernels (one build at a time in the kernel cache, the other
 * boxes' runs going on), then copy, boot, run and bring the result home
 * as `box run` does, and keep the boxes' state in the store.
 *
 * A box whose run says stop (out of service, unreachable, nothing could
 * run there), or whose child ends without a status file, is left for the
 * rest of the provider's life and its run goes to another box: a box's
 * trouble never becomes a verdict on a commit. With no box left the batch
 * fails, saying why for each.
 */
#include "ssh_int.h"
#include "../lib/run/run.h"
#include "../lib/sys/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SSHG_POLL_S 0.2		/* how often the children and the boxes are looked at */
#define SSHG_BUILD_S 3600	/* a child's time for its kernel build and boot, beyond the job's own */

struct grun {
	struct provider_batch_item *it;
	struct provider_spooled sp;
	char *log;
	bool started, done;
};

struct gbox {
	struct proc p;
	const char *argv[28];	/* its child's (the proc keeps a pointer to it) */
	struct grun *run;	/* the run it makes (NULL: free) */
};

struct gbatch {
	struct provider *p;
	struct grun *runs;
	size_t n, left;
	struct gbox *boxes;	/* one a member */
	size_t busy;
};

/* Box k of the group leaves it for the provider's life (why kept; said once). */
static void member_gone(struct provider *p, size_t k, char *why)
{
	if (p->gone[k]) {
		free(why);
		return;
	}
	p->gone[k] = why;
	fprintf(stderr, "lkprobot: box %s left out of tbox_group %s's runs: %s\n", p->members[k], p->group, why);
}

size_t ssh_group_slots(struct provider *p)
{
	size_t n = 0;

	for (size_t k = 0; k < p->nmembers; k++) {
		struct strbuf why = STRBUF_INIT;
		n += !p->gone[k] && box_available(p->members[k], p->cfg.result_dir, p->store, &why) == BOX_FREE;
		strbuf_release(&why);
	}
	return n ? n : 1;
}

/* Is the run moot: its commit does not build, said by a run of this batch? */
static bool grun_moot(const struct gbatch *b, const struct grun *r)
{
	for (size_t k = 0; k < b->n; k++)
		if (b->runs[k].done && b->runs[k].it->prepared == 0 && b->runs[k].it->res.untestable &&
		    !strcmp(b->runs[k].it->commit, r->it->commit))
			return true;
	return false;
}

/* The next run to start (moot ones passed over, done), or NULL. */
static struct grun *next_run(struct gbatch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct grun *r = &b->runs[i];
		if (r->started || r->done)
			continue;
		if (!grun_moot(b, r))
			return r;
		r->done = true;	/* not reached: prepared stays -1 */
		b->left--;
	}
	return NULL;
}

/* Start run r on box k: `lkprobot run-commit --provider ssh --box NAME ...`. 0, or -1 with err set. */
static int start_run(struct gbatch *b, size_t k, struct grun *r, struct strbuf *err)
{
	struct provider *p = b->p;
	struct gbox *g = &b->boxes[k];
	const char **argv = g->argv, *fixed[] = { p->exe, "run-commit", "--provider", "ssh", "--box", p->members[k],
						  "--boxes", p->boxes, "--tree", p->cfg.tree, "--commit", r->it->commit,
						  "-o", p->cfg.result_dir, "--cache", p->cfg.cache, "--status", r->sp.status };
	size_t n = sizeof(fixed) / sizeof(*fixed);

	memcpy(argv, fixed, sizeof(fixed));
	if (p->cfg.kconfig) {
		argv[n++] = "--kconfig";
		argv[n++] = p->cfg.kconfig;
	}
	if (p->cfg.db) {
		argv[n++] = "--db";
		argv[n++] = p->cfg.db;
	}
	/* the layout check's aligned kernels: built so by the child too, not the plain one under their name */
	if (p->cfg.kcflags) {
		argv[n++] = "--kcflags";
		argv[n++] = p->cfg.kcflags;
	}
	argv[n++] = r->sp.jobfile;
	argv[n] = NULL;
	g->p = (struct proc){ .argv = (char *const *)argv, .in = PROC_NULL, .out_file = r->log, .err = PROC_TO_OUT,
			      .pgroup = true, .death_sig = SIGKILL, .stop = &proc_stop_signal,
			      .timeout = run_job_timeout(r->it->job) + SSHG_BUILD_S };
	unlink(r->sp.status);
	if (proc_start(&g->p, err))
		return -1;
	g->run = r;
	r->started = true;
	b->busy++;
	return 0;
}

/* The last line of the child's log, for a run that left no status file. */
static void log_tail(const char *log, struct strbuf *out)
{
	struct strbuf all = STRBUF_INIT;

	if (!strbuf_read_file(&all, log)) {
		strbuf_rtrim(&all);
		const char *nl = strrchr(all.buf, '\n');
		strbuf_addstr(out, nl ? nl + 1 : all.buf);
	}
	strbuf_release(&all);
}

/*
 * Box k's child ended (rc its exit status): its run is collected, or —
 * stopped there, or no status file — goes back to be started on another
 * box, and the box leaves the group.
 */
static void collect(struct gbatch *b, size_t k, int rc)
{
	struct provider *p = b->p;
	struct gbox *g = &b->boxes[k];
	struct grun *r = g->run;
	struct provider_run *res = &r->it->res;
	struct strbuf st = STRBUF_INIT, e = STRBUF_INIT;

	g->run = NULL;
	b->busy--;
	proc_kill_group(&g->p, 5);
	if (strbuf_read_file(&st, r->sp.status) || provider_status_read(st.buf, st.len, r->sp.status, res, &e)) {
		char buf[32];
		struct strbuf tail = STRBUF_INIT;
		log_tail(r->log, &tail);
		member_gone(p, k, xasprintf("its run-commit ended (%s%s) without a status file: %s (%s)",
					    proc_status_text(rc, buf), g->p.timed_out ? ", timed out" : "",
					    tail.len ? tail.buf : "no output", r->log));
		strbuf_release(&tail);
		provider_run_release(res);
		r->started = false;
	} else if (res->stop) {
		member_gone(p, k, xstrdup(res->reason ? res->reason : "it cannot run"));
		provider_run_release(res);
		r->started = false;
		unlink(r->sp.status);
		unlink(r->log);	/* its reason is said */
	} else {
		r->it->prepared = 0;
		r->it->built = true;	/* the child prepared the commit */
		if (!res->node)
			res->node = xstrdup(p->members[k]);
		r->done = true;
		b->left--;
		unlink(r->sp.jobfile);
		unlink(r->sp.status);
		unlink(r->log);
	}
	strbuf_release(&st);
	strbuf_release(&e);
}

/* No box can take the runs left: why, for each. */
static void no_box(struct gbatch *b, struct strbuf *err)
{
	struct provider *p = b->p;

	strbuf_setf(err, "no box of tbox_group %s can run:", p->group);
	for (size_t k = 0; k < p->nmembers; k++)
		strbuf_addf(err, "%s %s: %s", k ? ";" : "", p->members[k], p->gone[k]);
}

/*
 * Start what may start: each free box of the group takes the next run.
 * Boxes out of service leave; boxes another run holds are asked again
 * next time. 0, or -1 with err set.
 */
static int start_free(struct gbatch *b, struct strbuf *err)
{
	struct provider *p = b->p;

	for (size_t k = 0; k < p->nmembers; k++) {
		if (p->gone[k] || b->boxes[k].run)
			continue;
		struct grun *r = next_run(b);
		if (!r)
			return 0;
		struct strbuf why = STRBUF_INIT;
		int rc = box_available(p->members[k], p->cfg.result_dir, p->store, &why);
		if (rc < 0) {
			strbuf_setf(err, "%s", why.buf);
			strbuf_release(&why);
			return -1;
		}
		if (rc == BOX_OUT)
			member_gone(p, k, strbuf_detach(&why));
		strbuf_release(&why);
		if (rc == BOX_FREE && start_run(b, k, r, err))
			return -1;
	}
	return 0;
}

/* Stopped by a signal: the children end (their waits end them), the signal is ours again. */
static void stop_all(struct gbatch *b, const struct proc_saved_stop *saved)
{
	int sig = proc_stop_signal;
	struct strbuf e = STRBUF_INIT;

	for (size_t k = 0; k < b->p->nmembers; k++)
		if (b->boxes[k].run) {
			proc_wait(&b->boxes[k].p, &e);
			proc_kill_group(&b->boxes[k].p, 5);
			fprintf(stderr, "lkprobot: stopped (%s): the run on box %s ended\n", strsignal(sig),
				b->p->members[k]);
		}
	strbuf_release(&e);
	proc_restore_stop(saved);
	raise(sig);
}

int ssh_group_run_batch(struct provider *p, struct provider_batch_item *items, size_t n, struct strbuf *err)
{
	struct gbatch b = { p, xcalloc(n + 1, sizeof(struct grun)), n, n, xcalloc(p->nmembers, sizeof(struct gbox)), 0 };
	struct proc_saved_stop saved;
	double waiting_since = 0;
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		b.runs[i].it = &items[i];
		if (provider_spool_item(p->spool, &items[i], i, &b.runs[i].sp, err))
			goto out;
		b.runs[i].log = xasprintf("%s/%s.log", p->spool, b.runs[i].sp.tag);
	}
	proc_catch_stop(&saved);
	while (b.left) {
		if (proc_stop_signal) {
			stop_all(&b, &saved);
			strbuf_setf(err, "interrupted by signal %d", (int)proc_stop_signal);
			goto out;	/* a handler that returned */
		}
		if (start_free(&b, err))
			break;
		if (!b.busy && b.left) {
			bool all_gone = true;
			for (size_t k = 0; k < p->nmembers; k++)
				all_gone &= p->gone[k] != NULL;
			if (all_gone) {
				no_box(&b, err);
				break;
			}
			/* every box in use by other runs: they end (each run is bounded); so long, and we say so */
			if (!waiting_since)
				waiting_since = proc_now();
			else if (proc_now() - waiting_since > PROVIDER_PENDING_TIMEOUT) {
				strbuf_setf(err, "no box of tbox_group %s was free for %d s (other runs hold them)", p->group,
					    PROVIDER_PENDING_TIMEOUT);
				break;
			}
			usleep((useconds_t)(SSHG_POLL_S * 1e6));
			continue;
		}
		waiting_since = 0;
		for (size_t k = 0; k < p->nmembers; k++) {
			if (!b.boxes[k].run)
				continue;
			struct strbuf e = STRBUF_INIT;
			int rc = proc_wait_for(&b.boxes[k].p, SSHG_POLL_S / (double)(b.busy ? b.busy : 1), &e);
			strbuf_release(&e);
			if (rc != PROC_RUNNING && !proc_stop_signal)
				collect(&b, k, rc);
		}
	}
	if (!b.left)
		ret = 0;
	/* an error with children still running: they end before we say it */
	for (size_t k = 0; k < p->nmembers; k++)
		if (b.boxes[k].run) {
			proc_signal(&b.boxes[k].p, SIGTERM);
			struct strbuf e = STRBUF_INIT;
			proc_wait_for(&b.boxes[k].p, 10, &e);
			proc_kill_group(&b.boxes[k].p, 5);
			strbuf_release(&e);
		}
	proc_restore_stop(&saved);
out:
	for (size_t i = 0; i < n; i++) {
		if (!b.runs[i].done && b.runs[i].sp.jobfile)
			unlink(b.runs[i].sp.jobfile);	/* not run: nobody reads it */
		provider_spooled_release(&b.runs[i].sp);
		free(b.runs[i].log);
	}
	free(b.runs);
	free(b.boxes);
	return ret;
}

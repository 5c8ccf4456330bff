/*
 * serve_loop: the service's loop. Each pass polls the trees (a new head
 * recorded with its base), tests the heads to do — each in a worker, a
 * fork of the service (serve_worker.c), whose bisect children measure it
 * against its base and which sends a culprit's report — and delivers the
 * outbox. A worker's outcome comes back in the head's JSON form
 * (serve_head.h); all state is in the store and the result roots. See
 * serve.h.
 */
#include "serve_int.h"
#include "triage.h"
#include "../lib/sys/proc.h"
#include "../lib/util/json.h"
#include "../lib/util/say.h"
#include "../lib/store/store.h"
#include "../mail/mailconf.h"
#include "../mail/outbox.h"

#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * A head under test: a worker, a fork of the service, runs serve_test_head
 * and writes the head's outcome in its JSON form on its stdout (nothing
 * else does: the worker's own stdout goes to the log); the service starts
 * the next heads meanwhile. Its bisections' children are its own: SIGTERM to the
 * worker stops them (a Slurm bisection cancels its jobs), as a stopped
 * service or a head cancelled from the dashboard asks.
 */
struct worker {
	struct proc p;
	struct strbuf out;
	const struct node *cmd; /* a check's worker (#lkprobot test, recheck): its command; NULL: a head's */
	int64_t id;
	const struct tree_conf *t;
	const char *branch;
	bool here;	/* its provider runs here, not on a farm */
	double term_at; /* when it was asked to stop (0: not) */
	bool cancelled;
};

struct worker_arg {
	const struct serve_conf *c;
	const char *config, *base;
	const struct store_head *h;
	const struct node *cmd;
};

static int worker_main(void *arg)
{
	const struct worker_arg *a = arg;
	struct head_outcome h;
	struct strbuf out = STRBUF_INIT;
	FILE *msg = fdopen(dup(1), "w");

	/* what anything under the head prints on stdout is the log's, not the message */
	dup2(2, 1);
	serve_test_head(a->c, a->config, a->h, a->base, &h);
	head_outcome_json(&out, &h);
	if (msg) {
		fwrite(out.buf, 1, out.len, msg);
		fclose(msg);
	}
	head_outcome_release(&h);
	strbuf_release(&out);
	return msg ? 0 : 1;
}

/* A check's worker: the command acted on and answered (triage.h); its status says whether it was. */
static int check_main(void *arg)
{
	const struct worker_arg *a = arg;
	struct strbuf err = STRBUF_INIT;

	dup2(2, 1);
	int rc = triage_check_main(a->c, a->config, a->cmd, &err);
	if (rc && err.len)
		serve_say("%s", err.buf);
	strbuf_release(&err);
	return rc;
}

#define WORKER_GRACE 60 /* s from SIGTERM to SIGKILL: longer than its bisect child's own grace */

/* Stop a worker (SIGTERM: its bisection stops and cancels what it started), once. */
static void worker_stop(struct worker *w)
{
	if (!w->term_at) {
		proc_signal(&w->p, SIGTERM);
		w->term_at = proc_now();
	} else if (proc_now() - w->term_at > WORKER_GRACE) {
		proc_signal(&w->p, SIGKILL);
	}
}

/* The heads cancelled from the dashboard among those in ws: each asked by its id, not every head read. */
static void mark_cancelled(struct store *s, struct worker *ws, size_t n)
{
	struct strbuf err = STRBUF_INIT;

	for (size_t k = 0; k < n; k++) {
		struct node *h = NULL;
		if (ws[k].cancelled || store_head_one(s, ws[k].id, &h, &err) != 1) {
			node_free(h);
			continue;
		}
		const char *status = node_str(node_get(h, "status"));
		if (status && !strcmp(status, "cancelled")) {
			ws[k].cancelled = true;
			serve_say("%s %.12s: cancelled from the dashboard: its bisection is stopped",
				  node_str(node_get(h, "tree")), node_str(node_get(h, "head")));
		}
		node_free(h);
	}
	strbuf_release(&err);
}

/* A pass's heads to do and the workers testing them. */
struct pass {
	const struct serve_conf *c;
	const char *config;
	struct store *s;
	struct store_heads todo; /* the heads to do, in the queue's order */
	bool *done;		 /* ... started (or cancelled) */
	struct node *checks;	 /* the check commands to do (triage_is_check), oldest first */
	bool *cdone;		 /* ... started */
	struct worker *ws;
	struct worker_arg *args;
	char **bases;
	size_t nw, running;
};

/* May head i start now: no earlier head of its branch to do, none running? */
static bool branch_free(const struct pass *p, size_t i, const struct tree_conf *t, const char *tree, const char *branch)
{
	for (size_t k = 0; k < i; k++) {
		const char *kt = p->todo.v[k].tree, *kb = p->todo.v[k].branch;
		if (!p->done[k] && kt && kb && tree && branch && !strcmp(kt, tree) && !strcmp(kb, branch))
			return false;
	}
	/* and one running of the branch: its result is the next one's base */
	for (size_t k = 0; k < p->nw; k++)
		if (p->ws[k].p.pid && !p->ws[k].p.ended && p->ws[k].t == t && branch && p->ws[k].branch &&
		    !strcmp(p->ws[k].branch, branch))
			return false;
	return true;
}

/*
 * A head's state recorded, tried again while the store fails on a fault of
 * the machine that may pass (serve.h): the outcome waits in memory, the
 * other heads' workers go on. store_head_set's answer.
 */
static int head_set(struct store *s, int64_t id, const char *status, const char *result, struct strbuf *err)
{
	double t0 = proc_now();
	bool said = false;
	int r;

	while ((r = store_head_set(s, id, status, result, (int64_t)time(NULL), err)) < 0 && store_failed_on_fault(s) &&
	       !proc_stop_signal && proc_now() - t0 < SERVE_FAULT_WAIT) {
		if (!said)
			serve_say("%s: trying again every %d s for up to %d s", err->buf, SERVE_FAULT_RETRY,
				  SERVE_FAULT_WAIT);
		said = true;
		strbuf_reset(err);
		sleep(SERVE_FAULT_RETRY);
	}
	if (said && r >= 0)
		serve_say("head %lld recorded after %.0f s", (long long)id, proc_now() - t0);
	return r;
}

/* A worker started for p's arg k (a head's, or a check's with arg->cmd): 0, or -1 with err set. */
static int start_worker(struct pass *p, int (*fn)(void *), int64_t id, const struct tree_conf *t, const char *branch,
			bool here, struct strbuf *err)
{
	struct worker *w = &p->ws[p->nw++];

	w->id = id;
	w->t = t;
	w->branch = branch;
	w->here = here;
	w->cmd = p->args[p->nw - 1].cmd;
	/* a fork of the service: its handlers too (SIGTERM stops its bisection) */
	w->p = (struct proc){ .fn = fn,
			      .arg = &p->args[p->nw - 1],
			      .keep_signals = true,
			      .in = PROC_NULL,
			      .out = PROC_CAPTURE,
			      .capture = &w->out,
			      .death_sig = SIGKILL };
	if (proc_start(&w->p, err))
		return -1;
	p->running++;
	return 0;
}

/* Head i under test: marked testing (unless cancelled), its base chosen, its worker started. 0, or -1. */
static int start_head(struct pass *p, size_t i, const struct tree_conf *t, bool here, struct strbuf *err)
{
	const struct store_head *h = &p->todo.v[i];
	int64_t id = h->id;

	p->done[i] = true;
	int set = head_set(p->s, id, "testing", NULL, err);
	if (set < 0)
		return -1;
	if (set == 1) {
		serve_say("%s %.12s: cancelled from the dashboard", h->tree, h->head);
		return 0;
	}
	struct strbuf base = STRBUF_INIT;
	serve_head_base(p->c, p->s, h, &base);
	p->bases[p->nw] = strbuf_detach(&base);
	p->args[p->nw] = (struct worker_arg){ p->c, p->config, p->bases[p->nw], h, NULL };
	return start_worker(p, worker_main, id, t, h->branch, here, err);
}

/* Does a worker run on this machine (a provider that is not a farm's)? */
static bool here_busy(const struct pass *p)
{
	bool busy = false;

	for (size_t k = 0; k < p->nw; k++)
		busy |= p->ws[k].here && p->ws[k].p.pid && !p->ws[k].p.ended;
	return busy;
}

/*
 * The checks (#lkprobot test, recheck) that may start, oldest first, after
 * the heads: one at a time here, as heads are, several on a farm. 0, or -1
 * with err set (the store).
 */
static int start_checks(struct pass *p, bool busy, struct strbuf *err)
{
	for (size_t i = 0;
	     p->checks && i < p->checks->n && !proc_stop_signal && p->running < (size_t)p->c->max_bisections; i++) {
		const struct node *cmd = p->checks->vals[i];
		struct node *report = NULL;
		if (p->cdone[i])
			continue;
		if (store_report_get(p->s, strtoll(node_str(node_get(cmd, "report")), NULL, 10), &report, err) < 0)
			return -1;
		const char *tree = node_str(node_get(report, "tree"));
		const struct tree_conf *t = serve_tree_named(p->c, tree ? tree : "");
		bool here = !t || !(t->ops->caps & PROVIDER_PARALLEL);
		node_free(report);
		if (here && busy)
			continue;
		p->cdone[i] = true;
		p->bases[p->nw] = NULL;
		p->args[p->nw] = (struct worker_arg){ p->c, p->config, NULL, NULL, cmd };
		if (start_worker(p, check_main, 0, t, NULL, here, err))
			return -1;
		busy |= here;
	}
	return 0;
}

/* Start what may start, in the queue's order, then the checks. 0, or -1 with err set. */
static int start_heads(struct pass *p, struct strbuf *err)
{
	bool busy = here_busy(p);

	for (size_t i = 0; i < p->todo.n && !proc_stop_signal && p->running < (size_t)p->c->max_bisections; i++) {
		const struct store_head *h = &p->todo.v[i];
		const char *tree = h->tree, *branch = h->branch;
		const struct tree_conf *t = serve_tree_named(p->c, tree ? tree : "");
		bool here = !t || !(t->ops->caps & PROVIDER_PARALLEL);
		if (p->done[i] || (here && busy) || !branch_free(p, i, t, tree, branch))
			continue; /* done, this machine busy, or an earlier head of the branch first */
		size_t was = p->running;
		if (start_head(p, i, t, here, err))
			return -1;
		busy |= here && p->running > was;
	}
	return start_checks(p, busy, err);
}

/* A check's worker ended: a command it did not answer (it died) answered once with why. 0, or -1 (the store). */
static int check_ended(struct pass *p, const struct worker *w, int rc, struct strbuf *err)
{
	char buf[32], *why;

	if (!rc)
		return 0;
	why = xasprintf("its worker ended (%s) without an answer", proc_status_text(rc, buf));
	serve_say("#lkprobot %s of %s: %s", node_str(node_get(w->cmd, "command")), node_str(node_get(w->cmd, "mail")),
		  why);
	int ret = triage_check_lost(p->c, p->config, p->s, w->cmd, why, err);
	free(why);
	return ret;
}

/* Wait a little, record what ended; stop what is cancelled. 0, or -1 with err set. */
static int collect_heads(struct pass *p, struct strbuf *err)
{
	bool ended = false;

	for (size_t k = 0; k < p->nw; k++) {
		struct worker *w = &p->ws[k];
		if (!w->p.pid || w->p.ended)
			continue;
		if (proc_stop_signal || w->cancelled)
			worker_stop(w);
		struct strbuf e = STRBUF_INIT;
		int rc = proc_wait_for(&w->p, ended ? 0 : 0.2 / (double)p->running, &e);
		strbuf_release(&e);
		if (rc == PROC_RUNNING)
			continue;
		ended = true;
		p->running--;
		if (proc_stop_signal && !w->cancelled)
			continue; /* interrupted: it stays to do, and the next service goes on from the runs made */
		if (w->cmd) {
			if (check_ended(p, w, rc, err))
				return -1;
			continue;
		}
		struct head_outcome h = { 0 };
		struct strbuf pe = STRBUF_INIT, result = STRBUF_INIT;
		if (head_outcome_parse(w->out.buf, w->out.len, &h, &pe)) {
			char buf[32];
			h = (struct head_outcome){ .status = HEAD_FAILED };
			h.error = xasprintf("the head's worker ended (%s) without a result", proc_status_text(rc, buf));
		}
		head_outcome_result_json(&result, &h);
		int set = head_set(p->s, w->id, head_status_name(h.status), result.buf, err);
		head_outcome_release(&h);
		strbuf_release(&pe);
		strbuf_release(&result);
		if (set < 0)
			return -1;
	}
	return 0;
}

/* What still runs stopped (a store error, a signal: the heads stay to do), and the pass freed. */
static void pass_end(struct pass *p)
{
	for (size_t k = 0; k < p->nw; k++) {
		struct worker *w = &p->ws[k];
		while (w->p.pid && !w->p.ended) {
			struct strbuf e = STRBUF_INIT;
			worker_stop(w);
			proc_wait_for(&w->p, 1, &e);
			strbuf_release(&e);
		}
		strbuf_release(&w->out);
		free(p->bases[k]);
	}
	free(p->ws);
	free(p->args);
	free(p->bases);
	free(p->done);
	free(p->cdone);
	node_free(p->checks);
	store_heads_release(&p->todo);
}

/* The check commands to do, of all the commands queued or acting. 0, or -1 with err set. */
static int checks_todo(struct pass *p, struct strbuf *err)
{
	struct node *todo = NULL;

	if (store_commands_todo(p->s, &todo, err))
		return -1;
	p->checks = node_new(NODE_SEQ);
	for (size_t i = 0; i < todo->n; i++)
		if (triage_is_check(todo->vals[i]))
			node_push(p->checks, node_dup(todo->vals[i]));
	node_free(todo);
	return 0;
}

/*
 * One pass: the trees, lists and Maildir polled, the replies' commands
 * acted on, then every head to do tested — several at once (up to
 * max_bisections) when their providers run on a farm (they share its
 * boxes: each bisection asks for its fair share), at most one at a time
 * whose provider runs here, and the heads of one branch in their order (a
 * head's base is the last head tested before it) — and the checks asked
 * for in replies (test, recheck) run in workers alike. Then the outbox
 * delivered.
 */
int serve_one_pass(const struct serve_conf *c, const char *config, struct store *s, struct strbuf *err)
{
	struct pass p = { .c = c, .config = config, .s = s };
	struct mailconf mc;
	double looked = 0;
	int ret = 0;

	if (serve_poll_trees(c, s, err) || serve_poll_lists(c, s, err) || triage_poll_maildir(c, s, err) ||
	    triage_act(c, config, s, err) || store_head_rows(s, true, &p.todo, err))
		return -1;
	if (checks_todo(&p, err)) {
		store_heads_release(&p.todo);
		return -1;
	}
	size_t n = p.todo.n + p.checks->n + 1;
	p.done = xcalloc(n, sizeof(bool));
	p.cdone = xcalloc(n, sizeof(bool));
	p.ws = xcalloc(n, sizeof(*p.ws));
	p.args = xcalloc(n, sizeof(*p.args));
	p.bases = xcalloc(n, sizeof(char *));
	for (;;) {
		if ((ret = start_heads(&p, err)) || !p.running || (ret = collect_heads(&p, err)))
			break;
		if (proc_now() - looked >= 1) {
			looked = proc_now();
			mark_cancelled(s, p.ws, p.nw);
		}
	}
	pass_end(&p);
	if (ret || proc_stop_signal)
		return ret;
	/* what the reports queued, and what waits for a retry */
	if (!mailconf_load(&mc, config, err)) {
		long left = outbox_deliver(s, c->db, &mc, 0, stderr, err);
		if (left < 0)
			serve_say("outbox: %s", err->buf);
		mailconf_release(&mc);
	}
	strbuf_reset(err);
	return 0;
}

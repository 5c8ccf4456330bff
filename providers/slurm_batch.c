/*
 * slurm_batch: a batch's runs on a Slurm farm, several to a job — the sbatch
 * submissions, following them with squeue and their status files, shares
 * of the farm's boxes, NODE_FAIL resubmits, cancelling when stopped. See
 * slurm.c for the provider itself.
 */
#include "provider.h"
#include "slurm_int.h"
#include "../lib/run/run.h"
#include "../lib/sys/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLURM_POLL_US 200000	/* squeue every 0.2 s */
#define SLURM_POLL_EVERY 4	/* status files looked at 4 times as often (a run is over when its file is there) */
#define SLURM_SLOTS_EVERY 1.0	/* s between looks at the farm's free boxes during a batch */
/*
 * At most this many runs to a Slurm job: a job runs its runs one after
 * another on its box (one start, paid once, instead of one a run), and
 * another client's job waits for a box at most this many of our runs.
 */
#define SLURM_RUNS_A_JOB 10
#define SLURM_GONE_S 60		/* a job Slurm forgot: this long for its status file on the shared file system */

/* ---- a batch's runs, several to a job ---- */


struct srun {
	struct provider_batch_item *it;
	struct provider_spooled sp;	/* its tag, job file and status file */
	size_t job;		/* its Slurm job in the batch's jobs (SIZE_MAX: not submitted yet) */
	char *lost;		/* the node failure that cost its first submission */
	bool done;
};

struct sjob {
	char id[32], out[96];	/* out: the tag of its first run, whose .out is Slurm's output */
	size_t *runs, nruns;	/* indices into the batch's runs */
	int attempt;		/* 1, or 2 for the runs a node failure lost */
	double pending_since;
	double gone_since;	/* when squeue stopped listing it (0: it lists it) */
	char state[32], reason[128], node[128];
	bool done;
};

struct sbatch {
	struct srun *runs;
	size_t n, next, left;	/* next: the first run not submitted; left: runs not done */
	struct sjob *jobs;
	size_t njobs, inflight;
};

static bool slurm_final(const char *state)
{
	static const char *const done[] = { "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
					    "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", NULL };
	for (const char *const *d = done; *d; d++)
		if (!strcmp(state, *d))
			return true;
	return false;
}

/* scancel the batch's jobs in flight (jobs that ended already: nothing to do, nothing said); ids said when say */
static void slurm_cancel_all(struct sbatch *b, int say)
{
	char **argv = xcalloc(b->njobs + 2, sizeof(char *));
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;
	size_t k = 1;

	argv[0] = "scancel";
	for (size_t i = 0; i < b->njobs; i++)
		if (*b->jobs[i].id && !b->jobs[i].done)
			argv[k++] = b->jobs[i].id;
	if (k > 1)
		slurm_cmd(argv, &o, &e);
	for (size_t i = 1; say && i < k; i++)
		fprintf(stderr, "lkprobot: stopped (%s): Slurm job %s cancelled\n", strsignal(say), argv[i]);
	free(argv);
	strbuf_release(&o);
	strbuf_release(&e);
}

static void slurm_cancel_one(const char *id)
{
	char *argv[] = { "scancel", (char *)id, NULL };
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;

	slurm_cmd(argv, &o, &e);
	strbuf_release(&o);
	strbuf_release(&e);
}

struct args {
	char **v;
	size_t n;
};

static void args_add(struct args *a, const char *s)
{
	a->v = xrealloc(a->v, (a->n + 2) * sizeof(char *));
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
}

/* Does --sbatch-arg give a time limit of its own (then it is one run's: one run a job)? */
static bool slurm_own_time(const struct provider *p)
{
	for (size_t i = 0; i < p->nargs; i++)
		if (!strncmp(p->args[i], "--time", 6) || !strncmp(p->args[i], "-t", 2))
			return true;
	return false;
}

/* One run's command in the job: `lkprobot run-commit ...` with its commit, job file and status file. */
static void run_commit_argv(struct provider *p, struct srun *r, struct args *a)
{
	const char *fixed[] = { p->exe, "run-commit", "--provider", p->via, "--tree", p->cfg.tree, "--commit",
				r->it->commit, "-o", p->cfg.result_dir, "--cache", p->cfg.cache, "--status", r->sp.status };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(*fixed); i++)
		args_add(a, fixed[i]);
	if (p->cfg.kconfig) {
		args_add(a, "--kconfig");
		args_add(a, p->cfg.kconfig);
	}
	if (p->cfg.testbox) {
		args_add(a, "-t");
		args_add(a, p->cfg.testbox);
	}
	args_add(a, r->sp.jobfile);
}

/*
 * Submit one batch job for the runs idx[0..k), which its box runs one after
 * another (the batch script, SLURM_NEXT_RUN between their argv); its id
 * into j->id.
 */
static int slurm_submit(struct provider *p, struct sbatch *b, struct sjob *j, struct strbuf *err)
{
	struct srun *first = &b->runs[j->runs[0]];
	char *output = xasprintf("--output=%s/%s.out", p->spool, first->sp.tag), *name = xasprintf("--job-name=lkprobot-%.12s", first->it->commit);
	char *constraint = p->constraint ? xasprintf("--constraint=%s", p->constraint) : NULL;
	char *partition = p->partition ? xasprintf("--partition=%s", p->partition) : NULL;
	char *comment = xasprintf("--comment=%s", p->comment), *tlimit = NULL;
	struct strbuf out = STRBUF_INIT;
	struct args a = { NULL, 0 };

	args_add(&a, "sbatch");
	args_add(&a, "--parsable");
	args_add(&a, "--exclusive");	/* a benchmark is alone on its box */
	args_add(&a, "--no-requeue");	/* after a node failure we submit again, once */
	args_add(&a, name);
	args_add(&a, output);
	args_add(&a, comment);
	if (constraint)
		args_add(&a, constraint);
	if (partition)
		args_add(&a, partition);
	/*
	 * The time limit from the runs' runtimes (run_job_timeout), each plus
	 * the node's preparation: 10 minutes for a checkout, 60 for a kernel
	 * build and boot. --sbatch-arg --time=... wins.
	 */
	if (!slurm_own_time(p)) {
		unsigned limit = 0;
		for (size_t i = 0; i < j->nruns; i++)
			limit += run_job_timeout(b->runs[j->runs[i]].it->job) + (strcmp(p->via, "qemu") ? 600 : 3600);
		tlimit = xasprintf("--time=%u", (limit + 59) / 60);
		args_add(&a, tlimit);
	}
	for (size_t i = 0; i < p->nargs; i++)
		args_add(&a, p->args[i]);
	args_add(&a, p->script);
	for (size_t i = 0; i < j->nruns; i++) {
		if (i)
			args_add(&a, SLURM_NEXT_RUN);
		run_commit_argv(p, &b->runs[j->runs[i]], &a);
	}
	int rc = slurm_cmd(a.v, &out, err);
	strbuf_rtrim(&out);
	/* --parsable: "ID" or "ID;cluster" */
	if (!rc && (!out.len || strspn(out.buf, "0123456789") == 0)) {
		strbuf_setf(err, "sbatch: no job id in its answer '%s'", out.buf);
		rc = -1;
	}
	if (!rc) {
		snprintf(j->id, sizeof(j->id), "%.*s", (int)strspn(out.buf, "0123456789"), out.buf);
		snprintf(j->out, sizeof(j->out), "%s", first->sp.tag);
		b->inflight++;
		p->pending++;
	}
	free(a.v);
	free(output);
	free(name);
	free(constraint);
	free(partition);
	free(comment);
	free(tlimit);
	strbuf_release(&out);
	return rc;
}

/* A new job in the batch for the runs idx[0..k) (its attempt: 1, or 2 for a node failure's runs), submitted. */
static int sbatch_job(struct provider *p, struct sbatch *b, const size_t *idx, size_t k, int attempt, struct strbuf *err)
{
	struct sjob *j = &b->jobs[b->njobs];

	memset(j, 0, sizeof(*j));
	j->runs = xcalloc(k, sizeof(size_t));
	memcpy(j->runs, idx, k * sizeof(size_t));
	j->nruns = k;
	j->attempt = attempt;
	for (size_t i = 0; i < k; i++)
		b->runs[idx[i]].job = b->njobs;
	b->njobs++;
	return slurm_submit(p, b, j, err);
}

/* Write the run's job file; its tag, job and status file names in r. */
static int srun_init(struct provider *p, struct srun *r, struct provider_batch_item *it, size_t k, struct strbuf *err)
{
	memset(r, 0, sizeof(*r));
	r->it = it;
	r->job = SIZE_MAX;
	return provider_spool_item(p->spool, it, k, &r->sp, err);
}

/* The states of the jobs in flight, by one squeue. 0, or -1 with err set. */
static int slurm_poll(struct provider *p, struct sbatch *b, struct strbuf *err)
{
	struct strbuf ids = STRBUF_INIT, out = STRBUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < b->njobs; i++)
		if (*b->jobs[i].id && !b->jobs[i].done)
			strbuf_addf(&ids, "%s%s", ids.len ? "," : "", b->jobs[i].id);
	if (!ids.len)
		goto out;
	char *argv[] = { "squeue", "-h", "-t", "all", "-j", ids.buf, "-o", "%i|%T|%r|%N", NULL };
	if ((rc = slurm_cmd(argv, &out, err)))
		goto out;
	bool *listed = xcalloc(b->njobs + 1, sizeof(bool));
	p->running = p->pending = 0;
	for (char *save = NULL, *line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(line, '|'), *c = a ? strchr(a + 1, '|') : NULL, *d = c ? strchr(c + 1, '|') : NULL;
		if (!d)
			continue;
		*a = *c = *d = '\0';
		for (size_t i = 0; i < b->njobs; i++) {
			struct sjob *j = &b->jobs[i];
			if (j->done || strcmp(j->id, line))
				continue;
			snprintf(j->state, sizeof(j->state), "%s", a + 1);
			snprintf(j->reason, sizeof(j->reason), "%s", c + 1);
			snprintf(j->node, sizeof(j->node), "%s", d + 1);
			listed[i] = true;
			p->running += !strcmp(j->state, "RUNNING");
			p->pending += !strcmp(j->state, "PENDING");
		}
	}
	/* a job squeue no longer lists (it forgets them a while after they end) */
	double now = proc_now();
	for (size_t i = 0; i < b->njobs; i++)
		if (*b->jobs[i].id && !b->jobs[i].done && !listed[i] && !b->jobs[i].gone_since)
			b->jobs[i].gone_since = now;
	free(listed);
out:
	strbuf_release(&ids);
	strbuf_release(&out);
	return rc;
}

/* A run whose status file came: read into its item's result (a job that ended without one: why). */
static void slurm_collect(struct provider *p, struct sbatch *b, struct srun *r)
{
	struct strbuf st = STRBUF_INIT, e = STRBUF_INIT;
	struct provider_run *res = &r->it->res;
	struct sjob *j = &b->jobs[r->job];

	r->it->prepared = 0;
	r->it->built = true;	/* the node prepared the commit */
	if (strbuf_read_file(&st, r->sp.status) || provider_status_read(st.buf, st.len, r->sp.status, res, &e)) {
		provider_run_release(res);
		res->job_state = !strcmp(j->state, "CANCELLED") ? "killed" : "failed";
		res->reason = xasprintf("Slurm job %s ended %s%s%s without a status file (see %s/%s.out)", j->id,
					*j->state ? j->state : "(forgotten)", *j->node ? " on " : "", j->node, p->spool, j->out);
	}
	if (!res->node && *j->node)
		res->node = xstrdup(j->node);
	r->done = true;
	b->left--;
	strbuf_release(&st);
	strbuf_release(&e);
}

/* A run that fails without running (its job cancelled, its box lost twice): why. */
static void srun_fail(struct sbatch *b, struct srun *r, char *reason)
{
	r->it->prepared = 0;
	r->it->res.job_state = "failed";
	r->it->res.reason = reason;
	r->done = true;
	b->left--;
}

/* Is the run moot: a commit that does not build, said by a run of this batch (its other runs would say it again)? */
static bool srun_moot(const struct sbatch *b, const struct srun *r)
{
	for (size_t k = 0; k < b->n; k++)
		if (b->runs[k].done && b->runs[k].it->res.untestable && !strcmp(b->runs[k].it->commit, r->it->commit))
			return true;
	return false;
}

/*
 * Submit the runs not submitted yet, as many jobs as there are free slots,
 * the runs shared evenly among them (in their order, at most
 * SLURM_RUNS_A_JOB a job; one when --sbatch-arg sets a run's time limit).
 */
static int sbatch_submit_next(struct provider *p, struct sbatch *b, size_t slots, struct strbuf *err)
{
	size_t *idx = xcalloc(b->n + 1, sizeof(size_t));
	int rc = 0;

	while (!rc && b->next < b->n && b->inflight < slots) {
		size_t todo = 0;
		for (size_t i = b->next; i < b->n; i++)
			todo += !srun_moot(b, &b->runs[i]);
		size_t free_slots = slots - b->inflight, per = (todo + free_slots - 1) / free_slots, k = 0;
		if (per > SLURM_RUNS_A_JOB)
			per = SLURM_RUNS_A_JOB;
		if (slurm_own_time(p) || !per)
			per = 1;	/* !per: only moot runs left, passed over below */
		for (; b->next < b->n && k < per; b->next++) {
			struct srun *r = &b->runs[b->next];
			if (srun_moot(b, r)) {
				r->done = true;
				b->left--;
			} else {
				idx[k++] = b->next;
			}
		}
		if (k)
			rc = sbatch_job(p, b, idx, k, 1, err);
	}
	free(idx);
	return rc;
}

/*
 * A job that ended because of its box (NODE_FAIL, PREEMPTED, BOOT_FAIL),
 * not its commits: its runs without a status file submitted again once, as
 * one job on whatever box is up; lost twice, they fail with both reasons.
 */
static int sjob_lost(struct provider *p, struct sbatch *b, struct sjob *j, struct strbuf *err)
{
	size_t *idx = xcalloc(j->nruns + 1, sizeof(size_t)), k = 0;
	char *lost = xasprintf("Slurm job %s: %s on %s", j->id, j->state, *j->node ? j->node : "its node");
	int rc = 0;

	for (size_t i = 0; i < j->nruns; i++) {
		struct srun *r = &b->runs[j->runs[i]];
		if (r->done)
			continue;
		if (!access(r->sp.status, R_OK)) {
			slurm_collect(p, b, r);
			continue;
		}
		if (j->attempt > 1) {
			srun_fail(b, r, xasprintf("%s, and the job submitted again failed the same way", lost));
			continue;
		}
		free(r->lost);
		r->lost = xstrdup(lost);
		idx[k++] = j->runs[i];
	}
	if (k) {
		fprintf(stderr, "lkprobot: %s; submitted again\n", lost);
		rc = sbatch_job(p, b, idx, k, 2, err);
	}
	free(lost);
	free(idx);
	return rc;
}

/* A job pending longer than --pending-timeout: cancelled, its runs failed with Slurm's reason. */
static void sjob_pending(struct provider *p, struct sbatch *b, struct sjob *j, double now)
{
	if (strcmp(j->state, "PENDING") || !p->pending_timeout) {
		j->pending_since = 0;
		return;
	}
	if (!j->pending_since) {
		j->pending_since = now;
		return;
	}
	if (now - j->pending_since <= p->pending_timeout)
		return;
	slurm_cancel_one(j->id);
	j->done = true;
	b->inflight--;
	for (size_t i = 0; i < j->nruns; i++) {
		struct srun *r = &b->runs[j->runs[i]];
		if (!r->done)
			srun_fail(b, r, xasprintf("Slurm job %s still pending after %u s (%s)%s%s: cancelled", j->id,
						  p->pending_timeout, j->reason, r->lost ? "; before that " : "",
						  r->lost ? r->lost : ""));
	}
}

/*
 * What came since the last look: each run whose status file is there is
 * collected (its job may still run the next ones); a job that ended is
 * done, its runs without a status file lost with their box or failed.
 */
static int sbatch_reap(struct provider *p, struct sbatch *b, struct strbuf *err)
{
	double now = proc_now();

	for (size_t i = 0; i < b->next; i++) {
		struct srun *r = &b->runs[i];
		if (!r->done && r->job != SIZE_MAX && !access(r->sp.status, R_OK))
			slurm_collect(p, b, r);
	}
	for (size_t i = 0; i < b->njobs; i++) {
		struct sjob *j = &b->jobs[i];
		if (j->done || !*j->id)
			continue;
		bool all = true;
		for (size_t q = 0; q < j->nruns; q++)
			all &= b->runs[j->runs[q]].done;
		bool gone = j->gone_since > 0;
		if (!all && !slurm_final(j->state) && !(gone && now - j->gone_since > SLURM_GONE_S)) {
			sjob_pending(p, b, j, now);
			continue;
		}
		j->done = true;
		b->inflight--;
		if (!strcmp(j->state, "NODE_FAIL") || !strcmp(j->state, "PREEMPTED") || !strcmp(j->state, "BOOT_FAIL")) {
			if (sjob_lost(p, b, j, err))
				return -1;
			continue;
		}
		for (size_t q = 0; q < j->nruns; q++)
			if (!b->runs[j->runs[q]].done)
				slurm_collect(p, b, &b->runs[j->runs[q]]);
	}
	return 0;
}

static void sbatch_release(struct sbatch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		provider_spooled_release(&b->runs[i].sp);
		free(b->runs[i].lost);
	}
	for (size_t i = 0; i < b->njobs; i++)
		free(b->jobs[i].runs);
	free(b->runs);
	free(b->jobs);
}

/*
 * The batch: its runs submitted in their order, as few jobs as the free
 * slots allow (asked again every second as boxes free up), each run
 * collected as its status file comes — the batch ends with its last run,
 * not a squeue later. A run whose node failed is submitted again once; a
 * run whose commit turned out not to build stops the commit's runs not yet
 * submitted. Stopped by a signal: every job of ours cancelled, said, and
 * the signal is ours again.
 */
int slurm_run_batch(struct provider *p, struct provider_batch_item *items, size_t n, char **prepared,
		    struct strbuf *err)
{
	/* a job each run at most, and one more each for the runs a node failure lost */
	struct sbatch b = { xcalloc(n + 1, sizeof(struct srun)), n, 0, n, xcalloc(2 * n + 1, sizeof(struct sjob)), 0, 0 };
	struct proc_saved_stop saved;
	size_t slots = 0, polls = 0;
	double slots_at = 0;
	int ret = -1;

	(void)prepared;
	for (size_t i = 0; i < n; i++)
		if (srun_init(p, &b.runs[i], &items[i], i, err)) {
			sbatch_release(&b);
			return -1;
		}
	proc_catch_stop(&saved);
	p->running = p->pending = 0;
	while (b.left) {
		if (proc_stop_signal) {
			int sig = proc_stop_signal;
			slurm_cancel_all(&b, sig);
			proc_restore_stop(&saved);
			raise(sig);
			goto out;	/* a handler that returned */
		}
		if (b.next < n && proc_now() - slots_at >= SLURM_SLOTS_EVERY) {
			slots = slurm_slots(p);
			slots_at = proc_now();
		}
		if (sbatch_submit_next(p, &b, slots, err)) {
			slurm_cancel_all(&b, 0);	/* sbatch refused (err says why): nothing of ours is left behind */
			goto done;
		}
		/* the status files every look, squeue every SLURM_POLL_US */
		if ((polls++ % SLURM_POLL_EVERY == 0 && slurm_poll(p, &b, err)) || sbatch_reap(p, &b, err)) {
			slurm_cancel_all(&b, 0);	/* Slurm does not answer: ours cancelled as far as it hears */
			goto done;
		}
		if (b.left)
			usleep(SLURM_POLL_US / SLURM_POLL_EVERY);
	}
	ret = 0;
done:
	proc_restore_stop(&saved);
out:
	sbatch_release(&b);
	return ret;
}

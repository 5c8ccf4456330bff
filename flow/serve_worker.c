/*
 * serve_worker: testing one head, in the head's worker — each job bisected
 * between the head's base and the head by a bisect child (a fork running
 * flow_bisect, in a process group of its own, whose result comes back in
 * the bisection's JSON form), and a named culprit's report sent through
 * the report flow. What it gave is a head_outcome (serve_head.h).
 */
#include "serve_int.h"
#include "bisect.h"
#include "jobopts.h"
#include "report.h"
#include "triage.h"
#include "../lib/results/compare.h"
#include "../lib/sys/proc.h"
#include "../lib/util/say.h"
#include "../mail/mailconf.h"
#include "../web/web.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A head under test: what its steps share. */
struct head_test {
	const struct serve_conf *c;
	const struct tree_conf *t;
	const struct mailconf *mc; /* NULL: the configuration's mail: section could not be read (mc_err) */
	const char *mc_err;
	const char *tree, *branch, *head, *base;
	int64_t first;	       /* when the head was first seen: the mail's date */
	const char *thread;    /* a series' head: its cover letter (or first patch), the report's In-Reply-To */
	const char *base_line; /* a series' head: the report's "base: ..." line (NULL: none) */
};

/* Runs of a branch's first head when it has no parent (as many as a bisection gives each end first). */
#define SERVE_BASELINE_RUNS 5

/* A tree's layout_check (checked when read): N, or off (0). */
static int align_of(const char *v)
{
	return v && strcmp(v, "off") ? atoi(v) : 0;
}

/* A head's bisection between its base and itself (measured on its own when it has no base). */
static enum flow_status bisect_head(struct bisect_request *req, void *arg, struct bisect_result *res,
				    struct strbuf *err)
{
	const struct head_test *ht = arg;

	req->good = ht->base;
	req->bad = ht->head;
	req->layout_align = align_of(ht->t->layout_check);
	/* a head with no base (a branch's first, a root commit) is measured on its own */
	return *ht->base ? flow_bisect(req, res, err) : flow_measure(req, SERVE_BASELINE_RUNS, res, err);
}

/* Bisect a job of the head in a measuring child. Its result into *res; 0, or -1 with why when it gave none. */
static int run_bisect(const struct head_test *ht, const char *job, struct bisect_result *res, struct strbuf *why)
{
	if (*ht->base)
		serve_say("%s %.12s..%.12s: %s", ht->tree, ht->base, ht->head, job);
	else
		serve_say("%s %.12s: %s: the branch's first head, with no parent: measured on its own", ht->tree,
			  ht->head, job);
	return serve_measure(ht->c, ht->t, job, bisect_head, (void *)ht, "the bisection", res, why);
}

/*
 * The mail's note for an ambiguous culprit: the set, so that the reader
 * decides between the commits that could not be tested (none when the culprit is not ambiguous).
 */
static void ambiguous_note(const struct bisect_result *r, struct strbuf *note)
{
	if (r->status != BISECTION_AMBIGUOUS)
		return;
	strbuf_addstr(note,
		      "Commits that cannot be tested keep lkprobot from naming one first bad commit; it is one of:");
	for (size_t k = 0; k < r->ncandidates; k++) {
		bool skipped = false;
		for (size_t q = 0; q < r->nskipped; q++)
			skipped |= !strcmp(r->skipped[q], r->candidates[k]);
		strbuf_addf(note, "%s %.12s%s", k ? "," : "", r->candidates[k], skipped ? " (cannot be tested)" : "");
	}
	strbuf_addf(note,
		    ". The one that can be tested, %.12s, is reported here, compared with %.12s, the nearest "
		    "commit found good.",
		    r->culprit, r->parent);
}

/* The change j gives: the metric and a decision's estimate with its interval. */
static void set_change(struct job_outcome *j, const char *metric, const struct decision *d)
{
	if (!metric || !*metric || !d)
		return;
	free(j->metric);
	j->metric = xstrdup(metric);
	j->change = d->change;
	j->lo = d->lo;
	j->hi = d->hi;
}

/* Each line the report flow logged, as a line of the service's log (text NULL: none). */
static void log_lines(const struct head_test *ht, const char *culprit, char *text)
{
	if (!text)
		return;
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		serve_say("%s %.12s: %s", ht->tree, culprit, l);
}

static void free_strv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The job's outcome names the bisection's culprit. */
static void name_culprit(struct job_outcome *j, const struct bisect_result *r)
{
	j->named = true;
	memcpy(j->culprit, r->culprit, sizeof(j->culprit));
}

/* A report a mail rule held back: recorded, with why. */
static void held(const struct head_test *ht, const struct bisect_result *r, int kind, const struct report_outcome *out,
		 struct job_outcome *j)
{
	name_culprit(j, r);
	if (out->held_by && strcmp(out->held_by, "hold-improvements")) {
		/* held by another rule (the revert restores nothing) */
		serve_say("%s %.12s: report held: %s", ht->tree, r->culprit, out->why.buf);
		j->kind = kind > 0 ? "improvement" : kind < 0 ? "regression" : NULL;
		j->report = JOB_REPORT_HELD;
		j->report_why = xstrdup(out->why.buf);
	} else {
		serve_say("%s %.12s: an improvement of %s, recorded, not mailed (report_improvements: false)", ht->tree,
			  r->culprit, r->metric);
		j->kind = "improvement";
	}
}

/*
 * The culprit's report sent through the report flow (the same decision
 * bisect took says whether it is worth a mail; the mail rules whether it
 * goes), what became of it in j. kind: +1 an improvement, -1 a regression,
 * 0 neither. Its url: line says where the commit is (the tree's address and
 * branch), else the bisection's page. Returns the verdict.
 */
static enum report_verdict send_report(const struct head_test *ht, const char *job, const struct bisect_result *r,
				       int kind, struct job_outcome *j)
{
	const struct serve_conf *c = ht->c;
	struct strbuf note = STRBUF_INIT, checks = STRBUF_INIT;
	struct compare_floors floors = { 0 };
	struct report_outcome out = { .why = STRBUF_INIT };
	char *url = c->public_url && r->id > 0 ? web_url_bisection(c->public_url, r->id) : NULL;
	char *where = ht->t->url && ht->branch ? xasprintf("%s %s", ht->t->url, ht->branch) : NULL;
	char *log = NULL, **also_cc = serve_series_cc(c, ht->tree, ht->branch, r->culprit);
	size_t loglen = 0;

	ambiguous_note(r, &note);
	bisect_checks_text(r, &checks);
	if (!ht->mc) {
		out.verdict = REPORT_BAD;
		strbuf_addstr(&out.why, ht->mc_err);
	} else {
		struct report_request rq = { .what = { .base = r->parent,
						       .commit = r->culprit,
						       .db = c->db,
						       .result_dir = c->result_root,
						       .tree = ht->t->path,
						       .metric = r->metric,
						       .floors = &floors,
						       .thread = ht->thread },
					     .tree_name = ht->tree,
					     .url = where ? where : url,
					     .closes = url,
					     .tree_url = ht->t->url,
					     .lkprobot_url = c->lkprobot_url,
					     .note = note.len ? note.buf : NULL,
					     .date = (time_t)ht->first,
					     .mc = ht->mc,
					     .log = open_memstream(&log, &loglen),
					     .kind = kind,
					     .hold_improvements = !c->report_improvements,
					     .revert_refutes = r->revert.status == CHECK_REFUTES,
					     .mail_unrestored = c->report_unrestored,
					     .checks = checks.len ? checks.buf : NULL,
					     .layout_effect = r->layout.status == CHECK_REFUTES,
					     .also_cc = (const char *const *)also_cc,
					     .base_line = ht->base_line,
					     .conf_floors = (const char *const *)c->floors,
					     .branch = ht->branch,
					     .job = job,
					     .bisection = r->id };
		flow_report_send(&rq, &out);
		if (rq.log)
			fclose(rq.log);
	}
	log_lines(ht, r->culprit, log);
	/* the mail's figure for the change, when it made one: status and the dashboard give the same */
	if (out.decided)
		set_change(j, out.metric, &out.decision);
	j->revert = check_status_name(r->revert.status);
	j->layout = check_status_name(r->layout.status);
	if (out.verdict == REPORT_HELD) {
		held(ht, r, kind, &out, j);
	} else {
		bool sent = out.verdict == REPORT_QUEUED || out.verdict == REPORT_DUPLICATE ||
			    out.verdict == REPORT_REFUSED;
		/* a queued one said so in the flow's lines */
		if (out.verdict != REPORT_QUEUED && out.verdict != REPORT_DUPLICATE)
			serve_say("%s %.12s: report %s: %s", ht->tree, r->culprit,
				  out.verdict == REPORT_REFUSED ? "refused" : "not sent", out.why.buf);
		/* a regression or improvement only when it is reported: the same decision said so */
		if (kind && sent)
			j->kind = kind > 0 ? "improvement" : "regression";
		name_culprit(j, r);
		j->report = out.verdict == REPORT_REFUSED ? JOB_REPORT_DELIVERY_FAILED
			    : sent			  ? JOB_REPORT_QUEUED
			    : out.verdict == REPORT_BAD	  ? JOB_REPORT_ERROR
							  : JOB_REPORT_NOT_SENT;
		if (out.mail_error)
			j->mail_error = xstrdup(out.mail_error);
		else if (!sent)
			j->report_why = xstrdup(out.why.buf);
	}
	enum report_verdict v = out.verdict;
	report_outcome_release(&out);
	compare_floors_release(&floors);
	strbuf_release(&note);
	strbuf_release(&checks);
	free(log);
	free(url);
	free(where);
	free_strv(also_cc);
	return v;
}

/*
 * Which way a named culprit's change went, as the confirmation decided
 * with the metric's direction (the job's metric_direction:, lkp-tests'
 * index files, the program's table): +1 improvement, -1 regression, 0
 * neither (a metric with no direction: never mailed as either).
 */
static int change_kind(const struct bisect_result *r)
{
	bool named = (r->status == BISECTION_FOUND || r->status == BISECTION_AMBIGUOUS) && r->named;

	return named && r->confirmed && r->confirm.verdict == DECIDE_CHANGED ? r->confirm.kind : 0;
}

/*
 * A bisection stopped by a fault that passes: a run failed while the
 * result root's file system was full, or the store failed on its disk or
 * on another process holding it longer than the busy timeout (the
 * result's fault, as flow_bisect tells it).
 */
static bool stopped_by_fault(const struct bisect_result *r)
{
	return r->status == BISECTION_FAILED && r->fault;
}

/*
 * The job bisected; when the bisection stopped on a fault that may pass
 * (the result root's disk full for a while, the store held), started again
 * after a wait, up to SERVE_FAULT_BISECTS times (serve.h): it goes on from
 * the runs made, the ones the full disk kept out of the store recorded
 * first. run_bisect's answer.
 */
static int bisect_job(const struct head_test *ht, const char *job, struct bisect_result *r, struct strbuf *why)
{
	int ret = run_bisect(ht, job, r, why);

	for (int k = 1; k <= SERVE_FAULT_BISECTS && !ret && !proc_stop_signal && stopped_by_fault(r); k++) {
		int wait = SERVE_FAULT_RETRY << k;
		serve_say(
			"%s %.12s: the bisection stopped on a fault that may pass (%s): started again in %d s (%d of "
			"%d)",
			ht->tree, ht->head, r->why, wait, k, SERVE_FAULT_BISECTS);
		for (int i = 0; i < wait && !proc_stop_signal; i++)
			sleep(1);
		if (proc_stop_signal)
			break;
		/* the runs the fault kept out of the store: recorded as the bisection reads them again */
		bisect_result_release(r);
		strbuf_reset(why);
		ret = run_bisect(ht, job, r, why);
	}
	return ret;
}

/*
 * One job of the head: bisected, and a named culprit reported; its
 * outcome added to h. Returns the head's status after it (status: before it).
 */
static enum head_status test_job(const struct head_test *ht, const char *job, enum head_status status,
				 struct head_outcome *h)
{
	struct bisect_result r;
	struct strbuf why = STRBUF_INIT;
	struct job_outcome *j = head_outcome_add(h);
	bool have = !bisect_job(ht, job, &r, &why);

	j->job = xstrdup(job);
	j->bisect = xstrdup(have ? bisection_status_name(r.status) : "error");
	/* the culprit's change against its parent, else the ends': every verdict with its interval */
	if (have)
		set_change(j, r.metric, r.confirmed ? &r.confirm : r.have_ends ? &r.ends : NULL);
	j->why = have && r.why ? xstrdup(r.why) : strbuf_detach(&why);
	if (!have || r.status == BISECTION_FAILED) {
		/* a head that does not build is no base for the next: recorded as such, with its first error line */
		bool build = have && r.untestable == BISECTION_END_BAD;
		status = build && status != HEAD_FAILED ? HEAD_BUILD_FAILED : HEAD_FAILED;
		serve_say("%s %.12s: bisect failed: %s", ht->tree, ht->head, j->why);
	} else {
		serve_say("%s %.12s: %s%s%.12s: %s", ht->tree, ht->head, j->bisect, r.named ? ", culprit " : "",
			  r.named ? r.culprit : "", j->why);
		if (r.status == BISECTION_BASELINE && status == HEAD_DONE)
			status = HEAD_BASELINE;
	}
	/* found, or of an ambiguous set the one commit that can be tested, confirmed (bisect names it) */
	bool named = have && (r.status == BISECTION_FOUND || r.status == BISECTION_AMBIGUOUS) && r.named;
	if (named && send_report(ht, job, &r, change_kind(&r), j) == REPORT_BAD)
		status = HEAD_FAILED;
	bisect_result_release(&r);
	strbuf_release(&why);
	return status;
}

/*
 * A measured head's branch: its open reports followed up (triage.h), here
 * in the head's worker, as their runs may need more rounds.
 */
static void followup(const struct serve_conf *c, const char *config, const struct store_head *h, const char *base)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(c->db, &err);

	if (!s || triage_followup(c, config, s, h->tree, h->branch, h->head, base, &err))
		serve_say("%s %.12s: the reports' follow-up waits for the next head: %s", h->tree, h->head, err.buf);
	store_close(s);
	strbuf_release(&err);
}

void serve_test_head(const struct serve_conf *c, const char *config, const struct store_head *h, const char *base,
		     struct head_outcome *out)
{
	const char *tree = h->tree;
	const struct tree_conf *t = serve_tree_named(c, tree ? tree : "");
	struct mailconf mc;
	struct strbuf mc_err = STRBUF_INIT;

	*out = (struct head_outcome){ .status = HEAD_DONE };
	if (!t) {
		out->status = HEAD_FAILED;
		out->error = xstrdup("the tree is not in the configuration any more");
		return;
	}
	bool have_mc = !mailconf_load(&mc, config, &mc_err);
	char *thread = serve_series_thread(c, tree, h->branch), *base_line = serve_series_base(c, tree, h->branch);
	struct head_test ht = { c,	 t,    have_mc ? &mc : NULL, mc_err.buf, tree,	   h->branch,
				h->head, base, h->first_seen,	     thread,	 base_line };
	for (size_t j = 0; j < t->njobs && !proc_stop_signal; j++)
		out->status = test_job(&ht, t->jobs[j], out->status, out);
	if (out->status == HEAD_DONE && !proc_stop_signal)
		followup(c, config, h, base);
	free(thread);
	free(base_line);
	if (have_mc)
		mailconf_release(&mc);
	strbuf_release(&mc_err);
}

/*
 * triage_check: what the robot measures again for a report — the
 * follow-up of a report whose change went away at a later head (or whose
 * culprit was reverted upstream), and the #lkprobot test and recheck
 * commands. See triage.h.
 */
#include "triage.h"
#include "serve_int.h"
#include "../lib/kernel/git.h"
#include "../lib/results/compare.h"
#include "../lib/store/store.h"
#include "../mail/mailconf.h"
#include "../mail/reportjob.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Is the report's change gone at commit: the metric compared between the
 * culprit's parent and commit on their runs in the store, by the same
 * decision (within the floor)? 1 gone (the decision's line in why), 0
 * still there or not known, 2 the runs are not sure, -1 it cannot be
 * compared (why says why).
 */
static int change_gone(const struct serve_conf *c, const struct node *report, const char *commit, struct strbuf *why)
{
	const char *metric = node_str(node_get(report, "metric"));
	struct compare_floors floors = { 0 };
	struct reportjob rj;
	struct reportjob_opts o = { .base = node_str(node_get(report, "parent")),
				    .commit = commit,
				    .db = c->db,
				    .result_dir = c->result_root,
				    .metric = metric,
				    .floors = &floors };
	int gone = 0;

	serve_conf_floors(c, &floors);
	int rc = o.base && metric ? reportjob_assemble(&rj, &o, why) : -1;
	for (size_t i = 0; rc == 1 && i < rj.nres; i++)
		for (size_t k = 0; k < rj.res[i].nrows; k++) {
			const struct compare_row *row = &rj.res[i].rows[k];
			if (strcmp(row->metric, metric))
				continue;
			gone = row->decision.verdict == DECIDE_SAME	? 1
			       : row->decision.verdict == DECIDE_UNSURE ? 2
									: 0;
			strbuf_setf(why, "%s", row->decision.why);
		}
	if (rc >= 0)
		reportjob_release(&rj);
	compare_floors_release(&floors);
	return rc < 0 ? -1 : gone;
}

/*
 * The stored runs of the culprit's parent and the head not sure: both run
 * in more interleaved rounds, by the same decision, as many as a
 * bisection's confirmation may take, until it is sure either way (or at
 * that bound). 1 gone, 0 not (the decision's line in why), -1 (why).
 */
static int measured_gone(const struct serve_conf *c, const struct tree_conf *t, const struct node *report,
			 const char *head, struct strbuf *why)
{
	struct triage_pair q = { .t = t,
				 .job = node_str(node_get(report, "job")),
				 .good = node_str(node_get(report, "parent")),
				 .bad = head,
				 .metric = node_str(node_get(report, "metric")) };
	struct bisect_result r;
	int ret = -1;

	if (!q.job)
		return 0;
	serve_say("report %s: not sure on the stored runs whether its change is gone at %.12s (%s): more rounds",
		  node_str(node_get(report, "id")), head, why->buf);
	strbuf_reset(why);
	if (!triage_pair_run(c, &q, &r, why)) {
		if (r.status == BISECTION_FAILED) {
			strbuf_setf(why, "%s", r.why ? r.why : "");
		} else {
			ret = r.confirm.verdict == DECIDE_SAME;
			strbuf_setf(why, "%s", r.confirm.why);
		}
	}
	bisect_result_release(&r);
	if (ret < 0)
		serve_say("report %s: its follow-up at %.12s could not be measured: %s",
			  node_str(node_get(report, "id")), head, why->buf);
	return ret;
}

/* A commit of the range base..head whose message says it reverts culprit (into id); 1 found, 0 none. */
static int reverted_in(struct gitrepo *r, const char *base, const char *head, const char *culprit, char id[41])
{
	struct gitrepo_range g = { 0 };
	struct strbuf e = STRBUF_INIT;
	char *says = xasprintf("This reverts commit %s", culprit);
	int found = 0;

	if (base && *base && !gitrepo_range(r, base, head, false, &g, &e))
		for (size_t i = 0; i < g.n && !found; i++) {
			struct gitrepo_commit gc;
			if (gitrepo_commit_info(r, g.id[i], &gc, &e))
				continue;
			if (gc.message && strstr(gc.message, says)) {
				snprintf(id, 41, "%s", gc.id);
				found = 1;
			}
			gitrepo_commit_release(&gc);
		}
	gitrepo_range_release(&g);
	strbuf_release(&e);
	free(says);
	return found;
}

/* The report marked fixed at commit and its reply queued in its thread, once. 0, or -1 with err set. */
static int fixed_at(const struct serve_conf *c, const struct mailconf *mc, struct store *s, const struct node *report,
		    struct gitrepo *r, const char *commit, const char *how, struct strbuf *err)
{
	struct gitrepo_commit gc;
	struct strbuf e = STRBUF_INIT, mid = STRBUF_INIT, why = STRBUF_INIT, body = STRBUF_INIT;
	const char *rmid = node_str(node_get(report, "message_id"));
	bool have = !gitrepo_commit_info(r, commit, &gc, &e);
	double ch = strtod(node_str(node_get(report, "change")) ? node_str(node_get(report, "change")) : "nan", NULL);

	strbuf_addf(&why, "fixed at %.12s (\"%s\")", commit, have ? gc.subject : "");
	strbuf_addf(&body, "%s\n\n%s", why.buf, how);
	if (isfinite(ch))
		strbuf_addf(&body, "\nThe report gave %s %+.1f%%.", node_str(node_get(report, "metric")), ch);
	strbuf_addstr(&body, "\nThe report is marked fixed; '#lkprobot ack' in a reply opens it again.");
	char *seed = xasprintf("fixed %s", rmid);
	struct triage_answer a = { .report = report,
				   .body = body.buf,
				   .seed = seed,
				   .id_time = (time_t)strtoll(node_str(node_get(report, "created")), NULL, 10) };
	struct store_triage t = { .report = strtoll(node_str(node_get(report, "id")), NULL, 10),
				  .state = "fixed",
				  .who = "lkprobot",
				  .why = why.buf,
				  .source = "follow-up",
				  .fixed_at = commit };
	int ret =
		triage_answer(c, mc, s, &a, &mid, err) || store_report_triage(s, &t, (int64_t)time(NULL), err) ? -1 : 0;
	if (!ret)
		serve_say("report %s: %s: replied %s", node_str(node_get(report, "id")), why.buf, mid.buf);
	if (have)
		gitrepo_commit_release(&gc);
	free(seed);
	strbuf_release(&e);
	strbuf_release(&mid);
	strbuf_release(&why);
	strbuf_release(&body);
	return ret;
}

/* Was the report made by a bisection that ended at head (the head just tested found it: nothing to follow up)? */
static bool made_at(struct store *s, const struct node *report, const char *head)
{
	const char *id = node_str(node_get(report, "bisection"));
	struct store_bisection b = { 0 };
	struct strbuf e = STRBUF_INIT;
	bool yes = id && !store_bisection_get(s, strtoll(id, NULL, 10), &b, &e) && b.bad && !strcmp(b.bad, head);

	store_bisection_release(&b);
	strbuf_release(&e);
	return yes;
}

/* One open report at head: gone or reverted, followed up. 0, or -1 with err set (the store). */
static int follow_one(const struct serve_conf *c, const struct tree_conf *t, const struct mailconf *mc, struct store *s,
		      struct gitrepo *r, const struct node *report, const char *head, const char *base,
		      struct strbuf *err)
{
	const char *culprit = node_str(node_get(report, "culprit"));
	struct strbuf e = STRBUF_INIT, how = STRBUF_INIT;
	char rev[41];
	int ret = 0, gone;

	if (!culprit || !strcmp(culprit, head) || made_at(s, report, head) ||
	    gitrepo_is_ancestor(r, culprit, head, &e) != 1)
		goto out;
	if (reverted_in(r, base, head, culprit, rev)) {
		strbuf_addf(&how, "%.12s reverts the culprit %.12s.", rev, culprit);
		ret = fixed_at(c, mc, s, report, r, rev, how.buf, err);
	} else if ((gone = change_gone(c, report, head, &e)) == 1 ||
		   (gone == 2 && measured_gone(c, t, report, head, &e) == 1)) {
		strbuf_addf(&how, "%s at %.12s against the culprit's parent %.12s: %s",
			    node_str(node_get(report, "metric")), head, node_str(node_get(report, "parent")), e.buf);
		ret = fixed_at(c, mc, s, report, r, head, how.buf, err);
	}
out:
	strbuf_release(&e);
	strbuf_release(&how);
	return ret;
}

int triage_followup(const struct serve_conf *c, const char *config, struct store *s, const char *tree,
		    const char *branch, const char *head, const char *base, struct strbuf *err)
{
	const struct tree_conf *t = serve_tree_named(c, tree ? tree : "");
	struct node *open = NULL;
	struct gitrepo *r = NULL;
	struct mailconf mc;
	struct strbuf e = STRBUF_INIT;
	int ret = 0;

	if (!t || !branch || !head || store_reports_open(s, tree, branch, &open, err))
		return t && branch && head ? -1 : 0;
	if (open->n && !gitrepo_open(&r, t->path, &e) && !mailconf_load(&mc, config, &e)) {
		for (size_t i = 0; i < open->n && !ret; i++)
			ret = follow_one(c, t, &mc, s, r, open->vals[i], head, base, err);
		mailconf_release(&mc);
	} else if (open->n) {
		serve_say("%s %s: the reports' follow-up waits: %s", tree, branch, e.buf);
	}
	if (r)
		gitrepo_close(r);
	node_free(open);
	strbuf_release(&e);
	return ret;
}

/*
 * triage_run: the #lkprobot commands that measure — recheck (the culprit
 * and its parent run again in rounds of their own, and rebuilt with
 * aligned functions for kernels) and test (a patch, or a branch's changes,
 * applied on the culprit in the robot's own repository and run against
 * it) — each in a check worker of the service, its measuring in a child
 * of its own through flow_pair, as a head's bisections run. See triage.h.
 */
#include "triage.h"
#include "bisect.h"
#include "serve_int.h"
#include "../lib/kernel/git.h"
#include "../mail/mailconf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *col(const struct node *row, const char *key)
{
	const char *v = node_str(node_get(row, key));
	return v ? v : "";
}

int triage_is_check(const struct node *cmd)
{
	const char *v = col(cmd, "command");

	return (!strcmp(v, "test") || !strcmp(v, "recheck")) && strtoll(col(cmd, "report"), NULL, 10) > 0;
}

/* ---- two commits compared in a child ---- */

static enum flow_status pair_fn(struct bisect_request *req, void *arg, struct bisect_result *res, struct strbuf *err)
{
	const struct triage_pair *q = arg;

	if (q->repo)
		req->tree = q->repo;
	req->good = q->good;
	req->bad = q->bad;
	req->metric = q->metric;
	req->layout_align = q->align;
	return flow_pair(req, q->fresh, res, err);
}

int triage_pair_run(const struct serve_conf *c, const struct triage_pair *q, struct bisect_result *res,
		    struct strbuf *why)
{
	return serve_measure(c, q->t, q->job, pair_fn, (void *)q, "the comparison", res, why);
}

/* ---- recheck ---- */

void triage_recheck_pair(const struct node *report, const struct tree_conf *t, struct triage_pair *q)
{
	int n = t->layout_check ? atoi(t->layout_check) : 0;

	*q = (struct triage_pair){ .t = t,
				   .job = col(report, "job"),
				   .good = col(report, "parent"),
				   .bad = col(report, "culprit"),
				   .metric = col(report, "metric"),
				   .fresh = true,
				   .align = n > 0 ? n : BISECT_LAYOUT_ALIGN };
}

/* The report's change when culprit and parent ran again: "still exists", "is gone", ...; NULL: not sure. */
static const char *fate(const struct bisect_result *r, double reported)
{
	if (r->again.status == CHECK_REFUTES)
		return "is gone";
	if (r->again.status == CHECK_CONFIRMS && isfinite(reported) && r->confirm.change * reported > 0)
		return "still exists";
	return r->again.status == CHECK_CONFIRMS ? "turned the other way" : NULL;
}

static void recheck_text(const struct node *report, const struct bisect_result *r, struct strbuf *out)
{
	const char *kind = *col(report, "kind") ? col(report, "kind") : "change";
	double reported = strtod(*col(report, "change") ? col(report, "change") : "nan", NULL);
	const char *what = fate(r, reported);

	strbuf_addf(out,
		    "lkprobot ran the culprit %.12s and its parent %.12s again, with the report's job, in "
		    "%zu interleaved rounds of their own, decided as the bisection decided:\n\n%s\n",
		    r->culprit, r->parent, r->confirm.pairs, r->again.why ? r->again.why : "");
	if (what && r->again.table)
		strbuf_addf(out, "\nWe ran both commits again, and the\n%s %s:\n\n%s", kind, what, r->again.table);
	else if (!what)
		strbuf_addf(out, "\nNot sure whether the %s still exists: more rounds did not tell.\n", kind);
	if (r->layout.why)
		strbuf_addf(out, "\nThe layout check: %s.\n", r->layout.why);
	if (r->layout.table)
		strbuf_addf(out, "\n%s", r->layout.table);
}

static void run_recheck(const struct serve_conf *c, const struct node *report, const struct tree_conf *t,
			struct strbuf *out)
{
	struct triage_pair q;
	struct bisect_result r;
	struct strbuf why = STRBUF_INIT;

	triage_recheck_pair(report, t, &q);
	serve_say("report %s: rechecking %.12s against %.12s", col(report, "id"), q.bad, q.good);
	if (triage_pair_run(c, &q, &r, &why))
		strbuf_addf(out, "The recheck could not be made: %s.", why.buf);
	else if (r.status == BISECTION_FAILED)
		strbuf_addf(out, "The recheck could not be made: %s.", r.why ? r.why : "");
	else
		recheck_text(report, &r, out);
	bisect_result_release(&r);
	strbuf_release(&why);
}

/* ---- test ---- */

/* Is text a patch (git's diff) rather than "<git-url> <branch-or-commit>"? */
static int is_patch(const char *text)
{
	return !strncmp(text, "diff --git ", 11) || strstr(text, "\ndiff --git ") || !strncmp(text, "--- ", 4);
}

#define TRIAGE_FETCH_TIMEOUT 600 /* s a test's fetch may take: a server that never answers ends it */

/* url's refs by spec into the bare repository repo, bounded by TRIAGE_FETCH_TIMEOUT. 0, or -1 with why. */
static int fetch_bounded(const char *repo, const char *url, const char *spec, struct strbuf *why)
{
	return gitrepo_fetch_within(repo, url, spec, 0, TRIAGE_FETCH_TIMEOUT, why);
}

/*
 * What "<git-url> <branch-or-commit>" brings, fetched into r, as a diff on
 * culprit (what into what). 0, 1 it cannot be had (why), -1 (why).
 */
static int fetched_diff(struct gitrepo *r, const char *args, long long id, const char *culprit, struct strbuf *diff,
			struct strbuf *what, struct strbuf *why)
{
	char url[1024], ref[256], tip[GITREPO_HEXSZ + 1], extra;
	struct strbuf e = STRBUF_INIT;
	int ret = 1;

	if (sscanf(args, "%1023s %255s %c", url, ref, &extra) != 2) {
		strbuf_setf(why, "give a patch, or '#lkprobot test <git-url> <branch-or-commit>'");
		return 1;
	}
	/* a reply names a server, never a path of the robot's machine (whose objects series_repo would serve) */
	if (strncmp(url, "git://", 6) && strncmp(url, "http://", 7) && strncmp(url, "https://", 8) &&
	    strncmp(url, "ssh://", 6)) {
		strbuf_setf(why, "%s is no git server's address (git://, http://, https://, ssh://)", url);
		return 1;
	}
	char *spec = xasprintf("+refs/heads/*:refs/lkprobot/fetched/%lld/*", id);
	char *local = xasprintf("refs/lkprobot/fetched/%lld/%s", id, ref);
	if (fetch_bounded(gitrepo_path(r), url, spec, &e))
		strbuf_setf(why, "%s cannot be fetched: %s", url, e.buf);
	else if (gitrepo_resolve(r, local, tip, &e) && gitrepo_resolve(r, ref, tip, &e))
		strbuf_setf(why, "%s has no branch or commit %s", url, ref);
	else if ((ret = gitrepo_diff_since(r, culprit, tip, diff, why)) == 0 && !diff->len) {
		strbuf_setf(why, "%s %s (%.12s) brings nothing on %.12s", url, ref, tip, culprit);
		ret = 1;
	}
	if (!ret)
		strbuf_addf(what, "%s %s (%.12s: what it brings since its merge base with the culprit)", url, ref, tip);
	free(spec);
	free(local);
	strbuf_release(&e);
	return ret;
}

/*
 * The commit a test asks for, made in series_repo: the culprit fetched
 * there from its tree, the command's patch (or what its branch brings)
 * applied on it, by the command's sender, at the command's time (the same
 * command makes the same commit again). 0 with id and what it is; 1 it
 * cannot be made (why: it does not apply, no such branch, ...); -1 (why).
 */
static int patched_commit(const struct serve_conf *c, const struct tree_conf *t, const struct node *report,
			  const struct node *cmd, char id[GITREPO_HEXSZ + 1], struct strbuf *what, struct strbuf *why)
{
	struct gitrepo *r = NULL;
	struct strbuf diff = STRBUF_INIT, e = STRBUF_INIT;
	const char *args = col(cmd, "args"), *culprit = col(report, "culprit"), *sender = col(cmd, "sender");
	long long cid = strtoll(col(cmd, "id"), NULL, 10);
	int ret = -1;

	if (gitrepo_open_bare(&r, c->series_repo, why))
		return -1;
	char *spec = xasprintf("+refs/heads/*:refs/lkprobot/trees/%s/*", t->name);
	if (strcmp(t->path, c->series_repo) && fetch_bounded(c->series_repo, t->path, spec, &e)) {
		strbuf_setf(why, "the tree %s cannot be fetched into %s: %s", t->name, c->series_repo, e.buf);
		goto out;
	}
	if (is_patch(args)) {
		strbuf_addstr(&diff, args);
		strbuf_addf(what, "the patch of %s", sender);
	} else if ((ret = fetched_diff(r, args, cid, culprit, &diff, what, why))) {
		goto out;
	}
	struct gitrepo_author a = { sender, sender, strtoll(col(cmd, "created"), NULL, 10), 0 };
	char *msg = xasprintf("lkprobot: test of report %s\n\n%s, on %.12s, as %s asked in %s.\n", col(report, "id"),
			      what->buf, culprit, sender, col(cmd, "mail"));
	ret = gitrepo_apply(r, culprit, diff.buf, diff.len, &a, msg, id, &e);
	free(msg);
	if (ret > 0) {
		strbuf_setf(why, "%s%s: %s", what->buf, ret == 1 ? "" : " was refused", e.buf);
		ret = 1;
	} else if (ret < 0) {
		strbuf_setf(why, "%s", e.buf);
	}
	strbuf_reset(&e);
	char *ref = xasprintf("refs/lkprobot/tested/%lld", cid);
	if (!ret && gitrepo_set_ref(r, ref, id, &e))
		serve_say("%s: %s", c->series_repo, e.buf); /* the commit is made: only kept unnamed */
	free(ref);
out:
	free(spec);
	gitrepo_close(r);
	strbuf_release(&diff);
	strbuf_release(&e);
	return ret;
}

/*
 * Is the report's change gone in the patched commit: the patched commit
 * against the culprit changed the other way, by what takes the culprit
 * back to its parent's level (1 / (1 + reported) - 1) — within the
 * decision's interval, or more? The level needed into need (percent).
 */
static int undone(const struct bisect_result *r, double reported, double *need)
{
	const struct decision *d = &r->confirm;

	*need = isfinite(reported) && reported > -100 ? (100 / (1 + reported / 100) - 100) : NAN;
	if (d->verdict != DECIDE_CHANGED || !isfinite(*need) || !isfinite(d->change) || d->change * reported >= 0)
		return 0;
	return (d->lo <= *need && *need <= d->hi) || fabs(d->change) >= fabs(*need);
}

static void test_text(const struct mailconf *mc, const struct node *report, const char *what,
		      const struct bisect_result *r, struct strbuf *out)
{
	const char *kind = *col(report, "kind") ? col(report, "kind") : "change";
	double reported = strtod(*col(report, "change") ? col(report, "change") : "nan", NULL), need;
	int gone = undone(r, reported, &need);

	strbuf_addf(out,
		    "lkprobot applied %s on the culprit %.12s, as %.12s, and ran both with the report's job, in "
		    "%zu interleaved rounds, decided as the bisection decided:\n\n%s\n\n",
		    what, r->parent, r->culprit, r->confirm.pairs, r->again.why ? r->again.why : "");
	if (isfinite(need))
		strbuf_addf(out, "The report gave %s %+.1f%%; undoing it takes %+.1f%% against the culprit: ",
			    col(report, "metric"), reported, need);
	if (gone)
		strbuf_addf(out, "the %s is gone.\n", kind);
	else if (r->confirm.verdict == DECIDE_UNSURE)
		strbuf_addf(out, "not sure whether the %s is gone: more rounds did not tell.\n", kind);
	else
		strbuf_addf(out, "the %s is not gone.\n", kind);
	if (r->again.table)
		strbuf_addf(out, "\n%s", r->again.table);
	if (gone)
		strbuf_addf(out, "\nTested-by: %s\n", mc->from);
}

static void run_test(const struct serve_conf *c, const struct mailconf *mc, const struct node *report,
		     const struct tree_conf *t, const struct node *cmd, struct strbuf *out)
{
	struct strbuf what = STRBUF_INIT, why = STRBUF_INIT;
	struct bisect_result r = { 0 };
	char id[GITREPO_HEXSZ + 1];
	int rc = patched_commit(c, t, report, cmd, id, &what, &why);

	if (rc) {
		strbuf_addf(out, "Nothing was tested: %s.", why.buf);
		goto out;
	}
	struct triage_pair q = { .t = t,
				 .repo = c->series_repo,
				 .job = col(report, "job"),
				 .good = col(report, "culprit"),
				 .bad = id,
				 .metric = col(report, "metric") };
	serve_say("report %s: testing %.12s (%s) against %.12s", col(report, "id"), id, what.buf, q.good);
	if (triage_pair_run(c, &q, &r, &why))
		strbuf_addf(out, "The test could not be made: %s.", why.buf);
	else if (r.status == BISECTION_FAILED && r.untestable == BISECTION_END_BAD)
		strbuf_addf(out, "%s applied on %.12s, as %.12s, cannot be tested: %s.", what.buf, q.good, id,
			    r.why ? r.why : "");
	else if (r.status == BISECTION_FAILED)
		strbuf_addf(out, "The test could not be made: %s.", r.why ? r.why : "");
	else
		test_text(mc, report, what.buf, &r, out);
out:
	bisect_result_release(&r);
	strbuf_release(&what);
	strbuf_release(&why);
}

void triage_run_check(const struct serve_conf *c, const struct mailconf *mc, const struct node *report,
		      const struct node *cmd, struct strbuf *out)
{
	const struct tree_conf *t = serve_tree_named(c, col(report, "tree"));

	if (!t)
		strbuf_addf(out, "The report's tree %s is not in the robot's configuration any more; nothing was run.",
			    col(report, "tree"));
	else if (!*col(report, "metric") || !*col(report, "parent") || !*col(report, "job"))
		strbuf_addf(out, "The report does not say its metric, job and culprit's parent; nothing was run.");
	else if (!strcmp(col(cmd, "command"), "recheck"))
		run_recheck(c, report, t, out);
	else
		run_test(c, mc, report, t, cmd, out);
}

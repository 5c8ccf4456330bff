/*
 * serve_loop: the service's loop. Each pass polls the trees (a new head
 * recorded with its base), tests the heads to do — each in a worker, a
 * fork of the service, whose bisect children measure it against its base
 * and whose report children mail a culprit — and delivers the outbox.
 * Each step is a child process of this same binary with an argv (never a
 * shell); all state is in the store and the result roots. See serve.h.
 */
#include "cmd.h"
#include "serve.h"
#include "../lib/results/compare.h"
#include "../lib/sys/proc.h"
#include "../lib/kernel/git.h"
#include "../lib/util/json.h"
#include "../lib/store/store.h"
#include "../mail/mailconf.h"
#include "../mail/outbox.h"
#include "../web/web.h"

#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * A child of the service (bisect, report, stats): in a process group of
 * its own, which a stop of the service ends (SIGTERM, then SIGKILL after
 * a grace), and killed when the service dies, so that a restarted service
 * never finds an orphan working in the checkout it is about to use. Its
 * stdout captured; stderr as ours (the service's log).
 */
static int serve_child(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = out, .pgroup = true,
			  .death_sig = SIGKILL, .stop = &proc_stop_signal, .grace = 30 };
	int rc = proc_run(&p, err);

	proc_kill_group(&p, 5);
	return rc;
}

void serve_say(const char *fmt, ...)
{
	va_list ap;
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s lkprobot serve: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Look at every branch: record its head when it is new, with its base. */
static int poll_trees(const struct serve_conf *c, struct store *s, struct strbuf *err)
{
	for (size_t i = 0; i < c->ntrees; i++) {
		const struct tree_conf *t = &c->trees[i];
		struct gitrepo *repo;
		if (t->url && gitrepo_mirror(t->url, t->path, err)) {
			serve_say("%s: %s (skipped this time)", t->name, err->buf);
			strbuf_reset(err);
			continue;
		}
		if (gitrepo_open(&repo, t->path, err)) {
			serve_say("%s: %s (skipped this time)", t->name, err->buf);
			strbuf_reset(err);
			continue;
		}
		for (size_t b = 0; b < t->nbranches; b++) {
			struct gitrepo_commit hc;
			char base[GITREPO_HEXSZ + 1] = "";
			if (gitrepo_commit_info(repo, t->branches[b], &hc, err)) {
				serve_say("%s %s: %s (skipped this time)", t->name, t->branches[b], err->buf);
				strbuf_reset(err);
				continue;
			}
			if (!strcmp(t->base, "parent") || !strcmp(t->base, "last-tested")) {
				if (hc.nparents)
					snprintf(base, sizeof(base), "%s", hc.parents[0]);
			} else if (gitrepo_resolve(repo, t->base, base, err)) {
				serve_say("%s: base %s: %s", t->name, t->base, err->buf);
				strbuf_reset(err);
			}
			/*
			 * the last head of this branch tested and measured, if it is an
			 * ancestor (no force-push); chosen again when the head is tested
			 */
			if (!strcmp(t->base, "last-tested")) {
				struct strbuf last = STRBUF_INIT;
				if (store_head_last_measured(s, t->name, t->branches[b], INT64_MAX, &last, err) == 1 &&
				    strcmp(last.buf, hc.id) && gitrepo_is_ancestor(repo, last.buf, hc.id, err) == 1)
					snprintf(base, sizeof(base), "%s", last.buf);
				strbuf_release(&last);
				strbuf_reset(err);
			}
			if (*base && strcmp(base, hc.id)) {
				int64_t id = store_head_add(s, t->name, t->branches[b], hc.id, base, (int64_t)time(NULL), err);
				if (id < 0) {
					gitrepo_commit_release(&hc);
					gitrepo_close(repo);
					return -1;
				}
				if (id)
					serve_say("%s %s: new head %.12s (\"%s\"), base %.12s", t->name, t->branches[b], hc.id, hc.subject,
						  base);
			}
			gitrepo_commit_release(&hc);
		}
		gitrepo_close(repo);
	}
	return 0;
}

static const struct tree_conf *tree_named(const struct serve_conf *c, const char *name)
{
	for (size_t i = 0; i < c->ntrees; i++)
		if (!strcmp(c->trees[i].name, name))
			return &c->trees[i];
	return NULL;
}


/* A child's complaint in one line: the last line of its stderr, without "lkprobot: ". */
static void child_reason(const struct strbuf *e, struct strbuf *out)
{
	const char *p = e->buf, *end = e->buf + e->len;

	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	const char *line = end;
	while (line > p && line[-1] != '\n')
		line--;
	if ((size_t)(end - line) > 10 && !strncmp(line, "lkprobot: ", 10))
		line += 10;
	strbuf_reset(out);
	strbuf_add(out, line, (size_t)(end - line));
	if (!out->len)
		strbuf_addstr(out, "it said nothing");
}

/* A head under test: what its steps share. */
struct head_test {
	const struct serve_conf *c;
	const struct tree_conf *t;
	const char *config, *exe, *tree, *branch, *head, *base, *first;
};

/* A job's bisection as its JSON says (js NULL: it said nothing usable). */
struct bisect_outcome {
	struct node *js;
	const char *st, *culprit, *parent, *metric, *untestable;
	struct strbuf why;		/* its why, else the child's last complaint and exit */
};

/* The bisect child's argv for job: the provider's settings as its flags (its table), then the rest. */
static char **bisect_argv(const struct head_test *ht, const char *job, char **pargs, size_t npargs)
{
	const struct serve_conf *c = ht->c;
	const struct tree_conf *t = ht->t;
	char **args = xcalloc(32 + npargs + 2 * c->nfloors, sizeof(*args));
	size_t na = 0;

#define ARG(x) (args[na++] = (char *)(x))
	ARG(ht->exe), ARG("bisect"), ARG("--tree"), ARG(t->path), ARG("--good"), ARG(ht->base), ARG("--bad"), ARG(ht->head);
	ARG("--provider"), ARG(t->provider), ARG("-o"), ARG(c->result_root), ARG("--db"), ARG(c->db);
	if (c->cache)
		ARG("--cache"), ARG(c->cache);
	if (t->kconfig)
		ARG("--kconfig"), ARG(t->kconfig);
	for (size_t k = 0; k < npargs; k++)
		ARG(pargs[k]);
	for (size_t k = 0; k < c->nfloors; k++)
		ARG("--floor"), ARG(c->floors[k]);
	ARG("--json"), ARG(job);
#undef ARG
	return args;
}

/* Bisect job between the head's base and the head, in a child; its outcome in *o (bisect_outcome_release). */
static void run_bisect(const struct head_test *ht, const char *job, struct bisect_outcome *o)
{
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT, pe = STRBUF_INIT;
	char **pargs = NULL;
	size_t npargs = 0;

	provider_options_argv(ht->t->opts, &pargs, &npargs);
	char **args = bisect_argv(ht, job, pargs, npargs);
	serve_say("%s %.12s..%.12s: %s", ht->tree, ht->base, ht->head, job);
	int rc = serve_child(args, &out, &e);
	struct node *js = (rc == 0 || rc == 1) && out.len ? json_parse(out.buf, out.len, "bisect", &pe) : NULL;

	*o = (struct bisect_outcome){ .js = js, .why = STRBUF_INIT };
	o->st = js ? node_str(node_get(js, "status")) : NULL;
	o->culprit = js ? node_str(node_get(js, "culprit")) : NULL;
	o->parent = js ? node_str(node_get(js, "parent")) : NULL;
	o->metric = js ? node_str(node_get(js, "metric")) : NULL;
	o->untestable = js ? node_str(node_get(js, "untestable")) : NULL;
	if (js && node_str(node_get(js, "why"))) {
		strbuf_addstr(&o->why, node_str(node_get(js, "why")));
	} else {
		child_reason(&e, &o->why);
		strbuf_addf(&o->why, " (exit %d)", rc);
	}
	free(args);
	for (size_t k = 0; k < npargs; k++)
		free(pargs[k]);
	free(pargs);
	strbuf_release(&out);
	strbuf_release(&e);
	strbuf_release(&pe);
}

static void bisect_outcome_release(struct bisect_outcome *o)
{
	node_free(o->js);
	strbuf_release(&o->why);
}

/*
 * The mail's note for an ambiguous culprit: the set, so that the reader
 * decides between the commits that could not be tested.
 */
static void ambiguous_note(const struct bisect_outcome *o, struct strbuf *note)
{
	const struct node *cand = node_get(o->js, "candidates"), *skip = node_get(o->js, "skipped");

	strbuf_addstr(note, "Commits that cannot be tested keep lkprobot from naming one first bad commit; it is one of:");
	for (size_t k = 0; cand && cand->type == NODE_SEQ && k < cand->n; k++) {
		const char *x = node_str(cand->vals[k]);
		bool skipped = false;
		for (size_t q = 0; x && skip && skip->type == NODE_SEQ && q < skip->n; q++)
			skipped |= node_str(skip->vals[q]) && !strcmp(node_str(skip->vals[q]), x);
		strbuf_addf(note, "%s %.12s%s", k ? "," : "", x ? x : "?", skipped ? " (cannot be tested)" : "");
	}
	strbuf_addf(note, ". The one that can be tested, %.12s, is reported here, compared with %.12s, the nearest "
			  "commit found good.", o->culprit, o->parent);
}

/*
 * The report child's argv for a named culprit (url, the bisection's page,
 * and note: the caller's, may be NULL). The mail's url: line says where the
 * commit is, as 0-day's do: the tree's address and the branch when the tree
 * is fetched from one, else the bisection's page; Closes: is the page.
 */
static char **report_argv(const struct head_test *ht, const struct bisect_outcome *o, const char *url, const char *where,
			  const char *note)
{
	const struct serve_conf *c = ht->c;
	size_t nr = 0;
	char **r = xcalloc(40 + 2 * c->nfloors, sizeof(*r));
	const char *const fixed[] = { ht->exe, "report", "--send", "--config", ht->config, "--db", c->db,
				      "--result-root", c->result_root, "--tree", ht->t->path, "--base", o->parent,
				      "--commit", o->culprit, "--date", ht->first ? ht->first : "0" };

#define ARG2(flag, x) (r[nr++] = (char *)(flag), r[nr++] = (char *)(x))
	for (size_t k = 0; k < sizeof(fixed) / sizeof(*fixed); k++)
		r[nr++] = (char *)fixed[k];
	/* the bisection's page leads to the compare and the history: the fix's Closes: */
	if (where || url)
		ARG2("--url", where ? where : url);
	if (url)
		ARG2("--closes", url);
	if (ht->t->url)
		ARG2("--tree-url", ht->t->url);
	if (c->lkprobot_url)
		ARG2("--lkprobot-url", c->lkprobot_url);
	if (o->metric)
		ARG2("--metric", o->metric);
	for (size_t k = 0; k < c->nfloors; k++)
		ARG2("--floor", c->floors[k]);
	if (note)
		ARG2("--note", note);
#undef ARG2
	return r;
}

/*
 * The culprit's report sent by a report child (the same decision bisect
 * took says whether it is worth a mail); its outcome appended to the
 * job's JSON object in result. kind: regression, improvement or NULL.
 * Returns the report child's exit code.
 */
static int send_report(const struct head_test *ht, const struct bisect_outcome *o, const char *kind,
		       struct strbuf *result)
{
	struct strbuf rout = STRBUF_INIT, re = STRBUF_INIT, rwhy = STRBUF_INIT, note = STRBUF_INIT;
	double bid = 0;
	char *url = ht->c->public_url && json_number(node_get(o->js, "id"), &bid) && bid > 0
			    ? web_url_bisection(ht->c->public_url, (long long)bid) : NULL;

	if (!strcmp(o->st, "ambiguous"))
		ambiguous_note(o, &note);
	char *where = ht->t->url && ht->branch ? xasprintf("%s %s", ht->t->url, ht->branch) : NULL;
	char **r = report_argv(ht, o, url, where, note.len ? note.buf : NULL);
	int rr = serve_child(r, &rout, &re);
	strbuf_rtrim(&rout);
	if (rout.len)
		strbuf_addstr(&rwhy, rout.buf);
	else
		child_reason(&re, &rwhy);
	serve_say("%s %.12s: report: %s (exit %d)", ht->tree, o->culprit, rwhy.buf, rr);
	/* a mail the server refused for good is a failed delivery, not "nothing to report" */
	const char *refused = !strncmp(rout.buf, "failed ", 7) ? rout.buf : strstr(rout.buf, "\nfailed ");
	/* a regression or improvement only when it is reported: the same decision said so */
	if (kind && (rr == 0 || refused)) {
		strbuf_addstr(result, ", \"kind\": ");
		json_emit_string(result, kind);
	}
	strbuf_addstr(result, ", \"culprit\": ");
	json_emit_string(result, o->culprit);
	strbuf_addstr(result, ", \"report\": ");
	json_emit_string(result, refused ? "delivery failed" : rr == 0 ? "queued" : rr == 1 ? "not sent" : "error");
	if (refused) {
		const char *colon = strstr(refused, ": ");
		const char *text = colon ? colon + 2 : refused;
		char *line = xstrndup(text, strcspn(text, "\n"));
		strbuf_addstr(result, ", \"mail_error\": ");
		json_emit_string(result, line);
		free(line);
	} else if (rr) {
		strbuf_addstr(result, ", \"report_why\": ");
		json_emit_string(result, rwhy.buf);
	}
	free(url);
	free(where);
	free(r);
	strbuf_release(&rout);
	strbuf_release(&re);
	strbuf_release(&rwhy);
	strbuf_release(&note);
	return rr;
}

/*
 * One job of the head: bisected, and a named culprit reported; its JSON
 * object appended to result. Returns the head's status after it (status:
 * before it).
 */
static const char *test_job(const struct head_test *ht, const char *job, const char *status, bool comma,
			    struct strbuf *result)
{
	struct bisect_outcome o;

	run_bisect(ht, job, &o);
	strbuf_addf(result, "%s{\"job\": ", comma ? ", " : "");
	json_emit_string(result, job);
	strbuf_addstr(result, ", \"bisect\": ");
	json_emit_string(result, o.st ? o.st : "error");
	strbuf_addstr(result, ", \"why\": ");
	json_emit_string(result, o.why.buf);
	if (!o.st || !strcmp(o.st, "failed")) {
		/* a head that does not build is no base for the next: recorded as such, with its first error line */
		bool build = o.untestable && !strcmp(o.untestable, "bad");
		status = build && strcmp(status, "failed") ? "build_failed" : "failed";
		serve_say("%s %.12s: bisect failed: %s", ht->tree, ht->head, o.why.buf);
	} else {
		serve_say("%s %.12s: %s%s%.12s: %s", ht->tree, ht->head, o.st, o.culprit ? ", culprit " : "",
			  o.culprit ? o.culprit : "", o.why.buf);
	}
	/* which way the change went, by the metric's direction (higher or lower is better) */
	double change = 0;
	const char *kind = NULL;
	/* found, or of an ambiguous set the one commit that can be tested, confirmed (bisect names it) */
	bool named = o.st && (!strcmp(o.st, "found") || !strcmp(o.st, "ambiguous")) && o.culprit && o.parent;
	if (named && json_number(node_get(o.js, "change"), &change) && o.metric && compare_direction(o.metric))
		kind = change * compare_direction(o.metric) > 0 ? "improvement" : "regression";
	if (kind && !strcmp(kind, "improvement") && !ht->c->report_improvements) {
		serve_say("%s %.12s: an improvement of %s, recorded, not mailed (report_improvements: false)", ht->tree,
			  o.culprit, o.metric);
		strbuf_addstr(result, ", \"kind\": \"improvement\", \"culprit\": ");
		json_emit_string(result, o.culprit);
	} else if (named && send_report(ht, &o, kind, result) == 2) {
		status = "failed";
	}
	strbuf_addstr(result, "}");
	bisect_outcome_release(&o);
	return status;
}

/*
 * One head: each job bisected between base and head; a culprit's report
 * sent — unless the decision the report takes (the one bisect confirmed
 * the culprit with) says no, which is recorded with its reason. Returns
 * the head's status: done (measured), build_failed (the head does not
 * build: the reason is its first error line) or failed; result the JSON
 * list of its jobs' outcomes.
 */
static const char *test_head(const struct serve_conf *c, const char *config, const struct node *h, const char *base,
			     struct strbuf *result)
{
	const char *tree = node_str(node_get(h, "tree"));
	const struct tree_conf *t = tree_named(c, tree ? tree : "");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *status = "done";

	if (!t || n <= 0) {
		strbuf_setf(result, "{\"error\": \"the tree is not in the configuration any more\"}");
		return "failed";
	}
	exe[n] = '\0';
	struct head_test ht = { c, t, config, exe, tree, node_str(node_get(h, "branch")), node_str(node_get(h, "head")),
				base, node_str(node_get(h, "first_seen")) };
	strbuf_addstr(result, "[");
	for (size_t j = 0; j < t->njobs && !proc_stop_signal; j++)
		status = test_job(&ht, t->jobs[j], status, j > 0, result);
	strbuf_addstr(result, "]");
	return status;
}

/*
 * The base a head is tested against, chosen when it is tested: for base
 * last-tested, the branch's last head that was tested and measured before
 * it (not one that failed or did not build: a regression behind a broken
 * head is still found) when that is an ancestor, else the head's parent;
 * a configured revision stays. Appended to base; recorded in the store.
 */
static void head_base(const struct serve_conf *c, struct store *s, const struct node *h, int64_t id, struct strbuf *base)
{
	const char *tree = node_str(node_get(h, "tree")), *branch = node_str(node_get(h, "branch"));
	const char *head = node_str(node_get(h, "head")), *was = node_str(node_get(h, "base"));
	const struct tree_conf *t = tree_named(c, tree ? tree : "");
	struct strbuf err = STRBUF_INIT, last = STRBUF_INIT;
	struct gitrepo *repo = NULL;
	struct gitrepo_commit hc;

	strbuf_addstr(base, was ? was : "");
	if (!t || strcmp(t->base, "last-tested") || !head || gitrepo_open(&repo, t->path, &err))
		goto out;
	if (store_head_last_measured(s, tree, branch, id, &last, &err) == 1 && strcmp(last.buf, head) &&
	    gitrepo_is_ancestor(repo, last.buf, head, &err) == 1) {
		strbuf_reset(base);
		strbuf_add(base, last.buf, last.len);
	} else if (!gitrepo_commit_info(repo, head, &hc, &err)) {
		if (hc.nparents) {
			strbuf_reset(base);
			strbuf_addstr(base, hc.parents[0]);
		}
		gitrepo_commit_release(&hc);
	}
	if (base->len && (!was || strcmp(was, base->buf))) {
		serve_say("%s %.12s: base %.12s (the last head tested and measured, or the parent), not %.12s", tree, head,
			  base->buf, was ? was : "");
		strbuf_reset(&err);
		if (store_head_set_base(s, id, base->buf, (int64_t)time(NULL), &err))
			serve_say("%s", err.buf);
	}
out:
	gitrepo_close(repo);
	strbuf_release(&err);
	strbuf_release(&last);
}

/*
 * A run killed between writing its stats.json and recording it in the store
 * is complete on disk: record such runs (the service may have been killed
 * in that moment), as `lkprobot stats --reindex --missing` does.
 */
void serve_record_missing_runs(const struct serve_conf *c)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;

	if (n <= 0)
		return;
	exe[n] = '\0';
	char *args[] = { exe, "stats", "--reindex", c->result_root, "--missing", "--db", c->db, NULL };
	int rc = serve_child(args, &out, &e);
	strbuf_rtrim(&out);
	strbuf_rtrim(&e);
	if (rc || strncmp(out.buf, "0 result root", 13))
		serve_say("runs complete on disk but not in the store: %s%s%s", out.buf, e.len ? "; " : "", e.buf);
	strbuf_release(&out);
	strbuf_release(&e);
}

/*
 * A head under test: a worker, a fork of the service, runs test_head and
 * writes "<status>\n<result>" on its stdout; the service starts the next
 * heads meanwhile. Its bisections' children are its own: SIGTERM to the
 * worker stops them (a Slurm bisection cancels its jobs), as a stopped
 * service or a head cancelled from the dashboard asks.
 */
struct worker {
	struct proc p;
	struct strbuf out;
	int64_t id;
	const struct tree_conf *t;
	const char *branch;
	bool here;			/* its provider runs here, not on a farm */
	double term_at;			/* when it was asked to stop (0: not) */
	bool cancelled;
};

struct worker_arg {
	const struct serve_conf *c;
	const char *config, *base;
	const struct node *h;
};

static int worker_main(void *arg)
{
	const struct worker_arg *a = arg;
	struct strbuf result = STRBUF_INIT;
	const char *st = test_head(a->c, a->config, a->h, a->base, &result);

	printf("%s\n%s", st, result.buf);
	fflush(stdout);
	strbuf_release(&result);
	return 0;
}

#define WORKER_GRACE 60		/* s from SIGTERM to SIGKILL: longer than its bisect child's own grace */

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

/* The ids of the heads cancelled from the dashboard among those in ws. */
static void mark_cancelled(struct store *s, struct worker *ws, size_t n)
{
	struct node *heads = NULL;
	struct strbuf err = STRBUF_INIT;

	if (!store_heads(s, false, &heads, &err))
		for (size_t i = 0; i < heads->n; i++) {
			double id = 0;
			const char *st = node_str(node_get(heads->vals[i], "status"));
			json_number(node_get(heads->vals[i], "id"), &id);
			for (size_t k = 0; st && k < n; k++)
				if (ws[k].id == (int64_t)id && !strcmp(st, "cancelled") && !ws[k].cancelled) {
					ws[k].cancelled = true;
					serve_say("%s %.12s: cancelled from the dashboard: its bisection is stopped",
						  node_str(node_get(heads->vals[i], "tree")), node_str(node_get(heads->vals[i], "head")));
				}
		}
	node_free(heads);
	strbuf_release(&err);
}

/* A pass's heads to do and the workers testing them. */
struct pass {
	const struct serve_conf *c;
	const char *config;
	struct store *s;
	struct node *todo;		/* the heads to do, in the queue's order */
	bool *done;			/* ... started (or cancelled) */
	struct worker *ws;
	struct worker_arg *args;
	char **bases;
	size_t nw, running;
};

/* May head i start now: no earlier head of its branch to do, none running? */
static bool branch_free(const struct pass *p, size_t i, const struct tree_conf *t, const char *tree, const char *branch)
{
	for (size_t k = 0; k < i; k++) {
		const char *kt = node_str(node_get(p->todo->vals[k], "tree"));
		const char *kb = node_str(node_get(p->todo->vals[k], "branch"));
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

/* Head i under test: marked testing (unless cancelled), its base chosen, its worker started. 0, or -1. */
static int start_head(struct pass *p, size_t i, const struct tree_conf *t, bool here, struct strbuf *err)
{
	const struct node *h = p->todo->vals[i];
	double id = 0;

	json_number(node_get(h, "id"), &id);
	p->done[i] = true;
	int set = store_head_set(p->s, (int64_t)id, "testing", NULL, (int64_t)time(NULL), err);
	if (set < 0)
		return -1;
	if (set == 1) {
		serve_say("%s %.12s: cancelled from the dashboard", node_str(node_get(h, "tree")),
			  node_str(node_get(h, "head")));
		return 0;
	}
	struct strbuf base = STRBUF_INIT;
	head_base(p->c, p->s, h, (int64_t)id, &base);
	p->bases[p->nw] = strbuf_detach(&base);
	p->args[p->nw] = (struct worker_arg){ p->c, p->config, p->bases[p->nw], h };
	struct worker *w = &p->ws[p->nw++];
	w->id = (int64_t)id;
	w->t = t;
	w->branch = node_str(node_get(h, "branch"));
	w->here = here;
	/* a fork of the service: its handlers too (SIGTERM stops its bisection) */
	w->p = (struct proc){ .fn = worker_main, .arg = &p->args[p->nw - 1], .keep_signals = true, .in = PROC_NULL,
			      .out = PROC_CAPTURE, .capture = &w->out, .death_sig = SIGKILL };
	if (proc_start(&w->p, err))
		return -1;
	p->running++;
	return 0;
}

/* Start what may start, in the queue's order. 0, or -1 with err set. */
static int start_heads(struct pass *p, struct strbuf *err)
{
	bool here_busy = false;

	for (size_t k = 0; k < p->nw; k++)
		here_busy |= p->ws[k].here && p->ws[k].p.pid && !p->ws[k].p.ended;
	for (size_t i = 0; i < p->todo->n && !proc_stop_signal && p->running < (size_t)p->c->max_bisections; i++) {
		const struct node *h = p->todo->vals[i];
		const char *tree = node_str(node_get(h, "tree")), *branch = node_str(node_get(h, "branch"));
		const struct tree_conf *t = tree_named(p->c, tree ? tree : "");
		bool here = !t || !(t->ops->caps & PROVIDER_PARALLEL);
		if (p->done[i] || (here && here_busy) || !branch_free(p, i, t, tree, branch))
			continue;	/* done, this machine busy, or an earlier head of the branch first */
		size_t was = p->running;
		if (start_head(p, i, t, here, err))
			return -1;
		here_busy |= here && p->running > was;
	}
	return 0;
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
		const char *nl = strchr(w->out.buf, '\n');
		if (proc_stop_signal && !w->cancelled)
			continue;	/* interrupted: it stays to do, and the next service goes on from the runs made */
		char *st = nl ? xstrndup(w->out.buf, (size_t)(nl - w->out.buf)) : NULL;
		const char *result = nl ? nl + 1 : NULL;
		char *why = NULL;
		if (!st) {
			char buf[32];
			why = xasprintf("{\"error\": \"the head's worker ended (%s) without a result\"}",
					proc_status_text(rc, buf));
		}
		int set = store_head_set(p->s, w->id, st ? st : "failed", st ? result : why, (int64_t)time(NULL), err);
		free(st);
		free(why);
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
	node_free(p->todo);
}

/*
 * One pass: the trees polled, then every head to do tested — several at
 * once (up to max_bisections) when their providers run on a farm (they
 * share its boxes: each bisection asks for its fair share), at most one
 * at a time whose provider runs here, and the heads of one branch in
 * their order (a head's base is the last head tested before it). Then
 * the outbox delivered.
 */
int serve_one_pass(const struct serve_conf *c, const char *config, struct store *s, struct strbuf *err)
{
	struct pass p = { .c = c, .config = config, .s = s };
	struct mailconf mc;
	double looked = 0;
	int ret = 0;

	if (poll_trees(c, s, err) || store_heads(s, true, &p.todo, err))
		return -1;
	p.done = xcalloc(p.todo->n + 1, sizeof(bool));
	p.ws = xcalloc(p.todo->n + 1, sizeof(*p.ws));
	p.args = xcalloc(p.todo->n + 1, sizeof(*p.args));
	p.bases = xcalloc(p.todo->n + 1, sizeof(char *));
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

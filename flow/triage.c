/*
 * triage: the replies to the robot's reports taken (their commands recorded
 * once, or ignored and logged), acted on and answered once each through
 * the outbox, and the reports' states they set. See triage.h.
 */
#include "triage.h"
#include "report.h"
#include "serve_int.h"
#include "../lib/kernel/git.h"
#include "../lib/store/store.h"
#include "../lib/sys/proc.h"
#include "../mail/maildir.h"
#include "../mail/mailconf.h"
#include "../mail/mailrules.h"
#include "../mail/mime.h"
#include "../mail/outbox.h"
#include "../mail/replies.h"
#include "../mail/series.h"
#include "../web/web.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *str_or(const char *s, const char *def)
{
	return s ? s : def;
}

/* A map's value as a whole number (0: absent or not one). */
static long long num_of(const struct node *m, const char *key)
{
	const char *v = node_str(node_get(m, key));
	char *end;
	long long n = v ? strtoll(v, &end, 10) : 0;

	return v && *v && !*end ? n : 0;
}

const char *const triage_states[] = { "new", "acknowledged", "fixed", "invalid", "wont-fix", "duplicate", NULL };

int triage_state_ok(const char *state)
{
	for (const char *const *s = triage_states; state && *s; s++)
		if (!strcmp(*s, state))
			return 1;
	return 0;
}

/* May sender command report: on its To/Cc (rcpts), or one of serve.maintainers? */
static bool allowed(const struct serve_conf *c, const struct node *report, const char *sender)
{
	const char *rcpts = node_str(node_get(report, "rcpts"));
	struct strbuf e = STRBUF_INIT;
	bool yes = false;

	for (const char *p = rcpts; sender && p && *p && !yes;) {
		size_t n = strcspn(p, "\n");
		yes = n == strlen(sender) && !strncasecmp(p, sender, n);
		p += n + (p[n] == '\n');
	}
	for (size_t i = 0; sender && !yes && i < c->nmaintainers; i++) {
		char *spec = mime_addr_spec(c->maintainers[i], &e);
		yes = spec && !strcasecmp(spec, sender);
		free(spec);
	}
	strbuf_release(&e);
	return yes;
}

/* The report a reply answers: the first of its references that is one (0: none, -1 the store). */
static int64_t report_of(struct store *s, const struct reply_mail *r, struct node **row, struct strbuf *err)
{
	*row = NULL;
	for (size_t i = 0; i < r->nrefs; i++) {
		int64_t id = store_report_by_message(s, r->refs[i], err);
		if (id)
			return id < 0 || store_report_get(s, id, row, err) < 0 ? -1 : id;
	}
	return 0;
}

/* One command of r recorded: queued, or ignored with why (logged once, when first seen). */
static int take_one(struct store *s, const struct reply_mail *r, size_t k, int64_t report, const char *ignored,
		    const char *where, struct strbuf *err)
{
	const struct reply_command *rc = &r->cmds[k];
	const char *args = rc->verb ? rc->args : rc->problem;
	/* a test with its patch in the mail: the patch is its argument */
	if (rc->verb && !strcmp(rc->verb, "test") && !*rc->args && r->patch)
		args = r->patch;
	struct store_command sc = { .mail = r->message_id,
				    .n = (int)k + 1,
				    .report = report,
				    .sender = r->from_spec ? r->from_spec : r->from,
				    .command = rc->verb ? rc->verb : "unknown",
				    .args = args,
				    .status = ignored ? "ignored" : "queued" };
	int64_t id = store_command_add(s, &sc, (int64_t)time(NULL), err);

	if (id <= 0)
		return id < 0 ? -1 : 0; /* known already: taken the first time */
	if (ignored) {
		serve_say("%s: %s from %s: '%s' ignored: %s", where, r->message_id, sc.sender ? sc.sender : "nobody",
			  rc->line, ignored);
		return store_command_set(s, id, "ignored", NULL, ignored, (int64_t)time(NULL), err);
	}
	serve_say("%s: %s from %s: '%s' for report %lld: queued", where, r->message_id, sc.sender, rc->line,
		  (long long)report);
	return 0;
}

int triage_take(const struct serve_conf *c, struct store *s, const char *msg, size_t len, const char *where,
		struct strbuf *err)
{
	struct reply_mail r;
	struct node *row = NULL;
	int ret = 0;

	if (!replies_parse(msg, len, &r))
		return 0;
	if (!r.message_id) {
		serve_say("%s: a mail with #lkprobot commands but no Message-ID: ignored", where);
		goto out;
	}
	int64_t report = report_of(s, &r, &row, err);
	if (report < 0) {
		ret = -1;
		goto out;
	}
	char *why = NULL;
	if (!report)
		why = xstrdup("it replies to no report of the robot (In-Reply-To, References)");
	else if (!allowed(c, row, r.from_spec))
		why = xasprintf("%s is not on report %lld (its To and Cc) nor in serve.maintainers",
				r.from_spec ? r.from_spec : "its sender", (long long)report);
	for (size_t k = 0; k < r.ncmds && !ret; k++)
		ret = take_one(s, &r, k, report, why, where, err);
	free(why);
out:
	node_free(row);
	replies_release(&r);
	return ret;
}

struct poll_arg {
	const struct serve_conf *c;
	struct store *s;
	size_t n;
};

static int maildir_mail(const char *where, const char *msg, size_t len, void *arg, struct strbuf *err)
{
	struct poll_arg *pa = arg;
	char *w = xasprintf("%s/%s", pa->c->maildir, where);
	int rc = triage_take(pa->c, pa->s, msg, len, w, err);

	free(w);
	pa->n++;
	return rc;
}

int triage_poll_maildir(const struct serve_conf *c, struct store *s, struct strbuf *err)
{
	struct poll_arg pa = { c, s, 0 };
	size_t skipped = 0;

	if (!c->maildir)
		return 0;
	if (maildir_each(c->maildir, SERIES_MAX_MAIL, maildir_mail, &pa, &skipped, err) < 0) {
		if (store_failed_on_fault(s))
			return -1;
		serve_say("%s (read again at the next pass)", err->buf);
		strbuf_reset(err);
	}
	if (skipped)
		serve_say("%s: %zu mail%s not read (larger than %u bytes, or not a file)", c->maildir, skipped,
			  skipped == 1 ? "" : "s", SERIES_MAX_MAIL);
	return 0;
}

/* The addr-specs of a report's rcpts, NULL-terminated (free each and it). */
static char **rcpts_of(const struct node *report, size_t *n)
{
	const char *rcpts = node_str(node_get(report, "rcpts"));
	char **v = xcalloc(1, sizeof(*v));

	*n = 0;
	for (const char *p = rcpts; p && *p;) {
		size_t len = strcspn(p, "\n");
		bool seen = false;
		for (size_t i = 0; i < *n; i++)
			seen |= strlen(v[i]) == len && !strncasecmp(v[i], p, len);
		if (len && !seen) {
			v = xrealloc(v, (*n + 2) * sizeof(*v));
			v[(*n)++] = xstrndup(p, len);
			v[*n] = NULL;
		}
		p += len + (p[len] == '\n');
	}
	return v;
}

/* The body: the lines answered quoted, the text, the signature. */
static void answer_body(const struct triage_answer *a, struct strbuf *b)
{
	for (const char *p = a->quote; p && *p;) {
		size_t n = strcspn(p, "\n");
		strbuf_addf(b, "> %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	if (a->quote)
		strbuf_addch(b, '\n');
	size_t n = strlen(a->body);

	while (n && a->body[n - 1] == '\n')
		n--;
	strbuf_addf(b, "%.*s\n\nThanks,\nlkprobot\n", (int)n, a->body);
}

int triage_answer(const struct serve_conf *c, const struct mailconf *mc, struct store *s, const struct triage_answer *a,
		  struct strbuf *mid, struct strbuf *err)
{
	const char *rid = node_str(node_get(a->report, "message_id")), *subj = node_str(node_get(a->report, "subject"));
	size_t nr = 0;
	char **rc = a->to ? NULL : rcpts_of(a->report, &nr);
	const char *to1[] = { a->to };
	struct mail_case mcase = {
		.mc = mc, .to = a->to ? to1 : (const char *const *)rc, .nto = a->to ? 1 : nr, .from = mc->from
	};
	struct mail_plan plan;
	struct strbuf body = STRBUF_INIT, msg = STRBUF_INIT, signed_msg = STRBUF_INIT, refs = STRBUF_INIT;
	char *subject = xasprintf("Re: %s", subj ? subj : "lkprobot report");
	char *from_spec = NULL;
	int64_t qid;
	bool dup;
	int ret = -1;

	(void)c;
	mail_plan_init(&plan, NULL);
	strbuf_reset(mid);
	mime_message_id(mid, a->id_time, a->seed, mc->domain ? mc->domain : "lkprobot.invalid");
	strbuf_addf(&refs, "%s%s%s", rid ? rid : "", a->in_reply_to && rid ? " " : "",
		    a->in_reply_to ? a->in_reply_to : "");
	answer_body(a, &body);
	struct mime_message m = { .from = mc->from,
				  .subject = subject,
				  .date = time(NULL),
				  .message_id = mid->buf,
				  .in_reply_to = a->in_reply_to ? a->in_reply_to : rid,
				  .references = refs.len ? refs.buf : NULL,
				  .body = body.buf };
	if (mail_rules_apply(MAIL_ADDRESS, &mcase, &plan, err))
		goto out;
	m.to = plan.to, m.nto = plan.nto, m.cc = plan.cc, m.ncc = plan.ncc;
	if (plan.dry_run)
		m.extra_headers = (const char *const *)&plan.dry_run, m.nextra = 1;
	if (mime_render(&m, &msg, err) || flow_mail_sign(mc, m.date, &msg, &signed_msg, err) ||
	    !(from_spec = mime_addr_spec(mc->from, err)))
		goto out;
	ret = outbox_queue(s, mid->buf, from_spec, (const char *const *)plan.envelope, plan.nenvelope, signed_msg.buf,
			   signed_msg.len, &qid, &dup, err);
out:
	for (size_t i = 0; rc && rc[i]; i++)
		free(rc[i]);
	free(rc);
	free(subject);
	free(from_spec);
	mail_plan_release(&plan);
	strbuf_release(&body);
	strbuf_release(&msg);
	strbuf_release(&signed_msg);
	strbuf_release(&refs);
	return ret;
}

/* A command being acted on: what it needs, and its answer's text. */
struct act {
	const struct serve_conf *c;
	const struct mailconf *mc;
	struct store *s;
	const struct node *cmd, *report;
	int64_t id, rid;
	const char *sender, *verb, *args, *mail;
	struct strbuf text; /* the answer */
};

/* The report's state set by the command, with its history; the answer says it. */
static int set_state(struct act *a, const char *state, const char *why, const char *fixed_at, int64_t dup_of,
		     struct strbuf *err)
{
	const char *was = node_str(node_get(a->report, "state"));
	struct store_triage t = { .report = a->rid,
				  .state = state,
				  .who = a->sender,
				  .why = why && *why ? why : NULL,
				  .source = a->mail,
				  .fixed_at = fixed_at,
				  .dup_of = dup_of };

	if (was && !strcmp(was, state) && a->cmd && !strcmp(node_str(node_get(a->cmd, "status")), "acting"))
		return 0; /* done before a restart: not recorded twice */
	if (store_report_triage(a->s, &t, (int64_t)time(NULL), err))
		return -1;
	strbuf_addf(&a->text, "Report %lld is now %s (it was %s)%s%s.", (long long)a->rid, state, was ? was : "new",
		    why && *why ? ": " : "", why && *why ? why : "");
	return 0;
}

/* fixed-by <commit>: the commit as the report's tree has it, else as given when it looks like one. */
static int act_fixed_by(struct act *a, struct strbuf *err)
{
	const struct tree_conf *t = serve_tree_named(a->c, str_or(node_str(node_get(a->report, "tree")), ""));
	struct gitrepo *r = NULL;
	struct gitrepo_commit gc = { 0 };
	struct strbuf e = STRBUF_INIT, why = STRBUF_INIT;
	const char *w = a->args;
	size_t hex = strspn(w, "0123456789abcdefABCDEF");
	int ret = 0;

	if (t && !gitrepo_open(&r, t->path, &e) && !gitrepo_commit_info(r, w, &gc, &e)) {
		strbuf_addf(&why, "fixed by %.12s (\"%s\")", gc.id, gc.subject);
		ret = set_state(a, "fixed", why.buf, gc.id, 0, err);
	} else if (hex >= 7 && hex <= 40 && !w[hex]) {
		strbuf_addf(&why, "fixed by %s (not in %s yet)", w, t ? t->name : "the report's tree");
		ret = set_state(a, "fixed", why.buf, w, 0, err);
	} else {
		strbuf_addf(&a->text,
			    "'%s' is no commit of %s (%s); nothing was done: give its id, "
			    "#lkprobot fixed-by <commit>.",
			    w, t ? t->name : "the report's tree", e.buf);
	}
	if (gc.subject)
		gitrepo_commit_release(&gc);
	if (r)
		gitrepo_close(r);
	strbuf_release(&e);
	strbuf_release(&why);
	return ret;
}

/* dup <report>: its Message-ID or number. */
static int act_dup(struct act *a, struct strbuf *err)
{
	const char *w = a->args;
	int64_t other = 0;
	char *mid = *w == '<' ? xstrdup(w) : strchr(w, '@') ? xasprintf("<%s>", w) : NULL;
	struct node *row = NULL;
	long long n;

	if (mid)
		other = store_report_by_message(a->s, mid, err);
	else if (strspn(w, "0123456789") == strlen(w) && strlen(w) < 18 && (n = atoll(w)) > 0)
		other = store_report_get(a->s, n, &row, err) == 0 ? n : 0;
	free(mid);
	node_free(row);
	if (other < 0)
		return -1;
	if (!other || other == a->rid) {
		strbuf_addf(&a->text,
			    "'%s' names %s; nothing was done: give the Message-ID or number of the other "
			    "report, #lkprobot dup <report>.",
			    w, other ? "this report itself" : "no report of lkprobot");
		return 0;
	}
	char *why = xasprintf("a duplicate of report %lld", (long long)other);
	int ret = set_state(a, "duplicate", why, NULL, other, err);
	free(why);
	return ret;
}

/* What the command does, its answer's text in a->text. 0, or -1 with err set (the store). */
static int act_on(struct act *a, struct strbuf *err)
{
	const char *v = a->verb;

	if (!strcmp(v, "unknown")) {
		strbuf_addf(&a->text, "%s.", a->args);
		return 0;
	}
	if (!a->report) {
		strbuf_addf(&a->text, "The report this replies to is gone from the robot's store; nothing was done.");
		return 0;
	}
	if (!strcmp(v, "ack"))
		return set_state(a, "acknowledged", NULL, NULL, 0, err);
	if (!strcmp(v, "invalid") || !strcmp(v, "wont-fix"))
		return set_state(a, v, a->args, NULL, 0, err);
	if (!strcmp(v, "fixed-by"))
		return act_fixed_by(a, err);
	if (!strcmp(v, "dup"))
		return act_dup(a, err);
	triage_run_check(a->c, a->mc, a->report, a->cmd, &a->text);
	return 0;
}

/* The line answered, as its sender wrote it (a test's patch left out). */
static void quote_of(const struct act *a, struct strbuf *q)
{
	if (!strcmp(a->verb, "unknown"))
		return;
	strbuf_addf(q, "#lkprobot %s", a->verb);
	if (*a->args && strncmp(a->args, "diff --git ", 11))
		strbuf_addf(q, " %s", a->args);
}

/*
 * One command: acting, acted on (lost: its check's worker died, why),
 * answered, done. 0; 1 stopped while it was acted on (it stays acting, to
 * do again); -1 with err set.
 */
static int act_one(const struct serve_conf *c, const struct mailconf *mc, struct store *s, const struct node *cmd,
		   const char *lost, struct strbuf *err)
{
	struct act a = { .c = c, .mc = mc, .s = s, .cmd = cmd, .text = STRBUF_INIT };
	struct strbuf q = STRBUF_INIT, mid = STRBUF_INIT;
	struct node *row = NULL;
	int ret = -1;

	a.id = (int64_t)num_of(cmd, "id");
	a.rid = (int64_t)num_of(cmd, "report");
	a.sender = node_str(node_get(cmd, "sender"));
	a.verb = node_str(node_get(cmd, "command"));
	a.args = str_or(node_str(node_get(cmd, "args")), "");
	a.mail = node_str(node_get(cmd, "mail"));
	if (store_command_set(s, a.id, "acting", NULL, NULL, (int64_t)time(NULL), err) ||
	    (a.rid && store_report_get(s, a.rid, &row, err) < 0))
		goto out;
	a.report = row;
	if (lost)
		strbuf_addf(&a.text, "The %s could not be made: %s. Send the command again to try once more.", a.verb,
			    lost);
	else if (act_on(&a, err))
		goto out;
	if (proc_stop_signal) {
		ret = 1; /* the service stops: what was measured is left for the next one */
		goto out;
	}
	quote_of(&a, &q);
	char *seed = xasprintf("answer %s %s", a.mail, node_str(node_get(cmd, "n")));
	struct triage_answer ans = { .report = row,
				     .to = a.sender,
				     .in_reply_to = a.mail,
				     .quote = q.len ? q.buf : NULL,
				     .body = a.text.buf,
				     .seed = seed,
				     .id_time = (time_t)num_of(cmd, "created") };
	ret = row ? triage_answer(c, mc, s, &ans, &mid, err) : 0;
	free(seed);
	/* fault injection for the tests: killed (kill -9) between the answer queued and the command done */
	if (!ret && getenv("LKPROBOT_FAULT") && !strcmp(getenv("LKPROBOT_FAULT"), "after-answer"))
		raise(SIGKILL);
	if (!ret) {
		serve_say("report %lld: '#lkprobot %s' of %s from %s answered%s%s: %s", (long long)a.rid, a.verb,
			  a.mail, a.sender, mid.len ? " by " : "", mid.buf, a.text.buf);
		ret = store_command_set(s, a.id, "done", mid.len ? mid.buf : NULL, a.text.buf, (int64_t)time(NULL),
					err);
	}
out:
	node_free(row);
	strbuf_release(&a.text);
	strbuf_release(&q);
	strbuf_release(&mid);
	return ret;
}

int triage_act(const struct serve_conf *c, const char *config, struct store *s, struct strbuf *err)
{
	struct node *todo = NULL;
	struct mailconf mc;
	int ret = 0;

	if (store_commands_todo(s, &todo, err))
		return -1;
	if (!todo->n) {
		node_free(todo);
		return 0;
	}
	if (mailconf_load(&mc, config, err)) {
		serve_say("the replies' commands wait: %s", err->buf);
		strbuf_reset(err);
		node_free(todo);
		return 0;
	}
	for (size_t i = 0; i < todo->n && !ret && !proc_stop_signal; i++)
		if (!triage_is_check(todo->vals[i])) /* the pass's check workers' */
			ret = act_one(c, &mc, s, todo->vals[i], NULL, err);
	mailconf_release(&mc);
	node_free(todo);
	return ret < 0 ? -1 : 0;
}

int triage_check_main(const struct serve_conf *c, const char *config, const struct node *cmd, struct strbuf *err)
{
	struct mailconf mc;
	int ret = 1;

	/* fault injection for the tests: a check's worker that dies by itself (not by the service's stop) */
	if (getenv("LKPROBOT_FAULT") && !strcmp(getenv("LKPROBOT_FAULT"), "check-dies"))
		raise(SIGKILL);
	struct store *s = store_open(c->db, err);

	if (s && !mailconf_load(&mc, config, err)) {
		ret = act_one(c, &mc, s, cmd, NULL, err) ? 1 : 0;
		mailconf_release(&mc);
	}
	store_close(s);
	return ret;
}

int triage_check_lost(const struct serve_conf *c, const char *config, struct store *s, const struct node *cmd,
		      const char *why, struct strbuf *err)
{
	struct mailconf mc;

	if (mailconf_load(&mc, config, err)) {
		serve_say("the replies' commands wait: %s", err->buf);
		strbuf_reset(err);
		return 0;
	}
	int ret = act_one(c, &mc, s, cmd, why, err) < 0 ? -1 : 0;
	mailconf_release(&mc);
	return ret;
}

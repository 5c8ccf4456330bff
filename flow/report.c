/*
 * report (flow): a report gathered, addressed by the mail rules, rendered,
 * signed, queued and delivered, with its verdict. See report.h.
 */
#include "report.h"
#include "../lib/store/store.h"
#include "../lib/util/say.h"
#include "../mail/dkim.h"
#include "../mail/mailconf.h"
#include "../mail/mailrules.h"
#include "../mail/mime.h"
#include "../mail/outbox.h"
#include "../mail/mailread.h"
#include "../mail/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void verdict(struct report_outcome *out, enum report_verdict v, const char *why)
{
	out->verdict = v;
	strbuf_reset(&out->why);
	strbuf_addstr(&out->why, why);
}

int flow_mail_sign(const struct mailconf *mc, time_t date, const struct strbuf *msg, struct strbuf *out,
		   struct strbuf *err)
{
	if (mc->dkim_key) {
		struct dkim_key *key;
		struct dkim_params dp = { .domain = mc->dkim_domain, .selector = mc->dkim_selector, .time = date };
		if (dkim_key_load(&key, mc->dkim_key, err))
			return 1;
		int r = dkim_sign(key, &dp, msg->buf, msg->len, out, err);
		dkim_key_free(key);
		if (r)
			return -1;
	}
	strbuf_add(out, msg->buf, msg->len);
	return 0;
}

/* The message rendered for SMTP and DKIM-signed into signed_msg; its Message-ID into id. */
static enum report_verdict render_signed(struct report_input *in, const struct mailconf *mc, struct strbuf *signed_msg,
					 struct strbuf *id, struct strbuf *err)
{
	struct strbuf msg = STRBUF_INIT;
	enum report_verdict v = REPORT_QUEUED;

	in->lf = false;
	in->message_id_out = id;
	int r = report_render(in, &msg, err);
	if (r)
		v = r > 0 ? REPORT_NOTHING : REPORT_BAD;
	else if ((r = flow_mail_sign(mc, in->date, &msg, signed_msg, err)))
		v = r > 0 ? REPORT_BAD : REPORT_FAILED;
	strbuf_release(&msg);
	return v;
}

/* Each address of list as its addr-spec, a line each, onto out. */
static void add_specs(struct strbuf *out, const char *const *list, size_t n)
{
	struct strbuf e = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		char *spec = mime_addr_spec(list[i], &e);
		if (spec)
			strbuf_addf(out, "%s\n", spec);
		free(spec);
	}
	strbuf_release(&e);
}

/* The MAINTAINERS sections of the recipients' reasons ("maintainer of LIBNVDIMM (M:)"), a line each. */
static void add_sections(struct strbuf *out, const struct recipients *people)
{
	static const char *const kinds[] = { "maintainer of ", "reviewer of ", "list of " };

	for (size_t i = 0; i < people->n; i++)
		for (size_t k = 0; k < 3; k++)
			for (const char *p = people->v[i].why; p && (p = strstr(p, kinds[k]));) {
				p += strlen(kinds[k]);
				const char *end = strstr(p, " (");
				if (!end)
					break;
				char *one = xasprintf("\n%.*s\n", (int)(end - p), p), *line = one + 1;
				if (!strstr(out->buf, one) && strncmp(out->buf, line, strlen(line)))
					strbuf_addstr(out, line);
				free(one);
			}
}

/*
 * The report's row in the store (once by its Message-ID): the culprit and
 * its parent, the job, the change the mail gave and who got it. A report
 * queued before is found again as it was. 0, or -1 with err set.
 */
static int record_report(struct store *s, const struct report_request *rq, const struct report_input *in,
			 const struct mail_plan *plan, const struct strbuf *msg, const char *id, int64_t qid,
			 const struct report_outcome *out, struct strbuf *err)
{
	const struct compare_row *h = report_headline(in->cmp, in->metric);
	struct strbuf rcpts = STRBUF_INIT, sections = STRBUF_INIT;
	char *subject = mailread_header(msg->buf, msg->len, "Subject");
	const char *desc = in->test_desc ? in->test_desc : "", *slash = strrchr(desc, '/');
	char *testcase = slash ? xstrndup(desc, (size_t)(slash - desc)) : xstrdup(desc);

	add_specs(&rcpts, plan->to, plan->nto);
	add_specs(&rcpts, plan->cc, plan->ncc);
	add_specs(&rcpts, (const char *const *)plan->envelope, plan->nenvelope);
	add_sections(&sections, &plan->people);
	struct store_report r = { .message_id = id,
				  .tree = rq->tree_name,
				  .branch = rq->branch,
				  .culprit = in->commit,
				  .parent = in->base_commit,
				  .job = rq->job,
				  .testcase = testcase,
				  .machine = slash ? slash + 1 : NULL,
				  .metric = out->decided ? out->metric : NULL,
				  .kind = rq->kind > 0	 ? "improvement"
					  : rq->kind < 0 ? "regression"
							 : NULL,
				  .subject = subject,
				  .rcpts = rcpts.buf,
				  .sections = sections.len ? sections.buf : NULL,
				  .change = h ? h->decision.change : NAN,
				  .lo = h ? h->decision.lo : NAN,
				  .hi = h ? h->decision.hi : NAN,
				  .bisection = rq->bisection,
				  .outbox = qid };
	int64_t rid = store_report_add(s, &r, (int64_t)time(NULL), err);
	strbuf_release(&rcpts);
	strbuf_release(&sections);
	free(subject);
	free(testcase);
	return rid < 0 ? -1 : 0;
}

/* Queued (once by Message-ID) and delivered: the verdict, the mail's state from the store. */
static void queue_deliver(const struct report_request *rq, const struct report_input *in, const struct mail_plan *plan,
			  const char *from, const struct strbuf *msg, const char *id, struct report_outcome *out)
{
	const struct mailconf *mc = rq->mc;
	const struct reportjob_opts *w = &rq->what;
	struct strbuf err = STRBUF_INIT;
	char *dbpath = store_default_path(w->db, w->result_dir);
	struct store *s = store_open(dbpath, &err);
	char *from_spec = s ? mime_addr_spec(from, &err) : NULL;
	int64_t qid;
	bool dup;

	if (!s || !from_spec) {
		verdict(out, REPORT_BAD, err.buf);
		goto out;
	}
	if (outbox_queue(s, id, from_spec, (const char *const *)plan->envelope, plan->nenvelope, msg->buf, msg->len,
			 &qid, &dup, &err)) {
		verdict(out, REPORT_FAILED, err.buf);
		goto out;
	}
	if (record_report(s, rq, in, plan, msg, id, dup ? 0 : qid, out, &err)) {
		verdict(out, REPORT_FAILED, err.buf);
		goto out;
	}
	/* fault injection for the tests: die between the queue and the delivery */
	if (getenv("LKPROBOT_FAULT") && !strcmp(getenv("LKPROBOT_FAULT"), "after-queue"))
		_exit(137);
	if (dup) {
		verdict(out, REPORT_DUPLICATE, "");
		strbuf_addf(&out->why, "already queued: %s (the same report; 'lkprobot outbox list')", id);
		if (rq->log)
			fprintf(rq->log, "%s\n", out->why.buf);
		goto out;
	}
	out->id = (long long)qid;
	verdict(out, REPORT_QUEUED, "");
	strbuf_addf(&out->why, "queued %lld %s for %zu envelope recipient%s%s", (long long)qid, id, plan->nenvelope,
		    plan->nenvelope == 1 ? "" : "s", mc->live ? "" : " (a dry run: the operator)");
	if (rq->log)
		fprintf(rq->log, "%s\n", out->why.buf);
	FILE *log = rq->log ? rq->log : fopen("/dev/null", "w");
	long left = log ? outbox_deliver(s, dbpath, mc, 0, log, &err) : -1;
	if (log && log != rq->log)
		fclose(log);
	if (left < 0) {
		verdict(out, REPORT_FAILED, err.len ? err.buf : "cannot deliver the outbox");
		goto out;
	}
	struct store_mail m;
	if (!store_outbox_get(s, qid, &m, &err)) {
		if (!strcmp(m.status, "failed")) {
			out->verdict = REPORT_REFUSED;
			out->mail_error = xstrdup(m.last_error ? m.last_error : "refused");
			strbuf_setf(&out->why, "failed %lld %s: %s", (long long)qid, id, out->mail_error);
		}
		store_mail_release(&m);
	}
out:
	free(from_spec);
	if (s)
		store_close(s);
	free(dbpath);
	strbuf_release(&err);
}

void report_request_input(const struct report_request *rq, const char *from, const char *domain,
			  struct report_input *in)
{
	in->from = rq->from ? rq->from : from;
	in->domain = rq->domain ? rq->domain : domain;
	in->url = rq->url;
	in->base_line = rq->base_line;
	in->tree_url = rq->tree_url;
	in->lkprobot_url = rq->lkprobot_url;
	in->closes = rq->closes;
	in->note = rq->note;
	in->checks = rq->checks;
	in->layout_effect = rq->layout_effect;
	in->signature = rq->signature;
	in->date = rq->date;
}

/* How many reports of the test on this machine to look back on for the accuracy line. */
#define REPORT_ACCURACY_LAST 20

/*
 * The accuracy record's line (after the caller's note, if any): of the
 * last reports of this test on this machine that were triaged, how many
 * were confirmed — only when there are some.
 */
static void accuracy_note(const struct reportjob_opts *w, const struct report_input *in, struct strbuf *note)
{
	const char *desc = in->test_desc ? in->test_desc : "", *slash = strrchr(desc, '/');
	char *dbpath = store_default_path(w->db, w->result_dir), *testcase = NULL;
	struct strbuf err = STRBUF_INIT;
	struct store *s = slash ? store_open(dbpath, &err) : NULL;
	long n = 0, k = 0;

	if (s) {
		testcase = xstrndup(desc, (size_t)(slash - desc));
		if (store_report_triaged(s, testcase, slash + 1, REPORT_ACCURACY_LAST, &n, &k, &err))
			n = 0;
		store_close(s);
	}
	if (n > 0)
		strbuf_addf(note,
			    "%s%sOf the last %ld report%s of this test on this machine that were triaged, %ld %s "
			    "confirmed.",
			    in->note ? in->note : "", in->note ? " " : "", n, n == 1 ? "" : "s", k,
			    k == 1 ? "was" : "were");
	free(testcase);
	free(dbpath);
	strbuf_release(&err);
}

static size_t count_strv(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

void flow_report_send(const struct report_request *rq, struct report_outcome *out)
{
	const struct mailconf *mc = rq->mc;
	struct reportjob rj = { 0 };
	struct reportjob_opts w = rq->what;
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT, id = STRBUF_INIT, note = STRBUF_INIT;
	struct mail_plan plan;
	const struct mail_case mcase = { .mc = mc,
					 .tree = w.tree,
					 .tree_name = rq->tree_name,
					 .to = w.to,
					 .nto = w.nto,
					 .cc = w.cc,
					 .ncc = w.ncc,
					 .also_cc = rq->also_cc,
					 .nalso_cc = count_strv(rq->also_cc),
					 .kind = rq->kind,
					 .hold_improvements = rq->hold_improvements,
					 .revert_refutes = rq->revert_refutes,
					 .mail_unrestored = rq->mail_unrestored,
					 .floors = rq->conf_floors,
					 .from = rq->from ? rq->from : mc->from };

	*out = (struct report_outcome){ .why = STRBUF_INIT };
	w.live = mc->live;
	mail_plan_init(&plan, w.floors);
	int held = mail_rules_apply(MAIL_BEFORE, &mcase, &plan, &err);
	if (held) {
		verdict(out, held > 0 ? REPORT_HELD : REPORT_BAD, held > 0 ? plan.why.buf : err.buf);
		out->held_by = plan.held_by;
		goto out;
	}
	int ar = reportjob_assemble(&rj, &w, &err);
	for (size_t i = 0; i < rj.nwarnings; i++)
		say_warn("%s", rj.warnings[i]);
	if (ar) {
		verdict(out, ar > 0 ? REPORT_NOTHING : REPORT_BAD, err.buf);
		goto out;
	}
	struct report_input in = rj.in;
	const struct compare_row *h = report_headline(in.cmp, in.metric);
	if (h) {
		out->decided = true;
		out->metric = xstrdup(h->metric);
		out->decision = h->decision;
	}
	struct mail_case c = mcase;
	c.commit = in.commit;
	if (!c.kind && out->decided) /* the subscribers of regressions only need to know */
		c.kind = out->decision.kind;
	int ar2 = mail_rules_apply(MAIL_ADDRESS, &c, &plan, &err);
	for (size_t i = 0; rq->log && i < plan.nopted_out; i++)
		fprintf(rq->log, "opt-out: not to %s\n", plan.opted_out[i]);
	if (ar2) {
		verdict(out, ar2 > 0 ? REPORT_HELD : REPORT_BAD, ar2 > 0 ? plan.why.buf : err.buf);
		out->held_by = plan.held_by;
		goto out;
	}
	for (size_t i = 0; i < plan.people.nwarnings; i++)
		say_warn("%s", plan.people.warnings[i]);
	in.to = plan.to;
	in.nto = plan.nto;
	in.cc = plan.cc;
	in.ncc = plan.ncc;
	if (plan.dry_run) {
		in.extra_headers = (const char *const *)&plan.dry_run;
		in.nextra = 1;
	}
	report_request_input(rq, mc->from, mc->domain, &in);
	accuracy_note(&w, &in, &note);
	if (note.len)
		in.note = note.buf;
	enum report_verdict v = render_signed(&in, mc, &msg, &id, &err);
	if (v != REPORT_QUEUED) {
		verdict(out, v, err.buf);
		goto out;
	}
	queue_deliver(rq, &in, &plan, in.from, &msg, id.buf, out);
out:
	mail_plan_release(&plan);
	reportjob_release(&rj);
	strbuf_release(&err);
	strbuf_release(&msg);
	strbuf_release(&id);
	strbuf_release(&note);
}

void report_outcome_release(struct report_outcome *out)
{
	strbuf_release(&out->why);
	free(out->mail_error);
	out->mail_error = NULL;
	free(out->metric);
	out->metric = NULL;
}

/* The notice's envelope and headers by the mail rules (the author; mail.lists; live or a dry run), rendered, signed. */
static enum report_verdict notice_render(const struct notice_request *rq, struct mail_plan *plan, struct strbuf *id,
					 struct strbuf *signed_msg, struct strbuf *err)
{
	const struct mailconf *mc = rq->mc;
	const char *to[] = { rq->to };
	const struct mail_case c = { .mc = mc, .to = to, .nto = 1, .from = mc->from };
	struct strbuf msg = STRBUF_INIT, body = STRBUF_INIT;
	time_t now = rq->date ? rq->date : time(NULL);

	if (mail_rules_apply(MAIL_ADDRESS, &c, plan, err))
		return REPORT_BAD;
	mime_message_id(id, rq->id_time, rq->seed, mc->domain ? mc->domain : "localhost");
	strbuf_addf(&body, "%s\n", rq->text);
	const struct mime_message m = { .from = mc->from,
					.to = plan->to,
					.nto = plan->nto,
					.cc = plan->cc,
					.ncc = plan->ncc,
					.subject = rq->subject,
					.date = now,
					.message_id = id->buf,
					.in_reply_to = rq->in_reply_to,
					.references = rq->references,
					.extra_headers = (const char *const *)&plan->dry_run,
					.nextra = plan->dry_run ? 1 : 0,
					.body = body.buf };
	enum report_verdict v = REPORT_BAD;
	if (!mime_render(&m, &msg, err)) {
		int r = flow_mail_sign(mc, now, &msg, signed_msg, err);
		v = r > 0 ? REPORT_BAD : r < 0 ? REPORT_FAILED : REPORT_QUEUED;
	}
	strbuf_release(&msg);
	strbuf_release(&body);
	return v;
}

enum report_verdict flow_notice_queue(const struct notice_request *rq, struct strbuf *why)
{
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT, id = STRBUF_INIT;
	struct mail_plan plan;
	struct store *s = NULL;
	char *from = NULL;
	int64_t qid;
	bool dup;

	mail_plan_init(&plan, NULL);
	enum report_verdict v = notice_render(rq, &plan, &id, &msg, &err);
	if (v == REPORT_QUEUED && (!(s = store_open(rq->db, &err)) || !(from = mime_addr_spec(rq->mc->from, &err))))
		v = REPORT_BAD;
	if (v == REPORT_QUEUED && outbox_queue(s, id.buf, from, (const char *const *)plan.envelope, plan.nenvelope,
					       msg.buf, msg.len, &qid, &dup, &err))
		v = REPORT_FAILED;
	strbuf_reset(why);
	if (v != REPORT_QUEUED)
		strbuf_addstr(why, err.buf);
	else if (dup)
		v = REPORT_DUPLICATE, strbuf_addf(why, "already queued: %s", id.buf);
	else
		strbuf_addf(why, "queued %lld %s for %zu envelope recipient%s%s", (long long)qid, id.buf,
			    plan.nenvelope, plan.nenvelope == 1 ? "" : "s",
			    rq->mc->live ? "" : " (a dry run: the operator)");
	if (s)
		store_close(s);
	free(from);
	mail_plan_release(&plan);
	strbuf_release(&err);
	strbuf_release(&msg);
	strbuf_release(&id);
	return v;
}

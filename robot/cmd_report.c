/*
 * lkprobot report: the LKP-style report mail of a change between a base and
 * a commit — the job that changed most leads, the other jobs that changed
 * go in its "In addition to that" table — as an RFC 5322 message (or its
 * body). Sending it is the mailer's business (SMTP, the outbox).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/store/store.h"
#include "../flow/bisect.h"
#include "../flow/report.h"
#include "../lib/results/compare.h"
#include "../mail/mailconf.h"
#include "../mail/report.h"
#include "../mail/reportjob.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot report --base BASE --commit COMMIT [options]\n"
	"\n"
	"Render the report mail of what changed from BASE to COMMIT (each a commit\n"
	"directory, run directories joined with commas, or a commit the store\n"
	"knows, as for 'lkprobot compare'): subject, the body of the LKP reports\n"
	"(commit, test machine, parameters, other jobs that changed, how sure the\n"
	"robot is, how to reproduce, the compare table, per-sample plots) and the\n"
	"job.yaml, reproduce and kernel config attachments.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 written (--send: queued; sent, or to be retried by 'lkprobot\n"
	"outbox send'), 1 nothing to report (the decision says no metric with a\n"
	"direction, or not --metric, changed: the reason on stderr),\n"
	"the output cannot be written, or the server refused the message for good,\n"
	"2 bad input or usage\n";

struct addrs {
	const char **v;
	size_t n;
};

static void addrs_add(struct addrs *a, const char *s)
{
	a->v = xrealloc(a->v, (a->n + 1) * sizeof(*a->v));
	a->v[a->n++] = s;
}

/* --send: the report sent through the flow (the mail rules, the outbox); its verdict as the exit status */
static int send_report(const struct report_request *rq)
{
	struct report_outcome out;
	int ret;

	flow_report_send(rq, &out);
	switch (out.verdict) {
	case REPORT_QUEUED:
	case REPORT_DUPLICATE:
		ret = EXIT_OK;
		break;
	case REPORT_REFUSED: /* the delivery's line said it */
		ret = EXIT_FAIL;
		break;
	case REPORT_BAD:
		ret = say_error(EXIT_USAGE, "%s", out.why.buf);
		break;
	default:
		ret = say_error(EXIT_FAIL, "%s", out.why.buf);
	}
	report_outcome_release(&out);
	return ret;
}

/* The robot's address when neither --from nor mail.from says: lkprobot at this host (when it has a domain). */
static char *default_from(void)
{
	char host[256] = "localhost";

	gethostname(host, sizeof(host) - 1);
	return xasprintf("lkprobot <lkprobot@%s>", strchr(host, '.') || !strcmp(host, "localhost") ? host : "localhost");
}

/* Without --send: the message (or its body) to -o's file or standard output. Returns the exit status. */
static int print_report(const struct report_input *in, bool body_only, const char *output)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int ret = EXIT_OK;

	if (body_only ? report_body(in, &out, &err) : report_render(in, &out, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
	} else if (output) {
		FILE *f = fopen(output, "w");
		bool ok = f && fwrite(out.buf, 1, out.len, f) == out.len;
		if ((f && fclose(f)) || !ok)
			ret = say_error(EXIT_FAIL, "%s: cannot write the report", output);
	} else {
		fwrite(out.buf, 1, out.len, stdout);
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

/* --to, --cc: one more address on o->dst, a struct addrs */
static int take_addr(const struct opt *o, const char *value, struct strbuf *err)
{
	(void)err;
	addrs_add(o->dst, value);
	return 0;
}

/* --date EPOCH into o->dst, a time_t */
static int take_date(const struct opt *o, const char *value, struct strbuf *err)
{
	char *end;
	long long d = strtoll(value, &end, 10);

	if (!*value || *end || d < 0) {
		strbuf_setf(err, "'%s' is not seconds since the epoch", value);
		return -1;
	}
	*(time_t *)o->dst = (time_t)d;
	return 0;
}

/* What the command line asks: the report request, and the command's own choices. */
struct rargs {
	struct report_request rq;
	const char *config_file, *output;
	bool body_only, send;
	struct compare_floors floors;
	struct addrs to, cc;
	long long bisection; /* --bisection: its culprit's checks go in the mail */
	struct strbuf checks;
};

/* The checks of the bisection's culprit, from the store, into the request (the mail's lines). 0, or -1. */
static int bisection_checks(struct rargs *a, struct strbuf *err)
{
	char *db = store_default_path(a->rq.what.db, a->rq.what.result_dir);
	struct store *s = store_open(db, err);
	struct node *row = NULL;
	struct bisect_result r = { 0 };
	int ret = -1;

	free(db);
	if (!s)
		return -1;
	int rc = store_bisection_row(s, a->bisection, &row, err);
	const char *checks = rc ? NULL : node_str(node_get(row, "checks"));
	if (rc > 0)
		strbuf_setf(err, "--bisection: no bisection %lld in the store", a->bisection);
	else if (!rc && checks && bisect_checks_parse(checks, strlen(checks), &r, err))
		; /* err says what is wrong with them */
	else if (!rc) {
		bisect_checks_text(&r, &a->checks);
		a->rq.checks = a->checks.len ? a->checks.buf : NULL;
		a->rq.layout_effect = r.layout.status == CHECK_REFUTES;
		ret = 0;
	}
	bisect_result_release(&r);
	node_free(row);
	store_close(s);
	return ret;
}

static int parse_args(int argc, char **argv, const struct lkp_ctx *ctx, struct rargs *a)
{
	struct reportjob_opts *w = &a->rq.what;
	const struct opt table[] = {
		OPT_STRING(0, "base", "BASE", "what the change is from", &w->base),
		OPT_STRING(0, "commit", "COMMIT", "what the change is to", &w->commit),
		OPT_STRING(0, "tree", "DIR",
			   "the git repository: the commit's subject, its author as\n"
			   "the To: address, and a reply to the patch's mail when the\n"
			   "commit has a \"Link: .../<message-id>\" trailer",
			   &w->tree),
		OPT_STRING(0, "tree-name", "NAME",
			   "--send: the tree's name in serve.trees, for\n"
			   "mail.subscriptions' trees (default: DIR)",
			   &a->rq.tree_name),
		OPT_STRING(0, "url", "TEXT", "the \"url:\" line (where the commit is: tree and branch)", &a->rq.url),
		OPT_STRING(0, "tree-url", "URL", "where readers clone the tree from (\"To reproduce\")",
			   &a->rq.tree_url),
		OPT_STRING(0, "lkprobot-url", "URL", "where readers get lkprobot (\"To reproduce\")",
			   &a->rq.lkprobot_url),
		OPT_STRING(0, "closes", "URL",
			   "the \"Closes:\" tag's URL (ending in /: the Message-ID\n"
			   "is appended, as in a mail archive)",
			   &a->rq.closes),
		OPT_CALL(0, "bisection", "ID",
			 "the bisection (of the store) that named the commit:\n"
			 "its culprit's revert and layout checks go in the mail",
			 opt_bisection_id, &a->bisection),
		OPT_STRING(0, "note", "TEXT", "a paragraph before the \"how sure\" one (a bisection's caveat)",
			   &a->rq.note),
		OPT_STRING(0, "from", "ADDR", "the robot's address (default lkprobot <lkprobot@HOST>)", &a->rq.from),
		OPT_CALL(0, "to", "ADDR", "a To: recipient (repeatable)", take_addr, &a->to),
		OPT_CALL(0, "cc", "ADDR", "a Cc: recipient (repeatable)", take_addr, &a->cc),
		OPT_STRING(0, "job", "FILE", "the job file to attach (default: the run's job.yaml)", &w->jobfile),
		OPT_STRING(0, "kconfig", "FILE",
			   "attach this kernel config (default: the run's\n"
			   "kernel.config, when it has one)",
			   &w->kconfig),
		OPT_STRING(0, "metric", "M",
			   "report on M (a bisection's metric): the mail goes out only\n"
			   "if the decision says M changed (default: the metric with\n"
			   "a direction that changed most, the test's own first)",
			   &w->metric),
		OPT_CALL(0, "floor", "METRIC=PCT",
			 "the decision's floor for METRIC (a glob; repeatable; default:\n"
			 "the job's change_floor, else 1% for perf metrics, 5%)",
			 opt_floor, &a->floors),
		OPT_STRING(0, "signature", "TEXT", "the name under \"Thanks,\" (default lkprobot)", &a->rq.signature),
		OPT_CALL(0, "date", "EPOCH", "the message's date (default now): same input, same bytes", take_date,
			 &a->rq.date),
		OPT_STRING(0, "domain", "NAME", "the Message-ID's domain (default this host's name)", &a->rq.domain),
		OPT_BOOL(0, "body", "only the body text", &a->body_only),
		OPT_BOOL(0, "send",
			 "queue the message in the store's outbox and deliver it\n"
			 "(mail: in the configuration): To/Cc from --tree (the\n"
			 "commit's author, trailers, MAINTAINERS, mail.lists) unless\n"
			 "--to/--cc are given, and mail.subscriptions' subscribers,\n"
			 "never mail.opt_out; DKIM-signed when mail.dkim is set;\n"
			 "only to mail.operator unless mail.live is true",
			 &a->send),
		OPT_STRING(0, "config", "FILE",
			   "lkprobot's configuration (default $LKPROBOT_CONFIG,\n"
			   "/etc/lkprobot/config.yaml)",
			   &a->config_file),
		OPT_STRING('o', "output", "FILE", "write the message there (default standard output)", &a->output),
		OPT_STRING(0, "db", "FILE", "the store (default: RESULT_ROOT_DIR/lkprobot.db)", &w->db),
		OPT_STRING(0, "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &w->result_dir),
		OPT_END(),
	};
	int ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false);

	if (ret != OPT_GO)
		return ret;
	if (!w->base || !w->commit || optind < argc)
		return say_error(
			EXIT_USAGE,
			"report needs --base and --commit (and no other arguments); see 'lkprobot report --help'");
	w->floors = &a->floors;
	w->to = a->to.v;
	w->nto = a->to.n;
	w->cc = a->cc.v;
	w->ncc = a->cc.n;
	return OPT_GO;
}

/* Without --send: the report gathered, rendered and printed. Returns the exit status. */
static int print_args(const struct rargs *a)
{
	const struct report_request *rq = &a->rq;
	struct strbuf err = STRBUF_INIT;
	struct reportjob rj = { 0 };
	char *from_default = rq->from ? NULL : default_from();
	int ret;

	int ar = reportjob_assemble(&rj, &rq->what, &err);
	for (size_t i = 0; i < rj.nwarnings; i++)
		say_warn("%s", rj.warnings[i]);
	if (ar) {
		ret = say_error(ar > 0 ? EXIT_FAIL : EXIT_USAGE, "%s", err.buf);
	} else {
		struct report_input in = rj.in;
		report_request_input(rq, from_default, "localhost", &in);
		in.lf = a->output != NULL || !isatty(1);
		ret = print_report(&in, a->body_only, a->output);
	}
	reportjob_release(&rj);
	free(from_default);
	strbuf_release(&err);
	return ret;
}

int cmd_report(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct rargs a = { .rq = { .what = { .result_dir = STORE_RESULT_ROOT }, .date = time(NULL), .log = stdout },
			   .checks = STRBUF_INIT };
	struct strbuf err = STRBUF_INIT;
	struct mailconf mc = { 0 };
	int ret = parse_args(argc, argv, ctx, &a);

	if (ret != OPT_GO)
		goto out;
	if (a.bisection && bisection_checks(&a, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (!a.send) {
		ret = print_args(&a);
	} else if (a.body_only || a.output) {
		ret = say_error(EXIT_USAGE, "--send delivers the message: not with --body or -o");
	} else if (mailconf_load(&mc, a.config_file, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
	} else {
		a.rq.mc = &mc;
		ret = send_report(&a.rq);
		mailconf_release(&mc);
	}
out:
	compare_floors_release(&a.floors);
	free(a.to.v);
	free(a.cc.v);
	strbuf_release(&a.checks);
	strbuf_release(&err);
	return ret;
}

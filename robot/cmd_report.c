/*
 * lkprobot report: the LKP-style report mail of a change between a base and
 * a commit — the job that changed most leads, the other jobs that changed
 * go in its "In addition to that" table — as an RFC 5322 message (or its
 * body). Sending it is the mailer's business (SMTP, the outbox).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/store/store.h"
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
	case REPORT_REFUSED:	/* the delivery's line said it */
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

int cmd_report(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *base = NULL, *commit = NULL, *tree = NULL, *url = NULL, *from = NULL, *jobfile = NULL;
	const char *kconfig = NULL, *signature = NULL, *domain = NULL, *output = NULL, *db = NULL;
	const char *result_dir = STORE_RESULT_ROOT, *metric = NULL, *note = NULL;
	const char *tree_url = NULL, *lkprobot_url = NULL, *closes = NULL;
	struct compare_floors floors = { 0 };
	bool body_only = false, send = false;
	const char *config_file = NULL;
	time_t date = time(NULL);
	struct addrs to = { 0 }, cc = { 0 };
	const struct opt table[] = {
		OPT_STRING(0, "base", "BASE", "what the change is from", &base),
		OPT_STRING(0, "commit", "COMMIT", "what the change is to", &commit),
		OPT_STRING(0, "tree", "DIR",
			   "the git repository: the commit's subject, its author as\n"
			   "the To: address, and a reply to the patch's mail when the\n"
			   "commit has a \"Link: .../<message-id>\" trailer",
			   &tree),
		OPT_STRING(0, "url", "TEXT", "the \"url:\" line (where the commit is: tree and branch)", &url),
		OPT_STRING(0, "tree-url", "URL", "where readers clone the tree from (\"To reproduce\")", &tree_url),
		OPT_STRING(0, "lkprobot-url", "URL", "where readers get lkprobot (\"To reproduce\")", &lkprobot_url),
		OPT_STRING(0, "closes", "URL",
			   "the \"Closes:\" tag's URL (ending in /: the Message-ID\n"
			   "is appended, as in a mail archive)",
			   &closes),
		OPT_STRING(0, "note", "TEXT", "a paragraph before the \"how sure\" one (a bisection's caveat)", &note),
		OPT_STRING(0, "from", "ADDR", "the robot's address (default lkprobot <lkprobot@HOST>)", &from),
		OPT_CALL(0, "to", "ADDR", "a To: recipient (repeatable)", take_addr, &to),
		OPT_CALL(0, "cc", "ADDR", "a Cc: recipient (repeatable)", take_addr, &cc),
		OPT_STRING(0, "job", "FILE", "the job file to attach (default: the run's job.yaml)", &jobfile),
		OPT_STRING(0, "kconfig", "FILE", "attach this kernel config (default: the run's\n"
			   "kernel.config, when it has one)", &kconfig),
		OPT_STRING(0, "metric", "M",
			   "report on M (a bisection's metric): the mail goes out only\n"
			   "if the decision says M changed (default: the metric with\n"
			   "a direction that changed most, the test's own first)",
			   &metric),
		OPT_CALL(0, "floor", "METRIC=PCT",
			 "the decision's floor for METRIC (a glob; repeatable; default:\n"
			 "the job's change_floor, else 1% for perf metrics, 5%)",
			 opt_floor, &floors),
		OPT_STRING(0, "signature", "TEXT", "the name under \"Thanks,\" (default lkprobot)", &signature),
		OPT_CALL(0, "date", "EPOCH", "the message's date (default now): same input, same bytes", take_date, &date),
		OPT_STRING(0, "domain", "NAME", "the Message-ID's domain (default this host's name)", &domain),
		OPT_BOOL(0, "body", "only the body text", &body_only),
		OPT_BOOL(0, "send",
			 "queue the message in the store's outbox and deliver it\n"
			 "(mail: in the configuration): To/Cc from --tree (the\n"
			 "commit's author, trailers, MAINTAINERS, mail.lists) unless\n"
			 "--to/--cc are given; DKIM-signed when mail.dkim is set;\n"
			 "only to mail.operator unless mail.live is true",
			 &send),
		OPT_STRING(0, "config", "FILE",
			   "lkprobot's configuration (default $LKPROBOT_CONFIG,\n"
			   "/etc/lkprobot/config.yaml)",
			   &config_file),
		OPT_STRING('o', "output", "FILE", "write the message there (default standard output)", &output),
		OPT_STRING(0, "db", "FILE", "the store (default: RESULT_ROOT_DIR/lkprobot.db)", &db),
		OPT_STRING(0, "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &result_dir),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct reportjob rj = { 0 };
	struct mailconf mc = { 0 };
	char *from_default = NULL;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (!base || !commit || optind < argc) {
		ret = say_error(EXIT_USAGE, "report needs --base and --commit (and no other arguments); see 'lkprobot report --help'");
		goto out;
	}
	if (send && mailconf_load(&mc, config_file, &err))
		goto bad;
	struct reportjob_opts ro = { .base = base, .commit = commit, .db = db, .result_dir = result_dir, .tree = tree,
				     .jobfile = jobfile, .kconfig = kconfig, .metric = metric, .floors = &floors,
				     .to = to.v, .nto = to.n, .cc = cc.v, .ncc = cc.n };
	if (send) {
		if (body_only || output) {
			strbuf_setf(&err, "--send delivers the message: not with --body or -o");
			goto bad;
		}
		const struct report_request rq = { .what = ro, .from = from, .domain = domain, .url = url,
						   .tree_url = tree_url, .lkprobot_url = lkprobot_url, .closes = closes,
						   .note = note, .signature = signature, .date = date, .mc = &mc,
						   .log = stdout };
		ret = send_report(&rq);
		goto out;
	}
	int ar = reportjob_assemble(&rj, &ro, &err);
	for (size_t i = 0; i < rj.nwarnings; i++)
		say_warn("%s", rj.warnings[i]);
	if (ar > 0) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	if (ar)
		goto bad;
	if (!from)
		from = from_default = default_from();
	struct report_input in = rj.in;
	in.from = from;
	in.url = url;
	in.tree_url = tree_url;
	in.lkprobot_url = lkprobot_url;
	in.closes = closes;
	in.note = note;
	in.signature = signature;
	in.domain = domain ? domain : "localhost";
	in.date = date;
	in.lf = output != NULL || !isatty(1);
	ret = print_report(&in, body_only, output);
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	if (send)
		mailconf_release(&mc);
	compare_floors_release(&floors);
	reportjob_release(&rj);
	free(from_default);
	free(to.v);
	free(cc.v);
	strbuf_release(&err);
	return ret;
}

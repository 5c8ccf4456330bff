/*
 * lkprobot report: the LKP-style report mail of a change between a base and
 * a commit — the job that changed most leads, the other jobs that changed
 * go in its "In addition to that" table — as an RFC 5322 message (or its
 * body). Sending it is the mailer's business (SMTP, the outbox).
 */
#include "cmd.h"
#include "../lib/results/compare.h"
#include "../mail/dkim.h"
#include "../mail/mailconf.h"
#include "../mail/mime.h"
#include "../mail/outbox.h"
#include "../mail/recipients.h"
#include "../mail/report.h"
#include "../mail/reportjob.h"
#include "../lib/store/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot report --base BASE --commit COMMIT [options]\n"
	"\n"
	"Render the report mail of what changed from BASE to COMMIT (each a commit\n"
	"directory, run directories joined with commas, or a commit the store\n"
	"knows, as for 'lkprobot compare'): subject, the body of the LKP reports\n"
	"(commit, test machine, parameters, other jobs that changed, how sure the\n"
	"robot is, how to reproduce, the compare table, per-sample plots) and the\n"
	"job.yaml, reproduce and kernel config attachments.\n"
	"\n"
	"      --tree DIR         the git repository: the commit's subject, its author as\n"
	"                         the To: address, and a reply to the patch's mail when the\n"
	"                         commit has a \"Link: .../<message-id>\" trailer\n"
	"      --url TEXT         the \"url:\" line (where the commit is: tree and branch)\n"
	"      --tree-url URL     where readers clone the tree from (\"To reproduce\")\n"
	"      --lkprobot-url URL where readers get lkprobot (\"To reproduce\")\n"
	"      --closes URL       the \"Closes:\" tag's URL (ending in /: the Message-ID\n"
	"                         is appended, as in a mail archive)\n"
	"      --note TEXT        a paragraph before the \"how sure\" one (a bisection's caveat)\n"
	"      --from ADDR        the robot's address (default lkprobot <lkprobot@HOST>)\n"
	"      --to ADDR, --cc ADDR  recipients (repeatable)\n"
	"      --job FILE         the job file to attach (default: the run's job.yaml)\n"
	"      --kconfig FILE     attach this kernel config\n"
	"      --metric M         report on M (a bisection's metric): the mail goes out only\n"
	"                         if the decision says M changed (default: the metric with\n"
	"                         a direction that changed most, the test's own first)\n"
	"      --floor METRIC=PCT the decision's floor for METRIC (a glob; repeatable; default:\n"
	"                         the job's change_floor, else 1% for perf metrics, 5%)\n"
	"      --signature TEXT   the name under \"Thanks,\" (default lkprobot)\n"
	"      --date EPOCH       the message's date (default now): same input, same bytes\n"
	"      --domain NAME      the Message-ID's domain (default this host's name)\n"
	"      --body             only the body text\n"
	"      --send             queue the message in the store's outbox and deliver it\n"
	"                         (mail: in the configuration): To/Cc from --tree (the\n"
	"                         commit's author, trailers, MAINTAINERS, mail.lists) unless\n"
	"                         --to/--cc are given; DKIM-signed when mail.dkim is set;\n"
	"                         only to mail.operator unless mail.live is true\n"
	"      --config FILE      lkprobot's configuration (default $LKPROBOT_CONFIG,\n"
	"                         /etc/lkprobot/config.yaml)\n"
	"  -o, --output FILE      write the message there (default standard output)\n"
	"      --db FILE          the store (default: RESULT_ROOT_DIR/lkprobot.db)\n"
	"      --result-root DIR  RESULT_ROOT_DIR (default /lkp/result)\n"
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 written (--send: queued; sent, or to be retried by 'lkprobot\n"
	"outbox send'), 1 nothing to report (the decision says no metric with a\n"
	"direction, or not --metric, changed: the reason on stderr),\n"
	"the output cannot be written, or the server refused the message for good,\n"
	"2 bad input or usage\n";

enum { OPT_BASE = 0x600, OPT_COMMIT, OPT_TREE, OPT_URL, OPT_FROM, OPT_TO, OPT_CC, OPT_JOB, OPT_KCONFIG,
       OPT_SIGNATURE, OPT_DATE, OPT_DOMAIN, OPT_BODY, OPT_DB, OPT_RESULT, OPT_SEND, OPT_CONFIG, OPT_METRIC,
       OPT_FLOOR, OPT_NOTE, OPT_TREE_URL, OPT_LKPROBOT_URL, OPT_CLOSES };

struct addrs {
	const char **v;
	size_t n;
};

static void addrs_add(struct addrs *a, const char *s)
{
	a->v = xrealloc(a->v, (a->n + 1) * sizeof(*a->v));
	a->v[a->n++] = s;
}

/*
 * Who gets the report: the commit's people (--tree) unless the user named
 * recipients, the configured lists; and who really gets it (specs, the
 * envelope): everyone when mail.live, else the operator alone, said in an
 * X-lkprobot-Dry-Run header (*note). 0, or -1 with err set.
 */
static int send_recipients(struct report_input *in, const struct mailconf *mc, const char *tree, bool user_rcpts,
			   struct recipients *r, struct addrs *to, struct addrs *cc, char ***specs, size_t *nspecs,
			   char **note, struct strbuf *err)
{
	if (tree && !user_rcpts) {
		if (recipients_of_commit(tree, in->commit, (const char *const *)mc->lists, mc->nlists,
					 (size_t)mc->max_recipients, r, err))
			return -1;
		for (size_t i = 0; i < r->nwarnings; i++)
			cmd_warn("%s", r->warnings[i]);
		for (size_t i = 0; i < r->n; i++)
			addrs_add(r->v[i].to ? to : cc, r->v[i].addr);
	} else {
		for (size_t i = 0; i < in->nto; i++)
			addrs_add(to, in->to[i]);
		for (size_t i = 0; i < in->ncc; i++)
			addrs_add(cc, in->cc[i]);
		for (size_t i = 0; i < mc->nlists; i++)
			addrs_add(cc, mc->lists[i]);
	}
	in->to = to->v;
	in->nto = to->n;
	in->cc = cc->v;
	in->ncc = cc->n;
	/* who really gets it: everyone when live, else the operator alone */
	if (mc->live) {
		for (size_t i = 0; i < to->n + cc->n; i++) {
			char *spec = mime_addr_spec(i < to->n ? to->v[i] : cc->v[i - to->n], err);
			if (!spec)
				return -1;
			*specs = xrealloc(*specs, (*nspecs + 1) * sizeof(**specs));
			(*specs)[(*nspecs)++] = spec;
		}
	} else {
		if (!mc->operator_) {
			strbuf_setf(err, "%s: mail.live is not true and there is no mail.operator: a dry run has nowhere to go",
				    mc->path ? mc->path : "the configuration (none found)");
			return -1;
		}
		*specs = xcalloc(1, sizeof(**specs));
		if (!((*specs)[0] = mime_addr_spec(mc->operator_, err)))
			return -1;
		*nspecs = 1;
		*note = xasprintf("X-lkprobot-Dry-Run: mail.live is not true; sent to the operator only, not to the %zu addresses in To and Cc",
				 to->n + cc->n);
		in->extra_headers = (const char *const *)note;
		in->nextra = 1;
	}
	if (!*nspecs) {
		strbuf_setf(err, "no recipient: give --tree (the commit's people), --to or --cc");
		return -1;
	}
	return 0;
}

/*
 * --send: the recipients (the commit's, or --to/--cc), the dry-run rule,
 * the message rendered for SMTP and DKIM-signed, queued in the outbox,
 * then one delivery pass. Returns the exit status.
 */
static int send_report(struct report_input *in, const char *config, const char *tree, bool user_rcpts,
		       bool explicit_from, bool explicit_domain, const char *db, const char *result_dir,
		       struct strbuf *err)
{
	struct mailconf mc;
	struct recipients r = { 0 };
	struct strbuf msg = STRBUF_INIT, id = STRBUF_INIT, signed_msg = STRBUF_INIT;
	struct addrs to = { 0 }, cc = { 0 };
	struct store *s = NULL;
	char *dbpath = NULL, *note = NULL;
	char **specs = NULL;
	size_t nspecs = 0;
	int ret = EXIT_USAGE;

	if (mailconf_load(&mc, config, err))
		return cmd_error(EXIT_USAGE, "%s", err->buf);
	if (!explicit_from)
		in->from = mc.from;
	if (!explicit_domain)
		in->domain = mc.domain;
	if (send_recipients(in, &mc, tree, user_rcpts, &r, &to, &cc, &specs, &nspecs, &note, err))
		goto bad;
	in->lf = false;
	in->message_id_out = &id;
	if (report_render(in, &msg, err)) {
		ret = strstr(err->buf, "nothing to report") ? cmd_error(EXIT_FAIL, "%s", err->buf) : cmd_error(EXIT_USAGE, "%s", err->buf);
		goto out;
	}
	if (mc.dkim_key) {
		struct dkim_key *key;
		struct dkim_params dp = { .domain = mc.dkim_domain, .selector = mc.dkim_selector, .time = in->date };
		if (dkim_key_load(&key, mc.dkim_key, err))
			goto bad;
		int r2 = dkim_sign(key, &dp, msg.buf, msg.len, &signed_msg, err);
		dkim_key_free(key);
		if (r2)
			goto fail;
	}
	strbuf_add(&signed_msg, msg.buf, msg.len);
	dbpath = db ? xstrdup(db) : xasprintf("%s/lkprobot.db", result_dir);
	if (!(s = store_open(dbpath, err)))
		goto bad;
	int64_t qid;
	bool dup;
	char *from_spec = mime_addr_spec(in->from, err);
	if (!from_spec)
		goto bad;
	int qr = outbox_queue(s, id.buf, from_spec, (const char *const *)specs, nspecs, signed_msg.buf, signed_msg.len, &qid,
			      &dup, err);
	free(from_spec);
	if (qr)
		goto fail;
	/* fault injection for the tests: die between the queue and the delivery */
	if (getenv("LKPROBOT_FAULT") && !strcmp(getenv("LKPROBOT_FAULT"), "after-queue"))
		_exit(137);
	if (dup) {
		printf("already queued: %s (the same report; 'lkprobot outbox list')\n", id.buf);
		ret = EXIT_OK;
		goto out;
	}
	printf("queued %lld %s for %zu envelope recipient%s%s\n", (long long)qid, id.buf, nspecs, nspecs == 1 ? "" : "s",
	       mc.live ? "" : " (a dry run: the operator)");
	long left = outbox_deliver(s, dbpath, &mc, 0, stdout, err);
	if (left < 0)
		goto fail;
	struct store_mail m;
	ret = EXIT_OK;
	if (!store_outbox_get(s, qid, &m, err)) {
		if (!strcmp(m.status, "failed"))
			ret = EXIT_FAIL;
		store_mail_release(&m);
	}
	goto out;
fail:
	ret = cmd_error(EXIT_FAIL, "%s", err->buf);
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err->buf);
out:
	if (s)
		store_close(s);
	for (size_t i = 0; i < nspecs; i++)
		free(specs[i]);
	free(specs);
	free(note);
	free(dbpath);
	free(to.v);
	free(cc.v);
	recipients_release(&r);
	mailconf_release(&mc);
	strbuf_release(&msg);
	strbuf_release(&id);
	strbuf_release(&signed_msg);
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
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
	} else if (output) {
		FILE *f = fopen(output, "w");
		bool ok = f && fwrite(out.buf, 1, out.len, f) == out.len;
		if ((f && fclose(f)) || !ok)
			ret = cmd_error(EXIT_FAIL, "%s: cannot write the report", output);
	} else {
		fwrite(out.buf, 1, out.len, stdout);
	}
	strbuf_release(&out);
	strbuf_release(&err);
	return ret;
}

int cmd_report(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "tree", required_argument, NULL, OPT_TREE },
		{ "url", required_argument, NULL, OPT_URL },
		{ "tree-url", required_argument, NULL, OPT_TREE_URL },
		{ "lkprobot-url", required_argument, NULL, OPT_LKPROBOT_URL },
		{ "closes", required_argument, NULL, OPT_CLOSES },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "cc", required_argument, NULL, OPT_CC },
		{ "job", required_argument, NULL, OPT_JOB },
		{ "kconfig", required_argument, NULL, OPT_KCONFIG },
		{ "signature", required_argument, NULL, OPT_SIGNATURE },
		{ "date", required_argument, NULL, OPT_DATE },
		{ "domain", required_argument, NULL, OPT_DOMAIN },
		{ "body", no_argument, NULL, OPT_BODY },
		{ "output", required_argument, NULL, 'o' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "result-root", required_argument, NULL, OPT_RESULT },
		{ "send", no_argument, NULL, OPT_SEND },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "note", required_argument, NULL, OPT_NOTE },
		{ "floor", required_argument, NULL, OPT_FLOOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *base = NULL, *commit = NULL, *tree = NULL, *url = NULL, *from = NULL, *jobfile = NULL;
	const char *kconfig = NULL, *signature = NULL, *domain = NULL, *output = NULL, *db = NULL;
	const char *result_dir = "/lkp/result", *metric = NULL, *note = NULL;
	const char *tree_url = NULL, *lkprobot_url = NULL, *closes = NULL;
	struct compare_floors floors = { 0 };
	bool body_only = false, send = false;
	const char *config_file = NULL;
	time_t date = time(NULL);
	struct addrs to = { 0 }, cc = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct reportjob rj = { 0 };
	char *from_default = NULL;
	int c, ret = EXIT_USAGE;

	(void)ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_BASE: base = optarg; break;
		case OPT_COMMIT: commit = optarg; break;
		case OPT_TREE: tree = optarg; break;
		case OPT_URL: url = optarg; break;
		case OPT_TREE_URL: tree_url = optarg; break;
		case OPT_LKPROBOT_URL: lkprobot_url = optarg; break;
		case OPT_CLOSES: closes = optarg; break;
		case OPT_FROM: from = optarg; break;
		case OPT_TO: addrs_add(&to, optarg); break;
		case OPT_CC: addrs_add(&cc, optarg); break;
		case OPT_JOB: jobfile = optarg; break;
		case OPT_KCONFIG: kconfig = optarg; break;
		case OPT_SIGNATURE: signature = optarg; break;
		case OPT_DATE: {
			char *end;
			long long d = strtoll(optarg, &end, 10);
			if (*end || d < 0) {
				ret = cmd_error(EXIT_USAGE, "--date: '%s' is not seconds since the epoch", optarg);
				goto out;
			}
			date = (time_t)d;
			break;
		}
		case OPT_DOMAIN: domain = optarg; break;
		case OPT_BODY: body_only = true; break;
		case 'o': output = optarg; break;
		case OPT_DB: db = optarg; break;
		case OPT_RESULT: result_dir = optarg; break;
		case OPT_SEND: send = true; break;
		case OPT_CONFIG: config_file = optarg; break;
		case OPT_METRIC: metric = optarg; break;
		case OPT_NOTE: note = optarg; break;
		case OPT_FLOOR:
			if (compare_floors_add(&floors, optarg, &err))
				goto bad;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (!base || !commit || optind < argc) {
		ret = cmd_error(EXIT_USAGE, "report needs --base and --commit (and no other arguments); see 'lkprobot report --help'");
		goto out;
	}
	struct reportjob_opts ro = { .base = base, .commit = commit, .db = db, .result_dir = result_dir, .tree = tree,
				     .jobfile = jobfile, .kconfig = kconfig, .metric = metric, .floors = &floors,
				     .to = to.v, .nto = to.n, .cc = cc.v, .ncc = cc.n };
	int ar = reportjob_assemble(&rj, &ro, &err);
	for (size_t i = 0; i < rj.nwarnings; i++)
		cmd_warn("%s", rj.warnings[i]);
	if (ar > 0) {
		ret = cmd_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	if (ar)
		goto bad;
	/* recipients the user named: --send uses them instead of the commit's */
	bool user_rcpts = to.n || cc.n;
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
	if (send) {
		if (body_only || output) {
			strbuf_setf(&err, "--send delivers the message: not with --body or -o");
			goto bad;
		}
		ret = send_report(&in, config_file, tree, user_rcpts, from != from_default, domain != NULL, db, result_dir,
				  &err);
		goto out;
	}
	ret = print_report(&in, body_only, output);
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	compare_floors_release(&floors);
	reportjob_release(&rj);
	free(from_default);
	free(to.v);
	free(cc.v);
	strbuf_release(&err);
	return ret;
}

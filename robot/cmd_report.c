/*
 * lkprobot report: the LKP-style report mail of a change between a base and
 * a commit — the job that changed most leads, the other jobs that changed
 * go in its "In addition to that" table — as an RFC 5322 message (or its
 * body). Sending it is the mailer's business (SMTP, the outbox).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/results/sides.h"
#include "../lib/results/compare.h"
#include "../lib/kernel/git.h"
#include "../lib/job/job.h"
#include "../lib/util/yml.h"
#include "../mail/dkim.h"
#include "../mail/mailconf.h"
#include "../mail/mime.h"
#include "../mail/outbox.h"
#include "../mail/recipients.h"
#include "../mail/report.h"
#include "../lib/store/store.h"

#include <math.h>
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

static char *read_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (!path || strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
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
	if (tree && !user_rcpts) {
		if (recipients_of_commit(tree, in->commit, (const char *const *)mc.lists, mc.nlists,
					 (size_t)mc.max_recipients, &r, err))
			goto bad;
		for (size_t i = 0; i < r.nwarnings; i++)
			cmd_warn("%s", r.warnings[i]);
		for (size_t i = 0; i < r.n; i++)
			addrs_add(r.v[i].to ? &to : &cc, r.v[i].addr);
	} else {
		for (size_t i = 0; i < in->nto; i++)
			addrs_add(&to, in->to[i]);
		for (size_t i = 0; i < in->ncc; i++)
			addrs_add(&cc, in->cc[i]);
		for (size_t i = 0; i < mc.nlists; i++)
			addrs_add(&cc, mc.lists[i]);
	}
	in->to = to.v;
	in->nto = to.n;
	in->cc = cc.v;
	in->ncc = cc.n;
	/* who really gets it: everyone when live, else the operator alone */
	if (mc.live) {
		for (size_t i = 0; i < to.n + cc.n; i++) {
			char *spec = mime_addr_spec(i < to.n ? to.v[i] : cc.v[i - to.n], err);
			if (!spec)
				goto bad;
			specs = xrealloc(specs, (nspecs + 1) * sizeof(*specs));
			specs[nspecs++] = spec;
		}
	} else {
		if (!mc.operator_) {
			strbuf_setf(err, "%s: mail.live is not true and there is no mail.operator: a dry run has nowhere to go",
				    mc.path ? mc.path : "the configuration (none found)");
			goto bad;
		}
		specs = xcalloc(1, sizeof(*specs));
		if (!(specs[0] = mime_addr_spec(mc.operator_, err)))
			goto bad;
		nspecs = 1;
		note = xasprintf("X-lkprobot-Dry-Run: mail.live is not true; sent to the operator only, not to the %zu addresses in To and Cc",
				 to.n + cc.n);
		in->extra_headers = (const char *const *)&note;
		in->nextra = 1;
	}
	if (!nspecs) {
		strbuf_setf(err, "no recipient: give --tree (the commit's people), --to or --cc");
		goto bad;
	}
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
	const char *result_dir = "/lkp/result", *metric = NULL, *note = NULL;
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
		OPT_STRING(0, "kconfig", "FILE", "attach this kernel config", &kconfig),
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
		OPT_STRING(0, "result-root", "DIR", "RESULT_ROOT_DIR (default /lkp/result)", &result_dir),
		OPT_END(),
	};
	char *reply_to = NULL;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct side *sides = NULL;
	struct compare_result *res = NULL;
	struct report_other *others = NULL;
	struct node **params = NULL, *job = NULL;
	char **machines = NULL;
	size_t nres = 0, nothers = 0;
	char host[256] = "localhost", *from_default = NULL, *author = NULL, *subject = NULL, *full = NULL;
	char *job_text = NULL, *repro = NULL, *config = NULL, *config_name = NULL;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (!base || !commit || optind < argc) {
		ret = cmd_error(EXIT_USAGE, "report needs --base and --commit (and no other arguments); see 'lkprobot report --help'");
		goto out;
	}
	char *args[2] = { (char *)base, (char *)commit };
	if (lkpetc_load(&err) || sides_load(args, 2, db, result_dir, &sides, &err))
		goto bad;

	/* every job both sides ran: compared; the one whose headline moved most leads */
	res = xcalloc(sides[0].ng ? sides[0].ng : 1, sizeof(*res));
	const struct group **bgs = xcalloc(sides[0].ng ? sides[0].ng : 1, sizeof(*bgs));
	const struct group **ngs = xcalloc(sides[0].ng ? sides[0].ng : 1, sizeof(*ngs));
	ssize_t lead = -1;
	for (size_t gi = 0; gi < sides[0].ng; gi++) {
		const struct group *hit = side_match(&sides[1], &sides[0], &sides[0].g[gi]);
		if (!hit)
			continue;
		const struct node *mats[2] = { sides[0].g[gi].matrix, hit->matrix };
		const char *labels[2] = { sides[0].label, sides[1].label };
		const struct group *grs[2] = { &sides[0].g[gi], hit };
		const uint64_t *rounds[2];
		size_t nrounds[2];
		/* the floors: the command line's (first: they win), then this job's own, for this group only */
		size_t ours = floors.n;
		char *gjp = hit->run_dir ? xasprintf("%s/job.yaml", hit->run_dir) : NULL, *gjt = read_text(gjp);
		struct node *gj = gjt ? yml_load_one(gjt, gjp, &err) : NULL;
		strbuf_reset(&err);
		if (gj && gj->type == NODE_MAP && compare_floors_add_map(&floors, node_get(gj, "change_floor"), "change_floor", &err)) {
			strbuf_reset(&err);
			cmd_warn("%s: change_floor: not a map of metric -> percent; its floors are ignored", gjp);
		}
		node_free(gj);
		free(gjt);
		free(gjp);
		sides_rounds(grs, 2, rounds, nrounds);
		struct compare_opts co = { .floors = &floors, .rounds = rounds, .nrounds = nrounds };
		int cr = compare_matrices(mats, labels, 2, &co, &res[nres], &err);
		while (floors.n > ours)
			free(floors.v[--floors.n].glob);
		if (cr) {
			free(bgs);
			free(ngs);
			goto bad;
		}
		bgs[nres] = &sides[0].g[gi];
		ngs[nres] = hit;
		const struct compare_row *h = report_headline(&res[nres], metric);
		if (h && (lead < 0 || fabs(h->change[1]) > fabs(report_headline(&res[lead], metric)->change[1])))
			lead = (ssize_t)nres;
		nres++;
	}
	if (!nres) {
		free(bgs);
		free(ngs);
		strbuf_setf(&err, "%s and %s share no job: nothing to compare", sides[0].label, sides[1].label);
		goto bad;
	}
	if (lead < 0) {
		free(bgs);
		free(ngs);
		/* the decision's reason, of the group that has the metric (the first, else) */
		size_t why = 0;
		for (size_t i = 0; metric && i < nres; i++)
			for (size_t k = 0; k < res[i].nrows; k++)
				if (!strcmp(res[i].rows[k].metric, metric) && !why)
					why = i + 1;
		report_nothing(&res[why ? why - 1 : 0], metric, &err);
		ret = cmd_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	/* the lead's job, as the commit's run wrote it */
	char *jp = ngs[lead]->run_dir ? xasprintf("%s/job.yaml", ngs[lead]->run_dir) : NULL;
	job_text = read_text(jobfile ? jobfile : jp);
	char *run_job = read_text(jp);
	if (run_job && !(job = yml_load_one(run_job, jp, &err))) {
		free(run_job);
		free(jp);
		free(bgs);
		free(ngs);
		goto bad;
	}
	free(run_job);
	free(jp);
	if (job && job->type != NODE_MAP) {
		node_free(job);	/* a job.yaml that is a list says nothing about the job */
		job = NULL;
	}
	if (!job)
		job = node_new(NODE_MAP);
	if (ngs[lead]->run_dir) {
		char *rp = xasprintf("%s/reproduce.sh", ngs[lead]->run_dir);
		repro = read_text(rp);
		free(rp);
	}
	if (kconfig) {
		if (!(config = read_text(kconfig))) {
			free(bgs);
			free(ngs);
			strbuf_setf(&err, "--kconfig %s: cannot read it", kconfig);
			goto bad;
		}
		const char *rel = node_str(node_get(job, "kconfig"));
		config_name = xasprintf("config-%s", rel ? rel : "kernel");
	}
	/* the other jobs that changed */
	others = xcalloc(nres, sizeof(*others));
	params = xcalloc(nres, sizeof(*params));
	machines = xcalloc(nres, sizeof(*machines));
	for (size_t i = 0; i < nres; i++) {
		const struct compare_row *h = report_headline(&res[i], metric);
		if ((ssize_t)i == lead || !h)
			continue;
		struct node *oj = NULL;
		char *op = ngs[i]->run_dir ? xasprintf("%s/job.yaml", ngs[i]->run_dir) : NULL;
		char *ot = read_text(op);
		struct strbuf e2 = STRBUF_INIT, m = STRBUF_INIT;
		if (ot)
			oj = yml_load_one(ot, op, &e2);
		if (oj && oj->type != NODE_MAP) {
			node_free(oj);
			oj = NULL;
		}
		params[i] = node_new(NODE_MAP);
		if (oj) {
			job_params(oj, NULL, params[i]);
			report_machine(oj, &m);
			machines[i] = strbuf_detach(&m);
		}
		const char *tc = oj ? node_str(node_get(oj, "testcase")) : NULL;
		others[nothers++] = (struct report_other){ tc ? xstrdup(tc) : xstrndup(bgs[i]->desc, strcspn(bgs[i]->desc, "/")),
							   h, machines[i], params[i] };
		node_free(oj);
		free(ot);
		free(op);
		strbuf_release(&e2);
		strbuf_release(&m);
	}
	/* recipients the user named: --send uses them instead of the commit's */
	bool user_rcpts = to.n || cc.n;
	/* who wrote the commit, from the tree */
	if (tree) {
		struct gitrepo *repo;
		struct gitrepo_commit gc;
		if (gitrepo_open(&repo, tree, &err)) {
			free(bgs);
			free(ngs);
			goto bad;
		}
		if (gitrepo_commit_info(repo, sides[1].label, &gc, &err)) {
			gitrepo_close(repo);
			free(bgs);
			free(ngs);
			goto bad;
		}
		full = xstrdup(gc.id);
		subject = xstrdup(gc.subject);
		reply_to = report_link_message_id(gc.message);
		char *raw = xasprintf("%s <%s>", gc.author_name, gc.author_email);
		author = recipients_normalize(raw);	/* never a control character in a header */
		free(raw);
		gitrepo_commit_release(&gc);
		gitrepo_close(repo);
		if (!to.n && author)
			addrs_add(&to, author);
	}
	if (!from) {
		gethostname(host, sizeof(host) - 1);
		from_default = xasprintf("lkprobot <lkprobot@%s>", strchr(host, '.') || !strcmp(host, "localhost")
									    ? host : "localhost");
		from = from_default;
	}
	struct report_input in = {
		.cmp = &res[lead],
		.metric = metric,
		.job = job,
		.test_desc = bgs[lead]->desc,
		.commit = full ? full : sides[1].label,
		.commit_subject = subject,
		.url = url,
		.tree_url = tree_url,
		.lkprobot_url = lkprobot_url,
		.closes = closes,
		.in_reply_to = reply_to,
		.note = note,
		.others = others,
		.nothers = nothers,
		.from = from,
		.to = to.v,
		.nto = to.n,
		.cc = cc.v,
		.ncc = cc.n,
		.signature = signature,
		.domain = domain ? domain : "localhost",
		.date = date,
		.job_yaml = job_text,
		.reproduce = repro,
		.kconfig = config,
		.kconfig_name = config_name,
		.lf = output != NULL || !isatty(1),
	};
	free(bgs);
	free(ngs);
	if (send) {
		if (body_only || output) {
			strbuf_setf(&err, "--send delivers the message: not with --body or -o");
			goto bad;
		}
		ret = send_report(&in, config_file, tree, user_rcpts, from != from_default, domain != NULL, db, result_dir,
				  &err);
		goto out;
	}
	if (body_only ? report_body(&in, &out, &err) : report_render(&in, &out, &err))
		goto bad;
	if (output) {
		FILE *f = fopen(output, "w");
		if (!f || fwrite(out.buf, 1, out.len, f) != out.len || fclose(f)) {
			ret = cmd_error(EXIT_FAIL, "%s: cannot write the report", output);
			goto out;
		}
	} else {
		fwrite(out.buf, 1, out.len, stdout);
	}
	ret = EXIT_OK;
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	compare_floors_release(&floors);
	for (size_t i = 0; i < nothers; i++)
		free((char *)others[i].testcase);
	free(others);
	for (size_t i = 0; params && i < nres; i++) {
		node_free(params[i]);
		free(machines[i]);
	}
	free(params);
	free(machines);
	for (size_t i = 0; res && i < nres; i++)
		compare_result_release(&res[i]);
	free(res);
	sides_release(sides, 2);
	node_free(job);
	free(job_text);
	free(repro);
	free(config);
	free(config_name);
	free(from_default);
	free(author);
	free(subject);
	free(reply_to);
	free(full);
	free(to.v);
	free(cc.v);
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}

/*
 * lkprobot serve: the robot as a service. It watches the branches of git
 * trees; each new head is compared with its base (the branch's last tested
 * head, or its parent) by the bisection flow `lkprobot bisect` runs — which
 * measures both ends and, when they differ, finds and confirms the first
 * commit of the change — and a culprit's report is queued and delivered by
 * the report flow of `lkprobot report --send` (flow/serve_*.c: a worker a
 * head, a bisect child a job, typed results); all state is in the store and the result roots, so a
 * service killed at any moment and started again redoes nothing that had
 * completed (runs are reused, mails are queued once by Message-ID) and
 * goes on. `lkprobot status` shows it.
 */
#include "cmd.h"
#include "opt.h"
#include "../flow/serve.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/util/json.h"
#include "../lib/store/store.h"
#include "../mail/mailconf.h"
#include "../providers/qemu.h"
#include "../web/web.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot serve -c FILE [--once] [--listen HOST:PORT] [--accel A]\n"
	"       lkprobot check-config -c FILE\n"
	"       lkprobot status -c FILE [--json [--limit N] [--after ID]]\n"
	"\n"
	"serve: watch the trees of the configuration's serve: section; test each new\n"
	"head of their branches against its base (the branch's last head that was\n"
	"tested and measured, or its parent) as 'lkprobot bisect' does (both ends\n"
	"measured in interleaved rounds; when they differ beyond the metric's floor,\n"
	"the first commit of the change found and confirmed), queue the culprit's\n"
	"report as 'lkprobot report --send' does (mail: section; the same decision)\n"
	"and deliver the outbox. A branch's first head that is a root commit is\n"
	"measured on its own, its baseline. A head that does not build is\n"
	"build_failed, with its first error line. The mailing lists of serve.lists\n"
	"are read too: each complete patch series is applied in serve.series_repo\n"
	"('lkprobot series --apply') and its head tested against its base the same\n"
	"way, its report in reply to the series' cover letter. Replies to the\n"
	"reports, in those lists and in serve.maildir, are read for '#lkprobot'\n"
	"commands (test, recheck, invalid, fixed-by, dup, ack, wont-fix) from the\n"
	"report's To/Cc or serve.maintainers, each answered once (test and recheck\n"
	"measured in workers, as heads are); a report whose change is gone at a\n"
	"later head is followed up in its thread, marked fixed.\n"
	"One line a step on stderr, with its reason. SIGTERM: finish\n"
	"the step under way and stop; SIGHUP: read the configuration again. --once:\n"
	"one pass (poll, test what is queued, deliver), then stop.\n"
	"check-config: read the configuration and say what is wrong in it.\n"
	"status: the heads the service has seen, one line each: where it stands, each\n"
	"job's outcome in words and the report's mail as the outbox has it (--json:\n"
	"as JSON, each head's result as data, a report's delivery state as mail\n"
	"and its triage state as state; a\n"
	"page of heads: --limit of them, 500 unless given, at most 10000, after head\n"
	"--after ID, the last id of the page before), then the mailing lists' series\n"
	"that are no head, with why (incomplete, does not apply, ...).\n"
	"\n"
	"The configuration's keys (serve: and its trees, the providers' settings,\n"
	"mail:) with their defaults: docs/configuration.md, or 'lkprobot help config'.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 stopped as asked (or the configuration is right), 1 a step\n"
	"failed in a way the service cannot go on from, 2 a bad configuration or usage\n";

static volatile sig_atomic_t reload_asked;
static char *dashboard_base; /* where the dashboard is: serve.series_url's default (serve_conf_series_url) */

static void on_hup(int sig)
{
	(void)sig;
	reload_asked = 1;
}

/* serve.series_url's default: the dashboard's /git/ (serve_conf_series_url); true when it is the default. */
static bool series_url_default(struct serve_conf *conf, const char *listen)
{
	dashboard_base = conf->public_url ? xstrdup(conf->public_url) : xasprintf("http://%s", listen);
	bool dflt = conf->nlists && !conf->series_url;
	serve_conf_series_url(conf, dashboard_base);
	return dflt && conf->series_url;
}

/* The dashboard on listen, in a process of its own: it knows the trees and the providers' boxes. NULL with err set. */
static struct web_proc *dashboard(struct serve_conf *conf, const char *listen, const struct lkp_ctx *ctx,
				  struct strbuf *err)
{
	/* the providers whose boxes the dashboard shows: one inventory each (the first tree's settings) */
	struct web_inventory *inv = xcalloc(conf->ntrees + 1, sizeof(*inv));
	struct provider_config *invcfg = xcalloc(conf->ntrees + 1, sizeof(*invcfg));
	size_t ninv = 0;
	for (size_t i = 0; i < conf->ntrees; i++) {
		bool seen = !conf->trees[i].ops->inventory;
		for (size_t k = 0; k < ninv && !seen; k++)
			seen = inv[k].ops == conf->trees[i].ops;
		if (seen)
			continue;
		invcfg[ninv] = (struct provider_config){ .result_dir = conf->result_root, .cache = conf->cache,
							 .db = conf->db, .data_dir = ctx->data_dir,
							 .opts = conf->trees[i].opts };
		inv[ninv] = (struct web_inventory){ conf->trees[i].ops, &invcfg[ninv] };
		ninv++;
	}
	/* the dashboard knows the trees: commit pages, subjects, one history series a tree */
	struct web_tree *wt = xcalloc(conf->ntrees + 1, sizeof(*wt));
	for (size_t i = 0; i < conf->ntrees; i++)
		wt[i] = (struct web_tree){ conf->trees[i].name, conf->trees[i].path,
					   (const char *const *)conf->trees[i].branches, conf->trees[i].nbranches };
	struct web_list *wl = xcalloc(conf->nlists + 1, sizeof(*wl));
	for (size_t i = 0; i < conf->nlists; i++)
		wl[i] = (struct web_list){ conf->lists[i].name, conf->lists[i].url };
	bool dflt = series_url_default(conf, listen);
	struct web_opts wo = { .addr = listen,
			       .db = conf->db,
			       .result_root = conf->result_root,
			       .token = conf->token,
			       .inventories = inv,
			       .ninventories = ninv,
			       .trees = wt,
			       .ntrees = conf->ntrees,
			       .public_url = conf->public_url,
			       .git_repo = conf->nlists ? conf->series_repo : NULL,
			       .lists = wl,
			       .nlists = conf->nlists,
			       .series_url = conf->series_url };
	struct web_proc *web = web_spawn(&wo, err);
	if (web && dflt)
		serve_say("the series are at %s (git clone takes it; serve.series_url)", conf->series_url);
	free(wl);
	free(wt);
	free(inv);
	free(invcfg);
	return web;
}

#define DASHBOARD_RESTART 60 /* s: a dashboard that ended is started again, at most once in this time */

/* The dashboard's process ended (a crash)? Said, and started again — not more often than DASHBOARD_RESTART. */
static void dashboard_check(struct web_proc **web)
{
	static double last;
	struct strbuf why = STRBUF_INIT, err = STRBUF_INIT;

	if (!*web || !web_proc_ended(*web, &why) || (last && proc_now() - last < DASHBOARD_RESTART))
		goto out;
	last = proc_now();
	if (web_proc_restart(*web, &err)) {
		serve_say(
			"the dashboard's process ended (%s) and does not start again: %s; the service goes on "
			"without it",
			why.buf, err.buf);
		web_proc_stop(*web);
		*web = NULL;
	} else {
		serve_say("the dashboard's process ended (%s); started again", why.buf);
	}
out:
	strbuf_release(&why);
	strbuf_release(&err);
}

/*
 * Pass after pass until a stop (or once); SIGHUP reads the configuration
 * again; a dashboard that ended is started again between passes. The exit code.
 */
static int serve_loop(struct serve_conf *conf, const char *config, struct store *s, bool once, struct web_proc **web)
{
	struct strbuf err = STRBUF_INIT;
	int ret = EXIT_OK;
	double faulty = 0; /* since when the passes fail on a fault that may pass */

	while (!proc_stop_signal) {
		if (serve_one_pass(conf, config, s, &err)) {
			/* the disk full for a while, another process holding the store: waited out (serve.h) */
			if (store_failed_on_fault(s) && !proc_stop_signal &&
			    (!faulty || proc_now() - faulty < SERVE_FAULT_WAIT)) {
				if (!faulty)
					serve_say("%s: the pass again every %d s for up to %d s", err.buf,
						  SERVE_FAULT_RETRY, SERVE_FAULT_WAIT);
				faulty = faulty ? faulty : proc_now();
				strbuf_reset(&err);
				sleep(SERVE_FAULT_RETRY);
				continue;
			}
			serve_say("%s", err.buf);
			ret = EXIT_FAIL;
			break;
		}
		if (faulty)
			serve_say("a pass went through again after %.0f s", proc_now() - faulty);
		faulty = 0;
		if (once)
			break;
		for (long i = 0; i < conf->poll && !proc_stop_signal && !reload_asked; i++) {
			dashboard_check(web);
			sleep(1);
		}
		if (reload_asked) {
			struct serve_conf fresh;
			reload_asked = 0;
			bool loaded = !serve_conf_load(&fresh, config, &err);
			if (loaded) {
				fresh.data_dir = conf->data_dir;
				serve_conf_series_url(&fresh, dashboard_base);
			}
			if (!loaded || serve_conf_check_jobs(&fresh, &err)) {
				serve_say("SIGHUP: %s; keeping the configuration in use", err.buf);
				strbuf_reset(&err);
				if (loaded)
					serve_conf_release(&fresh);
			} else {
				serve_conf_release(conf);
				*conf = fresh;
				serve_say("SIGHUP: configuration read again (%zu trees)", conf->ntrees);
			}
		}
	}
	strbuf_release(&err);
	return ret;
}

/* check-config's answer once the serve: section is good: its mail: section read, what it holds in one line. */
static int check_config_said(const struct serve_conf *conf, const char *config)
{
	struct strbuf err = STRBUF_INIT;
	struct mailconf mc;
	int ret = EXIT_OK;

	if (mailconf_load(&mc, config, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
	} else {
		printf("%s: %zu tree%s, ", config, conf->ntrees, conf->ntrees == 1 ? "" : "s");
		if (conf->nlists)
			printf("%zu mailing list%s (series into %s), ", conf->nlists, conf->nlists == 1 ? "" : "s",
			       conf->series_repo);
		printf("mail %s", mc.live ? "live" : "a dry run (to the operator only)");
		if (mc.nsubs || mc.nopt_out)
			printf(", %zu subscription%s, %zu opted out", mc.nsubs, mc.nsubs == 1 ? "" : "s", mc.nopt_out);
		printf("\n");
		mailconf_release(&mc);
	}
	strbuf_release(&err);
	return ret;
}

int cmd_serve(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *config = NULL, *listen = NULL, *accel = NULL, *limit = NULL, *after = NULL;
	bool once = false, json = false;
	const struct opt table[] = {
		OPT_STRING('c', "config", "FILE", "the configuration (serve: and mail: sections)", &config),
		OPT_BOOL(0, "once", "serve: one pass, then stop", &once),
		OPT_STRING(0, "listen", "HOST:PORT",
			   "serve: the dashboard (HTML, and JSON under /api/), on an\n"
			   "address, a name or [IPv6] (localhost:8080, [::1]:8080):\n"
			   "per tree and branch each head's state, queue,\n"
			   "machines, heads, commits, compare, metric history,\n"
			   "bisections, report mails, regressions (triage),\n"
			   "the result roots' files; actions (retest, cancel,\n"
			   "resend, a report's state) with the token;\n"
			   "serve.series_repo read-only under /git/ (git clone)",
			   &listen),
		OPT_STRING(0, "accel", "A", "serve: qemu's kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto)",
			   &accel),
		OPT_BOOL(0, "json", "status: as JSON", &json),
		OPT_STRING(0, "limit", "N", "status --json: at most N heads (default 500, at most 10000)", &limit),
		OPT_STRING(0, "after", "ID", "status --json: the heads after head ID (the page before's last)", &after),
		OPT_END(),
	};
	struct web_proc *web = NULL;
	struct serve_conf conf;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;
	int ret;

	ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false);
	if (ret != OPT_GO)
		return ret;
	if (!config || optind != argc)
		return say_error(EXIT_USAGE, "%s needs -c FILE (and nothing else); see 'lkprobot serve --help'",
				 ctx->cmd);
	if (json && strcmp(ctx->cmd, "status"))
		return say_error(EXIT_USAGE, "--json is an option of 'lkprobot status'; see 'lkprobot serve --help'");
	if ((limit || after) && !json)
		return say_error(EXIT_USAGE, "--limit and --after page 'lkprobot status --json'; add --json");
	/* the bisections it starts inherit the choice (LKPROBOT_ACCEL) */
	if (accel && qemu_accel_option(accel, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	if (serve_conf_load(&conf, config, &err) || lkpetc_load(&err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	conf.data_dir = ctx->data_dir;
	/* what `run` refuses, before anything runs (check-config too) */
	if (strcmp(ctx->cmd, "status") && serve_conf_check_jobs(&conf, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (!strcmp(ctx->cmd, "check-config")) {
		ret = check_config_said(&conf, config);
		goto out;
	}
	if (fsutil_mkdir_p(conf.result_root) || !(s = store_open(conf.db, &err))) {
		ret = say_error(EXIT_FAIL, "%s", err.len ? err.buf : "cannot create the result root");
		goto out;
	}
	if (!strcmp(ctx->cmd, "status")) {
		ret = serve_status(s, json, limit, after);
		goto out;
	}
	web = listen ? dashboard(&conf, listen, ctx, &err) : NULL;
	if (listen && !web) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (web)
		serve_say("the dashboard is at http://%s/%s%s (%s)", listen, conf.public_url ? ", for readers " : "",
			  conf.public_url ? conf.public_url : "", conf.token ? "actions need the token" : "read-only");
	struct sigaction sa = { 0 };
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	proc_catch_stop(NULL);
	/* no walk of the result roots: a run on disk the store lacks is recorded when a bisection reads it */
	serve_say("watching %zu tree%s (%s), every %ld s", conf.ntrees, conf.ntrees == 1 ? "" : "s", config, conf.poll);
	ret = serve_loop(&conf, config, s, once, &web);
	serve_say("stopped");
out:
	web_proc_stop(web);
	free(dashboard_base);
	if (s)
		store_close(s);
	serve_conf_release(&conf);
	strbuf_release(&err);
	return ret;
}

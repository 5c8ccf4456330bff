/*
 * lkprobot recipients: who a report of a commit goes to, and why each —
 * the author, the committer, the trailers, the MAINTAINERS sections of the
 * files it touches, the configured lists, the subscriptions — who
 * mail.opt_out leaves out, and whether the configuration sends to them at
 * all (live) or to the operator only.
 */
#include "cmd.h"
#include "opt.h"
#include "../mail/mailconf.h"
#include "../mail/recipients.h"

#include <stdio.h>
#include <string.h>

static const char usage_head[] =
	"usage: lkprobot recipients --tree DIR [--tree-name NAME] [--improvement] [--config FILE] REV\n"
	"\n"
	"Print the recipients of a report on commit REV of the git repository DIR:\n"
	"To: its author; Cc: its committer, the addresses of its Signed-off-by,\n"
	"Co-developed-by, Reviewed-by, Acked-by, Tested-by, Reported-by and Cc\n"
	"trailers, the maintainers, reviewers and lists of the MAINTAINERS sections\n"
	"(of that commit's tree) whose F:/N:/X: patterns match the files it touches,\n"
	"the configured lists (mail.lists), and the subscribers (mail.subscriptions)\n"
	"whose paths, MAINTAINERS entries or trees the commit is in, for a regression\n"
	"(or, --improvement, an improvement). Each address once, with the reasons\n"
	"(a subscriber's: which subscription); addresses that are not valid are\n"
	"dropped with a warning on stderr. Comment lines say which subscribers are\n"
	"not for this kind of change, and who mail.opt_out leaves out.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 printed, 2 bad input (no such tree or commit, a bad\n"
	"configuration) or usage\n";

int cmd_recipients(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *tree = NULL, *config = NULL, *tree_name = NULL;
	bool improvement = false;
	const struct opt table[] = {
		OPT_STRING(0, "tree", "DIR", "the git repository", &tree),
		OPT_STRING(0, "tree-name", "NAME", "its name in serve.trees (mail.subscriptions' trees;\ndefault: DIR)",
			   &tree_name),
		OPT_BOOL(0, "improvement", "for an improvement (default: a regression)", &improvement),
		OPT_STRING(0, "config", "FILE",
			   "lkprobot's configuration (default $LKPROBOT_CONFIG,\n"
			   "/etc/lkprobot/config.yaml)",
			   &config),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct mailconf mc;
	struct recipients r;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	if (!tree || optind != argc - 1)
		return say_error(EXIT_USAGE,
				 "recipients needs --tree DIR and one commit; see 'lkprobot recipients --help'");
	if (mailconf_load(&mc, config, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	struct recipients_input conf = { .lists = (const char *const *)mc.lists,
					 .nlists = mc.nlists,
					 .max = (size_t)mc.max_recipients,
					 .subs = mc.subs,
					 .nsubs = mc.nsubs,
					 .tree_name = tree_name,
					 .kind = improvement ? 1 : -1 };
	if (recipients_of_commit(tree, argv[optind], &conf, &r, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < r.nwarnings; i++)
		say_warn("%s", r.warnings[i]);
	/* as the mail rules do (mail/mailrules.c): nobody opted out */
	for (size_t i = 0; i < r.n; i++)
		if (!mailconf_opted_out(&mc, r.v[i].addr))
			printf("%s %-50s # %s\n", r.v[i].to ? "To:" : "Cc:", r.v[i].addr, r.v[i].why);
	for (size_t i = 0; i < r.nnotes; i++)
		printf("# %s\n", r.notes[i]);
	for (size_t i = 0; i < r.n; i++)
		if (mailconf_opted_out(&mc, r.v[i].addr))
			printf("# opted out, not mailed: %s (%s; mail.opt_out: %s)\n", r.v[i].addr, r.v[i].why,
			       mailconf_opted_out(&mc, r.v[i].addr));
	if (!mc.live)
		printf("# a dry run (mail.live is not true%s): reports go to %s only\n", mc.path ? "" : ", no configuration",
		       mc.operator_ ? mc.operator_ : "the operator, and none is configured (mail.operator)");
	recipients_release(&r);
	ret = EXIT_OK;
out:
	mailconf_release(&mc);
	strbuf_release(&err);
	return ret;
}

/*
 * lkprobot recipients: who a report of a commit goes to, and why each —
 * the author, the committer, the trailers, the MAINTAINERS sections of the
 * files it touches, the configured lists — and whether the configuration
 * sends to them at all (live) or to the operator only.
 */
#include "cmd.h"
#include "opt.h"
#include "../mail/mailconf.h"
#include "../mail/recipients.h"

#include <stdio.h>
#include <string.h>

static const char usage_head[] =
	"usage: lkprobot recipients --tree DIR [--config FILE] REV\n"
	"\n"
	"Print the recipients of a report on commit REV of the git repository DIR:\n"
	"To: its author; Cc: its committer, the addresses of its Signed-off-by,\n"
	"Co-developed-by, Reviewed-by, Acked-by, Tested-by, Reported-by and Cc\n"
	"trailers, the maintainers, reviewers and lists of the MAINTAINERS sections\n"
	"(of that commit's tree) whose F:/N:/X: patterns match the files it touches,\n"
	"and the configured lists (mail.lists). Each address once, with the reasons;\n"
	"addresses that are not valid are dropped with a warning on stderr.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 printed, 2 bad input (no such tree or commit, a bad\n"
	"configuration) or usage\n";

int cmd_recipients(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *tree = NULL, *config = NULL;
	const struct opt table[] = {
		OPT_STRING(0, "tree", "DIR", "the git repository", &tree),
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
	if (recipients_of_commit(tree, argv[optind], (const char *const *)mc.lists, mc.nlists,
					 (size_t)mc.max_recipients, &r, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	for (size_t i = 0; i < r.nwarnings; i++)
		say_warn("%s", r.warnings[i]);
	for (size_t i = 0; i < r.n; i++)
		printf("%s %-50s # %s\n", r.v[i].to ? "To:" : "Cc:", r.v[i].addr, r.v[i].why);
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

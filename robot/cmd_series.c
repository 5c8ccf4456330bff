/*
 * lkprobot series: the patch series of a public-inbox archive and where
 * each stands (complete, waiting, incomplete, superseded, broken), the
 * mails refused and why; with --apply, each complete series applied as
 * git am would onto its base in the robot's repository, on a branch named
 * as 0-day names them; with --mail, one mail read as the robot reads it.
 */
#include "cmd.h"
#include "opt.h"
#include "../flow/lists.h"
#include "../mail/series.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static const char usage_head[] =
	"usage: lkprobot series [--wait SECONDS] ARCHIVE\n"
	"       lkprobot series --apply --tree DIR [--branch NAME] --repo DIR [--link URL] ARCHIVE\n"
	"       lkprobot series --mail FILE\n"
	"\n"
	"List the patch series of the public-inbox v2 archive ARCHIVE (the directory\n"
	"public-inbox-init -V2 made; its epochs git/N.git read with libgit2): one line\n"
	"each, its state, version, patches, author and subject, then why when it has a\n"
	"reason (what is missing, what is broken). [PATCH vN m/n] mails are grouped by\n"
	"their thread (the cover letter or the first patch) and version; vN supersedes\n"
	"vN-1 of the same author and subject; a series missing parts waits SECONDS after\n"
	"its newest mail, then is incomplete. Replies and mail that is no patch are\n"
	"ignored (counted); hostile mails (larger than 10 MiB, more than 500 patches,\n"
	"control characters in a header, no diff, a diff whose paths leave the tree,\n"
	"a symlink, a submodule or a binary diff) are refused, one line each with why.\n"
	"A patch is read from the mail's text, or from a text part after it (as git\n"
	"format-patch attaches it, or puts it inline), decoded from quoted-printable\n"
	"or base64.\n"
	"\n"
	"--apply applies each complete series, as git am would, onto its base: its\n"
	"base-commit: when the tree DIR has it, else the head of --branch at its date.\n"
	"The bare repository --repo (made when missing) fetches DIR's branches and gets\n"
	"a branch <Author-Name>/<subject>/<YYYYMMDD-HHMMSS> per applied series. A\n"
	"series that does not apply is said with its first failing patch; patches whose\n"
	"paths leave the tree, symlinks, submodules and binary diffs are refused.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 listed (and every complete series applied), 1 a series did not\n"
	"apply or was refused, 2 bad input (no such archive, a refused --mail) or usage\n";

/* One series' line: state, version, patches, author, subject; why on the next line. */
static void print_series(const struct series *s)
{
	struct strbuf line = STRBUF_INIT;
	int have = 0;

	for (int k = 1; k <= s->total; k++)
		have += s->part[k] != NULL;
	strbuf_addf(&line, "%-10s v%d %d/%d ", series_state_name(s->state), s->version, have, s->total);
	strbuf_add_name(&line, s->author_name ? s->author_name : "?");
	strbuf_addstr(&line, ": ");
	strbuf_add_name(&line, s->subject ? s->subject : "(no subject)");
	printf("%s\n", line.buf);
	if (s->why) {
		strbuf_reset(&line);
		strbuf_add_name(&line, s->why);
		printf("    %s\n", line.buf);
	}
	strbuf_release(&line);
}

/* --apply of one complete series: 0 applied, 1 not. */
static int apply_one(const struct series *s, const char *repo, const char *tree, const char *branch, const char *link)
{
	struct lists_applied a;
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;
	int rc = lists_apply(s, repo, tree, "tree", branch, link, &a, &err);

	if (rc < 0)
		strbuf_addf(&line, "    not applied: %s", err.buf);
	else if (rc)
		strbuf_addf(&line, "    not applied: %s", a.why);
	else
		strbuf_addf(&line, "    applied: %s (%d commit%s on %.12s, %s)", a.branch, s->total,
			    s->total == 1 ? "" : "s", a.base, a.base_how);
	struct strbuf safe = STRBUF_INIT;
	strbuf_add_name(&safe, line.buf);
	printf("%s\n", safe.buf);
	strbuf_release(&safe);
	strbuf_release(&line);
	strbuf_release(&err);
	lists_applied_release(&a);
	return rc ? 1 : 0;
}

/* --mail FILE: the mail as the robot reads it; 2 when it is refused. */
static int one_mail(const char *file)
{
	struct strbuf data = STRBUF_INIT, err = STRBUF_INIT;
	struct series_mail m;
	static const char *const kinds[] = { "not a patch (ignored)", "cover letter", "patch", "refused" };

	bool too_big = false;

	if (strbuf_read_bounded(&data, file, SERIES_MAX_MAIL, &err)) {
		if (errno != EFBIG) {
			int ret = say_error(EXIT_USAGE, "%s", err.buf);
			strbuf_release(&err);
			return ret;
		}
		too_big = true; /* refused by the parser as the robot refuses it, with its reason */
	}
	series_mail_parse(too_big ? NULL : data.buf, too_big ? SERIES_MAX_MAIL + 1u : data.len, &m);
	strbuf_release(&err);
	strbuf_release(&data);
	int ret = EXIT_OK;
	if (m.kind == SERIES_REFUSED) {
		ret = say_error(EXIT_USAGE, "%s: refused: %s", file, m.why);
	} else {
		struct strbuf l = STRBUF_INIT;
		strbuf_addf(&l, "%s: %s v%d %d/%d ", file, kinds[m.kind], m.version, m.index, m.total);
		strbuf_add_name(&l, m.title);
		printf("%s\n", l.buf);
		strbuf_release(&l);
	}
	series_mail_release(&m);
	return ret;
}

int cmd_series(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *tree = NULL, *branch = "master", *repo = NULL, *mail = NULL, *link = NULL;
	bool apply = false;
	long wait = 3600;
	const struct opt table[] = {
		OPT_LONG(0, "wait", "SECONDS", "how long a series missing parts waits (default 3600)", &wait, 0,
			 LONG_MAX, "a number of seconds"),
		OPT_BOOL(0, "apply", "apply each complete series (needs --tree and --repo)", &apply),
		OPT_STRING(0, "tree", "DIR", "the git repository the patches apply to", &tree),
		OPT_STRING(0, "branch", "NAME", "the base when a series names none (default master)", &branch),
		OPT_STRING(0, "repo", "DIR", "the robot's bare repository of applied series", &repo),
		OPT_STRING(0, "link", "URL", "each commit gets Link: URL/<Message-ID> (b4 am -l)", &link),
		OPT_STRING(0, "mail", "FILE", "read one mail (exit 2 when it is refused)", &mail),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct series_set set = { 0 };
	size_t nmails;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	if (mail)
		return optind == argc ? one_mail(mail)
				      : say_error(EXIT_USAGE, "series --mail reads one mail and no archive");
	if (optind != argc - 1 || (apply && (!tree || !repo)))
		return say_error(EXIT_USAGE, "series needs one ARCHIVE%s; see 'lkprobot series --help'",
				 apply ? ", and --apply needs --tree DIR and --repo DIR" : "");
	if (lists_read(argv[optind], NULL, NULL, &set, &nmails, (int64_t)time(NULL), &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	series_set_settle(&set, (int64_t)time(NULL), wait);
	printf("%zu mails: %zu series, %zu ignored (replies, not patches), %zu refused\n", nmails, set.n, set.ignored,
	       set.nrefused);
	ret = EXIT_OK;
	for (size_t i = 0; i < set.n; i++) {
		print_series(&set.v[i]);
		if (apply && set.v[i].state == SERIES_COMPLETE && apply_one(&set.v[i], repo, tree, branch, link))
			ret = EXIT_FAIL;
	}
	for (size_t i = 0; i < set.nrefused; i++) {
		struct strbuf l = STRBUF_INIT;
		const struct series_mail *m = set.refused[i];
		strbuf_addf(&l, "refused    %s: %s", m->message_id ? m->message_id : m->where, m->why ? m->why : "");
		struct strbuf safe = STRBUF_INIT;
		strbuf_add_name(&safe, l.buf);
		printf("%s\n", safe.buf);
		strbuf_release(&safe);
		strbuf_release(&l);
	}
out:
	series_set_release(&set);
	strbuf_release(&err);
	return ret;
}

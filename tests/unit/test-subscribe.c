/*
 * Unit tests: who gets what — mail.subscriptions matched by paths,
 * MAINTAINERS entries and trees, for regressions only or improvements too
 * (mail/recipients.c), mail.opt_out read and matched (mail/mailconf.c), and
 * the mail rules that drop an opted-out address and hold a report left
 * with nobody (mail/mailrules.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/results/compare.h"
#include "../../mail/mailconf.h"
#include "../../mail/mailrules.h"
#include "../../mail/recipients.h"

static const char maintainers_text[] =
	"LIBNVDIMM PMEM: PERSISTENT MEMORY DRIVER\n"
	"M:\tDan Williams <dan.j.williams@intel.com>\n"
	"F:\tdrivers/nvdimm/pmem*\n"
	"\n"
	"XFS FILESYSTEM\n"
	"M:\tDarrick J. Wong <djwong@kernel.org>\n"
	"F:\tfs/xfs/\n";

static const struct recipient *find(const struct recipients *r, const char *email)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].email, email))
			return &r->v[i];
	return NULL;
}

static char *paths_nvdimm[] = { "drivers/nvdimm/*", NULL };
static char *paths_mm[] = { "mm/", NULL };
static char *entries_pmem[] = { "libnvdimm pmem*", NULL };
static char *trees_linux[] = { "linux", NULL };
static char *trees_path[] = { "/srv/git/*", NULL };

/* A path, an entry (a glob, without case), a tree by name or path; the kind of change each wants. */
static void test_subscriptions_match(void **state)
{
	(void)state;
	struct recipients_sub subs[] = {
		{ .address = "Pmem Watch <pmem@example.org>", .paths = paths_nvdimm, .npaths = 1 },
		{ .address = "mm@example.org", .paths = paths_mm, .npaths = 1, .improvements = true },
		{ .address = "Entry <entry@example.org>",
		  .maintainers = entries_pmem,
		  .nmaintainers = 1,
		  .improvements = true },
		{ .address = "tree@example.org", .trees = trees_linux, .ntrees = 1 },
		{ .address = "path@example.org", .trees = trees_path, .ntrees = 1 },
		/* already a recipient (a maintainer): one address, both reasons */
		{ .address = "DAN <Dan.J.Williams@intel.com>", .paths = paths_nvdimm, .npaths = 1 },
	};
	const char *paths[] = { "drivers/nvdimm/pmem.c" };
	struct recipients_input in = { .author = "A <a@example.org>",
				       .maintainers = maintainers_text,
				       .paths = paths,
				       .npaths = 1,
				       .subs = subs,
				       .nsubs = 6,
				       .tree_name = "linux",
				       .tree_path = "/srv/git/linux",
				       .kind = -1 };
	struct recipients r;
	const struct recipient *v;

	recipients_compute(&in, &r);
	assert_non_null(v = find(&r, "pmem@example.org"));
	assert_true(v->subscribed && v->pinned && !v->to);
	assert_string_equal(v->why, "subscribed: path drivers/nvdimm/* (regressions only)");
	assert_null(find(&r, "mm@example.org")); /* mm/ is not touched */
	assert_non_null(v = find(&r, "entry@example.org"));
	assert_string_equal(
		v->why,
		"subscribed: MAINTAINERS LIBNVDIMM PMEM: PERSISTENT MEMORY DRIVER (regressions and improvements)");
	assert_non_null(v = find(&r, "tree@example.org"));
	assert_string_equal(v->why, "subscribed: tree linux (regressions only)");
	assert_non_null(v = find(&r, "path@example.org"));
	assert_string_equal(v->why, "subscribed: tree /srv/git/* (regressions only)");
	assert_non_null(v = find(&r, "dan.j.williams@intel.com"));
	assert_non_null(strstr(v->why, "maintainer of LIBNVDIMM PMEM"));
	assert_non_null(strstr(v->why, ", subscribed: path drivers/nvdimm/*"));
	assert_int_equal(r.nnotes, 0);
	recipients_release(&r);

	/* an improvement: only the subscribers of improvements too; the others said in a note */
	in.kind = 1;
	recipients_compute(&in, &r);
	assert_non_null(find(&r, "entry@example.org"));
	assert_null(find(&r, "pmem@example.org"));
	assert_null(find(&r, "tree@example.org"));
	assert_int_equal(r.nnotes, 4);
	assert_string_equal(r.notes[0],
			    "not added: Pmem Watch <pmem@example.org>, subscribed: path drivers/nvdimm/* "
			    "(regressions only): the change is an improvement");
	recipients_release(&r);

	/* a change of no known kind: not for regressions only */
	in.kind = 0;
	recipients_compute(&in, &r);
	assert_null(find(&r, "pmem@example.org"));
	assert_non_null(strstr(r.notes[0], "not known to be a regression"));
	recipients_release(&r);

	/* another tree, no path of theirs: nobody subscribed */
	in.kind = -1;
	in.tree_name = "next";
	in.tree_path = "/home/x/next";
	paths[0] = "fs/xfs/xfs_file.c";
	recipients_compute(&in, &r);
	for (size_t i = 0; i < r.n; i++)
		assert_false(r.v[i].subscribed);
	assert_non_null(find(&r, "djwong@kernel.org"));
	recipients_release(&r);
}

/* The cap drops trailers' people, never a subscriber (configured, like the lists). */
static void test_subscriptions_cap(void **state)
{
	(void)state;
	struct recipients_sub sub = { .address = "pmem@example.org", .paths = paths_nvdimm, .npaths = 1 };
	const char *paths[] = { "drivers/nvdimm/pmem.c" };
	struct recipients_input in = { .author = "A <a@example.org>",
				       .message = "x\n\nCc: b@example.org\nCc: c@example.org\nCc: d@example.org\n",
				       .paths = paths,
				       .npaths = 1,
				       .subs = &sub,
				       .nsubs = 1,
				       .kind = -1,
				       .max = 2 };
	struct recipients r;

	recipients_compute(&in, &r);
	assert_int_equal(r.n, 2);
	assert_non_null(find(&r, "a@example.org"));
	assert_non_null(find(&r, "pmem@example.org"));
	recipients_release(&r);
}

static int load(struct mailconf *mc, const char *yaml, struct strbuf *err)
{
	char path[] = "/tmp/test-subscribe-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
	close(fd);
	int rc = mailconf_load(mc, path, err);
	unlink(path);
	return rc;
}

/* mail.subscriptions and mail.opt_out read; what is wrong in one line with its key. */
static void test_subscriptions_conf(void **state)
{
	(void)state;
	struct mailconf mc;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(load(&mc,
			      "mail:\n"
			      "  subscriptions:\n"
			      "    - address: Pmem <pmem@example.org>\n"
			      "      paths: [drivers/nvdimm/]\n"
			      "      improvements: true\n"
			      "    - address: l@lists.example.org\n"
			      "      maintainers: XFS*\n"
			      "      trees: [linux, next]\n"
			      "  opt_out: [No One <NoOne@example.org>, '*@quiet.example.org']\n",
			      &err),
			 0);
	assert_int_equal(mc.nsubs, 2);
	assert_string_equal(mc.subs[0].address, "Pmem <pmem@example.org>");
	assert_true(mc.subs[0].improvements);
	assert_int_equal(mc.subs[0].npaths, 1);
	assert_false(mc.subs[1].improvements);
	assert_int_equal(mc.subs[1].nmaintainers, 1);
	assert_int_equal(mc.subs[1].ntrees, 2);
	assert_int_equal(mc.nopt_out, 2);
	assert_string_equal(mailconf_opted_out(&mc, "noone@EXAMPLE.org"), "No One <NoOne@example.org>");
	assert_string_equal(mailconf_opted_out(&mc, "Someone <a.b@Quiet.Example.org>"), "*@quiet.example.org");
	assert_null(mailconf_opted_out(&mc, "a@example.org"));
	assert_null(mailconf_opted_out(&mc, "a@loud.quiet.example.org.evil"));
	mailconf_release(&mc);

	static const struct {
		const char *yaml, *error;
	} bad[] = {
		{ "mail:\n  subscriptions:\n    - address: a@example.org\n",
		  ":3:7: mail.subscriptions: subscribes to nothing: give paths, maintainers or trees" },
		{ "mail:\n  subscriptions:\n    - address: not an address\n      paths: [mm/]\n",
		  ":3:16: mail.subscriptions.address: " },
		{ "mail:\n  subscriptions:\n    - paths: [mm/]\n", "mail.subscriptions.address: " },
		{ "mail:\n  subscriptions:\n    - address: a@example.org\n      path: [mm/]\n",
		  ":4:13: mail.subscriptions.path: not a setting lkprobot knows" },
		{ "mail:\n  subscriptions: a@example.org\n",
		  ":2:18: mail.subscriptions: must be a list of subscriptions" },
		{ "mail:\n  opt_out: [a@example.org, nobody]\n",
		  ":2:28: mail.opt_out: invalid address 'nobody': no '@'; give an address, or a glob" },
		{ "mail:\n  subscriptions:\n    - address: A <a@example.org>\n      trees: linux\n  opt_out: "
		  "'*@example.org'\n",
		  ":3:16: mail.subscriptions.address: is in mail.opt_out too" },
		{ "mail:\n  operator: ops@example.org\n  opt_out: [OPS@example.org]\n",
		  ":2:13: mail.operator: is in mail.opt_out" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		strbuf_reset(&err);
		assert_int_equal(load(&mc, bad[i].yaml, &err), -1);
		if (!strstr(err.buf, bad[i].error))
			fail_msg("case %zu: '%s' has not '%s'", i, err.buf, bad[i].error);
		assert_null(strchr(err.buf, '\n'));
	}
	strbuf_release(&err);
}

/* The rules: an opted-out address is no recipient (named or a list), the dry run says who; nobody left: held. */
static void test_opt_out_rules(void **state)
{
	(void)state;
	char *lists[] = { "Quiet List <list@quiet.example.org>", NULL };
	char *opt_out[] = { "*@quiet.example.org", "gone@example.org", NULL };
	struct mailconf mc = {
		.operator_ = "Ops <ops@example.org>", .lists = lists, .nlists = 1, .opt_out = opt_out, .nopt_out = 2
	};
	const char *to[] = { "Dev <dev@example.org>" }, *cc[] = { "Gone <GONE@example.org>" };
	struct compare_floors f = { 0 };
	struct mail_case c = { .mc = &mc, .to = to, .nto = 1, .cc = cc, .ncc = 1, .kind = -1 };
	struct mail_plan p;
	struct strbuf err = STRBUF_INIT;

	mail_plan_init(&p, &f);
	assert_int_equal(mail_rules_apply(MAIL_ADDRESS, &c, &p, &err), 0);
	assert_int_equal(p.nto, 1);
	assert_int_equal(p.ncc, 0);
	assert_int_equal(p.nopted_out, 2);
	assert_string_equal(p.opted_out[0], "Gone <GONE@example.org> (mail.opt_out: gone@example.org)");
	assert_string_equal(p.opted_out[1], "Quiet List <list@quiet.example.org> (mail.opt_out: *@quiet.example.org)");
	assert_non_null(strstr(p.dry_run, "not to the 1 addresses in To and Cc; not to, by mail.opt_out: Gone "));
	assert_int_equal(p.nenvelope, 1);
	assert_string_equal(p.envelope[0], "ops@example.org");
	mail_plan_release(&p);

	/* live: the envelope has only who is left */
	mc.live = true;
	mail_plan_init(&p, &f);
	assert_int_equal(mail_rules_apply(MAIL_ADDRESS, &c, &p, &err), 0);
	assert_int_equal(p.nenvelope, 1);
	assert_string_equal(p.envelope[0], "dev@example.org");
	mail_plan_release(&p);

	/* everyone opted out: held, said why */
	c.nto = 0;
	mail_plan_init(&p, &f);
	assert_int_equal(mail_rules_apply(MAIL_ADDRESS, &c, &p, &err), 1);
	assert_true(p.held);
	assert_string_equal(p.held_by, "opt-out");
	assert_non_null(strstr(p.why.buf, "every recipient is in mail.opt_out (2)"));
	assert_int_equal(p.nenvelope, 0);
	mail_plan_release(&p);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subscriptions_match),
		cmocka_unit_test(test_subscriptions_cap),
		cmocka_unit_test(test_subscriptions_conf),
		cmocka_unit_test(test_opt_out_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: mail/replies — the #lkprobot commands of a reply (quoted
 * lines are none, a typo kept with what was understood, a verb missing its
 * argument), the messages it answers in order, its sender and a test's
 * patch; mail/maildir — new mail read, moved to cur/, a file still being
 * written left in new/.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/util/strbuf.h"
#include "../../mail/maildir.h"
#include "../../mail/replies.h"

static const char reply[] =
	"From: A Developer <Dev@Example.org>\n"
	"Subject: Re: [lkprobot] abc: regression\n"
	"Message-ID: <r1@example.org>\n"
	"In-Reply-To: <report@lkp>\n"
	"References: <cover@x> <report@lkp>\n"
	"\n"
	"> #lkprobot invalid (a quoted line is no command)\n"
	"Thanks.\n"
	"#lkprobot invalid the box was throttling  \n"
	"#LKPROBOT fixed by 1234567\n"
	"#lkprobot invlid\n"
	"#lkprobot dup\n"
	"#lkprobot test\n"
	"\n"
	"diff --git a/x b/x\n"
	"--- a/x\n"
	"+++ b/x\n"
	"@@ -1 +1 @@\n"
	"-a\n"
	"+b\n";

static void test_replies_commands(void **state)
{
	struct reply_mail r;

	(void)state;
	assert_int_equal(replies_parse(reply, strlen(reply), &r), 5);
	assert_string_equal(r.message_id, "<r1@example.org>");
	assert_string_equal(r.from_spec, "Dev@Example.org");
	assert_int_equal(r.nrefs, 2);
	assert_string_equal(r.refs[0], "<report@lkp>"); /* In-Reply-To first, then References from the newest */
	assert_string_equal(r.refs[1], "<cover@x>");
	assert_string_equal(r.cmds[0].verb, "invalid");
	assert_string_equal(r.cmds[0].args, "the box was throttling");
	assert_string_equal(r.cmds[1].verb, "fixed-by");
	assert_string_equal(r.cmds[1].args, "1234567");
	assert_null(r.cmds[2].verb);
	assert_non_null(strstr(r.cmds[2].problem, "did you mean '#lkprobot invalid'"));
	assert_null(r.cmds[3].verb);
	assert_non_null(strstr(r.cmds[3].problem, "needs the report it duplicates"));
	assert_string_equal(r.cmds[4].verb, "test");
	assert_non_null(r.patch);
	assert_int_equal(strncmp(r.patch, "diff --git a/x b/x\n", 19), 0);
	replies_release(&r);
	/* a mail without the tag is not read further */
	assert_int_equal(replies_parse("Subject: hi\n\nno command\n", 25, &r), 0);
	replies_release(&r);
}

static int count(const char *where, const char *msg, size_t len, void *arg, struct strbuf *err)
{
	(void)where, (void)msg, (void)len, (void)err;
	(*(int *)arg)++;
	return 0;
}

static void test_maildir_new_to_cur(void **state)
{
	char dir[] = "/tmp/test-maildir.XXXXXX";
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	size_t skipped;
	int n = 0;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_false(maildir_is(dir));
	assert_int_equal(maildir_each(dir, 1 << 20, count, &n, &skipped, &err), -1);
	char *sub[] = { xasprintf("%s/new", dir), xasprintf("%s/cur", dir), xasprintf("%s/tmp", dir) };
	for (int i = 0; i < 3; i++)
		assert_int_equal(mkdir(sub[i], 0700), 0);
	assert_true(maildir_is(dir));
	char *whole = xasprintf("%s/new/1.a", dir), *part = xasprintf("%s/new/2.b", dir);
	FILE *f = fopen(whole, "w");
	fputs("Subject: a\n\nbody\n", f);
	fclose(f);
	f = fopen(part, "w");
	fputs("Subject: still being writ", f); /* young, and no end of its header block */
	fclose(f);
	assert_int_equal(maildir_each(dir, 1 << 20, count, &n, &skipped, &err), 1);
	assert_int_equal(n, 1);
	assert_int_equal(access(part, F_OK), 0);
	assert_int_equal(maildir_read(dir, "cur/1.a:2,", 1 << 20, &msg, &err), 0);
	assert_string_equal(msg.buf, "Subject: a\n\nbody\n");
	assert_int_equal(maildir_read(dir, "cur/../../etc/passwd", 1 << 20, &msg, &err), -1);
	char *cmd = xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(whole);
	free(part);
	for (int i = 0; i < 3; i++)
		free(sub[i]);
	strbuf_release(&err);
	strbuf_release(&msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replies_commands),
		cmocka_unit_test(test_maildir_new_to_cur),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * reportjob_fixes: the commit a "Fixes:" trailer names, as kernel commit
 * messages write it (12 hex digits and the subject), and what is not one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "../../mail/reportjob.h"

static void expect_fixes(const char *msg, size_t nth, const char *want)
{
	char *got = reportjob_fixes(msg, nth);

	if (want)
		assert_string_equal(got, want);
	else
		assert_null(got);
	free(got);
}

static void test_reportjob_fixes(void **state)
{
	static const char msg[] =
		"mm: fix the slowdown\n\n"
		"Some words. Fixes: 0123456789ab is not a trailer.\n\n"
		"Fixes: 3966ECA57AAE (\"x86, dax: introduce copy_from_iter\")\n"
		"fixes:\t8c0b1e6\n"
		"Fixes: b3648eb1617 and more words\n"
		"Fixes: 123456 (\"too short\")\n"
		"Fixes: 3966eca57aaeg (\"not hex\")\n"
		"Signed-off-by: A <a@example.org>\n";
	(void)state;

	expect_fixes(msg, 0, "3966eca57aae");	/* lower case: the store's ids are */
	expect_fixes(msg, 1, "8c0b1e6");
	expect_fixes(msg, 2, "b3648eb1617");
	expect_fixes(msg, 3, NULL);
	expect_fixes("no trailers\n", 0, NULL);
	expect_fixes(NULL, 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reportjob_fixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

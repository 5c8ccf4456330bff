/* Unit tests: lib/strbuf and lib/sset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/util/sset.h"
#include "../../lib/util/strbuf.h"

static void test_strbuf_init_is_empty_string(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	assert_int_equal(sb.len, 0);
	strbuf_release(&sb);
}

static void test_strbuf_addf_grows(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	for (int i = 0; i < 1000; i++)
		strbuf_addf(&sb, "%04d,", i);
	assert_int_equal(sb.len, 5000);
	assert_memory_equal(sb.buf + 4995, "0999,", 5);
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_release(&sb);
}

static void test_strbuf_detach_leaves_reusable(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	strbuf_addstr(&sb, "abc");
	char *p = strbuf_detach(&sb);
	assert_string_equal(p, "abc");
	assert_string_equal(sb.buf, "");
	strbuf_addch(&sb, 'x');
	assert_string_equal(sb.buf, "x");
	free(p);
	strbuf_release(&sb);
	/* detaching an untouched buffer still gives a string to free */
	p = strbuf_detach(&sb);
	assert_string_equal(p, "");
	free(p);
}

static void test_strbuf_setlen_rtrim_setf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	strbuf_addstr(&sb, "hello  \n\t");
	strbuf_rtrim(&sb);
	assert_string_equal(sb.buf, "hello");
	strbuf_setlen(&sb, 2);
	assert_string_equal(sb.buf, "he");
	strbuf_setf(&sb, "%s-%d", "x", 7);
	assert_string_equal(sb.buf, "x-7");
	strbuf_release(&sb);
}

static void test_strbuf_read_file(void **state)
{
	char path[] = "/tmp/lkp-strbuf-XXXXXX";
	int fd = mkstemp(path);
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "a: 1\nb: 2\n", 10), 10);
	close(fd);
	strbuf_addstr(&sb, ">");
	assert_int_equal(strbuf_read_file(&sb, path), 0);
	assert_string_equal(sb.buf, ">a: 1\nb: 2\n");
	unlink(path);
	assert_int_equal(strbuf_read_file(&sb, path), -1);
	assert_string_equal(sb.buf, ">a: 1\nb: 2\n");
	strbuf_release(&sb);
}

static void test_sset_add_has_copy(void **state)
{
	struct sset s = { 0 }, c = { 0 };
	char k[32];
	(void)state;
	assert_false(sset_has(&s, "x"));
	for (int i = 0; i < 500; i++) {
		snprintf(k, sizeof(k), "key%d", i);
		assert_true(sset_add(&s, k));
	}
	assert_false(sset_add(&s, "key7"));
	assert_int_equal(s.n, 500);
	sset_copy(&c, &s);
	sset_release(&s);
	assert_true(sset_has(&c, "key499"));
	assert_false(sset_has(&c, "key500"));
	sset_release(&c);
}

/* Text from the world: valid UTF-8 kept, the rest replaced or escaped. */
/* what a reader pastes: safe words bare, the rest single-quoted, a quote as '\'' */
static void test_strbuf_add_shell_word(void **state)
{
	static const char *const words[] = { "lkprobot", "--kconfig", "x86_64-pmem", "a b's", "", "$(rm -rf /)",
					     "k=v,w:1@2%3+4" };
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	for (size_t i = 0; i < sizeof(words) / sizeof(*words); i++) {
		strbuf_addstr(&sb, i ? " " : "");
		strbuf_add_shell_word(&sb, words[i]);
	}
	assert_string_equal(sb.buf, "lkprobot --kconfig x86_64-pmem 'a b'\\''s' '' '$(rm -rf /)' k=v,w:1@2%3+4");
	strbuf_release(&sb);
}

static void test_strbuf_utf8_and_oneline(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	assert_int_equal(strbuf_utf8_len("\xc3\xa9", 2), 2);
	assert_int_equal(strbuf_utf8_len("\xc3", 1), 0);		/* cut short */
	assert_int_equal(strbuf_utf8_len("\xc0\xaf", 2), 0);	/* overlong '/' */
	assert_int_equal(strbuf_utf8_len("\xed\xa0\x80", 3), 0);	/* a surrogate */
	assert_int_equal(strbuf_utf8_len("\xf4\x90\x80\x80", 4), 0);	/* past U+10FFFF */
	strbuf_add_utf8(&sb, "J\xf6rg \xc3\xa9", 7);
	assert_string_equal(sb.buf, "J\xef\xbf\xbdrg \xc3\xa9");
	strbuf_reset(&sb);
	strbuf_add_oneline(&sb, "a\nlkprobot: b\t\x1b[31m\xff\xc2\x9b\xc3\xa9", 24);
	assert_string_equal(sb.buf, "a\\nlkprobot: b\\t\\x1b[31m\\xff\\u009b\xc3\xa9");
	strbuf_reset(&sb);
	static const char console[] = "RIP: f\r\n\tg\x1b[0m \xff\r\xc3\xa9\n";
	strbuf_add_lines(&sb, console, sizeof(console) - 1);
	assert_string_equal(sb.buf, "RIP: f\n\tg\\x1b[0m \\xff\\r\xc3\xa9\n");
	strbuf_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_utf8_and_oneline),
		cmocka_unit_test(test_strbuf_add_shell_word),
		cmocka_unit_test(test_strbuf_init_is_empty_string),
		cmocka_unit_test(test_strbuf_addf_grows),
		cmocka_unit_test(test_strbuf_detach_leaves_reusable),
		cmocka_unit_test(test_strbuf_setlen_rtrim_setf),
		cmocka_unit_test(test_strbuf_read_file),
		cmocka_unit_test(test_sset_add_has_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

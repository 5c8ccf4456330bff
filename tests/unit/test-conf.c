/* Unit tests: lib/util/conf — a configuration section read by its table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util/conf.h"
#include "../../lib/util/yml.h"

struct sample {
	char *name, *url, *inner;
	bool on;
	long count, poll;
	int mode;
	double pct;
	char **items, **floors;
	size_t nitems, nfloors;
};

static int https_only(const char *v, struct strbuf *err)
{
	if (!strncmp(v, "https://", 8))
		return 0;
	strbuf_setf(err, "'%s' does not start with https://", v);
	return -1;
}

static bool x_key(const char *key)
{
	return !strncmp(key, "x_", 2);
}

static const char *const modes[] = { "fast", "slow", "off", NULL };

#define F(member) CONF_FIELD(struct sample, member)
static const struct conf_key inner_keys[] = {
	{ "inner", CONF_STRING, F(inner), .def = "in" },
	{ 0 },
};

static const struct conf_key keys[] = {
	{ "name", CONF_STRING, F(name), .def = "nobody" },
	{ "url", CONF_STRING, F(url), .check = https_only },
	{ "on", CONF_BOOL, F(on), .def = "true" },
	{ "count", CONF_NUMBER, F(count), .def = "4", .min = 1, .max = 64 },
	{ "poll", CONF_NUMBER, F(poll), .def = "60", .min = 1, .max = LONG_MAX },
	{ "mode", CONF_CHOICE, F(mode), .def = "slow", .choices = modes },
	{ "pct", CONF_PERCENT, F(pct), .def = "5%" },
	{ "items", CONF_LIST, F(items), .flags = CONF_NONEMPTY | CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct sample, nitems) },
	{ "floors", CONF_PERCENT_MAP, F(floors), .flags = CONF_COUNTED, .count_off = offsetof(struct sample, nfloors) },
	{ "sub", CONF_SECTION, .sub = inner_keys },
	{ "later", CONF_NODE, .help = "read by the caller" },
	{ .type = CONF_OTHERS, .match = x_key },
	{ 0 },
};
#undef F

/* Read text's "s:" map into *out; 0, or -1 with the error in err. */
static int read_text(const char *text, struct sample *out, struct strbuf *err)
{
	struct node *doc = yml_load_one(text, "t.yaml", err);
	assert_non_null(doc);
	memset(out, 0, sizeof(*out));
	int rc = conf_read(node_get(doc, "s"), keys, out, "t.yaml", "s.", err);
	node_free(doc);
	return rc;
}

/* The error text conf_read gives text (it must fail). */
static char *error_of(const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct sample s;
	assert_int_equal(read_text(text, &s, &err), -1);
	/* nothing left to release: every field it stored is freed */
	assert_null(s.name);
	assert_null(s.items);
	assert_null(s.floors);
	assert_null(strchr(err.buf, '\n'));
	return strbuf_detach(&err);
}

static void assert_error(const char *text, const char *want)
{
	char *got = error_of(text);
	assert_string_equal(got, want);
	free(got);
}

static void test_conf_defaults(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct sample s;
	(void)state;

	assert_int_equal(read_text("s:\n  items: [a]\n", &s, &err), 0);
	assert_string_equal(s.name, "nobody");
	assert_null(s.url);
	assert_true(s.on);
	assert_int_equal(s.count, 4);
	assert_int_equal(s.mode, 1);
	assert_true(s.pct > 4.99 && s.pct < 5.01);
	assert_string_equal(s.inner, "in");
	assert_int_equal(s.nfloors, 0);
	conf_release(keys, &s);
	assert_null(s.name);
	assert_null(s.inner);

	/* no section at all: the defaults alone (nothing required is checked without a map) */
	memset(&s, 0, sizeof(s));
	assert_int_equal(conf_read(NULL, keys, &s, "t.yaml", "s.", &err), 0);
	assert_string_equal(s.name, "nobody");
	conf_release(keys, &s);
	strbuf_release(&err);
}

static void test_conf_each_type(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct sample s;
	(void)state;

	assert_int_equal(read_text("s:\n"
				   "  name: robot\n"
				   "  url: https://lkp.example.org/\n"
				   "  on: no\n"
				   "  count: 64\n"
				   "  mode: off\n"
				   "  pct: 0.5\n"
				   "  items: [a, b, c]\n"
				   "  floors:\n"
				   "    command.throughput: 2%\n"
				   "    '*.latency': 10\n"
				   "  sub:\n"
				   "    inner: deep\n"
				   "  later: {anything: [1, 2]}\n"
				   "  x_provider_key: 1\n",
				   &s, &err),
			 0);
	assert_string_equal(s.name, "robot");
	assert_string_equal(s.url, "https://lkp.example.org/");
	assert_false(s.on);
	assert_int_equal(s.count, 64);
	assert_int_equal(s.mode, 2);
	assert_true(s.pct > 0.49 && s.pct < 0.51);
	assert_int_equal(s.nitems, 3);
	assert_string_equal(s.items[2], "c");
	assert_null(s.items[3]);
	assert_int_equal(s.nfloors, 2);
	assert_string_equal(s.floors[0], "command.throughput=2%");
	assert_string_equal(s.floors[1], "*.latency=10");
	assert_string_equal(s.inner, "deep");
	conf_release(keys, &s);

	/* one string is a list of one; an empty string keeps the default */
	assert_int_equal(read_text("s:\n  items: solo\n  name: ''\n  on: yes\n", &s, &err), 0);
	assert_int_equal(s.nitems, 1);
	assert_string_equal(s.items[0], "solo");
	assert_string_equal(s.name, "nobody");
	assert_true(s.on);
	conf_release(keys, &s);
	strbuf_release(&err);
}

static void test_conf_bad_values(void **state)
{
	(void)state;
	assert_error("s:\n  on: maybe\n", "t.yaml:2:7: s.on: must be true or false");
	assert_error("s:\n  count: 65\n", "t.yaml:2:10: s.count: must be a whole number from 1 to 64");
	assert_error("s:\n  count: 0\n", "t.yaml:2:10: s.count: must be a whole number from 1 to 64");
	assert_error("s:\n  count: 4x\n", "t.yaml:2:10: s.count: must be a whole number from 1 to 64");
	/* past a long: refused, not taken as LONG_MAX (poll: 99999999999999999999999 was 9223372036854775807 s) */
	assert_error("s:\n  poll: 99999999999999999999999\n",
		     "t.yaml:2:9: s.poll: must be a whole number, 1 or more (up to 9223372036854775807)");
	assert_error("s:\n  poll: 9223372036854775808\n",
		     "t.yaml:2:9: s.poll: must be a whole number, 1 or more (up to 9223372036854775807)");
	assert_error("s:\n  count: -99999999999999999999999\n",
		     "t.yaml:2:10: s.count: must be a whole number from 1 to 64");
	assert_error("s:\n  mode: warp\n", "t.yaml:2:9: s.mode: must be fast, slow or off");
	assert_error("s:\n  pct: 0\n", "t.yaml:2:8: s.pct: must be a percentage above 0; write e.g. 2% or 0.5");
	assert_error("s:\n  pct: 2%%\n", "t.yaml:2:8: s.pct: must be a percentage above 0; write e.g. 2% or 0.5");
	assert_error("s:\n  url: http://x/\n", "t.yaml:2:8: s.url: 'http://x/' does not start with https://");
	assert_error("s:\n  name: [a]\n", "t.yaml:2:9: s.name: must be a string");
	assert_error("s:\n  items: []\n", "t.yaml:2:10: s.items: must be a list of strings (at least one)");
	assert_error("s:\n  items: [a, [b]]\n", "t.yaml:2:14: s.items: must be a list of strings (at least one)");
	assert_error("s:\n  floors: 2%\n",
		     "t.yaml:2:11: s.floors: must be a map of metric (or glob) -> percent, e.g. command.throughput: 2%");
	assert_error("s:\n  floors:\n    a.b: fast\n", "t.yaml:3:10: s.floors.a.b: not a percentage; write e.g. 2% or 0.5");
	assert_error("s:\n  sub: 1\n", "t.yaml:2:8: s.sub: must be a map");
	assert_error("s:\n  sub:\n    inner: [x]\n", "t.yaml:3:12: s.sub.inner: must be a string");
	assert_error("s: [1]\n", "t.yaml:1:4: s: must be a map");
	/* a bad value after good ones: what was stored is released (error_of checks) */
	assert_error("s:\n  name: robot\n  items: [a]\n  floors: {x: 1}\n  count: -1\n",
		     "t.yaml:5:10: s.count: must be a whole number from 1 to 64");
}

static void test_conf_unknown_key(void **state)
{
	(void)state;
	assert_error("s:\n  items: [a]\n  nmae: robot\n", "t.yaml:3:9: s.nmae: not a setting lkprobot knows (a typo?)");
	assert_error("s:\n  sub:\n    iner: x\n", "t.yaml:3:11: s.sub.iner: not a setting lkprobot knows (a typo?)");
	/* another table's keys (CONF_OTHERS) are not this one's business */
	struct strbuf err = STRBUF_INIT;
	struct sample s;
	assert_int_equal(read_text("s:\n  x_other: [whatever]\n", &s, &err), 0);
	conf_release(keys, &s);
	strbuf_release(&err);
}

static void test_conf_required(void **state)
{
	static const struct conf_key req[] = {
		{ "name", CONF_STRING, CONF_FIELD(struct sample, name), .flags = CONF_REQUIRED,
		  .what = "every sample needs a name" },
		{ 0 },
	};
	struct strbuf err = STRBUF_INIT;
	struct sample s = { 0 };
	(void)state;

	struct node *doc = yml_load_one("s:\n  other: 1\nt:\n  name: x\n", "t.yaml", &err);
	assert_non_null(doc);
	/* missing: said at the section, with its position */
	assert_int_equal(conf_read(node_get(doc, "t"), req, &s, "t.yaml", "t.", &err), 0);
	assert_string_equal(s.name, "x");
	conf_release(req, &s);
	assert_int_equal(conf_read(node_get(doc, "s"), req, &s, "t.yaml", "s.", &err), -1);
	assert_string_equal(err.buf, "t.yaml:2:10: s.other: not a setting lkprobot knows (a typo?)");
	node_free(doc);
	doc = yml_load_one("s:\n  n: 1\n", "t.yaml", &err);
	static const struct conf_key req2[] = {
		{ "n", CONF_NODE, .help = "read by the caller" },
		{ "name", CONF_STRING, CONF_FIELD(struct sample, name), .flags = CONF_REQUIRED,
		  .what = "every sample needs a name" },
		{ 0 },
	};
	assert_int_equal(conf_read(node_get(doc, "s"), req2, &s, "t.yaml", "s.", &err), -1);
	assert_string_equal(err.buf, "t.yaml:2:3: s.name: every sample needs a name");
	node_free(doc);
	strbuf_release(&err);
}

static void test_conf_error_format(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct node *n = node_new_scalar("v");
	(void)state;

	/* no position: file and key alone */
	assert_int_equal(conf_error(&err, "f.yaml", n, "serve.", "poll", "must be positive"), -1);
	assert_string_equal(err.buf, "f.yaml: serve.poll: must be positive");
	const char *f = node_intern("f.yaml");
	node_set_pos(n, f, 7, 3);
	node_unintern(f);
	conf_error(&err, "f.yaml", n, "serve.", "poll", "must be positive");
	assert_string_equal(err.buf, "f.yaml:7:3: serve.poll: must be positive");
	/* the section itself: its prefix without the dot */
	conf_error(&err, "f.yaml", NULL, "boxes.b1.", NULL, "a box is a map");
	assert_string_equal(err.buf, "f.yaml: boxes.b1: a box is a map");
	node_free(n);
	strbuf_release(&err);
}

static void test_conf_load_file(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char path[] = "/tmp/test-conf-XXXXXX";
	(void)state;

	/* a missing file: said, errno kept for the caller (a missing default file is no error) */
	assert_null(conf_load_file("/nonexistent/config.yaml", &err));
	assert_int_equal(errno, ENOENT);
	assert_string_equal(err.buf, "/nonexistent/config.yaml: cannot read the configuration: No such file or directory");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "serve: [\n", 9), 9);
	close(fd);
	strbuf_reset(&err);
	assert_null(conf_load_file(path, &err));
	assert_int_equal(errno, 0);
	assert_non_null(strstr(err.buf, path));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "serve:\n  poll: 5\n", 17), 17);
	close(fd);
	struct node *doc = conf_load_file(path, &err);
	assert_non_null(doc);
	assert_string_equal(node_str(node_get(node_get(doc, "serve"), "poll")), "5");
	node_free(doc);
	unlink(path);
	strbuf_release(&err);
}

static void test_conf_percent(void **state)
{
	double p = 0;
	(void)state;
	assert_int_equal(conf_percent("2%", &p), 0);
	assert_true(p > 1.99 && p < 2.01);
	assert_int_equal(conf_percent("999.5", &p), 0);
	assert_int_equal(conf_percent("1000", &p), -1);
	assert_int_equal(conf_percent("-1%", &p), -1);
	assert_int_equal(conf_percent("2 %", &p), -1);
	assert_int_equal(conf_percent("", &p), -1);
	assert_int_equal(conf_percent(NULL, &p), -1);
}

/* The reference is made of the rows: each key once, a section's as KEY.SUB, cells escaped. */
static void test_conf_doc(void **state)
{
	static const struct conf_key doc_keys[] = {
		{ "poll", CONF_NUMBER, .def = "60", .min = 1, .max = LONG_MAX, .help = "seconds | between <looks>" },
		{ "size", CONF_NUMBER, .min = 1, .max = 64, .flags = CONF_REQUIRED,
		  .what = "must be a size from 1 to 64" },
		{ "token", CONF_NODE, .form = "a file", .help = "$TOKEN's file" },
		{ "sub", CONF_SECTION, .sub = inner_keys, .help = "a section" },
		{ "mode", CONF_CHOICE, .choices = modes },
		{ .type = CONF_OTHERS, .match = x_key, .help = "the x_ keys" },
		{ 0 },
	};
	struct strbuf b = STRBUF_INIT;
	(void)state;

	conf_doc(&b, doc_keys);
	assert_string_equal(b.buf,
			    "| key | value | default | what it is |\n"
			    "|---|---|---|---|\n"
			    "| `poll` | a whole number, 1 or more | `60` | seconds \\| between \\<looks> |\n"
			    "| `size` | a size from 1 to 64 | required |  |\n"
			    "| `token` | a file |  | \\$TOKEN's file |\n"
			    "| `sub` | a map of the keys below |  | a section |\n"
			    "| `sub.inner` | a string | `in` |  |\n"
			    "| `mode` | `fast`, `slow` or `off` |  |  |\n"
			    "\n"
			    "Also: the x_ keys.\n");
	strbuf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_each_type),
		cmocka_unit_test(test_conf_bad_values),
		cmocka_unit_test(test_conf_unknown_key),
		cmocka_unit_test(test_conf_required),
		cmocka_unit_test(test_conf_error_format),
		cmocka_unit_test(test_conf_load_file),
		cmocka_unit_test(test_conf_percent),
		/* the reference (docs/configuration.md) made of the rows */
		cmocka_unit_test(test_conf_doc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

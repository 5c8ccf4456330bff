/*
 * Unit tests: lib/json (reader, writer, numbers), lib/stats (lkp-tests'
 * sbin/dump-stat and lib/matrix.rb rules) and lib/result (run numbers,
 * JSON files, extraction of a run directory, the commit matrix).
 *
 * Expectations marked "Ruby:" were checked against lkp-tests' own code
 * (intel/lkp-tests at bbbc29c495d9, Ruby 3.1.2):
 *   dump-stat:  printf 'a: 1\n...' | LKP_SRC=$lkp RESULT_ROOT=$tmp \
 *                   ruby $lkp/sbin/dump-stat t $tmp/t.json
 *   reduction:  create_stats_matrix($tmp) (lib/matrix.rb) on <p>.json files
 *   matrix:     matrix_from_stats_files, matrix_fill_missing_zeros,
 *               matrix_average, matrix_stddev (lib/stats.rb, lib/matrix.rb)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/util/json.h"
#include "../../lib/util/node.h"
#include "../../lib/results/result.h"
#include "../../lib/stats/stats.h"
#include "../../lib/util/yml.h"

/* ---- helpers ---------------------------------------------------------- */

static char fixture_dir[4096];

static void find_fixtures(void)
{
	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "tools");
}

static void load_fixture(struct strbuf *sb, const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path))
		fail_msg("cannot read fixture %s", path);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void write_str(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

static void copy_fixture(const char *name, const char *dir, const char *as)
{
	struct strbuf sb = STRBUF_INIT;
	char *dst = xasprintf("%s/%s", dir, as);

	load_fixture(&sb, name);
	write_file(dst, sb.buf, sb.len);
	free(dst);
	strbuf_release(&sb);
}

static char *make_tmpdir(void)
{
	char *d = xstrdup("/tmp/lkprobot-test-stats.XXXXXX");
	if (!mkdtemp(d))
		fail_msg("mkdtemp: %s", strerror(errno));
	return d;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_rf(char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static bool exists(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	bool ok = !access(p, F_OK);
	free(p);
	return ok;
}

static struct node *parse_ok(const char *text)
{
	struct strbuf e = STRBUF_INIT;
	struct node *n = json_parse(text, strlen(text), "t.json", &e);
	if (!n)
		fail_msg("json_parse: %s", e.buf);
	strbuf_release(&e);
	return n;
}

/* json_parse must fail with exactly `msg` ("t.json:LINE:COL: problem"). */
static void parse_fails(const char *text, size_t len, const char *msg)
{
	struct strbuf e = STRBUF_INIT;
	struct node *n = json_parse(text, len, "t.json", &e);
	if (n) {
		node_free(n);
		fail_msg("json_parse accepted '%s'", text);
	}
	assert_string_equal(e.buf, msg);
	strbuf_release(&e);
}

/* got must equal the JSON text want, scalars compared by their text (so
 * 5 and 5.0 differ) and map keys in order. */
static void assert_json(const struct node *got, const char *want)
{
	struct node *w = parse_ok(want);
	if (!node_equal(got, w)) {
		struct strbuf g = STRBUF_INIT, x = STRBUF_INIT;
		if (got)
			json_emit(&g, got);
		else
			strbuf_addstr(&g, "(NULL)\n");
		json_emit(&x, w);
		print_error("got:\n%swant:\n%s", g.buf, x.buf);
		strbuf_release(&g);
		strbuf_release(&x);
		node_free(w);
		fail();
	}
	node_free(w);
}

static const char *scalar_at(const struct node *map, const char *key)
{
	const struct node *v = node_get(map, key);
	if (!v)
		fail_msg("no '%s'", key);
	assert_int_equal(v->type, NODE_SCALAR);
	return v->str;
}

static double number_at(const struct node *map, const char *key)
{
	double v;
	if (!json_number(node_get(map, key), &v))
		fail_msg("'%s' is not a number", key);
	return v;
}

#define assert_close(a, b) do {                                               \
		double a_ = (a), b_ = (b);                                    \
		if (!(fabs(a_ - b_) <= 1e-12 * fmax(1, fabs(b_))))           \
			fail_msg("%.17g != %.17g", a_, b_);                   \
	} while (0)

static char *fmt_number(double v, bool is_float)
{
	struct strbuf sb = STRBUF_INIT;
	json_format_number(&sb, v, is_float);
	return strbuf_detach(&sb);
}

static void assert_number_text(double v, bool is_float, const char *want)
{
	char *s = fmt_number(v, is_float);
	assert_string_equal(s, want);
	free(s);
}

/* ---- json: reading ---------------------------------------------------- */

static void test_json_parse_object_and_array(void **state)
{
	struct node *n = parse_ok(" {\"a\": [1, {\"b\": \"x\"}, []], \"c\": {}, \"d\": \"\"}\n");
	(void)state;
	assert_int_equal(n->type, NODE_MAP);
	assert_int_equal(n->n, 3);
	assert_string_equal(n->keys[0], "a");
	assert_string_equal(n->keys[1], "c");
	assert_string_equal(n->keys[2], "d");
	const struct node *a = n->vals[0];
	assert_int_equal(a->type, NODE_SEQ);
	assert_int_equal(a->n, 3);
	assert_string_equal(a->vals[0]->str, "1");
	assert_false(a->vals[0]->quoted);
	assert_int_equal(a->vals[1]->type, NODE_MAP);
	assert_string_equal(node_str(node_get(a->vals[1], "b")), "x");
	assert_true(node_get(a->vals[1], "b")->quoted);
	assert_int_equal(a->vals[2]->type, NODE_SEQ);
	assert_int_equal(a->vals[2]->n, 0);
	assert_int_equal(n->vals[1]->type, NODE_MAP);
	assert_int_equal(n->vals[1]->n, 0);
	assert_string_equal(n->vals[2]->str, "");
	assert_true(n->vals[2]->quoted);
	node_free(n);

	/* a top-level scalar is a JSON text too */
	n = parse_ok("\"s\"");
	assert_string_equal(n->str, "s");
	node_free(n);
}

static void test_json_parse_string_escapes(void **state)
{
	struct node *n = parse_ok("[\"q\\\" b\\\\ s\\/ \\b\\f\\n\\r\\t\","
				  " \"\\u00e9\\u20AC\", \"\\ud83d\\ude00\", \"\\u0041\\u007f\","
				  " \"caf\xc3\xa9\"]");
	(void)state;
	assert_string_equal(n->vals[0]->str, "q\" b\\ s/ \b\f\n\r\t");
	assert_string_equal(n->vals[1]->str, "\xc3\xa9\xe2\x82\xac");	/* é € */
	assert_string_equal(n->vals[2]->str, "\xf0\x9f\x98\x80");	/* U+1F600, a surrogate pair */
	assert_string_equal(n->vals[3]->str, "A\x7f");
	assert_string_equal(n->vals[4]->str, "caf\xc3\xa9");		/* raw UTF-8 kept */
	node_free(n);
}

static void test_json_parse_numbers_kept_as_written(void **state)
{
	struct node *n = parse_ok("[1.430e+13, 68766, -0.5, 0, -0, 1E-3, 2.50]");
	const char *want[] = { "1.430e+13", "68766", "-0.5", "0", "-0", "1E-3", "2.50" };
	double v;
	(void)state;
	assert_int_equal(n->n, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		assert_string_equal(n->vals[i]->str, want[i]);
		assert_false(n->vals[i]->quoted);
	}
	assert_true(json_number(n->vals[0], &v));
	assert_true(v == 1.43e13);
	assert_true(json_number(n->vals[1], &v));
	assert_true(v == 68766);
	assert_true(json_number(n->vals[2], &v));
	assert_true(v == -0.5);
	assert_true(json_number(n->vals[5], &v));
	assert_true(v == 0.001);
	node_free(n);
}

static void test_json_parse_literals(void **state)
{
	struct node *n = parse_ok("[true, false, null, NaN, Infinity, -Infinity, \"12\"]");
	double v;
	(void)state;
	assert_int_equal(n->n, 7);
	assert_string_equal(n->vals[0]->str, "true");
	assert_string_equal(n->vals[1]->str, "false");
	assert_int_equal(n->vals[2]->type, NODE_NULL);
	assert_string_equal(n->vals[3]->str, "NaN");
	assert_string_equal(n->vals[4]->str, "Infinity");
	assert_string_equal(n->vals[5]->str, "-Infinity");
	/* none of these is a finite number; neither is a quoted "12"; v is left alone */
	for (size_t i = 0; i < n->n; i++) {
		v = 42;
		assert_false(json_number(n->vals[i], &v));
		assert_true(v == 42);
	}
	assert_false(json_number(NULL, &v));
	node_free(n);
}

static void test_json_parse_errors(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
		/* truncated input */
		{ "", "t.json:1:1: unexpected end of input" },
		{ "{\"a\": [1, 2", "t.json:1:12: expected ',' or ']'" },
		{ "{\"a\": 1", "t.json:1:8: expected ',' or '}'" },
		{ "{\"a\":", "t.json:1:6: unexpected end of input" },
		{ "{\n  \"abc", "t.json:2:3: unterminated string" },
		{ "[\"a\\", "t.json:1:2: unterminated string" },
		{ "[1.", "t.json:1:4: expected digits after '.'" },
		{ "[1e+", "t.json:1:5: expected digits in the exponent" },
		/* trailing garbage */
		{ "{}\n  x", "t.json:2:3: text after the JSON value" },
		{ "[1] [2]", "t.json:1:5: text after the JSON value" },
		{ "nulls", "t.json:1:5: text after the JSON value" },
		{ "01", "t.json:1:2: text after the JSON value" },
		/* bad escapes */
		{ "[\"\\x\"]", "t.json:1:4: bad escape in a string" },
		{ "[\"\\u12\"]", "t.json:1:4: bad \\u escape" },
		{ "[\"\\u12", "t.json:1:4: bad \\u escape" },
		{ "[\"\\u12g4\"]", "t.json:1:4: bad \\u escape" },
		{ "[\"\\u0000\"]", "t.json:1:8: NUL in a string" },
		/* control characters */
		{ "[\"a\tb\"]", "t.json:1:4: control character in a string" },
		{ "{\n\"k\": \"x\ny\"}", "t.json:2:8: control character in a string" },
		/* other grammar */
		{ "{a: 1}", "t.json:1:2: expected a string key" },
		{ "{\"a\" 1}", "t.json:1:6: expected ':'" },
		{ "[1,]", "t.json:1:4: expected a JSON value" },
		{ "[+1]", "t.json:1:2: expected a JSON value" },
		{ "[.5]", "t.json:1:2: expected a JSON value" },
		{ "[tru]", "t.json:1:2: expected a JSON value" },
		{ "fio: note\n{}", "t.json:1:1: expected a JSON value" },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		parse_fails(cases[i].text, strlen(cases[i].text), cases[i].msg);
	/* a NUL byte inside the text is a control character */
	parse_fails("[\"a\0b\"]", 7, "t.json:1:4: control character in a string");
	/* the length bounds the text: the value is cut short there */
	parse_fails("[1, 2]", 4, "t.json:1:5: unexpected end of input");
}

/* A lone UTF-16 surrogate has no UTF-8 form: decoding it into bytes
 * ED A0 80 would put invalid UTF-8 into the tree (and, re-emitted,
 * into our own JSON files). */
static void test_json_parse_rejects_lone_surrogates(void **state)
{
	(void)state;
	parse_fails("[\"\\ud800\"]", 10, "t.json:1:4: lone surrogate in a \\u escape");
	parse_fails("[\"a\\udc00\"]", 11, "t.json:1:5: lone surrogate in a \\u escape");
	parse_fails("[\"\\ud83d\\u0041\"]", 16, "t.json:1:4: lone surrogate in a \\u escape");
	parse_fails("[\"\\ud83d\\ud83d\"]", 16, "t.json:1:4: lone surrogate in a \\u escape");
	/* a high surrogate at the very end of the text */
	parse_fails("[\"\\ud83d", 8, "t.json:1:4: lone surrogate in a \\u escape");
}

static void test_json_parse_nesting_limit(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	struct node *n;
	(void)state;

	/* 200 levels are fine */
	for (int i = 0; i < 199; i++)
		strbuf_addch(&sb, '[');
	strbuf_addstr(&sb, "{\"k\": 1}");
	for (int i = 0; i < 199; i++)
		strbuf_addch(&sb, ']');
	n = parse_ok(sb.buf);
	const struct node *c = n;
	for (int i = 0; i < 199; i++) {
		assert_int_equal(c->type, NODE_SEQ);
		c = c->vals[0];
	}
	assert_string_equal(node_str(node_get(c, "k")), "1");
	node_free(n);

	/* 201 are not: the error points at the 201st opening bracket */
	strbuf_reset(&sb);
	for (int i = 0; i < 200; i++)
		strbuf_addstr(&sb, "{\"a\":");
	strbuf_addch(&sb, '[');
	parse_fails(sb.buf, sb.len, "t.json:1:1001: nested too deeply");
	/* an unbounded one is rejected, not a stack overflow */
	strbuf_reset(&sb);
	for (int i = 0; i < 100000; i++)
		strbuf_addch(&sb, '[');
	parse_fails(sb.buf, sb.len, "t.json:1:201: nested too deeply");
	strbuf_release(&sb);
}

/* What a text expands to is bounded, not only its length: "[0,0,...]" makes ~120 bytes a 2 bytes of text. */
static void test_json_parse_memory_limit(void **state)
{
	struct strbuf sb = STRBUF_INIT, e = STRBUF_INIT;
	struct node *n;
	(void)state;

	/* 10,000 zeros: about 1.2 MB of tree from 20 KB of text */
	strbuf_addch(&sb, '[');
	for (int i = 0; i < 10000; i++)
		strbuf_addstr(&sb, i ? ",0" : "0");
	strbuf_addch(&sb, ']');
	n = json_parse_max(sb.buf, sb.len, "t.json", 1 << 20, &e);
	assert_null(n);
	assert_non_null(strstr(e.buf, "t.json:1:"));
	assert_non_null(strstr(e.buf, "the JSON expands to more than 1 MiB in memory"));
	/* 4,000 fit */
	strbuf_setlen(&sb, 8000);
	strbuf_addch(&sb, ']');
	n = json_parse_max(sb.buf, sb.len, "t.json", 1 << 20, &e);
	assert_non_null(n);
	assert_int_equal(n->n, 4000);
	node_free(n);
	strbuf_release(&sb);
	strbuf_release(&e);
}

static void test_json_path_map_and_array(void **state)
{
	struct node *n = parse_ok("{\"jobs\": [{\"write\": {\"bw\": 1560380}}, {\"x\": [10, 20]}],"
				  " \"k\": \"v\"}");
	(void)state;
	assert_string_equal(node_str(json_path(n, "jobs", "0", "write", "bw", NULL)), "1560380");
	assert_string_equal(node_str(json_path(n, "jobs", "1", "x", "1", NULL)), "20");
	assert_ptr_equal(json_path(n, NULL), n);
	assert_int_equal(json_path(n, "jobs", NULL)->type, NODE_SEQ);
	assert_null(json_path(n, "jobs", "2", NULL));	/* past the end */
	assert_null(json_path(n, "jobs", "-1", NULL));
	assert_null(json_path(n, "jobs", "x", NULL));	/* not an index */
	assert_null(json_path(n, "jobs", "0x", NULL));
	assert_null(json_path(n, "jobs", "", NULL));	/* not index 0 */
	assert_null(json_path(n, "jobs", " 1", NULL));
	assert_null(json_path(n, "jobs", "+1", NULL));
	assert_null(json_path(n, "nope", "0", NULL));
	assert_null(json_path(n, "k", "0", NULL));	/* into a scalar */
	assert_null(json_path(n, "jobs", "0", "write", "bw", "0", NULL));
	assert_null(json_path(NULL, "a", NULL));
	node_free(n);
}

/* ---- json: writing ---------------------------------------------------- */

static void test_json_emit_format(void **state)
{
	struct node *n = parse_ok("{\"a\": 1, \"b\": [2.5, \"x\"], \"c\": {}, \"d\": [], \"e\": null,"
				  " \"f\": {\"g\": true}}");
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	json_emit(&sb, n);
	/* two-space indentation, as Ruby's JSON.pretty_generate (lkp-tests' save_json) */
	assert_string_equal(sb.buf,
			    "{\n"
			    "  \"a\": 1,\n"
			    "  \"b\": [\n"
			    "    2.5,\n"
			    "    \"x\"\n"
			    "  ],\n"
			    "  \"c\": {},\n"
			    "  \"d\": [],\n"
			    "  \"e\": null,\n"
			    "  \"f\": {\n"
			    "    \"g\": true\n"
			    "  }\n"
			    "}\n");
	strbuf_reset(&sb);
	json_emit_string(&sb, "a\"b\\c\nd\re\tf\bg\x01h\x1fi\x7fj\xc3\xa9");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\re\\tf\\u0008g\\u0001h\\u001fi\x7fj\xc3\xa9\"");
	strbuf_release(&sb);
	node_free(n);
}

static void test_json_emit_round_trip(void **state)
{
	static const char *const docs[] = {
		"{\"vmstat.system.in\": [129, 753], \"fio.write_bw_MBps\": [1523.80859375],"
		" \"big\": 1.430e+13, \"neg\": -0.5, \"t\": true, \"f\": false, \"n\": null,"
		" \"nan\": NaN, \"inf\": [Infinity, -Infinity],"
		" \"s\": \"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u0001 \\u00e9 \\ud83d\\ude00 \\u007f\","
		" \"nested\": {\"a\": [[], {}, [{\"b\": [1, [2, [3]]]}]]}, \"\": \"empty key\","
		" \"key with \\\"quotes\\\"\": \"12\"}",
		"[]",
		"{}",
		"\"just a string\"",
		"68766",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		struct node *a = parse_ok(docs[i]), *b;
		struct strbuf sb = STRBUF_INIT, sb2 = STRBUF_INIT;
		json_emit(&sb, a);
		b = parse_ok(sb.buf);
		assert_true(node_equal(a, b));
		/* quoting survives: "12" stays a string, 68766 a number */
		if (i == 0) {
			assert_true(node_get(b, "key with \"quotes\"")->quoted);
			assert_false(node_get(b, "big")->quoted);
			assert_string_equal(node_str(node_get(b, "big")), "1.430e+13");
		}
		/* and emitting again gives the same text */
		json_emit(&sb2, b);
		assert_string_equal(sb.buf, sb2.buf);
		strbuf_release(&sb);
		strbuf_release(&sb2);
		node_free(a);
		node_free(b);
	}
}

static void test_json_format_number_integers(void **state)
{
	(void)state;
	assert_number_text(68766, false, "68766");
	assert_number_text(0, false, "0");
	assert_number_text(-0.0, false, "0");
	assert_number_text(-5, false, "-5");
	assert_number_text(1e15, false, "1000000000000000");
	assert_number_text(9007199254740991.0, false, "9007199254740991");
	assert_number_text(9007199254740992.0, false, "9007199254740992");
	/* not integral: printed as the float it is, without a ".0" */
	assert_number_text(2.5, false, "2.5");
	assert_number_text(NAN, false, "NaN");
	assert_number_text(INFINITY, true, "Infinity");
	assert_number_text(-INFINITY, false, "-Infinity");
}

static void test_json_format_number_floats_round_trip(void **state)
{
	(void)state;
	/* the shortest of %.15g, %.16g, %.17g that reads back exactly */
	assert_number_text(0.1, true, "0.1");				/* 15 digits suffice */
	assert_number_text(1523.80859375, true, "1523.80859375");
	assert_number_text(1.0 / 3, true, "0.3333333333333333");	/* 16 */
	assert_number_text(0.1 + 0.2, true, "0.30000000000000004");	/* 17 */
	assert_number_text(7.0 / 3, true, "2.3333333333333335");	/* Ruby prints the same */
	assert_number_text(1682.0 / 3, true, "560.6666666666666");	/* Ruby prints the same */
	assert_number_text(-0.5, true, "-0.5");
	assert_number_text(1e-7, true, "1e-07");
	assert_number_text(1e300, true, "1e+300");

	/* many bit patterns: exact round trip, and no shorter precision would do */
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	for (int i = 0; i < 20000; i++) {
		double v;
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(&v, &x, sizeof(v));
		if (!isfinite(v))
			continue;
		if (i % 2)
			v = (double)(x >> 11) / 9007199254740992.0 * 1e6;	/* "metric-like" values */
		char *s = fmt_number(v, true);
		char *end;
		double back = strtod(s, &end);
		assert_int_equal(*end, '\0');
		if (back != v)
			fail_msg("%s does not read back as %.17g", s, v);
		/* count significant digits of the mantissa (not the ".0" added
		 * to an integral value such as -15320307764497668) */
		int digits = 0;
		bool lead = true;
		size_t len = strlen(s);
		if (len > 2 && !strcmp(s + len - 2, ".0"))
			len -= 2;
		for (const char *c = s; c < s + len && *c != 'e'; c++) {
			if (*c >= '1' && *c <= '9')
				lead = false;
			if (*c >= '0' && *c <= '9' && !lead)
				digits++;
		}
		assert_true(digits <= 17);
		if (digits > 15) {
			char shorter[400];
			snprintf(shorter, sizeof(shorter), "%.*g", digits - 1, v);
			if (strtod(shorter, NULL) == v)
				fail_msg("%s is longer than %s", s, shorter);
		}
		free(s);
	}
}

static void test_json_format_number_is_float_adds_fraction(void **state)
{
	(void)state;
	assert_number_text(3, true, "3.0");
	assert_number_text(0, true, "0.0");
	assert_number_text(-2, true, "-2.0");
	assert_number_text(200, true, "200.0");			/* Ruby: 200.0 */
	assert_number_text(1.43e13, true, "14300000000000.0");
	/* an exponent already makes it a float in JSON: no ".0" after it */
	assert_number_text(1e20, true, "1e+20");
	assert_number_text(1.5e-10, true, "1.5e-10");
	/* and the result reads back as a float for stats_reduce */
	struct node *n = stats_number(3, true);
	assert_string_equal(n->str, "3.0");
	assert_false(n->quoted);
	node_free(n);
}

/* ---- stats: samples (sbin/dump-stat) ----------------------------------- */

static void add(struct stats_samples *ss, const char *key, double v)
{
	struct strbuf e = STRBUF_INIT;
	if (stats_add(ss, key, v, false, &e))
		fail_msg("stats_add %s: %s", key, e.buf);
	strbuf_release(&e);
}

static void assert_series(const struct stats_samples *ss, const char *key, size_t n,
			  const double *want)
{
	const struct stats_series *se = stats_find(ss, key);
	if (!se)
		fail_msg("no series '%s'", key);
	assert_int_equal(se->n, n);
	for (size_t i = 0; i < n; i++)
		if (se->v[i] != want[i])
			fail_msg("%s[%zu] = %g, want %g", key, i, se->v[i], want[i]);
}

/* the <program>.json of `lines` fed as group "t" */
static struct node *program_json_of(const char *group, const char *lines)
{
	struct stats_samples ss;
	struct strbuf e = STRBUF_INIT;
	struct node *n;

	stats_samples_init(&ss);
	if (stats_add_lines(&ss, lines, &e))
		fail_msg("stats_add_lines: %s", e.buf);
	n = stats_program_json(&ss, group);
	stats_samples_release(&ss);
	strbuf_release(&e);
	return n;
}

static void test_stats_add_repeated_key_new_sample(void **state)
{
	struct stats_samples ss;
	(void)state;
	stats_samples_init(&ss);
	add(&ss, "a", 1);
	add(&ss, "b", 2);
	add(&ss, "a", 3);
	add(&ss, "b", 4);
	add(&ss, "a", 5);
	add(&ss, "b", 6);
	assert_int_equal(ss.n, 2);
	assert_string_equal(ss.s[0].key, "a");
	assert_string_equal(ss.s[1].key, "b");
	assert_series(&ss, "a", 3, (const double[]){ 1, 3, 5 });
	assert_series(&ss, "b", 3, (const double[]){ 2, 4, 6 });
	assert_int_equal(ss.record, 2);
	assert_null(stats_find(&ss, "c"));
	stats_samples_release(&ss);
	assert_int_equal(ss.n, 0);
}

static void test_stats_add_backfills_missing_key(void **state)
{
	struct stats_samples ss;
	(void)state;
	/* Ruby: 'a: 1\nb: 2\na: 3\na: 5\nb: 6\n' -> {"t.a":[1,3,5],"t.b":[2,0,6]} */
	stats_samples_init(&ss);
	add(&ss, "a", 1);
	add(&ss, "b", 2);
	add(&ss, "a", 3);	/* record 1: no b */
	add(&ss, "a", 5);	/* record 2 */
	add(&ss, "b", 6);
	assert_series(&ss, "a", 3, (const double[]){ 1, 3, 5 });
	assert_series(&ss, "b", 3, (const double[]){ 2, 0, 6 });
	stats_samples_release(&ss);

	/* missing from several records */
	stats_samples_init(&ss);
	add(&ss, "a", 1);
	add(&ss, "b", 9);
	add(&ss, "a", 2);
	add(&ss, "a", 3);
	add(&ss, "a", 4);
	add(&ss, "b", 8);
	assert_series(&ss, "b", 4, (const double[]){ 9, 0, 0, 8 });
	stats_samples_release(&ss);
}

static void test_stats_add_left_pads_late_key(void **state)
{
	struct stats_samples ss;
	(void)state;
	/* Ruby: 'x: 1\na: 5\nx: 2\nx: 3\na: 7\n' -> {"t.x":[1,2,3],"t.a":[5,0,7]},
	 * and a key first seen in record 2 gets two leading zeros */
	stats_samples_init(&ss);
	add(&ss, "x", 1);
	add(&ss, "x", 2);
	add(&ss, "x", 3);
	add(&ss, "late", 7);
	add(&ss, "x", 4);
	add(&ss, "late", 8);
	assert_series(&ss, "x", 4, (const double[]){ 1, 2, 3, 4 });
	assert_series(&ss, "late", 4, (const double[]){ 0, 0, 7, 8 });
	assert_string_equal(ss.s[1].key, "late");
	stats_samples_release(&ss);
}

static void test_stats_add_rejects(void **state)
{
	static const char *const bad_keys[] = { "a b", "a\tb", " a", "a\n", "" };
	struct stats_samples ss;
	struct strbuf e = STRBUF_INIT;
	(void)state;
	stats_samples_init(&ss);
	add(&ss, "ok", 1);
	for (size_t i = 0; i < ARRAY_SIZE(bad_keys); i++) {
		strbuf_reset(&e);
		assert_int_equal(stats_add(&ss, bad_keys[i], 1, false, &e), -1);
		assert_non_null(strstr(e.buf, "whitespace"));
	}
	assert_int_equal(stats_add(&ss, "v", NAN, true, &e), -1);
	assert_non_null(strstr(e.buf, "'v'"));
	assert_int_equal(stats_add(&ss, "v", INFINITY, true, &e), -1);
	assert_int_equal(stats_add_text(&ss, "a b", "1", &e), -1);
	/* a parser's key: no control character (C0, DEL, C1); UTF-8 text is kept (bytes that are not: U+FFFD in JSON) */
	static const char *const controls[] = { "a\033[31m", "a\rb", "a\x7f",
						"a\xc2\x9b"
						"b" };
	for (size_t i = 0; i < ARRAY_SIZE(controls); i++) {
		strbuf_reset(&e);
		assert_int_equal(stats_add(&ss, controls[i], 1, false, &e), -1);
		assert_non_null(strstr(e.buf, "a control character"));
		assert_null(strchr(e.buf, '\033'));
		assert_null(strchr(e.buf, '\r'));
	}
	struct stats_samples utf8;
	stats_samples_init(&utf8);
	assert_int_equal(stats_add(&utf8, "caf\xc3\xa9", 1, false, &e), 0);
	stats_samples_release(&utf8);
	/* nothing was added by the rejected calls */
	assert_int_equal(ss.n, 1);
	assert_int_equal(ss.s[0].n, 1);
	stats_samples_release(&ss);
	strbuf_release(&e);
}

static void test_stats_add_text_int_vs_float(void **state)
{
	struct stats_samples ss;
	struct strbuf e = STRBUF_INIT;
	(void)state;
	stats_samples_init(&ss);
	assert_int_equal(stats_add_text(&ss, "int", "753", &e), 0);
	assert_int_equal(stats_add_text(&ss, "flt", "0.70", &e), 0);
	assert_int_equal(stats_add_text(&ss, "exp", "1.4e+13", &e), 0);
	/* Ruby's dump-stat looks for '.' only: "1e5" becomes "1e5".to_i = 1
	 * there; lkprobot reads 100000 and keeps it a float. */
	assert_int_equal(stats_add_text(&ss, "e5", "1e5", &e), 0);
	assert_int_equal(stats_add_text(&ss, "neg", "-12", &e), 0);
	assert_int_equal(stats_add_text(&ss, "sp", " \t42 \r\n", &e), 0);
	assert_int_equal(stats_add_text(&ss, "half", "-0.5", &e), 0);
	assert_false(stats_find(&ss, "int")->is_float);
	assert_true(stats_find(&ss, "flt")->is_float);
	assert_true(stats_find(&ss, "exp")->is_float);
	assert_true(stats_find(&ss, "e5")->is_float);
	assert_false(stats_find(&ss, "neg")->is_float);
	assert_false(stats_find(&ss, "sp")->is_float);
	assert_true(stats_find(&ss, "half")->is_float);
	assert_true(stats_find(&ss, "exp")->v[0] == 1.4e13);
	assert_true(stats_find(&ss, "e5")->v[0] == 1e5);
	assert_true(stats_find(&ss, "sp")->v[0] == 42);
	assert_true(stats_find(&ss, "neg")->v[0] == -12);

	struct node *pj = stats_program_json(&ss, "p");
	assert_json(pj, "{\"p.int\": [753], \"p.flt\": [0.7], \"p.exp\": [14000000000000.0],"
		    " \"p.e5\": [100000.0], \"p.neg\": [-12], \"p.sp\": [42], \"p.half\": [-0.5]}");
	node_free(pj);
	stats_samples_release(&ss);
	strbuf_release(&e);
}

static void test_stats_add_text_rejects(void **state)
{
	static const char *const bad[] = {
		"", "  ", "abc", "nan", "NaN", "inf", "-inf", "Infinity", "12abc", "1.2.3",
		"5 6", "1e", "1e999", "-", ".", "0x10", "0X1e", "1,5",
	};
	struct stats_samples ss;
	(void)state;
	stats_samples_init(&ss);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct strbuf e = STRBUF_INIT;
		if (stats_add_text(&ss, "k", bad[i], &e) != -1)
			fail_msg("'%s' was accepted as a number", bad[i]);
		assert_non_null(strstr(e.buf, "'k'"));
		strbuf_release(&e);
	}
	assert_int_equal(ss.n, 0);
	stats_samples_release(&ss);
}

static void test_stats_add_lines_ignores_comments_and_others(void **state)
{
	struct stats_samples ss;
	struct strbuf e = STRBUF_INIT;
	(void)state;
	stats_samples_init(&ss);
	assert_int_equal(stats_add_lines(&ss,
					 "# comment: 5\n"
					 "not a stat line\n"
					 "nospace:7\n"
					 "\n"
					 "a: 1\n"
					 "b: 2.5\n"
					 "#a: 99\n"
					 "a: 3\n"
					 "url: http://x: 4\n"	/* split at the first ": " -> bad value */
					 , &e), -1);
	assert_non_null(strstr(e.buf, "'url'"));
	stats_samples_release(&ss);

	stats_samples_init(&ss);
	assert_int_equal(stats_add_lines(&ss,
					 "# comment: 5\n"
					 "not a stat line\n"
					 "nospace:7\n"
					 "\n"
					 "a: 1\n"
					 "b: 2.5\r\n"
					 "#a: 99\n"
					 "a: 3\n"
					 "c: 4", &e), 0);	/* the last line has no newline */
	assert_int_equal(ss.n, 3);
	assert_series(&ss, "a", 2, (const double[]){ 1, 3 });
	assert_series(&ss, "b", 1, (const double[]){ 2.5 });
	assert_series(&ss, "c", 2, (const double[]){ 0, 4 });
	assert_null(stats_find(&ss, "nospace:7"));
	assert_null(stats_find(&ss, "nospace"));
	stats_samples_release(&ss);

	/* a key with whitespace stops the feed with -1 (dump-stat exits 1) */
	stats_samples_init(&ss);
	assert_int_equal(stats_add_lines(&ss, "a: 1\nb c: 2\nd: 3\n", &e), -1);
	assert_non_null(strstr(e.buf, "b c"));
	assert_null(stats_find(&ss, "d"));
	stats_samples_release(&ss);

	/* a test's keys are printable ASCII: an escape sequence, a CR, UTF-8 stop it too, shown escaped */
	static const char *const odd[] = { "\033[2Jx: 5\n", "a\rb: 1\n",
					   "a\xc2\x9b"
					   "2J: 1\n",
					   "caf\xc3\xa9: 1\n" };
	for (size_t i = 0; i < ARRAY_SIZE(odd); i++) {
		stats_samples_init(&ss);
		assert_int_equal(stats_add_lines(&ss, odd[i], &e), -1);
		assert_non_null(strstr(e.buf, "not printable ASCII"));
		for (const char *c = e.buf; *c; c++)
			assert_true((unsigned char)*c >= 0x20 && (unsigned char)*c != 0x7f);
		assert_null(strstr(e.buf, "\xc2\x9b"));
		assert_int_equal(ss.n, 0);
		stats_samples_release(&ss);
	}
	strbuf_release(&e);
}

/* ---- stats: <program>.json --------------------------------------------- */

static void test_stats_program_json_prefix_and_zero_series(void **state)
{
	struct node *n;
	(void)state;
	/* Ruby: 'a: 0\nb: 0\n' -> no file; 'a: 0\na: 5\na: 0\n' -> {"t.a":[0,5,0]} */
	/* Ruby: the vmstat lines below give exactly this object */
	n = program_json_of("vmstat", "time: 100\nsystem.in: 129\nswap.so: 0\nzero: 0\nneg: -1\n"
			    "time: 101\nsystem.in: 753\nswap.so: 12\nzero: 0\nneg: 1\n"
			    "time: 102\nsystem.in: 7\nswap.so: 0\nzero: 0\nneg: 0\n");
	/* swap.so is 0 first and last but sums to 12: kept; neg sums to 0 but is
	 * not 0 first: kept; zero: dropped */
	assert_json(n, "{\"vmstat.time\": [100, 101, 102], \"vmstat.system.in\": [129, 753, 7],"
		    " \"vmstat.swap.so\": [0, 12, 0], \"vmstat.neg\": [-1, 1, 0]}");
	node_free(n);

	n = program_json_of("t", "a: 0\na: 5\na: 0\n");
	assert_json(n, "{\"t.a\": [0, 5, 0]}");
	node_free(n);
	n = program_json_of("t", "a: 0\na: 3\na: -3\na: 0\n");	/* 0, 0 and sum 0: dropped */
	assert_null(n);
	n = program_json_of("fio.time", "user_time: 0.5\nelapsed_time: 2\n");
	/* Ruby: {"fio.time.user_time":[0.5],"fio.time.elapsed_time":[2]} */
	assert_json(n, "{\"fio.time.user_time\": [0.5], \"fio.time.elapsed_time\": [2]}");
	node_free(n);
}

static void test_stats_program_json_null_when_nothing_left(void **state)
{
	struct stats_samples ss;
	(void)state;
	stats_samples_init(&ss);
	assert_null(stats_program_json(&ss, "t"));
	stats_samples_release(&ss);
	assert_null(program_json_of("t", "a: 0\nb: 0\n"));	/* Ruby: no file */
	assert_null(program_json_of("t", "# nothing: 1\n"));
	assert_null(program_json_of("t", "a: 0.0\na: 0\n"));
}

static void test_stats_program_json_cuts_incomplete_record(void **state)
{
	struct node *n;
	(void)state;
	/* Ruby: 'a: 1\nb: 2\na: 3\nb: 4\na: 5\n' -> {"t.a":[1,3],"t.b":[2,4]}
	 * ("Last record seems incomplete") */
	n = program_json_of("t", "a: 1\nb: 2\na: 3\nb: 4\na: 5\n");
	assert_json(n, "{\"t.a\": [1, 3], \"t.b\": [2, 4]}");
	node_free(n);
	/* Ruby: 'a: 1\nb: 2\na: 3\nb: 4\na: 5\nb: 0\n' -> {"t.a":[1,3,5],"t.b":[2,4,0]} */
	n = program_json_of("t", "a: 1\nb: 2\na: 3\nb: 4\na: 5\nb: 0\n");
	assert_json(n, "{\"t.a\": [1, 3, 5], \"t.b\": [2, 4, 0]}");
	node_free(n);
	/* several series complete, one short: all cut to the short one */
	n = program_json_of("t", "a: 1\nb: 2\nc: 3\na: 4\nb: 5\nc: 6\na: 7\nb: 8\n");
	assert_json(n, "{\"t.a\": [1, 4], \"t.b\": [2, 5], \"t.c\": [3, 6]}");
	node_free(n);
	/* Ruby: 'a: 1\nb: 1\na: 2\na: 3\n' -> {"t.a":[1,2,3],"t.b":[1]}: two
	 * samples short is "not a matrix", warned about but not cut */
	n = program_json_of("t", "a: 1\nb: 1\na: 2\na: 3\n");
	assert_json(n, "{\"t.a\": [1, 2, 3], \"t.b\": [1]}");
	node_free(n);
}

/* dump-stat takes the shortest and longest series before it drops the zero
 * ones, so a zero series missing from the last record still marks that
 * record incomplete. Ruby: 'a: 1\nb: 0\na: 2\nb: 0\na: 3\n' -> {"t.a":[1,2]} */
static void test_stats_program_json_cut_counts_zero_series(void **state)
{
	struct node *n;
	(void)state;
	n = program_json_of("t", "a: 1\nb: 0\na: 2\nb: 0\na: 3\n");
	assert_json(n, "{\"t.a\": [1, 2]}");
	node_free(n);
	/* Ruby: 'a: 1\nb: 2\nz: 0\na: 3\nb: 4\nz: 0\na: 5\nb: 6\n' -> {"t.a":[1,3],"t.b":[2,4]} */
	n = program_json_of("t", "a: 1\nb: 2\nz: 0\na: 3\nb: 4\nz: 0\na: 5\nb: 6\n");
	assert_json(n, "{\"t.a\": [1, 3], \"t.b\": [2, 4]}");
	node_free(n);
}

static void test_stats_program_json_float_series(void **state)
{
	struct node *n;
	(void)state;
	/* A series with one float sample is written all as floats. (Ruby
	 * keeps each sample's own type: 'a: 1.5\nb: 3\na: 2\nb: 4\n' ->
	 * {"t.a":[1.5,2],"t.b":[3,4]}.) */
	n = program_json_of("t", "a: 1.5\nb: 3\na: 2\nb: 4\n");
	assert_json(n, "{\"t.a\": [1.5, 2.0], \"t.b\": [3, 4]}");
	node_free(n);
}

/* ---- stats: stats.json (create_stats_matrix) --------------------------- */

static struct node *reduce(const char *pj_json)
{
	struct node *pj = parse_ok(pj_json), *stats = node_new(NODE_MAP);
	stats_reduce(pj, stats);
	node_free(pj);
	return stats;
}

static void test_stats_reduce_rules(void **state)
{
	struct node *s;
	(void)state;
	/* 1 sample -> itself, type kept */
	s = reduce("{\"fio.write_bw_MBps\": [1523.80859375], \"fio.workload\": [8192],"
		   " \"fio.x\": [3.0]}");
	assert_json(s, "{\"fio.write_bw_MBps\": 1523.80859375, \"fio.workload\": 8192,"
		    " \"fio.x\": 3.0}");
	node_free(s);

	/* independent counters -> sum */
	s = reduce("{\"perf-stat.total.instructions\": [1000, 2000],"
		   " \"perf-stat.ps.cycles\": [1, 2, 3], \"perf-stat.overall.ipc\": [0.5, 0.25]}");
	assert_json(s, "{\"perf-stat.total.instructions\": 3000, \"perf-stat.ps.cycles\": 6,"
		    " \"perf-stat.overall.ipc\": 0.75}");
	node_free(s);
	s = reduce("{\"time.user_time\": [0.5, 1.0], \"time.minor_page_faults\": [10, 20]}");
	assert_json(s, "{\"time.user_time\": 1.5, \"time.minor_page_faults\": 30}");
	node_free(s);

	/* event counters -> last - first */
	s = reduce("{\"interrupts.CPU0.LOC:Local_timer_interrupts\": [1000, 1500, 4000],"
		   " \"interrupts.time\": [1.5, 2.5, 3.0]}");
	assert_json(s, "{\"interrupts.CPU0.LOC:Local_timer_interrupts\": 3000}");
	node_free(s);
	s = reduce("{\"proc-vmstat.pgfault\": [10, 20, 35], \"proc-vmstat.nr_free_pages\": [100, 200, 300]}");
	assert_json(s, "{\"proc-vmstat.pgfault\": 25, \"proc-vmstat.nr_free_pages\": 200.0}");
	node_free(s);
	s = reduce("{\"softirq.NET_RX\": [5, 9, 12], \"softirq.x\": [1.5, 2.0]}");
	assert_json(s, "{\"softirq.NET_RX\": 7, \"softirq.x\": 0.5}");
	node_free(s);
	s = reduce("{\"numa-vmstat.node0.pgfault\": [3, 10], \"numa-vmstat.node12.numa_hit\": [1, 5],"
		   " \"numa-vmstat.node0.nr_free_pages\": [3, 10]}");
	assert_json(s, "{\"numa-vmstat.node0.pgfault\": 7, \"numa-vmstat.node12.numa_hit\": 4,"
		    " \"numa-vmstat.node0.nr_free_pages\": 6.5}");
	node_free(s);

	/* others -> mean, a float; <group>.time skipped */
	s = reduce("{\"vmstat.time\": [100, 101, 102], \"vmstat.system.in\": [129, 753, 800],"
		   " \"vmstat.cpu.us\": [1.5, 2.5, 3.0], \"vmstat.cpu.id\": [90, 92]}");
	assert_json(s, "{\"vmstat.system.in\": 560.6666666666666, \"vmstat.cpu.us\": 2.3333333333333335,"
		    " \"vmstat.cpu.id\": 91.0}");
	node_free(s);

	/* non-numbers are not samples; a series of none gives nothing */
	s = reduce("{\"x.a\": [NaN, 4, \"s\", 6], \"x.b\": [null], \"x.c\": [], \"x.d\": 5}");
	assert_json(s, "{\"x.a\": 5.0}");
	node_free(s);
}

/* Ruby: create_stats_matrix on these files printed exactly these values
 * (vmstat.system.in 560.6666666666666, interrupts 3000, proc-vmstat.pgfault 25,
 * nr_free_pages 200.0, perf-stat.total.instructions 3000, perf-stat.i.ipc 2.0,
 * time.elapsed_time 3.0 + .max 3.5, time.user_time 1.5, fio.time.elapsed_time
 * 2.5 + .max 2.5). */
static void test_stats_reduce_same_as_lkp(void **state)
{
	static const char *const files[] = {
		"{\"vmstat.time\":[100,101,102],\"vmstat.system.in\":[129,753,800],"
		"\"vmstat.cpu.us\":[1.5,2.5,3.0]}",
		"{\"interrupts.CPU0.LOC:Local_timer_interrupts\":[1000,1500,4000],"
		"\"interrupts.time\":[1.5,2.5,3.0]}",
		"{\"proc-vmstat.pgfault\":[10,20,35],\"proc-vmstat.nr_free_pages\":[100,200,300]}",
		"{\"perf-stat.total.instructions\":[1000,2000],\"perf-stat.i.ipc\":[1.5,2.5]}",
		"{\"fio.write_bw_MBps\":[1523.80859375],\"fio.workload\":[8192]}",
		"{\"fio.time.elapsed_time\":[2.5],\"fio.time.user_time\":[0.5]}",
		"{\"time.elapsed_time\":[2.5, 3.5],\"time.user_time\":[0.5, 1.0]}",
	};
	struct node *stats = node_new(NODE_MAP);
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		struct node *pj = parse_ok(files[i]);
		stats_reduce(pj, stats);
		node_free(pj);
	}
	assert_json(stats,
		    "{\"vmstat.system.in\": 560.6666666666666, \"vmstat.cpu.us\": 2.3333333333333335,"
		    " \"interrupts.CPU0.LOC:Local_timer_interrupts\": 3000,"
		    " \"proc-vmstat.pgfault\": 25, \"proc-vmstat.nr_free_pages\": 200.0,"
		    " \"perf-stat.total.instructions\": 3000, \"perf-stat.i.ipc\": 2.0,"
		    " \"fio.write_bw_MBps\": 1523.80859375, \"fio.workload\": 8192,"
		    " \"fio.time.elapsed_time\": 2.5, \"fio.time.elapsed_time.max\": 2.5,"
		    " \"fio.time.user_time\": 0.5,"
		    " \"time.elapsed_time\": 3.0, \"time.elapsed_time.max\": 3.5,"
		    " \"time.user_time\": 1.5}");
	node_free(stats);
}

static void test_stats_reduce_max_latency(void **state)
{
	struct node *s;
	(void)state;
	/* etc/add-max-latency: .*time.elapsed_time,
	 * iostat\..*\.(await|r_await|w_await|svctm|avgqu-sz),
	 * numa-meminfo\.node[0-9]\.AnonPages (anchored at both ends) */
	s = reduce("{\"vm-scalability.time.elapsed_time\": [7, 9], \"iostat.sda.await\": [1.5, 0.5],"
		   " \"iostat.sda.w_await\": [4], \"iostat.sda.rkB/s\": [4, 6],"
		   " \"numa-meminfo.node0.AnonPages\": [10, 30],"
		   " \"numa-meminfo.node0.AnonPagesX\": [10, 30],"
		   " \"numa-meminfo.node10.AnonPages\": [10, 30],"
		   " \"x.elapsed_time\": [1, 2]}");
	assert_json(s, "{\"vm-scalability.time.elapsed_time\": 8.0,"
		    " \"vm-scalability.time.elapsed_time.max\": 9,"
		    " \"iostat.sda.await\": 1.0, \"iostat.sda.await.max\": 1.5,"
		    " \"iostat.sda.w_await\": 4, \"iostat.sda.w_await.max\": 4,"
		    " \"iostat.sda.rkB/s\": 5.0,"
		    " \"numa-meminfo.node0.AnonPages\": 20.0, \"numa-meminfo.node0.AnonPages.max\": 30,"
		    " \"numa-meminfo.node0.AnonPagesX\": 20.0,"
		    " \"numa-meminfo.node10.AnonPages\": 20.0,"
		    " \"x.elapsed_time\": 1.5}");
	node_free(s);
}

/* stats_reduce finds "<group>.time" from the first key's group; a key
 * shorter than that group must not be read past its end (ASan). */
static void test_stats_reduce_short_keys(void **state)
{
	struct node *s;
	(void)state;
	s = reduce("{\"interrupts.CPU0.NMI:Non-maskable_interrupts\": [1, 5], \"a\": [1, 2],"
		   " \"b.c\": [3, 5], \"interrupts.time\": [1, 2]}");
	assert_json(s, "{\"interrupts.CPU0.NMI:Non-maskable_interrupts\": 4, \"a\": 1.5,"
		    " \"b.c\": 4.0}");
	node_free(s);
	s = reduce("{}");
	assert_int_equal(s->n, 0);
	node_free(s);
}

static void test_stats_counter_classes(void **state)
{
	static const char *const event[] = {
		"interrupts.CPU0.LOC:Local_timer_interrupts", "softirq.NET_RX", "cpuidle.C1.usage",
		"proc-vmstat.pgfault", "proc-vmstat.pgpgin", "proc-vmstat.numa_hit",
		"numa-vmstat.node0.pgfault", "numa-vmstat.node13.nr_written",
		"numa-numastat.node0.numa_hit", "diskstats.read_ios.sda",
	};
	static const char *const independent[] = {
		"perf-stat.total.instructions", "perf-stat.ps.cycles", "perf-stat.overall.ipc",
		"time.user_time", "time.system_time", "time.voluntary_context_switches",
	};
	static const char *const neither[] = {
		"vmstat.system.in", "proc-vmstat.nr_free_pages", "numa-vmstat.node0.nr_free_pages",
		"numa-vmstat.node.pgfault", "numa-vmstat.nodeX.pgfault", "numa-vmstat.node0pgfault",
		"fio.time.user_time", "time.elapsed_time", "perf-stat.i.ipc", "interrupts",
		"meminfo.MemFree",
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(event); i++) {
		if (!stats_is_event_counter(event[i]))
			fail_msg("%s is an event counter", event[i]);
		assert_false(stats_is_independent_counter(event[i]));
	}
	for (size_t i = 0; i < ARRAY_SIZE(independent); i++) {
		if (!stats_is_independent_counter(independent[i]))
			fail_msg("%s is an independent counter", independent[i]);
		assert_false(stats_is_event_counter(independent[i]));
	}
	for (size_t i = 0; i < ARRAY_SIZE(neither); i++)
		if (stats_is_event_counter(neither[i]) || stats_is_independent_counter(neither[i]))
			fail_msg("%s is a plain metric", neither[i]);
}

/* ---- stats: the matrix ------------------------------------------------- */

/* Ruby: matrix_from_stats_files of {"a":1,"b":2.5,"x":2}, {"b":3.5,"c":7,"x":4},
 * {"a":4,"b":9.5,"c":1,"x":9} (then matrix_fill_missing_zeros) ->
 * a [1,0,4], b [2.5,3.5,9.5], x [2,4,9], stats_source, c [0,7,1]; averages
 * a 1.6666666666666667, b 5.166666666666667, x 5.0, c 2.6666666666666665;
 * stddev a 1.6996731711975948, b 3.091206165165234, x 2.943920288775949,
 * c 3.091206165165235. */
static struct node *three_run_matrix(void)
{
	static const char *const runs[] = {
		"{\"a\": 1, \"b\": 2.5, \"x\": 2}",
		"{\"b\": 3.5, \"c\": 7, \"x\": 4}",
		"{\"a\": 4, \"b\": 9.5, \"c\": 1, \"x\": 9}",
	};
	struct node *m = node_new(NODE_MAP);
	for (size_t i = 0; i < ARRAY_SIZE(runs); i++) {
		struct node *s = parse_ok(runs[i]);
		char src[32];
		snprintf(src, sizeof(src), "r%zu.json", i);
		stats_matrix_add(m, s, src);
		node_free(s);
	}
	return m;
}

static void test_stats_matrix_add_columns(void **state)
{
	struct node *m = node_new(NODE_MAP), *s;
	(void)state;

	s = parse_ok("{\"a\": 1, \"b\": 2.5}");
	stats_matrix_add(m, s, "/rt/0/stats.json");
	node_free(s);
	assert_json(m, "{\"a\": [1], \"b\": [2.5], \"stats_source\": [\"/rt/0/stats.json\"]}");
	assert_true(node_get(m, "stats_source")->vals[0]->quoted);

	/* b missing from this run gets a 0; c missing from the earlier run is
	 * left-padded with 0 */
	s = parse_ok("{\"a\": 2, \"c\": 7}");
	stats_matrix_add(m, s, "/rt/1/stats.json");
	node_free(s);
	assert_json(m, "{\"a\": [1, 2], \"b\": [2.5, 0], \"stats_source\": [\"/rt/0/stats.json\","
		    " \"/rt/1/stats.json\"], \"c\": [0, 7]}");

	/* an empty run is still a column; a stats_source key in the stats is not a metric */
	s = parse_ok("{\"stats_source\": \"elsewhere\"}");
	stats_matrix_add(m, s, "/rt/2/stats.json");
	node_free(s);
	assert_json(m, "{\"a\": [1, 2, 0], \"b\": [2.5, 0, 0], \"stats_source\": [\"/rt/0/stats.json\","
		    " \"/rt/1/stats.json\", \"/rt/2/stats.json\"], \"c\": [0, 7, 0]}");
	node_free(m);

	m = three_run_matrix();
	assert_json(m, "{\"a\": [1, 0, 4], \"b\": [2.5, 3.5, 9.5], \"x\": [2, 4, 9],"
		    " \"stats_source\": [\"r0.json\", \"r1.json\", \"r2.json\"], \"c\": [0, 7, 1]}");
	node_free(m);
}

static void test_stats_matrix_summary_population_stddev(void **state)
{
	struct node *m = three_run_matrix(), *avg = node_new(NODE_MAP), *sd = node_new(NODE_MAP);
	(void)state;
	stats_matrix_summary(m, avg, sd);
	assert_int_equal(avg->n, 4);
	assert_int_equal(sd->n, 4);
	assert_null(node_get(avg, "stats_source"));
	/* x = 2, 4, 9: mean 15/3 = 5; deviations -3, -1, 4 -> squares 9 + 1 + 16 = 26;
	 * population variance 26/3, stddev sqrt(26/3) = 2.9439202887759488
	 * (the sample stddev, dividing by n-1, would be sqrt(13) = 3.6055512754639891) */
	assert_string_equal(scalar_at(avg, "x"), "5.0");
	assert_close(number_at(sd, "x"), sqrt(26.0 / 3));
	assert_close(number_at(sd, "x"), 2.943920288775949);
	/* a = 1, 0 (missing), 4: mean 5/3, squares 4/9 + 25/9 + 49/9 = 78/9, /3 -> 26/9 */
	assert_close(number_at(avg, "a"), 5.0 / 3);
	assert_close(number_at(sd, "a"), sqrt(26.0 / 9));
	assert_close(number_at(sd, "a"), 1.6996731711975948);
	/* b = 2.5, 3.5, 9.5: mean 15.5/3; squares 7.1111 + 2.7778 + 18.7778 = 28.6667, /3 */
	assert_close(number_at(avg, "b"), 15.5 / 3);
	assert_close(number_at(sd, "b"), 3.091206165165234);
	assert_close(number_at(avg, "c"), 8.0 / 3);
	assert_close(number_at(sd, "c"), 3.091206165165235);
	/* they are written as floats */
	assert_non_null(strchr(scalar_at(sd, "x"), '.'));
	node_free(avg);
	node_free(sd);

	/* one run: stddev 0.0 */
	node_free(m);
	m = node_new(NODE_MAP);
	struct node *s = parse_ok("{\"k\": 7}");
	stats_matrix_add(m, s, "r0");
	node_free(s);
	avg = node_new(NODE_MAP);
	sd = node_new(NODE_MAP);
	stats_matrix_summary(m, avg, sd);
	assert_json(avg, "{\"k\": 7.0}");
	assert_json(sd, "{\"k\": 0.0}");
	node_free(avg);
	node_free(sd);
	node_free(m);
}

/* ---- result ------------------------------------------------------------ */

static void test_result_claim_run_in_order(void **state)
{
	char *tmp = make_tmpdir(), *rt = xasprintf("%s/a/b/c", tmp);
	struct strbuf e = STRBUF_INIT;
	(void)state;
	for (int i = 0; i < 3; i++) {
		char *d = NULL, *want = xasprintf("%s/%d", rt, i);
		int no = -1;
		assert_int_equal(result_claim_run(rt, &d, &no, &e), 0);
		assert_int_equal(no, i);
		assert_string_equal(d, want);
		struct stat st;
		assert_int_equal(stat(d, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		free(d);
		free(want);
	}
	/* a file in the way is skipped, not reused */
	char *f = xasprintf("%s/3", rt);
	write_str(f, "x");
	free(f);
	char *d;
	int no;
	assert_int_equal(result_claim_run(rt, &d, &no, &e), 0);
	assert_int_equal(no, 4);
	free(d);
	/* an unusable result root is an error */
	char *bad = xasprintf("%s/3/x", rt);
	assert_int_equal(result_claim_run(bad, &d, &no, &e), -1);
	assert_non_null(strstr(e.buf, bad));
	free(bad);
	free(rt);
	strbuf_release(&e);
	rm_rf(tmp);
}

static void test_result_claim_run_concurrent(void **state)
{
	enum { CHILDREN = 4, EACH = 8 };
	char *rt = make_tmpdir();
	int go[2], res[2];
	pid_t pids[CHILDREN];
	struct strbuf e = STRBUF_INIT;
	bool seen[3 + CHILDREN * EACH] = { false };
	(void)state;

	for (int i = 0; i < 3; i++) {
		char *d;
		int no;
		assert_int_equal(result_claim_run(rt, &d, &no, &e), 0);
		assert_int_equal(no, i);
		seen[no] = true;
		free(d);
	}
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(res), 0);
	for (int c = 0; c < CHILDREN; c++) {
		pids[c] = fork();
		assert_true(pids[c] >= 0);
		if (!pids[c]) {
			char b;
			close(go[1]);
			close(res[0]);
			/* start together */
			if (read(go[0], &b, 1) != 0)
				_exit(2);
			for (int k = 0; k < EACH; k++) {
				char *d;
				int no;
				struct strbuf ce = STRBUF_INIT;
				if (result_claim_run(rt, &d, &no, &ce) ||
				    write(res[1], &no, sizeof(no)) != sizeof(no))
					_exit(1);
				free(d);
				strbuf_release(&ce);
			}
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);	/* EOF releases every child at once */
	close(res[1]);
	for (int c = 0; c < CHILDREN; c++) {
		int st;
		assert_int_equal(waitpid(pids[c], &st, 0), pids[c]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	int no, got = 0;
	while (read(res[0], &no, sizeof(no)) == sizeof(no)) {
		assert_true(no >= 3 && no < 3 + CHILDREN * EACH);
		if (seen[no])
			fail_msg("run %d was claimed twice", no);
		seen[no] = true;
		got++;
	}
	close(res[0]);
	assert_int_equal(got, CHILDREN * EACH);
	strbuf_release(&e);
	rm_rf(rt);
}

static void test_result_save_load_json_round_trip(void **state)
{
	char *tmp = make_tmpdir(), *p = xasprintf("%s/stats.json", tmp);
	struct node *n = parse_ok("{\"fio.write_bw_MBps\": 1523.80859375, \"fio.workload\": 8192,"
				  " \"s\": \"\\u00e9\\n\", \"arr\": [1.430e+13, null, true], \"m\": {}}");
	struct node *back = NULL;
	struct strbuf e = STRBUF_INIT, text = STRBUF_INIT;
	(void)state;
	assert_int_equal(result_save_json(p, n, &e), 0);
	assert_int_equal(result_load_json(p, &back, &e), 0);
	assert_true(node_equal(n, back));
	/* the file is json_emit's text */
	struct strbuf want = STRBUF_INIT;
	json_emit(&want, n);
	assert_int_equal(strbuf_read_file(&text, p), 0);
	assert_string_equal(text.buf, want.buf);
	strbuf_release(&want);
	strbuf_release(&text);
	node_free(back);
	node_free(n);
	free(p);
	strbuf_release(&e);
	rm_rf(tmp);
}

static void test_result_save_json_atomic_replace(void **state)
{
	char *tmp = make_tmpdir(), *p = xasprintf("%s/avg.json", tmp);
	struct strbuf e = STRBUF_INIT, text = STRBUF_INIT;
	struct node *big = node_new(NODE_MAP), *small = parse_ok("{\"k\": 2}"), *back;
	struct stat st1, st2;
	(void)state;

	for (int i = 0; i < 1000; i++) {
		char k[32];
		snprintf(k, sizeof(k), "metric.%d", i);
		node_set(big, k, stats_number(i * 1.5, true));
	}
	assert_int_equal(result_save_json(p, big, &e), 0);
	assert_int_equal(stat(p, &st1), 0);
	/* a reader holding the old file keeps reading the old, whole text */
	FILE *old = fopen(p, "r");
	assert_non_null(old);
	assert_int_equal(result_save_json(p, small, &e), 0);
	assert_int_equal(stat(p, &st2), 0);
	assert_true(st1.st_ino != st2.st_ino);	/* replaced by rename, not rewritten */
	assert_int_equal(result_load_json(p, &back, &e), 0);
	assert_true(node_equal(back, small));
	node_free(back);
	char buf[64 * 1024];
	size_t got = fread(buf, 1, sizeof(buf) - 1, old);
	fclose(old);
	buf[got] = '\0';
	assert_int_equal(got, (size_t)st1.st_size);
	back = parse_ok(buf);
	assert_true(node_equal(back, big));
	node_free(back);

	/* no temporary file left behind */
	DIR *d = opendir(tmp);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			files++;
	closedir(d);
	assert_int_equal(files, 1);

	/* a failed write leaves the old file and no temporary */
	char *dir = xasprintf("%s/sub", tmp), *q = xasprintf("%s/sub/x.json", tmp);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(q, 0755), 0);	/* a directory where the file goes */
	assert_int_equal(result_save_json(q, small, &e), -1);
	assert_non_null(strstr(e.buf, q));
	d = opendir(dir);
	files = 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			files++;
	closedir(d);
	assert_int_equal(files, 1);
	/* a missing directory is an error too */
	char *r = xasprintf("%s/none/x.json", tmp);
	assert_int_equal(result_save_text(r, "x", 1, &e), -1);
	assert_non_null(strstr(e.buf, "cannot write"));
	free(r);
	free(dir);
	free(q);

	node_free(big);
	node_free(small);
	free(p);
	strbuf_release(&e);
	strbuf_release(&text);
	rm_rf(tmp);
}

static void test_result_load_json_errors(void **state)
{
	char *tmp = make_tmpdir(), *p = xasprintf("%s/bad.json", tmp);
	char *missing = xasprintf("%s/none.json", tmp), *want;
	struct strbuf e = STRBUF_INIT;
	struct node *n = (struct node *)1;
	(void)state;
	assert_int_equal(result_load_json(missing, &n, &e), -1);
	assert_non_null(strstr(e.buf, "cannot read"));
	assert_non_null(strstr(e.buf, missing));
	write_str(p, "{\n  \"a\": [1,\n");
	assert_int_equal(result_load_json(p, &n, &e), -1);
	assert_null(n);
	want = xasprintf("%s:3:1: unexpected end of input", p);
	assert_string_equal(e.buf, want);
	free(want);
	free(missing);
	free(p);
	strbuf_release(&e);
	rm_rf(tmp);
}

static struct node *load_json_file(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct node *n = NULL;
	struct strbuf e = STRBUF_INIT;
	if (result_load_json(p, &n, &e))
		fail_msg("%s", e.buf);
	free(p);
	strbuf_release(&e);
	return n;
}

/* jobs[0].write.bw of the fixture fio-write.json (after fio's notes) / 1024 */
static double fixture_write_bw_mbps(void)
{
	struct strbuf sb = STRBUF_INIT, e = STRBUF_INIT;
	const char *brace;
	double bw;

	load_fixture(&sb, "fio-write.json");
	brace = strstr(sb.buf, "\n{");
	assert_non_null(brace);
	brace++;
	struct node *root = json_parse(brace, sb.len - (size_t)(brace - sb.buf), "fio-write.json", &e);
	if (!root)
		fail_msg("%s", e.buf);
	assert_true(json_number(json_path(root, "jobs", "0", "write", "bw", NULL), &bw));
	assert_true(bw > 0);
	node_free(root);
	strbuf_release(&sb);
	strbuf_release(&e);
	return bw / 1024;
}

static struct node *job_node(void)
{
	struct strbuf e = STRBUF_INIT;
	struct node *job = yml_load_one("suite: fio-basic\ntestcase: fio-basic\nvmstat:\n"
					"fio:\n  rw: write\nruntime: 5s\n", "job.yaml", &e);
	if (!job)
		fail_msg("%s", e.buf);
	strbuf_release(&e);
	return job;
}

static void test_result_extract_vmstat_and_fio(void **state)
{
	char *run = make_tmpdir();
	struct node *job = job_node(), *problems = node_new(NODE_MAP), *stats = NULL;
	struct strbuf e = STRBUF_INIT;
	(void)state;

	copy_fixture("vmstat.txt", run, "vmstat");
	copy_fixture("fio-write.json", run, "fio.output");
	if (result_extract(run, job, problems, &stats, &e))
		fail_msg("result_extract: %s", e.buf);
	assert_int_equal(problems->n, 0);
	assert_true(exists(run, "vmstat.json"));
	assert_true(exists(run, "fio.json"));
	assert_true(exists(run, "stats.json"));
	assert_false(exists(run, "fio.time.json"));	/* no fio.time file */

	struct node *file = load_json_file(run, "stats.json");
	assert_true(node_equal(file, stats));
	/* fio: the bandwidth of the very same fixture */
	double want = fixture_write_bw_mbps();
	assert_true(number_at(file, "fio.write_bw_MBps") == want);
	assert_close(want, 1560380 / 1024.0);
	assert_non_null(node_get(file, "fio.write_iops"));
	assert_non_null(node_get(file, "fio.workload"));
	assert_null(node_get(file, "fio.read_bw_MBps"));	/* zero series dropped */
	/* vmstat: the mean of the 4 samples of vmstat.txt (system.in 233 124 106 105) */
	assert_string_equal(scalar_at(file, "vmstat.system.in"), "142.0");
	assert_string_equal(scalar_at(file, "vmstat.memory.free"), "23779868.0");
	assert_null(node_get(file, "vmstat.time"));
	assert_null(node_get(file, "vmstat.swap.si"));		/* all 0 */

	/* vmstat.json: 4 aligned samples */
	struct node *vj = load_json_file(run, "vmstat.json");
	assert_json(node_get(vj, "vmstat.system.in"), "[233, 124, 106, 105]");
	assert_int_equal(node_get(vj, "vmstat.time")->n, 4);
	node_free(vj);
	struct node *fj = load_json_file(run, "fio.json");
	assert_int_equal(node_get(fj, "fio.write_bw_MBps")->n, 1);
	node_free(fj);

	node_free(file);
	node_free(stats);
	node_free(problems);
	node_free(job);
	strbuf_release(&e);
	rm_rf(run);
}

static void test_result_extract_truncated_fio(void **state)
{
	char *run = make_tmpdir();
	struct node *job = job_node(), *problems = node_new(NODE_MAP), *stats = NULL;
	struct strbuf e = STRBUF_INIT;
	(void)state;

	copy_fixture("vmstat.txt", run, "vmstat");
	copy_fixture("fio-randrw-truncated.json", run, "fio.output");
	if (result_extract(run, job, problems, &stats, &e))
		fail_msg("result_extract: %s", e.buf);
	/* reported, not fatal */
	assert_int_equal(problems->n, 1);
	assert_string_equal(problems->keys[0], "fio.output");
	assert_true(problems->vals[0]->quoted);
	assert_true(strlen(problems->vals[0]->str) > 0);
	/* and no fio.* number anywhere */
	for (size_t i = 0; i < stats->n; i++)
		if (!strncmp(stats->keys[i], "fio.", 4))
			fail_msg("%s from a truncated fio.output", stats->keys[i]);
	assert_false(exists(run, "fio.json"));
	assert_non_null(node_get(stats, "vmstat.system.in"));
	struct node *file = load_json_file(run, "stats.json");
	assert_true(node_equal(file, stats));
	node_free(file);
	node_free(stats);
	node_free(problems);
	node_free(job);
	strbuf_release(&e);
	rm_rf(run);
}

/* Re-extracting a run (lkprobot stats) whose raw file is now rejected must
 * not leave the old <program>.json next to a stats.json without it. */
static void test_result_extract_again_drops_rejected(void **state)
{
	char *run = make_tmpdir();
	struct node *job = job_node(), *problems = node_new(NODE_MAP), *stats = NULL;
	struct strbuf e = STRBUF_INIT;
	(void)state;

	copy_fixture("fio-write.json", run, "fio.output");
	assert_int_equal(result_extract(run, job, problems, NULL, &e), 0);
	assert_true(exists(run, "fio.json"));
	assert_false(exists(run, "vmstat.json"));	/* no raw vmstat: nothing */

	copy_fixture("fio-write-garbled.json", run, "fio.output");
	assert_int_equal(result_extract(run, job, problems, &stats, &e), 0);
	assert_non_null(node_get(problems, "fio.output"));
	/* no fio.* left; the run is incomplete, as lkp-tests' run-stats says */
	for (size_t i = 0; i < stats->n; i++)
		if (!strncmp(stats->keys[i], "fio.", 4))
			fail_msg("%s from a garbled fio.output", stats->keys[i]);
	assert_non_null(node_get(stats, "last_state.is_incomplete_run"));
	assert_false(exists(run, "fio.json"));
	node_free(stats);
	node_free(problems);
	node_free(job);
	strbuf_release(&e);
	rm_rf(run);
}

static char *read_all(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	struct strbuf sb = STRBUF_INIT;

	if (strbuf_read_file(&sb, p))
		fail_msg("cannot read %s", p);
	free(p);
	return strbuf_detach(&sb);
}

/* lkprobot stats on a run whose raw file is gone: the numbers it cannot re-derive are kept, nothing written. */
static void test_result_restat_keeps_what_it_cannot_rederive(void **state)
{
	char *run = make_tmpdir(), *jp = xasprintf("%s/job.yaml", run), *raw = xasprintf("%s/fio.output", run);
	struct node *problems = node_new(NODE_MAP);
	struct strbuf e = STRBUF_INIT;
	(void)state;

	write_str(jp, "suite: fio-basic\ntestcase: fio-basic\nfio:\n  rw: write\n");
	copy_fixture("fio-write.json", run, "fio.output");
	assert_int_equal(result_restat(run, false, problems, &e), 0);
	char *stats = read_all(run, "stats.json"), *job = read_all(run, "job.yaml");
	assert_non_null(strstr(stats, "fio.write_bw_MBps"));

	unlink(raw);
	assert_int_equal(result_restat(run, false, problems, &e), -1);
	assert_non_null(strstr(e.buf, "stats.json kept as it was"));
	assert_non_null(strstr(e.buf, "fio.write_bw_MBps"));
	assert_null(strchr(e.buf, '\n'));
	char *after = read_all(run, "stats.json"), *job_after = read_all(run, "job.yaml");
	assert_string_equal(after, stats);
	assert_string_equal(job_after, job);
	assert_false(exists(run, "last_state")); /* not marked incomplete either */
	assert_true(exists(run, "fio.json"));
	free(after);
	free(job_after);

	/* the older names are made from the current ones: not lost when they are not asked for again */
	copy_fixture("fio-write.json", run, "fio.output");
	assert_int_equal(result_restat(run, true, problems, &e), 0);
	assert_int_equal(result_restat(run, false, problems, &e), 0);
	free(stats);
	free(job);
	free(jp);
	free(raw);
	node_free(problems);
	strbuf_release(&e);
	rm_rf(run);
}

static void write_run_stats(const char *rt, const char *run, const char *json)
{
	char *d = xasprintf("%s/%s", rt, run), *p = xasprintf("%s/%s/stats.json", rt, run);
	assert_int_equal(mkdir(d, 0755), 0);
	write_str(p, json);
	free(d);
	free(p);
}

static void test_result_update_matrix_two_runs(void **state)
{
	char *rt = make_tmpdir();
	struct strbuf e = STRBUF_INIT;
	(void)state;

	/* runs 2 and 10 (numeric order, not "10" < "2"); a run without
	 * stats.json and a directory that is not a run are ignored */
	write_run_stats(rt, "10", "{\"fio.write_bw_MBps\": 9.5, \"x\": 9, \"only10\": 1}");
	write_run_stats(rt, "2", "{\"fio.write_bw_MBps\": 3.5, \"x\": 4}");
	char *d = xasprintf("%s/3", rt), *o = xasprintf("%s/logs", rt);
	assert_int_equal(mkdir(d, 0755), 0);
	assert_int_equal(mkdir(o, 0755), 0);
	free(d);
	free(o);
	if (result_update_matrix(rt, &e))
		fail_msg("%s", e.buf);

	struct node *m = load_json_file(rt, "matrix.json");
	char *s2 = xasprintf("%s/2/stats.json", rt), *s10 = xasprintf("%s/10/stats.json", rt);
	assert_int_equal(node_get(m, "stats_source")->n, 2);
	assert_string_equal(node_get(m, "stats_source")->vals[0]->str, s2);
	assert_string_equal(node_get(m, "stats_source")->vals[1]->str, s10);
	assert_json(node_get(m, "fio.write_bw_MBps"), "[3.5, 9.5]");
	assert_json(node_get(m, "x"), "[4, 9]");
	assert_json(node_get(m, "only10"), "[0, 1]");
	node_free(m);

	struct node *avg = load_json_file(rt, "avg.json"), *sd = load_json_file(rt, "stddev.json");
	assert_json(avg, "{\"fio.write_bw_MBps\": 6.5, \"x\": 6.5, \"only10\": 0.5}");
	assert_json(sd, "{\"fio.write_bw_MBps\": 3.0, \"x\": 2.5, \"only10\": 0.5}");
	node_free(avg);
	node_free(sd);

	/* rebuilt from scratch: running it again adds no column */
	assert_int_equal(result_update_matrix(rt, &e), 0);
	m = load_json_file(rt, "matrix.json");
	assert_int_equal(node_get(m, "stats_source")->n, 2);
	node_free(m);
	free(s2);
	free(s10);
	strbuf_release(&e);
	rm_rf(rt);
}

/* Parallel runs of one commit: each claims a run, writes its stats.json and
 * rebuilds the matrix; the lock makes the last rebuild see every run. */
static void test_result_update_matrix_concurrent(void **state)
{
	enum { CHILDREN = 4 };
	char *rt = make_tmpdir();
	pid_t pids[CHILDREN];
	struct strbuf e = STRBUF_INIT;
	(void)state;

	for (int c = 0; c < CHILDREN; c++) {
		pids[c] = fork();
		assert_true(pids[c] >= 0);
		if (!pids[c]) {
			char *d;
			int no;
			struct strbuf ce = STRBUF_INIT;
			if (result_claim_run(rt, &d, &no, &ce))
				_exit(1);
			char *p = xasprintf("%s/stats.json", d);
			struct node *s = node_new(NODE_MAP);
			node_set(s, "k", stats_number(no, false));
			if (result_save_json(p, s, &ce) || result_update_matrix(rt, &ce))
				_exit(1);
			_exit(0);
		}
	}
	for (int c = 0; c < CHILDREN; c++) {
		int st;
		assert_int_equal(waitpid(pids[c], &st, 0), pids[c]);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 0);
	}
	struct node *m = load_json_file(rt, "matrix.json");
	assert_json(node_get(m, "k"), "[0, 1, 2, 3]");
	node_free(m);
	strbuf_release(&e);
	rm_rf(rt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_parse_object_and_array),
		cmocka_unit_test(test_json_parse_string_escapes),
		cmocka_unit_test(test_json_parse_numbers_kept_as_written),
		cmocka_unit_test(test_json_parse_literals),
		cmocka_unit_test(test_json_parse_errors),
		cmocka_unit_test(test_json_parse_rejects_lone_surrogates),
		cmocka_unit_test(test_json_parse_nesting_limit),
		cmocka_unit_test(test_json_parse_memory_limit),
		cmocka_unit_test(test_json_path_map_and_array),
		cmocka_unit_test(test_json_emit_format),
		cmocka_unit_test(test_json_emit_round_trip),
		cmocka_unit_test(test_json_format_number_integers),
		cmocka_unit_test(test_json_format_number_floats_round_trip),
		cmocka_unit_test(test_json_format_number_is_float_adds_fraction),
		cmocka_unit_test(test_stats_add_repeated_key_new_sample),
		cmocka_unit_test(test_stats_add_backfills_missing_key),
		cmocka_unit_test(test_stats_add_left_pads_late_key),
		cmocka_unit_test(test_stats_add_rejects),
		cmocka_unit_test(test_stats_add_text_int_vs_float),
		cmocka_unit_test(test_stats_add_text_rejects),
		cmocka_unit_test(test_stats_add_lines_ignores_comments_and_others),
		cmocka_unit_test(test_stats_program_json_prefix_and_zero_series),
		cmocka_unit_test(test_stats_program_json_null_when_nothing_left),
		cmocka_unit_test(test_stats_program_json_cuts_incomplete_record),
		cmocka_unit_test(test_stats_program_json_cut_counts_zero_series),
		cmocka_unit_test(test_stats_program_json_float_series),
		cmocka_unit_test(test_stats_reduce_rules),
		cmocka_unit_test(test_stats_reduce_same_as_lkp),
		cmocka_unit_test(test_stats_reduce_max_latency),
		cmocka_unit_test(test_stats_reduce_short_keys),
		cmocka_unit_test(test_stats_counter_classes),
		cmocka_unit_test(test_stats_matrix_add_columns),
		cmocka_unit_test(test_stats_matrix_summary_population_stddev),
		cmocka_unit_test(test_result_claim_run_in_order),
		cmocka_unit_test(test_result_claim_run_concurrent),
		cmocka_unit_test(test_result_save_load_json_round_trip),
		cmocka_unit_test(test_result_save_json_atomic_replace),
		cmocka_unit_test(test_result_load_json_errors),
		cmocka_unit_test(test_result_extract_vmstat_and_fio),
		cmocka_unit_test(test_result_extract_truncated_fio),
		cmocka_unit_test(test_result_extract_again_drops_rejected),
		cmocka_unit_test(test_result_restat_keeps_what_it_cannot_rederive),
		cmocka_unit_test(test_result_update_matrix_two_runs),
		cmocka_unit_test(test_result_update_matrix_concurrent),
	};
	find_fixtures();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: lib/util/ruby — Psych's types and Ruby's to_s of plain
 * scalars against what Ruby itself said (tests/fixtures/ruby, see its
 * README), inspect of lists and maps, and the `{{ }}` expression subset:
 * what it evaluates, and that everything outside it is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testlib.h"
#include "../../lib/util/ruby.h"
#include "../../lib/util/yml.h"

static const char *const class_name[] = {
	[RUBY_NIL] = "NilClass", [RUBY_TRUE] = "TrueClass", [RUBY_FALSE] = "FalseClass",
	[RUBY_INT] = "Integer", [RUBY_FLOAT] = "Float", [RUBY_STRING] = "String",
	[RUBY_SYMBOL] = "Symbol", [RUBY_DATE] = "Date", [RUBY_TIME] = "Time",
	[RUBY_ARRAY] = "Array", [RUBY_HASH] = "Hash",
};

static void test_ruby_scalars_as_psych_reads_them(void **state)
{
	char dir[4096], line[1024];
	size_t n = 0;
	(void)state;
	setenv("TZ", "UTC", 1);	/* the capture's zone, for times without one */
	tzset();
	testlib_fixture_dir(dir, sizeof(dir), "ruby");
	char *path = xasprintf("%s/scalars.tsv", dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		char *cls = strchr(line, '\t'), *want;
		assert_non_null(cls);
		*cls++ = '\0';
		want = strchr(cls, '\t');
		assert_non_null(want);
		*want++ = '\0';
		struct node *v = node_new_scalar(line);
		struct strbuf got = STRBUF_INIT;
		enum ruby_type t = ruby_value(v, &got);
		if (strcmp(class_name[t], cls) || strcmp(got.buf, want))
			fail_msg("'%s': Ruby says %s '%s', lkprobot %s '%s'", line, cls, want,
				 class_name[t], got.buf);
		/* quoted, the same text is a String as written */
		v->quoted = 1;
		strbuf_reset(&got);
		assert_int_equal(ruby_value(v, &got), RUBY_STRING);
		assert_string_equal(got.buf, line);
		strbuf_release(&got);
		node_free(v);
		n++;
	}
	fclose(f);
	free(path);
	assert_true(n >= 70);
}

static void test_ruby_inspect_and_truth(void **state)
{
	struct strbuf err = STRBUF_INIT, s = STRBUF_INIT;
	struct node *doc = yml_load_one("l:\n- a\n- 1\n- 1.50\n- ~\n- 'x\"y'\n- {k: v}\n- :sym\nf: off\nz: 0\n",
					"t", &err);
	(void)state;
	assert_non_null(doc);
	assert_int_equal(ruby_value(node_get(doc, "l"), &s), RUBY_ARRAY);
	assert_string_equal(s.buf, "[\"a\", 1, 1.5, nil, \"x\\\"y\", {\"k\"=>\"v\"}, :sym]");
	assert_false(ruby_truthy(node_get(doc, "f")));
	assert_true(ruby_truthy(node_get(doc, "z")));	/* 0 is true in Ruby */
	assert_false(ruby_truthy(NULL));
	node_free(doc);
	strbuf_release(&s);
	strbuf_release(&err);
}

/* Evaluate expr against ctx (YAML); the result's to_s, "nil", or "ERR <code>: msg". */
static void eval(const char *ctx_yaml, const char *expr, const char *want)
{
	struct strbuf err = STRBUF_INIT, got = STRBUF_INIT;
	struct node *ctx = yml_load_one(ctx_yaml, "ctx", &err), *out = NULL;
	int r;

	assert_non_null(ctx);
	r = ruby_eval(expr, ctx, &out, &err);
	if (r)
		strbuf_addf(&got, "ERR %d: %s", r, err.buf);
	else if (!out)
		strbuf_addstr(&got, "nil");
	else
		ruby_value(out, &got);
	if (strncmp(got.buf, want, strlen(want)))
		fail_msg("%s -> '%s', want '%s'", expr, got.buf, want);
	node_free(out);
	node_free(ctx);
	strbuf_release(&got);
	strbuf_release(&err);
}

static void test_ruby_eval_the_subset(void **state)
{
	const char *job = "fs: btrfs\naim7: {test: disk_src}\nnr: 4\nmd: BRAID6\nlist: [a, b]\n";
	(void)state;
	/* lkp-tests' aim7-fs-1brd */
	eval(job, "\n  if fs == 'btrfs'\n    if aim7.test == 'disk_src' || aim7.test == 'disk_rw'\n"
		  "      500\n    else\n      1500\n    end\n  else\n    3000\n  end\n", "500");
	eval(job, "\n  case fs\n  when 'btrfs' then 10\n  when 'f2fs' then 200\n  else 600\n  end\n", "10");
	eval(job, "case fs\nwhen 'xfs', 'btrfs'\n  'two'\nend", "two");
	eval(job, "case md when /RAID/ then 'raid' end", "raid");
	eval(job, "fs =~ /ext4|xfs/ ? '1000n' : '4000n'", "4000n");
	eval(job, "fs == 'btrfs' ? nil : 'disk_src'", "nil");
	eval(job, "md == 'BRAID6' ? '24G': '130G'", "24G");
	eval(job, "if fs != 'btrfs' then 1 elsif nr > 3 then 2 else 3 end", "2");
	eval(job, "unless nr < 2 then 'many' end", "many");
	eval(job, "!job['arch'] or job['arch'] =~ /x86|i*86/", "true");
	eval(job, "job['nr_vm'] and job['nr_vm'] > 1", "nil");
	eval(job, "not (nr >= 4 && fs == 'btrfs')", "false");
	eval(job, "nr * 2 + 1 - 7 / 2", "6");
	eval(job, "-7 / 2", "-4");	/* Ruby rounds toward minus infinity */
	eval(job, "-7 % 3", "2");
	eval(job, "nr / 8.0", "0.5");
	eval(job, "'a' + \"b\" # a comment", "ab");
	eval(job, "list[1]", "b");
	eval(job, "list[-1] == 'b' && list[5] == nil", "true");
	eval(job, "aim7", "{\"test\"=>\"disk_src\"}");
	/* a key the job lacks: lkp-tests' KeyError */
	eval(job, "nosuch == 1", "ERR -2: unknown hash key: 'nosuch'");
	eval(job, "aim7.load", "ERR -2: unknown hash key: 'load'");
	/* only the branch taken reads keys */
	eval(job, "fs == 'btrfs' ? 1 : nosuch", "1");
	/* outside the subset: refused, never run */
	eval(job, "system('id')", "ERR -1: method calls are not supported");
	eval(job, "fs.upcase!", "ERR -1: method calls are not supported");
	eval(job, "`id`", "ERR -1: unexpected");
	eval(job, "\"need_kconfig: #{fs.upcase}_FS\"", "need_kconfig: BTRFS_FS");
	eval(job, "\"#{nr + 1}#{md.downcase}\"", "5braid6");
	eval(job, "' x '.strip + nr.to_s + '7'.to_i.to_s", "x47");
	eval(job, "fs.reverse", "ERR -1: cannot call 'reverse' on a String");
	eval(job, "x = 1", "ERR -");
	eval(job, "if fs == 'btrfs'\n 1\n", "ERR -1: expected 'end'");
	eval(job, "nr > 'a'", "ERR -1: comparison of an Integer with a String failed");
	eval(job, "1 / 0", "ERR -1: divided by 0");
	eval(job, "fs =~ /(/", "ERR -1: cannot read the regular expression");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ruby_scalars_as_psych_reads_them),
		cmocka_unit_test(test_ruby_inspect_and_truth),
		cmocka_unit_test(test_ruby_eval_the_subset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

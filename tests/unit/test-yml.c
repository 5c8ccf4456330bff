/* Unit tests: lib/yml (libyaml loading with positions, emitting) and lib/node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util/yml.h"

static struct node *load1(const char *text)
{
	struct strbuf err = STRBUF_INIT;
	struct node *n = yml_load_one(text, "t.yaml", &err);
	if (!n)
		fail_msg("load failed: %s", err.buf);
	strbuf_release(&err);
	return n;
}

static void test_yml_load_positions(void **state)
{
	struct node *n = load1("a: 1\nprog:\n  rw: read\n  bs: [4k, 2M]\n");
	(void)state;
	const struct node *prog = node_get(n, "prog");
	assert_non_null(prog);
	const struct node *rw = node_get(prog, "rw");
	assert_string_equal(node_str(rw), "read");
	assert_int_equal(rw->line, 3);
	assert_int_equal(rw->col, 7);
	assert_string_equal(rw->file, "t.yaml");
	const struct node *bs = node_get(prog, "bs");
	assert_int_equal(bs->type, NODE_SEQ);
	assert_int_equal(bs->n, 2);
	assert_string_equal(node_str(bs->vals[1]), "2M");
	node_free(n);
}

static void test_yml_nulls_and_quoted(void **state)
{
	struct node *n = load1("a:\nb: ~\nc: null\nd: 'null'\ne: \"\"\nf: 0x28\ng: '0x28'\n");
	(void)state;
	assert_true(node_is_null(node_get(n, "a")));
	assert_true(node_is_null(node_get(n, "b")));
	assert_true(node_is_null(node_get(n, "c")));
	assert_string_equal(node_str(node_get(n, "d")), "null");
	assert_true(node_get(n, "d")->quoted);
	assert_string_equal(node_str(node_get(n, "e")), "");
	assert_false(node_get(n, "f")->quoted);
	assert_true(node_get(n, "g")->quoted);
	node_free(n);
}

static void test_yml_duplicate_key_last_wins_first_position(void **state)
{
	struct node *n = load1("disk:\nfs: xfs\ndisk: 2pmem\n");
	(void)state;
	assert_int_equal(n->n, 2);
	assert_string_equal(n->keys[0], "disk");
	assert_string_equal(node_str(n->vals[0]), "2pmem");
	node_free(n);
}

static void test_yml_anchor_alias_merge_key(void **state)
{
	struct node *n = load1("base: &b\n  x: 1\n  y: 2\nuse:\n  <<: *b\n  y: 3\ncopy: *b\n");
	(void)state;
	const struct node *use = node_get(n, "use");
	assert_string_equal(node_str(node_get(use, "x")), "1");
	assert_string_equal(node_str(node_get(use, "y")), "3");
	assert_int_equal(node_get(n, "copy")->type, NODE_MAP);
	assert_string_equal(node_str(node_get(node_get(n, "copy"), "y")), "2");
	node_free(n);
}

static void test_yml_multi_document(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct node **docs;
	size_t n;
	const char *t = "a: 1\n---\nb: 2\n---\nc: 3\n";
	(void)state;
	assert_int_equal(yml_load(t, strlen(t), "m.yaml", NULL, &docs, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(node_str(node_get(docs[2], "c")), "3");
	assert_int_equal(node_get(docs[2], "c")->line, 5);
	for (size_t i = 0; i < n; i++)
		node_free(docs[i]);
	free(docs);
	strbuf_release(&err);
}

static void test_yml_error_names_file_line_col(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct node **docs;
	size_t n;
	const char *t = "a: 1\nb: [x, y\n";
	(void)state;
	assert_int_equal(yml_load(t, strlen(t), "bad.yaml", NULL, &docs, &n, &err), -1);
	assert_true(!strncmp(err.buf, "bad.yaml:3:1: ", 14));
	assert_null(strchr(err.buf, '\n'));
	strbuf_release(&err);
}

static void test_yml_line_map(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct yml_linemap lm = { 0 };
	struct node **docs;
	size_t n;
	const char *t = "a: 1\n  b: 2\n";
	(void)state;
	const char *top = node_intern("top.yaml"), *inc = node_intern("inc.yaml");
	yml_linemap_add(&lm, top, 4, 0);
	yml_linemap_add(&lm, inc, 9, 2);
	node_unintern(top);
	node_unintern(inc);
	assert_int_equal(yml_load(t, strlen(t), "spliced", &lm, &docs, &n, &err), -1);
	/* the error is on the second spliced line, which came from inc.yaml:9 */
	assert_true(!strncmp(err.buf, "inc.yaml:9:", 11));
	yml_linemap_release(&lm);
	strbuf_release(&err);
}

/*
 * A file name lives while a tree holds it: a long-running service loading a
 * million files keeps none of their names once the trees are freed, and
 * equal names share one pointer.
 */
static void test_yml_intern_released(void **state)
{
	struct strbuf err = STRBUF_INIT;
	size_t before = node_interned();
	(void)state;

	for (int i = 0; i < 2000; i++) {
		char name[64];
		snprintf(name, sizeof(name), "/r/%d/job.yaml", i);
		struct node *a = yml_load_one("a: 1\nb: [1, 2]\n", name, &err);
		struct node *b = yml_load_one("c: 1\n", name, &err);
		assert_non_null(a);
		assert_ptr_equal(a->file, b->file);
		assert_int_equal(node_interned(), before + 1);
		struct node *c = node_dup(node_get(a, "b"));
		node_free(a);
		node_free(b);
		assert_string_equal(c->file, name); /* the copy holds its own reference */
		node_free(c);
		assert_int_equal(node_interned(), before);
	}
	strbuf_release(&err);
}

static void roundtrip(const char *s, bool quoted)
{
	struct node *m = node_new(NODE_MAP), *v = node_new_scalar(s), *back;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct node **docs;
	size_t n;

	v->quoted = quoted;
	node_append(m, "k", v);
	yml_emit(&out, m);
	assert_int_equal(yml_load(out.buf, out.len, "rt", NULL, &docs, &n, &err), 0);
	assert_int_equal(n, 1);
	back = node_get(docs[0], "k");
	if (!back || back->type != NODE_SCALAR || strcmp(back->str, s))
		fail_msg("round trip of '%s' gave '%s' via '%s'", s,
			 back && back->str ? back->str : "(null)", out.buf);
	node_free(docs[0]);
	free(docs);
	node_free(m);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_yml_emit_roundtrip_tricky_scalars(void **state)
{
	const char *cases[] = {
		"plain", "50%", "104G!8G", "a: b", "x #y", "- dash", "-1", ":",
		"", " lead", "trail ", "it's", "\"dq\"", "line\nbreak", "tab\there",
		"[list]", "{map}", "*alias", "&anchor", "!tag", "%pct", "@at",
		"null", "~", "yes", "0x28", "---", "<<", "ünïcödé", "a,b",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		roundtrip(cases[i], false);
		roundtrip(cases[i], true);
	}
}

static void test_yml_emit_layout(void **state)
{
	struct node *n = load1("a: 1\nm:\n  x: y\ns:\n- 1\n- k: v\n  k2: v2\ne: []\nf: {}\nz:\n");
	struct strbuf out = STRBUF_INIT;
	(void)state;
	node_append(n, "#! jobs/x.yaml", node_new_comment("#! jobs/x.yaml"));
	node_append(n, "after", node_new_scalar("c"));
	yml_emit(&out, n);
	assert_string_equal(out.buf,
			    "a: 1\nm:\n  x: y\ns:\n- 1\n- k: v\n  k2: v2\ne: []\nf: {}\nz:\n"
			    "\n#! jobs/x.yaml\nafter: c\n");
	node_free(n);
	strbuf_release(&out);
}

static void test_yml_emit_flow(void **state)
{
	struct node *n = load1("{a: [1, 'x,y'], b: ~}");
	struct strbuf out = STRBUF_INIT;
	(void)state;
	yml_emit_flow(&out, n);
	assert_string_equal(out.buf, "{a: [1, 'x,y'], b: ~}");
	node_free(n);
	strbuf_release(&out);
}

static void test_node_equal_dup_del(void **state)
{
	struct node *a = load1("x: [1, {y: 2}]\nz: q\n"), *b = node_dup(a);
	(void)state;
	assert_true(node_equal(a, b));
	assert_true(node_del(b, "z"));
	assert_false(node_del(b, "z"));
	assert_false(node_equal(a, b));
	node_free(a);
	node_free(b);
}

/* Hostile YAML: each limit is one error line at the place it was passed, never gigabytes or a crash. */
static void test_yml_limits(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct node **docs;
	size_t n;
	(void)state;

	/* an alias bomb: 9^7 copies of a scalar from 350 bytes */
	strbuf_addstr(&text, "a0: &a0 [x,x,x,x,x,x,x,x,x]\n");
	for (int i = 1; i < 8; i++) {
		strbuf_addf(&text, "a%d: &a%d [", i, i);
		for (int k = 0; k < 9; k++)
			strbuf_addf(&text, "%s*a%d", k ? "," : "", i - 1);
		strbuf_addstr(&text, "]\n");
	}
	assert_int_equal(yml_load(text.buf, text.len, "bomb.yaml", NULL, &docs, &n, &err), -1);
	assert_non_null(strstr(err.buf, "bomb.yaml:6:"));
	assert_non_null(strstr(err.buf, "alias bomb"));
	assert_null(strchr(err.buf, '\n'));

	/* a few aliases are fine */
	struct node *ok = load1("a: &x {k: v}\nb: *x\nc: *x\n");
	assert_string_equal(node_str(node_get(node_get(ok, "c"), "k")), "v");
	node_free(ok);

	/* nesting: 64 deep is the most */
	strbuf_reset(&text);
	for (int i = 0; i < 50000; i++)
		strbuf_addch(&text, '[');
	assert_int_equal(yml_load(text.buf, text.len, "deep.yaml", NULL, &docs, &n, &err), -1);
	assert_non_null(strstr(err.buf, "deep.yaml:1:65: lists and mappings nested more than 64 deep"));
	strbuf_reset(&text);
	for (int i = 0; i < YML_MAX_DEPTH; i++)
		strbuf_addch(&text, '[');
	for (int i = 0; i < YML_MAX_DEPTH; i++)
		strbuf_addch(&text, ']');
	assert_int_equal(yml_load(text.buf, text.len, "ok.yaml", NULL, &docs, &n, &err), 0);
	node_free(docs[0]);
	free(docs);

	/* a NUL byte: an error at its place, not a text cut short */
	assert_int_equal(yml_load("a: 1\nb: x\0y\n", 13, "nul.yaml", NULL, &docs, &n, &err), -1);
	assert_string_equal(err.buf, "nul.yaml:2:5: a NUL byte: this is not a text file; remove it");
	strbuf_release(&text);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_yml_load_positions),
		cmocka_unit_test(test_yml_nulls_and_quoted),
		cmocka_unit_test(test_yml_duplicate_key_last_wins_first_position),
		cmocka_unit_test(test_yml_anchor_alias_merge_key),
		cmocka_unit_test(test_yml_multi_document),
		cmocka_unit_test(test_yml_error_names_file_line_col),
		cmocka_unit_test(test_yml_line_map),
		cmocka_unit_test(test_yml_intern_released),
		cmocka_unit_test(test_yml_emit_roundtrip_tricky_scalars),
		cmocka_unit_test(test_yml_emit_layout),
		cmocka_unit_test(test_yml_emit_flow),
		cmocka_unit_test(test_node_equal_dup_del),
		cmocka_unit_test(test_yml_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

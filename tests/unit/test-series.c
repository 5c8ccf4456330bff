/*
 * Unit tests: mail/series — mails of a real public-inbox archive
 * (tests/fixtures/series, made by its make.sh with git format-patch and
 * public-inbox-mda) read as git am reads them, grouped into series, v2
 * superseding v1, a missing part waited for then incomplete, 0-day's
 * branch names, hostile mails refused with their reason; and the store's
 * lists tables (lib/store/store_lists.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"
#include "../../lib/util/strbuf.h"
#include "../../lib/store/store.h"
#include "../../mail/series.h"

static char *fixture(const char *name)
{
	char dir[4096], *path;
	struct strbuf sb = STRBUF_INIT;

	testlib_fixture_dir(dir, sizeof(dir), "series");
	path = xasprintf("%s/%s", dir, name);
	if (strbuf_read_file(&sb, path))
		fail_msg("cannot read %s", path);
	free(path);
	return strbuf_detach(&sb);
}

static struct series_mail *parse_text(const char *text)
{
	struct series_mail *m = xcalloc(1, sizeof(*m));
	series_mail_parse(text, strlen(text), m);
	return m;
}

static struct series_mail *parse(const char *name)
{
	char *text = fixture(name);
	struct series_mail *m = parse_text(text);
	free(text);
	return m;
}

static void release(struct series_mail *m)
{
	series_mail_release(m);
	free(m);
}

static void test_series_cover_letter(void **state)
{
	struct series_mail *m = parse("v2-0.eml");

	(void)state;
	assert_int_equal(m->kind, SERIES_COVER);
	assert_int_equal(m->version, 2);
	assert_int_equal(m->index, 0);
	assert_int_equal(m->total, 3);
	assert_string_equal(m->title, "dax, pmem: move cpu cache maintenance to libnvdimm");
	assert_string_equal(m->author_name, "Dan Williams");
	assert_string_equal(m->author_email, "dan.j.williams@intel.com");
	assert_int_equal(m->date, 1484968609); /* Sat, 21 Jan 2017 03:16:49 +0000 */
	assert_string_equal(m->root, m->message_id);
	assert_non_null(m->base_commit);
	assert_int_equal(strlen(m->base_commit), 40);
	assert_null(m->diff);
	release(m);
}

static void test_series_patch_as_git_am(void **state)
{
	struct series_mail *c = parse("v2-0.eml"), *m = parse("v2-2.eml");

	(void)state;
	assert_int_equal(m->kind, SERIES_PATCH);
	assert_int_equal(m->index, 2);
	assert_string_equal(m->title, "b: add three");
	assert_string_equal(m->message, "b: add three\n");
	assert_string_equal(m->root, c->message_id); /* In-Reply-To / References: the cover letter */
	assert_true(!strncmp(m->diff, "diff --git a/b.c b/b.c\n", 23));
	assert_null(strstr(m->diff, "\n-- \n")); /* the signature is no part of the diff */
	assert_non_null(strstr(m->diff, "+three\n"));
	release(m);
	release(c);
}

static void add_all(struct series_set *set, const char *v, int n)
{
	for (int i = 0; i < n; i++) {
		char name[32];
		snprintf(name, sizeof(name), "%s-%d.eml", v, i);
		series_set_add(set, parse(name));
	}
}

static void test_series_v2_supersedes_v1(void **state)
{
	struct series_set set = { 0 };
	struct strbuf b = STRBUF_INIT;

	(void)state;
	add_all(&set, "v1", 4);
	add_all(&set, "v2", 4);
	series_set_settle(&set, 1484968609 + 60, 3600);
	assert_int_equal(set.n, 2);
	assert_int_equal(set.v[0].version, 1);
	assert_int_equal(set.v[0].state, SERIES_SUPERSEDED);
	assert_string_equal(set.v[0].why, "superseded by v2");
	assert_ptr_equal(series_set_get(&set, set.v[1].key), &set.v[1]);
	assert_null(series_set_get(&set, "<none@x> v1"));
	assert_int_equal(set.v[1].state, SERIES_COMPLETE);
	assert_string_equal(set.v[1].subject, "dax, pmem: move cpu cache maintenance to libnvdimm");
	series_branch(&set.v[1], &b);
	assert_string_equal(b.buf, "Dan-Williams/dax-pmem-move-cpu-cache-maintenance-to-libnvdimm/20170121-031649");
	strbuf_release(&b);
	series_set_release(&set);
}

/* One patch mail of id, subject and body (with its diff). */
static struct series_mail *mail(const char *id, const char *subject, const char *body)
{
	char *text = xasprintf(
		"From: Dan Williams <dan.j.williams@intel.com>\nDate: Sat, 21 Jan 2017 03:16:49 +0000\n"
		"Subject: %s\nMessage-ID: <%s>\n\n%s\n---\ndiff --git a/a.c b/a.c\n--- a/a.c\n+++ b/a.c\n"
		"@@ -1 +1 @@\n-one\n+two\n",
		subject, id, body);
	struct series_mail *m = parse_text(text);
	free(text);
	return m;
}

/* b4: versions tied by their change-id: when the subject changed; a RESEND not read twice. */
static void test_series_change_id_and_resend(void **state)
{
	struct series_set set = { 0 };

	(void)state;
	series_set_add(&set, mail("a1@x", "[PATCH] a: first try", "change-id: 20170121-a-0123456789ab"));
	series_set_add(&set, mail("a2@x", "[PATCH v2] a: better name", "change-id: 20170121-a-0123456789ab"));
	series_set_add(&set, mail("b1@x", "[PATCH] b: once", "Body."));
	series_set_add(&set, mail("b2@x", "[PATCH RESEND] b: once", "Body."));
	series_set_add(&set, mail("c1@x", "[PATCH RESEND v3] c: only a resend", "Body."));
	series_set_add(&set, mail("d1@x", "[PATCH] d: no trailer", "change-id: not a valid one!"));
	series_set_settle(&set, 1484968609 + 60, 3600);
	assert_int_equal(set.n, 6);
	assert_string_equal(set.v[0].change_id, "20170121-a-0123456789ab");
	assert_int_equal(set.v[0].state, SERIES_SUPERSEDED);
	assert_string_equal(set.v[0].why, "superseded by v2");
	assert_int_equal(set.v[1].state, SERIES_COMPLETE);
	assert_int_equal(set.v[2].state, SERIES_COMPLETE);
	assert_true(set.v[3].resend);
	assert_int_equal(set.v[3].state, SERIES_SUPERSEDED);
	assert_string_equal(set.v[3].why, "a RESEND of v1, read already");
	assert_int_equal(set.v[4].state, SERIES_COMPLETE);
	assert_int_equal(set.v[4].version, 3);
	assert_null(set.v[5].change_id);
	assert_int_equal(set.v[5].state, SERIES_COMPLETE);
	series_set_release(&set);
}

static void test_series_missing_part_waits_then_incomplete(void **state)
{
	struct series_set set = { 0 };

	(void)state;
	series_set_add(&set, parse("v2-0.eml"));
	series_set_add(&set, parse("v2-1.eml"));
	series_set_add(&set, parse("v2-3.eml"));
	series_set_settle(&set, 1484968609 + 60, 3600);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.v[0].state, SERIES_WAITING);
	series_set_settle(&set, 1484968609 + 3600, 3600);
	assert_int_equal(set.v[0].state, SERIES_INCOMPLETE);
	assert_string_equal(set.v[0].why, "missing 2/3");
	series_set_release(&set);
}

/* A real mail with one thing changed: s's first `from` replaced by `to`. */
static char *edited(const char *name, const char *from, const char *to)
{
	char *text = fixture(name), *at = strstr(text, from);
	assert_non_null(at);
	char *out = xasprintf("%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	free(text);
	return out;
}

static void expect_refused(char *text, const char *why)
{
	struct series_mail *m = parse_text(text);
	assert_int_equal(m->kind, SERIES_REFUSED);
	if (!strstr(m->why, why))
		fail_msg("refused for '%s', not '%s'", m->why, why);
	release(m);
	free(text);
}

static void test_series_hostile_refused(void **state)
{
	(void)state;
	expect_refused(edited("v2-1.eml", "] a: add two", "] a: add \x1b[31mtwo"), "control character");
	expect_refused(edited("v2-1.eml", "] a: add two", "] a: =?UTF-8?Q?add_=1B[2Jtwo?="),
		       "control characters in its subject");
	expect_refused(edited("v2-1.eml", "v2 1/3]", "v2 1/10000]"), "500 patches at most");
	expect_refused(edited("v2-1.eml", "diff --git", "no diff here"), "has no diff");
	struct series_mail m;
	series_mail_parse(NULL, 50u << 20, &m);
	assert_int_equal(m.kind, SERIES_REFUSED);
	assert_non_null(strstr(m.why, "52428800 bytes"));
	series_mail_release(&m);
}

static struct series_mail *parse_edited(const char *name, const char *from, const char *to)
{
	char *text = edited(name, from, to);
	struct series_mail *m = parse_text(text);
	free(text);
	return m;
}

static void test_series_replies_and_other_mail_ignored(void **state)
{
	struct series_set set = { 0 };

	(void)state;
	series_set_add(&set, parse_edited("v2-2.eml", "Subject: [PATCH", "Subject: Re: [PATCH"));
	series_set_add(&set, parse_edited("v2-2.eml", "Subject: [PATCH v2 2/3]", "Subject: [ANNOUNCE]"));
	assert_int_equal(set.n, 0);
	assert_int_equal(set.ignored, 2);
	series_set_release(&set);
}

static void test_series_date_forms(void **state)
{
	int64_t t;
	int tz;

	(void)state;
	assert_int_equal(series_parse_date("Sat, 21 Jan 2017 03:16:49 +0000", &t, &tz), 0);
	assert_int_equal(t, 1484968609);
	assert_int_equal(series_parse_date("20 Jan 2017 19:16:49 -0800", &t, &tz), 0);
	assert_int_equal(t, 1484968609);
	assert_int_equal(tz, -480);
	assert_int_equal(series_parse_date("yesterday", &t, &tz), -1);
	assert_int_equal(series_parse_date("Sat, 21 Jnx 2017 03:16:49 +0000", &t, &tz), -1);
}

static void test_series_store_epochs_and_series(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(":memory:", &err);
	char *last;
	struct node *rows;

	(void)state;
	assert_non_null(s);
	assert_int_equal(store_list_epoch(s, "nvdimm", 0, &last, &err), 1);
	assert_int_equal(store_list_epoch_set(s, "nvdimm", 0, "abc", 10, &err), 0);
	assert_int_equal(store_list_epoch_set(s, "nvdimm", 0, "def", 11, &err), 0);
	assert_int_equal(store_list_epoch(s, "nvdimm", 0, &last, &err), 0);
	assert_string_equal(last, "def");
	free(last);
	struct store_series ser = { .list = "nvdimm",
				    .key = "<c@x> v2",
				    .subject = "dax",
				    .author = "Dan",
				    .state = "waiting",
				    .version = 2,
				    .why = "missing 2/3" };
	int64_t id = store_series_put(s, &ser, 20, &err);
	assert_true(id > 0);
	ser.state = "applied";
	ser.why = NULL;
	ser.branch = "Dan/dax/20170121-031649";
	assert_int_equal(store_series_put(s, &ser, 21, &err), id);
	assert_int_equal(store_series_list(s, "nvdimm", &rows, &err), 0);
	assert_int_equal(rows->n, 1);
	assert_string_equal(node_str(node_get(rows->vals[0], "state")), "applied");
	assert_null(node_get(rows->vals[0], "why"));
	node_free(rows);
	store_close(s);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_series_cover_letter),
		cmocka_unit_test(test_series_patch_as_git_am),
		cmocka_unit_test(test_series_v2_supersedes_v1),
		cmocka_unit_test(test_series_change_id_and_resend),
		cmocka_unit_test(test_series_missing_part_waits_then_incomplete),
		cmocka_unit_test(test_series_hostile_refused),
		cmocka_unit_test(test_series_replies_and_other_mail_ignored),
		cmocka_unit_test(test_series_date_forms),
		cmocka_unit_test(test_series_store_epochs_and_series),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

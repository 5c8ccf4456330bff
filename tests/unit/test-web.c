/*
 * Unit tests: web/ without a socket (web_handle) — routing, bad ids and too
 * many arguments, actions only by POST, the result root's files (streamed,
 * regular files only, never the store, nothing outside), compare rows with
 * a metric one side lacks and p-values below 0.001, commit prefixes; the
 * dashboard's URLs; and mail/mailread on messages mime.c made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/run/programs/programs.h"
#include "../../lib/stats/lkpetc.h"
#include "../../lib/store/store.h"
#include "../../lib/util/node.h"
#include "../../lib/util/strbuf.h"
#include "../../mail/mailread.h"
#include "../../mail/mime.h"
#include "../../lib/util/json.h"
#include "../../web/cache.h"
#include "../../web/html.h"
#include "../../web/web.h"

#define SHA_A "aaaaaaa111111111111111111111111111111111"
#define SHA_B "bbbbbbb222222222222222222222222222222222"
#define SHA_B2 "bbbbbbb333333333333333333333333333333333"	/* shares 7 digits with SHA_B */

struct site {
	char dir[64], root[96], db[128];
	struct web *w;
};

static void record(struct store *s, const char *root, const char *commit, int run, const char *metric, double v)
{
	char rr[256], val[32];
	struct strbuf err = STRBUF_INIT;
	struct node *stats = node_new(NODE_MAP);

	snprintf(val, sizeof(val), "%.3f", v);
	node_set(stats, "command.throughput", node_new_scalar(val));
	node_set(stats, metric, node_new_scalar("1.5"));
	snprintf(rr, sizeof(rr), "%s/command/defaults/box/%s/%d", root, commit, run);
	struct store_run r = { .result_root = rr, .run_no = run, .testcase = "command", .path_params = "defaults",
			       .job_yaml = "testcase: command\n", .commit = commit, .tbox_group = "box",
			       .job_state = "finished", .stats = stats };
	if (store_record_run(s, &r, &err))
		fail_msg("%s", err.buf);
	node_free(stats);
	strbuf_release(&err);
}

static int setup(void **state)
{
	struct site *st = calloc(1, sizeof(*st));
	struct strbuf err = STRBUF_INIT;

	snprintf(st->dir, sizeof(st->dir), "/tmp/lkp-test-web-XXXXXX");
	if (!mkdtemp(st->dir))
		return -1;
	snprintf(st->root, sizeof(st->root), "%s/res", st->dir);
	snprintf(st->db, sizeof(st->db), "%s/lkprobot.db", st->root);
	mkdir(st->root, 0755);
	struct store *s = store_open(st->db, &err);
	if (!s)
		return -1;
	/* 10 runs a side: a 30 % drop whose p-value is far below 0.001; one metric on each side only */
	for (int i = 0; i < 10; i++) {
		record(s, st->root, SHA_A, i, "command.only_base", 100 + i * 0.1);
		record(s, st->root, SHA_B, i, "command.only_new", 70 + i * 0.1);
	}
	record(s, st->root, SHA_B2, 0, "command.only_new", 70);
	store_close(s);
	/* the result root's files: a file, a directory, a FIFO, the store's companions */
	char p[256];
	snprintf(p, sizeof(p), "%s/plain.txt", st->root);
	FILE *f = fopen(p, "w");
	fputs("throughput: 100\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/sub", st->root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/fifo", st->root);
	mkfifo(p, 0644);
	snprintf(p, sizeof(p), "%s/lkprobot.db-wal-copy", st->root);
	close(open(p, O_CREAT | O_WRONLY, 0644));
	struct web_opts o = { .db = st->db, .result_root = st->root, .token = "0123456789abcdef-token" };
	st->w = web_new(&o, &err);
	strbuf_release(&err);
	*state = st;
	return st->w ? 0 : -1;
}

static int teardown(void **state)
{
	struct site *st = *state;
	char *cmd = xasprintf("rm -rf '%s'", st->dir);

	web_stop(st->w);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", st->dir);
	free(cmd);
	free(st);
	return 0;
}

/* One request: its status, its body in out (when given). */
static unsigned ask(struct site *st, const char *method, const char *path, size_t nargs, const char *const *keys,
		    const char *const *vals, const char *auth, struct web_response *out)
{
	struct web_request rq = { .method = method, .path = path, .nargs = nargs, .keys = keys, .vals = vals,
				  .authorization = auth, .body = "" };
	struct web_response rs;

	web_handle(st->w, &rq, &rs);
	unsigned code = rs.status;
	if (out)
		*out = rs;
	else
		web_response_release(&rs);
	return code;
}

static unsigned get(struct site *st, const char *path)
{
	return ask(st, "GET", path, 0, NULL, NULL, NULL, NULL);
}

static void test_bad_ids_and_arguments(void **state)
{
	struct site *st = *state;
	const char *keys[40], *vals[40];

	assert_int_equal(get(st, "/bisections/99999999999999999999999"), 400);
	assert_int_equal(get(st, "/bisections/-1"), 400);
	assert_int_equal(get(st, "/bisections/0"), 400);
	assert_int_equal(get(st, "/api/reports/1x"), 400);
	assert_int_equal(get(st, "/bisections/7"), 404);
	assert_int_equal(get(st, "/commit/..%2f..%2fetc"), 400);
	assert_int_equal(get(st, "/overview/more"), 404);
	assert_int_equal(get(st, "no-slash"), 400);
	for (int i = 0; i < 40; i++) {
		keys[i] = "a";
		vals[i] = "1";
	}
	assert_int_equal(ask(st, "GET", "/", WEB_MAX_ARGS + 1, keys, vals, NULL, NULL), 400);
	assert_int_equal(ask(st, "GET", "/", WEB_MAX_ARGS, keys, vals, NULL, NULL), 200);
}

/* The ids of a JSON list of rows, as "1 2 3". */
static char *ids_of(const struct web_response *rs)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct node *d = json_parse(rs->body.buf, rs->body.len, "answer", &err);

	assert_non_null(d);
	assert_int_equal(d->type, NODE_SEQ);
	for (size_t i = 0; i < d->n; i++)
		strbuf_addf(&out, "%s%s", i ? " " : "", node_str(node_get(d->vals[i], "id")));
	node_free(d);
	strbuf_release(&err);
	return strbuf_detach(&out);
}

/* The JSON lists a page at a time: ?limit= rows (500 unless given, at most 10000) after ?after=. */
static void test_paged_lists(void **state)
{
	struct site *st = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(st->db, &err);
	struct web_response rs;
	char head[48];

	assert_non_null(s);
	for (int i = 0; i < 1200; i++) {
		snprintf(head, sizeof(head), "%040d", i);
		assert_true(store_head_add(s, "/t", "master", head, "", 1700000000 + i, &err) > 0);
	}
	store_close(s);
	assert_int_equal(ask(st, "GET", "/api/heads", 0, NULL, NULL, NULL, &rs), 200);
	char *ids = ids_of(&rs);
	assert_true(!strncmp(ids, "1 2 3 ", 6));
	assert_non_null(strstr(ids, " 499 500"));
	assert_null(strstr(ids, " 501"));
	free(ids);
	web_response_release(&rs);
	const char *keys[] = { "limit", "after" }, *page[] = { "3", "10" }, *end[] = { "5", "1198" };
	assert_int_equal(ask(st, "GET", "/api/heads", 2, keys, page, NULL, &rs), 200);
	ids = ids_of(&rs);
	assert_string_equal(ids, "11 12 13");
	free(ids);
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/api/heads", 2, keys, end, NULL, &rs), 200);
	ids = ids_of(&rs);
	assert_string_equal(ids, "1199 1200");
	free(ids);
	web_response_release(&rs);
	static const char *const bad[][2] = { { "limit", "0" },	 { "limit", "10001" }, { "limit", "x" },
					      { "limit", " 5" }, { "after", "-1" },    { "after", "1e3" } };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ask(st, "GET", "/api/heads", 1, &bad[i][0], &bad[i][1], NULL, &rs), 400);
		assert_non_null(strstr(rs.body.buf, bad[i][0]));
		web_response_release(&rs);
	}
	/* the overview: the branch's newest 20 heads (asked of the store by branch), all counted */
	assert_int_equal(ask(st, "GET", "/api/overview", 0, NULL, NULL, NULL, &rs), 200);
	struct node *ov = json_parse(rs.body.buf, rs.body.len, "overview", &err);
	assert_non_null(ov);
	const struct node *g = node_get(ov, "branches")->vals[0];
	assert_int_equal(node_get(g, "heads")->n, 20);
	assert_string_equal(node_str(node_get(node_get(g, "heads")->vals[0], "id")), "1200");
	assert_string_equal(node_str(node_get(g, "total")), "1200");
	assert_string_equal(node_str(node_get(ov, "heads_total")), "1200");
	node_free(ov);
	web_response_release(&rs);
	/* /reports newest first (its first page the newest mails); /outbox, the queue, oldest first */
	s = store_open(st->db, &err);
	assert_non_null(s);
	for (int i = 0; i < 600; i++) {
		char id[32];
		snprintf(id, sizeof(id), "<m%d@x>", i);
		assert_true(store_outbox_add(s, id, "a@x", "b@x", "Subject: s\n\nbody\n", 17, 1700000000 + i, &err) >
			    0);
	}
	store_close(s);
	assert_int_equal(ask(st, "GET", "/api/reports", 0, NULL, NULL, NULL, &rs), 200);
	ids = ids_of(&rs);
	assert_true(!strncmp(ids, "600 599 598 ", 12));
	assert_non_null(strstr(ids, " 102 101"));
	assert_null(strstr(ids, " 100"));
	free(ids);
	web_response_release(&rs);
	const char *back[] = { "3", "101" };
	assert_int_equal(ask(st, "GET", "/api/reports", 2, keys, back, NULL, &rs), 200);
	ids = ids_of(&rs);
	assert_string_equal(ids, "100 99 98");
	free(ids);
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/api/outbox", 1, keys, page, NULL, &rs), 200);
	ids = ids_of(&rs);
	assert_string_equal(ids, "1 2 3");
	free(ids);
	web_response_release(&rs);
	/* a list paged in memory: after names a row it has */
	const char *after[] = { "after" }, *none[] = { "7" };
	assert_int_equal(ask(st, "GET", "/api/bisections", 1, after, none, NULL, NULL), 400);
	assert_int_equal(ask(st, "GET", "/api/machines", 1, after, none, NULL, NULL), 400);
	strbuf_release(&err);
}

/* /series: a list's series newest first, each joined with its head (queued: "applied"), everything escaped. */
static void test_series_page(void **state)
{
	struct site *st = *state;
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(st->db, &err);
	struct web_response rs;
	const struct store_series no = { .list = "nvdimm",
					 .key = "<a@b> v1",
					 .subject = "<script>x</script>",
					 .author = "a@b",
					 .state = "does not apply",
					 .version = 1,
					 .why = "patch 1/1 (x) does not apply: a.c, hunk 1 of 1 (@@ -1 +1 @@)" };
	const struct store_series yes = { .list = "nvdimm",
					  .key = "<c@d> v2",
					  .subject = "speed",
					  .author = "c@d",
					  .state = "applied",
					  .version = 2,
					  .base = SHA_A,
					  .branch = "C/speed/1",
					  .head = SHA_B };

	assert_non_null(s);
	assert_true(store_series_put(s, &no, 1700000000, &err) > 0);
	assert_true(store_series_put(s, &yes, 1700000001, &err) > 0);
	assert_true(store_head_add(s, "nvdimm", "C/speed/1", SHA_B, SHA_A, 1700000001, &err) > 0);
	/* recorded again (its state said again): it keeps its place */
	assert_true(store_series_put(s, &no, 1700000002, &err) > 0);
	store_close(s);
	const char *keys[] = { "list" }, *vals[] = { "nvdimm" }, *other[] = { "none" };
	assert_int_equal(ask(st, "GET", "/api/series", 1, keys, vals, NULL, &rs), 200);
	struct node *d = json_parse(rs.body.buf, rs.body.len, "answer", &err);
	assert_non_null(d);
	assert_int_equal(d->n, 2);
	assert_string_equal(node_str(node_get(d->vals[0], "subject")), "speed"); /* newest first */
	const struct node *o = node_get(d->vals[0], "outcome"), *o2 = node_get(d->vals[1], "outcome");
	assert_string_equal(node_str(node_get(o, "state")), "applied");
	assert_string_equal(node_str(node_get(o, "reason")), "its head waits to be tested");
	assert_string_equal(node_str(node_get(d->vals[0], "message_id")), "<c@d>");
	assert_string_equal(node_str(node_get(o2, "state")), "does not apply");
	assert_non_null(strstr(node_str(node_get(o2, "reason")), "hunk 1 of 1"));
	node_free(d);
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/api/series", 1, keys, other, NULL, &rs), 200);
	assert_true(!strncmp(rs.body.buf, "[]", 2));
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/series", 0, NULL, NULL, NULL, &rs), 200);
	assert_null(strstr(rs.body.buf, "<script>x"));
	assert_non_null(strstr(rs.body.buf, "&lt;script&gt;x"));
	assert_non_null(strstr(rs.body.buf, "state-does-not-apply"));
	assert_non_null(strstr(rs.body.buf, "<a href=\"/commit/" SHA_B "\">C/speed/1</a>"));
	web_response_release(&rs);
	strbuf_release(&err);
}

static void test_actions_only_by_post(void **state)
{
	struct site *st = *state;
	struct web_response rs;

	assert_int_equal(ask(st, "GET", "/api/heads/1/retest", 0, NULL, NULL, NULL, &rs), 405);
	assert_string_equal(rs.allow, "POST");
	web_response_release(&rs);
	assert_int_equal(get(st, "/api/reports/1/resend"), 405);
	assert_int_equal(ask(st, "POST", "/api/heads/1/retest", 0, NULL, NULL, NULL, NULL), 403);
	assert_int_equal(ask(st, "POST", "/api/heads/-1/retest", 0, NULL, NULL, "Bearer 0123456789abcdef-token", NULL), 400);
	assert_int_equal(ask(st, "POST", "/api/heads/99999999999999999999/retest", 0, NULL, NULL,
			     "Bearer 0123456789abcdef-token", NULL), 400);
	assert_int_equal(ask(st, "POST", "/api/heads/5/retest", 0, NULL, NULL, "Bearer 0123456789abcdef-token", NULL), 409);
	assert_int_equal(ask(st, "POST", "/api/heads/5/explode", 0, NULL, NULL, "Bearer 0123456789abcdef-token", NULL), 404);
	assert_int_equal(ask(st, "POST", "/commit/x", 0, NULL, NULL, NULL, NULL), 405);
	assert_int_equal(ask(st, "DELETE", "/", 0, NULL, NULL, NULL, NULL), 405);
}

static void test_static_files(void **state)
{
	struct site *st = *state;
	struct web_response rs;

	assert_int_equal(ask(st, "GET", "/static/style.css", 0, NULL, NULL, NULL, &rs), 200);
	assert_string_equal(rs.type, "text/css; charset=utf-8");
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/favicon.ico", 0, NULL, NULL, NULL, &rs), 200);
	assert_string_equal(rs.type, "image/svg+xml");
	web_response_release(&rs);
	/* every page links the stylesheet and the icon, and has no inline style or script */
	const char *pages[] = { "/", "/bisections", "/reports", "/runs/", "/nosuch" };
	for (size_t i = 0; i < sizeof(pages) / sizeof(*pages); i++) {
		ask(st, "GET", pages[i], 0, NULL, NULL, NULL, &rs);
		assert_non_null(strstr(rs.body.buf, "<link rel=\"stylesheet\" href=\"/static/style.css\">"));
		assert_non_null(strstr(rs.body.buf, "<link rel=\"icon\" href=\"/favicon.svg\""));
		assert_null(strstr(rs.body.buf, "<style"));
		assert_null(strstr(rs.body.buf, "style=\""));
		assert_null(strstr(rs.body.buf, "<script"));
		web_response_release(&rs);
	}
}

static void test_result_files(void **state)
{
	struct site *st = *state;
	struct web_response rs;

	/* a file: streamed from its descriptor, not read into a buffer */
	assert_int_equal(ask(st, "GET", "/runs/plain.txt", 0, NULL, NULL, NULL, &rs), 200);
	assert_true(rs.fd >= 0);
	assert_int_equal(rs.size, 16);
	assert_int_equal(rs.body.len, 0);
	assert_string_equal(rs.type, "text/plain; charset=utf-8");
	web_response_release(&rs);
	/* a FIFO would block a worker: refused at once */
	assert_int_equal(get(st, "/runs/fifo"), 403);
	/* the store and its companions: never */
	assert_int_equal(get(st, "/runs/lkprobot.db"), 404);
	assert_int_equal(get(st, "/runs/lkprobot.db-wal-copy"), 404);
	assert_int_equal(get(st, "/runs/../../../../etc/passwd"), 404);
	assert_int_equal(get(st, "/runs/sub/../../lkprobot.db"), 404);
	/* the listing: files as files, directories with their '/', nothing that cannot be opened */
	assert_int_equal(ask(st, "GET", "/runs/", 0, NULL, NULL, NULL, &rs), 200);
	assert_non_null(strstr(rs.body.buf, "href=\"/runs/plain.txt\""));
	assert_non_null(strstr(rs.body.buf, "href=\"/runs/sub/\""));
	assert_null(strstr(rs.body.buf, "plain.txt/"));
	assert_null(strstr(rs.body.buf, "lkprobot.db"));
	assert_null(strstr(rs.body.buf, "fifo"));
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/runs/sub", 0, NULL, NULL, NULL, &rs), 200);
	assert_non_null(strstr(rs.body.buf, "href=\"/runs/\""));	/* up */
	web_response_release(&rs);
}

static void test_compare_missing_and_pvalues(void **state)
{
	struct site *st = *state;
	const char *keys[] = { "base", "commit" }, *vals[] = { SHA_A, "bbbbbbb2222" };
	struct web_response rs;

	assert_int_equal(ask(st, "GET", "/compare", 2, keys, vals, NULL, &rs), 200);
	const char *b = rs.body.buf;
	assert_non_null(strstr(b, "command.throughput"));
	assert_non_null(strstr(b, "&lt; 0.001"));
	assert_non_null(strstr(b, ">missing<"));
	assert_null(strstr(b, "+0.0%"));
	/* the new side lacks command.only_base: no change, no p-value */
	assert_non_null(strstr(b, "missing</td><td></td><td class=\"num\"></td><td class=\"num\"></td>"));
	web_response_release(&rs);
	/* the JSON: a missing side is not present, its change null */
	assert_int_equal(ask(st, "GET", "/api/compare", 2, keys, vals, NULL, &rs), 200);
	assert_non_null(strstr(rs.body.buf, "\"present\": false"));
	web_response_release(&rs);
}

/*
 * A WARNING new in the commit's runs: its call trace (cut from the run's
 * console, a real guest's: tests/fixtures/klog) beside its dmesg row, once
 * however many rows the trace gives, escaped; in the JSON too.
 */
static void test_compare_calltrace(void **state)
{
	struct site *st = *state;
	const char *keys[] = { "base", "commit" }, *vals[] = { "ccccccc", "ddddddd" };
	struct strbuf log = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	struct web_response rs;
	char dir[4096], path[8192];
	struct store *s = store_open(st->db, &err);

	assert_non_null(s);
	testlib_fixture_dir(dir, sizeof(dir), "klog");
	snprintf(path, sizeof(path), "%s/dmesg-warning-6.1.0-57", dir);
	assert_int_equal(strbuf_read_file(&log, path), 0);
	stats_samples_init(&ss);
	if (klog_parse_dmesg(log.buf, log.len, &ss, &err))
		fail_msg("%s", err.buf);
	for (int c = 0; c < 2; c++)
		for (int i = 0; i < 3; i++) {
			char rr[256], sha[41];
			struct node *stats = node_new(NODE_MAP);

			memset(sha, c ? 'd' : 'c', 40);
			sha[40] = 0;
			snprintf(rr, sizeof(rr), "%s/command/defaults/box/%s/%d", st->root, sha, i);
			node_set(stats, "command.throughput", node_new_scalar("100"));
			for (size_t k = 0; c && k < ss.n; k++)
				if (strncmp(ss.s[k].key, "timestamp:", 10)) {
					char *key = xasprintf("dmesg.%s", ss.s[k].key);
					node_set(stats, key, node_new_scalar("1"));
					free(key);
				}
			struct store_run r = { .result_root = rr,
					       .run_no = i,
					       .testcase = "command",
					       .path_params = "defaults",
					       .job_yaml = "testcase: command\n",
					       .commit = sha,
					       .tbox_group = "box",
					       .job_state = "finished",
					       .stats = stats };
			assert_int_equal(store_record_run(s, &r, &err), 0);
			node_free(stats);
			if (c) {
				char *cmd = xasprintf("mkdir -p '%s' && cp '%s' '%s/dmesg'", rr, path, rr);
				assert_int_equal(system(cmd), 0);
				free(cmd);
			}
		}
	store_close(s);
	assert_int_equal(ask(st, "GET", "/compare", 2, keys, vals, NULL, &rs), 200);
	const char *b = rs.body.buf, *tr = strstr(b, "<tr class=\"calltrace\"><td colspan=\"8\"><pre>");
	assert_non_null(tr);
	assert_null(strstr(tr + 1, "<tr class=\"calltrace\">")); /* WARNING: and RIP: rows, one trace */
	assert_non_null(strstr(tr, "------------[ cut here ]------------"));
	assert_non_null(strstr(tr, "lkprobot_warn_init+0x11/0x1000 [lkprobot_warn]"));
	assert_non_null(strstr(tr, "&lt;TASK&gt;"));
	assert_non_null(strstr(tr, "---[ end trace 0000000000000000 ]---\n</pre>"));
	web_response_release(&rs);
	assert_int_equal(ask(st, "GET", "/api/compare", 2, keys, vals, NULL, &rs), 200);
	assert_non_null(strstr(rs.body.buf, "\"calltrace\": \"[   27.451586] ------------[ cut here ]"));
	web_response_release(&rs);
	stats_samples_release(&ss);
	strbuf_release(&log);
	strbuf_release(&err);
}

static void test_commit_prefixes(void **state)
{
	struct site *st = *state;
	struct web_response rs;

	assert_int_equal(ask(st, "GET", "/commit/aaaaaaa11", 0, NULL, NULL, NULL, &rs), 200);
	assert_non_null(strstr(rs.body.buf, SHA_A));
	web_response_release(&rs);
	assert_int_equal(get(st, "/commit/bbbbbbb"), 400);	/* two commits start so */
	assert_int_equal(get(st, "/commit/bbbbbbb3"), 200);
	assert_int_equal(get(st, "/commit/ccccccc"), 404);
}

static void test_html_pvalue(void **state)
{
	struct strbuf b = STRBUF_INIT;
	(void)state;

	html_pvalue(&b, 1e-9);
	assert_string_equal(b.buf, "&lt; 0.001");
	strbuf_reset(&b);
	html_pvalue(&b, 0.0079);
	assert_string_equal(b.buf, "0.0079");
	strbuf_reset(&b);
	html_pvalue(&b, NAN);
	assert_string_equal(b.buf, "—");
	strbuf_release(&b);
}

static void test_urls(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	char *u = web_url_bisection("https://lkp.example.org/dash/", 12);
	assert_string_equal(u, "https://lkp.example.org/dash/bisections/12");
	free(u);
	u = web_url_report("http://127.0.0.1:8080", 3);
	assert_string_equal(u, "http://127.0.0.1:8080/reports/3");
	free(u);
	u = web_url_commit("https://x.org", "abc");
	assert_string_equal(u, "https://x.org/commit/abc");
	free(u);
	assert_int_equal(web_url_check("https://lkp.example.org/", &err), 0);
	assert_int_equal(web_url_check("ftp://x", &err), -1);
	assert_int_equal(web_url_check("https://", &err), -1);
	assert_int_equal(web_url_check("https://x.org/?a=1", &err), -1);
	assert_int_equal(web_url_check("https://x.org/a b", &err), -1);
	strbuf_release(&err);
}

static void test_mailread(void **state)
{
	(void)state;
	const char *to[] = { "Jörg Rödel <joro@example.org>" };
	/* a long line makes the body quoted-printable; a binary attachment is base64; a long non-ASCII name is in sections */
	struct strbuf body = STRBUF_INIT, msg = STRBUF_INIT, err = STRBUF_INIT;
	strbuf_addstr(&body, "Greeting,\n\nurl: https://lkp.example.org/bisections/3\n");
	for (int i = 0; i < 1100; i++)
		strbuf_addch(&body, 'x');
	strbuf_addstr(&body, "\nünïcode = done\n");
	const unsigned char bin[] = { 0, 1, 2, 0xff, 0xfe, '\r', '\n', 'z' };
	char longname[200];
	snprintf(longname, sizeof(longname), "config-%s", "ääääääääääääääääääääääääääääääääääääääääääää.yaml");
	struct mime_attachment att[] = {
		{ "job.yaml", "text/plain", "testcase: fio\n", 14 },
		{ "blob.bin", "application/octet-stream", bin, sizeof(bin) },
		{ longname, "text/plain", "CONFIG_X=y\n", 11 },
	};
	struct mime_message m = { .from = "robot <lkp@example.org>", .to = to, .nto = 1,
				  .subject = "[mm] abc: throughput -30% régression", .date = 1700000000,
				  .message_id = "<1@example.org>", .body = body.buf, .att = att, .natt = 3 };
	assert_int_equal(mime_render(&m, &msg, &err), 0);
	char *subject = mailread_header(msg.buf, msg.len, "subject");
	assert_string_equal(subject, "[mm] abc: throughput -30% régression");
	free(subject);
	char *toh = mailread_header(msg.buf, msg.len, "To");
	assert_string_equal(toh, "Jörg Rödel <joro@example.org>");
	free(toh);
	assert_null(mailread_header(msg.buf, msg.len, "X-None"));
	struct mailread mr;
	mailread_parse(msg.buf, msg.len, &mr);
	assert_int_equal(mr.nparts, 4);
	assert_null(mr.parts[0].name);
	assert_string_equal(mr.parts[0].data.buf, body.buf);
	assert_string_equal(mr.parts[1].name, "job.yaml");
	assert_string_equal(mr.parts[1].data.buf, "testcase: fio\n");
	assert_string_equal(mr.parts[2].name, "blob.bin");
	assert_int_equal(mr.parts[2].data.len, sizeof(bin));
	assert_memory_equal(mr.parts[2].data.buf, bin, sizeof(bin));
	assert_string_equal(mr.parts[3].name, longname);
	assert_string_equal(mr.parts[3].type, "text/plain");
	mailread_release(&mr);
	/* no MIME at all: one text part */
	mailread_parse("Subject: x\n\nhello\n", 18, &mr);
	assert_int_equal(mr.nparts, 1);
	assert_string_equal(mr.parts[0].data.buf, "hello\n");
	mailread_release(&mr);
	strbuf_release(&body);
	strbuf_release(&msg);
	strbuf_release(&err);
}

/* The status of GET path from the daemon at host:port (an address as getaddrinfo takes it), 0 when none. */
static int http_status(const char *host, int port, const char *path)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char ps[16], buf[256] = "";
	int code = 0;

	snprintf(ps, sizeof(ps), "%d", port);
	if (getaddrinfo(host, ps, &hints, &ai))
		return 0;
	int fd = socket(ai->ai_family, SOCK_STREAM, 0);
	struct timeval tv = { 10, 0 };
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen)) {
		char *req = xasprintf("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", path);
		if (write(fd, req, strlen(req)) == (ssize_t)strlen(req) && read(fd, buf, sizeof(buf) - 1) > 12)
			sscanf(buf, "HTTP/1.1 %d", &code);
		free(req);
	}
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return code;
}

/* --listen: a name, an IPv6 address in brackets; a real daemon answers a query too long for its memory with 400. */
/* A kept page stays while what it reads is unchanged: a run leaves the mails' pages, a mail the runs'. */
static void test_cache_by_what_a_page_reads(void **state)
{
	struct site *st = *state;
	struct strbuf err = STRBUF_INIT;
	struct cache *c = cache_new(st->db);
	struct cache_stamp runs[3], mails[3], all[3];
	const unsigned r = STORE_READS(STORE_TOPIC_RUNS), m = STORE_READS(STORE_TOPIC_OUTBOX);
	struct store *s = store_open(st->db, &err);

	assert_non_null(s);
	for (int k = 0; k < 3; k++) {
		if (k == 1)
			record(s, st->root, SHA_A, 10, "command.later", 1);
		if (k == 2)
			assert_true(store_outbox_add(s, "<k@x>", "a@x", "b@x", "text", 4, 1, &err) > 0);
		cache_stamp(c, r, &runs[k]);
		cache_stamp(c, m, &mails[k]);
		cache_stamp(c, STORE_READS_ALL, &all[k]);
	}
	assert_memory_not_equal(&runs[0], &runs[1], sizeof(runs[0]));
	assert_memory_equal(&mails[0], &mails[1], sizeof(mails[0]));
	assert_memory_equal(&runs[1], &runs[2], sizeof(runs[1]));
	assert_memory_not_equal(&mails[1], &mails[2], sizeof(mails[1]));
	assert_memory_not_equal(&all[0], &all[1], sizeof(all[0]));
	assert_memory_not_equal(&all[1], &all[2], sizeof(all[1]));
	/* a kept page comes back under its stamp, not under another */
	struct strbuf body = STRBUF_INIT;
	const char *type;
	cache_put(c, "k", &mails[2], "text/plain", "page", 4);
	assert_true(cache_get(c, "k", &mails[2], &body, &type));
	assert_string_equal(body.buf, "page");
	assert_false(cache_get(c, "k", &mails[1], &body, &type));
	strbuf_release(&body);
	store_close(s);
	cache_free(c);
	strbuf_release(&err);
}

static void test_listen(void **state)
{
	struct site *st = *state;
	struct strbuf err = STRBUF_INIT, many = STRBUF_INIT;
	int port = 30000 + (int)(getpid() % 20000);
	char addr[64];
	struct web_opts o = { .addr = addr, .db = st->db, .result_root = st->root };

	snprintf(addr, sizeof(addr), "[::1]:%d", port);
	struct web *w = web_start(&o, &err);
	if (!w && strstr(err.buf, "cannot listen"))
		skip();	/* no IPv6 loopback here */
	assert_non_null(w);
	assert_int_equal(http_status("::1", port, "/static/style.css"), 200);
	web_stop(w);
	snprintf(addr, sizeof(addr), "localhost:%d", port);
	assert_non_null(w = web_start(&o, &err));
	assert_int_equal(http_status("127.0.0.1", port, "/favicon.ico"), 200);
	strbuf_addstr(&many, "/?");
	for (int i = 0; i < 3000; i++)
		strbuf_addf(&many, "%sa%d=1", i ? "&" : "", i);
	assert_int_equal(http_status("127.0.0.1", port, many.buf), 400);
	web_stop(w);
	const char *bad[] = { "::1:80", "127.0.0.1", "127.0.0.1:0", "127.0.0.1:99999", "[::1]80", "no-such-host.invalid:80" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		o.addr = bad[i];
		strbuf_reset(&err);
		assert_null(web_start(&o, &err));
		assert_non_null(strstr(err.buf, "--listen"));
	}
	strbuf_release(&err);
	strbuf_release(&many);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_ids_and_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paged_lists, setup, teardown),
		cmocka_unit_test_setup_teardown(test_series_page, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache_by_what_a_page_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_actions_only_by_post, setup, teardown),
		cmocka_unit_test_setup_teardown(test_static_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_missing_and_pvalues, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_calltrace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_prefixes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listen, setup, teardown),
		cmocka_unit_test(test_html_pvalue),
		cmocka_unit_test(test_urls),
		cmocka_unit_test(test_mailread),
	};
	lkpetc_set_dir("."); /* the source tree's lkp-etc/ (make check runs from the top) */
	return cmocka_run_group_tests(tests, NULL, NULL);
}

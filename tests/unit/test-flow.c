/*
 * Unit tests: the typed results the flows give and their one JSON form —
 * a bisection's (flow/bisect_result.c: the form `bisect --json` has always
 * printed, read back whole), a head's (flow/serve_head.c: what the store
 * keeps and a worker sends) — and the mail rules' table (mail/mailrules.c):
 * an improvement held back, a dry run to the operator alone, a live report
 * to everyone, nobody to send to.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../flow/bisect.h"
#include "../../flow/runstore.h"
#include "../../lib/store/store.h"
#include "../../flow/serve.h"
#include "../../flow/serve_head.h"
#include "../../flow/triage.h"
#include "../../lib/results/compare.h"
#include "../../mail/mailconf.h"
#include "../../mail/mailrules.h"

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"
#define C3 "3333333333333333333333333333333333333333"

static struct decision decision(enum decide_verdict v, double change, const char *why)
{
	struct decision d = {
		.verdict = v, .change = change, .lo = change - 2, .hi = change + 2, .floor = 1, .pairs = 5
	};
	snprintf(d.why, sizeof(d.why), "%s", why);
	return d;
}

static char **ids(const char *a, const char *b)
{
	char **v = calloc(2, sizeof(*v));
	v[0] = strdup(a);
	if (b)
		v[1] = strdup(b);
	return v;
}

static void found(struct bisect_result *r)
{
	*r = (struct bisect_result){ .id = 7,
				     .status = BISECTION_FOUND,
				     .known = true,
				     .named = true,
				     .p = 0.002,
				     .change = -25.5,
				     .ends_change = -24,
				     .have_ends = true,
				     .confirmed = true,
				     .builds = 4,
				     .runs = 30,
				     .commits = 9,
				     .tested = 4,
				     .batches = 5 };
	r->why = strdup("the culprit's change \"reproduces\"");
	r->metric = strdup("command.throughput");
	memcpy(r->culprit, C2, sizeof(C2));
	memcpy(r->parent, C1, sizeof(C1));
	r->ends = decision(DECIDE_CHANGED, -24, "ends: -24%");
	r->confirm = decision(DECIDE_CHANGED, -25.5, "-25.5% (interval)");
	r->steps = calloc(2, sizeof(*r->steps));
	r->nsteps = 2;
	r->steps[0] = (struct bisection_step){ C2, 1, 3, 4.5, true };
	r->steps[1] = (struct bisection_step){ C1, -1, 6, -2.25, false };
	r->skipped = ids(C3, NULL);
	r->nskipped = 1;
	r->candidates = ids(C2, C3);
	r->ncandidates = 2;
	r->revert = (struct bisection_check){
		.status = CHECK_CONFIRMS, .decided = true, .base_mean = 70, .commit_mean = 100, .builds = 1, .runs = 10
	};
	r->revert.why = strdup("Reverting it restores");
	memcpy(r->revert.commit, C3, sizeof(C3));
	r->revert.d = decision(DECIDE_CHANGED, 42.8, "+42.8%");
	r->layout = (struct bisection_check){ .status = CHECK_NOT_MADE };
	r->layout.why = strdup("the local provider builds no kernel");
}

/* The form bisect --json prints, key by key as it always has, and read back to the same text. */
static void test_bisect_json_round_trip(void **state)
{
	(void)state;
	struct bisect_result r, back = { 0 };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;

	found(&r);
	bisect_result_json(&a, &r);
	assert_non_null(
		strstr(a.buf,
		       "{\"id\": 7, \"status\": \"found\", \"why\": \"the culprit's change \\\"reproduces\\\"\", "
		       "\"metric\": \"command.throughput\", \"culprit\": \"" C2 "\", \"parent\": \"" C1 "\", "
		       "\"confidence\": 0.998, \"p\": 0.002, \"change\": -25.5, \"ends_change\": -24, \"ends\": {"));
	assert_non_null(strstr(
		a.buf, "\"builds\": 4, \"runs\": 30, \"commits\": 9, \"batches\": 5, \"steps\": [{\"commit\": \"" C2
		       "\", \"verdict\": \"bad\", \"runs\": 3, \"llr\": 4.5, \"sure\": true}, {\"commit\": \"" C1
		       "\", \"verdict\": \"good\", \"runs\": 6, \"llr\": -2.25, \"sure\": false}], \"skipped\": [\"" C3
		       "\"], \"candidates\": [\"" C2 "\", \"" C3 "\"], "
		       "\"revert\": {\"status\": \"confirms\", \"why\": \"Reverting it restores\", \"commit\": \"" C3
		       "\", \"kcflags\": null, \"decision\": {"));
	assert_non_null(
		strstr(a.buf,
		       "\"base_mean\": 70, \"commit_mean\": 100, \"table\": null, \"builds\": 1, \"runs\": 10}, "
		       "\"layout\": {\"status\": \"not-made\", \"why\": \"the local provider builds no kernel\", "
		       "\"commit\": null, \"kcflags\": null, \"decision\": null, \"base_mean\": null, "
		       "\"commit_mean\": null, \"table\": null, \"builds\": 0, \"runs\": 0}}\n"));
	assert_int_equal(bisect_result_parse(a.buf, a.len, &back, &err), 0);
	assert_int_equal(back.status, BISECTION_FOUND);
	assert_true(back.named);
	assert_string_equal(back.culprit, C2);
	assert_string_equal(back.metric, "command.throughput");
	assert_int_equal(back.confirm.verdict, DECIDE_CHANGED);
	assert_int_equal(back.revert.status, CHECK_CONFIRMS);
	assert_string_equal(back.revert.commit, C3);
	assert_int_equal(back.layout.status, CHECK_NOT_MADE);
	bisect_result_json(&b, &back);
	assert_string_equal(a.buf, b.buf);
	bisect_result_release(&r);
	bisect_result_release(&back);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
}

/* A bisection that could not be made: the short form, which end cannot be tested. */
static void test_bisect_json_failed(void **state)
{
	(void)state;
	struct bisect_result r = { .id = 3,
				   .status = BISECTION_FAILED,
				   .known = true,
				   .untestable = BISECTION_END_BAD,
				   .builds = 1,
				   .runs = 2 },
			     back = { 0 };
	struct strbuf a = STRBUF_INIT, err = STRBUF_INIT;

	r.why = strdup("the bad end 222222222222 cannot be tested: the build failed: x.c:1: error");
	bisect_result_json(&a, &r);
	assert_string_equal(
		a.buf,
		"{\"id\": 3, \"status\": \"failed\", \"why\": \"the bad end 222222222222 cannot be tested: "
		"the build failed: x.c:1: error\", \"metric\": null, \"untestable\": \"bad\", \"builds\": 1, "
		"\"runs\": 2}\n");
	assert_int_equal(bisect_result_parse(a.buf, a.len, &back, &err), 0);
	assert_int_equal(back.status, BISECTION_FAILED);
	assert_int_equal(back.untestable, BISECTION_END_BAD);
	assert_null(back.metric);
	/* what is not a result of ours is refused in one line */
	assert_int_equal(bisect_result_parse("{\"status\": \"maybe\"}", 19, &back, &err), -1);
	assert_non_null(strstr(err.buf, "no status lkprobot knows"));
	bisect_result_release(&r);
	bisect_result_release(&back);
	strbuf_release(&a);
	strbuf_release(&err);
}

/* A head's outcome: the store's form is the list it always was; the worker's message reads back whole. */
static void test_head_outcome(void **state)
{
	(void)state;
	struct head_outcome h = { .status = HEAD_DONE }, back = { 0 };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, stored = STRBUF_INIT, err = STRBUF_INIT;
	struct job_outcome *j = head_outcome_add(&h);

	j->job = strdup("/etc/job.yaml");
	j->bisect = strdup("found");
	j->why = strdup("why");
	j->kind = "regression";
	j->named = true;
	memcpy(j->culprit, C2, sizeof(C2));
	j->report = JOB_REPORT_DELIVERY_FAILED;
	j->mail_error = strdup("554 5.7.1 no thanks");
	j->metric = strdup("command.throughput");
	j->change = -21.9;
	j->lo = -33.7;
	j->hi = -7.9;
	j = head_outcome_add(&h);
	j->job = strdup("/etc/two.yaml");
	j->bisect = strdup("not-reproduced");
	j->why = strdup("no change");
	head_outcome_result_json(&stored, &h);
	assert_string_equal(stored.buf,
			    "[{\"job\": \"/etc/job.yaml\", \"bisect\": \"found\", \"why\": \"why\", \"kind\": "
			    "\"regression\", \"culprit\": \"" C2
			    "\", \"report\": \"delivery failed\", "
			    "\"mail_error\": \"554 5.7.1 no thanks\", \"metric\": \"command.throughput\", \"change\": "
			    "-21.9, \"low\": -33.7, \"high\": -7.9}, {\"job\": \"/etc/two.yaml\", \"bisect\": "
			    "\"not-reproduced\", \"why\": \"no change\"}]");
	head_outcome_json(&a, &h);
	assert_int_equal(head_outcome_parse(a.buf, a.len, &back, &err), 0);
	assert_int_equal(back.status, HEAD_DONE);
	assert_int_equal(back.njobs, 2);
	/* the change with its interval, as status says it */
	struct strbuf words = STRBUF_INIT;
	job_outcome_change_text(&back.jobs[0], &words);
	assert_string_equal(words.buf, "command.throughput -21.9% (99.8% interval -33.7% to -7.9%)");
	strbuf_reset(&words);
	job_outcome_change_text(&back.jobs[1], &words);
	assert_string_equal(words.buf, "");
	strbuf_release(&words);
	head_outcome_json(&b, &back);
	assert_string_equal(a.buf, b.buf);
	/* a head that could not be tested at all */
	head_outcome_release(&back);
	struct head_outcome e = { .status = HEAD_FAILED, .error = strdup("the tree is gone") };
	strbuf_reset(&a);
	head_outcome_json(&a, &e);
	assert_string_equal(a.buf, "{\"status\": \"failed\", \"result\": {\"error\": \"the tree is gone\"}}\n");
	assert_int_equal(head_outcome_parse(a.buf, a.len, &back, &err), 0);
	assert_string_equal(back.error, "the tree is gone");
	assert_int_equal(head_outcome_parse("nonsense", 8, &back, &err), -1);
	head_outcome_release(&h);
	head_outcome_release(&back);
	head_outcome_release(&e);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&stored);
	strbuf_release(&err);
}

static int apply(enum mail_stage st, const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	return mail_rules_apply(st, c, p, err);
}

/* The mail rules: held improvements, floors, a dry run, a live report, nobody. */
static void test_mail_rules(void **state)
{
	(void)state;
	char *lists[] = { "lkp@lists.example.org", NULL };
	struct mailconf mc = { .operator_ = "Ops <ops@example.org>", .lists = lists, .nlists = 1 };
	const char *to[] = { "Dev <dev@example.org>" };
	const char *floors[] = { "command.*=3%", NULL };
	struct compare_floors f = { 0 };
	struct mail_case c = { .mc = &mc, .to = to, .nto = 1, .kind = 1, .hold_improvements = true, .floors = floors };
	struct mail_plan p;
	struct strbuf err = STRBUF_INIT;

	mail_plan_init(&p, &f);
	assert_int_equal(apply(MAIL_BEFORE, &c, &p, &err), 1);
	assert_true(p.held);
	assert_non_null(strstr(p.why.buf, "report_improvements: false"));
	mail_plan_release(&p);
	/* a regression: not held, the service's floor added */
	c.kind = -1;
	mail_plan_init(&p, &f);
	assert_int_equal(apply(MAIL_BEFORE, &c, &p, &err), 0);
	assert_int_equal(f.n, 1);
	assert_true(fabs(compare_floor_of(&f, "command.throughput") - 0.03) < 1e-9);
	/* a dry run: To the developer, Cc the list, the envelope the operator alone */
	assert_int_equal(apply(MAIL_ADDRESS, &c, &p, &err), 0);
	assert_int_equal(p.nto, 1);
	assert_int_equal(p.ncc, 1);
	assert_string_equal(p.cc[0], "lkp@lists.example.org");
	assert_int_equal(p.nenvelope, 1);
	assert_string_equal(p.envelope[0], "ops@example.org");
	assert_non_null(strstr(p.dry_run, "X-lkprobot-Dry-Run: mail.live is not true"));
	mail_plan_release(&p);
	/* live: everyone in To and Cc */
	mc.live = true;
	mail_plan_init(&p, &f);
	assert_int_equal(apply(MAIL_ADDRESS, &c, &p, &err), 0);
	assert_int_equal(p.nenvelope, 2);
	assert_string_equal(p.envelope[0], "dev@example.org");
	assert_null(p.dry_run);
	mail_plan_release(&p);
	/* the robot never mails itself, however it is named (a fix's Reported-by: it, a list it is on) */
	const char *to2[] = { "Dev <dev@example.org>", "kernel test robot <LKP@example.org>" };
	char *lists2[] = { "lkp@example.org", "lkp@lists.example.org", NULL };
	c.to = to2;
	c.nto = 2;
	mc.lists = lists2;
	mc.nlists = 2;
	c.from = "kernel test robot <lkp@example.org>";
	mail_plan_init(&p, &f);
	assert_int_equal(apply(MAIL_ADDRESS, &c, &p, &err), 0);
	assert_int_equal(p.nto, 1);
	assert_string_equal(p.to[0], "Dev <dev@example.org>");
	assert_int_equal(p.ncc, 1);
	assert_string_equal(p.cc[0], "lkp@lists.example.org");
	assert_int_equal(p.nenvelope, 2);
	mail_plan_release(&p);
	c.to = to;
	c.nto = 1;
	mc.lists = lists;
	c.from = NULL;
	/* nobody: no tree, nobody named, no lists */
	mc.nlists = 0;
	c.nto = 0;
	mail_plan_init(&p, &f);
	assert_int_equal(apply(MAIL_ADDRESS, &c, &p, &err), -1);
	assert_non_null(strstr(err.buf, "no recipient"));
	mail_plan_release(&p);
	compare_floors_release(&f);
	strbuf_release(&err);
}

/* The layout check's table, line by line as the second example's (numbers and names aside: its own here). */
static void test_layout_table(void **state)
{
	(void)state;
	struct strbuf t = STRBUF_INIT;
	const struct layout_figures f = {
		.kcflags = "-falign-functions=32",
		.worse = true,
		.gone = false,
		.parent = "7476b91d4db369d8e5c1",
		.culprit = "a0ac629ebe7b3d248cb9380778a1b2",
		.base = 22103,
		.change = -43.2,
		.commit = 12551,
		.job = "fio-basic/2M-performance-2pmem-xfs-libaio-dax-50%-200s-read-200G-tb/lkp-csl-2sp6",
		.metric = "fio.read_iops"
	};

	bisect_layout_table(&t, &f);
	assert_string_equal(t.buf,
			    "We recompiled the kernels with option \"-falign-functions=32\", and the\n"
			    "regression still exists:\n"
			    "\n"
			    "7476b91d4db369d8  a0ac629ebe7b3d248cb9380778  testcase/testparams/testbox\n"
			    "----------------  --------------------------  ---------------------------\n"
			    "         %stddev      change         %stddev\n"
			    "             \\          |                \\  \n"
			    "     22103             -43%      12551        "
			    "fio-basic/2M-performance-2pmem-xfs-libaio-dax-50%-200s-read-200G-tb/lkp-csl-2sp6\n"
			    "     22103             -43%      12551        GEO-MEAN fio.read_iops\n");
	strbuf_release(&t);
}

/* Without a rebuild's KCFLAGS the table alone: its caller says what it shows (a recheck, a patch tested). */
static void test_compact_table(void **state)
{
	(void)state;
	struct strbuf t = STRBUF_INIT;
	const struct layout_figures f = { .worse = true,
					  .parent = C1,
					  .culprit = C2,
					  .base = 100,
					  .change = -30.2,
					  .commit = 70,
					  .job = "command/make-sh_bench.sh/vm",
					  .metric = "command.throughput" };

	bisect_layout_table(&t, &f);
	assert_string_equal(t.buf,
			    "1111111111111111  22222222222222222222222222  testcase/testparams/testbox\n"
			    "----------------  --------------------------  ---------------------------\n"
			    "         %stddev      change         %stddev\n"
			    "             \\          |                \\  \n"
			    "       100             -30%         70        command/make-sh_bench.sh/vm\n"
			    "       100             -30%         70        GEO-MEAN command.throughput\n");
	strbuf_release(&t);
}

/* flow_pair's result (a recheck, a test, a follow-up's rounds): its "again" check read back as written. */
static void test_pair_json(void **state)
{
	(void)state;
	struct bisect_result r, back = { 0 };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;

	found(&r);
	r.again = (struct bisection_check){
		.status = CHECK_REFUTES, .decided = true, .base_mean = 100, .commit_mean = 99.5, .runs = 10
	};
	r.again.d = decision(DECIDE_SAME, -0.5, "within the 5% floor");
	r.again.why = strdup(C2 " against " C1 ": within the 5% floor");
	r.again.table = strdup("the table\n");
	bisect_result_json(&a, &r);
	assert_non_null(strstr(a.buf, "\"again\": {\"status\": \"refutes\", \"why\": \"" C2 " against " C1));
	assert_int_equal(bisect_result_parse(a.buf, a.len, &back, &err), 0);
	assert_int_equal(back.again.status, CHECK_REFUTES);
	assert_int_equal(back.again.d.verdict, DECIDE_SAME);
	assert_string_equal(back.again.table, "the table\n");
	assert_true(back.again.base_mean == 100 && back.again.commit_mean == 99.5);
	bisect_result_json(&b, &back);
	assert_string_equal(a.buf, b.buf);
	/* no pair compared: no key */
	bisect_result_release(&back);
	found(&back);
	strbuf_reset(&b);
	bisect_result_json(&b, &back);
	assert_null(strstr(b.buf, "\"again\""));
	bisect_result_release(&r);
	bisect_result_release(&back);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
}

/*
 * What a recheck asks for: the report's culprit against its parent, on its
 * job and metric, in rounds of its own, with the layout check at the tree's
 * N — 0-day's 32 when the tree has none or opts its bisections out.
 */
static void test_recheck_request(void **state)
{
	(void)state;
	struct node *report = node_new(NODE_MAP);
	struct tree_conf t = { .name = "linux", .path = "/src/linux" };
	struct triage_pair q;

	node_set(report, "culprit", node_new_scalar(C2));
	node_set(report, "parent", node_new_scalar(C1));
	node_set(report, "job", node_new_scalar("/jobs/fio.yaml"));
	node_set(report, "metric", node_new_scalar("fio.read_iops"));
	triage_recheck_pair(report, &t, &q);
	assert_ptr_equal(q.t, &t);
	assert_null(q.repo);
	assert_string_equal(q.good, C1);
	assert_string_equal(q.bad, C2);
	assert_string_equal(q.job, "/jobs/fio.yaml");
	assert_string_equal(q.metric, "fio.read_iops");
	assert_true(q.fresh);
	assert_int_equal(q.align, 32);
	t.layout_check = "64";
	triage_recheck_pair(report, &t, &q);
	assert_int_equal(q.align, 64);
	t.layout_check = "off";
	triage_recheck_pair(report, &t, &q);
	assert_int_equal(q.align, 32);
	node_free(report);
}

/* A run dir of rt: job.yaml, and stats.json when complete. */
static void run_dir(const char *rt, int no, bool complete)
{
	char *d = xasprintf("%s/%d", rt, no), *p = xasprintf("mkdir -p '%s'", d);
	assert_int_equal(system(p), 0);
	free(p);
	p = xasprintf("%s/job.yaml", d);
	FILE *f = fopen(p, "w");
	fputs("testcase: command\njob_state: finished\n", f);
	fclose(f);
	free(p);
	if (complete) {
		p = xasprintf("%s/stats.json", d);
		f = fopen(p, "w");
		fputs("{\"command.throughput\": 100}\n", f);
		fclose(f);
		free(p);
	}
	free(d);
}

/*
 * The runs of a commit directory complete on disk but not in the store
 * recorded where a bisection reads them (not by a walk when the service
 * starts): the known one and the incomplete one left alone, twice the same.
 */
static void test_record_missing_in(void **state)
{
	char dir[] = "/tmp/lkp-test-runstore-XXXXXX";
	struct strbuf err = STRBUF_INIT;
	struct runstore rs;
	(void)state;

	assert_non_null(mkdtemp(dir));
	char *rt = xasprintf("%s/command/defaults/box/debian/kc/gcc-12/abcdef0", dir);
	char *db = xasprintf("%s/lkprobot.db", dir);
	run_dir(rt, 0, true);
	run_dir(rt, 1, true);
	run_dir(rt, 2, false);
	assert_int_equal(runstore_open(&rs, true, db, dir, &err), 0);
	char *r0 = xasprintf("%s/0", rt);
	assert_int_equal(runstore_record_dir(&rs, r0, &err), 0);
	assert_int_equal(runstore_record_missing_in(&rs, rt), 1);
	assert_int_equal(runstore_record_missing_in(&rs, rt), 0);
	assert_int_equal(store_count_runs(rs.store, NULL, &err), 2);
	runstore_close(&rs);
	char *rm = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(rm), 0);
	free(rm);
	free(r0);
	free(db);
	free(rt);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect_json_round_trip), cmocka_unit_test(test_bisect_json_failed),
		cmocka_unit_test(test_head_outcome),	       cmocka_unit_test(test_mail_rules),
		cmocka_unit_test(test_layout_table),	       cmocka_unit_test(test_record_missing_in),
		cmocka_unit_test(test_compact_table),	       cmocka_unit_test(test_pair_json),
		cmocka_unit_test(test_recheck_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

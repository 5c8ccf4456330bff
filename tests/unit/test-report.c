/*
 * Unit tests: mail/report — one figure for the headline's change (the
 * decision's) in the subject, the greeting, the table and "how sure",
 * even where the means of the runs say another (a drifting machine whose
 * base has runs from a slow phase); the headline leads the table whether
 * lkp-tests' rule selects it or not, marked and explained; a change of a
 * metric with no direction is never mailed, one the job gives a direction
 * is; an improvement asks for no tags; the machine as the run saw it; a
 * noisy machine said with its figures and the runs a reader needs.
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

#include "../../lib/results/compare.h"
#include "../../mail/report.h"

#define BASE "de73caff91bcd929beff4ca9d138913d73dcd323"
#define COMMIT "1d9bf585cc8daec7bae4df73e97f228b4e6ada56"

static struct node *column(const double *v, size_t n)
{
	struct node *col = node_new(NODE_SEQ);

	for (size_t i = 0; i < n; i++) {
		char num[64];
		snprintf(num, sizeof(num), "%.17g", v[i]);
		node_push(col, node_new_scalar(num));
	}
	return col;
}

/*
 * A drifting machine (the load comes and goes, round by round, 80 to
 * 120): 12 rounds in which both commits ran, the commit 25 % slower; the
 * base also has 12 runs of its own from a slow phase (at 60 %), as a
 * bisection's steps leave them. Paired, the change is -25 %; the means
 * say much less.
 */
static void drifting(struct compare_result *res, const char *metric, const struct compare_floors *floors)
{
	double b[24], c[12];
	uint64_t rb[24] = { 0 }, rc[12];
	struct node *mb = node_new(NODE_MAP), *mc = node_new(NODE_MAP);
	struct strbuf err = STRBUF_INIT;

	for (int i = 0; i < 12; i++) {
		double load = 1 + 0.2 * sin(i * 1.3) + 0.01 * (i % 3);
		b[i] = 100 * load;
		c[i] = 75 * load * (1 + 0.01 * ((i * 7) % 5 - 2));
		rb[i] = rc[i] = 1000 + (uint64_t)i;
		b[12 + i] = 60 * (1 + 0.02 * (i % 4));
	}
	node_set(mb, metric, column(b, 24));
	node_set(mc, metric, column(c, 12));
	const struct node *mats[2] = { mb, mc };
	const char *labels[2] = { BASE, COMMIT };
	const uint64_t *rounds[2] = { rb, rc };
	size_t nrounds[2] = { 24, 12 };
	struct compare_opts co = { .floors = floors, .rounds = rounds, .nrounds = nrounds };
	assert_int_equal(compare_matrices(mats, labels, 2, &co, res, &err), 0);
	node_free(mb);
	node_free(mc);
	strbuf_release(&err);
}

/* The run's job: a `command` test, and the machine it ran on. */
static struct node *job_of(void)
{
	struct node *job = node_new(NODE_MAP), *cmd = node_new(NODE_MAP), *facts = node_new(NODE_MAP);

	node_set(job, "testcase", node_new_scalar("command"));
	node_set(cmd, "cmd", node_new_scalar("./bench"));
	node_set(job, "command", cmd);
	node_set(facts, "nr_threads", node_new_scalar("8"));
	node_set(facts, "cpu", node_new_scalar("Test CPU @ 2.00GHz"));
	node_set(facts, "memory", node_new_scalar("16G"));
	node_set(job, "facts", facts);
	return job;
}

static void input(struct report_input *in, const struct compare_result *res, const struct node *job)
{
	*in = (struct report_input){ .cmp = res,
				     .job = job,
				     .test_desc = "command/sh_bench/vm",
				     .commit = COMMIT,
				     .base_commit = BASE,
				     .commit_subject = "bench: slower",
				     .tree_url = "https://git.example.org/bench.git",
				     .lkprobot_url = "https://git.example.org/lkprobot.git",
				     .from = "kernel test robot <lkp@example.org>",
				     .domain = "example.org",
				     .date = 1485000000,
				     .load_max = 11.2,
				     .lf = true };
}

/* The line of text that starts with prefix (the first), or fail. */
static const char *line_at(const char *text, const char *prefix)
{
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, prefix, strlen(prefix)))
			return l;
	fail_msg("no line starts with '%s' in:\n%s", prefix, text);
	return NULL;
}

static void test_one_figure(void **state)
{
	struct compare_result res;
	struct node *job = job_of();
	struct report_input in;
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT, want = STRBUF_INIT, means = STRBUF_INIT;
	(void)state;

	drifting(&res, "command.throughput", NULL);
	const struct compare_row *h = report_headline(&res, NULL);
	assert_non_null(h);
	assert_string_equal(h->metric, "command.throughput");
	assert_false(h->changed); /* the runs' ranges overlap: lkp-tests' rule does not select it */
	compare_format_decision(&want, &h->decision);
	strbuf_addf(&means, "%.1f%%", h->change[1]);
	assert_true(h->decision.change < -20 && h->decision.change > -30);
	assert_string_not_equal(want.buf, means.buf); /* the means say something else */
	assert_true(fabs(h->change[1]) < 15);

	input(&in, &res, job);
	assert_int_equal(report_render(&in, &msg, &err), 0);
	const char *m = msg.buf;
	char *s = NULL;
	/* the subject */
	s = xasprintf("Subject: [bench] 1d9bf585cc: command.throughput %s regression\n", want.buf);
	assert_non_null(strstr(m, s));
	free(s);
	/* the greeting */
	s = xasprintf("FYI, we noticed a %s regression of command.throughput due to commit:\n", want.buf);
	assert_non_null(strstr(m, s));
	free(s);
	/* "how sure" */
	s = xasprintf("  change:  %s regression of command.throughput, 99.8%% confidence", want.buf);
	assert_non_null(strstr(m, s));
	free(s);
	/* the table: its first row is the headline, its change column the same figure, marked */
	const char *t = line_at(m, "             \\          |                \\  ");
	const char *row = strchr(t, '\n') + 1;
	size_t len = strcspn(row, "\n");
	char *first = xstrndup(row, len);
	assert_non_null(strstr(first, "command.throughput  [1]"));
	char *col = NULL;
	col = xasprintf(" %s ", want.buf);
	assert_non_null(strstr(first, col));
	assert_null(strstr(first, means.buf));
	free(col);
	free(first);
	/* the footnote labels the means' change, and why the row is there (its lines joined) */
	line_at(m, "[1] command.throughput, the headline: its change,");
	char *flat = xstrdup(m);
	for (char *c = flat; *c; c++)
		*c = *c == '\n' ? ' ' : *c;
	s = xasprintf(
		"[1] command.throughput, the headline: its change, %s, is lkprobot's decision; the means of "
		"its runs shown here differ by %s (lkp-tests' change); lkp-tests' rule alone would not show the row",
		want.buf, means.buf);
	assert_non_null(strstr(flat, s));
	free(s);
	free(flat);
	/* the machine as the run saw it; a noisy one said, with how many runs show the change */
	assert_non_null(strstr(m, "\non test machine: 8 threads Test CPU @ 2.00GHz with 16G memory\n"));
	const char *noise = line_at(m, "  noise:   a noisy machine: the runs' stddev was");
	assert_non_null(noise);
	assert_non_null(strstr(m, "the load average up to 11.20 on 8 threads"));
	/* To reproduce: both commits, one after the other, then the comparison that gives the same headline */
	assert_non_null(strstr(m, "\n                for c in " BASE " " COMMIT "; do\n"));
	assert_non_null(strstr(m, "\n        lkprobot compare --headline -o ../result " BASE " " COMMIT "\n"));
	assert_null(strstr(m, "boot a kernel"));
	/* a regression's fix carries the tags */
	assert_non_null(strstr(m, "| Reported-by: kernel test robot <lkp@example.org>"));

	strbuf_release(&msg);
	strbuf_release(&err);
	strbuf_release(&want);
	strbuf_release(&means);
	compare_result_release(&res);
	node_free(job);
}

static void test_no_direction(void **state)
{
	struct compare_result res;
	struct node *job = job_of();
	struct report_input in;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct compare_floors f = { 0 };
	(void)state;

	/* latency_ns: no index file, no program table says which way is better */
	drifting(&res, "command.latency_ns", NULL);
	input(&in, &res, job);
	assert_int_equal(report_body(&in, &out, &err), 1);
	assert_non_null(strstr(err.buf, "no metric with a direction changed"));
	in.metric = "command.latency_ns";
	strbuf_reset(&err);
	assert_int_equal(report_render(&in, &out, &err), 1);
	assert_non_null(strstr(err.buf, "which way is better is not known"));
	assert_int_equal(out.len, 0); /* never "N% change" */
	compare_result_release(&res);

	/* the job says it: lower is better; 25 % lower is an improvement, no tags asked for */
	struct node *dir = node_new(NODE_MAP);
	node_set(dir, "command.latency_ns", node_new_scalar("lower"));
	node_set(job, "metric_direction", dir);
	assert_int_equal(compare_floors_add_job(&f, job, &err), 0);
	drifting(&res, "command.latency_ns", &f);
	in.cmp = &res;
	assert_int_equal(report_render(&in, &out, &err), 0);
	assert_non_null(strstr(out.buf, "command.latency_ns -"));
	assert_non_null(strstr(out.buf, "% improvement\n"));
	assert_null(strstr(out.buf, "Reported-by"));
	assert_null(strstr(out.buf, "% change"));
	compare_result_release(&res);
	compare_floors_release(&f);
	strbuf_release(&out);
	strbuf_release(&err);
	node_free(job);
}

/* A run on a kernel built with KCFLAGS (a layout check's): the pasted command builds that kernel again. */
static void test_reproduce_kcflags(void **state)
{
	struct compare_result res;
	struct node *job = job_of();
	struct report_input in;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *const argv[] = { "lkprobot", "box",	     "run",  "ga",	  "--tree",
				     "linux",	 "--commit", COMMIT, "--kcflags", "-falign-functions=32",
				     "job.yaml" };
	(void)state;

	drifting(&res, "command.throughput", NULL);
	input(&in, &res, job);
	in.command = argv;
	in.ncommand = sizeof(argv) / sizeof(*argv);
	assert_int_equal(report_body(&in, &out, &err), 0);
	assert_non_null(strstr(out.buf,
			       "lkprobot box run ga --tree linux --commit \"$c\" --kcflags -falign-functions=32 "
			       "job.yaml -o result commit=\"$c\" || break 2\n"));
	compare_result_release(&res);
	strbuf_release(&out);
	strbuf_release(&err);
	node_free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_figure),
		cmocka_unit_test(test_no_direction),
		cmocka_unit_test(test_reproduce_kcflags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

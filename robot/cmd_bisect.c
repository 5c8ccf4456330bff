/*
 * lkprobot bisect: the first commit of a performance change between a good
 * and a bad commit. A provider (local, qemu, ssh, slurm) prepares each
 * commit and runs the job; samples come from the result roots, so every
 * run is kept and a second bisection over the same commits reuses them;
 * the bisection itself is recorded in the store and can be resumed. This
 * file is the command: its options, the request, the result printed; the
 * session is flow/bisect.c.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/store/store.h"
#include "../flow/bisect.h"
#include "../lib/results/compare.h"
#include "../providers/provider.h"
#include "../providers/qemu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
	"usage: lkprobot bisect --tree DIR --good REV --bad REV [options] JOB.yaml [key=value...]\n"
	"       lkprobot bisect --resume ID [options]\n"
	"\n"
	"Find the first commit between REV good and REV bad that changed a metric of\n"
	"the job. The commits are the ancestors of bad that are not ancestors of good\n"
	"(merges included). Every comparison is measured in rounds, one run of each\n"
	"side in a random (recorded) order, and compared round by round, so that a\n"
	"machine that drifts cannot pass for a change: the ends first (no change\n"
	"beyond the metric's floor: nothing is bisected), then each tested commit\n"
	"against the ends while its verdict is unsure, then the culprit against its\n"
	"parent before it is named. A commit that cannot be built or booted is\n"
	"skipped. Runs are ordinary result roots: they are reused. A provider that\n"
	"runs on several boxes at once (slurm) gets a batch's runs together, and\n"
	"with more boxes free than a step needs, several commits are tested at\n"
	"once (the range split in k+1 parts).\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 a culprit found and confirmed; 1 no culprit (the ends do not\n"
	"differ, the change does not reproduce, not sure, or skipped commits leave a\n"
	"set), or a run could not be made; 2 bad input or usage\n";

/* --provider's help: the providers of the registry */
static void provider_help(struct strbuf *b)
{
	strbuf_addstr(b, "where the job runs:");
	for (const struct provider_ops *const *p = provider_all(); *p; p++)
		strbuf_addf(b, "\n%s%s: %s", (*p)->name, p == provider_all() ? " (default)" : "", (*p)->summary);
}

/* --layout-check N|off into o->dst, an int: N a power of two from 2 to 4096, off 0 */
static int take_align(const struct opt *o, const char *value, struct strbuf *err)
{
	char *end;
	long n = strtol(value, &end, 10);

	if (!strcmp(value, "off")) {
		*(int *)o->dst = 0;
		return 0;
	}
	if (!*value || *end || n < 2 || n > 4096 || (n & (n - 1))) {
		strbuf_setf(err, "'%s' is not off or a power of two from 2 to 4096 (-falign-functions=N)", value);
		return -1;
	}
	*(int *)o->dst = (int)n;
	return 0;
}

/* --max-points K (1-64) into o->dst, a size_t */
static int take_points(const struct opt *o, const char *value, struct strbuf *err)
{
	char *end;
	long k = strtol(value, &end, 10);

	if (!*value || *end || k < 1 || k > 64) {
		strbuf_setf(err, "'%s' is not a number of commits from 1 to 64", value);
		return -1;
	}
	*(size_t *)o->dst = (size_t)k;
	return 0;
}

static void print_text(const struct bisect_result *r)
{
	const char *metric = r->metric ? r->metric : "";

	if (r->status == BISECTION_FOUND) {
		char c[32], e[32];
		decide_format_percent(c, sizeof(c), r->change);
		decide_format_percent(e, sizeof(e), r->ends_change);
		printf("first bad commit: %s%s%s%s\n", r->culprit, r->subject ? " (\"" : "",
		       r->subject ? r->subject : "", r->subject ? "\")" : "");
		printf("  %s: %s against its parent %.12s (%s); the range moved %s\n", metric, c, r->parent,
		       r->confirm.why, e);
	} else if (r->status == BISECTION_AMBIGUOUS) {
		printf("no single culprit: %s; the first bad commit is one of:\n", r->why);
		for (size_t i = 0; i < r->ncandidates; i++) {
			bool skipped = false;
			for (size_t k = 0; k < r->nskipped; k++)
				skipped |= !strcmp(r->skipped[k], r->candidates[i]);
			printf("  %s%s\n", r->candidates[i], skipped ? " (cannot be tested)" : "");
		}
		if (r->named)
			printf("  %s: %.12s, the one that can be tested, against %.12s (%s)\n", metric, r->culprit,
			       r->parent, r->confirm.why);
	} else {
		printf("no culprit: %s\n", r->why);
	}
	if (r->named) {
		const struct bisection_check *c[2] = { &r->revert, &r->layout };
		for (int k = 0; k < 2; k++)
			if (c[k]->why)
				printf("  %s check: %s\n", k ? "layout" : "revert", c[k]->why);
	}
	printf("  %zu commits in the range, %zu tested, %zu builds, %zu runs (bisection %lld in the store)\n",
	       r->commits, r->tested, r->builds, r->runs, r->id);
}

/* The bisection the request asks for, its result printed: the exit code, errors said. */
static int bisect_print(const struct bisect_request *req, bool json)
{
	struct bisect_result res;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	enum flow_status rc = flow_bisect(req, &res, &err);

	if (rc == FLOW_OK && json) {
		bisect_result_json(&out, &res);
		fwrite(out.buf, 1, out.len, stdout);
	} else if (rc == FLOW_OK) {
		print_text(&res);
	} else if (rc == FLOW_FAIL && json && res.known) {
		bisect_result_json(&out, &res);
		fwrite(out.buf, 1, out.len, stdout);
	}
	int ret = rc == FLOW_OK ? (res.status == BISECTION_FOUND ? EXIT_OK : EXIT_FAIL)
				: say_error(rc == FLOW_BAD ? EXIT_USAGE : EXIT_FAIL, "%s", err.buf);
	bisect_result_release(&res);
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}

int cmd_bisect(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	struct compare_floors floors = { 0 };
	struct provider_cli cli = { 0 };
	bool first_parent = false, json = false;
	const char *tree = NULL, *good = NULL, *bad = NULL, *metric = NULL, *provider = "local", *kconfig = NULL;
	const char *result_dir = STORE_RESULT_ROOT, *db = NULL;
	char *cache = NULL;
	const char *accel = NULL;
	long long resume = 0;
	size_t max_points = 0;
	int layout_align = BISECT_LAYOUT_ALIGN;
	struct strbuf phelp = STRBUF_INIT;
	provider_help(&phelp);
	struct opt prov[32];
	opt_provider_rows(prov, 32, &cli);
	const struct opt table[] = {
		OPT_STRING(0, "tree", "DIR", "the git repository", &tree),
		OPT_STRING(0, "good", "REV", "the good end of the range", &good),
		OPT_STRING(0, "bad", "REV", "the bad end of the range", &bad),
		OPT_STRING(0, "metric", "M",
			   "the metric to follow (default: the job's KPI metric that\n"
			   "changed most between the ends, said on stderr)",
			   &metric),
		OPT_STRING(0, "provider", "P", phelp.buf, &provider),
		OPT_INCLUDE(prov),
		OPT_STRING(0, "accel", "A", "qemu: kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto)", &accel),
		OPT_STRING(0, "kconfig", "NAME|FILE", "qemu, ssh: the kernel config (default x86_64-pmem)", &kconfig),
		OPT_CALL(0, "max-points", "K",
			 "commits tested at once in a step, at most (default 1:\n"
			 "one a step, the builds one box makes; K >= 2 spends\n"
			 "more builds for less wall time on a farm's free boxes)",
			 take_points, &max_points),
		OPT_CALL(0, "floor", "METRIC=PCT",
			 "the smallest change of METRIC (a glob; repeatable) that\n"
			 "counts (default: the job's change_floor, else 1% for\n"
			 "perf metrics and the test's own, 5% for the rest)",
			 opt_floor, &floors),
		OPT_CALL(0, "layout-check", "N|off",
			 "qemu, ssh: rebuild a culprit and its parent with\n"
			 "-falign-functions=N and run them again: a change that\n"
			 "vanishes is a code layout effect (default 32; a job's\n"
			 "layout_check: key wins)",
			 take_align, &layout_align),
		OPT_BOOL(0, "first-parent", "only the first parent of each commit (the mainline)", &first_parent),
		OPT_BOOL(0, "json", "the outcome as JSON on stdout", &json),
		OPT_CALL(0, "resume", "ID", "go on with bisection ID of the store (same arguments)", opt_bisection_id,
			 &resume),
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &result_dir),
		OPT_DUP(0, "cache", "DIR", "work trees and kernels (default $LKPROBOT_CACHE, /var/cache/lkprobot)",
			&cache),
		OPT_STRING(0, "db", "FILE", "the store (default RESULT_ROOT_DIR/lkprobot.db)", &db),
		JOBOPTS_ROWS(&jo, "hosts/NAME describes the machine (qemu: qemu-pmem)"),
		OPT_END(),
	};
	int ret;

	jobopts_init(&jo);
	ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false);
	strbuf_release(&phelp);
	if (ret != OPT_GO)
		goto out;
	/* a resumed bisection's job is the store's; a new one's is checked before anything is made */
	struct strbuf err = STRBUF_INIT;
	if ((accel && qemu_accel_option(accel, &err)) ||
	    (!resume && tree && good && bad && jobopts_args(&jo, argc, argv, ctx->cmd, &err))) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		goto out;
	}
	strbuf_release(&err);
	struct bisect_request req = { .tree = tree,
				      .good = good,
				      .bad = bad,
				      .resume = resume,
				      .metric = metric,
				      .provider = provider,
				      .cli = &cli,
				      .kconfig = kconfig,
				      .result_dir = result_dir,
				      .db = db,
				      .cache = cache,
				      .data_dir = ctx->data_dir,
				      .max_points = max_points,
				      .first_parent = first_parent,
				      .layout_align = layout_align,
				      .jo = &jo,
				      .floors = &floors };
	ret = bisect_print(&req, json);
out:
	compare_floors_release(&floors);
	jobopts_release(&jo);
	free(cache);
	provider_cli_release(&cli);
	return ret;
}

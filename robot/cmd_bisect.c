/*
 * lkprobot bisect: the first commit of a performance change between a good
 * and a bad commit. The driver behind lib/bisect: a provider (local or
 * qemu) prepares each commit and runs the job; samples come from the
 * result roots, so every run is kept and a second bisection over the same
 * commits reuses them; the bisection itself is recorded in the store and
 * can be resumed. This file is the command (its options, the session's
 * phases); robot/bisect_driver.c is what the search calls back.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/results/bisect.h"
#include "../lib/results/compare.h"
#include "../lib/job/engine.h"
#include "../lib/sys/fsutil.h"
#include "../lib/kernel/git.h"
#include "../lib/job/job.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/sys/machine.h"
#include "../lib/store/store.h"
#include "../lib/util/yml.h"
#include "../providers/provider.h"
#include "../providers/qemu.h"
#include "../flow/runstore.h"
#include "../flow/bisect_driver.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

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

/* --resume ID into o->dst, a long long */
static int take_resume(const struct opt *o, const char *value, struct strbuf *err)
{
	char *end;
	long long id = strtoll(value, &end, 10);

	if (!*value || *end || id <= 0) {
		strbuf_setf(err, "'%s' is not a bisection id", value);
		return -1;
	}
	*(long long *)o->dst = id;
	return 0;
}

/* The lock of one head of one tree, in the cache: its fd, or -1 with err set. */
static int head_lock(const char *cache, const char *tree, const char *head, struct strbuf *err)
{
	char real[PATH_MAX], hash[GITREPO_HEXSZ + 1];
	struct strbuf key = STRBUF_INIT, path = STRBUF_INIT;
	int fd = -1;

	strbuf_addf(&key, "%s\n%s", realpath(tree, real) ? real : tree, head);
	gitrepo_hash(key.buf, key.len, hash);
	strbuf_addf(&path, "%s/locks", cache);
	if (fsutil_mkdir_p(path.buf))
		strbuf_setf(err, "cannot create '%s': %s", path.buf, strerror(errno));
	else {
		strbuf_addf(&path, "/bisect-%.16s.lock", hash);
		fd = fsutil_lock(path.buf, 30, err);
		if (fd < 0)
			strbuf_addf(err, ": another bisection of %.12s in %s runs", head, tree);
	}
	strbuf_release(&key);
	strbuf_release(&path);
	return fd;
}

/* What the command line (or, with --resume, the store's record) asks for. */
struct bargs {
	const char *tree, *good, *bad, *metric, *provider, *kconfig, *result_dir, *db, *accel, *cache;
	long long resume;
	size_t max_points;
	bool first_parent, json;
	struct jobopts *jo;
	struct compare_floors *floors;
	struct provider_cli *cli;
};

/* One bisection's resources, from the store to the provider; session_release() lets them go. */
struct bsession {
	struct bargs *a;
	struct lkp_ctx *ctx;
	struct job_env env;
	struct atomic_list jobs;
	struct gitrepo *repo;
	struct gitrepo_range range;
	struct machine m;
	struct driver d;
	struct bisect_outcome outcome;
	struct runstore rs;
	struct store_bisection sb;
	struct provider_options *popts;
	struct provider_config pc;
	bool have_m, have_rs;
	char *cache, *picked, *picked_testbox;
	char res_real[PATH_MAX], data_real[PATH_MAX], bad_id[GITREPO_HEXSZ + 1];
	long long id;
	int lock_fd;
};

/* How a phase of the session ended badly: the input (exit 2) or the work (exit 1). */
enum { SESSION_FAIL = -1, SESSION_BAD = -2 };

/* The result directory and the store; with --resume, the recorded arguments (read before session_job). */
static int session_store(struct bsession *s, struct strbuf *err)
{
	struct bargs *a = s->a;

	if (fsutil_mkdir_p(a->result_dir) || !realpath(a->result_dir, s->res_real)) {
		strbuf_setf(err, "%s: cannot create the result directory", a->result_dir);
		return SESSION_BAD;
	}
	if (runstore_open(&s->rs, true, a->db, s->res_real, err))
		return SESSION_BAD;
	s->have_rs = true;
	if (!a->resume)
		return 0;
	struct store_bisection *sb = &s->sb;
	if (store_bisection_get(s->rs.store, a->resume, sb, err))
		return SESSION_BAD;
	/* the recorded arguments; the job file and overrides are in sb too */
	a->tree = sb->tree;
	a->good = sb->good;
	a->bad = sb->bad;
	a->metric = a->metric ? a->metric : sb->metric;
	a->provider = sb->provider;
	a->first_parent = sb->first_parent;
	if (sb->overrides && strspn(sb->overrides, " \n{}") < strlen(sb->overrides) && jobopts_set(a->jo, sb->overrides, err))
		return SESSION_BAD;
	s->id = a->resume;
	return 0;
}

/* The provider and its options, the machine, the one atomic job, the range, the cache. */
static int session_job(struct bsession *s, int argc, char **argv, struct strbuf *err)
{
	struct bargs *a = s->a;
	struct jobopts *jo = a->jo;

	if (!a->resume && (!a->tree || !a->good || !a->bad)) {
		strbuf_setf(err, "bisect needs --tree, --good and --bad (or --resume ID); see 'lkprobot bisect --help'");
		return SESSION_BAD;
	}
	if (a->resume) {
		char *args[] = { "bisect", s->sb.job, NULL };
		optind = 1;
		if (jobopts_args(jo, 2, args, s->ctx->cmd, err))
			return SESSION_BAD;
	} else if (jobopts_args(jo, argc, argv, s->ctx->cmd, err)) {
		return SESSION_BAD;
	}
	if (lkpetc_load(err))
		return SESSION_BAD;
	s->d.ops = provider_find(a->provider);
	if (!s->d.ops) {
		struct strbuf names = STRBUF_INIT;
		provider_names(&names, ",");
		strbuf_setf(err, "--provider: '%s' is not a provider (%s)", a->provider, names.buf);
		strbuf_release(&names);
		return SESSION_BAD;
	}
	s->popts = provider_options_new(s->d.ops);
	if (provider_cli_apply(a->cli, s->popts, err))
		return SESSION_BAD;
	s->pc = (struct provider_config){ .tree = a->tree, .result_dir = a->result_dir, .kconfig = a->kconfig,
					  .db = a->db, .progress = isatty(2), .opts = s->popts };
	if (provider_check(s->d.ops, &s->pc, err))
		return SESSION_BAD;
	/* the provider's machine when none is given (a box's tbox_group, QEMU's qemu-pmem) */
	if (!jo->testbox) {
		if (provider_testbox(s->d.ops, &s->pc, &s->picked_testbox, err))
			return SESSION_BAD;
		jo->testbox = s->picked_testbox;
	}
	if (machine_get(&s->m, s->ctx->data_dir, jo->testbox, err))
		return SESSION_BAD;
	s->have_m = true;
	if (!jo->testbox)
		jo->testbox = s->m.hostname;
	jobopts_env(jo, s->ctx->data_dir, &s->env);
	if (jobopts_atomic_jobs(jo, &s->env, &s->jobs, err))
		return SESSION_BAD;
	if (s->jobs.n != 1) {
		strbuf_setf(err, "the job splits into %zu atomic jobs; bisect follows one: choose with key=value overrides",
			    s->jobs.n);
		return SESSION_BAD;
	}
	if (engine_check(s->jobs.v[0], err))
		return SESSION_BAD;
	if (gitrepo_open(&s->repo, a->tree, err) || gitrepo_resolve(s->repo, a->bad, s->bad_id, err) ||
	    gitrepo_resolve(s->repo, a->good, s->d.good, err) ||
	    gitrepo_range(s->repo, s->d.good, s->bad_id, a->first_parent, &s->range, err))
		return SESSION_BAD;
	if (a->cache) {
		s->cache = xstrdup(a->cache);
	} else {
		struct strbuf cd = STRBUF_INIT;
		kbuild_cache_dir(&cd);
		s->cache = strbuf_detach(&cd);
	}
	if (!realpath(s->ctx->data_dir, s->data_real)) {
		strbuf_setf(err, "cannot tell where lkprobot's data is");
		return SESSION_BAD;
	}
	return 0;
}

/*
 * The head's lock, the provider opened, the driver ready. One bisection of
 * a head at a time (a service restarted while its killed bisection's last
 * children still end, a second service): the lock is held for the
 * bisection's life, and under it the bisection of the same arguments in
 * the store goes on, never a second one.
 */
static int session_provider(struct bsession *s, struct strbuf *err)
{
	struct driver *d = &s->d;
	size_t n = s->range.n;

	if ((s->lock_fd = head_lock(s->cache, s->a->tree, s->bad_id, err)) < 0)
		return SESSION_FAIL;
	s->pc.result_dir = s->res_real;
	s->pc.cache = s->cache;
	s->pc.data_dir = s->data_real;
	s->pc.testbox = s->a->jo->testbox;
	struct strbuf label = STRBUF_INIT;
	strbuf_addf(&label, "bisect %.12s..%.12s of %s", d->good, s->bad_id, s->a->tree);
	s->pc.label = label.buf;
	d->prov = fsutil_mkdir_p(s->cache) ? NULL : provider_open(d->ops, &s->pc, err);
	strbuf_release(&label);
	if (!d->prov)
		return SESSION_FAIL;
	if (d->ops->kconfig(d->prov))
		node_set(s->jobs.v[0], "kconfig", node_new_scalar(d->ops->kconfig(d->prov)));
	d->job = s->jobs.v[0];
	/* the job's own floors, after the command line's (which win) */
	if (compare_floors_add_map(s->a->floors, node_get(d->job, "change_floor"), "change_floor", err))
		return SESSION_BAD;
	d->m = &s->m;
	d->range = &s->range;
	d->result_dir = s->res_real;
	d->untestable = xcalloc(n + 1, sizeof(bool));
	d->why_untestable = xcalloc(n + 1, sizeof(char *));
	/* the rounds' orders: random, and recorded in every run (the interleave key of its job.yaml) */
	if (getrandom(&d->rng, sizeof(d->rng), 0) != sizeof(d->rng) || !d->rng)
		d->rng = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
	d->built = xcalloc(n + 1, sizeof(bool));
	d->failures = xcalloc(n + 1, 1);
	d->rs = &s->rs;
	d->progress = isatty(2);
	d->expect_steps = bisect_log2_ceil(n);
	return 0;
}

/* The bisection's row in the store: a new one, or the same bisection again (its runs reused). */
static int session_record(struct bsession *s, struct strbuf *err)
{
	struct bargs *a = s->a;

	if (s->id)
		return 0;
	struct store_bisection nb = { .tree = (char *)a->tree, .good = s->d.good, .bad = s->bad_id,
				      .job = a->jo->files[0], .provider = (char *)a->provider,
				      .first_parent = a->first_parent, .metric = (char *)a->metric };
	struct strbuf ov = STRBUF_INIT;
	yml_emit(&ov, a->jo->overrides);
	nb.overrides = ov.buf;
	s->id = store_bisection_same(s->rs.store, &nb, err);
	if (s->id > 0) {
		fprintf(stderr, "lkprobot: going on with bisection %lld of the store (the same arguments)\n", s->id);
		if (store_bisection_end(s->rs.store, s->id, a->metric, "running", NULL, NULL, err))
			s->id = -1;
	} else if (!s->id) {
		s->id = store_bisection_add(s->rs.store, &nb, err);
	}
	strbuf_release(&ov);
	return s->id < 0 ? SESSION_FAIL : 0;
}

static void session_print(struct bsession *s, const char *metric)
{
	struct strbuf err = STRBUF_INIT;
	const struct bisect_outcome *o = &s->outcome;

	if (s->a->json) {
		bisect_driver_print_json(&s->d, o, metric, s->id);
	} else {
		struct gitrepo_commit gc = { 0 };
		bool have = o->status == BISECT_FOUND && !gitrepo_commit_info(s->repo, commit_of(&s->d, o->culprit), &gc, &err);
		bisect_driver_print_text(&s->d, o, metric, have ? gc.subject : NULL, s->id);
		if (have)
			gitrepo_commit_release(&gc);
	}
	strbuf_release(&err);
}

/* The metric (the test's own that changed, when none is asked for), the bisection, its outcome: the exit code. */
static int session_bisect(struct bsession *s, struct strbuf *err)
{
	struct driver *d = &s->d;
	struct bargs *a = s->a;
	const char *metric = a->metric;

	if (!metric) {
		bool nochange = false;
		if (!(s->picked = bisect_driver_pick_metric(d, a->floors, 5, &nochange, err)) && !nochange)
			return SESSION_FAIL;
		if (nochange) {
			/* the ends measured: no metric of the test moved by the decision, nor may more rounds show one */
			s->outcome.status = BISECT_NOT_REPRODUCED;
			snprintf(s->outcome.why, sizeof(s->outcome.why),
				 "no metric of the test changed between the good and the bad end (5 rounds), nor may more show one");
			store_bisection_end(s->rs.store, s->id, NULL, bisect_driver_status_name(s->outcome.status), NULL,
					    s->outcome.why, err);
			session_print(s, "");
			return EXIT_FAIL;
		}
		metric = a->metric = s->picked;
		fprintf(stderr, "lkprobot: bisecting %s: the metric of the test that changed most between the ends\n",
			metric);
	}
	d->metric = metric;
	if (d->progress)
		fprintf(stderr, "bisect: %zu commits between %.12s and %.12s, about %zu steps\n", s->range.n, d->good,
			s->bad_id, d->expect_steps);
	struct bisect_oracle o;
	bisect_driver_oracle(d, &o);
	struct bisect_opts bo = { 0 };
	bo.metric = compare_metric_spec(a->floors, metric);
	bo.max_points = a->max_points;
	bo.seed = d->rng;	/* as pick_metric left it: its batch ids are not drawn again */
	if (bisect_run(s->range.n, s->range.parents, s->range.nparents, &o, &bo, &s->outcome, err)) {
		if (d->untestable[s->range.n] || d->untestable[s->range.n - 1])
			bisect_driver_end_untestable(d, d->untestable[s->range.n - 1] ? s->range.n - 1 : s->range.n, err);
		return SESSION_FAIL;
	}
	store_bisection_end(s->rs.store, s->id, metric, bisect_driver_status_name(s->outcome.status),
			    s->outcome.status == BISECT_FOUND ? commit_of(d, s->outcome.culprit) : NULL, s->outcome.why, err);
	session_print(s, metric);
	return s->outcome.status == BISECT_FOUND ? EXIT_OK : EXIT_FAIL;
}

static void session_release(struct bsession *s)
{
	struct driver *d = &s->d;

	bisect_outcome_release(&s->outcome);
	if (d->prov)
		d->ops->close(d->prov);
	free(d->prepared);
	for (size_t i = 0; d->why_untestable && i <= s->range.n; i++)
		free(d->why_untestable[i]);
	free(d->why_untestable);
	free(d->rbuf);
	free(d->untestable);
	free(d->built);
	free(d->failures);
	free(d->buf);
	free(s->picked);
	free(s->picked_testbox);
	gitrepo_range_release(&s->range);
	gitrepo_close(s->repo);
	if (s->have_m)
		machine_release(&s->m);
	if (s->have_rs)
		runstore_close(&s->rs);
	if (s->a->resume)
		store_bisection_release(&s->sb);
	jobopts_atomic_release(&s->jobs);
	free(s->cache);
	provider_options_free(s->popts);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
}

/* The bisection the arguments ask for, from the store to its outcome: the exit code, errors said. */
static int bisect_session(struct bargs *a, int argc, char **argv, struct lkp_ctx *ctx)
{
	struct bsession s = { .a = a, .ctx = ctx, .lock_fd = -1 };
	struct strbuf err = STRBUF_INIT;
	int rc;

	/* a resumed bisection's arguments are in the store; a new one's are checked before anything is made */
	if (a->accel && qemu_accel_option(a->accel, &err))
		rc = SESSION_BAD;
	else if (a->resume)
		rc = session_store(&s, &err) ? SESSION_BAD : session_job(&s, argc, argv, &err);
	else
		rc = session_job(&s, argc, argv, &err) ? SESSION_BAD : session_store(&s, &err);
	if (!rc && !(rc = session_provider(&s, &err)) && !(rc = session_record(&s, &err)))
		rc = session_bisect(&s, &err);
	if (rc == SESSION_FAIL) {
		/* a bisection that could not be made ends as failed, with why: never "running" for ever */
		if (s.id > 0 && s.have_rs) {
			struct strbuf e2 = STRBUF_INIT;
			store_bisection_end(s.rs.store, s.id, a->metric, "failed", NULL, err.buf, &e2);
			strbuf_release(&e2);
		}
		if (a->json && s.d.range)
			bisect_driver_print_json_failed(&s.d, s.id, a->metric, err.buf);
		rc = say_error(EXIT_FAIL, "%s", err.buf);
	} else if (rc == SESSION_BAD) {
		rc = say_error(EXIT_USAGE, "%s", err.buf);
	}
	session_release(&s);
	strbuf_release(&err);
	return rc;
}

int cmd_bisect(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	struct compare_floors floors = { 0 };
	struct provider_cli cli = { 0 };
	bool first_parent = false, json = false;
	const char *tree = NULL, *good = NULL, *bad = NULL, *metric = NULL, *provider = "local", *kconfig = NULL;
	const char *result_dir = "/lkp/result", *db = NULL;
	char *cache = NULL;
	const char *accel = NULL;
	long long resume = 0;
	size_t max_points = 0;
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
		OPT_BOOL(0, "first-parent", "only the first parent of each commit (the mainline)", &first_parent),
		OPT_BOOL(0, "json", "the outcome as JSON on stdout", &json),
		OPT_CALL(0, "resume", "ID", "go on with bisection ID of the store (same arguments)", take_resume, &resume),
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default /lkp/result)", &result_dir),
		OPT_DUP(0, "cache", "DIR", "work trees and kernels (default $LKPROBOT_CACHE, /var/cache/lkprobot)", &cache),
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
	struct bargs a = { tree, good, bad, metric, provider, kconfig, result_dir, db, accel, cache, resume, max_points,
			   first_parent, json, &jo, &floors, &cli };
	ret = bisect_session(&a, argc, argv, ctx);
out:
	compare_floors_release(&floors);
	jobopts_release(&jo);
	free(cache);
	provider_cli_release(&cli);
	return ret;
}

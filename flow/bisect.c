/*
 * bisect (flow): a bisection session's phases — the store, the job, the
 * provider, the record, the search — and its result. See bisect.h;
 * bisect_driver.c holds what the search calls back, bisect_result.c the
 * result's JSON form.
 */
#include "bisect_int.h"
#include "jobopts.h"
#include "runstore.h"
#include "../lib/job/engine.h"
#include "../lib/job/job.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/results/bisect.h"
#include "../lib/results/compare.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/store/store.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/machine.h"
#include "../lib/util/yml.h"
#include "../providers/provider.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

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

/* The result directory and the store; with resume, the recorded arguments (read before session_job). */
static enum flow_status session_store(struct bsession *s, struct strbuf *err)
{
	struct bisect_request *a = &s->a;

	if (fsutil_mkdir_p(a->result_dir) || !realpath(a->result_dir, s->res_real)) {
		strbuf_setf(err, "%s: cannot create the result directory", a->result_dir);
		return FLOW_BAD;
	}
	if (runstore_open(&s->rs, true, a->db, s->res_real, err))
		return FLOW_BAD;
	s->have_rs = true;
	if (!a->resume)
		return FLOW_OK;
	struct store_bisection *sb = &s->sb;
	if (store_bisection_get(s->rs.store, a->resume, sb, err))
		return FLOW_BAD;
	/* the recorded arguments; the job file and overrides are in sb too */
	a->tree = sb->tree;
	a->good = sb->good;
	a->bad = sb->bad;
	a->metric = a->metric ? a->metric : sb->metric;
	a->provider = sb->provider;
	a->first_parent = sb->first_parent;
	if (sb->overrides && strspn(sb->overrides, " \n{}") < strlen(sb->overrides) &&
	    jobopts_set(a->jo, sb->overrides, err))
		return FLOW_BAD;
	s->id = a->resume;
	return FLOW_OK;
}

/* The provider by name, with its settings: the request's, then the command line's. */
static enum flow_status session_provider_opts(struct bsession *s, struct strbuf *err)
{
	s->d.ops = provider_find(s->a.provider);
	if (!s->d.ops) {
		struct strbuf names = STRBUF_INIT;
		provider_names(&names, ",");
		strbuf_setf(err, "--provider: '%s' is not a provider (%s)", s->a.provider, names.buf);
		strbuf_release(&names);
		return FLOW_BAD;
	}
	s->popts = s->a.opts ? provider_options_dup(s->a.opts) : provider_options_new(s->d.ops);
	if (s->a.cli && provider_cli_apply(s->a.cli, s->popts, err))
		return FLOW_BAD;
	s->pc = (struct provider_config){ .tree = s->a.tree,
					  .result_dir = s->a.result_dir,
					  .kconfig = s->a.kconfig,
					  .db = s->a.db,
					  .progress = isatty(2),
					  .opts = s->popts };
	return provider_check(s->d.ops, &s->pc, err) ? FLOW_BAD : FLOW_OK;
}

/* The one atomic job, on the provider's machine when none is given. */
static enum flow_status session_atomic_job(struct bsession *s, struct strbuf *err)
{
	struct jobopts *jo = s->a.jo;

	/* the provider's machine when none is given (a box's tbox_group, QEMU's qemu-pmem) */
	if (!jo->testbox) {
		if (provider_testbox(s->d.ops, &s->pc, &s->picked_testbox, err))
			return FLOW_BAD;
		jo->testbox = s->picked_testbox;
	}
	if (machine_get(&s->m, s->a.data_dir, jo->testbox, err))
		return FLOW_BAD;
	s->have_m = true;
	if (!jo->testbox)
		jo->testbox = s->m.hostname;
	jobopts_env(jo, s->a.data_dir, &s->env);
	if (jobopts_atomic_jobs(jo, &s->env, &s->jobs, err))
		return FLOW_BAD;
	if (s->jobs.n != 1) {
		strbuf_setf(err,
			    "the job splits into %zu atomic jobs; bisect follows one: choose with key=value overrides",
			    s->jobs.n);
		return FLOW_BAD;
	}
	return engine_check(s->jobs.v[0], err) ? FLOW_BAD : FLOW_OK;
}

/* The provider and its options, the machine, the one atomic job, the range, the cache. */
static enum flow_status session_job(struct bsession *s, struct strbuf *err)
{
	struct bisect_request *a = &s->a;
	struct jobopts *jo = a->jo;
	enum flow_status st;

	if (!a->resume && (!a->tree || (!a->good && !s->measure) || !a->bad)) {
		strbuf_setf(err,
			    "bisect needs --tree, --good and --bad (or --resume ID); see 'lkprobot bisect --help'");
		return FLOW_BAD;
	}
	if (a->resume && (jobopts_add(jo, s->sb.job, err) || jobopts_lkp_src(jo, err)))
		return FLOW_BAD;
	if (!jo->nfiles) {
		strbuf_setf(err, "bisect needs a job file; 'lkprobot bisect --help' shows how");
		return FLOW_BAD;
	}
	if (lkpetc_load(err))
		return FLOW_BAD;
	if ((st = session_provider_opts(s, err)) || (st = session_atomic_job(s, err)))
		return st;
	if (gitrepo_open(&s->repo, a->tree, err) || gitrepo_resolve(s->repo, a->bad, s->bad_id, err))
		return FLOW_BAD;
	if (s->measure) {
		/* a range of the one commit; its "good end" is itself */
		memcpy(s->d.good, s->bad_id, sizeof(s->d.good));
		s->range = (struct gitrepo_range){ .n = 1,
						   .id = xcalloc(1, sizeof(*s->range.id)),
						   .parents = xcalloc(1, sizeof(size_t *)),
						   .nparents = xcalloc(1, sizeof(size_t)) };
		memcpy(s->range.id[0], s->bad_id, sizeof(s->range.id[0]));
	} else if (gitrepo_resolve(s->repo, a->good, s->d.good, err) ||
		   gitrepo_range(s->repo, s->d.good, s->bad_id, a->first_parent, &s->range, err)) {
		return FLOW_BAD;
	}
	if (a->cache) {
		s->cache = xstrdup(a->cache);
	} else {
		struct strbuf cd = STRBUF_INIT;
		kbuild_cache_dir(&cd);
		s->cache = strbuf_detach(&cd);
	}
	if (!realpath(a->data_dir, s->data_real)) {
		strbuf_setf(err, "cannot tell where lkprobot's data is");
		return FLOW_BAD;
	}
	return FLOW_OK;
}

/* The driver's state for the range, once the provider is open. */
static void session_driver(struct bsession *s)
{
	struct driver *d = &s->d;
	size_t n = s->range.n;

	bisect_driver_init(d, &s->range);
	d->job = s->jobs.v[0];
	d->m = &s->m;
	d->result_dir = s->res_real;
	d->rs = &s->rs;
	d->progress = isatty(2);
	d->expect_steps = bisect_log2_ceil(n);
}

/*
 * The head's lock, the provider opened, the driver ready. One bisection of
 * a head at a time (a service restarted while its killed bisection's last
 * children still end, a second service): the lock is held for the
 * bisection's life, and under it the bisection of the same arguments in
 * the store goes on, never a second one.
 */
static enum flow_status session_provider(struct bsession *s, struct strbuf *err)
{
	struct driver *d = &s->d;

	if ((s->lock_fd = head_lock(s->cache, s->a.tree, s->bad_id, err)) < 0)
		return FLOW_FAIL;
	s->pc.result_dir = s->res_real;
	s->pc.cache = s->cache;
	s->pc.data_dir = s->data_real;
	s->pc.testbox = s->a.jo->testbox;
	struct strbuf label = STRBUF_INIT;
	strbuf_addf(&label, "bisect %.12s..%.12s of %s", d->good, s->bad_id, s->a.tree);
	s->pc.label = label.buf;
	d->prov = fsutil_mkdir_p(s->cache) ? NULL : provider_open(d->ops, &s->pc, err);
	strbuf_release(&label);
	if (!d->prov)
		return FLOW_FAIL;
	if (d->ops->kconfig(d->prov))
		node_set(s->jobs.v[0], "kconfig", node_new_scalar(d->ops->kconfig(d->prov)));
	/* the job's own floors and directions, after the request's (which win) */
	if (compare_floors_add_job(s->a.floors, s->jobs.v[0], err))
		return FLOW_BAD;
	session_driver(s);
	return FLOW_OK;
}

/* The bisection's row in the store: a new one, or the same bisection again (its runs reused). */
static enum flow_status session_record(struct bsession *s, struct strbuf *err)
{
	struct bisect_request *a = &s->a;

	if (s->id)
		return FLOW_OK;
	struct store_bisection nb = { .tree = (char *)a->tree,
				      .good = s->d.good,
				      .bad = s->bad_id,
				      .job = a->jo->files[0],
				      .provider = (char *)a->provider,
				      .first_parent = a->first_parent,
				      .metric = (char *)a->metric };
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
	return s->id < 0 ? FLOW_FAIL : FLOW_OK;
}

static enum bisection_status status_of(enum bisect_status st)
{
	return st == BISECT_FOUND	? BISECTION_FOUND
	       : st == BISECT_AMBIGUOUS ? BISECTION_AMBIGUOUS
	       : st == BISECT_NOT_SURE	? BISECTION_NOT_SURE
					: BISECTION_NOT_REPRODUCED;
}

static void add_id(char ***v, size_t *n, const char *id)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(id);
}

/* What the search found, into the result (commits by id, not by index). */
static void session_result(struct bsession *s, const char *metric, struct bisect_result *res)
{
	const struct driver *d = &s->d;
	const struct bisect_outcome *o = &s->outcome;

	res->status = status_of(o->status);
	res->known = true;
	res->why = xstrdup(o->why);
	res->metric = xstrdup(metric);
	/* a culprit: the one found, or of an ambiguous set the one that can be tested and changed */
	res->named = o->status == BISECT_FOUND || o->located;
	if (res->named) {
		snprintf(res->culprit, sizeof(res->culprit), "%s", commit_of(d, o->culprit));
		snprintf(res->parent, sizeof(res->parent), "%s", commit_of(d, o->parent));
	}
	res->p = o->p;
	res->change = res->named ? o->change : NAN;
	res->ends_change = o->ends_change;
	res->ends = o->ends;
	res->have_ends = true;
	res->confirm = o->confirm;
	res->confirmed = o->confirmed;
	res->builds = d->builds;
	res->runs = o->runs;
	res->commits = d->range->n;
	res->tested = o->commits;
	res->batches = o->batches;
	res->steps = xcalloc(o->nsteps + 1, sizeof(*res->steps));
	for (size_t i = 0; i < o->nsteps; i++) {
		const struct bisect_step *st = &o->steps[i];
		struct bisection_step *rs = &res->steps[res->nsteps++];
		*rs = (struct bisection_step){
			.verdict = st->verdict, .runs = st->runs, .llr = st->llr, .sure = st->sure
		};
		snprintf(rs->commit, sizeof(rs->commit), "%s", commit_of(d, st->commit));
	}
	for (size_t i = 0; i <= d->range->n; i++)
		if (d->untestable[i])
			add_id(&res->skipped, &res->nskipped, commit_of(d, i));
	for (size_t i = 0; i < o->ncandidates; i++)
		add_id(&res->candidates, &res->ncandidates, commit_of(d, o->candidates[i]));
	if (o->status == BISECT_FOUND) {
		struct gitrepo_commit gc = { 0 };
		struct strbuf e = STRBUF_INIT;
		if (!gitrepo_commit_info(s->repo, res->culprit, &gc, &e)) {
			res->subject = xstrdup(gc.subject);
			gitrepo_commit_release(&gc);
		}
		strbuf_release(&e);
	}
}

/* The ends measured and no metric of the test moved, nor may more rounds show one: not reproduced. */
static void session_nochange(struct bsession *s, struct bisect_result *res, struct strbuf *err)
{
	s->outcome.status = BISECT_NOT_REPRODUCED;
	/* bisect_driver_pick_metric's why: the test's key figure within its floor, with its interval */
	snprintf(s->outcome.why, sizeof(s->outcome.why), "%s", err->buf);
	strbuf_reset(err);
	store_bisection_end(s->rs.store, s->id, NULL, bisection_status_name(BISECTION_NOT_REPRODUCED), NULL,
			    s->outcome.why, err);
	session_result(s, "", res);
}

/* The metric (the test's own that changed, when none is asked for), the bisection, its outcome. */
static enum flow_status session_bisect(struct bsession *s, struct bisect_result *res, struct strbuf *err)
{
	struct driver *d = &s->d;
	struct bisect_request *a = &s->a;
	const char *metric = a->metric;

	if (!metric) {
		bool nochange = false;
		if (!(s->picked = bisect_driver_pick_metric(d, a->floors, 5, &nochange, err)) && !nochange)
			return FLOW_FAIL;
		if (nochange) {
			session_nochange(s, res, err);
			return FLOW_OK;
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
	bo.seed = d->rng; /* as pick_metric left it: its batch ids are not drawn again */
	if (bisect_run(s->range.n, s->range.parents, s->range.nparents, &o, &bo, &s->outcome, err)) {
		if (d->untestable[s->range.n] || d->untestable[s->range.n - 1])
			bisect_driver_end_untestable(d, d->untestable[s->range.n - 1] ? s->range.n - 1 : s->range.n,
						     err);
		return FLOW_FAIL;
	}
	store_bisection_end(s->rs.store, s->id, metric, bisection_status_name(status_of(s->outcome.status)),
			    s->outcome.status == BISECT_FOUND ? commit_of(d, s->outcome.culprit) : NULL, s->outcome.why,
			    err);
	session_result(s, metric, res);
	bisect_prove(s, res);
	if (res->named) {
		struct strbuf checks = STRBUF_INIT;
		bisect_checks_json(&checks, res);
		store_bisection_checks(s->rs.store, s->id, checks.buf, err);
		strbuf_release(&checks);
	}
	return FLOW_OK;
}

static void session_release(struct bsession *s)
{
	struct driver *d = &s->d;

	bisect_outcome_release(&s->outcome);
	bisect_driver_release(d);
	free(s->picked);
	free(s->picked_testbox);
	gitrepo_range_release(&s->range);
	gitrepo_close(s->repo);
	if (s->have_m)
		machine_release(&s->m);
	if (s->have_rs)
		runstore_close(&s->rs);
	if (s->a.resume)
		store_bisection_release(&s->sb);
	jobopts_atomic_release(&s->jobs);
	free(s->cache);
	provider_options_free(s->popts);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
}

/* A bisection that could not be made: failed, with why and which end cannot be tested. */
static void session_failed(struct bsession *s, const char *why, struct bisect_result *res)
{
	const struct driver *d = &s->d;

	res->status = BISECTION_FAILED;
	res->known = d->range != NULL;
	res->why = xstrdup(why);
	res->metric = s->a.metric ? xstrdup(s->a.metric) : NULL;
	res->builds = d->builds;
	res->runs = d->runs;
	res->p = res->change = res->ends_change = NAN;
	res->fault = d->fault || (s->have_rs && s->rs.store && store_failed_on_fault(s->rs.store));
	if (d->untestable && d->range && d->range->n && d->untestable[d->range->n - 1])
		res->untestable = BISECTION_END_BAD;
	else if (d->untestable && d->range && d->untestable[d->range->n])
		res->untestable = BISECTION_END_GOOD;
	/* a bisection that could not be made ends as failed, with why: never "running" for ever */
	if (s->id > 0 && s->have_rs) {
		struct strbuf e2 = STRBUF_INIT;
		store_bisection_end(s->rs.store, s->id, s->a.metric, "failed", NULL, why, &e2);
		strbuf_release(&e2);
	}
}

/* The session let go, a failed one recorded so: rc. */
static enum flow_status session_end(struct bsession *s, enum flow_status rc, struct bisect_result *res,
				    struct strbuf *err)
{
	if (rc == FLOW_FAIL)
		session_failed(s, err->buf, res);
	else if (rc == FLOW_BAD)
		res->status = BISECTION_FAILED;
	session_release(s);
	return rc;
}

enum flow_status flow_bisect(const struct bisect_request *req, struct bisect_result *res, struct strbuf *err)
{
	struct bsession s = { .a = *req, .lock_fd = -1 };
	enum flow_status rc;

	*res = (struct bisect_result){ .p = NAN, .change = NAN, .ends_change = NAN };
	/* a resumed bisection's arguments are in the store; a new one's are checked before anything is made */
	if (req->resume)
		rc = session_store(&s, err) ? FLOW_BAD : session_job(&s, err);
	else
		rc = session_job(&s, err) ? FLOW_BAD : session_store(&s, err);
	if (!rc && !(rc = session_provider(&s, err)) && !(rc = session_record(&s, err)))
		rc = session_bisect(&s, res, err);
	res->id = s.id;
	return session_end(&s, rc, res, err);
}

/* The commit's runs, one batch of plain runs (no rounds: there is nothing to pair them with). */
static enum flow_status session_measure(struct bsession *s, size_t runs, struct bisect_result *res, struct strbuf *err)
{
	struct driver *d = &s->d;
	struct bisect_run *rv = xcalloc(runs + 1, sizeof(*rv));
	struct bisect_oracle o;
	struct bisect_batch batch = { .runs = rv, .n = runs };

	for (size_t r = 0; r < runs; r++)
		rv[r] = (struct bisect_run){ .commit = 0, .round = r, .position = r };
	batch.id = d->rng;
	bisect_driver_oracle(d, &o);
	int rc = o.run(o.ctx, &batch, err);
	free(rv);
	if (rc)
		return FLOW_FAIL;
	if (d->untestable[0]) {
		strbuf_setf(err, "%.12s cannot be tested: %s", s->bad_id,
			    d->why_untestable[0] ? d->why_untestable[0] : "it does not build or run");
		return FLOW_FAIL;
	}
	res->status = BISECTION_BASELINE;
	res->known = true;
	res->why = xasprintf(
		"%.12s measured on its own, %zu runs: no earlier commit to compare it with, it is the base of the next",
		s->bad_id, d->runs);
	res->builds = d->builds;
	res->runs = d->runs;
	res->commits = res->tested = 1;
	res->batches = 1;
	return FLOW_OK;
}

enum flow_status flow_measure(const struct bisect_request *req, size_t runs, struct bisect_result *res,
			      struct strbuf *err)
{
	struct bsession s = { .a = *req, .lock_fd = -1, .measure = true };
	enum flow_status rc;

	s.a.resume = 0;
	s.a.good = NULL;
	*res = (struct bisect_result){ .p = NAN, .change = NAN, .ends_change = NAN };
	rc = session_job(&s, err) ? FLOW_BAD : session_store(&s, err);
	if (!rc && !(rc = session_provider(&s, err)))
		rc = session_measure(&s, runs, res, err);
	return session_end(&s, rc, res, err);
}

enum flow_status flow_pair(const struct bisect_request *req, bool fresh, struct bisect_result *res, struct strbuf *err)
{
	struct bsession s = { .a = *req, .lock_fd = -1, .fresh = fresh };
	enum flow_status rc;

	s.a.resume = 0;
	*res = (struct bisect_result){ .p = NAN, .change = NAN, .ends_change = NAN };
	if (!req->metric || !req->good) {
		strbuf_setf(err, "two commits are compared on a metric: %s", req->metric ? "no base" : "no metric");
		res->status = BISECTION_FAILED;
		return FLOW_BAD;
	}
	rc = session_job(&s, err) ? FLOW_BAD : session_store(&s, err);
	if (!rc && !(rc = session_provider(&s, err)))
		rc = bisect_pair(&s, res, err);
	return session_end(&s, rc, res, err);
}

/*
 * prove: what a named culprit must show before any mail. The revert: the
 * culprit reverted on top of the bad end (a commit of the robot's own),
 * run against the bad end — does the change go away? The layout, for a
 * provider that builds kernels: culprit and parent rebuilt with
 * -falign-functions=N and run against each other — does the change
 * survive another code layout, or was it the layout? Each is measured in
 * interleaved rounds of its own by the bisection's decision, and recorded
 * in the result (bisect.h's struct bisection_check) with what it cost.
 */
#include "bisect_int.h"
#include "../lib/kernel/git.h"
#include "../lib/results/compare.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define PROVE_ROUNDS 5 /* rounds of a check before its first decision, as a confirmation's */

static void check_say(struct bisection_check *c, enum check_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void check_say(struct bisection_check *c, enum check_status st, const char *fmt, ...)
{
	struct strbuf b = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	c->status = st;
	free(c->why);
	c->why = strbuf_detach(&b);
}

/* The mean of commit i's samples of the metric as o has them (NAN: none). */
static double mean_of(const struct bisect_oracle *o, size_t i)
{
	const double *v;
	const uint64_t *r;
	size_t n = 0;
	struct strbuf e = STRBUF_INIT;
	double sum = 0;

	int rc = o->samples(o->ctx, i, &v, &r, &n, &e);
	strbuf_release(&e);
	if (rc || !n)
		return NAN;
	for (size_t k = 0; k < n; k++)
		sum += v[k];
	return sum / (double)n;
}

/*
 * Rounds of their own (a recheck): an oracle that passes a comparison's
 * batches on and shows it only the samples of the rounds they made, so
 * that the commits' earlier rounds (the bisection's) are not counted again.
 */
struct fresh {
	struct bisect_oracle in;
	uint64_t *ids; /* the rounds made through it */
	size_t n;
	double *v;
	uint64_t *r;
};

static int fresh_run(void *ctx, const struct bisect_batch *b, struct strbuf *err)
{
	struct fresh *f = ctx;

	f->ids = xrealloc(f->ids, (f->n + b->n + 1) * sizeof(*f->ids));
	for (size_t k = 0; k < b->n; k++)
		f->ids[f->n++] = b->runs[k].round_id;
	return f->in.run(f->in.ctx, b, err);
}

static int fresh_samples(void *ctx, size_t i, const double **v, const uint64_t **r, size_t *n, struct strbuf *err)
{
	struct fresh *f = ctx;
	const double *iv;
	const uint64_t *ir;
	size_t in = 0;
	int rc = f->in.samples(f->in.ctx, i, &iv, &ir, &in, err);

	if (rc)
		return rc;
	free(f->v);
	free(f->r);
	f->v = xcalloc(in + 1, sizeof(*f->v));
	f->r = xcalloc(in + 1, sizeof(*f->r));
	*n = 0;
	for (size_t k = 0; k < in && ir; k++) {
		bool ours = false;
		for (size_t q = 0; ir[k] && q < f->n && !ours; q++)
			ours = f->ids[q] == ir[k];
		if (ours) {
			f->v[*n] = iv[k];
			f->r[(*n)++] = ir[k];
		}
	}
	*v = f->v;
	*r = f->r;
	return 0;
}

/*
 * Commit j of d against commit i in rounds of their own, decided as the
 * culprit was against its parent, into c (the decision, the means, the
 * cost). 0; 1 when one of them cannot be tested; -1 with err set.
 */
static int compare_on(struct bsession *s, struct driver *d, size_t i, size_t j, struct bisection_check *c,
		      struct strbuf *err)
{
	struct bisect_oracle o;
	struct bisect_opts bo = { 0 };
	struct fresh f = { 0 };
	size_t builds = d->builds, runs = d->runs, batches = 0;
	uint64_t seed = 0;

	/* rounds of their own: batch ids the bisection's rounds cannot have */
	if (getrandom(&seed, sizeof(seed), 0) != sizeof(seed) || !seed)
		seed = d->rng ^ ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
	bisect_driver_oracle(d, &o);
	if (s->fresh) {
		f.in = o;
		o = (struct bisect_oracle){ .run = fresh_run, .samples = fresh_samples, .ctx = &f };
	}
	bo.metric = compare_metric_spec(s->a.floors, d->metric);
	bo.seed = seed;
	bool futile = false;
	int rc = bisect_compare_pair(d->range->n + 2, &o, &bo, i, j, PROVE_ROUNDS, &c->d, &futile, &batches, err);
	c->out_of_reach = futile;
	c->builds = d->builds - builds;
	c->runs = d->runs - runs;
	if (!rc) {
		c->decided = true;
		c->base_mean = mean_of(&o, i);
		c->commit_mean = mean_of(&o, j);
	}
	free(f.ids);
	free(f.v);
	free(f.r);
	return rc;
}

/* Does the check's change go the culprit's way (+1), the other way (-1), by a quarter of it at least; 0: neither. */
static int way_of(const struct bisection_check *c, const struct bisect_result *res)
{
	if (c->d.verdict != DECIDE_CHANGED || !isfinite(c->d.change) || !isfinite(res->change) ||
	    fabs(c->d.change) < fabs(res->change) / 4)
		return 0;
	return c->d.change * res->change > 0 ? 1 : -1;
}

/* The revert check: the culprit reverted on top of the bad end, against the bad end. */
static void prove_revert(struct bsession *s, struct bisect_result *res)
{
	struct bisection_check *c = &res->revert;
	struct driver *d = &s->d;
	struct strbuf err = STRBUF_INIT;
	size_t n = s->range.n;
	const char *m = d->metric;
	int rc = gitrepo_revert(s->repo, res->culprit, s->bad_id, d->extra, &err);

	if (rc) {
		check_say(c, CHECK_CANNOT, "%s%s", rc > 0 ? "" : "the revert could not be made: ", err.buf);
		goto out;
	}
	memcpy(c->commit, d->extra, sizeof(c->commit));
	if ((rc = compare_on(s, d, n - 1, n + 1, c, &err))) {
		if (rc > 0)
			check_say(c, CHECK_CANNOT, "the revert %.12s of %.12s cannot be tested: %s", d->extra,
				  res->culprit,
				  d->why_untestable[n + 1] ? d->why_untestable[n + 1] : "it does not build or run");
		else
			check_say(c, CHECK_CANNOT, "the revert of %.12s could not be measured: %s", res->culprit,
				  err.buf);
		goto out;
	}
	int way = way_of(c, res);
	if (way < 0)
		check_say(c, CHECK_CONFIRMS, "Reverting %.12s on top of %.12s restores %s (%s)", res->culprit,
			  s->bad_id, m, c->d.summary);
	else if (c->d.verdict == DECIDE_UNSURE && !c->d.settled && !c->out_of_reach)
		check_say(c, CHECK_UNSURE, "not sure that reverting %.12s on top of %.12s restores %s (%s)",
			  res->culprit, s->bad_id, m, c->d.summary);
	else
		check_say(c, CHECK_REFUTES,
			  "Reverting %.12s on top of %.12s does not restore %s (%s): the culprit is in doubt",
			  res->culprit, s->bad_id, m, c->d.summary);
out:
	strbuf_release(&err);
}

/* The job's choice of alignment: its layout_check key (off, or N), else the request's. 0: none. */
static int job_align(const struct bsession *s, bool *opted_out)
{
	const char *v = node_str(node_get(s->d.job, "layout_check"));
	char *end;

	*opted_out = false;
	if (!v)
		return s->a.layout_align;
	long n = strtol(v, &end, 10);
	if (*v && !*end && n >= 2 && n <= 4096 && !(n & (n - 1)))
		return (int)n;
	*opted_out = true;
	return 0;
}

/* The layout check's driver: culprit (0) and parent (its good end, 1) on kernels built with kcflags. */
static int layout_driver(struct bsession *s, const struct bisect_result *res, struct gitrepo_range *r,
			 struct driver *d2, const char *kcflags, struct strbuf *err)
{
	struct provider_config pc = s->pc;
	struct strbuf label = STRBUF_INIT;

	r->n = 1;
	r->id = xcalloc(1, sizeof(*r->id));
	r->parents = xcalloc(1, sizeof(size_t *));
	r->nparents = xcalloc(1, sizeof(size_t));
	memcpy(r->id[0], res->culprit, sizeof(r->id[0]));
	bisect_driver_init(d2, r);
	memcpy(d2->good, res->parent, sizeof(d2->good));
	strbuf_addf(&label, "layout check of %.12s (%s)", res->culprit, kcflags);
	pc.kcflags = kcflags;
	pc.label = label.buf;
	d2->ops = s->d.ops;
	d2->prov = provider_open(s->d.ops, &pc, err);
	strbuf_release(&label);
	if (!d2->prov)
		return -1;
	d2->job = node_dup(s->d.job);
	if (d2->ops->kconfig(d2->prov))
		node_set(d2->job, "kconfig", node_new_scalar(d2->ops->kconfig(d2->prov)));
	d2->m = s->d.m;
	d2->result_dir = s->d.result_dir;
	d2->rs = s->d.rs;
	d2->metric = s->d.metric;
	d2->progress = s->d.progress;
	return 0;
}

/* A check's figures in 0-day's compact table (the layout's, or the pair's run again), into c->table. */
static void layout_table(const struct driver *d2, const struct bisect_result *res, struct bisection_check *c)
{
	struct strbuf t = STRBUF_INIT, path = STRBUF_INIT, e = STRBUF_INIT;
	int dir = compare_direction(d2->metric);

	if (job_result_path(d2->job, d2->m, NULL, false, &path, &e))
		strbuf_addstr(&path, "?");
	/* testcase/path_params/tbox_group, the first three parts of the result path */
	size_t cut = 0;
	for (int parts = 0; cut < path.len; cut++)
		if (path.buf[cut] == '/' && ++parts == 3)
			break;
	strbuf_setlen(&path, cut);
	struct layout_figures f = { .kcflags = c->kcflags,
				    .worse = dir ? c->d.change * dir < 0 : res->change < 0,
				    .gone = c->status == CHECK_REFUTES,
				    .parent = res->parent,
				    .culprit = res->culprit,
				    .base = c->base_mean,
				    .change = c->d.change,
				    .commit = c->commit_mean,
				    .job = path.buf,
				    .metric = d2->metric };
	bisect_layout_table(&t, &f);
	c->table = strbuf_detach(&t);
	strbuf_release(&path);
	strbuf_release(&e);
}

/* The layout check: culprit against parent, both rebuilt with -falign-functions=N. */
static void prove_layout(struct bsession *s, struct bisect_result *res)
{
	struct bisection_check *c = &res->layout;
	struct gitrepo_range r = { 0 };
	struct driver d2 = { 0 };
	struct strbuf err = STRBUF_INIT;
	bool opted_out;
	int n = job_align(s, &opted_out), rc;

	if (!(s->d.ops->caps & PROVIDER_KCFLAGS)) {
		check_say(c, CHECK_NOT_MADE, "the %s provider builds no kernel: no code layout to change",
			  s->d.ops->name);
		return;
	}
	if (!n) {
		check_say(c, CHECK_NOT_MADE, "%s", opted_out ? "the job opts out (layout_check)" : "not asked for");
		return;
	}
	c->kcflags = xasprintf("-falign-functions=%d", n);
	if (layout_driver(s, res, &r, &d2, c->kcflags, &err)) {
		check_say(c, CHECK_CANNOT, "the aligned builds could not be made: %s", err.buf);
	} else if ((rc = compare_on(s, &d2, 1, 0, c, &err))) {
		check_say(c, CHECK_CANNOT, "with %s, %s", c->kcflags,
			  rc > 0 ? "the culprit or its parent cannot be tested (an aligned build failed?)" : err.buf);
	} else {
		int way = way_of(c, res);
		if (way > 0)
			check_say(c, CHECK_CONFIRMS, "the change survives kernels built with %s (%s)", c->kcflags,
				  c->d.summary);
		else if (c->d.verdict == DECIDE_UNSURE && !c->d.settled && !c->out_of_reach)
			check_say(c, CHECK_UNSURE, "not sure the change survives kernels built with %s (%s)",
				  c->kcflags, c->d.summary);
		else
			check_say(c, CHECK_REFUTES,
				  "the change vanishes in kernels built with %s (%s): a probable code layout effect",
				  c->kcflags, c->d.summary);
		if (c->status != CHECK_UNSURE)
			layout_table(&d2, res, c);
	}
	node_free(d2.job);
	bisect_driver_release(&d2);
	gitrepo_range_release(&r);
	strbuf_release(&err);
}

void bisect_prove(struct bsession *s, struct bisect_result *res)
{
	if (!res->named)
		return;
	prove_revert(s, res);
	prove_layout(s, res);
	/* what the checks cost is the bisection's too */
	res->builds = s->d.builds + res->layout.builds;
	res->runs += res->revert.runs + res->layout.runs;
}

enum flow_status bisect_pair(struct bsession *s, struct bisect_result *res, struct strbuf *err)
{
	struct driver *d = &s->d;
	struct bisection_check *c = &res->again;
	size_t n = s->range.n;

	d->metric = s->a.metric;
	int rc = compare_on(s, d, n, n - 1, c, err);
	if (rc > 0) {
		size_t i = d->untestable[n - 1] ? n - 1 : n;
		strbuf_setf(err, "%.12s cannot be tested: %s", commit_of(d, i),
			    d->why_untestable[i] ? d->why_untestable[i] : "it does not build or run");
	}
	if (rc)
		return FLOW_FAIL;
	snprintf(res->culprit, sizeof(res->culprit), "%s", s->bad_id);
	snprintf(res->parent, sizeof(res->parent), "%s", d->good);
	res->known = res->named = res->confirmed = true;
	res->confirm = c->d;
	res->change = c->d.change;
	res->metric = xstrdup(d->metric);
	res->why = xstrdup(c->d.why);
	res->status = c->d.verdict == DECIDE_CHANGED ? BISECTION_FOUND
		      : c->d.verdict == DECIDE_SAME  ? BISECTION_NOT_REPRODUCED
						     : BISECTION_NOT_SURE;
	c->status = c->d.verdict == DECIDE_CHANGED ? CHECK_CONFIRMS
		    : c->d.verdict == DECIDE_SAME  ? CHECK_REFUTES
						   : CHECK_UNSURE;
	c->why = xasprintf("%.12s against %.12s: %s", s->bad_id, d->good, c->d.why);
	if (c->status != CHECK_UNSURE)
		layout_table(d, res, c);
	/* asked for (a recheck: not a test, not a follow-up, whatever the job's layout_check), and a change to check */
	if (s->a.layout_align && c->status == CHECK_CONFIRMS)
		prove_layout(s, res);
	else if (s->a.layout_align)
		check_say(&res->layout, CHECK_NOT_MADE, "no change to check in other kernel builds");
	res->builds = d->builds + res->layout.builds;
	res->runs = c->runs + res->layout.runs;
	return FLOW_OK;
}

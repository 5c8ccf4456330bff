/*
 * bisect_driver: the side of `lkprobot bisect` that lib/results/bisect's
 * search calls back — a batch of runs made through the provider (a failed
 * run made once more, then its commit marked untestable), the samples of a
 * commit read from its result root, the free slots, the progress line; the
 * metric picked from the ends' runs when none is asked for. flow/bisect.c
 * holds the session.
 */
#include "bisect_driver.h"
#include "flow.h"
#include "../lib/util/say.h"
#include "runstore.h"
#include "../lib/results/compare.h"
#include "../lib/run/program.h"
#include "../lib/results/result.h"
#include "../lib/results/sampling.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/job/job.h"
#include "../lib/util/json.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/sys/machine.h"

#include <math.h>
#include <sys/random.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The commit directory of commit i's runs. */
static char *commit_dir(struct driver *d, size_t i, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;

	node_set(d->job, "commit", node_new_scalar(commit_of(d, i)));
	strbuf_addf(&p, "%s/", d->result_dir);
	if (job_result_path(d->job, d->m, NULL, false, &p, err)) {
		strbuf_release(&p);
		return NULL;
	}
	return strbuf_detach(&p);
}

/*
 * Commit i's runs complete on disk but not in the store (a process killed
 * between the two) recorded, the first time the bisection reads them: what
 * the service's start once found by walking every result root.
 */
static void record_missing(struct driver *d, size_t i, const char *rt)
{
	if (d->rs && d->looked && !d->looked[i]) {
		d->looked[i] = true;
		runstore_record_missing_in(d->rs, rt);
	}
}

/* A commit directory's matrix (NULL when it has no runs yet). */
static struct node *load_matrix(const char *rt)
{
	char *mp = xasprintf("%s/matrix.json", rt);
	struct node *m = NULL;
	struct strbuf e = STRBUF_INIT;

	if (access(mp, R_OK) || result_load_json(mp, &m, &e))
		m = NULL;
	free(mp);
	strbuf_release(&e);
	return m;
}

/*
 * The samples of the metric in a commit directory's matrix, each with the
 * round its run was made in (0 runs when none yet).
 */
static size_t load_samples(struct driver *d, const char *rt, size_t *runs)
{
	struct node *m = load_matrix(rt);
	size_t n = 0, nr = 0;

	*runs = 0;
	if (m) {
		const struct node *src = node_get(m, "stats_source");
		*runs = src && src->type == NODE_SEQ ? src->n : 0;
		const struct node *col = d->metric ? node_get(m, d->metric) : NULL;
		uint64_t *rounds = sampling_matrix_rounds(m, &nr);
		size_t cols = col && col->type == NODE_SEQ ? col->n : 0;
		free(d->buf);
		free(d->rbuf);
		d->buf = xcalloc(cols + 1, sizeof(double));
		d->rbuf = xcalloc(cols + 1, sizeof(uint64_t));
		for (size_t k = 0; k < cols; k++)
			if (json_number(col->vals[k], &d->buf[n])) {
				d->rbuf[n] = k < nr ? rounds[k] : 0;
				n++;
			}
		free(rounds);
	}
	node_free(m);
	return n;
}

static void mark_untestable(struct driver *d, size_t i, const char *rt, const char *why)
{
	char *mp = xasprintf("%s/untestable", rt);
	struct strbuf e = STRBUF_INIT;

	d->untestable[i] = true;
	free(d->why_untestable[i]);
	d->why_untestable[i] = xstrdup(why);
	fsutil_mkdir_p(rt);
	fsutil_write_atomic(mp, why, strlen(why), &e);
	if (d->progress)
		fprintf(stderr, "\r\033[Kbisect: %.12s cannot be tested: %s\n", commit_of(d, i), why);
	free(mp);
	strbuf_release(&e);
}

/* Is commit i known not to be testable (here, or by an earlier bisection's marker)? */
static bool is_untestable(struct driver *d, size_t i, const char *rt)
{
	char *marker = xasprintf("%s/untestable", rt);
	struct strbuf why = STRBUF_INIT;

	if (!d->untestable[i] && !strbuf_read_file(&why, marker)) {
		strbuf_rtrim(&why);
		d->untestable[i] = true;
		d->why_untestable[i] = strbuf_detach(&why);
	}
	strbuf_release(&why);
	free(marker);
	return d->untestable[i];
}

/*
 * Why a run that failed failed, in one line: a build that failed (git
 * bisect's 125) by its first error line, from the run's output.
 */
static char *run_failure(const struct provider_run *pr)
{
	if (pr->untestable && pr->run_dir) {
		struct strbuf log = STRBUF_INIT, line = STRBUF_INIT;
		char *op = xasprintf("%s/output", pr->run_dir);
		if (!strbuf_read_file(&log, op))
			kbuild_first_error(log.buf, log.len, &line);
		free(op);
		strbuf_release(&log);
		if (line.len) {
			char *why = xasprintf("the build failed: %s", line.buf);
			strbuf_release(&line);
			return why;
		}
		strbuf_release(&line);
	}
	return xstrdup(pr->reason ? pr->reason : pr->job_state ? pr->job_state : "the run failed");
}

/* The batch's runs as provider items (the job with its commit and interleave tag); 0, or -1 with err set. */
static int batch_items(struct driver *d, const struct bisect_batch *b, struct provider_batch_item *items, size_t *idx,
		       size_t *k, struct strbuf *err)
{
	for (size_t j = 0; j < b->n; j++) {
		size_t i = b->runs[j].commit;
		char *rt = commit_dir(d, i, err);
		if (!rt) {
			for (size_t j2 = 0; j2 < *k; j2++)
				node_free(items[j2].job);
			return -1;
		}
		bool skip = is_untestable(d, i, rt);
		free(rt);
		if (skip)
			continue;
		struct strbuf tag = STRBUF_INIT;
		sampling_tag(&tag, b->id, b->runs[j].round, b->runs[j].position);
		items[*k].commit = commit_of(d, i);
		items[*k].job = node_dup(d->job);
		node_set(items[*k].job, "commit", node_new_scalar(commit_of(d, i)));
		node_set(items[*k].job, SAMPLING_KEY, node_new_scalar(tag.buf));
		strbuf_release(&tag);
		idx[(*k)++] = i;
	}
	return 0;
}

enum run_end {
	RUN_UNPREPARED,
	RUN_DONE,
	RUN_AGAIN
};

/*
 * What became of one run of commit i: a commit that cannot be prepared
 * marked untestable; a run counted and recorded; a run that failed made
 * once more (RUN_AGAIN) — a second failure makes the commit untestable.
 */
static enum run_end run_done(struct driver *d, struct provider_batch_item *it, size_t i, int attempt)
{
	struct strbuf why = STRBUF_INIT;
	char *rt = NULL;
	enum run_end end = RUN_DONE;

	if (it->prepared == 1 && !d->untestable[i] && (rt = commit_dir(d, i, &why)))
		mark_untestable(d, i, rt, it->res.reason ? it->res.reason : "it cannot be prepared");
	if (it->prepared) {
		end = RUN_UNPREPARED;
		goto out;
	}
	d->runs++;
	if (it->built && !d->built[i]) {
		d->builds++;
		d->built[i] = true;
	}
	if (it->res.run_dir && d->rs && runstore_record_dir(d->rs, it->res.run_dir, &why))
		say_warn("%s", why.buf);
	if (proc_stop_signal) {
		/* the run was stopped, not failed: nothing to say about the commit */
	} else if (it->res.untestable || strcmp(it->res.job_state, "finished")) {
		/* A run that fails measures nothing. Once may be the machine's hiccup: run again; twice, the commit cannot be tested. */
		char *reason = run_failure(&it->res);
		/* the machine's fault, not the commit's: the bisection may be made again once it passes */
		if (fsutil_full(d->result_dir))
			d->fault = true;
		fprintf(stderr, "%slkprobot: a run of %.12s failed (%s)%s\n", d->progress ? "\r\033[K" : "",
			commit_of(d, i), reason, d->failures[i] || attempt ? "" : "; once more");
		if (!d->failures[i]++ && !attempt)
			end = RUN_AGAIN;
		else if (!d->untestable[i] && (rt = commit_dir(d, i, &why)))
			mark_untestable(d, i, rt, reason);
		free(reason);
	}
out:
	free(rt);
	strbuf_release(&why);
	return end;
}

/*
 * The bisection's batch: each run one provider item, made in the batch's
 * order. A run that fails is made once more (in a second batch, with the
 * same tag); a second failure, or a commit that cannot be prepared, makes
 * the commit untestable.
 */
static int run_batch(void *ctx, const struct bisect_batch *b, struct strbuf *err)
{
	struct driver *d = ctx;
	struct provider_batch_item *items = xcalloc(b->n + 1, sizeof(*items));
	size_t *idx = xcalloc(b->n + 1, sizeof(size_t)), k = 0;
	int ret = -1;

	if (batch_items(d, b, items, idx, &k, err))
		goto out;
	for (int attempt = 0; k; attempt++) {
		int rc = provider_run_batch(d->ops, d->prov, items, k, &d->prepared, err);
		size_t again = 0;
		for (size_t j = 0; j < k; j++) {
			struct provider_batch_item *it = &items[j];
			size_t i = idx[j];
			enum run_end end = run_done(d, it, i, attempt);
			if (end == RUN_AGAIN) {
				struct provider_batch_item next = { .commit = it->commit, .job = it->job };
				provider_run_release(&it->res);
				items[again] = next;
				idx[again++] = i;
				continue;
			}
			node_free(it->job);
			if (end == RUN_DONE)
				provider_run_release(&it->res);
		}
		if (proc_stop_signal) {
			/* whatever the batch said of it (a build stopped, a run cut short), the stop is the news */
			strbuf_setf(err, "interrupted by signal %d; 'lkprobot bisect' with the same arguments goes on",
				    (int)proc_stop_signal);
			rc = -1;
		}
		if (rc) {
			for (size_t j = 0; j < again; j++)
				node_free(items[j].job);
			goto out;
		}
		k = again;
	}
	ret = 0;
out:
	provider_batch_release(items, b->n);
	free(items);
	free(idx);
	return ret;
}

static int samples(void *ctx, size_t i, const double **v, const uint64_t **r, size_t *n, struct strbuf *err)
{
	struct driver *d = ctx;
	char *rt = commit_dir(d, i, err);
	size_t runs;
	int ret = -1;

	if (!rt)
		return -1;
	if (is_untestable(d, i, rt)) {
		ret = 1;
		goto out;
	}
	record_missing(d, i, rt);
	*n = load_samples(d, rt, &runs);
	if (d->metric && *n < runs) {
		strbuf_setf(err,
			    "the job's runs of %.12s have no '%s' metric ('lkprobot compare' lists what they have)",
			    commit_of(d, i), d->metric);
		goto out;
	}
	*v = d->buf;
	*r = d->rbuf;
	ret = 0;
out:
	free(rt);
	return ret;
}

/* How many runs the provider can make at once now (a farm's free boxes, its share). */
static size_t slots(void *ctx)
{
	struct driver *d = ctx;
	return provider_slots(d->ops, d->prov);
}

static void progress(void *ctx, size_t step, size_t left, size_t i, int verdict, size_t runs)
{
	struct driver *d = ctx;

	if (!d->progress)
		return;
	fprintf(stderr,
		"\r\033[Kbisect: step %zu of ~%zu: %.12s is %s (%zu rounds with the ends); %zu commit%s left, %zu runs "
		"so far\n",
		step, d->expect_steps, commit_of(d, i),
		verdict > 0   ? "bad"
		: verdict < 0 ? "good"
			      : "skipped",
		runs, left, left == 1 ? "" : "s", d->runs);
}

/* Why an end cannot be tested, for the error line and the service (which end, the first error line). */
void bisect_driver_end_untestable(struct driver *d, size_t i, struct strbuf *err)
{
	strbuf_setf(err, "the %s end %.12s cannot be tested: %s", i == d->range->n ? "good" : "bad", commit_of(d, i),
		    d->why_untestable[i] ? d->why_untestable[i] : "it does not build or run");
}

/*
 * The row closest to a change while more rounds may tell (unsure: however
 * wide its interval, it rules nothing out): of the metrics with a
 * direction (with_direction: the test's own first), else of the test's own
 * without one. NULL: none.
 */
static const struct compare_row *closest_unsure(const struct compare_result *cmp, bool with_direction)
{
	const struct compare_row *h = NULL;
	double best = 0;

	for (size_t k = 0; k < 2 * cmp->nrows && !(h && k == cmp->nrows); k++) {
		const struct compare_row *r = &cmp->rows[k % cmp->nrows];
		bool test = compare_is_test_metric(r->metric);
		if (r->kind != COMPARE_PERF || r->decision.verdict != DECIDE_UNSURE || !(r->decision.se > 0) ||
		    (with_direction ? !r->direction || (k < cmp->nrows && !test) : r->direction || !test))
			continue;
		double z = fabs(r->decision.est) / r->decision.se;
		if (!r->decision.settled && (!h || z > best)) {
			best = z;
			h = r;
		}
	}
	return h;
}

/*
 * The metric a bisection follows among the ends' rows, by the one rule a
 * report's headline follows (compare_headline): a metric with a direction
 * first — the one the decision says changed, else the one closest to a
 * change while more rounds may show it — and only then the test's own
 * figure with no direction that changed (a culprit of it is named, never
 * mailed as a regression or improvement), else the closest such. NULL: none.
 */
static const struct compare_row *metric_to_follow(struct compare_result *cmp)
{
	/*
	 * Never the test's rusage (*.time.*, time.*): context switches and
	 * page faults move with the machine, and an elapsed time of a few
	 * hundredths of a second is a handful of values, whose sides can be
	 * alike by chance. Out of the running, then the headline.
	 */
	for (size_t i = 0; i < cmp->nrows; i++)
		if (strstr(cmp->rows[i].metric, ".time.") || !strncmp(cmp->rows[i].metric, "time.", 5))
			cmp->rows[i].decision.verdict = DECIDE_SAME;
	const struct compare_row *h = compare_headline(cmp, true);
	if (!h)
		h = closest_unsure(cmp, true);
	for (size_t i = 0; !h && i < cmp->nrows; i++) {
		const struct compare_row *r = &cmp->rows[i];
		if (r->kind == COMPARE_PERF && r->decision.verdict == DECIDE_CHANGED &&
		    compare_is_test_metric(r->metric))
			h = r;
	}
	return h ? h : closest_unsure(cmp, false);
}

/* The ends' matrices and rounds. 0, or -1 with err set (an end cannot be tested). */
static int load_ends(struct driver *d, const size_t ends[2], struct node *mats[2], uint64_t *rounds[2], size_t nr[2],
		     struct strbuf *err)
{
	for (int k = 0; k < 2; k++) {
		char *rt = commit_dir(d, ends[k], err);
		if (!rt)
			return -1;
		bool bad = is_untestable(d, ends[k], rt);
		node_free(mats[k]);
		free(rounds[k]);
		if (!bad)
			record_missing(d, ends[k], rt);
		mats[k] = bad ? NULL : load_matrix(rt);
		rounds[k] = mats[k] ? sampling_matrix_rounds(mats[k], &nr[k]) : NULL;
		free(rt);
		if (bad) {
			bisect_driver_end_untestable(d, ends[k], err);
			return -1;
		}
	}
	return 0;
}

/* Rounds of the ends, want of them, in one batch. 0, or -1 with err set. */
static int run_ends(struct driver *d, const size_t ends[2], size_t want, struct strbuf *err)
{
	size_t *first = xcalloc(want, sizeof(size_t)), *second = xcalloc(want, sizeof(size_t));
	struct bisect_batch batch;

	for (size_t r = 0; r < want; r++) {
		first[r] = ends[0];
		second[r] = ends[1];
	}
	struct bisect_run *runs = bisect_plan_rounds(&d->rng, first, second, want, &batch);
	int rc = run_batch(d, &batch, err);
	free(runs);
	free(first);
	free(second);
	return rc;
}

/* How many rounds the ends' samples share. */
static size_t shared_rounds(uint64_t *const rounds[2], const size_t nr[2])
{
	size_t shared = 0;

	for (size_t a = 0; a < nr[0]; a++)
		for (size_t b = 0; rounds[0][a] && b < nr[1]; b++)
			if (rounds[1][b] == rounds[0][a]) {
				shared++;
				break;
			}
	return shared;
}

/*
 * Why no metric is worth following: each changed nothing beyond its floor
 * (their intervals within it) — the test's key figure said with its
 * interval (a headline one with a direction first, else the first of the
 * test's own).
 */
static void nochange_why(const struct compare_result *cmp, struct strbuf *why)
{
	const struct compare_row *shown = NULL;

	for (int pass = 0; pass < 3 && !shown; pass++)
		for (size_t i = 0; i < cmp->nrows && !shown; i++) {
			const struct compare_row *r = &cmp->rows[i];
			if (r->kind == COMPARE_PERF && *r->decision.why && compare_is_test_metric(r->metric) &&
			    !strstr(r->metric, ".time.") &&
			    (pass == 2 || (r->direction && (pass == 1 || program_metric_headline(r->metric)))))
				shown = r;
		}
	strbuf_setf(why, "no metric of the test changed between the good and the bad end");
	if (shown)
		strbuf_addf(why, ": %s %s", shown->metric, shown->decision.why);
}

/*
 * The ends measured in interleaved rounds, then, when no metric is given,
 * the one to follow (metric_to_follow). NULL with *nochange when none is
 * in sight, else NULL with err set on an error.
 */
char *bisect_driver_pick_metric(struct driver *d, const struct compare_floors *floors, size_t end_runs, bool *nochange,
				struct strbuf *err)
{
	struct node *mats[2] = { NULL, NULL };
	uint64_t *rounds[2] = { NULL, NULL };
	size_t nr[2] = { 0, 0 }, ends[2] = { d->range->n, d->range->n - 1 };
	char *picked = NULL;

	/* the ends measured in interleaved rounds, end_runs of them at least */
	for (int pass = 0; pass < 2; pass++) {
		if (load_ends(d, ends, mats, rounds, nr, err))
			goto out;
		size_t shared = shared_rounds(rounds, nr);
		if (shared >= end_runs && mats[0] && mats[1])
			break;
		if (pass) {
			strbuf_setf(err, "the ends' runs did not come (see the lines above)");
			goto out;
		}
		if (run_ends(d, ends, end_runs - (shared < end_runs ? shared : 0), err))
			goto out;
	}
	struct compare_result cmp;
	const struct node *mm[2] = { mats[0], mats[1] };
	const char *labels[2] = { "good", "bad" };
	const uint64_t *rr[2] = { rounds[0], rounds[1] };
	struct compare_opts co = { .floors = floors, .rounds = rr, .nrounds = nr };
	if (compare_matrices(mm, labels, 2, &co, &cmp, err))
		goto out;
	const struct compare_row *h = metric_to_follow(&cmp);
	if (h)
		picked = xstrdup(h->metric);
	else {
		*nochange = true;
		nochange_why(&cmp, err);
	}
	compare_result_release(&cmp);
out:
	node_free(mats[0]);
	node_free(mats[1]);
	free(rounds[0]);
	free(rounds[1]);
	return picked;
}

void bisect_driver_init(struct driver *d, const struct gitrepo_range *range)
{
	size_t n = range->n + 2; /* the range, its good end, the extra slot */

	d->range = range;
	d->untestable = xcalloc(n, sizeof(bool));
	d->why_untestable = xcalloc(n, sizeof(char *));
	d->built = xcalloc(n, sizeof(bool));
	d->failures = xcalloc(n, 1);
	d->looked = xcalloc(n, sizeof(bool));
	/* the rounds' orders: random, and recorded in every run (the interleave key of its job.yaml) */
	if (getrandom(&d->rng, sizeof(d->rng), 0) != sizeof(d->rng) || !d->rng)
		d->rng = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
}

void bisect_driver_release(struct driver *d)
{
	if (d->prov)
		d->ops->close(d->prov);
	free(d->prepared);
	for (size_t i = 0; d->why_untestable && d->range && i < d->range->n + 2; i++)
		free(d->why_untestable[i]);
	free(d->why_untestable);
	free(d->rbuf);
	free(d->untestable);
	free(d->built);
	free(d->failures);
	free(d->looked);
	free(d->buf);
	d->prov = NULL;
	d->prepared = NULL;
	d->why_untestable = NULL;
	d->rbuf = NULL;
	d->untestable = d->built = NULL;
	d->failures = NULL;
	d->looked = NULL;
	d->buf = NULL;
}

/* The search's callbacks, each on d. */
void bisect_driver_oracle(struct driver *d, struct bisect_oracle *o)
{
	*o = (struct bisect_oracle){ run_batch, samples, d, progress, slots };
}

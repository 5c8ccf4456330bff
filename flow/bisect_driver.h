/*
 * bisect_driver: what lib/results/bisect's search calls back in a
 * bisection session, private to flow/bisect.c (the session's phases). The
 * driver runs each batch of commits through the provider, reads a
 * commit's samples from its result root, marks the commits that cannot be
 * tested and picks the metric that changed between the ends.
 */
#ifndef LKP_BISECT_DRIVER_H
#define LKP_BISECT_DRIVER_H

#include "../lib/kernel/git.h"
#include "../lib/results/bisect.h"
#include "../lib/util/strbuf.h"
#include "../providers/provider.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct compare_floors;
struct machine;
struct node;
struct runstore;

/* One bisection's state, shared by the session (which fills it) and the callbacks. */

struct driver {
	const struct provider_ops *ops;
	struct provider *prov;
	struct node *job;
	const struct machine *m;
	const struct gitrepo_range *range;
	char good[GITREPO_HEXSZ + 1];
	char extra[GITREPO_HEXSZ + 1]; /* commit n + 1, a check's own (the culprit's revert); "" none */
	const char *result_dir;
	const char *metric; /* NULL while the ends are measured for all metrics */
	char *prepared;
	bool *untestable;
	char **why_untestable;	 /* why each untestable commit is (its first error line) */
	bool *built;		 /* prepared at least once (a build, or a kernel-cache hit) */
	unsigned char *failures; /* failed runs of each commit: a second one makes it untestable */
	bool *looked;		 /* its runs on disk the store lacked recorded (runstore_record_missing_in) */
	double *buf;
	uint64_t *rbuf;
	size_t builds, runs;
	struct runstore *rs;
	bool progress;
	size_t expect_steps;
	uint64_t rng; /* the rounds' random orders */
	bool fault;   /* a run failed while the result root's file system was full: a fault that may pass */
};

/* Commit i of the range; i == n is the good end, n + 1 the extra commit. */
static inline const char *commit_of(const struct driver *d, size_t i)
{
	return i < d->range->n ? d->range->id[i] : i == d->range->n ? d->good : d->extra;
}

/*
 * The driver's state for a range (its commits, the good end, the extra
 * slot): what it knows of each commit, fresh; the rounds' random order
 * seeded anew. The rest (ops, prov, job, m, result_dir, rs, metric) is the
 * caller's to set. bisect_driver_release() lets it go, the provider too.
 */
void bisect_driver_init(struct driver *d, const struct gitrepo_range *range);
void bisect_driver_release(struct driver *d);

/* The search's callbacks (run_batch, samples, progress, slots) on d. */
void bisect_driver_oracle(struct driver *d, struct bisect_oracle *o);
/*
 * The ends measured, the metric to follow (newly allocated). NULL: with
 * *nochange, none changed nor may more rounds tell (err says so, with the
 * test's key figure and its interval); else err says why it failed.
 */
char *bisect_driver_pick_metric(struct driver *d, const struct compare_floors *floors, size_t end_runs, bool *nochange,
				struct strbuf *err);
void bisect_driver_end_untestable(struct driver *d, size_t i, struct strbuf *err);

#endif

/*
 * runjobs: the one loop that makes the runs of `lkprobot run`, `qemu` and
 * `box run` — each atomic job --runs times through a provider already
 * opened and prepared (the same ops bisect and the service use), each run
 * printed the command's way and recorded in the store.
 */
#ifndef LKP_RUNJOBS_H
#define LKP_RUNJOBS_H

#include "../lib/util/node.h"
#include "../providers/provider.h"

#include <stdbool.h>

struct runstore;

struct runjobs {
	const struct provider_ops *ops;
	struct provider *p;
	struct runstore *rs;
	long runs;			/* runs of each atomic job */
	bool stop_on_error;		/* a run that cannot be made ends the loop (a box: unreachable) */
	/* prints one run (every result root it made is in r) */
	void (*print)(const struct node *job, const struct provider_run *r);
};

/*
 * Run them. EXIT_OK when every run finished, else EXIT_FAIL (a run that
 * failed, timed out, could not be made: said on stderr).
 */
int runjobs(const struct runjobs *rj, struct node *const *jobs, size_t n);

/* The stats.json of a run directory (NULL when it has none). */
struct node *runjobs_stats(const char *run_dir);

#endif

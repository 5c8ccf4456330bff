/*
 * runjobs: the one loop that makes the runs of `lkprobot run`, `qemu` and
 * `box run` — each atomic job --runs times through a provider already
 * opened and prepared (the same ops bisect and the service use), each run
 * printed the command's way and recorded in the store.
 */
#ifndef LKP_RUNJOBS_H
#define LKP_RUNJOBS_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"
#include "../providers/provider.h"

#include <stdbool.h>

struct runstore;

struct runjobs {
	const struct provider_ops *ops;
	struct provider *p;
	struct runstore *rs;
	long runs;	    /* runs of each atomic job */
	bool stop_on_error; /* a run that cannot be made ends the loop (a box: unreachable) */
	/* prints one run (every result root it made is in r) */
	void (*print)(const struct node *job, const struct provider_run *r);
};

/*
 * Run them. FLOW_OK when every run finished, else FLOW_FAIL (a run that
 * failed, timed out, could not be made: said on stderr).
 */
int runjobs(const struct runjobs *rj, struct node *const *jobs, size_t n);

/*
 * --tree and --commit of a command that builds the commit's kernel (qemu,
 * box run): both or neither, and the commit one of the tree's; --kcflags
 * (NULL: none) only with them, and flags make may be given. 0, or -1 with
 * err set (bad input).
 */
int runjobs_commit_args(const char *tree, const char *rev, const char *kcflags, struct strbuf *err);

/*
 * Prepare the provider for rev of tree (NULL: the kernel its options name,
 * else its own). FLOW_OK; a commit whose kernel does not build is
 * "build_failed TREE REV" and the build's first error line on stdout,
 * FLOW_FAIL; any other failure said on stderr, FLOW_FAIL.
 */
int runjobs_prepare(const struct provider_ops *ops, struct provider *p, const char *tree, const char *rev);

/* The stats.json of a run directory (NULL when it has none). */
struct node *runjobs_stats(const char *run_dir);

#endif

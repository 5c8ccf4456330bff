/*
 * slurm_int: what the files of provider slurm share and nobody else may see
 * (provider.h is the public API): the provider's state, Slurm's commands,
 * the farm's free boxes, and a batch's runs.
 *   slurm.c        the provider, its options, the farm's inventory
 *   slurm_batch.c  a batch's runs: submissions, squeue, status files, resubmits
 *   slurm_cmd.c    Slurm's commands, the farm's matching boxes and free slots
 * The calls go one way: slurm.c calls slurm_batch.c, both call slurm_cmd.c.
 */
#ifndef LKP_SLURM_INT_H
#define LKP_SLURM_INT_H

#include "provider.h"
#include "../lib/util/strbuf.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define SLURM_NEXT_RUN ";;lkprobot-next-run;;"	/* the batch script's separator between two runs' argv */

struct provider {
	struct provider_config cfg;
	char *spool;		/* <result_dir>/.slurm: job files, status files, Slurm's output */
	char *script;		/* the batch script: exec "$@" */
	char exe[PATH_MAX];	/* this lkprobot, which the nodes run too (a shared path) */
	char commit[64];
	char *via, *constraint, *partition;
	char **args;		/* more sbatch arguments */
	size_t nargs;
	unsigned pending_timeout, max_boxes;
	char *comment;		/* --comment: "lkprobot <client>: <label>" */
	size_t running, pending;	/* this client's jobs in the queue, as the last squeue saw them */
};

/* Run a Slurm command: 0 with its stdout in out, or -1 with "cmd: the last line of its stderr" in err. */
int slurm_cmd(char *const argv[], struct strbuf *out, struct strbuf *err);

/* Does a node's feature list (a,b,c) satisfy the constraint (F, F&G, F|G; NULL: any)? */
bool slurm_features_match(const char *features, const char *constraint);

/* How many runs of ours the farm takes now (at least 1): the up boxes of the constraint, shared fairly. */
size_t slurm_slots(struct provider *p);

/* The batch's runs as Slurm jobs, as many at once as slurm_slots says (provider_ops.run_batch). */
int slurm_run_batch(struct provider *p, struct provider_batch_item *items, size_t n, char **prepared,
		    struct strbuf *err);

#endif

/*
 * runstore: record result roots in the store — after a run, and when
 * `lkprobot stats --reindex` rebuilds the store from the result roots on
 * disk. One code path for both: a run is recorded from what its result
 * root holds (job.yaml, stats.json), so the store never knows anything the
 * result root does not.
 */
#ifndef LKP_RUNSTORE_H
#define LKP_RUNSTORE_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>

struct store;

struct runstore {
	struct store *store; /* NULL: recording is off */
};

/*
 * Open the store at db, else <result_dir>/lkprobot.db; use=false: off. 0,
 * or -1 with err set and store_open's errno (store_fault() tells a full
 * disk from a wrong file).
 */
int runstore_open(struct runstore *rs, bool use, const char *db, const char *result_dir, struct strbuf *err);
void runstore_close(struct runstore *rs);

/* Record the run whose result root is run_dir (.../<commit>/<run>). */
int runstore_record_dir(struct runstore *rs, const char *run_dir, struct strbuf *err);

/* Is dir a result root: a <run> directory (a number) with a job.yaml? */
bool runstore_is_run_dir(const char *dir);
/*
 * Re-extract one run's stats from its raw files (older_names: the metric
 * names of older reports too). 0, 1 when a raw file was rejected (err says
 * which), -1 with err set.
 */
int runstore_restat(const char *run_dir, bool older_names, struct strbuf *err);
/*
 * The store's view of the result roots under dir (a real path) rebuilt
 * from what is on disk: the slow part (walking, re-extracting runs with no
 * stats.json) first, then the rows forgotten and made again in one batch,
 * so that a reader sees the old rows or the new ones, never half of them.
 * missing_only: only record the complete roots the store lacks, forget
 * nothing. *found and *failed count the roots recorded and those that
 * could not be (each said on stderr). 0, or -1 with err set.
 */
int runstore_reindex(struct runstore *rs, const char *dir, bool missing_only, bool older_names, long *found,
		     long *failed, struct strbuf *err);

/*
 * The complete runs (with stats.json) of one commit directory rt the store
 * lacks, recorded — a run killed between writing its stats and recording
 * them, found where it is used (a bisection reading its commits' runs)
 * rather than by a walk of every result root when the service starts. The
 * number recorded; each one that could not be is said on stderr.
 */
long runstore_record_missing_in(struct runstore *rs, const char *rt);

#endif

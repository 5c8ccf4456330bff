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
	struct store *store;	/* NULL: recording is off */
};

/* Open the store at db, else <result_dir>/lkprobot.db; use=false: off. */
int runstore_open(struct runstore *rs, bool use, const char *db, const char *result_dir,
		  struct strbuf *err);
void runstore_close(struct runstore *rs);

/* Record the run whose result root is run_dir (.../<commit>/<run>). */
int runstore_record_dir(struct runstore *rs, const char *run_dir, struct strbuf *err);

#endif

/*
 * result: LKP result roots on disk — the source of truth for raw data.
 *
 *   <dir>/<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/   "_rt"
 *       matrix.json avg.json stddev.json          one column per run
 *       <run>/                                    0, 1, 2, ... first unused
 *           job.yaml reproduce.sh output stderr <raw files> <program>.json stats.json
 *
 * Extraction turns raw files into <program>.json with the programs' parsers
 * and reduces them into stats.json (stats.h rules); the commit directory's
 * matrix is rebuilt from its runs' stats.json under a lock, so parallel
 * runs of one commit cannot lose a column.
 */
#ifndef LKP_RESULT_H
#define LKP_RESULT_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>

/* The largest file of a result root read (raw outputs, JSON, job.yaml), bytes. */
#define RESULT_FILE_MAX (256u << 20)

/* Create <rt>/<N> for the first unused N (created atomically with mkdir). */
int result_claim_run(const char *rt, char **run_dir, int *run_no, struct strbuf *err);

/*
 * Parse the raw outputs of the programs `job` names (tests, monitors) and
 * the tests' <test>.time files into <program>.json, then write stats.json.
 * A raw file a parser rejects is reported in `problems` (a map file ->
 * message) and contributes no numbers. *stats (may be NULL) gets a copy.
 */
int result_extract(const char *run_dir, const struct node *job, struct node *problems,
		   struct node **stats, struct strbuf *err);

/*
 * Extract a run made elsewhere (a guest's raw outputs, or `lkprobot stats`
 * re-extracting): the job is read from <run_dir>/job.yaml, the parsers'
 * complaints are written into it as stats_problems (replacing earlier
 * ones) and also left in `problems`. With older_names, the older metric
 * names too. 0, or -1 with err set (no job.yaml, nothing written).
 */
int result_restat(const char *run_dir, bool older_names, struct node *problems, struct strbuf *err);

/* Add the older metric names to <run_dir>/stats.json (stats_add_older_names). */
int result_add_older_names(const char *run_dir, struct strbuf *err);

/* Rebuild <rt>/matrix.json, avg.json and stddev.json from its runs. */
int result_update_matrix(const char *rt, struct strbuf *err);

/*
 * The keys a run adds to its job.yaml (its state, times, load, facts, what
 * was unavailable, the parsers' complaints, its interleave tag): without
 * them it is the atomic job as it was split. NULL-terminated.
 */
extern const char *const result_run_keys[];

/* <run_dir>/job.yaml as a map; NULL with err set when it cannot be read or is no map (run_dir NULL: none). */
struct node *result_load_job(const char *run_dir, struct strbuf *err);

/* JSON files: read a whole file into a tree; write one atomically. */
int result_load_json(const char *path, struct node **out, struct strbuf *err);
int result_save_json(const char *path, const struct node *n, struct strbuf *err);
/* Write text atomically (temp file + rename). */
int result_save_text(const char *path, const char *text, size_t len, struct strbuf *err);

#endif

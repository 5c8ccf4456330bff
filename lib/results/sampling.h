/*
 * sampling: the recorded order of interleaved runs. A comparison between
 * commits measures them in batches of rounds, each round one run of every
 * side in a random order (base, new, new, base, ...), so that a machine
 * that drifts over time shows as noise in both sides instead of as a
 * change between them. Each run records where it stood in its run's
 * job.yaml:
 *
 *     interleave: <batch>-<round>-<position>
 *
 * (the batch a 16-digit hex id, the round and the position in the batch
 * from 0), and runs of two commits that share a round are compared as a
 * pair (lib/stats/decide.h). This module writes and reads those tags; who
 * plans the batches is the caller's (bisect).
 */
#ifndef LKP_SAMPLING_H
#define LKP_SAMPLING_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/* The job key that holds a run's tag. */
#define SAMPLING_KEY "interleave"

/* A run's tag: "<batch>-<round>-<position>". */
void sampling_tag(struct strbuf *out, uint64_t batch, size_t round, size_t position);

/* The id of a round (never 0): the same for every run of it, different for every other round. */
uint64_t sampling_round_id(uint64_t batch, size_t round);

/* The round id of a tag; 0 for none or one that is not a tag. */
uint64_t sampling_tag_round(const char *tag);

/* The round id a run directory's job.yaml records; 0 for none (or no job.yaml). */
uint64_t sampling_run_round(const char *run_dir);

/*
 * The round of each column of a matrix, from its stats_source (run
 * directories, or their stats.json files): a new array of *n ids (0 where
 * a run has none), aligned with the matrix's sample columns. NULL with
 * *n 0 when the matrix names no sources.
 */
uint64_t *sampling_matrix_rounds(const struct node *matrix, size_t *n);
/* The same from the sources themselves (a compact matrix's, matrix.h; NULL entries: none). */
uint64_t *sampling_rounds(const char *const *sources, size_t nsources, size_t *n);

#endif

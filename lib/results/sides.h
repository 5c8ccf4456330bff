/*
 * sides: the sides of a comparison (compare, report): a commit directory
 * (its matrix.json), run directories joined with commas, or a commit (or
 * a unique prefix) the store knows — then one group per job it ran.
 */
#ifndef LKP_SIDES_H
#define LKP_SIDES_H

#include "matrix.h"
#include "../util/node.h"
#include "../util/strbuf.h"

#include <stddef.h>
#include <stdint.h>

/* The runs of one job on one commit. */
struct group {
	char *key;		/* testcase/path_params/tbox_group/rootfs/kconfig/compiler */
	char *desc;		/* testcase/path_params/tbox_group (the classic rows' label) */
	char *run_dir;		/* one of its runs (job.yaml, reproduce.sh); may be NULL */
	struct matrix *matrix;	/* metric -> one sample per run (its stats_source: the runs) */
	uint64_t *rounds;	/* the round of each run (column), 0: none (sampling.h) */
	size_t nrounds;
};

struct side {
	char *label;		/* the commit */
	struct group *g;
	size_t ng;
};

/*
 * Load n sides from args; db (NULL: RESULT_ROOT_DIR/lkprobot.db) is opened
 * only when an argument is not a path. 0, or -1 with one line in err.
 * sides_release() what *out holds.
 */
int sides_load(char *const *args, size_t n, const char *db, const char *result_dir, struct side **out,
	       struct strbuf *err);
void sides_release(struct side *sides, size_t n);

/*
 * One side from the store only (never a path): every run of the commits
 * that start with `commit`. 0, or -1 with one line in err (no such commit,
 * or the prefix names several). s is an element of a zeroed array from
 * xcalloc(), which sides_release() frees.
 */
struct store;
int sides_from_store(struct side *s, struct store *st, const char *commit, struct strbuf *err);

/* s's group for the base's group bg (the only one, when both have one); NULL: none. */
const struct group *side_match(const struct side *s, const struct side *base, const struct group *bg);

/*
 * The rounds of n groups (one per side), as compare_opts wants them:
 * rounds[i], nrounds[i] point into groups[i].
 */
void sides_rounds(const struct group *const *groups, size_t n, const uint64_t **rounds, size_t *nrounds);

#endif

/*
 * job_int: what the files of job expansion share and nobody else may see
 * (job.h is the public API): what a job refers to (struct refs), the
 * expander's state, and the steps each file does for the others.
 *   job_merge.c     merging, after lkp-tests' revise_hash
 *   job_refs.c      what a job key is: programs, options, dimensions
 *   job_defaults.c  defaults files (jobs/include/, lkp-tests' include/), ERB
 *   job_check.c     checking an atomic job before it runs
 *   job_expand.c    expansion into atomic jobs
 *   job_params.c    path_params, params and the names of atomic jobs
 */
#ifndef LKP_JOB_INT_H
#define LKP_JOB_INT_H

#include "job.h"
#include "lkpsrc.h"
#include "../util/sset.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* One program as the expander sees it, whichever data describes it. */
struct pview {
	bool workload, monitor;
	const char *const *options;	/* NULL-terminated; '=' marks key=value */
};

/*
 * What a job refers to, as lkp-tests' init_program_options: the workload
 * programs named anywhere in it, their options, the test wrapper's and
 * "cluster". A list under any of these (or lkp-tests' EXPAND_DIMS)
 * expands; their values make path_params.
 */
struct refs {
	struct sset progs;
	struct sset opts;
	struct sset eq;		/* the key=value options among opts */
	struct sset monitors;	/* monitors named in the job (their options are not params) */
};

/* The defaults files of one job key: name -> path. */
struct incdir {
	char *key;
	size_t n;
	const char *const *names, *const *paths;
	char **own_names, **own_paths;	/* lkprobot's jobs/include/<key>: read here */
};

struct parsed {
	char *path;
	char *text;		/* kept when the file has ERB lines: parsed per job */
	struct node *doc;	/* NULL: failed or empty */
};

struct expander {
	const struct job_env *env;
	struct strbuf *err;
	job_atomic_fn fn;
	void *arg;
	struct incdir *incs;	/* the keys that have defaults files */
	size_t nincs, aincs;
	struct sset no_incs;	/* the keys looked up that have none */
	struct parsed *cache;
	size_t ncache, acache;
	struct sset loaded;	/* include files merged into this document */
	struct refs refs;	/* of the document being expanded */
	struct sset warned;	/* keys already warned about */
	int ret;
	size_t natomic;		/* atomic jobs made so far (JOB_MAX_ATOMIC) */
};

/* merging (job_merge.c) */
/* original <- revisions (borrowed); overwrite: revisions win over what original has. */
void job_revise(struct node *original, const struct node *revisions, bool overwrite);
void job_resolve_special(struct node *map, bool overwrite);
ssize_t job_comment_index(const struct node *map, const char *text);
void job_append_comment(struct node *map, const char *text);

/* what a job key is (job_refs.c) */
bool job_pview(struct lkpsrc *lk, const char *name, struct pview *pv);
void job_refs_build(struct lkpsrc *lk, const struct node *job, struct refs *r);
void job_refs_release(struct refs *r);
bool job_is_dim(const char *k, const struct refs *r);
bool job_has_braces(const struct node *v);
void job_drop_lists(struct node *m, const struct refs *r);

/* defaults (job_defaults.c) */
int job_merge_defaults(struct expander *ex, struct node *job, const struct node *job2,
		       bool first_time, struct sset *loaded);
struct parsed *job_load_cached(struct expander *ex, const char *path, bool erb);

/* checking (job_check.c) */
/* err = "file:line:col: key: <fmt>" (the position of at, when it has one): -1. */
int job_errat(struct strbuf *err, const struct node *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A top-level mapping under a name no data knows: options nobody reads (a warning). */
void job_warn_unknown(struct expander *ex, const struct node *job);

#endif

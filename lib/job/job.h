/*
 * job: LKP job files. Loading (textual `<<:` includes, multi-document
 * files, libyaml via yml.h), merging (lkp-tests' revise_hash rules),
 * automatic defaults from jobs/include/<key>/<value>, matrix expansion into
 * atomic jobs, validation, path_params and the result path.
 *
 * The rules follow lkp-tests (lib/job.rb, lib/yaml.rb, lib/hash.rb) so that
 * a job expands to the same atomic jobs with the same names: with an
 * lkp-tests checkout (struct lkpsrc, LKP_SRC) its programs' options decide,
 * else lkprobot's program table. Splitting refuses only what lkp-tests
 * refuses (bad YAML, missing includes, a "{{ }}" it cannot evaluate),
 * includes escaping the jobs tree and ERB in job files; lkprobot's own
 * strictness (options of its programs, value notations, programs it does
 * not run) is job_check(), before a job runs. Errors are one line naming
 * file:line:col.
 *
 * Values stay symbolic here (`nr_task: 50%`, `runtime: 200s`); units are
 * converted when a job runs (units.h, against a machine description).
 * Must not know about result files, providers or the store.
 */
#ifndef LKP_JOB_H
#define LKP_JOB_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>

struct lkpsrc;
/* The largest job file (or included file, or defaults file) read, in bytes. */
#define JOB_MAX_BYTES (16 << 20)
/* The most atomic jobs one job file may expand to. */
#define JOB_MAX_ATOMIC 100000

/* The keys lkp-tests always expands when they hold a list. */
extern const char *const job_expand_dims[];

struct job_env {
	/* Directory holding jobs/ (with jobs/include/) and hosts/. */
	const char *data_dir;
	/* An lkp-tests checkout whose programs, include/ and hosts/ serve instead, or NULL. */
	struct lkpsrc *lkp;
	/* Skip jobs/include defaults and the host file (split-job --no-defaults). */
	bool no_defaults;
	/* "key: value" overrides from the command line, a map or NULL. */
	const struct node *overrides;
	/* Test box to add as testbox/tbox_group/arch, or NULL for none. */
	const char *testbox;
	/* Older lkp-tests layout: path_params in order of appearance. */
	bool old_order;
	/* A scheduled ("dirty") job file: only its job files' own sections (split-job --compatible). */
	bool refine;
	/* Told about things that are allowed but probably not meant; may be NULL. */
	void (*warn)(const char *msg);
};

struct jobfile {
	char *path;		/* as given by the user */
	char *origin;		/* shown in "#! ..." provenance lines */
	struct node **docs;	/* docs[0] and the later documents (maps) */
	size_t ndocs;
};

/*
 * Load a job file: splice includes, parse every document. Returns 0, or
 * -1 with one line in err ("file:line:col: what; what to do").
 */
int job_load(struct jobfile *jf, const char *path, const struct job_env *env,
	     struct strbuf *err);
void job_release(struct jobfile *jf);

/*
 * Called once per atomic job, in lkp-tests' order. The callback owns
 * nothing; it may keep a copy (node_dup). A non-zero return stops the
 * expansion and is returned by job_expand().
 */
typedef int (*job_atomic_fn)(const struct node *atomic, void *arg,
			     struct strbuf *err);

/*
 * Expand every document of jf (document 0 alone, then 0 merged with each
 * later one) into atomic jobs, with defaults, host file and overrides
 * merged in, each validated. Returns 0, -1 with err set, or the callback's
 * non-zero value.
 */
int job_expand(const struct jobfile *jf, const struct job_env *env,
	       job_atomic_fn fn, void *arg, struct strbuf *err);

/*
 * The merged (not yet expanded) job of document `doc`: document 0 with
 * document `doc` on top, host file, defaults and overrides. For show-job.
 */
struct node *job_merged(const struct jobfile *jf, const struct job_env *env,
			size_t doc, struct strbuf *err);

/* Does the job still hold lists or "{{ }}" values to expand? */
bool job_is_atomic(const struct node *job, struct lkpsrc *lk);

/*
 * Before an atomic job runs: every program it names is one lkprobot runs
 * ("aim9: test not implemented by lkprobot (lkp-tests runs it with
 * programs/aim9/run)"; a monitor lkprobot declares but does not implement
 * is recorded as unavailable when it runs, not refused), the options of
 * its programs are theirs and values are in their notation. 0, or -1 with
 * one line in err.
 */
int job_check(const struct node *job, struct lkpsrc *lk, struct strbuf *err);

/*
 * lkp-tests' path_params of an atomic job ("defaults" when empty), with
 * lk's programs (NULL: lkprobot's table).
 */
void job_path_params(const struct node *job, struct lkpsrc *lk, bool old_order, struct strbuf *out);

/*
 * The parameters that make up path_params, key -> value as text, in the
 * job's order (the "with following parameters:" of a report), into the map
 * out.
 */
void job_params(const struct node *job, struct lkpsrc *lk, struct node *out);

/* "<base>-<path_params>[-<commit>...][-<rootfs>]", as split-job names files. */
void job_atomic_name(const struct node *job, const char *base, struct lkpsrc *lk, bool old_order, struct strbuf *out);

struct machine;
/*
 * The result path "<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/
 * <compiler>/<commit>" of an atomic job; axes the job does not set come
 * from the machine (lkp-tests' run-local defaults). Returns 0, or -1 with
 * err set when an axis is missing or is not a safe path component.
 */
int job_result_path(const struct node *job, const struct machine *m, struct lkpsrc *lk, bool old_order,
		    struct strbuf *out, struct strbuf *err);

/*
 * The job's boot_params as kernel parameters, each with a space before it
 * (bp1_memmap: 104G!8G -> " memmap=104G!8G"), as lkp-tests' scheduler adds
 * them; a value with a space or quote cannot travel and is left out.
 */
void job_boot_params(const struct node *job, struct strbuf *out);

/* lkp-tests' rootfs_filename: the last run of [a-zA-Z0-9._-] of a rootfs value. */
void job_rootfs_filename(const char *rootfs, struct strbuf *out);

/* The scalar text of a top-level key, or NULL. */
const char *job_get_str(const struct node *job, const char *key);

#endif

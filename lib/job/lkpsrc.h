/*
 * lkpsrc: the data of an lkp-tests checkout (LKP_SRC) that decides how a
 * job expands and is named, read as lkp-tests reads it:
 *
 *   - which programs exist and of what kind: an executable
 *     programs/<name>/{setup,run,daemon,monitor,no-stdout-monitor,
 *     one-shot-monitor,plain-monitor,parse} (or, in a checkout older than
 *     programs/, setup/<name>, tests/<name>, daemon/<name>,
 *     monitors/<name>, stats/<name>);
 *   - a workload program's options: the "# - option" lines at the head of
 *     its script (lkp-tests' bin/program-options; the daemon's, else the
 *     test's, else the setup's), and the test wrapper's (bin/run-test,
 *     bin/run-daemon). meta.yaml's `parameters:` only documents them and
 *     often differs, so names never come from it;
 *   - the defaults directories include/<key>/ and programs/<key>/include.
 *
 * Lazy: a program's files are looked at when a job first names it, so
 * splitting a job reads a handful of files, not the whole checkout.
 * Knows nothing about job files.
 */
#ifndef LKP_LKPSRC_H
#define LKP_LKPSRC_H

#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

enum lkpsrc_kind {
	LKPSRC_SETUP = 1, LKPSRC_TEST = 2, LKPSRC_DAEMON = 4,
	LKPSRC_MONITOR = 8, LKPSRC_STATS = 16,
};
#define LKPSRC_WORKLOAD (LKPSRC_SETUP | LKPSRC_TEST | LKPSRC_DAEMON)

struct lkpsrc_program {
	char *name;
	unsigned kinds;			/* enum lkpsrc_kind bits */
	char *script[5];		/* per kind (bit order), relative to LKP_SRC, or NULL */
	/* The workload options, NULL-terminated; '=' marks a key=value option. */
	char **options;
};

struct lkpsrc;

/* Open a checkout; -1 with err set when dir holds no lkp-tests programs. */
struct lkpsrc *lkpsrc_open(const char *dir, struct strbuf *err);
void lkpsrc_free(struct lkpsrc *lk);
const char *lkpsrc_dir(const struct lkpsrc *lk);

/* The program `name` (a job key), or NULL when the checkout has none. */
const struct lkpsrc_program *lkpsrc_program(struct lkpsrc *lk, const char *name);

/* The script of one kind ("programs/aim9/run"), or NULL. */
const char *lkpsrc_script(const struct lkpsrc_program *p, enum lkpsrc_kind kind);

/* The test wrapper's options (run-test, then run-daemon), NULL-terminated. */
const char *const *lkpsrc_wrapper_options(struct lkpsrc *lk);

/* Every program of the checkout, sorted by name (reads them all). */
size_t lkpsrc_all(struct lkpsrc *lk, const struct lkpsrc_program *const **out);

/*
 * The defaults files for a job key, as lkp-tests' include_files: name ->
 * path pairs from programs/<key>/include (a file is named <key>) or else
 * include/<key> (a directory of files, or one file named <key>). Returns
 * how many; *names and *paths stay owned by lk.
 */
size_t lkpsrc_defaults(struct lkpsrc *lk, const char *key, const char *const **names,
		       const char *const **paths);

/* One line naming the kind for messages: "test", "setup", "monitor", ... */
const char *lkpsrc_kind_name(enum lkpsrc_kind kind);

#endif

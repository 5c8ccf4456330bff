/*
 * jobopts: the job files a command or a flow reads, with their overrides
 * (`key=value` arguments, `-s 'key: value'`), the test box, defaults and
 * the lkp-tests checkout; expanded into atomic jobs, each checked as one
 * about to run. The option rows that fill it are robot/'s (cmd.h).
 */
#ifndef LKP_JOBOPTS_H
#define LKP_JOBOPTS_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/*
 * Options shared by the commands that read job files: overrides given as
 * `key=value` arguments or `-s 'key: value'`, the test box, defaults.
 */
struct jobopts {
	struct node *overrides; /* map, never NULL */
	const char *testbox;
	bool no_defaults;
	bool old_order;	     /* pre-2019 path_params order */
	bool refine;	     /* split-job --compatible: a dirty job file cleaned */
	const char *lkp_src; /* --lkp-src, else $LKP_SRC */
	struct lkpsrc *lkp;  /* opened by jobopts_args() when either is set */
	char **files;	     /* job files named on the command line */
	size_t nfiles;
	const char *current; /* the file jobopts_expand() is expanding */
};

void jobopts_init(struct jobopts *jo);
void jobopts_release(struct jobopts *jo);
/* Add a "key: value" YAML text to the overrides; -1 with err set if malformed. */
int jobopts_set(struct jobopts *jo, const char *yaml, struct strbuf *err);
/*
 * The positional arguments from optind on: job files and key=value
 * overrides; at least one job file is needed. Opens the lkp-tests
 * checkout of --lkp-src or $LKP_SRC. -1 with err set otherwise.
 */
int jobopts_args(struct jobopts *jo, int argc, char **argv, const char *cmd, struct strbuf *err);
/*
 * One argument: a key=value override (as lkp-tests: unless it is a file),
 * else a job file (arg is kept, not copied). 0, or -1 with err set.
 */
int jobopts_add(struct jobopts *jo, char *arg, struct strbuf *err);
/* Open the checkout of --lkp-src or $LKP_SRC, if any; -1 with err set if it is none. */
int jobopts_lkp_src(struct jobopts *jo, struct strbuf *err);
/* Fill a job_env from the options (warnings go to stderr). */
struct job_env;
void jobopts_env(const struct jobopts *jo, const char *data_dir, struct job_env *env);
/*
 * Every atomic job of the job files, copied (jobopts_atomic_release
 * frees), each checked as one about to run (job_check: programs lkprobot
 * runs, their options and values).
 */
struct atomic_list {
	struct node **v;
	size_t n;
};
int jobopts_atomic_jobs(struct jobopts *jo, const struct job_env *env, struct atomic_list *l, struct strbuf *err);
void jobopts_atomic_release(struct atomic_list *l);

/* Load and expand every job file in turn; 0, or -1 with err set. */
int jobopts_expand(struct jobopts *jo, const struct job_env *env,
		   int (*fn)(const struct node *atomic, void *arg, struct strbuf *err), void *arg, struct strbuf *err);

#endif

/*
 * cmd: the lkprobot subcommands.
 *
 * Adding a subcommand:
 *   1. write robot/cmd_<name>.c exporting cmd_<name>() below; it parses its
 *      options, calls lib/ modules and prints — no SQL, HTTP or libgit2 here;
 *   2. add a row to the sorted commands[] table in robot/main.c;
 *   3. give it its options as a table (robot/opt.h: parsing and --help's
 *      options are made from it), the prose of its --help (synopsis,
 *      description, exit codes) next to it, and a tests/cli script;
 *   4. write docs/lkprobot-<name>.md (`make docs` fills in its --help;
 *      tests/cli/t0002-docs.sh fails while the page or its --help block is
 *      missing or stale).
 * Commands return the process exit status (see below); only robot/ exits.
 */
#ifndef LKP_CMD_H
#define LKP_CMD_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>

/* Exit codes shared by every command. */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* the work failed (a test, a build, the machine) */
	EXIT_USAGE = 2,		/* bad input: options, job files, values */
};

struct lkp_ctx {
	const char *data_dir;	/* holds jobs/ (with include/) and hosts/ */
	const char *cmd;	/* the running subcommand's name */
};

int cmd_bisect(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_box(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_box_init(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_build(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_guest(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_help(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_install(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_job_path(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_outbox(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_programs(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_compare(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_qemu(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_qemu_box(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_recipients(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_report(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_run(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_run_commit(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_serve(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_show_job(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_stats(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_split_job(int argc, char **argv, struct lkp_ctx *ctx);

/*
 * The store of the service a configuration file describes (serve.db, else
 * lkprobot.db in serve.result_root), newly allocated; NULL when the file
 * has no serve: section (err untouched) or cannot be read (err set).
 */
char *serve_store_path(const char *file, struct strbuf *err);

/* Print "lkprobot: <msg>" on stderr; returns `code`. */
int cmd_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Options shared by the commands that read job files: overrides given as
 * `key=value` arguments or `-s 'key: value'`, the test box, defaults.
 */
struct jobopts {
	struct node *overrides;	/* map, never NULL */
	const char *testbox;
	bool no_defaults;
	bool compatible;
	const char *lkp_src;	/* --lkp-src, else $LKP_SRC */
	struct lkpsrc *lkp;	/* opened by jobopts_args() when either is set */
	char **files;		/* job files named on the command line */
	size_t nfiles;
	const char *current;	/* the file jobopts_expand() is expanding */
};

/*
 * The rows of the options every job command takes (robot/opt.h), to put
 * in its table; testbox_help says what -t means to the command.
 */
#define JOBOPTS_ROWS(jo, testbox_help)                                                                   \
	OPT_STRING('t', "testbox", "NAME", testbox_help, &(jo)->testbox), JOBOPTS_SET_ROWS(jo)
/* ... but -t, for a command whose test box is given otherwise */
#define JOBOPTS_SET_ROWS(jo)                                                                             \
	OPT_CALL('s', "set", "'KEY: VALUE'", "override a key (also KEY=VALUE arguments)", jobopts_set_opt, \
		 (jo)),                                                                                  \
	OPT_BOOL(0, "no-defaults", "do not merge jobs/include defaults nor the host file", &(jo)->no_defaults), \
	JOBOPTS_LKP_SRC_ROW(jo)
/* --lkp-src alone, for a command that reads no job file */
#define JOBOPTS_LKP_SRC_ROW(jo)                                                 \
	OPT_STRING(0, "lkp-src", "DIR",                                         \
		   "read programs, include/ and hosts/ of this lkp-tests\n"       \
		   "checkout, as lkp-tests does (default: $LKP_SRC)",             \
		   &(jo)->lkp_src)

void jobopts_init(struct jobopts *jo);
void jobopts_release(struct jobopts *jo);
/* Add a "key: value" YAML text to the overrides; -1 with err set if malformed. */
int jobopts_set(struct jobopts *jo, const char *yaml, struct strbuf *err);
/* -s's row (robot/opt.h): jobopts_set() on o->dst, a struct jobopts. */
struct opt;
int jobopts_set_opt(const struct opt *o, const char *value, struct strbuf *err);
/*
 * The positional arguments from optind on: job files and key=value
 * overrides; at least one job file is needed. Opens the lkp-tests
 * checkout of --lkp-src or $LKP_SRC. -1 with err set otherwise.
 */
int jobopts_args(struct jobopts *jo, int argc, char **argv, const char *cmd,
		 struct strbuf *err);
/* Open the checkout of --lkp-src or $LKP_SRC, if any; -1 with err set if it is none. */
int jobopts_lkp_src(struct jobopts *jo, struct strbuf *err);
/* --runs N's row (robot/opt.h) of the commands that run jobs: N into runs, a long. */
#define JOBOPTS_RUNS(help, runs) OPT_LONG(0, "runs", "N", help, runs, 1, 1000, "a number of runs (1-1000)")
/* Fill a job_env from the options (warnings go to stderr). */
struct job_env;
void jobopts_env(const struct jobopts *jo, const struct lkp_ctx *ctx, struct job_env *env);
/*
 * Every atomic job of the job files, copied (jobopts_atomic_release
 * frees), each checked as one about to run (job_check: programs lkprobot
 * runs, their options and values).
 */
struct atomic_list {
	struct node **v;
	size_t n;
};
int jobopts_atomic_jobs(struct jobopts *jo, const struct job_env *env, struct atomic_list *l,
			struct strbuf *err);
void jobopts_atomic_release(struct atomic_list *l);

/* Load and expand every job file in turn; 0, or -1 with err set. */
int jobopts_expand(struct jobopts *jo, const struct job_env *env,
		   int (*fn)(const struct node *atomic, void *arg, struct strbuf *err),
		   void *arg, struct strbuf *err);

#endif

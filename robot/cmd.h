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

#include "../flow/flow.h"
#include "../flow/jobopts.h"
#include "../lib/util/node.h"
#include "../lib/util/say.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>

/* Exit codes shared by every command. */
enum {
	EXIT_OK = FLOW_OK,
	EXIT_FAIL = FLOW_FAIL, /* the work failed (a test, a build, the machine) */
	EXIT_USAGE = FLOW_BAD, /* bad input: options, job files, values */
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
int cmd_series(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_report(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_run(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_run_commit(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_serve(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_show_job(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_stats(int argc, char **argv, struct lkp_ctx *ctx);
int cmd_split_job(int argc, char **argv, struct lkp_ctx *ctx);

/* `lkprobot status`: the heads of the store, in words or as JSON (robot/serve_status.c). The exit code. */
struct store;
/* limit, after: the page of heads --json gives (NULL: the first PAGING_DEFAULT). */
int serve_status(struct store *s, bool json, const char *limit, const char *after);

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

/* -s's row (robot/opt.h): jobopts_set() on o->dst, a struct jobopts. */
struct opt;
int jobopts_set_opt(const struct opt *o, const char *value, struct strbuf *err);
/* --runs N's row (robot/opt.h) of the commands that run jobs: N into runs, a long. */
#define JOBOPTS_RUNS(help, runs) OPT_LONG(0, "runs", "N", help, runs, 1, 1000, "a number of runs (1-1000)")
#endif

/*
 * lkprobot stats: re-extract a run's statistics from its raw files, and
 * rebuild the store's view of result roots (--reindex). Result roots are the
 * source of truth; this is how a changed parser reaches old runs and how a
 * lost or stale store is rebuilt.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/results/result.h"
#include "../lib/util/yml.h"
#include "../flow/runstore.h"
#include "../lib/util/sset.h"
#include "../lib/store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot stats [options] RUN_DIR...\n"
	"       lkprobot stats --reindex DIR [options]\n"
	"\n"
	"Re-parse the raw files of result roots (RUN_DIR = .../<commit>/<run>) into\n"
	"<program>.json and stats.json, rebuild their commit's matrix.json, avg.json\n"
	"and stddev.json, and record them in the store. With --reindex, find every\n"
	"result root under DIR and rebuild the store's rows for them from what is on\n"
	"disk (runs no longer on disk are forgotten).\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 done, 1 a raw file was rejected by its parser, a test left no\n"
	"output (the run is incomplete) or the store could not be written, 2 not a\n"
	"result root or usage\n";

static bool older_names;
static bool missing_only;	/* --missing: record what the store lacks, forget nothing */

/* The nearest lkprobot.db at or above dir. */
static char *find_db(const char *dir)
{
	char real[PATH_MAX];

	if (!realpath(dir, real))
		return NULL;
	for (;;) {
		char *db = xasprintf("%s/lkprobot.db", real);
		if (!access(db, F_OK))
			return db;
		free(db);
		char *slash = strrchr(real, '/');
		if (!slash || slash == real)
			return NULL;
		*slash = '\0';
	}
}

int cmd_stats(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *reindex = NULL, *db = NULL;
	bool use_store = true;
	const struct opt table[] = {
		OPT_STRING(0, "reindex", "DIR", "rebuild the store's view of DIR", &reindex),
		OPT_BOOL(0, "missing",
			 "with --reindex: only record the complete result roots\n"
			 "(with stats.json) the store lacks; forget nothing",
			 &missing_only),
		OPT_STRING(0, "db", "FILE",
			   "the store (default: lkprobot.db in DIR or in the\n"
			   "nearest directory above RUN_DIR that has one)",
			   &db),
		OPT_NO(0, "no-store", "only rewrite the files", &use_store),
		OPT_BOOL(0, "compatible-names", "also write the metric names of older reports", &older_names),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	struct runstore rs = { 0 };
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	ret = EXIT_USAGE;
	if (reindex) {
		struct stat st;
		long found = 0, failed = 0;
		if (stat(reindex, &st) || !S_ISDIR(st.st_mode))
			return say_error(EXIT_USAGE, "%s: not a directory of result roots", reindex);
		if (runstore_open(&rs, true, db, reindex, &err))
			return say_error(EXIT_FAIL, "%s", err.buf);
		char real[PATH_MAX];
		if (!realpath(reindex, real) ||
		    runstore_reindex(&rs, real, missing_only, older_names, &found, &failed, &err)) {
			runstore_close(&rs);
			return say_error(EXIT_FAIL, "%s", err.len ? err.buf : strerror(errno));
		}
		printf("%ld result root(s) recorded in %s%s\n", found, store_path(rs.store),
		       failed ? "" : "");
		runstore_close(&rs);
		return failed ? EXIT_FAIL : EXIT_OK;
	}
	if (optind >= argc)
		return say_error(EXIT_USAGE, "stats needs a result root (.../<commit>/<run>) or --reindex DIR");
	ret = EXIT_OK;
	struct sset commits = { 0 };
	for (int i = optind; i < argc; i++) {
		const char *dir = argv[i];
		size_t len = strlen(dir);
		char *d = xstrdup(dir);
		while (len > 1 && d[len - 1] == '/')
			d[--len] = '\0';
		if (!runstore_is_run_dir(d)) {
			free(d);
			ret = say_error(EXIT_USAGE, "%s: not a result root (a <run> directory with job.yaml)", dir);
			continue;
		}
		strbuf_reset(&err);
		int r = runstore_restat(d, older_names, &err);
		if (r) {
			say_error(EXIT_FAIL, "%s", err.buf);
			ret = EXIT_FAIL;
		}
		if (r >= 0 && use_store) {
			char *found = db ? xstrdup(db) : find_db(d);
			if (found) {
				strbuf_reset(&err);
				if (runstore_open(&rs, true, found, NULL, &err) || runstore_record_dir(&rs, d, &err)) {
					say_error(EXIT_FAIL, "%s", err.buf);
					ret = EXIT_FAIL;
				}
				runstore_close(&rs);
				free(found);
			}
		}
		if (r >= 0) {
			char real[PATH_MAX];
			printf("%s/stats.json\n", d);
			if (realpath(d, real) && strrchr(real, '/') != real) {
				*strrchr(real, '/') = '\0';
				sset_add(&commits, real);
			}
		}
		free(d);
	}
	/* each commit's matrix once, after all its runs were re-extracted */
	for (size_t i = 0; i < commits.cap; i++) {
		if (!commits.slot[i])
			continue;
		strbuf_reset(&err);
		if (result_update_matrix(commits.slot[i], &err))
			ret = say_error(EXIT_FAIL, "%s", err.buf);
	}
	sset_release(&commits);
	strbuf_release(&err);
	return ret;
}

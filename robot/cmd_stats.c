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
	"exit codes: 0 done, 1 a raw file was rejected by its parser or the store\n"
	"could not be written, 2 not a result root or usage\n";

static bool older_names;
static bool missing_only;	/* --missing: record what the store lacks, forget nothing */

static bool is_run_dir(const char *dir)
{
	const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	char *jy = xasprintf("%s/job.yaml", dir);
	bool ok = *base && strspn(base, "0123456789") == strlen(base) && !access(jy, R_OK);
	free(jy);
	return ok;
}

/* Re-extract one run: 0, 1 when a raw file was rejected (err says which), -1 */
static int restat(const char *run_dir, struct strbuf *err)
{
	struct node *problems = node_new(NODE_MAP);
	int ret = result_restat(run_dir, older_names, problems, err);

	for (size_t i = 0; !ret && i < problems->n; i++) {
		strbuf_setf(err, "%s/%s: %s", run_dir, problems->keys[i], problems->vals[i]->str);
		ret = 1;
	}
	node_free(problems);
	return ret;
}

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

/*
 * Find the result roots under dir: the complete ones (re-extracted first
 * when they have no stats.json) into runs, to be recorded in one batch.
 */
static void walk(const char *dir, int depth, struct runstore *rs, struct sset *runs, long *failed)
{
	DIR *d;
	struct dirent *de;
	struct strbuf err = STRBUF_INIT;

	if (depth > 12)
		return;
	if (is_run_dir(dir)) {
		char *sp = xasprintf("%s/stats.json", dir);
		struct node *known = NULL;
		if (missing_only && (access(sp, R_OK) || store_run_stats(rs->store, dir, &known, &err) != 1)) {
			/* complete and known, or never completed (no stats.json): nothing to add */
			node_free(known);
			free(sp);
			strbuf_release(&err);
			return;
		}
		if (access(sp, R_OK) && restat(dir, &err) < 0) {
			say_warn("%s", err.buf);
			(*failed)++;
		}
		free(sp);
		sset_add(runs, dir);
		strbuf_release(&err);
		return;
	}
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			walk(p, depth + 1, rs, runs, failed);
		free(p);
	}
	closedir(d);
}

/*
 * --reindex: the slow part (walking, re-extracting) first; then the rows
 * forgotten and made again in one batch, so that a reader (compare --db,
 * the dashboard) sees the old rows or the new ones, never half of them.
 */
static int reindex_store(struct runstore *rs, const char *real, long *found, long *failed, struct strbuf *err)
{
	struct sset runs = { 0 };
	int ret = -1;

	walk(real, 0, rs, &runs, failed);
	if (store_batch_begin(rs->store, err))
		goto out;
	if (!missing_only && store_forget_under(rs->store, real, err) < 0) {
		store_batch_end(rs->store, false, err);
		goto out;
	}
	for (size_t i = 0; i < runs.cap; i++) {
		struct strbuf e = STRBUF_INIT;
		if (!runs.slot[i])
			continue;
		if (runstore_record_dir(rs, runs.slot[i], &e)) {
			say_warn("%s", e.buf);
			(*failed)++;
		} else {
			(*found)++;
		}
		strbuf_release(&e);
	}
	ret = store_batch_end(rs->store, true, err);
out:
	sset_release(&runs);
	return ret;
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
		if (!realpath(reindex, real) || reindex_store(&rs, real, &found, &failed, &err)) {
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
		if (!is_run_dir(d)) {
			free(d);
			ret = say_error(EXIT_USAGE, "%s: not a result root (a <run> directory with job.yaml)", dir);
			continue;
		}
		strbuf_reset(&err);
		int r = restat(d, &err);
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

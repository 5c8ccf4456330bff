/*
 * sides: what `compare` and `report` compare — a base and commits, each a
 * commit directory of result roots, run directories, or a commit the
 * store knows; loaded into one matrix per group (a job on a machine).
 */
#include "sides.h"
#include "result.h"
#include "matrix.h"
#include "sampling.h"
#include "../store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One group of a side: the runs of one job on one commit. */
static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->ng; i++) {
		free(s->g[i].key);
		free(s->g[i].desc);
		free(s->g[i].run_dir);
		free(s->g[i].rounds);
		matrix_unref(s->g[i].matrix);
	}
	free(s->g);
	free(s->label);
}

static struct group *add_group(struct side *s, const char *key, const char *desc, struct matrix_names *names)
{
	for (size_t i = 0; i < s->ng; i++)
		if (!strcmp(s->g[i].key, key))
			return &s->g[i];
	s->g = xrealloc(s->g, (s->ng + 1) * sizeof(*s->g));
	struct group *g = &s->g[s->ng++];
	g->key = xstrdup(key);
	g->desc = xstrdup(desc);
	g->matrix = matrix_new(names);
	g->run_dir = NULL;
	g->rounds = NULL;
	g->nrounds = 0;
	return g;
}

/*
 * n components of a path, ending `skip` components before its end, joined
 * with '/'; NULL when the path is shorter.
 */
static char *path_tail(const char *path, int n, int skip)
{
	char *copy = xstrdup(path), *save = NULL, *comp[256];
	int k = 0;
	struct strbuf sb = STRBUF_INIT;

	for (char *c = strtok_r(copy, "/", &save); c && k < 256; c = strtok_r(NULL, "/", &save))
		if (strcmp(c, "."))
			comp[k++] = c;
	if (k - skip - n < 0) {
		free(copy);
		return NULL;
	}
	for (int i = k - skip - n; i < k - skip; i++)
		strbuf_addf(&sb, "%s%s", i > k - skip - n ? "/" : "", comp[i]);
	free(copy);
	return strbuf_detach(&sb);
}

/*
 * A result path's group: <testcase>/<path_params>/<tbox_group>/<rootfs>/
 * <kconfig>/<compiler> above the commit directory; desc is the first
 * three. skip: how many components sit below the commit directory.
 */
static void group_of(const char *path, int skip, char **key, char **desc)
{
	*key = path_tail(path, 6, skip + 1);
	*desc = path_tail(path, 3, skip + 4);
	if (!*key)
		*key = xstrdup("");
	if (!*desc)
		*desc = xstrdup(*key);
}

static int load_run(struct group *g, const char *run_dir, struct strbuf *err)
{
	char *sp = xasprintf("%s/stats.json", run_dir);
	struct node *stats = NULL;
	int ret = result_load_json(sp, &stats, err);

	free(sp);
	if (ret)
		return -1;
	if (stats->type != NODE_MAP) {
		strbuf_setf(err, "%s/stats.json: not a map of metric -> value", run_dir);
		node_free(stats);
		return -1;
	}
	matrix_add_stats(g->matrix, stats, run_dir);
	node_free(stats);
	if (!g->run_dir)
		g->run_dir = xstrdup(run_dir);
	return 0;
}

static bool is_dir_with(const char *dir, const char *file)
{
	char *p = xasprintf("%s/%s", dir, file);
	bool ok = !access(p, R_OK);
	free(p);
	return ok;
}

/* The first run directory (lowest number with a job.yaml) of a commit directory. */
static char *first_run(const char *commit_dir)
{
	for (int i = 0; i < 10000; i++) {
		char *d = xasprintf("%s/%d", commit_dir, i);
		if (is_dir_with(d, "job.yaml"))
			return d;
		free(d);
		if (i > 100)
			break;
	}
	return NULL;
}

/* A side from the file system: a commit directory, or run directories. */
static int side_from_files(struct side *s, const char *arg, struct matrix_names *names, struct strbuf *err)
{
	if (!strchr(arg, ',') && is_dir_with(arg, "matrix.json")) {
		char *mp = xasprintf("%s/matrix.json", arg), *key, *desc;
		struct matrix *m = NULL;
		int r = matrix_load_json(mp, names, &m, err);
		free(mp);
		s->label = path_tail(arg, 1, 0);
		if (r > 0)
			strbuf_setf(err, "%s: not a matrix (a map of metric -> samples)", s->label ? s->label : arg);
		if (r)
			return -1;
		group_of(arg, 0, &key, &desc);
		struct group *g = add_group(s, key, desc, names);
		matrix_unref(g->matrix);
		g->matrix = m;
		g->run_dir = first_run(arg);
		free(key);
		free(desc);
		return 0;
	}
	char *copy = xstrdup(arg), *save = NULL;
	int ret = 0;
	for (char *d = strtok_r(copy, ",", &save); d && !ret; d = strtok_r(NULL, ",", &save)) {
		char *key, *desc;
		if (!is_dir_with(d, "stats.json")) {
			strbuf_setf(err, "%s: neither a commit directory (matrix.json) nor a run directory (stats.json)", d);
			ret = -1;
			break;
		}
		group_of(d, 1, &key, &desc);
		ret = load_run(add_group(s, key, desc, names), d, err);
		if (!s->label)
			s->label = path_tail(d, 1, 1);
		free(key);
		free(desc);
	}
	free(copy);
	return ret;
}

/* Each group's rounds, from its runs' job.yaml (once its runs are all in). */
static void side_rounds(struct side *s)
{
	for (size_t i = 0; i < s->ng; i++) {
		free(s->g[i].rounds);
		s->g[i].rounds = sampling_rounds((const char *const *)s->g[i].matrix->source, s->g[i].matrix->nsource,
						 &s->g[i].nrounds);
	}
}

/*
 * A side from the store: every run of the one commit starting with arg,
 * asked of the store by that commit (indexed: the cost does not grow with
 * the runs of other commits).
 */
static int side_from_store(struct side *s, struct store *st, const char *arg, struct matrix_names *names,
			   struct strbuf *err)
{
	struct node *runs = NULL, *match = NULL;
	char *commit = NULL;
	int ret = -1;

	if (store_commit_with_runs(st, arg, &match, err))
		return -1;
	if (match->n > 1) {
		strbuf_setf(err, "'%s' names more than one commit in the store (%s, %s); give more of it", arg,
			    node_str(node_get(match->vals[0], "commit")), node_str(node_get(match->vals[1], "commit")));
		goto out;
	}
	if (!match->n) {
		strbuf_setf(err, "'%s': not a result directory, and no commit of that name in the store", arg);
		goto out;
	}
	commit = xstrdup(node_str(node_get(match->vals[0], "commit")));
	struct store_query q = { .commit = commit };
	if (store_list_runs(st, &q, &runs, err))
		goto out;
	for (size_t i = 0; i < runs->n; i++) {
		const struct node *r = runs->vals[i];
		const char *c = node_str(node_get(r, "commit")), *rt = node_str(node_get(r, "result_root"));
		const char *tc = node_str(node_get(r, "testcase")), *pp = node_str(node_get(r, "path_params"));
		const char *tg = node_str(node_get(r, "tbox_group")), *rootfs = node_str(node_get(r, "rootfs"));
		const char *kc = node_str(node_get(r, "kconfig")), *cc = node_str(node_get(r, "compiler"));
		struct node *stats = NULL;
		if (!c || strcmp(c, commit) || !rt)
			continue; /* the store's own query asked for commit */
		char *key = xasprintf("%s/%s/%s/%s/%s/%s", tc ? tc : "", pp ? pp : "", tg ? tg : "", rootfs ? rootfs : "",
				      kc ? kc : "", cc ? cc : "");
		char *desc = xasprintf("%s/%s/%s", tc ? tc : "", pp ? pp : "", tg ? tg : "");
		struct group *g = add_group(s, key, desc, names);
		free(key);
		free(desc);
		if (store_run_stats(st, rt, &stats, err) < 0)
			goto out;
		if (stats)
			matrix_add_stats(g->matrix, stats, rt);
		node_free(stats);
		if (!g->run_dir)
			g->run_dir = xstrdup(rt);
	}
	s->label = commit;
	commit = NULL;
	side_rounds(s);
	ret = 0;
out:
	free(commit);
	node_free(runs);
	node_free(match);
	return ret;
}

int sides_from_store(struct side *s, struct store *st, const char *commit, struct strbuf *err)
{
	struct matrix_names *names = matrix_names_new();
	int ret = side_from_store(s, st, commit, names, err);

	matrix_names_unref(names); /* the matrices hold it */
	return ret;
}

void sides_rounds(const struct group *const *groups, size_t n, const uint64_t **rounds, size_t *nrounds)
{
	for (size_t i = 0; i < n; i++) {
		rounds[i] = groups[i] ? groups[i]->rounds : NULL;
		nrounds[i] = groups[i] ? groups[i]->nrounds : 0;
	}
}

int sides_load(char *const *args, size_t n, const char *db, const char *result_dir, struct side **out,
	       struct strbuf *err)
{
	struct side *sides = xcalloc(n ? n : 1, sizeof(*sides));
	struct matrix_names *names = matrix_names_new(); /* one for every side: a metric's name is kept once */
	struct store *st = NULL;
	char *dbpath = NULL;
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		const char *arg = args[i];
		if (!access(arg, F_OK) || strchr(arg, '/') || strchr(arg, ',')) {
			if (side_from_files(&sides[i], arg, names, err))
				goto out;
			side_rounds(&sides[i]);
			continue;
		}
		if (!st) {
			dbpath = store_default_path(db, result_dir);
			if (access(dbpath, R_OK)) {
				strbuf_setf(err, "'%s': not a result directory, and there is no store at %s (--db FILE)", arg,
					    dbpath);
				goto out;
			}
			if (!(st = store_open(dbpath, err)))
				goto out;
		}
		if (side_from_store(&sides[i], st, arg, names, err))
			goto out;
	}
	ret = 0;
out:
	if (st)
		store_close(st);
	matrix_names_unref(names);
	free(dbpath);
	if (ret) {
		sides_release(sides, n);
		sides = NULL;
	}
	*out = sides;
	return ret;
}

void sides_release(struct side *sides, size_t n)
{
	for (size_t i = 0; sides && i < n; i++)
		side_release(&sides[i]);
	free(sides);
}

const struct group *side_match(const struct side *s, const struct side *base, const struct group *bg)
{
	/* a directory side has one group: it pairs with the base's whatever its path */
	if (s->ng == 1 && base->ng == 1)
		return &s->g[0];
	for (size_t j = 0; j < s->ng; j++)
		if (!strcmp(s->g[j].key, bg->key))
			return &s->g[j];
	return NULL;
}

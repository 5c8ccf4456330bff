/*
 * store_bisect: the bisections table — each bisection's arguments (to
 * resume it), how it ended and why, and the rows the dashboard lists.
 * See store.h.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The statements of this file, by id (store_int.h). */
const char *const store_bisect_sql[ST_NR] = {
	[ST_BISECT_ADD] =
		"INSERT INTO bisections(tree, good, bad, job, overrides, provider, first_parent,"
		" metric, status, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?9)"
		" RETURNING id",
	[ST_BISECT_GET] =
		"SELECT tree, good, bad, job, overrides, provider, first_parent, metric, status,"
		" culprit FROM bisections WHERE id = ?1",
	[ST_BISECT_END] =
		"UPDATE bisections SET metric = ?2, status = ?3, culprit = ?4, updated = ?5, why = ?6"
		" WHERE id = ?1",
	[ST_BISECT_SAME] =
		"SELECT id FROM bisections WHERE tree = ?1 AND good = ?2 AND bad = ?3 AND job = ?4"
		" AND overrides = ?5 AND provider = ?6 AND first_parent = ?7"
		" ORDER BY status = 'running' DESC, id DESC LIMIT 1",
	[ST_BISECT_CHECKS] = "UPDATE bisections SET checks = ?2, updated = ?3 WHERE id = ?1",
	[ST_BISECT_LIST] =
		"SELECT id, tree, good, bad, job, provider, metric, status, culprit, created, updated, why, checks"
		" FROM bisections ORDER BY id DESC LIMIT 500",
	[ST_BISECT_ROW] =
		"SELECT id, tree, good, bad, job, provider, metric, status, culprit, created, updated, why, checks"
		" FROM bisections WHERE id = ?1",
};

/* A bisection's arguments as ?1..?7 (tree, good, bad, job, overrides, provider, first_parent). */
static void bind_bisection(sqlite3_stmt *q, const struct store_bisection *b)
{
	store_bind_text(q, 1, b->tree);
	store_bind_text(q, 2, b->good);
	store_bind_text(q, 3, b->bad);
	store_bind_text(q, 4, b->job);
	store_bind_text(q, 5, b->overrides ? b->overrides : "");
	store_bind_text(q, 6, b->provider);
	sqlite3_bind_int64(q, 7, b->first_parent);
}

int64_t store_bisection_add(struct store *s, const struct store_bisection *b, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BISECT_ADD, err);
	int64_t id = -1;

	if (q) {
		bind_bisection(q, b);
		store_bind_text(q, 8, b->metric);
		sqlite3_bind_int64(q, 9, (int64_t)time(NULL));
		id = store_returned_id(store_step_id(s, q, err), err);
	}
	if (id < 0)
		store_context(s, err, "record the bisection");
	return id;
}

int store_bisection_get(struct store *s, int64_t id, struct store_bisection *b, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BISECT_GET, err);
	int rc;

	memset(b, 0, sizeof(*b));
	if (!q)
		return store_context(s, err, "read bisection %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		b->tree = store_column_dup(q, 0);
		b->good = store_column_dup(q, 1);
		b->bad = store_column_dup(q, 2);
		b->job = store_column_dup(q, 3);
		b->overrides = store_column_dup(q, 4);
		b->provider = store_column_dup(q, 5);
		b->first_parent = sqlite3_column_int64(q, 6) != 0;
		b->metric = store_column_dup(q, 7);
		b->status = store_column_dup(q, 8);
		b->culprit = store_column_dup(q, 9);
		sqlite3_reset(q);
		return 0;
	}
	if (rc == SQLITE_DONE)
		strbuf_setf(err, "no bisection %lld in %s ('lkprobot bisect' prints the id of each)", (long long)id,
			    s->path);
	else
		store_sqlerr(s, err);
	sqlite3_reset(q);
	return -1;
}

int store_bisection_end(struct store *s, int64_t id, const char *metric, const char *status, const char *culprit,
			const char *why, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BISECT_END, err);

	if (!q)
		return store_context(s, err, "record how bisection %lld ended", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	store_bind_text(q, 2, metric);
	store_bind_text(q, 3, status);
	store_bind_text(q, 4, culprit);
	sqlite3_bind_int64(q, 5, (int64_t)time(NULL));
	store_bind_text(q, 6, why);
	if (store_step_done(s, q, err))
		return store_context(s, err, "record how bisection %lld ended", (long long)id);
	return 0;
}

int store_bisection_checks(struct store *s, int64_t id, const char *checks, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BISECT_CHECKS, err);

	if (!q)
		return store_context(s, err, "record the checks of bisection %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	store_bind_text(q, 2, checks);
	sqlite3_bind_int64(q, 3, (int64_t)time(NULL));
	if (store_step_done(s, q, err))
		return store_context(s, err, "record the checks of bisection %lld", (long long)id);
	return 0;
}

int64_t store_bisection_same(struct store *s, const struct store_bisection *b, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BISECT_SAME, err);
	int64_t id = -1;

	if (q) {
		bind_bisection(q, b);
		id = store_step_id(s, q, err);
	}
	if (id < 0)
		store_context(s, err, "look for the bisection");
	return id;
}

void store_bisection_release(struct store_bisection *b)
{
	free(b->tree);
	free(b->good);
	free(b->bad);
	free(b->job);
	free(b->overrides);
	free(b->provider);
	free(b->metric);
	free(b->status);
	free(b->culprit);
	memset(b, 0, sizeof(*b));
}

static const char *const bisection_keys[] = { "id",	"tree",	   "good",    "bad",	 "job", "provider", "metric",
					      "status", "culprit", "created", "updated", "why", "checks" };

int store_bisections(struct store *s, struct node **out, struct strbuf *err)
{
	return store_list(s, ST_BISECT_LIST, bisection_keys, NKEYS(bisection_keys), "list the bisections", out, err);
}

int store_bisection_row(struct store *s, int64_t id, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BISECT_ROW, err);
	struct node *all;

	*out = NULL;
	if (!q)
		return store_context(s, err, "read bisection %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	if (store_rows(s, q, bisection_keys, NKEYS(bisection_keys), &all, err))
		return store_context(s, err, "read bisection %lld", (long long)id);
	if (all->n) {
		*out = all->vals[0];
		all->n = 0;	/* the row is the caller's now */
	}
	node_free(all);
	return *out ? 0 : 1;
}

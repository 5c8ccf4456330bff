/*
 * store_heads: the service's heads table — each head of a watched branch
 * once, its base, where its testing stands and what came of it. See store.h.
 */
#include "store_int.h"

#include <stdlib.h>

/* The statements of this file, by id (store_int.h). */
const char *const store_heads_sql[ST_NR] = {
	[ST_HEAD_ADD] =
		"INSERT INTO heads(tree, branch, head, base, status, first_seen, updated)"
		" VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5) ON CONFLICT(tree, branch, head) DO NOTHING RETURNING id",
	[ST_HEAD_SET] =
		"UPDATE heads SET status = ?2, result = ?3, updated = ?4 WHERE id = ?1 AND status != 'cancelled'",
	[ST_HEAD_TODO] =
		"SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads"
		" WHERE status IN ('queued', 'testing') ORDER BY id",
	[ST_HEAD_LIST] =
		"SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads ORDER BY id",
	/* a page: on the primary key, whatever the heads before it */
	[ST_HEAD_PAGE] =
		"SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads"
		" WHERE id > ?1 ORDER BY id LIMIT ?2",
	[ST_HEAD_LAST] = "SELECT head FROM heads WHERE tree = ?1 AND branch = ?2 ORDER BY id DESC LIMIT 1",
	[ST_HEAD_LAST_MEASURED] =
		/* a head whose verdict was "not sure" is no base: the one it was measured against stays */
	"SELECT CASE WHEN ifnull(result, '') LIKE '%\"bisect\": \"not-sure\"%' AND ifnull(base, '') != ''"
	" THEN base ELSE head END FROM heads WHERE tree = ?1 AND branch = ?2 AND status IN ('done', 'baseline')"
	" AND id < ?3 ORDER BY id DESC LIMIT 1",
	[ST_HEAD_BASE] = "UPDATE heads SET base = ?2, updated = ?3 WHERE id = ?1",
	[ST_HEAD_RETEST] =
		"UPDATE heads SET status = 'queued', result = NULL, updated = ?2"
		" WHERE id = ?1 AND status IN ('done', 'baseline', 'failed', 'build_failed', 'cancelled')",
	[ST_HEAD_CANCEL] =
		"UPDATE heads SET status = 'cancelled', updated = ?2 WHERE id = ?1 AND status IN ('queued', 'testing')",
	/* what a page shows, on the indexes of migration 10: never every head */
	[ST_HEADS_ABOUT] =
		"SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads"
		" WHERE head = ?1 OR base = ?1 ORDER BY id",
	[ST_HEADS_BETWEEN] =
		"SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads"
		" WHERE head = ?2 AND base = ?1 ORDER BY id",
	[ST_HEADS_BRANCH] =
		"SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads"
		" WHERE tree = ?1 AND branch = ?2 ORDER BY id DESC LIMIT ?3",
	[ST_HEAD_ONE] = "SELECT tree, head, status FROM heads WHERE id = ?1",
	/* a count a branch: the index alone, no head read */
	[ST_HEADS_BRANCHES] = "SELECT tree, branch, count(*), max(id) FROM heads GROUP BY tree, branch",
};

static const char *const head_keys[] = { "id",	   "tree",   "branch",	   "head",   "base",
					 "status", "result", "first_seen", "updated" };

int64_t store_head_add(struct store *s, const char *tree, const char *branch, const char *head, const char *base,
		       int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_HEAD_ADD, err);
	int64_t id = -1;

	if (q) {
		store_bind_text(q, 1, tree);
		store_bind_text(q, 2, branch);
		store_bind_text(q, 3, head);
		store_bind_text(q, 4, base);
		sqlite3_bind_int64(q, 5, now);
		id = store_step_id(s, q, err);
	}
	if (id < 0)
		store_context(s, err, "record head %s of %s %s", head, tree, branch);
	return id;
}

int store_head_set(struct store *s, int64_t id, const char *status, const char *result, int64_t now,
		   struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_HEAD_SET, err);

	if (!q)
		return store_context(s, err, "record head %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	store_bind_text(q, 2, status);
	store_bind_text(q, 3, result);
	sqlite3_bind_int64(q, 4, now);
	int64_t n = store_update(s, q, err);
	if (n < 0)
		return store_context(s, err, "record head %lld", (long long)id);
	return n ? 0 : 1;
}

/* One head of tree's branch by statement st (?3: before, when it takes one), appended to head: 1, 0 none, -1. */
static int head_query(struct store *s, enum stmt_id st, const char *tree, const char *branch, int64_t before,
		      struct strbuf *head, const char *what, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, st, err);
	int rc;

	if (!q)
		return store_context(s, err, "read the %s head of %s %s", what, tree, branch);
	store_bind_text(q, 1, tree);
	store_bind_text(q, 2, branch);
	if (st == ST_HEAD_LAST_MEASURED)
		sqlite3_bind_int64(q, 3, before);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		strbuf_addstr(head, (const char *)sqlite3_column_text(q, 0));
	else if (rc != SQLITE_DONE)
		store_sqlerr(s, err);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_context(s, err, "read the %s head of %s %s", what, tree, branch);
	return rc == SQLITE_ROW;
}

int store_head_last(struct store *s, const char *tree, const char *branch, struct strbuf *head, struct strbuf *err)
{
	return head_query(s, ST_HEAD_LAST, tree, branch, 0, head, "last", err);
}

int store_head_last_measured(struct store *s, const char *tree, const char *branch, int64_t before,
			     struct strbuf *head, struct strbuf *err)
{
	return head_query(s, ST_HEAD_LAST_MEASURED, tree, branch, before, head, "last measured", err);
}

int store_head_set_base(struct store *s, int64_t id, const char *base, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_HEAD_BASE, err);

	if (!q)
		return store_context(s, err, "record the base of head %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	store_bind_text(q, 2, base);
	sqlite3_bind_int64(q, 3, now);
	if (store_update(s, q, err) < 0)
		return store_context(s, err, "record the base of head %lld", (long long)id);
	return 0;
}

int store_heads(struct store *s, bool todo, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "id", "tree", "branch", "head", "base", "status", "result", "first_seen",
					    "updated" };

	return store_list(s, todo ? ST_HEAD_TODO : ST_HEAD_LIST, keys, NKEYS(keys), "list the heads", out, err);
}

int store_heads_page(struct store *s, int64_t after, long limit, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "id",     "tree",	"branch",     "head",	"base",
					    "status", "result", "first_seen", "updated" };
	sqlite3_stmt *q = store_stmt(s, ST_HEAD_PAGE, err);

	*out = NULL;
	if (!q)
		return store_context(s, err, "list the heads");
	sqlite3_bind_int64(q, 1, after);
	sqlite3_bind_int64(q, 2, limit);
	if (store_rows(s, q, keys, NKEYS(keys), out, err))
		return store_context(s, err, "list the heads");
	return 0;
}

/* The rows of statement st with up to two texts and a number bound (NULL, 0: none). */
static int heads_where(struct store *s, enum stmt_id st, const char *a, const char *b, long limit, struct node **out,
		       struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, st, err);

	*out = NULL;
	if (!q)
		return store_context(s, err, "list the heads");
	store_bind_text(q, 1, a);
	if (b)
		store_bind_text(q, 2, b);
	if (limit)
		sqlite3_bind_int64(q, 3, limit);
	if (store_rows(s, q, head_keys, NKEYS(head_keys), out, err))
		return store_context(s, err, "list the heads");
	return 0;
}

int store_heads_about(struct store *s, const char *commit, struct node **out, struct strbuf *err)
{
	return heads_where(s, ST_HEADS_ABOUT, commit, NULL, 0, out, err);
}

int store_heads_between(struct store *s, const char *base, const char *head, struct node **out, struct strbuf *err)
{
	return heads_where(s, ST_HEADS_BETWEEN, base, head, 0, out, err);
}

int store_heads_of_branch(struct store *s, const char *tree, const char *branch, long limit, struct node **out,
			  struct strbuf *err)
{
	return heads_where(s, ST_HEADS_BRANCH, tree, branch, limit, out, err);
}

int store_head_one(struct store *s, int64_t id, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "tree", "head", "status" };
	sqlite3_stmt *q = store_stmt(s, ST_HEAD_ONE, err);
	struct node *rows = NULL;

	*out = NULL;
	if (!q)
		return store_context(s, err, "read head %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	if (store_rows(s, q, keys, NKEYS(keys), &rows, err))
		return store_context(s, err, "read head %lld", (long long)id);
	if (rows->n) {
		*out = rows->vals[0];
		rows->vals[0] = NULL;
		rows->n = 0;
	}
	node_free(rows);
	return *out ? 1 : 0;
}

int store_heads_branches(struct store *s, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "tree", "branch", "total", "newest" };

	return store_list(s, ST_HEADS_BRANCHES, keys, NKEYS(keys), "count the heads", out, err);
}

int store_head_rows(struct store *s, bool todo, struct store_heads *out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, todo ? ST_HEAD_TODO : ST_HEAD_LIST, err);
	int rc = SQLITE_DONE;

	*out = (struct store_heads){ 0 };
	while (q && (rc = sqlite3_step(q)) == SQLITE_ROW) {
		out->v = xrealloc(out->v, (out->n + 1) * sizeof(*out->v));
		out->v[out->n++] = (struct store_head){ .id = sqlite3_column_int64(q, 0),
							.tree = store_column_dup(q, 1),
							.branch = store_column_dup(q, 2),
							.head = store_column_dup(q, 3),
							.base = store_column_dup(q, 4),
							.status = store_column_dup(q, 5),
							.result = store_column_dup(q, 6),
							.first_seen = sqlite3_column_int64(q, 7),
							.updated = sqlite3_column_int64(q, 8) };
	}
	if (q && rc == SQLITE_DONE) {
		sqlite3_reset(q);
		return 0;
	}
	if (q) {
		store_sqlerr(s, err);
		sqlite3_reset(q);
	}
	store_heads_release(out);
	return store_context(s, err, "list the heads");
}

void store_heads_release(struct store_heads *h)
{
	for (size_t i = 0; i < h->n; i++) {
		struct store_head *r = &h->v[i];
		free(r->tree);
		free(r->branch);
		free(r->head);
		free(r->base);
		free(r->status);
		free(r->result);
	}
	free(h->v);
	*h = (struct store_heads){ 0 };
}

/* A head's status from `from` to `to`: 0, or -1 (no such head, or not in a state that allows it). */
static int head_move(struct store *s, enum stmt_id st, int64_t id, int64_t now, const char *what, const char *allowed,
		     struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, st, err);
	int64_t n = -1;

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, now);
		n = store_update(s, q, err);
	}
	if (n < 0)
		return store_context(s, err, "%s head %lld", what, (long long)id);
	if (!n) {
		strbuf_setf(err, "head %lld cannot be %s: no such head, or it is not %s", (long long)id, what, allowed);
		return -1;
	}
	return 0;
}

int store_head_retest(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	return head_move(s, ST_HEAD_RETEST, id, now, "tested again",
			 "done, baseline, failed, build_failed or cancelled", err);
}

int store_head_cancel(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	return head_move(s, ST_HEAD_CANCEL, id, now, "cancelled", "queued or testing", err);
}

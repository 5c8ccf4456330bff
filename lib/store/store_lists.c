/*
 * store_lists: the mailing lists' tables — where the reading of each
 * archive's epoch stopped (list_epochs), and each series seen with its
 * state (series). See store.h.
 */
#include "store_int.h"

#include <stdlib.h>

/* Version 12 (store.c's migrations[]): b4's change-id: of a series, so that a later pass ties its next version to it. */
const char store_migration_change_id[] = "ALTER TABLE series ADD COLUMN change_id TEXT;\n";

/* The statements of this file, by id (store_int.h). */
const char *const store_lists_sql[ST_NR] = {
	[ST_EPOCH_GET] = "SELECT last FROM list_epochs WHERE list = ?1 AND epoch = ?2",
	[ST_EPOCH_SET] =
		"INSERT INTO list_epochs(list, epoch, last, updated) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT(list, epoch) DO UPDATE SET last = ?3, updated = ?4",
	[ST_SERIES_PUT] =
		"INSERT INTO series(list, key, version, subject, author, state, why, parts, base, branch, head,"
		" first_seen, updated, change_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12, ?13)"
		" ON CONFLICT(list, key) DO UPDATE SET version = ?3, subject = ?4, author = ?5, state = ?6, why = ?7,"
		" parts = ?8, base = ?9, branch = ?10, head = ?11, updated = ?12,"
		" change_id = coalesce(?13, change_id) RETURNING id",
	[ST_SERIES_LIST] =
		"SELECT id, list, key, version, subject, author, state, why, parts, base, branch, head,"
		" first_seen, updated, change_id FROM series WHERE ?1 IS NULL OR list = ?1 ORDER BY id",
};

int store_list_epoch(struct store *s, const char *list, int epoch, char **last, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_EPOCH_GET, err);

	*last = NULL;
	if (!q)
		return store_context(s, err, "read epoch %d of list %s", epoch, list);
	store_bind_text(q, 1, list);
	sqlite3_bind_int64(q, 2, epoch);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*last = store_column_dup(q, 0);
	else if (rc != SQLITE_DONE)
		store_sqlerr(s, err);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_context(s, err, "read epoch %d of list %s", epoch, list);
	return *last ? 0 : 1;
}

int store_list_epoch_set(struct store *s, const char *list, int epoch, const char *last, int64_t now,
			 struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_EPOCH_SET, err);

	if (!q)
		return store_context(s, err, "record epoch %d of list %s", epoch, list);
	store_bind_text(q, 1, list);
	sqlite3_bind_int64(q, 2, epoch);
	store_bind_text(q, 3, last);
	sqlite3_bind_int64(q, 4, now);
	if (store_step_done(s, q, err))
		return store_context(s, err, "record epoch %d of list %s", epoch, list);
	return 0;
}

int64_t store_series_put(struct store *s, const struct store_series *ser, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_SERIES_PUT, err);
	int64_t id = -1;

	if (q) {
		const char *text[] = { ser->list, ser->key,   NULL,	 ser->subject, ser->author, ser->state,
				       ser->why,  ser->parts, ser->base, ser->branch,  ser->head };
		for (int i = 0; i < NKEYS(text); i++)
			if (i != 2)
				store_bind_text(q, i + 1, text[i]);
		sqlite3_bind_int64(q, 3, ser->version);
		sqlite3_bind_int64(q, 12, now);
		store_bind_text(q, 13, ser->change_id);
		id = store_returned_id(store_step_id(s, q, err), err);
	}
	if (id < 0)
		store_context(s, err, "record series %s of list %s", ser->key, ser->list);
	return id;
}

static const char *const series_keys[] = { "id",     "list",  "key",	    "version", "subject",
					   "author", "state", "why",	    "parts",   "base",
					   "branch", "head",  "first_seen", "updated", "change_id" };

int store_series_list(struct store *s, const char *list, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_SERIES_LIST, err);

	*out = NULL;
	if (!q)
		return store_context(s, err, "list the series");
	store_bind_text(q, 1, list);
	if (store_rows(s, q, series_keys, NKEYS(series_keys), out, err))
		return store_context(s, err, "list the series");
	return 0;
}

/*
 * store_boxes: the ssh provider's boxes table — whether each box is in
 * service, its failures in a row and its last error. See store.h.
 */
#include "store_int.h"

/* The statements of this file, by id (store_int.h). */
const char *const store_boxes_sql[ST_NR] = {
	[ST_BOX_GET] = "SELECT name, in_service, failures, last_error, last_ok, updated FROM boxes WHERE name = ?1",
	/* ?3: max_failures; the count reaching it takes the box out of service */
	[ST_BOX_FAIL] = "INSERT INTO boxes(name, failures, last_error, updated, in_service) VALUES (?1, 1, ?2, ?4, ?3 > 1)"
		" ON CONFLICT(name) DO UPDATE SET failures = failures + 1, last_error = ?2, updated = ?4,"
		" in_service = in_service AND failures + 1 < ?3 RETURNING in_service",
	[ST_BOX_OK] = "INSERT INTO boxes(name, last_ok, updated) VALUES (?1, ?2, ?2)"
		" ON CONFLICT(name) DO UPDATE SET failures = 0, last_ok = ?2, updated = ?2",
	[ST_BOX_SERVICE] = "INSERT INTO boxes(name, in_service, last_error, updated) VALUES (?1, ?2, ?3, ?4)"
		" ON CONFLICT(name) DO UPDATE SET in_service = ?2, failures = CASE WHEN ?2 THEN 0 ELSE failures END,"
		" last_error = coalesce(?3, last_error), updated = ?4",
	[ST_BOX_LIST] = "SELECT name, in_service, failures, last_error, last_ok, updated FROM boxes ORDER BY name",
};


static const char *const box_keys[] = { "name", "in_service", "failures", "last_error", "last_ok", "updated" };

int store_box_get(struct store *s, const char *name, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BOX_GET, err);
	struct node *all;

	*out = NULL;
	if (!q)
		return store_context(s, err, "read box %s", name);
	store_bind_text(q, 1, name);
	if (store_rows(s, q, box_keys, NKEYS(box_keys), &all, err))
		return store_context(s, err, "read box %s", name);
	if (all->n) {
		*out = all->vals[0];
		all->n = 0;
	}
	node_free(all);
	return *out ? 0 : 1;
}

int store_box_failed(struct store *s, const char *name, const char *why, int max_failures, int64_t now,
		     struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BOX_FAIL, err);
	int64_t in_service;

	if (!q)
		return store_context(s, err, "record a failure of box %s", name);
	store_bind_text(q, 1, name);
	store_bind_text(q, 2, why);
	sqlite3_bind_int64(q, 3, max_failures);
	sqlite3_bind_int64(q, 4, now);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		in_service = sqlite3_column_int64(q, 0);
	else
		store_sqlerr(s, err);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW)
		return store_context(s, err, "record a failure of box %s", name);
	return in_service ? 0 : 1;
}

int store_box_ok(struct store *s, const char *name, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BOX_OK, err);

	if (!q)
		return store_context(s, err, "record a good run of box %s", name);
	store_bind_text(q, 1, name);
	sqlite3_bind_int64(q, 2, now);
	if (store_step_done(s, q, err))
		return store_context(s, err, "record a good run of box %s", name);
	return 0;
}

int store_box_service(struct store *s, const char *name, bool in_service, const char *why, int64_t now,
		      struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_BOX_SERVICE, err);

	if (!q)
		return store_context(s, err, "put box %s %s service", name, in_service ? "back in" : "out of");
	store_bind_text(q, 1, name);
	sqlite3_bind_int64(q, 2, in_service);
	store_bind_text(q, 3, why);
	sqlite3_bind_int64(q, 4, now);
	if (store_step_done(s, q, err))
		return store_context(s, err, "put box %s %s service", name, in_service ? "back in" : "out of");
	return 0;
}

int store_boxes(struct store *s, struct node **out, struct strbuf *err)
{
	return store_list(s, ST_BOX_LIST, box_keys, NKEYS(box_keys), "list the boxes", out, err);
}

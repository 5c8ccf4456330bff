/*
 * store_outbox: the mail outbox table — each message once, its envelope
 * and bytes, and the states of its delivery (queued, connecting, sending,
 * sent, failed, in-doubt). See store.h.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* The statements of this file, by id (store_int.h). */
const char *const store_outbox_sql[ST_NR] = {
	[ST_OUTBOX_ADD] = "INSERT INTO outbox(message_id, mail_from, rcpts, data, status, next_try, created, updated)"
		" VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5, ?5) ON CONFLICT(message_id) DO NOTHING RETURNING id",
	[ST_OUTBOX_GET] = "SELECT id, message_id, mail_from, rcpts, data, status, attempts, next_try, last_error,"
		" created, updated, sent FROM outbox WHERE id = ?1",
	[ST_OUTBOX_CLAIM] = "UPDATE outbox SET status = 'connecting', sender_pid = ?2, attempts = attempts + 1,"
		" updated = ?3 WHERE id = ?1 AND status = 'queued'",
	[ST_OUTBOX_DATA] = "UPDATE outbox SET status = 'sending', updated = ?2 WHERE id = ?1 AND status = 'connecting'",
	[ST_OUTBOX_UNCLAIM] = "UPDATE outbox SET status = 'queued', sender_pid = NULL, updated = ?1 WHERE status = 'connecting'",
	[ST_OUTBOX_DONE] = "UPDATE outbox SET status = ?2, last_error = ?3, next_try = ?4, updated = ?5,"
		" sent = CASE WHEN ?2 = 'sent' THEN ?5 ELSE sent END, sender_pid = NULL"
		" WHERE id = ?1 AND status IN ('connecting', 'sending')",
	[ST_OUTBOX_RETRY] = "UPDATE outbox SET status = 'queued', next_try = ?2, updated = ?2"
		" WHERE id = ?1 AND status IN ('failed', 'in-doubt', 'queued')",
	[ST_OUTBOX_RECOVER] = "UPDATE outbox SET status = 'in-doubt', updated = ?1, last_error ="
		" 'the sender stopped while delivering it: the server may have taken it; lkprobot outbox retry ID sends it again'"
		" WHERE status = 'sending'",
	[ST_OUTBOX_DUE] = "SELECT id FROM outbox WHERE status = 'queued' AND next_try <= ?1 ORDER BY next_try, id",
	/* with the header block (to its blank line, at most 16 KiB): the dashboard shows subjects */
	[ST_OUTBOX_LIST] = "SELECT id, message_id, status, attempts, next_try, last_error, created, updated, sent,"
		" rcpts, CAST(substr(data, 1, CASE WHEN instr(data, X'0D0A0D0A') BETWEEN 1 AND 16384"
		" THEN instr(data, X'0D0A0D0A') + 1 ELSE 16384 END) AS TEXT) FROM outbox ORDER BY id",
	/* the first report that is not refused for good whose X-lkprobot-Commit starts with ?1 (?2: not a dry run's) */
	[ST_OUTBOX_OF_COMMIT] = "SELECT message_id, h FROM (SELECT id, message_id, status, CAST(substr(data, 1,"
		" CASE WHEN instr(data, X'0D0A0D0A') BETWEEN 1 AND 16384 THEN instr(data, X'0D0A0D0A') + 1 ELSE 16384 END)"
		" AS TEXT) AS h FROM outbox) WHERE status != 'failed'"
		" AND instr(h, char(13, 10) || 'X-lkprobot-Commit: ' || ?1) > 0"
		" AND (?2 = 0 OR instr(h, char(13, 10) || 'X-lkprobot-Dry-Run:') = 0) ORDER BY id LIMIT 1",
};


int64_t store_outbox_add(struct store *s, const char *message_id, const char *from, const char *rcpts,
			 const char *data, size_t len, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_ADD, err);
	int64_t id = -1;

	if (q) {
		store_bind_text(q, 1, message_id);
		store_bind_text(q, 2, from);
		store_bind_text(q, 3, rcpts);
		sqlite3_bind_blob(q, 4, data, (int)len, SQLITE_STATIC);
		sqlite3_bind_int64(q, 5, now);
		id = store_step_id(s, q, err);
	}
	if (id < 0)
		store_context(s, err, "queue %s", message_id);
	return id;
}

int store_outbox_get(struct store *s, int64_t id, struct store_mail *m, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_GET, err);
	int rc;

	memset(m, 0, sizeof(*m));
	if (!q)
		return store_context(s, err, "read outbox message %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		m->id = sqlite3_column_int64(q, 0);
		m->message_id = store_column_dup(q, 1);
		m->from = store_column_dup(q, 2);
		m->rcpts = store_column_dup(q, 3);
		m->len = (size_t)sqlite3_column_bytes(q, 4);
		m->data = xmalloc(m->len + 1);
		if (m->len)
			memcpy(m->data, sqlite3_column_blob(q, 4), m->len);
		m->data[m->len] = '\0';
		m->status = store_column_dup(q, 5);
		m->attempts = (int)sqlite3_column_int64(q, 6);
		m->next_try = sqlite3_column_int64(q, 7);
		m->last_error = store_column_dup(q, 8);
		m->created = sqlite3_column_int64(q, 9);
		m->updated = sqlite3_column_int64(q, 10);
		m->sent = sqlite3_column_int64(q, 11);
		sqlite3_reset(q);
		return 0;
	}
	if (rc == SQLITE_DONE)
		strbuf_setf(err, "no message %lld in the outbox of %s ('lkprobot outbox list' shows them)", (long long)id,
			    s->path);
	else
		store_sqlerr(s, err);
	sqlite3_reset(q);
	return -1;
}

void store_mail_release(struct store_mail *m)
{
	free(m->message_id);
	free(m->from);
	free(m->rcpts);
	free(m->data);
	free(m->status);
	free(m->last_error);
	memset(m, 0, sizeof(*m));
}

/* Run an UPDATE; the number of rows it changed, or -1. */

int store_outbox_claim(struct store *s, int64_t id, int pid, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_CLAIM, err);
	int64_t n = -1;

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, pid);
		sqlite3_bind_int64(q, 3, now);
		n = store_update(s, q, err);
	}
	if (n < 0)
		return store_context(s, err, "claim outbox message %lld", (long long)id);
	return n > 0;
}

int store_outbox_done(struct store *s, int64_t id, const char *status, const char *error, int64_t next_try,
		      int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_DONE, err);

	if (!q)
		return store_context(s, err, "record delivery of outbox message %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	store_bind_text(q, 2, status);
	store_bind_text(q, 3, error);
	sqlite3_bind_int64(q, 4, next_try);
	sqlite3_bind_int64(q, 5, now);
	if (store_update(s, q, err) < 0)
		return store_context(s, err, "record delivery of outbox message %lld", (long long)id);
	return 0;
}

int store_outbox_retry(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_RETRY, err);
	int64_t n = -1;

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, now);
		n = store_update(s, q, err);
	}
	if (n < 0)
		return store_context(s, err, "requeue outbox message %lld", (long long)id);
	if (!n) {
		strbuf_setf(err, "outbox message %lld is not failed, in doubt or queued (sent, being sent, or no such message)",
			    (long long)id);
		return -1;
	}
	return 0;
}

int store_outbox_data(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_DATA, err);

	if (!q)
		return store_context(s, err, "mark outbox message %lld as being sent", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_int64(q, 2, now);
	int64_t n = store_update(s, q, err);
	if (n < 0)
		return store_context(s, err, "mark outbox message %lld as being sent", (long long)id);
	if (!n) {
		strbuf_setf(err, "store '%s': outbox message %lld is no longer being connected (another sender?)",
			    s->path, (long long)id);
		return -1;
	}
	return 0;
}

long store_outbox_recover(struct store *s, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_UNCLAIM, err);
	int64_t n = -1;

	/* left before the message started to leave: the server cannot have it */
	if (q) {
		sqlite3_bind_int64(q, 1, now);
		n = store_update(s, q, err) < 0 ? -1 : 0;
	}
	if (n >= 0 && (q = store_stmt(s, ST_OUTBOX_RECOVER, err))) {
		sqlite3_bind_int64(q, 1, now);
		n = store_update(s, q, err);
	}
	if (n < 0)
		store_context(s, err, "look for interrupted deliveries");
	return (long)n;
}

int store_outbox_due(struct store *s, int64_t now, int64_t **ids, size_t *n, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_DUE, err);
	int rc;

	*ids = NULL;
	*n = 0;
	if (!q)
		return store_context(s, err, "list the due messages");
	sqlite3_bind_int64(q, 1, now);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		store_sqlerr(s, err);
		return store_context(s, err, "list the due messages");
	}
	return 0;
}

int store_outbox_list(struct store *s, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "id", "message_id", "status", "attempts", "next_try", "last_error",
					    "created", "updated", "sent", "rcpts", "headers" };

	return store_list(s, ST_OUTBOX_LIST, keys, NKEYS(keys), "list the outbox", out, err);
}

int store_outbox_of_commit(struct store *s, const char *commit, bool sent_live, char **message_id, char **headers,
			   struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_OUTBOX_OF_COMMIT, err);
	int rc;

	*message_id = *headers = NULL;
	if (!q)
		return store_context(s, err, "look for the report of %s", commit);
	store_bind_text(q, 1, commit);
	sqlite3_bind_int(q, 2, sent_live);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*message_id = store_column_dup(q, 0);
		*headers = store_column_dup(q, 1);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		store_sqlerr(s, err);
		return store_context(s, err, "look for the report of %s", commit);
	}
	return rc == SQLITE_ROW;
}

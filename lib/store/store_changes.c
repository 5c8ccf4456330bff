/*
 * store_changes: what changed, by topic — the counters the triggers of
 * migration 9 move on at every write to a topic's tables. See store.h.
 */
#include "store_int.h"

#include <string.h>

/* The statements of this file, by id (store_int.h). */
const char *const store_changes_sql[ST_NR] = {
	[ST_CHANGES] = "SELECT topic, version FROM changes",
};

static const char *const topics[STORE_NTOPICS] = {
	[STORE_TOPIC_RUNS] = "runs",	 [STORE_TOPIC_HEADS] = "heads", [STORE_TOPIC_BISECTIONS] = "bisections",
	[STORE_TOPIC_OUTBOX] = "outbox", [STORE_TOPIC_BOXES] = "boxes", [STORE_TOPIC_SERIES] = "series",
};

int store_changes(struct store *s, int64_t *v, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_CHANGES, err);
	int rc;

	memset(v, 0, STORE_NTOPICS * sizeof(*v));
	if (!q)
		return store_context(s, err, "read what changed");
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(q, 0);
		for (int i = 0; t && i < STORE_NTOPICS; i++)
			if (!strcmp(t, topics[i]))
				v[i] = sqlite3_column_int64(q, 1);
	}
	if (rc != SQLITE_DONE)
		store_sqlerr(s, err);
	sqlite3_reset(q);
	return rc == SQLITE_DONE ? 0 : store_context(s, err, "read what changed");
}

/*
 * store_changes: what changed, by topic — the counters the triggers of
 * migration 10 move on at every write to a topic's tables. See store.h.
 */
#include "store_int.h"

#include <string.h>

/*
 * Version 10 (store.c's migrations[]): what changed, by topic — a counter a
 * topic, moved on by triggers on every write to its tables, whoever writes.
 */
const char store_migration_changes[] =
	"CREATE TABLE changes (topic TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID, STRICT;\n"
	"INSERT INTO changes VALUES ('runs', 0), ('heads', 0), ('bisections', 0), ('outbox', 0), ('boxes', 0),"
	" ('series', 0), ('reports', 0);\n"
	"CREATE TRIGGER changes_runs_insert AFTER INSERT ON runs BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'runs'; END;\n"
	"CREATE TRIGGER changes_runs_update AFTER UPDATE ON runs BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'runs'; END;\n"
	"CREATE TRIGGER changes_runs_delete AFTER DELETE ON runs BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'runs'; END;\n"
	"CREATE TRIGGER changes_machines_insert AFTER INSERT ON machines BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'runs'; END;\n"
	"CREATE TRIGGER changes_machines_update AFTER UPDATE ON machines BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'runs'; END;\n"
	"CREATE TRIGGER changes_machines_delete AFTER DELETE ON machines BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'runs'; END;\n"
	"CREATE TRIGGER changes_heads_insert AFTER INSERT ON heads BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'heads'; END;\n"
	"CREATE TRIGGER changes_heads_update AFTER UPDATE ON heads BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'heads'; END;\n"
	"CREATE TRIGGER changes_heads_delete AFTER DELETE ON heads BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'heads'; END;\n"
	"CREATE TRIGGER changes_bisections_insert AFTER INSERT ON bisections BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'bisections'; END;\n"
	"CREATE TRIGGER changes_bisections_update AFTER UPDATE ON bisections BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'bisections'; END;\n"
	"CREATE TRIGGER changes_bisections_delete AFTER DELETE ON bisections BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'bisections'; END;\n"
	"CREATE TRIGGER changes_outbox_insert AFTER INSERT ON outbox BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'outbox'; END;\n"
	"CREATE TRIGGER changes_outbox_update AFTER UPDATE ON outbox BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'outbox'; END;\n"
	"CREATE TRIGGER changes_outbox_delete AFTER DELETE ON outbox BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'outbox'; END;\n"
	"CREATE TRIGGER changes_boxes_insert AFTER INSERT ON boxes BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'boxes'; END;\n"
	"CREATE TRIGGER changes_boxes_update AFTER UPDATE ON boxes BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'boxes'; END;\n"
	"CREATE TRIGGER changes_boxes_delete AFTER DELETE ON boxes BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'boxes'; END;\n"
	"CREATE TRIGGER changes_series_insert AFTER INSERT ON series BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'series'; END;\n"
	"CREATE TRIGGER changes_series_update AFTER UPDATE ON series BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'series'; END;\n"
	"CREATE TRIGGER changes_series_delete AFTER DELETE ON series BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'series'; END;\n"
	"CREATE TRIGGER changes_list_epochs_insert AFTER INSERT ON list_epochs BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'series'; END;\n"
	"CREATE TRIGGER changes_list_epochs_update AFTER UPDATE ON list_epochs BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'series'; END;\n"
	"CREATE TRIGGER changes_list_epochs_delete AFTER DELETE ON list_epochs BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'series'; END;\n"
	"CREATE TRIGGER changes_reports_insert AFTER INSERT ON reports BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_reports_update AFTER UPDATE ON reports BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_reports_delete AFTER DELETE ON reports BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_report_history_insert AFTER INSERT ON report_history BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_report_history_update AFTER UPDATE ON report_history BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_report_history_delete AFTER DELETE ON report_history BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_report_commands_insert AFTER INSERT ON report_commands BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_report_commands_update AFTER UPDATE ON report_commands BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n"
	"CREATE TRIGGER changes_report_commands_delete AFTER DELETE ON report_commands BEGIN"
	" UPDATE changes SET version = version + 1 WHERE topic = 'reports'; END;\n";
/* The statements of this file, by id (store_int.h). */
const char *const store_changes_sql[ST_NR] = {
	[ST_CHANGES] = "SELECT topic, version FROM changes",
};

static const char *const topics[STORE_NTOPICS] = {
	[STORE_TOPIC_RUNS] = "runs",	   [STORE_TOPIC_HEADS] = "heads", [STORE_TOPIC_BISECTIONS] = "bisections",
	[STORE_TOPIC_OUTBOX] = "outbox",   [STORE_TOPIC_BOXES] = "boxes", [STORE_TOPIC_SERIES] = "series",
	[STORE_TOPIC_REPORTS] = "reports",
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

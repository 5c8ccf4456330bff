/*
 * store_reports: the reports the robot mailed, each with its triage state
 * and that state's history (who, when, why, from which mail or action),
 * found by Message-ID or by commit; the commands of the replies to them,
 * each recorded before it is acted on and with its answer's Message-ID, so
 * that it is answered once whatever the restarts. See store.h.
 */
#include "store_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The migration that makes these tables (its row is the last of store.c's migrations[]). */
const char store_reports_schema[] =
	"CREATE TABLE reports (id INTEGER PRIMARY KEY, message_id TEXT NOT NULL UNIQUE, tree TEXT, branch TEXT,"
	" culprit TEXT NOT NULL, parent TEXT, job TEXT, testcase TEXT, machine TEXT, metric TEXT, change REAL,"
	" lo REAL, hi REAL, kind TEXT, bisection INTEGER, outbox INTEGER, subject TEXT, rcpts TEXT, sections TEXT,"
	" state TEXT NOT NULL DEFAULT 'new', fixed_at TEXT, dup_of INTEGER, created INTEGER NOT NULL,"
	" updated INTEGER NOT NULL) STRICT;\n"
	"CREATE INDEX reports_culprit ON reports(culprit);\n"
	"CREATE INDEX reports_job ON reports(testcase, machine);\n"
	"CREATE TABLE report_history (id INTEGER PRIMARY KEY, report INTEGER NOT NULL REFERENCES reports(id),"
	" state TEXT NOT NULL, was TEXT, who TEXT NOT NULL, why TEXT, source TEXT, at INTEGER NOT NULL) STRICT;\n"
	"CREATE INDEX report_history_report ON report_history(report);\n"
	"CREATE TABLE report_commands (id INTEGER PRIMARY KEY, mail TEXT NOT NULL, n INTEGER NOT NULL,"
	" report INTEGER, sender TEXT, command TEXT NOT NULL, args TEXT, status TEXT NOT NULL, answer TEXT,"
	" result TEXT, created INTEGER NOT NULL, updated INTEGER NOT NULL, UNIQUE(mail, n)) STRICT;\n";

#define REPORT_COLS \
	"id, message_id, tree, branch, culprit, parent, job, testcase, machine, metric, change, lo, hi, kind," \
	" bisection, outbox, subject, rcpts, sections, state, fixed_at, dup_of, created, updated"

static const char *const report_keys[] = { "id",       "message_id", "tree",	  "branch", "culprit", "parent",
					   "job",      "testcase",   "machine",	  "metric", "change",  "lo",
					   "hi",       "kind",	     "bisection", "outbox", "subject", "rcpts",
					   "sections", "state",	     "fixed_at",  "dup_of", "created", "updated" };

/* The statements of this file, by id (store_int.h). */
const char *const store_reports_sql[ST_NR] = {
	[ST_REPORT_ADD] =
		"INSERT INTO reports(message_id, tree, branch, culprit, parent, job, testcase, machine, metric, change,"
		" lo, hi, kind, bisection, outbox, subject, rcpts, sections, created, updated) VALUES (?1, ?2, ?3, ?4,"
		" ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?19, ?18, ?18) ON CONFLICT(message_id) "
		"DO UPDATE"
		" SET outbox = ifnull(outbox, ?15) RETURNING id",
	[ST_REPORT_GET] = "SELECT " REPORT_COLS " FROM reports WHERE id = ?1",
	[ST_REPORT_BY_MID] = "SELECT id FROM reports WHERE message_id = ?1",
	[ST_REPORT_OF_COMMIT] = "SELECT " REPORT_COLS
				" FROM reports WHERE culprit >= ?1 AND culprit < ?1 || 'g'"
				" ORDER BY id",
	[ST_REPORT_LIST] = "SELECT " REPORT_COLS " FROM reports ORDER BY id DESC",
	[ST_REPORT_OPEN] = "SELECT " REPORT_COLS
			   " FROM reports WHERE tree = ?1 AND branch = ?2"
			   " AND state IN ('new', 'acknowledged') ORDER BY id",
	[ST_REPORT_STATE] =
		"UPDATE reports SET state = ?2, fixed_at = ifnull(?3, fixed_at),"
		" dup_of = ifnull(?4, dup_of), updated = ?5 WHERE id = ?1 RETURNING 1",
	[ST_REPORT_HIST_ADD] =
		"INSERT INTO report_history(report, state, was, who, why, source, at)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_REPORT_HIST] = "SELECT state, was, who, why, source, at FROM report_history WHERE report = ?1 ORDER BY id",
	[ST_REPORT_ACCURACY] =
		"SELECT testcase, machine, count(*), sum(state IN ('acknowledged', 'fixed', 'wont-fix')),"
		" sum(state = 'invalid'), sum(state = 'duplicate'), sum(state = 'new') FROM reports"
		" GROUP BY testcase, machine ORDER BY testcase, machine",
	[ST_REPORT_TRIAGED] =
		"SELECT count(*), ifnull(sum(state IN ('acknowledged', 'fixed', 'wont-fix')), 0) FROM (SELECT state"
		" FROM reports WHERE testcase = ?1 AND machine = ?2 AND state != 'new' ORDER BY id DESC LIMIT ?3)",
	[ST_CMD_ADD] =
		"INSERT INTO report_commands(mail, n, report, sender, command, args, status, created, updated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8) ON CONFLICT(mail, n) DO NOTHING RETURNING id",
	[ST_CMD_SET] =
		"UPDATE report_commands SET status = ?2, answer = ifnull(?3, answer), result = ifnull(?4, result),"
		" updated = ?5 WHERE id = ?1",
	[ST_CMD_TODO] =
		"SELECT id, mail, n, report, sender, command, args, status, answer, result, created FROM "
		"report_commands"
		" WHERE status IN ('queued', 'acting') ORDER BY id",
	[ST_CMD_LIST] =
		"SELECT id, mail, n, report, sender, command, args, status, answer, result, created, updated"
		" FROM report_commands WHERE ?1 = 0 OR report = ?1 ORDER BY id",
};

static void bind_num(sqlite3_stmt *q, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(q, i, v);
	else
		sqlite3_bind_null(q, i);
}

int64_t store_report_add(struct store *s, const struct store_report *r, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_REPORT_ADD, err);
	int64_t id = -1;

	if (q) {
		const char *text[] = { r->message_id, r->tree,	   r->branch,  r->culprit, r->parent,
				       r->job,	      r->testcase, r->machine, r->metric };
		for (int i = 0; i < NKEYS(text); i++)
			store_bind_text(q, i + 1, text[i]);
		bind_num(q, 10, r->change);
		bind_num(q, 11, r->lo);
		bind_num(q, 12, r->hi);
		store_bind_text(q, 13, r->kind);
		store_bind_int(q, 14, r->bisection);
		store_bind_int(q, 15, r->outbox);
		store_bind_text(q, 16, r->subject);
		store_bind_text(q, 17, r->rcpts);
		sqlite3_bind_int64(q, 18, now);
		store_bind_text(q, 19, r->sections);
		id = store_returned_id(store_step_id(s, q, err), err);
	}
	if (id < 0)
		store_context(s, err, "record report %s", r->message_id);
	return id;
}

/* The rows of a statement whose ?1 is id (0: none bound) and ?2 text (NULL: none). 0, or -1 with err set. */
static int rows_of(struct store *s, enum stmt_id st, int64_t id, const char *text, const char *const *keys, int n,
		   struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, st, err);

	*out = NULL;
	if (!q)
		return -1;
	if (text)
		store_bind_text(q, 1, text);
	else
		sqlite3_bind_int64(q, 1, id);
	return store_rows(s, q, keys, n, out, err);
}

int store_report_get(struct store *s, int64_t id, struct node **out, struct strbuf *err)
{
	struct node *rows;

	*out = NULL;
	if (rows_of(s, ST_REPORT_GET, id, NULL, report_keys, NKEYS(report_keys), &rows, err))
		return store_context(s, err, "read report %lld", (long long)id);
	if (rows->n) {
		*out = rows->vals[0];
		rows->vals[0] = NULL;
		rows->n = 0;
	}
	node_free(rows);
	return *out ? 0 : 1;
}

int64_t store_report_by_message(struct store *s, const char *message_id, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_REPORT_BY_MID, err);
	int64_t id = -1;

	if (q) {
		store_bind_text(q, 1, message_id);
		id = store_step_id(s, q, err);
	}
	if (id < 0)
		store_context(s, err, "find report %s", message_id);
	return id;
}

int store_reports_of_commit(struct store *s, const char *prefix, struct node **out, struct strbuf *err)
{
	if (rows_of(s, ST_REPORT_OF_COMMIT, 0, prefix, report_keys, NKEYS(report_keys), out, err))
		return store_context(s, err, "list the reports of %s", prefix);
	return 0;
}

int store_reports(struct store *s, struct node **out, struct strbuf *err)
{
	return store_list(s, ST_REPORT_LIST, report_keys, NKEYS(report_keys), "list the reports", out, err);
}

int store_reports_open(struct store *s, const char *tree, const char *branch, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_REPORT_OPEN, err);

	*out = NULL;
	if (q) {
		store_bind_text(q, 1, tree);
		store_bind_text(q, 2, branch);
	}
	if (!q || store_rows(s, q, report_keys, NKEYS(report_keys), out, err))
		return store_context(s, err, "list the open reports of %s %s", tree, branch);
	return 0;
}

/* The state's change and its line of history, in the open transaction: 0, 1 no such report, -1. */
static int set_state(struct store *s, const struct store_triage *t, const char *was, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_REPORT_STATE, err);

	if (!q)
		return -1;
	sqlite3_bind_int64(q, 1, t->report);
	store_bind_text(q, 2, t->state);
	store_bind_text(q, 3, t->fixed_at);
	store_bind_int(q, 4, t->dup_of);
	sqlite3_bind_int64(q, 5, now);
	int64_t found = store_step_id(s, q, err);
	if (found <= 0)
		return found < 0 ? -1 : 1;
	if (!(q = store_stmt(s, ST_REPORT_HIST_ADD, err)))
		return -1;
	sqlite3_bind_int64(q, 1, t->report);
	store_bind_text(q, 2, t->state);
	store_bind_text(q, 3, was);
	store_bind_text(q, 4, t->who);
	store_bind_text(q, 5, t->why);
	store_bind_text(q, 6, t->source);
	sqlite3_bind_int64(q, 7, now);
	return store_step_done(s, q, err);
}

int store_report_triage(struct store *s, const struct store_triage *t, int64_t now, struct strbuf *err)
{
	struct node *r = NULL;
	int rc;

	if (store_tx_begin(s, ST_BEGIN_WRITE, err))
		return store_context(s, err, "set the state of report %lld", (long long)t->report);
	if ((rc = store_report_get(s, t->report, &r, err)) == 0)
		rc = set_state(s, t, node_str(node_get(r, "state")), now, err);
	node_free(r);
	if (rc || store_tx_commit(s, err)) {
		store_rollback(s);
		if (rc > 0) {
			strbuf_setf(err, "no report %lld", (long long)t->report);
			return 1;
		}
		return store_context(s, err, "set the state of report %lld", (long long)t->report);
	}
	return 0;
}

static const char *const hist_keys[] = { "state", "was", "who", "why", "source", "at" };

int store_report_history(struct store *s, int64_t id, struct node **out, struct strbuf *err)
{
	if (rows_of(s, ST_REPORT_HIST, id, NULL, hist_keys, NKEYS(hist_keys), out, err))
		return store_context(s, err, "read the history of report %lld", (long long)id);
	return 0;
}

static const char *const acc_keys[] = { "testcase", "machine", "reports", "confirmed", "invalid", "corrected", "new" };

int store_report_accuracy(struct store *s, struct node **out, struct strbuf *err)
{
	return store_list(s, ST_REPORT_ACCURACY, acc_keys, NKEYS(acc_keys), "count the reports' states", out, err);
}

int store_report_triaged(struct store *s, const char *testcase, const char *machine, int last, long *n, long *confirmed,
			 struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_REPORT_TRIAGED, err);
	int rc = SQLITE_ERROR;

	*n = *confirmed = 0;
	if (q) {
		store_bind_text(q, 1, testcase);
		store_bind_text(q, 2, machine);
		sqlite3_bind_int(q, 3, last);
		if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
			*n = (long)sqlite3_column_int64(q, 0);
			*confirmed = (long)sqlite3_column_int64(q, 1);
		} else {
			store_sqlerr(s, err);
		}
		sqlite3_reset(q);
	}
	return rc == SQLITE_ROW ? 0 : store_context(s, err, "count the reports of %s on %s", testcase, machine);
}

int64_t store_command_add(struct store *s, const struct store_command *c, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_CMD_ADD, err);
	int64_t id = -1;

	if (q) {
		store_bind_text(q, 1, c->mail);
		sqlite3_bind_int(q, 2, c->n);
		store_bind_int(q, 3, c->report);
		store_bind_text(q, 4, c->sender);
		store_bind_text(q, 5, c->command);
		store_bind_text(q, 6, c->args);
		store_bind_text(q, 7, c->status);
		sqlite3_bind_int64(q, 8, now);
		id = store_step_id(s, q, err);
	}
	if (id < 0)
		store_context(s, err, "record the command of %s", c->mail);
	return id;
}

int store_command_set(struct store *s, int64_t id, const char *status, const char *answer, const char *result,
		      int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_CMD_SET, err);

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		store_bind_text(q, 2, status);
		store_bind_text(q, 3, answer);
		store_bind_text(q, 4, result);
		sqlite3_bind_int64(q, 5, now);
	}
	if (!q || store_step_done(s, q, err))
		return store_context(s, err, "record command %lld", (long long)id);
	return 0;
}

static const char *const cmd_keys[] = { "id",	"mail",	  "n",	    "report", "sender",	 "command",
					"args", "status", "answer", "result", "created", "updated" };

int store_commands_todo(struct store *s, struct node **out, struct strbuf *err)
{
	return store_list(s, ST_CMD_TODO, cmd_keys, 11, "list the commands to do", out, err);
}

int store_commands(struct store *s, int64_t report, struct node **out, struct strbuf *err)
{
	if (rows_of(s, ST_CMD_LIST, report, NULL, cmd_keys, NKEYS(cmd_keys), out, err))
		return store_context(s, err, "list the commands");
	return 0;
}

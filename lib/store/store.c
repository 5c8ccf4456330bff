/*
 * store: the SQLite index of result roots, its schema and migrations. See
 * store.h. The only file that includes sqlite3.h.
 *
 * The schema is versioned from day one: PRAGMA user_version is the number
 * of migrations applied; migrations[] is append-only (never edit a step
 * that has shipped, add one). Each step runs in its own IMMEDIATE
 * transaction together with its user_version bump, and re-reads the
 * version inside that transaction, so that two processes opening a fresh
 * store at once apply each step once. SQL text is constant: values are
 * always bound, never formatted in.
 */
#include "store.h"
#include "../util/json.h"

#include <ctype.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* PRAGMA application_id of an lkprobot store: "lkpr". */
#define STORE_APPLICATION_ID 0x6c6b7072

struct migration {
	const char *what;	/* for the error message */
	const char *sql;
};

/*
 * Version 1: what a result root says about a run. Runs point at the
 * interned machine, commit and atomic job they ran; stats name metrics by
 * id (a farm holds millions of stats rows and a few thousand metric
 * names). Rows hanging off a run go with it (ON DELETE CASCADE). stats has
 * no index by metric on purpose: each run would touch hundreds of its
 * pages (measured: recording 300 stats took 4.5 ms instead of 0.75 ms);
 * queries reach stats through their runs.
 *
 * A later step that must rebuild a table (SQLite's "12-step" ALTER) cannot
 * turn foreign keys off inside its transaction; it has to keep the
 * referencing tables valid instead.
 */
static const char migration_1[] =
	"CREATE TABLE machines (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	name TEXT NOT NULL UNIQUE,	-- testbox\n"
	"	tbox_group TEXT NOT NULL,\n"
	"	nr_cpu INTEGER,\n"
	"	memory INTEGER,			-- bytes\n"
	"	model TEXT,\n"
	"	brand TEXT,\n"
	"	updated INTEGER NOT NULL	-- last recorded, epoch seconds\n"
	") STRICT;\n"
	"CREATE INDEX machines_tbox_group ON machines(tbox_group);\n"
	"CREATE TABLE commits (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	name TEXT NOT NULL UNIQUE	-- sha, or kernel release\n"
	") STRICT;\n"
	"CREATE TABLE jobs (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	testcase TEXT NOT NULL,\n"
	"	path_params TEXT NOT NULL,\n"
	"	hash TEXT NOT NULL,		-- FNV-1a 64 of yaml: a lookup key\n"
	"	yaml TEXT NOT NULL		-- the atomic job\n"
	") STRICT;\n"
	"CREATE INDEX jobs_hash ON jobs(hash);\n"
	"CREATE INDEX jobs_testcase ON jobs(testcase, path_params);\n"
	"CREATE TABLE runs (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	result_root TEXT NOT NULL UNIQUE,\n"
	"	run_no INTEGER NOT NULL CHECK (run_no >= 0),\n"
	"	job_id INTEGER NOT NULL REFERENCES jobs(id),\n"
	"	commit_id INTEGER NOT NULL REFERENCES commits(id),\n"
	"	machine_id INTEGER REFERENCES machines(id),\n"
	"	tbox_group TEXT NOT NULL,\n"
	"	kconfig TEXT,\n"
	"	compiler TEXT,\n"
	"	rootfs TEXT,\n"
	"	job_state TEXT,\n"
	"	start_time INTEGER,		-- epoch seconds\n"
	"	end_time INTEGER,\n"
	"	created INTEGER NOT NULL,\n"
	"	updated INTEGER NOT NULL\n"
	") STRICT;\n"
	"CREATE INDEX runs_commit ON runs(commit_id, tbox_group);\n"
	"CREATE INDEX runs_job ON runs(job_id);\n"
	"CREATE INDEX runs_machine ON runs(machine_id);\n"
	"CREATE TABLE metrics (\n"
	"	id INTEGER PRIMARY KEY,\n"
	"	name TEXT NOT NULL UNIQUE	-- fio.write_bw_MBps\n"
	") STRICT;\n"
	"CREATE TABLE stats (\n"
	"	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
	"	metric_id INTEGER NOT NULL REFERENCES metrics(id),\n"
	"	value REAL NOT NULL,\n"
	"	is_float INTEGER NOT NULL CHECK (is_float IN (0, 1)),\n"
	"	PRIMARY KEY (run_id, metric_id)\n"
	") STRICT, WITHOUT ROWID;\n"
	"CREATE TABLE unavailable (\n"
	"	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
	"	what TEXT NOT NULL,\n"
	"	why TEXT NOT NULL,\n"
	"	PRIMARY KEY (run_id, what)\n"
	") STRICT, WITHOUT ROWID;\n"
	"CREATE TABLE facts (\n"
	"	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
	"	key TEXT NOT NULL,\n"
	"	value TEXT NOT NULL,\n"
	"	PRIMARY KEY (run_id, key)\n"
	") STRICT, WITHOUT ROWID;\n"
	"PRAGMA application_id = 1818980466;\n";	/* STORE_APPLICATION_ID */

/* Bisections: their arguments (to resume one) and how they ended. */
static const char migration_2[] =
	"CREATE TABLE bisections (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  tree TEXT NOT NULL,\n"
	"  good TEXT NOT NULL,\n"
	"  bad TEXT NOT NULL,\n"
	"  job TEXT NOT NULL,\n"
	"  overrides TEXT NOT NULL,\n"
	"  provider TEXT NOT NULL,\n"
	"  first_parent INTEGER NOT NULL,\n"
	"  metric TEXT,\n"
	"  status TEXT NOT NULL,\n"
	"  culprit TEXT,\n"
	"  created INTEGER NOT NULL,\n"
	"  updated INTEGER NOT NULL\n"
	") STRICT;\n";

/*
 * The outbox: each message once (its Message-ID), its envelope, and where
 * its delivery stands: queued, sending (a sender holds it), sent, failed
 * (a permanent refusal), in-doubt (a sender died while the server may have
 * taken it: never sent again without the operator).
 */
static const char migration_3[] =
	"CREATE TABLE outbox (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  message_id TEXT NOT NULL UNIQUE,\n"
	"  mail_from TEXT NOT NULL,\n"
	"  rcpts TEXT NOT NULL,\n"
	"  data BLOB NOT NULL,\n"
	"  status TEXT NOT NULL,\n"
	"  attempts INTEGER NOT NULL DEFAULT 0,\n"
	"  next_try INTEGER NOT NULL,\n"
	"  last_error TEXT,\n"
	"  sender_pid INTEGER,\n"
	"  created INTEGER NOT NULL,\n"
	"  updated INTEGER NOT NULL,\n"
	"  sent INTEGER\n"
	") STRICT;\n"
	"CREATE INDEX outbox_due ON outbox(status, next_try);\n";

/*
 * The service's work: each head of each watched branch once, with the
 * base it is compared with, where its testing stands and what came of it.
 */
static const char migration_4[] =
	"CREATE TABLE heads (\n"
	"  id INTEGER PRIMARY KEY,\n"
	"  tree TEXT NOT NULL,\n"
	"  branch TEXT NOT NULL,\n"
	"  head TEXT NOT NULL,\n"
	"  base TEXT NOT NULL,\n"
	"  status TEXT NOT NULL,\n"
	"  result TEXT,\n"
	"  first_seen INTEGER NOT NULL,\n"
	"  updated INTEGER NOT NULL,\n"
	"  UNIQUE(tree, branch, head)\n"
	") STRICT;\n";

/*
 * Version 5: the ssh provider's test boxes, whether each one is in service.
 * A box that failed max_failures runs in a row (did not come back, came
 * back with another kernel) is taken out of service until an operator puts
 * it back; a good run clears its count.
 */
static const char migration_5[] =
	"CREATE TABLE boxes (\n"
	"  name TEXT PRIMARY KEY,\n"
	"  in_service INTEGER NOT NULL DEFAULT 1,\n"
	"  failures INTEGER NOT NULL DEFAULT 0,	-- in a row\n"
	"  last_error TEXT,\n"
	"  last_ok INTEGER,\n"
	"  updated INTEGER NOT NULL\n"
	") STRICT;\n";

/*
 * Version 6: why a bisection ended as it did (the decision's reason, or
 * the error that stopped it), so that the dashboard and `status` can say it.
 */
static const char migration_6[] = "ALTER TABLE bisections ADD COLUMN why TEXT;\n";

static const struct migration migrations[] = {
	{ "runs, stats, machines, commits and jobs", migration_1 },
	{ "bisections", migration_2 },
	{ "outbox", migration_3 },
	{ "heads", migration_4 },
	{ "boxes", migration_5 },
	{ "the reason a bisection ended", migration_6 },
};

_Static_assert(ARRAY_SIZE(migrations) == STORE_SCHEMA_VERSION,
	       "STORE_SCHEMA_VERSION must count the migrations");
_Static_assert(STORE_APPLICATION_ID == 1818980466, "application_id in migration_1");

#ifdef LKP_TEST
/* Tests replace the migration list to simulate upgrades and failures. */
static const struct migration *test_migrations;
static size_t test_nmigrations;
#endif

static const struct migration *migration_list(size_t *n)
{
#ifdef LKP_TEST
	if (test_migrations) {
		*n = test_nmigrations;
		return test_migrations;
	}
#endif
	*n = ARRAY_SIZE(migrations);
	return migrations;
}

/* Statements prepared once per store, on first use. */
#define NKEYS(a) ((int)(sizeof(a) / sizeof((a)[0])))

enum stmt_id {
	ST_BEGIN_WRITE,
	ST_BEGIN_READ,
	ST_COMMIT,
	ST_SAVEPOINT,
	ST_RELEASE,
	ST_ROLLBACK_TO,
	ST_ROLLBACK,
	ST_COMMIT_GET,
	ST_COMMIT_PREFIX,
	ST_COMMIT_ADD,
	ST_MACHINE_PUT,
	ST_JOB_GET,
	ST_JOB_ADD,
	ST_RUN_PUT,
	ST_METRIC_GET,
	ST_METRIC_ADD,
	ST_STATS_DEL,
	ST_STAT_PUT,
	ST_UNAV_DEL,
	ST_UNAV_PUT,
	ST_FACTS_DEL,
	ST_FACT_PUT,
	ST_RUN_STATS,
	ST_RUN_UNAV,
	ST_RUN_FACTS,
	ST_FORGET,
	ST_BISECT_ADD,
	ST_BISECT_GET,
	ST_BISECT_END,
	ST_BISECT_SAME,
	ST_OUTBOX_ADD,
	ST_OUTBOX_GET,
	ST_OUTBOX_CLAIM,
	ST_OUTBOX_DATA,
	ST_OUTBOX_UNCLAIM,
	ST_OUTBOX_DONE,
	ST_OUTBOX_RETRY,
	ST_OUTBOX_RECOVER,
	ST_OUTBOX_DUE,
	ST_OUTBOX_LIST,
	ST_OUTBOX_OF_COMMIT,
	ST_HEAD_ADD,
	ST_HEAD_SET,
	ST_HEAD_TODO,
	ST_HEAD_LIST,
	ST_HEAD_LAST,
	ST_HEAD_LAST_MEASURED,
	ST_HEAD_BASE,
	ST_HEAD_RETEST,
	ST_HEAD_CANCEL,
	ST_HISTORY,
	ST_MACHINES,
	ST_BISECT_LIST,
	ST_BISECT_ROW,
	ST_BOX_GET,
	ST_BOX_FAIL,
	ST_BOX_OK,
	ST_BOX_SERVICE,
	ST_BOX_LIST,
	ST_NR
};

static const char *const stmt_sql[ST_NR] = {
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
	[ST_HEAD_ADD] = "INSERT INTO heads(tree, branch, head, base, status, first_seen, updated)"
		" VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5) ON CONFLICT(tree, branch, head) DO NOTHING RETURNING id",
	[ST_HEAD_SET] = "UPDATE heads SET status = ?2, result = ?3, updated = ?4 WHERE id = ?1 AND status != 'cancelled'",
	[ST_HEAD_TODO] = "SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads"
		" WHERE status IN ('queued', 'testing') ORDER BY id",
	[ST_HEAD_LIST] = "SELECT id, tree, branch, head, base, status, result, first_seen, updated FROM heads ORDER BY id",
	[ST_HEAD_LAST] = "SELECT head FROM heads WHERE tree = ?1 AND branch = ?2 ORDER BY id DESC LIMIT 1",
	[ST_HEAD_LAST_MEASURED] = "SELECT head FROM heads WHERE tree = ?1 AND branch = ?2 AND status = 'done'"
		" AND id < ?3 ORDER BY id DESC LIMIT 1",
	[ST_HEAD_BASE] = "UPDATE heads SET base = ?2, updated = ?3 WHERE id = ?1",
	[ST_HEAD_RETEST] = "UPDATE heads SET status = 'queued', result = NULL, updated = ?2"
		" WHERE id = ?1 AND status IN ('done', 'failed', 'build_failed', 'cancelled')",
	[ST_HEAD_CANCEL] = "UPDATE heads SET status = 'cancelled', updated = ?2 WHERE id = ?1 AND status IN ('queued', 'testing')",
	/* one row a commit, in the order the commits were first run; samples in run order */
	[ST_HISTORY] = "SELECT c.name, MIN(COALESCE(r.start_time, 0)), COUNT(*), AVG(st.value), MIN(st.value),"
		" MAX(st.value), group_concat(st.value, ' ') FROM jobs j JOIN runs r ON r.job_id = j.id"
		" JOIN commits c ON c.id = r.commit_id JOIN stats st ON st.run_id = r.id"
		" AND st.metric_id = (SELECT id FROM metrics WHERE name = ?3)"
		" WHERE j.testcase = ?1 AND j.path_params = ?2 AND (?4 IS NULL OR r.tbox_group = ?4)"
		" GROUP BY r.commit_id ORDER BY 2, MIN(r.id) LIMIT 2000",
	[ST_MACHINES] = "SELECT m.name, m.tbox_group, m.nr_cpu, m.memory, m.model, COUNT(r.id), MAX(r.end_time)"
		" FROM machines m LEFT JOIN runs r ON r.machine_id = m.id GROUP BY m.id ORDER BY m.tbox_group, m.name",
	[ST_BISECT_LIST] = "SELECT id, tree, good, bad, job, provider, metric, status, culprit, created, updated, why"
		" FROM bisections ORDER BY id DESC LIMIT 500",
	[ST_BISECT_ROW] = "SELECT id, tree, good, bad, job, provider, metric, status, culprit, created, updated, why"
		" FROM bisections WHERE id = ?1",
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
	/* the first report that is not refused for good whose X-lkprobot-Commit starts with ?1 */
	[ST_OUTBOX_OF_COMMIT] = "SELECT message_id, h FROM (SELECT id, message_id, status, CAST(substr(data, 1,"
		" CASE WHEN instr(data, X'0D0A0D0A') BETWEEN 1 AND 16384 THEN instr(data, X'0D0A0D0A') + 1 ELSE 16384 END)"
		" AS TEXT) AS h FROM outbox) WHERE status != 'failed'"
		" AND instr(h, char(13, 10) || 'X-lkprobot-Commit: ' || ?1) > 0 ORDER BY id LIMIT 1",
	[ST_BISECT_ADD] = "INSERT INTO bisections(tree, good, bad, job, overrides, provider, first_parent,"
		" metric, status, created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'running', ?9, ?9)"
		" RETURNING id",
	[ST_BISECT_GET] = "SELECT tree, good, bad, job, overrides, provider, first_parent, metric, status,"
		" culprit FROM bisections WHERE id = ?1",
	[ST_BISECT_END] = "UPDATE bisections SET metric = ?2, status = ?3, culprit = ?4, updated = ?5, why = ?6"
		" WHERE id = ?1",
	[ST_BISECT_SAME] = "SELECT id FROM bisections WHERE tree = ?1 AND good = ?2 AND bad = ?3 AND job = ?4"
		" AND overrides = ?5 AND provider = ?6 AND first_parent = ?7"
		" ORDER BY status = 'running' DESC, id DESC LIMIT 1",
	[ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
	[ST_BEGIN_READ] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
	[ST_SAVEPOINT] = "SAVEPOINT lkp_inner",
	[ST_RELEASE] = "RELEASE lkp_inner",
	[ST_ROLLBACK_TO] = "ROLLBACK TO lkp_inner",
	[ST_ROLLBACK] = "ROLLBACK",
	[ST_COMMIT_GET] = "SELECT id FROM commits WHERE name = ?1",
	[ST_COMMIT_PREFIX] = "SELECT name FROM commits WHERE name GLOB ?1 || '*' ORDER BY name LIMIT 2",
	[ST_COMMIT_ADD] = "INSERT INTO commits(name) VALUES (?1)",
	[ST_MACHINE_PUT] =
		"INSERT INTO machines(name, tbox_group, nr_cpu, memory, model, brand, updated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
		" ON CONFLICT(name) DO UPDATE SET tbox_group = excluded.tbox_group,"
		" nr_cpu = coalesce(excluded.nr_cpu, nr_cpu),"
		" memory = coalesce(excluded.memory, memory),"
		" model = coalesce(excluded.model, model),"
		" brand = coalesce(excluded.brand, brand), updated = excluded.updated"
		" RETURNING id",
	[ST_JOB_GET] = "SELECT id FROM jobs WHERE hash = ?1 AND testcase = ?2"
		" AND path_params = ?3 AND yaml = ?4",
	[ST_JOB_ADD] = "INSERT INTO jobs(hash, testcase, path_params, yaml)"
		" VALUES (?1, ?2, ?3, ?4)",
	[ST_RUN_PUT] =
		"INSERT INTO runs(result_root, run_no, job_id, commit_id, machine_id,"
		" tbox_group, kconfig, compiler, rootfs, job_state, start_time, end_time,"
		" created, updated)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?13)"
		" ON CONFLICT(result_root) DO UPDATE SET run_no = excluded.run_no,"
		" job_id = excluded.job_id, commit_id = excluded.commit_id,"
		" machine_id = excluded.machine_id, tbox_group = excluded.tbox_group,"
		" kconfig = excluded.kconfig, compiler = excluded.compiler,"
		" rootfs = excluded.rootfs, job_state = excluded.job_state,"
		" start_time = excluded.start_time, end_time = excluded.end_time,"
		" updated = excluded.updated"
		" RETURNING id",
	[ST_METRIC_GET] = "SELECT id FROM metrics WHERE name = ?1",
	[ST_METRIC_ADD] = "INSERT INTO metrics(name) VALUES (?1)",
	[ST_STATS_DEL] = "DELETE FROM stats WHERE run_id = ?1",
	[ST_STAT_PUT] = "INSERT INTO stats(run_id, metric_id, value, is_float)"
		" VALUES (?1, ?2, ?3, ?4) ON CONFLICT(run_id, metric_id)"
		" DO UPDATE SET value = excluded.value, is_float = excluded.is_float",
	[ST_UNAV_DEL] = "DELETE FROM unavailable WHERE run_id = ?1",
	[ST_UNAV_PUT] = "INSERT INTO unavailable(run_id, what, why) VALUES (?1, ?2, ?3)"
		" ON CONFLICT(run_id, what) DO UPDATE SET why = excluded.why",
	[ST_FACTS_DEL] = "DELETE FROM facts WHERE run_id = ?1",
	[ST_FACT_PUT] = "INSERT INTO facts(run_id, key, value) VALUES (?1, ?2, ?3)"
		" ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value",
	/* one statement, one snapshot: no row = no run, a NULL name = no stats */
	[ST_RUN_STATS] = "SELECT r.id, m.name, s.value, s.is_float FROM runs r"
		" LEFT JOIN stats s ON s.run_id = r.id"
		" LEFT JOIN metrics m ON m.id = s.metric_id"
		" WHERE r.result_root = ?1 ORDER BY m.name",
	[ST_RUN_UNAV] = "SELECT what, why FROM unavailable WHERE run_id = ?1 ORDER BY what",
	[ST_RUN_FACTS] = "SELECT key, value FROM facts WHERE run_id = ?1 ORDER BY key",
	/* '/' + 1 == '0': [dir/, dir0) is everything under dir, on the index */
	[ST_FORGET] = "DELETE FROM runs WHERE result_root = ?1"
		" OR (result_root >= ?2 AND result_root < ?3)",
};

struct store {
	sqlite3 *db;
	char *path;
	int busy_ms;
	bool batch;		/* in store_batch_begin(): each write a savepoint of one transaction */
	sqlite3_stmt *stmt[ST_NR];
};

/* ---- errors ---- */

/* SQLite's reason for the last failure, once, as one line. */
static int sqlerr(struct store *s, struct strbuf *err)
{
	strbuf_setf(err, "%s", sqlite3_errmsg(s->db));
	if ((sqlite3_errcode(s->db) & 0xff) == SQLITE_BUSY)
		strbuf_addf(err, " (another process kept it busy for more than %d ms)",
			    s->busy_ms);
	return -1;
}

/* Put "store 'path': cannot <what>: " in front of err. */
static int context(struct store *s, struct strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int context(struct store *s, struct strbuf *err, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	strbuf_addf(&sb, "store '%s': cannot ", s->path);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addf(&sb, ": %s", err->buf);
	strbuf_reset(err);
	strbuf_addstr(err, sb.buf);
	strbuf_release(&sb);
	return -1;
}

/* ---- statements ---- */

/* The statement, prepared or reset with its bindings cleared. */
static sqlite3_stmt *stmt(struct store *s, enum stmt_id id, struct strbuf *err)
{
	sqlite3_stmt *q = s->stmt[id];

	if (q) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
		return q;
	}
	if (sqlite3_prepare_v3(s->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &q,
			       NULL) != SQLITE_OK) {
		sqlerr(s, err);
		return NULL;
	}
	s->stmt[id] = q;
	return q;
}

static int bind_text(sqlite3_stmt *q, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(q, i);
	return sqlite3_bind_text(q, i, v, -1, SQLITE_STATIC);
}

/* 0 binds NULL: "unknown" */
static int bind_int(sqlite3_stmt *q, int i, int64_t v)
{
	if (!v)
		return sqlite3_bind_null(q, i);
	return sqlite3_bind_int64(q, i, v);
}

/* Step a statement that returns no row (or whose rows we ignore), then reset it. */
static int step_done(struct store *s, sqlite3_stmt *q, struct strbuf *err)
{
	int rc = sqlite3_step(q);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sqlerr(s, err);
		sqlite3_reset(q);
		return -1;
	}
	sqlite3_reset(q);
	return 0;
}

/*
 * Run a statement whose first row's first column is an id (a SELECT, or
 * RETURNING) to its end. Returns the id, 0 when there was no row, -1 on
 * error.
 */
static int64_t step_id(struct store *s, sqlite3_stmt *q, struct strbuf *err)
{
	int64_t id = 0;
	int rc;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (!id)
			id = sqlite3_column_int64(q, 0);
	if (rc != SQLITE_DONE) {
		sqlerr(s, err);
		id = -1;
	}
	sqlite3_reset(q);
	return id;
}

/* The id an upsert RETURNING gave; it always gives one. */
static int64_t returned_id(int64_t id, struct strbuf *err)
{
	if (!id) {
		strbuf_setf(err, "no row id returned");
		return -1;
	}
	return id;
}

static int run_stmt(struct store *s, enum stmt_id id, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, id, err);

	return q ? step_done(s, q, err) : -1;
}

/* Roll back whatever is open (in a batch: the write's own savepoint); keeps err (the reason) as it is. */
static void rollback(struct store *s)
{
	struct strbuf ignored = STRBUF_INIT;

	if (s->batch) {
		if (!run_stmt(s, ST_ROLLBACK_TO, &ignored))
			run_stmt(s, ST_RELEASE, &ignored);
	} else if (!sqlite3_get_autocommit(s->db)) {
		run_stmt(s, ST_ROLLBACK, &ignored);
	}
	strbuf_release(&ignored);
}

/* A transaction of its own, or in a batch a savepoint of the batch's. */
static int tx_begin(struct store *s, enum stmt_id kind, struct strbuf *err)
{
	return run_stmt(s, s->batch ? ST_SAVEPOINT : kind, err);
}

static int tx_commit(struct store *s, struct strbuf *err)
{
	return run_stmt(s, s->batch ? ST_RELEASE : ST_COMMIT, err);
}

int store_batch_begin(struct store *s, struct strbuf *err)
{
	if (s->batch) {
		strbuf_setf(err, "store '%s': a batch is open already", s->path);
		return -1;
	}
	if (run_stmt(s, ST_BEGIN_WRITE, err))
		return context(s, err, "begin a batch of writes");
	s->batch = true;
	return 0;
}

int store_batch_end(struct store *s, bool keep, struct strbuf *err)
{
	int ret = 0;

	if (!s->batch)
		return 0;
	s->batch = false;
	if (!keep || run_stmt(s, ST_COMMIT, err)) {
		ret = keep ? context(s, err, "commit the batch of writes") : 0;
		rollback(s);
	}
	return ret;
}

/* A one-row, one-integer query (PRAGMA user_version), prepared each time. */
static int query_int(struct store *s, const char *sql, int64_t *out, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return sqlerr(s, err);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(q, 0);
	else
		sqlerr(s, err);
	sqlite3_finalize(q);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* ---- open, migrate, close ---- */

static int refuse_newer(struct store *s, int64_t version, size_t known, struct strbuf *err)
{
	strbuf_setf(err, "store '%s' has schema version %lld but this lkprobot knows only up to %zu:"
		    " it was written by a newer lkprobot; use that one (a store is never downgraded)",
		    s->path, (long long)version, known);
	return -1;
}

/* Is this an lkprobot store we may migrate? Reads one consistent snapshot. */
static int check_identity(struct store *s, int64_t *version, struct strbuf *err)
{
	sqlite3_stmt *q;
	size_t known;
	int64_t app_id, tables;
	int rc;

	migration_list(&known);
	if (sqlite3_prepare_v2(s->db,
			       "SELECT (SELECT user_version FROM pragma_user_version),"
			       " (SELECT application_id FROM pragma_application_id),"
			       " (SELECT count(*) FROM sqlite_schema)", -1, &q, NULL) != SQLITE_OK) {
		sqlerr(s, err);
		return context(s, err, "read its schema version");
	}
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		sqlerr(s, err);
		sqlite3_finalize(q);
		return context(s, err, "read its schema version");
	}
	*version = sqlite3_column_int64(q, 0);
	app_id = sqlite3_column_int64(q, 1);
	tables = sqlite3_column_int64(q, 2);
	sqlite3_finalize(q);

	if (*version > (int64_t)known)
		return refuse_newer(s, *version, known, err);
	if (*version < 0 || (app_id && app_id != STORE_APPLICATION_ID) ||
	    (*version == 0 && tables)) {
		strbuf_setf(err, "'%s' is an SQLite database but not an lkprobot store"
			    " (application_id %lld, schema version %lld); give another file",
			    s->path, (long long)app_id, (long long)*version);
		return -1;
	}
	return 0;
}

/* Apply the missing migrations, each in its own transaction. */
static int migrate(struct store *s, struct strbuf *err)
{
	size_t n;
	const struct migration *m = migration_list(&n);

	for (;;) {
		struct strbuf bump = STRBUF_INIT;
		int64_t v = 0;
		int rc;

		if (run_stmt(s, ST_BEGIN_WRITE, err))
			return context(s, err, "start migrating its schema");
		/* another process may have migrated since we looked */
		if (query_int(s, "PRAGMA user_version", &v, err)) {
			rollback(s);
			return context(s, err, "read its schema version");
		}
		if (v >= (int64_t)n) {
			rollback(s);
			return v > (int64_t)n ? refuse_newer(s, v, n, err) : 0;
		}
		if (sqlite3_exec(s->db, m[v].sql, NULL, NULL, NULL) != SQLITE_OK) {
			sqlerr(s, err);
			rollback(s);
			return context(s, err, "migrate to schema version %lld (%s)",
					(long long)v + 1, m[v].what);
		}
		/* an integer of ours: PRAGMA values cannot be bound */
		strbuf_addf(&bump, "PRAGMA user_version = %lld", (long long)v + 1);
		rc = sqlite3_exec(s->db, bump.buf, NULL, NULL, NULL);
		strbuf_release(&bump);
		if (rc != SQLITE_OK)
			sqlerr(s, err);
		if (rc != SQLITE_OK || run_stmt(s, ST_COMMIT, err)) {
			rollback(s);
			return context(s, err, "migrate to schema version %lld (%s)",
					(long long)v + 1, m[v].what);
		}
	}
}

struct store *store_open(const char *path, struct strbuf *err)
{
	struct store *s;
	size_t known;
	int64_t version = 0;
	int rc;

	if (!path || !*path) {
		strbuf_setf(err, "no store given; name a database file");
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->busy_ms = STORE_BUSY_TIMEOUT_MS;
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		strbuf_setf(err, "%s", s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		context(s, err, "open it");
		store_close(s);
		return NULL;
	}
	sqlite3_busy_timeout(s->db, s->busy_ms);
	if (check_identity(s, &version, err))
		goto fail;
	/* outside any transaction: these are no-ops inside one */
	if (sqlite3_exec(s->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
			 " PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK) {
		sqlerr(s, err);
		context(s, err, "set it up");
		goto fail;
	}
	migration_list(&known);
	if (version < (int64_t)known && migrate(s, err))
		goto fail;
	return s;
fail:
	store_close(s);
	return NULL;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < ST_NR; i++)
		sqlite3_finalize(s->stmt[i]);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

/* ---- recording ---- */

static uint64_t fnv1a(const char *p)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

/* A result root or directory without its trailing slashes ("/" stays "/"). */
static void path_trim(struct strbuf *sb, const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	strbuf_reset(sb);
	strbuf_add(sb, path, len);
}

/* A metric's number, strictly: all of the text, finite, not hex. */
static bool parse_number(const char *text, double *v, bool *is_float)
{
	char *end;

	if (!text || !*text || isspace((unsigned char)*text) || strpbrk(text, "xX"))
		return false;
	*v = strtod(text, &end);
	if (*end || !isfinite(*v))
		return false;
	*is_float = strpbrk(text, ".eE") != NULL;
	return true;
}

static const char *scalar_text(const struct node *n)
{
	return n->type == NODE_SCALAR ? n->str : "";
}

/* A map argument: a map whose values are scalars or null (and numbers for stats). */
static int check_map(const struct node *map, const char *name, bool numbers,
		     struct strbuf *err)
{
	if (!map)
		return 0;
	if (map->type != NODE_MAP) {
		strbuf_setf(err, "%s: %s where a map was expected", name, node_type_name(map));
		return -1;
	}
	for (size_t i = 0; i < map->n; i++) {
		const struct node *v = map->vals[i];
		double d;
		bool f;

		if (v->comment)
			continue;
		if (v->type != NODE_SCALAR && v->type != NODE_NULL) {
			strbuf_setf(err, "%s: '%s' is %s, not a single value", name, map->keys[i],
				    node_type_name(v));
			return -1;
		}
		if (numbers && !parse_number(node_str(v), &d, &f)) {
			strbuf_setf(err, "%s: '%s' is '%s', not a finite number", name,
				    map->keys[i], node_str(v) ? node_str(v) : "");
			return -1;
		}
	}
	return 0;
}

static int check_run(const struct store_run *r, struct strbuf *err)
{
	if (!r->result_root || !*r->result_root) {
		strbuf_setf(err, "no result root given");
		return -1;
	}
	if (!r->testcase || !*r->testcase || !r->tbox_group || !*r->tbox_group ||
	    !r->commit || !*r->commit) {
		strbuf_setf(err, "%s missing", !r->testcase || !*r->testcase ? "testcase"
			    : !r->tbox_group || !*r->tbox_group ? "tbox_group" : "commit");
		return -1;
	}
	if (r->run_no < 0) {
		strbuf_setf(err, "run number %d is negative", r->run_no);
		return -1;
	}
	if (r->nr_cpu < 0) {
		strbuf_setf(err, "nr_cpu %d is negative", r->nr_cpu);
		return -1;
	}
	if (r->memory > INT64_MAX) {
		strbuf_setf(err, "memory %llu is too large", (unsigned long long)r->memory);
		return -1;
	}
	if (check_map(r->stats, "stats", true, err) ||
	    check_map(r->unavailable, "unavailable", false, err) ||
	    check_map(r->facts, "facts", false, err))
		return -1;
	return 0;
}

/* The id of a name in commits or metrics, added when new. */
static int64_t intern(struct store *s, enum stmt_id get, enum stmt_id add, const char *name,
		      struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, get, err);
	int64_t id;

	if (!q)
		return -1;
	if (bind_text(q, 1, name))
		return sqlerr(s, err);
	id = step_id(s, q, err);
	if (id)
		return id;
	if (!(q = stmt(s, add, err)))
		return -1;
	if (bind_text(q, 1, name))
		return sqlerr(s, err);
	if (step_done(s, q, err))
		return -1;
	return sqlite3_last_insert_rowid(s->db);
}

static int64_t put_job(struct store *s, const struct store_run *r, struct strbuf *err)
{
	const char *yaml = r->job_yaml ? r->job_yaml : "";
	const char *pp = r->path_params ? r->path_params : "defaults";
	char hash[17];
	sqlite3_stmt *q;
	int64_t id;

	snprintf(hash, sizeof(hash), "%016llx", (unsigned long long)fnv1a(yaml));
	if (!(q = stmt(s, ST_JOB_GET, err)))
		return -1;
	if (bind_text(q, 1, hash) || bind_text(q, 2, r->testcase) || bind_text(q, 3, pp) ||
	    bind_text(q, 4, yaml))
		return sqlerr(s, err);
	id = step_id(s, q, err);
	if (id)
		return id;
	if (!(q = stmt(s, ST_JOB_ADD, err)))
		return -1;
	if (bind_text(q, 1, hash) || bind_text(q, 2, r->testcase) || bind_text(q, 3, pp) ||
	    bind_text(q, 4, yaml))
		return sqlerr(s, err);
	if (step_done(s, q, err))
		return -1;
	return sqlite3_last_insert_rowid(s->db);
}

static int64_t put_machine(struct store *s, const struct store_run *r, int64_t now,
			   struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_MACHINE_PUT, err);

	if (!q)
		return -1;
	if (bind_text(q, 1, r->machine) || bind_text(q, 2, r->tbox_group) ||
	    bind_int(q, 3, r->nr_cpu) || bind_int(q, 4, (int64_t)r->memory) ||
	    bind_text(q, 5, r->model) || bind_text(q, 6, r->brand) ||
	    sqlite3_bind_int64(q, 7, now))
		return sqlerr(s, err);
	return returned_id(step_id(s, q, err), err);
}

static int64_t put_run(struct store *s, const struct store_run *r, const char *root,
		       int64_t job, int64_t commit, int64_t machine, int64_t now,
		       struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_RUN_PUT, err);

	if (!q)
		return -1;
	if (bind_text(q, 1, root) || sqlite3_bind_int64(q, 2, r->run_no) ||
	    sqlite3_bind_int64(q, 3, job) || sqlite3_bind_int64(q, 4, commit) ||
	    bind_int(q, 5, machine) || bind_text(q, 6, r->tbox_group) ||
	    bind_text(q, 7, r->kconfig) || bind_text(q, 8, r->compiler) ||
	    bind_text(q, 9, r->rootfs) || bind_text(q, 10, r->job_state) ||
	    bind_int(q, 11, r->start_time) || bind_int(q, 12, r->end_time) ||
	    sqlite3_bind_int64(q, 13, now))
		return sqlerr(s, err);
	return returned_id(step_id(s, q, err), err);
}

static int del_rows(struct store *s, enum stmt_id id, int64_t run, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, id, err);

	if (!q)
		return -1;
	if (sqlite3_bind_int64(q, 1, run))
		return sqlerr(s, err);
	return step_done(s, q, err);
}

static int put_stats(struct store *s, int64_t run, const struct node *stats,
		     struct strbuf *err)
{
	if (del_rows(s, ST_STATS_DEL, run, err))
		return -1;
	for (size_t i = 0; stats && i < stats->n; i++) {
		sqlite3_stmt *q;
		int64_t metric;
		double v;
		bool is_float;

		if (stats->vals[i]->comment)
			continue;
		parse_number(node_str(stats->vals[i]), &v, &is_float);	/* checked */
		metric = intern(s, ST_METRIC_GET, ST_METRIC_ADD, stats->keys[i], err);
		if (metric < 0 || !(q = stmt(s, ST_STAT_PUT, err)))
			return -1;
		if (sqlite3_bind_int64(q, 1, run) || sqlite3_bind_int64(q, 2, metric) ||
		    sqlite3_bind_double(q, 3, v) || sqlite3_bind_int(q, 4, is_float))
			return sqlerr(s, err);
		if (step_done(s, q, err))
			return -1;
	}
	return 0;
}

/* unavailable (what -> why) or facts (key -> value) */
static int put_pairs(struct store *s, enum stmt_id del, enum stmt_id put, int64_t run,
		     const struct node *map, struct strbuf *err)
{
	if (del_rows(s, del, run, err))
		return -1;
	for (size_t i = 0; map && i < map->n; i++) {
		sqlite3_stmt *q;

		if (map->vals[i]->comment)
			continue;
		if (!(q = stmt(s, put, err)))
			return -1;
		if (sqlite3_bind_int64(q, 1, run) || bind_text(q, 2, map->keys[i]) ||
		    bind_text(q, 3, scalar_text(map->vals[i])))
			return sqlerr(s, err);
		if (step_done(s, q, err))
			return -1;
	}
	return 0;
}

int store_record_run(struct store *s, const struct store_run *r, struct strbuf *err)
{
	struct strbuf root = STRBUF_INIT;
	int64_t now = (int64_t)time(NULL), job = 0, commit = 0, machine = 0, run = 0;

	if (check_run(r, err)) {
		context(s, err, "record run '%s'", r->result_root ? r->result_root : "");
		return -1;
	}
	path_trim(&root, r->result_root);
	if (tx_begin(s, ST_BEGIN_WRITE, err))
		goto fail;
	if ((job = put_job(s, r, err)) < 0 ||
	    (commit = intern(s, ST_COMMIT_GET, ST_COMMIT_ADD, r->commit, err)) < 0 ||
	    (r->machine && (machine = put_machine(s, r, now, err)) < 0) ||
	    (run = put_run(s, r, root.buf, job, commit, machine, now, err)) < 0 ||
	    put_stats(s, run, r->stats, err) ||
	    put_pairs(s, ST_UNAV_DEL, ST_UNAV_PUT, run, r->unavailable, err) ||
	    put_pairs(s, ST_FACTS_DEL, ST_FACT_PUT, run, r->facts, err) ||
	    tx_commit(s, err))
		goto fail;
	strbuf_release(&root);
	return 0;
fail:
	rollback(s);
	context(s, err, "record run '%s'", root.buf);
	strbuf_release(&root);
	return -1;
}

/* ---- forgetting and queries ---- */

/* The bounds of "dir or under it": = exact, or in [lo, hi). */
struct range {
	struct strbuf exact, lo, hi;
};

static void range_init(struct range *r, const char *dir)
{
	strbuf_init(&r->exact, 0);
	strbuf_init(&r->lo, 0);
	strbuf_init(&r->hi, 0);
	path_trim(&r->exact, dir);
	/* "/" is the prefix of every absolute path */
	strbuf_addstr(&r->lo, strcmp(r->exact.buf, "/") ? r->exact.buf : "");
	strbuf_addstr(&r->hi, r->lo.buf);
	strbuf_addch(&r->lo, '/');
	strbuf_addch(&r->hi, '/' + 1);
}

static void range_release(struct range *r)
{
	strbuf_release(&r->exact);
	strbuf_release(&r->lo);
	strbuf_release(&r->hi);
}

long store_forget_under(struct store *s, const char *dir, struct strbuf *err)
{
	struct range rg;
	sqlite3_stmt *q;
	long n = -1;

	if (!dir || !*dir) {
		strbuf_setf(err, "store '%s': cannot forget runs: no directory given", s->path);
		return -1;
	}
	range_init(&rg, dir);
	if (tx_begin(s, ST_BEGIN_WRITE, err) || !(q = stmt(s, ST_FORGET, err)))
		goto out;
	if (bind_text(q, 1, rg.exact.buf) || bind_text(q, 2, rg.lo.buf) ||
	    bind_text(q, 3, rg.hi.buf)) {
		sqlerr(s, err);
		goto out;
	}
	if (step_done(s, q, err))
		goto out;
	n = (long)sqlite3_changes64(s->db);
	if (tx_commit(s, err))
		n = -1;
out:
	if (n < 0) {
		rollback(s);
		context(s, err, "forget runs under '%s'", dir);
	}
	range_release(&rg);
	return n;
}

static const char query_from[] =
	" FROM runs r LEFT JOIN jobs j ON j.id = r.job_id"
	" LEFT JOIN commits c ON c.id = r.commit_id"
	" LEFT JOIN machines m ON m.id = r.machine_id WHERE 1";

/*
 * Prepare "<select> FROM ... WHERE <the query's conditions> <tail>": the
 * conditions are constant text, the values bound in order.
 */
static sqlite3_stmt *prepare_query(struct store *s, const char *select,
				   const struct store_query *qy, const char *tail,
				   struct strbuf *err)
{
	struct strbuf sql = STRBUF_INIT;
	const char *vals[7];
	int nv = 0;
	struct range rg;
	sqlite3_stmt *q = NULL;

	strbuf_addstr(&sql, select);
	strbuf_addstr(&sql, query_from);
	range_init(&rg, qy && qy->under && *qy->under ? qy->under : "/");
	if (qy) {
		const struct {
			const char *val, *cond;
		} eq[] = {
			{ qy->testcase, " AND j.testcase = ?" },
			{ qy->path_params, " AND j.path_params = ?" },
			{ qy->tbox_group, " AND r.tbox_group = ?" },
			{ qy->commit, " AND c.name = ?" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(eq); i++) {
			if (!eq[i].val)
				continue;
			strbuf_addstr(&sql, eq[i].cond);
			vals[nv++] = eq[i].val;
		}
		if (qy->under && *qy->under) {
			strbuf_addstr(&sql, " AND (r.result_root = ?"
				      " OR (r.result_root >= ? AND r.result_root < ?))");
			vals[nv++] = rg.exact.buf;
			vals[nv++] = rg.lo.buf;
			vals[nv++] = rg.hi.buf;
		}
	}
	strbuf_addstr(&sql, tail);
	if (sqlite3_prepare_v2(s->db, sql.buf, -1, &q, NULL) != SQLITE_OK) {
		sqlerr(s, err);
		q = NULL;
		goto out;
	}
	for (int i = 0; i < nv; i++)
		if (sqlite3_bind_text(q, i + 1, vals[i], -1, SQLITE_TRANSIENT) != SQLITE_OK) {
			sqlerr(s, err);
			sqlite3_finalize(q);
			q = NULL;
			goto out;
		}
out:
	range_release(&rg);
	strbuf_release(&sql);
	return q;
}

long store_count_runs(struct store *s, const struct store_query *qy, struct strbuf *err)
{
	sqlite3_stmt *q = prepare_query(s, "SELECT count(*)", qy, "", err);
	long n = -1;

	if (q) {
		if (sqlite3_step(q) == SQLITE_ROW)
			n = (long)sqlite3_column_int64(q, 0);
		else
			sqlerr(s, err);
		sqlite3_finalize(q);
	}
	if (n < 0)
		context(s, err, "count runs");
	return n;
}

static struct node *text_node(const char *s)
{
	struct node *n = node_new_scalar(s);
	n->quoted = 1;
	return n;
}

static struct node *int_node(int64_t v)
{
	struct node *n = node_new(NODE_SCALAR);
	n->str = xasprintf("%lld", (long long)v);
	return n;
}

/* Append column col to map under key, unless it is NULL. */
static void add_column(struct node *map, const char *key, sqlite3_stmt *q, int col)
{
	switch (sqlite3_column_type(q, col)) {
	case SQLITE_NULL:
		break;
	case SQLITE_INTEGER:
		node_append(map, key, int_node(sqlite3_column_int64(q, col)));
		break;
	case SQLITE_FLOAT: {
		struct node *n = node_new(NODE_SCALAR);
		n->str = xasprintf("%.17g", sqlite3_column_double(q, col));
		node_append(map, key, n);
		break;
	}
	default:
		node_append(map, key, text_node((const char *)sqlite3_column_text(q, col)));
		break;
	}
}

/* unavailable or facts of one run as a map; NULL when there are none */
static int pairs_of(struct store *s, enum stmt_id id, int64_t run, struct node **out,
		    struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, id, err);
	int rc;

	*out = NULL;
	if (!q)
		return -1;
	if (sqlite3_bind_int64(q, 1, run))
		return sqlerr(s, err);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (!*out)
			*out = node_new(NODE_MAP);
		node_append(*out, (const char *)sqlite3_column_text(q, 0),
			    text_node((const char *)sqlite3_column_text(q, 1)));
	}
	if (rc != SQLITE_DONE) {
		sqlerr(s, err);
		sqlite3_reset(q);
		node_free(*out);
		*out = NULL;
		return -1;
	}
	sqlite3_reset(q);
	return 0;
}

static const char *const list_keys[] = {
	NULL, "result_root", "run", "testcase", "path_params", "tbox_group", "machine",
	"commit", "kconfig", "compiler", "rootfs", "job_state", "start_time", "end_time",
	"stats",
};

int store_list_runs(struct store *s, const struct store_query *qy, struct node **out,
		    struct strbuf *err)
{
	sqlite3_stmt *q;
	struct node *list = node_new(NODE_SEQ);
	int rc = SQLITE_ERROR;

	*out = NULL;
	/* one read transaction: the runs and their rows from one snapshot */
	if (tx_begin(s, ST_BEGIN_READ, err))
		goto fail;
	q = prepare_query(s,
			  "SELECT r.id, r.result_root, r.run_no, j.testcase, j.path_params,"
			  " r.tbox_group, m.name, c.name, r.kconfig, r.compiler, r.rootfs,"
			  " r.job_state, r.start_time, r.end_time,"
			  " (SELECT count(*) FROM stats s WHERE s.run_id = r.id)",
			  qy,
			  " ORDER BY j.testcase, j.path_params, r.tbox_group, r.rootfs, r.kconfig,"
			  " r.compiler, c.name, r.run_no, r.result_root", err);
	if (!q)
		goto fail;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct node *map = node_new(NODE_MAP), *pairs;
		int64_t id = sqlite3_column_int64(q, 0);

		node_push(list, map);
		for (int col = 1; col < (int)ARRAY_SIZE(list_keys); col++)
			add_column(map, list_keys[col], q, col);
		if (pairs_of(s, ST_RUN_UNAV, id, &pairs, err))
			break;
		if (pairs)
			node_append(map, "unavailable", pairs);
		if (pairs_of(s, ST_RUN_FACTS, id, &pairs, err))
			break;
		if (pairs)
			node_append(map, "facts", pairs);
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		sqlerr(s, err);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		goto fail;
	if (tx_commit(s, err))
		goto fail;
	*out = list;
	return 0;
fail:
	rollback(s);
	node_free(list);
	return context(s, err, "list runs");
}

int store_run_stats(struct store *s, const char *result_root, struct node **out,
		    struct strbuf *err)
{
	struct strbuf root = STRBUF_INIT, num = STRBUF_INIT;
	struct node *map = NULL;
	sqlite3_stmt *q;
	int rc = SQLITE_ERROR;

	*out = NULL;
	path_trim(&root, result_root ? result_root : "");
	if (!(q = stmt(s, ST_RUN_STATS, err)))
		goto fail;
	if (bind_text(q, 1, root.buf)) {
		sqlerr(s, err);
		goto fail;
	}
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct node *n;

		if (!map)
			map = node_new(NODE_MAP);
		if (sqlite3_column_type(q, 1) == SQLITE_NULL)
			continue;	/* a run without stats */
		strbuf_reset(&num);
		json_format_number(&num, sqlite3_column_double(q, 2), sqlite3_column_int(q, 3));
		n = node_new(NODE_SCALAR);
		n->str = strbuf_detach(&num);
		node_append(map, (const char *)sqlite3_column_text(q, 1), n);
	}
	if (rc != SQLITE_DONE) {
		sqlerr(s, err);
		sqlite3_reset(q);
		goto fail;
	}
	sqlite3_reset(q);
	strbuf_release(&root);
	strbuf_release(&num);
	*out = map;
	return map ? 0 : 1;
fail:
	node_free(map);
	context(s, err, "read the stats of '%s'", root.buf);
	strbuf_release(&root);
	strbuf_release(&num);
	return -1;
}

/* ---- bisections ---- */

/* A bisection's arguments as ?1..?7 (tree, good, bad, job, overrides, provider, first_parent). */
static void bind_bisection(sqlite3_stmt *q, const struct store_bisection *b)
{
	bind_text(q, 1, b->tree);
	bind_text(q, 2, b->good);
	bind_text(q, 3, b->bad);
	bind_text(q, 4, b->job);
	bind_text(q, 5, b->overrides ? b->overrides : "");
	bind_text(q, 6, b->provider);
	sqlite3_bind_int64(q, 7, b->first_parent);
}

int64_t store_bisection_add(struct store *s, const struct store_bisection *b, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BISECT_ADD, err);
	int64_t id = -1;

	if (q) {
		bind_bisection(q, b);
		bind_text(q, 8, b->metric);
		sqlite3_bind_int64(q, 9, (int64_t)time(NULL));
		id = returned_id(step_id(s, q, err), err);
	}
	if (id < 0)
		context(s, err, "record the bisection");
	return id;
}

static char *column_dup(sqlite3_stmt *q, int col)
{
	const unsigned char *t = sqlite3_column_text(q, col);
	return t ? xstrdup((const char *)t) : NULL;
}

int store_bisection_get(struct store *s, int64_t id, struct store_bisection *b, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BISECT_GET, err);
	int rc;

	memset(b, 0, sizeof(*b));
	if (!q)
		return context(s, err, "read bisection %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		b->tree = column_dup(q, 0);
		b->good = column_dup(q, 1);
		b->bad = column_dup(q, 2);
		b->job = column_dup(q, 3);
		b->overrides = column_dup(q, 4);
		b->provider = column_dup(q, 5);
		b->first_parent = sqlite3_column_int64(q, 6) != 0;
		b->metric = column_dup(q, 7);
		b->status = column_dup(q, 8);
		b->culprit = column_dup(q, 9);
		sqlite3_reset(q);
		return 0;
	}
	if (rc == SQLITE_DONE)
		strbuf_setf(err, "no bisection %lld in %s ('lkprobot bisect' prints the id of each)", (long long)id,
			    s->path);
	else
		sqlerr(s, err);
	sqlite3_reset(q);
	return -1;
}

int store_bisection_end(struct store *s, int64_t id, const char *metric, const char *status, const char *culprit,
			const char *why, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BISECT_END, err);

	if (!q)
		return context(s, err, "record how bisection %lld ended", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	bind_text(q, 2, metric);
	bind_text(q, 3, status);
	bind_text(q, 4, culprit);
	sqlite3_bind_int64(q, 5, (int64_t)time(NULL));
	bind_text(q, 6, why);
	if (step_done(s, q, err))
		return context(s, err, "record how bisection %lld ended", (long long)id);
	return 0;
}

int64_t store_bisection_same(struct store *s, const struct store_bisection *b, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BISECT_SAME, err);
	int64_t id = -1;

	if (q) {
		bind_bisection(q, b);
		id = step_id(s, q, err);
	}
	if (id < 0)
		context(s, err, "look for the bisection");
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

/* ---- the outbox ---- */

int64_t store_outbox_add(struct store *s, const char *message_id, const char *from, const char *rcpts,
			 const char *data, size_t len, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_ADD, err);
	int64_t id = -1;

	if (q) {
		bind_text(q, 1, message_id);
		bind_text(q, 2, from);
		bind_text(q, 3, rcpts);
		sqlite3_bind_blob(q, 4, data, (int)len, SQLITE_STATIC);
		sqlite3_bind_int64(q, 5, now);
		id = step_id(s, q, err);
	}
	if (id < 0)
		context(s, err, "queue %s", message_id);
	return id;
}

int store_outbox_get(struct store *s, int64_t id, struct store_mail *m, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_GET, err);
	int rc;

	memset(m, 0, sizeof(*m));
	if (!q)
		return context(s, err, "read outbox message %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		m->id = sqlite3_column_int64(q, 0);
		m->message_id = column_dup(q, 1);
		m->from = column_dup(q, 2);
		m->rcpts = column_dup(q, 3);
		m->len = (size_t)sqlite3_column_bytes(q, 4);
		m->data = xmalloc(m->len + 1);
		if (m->len)
			memcpy(m->data, sqlite3_column_blob(q, 4), m->len);
		m->data[m->len] = '\0';
		m->status = column_dup(q, 5);
		m->attempts = (int)sqlite3_column_int64(q, 6);
		m->next_try = sqlite3_column_int64(q, 7);
		m->last_error = column_dup(q, 8);
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
		sqlerr(s, err);
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
static int64_t update(struct store *s, sqlite3_stmt *q, struct strbuf *err)
{
	if (step_done(s, q, err))
		return -1;
	return sqlite3_changes64(s->db);
}

int store_outbox_claim(struct store *s, int64_t id, int pid, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_CLAIM, err);
	int64_t n = -1;

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, pid);
		sqlite3_bind_int64(q, 3, now);
		n = update(s, q, err);
	}
	if (n < 0)
		return context(s, err, "claim outbox message %lld", (long long)id);
	return n > 0;
}

int store_outbox_done(struct store *s, int64_t id, const char *status, const char *error, int64_t next_try,
		      int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_DONE, err);

	if (!q)
		return context(s, err, "record delivery of outbox message %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	bind_text(q, 2, status);
	bind_text(q, 3, error);
	sqlite3_bind_int64(q, 4, next_try);
	sqlite3_bind_int64(q, 5, now);
	if (update(s, q, err) < 0)
		return context(s, err, "record delivery of outbox message %lld", (long long)id);
	return 0;
}

int store_outbox_retry(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_RETRY, err);
	int64_t n = -1;

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, now);
		n = update(s, q, err);
	}
	if (n < 0)
		return context(s, err, "requeue outbox message %lld", (long long)id);
	if (!n) {
		strbuf_setf(err, "outbox message %lld is not failed, in doubt or queued (sent, being sent, or no such message)",
			    (long long)id);
		return -1;
	}
	return 0;
}

int store_outbox_data(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_DATA, err);

	if (!q)
		return context(s, err, "mark outbox message %lld as being sent", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_int64(q, 2, now);
	if (update(s, q, err) < 0)
		return context(s, err, "mark outbox message %lld as being sent", (long long)id);
	return 0;
}

long store_outbox_recover(struct store *s, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_UNCLAIM, err);
	int64_t n = -1;

	/* left before the message started to leave: the server cannot have it */
	if (q) {
		sqlite3_bind_int64(q, 1, now);
		n = update(s, q, err) < 0 ? -1 : 0;
	}
	if (n >= 0 && (q = stmt(s, ST_OUTBOX_RECOVER, err))) {
		sqlite3_bind_int64(q, 1, now);
		n = update(s, q, err);
	}
	if (n < 0)
		context(s, err, "look for interrupted deliveries");
	return (long)n;
}

int store_outbox_due(struct store *s, int64_t now, int64_t **ids, size_t *n, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_DUE, err);
	int rc;

	*ids = NULL;
	*n = 0;
	if (!q)
		return context(s, err, "list the due messages");
	sqlite3_bind_int64(q, 1, now);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		*ids = xrealloc(*ids, (*n + 1) * sizeof(**ids));
		(*ids)[(*n)++] = sqlite3_column_int64(q, 0);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		sqlerr(s, err);
		return context(s, err, "list the due messages");
	}
	return 0;
}

/* Every row of a prepared statement as a map of keys[] (NULL columns left out). 0, or -1 with err set. */
static int rows(struct store *s, sqlite3_stmt *q, const char *const *keys, int ncols, struct node **out,
		struct strbuf *err)
{
	int rc;

	*out = node_new(NODE_SEQ);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct node *m = node_new(NODE_MAP);
		for (int c = 0; c < ncols; c++)
			add_column(m, keys[c], q, c);
		node_push(*out, m);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		sqlerr(s, err);
		node_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* A statement without parameters run to its end into *out: one map a row, keys[] naming the columns. */
static int list(struct store *s, enum stmt_id id, const char *const *keys, int ncols, const char *what,
		struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, id, err);

	*out = NULL;
	if (!q || rows(s, q, keys, ncols, out, err))
		return context(s, err, "%s", what);
	return 0;
}

int store_outbox_list(struct store *s, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "id", "message_id", "status", "attempts", "next_try", "last_error",
					    "created", "updated", "sent", "rcpts", "headers" };

	return list(s, ST_OUTBOX_LIST, keys, NKEYS(keys), "list the outbox", out, err);
}

int store_outbox_of_commit(struct store *s, const char *commit, char **message_id, char **headers, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_OUTBOX_OF_COMMIT, err);
	int rc;

	*message_id = *headers = NULL;
	if (!q)
		return context(s, err, "look for the report of %s", commit);
	bind_text(q, 1, commit);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW) {
		*message_id = column_dup(q, 0);
		*headers = column_dup(q, 1);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		sqlerr(s, err);
		return context(s, err, "look for the report of %s", commit);
	}
	return rc == SQLITE_ROW;
}

/* ---- the service's heads ---- */

int64_t store_head_add(struct store *s, const char *tree, const char *branch, const char *head, const char *base,
		       int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_HEAD_ADD, err);
	int64_t id = -1;

	if (q) {
		bind_text(q, 1, tree);
		bind_text(q, 2, branch);
		bind_text(q, 3, head);
		bind_text(q, 4, base);
		sqlite3_bind_int64(q, 5, now);
		id = step_id(s, q, err);
	}
	if (id < 0)
		context(s, err, "record head %s of %s %s", head, tree, branch);
	return id;
}

int store_head_set(struct store *s, int64_t id, const char *status, const char *result, int64_t now,
		   struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_HEAD_SET, err);

	if (!q)
		return context(s, err, "record head %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	bind_text(q, 2, status);
	bind_text(q, 3, result);
	sqlite3_bind_int64(q, 4, now);
	int64_t n = update(s, q, err);
	if (n < 0)
		return context(s, err, "record head %lld", (long long)id);
	return n ? 0 : 1;
}

/* One head of tree's branch by statement st (?3: before, when it takes one), appended to head: 1, 0 none, -1. */
static int head_query(struct store *s, enum stmt_id st, const char *tree, const char *branch, int64_t before,
		      struct strbuf *head, const char *what, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, st, err);
	int rc;

	if (!q)
		return context(s, err, "read the %s head of %s %s", what, tree, branch);
	bind_text(q, 1, tree);
	bind_text(q, 2, branch);
	if (st == ST_HEAD_LAST_MEASURED)
		sqlite3_bind_int64(q, 3, before);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		strbuf_addstr(head, (const char *)sqlite3_column_text(q, 0));
	else if (rc != SQLITE_DONE)
		sqlerr(s, err);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return context(s, err, "read the %s head of %s %s", what, tree, branch);
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
	sqlite3_stmt *q = stmt(s, ST_HEAD_BASE, err);

	if (!q)
		return context(s, err, "record the base of head %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	bind_text(q, 2, base);
	sqlite3_bind_int64(q, 3, now);
	if (update(s, q, err) < 0)
		return context(s, err, "record the base of head %lld", (long long)id);
	return 0;
}

int store_heads(struct store *s, bool todo, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "id", "tree", "branch", "head", "base", "status", "result", "first_seen",
					    "updated" };

	return list(s, todo ? ST_HEAD_TODO : ST_HEAD_LIST, keys, NKEYS(keys), "list the heads", out, err);
}

/* A head's status from `from` to `to`: 0, or -1 (no such head, or not in a state that allows it). */
static int head_move(struct store *s, enum stmt_id st, int64_t id, int64_t now, const char *what, const char *allowed,
		     struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, st, err);
	int64_t n = -1;

	if (q) {
		sqlite3_bind_int64(q, 1, id);
		sqlite3_bind_int64(q, 2, now);
		n = update(s, q, err);
	}
	if (n < 0)
		return context(s, err, "%s head %lld", what, (long long)id);
	if (!n) {
		strbuf_setf(err, "head %lld cannot be %s: no such head, or it is not %s", (long long)id, what, allowed);
		return -1;
	}
	return 0;
}

int store_head_retest(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	return head_move(s, ST_HEAD_RETEST, id, now, "tested again", "done, failed, build_failed or cancelled", err);
}

int store_head_cancel(struct store *s, int64_t id, int64_t now, struct strbuf *err)
{
	return head_move(s, ST_HEAD_CANCEL, id, now, "cancelled", "queued or testing", err);
}

int store_history(struct store *s, const char *testcase, const char *path_params, const char *metric,
		  const char *tbox_group, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_HISTORY, err);
	static const char *const keys[] = { "commit", "first_run", "runs", "mean", "min", "max", "samples" };

	*out = NULL;
	if (!q)
		return context(s, err, "read the history of %s", metric);
	bind_text(q, 1, testcase);
	bind_text(q, 2, path_params);
	bind_text(q, 3, metric);
	if (tbox_group)
		bind_text(q, 4, tbox_group);
	else
		sqlite3_bind_null(q, 4);
	if (rows(s, q, keys, NKEYS(keys), out, err))
		return context(s, err, "read the history of %s", metric);
	return 0;
}

int store_commit_match(struct store *s, const char *prefix, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_COMMIT_PREFIX, err);
	static const char *const keys[] = { "commit" };

	*out = NULL;
	if (strspn(prefix, "0123456789abcdef") != strlen(prefix) || !*prefix) {
		strbuf_setf(err, "'%s': not a commit id prefix (hex digits)", prefix);
		return -1;
	}
	if (!q)
		return context(s, err, "look up commit %s", prefix);
	bind_text(q, 1, prefix);
	if (rows(s, q, keys, NKEYS(keys), out, err))
		return context(s, err, "look up commit %s", prefix);
	return 0;
}

int store_machines(struct store *s, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "name", "tbox_group", "nr_cpu", "memory", "model", "runs", "last_run" };

	return list(s, ST_MACHINES, keys, NKEYS(keys), "list the machines", out, err);
}

static const char *const bisection_keys[] = { "id", "tree", "good", "bad", "job", "provider", "metric", "status",
					       "culprit", "created", "updated", "why" };

int store_bisections(struct store *s, struct node **out, struct strbuf *err)
{
	return list(s, ST_BISECT_LIST, bisection_keys, NKEYS(bisection_keys), "list the bisections", out, err);
}

int store_bisection_row(struct store *s, int64_t id, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BISECT_ROW, err);
	struct node *all;

	*out = NULL;
	if (!q)
		return context(s, err, "read bisection %lld", (long long)id);
	sqlite3_bind_int64(q, 1, id);
	if (rows(s, q, bisection_keys, NKEYS(bisection_keys), &all, err))
		return context(s, err, "read bisection %lld", (long long)id);
	if (all->n) {
		*out = all->vals[0];
		all->n = 0;	/* the row is the caller's now */
	}
	node_free(all);
	return *out ? 0 : 1;
}

/* ---- boxes ---- */

static const char *const box_keys[] = { "name", "in_service", "failures", "last_error", "last_ok", "updated" };

int store_box_get(struct store *s, const char *name, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BOX_GET, err);
	struct node *all;

	*out = NULL;
	if (!q)
		return context(s, err, "read box %s", name);
	bind_text(q, 1, name);
	if (rows(s, q, box_keys, NKEYS(box_keys), &all, err))
		return context(s, err, "read box %s", name);
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
	sqlite3_stmt *q = stmt(s, ST_BOX_FAIL, err);
	int64_t in_service;

	if (!q)
		return context(s, err, "record a failure of box %s", name);
	bind_text(q, 1, name);
	bind_text(q, 2, why);
	sqlite3_bind_int64(q, 3, max_failures);
	sqlite3_bind_int64(q, 4, now);
	int rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		in_service = sqlite3_column_int64(q, 0);
	else
		sqlerr(s, err);
	sqlite3_reset(q);
	if (rc != SQLITE_ROW)
		return context(s, err, "record a failure of box %s", name);
	return in_service ? 0 : 1;
}

int store_box_ok(struct store *s, const char *name, int64_t now, struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BOX_OK, err);

	if (!q)
		return context(s, err, "record a good run of box %s", name);
	bind_text(q, 1, name);
	sqlite3_bind_int64(q, 2, now);
	if (step_done(s, q, err))
		return context(s, err, "record a good run of box %s", name);
	return 0;
}

int store_box_service(struct store *s, const char *name, bool in_service, const char *why, int64_t now,
		      struct strbuf *err)
{
	sqlite3_stmt *q = stmt(s, ST_BOX_SERVICE, err);

	if (!q)
		return context(s, err, "put box %s %s service", name, in_service ? "back in" : "out of");
	bind_text(q, 1, name);
	sqlite3_bind_int64(q, 2, in_service);
	bind_text(q, 3, why);
	sqlite3_bind_int64(q, 4, now);
	if (step_done(s, q, err))
		return context(s, err, "put box %s %s service", name, in_service ? "back in" : "out of");
	return 0;
}

int store_boxes(struct store *s, struct node **out, struct strbuf *err)
{
	return list(s, ST_BOX_LIST, box_keys, NKEYS(box_keys), "list the boxes", out, err);
}

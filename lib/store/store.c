/*
 * store: the SQLite index of result roots, its schema and migrations. See
 * store.h. Each table has its own file (store_runs.c, store_bisect.c,
 * store_outbox.c, store_heads.c, store_boxes.c); this one holds what they
 * share (store_int.h): opening, the transactions, running statements and
 * turning rows into nodes.
 *
 * The schema is versioned from day one: PRAGMA user_version is the number
 * of migrations applied; migrations[] is append-only (never edit a step
 * that has shipped, add one). Each step runs in its own IMMEDIATE
 * transaction together with its user_version bump, and re-reads the
 * version inside that transaction, so that two processes opening a fresh
 * store at once apply each step once. SQL text is constant: values are
 * always bound, never formatted in.
 */
#include "store_int.h"
#include "../sys/proc.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

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
static const char migration_7[] = "ALTER TABLE bisections ADD COLUMN checks TEXT;\n";
/* Version 8: the mailing lists — the last commit read of each archive's epoch, and each series. */
static const char migration_8[] =
	"CREATE TABLE list_epochs (list TEXT NOT NULL, epoch INTEGER NOT NULL, last TEXT NOT NULL,"
	" updated INTEGER NOT NULL, PRIMARY KEY(list, epoch)) STRICT;\n"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, list TEXT NOT NULL, key TEXT NOT NULL, version INTEGER NOT NULL,"
	" subject TEXT NOT NULL, author TEXT NOT NULL, state TEXT NOT NULL, why TEXT, parts TEXT, base TEXT,"
	" branch TEXT, head TEXT, first_seen INTEGER NOT NULL, updated INTEGER NOT NULL, UNIQUE(list, key)) STRICT;\n";

/* Version 11: the heads asked by what a page shows — by commit (head, base), by branch, the unfinished ones. */
static const char migration_11[] =
	"CREATE INDEX heads_head ON heads(head, base);\n"
	"CREATE INDEX heads_base ON heads(base);\n"
	"CREATE INDEX heads_branch ON heads(tree, branch, id);\n"
	"CREATE INDEX heads_status ON heads(status);\n";

static const struct migration migrations[] = {
	{ "runs, stats, machines, commits and jobs", migration_1 },
	{ "bisections", migration_2 },
	{ "outbox", migration_3 },
	{ "heads", migration_4 },
	{ "boxes", migration_5 },
	{ "the reason a bisection ended", migration_6 },
	{ "the checks of a bisection's culprit", migration_7 },
	{ "mailing lists: their archives' epochs and series", migration_8 },
	{ "reports, their triage history and their replies' commands", store_reports_schema },
	{ "what changed, by topic", store_migration_changes },
	{ "the heads by commit, branch and state", migration_11 },
	{ "a series' b4 change-id (its versions tied across passes)", store_migration_change_id },
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

/* Statements of the transactions; the tables' own are in their files. */
static const char *const stmt_sql_tx[ST_NR] = {
	[ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
	[ST_BEGIN_READ] = "BEGIN",
	[ST_COMMIT] = "COMMIT",
	[ST_SAVEPOINT] = "SAVEPOINT lkp_inner",
	[ST_RELEASE] = "RELEASE lkp_inner",
	[ST_ROLLBACK_TO] = "ROLLBACK TO lkp_inner",
	[ST_ROLLBACK] = "ROLLBACK",
};

static const char *const *const stmt_tables[] = {
	stmt_sql_tx,	 store_runs_sql,  store_bisect_sql,  store_outbox_sql,	store_heads_sql,
	store_boxes_sql, store_lists_sql, store_reports_sql, store_changes_sql,
};

/* The SQL of a statement: in the one table that has it. */
static const char *stmt_text(enum stmt_id id)
{
	for (size_t i = 0; i < ARRAY_SIZE(stmt_tables); i++)
		if (stmt_tables[i][id])
			return stmt_tables[i][id];
	return NULL;
}

/* ---- errors ---- */

/*
 * The directory of the store when its file system is full, else NULL
 * (free it). SQLite says "database or disk is full" for some writes, and
 * only "disk I/O error" for others (the WAL index that cannot grow when a
 * store is opened).
 */
static char *full_dir(struct store *s)
{
	int rc = sqlite3_errcode(s->db) & 0xff;
	char *dir = xstrdup(s->path), *slash = strrchr(dir, '/');
	struct statvfs st;

	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		dir[0] = '.', dir[1] = '\0';
	if (rc == SQLITE_FULL || (rc == SQLITE_IOERR && !statvfs(dir, &st) && st.f_bavail == 0))
		return dir;
	free(dir);
	return NULL;
}

/* SQLite's reason for the last failure, once, as one line. */
int store_sqlerr(struct store *s, struct strbuf *err)
{
	char *full;
	int rc = sqlite3_errcode(s->db) & 0xff;

	s->fault = rc == SQLITE_FULL || rc == SQLITE_IOERR || rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
	strbuf_setf(err, "%s", sqlite3_errmsg(s->db));
	if (rc == SQLITE_BUSY) {
		strbuf_addf(err, " (another process kept it busy for more than %d ms)", s->busy_ms);
	} else if ((full = full_dir(s))) {
		strbuf_addf(err, " (no space left on %s)", full);
		free(full);
	}
	return -1;
}

/* Put "store 'path': cannot <what>: " in front of err. */
int store_context(struct store *s, struct strbuf *err, const char *fmt, ...)
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
sqlite3_stmt *store_stmt(struct store *s, enum stmt_id id, struct strbuf *err)
{
	sqlite3_stmt *q = s->stmt[id];

	s->fault = false; /* a new operation */
	if (q) {
		sqlite3_reset(q);
		sqlite3_clear_bindings(q);
		return q;
	}
	if (sqlite3_prepare_v3(s->db, stmt_text(id), -1, SQLITE_PREPARE_PERSISTENT, &q,
			       NULL) != SQLITE_OK) {
		store_sqlerr(s, err);
		return NULL;
	}
	s->stmt[id] = q;
	return q;
}

int store_bind_text(sqlite3_stmt *q, int i, const char *v)
{
	if (!v)
		return sqlite3_bind_null(q, i);
	return sqlite3_bind_text(q, i, v, -1, SQLITE_STATIC);
}

/* 0 binds NULL: "unknown" */
int store_bind_int(sqlite3_stmt *q, int i, int64_t v)
{
	if (!v)
		return sqlite3_bind_null(q, i);
	return sqlite3_bind_int64(q, i, v);
}

/* Step a statement that returns no row (or whose rows we ignore), then reset it. */
int store_step_done(struct store *s, sqlite3_stmt *q, struct strbuf *err)
{
	int rc = sqlite3_step(q);

	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		store_sqlerr(s, err);
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
int64_t store_step_id(struct store *s, sqlite3_stmt *q, struct strbuf *err)
{
	int64_t id = 0;
	int rc;

	while ((rc = sqlite3_step(q)) == SQLITE_ROW)
		if (!id)
			id = sqlite3_column_int64(q, 0);
	if (rc != SQLITE_DONE) {
		store_sqlerr(s, err);
		id = -1;
	}
	sqlite3_reset(q);
	return id;
}

/* The id an upsert RETURNING gave; it always gives one. */
int64_t store_returned_id(int64_t id, struct strbuf *err)
{
	if (!id) {
		strbuf_setf(err, "no row id returned");
		return -1;
	}
	return id;
}

/* Run an UPDATE; the number of rows it changed, or -1. */
int64_t store_update(struct store *s, sqlite3_stmt *q, struct strbuf *err)
{
	if (store_step_done(s, q, err))
		return -1;
	return sqlite3_changes64(s->db);
}

static int run_stmt(struct store *s, enum stmt_id id, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, id, err);

	return q ? store_step_done(s, q, err) : -1;
}

/* Roll back whatever is open (in a batch: the write's own savepoint); keeps err (the reason) as it is. */
void store_rollback(struct store *s)
{
	struct strbuf ignored = STRBUF_INIT;
	bool fault = s->fault; /* the failure's, not the rollback's */

	if (s->batch) {
		if (!run_stmt(s, ST_ROLLBACK_TO, &ignored))
			run_stmt(s, ST_RELEASE, &ignored);
	} else if (!sqlite3_get_autocommit(s->db)) {
		run_stmt(s, ST_ROLLBACK, &ignored);
	}
	s->fault = fault;
	strbuf_release(&ignored);
}

/* A transaction of its own, or in a batch a savepoint of the batch's. */
int store_tx_begin(struct store *s, enum stmt_id kind, struct strbuf *err)
{
	return run_stmt(s, s->batch ? ST_SAVEPOINT : kind, err);
}

int store_tx_commit(struct store *s, struct strbuf *err)
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
		return store_context(s, err, "begin a batch of writes");
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
		ret = keep ? store_context(s, err, "commit the batch of writes") : 0;
		store_rollback(s);
	}
	return ret;
}

/* A one-row, one-integer query (PRAGMA user_version), prepared each time. */
static int query_int(struct store *s, const char *sql, int64_t *out, struct strbuf *err)
{
	sqlite3_stmt *q;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &q, NULL) != SQLITE_OK)
		return store_sqlerr(s, err);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(q, 0);
	else
		store_sqlerr(s, err);
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
		store_sqlerr(s, err);
		return store_context(s, err, "read its schema version");
	}
	rc = sqlite3_step(q);
	if (rc != SQLITE_ROW) {
		store_sqlerr(s, err);
		sqlite3_finalize(q);
		return store_context(s, err, "read its schema version");
	}
	*version = sqlite3_column_int64(q, 0);
	app_id = sqlite3_column_int64(q, 1);
	tables = sqlite3_column_int64(q, 2);
	sqlite3_finalize(q);

	/*
	 * Ours: an empty file (no tables, no version), or one whose
	 * application_id is lkprobot's (migration 1 sets it with version 1,
	 * in one transaction). Anything else is someone else's file, refused
	 * before anything in it changes (not even its journal mode).
	 */
	bool ours = (app_id == STORE_APPLICATION_ID && *version >= 0) || (!app_id && !*version && !tables);
	if (ours && *version > (int64_t)known)
		return refuse_newer(s, *version, known, err);
	if (!ours) {
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
			return store_context(s, err, "start migrating its schema");
		/* another process may have migrated since we looked */
		if (query_int(s, "PRAGMA user_version", &v, err)) {
			store_rollback(s);
			return store_context(s, err, "read its schema version");
		}
		if (v >= (int64_t)n) {
			store_rollback(s);
			return v > (int64_t)n ? refuse_newer(s, v, n, err) : 0;
		}
		if (sqlite3_exec(s->db, m[v].sql, NULL, NULL, NULL) != SQLITE_OK) {
			store_sqlerr(s, err);
			store_rollback(s);
			return store_context(s, err, "migrate to schema version %lld (%s)",
					(long long)v + 1, m[v].what);
		}
		/* an integer of ours: PRAGMA values cannot be bound */
		strbuf_addf(&bump, "PRAGMA user_version = %lld", (long long)v + 1);
		rc = sqlite3_exec(s->db, bump.buf, NULL, NULL, NULL);
		strbuf_release(&bump);
		if (rc != SQLITE_OK)
			store_sqlerr(s, err);
		if (rc != SQLITE_OK || run_stmt(s, ST_COMMIT, err)) {
			store_rollback(s);
			return store_context(s, err, "migrate to schema version %lld (%s)",
					(long long)v + 1, m[v].what);
		}
	}
}

/*
 * WAL mode and the connection's pragmas, outside any transaction (they are
 * no-ops inside one). Switching a fresh file to WAL upgrades a read lock to
 * a write lock; when another process opening the same fresh file holds its
 * read lock for the same step, SQLite answers SQLITE_BUSY at once (its busy
 * handler is not called: waiting could deadlock), so we retry, each time a
 * little later, for as long as a writer would wait.
 */
static int set_up(struct store *s, struct strbuf *err)
{
	double deadline = proc_now() + s->busy_ms / 1000.0;
	int rc;

	for (int i = 1;; i++) {
		rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
				  " PRAGMA foreign_keys = ON", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || proc_now() >= deadline)
			break;
		sqlite3_sleep(i < 10 ? i * 5 : 50);
	}
	return rc == SQLITE_OK ? 0 : store_sqlerr(s, err);
}

char *store_default_path(const char *db, const char *result_dir)
{
	return db ? xstrdup(db) : xasprintf("%s/lkprobot.db", result_dir ? result_dir : STORE_RESULT_ROOT);
}

/* errno for a store_open that failed: what SQLite last said of the file (store.h). */
static int open_errno(struct store *s)
{
	char *full;

	if (!s->db)
		return ENOMEM;
	switch (sqlite3_errcode(s->db) & 0xff) {
	case SQLITE_FULL:
		return ENOSPC;
	case SQLITE_IOERR:
		full = full_dir(s);
		free(full);
		return full ? ENOSPC : EIO;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return EBUSY;
	case SQLITE_NOMEM:
		return ENOMEM;
	case SQLITE_READONLY:
		return EROFS;
	case SQLITE_CANTOPEN:
	case SQLITE_PERM:
		return sqlite3_system_errno(s->db) ? sqlite3_system_errno(s->db) : EACCES;
	default:
		return EINVAL; /* not a store, not ours, a newer one's, corrupt */
	}
}

bool store_failed_on_fault(const struct store *s)
{
	return s->fault;
}

bool store_fault(int errnum)
{
	return errnum == ENOSPC || errnum == EIO || errnum == EBUSY || errnum == ENOMEM;
}

struct store *store_open(const char *path, struct strbuf *err)
{
	struct store *s;
	size_t known;
	int64_t version = 0;
	int rc;

	if (!path || !*path) {
		strbuf_setf(err, "no store given; name a database file");
		errno = EINVAL;
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->path = xstrdup(path);
	s->busy_ms = STORE_BUSY_TIMEOUT_MS;
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc != SQLITE_OK) {
		strbuf_setf(err, "%s", s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
		store_context(s, err, "open it");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, s->busy_ms);
	if (check_identity(s, &version, err))
		goto fail;
	if (set_up(s, err)) {
		store_context(s, err, "set it up");
		goto fail;
	}
	migration_list(&known);
	if (version < (int64_t)known && migrate(s, err))
		goto fail;
	return s;
fail:;
	int e = open_errno(s);
	store_close(s);
	errno = e;
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

/* ---- rows as nodes ---- */

struct node *store_text_node(const char *s)
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
void store_add_column(struct node *map, const char *key, sqlite3_stmt *q, int col)
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
		node_append(map, key, store_text_node((const char *)sqlite3_column_text(q, col)));
		break;
	}
}

char *store_column_dup(sqlite3_stmt *q, int col)
{
	const unsigned char *t = sqlite3_column_text(q, col);
	return t ? xstrdup((const char *)t) : NULL;
}

/* Every row of a prepared statement as a map of keys[] (NULL columns left out). 0, or -1 with err set. */
int store_rows(struct store *s, sqlite3_stmt *q, const char *const *keys, int ncols, struct node **out,
	       struct strbuf *err)
{
	int rc;

	*out = node_new(NODE_SEQ);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct node *m = node_new(NODE_MAP);
		for (int c = 0; c < ncols; c++)
			store_add_column(m, keys[c], q, c);
		node_push(*out, m);
	}
	sqlite3_reset(q);
	if (rc != SQLITE_DONE) {
		store_sqlerr(s, err);
		node_free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/* A statement without parameters run to its end into *out: one map a row, keys[] naming the columns. */
int store_list(struct store *s, enum stmt_id id, const char *const *keys, int ncols, const char *what,
	       struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, id, err);

	*out = NULL;
	if (!q || store_rows(s, q, keys, ncols, out, err))
		return store_context(s, err, "%s", what);
	return 0;
}

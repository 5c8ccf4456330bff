/*
 * store_int: what the files of lib/store/ share and nobody else may see:
 * the statement ids, the struct behind struct store, and the helpers each
 * table's file runs its statements with. The public API is store.h.
 */
#ifndef LKP_STORE_INT_H
#define LKP_STORE_INT_H

#include "store.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#define NKEYS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/*
 * Statements prepared once per store, on first use. Each table's file
 * holds the SQL of its own statements (store_<table>_sql[], indexed by
 * these ids); store.c finds a statement's text in the one that has it.
 */
enum stmt_id {
	/* transactions (store.c) */
	ST_BEGIN_WRITE,
	ST_BEGIN_READ,
	ST_COMMIT,
	ST_SAVEPOINT,
	ST_RELEASE,
	ST_ROLLBACK_TO,
	ST_ROLLBACK,
	/* runs, their stats, commits, machines (store_runs.c) */
	ST_COMMIT_GET,
	ST_COMMIT_PREFIX,
	ST_COMMIT_PREFIX_RUNS,
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
	ST_HISTORY,
	ST_MACHINES,
	/* bisections (store_bisect.c) */
	ST_BISECT_ADD,
	ST_BISECT_GET,
	ST_BISECT_END,
	ST_BISECT_SAME,
	ST_BISECT_LIST,
	ST_BISECT_ROW,
	ST_BISECT_CHECKS,
	/* the outbox (store_outbox.c) */
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
	/* the service's heads (store_heads.c) */
	ST_HEAD_ADD,
	ST_HEAD_SET,
	ST_HEAD_TODO,
	ST_HEAD_LIST,
	ST_HEAD_PAGE,
	ST_HEAD_LAST,
	ST_HEAD_LAST_MEASURED,
	ST_HEAD_BASE,
	ST_HEAD_RETEST,
	ST_HEAD_CANCEL,
	ST_HEADS_ABOUT,
	ST_HEADS_BETWEEN,
	ST_HEADS_BRANCH,
	ST_HEADS_BRANCHES,
	ST_HEAD_ONE,
	/* boxes (store_boxes.c) */
	ST_BOX_GET,
	ST_BOX_FAIL,
	ST_BOX_OK,
	ST_BOX_SERVICE,
	ST_BOX_LIST,
	/* mailing lists (store_lists.c) */
	ST_EPOCH_GET,
	ST_EPOCH_SET,
	ST_SERIES_PUT,
	ST_SERIES_LIST,
	/* reports, their triage and the commands of their replies (store_reports.c) */
	ST_REPORT_ADD,
	ST_REPORT_GET,
	ST_REPORT_BY_MID,
	ST_REPORT_OF_COMMIT,
	ST_REPORT_LIST,
	ST_REPORT_OPEN,
	ST_REPORT_STATE,
	ST_REPORT_HIST_ADD,
	ST_REPORT_HIST,
	ST_REPORT_ACCURACY,
	ST_REPORT_TRIAGED,
	ST_CMD_ADD,
	ST_CMD_SET,
	ST_CMD_TODO,
	ST_CMD_LIST,
	/* what changed (store_changes.c) */
	ST_CHANGES,
	ST_NR
};

extern const char *const store_runs_sql[ST_NR];
extern const char *const store_bisect_sql[ST_NR];
extern const char *const store_outbox_sql[ST_NR];
extern const char *const store_heads_sql[ST_NR];
extern const char *const store_boxes_sql[ST_NR];
extern const char *const store_lists_sql[ST_NR];
/* Migration 12's SQL: a series' change-id (store_lists.c). */
extern const char store_migration_change_id[];
extern const char *const store_reports_sql[ST_NR];
/* The reports' tables (a migration of store.c's, its SQL in store_reports.c). */
extern const char store_reports_schema[];
extern const char *const store_changes_sql[ST_NR];
/* Migration 9's SQL: the changes table and its triggers (store_changes.c). */
extern const char store_migration_changes[];

struct store {
	sqlite3 *db;
	char *path;
	int busy_ms;
	bool batch;		/* in store_batch_begin(): each write a savepoint of one transaction */
	bool fault;		/* the last operation failed on a fault of the machine (store_failed_on_fault) */
	sqlite3_stmt *stmt[ST_NR];
};

/* SQLite's reason for the last failure, once, as one line: -1. */
int store_sqlerr(struct store *s, struct strbuf *err);
/* Put "store 'path': cannot <what>: " in front of err: -1. */
int store_context(struct store *s, struct strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The statement, prepared or reset with its bindings cleared. */
sqlite3_stmt *store_stmt(struct store *s, enum stmt_id id, struct strbuf *err);
/* NULL binds NULL */
int store_bind_text(sqlite3_stmt *q, int i, const char *v);
/* 0 binds NULL: "unknown" */
int store_bind_int(sqlite3_stmt *q, int i, int64_t v);
/* Step a statement that returns no row (or whose rows we ignore), then reset it. */
int store_step_done(struct store *s, sqlite3_stmt *q, struct strbuf *err);
/* Run a statement whose first row's first column is an id to its end: the id, 0 no row, -1. */
int64_t store_step_id(struct store *s, sqlite3_stmt *q, struct strbuf *err);
/* The id an upsert RETURNING gave; it always gives one. */
int64_t store_returned_id(int64_t id, struct strbuf *err);
/* Run an UPDATE; the number of rows it changed, or -1. */
int64_t store_update(struct store *s, sqlite3_stmt *q, struct strbuf *err);

/* A transaction of its own (kind: ST_BEGIN_WRITE or ST_BEGIN_READ), or in a batch a savepoint. */
int store_tx_begin(struct store *s, enum stmt_id kind, struct strbuf *err);
int store_tx_commit(struct store *s, struct strbuf *err);
/* Roll back whatever is open (in a batch: the write's own savepoint); keeps err as it is. */
void store_rollback(struct store *s);

/* Rows as nodes: a quoted scalar; column col appended to map under key unless NULL. */
struct node *store_text_node(const char *s);
void store_add_column(struct node *map, const char *key, sqlite3_stmt *q, int col);
/* A text column, copied (NULL stays NULL). */
char *store_column_dup(sqlite3_stmt *q, int col);
/* Every row of a prepared statement as a map of keys[] (NULL columns left out). 0, or -1 with err set. */
int store_rows(struct store *s, sqlite3_stmt *q, const char *const *keys, int ncols, struct node **out,
	       struct strbuf *err);
/* A statement without parameters run to its end into *out: one map a row, keys[] naming the columns. */
int store_list(struct store *s, enum stmt_id id, const char *const *keys, int ncols, const char *what,
	       struct node **out, struct strbuf *err);

#endif

/*
 * store: the SQLite index of result roots. Result roots on disk are the
 * source of truth for raw data; the store indexes them (machines, commits,
 * atomic jobs, runs, their stats and what could not be measured) so that
 * compare, bisect and the dashboard query instead of walking directories.
 * Later issues add the queue, bisections and the mail outbox as new schema
 * versions. This module is the only code that speaks SQL or includes
 * sqlite3.h; it knows nothing about job files, programs or providers.
 *
 * Concurrency: one store file may be shared by several lkprobot processes
 * (a farm). It is kept in WAL mode, every write is one short IMMEDIATE
 * transaction, and a writer waits up to STORE_BUSY_TIMEOUT_MS for another
 * one instead of failing. A struct store itself is not thread-safe: use one
 * per thread.
 *
 * Errors: functions return -1 (or NULL) with one line in err saying which
 * store, what was being done and SQLite's reason; nothing is half-written
 * (each write is a transaction that is rolled back on any error).
 */
#ifndef LKP_STORE_H
#define LKP_STORE_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

/* The schema version this binary writes (PRAGMA user_version). */
#define STORE_SCHEMA_VERSION 12
/* How long a write waits for another process's write to finish. */
#define STORE_BUSY_TIMEOUT_MS 10000

struct store;

/*
 * Open (creating it if needed) the store at path, or ":memory:" for a
 * private in-memory store (tests). Brings the schema up to
 * STORE_SCHEMA_VERSION, one migration per version, each in its own
 * transaction; a failed migration leaves the store at the last version that
 * completed. Refused, and left untouched: a store written by a newer
 * lkprobot (user_version above STORE_SCHEMA_VERSION; it is never
 * downgraded), a file that is not an SQLite database, and a database that
 * is not an lkprobot store. May wait for other processes (busy timeout).
 * Returns the store (close with store_close()) or NULL with err set and
 * errno saying what kind of failure it was: ENOSPC (its file system is
 * full: err says "no space left on DIR"), EIO, EBUSY (another process held
 * it longer than the busy timeout), ENOMEM — faults of the machine, which
 * store_fault() tells — or ENOENT, EACCES, EROFS (it cannot be opened
 * there), EINVAL (not an SQLite database, not an lkprobot store, a newer
 * one's, corrupt).
 */
struct store *store_open(const char *path, struct strbuf *err);
/* Whether store_open's errno is a fault of the machine (exit 1) rather than a wrong file (exit 2). */
bool store_fault(int errnum);
/*
 * Whether the store's last operation failed on a fault of the machine that
 * may pass — its disk full, an I/O error, another process holding it longer
 * than the busy timeout — rather than on what was asked: worth waiting out.
 */
bool store_failed_on_fault(const struct store *s);

/* RESULT_ROOT_DIR when none is given: lkp-tests' (every command's -o default, serve.result_root's). */
#define STORE_RESULT_ROOT "/lkp/result"
/*
 * Where the store is: db when given, else lkprobot.db in result_dir (NULL:
 * STORE_RESULT_ROOT). Newly allocated.
 */
char *store_default_path(const char *db, const char *result_dir);
/* Close the store and free it; NULL is a no-op. */
void store_close(struct store *s);

/* The path the store was opened with. */
const char *store_path(const struct store *s);

/*
 * One run to record, as found in its result root. Only the pointers are
 * read: the caller keeps ownership. Required: result_root, testcase,
 * tbox_group and commit; NULL strings and 0 numbers mean "unknown".
 */
struct store_run {
	const char *result_root;	/* unique key; trailing '/' ignored */
	int run_no;			/* the run number: the last part of an LKP result root */
	const char *testcase;
	const char *path_params;	/* NULL: "defaults" */
	const char *job_yaml;		/* the atomic job's text (deduplicated); NULL: "" */
	const char *commit;		/* a sha, or a kernel release for a local run */
	const char *kconfig, *compiler, *rootfs;
	const char *tbox_group;
	/* the test box; machine NULL: not recorded */
	const char *machine;		/* its name (testbox), e.g. lkp-hsw-ep6-2 */
	int nr_cpu;
	uint64_t memory;		/* bytes */
	const char *model, *brand;
	const char *job_state;		/* "finished", "failed", ... */
	int64_t start_time, end_time;	/* seconds since the epoch */
	/*
	 * Maps, each may be NULL. stats: metric -> number as text ("68766",
	 * "0.70", "1.43e+13"; is_float when the text has '.', 'e' or 'E');
	 * a value that is not a finite number is an error. unavailable:
	 * what -> why. facts: key -> value (accel, dax, ...). Values must be
	 * scalars (null reads as ""); comment entries are skipped; a key given
	 * twice keeps the later value.
	 */
	const struct node *stats;
	const struct node *unavailable;
	const struct node *facts;
};

/*
 * Record (insert or replace) a run, keyed by its result root, in one
 * transaction: the run's row is updated in place (its id and creation time
 * kept) and its stats, unavailable and facts rows are replaced by the given
 * ones, so recording the same result root twice leaves the same rows
 * (`lkprobot stats --reindex`). On error nothing changes.
 * Returns 0, or -1 with err set.
 */
int store_record_run(struct store *s, const struct store_run *run, struct strbuf *err);

/*
 * Forget every run whose result root is dir or under it (path prefix at a
 * '/' boundary: "a/b" covers "a/b/0" but not "a/bc/0"), with their stats.
 * Machines, commits and jobs stay. Returns the number of runs forgotten,
 * or -1 with err set (then nothing is forgotten).
 */
long store_forget_under(struct store *s, const char *dir, struct strbuf *err);

/*
 * A batch: the writes between store_batch_begin() and store_batch_end()
 * are one transaction, which readers see whole or not at all (each write
 * in it still undoes itself alone when it fails). store_batch_end() commits
 * (keep) or rolls everything back. 0, or -1 with err set.
 */
int store_batch_begin(struct store *s, struct strbuf *err);
int store_batch_end(struct store *s, bool keep, struct strbuf *err);

/* Which runs: each field NULL means any. */
struct store_query {
	const char *testcase, *path_params, *tbox_group, *commit;
	const char *under;		/* result roots that are this directory or under it */
};

/* How many runs match q (NULL: all runs). Returns the count or -1 with err set. */
long store_count_runs(struct store *s, const struct store_query *q, struct strbuf *err);

/*
 * The runs matching q (NULL: all), ordered by testcase, path_params,
 * tbox_group, rootfs, kconfig, compiler, commit and run number. *out is a
 * new sequence (caller node_free()s it) of maps with the keys result_root,
 * run, testcase, path_params, tbox_group, machine, commit, kconfig,
 * compiler, rootfs, job_state, start_time, end_time (unknown ones left
 * out), stats (the number of metrics), and unavailable and facts (maps,
 * when not empty). Strings are quoted scalars, numbers plain ones, ready
 * for json_emit(). Returns 0, or -1 with err set (*out NULL).
 */
int store_list_runs(struct store *s, const struct store_query *q, struct node **out,
		    struct strbuf *err);

/*
 * The stats of the run at result_root as a new map metric -> number, in
 * metric name order, numbers written as stats.json has them (caller
 * node_free()s it). Returns 0, 1 when no run has that result root (*out
 * NULL, err untouched), or -1 with err set.
 */
int store_run_stats(struct store *s, const char *result_root, struct node **out,
		    struct strbuf *err);

/*
 * A bisection's arguments (what `lkprobot bisect --resume ID` needs) and how
 * it ended. Strings are owned by the struct after store_bisection_get().
 */
struct store_bisection {
	char *tree, *good, *bad;	/* the repository and the ends' full ids */
	char *job;			/* the job file */
	char *overrides;		/* the -s/key=value overrides, as YAML */
	char *provider;
	bool first_parent;
	char *metric;			/* NULL: not chosen yet */
	char *status;			/* running, found, not-reproduced, not-sure, ambiguous, failed */
	char *culprit;
};

/* Record a new bisection (status running); its id, or -1 with err set. */
int64_t store_bisection_add(struct store *s, const struct store_bisection *b, struct strbuf *err);
/*
 * The bisection of the same arguments (tree, ends, job, overrides,
 * provider, first_parent): one that never ended (its process was killed)
 * first, else the newest — to be resumed or run again on its own runs
 * rather than recorded twice. Its id, 0 when there is none, or -1 with err
 * set.
 */
int64_t store_bisection_same(struct store *s, const struct store_bisection *b, struct strbuf *err);
/* Read bisection id into *b (store_bisection_release() it). 0, or -1 with err set (also: no such id). */
int store_bisection_get(struct store *s, int64_t id, struct store_bisection *b, struct strbuf *err);
/*
 * How it ended: the metric followed, the status, the culprit (NULL: none)
 * and why (one line, schema version 6). 0, or -1 with err set.
 */
int store_bisection_end(struct store *s, int64_t id, const char *metric, const char *status, const char *culprit,
			const char *why, struct strbuf *err);
void store_bisection_release(struct store_bisection *b);
/*
 * The checks of its culprit (the revert, the layout), as JSON (schema
 * version 7: the bisections' checks column; the lists below have it as
 * "checks"). 0, or -1 with err set.
 */
int store_bisection_checks(struct store *s, int64_t id, const char *checks, struct strbuf *err);

/*
 * The outbox: messages to deliver, each once (keyed by its Message-ID).
 * Status: queued -> connecting (claimed by one sender) -> sending (the
 * message has started to leave) -> sent | queued (a temporary failure,
 * with next_try) | failed (permanent; last_error says why) | in-doubt
 * (all of it went out and the server's answer never came). A sender that
 * died leaves connecting (back to queued: the server cannot have it) or
 * sending (in-doubt: the server may have taken it, so it is not sent again
 * unless the operator says so, store_outbox_retry); store_outbox_recover.
 */
struct store_mail {
	int64_t id;
	char *message_id, *from, *rcpts;	/* rcpts: one envelope address a line */
	char *data;				/* the message as it goes on the wire (NUL-terminated too) */
	size_t len;
	char *status, *last_error;
	int attempts;
	int64_t next_try, created, updated, sent;
};

/* Queue a message: its id, 0 when that Message-ID is queued already (nothing added), -1 with err set. */
int64_t store_outbox_add(struct store *s, const char *message_id, const char *from, const char *rcpts,
			 const char *data, size_t len, int64_t now, struct strbuf *err);
int store_outbox_get(struct store *s, int64_t id, struct store_mail *m, struct strbuf *err);
void store_mail_release(struct store_mail *m);
/* Take a queued message for sending (connecting): 1 taken, 0 someone else has it (or it is not queued), -1 with err set. */
int store_outbox_claim(struct store *s, int64_t id, int pid, int64_t now, struct strbuf *err);
/* The claimed message is about to leave (sending). 0, or -1 with err set (also when it is not connecting any more). */
int store_outbox_data(struct store *s, int64_t id, int64_t now, struct strbuf *err);
/* How a claimed delivery ended: status sent, queued (with next_try), failed or in-doubt. 0, or -1 with err set. */
int store_outbox_done(struct store *s, int64_t id, const char *status, const char *error, int64_t next_try,
		      int64_t now, struct strbuf *err);
/* Queue a failed, in-doubt (or queued) message again, due now. 0, or -1 with err set. */
int store_outbox_retry(struct store *s, int64_t id, int64_t now, struct strbuf *err);
/* After a sender died: connecting -> queued, sending -> in-doubt; how many in doubt, or -1 with err set. */
long store_outbox_recover(struct store *s, int64_t now, struct strbuf *err);
/* The ids of the queued messages due at now, oldest first. 0, or -1 with err set. */
int store_outbox_due(struct store *s, int64_t now, int64_t **ids, size_t *n, struct strbuf *err);
/*
 * Every message as a sequence of maps: its envelope and delivery state, and
 * headers (the header block, at most 16 KiB of it) instead of its data.
 * 0, or -1 with err set.
 */
int store_outbox_list(struct store *s, struct node **out, struct strbuf *err);
/*
 * The first report of a commit (its X-lkprobot-Commit header starts with
 * commit, a hex prefix) still queued, sent or on its way — a fix's report
 * replies to it: its Message-ID and header block (free() both). sent_live:
 * only a report that went to its recipients, not a dry run's (the
 * X-lkprobot-Dry-Run header), which they never saw. 1 found, 0 none, -1
 * with err set.
 */
int store_outbox_of_commit(struct store *s, const char *commit, bool sent_live, char **message_id, char **headers,
			   struct strbuf *err);

/*
 * The service's heads: each head of a watched branch once (queued ->
 * testing -> done | baseline | failed | build_failed; queued or testing ->
 * cancelled from the dashboard; baseline: a first head with no parent,
 * measured on its own), the
 * base it is compared with, the outcome as text (JSON). store_head_add:
 * its id, 0 when known already, -1 with err. store_head_set: 0, 1 when the
 * head is cancelled (or gone) and was left as it is, -1 with err.
 */
int64_t store_head_add(struct store *s, const char *tree, const char *branch, const char *head, const char *base,
		       int64_t now, struct strbuf *err);
int store_head_set(struct store *s, int64_t id, const char *status, const char *result, int64_t now,
		   struct strbuf *err);
/* The last head recorded for tree's branch, appended to head: 1, 0 when none, -1 with err set. */
int store_head_last(struct store *s, const char *tree, const char *branch, struct strbuf *head, struct strbuf *err);
/*
 * The last head of tree's branch recorded before head id `before` that was
 * tested and measured (status done or baseline: not failed, build_failed, queued...),
 * appended to head: 1, 0 when none, -1 with err set. A branch's base — but
 * when a job of that head was "not sure" (an interval that rules nothing
 * out), the base it was measured against instead: the last sure one stays
 * the base, and the commits of the unsure head stay in the next range.
 */
int store_head_last_measured(struct store *s, const char *tree, const char *branch, int64_t before,
			     struct strbuf *head, struct strbuf *err);
/* The base head id is compared with (chosen when it is tested). 0, or -1 with err set. */
int store_head_set_base(struct store *s, int64_t id, const char *base, int64_t now, struct strbuf *err);
/* The heads (todo: only queued and testing ones, oldest first) as maps. 0, or -1 with err set. */
int store_heads(struct store *s, bool todo, struct node **out, struct strbuf *err);
/* At most limit heads with an id above after, oldest first, as store_heads() gives them. 0, or -1 with err set. */
int store_heads_page(struct store *s, int64_t after, long limit, struct node **out, struct strbuf *err);
/*
 * What a page shows of the heads, asked by what it shows (indexed: the
 * cost does not grow with the heads of other commits), as store_heads()
 * gives them: the heads whose head or base is commit (a full id), oldest
 * first; those of base..head (a bisection's good and bad), oldest first;
 * the last `limit` heads of a tree's branch, newest first; and each
 * branch with heads, {tree, branch, total, newest (its last head's id)},
 * counted on the index.
 */
int store_heads_about(struct store *s, const char *commit, struct node **out, struct strbuf *err);
int store_heads_between(struct store *s, const char *base, const char *head, struct node **out, struct strbuf *err);
int store_heads_of_branch(struct store *s, const char *tree, const char *branch, long limit, struct node **out,
			  struct strbuf *err);
int store_heads_branches(struct store *s, struct node **out, struct strbuf *err);
/* Head id's tree, head and status, as a map: 1, 0 no such head (*out NULL), -1 with err set. */
int store_head_one(struct store *s, int64_t id, struct node **out, struct strbuf *err);

/* A head's row, typed (strings owned; NULL when the column is). */
struct store_head {
	int64_t id;
	char *tree, *branch, *head, *base;
	char *status; /* queued, testing, done, baseline, failed, build_failed, cancelled */
	char *result; /* what testing it gave, as JSON (flow/serve_head.h); NULL: nothing yet */
	int64_t first_seen, updated;
};
struct store_heads {
	struct store_head *v;
	size_t n;
};
/* The heads (todo: only queued and testing ones), oldest first, into *out (store_heads_release). 0, or -1. */
int store_head_rows(struct store *s, bool todo, struct store_heads *out, struct strbuf *err);
void store_heads_release(struct store_heads *h);

/*
 * What the dashboard's actions do to a head: test it again (a done, failed
 * or cancelled head becomes queued, its result cleared) or cancel it (a
 * queued head, or one being tested: the service stops its bisection, and
 * what it started on a farm is cancelled). 0, or -1 with
 * "head N cannot be ...: no such head, or it is not ..." in err.
 */
int store_head_retest(struct store *s, int64_t id, int64_t now, struct strbuf *err);
int store_head_cancel(struct store *s, int64_t id, int64_t now, struct strbuf *err);

/*
 * A metric's history for one job (testcase + path_params, and tbox_group
 * unless NULL): a sequence of maps, one a commit, in the order the commits
 * were first run — commit, first_run, runs, mean, min, max, samples (the
 * values joined with spaces). At most 2000 commits. 0, or -1 with err set.
 */
int store_history(struct store *s, const char *testcase, const char *path_params, const char *metric,
		  const char *tbox_group, struct node **out, struct strbuf *err);

/*
 * The commits recorded whose name starts with prefix (hex digits): a
 * sequence of at most 2 maps {commit}, so one means unique. 0, or -1 with
 * err set.
 */
int store_commit_match(struct store *s, const char *prefix, struct node **out, struct strbuf *err);
/*
 * The commits with runs in the store whose name starts with prefix (any
 * text: a sha's prefix, a kernel release), on the names' index: a sequence
 * of at most 2 maps {commit}. 0, or -1 with err set.
 */
int store_commit_with_runs(struct store *s, const char *prefix, struct node **out, struct strbuf *err);

/* The test boxes runs were recorded on: name, tbox_group, nr_cpu, memory, model, runs, last_run. */
int store_machines(struct store *s, struct node **out, struct strbuf *err);

/* The last 500 bisections, newest first: id, tree, good, bad, job, provider, metric, status, culprit, created, updated, why, checks. */
int store_bisections(struct store *s, struct node **out, struct strbuf *err);
/* Bisection id as one such map: 0, 1 when there is none (*out NULL), -1 with err set. */
int store_bisection_row(struct store *s, int64_t id, struct node **out, struct strbuf *err);

/*
 * The ssh provider's boxes (schema version 5): name, in_service (1/0),
 * failures (in a row), last_error, last_ok, updated. A box never recorded
 * is in service.
 */
/* Box name as such a map: 0, 1 when it was never recorded (*out NULL), -1 with err set. */
int store_box_get(struct store *s, const char *name, struct node **out, struct strbuf *err);
/*
 * A failed run of the box: its count in a row grows, and at max_failures
 * the box goes out of service. 0 still in service, 1 out of service now,
 * -1 with err set.
 */
int store_box_failed(struct store *s, const char *name, const char *why, int max_failures, int64_t now,
		     struct strbuf *err);
/* A good run: the count in a row is cleared. */
int store_box_ok(struct store *s, const char *name, int64_t now, struct strbuf *err);
/* Put the box in service (its count cleared) or out of it (why, if given, recorded). */
int store_box_service(struct store *s, const char *name, bool in_service, const char *why, int64_t now,
		      struct strbuf *err);
int store_boxes(struct store *s, struct node **out, struct strbuf *err);

/* ---- mailing lists (store_lists.c) ---- */

/* The last commit read of epoch of list's archive, in *last (free() it): 0, 1 when none is, -1 with err set. */
int store_list_epoch(struct store *s, const char *list, int epoch, char **last, struct strbuf *err);
int store_list_epoch_set(struct store *s, const char *list, int epoch, const char *last, int64_t now,
			 struct strbuf *err);

/* A series of a list as the robot last saw it (key: its thread's first message and version). */
struct store_series {
	const char *list, *key, *subject, *author, *state;
	int version;
	const char *why;   /* incomplete: what is missing; does not apply: the first failing patch; refused: why */
	const char *parts; /* the archive commits of its mails, "epoch:id" each, space-separated */
	const char *base, *branch, *head;
	const char *change_id; /* b4's change-id: (NULL: none, or keep the one recorded) */
};
/* Record it (made or updated by list and key): its id, or -1 with err set. */
int64_t store_series_put(struct store *s, const struct store_series *ser, int64_t now, struct strbuf *err);
/* The series of list (NULL: of every list), oldest first, as a sequence of maps of their columns. */
int store_series_list(struct store *s, const char *list, struct node **out, struct strbuf *err);

/* ---- reports, their triage and their replies' commands (store_reports.c) ---- */

/*
 * A report mailed (schema version 9): one row a report mail, by its
 * Message-ID, with what it said (the culprit, its parent, the job, the
 * metric's change and interval), where it went (rcpts: the addr-specs of
 * its To, Cc and envelope, one a line) and its triage state — new,
 * acknowledged, fixed, invalid, wont-fix, duplicate — whose every change
 * is a line of its history. Strings are the caller's; NAN numbers and 0
 * ids are unknown.
 */
struct store_report {
	const char *message_id, *tree, *branch, *culprit, *parent, *job, *testcase, *machine, *metric, *kind;
	const char *subject, *rcpts;
	const char *sections; /* the MAINTAINERS sections whose people got it, one a line (NULL: none) */
	double change, lo, hi;
	int64_t bisection, outbox;
};
/* Record it (once by Message-ID: a second time keeps the first): its id, or -1 with err set. */
int64_t store_report_add(struct store *s, const struct store_report *r, int64_t now, struct strbuf *err);
/* Report id as a map of its columns (NULL ones left out): 0, 1 none (*out NULL), -1 with err set. */
int store_report_get(struct store *s, int64_t id, struct node **out, struct strbuf *err);
/* The id of the report whose Message-ID is message_id ("<a@b>"): the id, 0 none, -1 with err set. */
int64_t store_report_by_message(struct store *s, const char *message_id, struct strbuf *err);
/* The reports whose culprit starts with prefix (on the culprit's index), oldest first, as maps. */
int store_reports_of_commit(struct store *s, const char *prefix, struct node **out, struct strbuf *err);
/* Every report, newest first, as maps. */
int store_reports(struct store *s, struct node **out, struct strbuf *err);
/* The reports of tree's branch still open (new, acknowledged), oldest first, as maps. */
int store_reports_open(struct store *s, const char *tree, const char *branch, struct node **out, struct strbuf *err);
/* A change of a report's state: who made it, why, from where (a mail's Message-ID, "dashboard", ...). */
struct store_triage {
	int64_t report;
	const char *state, *who, *why, *source;
	const char *fixed_at; /* fixed: the commit (NULL: not known) */
	int64_t dup_of;	      /* duplicate: of that report (0: none) */
};
/* The state set and its line of history, in one transaction: 0, 1 no such report, -1 with err set. */
int store_report_triage(struct store *s, const struct store_triage *t, int64_t now, struct strbuf *err);
/* Its history, oldest first: state, was, who, why, source, at. */
int store_report_history(struct store *s, int64_t id, struct node **out, struct strbuf *err);
/*
 * The accuracy record: per testcase and machine (tbox_group), reports,
 * confirmed (acknowledged, fixed, wont-fix), invalid, corrected
 * (duplicate: another report had it) and new (not triaged).
 */
int store_report_accuracy(struct store *s, struct node **out, struct strbuf *err);
/* Of the last `last` triaged reports of testcase on machine: how many (*n), and confirmed. 0, or -1. */
int store_report_triaged(struct store *s, const char *testcase, const char *machine, int last, long *n, long *confirmed,
			 struct strbuf *err);

/*
 * A command of a reply to a report, by the reply's Message-ID and its place
 * in it (n): recorded before it is acted on (status queued, or ignored
 * with why in result), then acting, then done with its answer's
 * Message-ID.
 */
struct store_command {
	const char *mail, *sender, *command, *args, *status;
	int n;
	int64_t report;
};
/* Record it: its id, 0 when it is known already (nothing added), -1 with err set. */
int64_t store_command_add(struct store *s, const struct store_command *c, int64_t now, struct strbuf *err);
/* Its status, answer and result (NULL: kept). 0, or -1 with err set. */
int store_command_set(struct store *s, int64_t id, const char *status, const char *answer, const char *result,
		      int64_t now, struct strbuf *err);
/* The commands queued or acting, oldest first: id, mail, n, report, sender, command, args, status, answer, result. */
int store_commands_todo(struct store *s, struct node **out, struct strbuf *err);
/* The commands of report (0: of every report), oldest first, with created and updated. */
int store_commands(struct store *s, int64_t report, struct node **out, struct strbuf *err);

/*
 * What changed, by topic: a counter a topic that every write to its
 * tables moves on (the store's triggers: whoever writes, whichever
 * process). A reader that kept what it made from a topic knows it is
 * still right while the topic's counter is the same (the dashboard's
 * pages: web/cache). One bit a topic.
 */
enum store_topic {
	STORE_TOPIC_RUNS,	/* runs (their stats), machines */
	STORE_TOPIC_HEADS,	/* heads */
	STORE_TOPIC_BISECTIONS, /* bisections */
	STORE_TOPIC_OUTBOX,	/* outbox */
	STORE_TOPIC_BOXES,	/* boxes */
	STORE_TOPIC_SERIES,	/* series, list_epochs */
	STORE_TOPIC_REPORTS,	/* reports, their history and their replies' commands */
	STORE_NTOPICS
};
#define STORE_READS(t) (1u << (t))
#define STORE_READS_ALL ((1u << STORE_NTOPICS) - 1)
/* Each topic's counter now, v[STORE_NTOPICS]. 0, or -1 with err set. */
int store_changes(struct store *s, int64_t *v, struct strbuf *err);

#endif

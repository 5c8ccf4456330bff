/*
 * store_runs: recording a run (its job, commit, machine, stats, what was
 * unavailable, facts), forgetting runs under a directory, and the queries
 * over runs: listings, one run's stats, a metric's history, commits by
 * prefix, machines. See store.h.
 */
#include "store_int.h"
#include "../util/json.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The statements of this file, by id (store_int.h). */
const char *const store_runs_sql[ST_NR] = {
	[ST_COMMIT_GET] = "SELECT id FROM commits WHERE name = ?1",
	/* a range on the names' index: [prefix, prefix U+10FFFF) is every name starting so */
	[ST_COMMIT_PREFIX] =
		"SELECT name FROM commits WHERE name >= ?1 AND name < ?1 || char(1114111)"
		" ORDER BY name LIMIT 2",
	[ST_COMMIT_PREFIX_RUNS] =
		"SELECT c.name FROM commits c WHERE c.name >= ?1 AND c.name < ?1 || char(1114111)"
		" AND EXISTS (SELECT 1 FROM runs r WHERE r.commit_id = c.id) ORDER BY c.name LIMIT 2",
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
	[ST_JOB_GET] =
		"SELECT id FROM jobs WHERE hash = ?1 AND testcase = ?2"
		" AND path_params = ?3 AND yaml = ?4",
	[ST_JOB_ADD] =
		"INSERT INTO jobs(hash, testcase, path_params, yaml)"
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
	[ST_STAT_PUT] =
		"INSERT INTO stats(run_id, metric_id, value, is_float)"
		" VALUES (?1, ?2, ?3, ?4) ON CONFLICT(run_id, metric_id)"
		" DO UPDATE SET value = excluded.value, is_float = excluded.is_float",
	[ST_UNAV_DEL] = "DELETE FROM unavailable WHERE run_id = ?1",
	[ST_UNAV_PUT] =
		"INSERT INTO unavailable(run_id, what, why) VALUES (?1, ?2, ?3)"
		" ON CONFLICT(run_id, what) DO UPDATE SET why = excluded.why",
	[ST_FACTS_DEL] = "DELETE FROM facts WHERE run_id = ?1",
	[ST_FACT_PUT] =
		"INSERT INTO facts(run_id, key, value) VALUES (?1, ?2, ?3)"
		" ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value",
	/* one statement, one snapshot: no row = no run, a NULL name = no stats */
	[ST_RUN_STATS] =
		"SELECT r.id, m.name, s.value, s.is_float FROM runs r"
		" LEFT JOIN stats s ON s.run_id = r.id"
		" LEFT JOIN metrics m ON m.id = s.metric_id"
		" WHERE r.result_root = ?1 ORDER BY m.name",
	[ST_RUN_UNAV] = "SELECT what, why FROM unavailable WHERE run_id = ?1 ORDER BY what",
	[ST_RUN_FACTS] = "SELECT key, value FROM facts WHERE run_id = ?1 ORDER BY key",
	/* '/' + 1 == '0': [dir/, dir0) is everything under dir, on the index */
	[ST_FORGET] =
		"DELETE FROM runs WHERE result_root = ?1"
		" OR (result_root >= ?2 AND result_root < ?3)",
	/* one row a commit, in the order the commits were first run; samples in run order */
	[ST_HISTORY] =
		"SELECT c.name, MIN(COALESCE(r.start_time, 0)), COUNT(*), AVG(st.value), MIN(st.value),"
		" MAX(st.value), group_concat(st.value, ' ') FROM jobs j JOIN runs r ON r.job_id = j.id"
		" JOIN commits c ON c.id = r.commit_id JOIN stats st ON st.run_id = r.id"
		" AND st.metric_id = (SELECT id FROM metrics WHERE name = ?3)"
		" WHERE j.testcase = ?1 AND j.path_params = ?2 AND (?4 IS NULL OR r.tbox_group = ?4)"
		" GROUP BY r.commit_id ORDER BY 2, MIN(r.id) LIMIT 2000",
	[ST_MACHINES] =
		"SELECT m.name, m.tbox_group, m.nr_cpu, m.memory, m.model, COUNT(r.id), MAX(r.end_time)"
		" FROM machines m LEFT JOIN runs r ON r.machine_id = m.id GROUP BY m.id ORDER BY m.tbox_group, m.name",
};

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
	sqlite3_stmt *q = store_stmt(s, get, err);
	int64_t id;

	if (!q)
		return -1;
	if (store_bind_text(q, 1, name))
		return store_sqlerr(s, err);
	id = store_step_id(s, q, err);
	if (id)
		return id;
	if (!(q = store_stmt(s, add, err)))
		return -1;
	if (store_bind_text(q, 1, name))
		return store_sqlerr(s, err);
	if (store_step_done(s, q, err))
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
	if (!(q = store_stmt(s, ST_JOB_GET, err)))
		return -1;
	if (store_bind_text(q, 1, hash) || store_bind_text(q, 2, r->testcase) || store_bind_text(q, 3, pp) ||
	    store_bind_text(q, 4, yaml))
		return store_sqlerr(s, err);
	id = store_step_id(s, q, err);
	if (id)
		return id;
	if (!(q = store_stmt(s, ST_JOB_ADD, err)))
		return -1;
	if (store_bind_text(q, 1, hash) || store_bind_text(q, 2, r->testcase) || store_bind_text(q, 3, pp) ||
	    store_bind_text(q, 4, yaml))
		return store_sqlerr(s, err);
	if (store_step_done(s, q, err))
		return -1;
	return sqlite3_last_insert_rowid(s->db);
}

static int64_t put_machine(struct store *s, const struct store_run *r, int64_t now,
			   struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_MACHINE_PUT, err);

	if (!q)
		return -1;
	if (store_bind_text(q, 1, r->machine) || store_bind_text(q, 2, r->tbox_group) ||
	    store_bind_int(q, 3, r->nr_cpu) || store_bind_int(q, 4, (int64_t)r->memory) ||
	    store_bind_text(q, 5, r->model) || store_bind_text(q, 6, r->brand) ||
	    sqlite3_bind_int64(q, 7, now))
		return store_sqlerr(s, err);
	return store_returned_id(store_step_id(s, q, err), err);
}

static int64_t put_run(struct store *s, const struct store_run *r, const char *root,
		       int64_t job, int64_t commit, int64_t machine, int64_t now,
		       struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_RUN_PUT, err);

	if (!q)
		return -1;
	if (store_bind_text(q, 1, root) || sqlite3_bind_int64(q, 2, r->run_no) ||
	    sqlite3_bind_int64(q, 3, job) || sqlite3_bind_int64(q, 4, commit) ||
	    store_bind_int(q, 5, machine) || store_bind_text(q, 6, r->tbox_group) ||
	    store_bind_text(q, 7, r->kconfig) || store_bind_text(q, 8, r->compiler) ||
	    store_bind_text(q, 9, r->rootfs) || store_bind_text(q, 10, r->job_state) ||
	    store_bind_int(q, 11, r->start_time) || store_bind_int(q, 12, r->end_time) ||
	    sqlite3_bind_int64(q, 13, now))
		return store_sqlerr(s, err);
	return store_returned_id(store_step_id(s, q, err), err);
}

static int del_rows(struct store *s, enum stmt_id id, int64_t run, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, id, err);

	if (!q)
		return -1;
	if (sqlite3_bind_int64(q, 1, run))
		return store_sqlerr(s, err);
	return store_step_done(s, q, err);
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
		if (metric < 0 || !(q = store_stmt(s, ST_STAT_PUT, err)))
			return -1;
		if (sqlite3_bind_int64(q, 1, run) || sqlite3_bind_int64(q, 2, metric) ||
		    sqlite3_bind_double(q, 3, v) || sqlite3_bind_int(q, 4, is_float))
			return store_sqlerr(s, err);
		if (store_step_done(s, q, err))
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
		if (!(q = store_stmt(s, put, err)))
			return -1;
		if (sqlite3_bind_int64(q, 1, run) || store_bind_text(q, 2, map->keys[i]) ||
		    store_bind_text(q, 3, scalar_text(map->vals[i])))
			return store_sqlerr(s, err);
		if (store_step_done(s, q, err))
			return -1;
	}
	return 0;
}

int store_record_run(struct store *s, const struct store_run *r, struct strbuf *err)
{
	struct strbuf root = STRBUF_INIT;
	int64_t now = (int64_t)time(NULL), job = 0, commit = 0, machine = 0, run = 0;

	if (check_run(r, err)) {
		store_context(s, err, "record run '%s'", r->result_root ? r->result_root : "");
		return -1;
	}
	path_trim(&root, r->result_root);
	if (store_tx_begin(s, ST_BEGIN_WRITE, err))
		goto fail;
	if ((job = put_job(s, r, err)) < 0 ||
	    (commit = intern(s, ST_COMMIT_GET, ST_COMMIT_ADD, r->commit, err)) < 0 ||
	    (r->machine && (machine = put_machine(s, r, now, err)) < 0) ||
	    (run = put_run(s, r, root.buf, job, commit, machine, now, err)) < 0 ||
	    put_stats(s, run, r->stats, err) ||
	    put_pairs(s, ST_UNAV_DEL, ST_UNAV_PUT, run, r->unavailable, err) ||
	    put_pairs(s, ST_FACTS_DEL, ST_FACT_PUT, run, r->facts, err) ||
	    store_tx_commit(s, err))
		goto fail;
	strbuf_release(&root);
	return 0;
fail:
	store_rollback(s);
	store_context(s, err, "record run '%s'", root.buf);
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
	if (store_tx_begin(s, ST_BEGIN_WRITE, err) || !(q = store_stmt(s, ST_FORGET, err)))
		goto out;
	if (store_bind_text(q, 1, rg.exact.buf) || store_bind_text(q, 2, rg.lo.buf) ||
	    store_bind_text(q, 3, rg.hi.buf)) {
		store_sqlerr(s, err);
		goto out;
	}
	if (store_step_done(s, q, err))
		goto out;
	n = (long)sqlite3_changes64(s->db);
	if (store_tx_commit(s, err))
		n = -1;
out:
	if (n < 0) {
		store_rollback(s);
		store_context(s, err, "forget runs under '%s'", dir);
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
		store_sqlerr(s, err);
		q = NULL;
		goto out;
	}
	for (int i = 0; i < nv; i++)
		if (sqlite3_bind_text(q, i + 1, vals[i], -1, SQLITE_TRANSIENT) != SQLITE_OK) {
			store_sqlerr(s, err);
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
			store_sqlerr(s, err);
		sqlite3_finalize(q);
	}
	if (n < 0)
		store_context(s, err, "count runs");
	return n;
}

/* unavailable or facts of one run as a map; NULL when there are none */
static int pairs_of(struct store *s, enum stmt_id id, int64_t run, struct node **out,
		    struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, id, err);
	int rc;

	*out = NULL;
	if (!q)
		return -1;
	if (sqlite3_bind_int64(q, 1, run))
		return store_sqlerr(s, err);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (!*out)
			*out = node_new(NODE_MAP);
		node_append(*out, (const char *)sqlite3_column_text(q, 0),
			    store_text_node((const char *)sqlite3_column_text(q, 1)));
	}
	if (rc != SQLITE_DONE) {
		store_sqlerr(s, err);
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
	if (store_tx_begin(s, ST_BEGIN_READ, err))
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
			store_add_column(map, list_keys[col], q, col);
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
		store_sqlerr(s, err);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE)
		goto fail;
	if (store_tx_commit(s, err))
		goto fail;
	*out = list;
	return 0;
fail:
	store_rollback(s);
	node_free(list);
	return store_context(s, err, "list runs");
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
	if (!(q = store_stmt(s, ST_RUN_STATS, err)))
		goto fail;
	if (store_bind_text(q, 1, root.buf)) {
		store_sqlerr(s, err);
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
		store_sqlerr(s, err);
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
	store_context(s, err, "read the stats of '%s'", root.buf);
	strbuf_release(&root);
	strbuf_release(&num);
	return -1;
}

int store_history(struct store *s, const char *testcase, const char *path_params, const char *metric,
		  const char *tbox_group, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_HISTORY, err);
	static const char *const keys[] = { "commit", "first_run", "runs", "mean", "min", "max", "samples" };

	*out = NULL;
	if (!q)
		return store_context(s, err, "read the history of %s", metric);
	store_bind_text(q, 1, testcase);
	store_bind_text(q, 2, path_params);
	store_bind_text(q, 3, metric);
	if (tbox_group)
		store_bind_text(q, 4, tbox_group);
	else
		sqlite3_bind_null(q, 4);
	if (store_rows(s, q, keys, NKEYS(keys), out, err))
		return store_context(s, err, "read the history of %s", metric);
	return 0;
}

int store_commit_match(struct store *s, const char *prefix, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_COMMIT_PREFIX, err);
	static const char *const keys[] = { "commit" };

	*out = NULL;
	if (strspn(prefix, "0123456789abcdef") != strlen(prefix) || !*prefix) {
		strbuf_setf(err, "'%s': not a commit id prefix (hex digits)", prefix);
		return -1;
	}
	if (!q)
		return store_context(s, err, "look up commit %s", prefix);
	store_bind_text(q, 1, prefix);
	if (store_rows(s, q, keys, NKEYS(keys), out, err))
		return store_context(s, err, "look up commit %s", prefix);
	return 0;
}

int store_commit_with_runs(struct store *s, const char *prefix, struct node **out, struct strbuf *err)
{
	sqlite3_stmt *q = store_stmt(s, ST_COMMIT_PREFIX_RUNS, err);
	static const char *const keys[] = { "commit" };

	*out = NULL;
	if (!q)
		return store_context(s, err, "look up commit %s", prefix);
	store_bind_text(q, 1, prefix);
	if (store_rows(s, q, keys, NKEYS(keys), out, err))
		return store_context(s, err, "look up commit %s", prefix);
	return 0;
}

int store_machines(struct store *s, struct node **out, struct strbuf *err)
{
	static const char *const keys[] = { "name", "tbox_group", "nr_cpu", "memory", "model", "runs", "last_run" };

	return store_list(s, ST_MACHINES, keys, NKEYS(keys), "list the machines", out, err);
}

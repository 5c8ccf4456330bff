/*
 * runstore: result roots into the store. See runstore.h.
 */
#include "runstore.h"
#include "../lib/sys/fsutil.h"
#include "../lib/util/json.h"
#include "../lib/util/node.h"
#include "../lib/results/result.h"
#include "../lib/store/store.h"
#include "../lib/util/units.h"
#include "../lib/util/say.h"
#include "../lib/util/sset.h"
#include "../lib/util/yml.h"
#include "../lib/store/store.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int runstore_open(struct runstore *rs, bool use, const char *db, const char *result_dir, struct strbuf *err)
{
	rs->store = NULL;
	if (!use)
		return 0;
	char *path = store_default_path(db, result_dir);
	if (!db)
		fsutil_mkdir_p(result_dir);
	rs->store = store_open(path, err);
	int e = errno; /* store_fault() tells its kind */
	free(path);
	errno = e;
	return rs->store ? 0 : -1;
}

void runstore_close(struct runstore *rs)
{
	store_close(rs->store);
	rs->store = NULL;
}

static const char *str(const struct node *job, const char *k)
{
	return node_str(node_get(job, k));
}

/*
 * The eight parts of a result root's real path, .../<testcase>/<path_params>/
 * <tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/<run>, cut in place
 * (real keeps what is above them). 0, or -1 with err set.
 */
static int root_parts(char *real, const char *run_dir, char *parts[8], struct strbuf *err)
{
	char *p = real + strlen(real);

	for (int i = 7; i >= 0; i--) {
		char *slash = p;
		while (slash > real && slash[-1] != '/')
			slash--;
		if (slash <= real + 1) {
			strbuf_setf(
				err,
				"%s: not an LKP result root "
				"(<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>/<run>)",
				run_dir);
			return -1;
		}
		parts[i] = slash;
		slash[-1] = '\0';
		p = slash - 1;
	}
	return 0;
}

int runstore_record_dir(struct runstore *rs, const char *run_dir, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char real[PATH_MAX];
	char *parts[8] = { 0 };
	struct node *job = NULL, *stats = NULL;
	int ret = -1;

	if (!rs->store)
		return 0;
	if (!realpath(run_dir, real)) {
		strbuf_setf(err, "%s: %s", run_dir, strerror(errno));
		return -1;
	}
	if (root_parts(real, run_dir, parts, err))
		goto out;
	char *job_path = xasprintf("%s/%s/%s/%s/%s/%s/%s/%s/%s/job.yaml", real, parts[0], parts[1], parts[2], parts[3],
				   parts[4], parts[5], parts[6], parts[7]);
	char *root = xasprintf("%s/%s/%s/%s/%s/%s/%s/%s/%s", real, parts[0], parts[1], parts[2], parts[3], parts[4],
			       parts[5], parts[6], parts[7]);
	if (strbuf_read_bounded(&text, job_path, RESULT_FILE_MAX, NULL)) {
		strbuf_setf(err, "%s: cannot read job.yaml: %s", root, strerror(errno));
		goto out2;
	}
	if (!(job = yml_load_one(text.buf, job_path, err)) || job->type != NODE_MAP) {
		if (job)
			strbuf_setf(err, "%s: job.yaml is not a job", root);
		goto out2;
	}
	char *sp = xasprintf("%s/stats.json", root);
	struct strbuf e = STRBUF_INIT;
	if (result_load_json(sp, &stats, &e))
		stats = NULL; /* a run that died before its stats: recorded without */
	strbuf_release(&e);
	free(sp);

	/* the atomic job as it was split: without what the run added to job.yaml */
	struct node *atomic = node_dup(job);
	struct strbuf atomic_yaml = STRBUF_INIT;
	for (const char *const *k = result_run_keys; *k; k++)
		node_del(atomic, *k);
	yml_emit(&atomic_yaml, atomic);
	node_free(atomic);

	/* the machine as the run saw it (its facts), else as its host file says */
	const struct node *facts = node_get(job, "facts");
	const char *threads = str(facts, "nr_threads") ? str(facts, "nr_threads") : str(job, "nr_cpu");
	const char *memory = str(facts, "memory") ? str(facts, "memory") : str(job, "memory");
	uint64_t mem = 0;
	struct strbuf me = STRBUF_INIT;
	if (memory && units_bytes(memory, &mem, &me))
		mem = 0;
	strbuf_release(&me);
	struct store_run sr = {
		.result_root = root,
		.run_no = atoi(parts[7]),
		.testcase = parts[0],
		.path_params = parts[1],
		.job_yaml = atomic_yaml.buf,
		.tbox_group = parts[2],
		.rootfs = parts[3],
		.kconfig = parts[4],
		.compiler = parts[5],
		.commit = parts[6],
		.machine = str(job, "testbox"),
		.nr_cpu = threads ? atoi(threads) : 0,
		.memory = mem,
		.model = str(job, "model") ? str(job, "model") : str(facts, "cpu"),
		.brand = str(facts, "cpu") ? str(facts, "cpu") : str(job, "brand"),
		.job_state = str(job, "job_state"),
		.start_time = str(job, "start_time") ? atoll(str(job, "start_time")) : 0,
		.end_time = str(job, "end_time") ? atoll(str(job, "end_time")) : 0,
		.stats = stats,
		.unavailable = node_get(job, "unavailable"),
		.facts = node_get(job, "facts"),
	};
	ret = store_record_run(rs->store, &sr, err);
	strbuf_release(&atomic_yaml);
out2:
	free(job_path);
	free(root);
out:
	node_free(job);
	node_free(stats);
	strbuf_release(&text);
	return ret;
}

bool runstore_is_run_dir(const char *dir)
{
	const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	char *jy = xasprintf("%s/job.yaml", dir);
	bool ok = *base && strspn(base, "0123456789") == strlen(base) && !access(jy, R_OK);
	free(jy);
	return ok;
}

int runstore_restat(const char *run_dir, bool older_names, struct strbuf *err)
{
	struct node *problems = node_new(NODE_MAP);
	int ret = result_restat(run_dir, older_names, problems, err);

	for (size_t i = 0; !ret && i < problems->n; i++) {
		strbuf_setf(err, "%s/%s: %s", run_dir, problems->keys[i], problems->vals[i]->str);
		ret = 1;
	}
	node_free(problems);
	return ret;
}

/* A walk of result roots: where it records, what it found. */
struct walk {
	struct runstore *rs;
	struct sset runs;
	bool missing_only, older_names;
	long failed;
};

/*
 * Find the result roots under dir: the complete ones (re-extracted first
 * when they have no stats.json) into runs, to be recorded in one batch.
 */

static void walk(struct walk *w, const char *dir, int depth)
{
	DIR *d;
	struct dirent *de;
	struct strbuf err = STRBUF_INIT;

	if (depth > 12)
		return;
	if (runstore_is_run_dir(dir)) {
		char *sp = xasprintf("%s/stats.json", dir);
		struct node *known = NULL;
		if (w->missing_only && (access(sp, R_OK) || store_run_stats(w->rs->store, dir, &known, &err) != 1)) {
			/* complete and known, or never completed (no stats.json): nothing to add */
			node_free(known);
			free(sp);
			strbuf_release(&err);
			return;
		}
		if (access(sp, R_OK) && runstore_restat(dir, w->older_names, &err) < 0) {
			say_warn("%s", err.buf);
			w->failed++;
		}
		free(sp);
		sset_add(&w->runs, dir);
		strbuf_release(&err);
		return;
	}
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		char *p = xasprintf("%s/%s", dir, de->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			walk(w, p, depth + 1);
		free(p);
	}
	closedir(d);
}

/*
 * --reindex: the slow part (walking, re-extracting) first; then the rows
 * forgotten and made again in one batch, so that a reader (compare --db,
 * the dashboard) sees the old rows or the new ones, never half of them.
 */
int runstore_reindex(struct runstore *rs, const char *real, bool missing_only, bool older_names, long *found,
		     long *failed, struct strbuf *err)
{
	struct walk w = { .rs = rs, .missing_only = missing_only, .older_names = older_names };
	struct sset runs = { 0 };
	int ret = -1;

	walk(&w, real, 0);
	runs = w.runs;
	*failed += w.failed;
	if (store_batch_begin(rs->store, err))
		goto out;
	if (!missing_only && store_forget_under(rs->store, real, err) < 0) {
		store_batch_end(rs->store, false, err);
		goto out;
	}
	for (size_t i = 0; i < runs.cap; i++) {
		struct strbuf e = STRBUF_INIT;
		if (!runs.slot[i])
			continue;
		if (runstore_record_dir(rs, runs.slot[i], &e)) {
			say_warn("%s", e.buf);
			(*failed)++;
		} else {
			(*found)++;
		}
		strbuf_release(&e);
	}
	ret = store_batch_end(rs->store, true, err);
out:
	sset_release(&runs);
	return ret;
}

long runstore_record_missing_in(struct runstore *rs, const char *rt)
{
	char real[PATH_MAX];
	DIR *d;
	struct dirent *de;
	long n = 0;

	if (!rs->store || !realpath(rt, real) || !(d = opendir(real)))
		return 0;
	while ((de = readdir(d))) {
		struct strbuf err = STRBUF_INIT;
		char *run = xasprintf("%s/%s", real, de->d_name), *sp = xasprintf("%s/stats.json", run);
		struct store_query q = { .under = run };
		if (de->d_name[0] != '.' && runstore_is_run_dir(run) && !access(sp, R_OK) &&
		    !store_count_runs(rs->store, &q, &err)) {
			if (runstore_record_dir(rs, run, &err))
				say_warn("%s", err.buf);
			else
				n++;
		}
		free(sp);
		free(run);
		strbuf_release(&err);
	}
	closedir(d);
	return n;
}

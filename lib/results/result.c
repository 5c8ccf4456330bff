/*
 * result: result roots, extraction and matrices. See result.h.
 */
#include "result.h"
#include "sampling.h"
#include "../sys/fsutil.h"
#include "../util/json.h"
#include "../run/program.h"
#include "../stats/stats.h"
#include "../util/yml.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int result_claim_run(const char *rt, char **run_dir, int *run_no, struct strbuf *err)
{
	if (fsutil_mkdir_p(rt)) {
		strbuf_setf(err, "cannot create the result root '%s': %s", rt, strerror(errno));
		return -1;
	}
	for (int n = 0; n < 100000; n++) {
		char *d = xasprintf("%s/%d", rt, n);
		if (!mkdir(d, 0755)) {
			*run_dir = d;
			*run_no = n;
			return 0;
		}
		free(d);
		if (errno != EEXIST) {
			strbuf_setf(err, "cannot create a run directory in '%s': %s", rt, strerror(errno));
			return -1;
		}
	}
	strbuf_setf(err, "'%s' has 100000 runs already", rt);
	return -1;
}

int result_save_text(const char *path, const char *text, size_t len, struct strbuf *err)
{
	return fsutil_write_atomic(path, text, len, err);
}

int result_save_json(const char *path, const struct node *n, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	json_emit(&sb, n);
	ret = result_save_text(path, sb.buf, sb.len, err);
	strbuf_release(&sb);
	return ret;
}

int result_load_json(const char *path, struct node **out, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;

	if (fsutil_read_regular(&sb, path, RESULT_FILE_MAX, err))
		return -1;
	*out = json_parse(sb.buf, sb.len, path, err);
	strbuf_release(&sb);
	return *out ? 0 : -1;
}

/*
 * A parser's complaint, kept in job.yaml: one line of valid UTF-8 whatever
 * bytes of the raw file it quotes (a 0xff in it made job.yaml unreadable).
 */
static void problem(struct node *problems, const char *file, const char *msg)
{
	struct strbuf clean = STRBUF_INIT;

	if (!problems)
		return;
	strbuf_add_oneline(&clean, msg, strlen(msg));
	struct node *v = node_new_scalar(clean.buf);
	v->quoted = 1;
	node_set(problems, file, v);
	strbuf_release(&clean);
}

/* Parse one raw file with p's parser into <group>.json; 1 if written, 0 if none. */
static int extract_one(const char *run_dir, const struct program *p, const char *raw,
		       const char *group, struct node *problems, struct strbuf *err)
{
	char *path = xasprintf("%s/%s", run_dir, raw);
	char *json = xasprintf("%s/%s.json", run_dir, group);
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	struct stats_samples ss;
	int ret = 0;

	stats_samples_init(&ss);
	if (fsutil_read_regular(&text, path, RESULT_FILE_MAX, &e)) {
		if (errno != ENOENT)
			problem(problems, raw, e.buf);	/* a FIFO, a device, a file too big */
		goto out;	/* else the program wrote nothing: nothing to parse */
	}
	if (p->parse(text.buf, text.len, &ss, &e)) {
		problem(problems, raw, e.buf);
		unlink(json);	/* no numbers: not an older extraction's either */
		goto out;
	}
	struct node *pj = stats_program_json(&ss, group);
	if (pj) {
		ret = result_save_json(json, pj, err) ? -1 : 1;
		node_free(pj);
	} else {
		unlink(json);
	}
out:
	free(json);
	stats_samples_release(&ss);
	strbuf_release(&text);
	strbuf_release(&e);
	free(path);
	return ret;
}

/* Has the group been parsed already (a job key)? */
static bool in_groups(const struct node *groups, const char *name)
{
	for (size_t i = 0; i < groups->n; i++)
		if (!strcmp(groups->vals[i]->str, name))
			return true;
	return false;
}

/*
 * lkp-tests' run-stats: a test whose raw output is missing, or gave no
 * stats, makes the run incomplete ("is_incomplete_run: 1" in last_state,
 * once), which compare keeps out of its perf rows.
 */
static void mark_incomplete(const char *run_dir, const char *test)
{
	char *path = xasprintf("%s/last_state", run_dir);
	struct strbuf ls = STRBUF_INIT, e = STRBUF_INIT;

	if (fsutil_read_regular(&ls, path, RESULT_FILE_MAX, &e) && errno != ENOENT)
		goto out;
	if (strstr(ls.buf ? ls.buf : "", "is_incomplete_run: 1"))
		goto out;
	strbuf_addf(&ls, "# missing %s output\nis_incomplete_run: 1\n", test);
	result_save_text(path, ls.buf, ls.len, &e);
out:
	strbuf_release(&ls);
	strbuf_release(&e);
	free(path);
}

/*
 * A program's own raw file, once a run (NULL, or a group parsed already:
 * nothing): 1 parsed into its group, 0 nothing, -1 with err.
 */
static int extract_program(const char *run_dir, const struct program *p, struct node *groups, struct node *problems,
			   struct strbuf *err)
{
	int r;

	if (!p || !p->parse || in_groups(groups, p->name))
		return 0;
	r = extract_one(run_dir, p, p->raw ? p->raw : p->name, p->name, problems, err);
	if (r > 0)
		node_push(groups, node_new_scalar(p->name));
	return r;
}

int result_extract(const char *run_dir, const struct node *job, struct node *problems,
		   struct node **stats_out, struct strbuf *err)
{
	/* lkp-tests' etc/default_stats.yaml: what every run is parsed for, job key or not */
	static const char *const defaults[] = { "dmesg", "kmsg", "last_state" };
	struct node *stats = node_new(NODE_MAP), *groups = node_new(NODE_SEQ);
	const struct program *timep = program_find("time");
	int ret = -1;

	if (job->type != NODE_MAP) {
		strbuf_setf(err, "%s: its job is not a mapping of keys", run_dir);
		goto out;
	}
	for (size_t i = 0; i < job->n; i++) {
		const struct program *p = job->vals[i]->comment ? NULL : program_find(job->keys[i]);
		int r;

		if (!p || !p->parse || in_groups(groups, p->name))
			continue;
		r = extract_program(run_dir, p, groups, problems, err);
		if (r < 0)
			goto out;
		if (!r && p->kind == PROGRAM_TEST)
			mark_incomplete(run_dir, p->name);
		if (p->kind == PROGRAM_TEST && timep && timep->parse) {
			/* <test>.time -> <test>.time.*, and the whole job's time.* */
			char *raw = xasprintf("%s.time", p->name);
			r = extract_one(run_dir, timep, raw, raw, problems, err);
			if (r > 0)
				node_push(groups, node_new_scalar(raw));
			if (r >= 0 && extract_one(run_dir, timep, "time", "time", problems, err) > 0)
				node_push(groups, node_new_scalar("time"));
			free(raw);
			if (r < 0)
				goto out;
		}
	}
	/* last_state last: the test's extraction above may have added to it */
	for (size_t i = 0; i < sizeof(defaults) / sizeof(*defaults); i++)
		if (extract_program(run_dir, program_find(defaults[i]), groups, problems, err) < 0)
			goto out;
	for (size_t i = 0; i < groups->n; i++) {
		char *path = xasprintf("%s/%s.json", run_dir, groups->vals[i]->str);
		struct node *pj;
		if (!result_load_json(path, &pj, err)) {
			stats_reduce(pj, stats);
			node_free(pj);
		} else {
			free(path);
			goto out;
		}
		free(path);
	}
	char *sp = xasprintf("%s/stats.json", run_dir);
	ret = result_save_json(sp, stats, err);
	free(sp);
out:
	if (!ret && stats_out)
		*stats_out = node_dup(stats);
	node_free(stats);
	node_free(groups);
	return ret;
}

const char *const result_run_keys[] = {
	"job_state", "job_state_reason", "start_time",	   "end_time",	 "loadavg", "lkprobot_version",
	"facts",     "unavailable",	 "stats_problems", SAMPLING_KEY, NULL,
};

struct node *result_load_job(const char *run_dir, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char *jp = run_dir ? xasprintf("%s/job.yaml", run_dir) : NULL;
	struct node *job = NULL;

	if (!jp)
		strbuf_setf(err, "no run directory");
	else if (!fsutil_read_regular(&text, jp, RESULT_FILE_MAX, err) && (job = yml_load_one(text.buf, jp, err)) &&
		 job->type != NODE_MAP) {
		strbuf_setf(err, "%s: not a job (a mapping of keys)", jp);
		node_free(job);
		job = NULL;
	}
	strbuf_release(&text);
	free(jp);
	return job;
}

int result_restat(const char *run_dir, bool older_names, struct node *problems, struct strbuf *err)
{
	char *jp = xasprintf("%s/job.yaml", run_dir);
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
	struct node *job = NULL;
	int ret = -1;

	if (fsutil_read_regular(&text, jp, RESULT_FILE_MAX, err))
		goto out;
	if (!(job = yml_load_one(text.buf, jp, err)))
		goto out;
	if (job->type != NODE_MAP) {
		strbuf_setf(err, "%s: not a job (a mapping of keys)", jp);
		goto out;
	}
	node_del(job, "stats_problems");
	if (result_extract(run_dir, job, problems, NULL, err))
		goto out;
	if (older_names && result_add_older_names(run_dir, err))
		goto out;
	if (problems->n)
		node_set(job, "stats_problems", node_dup(problems));
	strbuf_addstr(&out, "---\n");
	yml_emit(&out, job);
	ret = result_save_text(jp, out.buf, out.len, err);
out:
	node_free(job);
	free(jp);
	strbuf_release(&text);
	strbuf_release(&out);
	return ret;
}

int result_add_older_names(const char *run_dir, struct strbuf *err)
{
	char *sp = xasprintf("%s/stats.json", run_dir);
	struct node *stats;
	int ret = -1;

	if (!result_load_json(sp, &stats, err)) {
		stats_add_older_names(stats);
		ret = result_save_json(sp, stats, err);
		node_free(stats);
	}
	free(sp);
	return ret;
}

static int cmp_int_names(const void *a, const void *b)
{
	return atoi(*(const char *const *)a) - atoi(*(const char *const *)b);
}

int result_update_matrix(const char *rt, struct strbuf *err)
{
	char *lockp = xasprintf("%s/.lock", rt);
	int lock = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	struct node *matrix = node_new(NODE_MAP), *avg = node_new(NODE_MAP), *sd = node_new(NODE_MAP);
	char **runs = NULL;
	size_t nruns = 0;
	int ret = -1;
	DIR *d;
	struct dirent *de;

	if (lock < 0 || flock(lock, LOCK_EX)) {
		strbuf_setf(err, "cannot lock '%s': %s", lockp, strerror(errno));
		goto out;
	}
	if (!(d = opendir(rt))) {
		strbuf_setf(err, "cannot read '%s': %s", rt, strerror(errno));
		goto out;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] && strspn(de->d_name, "0123456789") == strlen(de->d_name)) {
			runs = xrealloc(runs, (nruns + 1) * sizeof(*runs));
			runs[nruns++] = xstrdup(de->d_name);
		}
	closedir(d);
	qsort(runs, nruns, sizeof(*runs), cmp_int_names);
	for (size_t i = 0; i < nruns; i++) {
		char *sp = xasprintf("%s/%s/stats.json", rt, runs[i]);
		struct node *stats;
		struct strbuf e = STRBUF_INIT;
		if (!access(sp, R_OK) && !result_load_json(sp, &stats, &e)) {
			stats_matrix_add(matrix, stats, sp);
			node_free(stats);
		}
		strbuf_release(&e);
		free(sp);
	}
	stats_matrix_summary(matrix, avg, sd);
	char *mp = xasprintf("%s/matrix.json", rt), *ap = xasprintf("%s/avg.json", rt),
	     *dp = xasprintf("%s/stddev.json", rt);
	ret = (result_save_json(mp, matrix, err) || result_save_json(ap, avg, err) ||
	       result_save_json(dp, sd, err)) ? -1 : 0;
	free(mp);
	free(ap);
	free(dp);
out:
	if (lock >= 0)
		close(lock);
	for (size_t i = 0; i < nruns; i++)
		free(runs[i]);
	free(runs);
	free(lockp);
	node_free(matrix);
	node_free(avg);
	node_free(sd);
	return ret;
}

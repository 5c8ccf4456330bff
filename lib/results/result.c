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

/*
 * An extraction as it is made, before anything of it is written: each
 * group's numbers (what goes into <group>.json), the groups whose raw
 * file a parser refused (their older <group>.json goes), and the tests
 * without output (lines for last_state). Nothing is written until the
 * whole of it is known, so that a re-extraction that would lose numbers
 * (a raw file removed since) can be refused with nothing changed.
 */
struct extraction {
	const char *run_dir;
	struct node *problems;
	struct node *made;	  /* map: group -> its <group>.json */
	struct node *dropped;	  /* seq: groups whose <group>.json goes */
	struct strbuf missing;	  /* last_state's lines for the tests without output */
	struct strbuf last_state; /* last_state with those lines, when there are any */
};

/* Parse one raw file with p's parser into the group's numbers; 1 if it gave some, 0 if none. */
static int extract_one(struct extraction *x, const struct program *p, const char *raw, const char *group)
{
	char *path = xasprintf("%s/%s", x->run_dir, raw);
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT;
	struct stats_samples ss;
	bool is_last_state = !strcmp(raw, "last_state");
	int ret = 0;

	stats_samples_init(&ss);
	if (fsutil_read_regular(&text, path, RESULT_FILE_MAX, &e)) {
		if (errno != ENOENT) {
			problem(x->problems, raw, e.buf); /* a FIFO, a device, a file too big */
			goto out;
		}
		strbuf_reset(&text);
		if (!is_last_state || !x->missing.len)
			goto out; /* else the program wrote nothing: nothing to parse */
	}
	/* lkp-tests' run-stats: a test without output makes the run incomplete, once */
	if (is_last_state && x->missing.len && !strstr(text.buf ? text.buf : "", "is_incomplete_run: 1")) {
		strbuf_add(&text, x->missing.buf, x->missing.len);
		strbuf_reset(&x->last_state);
		strbuf_add(&x->last_state, text.buf, text.len);
	}
	if (p->parse(text.buf, text.len, &ss, &e)) {
		problem(x->problems, raw, e.buf);
		node_push(x->dropped, node_new_scalar(group)); /* no numbers: not an older extraction's either */
		goto out;
	}
	struct node *pj = stats_program_json(&ss, group);
	if (pj) {
		node_set(x->made, group, pj);
		ret = 1;
	} else {
		node_push(x->dropped, node_new_scalar(group));
	}
out:
	stats_samples_release(&ss);
	strbuf_release(&text);
	strbuf_release(&e);
	free(path);
	return ret;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* The numbers N of the files <raw>.N in the run directory, ascending; how many. */
static size_t instance_ids(const char *run_dir, const char *raw, long **ids)
{
	DIR *d = opendir(run_dir);
	struct dirent *de;
	size_t n = 0, alloc = 0, len = strlen(raw);

	*ids = NULL;
	while (d && (de = readdir(d))) {
		const char *num = de->d_name + len + 1;
		size_t digits = strspn(num, "0123456789");

		if (strncmp(de->d_name, raw, len) || de->d_name[len] != '.' || !digits || num[digits] || digits > 9)
			continue;
		ALLOC_GROW(*ids, n + 1, alloc);
		(*ids)[n++] = strtol(num, NULL, 10);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(*ids, n, sizeof(**ids), cmp_long);
	return n;
}

/*
 * lkp-tests' nr_instances: no <raw> but <raw>.1, <raw>.2 ...: each parsed
 * alone, then combined by the program. One refused file refuses them all
 * (a sum over some of the instances would be a wrong number). 1 parsed,
 * 0 nothing (no such files, or refused: the problem recorded).
 */
static int extract_instances(struct extraction *x, const struct program *p, const char *raw)
{
	long *ids;
	size_t n = instance_ids(x->run_dir, raw, &ids), done = 0;
	struct stats_samples *inst = n ? xcalloc(n, sizeof(*inst)) : NULL, ss;
	struct strbuf text = STRBUF_INIT, e = STRBUF_INIT, name = STRBUF_INIT;
	int ret = 0;

	stats_samples_init(&ss);
	for (; done < n; done++) {
		char *path = xasprintf("%s/%s.%ld", x->run_dir, raw, ids[done]);
		int bad;

		strbuf_setf(&name, "%s.%ld", raw, ids[done]);
		stats_samples_init(&inst[done]);
		strbuf_reset(&text);
		bad = fsutil_read_regular(&text, path, RESULT_FILE_MAX, &e) ||
		      p->parse(text.buf, text.len, &inst[done], &e);
		free(path);
		if (bad) {
			problem(x->problems, name.buf, e.buf);
			done++;
			goto out;
		}
	}
	if (n && p->combine(inst, ids, n, &ss, &e)) {
		problem(x->problems, raw, e.buf);
		goto out;
	}
	struct node *pj = n ? stats_program_json(&ss, p->name) : NULL;
	if (pj) {
		node_set(x->made, p->name, pj);
		ret = 1;
	}
out:
	if (n && !ret)
		node_push(x->dropped, node_new_scalar(p->name));
	for (size_t i = 0; i < done; i++)
		stats_samples_release(&inst[i]);
	stats_samples_release(&ss);
	free(inst);
	free(ids);
	strbuf_release(&text);
	strbuf_release(&e);
	strbuf_release(&name);
	return ret;
}

/*
 * A program's own raw file, once a run (NULL, or a group parsed already:
 * nothing): 1 parsed into its group, 0 nothing.
 */
static int extract_program(struct extraction *x, const struct program *p)
{
	const char *raw;
	char *path;
	bool missing;

	if (!p || !p->parse || node_get(x->made, p->name))
		return 0;
	raw = p->raw ? p->raw : p->name;
	path = xasprintf("%s/%s", x->run_dir, raw);
	missing = access(path, F_OK) && errno == ENOENT;
	free(path);
	if (missing && p->combine)
		return extract_instances(x, p, raw);
	return extract_one(x, p, raw, p->name);
}

/* Every group of the job's programs and the defaults, into x; their reduction into stats. */
static void extract_all(struct extraction *x, const struct node *job, struct node *stats)
{
	/* lkp-tests' etc/default_stats.yaml: what every run is parsed for, job key or not */
	static const char *const defaults[] = { "dmesg", "kmsg", "last_state" };
	const struct program *timep = program_find("time");

	for (size_t i = 0; i < job->n; i++) {
		const struct program *p = job->vals[i]->comment ? NULL : program_find(job->keys[i]);

		if (!p || !p->parse || node_get(x->made, p->name))
			continue;
		size_t problems = x->problems ? x->problems->n : 0;
		if (!extract_program(x, p) && p->kind == PROGRAM_TEST && !x->missing.len) {
			strbuf_addf(&x->missing, "# missing %s output\nis_incomplete_run: 1\n", p->name);
			/* said, never a silent incomplete run (a refused file said it already) */
			if (x->problems && x->problems->n == problems)
				problem(x->problems, p->raw ? p->raw : p->name,
					"the test left no output (the run is incomplete: "
					"last_state.is_incomplete_run)");
		}
		if (p->kind == PROGRAM_TEST && timep && timep->parse) {
			/* <test>.time -> <test>.time.*, and the whole job's time.* */
			char *raw = xasprintf("%s.time", p->name);
			extract_one(x, timep, raw, raw);
			if (!node_get(x->made, "time"))
				extract_one(x, timep, "time", "time");
			free(raw);
		}
	}
	/* last_state last: the tests above may have added to it */
	for (size_t i = 0; i < ARRAY_SIZE(defaults); i++)
		extract_program(x, program_find(defaults[i]));
	for (size_t i = 0; i < x->made->n; i++)
		stats_reduce(x->made->vals[i], stats);
}

/* Write what x made: the groups' files, last_state's lines, stats.json. 0, or -1 with err. */
static int extraction_write(struct extraction *x, const struct node *stats, struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 0; !ret && i < x->made->n; i++) {
		char *json = xasprintf("%s/%s.json", x->run_dir, x->made->keys[i]);
		ret = result_save_json(json, x->made->vals[i], err);
		free(json);
	}
	for (size_t i = 0; !ret && i < x->dropped->n; i++) {
		char *json = xasprintf("%s/%s.json", x->run_dir, x->dropped->vals[i]->str);
		unlink(json);
		free(json);
	}
	if (!ret && x->last_state.len) {
		char *path = xasprintf("%s/last_state", x->run_dir);
		ret = result_save_text(path, x->last_state.buf, x->last_state.len, err);
		free(path);
	}
	if (!ret) {
		char *sp = xasprintf("%s/stats.json", x->run_dir);
		ret = result_save_json(sp, stats, err);
		free(sp);
	}
	return ret;
}

/* An older lkprobot's name whose number lives on under another: perf-stat.total.<event> is sum.<event> now. */
static bool renamed(const struct node *stats, const char *name)
{
	struct strbuf k = STRBUF_INIT;
	bool found = false;

	if (!strncmp(name, "perf-stat.total.", 16)) {
		strbuf_setf(&k, "perf-stat.sum.%s", name + 16);
		found = node_get(stats, k.buf) != NULL;
	}
	strbuf_release(&k);
	return found;
}

/*
 * Would the new stats lose a number the old ones have (its raw file gone
 * or refused since)? The older metric names count as kept: they are made
 * from the new ones. -1 with err naming the lost ones, else 0.
 */
static int check_nothing_lost(const char *run_dir, const struct node *old, const struct node *stats, struct strbuf *err)
{
	struct node *with_older = node_dup(stats);
	struct strbuf lost = STRBUF_INIT;
	size_t n = 0;

	stats_add_older_names(with_older);
	for (size_t i = 0; old && old->type == NODE_MAP && i < old->n; i++) {
		if (node_get(with_older, old->keys[i]) || renamed(with_older, old->keys[i]))
			continue;
		if (n++ < 3) {
			strbuf_addstr(&lost, n > 1 ? ", " : "");
			strbuf_add_oneline(&lost, old->keys[i], strlen(old->keys[i]));
		}
	}
	node_free(with_older);
	if (n)
		strbuf_setf(
			err,
			"%s/stats.json kept as it was: re-deriving it would lose %zu of its numbers (%s%s), whose raw"
			" files are missing or refused now; nothing written",
			run_dir, n, lost.buf, n > 3 ? ", ..." : "");
	strbuf_release(&lost);
	return n ? -1 : 0;
}

/* result_extract, refusing (nothing written) when the stats would lose a number `old` has. */
static int extract(const char *run_dir, const struct node *job, struct node *problems, const struct node *old,
		   struct node **stats_out, struct strbuf *err)
{
	struct extraction x = { .run_dir = run_dir,
				.problems = problems,
				.made = node_new(NODE_MAP),
				.dropped = node_new(NODE_SEQ),
				.missing = STRBUF_INIT,
				.last_state = STRBUF_INIT };
	struct node *stats = node_new(NODE_MAP);
	int ret = -1;

	if (job->type != NODE_MAP) {
		strbuf_setf(err, "%s: its job is not a mapping of keys", run_dir);
		goto out;
	}
	extract_all(&x, job, stats);
	if (check_nothing_lost(run_dir, old, stats, err))
		goto out;
	ret = extraction_write(&x, stats, err);
out:
	if (!ret && stats_out)
		*stats_out = node_dup(stats);
	node_free(stats);
	node_free(x.made);
	node_free(x.dropped);
	strbuf_release(&x.missing);
	strbuf_release(&x.last_state);
	return ret;
}

int result_extract(const char *run_dir, const struct node *job, struct node *problems, struct node **stats_out,
		   struct strbuf *err)
{
	return extract(run_dir, job, problems, NULL, stats_out, err);
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
	char *jp = xasprintf("%s/job.yaml", run_dir), *sp = xasprintf("%s/stats.json", run_dir);
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT, e = STRBUF_INIT;
	struct node *job = NULL, *old = NULL;
	int ret = -1;

	if (fsutil_read_regular(&text, jp, RESULT_FILE_MAX, err))
		goto out;
	if (!(job = yml_load_one(text.buf, jp, err)))
		goto out;
	if (job->type != NODE_MAP) {
		strbuf_setf(err, "%s: not a job (a mapping of keys)", jp);
		goto out;
	}
	/* the numbers there are now: an unreadable stats.json has none to lose */
	if (!access(sp, F_OK) && result_load_json(sp, &old, &e))
		old = NULL;
	node_del(job, "stats_problems");
	if (extract(run_dir, job, problems, old, NULL, err))
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
	node_free(old);
	free(jp);
	free(sp);
	strbuf_release(&text);
	strbuf_release(&out);
	strbuf_release(&e);
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

#define RESULT_LOCK_WAIT 600 /* s: another process writing the same matrix (seconds, even at 1,000 runs) */

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

	if (lock < 0) {
		strbuf_setf(err, "cannot lock '%s': %s", lockp, strerror(errno));
		goto out;
	}
	if (fsutil_lock_fd(lock, lockp, RESULT_LOCK_WAIT, 0, err))
		goto out;
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

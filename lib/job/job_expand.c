/*
 * job expansion: merging, automatic defaults, matrix expansion and
 * validation of atomic jobs, after lkp-tests' Job#each_jobs. This file
 * expands (job_expand, job_merged, job_is_atomic); the steps it uses are
 * in job_merge.c (revise_hash), job_defaults.c (include files, ERB),
 * job_refs.c (what a key is), job_check.c and job_params.c (job_int.h).
 *
 * Expansion takes the first list (depth first) under an expandable key
 * and runs the rest of the expansion once per element, so the first list
 * in the file varies slowest, as in lkp-tests.
 */
#include "job_int.h"
#include "../sys/machine.h"
#include "../util/ruby.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

const char *const job_expand_dims[] = {
	"kconfig", "commit", "rootfs", "ltp_commit", "nvml_commit",
	"blktests_commit", "qemu_commit", "perf_test_commit", "linux_commit",
	NULL,
};

/* ---- expansion ---- */

/*
 * Depth first, lkp-tests' expand_each_in: the first value that is a
 * "{{ }}" expression, or a list under an expandable key.
 */
static bool find_target(struct node *m, const struct refs *refs, struct node **map, size_t *idx)
{
	for (size_t i = 0; i < m->n; i++) {
		struct node *v = m->vals[i];
		if (v->comment)
			continue;
		if (job_has_braces(v) || (v->type == NODE_SEQ && job_is_dim(m->keys[i], refs))) {
			*map = m;
			*idx = i;
			return true;
		}
		if (v->type == NODE_MAP && find_target(v, refs, map, idx))
			return true;
	}
	return false;
}

/*
 * The value of "head {{ expr }} tail" (the last "{{" and "}}" of it, as
 * lkp-tests' regexp takes them): the expression's value when head and
 * tail are blank, else the three as a string. NULL when it is nil (the
 * combination gives no job). Returns 0 or -1 with err set.
 */
static int eval_braces(struct expander *ex, const char *key, const struct node *v,
		       const struct node *job, struct node **out)
{
	const char *s = v->str, *open = NULL, *close = NULL, *p;
	struct strbuf e = STRBUF_INIT;
	struct node *val;

	for (p = s; (p = strstr(p, "{{")); p++)
		if (strstr(p + 2, "}}"))
			open = p;
	for (p = open + 2; (p = strstr(p, "}}")); p++)
		close = p;
	char *expr = xstrndup(open + 2, (size_t)(close - open - 2));
	int r = ruby_eval(expr, job, &val, &e);
	free(expr);
	if (r) {
		job_errat(ex->err, v, key, "'{{ }}' expression: %s; lkprobot evaluates if/case/?:, ==, =~, &&, || over the job's keys",
			  e.buf);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	const char *head = s + strspn(s, " \t\r\n\v\f");
	size_t hlen = head < open ? (size_t)(open - head) : 0;
	const char *tail = close + 2;
	size_t tlen = strlen(tail);
	if (tlen && tail[tlen - 1] == '\n')
		tlen--;
	while (tlen && isspace((unsigned char)tail[tlen - 1]))
		tlen--;
	if (val && (hlen || tlen)) {
		struct strbuf str = STRBUF_INIT;
		strbuf_add(&str, head, hlen);
		ruby_value(val, &str);
		strbuf_add(&str, tail, tlen);
		node_free(val);
		val = node_new_scalar(str.buf);
		val->quoted = 1;
		strbuf_release(&str);
	}
	if (val)
		node_set_pos(val, v->file, v->line, v->col);
	*out = val;
	return 0;
}

/*
 * Values that name a directory of the result root or a file (testcase,
 * tbox_group, kconfig, compiler, commits) must be one safe path component,
 * and no job value may hold a control character (a line break in a value
 * forges lines of reproduce.sh, job.yaml and every message that quotes it):
 * refused here, when the job is loaded, by every command alike.
 */
static int check_name(struct strbuf *err, const char *k, const struct node *v)
{
	static const char *const names[] = { "testcase", "tbox_group", "testbox", "kconfig", "compiler", "commit", NULL };
	bool is_name = strstr(k, "_commit") != NULL;

	if (v->type == NODE_SEQ) {
		for (size_t i = 0; i < v->n; i++)
			if (check_name(err, k, v->vals[i]))
				return -1;
		return 0;
	}
	if (!node_str(v))
		return 0;
	for (const char *const *n = names; *n; n++)
		is_name |= !strcmp(k, *n);
	for (const unsigned char *c = (const unsigned char *)v->str; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return job_errat(err, v, k, "the value has a control character (0x%02x); write it on one line, in plain text",
					 *c);
	if (is_name && (strchr(v->str, '/') || !strcmp(v->str, ".") || !strcmp(v->str, "..") || !*v->str))
		return job_errat(err, v, k, "'%s' names a directory of the result root: write one name without '/', not '.' or '..'",
				 v->str);
	return 0;
}

/* Every key and scalar of the job: no control characters; the names: safe path components. */
static int check_names(struct strbuf *err, const struct node *m)
{
	if (m->type != NODE_MAP)
		return 0;
	for (size_t i = 0; i < m->n; i++) {
		const struct node *v = m->vals[i];
		if (v->comment)
			continue;
		for (const unsigned char *c = (const unsigned char *)m->keys[i]; *c; c++)
			if (*c < 0x20 || *c == 0x7f)
				return job_errat(err, v, "key", "a key has a control character (0x%02x); write keys in plain text",
						 *c);
		if (v->type == NODE_MAP ? check_names(err, v) : check_name(err, m->keys[i], v))
			return -1;
	}
	return 0;
}

/* The first value of m that came from a file (for an error about the whole job). */
static const struct node *first_placed(const struct node *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->vals[i]->file && !m->vals[i]->comment)
			return m->vals[i];
	return NULL;
}

static int expand(struct expander *ex, struct node *job)
{
	struct node *map, *v;
	size_t idx;

	if (find_target(job, &ex->refs, &map, &idx)) {
		v = map->vals[idx];
		if (v->type != NODE_SEQ) {
			struct node *val;
			int r = eval_braces(ex, map->keys[idx], v, job, &val);
			if (r || !val)
				return r;	/* nil: lkp-tests' each_job returns, no job */
			map->vals[idx] = val;
			r = expand(ex, job);
			map->vals[idx] = v;
			node_free(val);
			return r;
		}
		if (!v->n && ex->env->warn) {
			struct strbuf msg = STRBUF_INIT;
			if (v->file)
				strbuf_addf(&msg, "%s:%d:%d: ", v->file, v->line, v->col);
			strbuf_addf(&msg, "%s: an empty list gives no atomic job (as in lkp-tests)", map->keys[idx]);
			ex->env->warn(msg.buf);
			strbuf_release(&msg);
		}
		for (size_t i = 0; i < v->n; i++) {
			map->vals[idx] = v->vals[i];
			int r = expand(ex, job);
			map->vals[idx] = v;
			if (r)
				return r;
		}
		return 0;
	}

	struct node *atomic;
	struct sset loaded;
	int r;

	if (++ex->natomic > JOB_MAX_ATOMIC)
		/* ten lists of ten values are 10^10 jobs: a few bytes must not make us run for ever */
		return job_errat(ex->err, first_placed(job), "job", "expands to more than %d atomic jobs; split it into several files",
				 JOB_MAX_ATOMIC);
	atomic = node_dup(job);
	sset_copy(&loaded, &ex->loaded);
	r = job_merge_defaults(ex, atomic, NULL, false, &loaded);
	sset_release(&loaded);
	if (!r)
		r = check_names(ex->err, atomic);
	if (!r)
		job_warn_unknown(ex, atomic);
	if (!r)
		r = ex->fn(atomic, ex->arg, ex->err);
	node_free(atomic);
	return r;
}

static void release_expander(struct expander *ex)
{
	for (size_t i = 0; i < ex->nincs; i++) {
		free(ex->incs[i].key);
		for (size_t j = 0; ex->incs[i].own_names && j < ex->incs[i].n; j++) {
			free(ex->incs[i].own_names[j]);
			free(ex->incs[i].own_paths[j]);
		}
		free(ex->incs[i].own_names);
		free(ex->incs[i].own_paths);
	}
	free(ex->incs);
	sset_release(&ex->no_incs);
	for (size_t i = 0; i < ex->ncache; i++) {
		free(ex->cache[i].path);
		free(ex->cache[i].text);
		node_free(ex->cache[i].doc);
	}
	free(ex->cache);
	sset_release(&ex->loaded);
	sset_release(&ex->warned);
	job_refs_release(&ex->refs);
}

/* Document 0 with provenance, test box and host file: the base of every document. */
static int base_job(struct expander *ex, const struct jobfile *jf, struct node **out)
{
	const struct job_env *env = ex->env;
	struct node *job = node_new(NODE_MAP);
	char *c = xasprintf("#! %s", jf->origin);

	node_append(job, c, node_new_comment(c));
	free(c);
	job_revise(job, jf->docs[0], true);
	if (!node_get(job, "job_origin"))
		node_append(job, "job_origin", node_new_scalar(jf->origin));
	if (env->testbox) {
		struct strbuf g = STRBUF_INIT;
		struct utsname u;

		node_set(job, "testbox", node_new_scalar(env->testbox));
		if (!node_get(job, "arch") && !uname(&u))
			node_set(job, "arch", node_new_scalar(u.machine));
		machine_tbox_group(env->testbox, &g);
		node_set(job, "tbox_group", node_new_scalar(g.buf));
		strbuf_release(&g);
	}
	const char *group = job_get_str(job, "tbox_group");
	if (group && !env->no_defaults && !strchr(group, '/') && group[0] != '.') {
		const char *top = env->lkp ? lkpsrc_dir(env->lkp) : env->data_dir;
		char *path = xasprintf("%s/hosts/%s", top, group);
		struct stat st;
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			const struct parsed *pc = job_load_cached(ex, path, false);
			const struct node *host = pc ? pc->doc : NULL;
			if (!pc) {
				free(path);
				node_free(job);
				return -1;
			}
			if (host) {
				c = xasprintf("#! hosts/%s", group);
				job_append_comment(job, c);
				free(c);
				job_revise(job, host, false);
			}
		}
		free(path);
	}
	*out = job;
	return 0;
}

int job_expand(const struct jobfile *jf, const struct job_env *env,
	       job_atomic_fn fn, void *arg, struct strbuf *err)
{
	struct expander ex = { .env = env, .err = err, .fn = fn, .arg = arg };
	struct node *base = NULL;
	int ret = -1;

	if (base_job(&ex, jf, &base))
		goto out;
	for (size_t d = 0; d < jf->ndocs; d++) {
		struct node *job = node_dup(base);
		sset_release(&ex.loaded);
		ret = job_merge_defaults(&ex, job, d ? jf->docs[d] : NULL, true, &ex.loaded);
		if (!ret) {
			job_refs_release(&ex.refs);
			job_refs_build(env->lkp, job, &ex.refs);
			ret = expand(&ex, job);
		}
		node_free(job);
		if (ret)
			goto out;
	}
	ret = 0;
out:
	node_free(base);
	release_expander(&ex);
	return ret;
}

struct node *job_merged(const struct jobfile *jf, const struct job_env *env,
			size_t doc, struct strbuf *err)
{
	struct expander ex = { .env = env, .err = err };
	struct node *job = NULL;

	if (doc >= jf->ndocs) {
		strbuf_setf(err, "%s: has %zu documents, not %zu", jf->path, jf->ndocs, doc + 1);
		return NULL;
	}
	if (!base_job(&ex, jf, &job) &&
	    (job_merge_defaults(&ex, job, doc ? jf->docs[doc] : NULL, true, &ex.loaded) || check_names(err, job))) {
		node_free(job);
		job = NULL;
	}
	release_expander(&ex);
	return job;
}

bool job_is_atomic(const struct node *job, struct lkpsrc *lk)
{
	struct node *map;
	size_t idx;
	struct refs refs;
	bool r;

	job_refs_build(lk, job, &refs);
	r = !find_target((struct node *)job, &refs, &map, &idx);
	job_refs_release(&refs);
	return r;
}

/*
 * job_check: an atomic job checked before it runs — no program in it that
 * lkprobot cannot run, each program's options its own (the nearest one
 * named for a typo), a single value where one is wanted — and the warning
 * for a top-level map no data knows.
 */
#include "job_int.h"
#include "../run/program.h"
#include "../util/nearest.h"
#include "../util/units.h"

#include <stdarg.h>
#include <string.h>

/* ---- checking an atomic job before it runs ---- */

int job_errat(struct strbuf *err, const struct node *at, const char *key, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(err);
	if (at && at->file)
		strbuf_addf(err, "%s:%d:%d: ", at->file, at->line, at->col);
	strbuf_addf(err, "%s: ", key);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_value(struct strbuf *err, const char *key, const struct node *v)
{
	struct strbuf e = STRBUF_INIT;
	int ret = 0;

	if (v->type == NODE_SEQ || v->type == NODE_MAP)
		return job_errat(err, v, key, "%s where a single value is needed; give one value%s",
				 node_type_name(v),
				 v->type == NODE_SEQ ? " (lists expand only under programs and their options)" : "");
	if (node_str(v) && units_check(key, v->str, &e))
		ret = job_errat(err, v, key, "%s", e.buf);
	strbuf_release(&e);
	return ret;
}

/* The declared option closest to a misspelt one, if any is close. */
static const char *nearest_option(const struct program *p, const char *k)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (const char *const *o = p->options; o && *o; o++) {
		const char *name = **o == '=' ? *o + 1 : *o;
		size_t d = nearest_distance(k, name);
		if (d < bestd) {
			bestd = d;
			best = name;
		}
	}
	return best;
}

/* lkprobot's own rules for what it runs: options of its programs, values, single values. */
static int validate_map(struct strbuf *err, const struct node *m, const struct refs *refs,
			const struct program *parent)
{
	static const char *const scalars[] = {
		"testcase", "suite", "category", "tbox_group", "testbox", "rootfs",
		"kconfig", "compiler", "commit", NULL,
	};

	for (size_t i = 0; i < m->n; i++) {
		const char *k = m->keys[i];
		const struct node *v = m->vals[i];
		const struct program *p;

		if (v->comment)
			continue;
		if (parent && parent->kind == PROGRAM_MONITOR)
			continue;	/* monitor options: checked by the monitor */
		if (parent && !program_has_option(parent, k, NULL) && !sset_has(&refs->opts, k)) {
			const char *near = nearest_option(parent, k);
			if (near)
				return job_errat(err, v, k, "not an option of '%s'; did you mean '%s'? ('lkprobot programs %s' lists them)",
						 parent->name, near, parent->name);
			return job_errat(err, v, k, "not an option of '%s'; 'lkprobot programs %s' lists its options",
					 parent->name, parent->name);
		}
		if ((p = program_find(k))) {
			if (v->type == NODE_SEQ)
				return job_errat(err, v, k, "%s '%s' takes a value or a mapping of options, not %s",
						 program_kind_name(p->kind), k, node_type_name(v));
			if (v->type == NODE_MAP) {
				if (validate_map(err, v, refs, p))
					return -1;
			} else if (check_value(err, k, v)) {
				return -1;
			}
			continue;
		}
		if (sset_has(&refs->opts, k)) {
			if (check_value(err, k, v))
				return -1;
			continue;
		}
		if (!parent && (!strcmp(k, "commit") || strstr(k, "_commit")))
			goto scalar;
		for (const char *const *s = scalars; *s; s++)
			if (!parent && !strcmp(k, *s))
				goto scalar;
		/* a key with a notation (runtime, test_size, ...) means it anywhere */
		if (!parent && units_kind_of(k) && check_value(err, k, v))
			return -1;
		continue;
scalar:
		if (v->type == NODE_SEQ || v->type == NODE_MAP)
			return job_errat(err, v, k, "%s where a single value is needed; give one value",
					 node_type_name(v));
	}
	return 0;
}

/* Does lkprobot run this program of lkp-tests' data? The kind that is missing, or 0. */
static enum lkpsrc_kind missing_kind(const struct lkpsrc_program *lp, const struct program *p,
				     const struct node *v)
{
	if (p) {
		/* lkprobot's table: a declared monitor is recorded as unavailable */
		if (p->kind == PROGRAM_SETUP && !p->setup && !node_is_null(v))
			return LKPSRC_SETUP;
		if (p->kind == PROGRAM_TEST && !p->run)
			return LKPSRC_TEST;
		if (p->kind == PROGRAM_DAEMON)
			return LKPSRC_DAEMON;
		return 0;
	}
	if (!lp)
		return 0;
	static const enum lkpsrc_kind order[] = { LKPSRC_TEST, LKPSRC_DAEMON, LKPSRC_SETUP, LKPSRC_MONITOR };
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (lp->kinds & order[i])
			return order[i];
	return 0;	/* a parser only: nothing runs it */
}

/* Programs named in the job (not inside a program's options) that lkprobot cannot run. */
static void find_missing(struct lkpsrc *lk, const struct node *m, struct strbuf *first,
			 struct strbuf *more)
{
	for (size_t i = 0; i < m->n; i++) {
		const char *k = m->keys[i];
		const struct program *p = program_find(k);
		const struct lkpsrc_program *lp = lk ? lkpsrc_program(lk, k) : NULL;
		enum lkpsrc_kind kind;

		if (m->vals[i]->comment)
			continue;
		if ((kind = missing_kind(lp, p, m->vals[i]))) {
			if (!first->len) {
				strbuf_addf(first, "%s: %s not implemented by lkprobot", k, lkpsrc_kind_name(kind));
				if (lp && lkpsrc_script(lp, kind))
					strbuf_addf(first, " (lkp-tests runs it with %s)", lkpsrc_script(lp, kind));
			} else {
				strbuf_addf(more, "%s%s (%s)", more->len ? ", " : "", k, lkpsrc_kind_name(kind));
			}
		}
		if (!p && !lp && m->vals[i]->type == NODE_MAP)
			find_missing(lk, m->vals[i], first, more);
	}
}

int job_check(const struct node *job, struct lkpsrc *lk, struct strbuf *err)
{
	struct strbuf first = STRBUF_INIT, more = STRBUF_INIT;
	struct refs refs;
	int ret = 0;

	find_missing(lk, job, &first, &more);
	if (!first.len && !lk) {
		/* without lkp-tests' data an unknown test is just a key: name the testcase's */
		const char *tc = job_get_str(job, "testcase");
		bool has_test = false;
		for (size_t i = 0; i < job->n; i++) {
			const struct program *p = program_find(job->keys[i]);
			has_test |= !job->vals[i]->comment && p && p->kind == PROGRAM_TEST;
		}
		if (!has_test && tc && node_get(job, tc) && !program_find(tc))
			strbuf_addf(&first, "%s: not a program lkprobot implements; 'lkprobot programs' lists those it runs (with LKP_SRC set to an lkp-tests checkout it names what lkp-tests runs instead)",
				    tc);
	}
	if (first.len) {
		strbuf_setf(err, "%s", first.buf);
		if (more.len)
			strbuf_addf(err, "; also missing: %s", more.buf);
		ret = -1;
	} else {
		/* what it runs, it checks with its own definitions */
		job_refs_build(NULL, job, &refs);
		ret = validate_map(err, job, &refs, NULL);
		job_refs_release(&refs);
	}
	strbuf_release(&first);
	strbuf_release(&more);
	return ret;
}

/* A top-level mapping under a name no data knows: options nobody reads. */
void job_warn_unknown(struct expander *ex, const struct node *job)
{
	static const char *const known_maps[] = { "boot_params",  "need_kconfig",     "hw",
						  "change_floor", "metric_direction", NULL };

	if (!ex->env->warn || ex->env->lkp)
		return;	/* with lkp-tests' data, unknown keys are what lkp-tests ignores too */
	for (size_t i = 0; i < job->n; i++) {
		const char *k = job->keys[i];
		const struct node *v = job->vals[i];
		struct pview pv;
		bool known = false;

		if (v->comment || v->type != NODE_MAP || job_pview(NULL, k, &pv) ||
		    sset_has(&ex->refs.opts, k))
			continue;
		for (const char *const *m = known_maps; *m; m++)
			known |= !strcmp(k, *m);
		if (known || !sset_add(&ex->warned, k))
			continue;
		struct strbuf msg = STRBUF_INIT;
		if (v->file)
			strbuf_addf(&msg, "%s:%d:%d: ", v->file, v->line, v->col);
		strbuf_addf(&msg, "'%s' is not a program lkprobot knows: its lists are not expanded and its options are not part of path_params (set LKP_SRC to an lkp-tests checkout to read its programs)",
			    k);
		ex->env->warn(msg.buf);
		strbuf_release(&msg);
	}
}

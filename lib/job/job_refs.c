/*
 * job_refs: what a job key is — a program (from lkp-tests' data with
 * LKP_SRC, else lkprobot's table), an option of one, or a dimension that
 * expands — after lkp-tests' init_program_options.
 */
#include "job_int.h"
#include "../run/program.h"

#include <string.h>

/* ---- what a job key is ---- */

/*
 * With LKP_SRC, lkp-tests' data describes the programs it has (names
 * follow lkp-tests); lkprobot's table describes the rest.
 */
bool job_pview(struct lkpsrc *lk, const char *name, struct pview *pv)
{
	const struct program *p;

	if (lk) {
		const struct lkpsrc_program *lp = lkpsrc_program(lk, name);
		if (lp) {
			pv->workload = lp->kinds & LKPSRC_WORKLOAD;
			pv->monitor = lp->kinds & LKPSRC_MONITOR;
			pv->options = (const char *const *)lp->options;
			return true;
		}
	}
	if (!(p = program_find(name)))
		return false;
	pv->workload = program_is_workload(p);
	pv->monitor = p->kind == PROGRAM_MONITOR;
	pv->options = p->options;
	return true;
}

static void refs_add_options(struct refs *r, const char *const *o)
{
	for (; o && *o; o++) {
		sset_add(&r->opts, **o == '=' ? *o + 1 : *o);
		if (**o == '=')
			sset_add(&r->eq, *o + 1);
	}
}

static void refs_walk(struct lkpsrc *lk, const struct node *m, struct refs *r)
{
	for (size_t i = 0; i < m->n; i++) {
		struct pview pv;
		if (m->vals[i]->comment)
			continue;
		if (job_pview(lk, m->keys[i], &pv)) {
			if (pv.workload && sset_add(&r->progs, m->keys[i]))
				refs_add_options(r, pv.options);
			if (pv.monitor)
				sset_add(&r->monitors, m->keys[i]);
		}
		if (m->vals[i]->type == NODE_MAP)
			refs_walk(lk, m->vals[i], r);
	}
}

/*
 * The option sets borrow their strings (option tables outlive any job);
 * the programs are copied, since they are the job's keys.
 */
void job_refs_build(struct lkpsrc *lk, const struct node *job, struct refs *r)
{
	memset(r, 0, sizeof(*r));
	r->opts.borrowed = r->eq.borrowed = true;
	sset_add(&r->opts, "cluster");
	refs_walk(lk, job, r);
	refs_add_options(r, lk ? lkpsrc_wrapper_options(lk) : program_wrapper.options);
}

void job_refs_release(struct refs *r)
{
	sset_release(&r->progs);
	sset_release(&r->opts);
	sset_release(&r->eq);
	sset_release(&r->monitors);
}

/* Does a list under `k` expand (lkp-tests' EXPAND_DIMS, programs, options)? */
bool job_is_dim(const char *k, const struct refs *r)
{
	if (sset_has(&r->opts, k) || sset_has(&r->progs, k))
		return true;
	/* lkp-tests lists its two test wrappers among the referenced programs */
	if (!strcmp(k, "wrapper") || !strcmp(k, "dwrapper"))
		return true;
	for (const char *const *d = job_expand_dims; *d; d++)
		if (!strcmp(k, *d))
			return true;
	return false;
}

/* A "{{ expression }}" value, evaluated when the job expands. */
bool job_has_braces(const struct node *v)
{
	const char *open;
	return node_str(v) && (open = strstr(v->str, "{{")) && strstr(open + 2, "}}");
}

void job_drop_lists(struct node *m, const struct refs *r)
{
	for (size_t i = 0; i < m->n;) {
		struct node *v = m->vals[i];
		if (!v->comment && v->type == NODE_SEQ && job_is_dim(m->keys[i], r)) {
			node_del(m, m->keys[i]);
			continue;
		}
		if (v->type == NODE_MAP)
			job_drop_lists(v, r);
		i++;
	}
}

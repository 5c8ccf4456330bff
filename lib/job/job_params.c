/*
 * job_params: path_params (lkp-tests' Job#path_params: the job's
 * parameters in its order, 31 characters each), the params of a job, and
 * the names of atomic jobs and rootfs files.
 */
#include "job_int.h"
#include "../util/ruby.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- path_params ---- */

/* Append at most 31 characters (UTF-8 code points) of s: Ruby's s[0..30]. */
static void add_truncated(struct strbuf *out, const char *s)
{
	int chars = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p && chars < 31; chars++) {
		size_t len = *p < 0x80 ? 1 : (*p >> 5) == 6 ? 2 : (*p >> 4) == 14 ? 3 : (*p >> 3) == 30 ? 4 : 1;
		for (size_t i = 0; i < len && p[i]; i++)
			strbuf_addch(out, (char)p[i]);
		while (len-- && *p)
			p++;
	}
}

struct param {
	const char *key;
	const struct node *val;
	bool eq;
	size_t order;
};

struct params {
	struct param *v;
	size_t n, alloc;
};

/*
 * lkp-tests' each_param: every key that is an option or a workload
 * program, at any depth, whose value is not a mapping, except the
 * options of a monitor.
 */
static void collect_params(const struct node *m, const char *pk, const struct refs *refs,
			   struct params *ps)
{
	bool under_monitor = pk && sset_has(&refs->monitors, pk);

	for (size_t i = 0; i < m->n; i++) {
		const char *k = m->keys[i];
		const struct node *v = m->vals[i];

		if (v->comment)
			continue;
		if (v->type != NODE_MAP && !under_monitor &&
		    (sset_has(&refs->opts, k) || sset_has(&refs->progs, k))) {
			ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
			ps->v[ps->n] = (struct param){ k, v, sset_has(&refs->eq, k), ps->n };
			ps->n++;
		}
		if (v->type == NODE_MAP)
			collect_params(v, k, refs, ps);
	}
}

static int cmp_param(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static void params_of(const struct node *job, struct lkpsrc *lk, struct params *ps)
{
	struct refs refs;

	job_refs_build(lk, job, &refs);
	collect_params(job, NULL, &refs, ps);
	job_refs_release(&refs);
}

void job_path_params(const struct node *job, struct lkpsrc *lk, bool old_order, struct strbuf *out)
{
	struct params ps = { 0 };
	struct strbuf raw = STRBUF_INIT, val = STRBUF_INIT;

	params_of(job, lk, &ps);
	if (!old_order && ps.n)
		qsort(ps.v, ps.n, sizeof(*ps.v), cmp_param);
	for (size_t i = 0; i < ps.n; i++) {
		const struct param *p = &ps.v[i];
		bool set = ruby_truthy(p->val);
		strbuf_reset(&val);
		if (set)
			ruby_value(p->val, &val);
		if (p->eq) {
			strbuf_addstr(&raw, p->key);
			if (val.len) {
				strbuf_addch(&raw, '=');
				add_truncated(&raw, val.buf);
			}
			strbuf_addch(&raw, '-');
			continue;
		}
		if (!set)
			continue;	/* nil and false: not part of the name */
		add_truncated(&raw, val.buf);
		strbuf_addch(&raw, '-');
	}
	if (raw.len)
		strbuf_setlen(&raw, raw.len - 1);
	if (!raw.len) {
		strbuf_addstr(out, "defaults");
	} else {
		for (const unsigned char *p = (const unsigned char *)raw.buf; *p;) {
			if (*p < 0x80) {
				strbuf_addch(out, isalnum(*p) || strchr("-+=:.%", *p) ? (char)*p : '_');
				p++;
				continue;
			}
			/* one multi-byte character becomes one '_' */
			strbuf_addch(out, '_');
			p++;
			while ((*p & 0xc0) == 0x80)
				p++;
		}
	}
	strbuf_release(&raw);
	strbuf_release(&val);
	free(ps.v);
}

void job_params(const struct node *job, struct lkpsrc *lk, struct node *out)
{
	struct params ps = { 0 };
	struct strbuf val = STRBUF_INIT;

	params_of(job, lk, &ps);
	for (size_t i = 0; i < ps.n; i++) {
		const struct param *p = &ps.v[i];
		if (!ruby_truthy(p->val) && !p->eq)
			continue;
		strbuf_reset(&val);
		if (ruby_truthy(p->val))
			ruby_value(p->val, &val);
		struct node *v = node_new_scalar(val.buf);
		v->quoted = 1;
		node_set(out, p->key, v);
	}
	strbuf_release(&val);
	free(ps.v);
}

const char *job_get_str(const struct node *job, const char *key)
{
	return node_str(node_get(job, key));
}

void job_atomic_name(const struct node *job, const char *base, struct lkpsrc *lk, bool old_order, struct strbuf *out)
{
	strbuf_addf(out, "%s-", base);
	job_path_params(job, lk, old_order, out);
	for (const char *const *d = job_expand_dims; *d; d++) {
		const struct node *v = node_get(job, *d);
		if (strstr(*d, "commit") && ruby_truthy(v)) {
			strbuf_addch(out, '-');
			ruby_value(v, out);
		}
	}
	const char *rootfs = job_get_str(job, "rootfs");
	if (rootfs) {
		strbuf_addch(out, '-');
		job_rootfs_filename(rootfs, out);
	}
	strbuf_addstr(out, ".yaml");
}

void job_rootfs_filename(const char *rootfs, struct strbuf *out)
{
	const char *end = rootfs + strlen(rootfs), *b = end;

	while (b > rootfs && (isalnum((unsigned char)b[-1]) || strchr("._-", b[-1])))
		b--;
	strbuf_add(out, b, (size_t)(end - b));
}

/*
 * job expansion: merging, automatic defaults, matrix expansion and
 * validation of atomic jobs, after lkp-tests' Job#each_jobs.
 *
 * Merging follows lkp-tests' revise_hash: top-level keys replace (or, for
 * defaults, yield to) existing ones; "accumulative" keys (need_*, mail_to,
 * mail_cc, constraints) and `key+:` append; `key-:` removes; `a.b.c:` sets
 * a nested value. Defaults come from jobs/include/<key>/<file>: a file
 * named after a referenced program, after an option of it, or after the
 * key's value (tried by prefixes split at '-' and ':'), else OTHERS; ALL
 * always. Expansion takes the first list (depth first) under an expandable
 * key and runs the rest of the expansion once per element, so the first
 * list in the file varies slowest, as in lkp-tests.
 */
#include "job.h"
#include "../run/program.h"
#include "../sys/machine.h"
#include "../util/sset.h"
#include "../util/units.h"
#include "../util/yml.h"

#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

const char *const job_expand_dims[] = {
	"kconfig", "commit", "rootfs", "ltp_commit", "nvml_commit",
	"blktests_commit", "qemu_commit", "perf_test_commit", "linux_commit",
	NULL,
};

/* ---- merging (lkp-tests lib/hash.rb revise_hash) ---- */

static bool accumulative_key(const char *k)
{
	if (!strcmp(k, "mail_to") || !strcmp(k, "mail_cc") || !strcmp(k, "constraints"))
		return true;
	return !strncmp(k, "need_", 5) && strcmp(k, "need_memory") &&
	       strcmp(k, "need_cpu") && strcmp(k, "need_modules");
}

/* a (owned, may be NULL) accumulated with a copy of b; returns the result. */
static struct node *accumulate(struct node *a, const struct node *b)
{
	if (node_is_null(b)) {
		if (!a)
			return node_new(NODE_NULL);
		return a;
	}
	if (node_is_null(a)) {
		node_free(a);
		return node_dup(b);
	}
	if (a->type == NODE_SEQ) {
		if (b->type == NODE_SEQ)
			for (size_t i = 0; i < b->n; i++)
				node_push(a, node_dup(b->vals[i]));
		else
			node_push(a, node_dup(b));
		return a;
	}
	if (a->type == NODE_MAP) {
		if (b->type == NODE_MAP) {
			for (size_t i = 0; i < b->n; i++)
				if (!b->vals[i]->comment)
					node_set(a, b->keys[i], node_dup(b->vals[i]));
		} else if (b->type == NODE_SCALAR) {
			node_set(a, b->str, node_new(NODE_NULL));
		}
		return a;
	}
	/* a is a scalar */
	struct node *r;
	if (b->type == NODE_SEQ) {
		r = node_new(NODE_SEQ);
		node_push(r, a);
		for (size_t i = 0; i < b->n; i++)
			node_push(r, node_dup(b->vals[i]));
	} else if (b->type == NODE_MAP) {
		r = node_dup(b);
		if (node_index(r, a->str) < 0)
			node_append(r, a->str, node_new(NODE_NULL));
		node_free(a);
	} else {
		r = node_new(NODE_SEQ);
		node_push(r, a);
		node_push(r, node_dup(b));
	}
	return r;
}

static ssize_t comment_index(const struct node *map, const char *text)
{
	for (size_t i = 0; i < map->n; i++)
		if (map->vals[i]->comment && !strcmp(map->vals[i]->str, text))
			return (ssize_t)i;
	return -1;
}

static void append_comment(struct node *map, const char *text)
{
	if (comment_index(map, text) < 0)
		node_append(map, text, node_new_comment(text));
}

/* Walk a dotted path, creating maps; returns the map holding the last key. */
static struct node *dotted_parent(struct node *map, const char *path, const char **last)
{
	const char *dot;

	while ((dot = strchr(path, '.'))) {
		char *k = xstrndup(path, (size_t)(dot - path));
		struct node *next = node_get(map, k);
		if (!next || next->type != NODE_MAP) {
			next = node_new(NODE_MAP);
			node_set(map, k, next);
		}
		free(k);
		map = next;
		path = dot + 1;
	}
	*last = path;
	return map;
}

static bool node_is_seq_uniq_member(const struct node *seq, const struct node *v, size_t upto)
{
	for (size_t i = 0; i < upto; i++)
		if (node_equal(seq->vals[i], v))
			return true;
	return false;
}

/* Resolve `key+`, `key-` and `a.b.c` entries left in a map after a merge. */
static void resolve_special(struct node *map, bool overwrite)
{
	for (size_t i = 0; i < map->n;) {
		const char *k = map->keys[i];
		size_t len = strlen(k);
		struct node *v = map->vals[i];

		if (v->comment || !len) {
			i++;
			continue;
		}
		if (k[len - 1] == '+' && len > 1) {
			char *base = xstrndup(k, len - 1);
			const char *last;
			struct node *parent = dotted_parent(map, base, &last);
			ssize_t j = node_index(parent, last);
			struct node *cur = j >= 0 ? parent->vals[j] : NULL;
			if (j >= 0)
				parent->vals[j] = NULL;
			cur = accumulate(cur, v);
			if (cur->type == NODE_SEQ) {
				size_t w = 0;
				for (size_t r = 0; r < cur->n; r++) {
					if (node_is_seq_uniq_member(cur, cur->vals[r], w)) {
						node_free(cur->vals[r]);
						continue;
					}
					cur->vals[w++] = cur->vals[r];
				}
				cur->n = w;
			}
			if (j >= 0)
				parent->vals[j] = cur;
			else
				node_append(parent, last, cur);
			free(base);
			node_del(map, k);
			i = 0;	/* positions may have shifted */
			continue;
		}
		if (k[len - 1] == '-' && len > 1) {
			char *base = xstrndup(k, len - 1);
			const char *last;
			struct node *parent = dotted_parent(map, base, &last);
			struct node *cur = node_get(parent, last);
			if (cur && !node_is_null(v) && (cur->type == NODE_MAP || cur->type == NODE_SEQ)) {
				struct node *dels = v;
				for (size_t d = 0; d < dels->n || (dels->type == NODE_SCALAR && d == 0); d++) {
					const char *name = dels->type == NODE_MAP ? dels->keys[d]
							 : dels->type == NODE_SEQ ? node_str(dels->vals[d])
							 : dels->str;
					if (!name)
						continue;
					if (cur->type == NODE_MAP) {
						node_del(cur, name);
					} else {
						size_t w = 0;
						for (size_t r = 0; r < cur->n; r++) {
							const char *s = node_str(cur->vals[r]);
							if (!s && cur->vals[r]->type == NODE_MAP && cur->vals[r]->n == 1)
								s = cur->vals[r]->keys[0];
							if (s && !strcmp(s, name)) {
								node_free(cur->vals[r]);
								continue;
							}
							cur->vals[w++] = cur->vals[r];
						}
						cur->n = w;
					}
					if (dels->type == NODE_SCALAR)
						break;
				}
				if (!cur->n)
					node_set(parent, last, node_new(NODE_NULL));
			} else if (cur && node_is_null(v)) {
				node_del(parent, last);
			}
			free(base);
			node_del(map, k);
			i = 0;
			continue;
		}
		if (strchr(k, '.') && k[0] != '.' && k[len - 1] != '.') {
			const char *last;
			char *key = xstrdup(k);
			struct node *val = node_dup(v);
			node_del(map, key);
			struct node *parent = dotted_parent(map, key, &last);
			ssize_t j = node_index(parent, last);
			if (j < 0)
				node_append(parent, last, val);
			else if (overwrite || node_is_null(parent->vals[j])) {
				node_free(parent->vals[j]);
				parent->vals[j] = val;
			} else {
				node_free(val);
			}
			free(key);
			i = 0;
			continue;
		}
		i++;
	}
}

/* original <- revisions (borrowed). */
static void revise(struct node *original, const struct node *revisions, bool overwrite)
{
	if (revisions && revisions->type == NODE_MAP) {
		for (size_t i = 0; i < revisions->n; i++) {
			const char *k = revisions->keys[i];
			const struct node *v = revisions->vals[i];
			size_t len = strlen(k);

			if (v->comment) {
				append_comment(original, v->str);
				continue;
			}
			ssize_t j = node_index(original, k);
			if (j < 0) {
				node_append(original, k, node_dup(v));
			} else if ((len && (k[len - 1] == '+' || k[len - 1] == '-')) ||
				   accumulative_key(k)) {
				original->vals[j] = accumulate(original->vals[j], v);
			} else if (overwrite) {
				node_free(original->vals[j]);
				original->vals[j] = node_dup(v);
			}
		}
	}
	resolve_special(original, overwrite);
}

/* ---- the expander ---- */

struct incdir {
	char *key;
	char *dir;
	struct sset files;	/* regular files in dir, read once */
};

struct parsed {
	char *path;
	struct node *doc;	/* NULL: failed or empty */
};

struct expander {
	const struct job_env *env;
	struct strbuf *err;
	job_atomic_fn fn;
	void *arg;
	struct incdir *incs;
	size_t nincs, aincs;
	struct parsed *cache;
	size_t ncache, acache;
	struct sset loaded;	/* include files merged into this document */
	program_mask ref;	/* the workload programs the job names */
	struct sset warned;	/* keys already warned about */
	int ret;
};

static void list_files(struct incdir *inc)
{
	DIR *d = opendir(inc->dir);
	struct dirent *de;
	struct strbuf p = STRBUF_INIT;
	struct stat st;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		strbuf_setf(&p, "%s/%s", inc->dir, de->d_name);
		if (!stat(p.buf, &st) && S_ISREG(st.st_mode))
			sset_add(&inc->files, de->d_name);
	}
	closedir(d);
	strbuf_release(&p);
}

static void scan_includes(struct expander *ex)
{
	char *root = xasprintf("%s/jobs/include", ex->env->data_dir);
	DIR *d = opendir(root);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d))) {
			struct strbuf p = STRBUF_INIT;
			struct stat st;
			if (de->d_name[0] == '.')
				continue;
			strbuf_addf(&p, "%s/%s", root, de->d_name);
			if (!stat(p.buf, &st) && S_ISDIR(st.st_mode)) {
				struct incdir *inc;
				ALLOC_GROW(ex->incs, ex->nincs + 1, ex->aincs);
				inc = &ex->incs[ex->nincs++];
				memset(inc, 0, sizeof(*inc));
				inc->key = xstrdup(de->d_name);
				inc->dir = strbuf_detach(&p);
				list_files(inc);
			}
			strbuf_release(&p);
		}
		closedir(d);
	}
	free(root);
}

static const struct incdir *find_incdir(const struct expander *ex, const char *key)
{
	for (size_t i = 0; i < ex->nincs; i++)
		if (!strcmp(ex->incs[i].key, key))
			return &ex->incs[i];
	return NULL;
}

static int load_cached(struct expander *ex, const char *path, const struct node **out)
{
	for (size_t i = 0; i < ex->ncache; i++)
		if (!strcmp(ex->cache[i].path, path)) {
			*out = ex->cache[i].doc;
			return 0;
		}
	struct strbuf text = STRBUF_INIT;
	struct node **docs = NULL;
	size_t n = 0;
	struct node *doc = NULL;

	if (strbuf_read_file(&text, path)) {
		strbuf_setf(ex->err, "%s: cannot read defaults file", path);
		strbuf_release(&text);
		return -1;
	}
	if (yml_load(text.buf, text.len, path, NULL, &docs, &n, ex->err)) {
		strbuf_release(&text);
		return -1;
	}
	strbuf_release(&text);
	for (size_t i = 0; i < n; i++) {
		if (!doc && docs[i]->type == NODE_MAP)
			doc = docs[i];
		else
			node_free(docs[i]);
	}
	free(docs);
	ALLOC_GROW(ex->cache, ex->ncache + 1, ex->acache);
	ex->cache[ex->ncache].path = xstrdup(path);
	ex->cache[ex->ncache].doc = doc;
	ex->ncache++;
	*out = doc;
	return 0;
}

/* Merge jobs/include/<key>/<name> into defaults; 1 loaded, 0 not there, -1 error. */
static int try_default(struct expander *ex, struct sset *loaded, const struct incdir *inc,
		       const char *name, struct node *defaults)
{
	struct strbuf p = STRBUF_INIT;
	const struct node *doc;
	int ret = 0;

	if (!sset_has(&inc->files, name))
		return 0;
	strbuf_addf(&p, "%s/%s", inc->dir, name);
	if (sset_has(loaded, p.buf))
		goto out;
	if (load_cached(ex, p.buf, &doc)) {
		ret = -1;
		goto out;
	}
	if (doc && doc->n) {
		char *c = xasprintf("#! jobs/include/%s/%s", inc->key, name);
		append_comment(defaults, c);
		free(c);
		revise(defaults, doc, true);
	}
	sset_add(loaded, p.buf);
	ret = 1;
out:
	strbuf_release(&p);
	return ret;
}

static bool plain_number(const struct node *v)
{
	const char *s = v->str;

	if (v->quoted || !*s)
		return false;
	if (*s == '-' || *s == '+')
		s++;
	return *s && strspn(s, "0123456789._") == strlen(s);
}

/*
 * lkp-tests' params/ mappings that decide which defaults apply: a scalar
 * "disk: 2pmem" reads as {nr_pmem: 2}, "fs: xfs" as {fs: xfs}. Returns a
 * new node, or NULL when the key is not mapped.
 */
static struct node *map_param(const char *k, const struct node *v)
{
	if (!strcmp(k, "disk") && node_str(v)) {
		struct units_disk d;
		struct strbuf e = STRBUF_INIT;
		struct node *m = NULL;
		if (!units_disk(v->str, &d, &e)) {
			char num[32];
			m = node_new(NODE_MAP);
#define DISK_KEY(field, name)                                                  \
	if (d.field) {                                                         \
		snprintf(num, sizeof(num), "%llu", (unsigned long long)d.field); \
		node_append(m, name, node_new_scalar(num));                    \
	}
			DISK_KEY(nr_hdd, "nr_hdd")
			DISK_KEY(nr_ssd, "nr_ssd")
			DISK_KEY(nr_brd, "nr_brd")
			DISK_KEY(nr_srd, "nr_srd")
			DISK_KEY(ramdisk_size, "ramdisk_size")
			DISK_KEY(scsi_ram, "scsi_ram")
			DISK_KEY(nr_pmem, "nr_pmem")
#undef DISK_KEY
		}
		strbuf_release(&e);
		return m;
	}
	if ((!strcmp(k, "fs") || !strcmp(k, "fs1") || !strcmp(k, "fs2")) && node_str(v)) {
		struct node *m = node_new(NODE_MAP);
		node_append(m, "fs", node_dup(v));
		return m;
	}
	return NULL;
}

static int defaults_walk(struct expander *ex, struct sset *loaded, const struct node *root,
			 const struct node *m, struct node *defaults);

/* One entry of the walk; `v` is already mapped (map_param). */
static int defaults_entry(struct expander *ex, struct sset *loaded, const struct node *root,
			  const char *k, const struct node *v, struct node *defaults);

static int defaults_walk(struct expander *ex, struct sset *loaded, const struct node *root,
			 const struct node *m, struct node *defaults)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct node *v = m->vals[i];
		struct node *mapped;
		int r;

		if (v->comment)
			continue;
		mapped = m == root ? map_param(m->keys[i], v) : NULL;
		r = defaults_entry(ex, loaded, root, m->keys[i], mapped ? mapped : v, defaults);
		node_free(mapped);
		if (r)
			return -1;
	}
	return 0;
}

static int defaults_entry(struct expander *ex, struct sset *loaded, const struct node *root,
			  const char *k, const struct node *v, struct node *defaults)
{
	const struct incdir *inc;

	if ((inc = find_incdir(ex, k))) {
		const struct program *p = program_find(k);
		int r = 0;

		/* k is a key of the job being walked: the program is referenced */
		if (p && program_is_workload(p)) {
			r = try_default(ex, loaded, inc, k, defaults);
			if (r < 0)
				return -1;
			if (r == 0 && v->type == NODE_MAP)
				for (size_t j = 0; j < v->n; j++)
					if (!v->vals[j]->comment &&
					    program_has_option(p, v->keys[j], NULL) &&
					    try_default(ex, loaded, inc, v->keys[j], defaults) < 0)
						return -1;
		}
		if (v->type == NODE_SCALAR && !plain_number(v)) {
			bool hit = false;
			struct strbuf prefix = STRBUF_INIT;
			const char *s = v->str;
			for (;;) {
				size_t seg = strcspn(s, ":-");
				strbuf_add(&prefix, s, seg);
				r = try_default(ex, loaded, inc, prefix.buf, defaults);
				if (r < 0) {
					strbuf_release(&prefix);
					return -1;
				}
				hit |= r > 0;
				s += seg;
				if (!*s)
					break;
				strbuf_addch(&prefix, *s++);
			}
			strbuf_release(&prefix);
			if (!hit && try_default(ex, loaded, inc, "OTHERS", defaults) < 0)
				return -1;
			if (try_default(ex, loaded, inc, "ALL", defaults) < 0)
				return -1;
		}
	}
	if (v->type == NODE_MAP && defaults_walk(ex, loaded, root, v, defaults))
		return -1;
	return 0;
}

static bool is_dim(const char *k, program_mask ref);

static void drop_lists(struct node *m, program_mask ref)
{
	for (size_t i = 0; i < m->n;) {
		struct node *v = m->vals[i];
		if (!v->comment && v->type == NODE_SEQ && is_dim(m->keys[i], ref)) {
			node_del(m, m->keys[i]);
			continue;
		}
		if (v->type == NODE_MAP)
			drop_lists(v, ref);
		i++;
	}
}

/* ---- which keys are programs, options and dimensions ---- */

static const struct program *workload(const char *k)
{
	const struct program *p = program_find(k);
	return p && program_is_workload(p) ? p : NULL;
}

/* The workload programs named anywhere in the job. */
static program_mask workload_mask(const struct node *m)
{
	program_mask mask = 0;

	for (size_t i = 0; i < m->n; i++) {
		const struct program *p;
		if (m->vals[i]->comment)
			continue;
		if ((p = workload(m->keys[i])))
			mask |= program_bit(p);
		if (m->vals[i]->type == NODE_MAP)
			mask |= workload_mask(m->vals[i]);
	}
	return mask;
}

/* An option of one of the job's programs or of the test wrapper? */
static bool is_option(const char *k, program_mask ref)
{
	static program_mask wrapper;

	if (!wrapper)
		wrapper = program_bit(&program_wrapper);
	return program_option_mask(k) & (ref | wrapper);
}

static bool is_eq_option(const char *k, program_mask ref)
{
	return program_option_eq_mask(k) & (ref | program_bit(&program_wrapper));
}

/* Does a list under `k` expand (lkp-tests' EXPAND_DIMS, programs, options)? */
static bool is_dim(const char *k, program_mask ref)
{
	if (is_option(k, ref) || workload(k))
		return true;
	if (strcmp(k, "kconfig") && strcmp(k, "rootfs") && !strstr(k, "commit"))
		return false;
	for (const char *const *d = job_expand_dims; *d; d++)
		if (!strcmp(k, *d))
			return true;
	return false;
}

/* ---- defaults ---- */

static int merge_defaults(struct expander *ex, struct node *job, const struct node *job2,
			  bool first_time, struct sset *loaded)
{
	const struct node *ov = ex->env->overrides;
	struct node *view, *defaults;
	int ret = 0;

	if (!ex->env->no_defaults) {
		/* an atomic job already has the overrides and no lists */
		view = NULL;
		if (first_time) {
			view = node_dup(job);
			if (job2)
				revise(view, job2, true);
			if (ov)
				revise(view, ov, true);
			drop_lists(view, workload_mask(view));
		}
		defaults = node_new(NODE_MAP);
		ret = defaults_walk(ex, loaded, view ? view : job, view ? view : job, defaults);
		if (!ret)
			revise(job, defaults, false);
		node_free(defaults);
		node_free(view);
	} else {
		resolve_special(job, false);
	}
	if (ret || !first_time)
		return ret;
	if (job2)
		revise(job, job2, true);
	if (ov && ov->n) {
		ssize_t i = comment_index(job, "#! user overrides");
		if (i >= 0)
			node_del(job, job->keys[i]);
		node_append(job, "#! user overrides", node_new_comment("#! user overrides"));
		revise(job, ov, true);
	}
	return 0;
}

/* ---- validation of an atomic job ---- */

static int errat(struct expander *ex, const struct node *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int errat(struct expander *ex, const struct node *at, const char *key, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(ex->err);
	if (at && at->file)
		strbuf_addf(ex->err, "%s:%d:%d: ", at->file, at->line, at->col);
	strbuf_addf(ex->err, "%s: ", key);
	va_start(ap, fmt);
	strbuf_vaddf(ex->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_value(struct expander *ex, const char *key, const struct node *v)
{
	struct strbuf e = STRBUF_INIT;
	int ret = 0;

	if (v->type == NODE_SEQ || v->type == NODE_MAP)
		return errat(ex, v, key, "%s where a single value is needed; give one value%s",
			     node_type_name(v),
			     v->type == NODE_SEQ ? " (lists expand only under programs and their options)" : "");
	if (node_str(v) && units_check(key, v->str, &e))
		ret = errat(ex, v, key, "%s", e.buf);
	strbuf_release(&e);
	return ret;
}

static int check_braces(struct expander *ex, const char *key, const struct node *v)
{
	if (node_str(v) && strstr(v->str, "{{"))
		return errat(ex, v, key, "'{{ ... }}' expressions are not supported; write the value out");
	if (v->type == NODE_MAP || v->type == NODE_SEQ)
		for (size_t i = 0; i < v->n; i++)
			if (!v->vals[i]->comment &&
			    check_braces(ex, v->type == NODE_MAP ? v->keys[i] : key, v->vals[i]))
				return -1;
	return 0;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, (lb + 1) * sizeof(size_t));
	}
	return prev[lb];
}

/* The declared option closest to a misspelt one, if any is close. */
static const char *nearest_option(const struct program *p, const char *k)
{
	const char *best = NULL;
	size_t bestd = 3;

	for (const char *const *o = p->options; o && *o; o++) {
		const char *name = **o == '=' ? *o + 1 : *o;
		size_t d = edit_distance(k, name);
		if (d < bestd) {
			bestd = d;
			best = name;
		}
	}
	return best;
}

static int validate_map(struct expander *ex, const struct node *m, program_mask ref,
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
		if (parent && !program_has_option(parent, k, NULL) && !is_option(k, ref)) {
			const char *near = nearest_option(parent, k);
			if (near)
				return errat(ex, v, k, "not an option of '%s'; did you mean '%s'? ('lkprobot programs %s' lists them)",
					     parent->name, near, parent->name);
			return errat(ex, v, k, "not an option of '%s'; 'lkprobot programs %s' lists its options",
				     parent->name, parent->name);
		}
		if ((p = program_find(k))) {
			if (v->type == NODE_SEQ)
				return errat(ex, v, k, "%s '%s' takes a value or a mapping of options, not %s",
					     program_kind_name(p->kind), k, node_type_name(v));
			if (v->type == NODE_MAP) {
				if (validate_map(ex, v, ref, p))
					return -1;
			} else if (check_value(ex, k, v)) {
				return -1;
			}
			continue;
		}
		if (is_option(k, ref)) {
			if (check_value(ex, k, v))
				return -1;
			continue;
		}
		if (!parent && (!strcmp(k, "commit") || strstr(k, "_commit")))
			goto scalar;
		for (const char *const *s = scalars; *s; s++)
			if (!parent && !strcmp(k, *s))
				goto scalar;
		/* a key with a notation (runtime, test_size, ...) means it anywhere */
		if (!parent && units_kind_of(k) && check_value(ex, k, v))
			return -1;
		continue;
scalar:
		if (v->type == NODE_SEQ || v->type == NODE_MAP)
			return errat(ex, v, k, "%s where a single value is needed; give one value",
				     node_type_name(v));
	}
	return 0;
}

/* A top-level mapping under a name that is no program: options nobody reads. */
static void warn_unknown(struct expander *ex, const struct node *job, program_mask ref)
{
	static const char *const known_maps[] = { "boot_params", "need_kconfig", "hw", "change_floor", NULL };

	if (!ex->env->warn)
		return;
	for (size_t i = 0; i < job->n; i++) {
		const char *k = job->keys[i];
		const struct node *v = job->vals[i];
		bool known = false;

		if (v->comment || v->type != NODE_MAP || program_find(k) || is_option(k, ref))
			continue;
		for (const char *const *m = known_maps; *m; m++)
			known |= !strcmp(k, *m);
		if (known || !sset_add(&ex->warned, k))
			continue;
		struct strbuf msg = STRBUF_INIT;
		if (v->file)
			strbuf_addf(&msg, "%s:%d:%d: ", v->file, v->line, v->col);
		strbuf_addf(&msg, "'%s' is not a program lkprobot knows: its lists are not expanded and its options are not part of path_params",
			    k);
		ex->env->warn(msg.buf);
		strbuf_release(&msg);
	}
}

static int validate(struct expander *ex, const struct node *job)
{
	program_mask ref = workload_mask(job);

	for (size_t i = 0; i < job->n; i++)
		if (!job->vals[i]->comment && check_braces(ex, job->keys[i], job->vals[i]))
			return -1;
	warn_unknown(ex, job, ref);
	return validate_map(ex, job, ref, NULL);
}

/* ---- expansion ---- */

/* Depth-first: the first list under an expandable key. */
static bool find_list(struct node *m, program_mask ref, struct node **map, size_t *idx)
{
	for (size_t i = 0; i < m->n; i++) {
		struct node *v = m->vals[i];
		if (v->comment)
			continue;
		if (v->type == NODE_SEQ && is_dim(m->keys[i], ref)) {
			*map = m;
			*idx = i;
			return true;
		}
		if (v->type == NODE_MAP && find_list(v, ref, map, idx))
			return true;
	}
	return false;
}

static int expand(struct expander *ex, struct node *job)
{
	struct node *map, *list;
	size_t idx;

	if (find_list(job, ex->ref, &map, &idx)) {
		list = map->vals[idx];
		if (!list->n) {
			int r = errat(ex, list, map->keys[idx],
				      "an empty list gives no atomic job; list at least one value");
			return r;
		}
		for (size_t i = 0; i < list->n; i++) {
			map->vals[idx] = list->vals[i];
			int r = expand(ex, job);
			map->vals[idx] = list;
			if (r)
				return r;
		}
		return 0;
	}

	struct node *atomic = node_dup(job);
	struct sset loaded;
	int r;

	sset_copy(&loaded, &ex->loaded);
	r = merge_defaults(ex, atomic, NULL, false, &loaded);
	sset_release(&loaded);
	if (!r)
		r = validate(ex, atomic);
	if (!r)
		r = ex->fn(atomic, ex->arg, ex->err);
	node_free(atomic);
	return r;
}

static void release_expander(struct expander *ex)
{
	for (size_t i = 0; i < ex->nincs; i++) {
		free(ex->incs[i].key);
		free(ex->incs[i].dir);
		sset_release(&ex->incs[i].files);
	}
	free(ex->incs);
	for (size_t i = 0; i < ex->ncache; i++) {
		free(ex->cache[i].path);
		node_free(ex->cache[i].doc);
	}
	free(ex->cache);
	sset_release(&ex->loaded);
	sset_release(&ex->warned);
}

/* Document 0 with provenance, test box and host file: the base of every document. */
static int base_job(struct expander *ex, const struct jobfile *jf, struct node **out)
{
	const struct job_env *env = ex->env;
	struct node *job = node_new(NODE_MAP);
	char *c = xasprintf("#! %s", jf->origin);

	node_append(job, c, node_new_comment(c));
	free(c);
	revise(job, jf->docs[0], true);
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
		char *path = xasprintf("%s/hosts/%s", env->data_dir, group);
		struct stat st;
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			const struct node *host;
			if (load_cached(ex, path, &host)) {
				free(path);
				node_free(job);
				return -1;
			}
			if (host) {
				c = xasprintf("#! hosts/%s", group);
				append_comment(job, c);
				free(c);
				revise(job, host, false);
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

	scan_includes(&ex);
	if (base_job(&ex, jf, &base))
		goto out;
	for (size_t d = 0; d < jf->ndocs; d++) {
		struct node *job = node_dup(base);
		sset_release(&ex.loaded);
		ret = merge_defaults(&ex, job, d ? jf->docs[d] : NULL, true, &ex.loaded);
		if (!ret) {
			ex.ref = workload_mask(job);
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
	scan_includes(&ex);
	if (!base_job(&ex, jf, &job) &&
	    merge_defaults(&ex, job, doc ? jf->docs[doc] : NULL, true, &ex.loaded)) {
		node_free(job);
		job = NULL;
	}
	release_expander(&ex);
	return job;
}

bool job_is_atomic(const struct node *job)
{
	struct node *map;
	size_t idx;

	return !find_list((struct node *)job, workload_mask(job), &map, &idx);
}

/* ---- path_params ---- */

/* Ruby's to_s of a YAML 1.1 plain scalar, for the few types lkp-tests' jobs use. */
static void ruby_str(const struct node *v, struct strbuf *out)
{
	const char *s = v->str;
	static const char *const t[] = { "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", NULL };
	static const char *const f[] = { "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", NULL };

	if (!v->quoted) {
		for (const char *const *w = t; *w; w++)
			if (!strcmp(s, *w)) {
				strbuf_addstr(out, "true");
				return;
			}
		for (const char *const *w = f; *w; w++)
			if (!strcmp(s, *w)) {
				strbuf_addstr(out, "false");
				return;
			}
		const char *p = s;
		bool neg = false;
		if (*p == '-' || *p == '+')
			neg = *p++ == '-';
		int base = 10;
		if (p[0] == '0' && p[1] == 'x')
			base = 16, p += 2;
		else if (p[0] == '0' && p[1] && strspn(p, "01234567_") == strlen(p))
			base = 8, p += 1;
		const char *digits = base == 16 ? "0123456789abcdefABCDEF_" : base == 8 ? "01234567_" : "0123456789_";
		if (*p && strspn(p, digits) == strlen(p) && p[0] != '_' && strlen(p) < 18) {
			unsigned long long n = 0;
			for (; *p; p++) {
				if (*p == '_')
					continue;
				int dv = *p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10;
				n = n * (unsigned)base + (unsigned)dv;
			}
			strbuf_addf(out, "%s%llu", neg && n ? "-" : "", n);
			return;
		}
	}
	strbuf_addstr(out, s);
}

/* Append at most 31 characters (UTF-8 code points) of s. */
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

static void collect_params(const struct node *m, const char *pk, program_mask ref,
			   struct params *ps)
{
	const struct program *pp = pk ? program_find(pk) : NULL;

	for (size_t i = 0; i < m->n; i++) {
		const char *k = m->keys[i];
		const struct node *v = m->vals[i];

		if (v->comment)
			continue;
		if ((is_option(k, ref) || workload(k)) && v->type != NODE_MAP &&
		    !(pp && pp->kind == PROGRAM_MONITOR)) {
			ALLOC_GROW(ps->v, ps->n + 1, ps->alloc);
			ps->v[ps->n] = (struct param){ k, v, is_eq_option(k, ref), ps->n };
			ps->n++;
		}
		if (v->type == NODE_MAP)
			collect_params(v, k, ref, ps);
	}
}

static int cmp_param(const void *a, const void *b)
{
	const struct param *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* A parameter's value as path_params writes it (Ruby's to_s; a list is "[list]"). */
static void param_text(const struct param *p, struct strbuf *val)
{
	strbuf_reset(val);
	if (node_str(p->val))
		ruby_str(p->val, val);
	else if (p->val->type == NODE_SEQ)
		strbuf_addstr(val, "[list]");
}

void job_path_params(const struct node *job, bool compatible, struct strbuf *out)
{
	struct params ps = { 0 };
	struct strbuf raw = STRBUF_INIT, val = STRBUF_INIT;

	collect_params(job, NULL, workload_mask(job), &ps);
	if (!compatible && ps.n)
		qsort(ps.v, ps.n, sizeof(*ps.v), cmp_param);
	for (size_t i = 0; i < ps.n; i++) {
		const struct param *p = &ps.v[i];
		param_text(p, &val);
		if (p->eq) {
			strbuf_addstr(&raw, p->key);
			if (val.len) {
				strbuf_addch(&raw, '=');
				add_truncated(&raw, val.buf);
			}
			strbuf_addch(&raw, '-');
			continue;
		}
		if (node_is_null(p->val))
			continue;
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

void job_params(const struct node *job, struct node *out)
{
	struct params ps = { 0 };
	struct strbuf val = STRBUF_INIT;

	collect_params(job, NULL, workload_mask(job), &ps);
	for (size_t i = 0; i < ps.n; i++) {
		const struct param *p = &ps.v[i];
		if (!node_str(p->val) && p->val->type != NODE_SEQ && node_is_null(p->val) && !p->eq)
			continue;
		param_text(p, &val);
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


void job_atomic_name(const struct node *job, const char *base, bool compatible,
		     struct strbuf *out)
{
	strbuf_addf(out, "%s-", base);
	job_path_params(job, compatible, out);
	for (const char *const *d = job_expand_dims; *d; d++) {
		const struct node *v = node_get(job, *d);
		if (strstr(*d, "commit") && node_str(v)) {
			strbuf_addch(out, '-');
			ruby_str(v, out);
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


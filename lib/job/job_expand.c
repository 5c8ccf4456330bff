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
#include "../sys/fsutil.h"
#include "../sys/machine.h"
#include "lkpsrc.h"
#include "../util/ruby.h"
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

/* ---- what a job key is ---- */

/* One program as the expander sees it, whichever data describes it. */
struct pview {
	bool workload, monitor;
	const char *const *options;	/* NULL-terminated; '=' marks key=value */
};

/*
 * With LKP_SRC, lkp-tests' data describes the programs it has (names
 * follow lkp-tests); lkprobot's table describes the rest.
 */
static bool pview(struct lkpsrc *lk, const char *name, struct pview *pv)
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

/*
 * What a job refers to, as lkp-tests' init_program_options: the workload
 * programs named anywhere in it, their options, the test wrapper's and
 * "cluster". A list under any of these (or lkp-tests' EXPAND_DIMS)
 * expands; their values make path_params.
 */
struct refs {
	struct sset progs;
	struct sset opts;
	struct sset eq;		/* the key=value options among opts */
	struct sset monitors;	/* monitors named in the job (their options are not params) */
};

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
		if (pview(lk, m->keys[i], &pv)) {
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
static void refs_build(struct lkpsrc *lk, const struct node *job, struct refs *r)
{
	memset(r, 0, sizeof(*r));
	r->opts.borrowed = r->eq.borrowed = true;
	sset_add(&r->opts, "cluster");
	refs_walk(lk, job, r);
	refs_add_options(r, lk ? lkpsrc_wrapper_options(lk) : program_wrapper.options);
}

static void refs_release(struct refs *r)
{
	sset_release(&r->progs);
	sset_release(&r->opts);
	sset_release(&r->eq);
	sset_release(&r->monitors);
}

/* Does a list under `k` expand (lkp-tests' EXPAND_DIMS, programs, options)? */
static bool is_dim(const char *k, const struct refs *r)
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
static bool has_braces(const struct node *v)
{
	const char *open;
	return node_str(v) && (open = strstr(v->str, "{{")) && strstr(open + 2, "}}");
}

static void drop_lists(struct node *m, const struct refs *r)
{
	for (size_t i = 0; i < m->n;) {
		struct node *v = m->vals[i];
		if (!v->comment && v->type == NODE_SEQ && is_dim(m->keys[i], r)) {
			node_del(m, m->keys[i]);
			continue;
		}
		if (v->type == NODE_MAP)
			drop_lists(v, r);
		i++;
	}
}

/* ---- the expander ---- */

/* The defaults files of one job key: name -> path. */
struct incdir {
	char *key;
	size_t n;
	const char *const *names, *const *paths;
	char **own_names, **own_paths;	/* lkprobot's jobs/include/<key>: read here */
};

struct parsed {
	char *path;
	char *text;		/* kept when the file has ERB lines: parsed per job */
	struct node *doc;	/* NULL: failed or empty */
};

struct expander {
	const struct job_env *env;
	struct strbuf *err;
	job_atomic_fn fn;
	void *arg;
	struct incdir *incs;	/* the keys that have defaults files */
	size_t nincs, aincs;
	struct sset no_incs;	/* the keys looked up that have none */
	struct parsed *cache;
	size_t ncache, acache;
	struct sset loaded;	/* include files merged into this document */
	struct refs refs;	/* of the document being expanded */
	struct sset warned;	/* keys already warned about */
	int ret;
	size_t natomic;		/* atomic jobs made so far (JOB_MAX_ATOMIC) */
};

static void list_files(struct incdir *inc, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strbuf p = STRBUF_INIT;
	struct stat st;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		strbuf_setf(&p, "%s/%s", dir, de->d_name);
		if (!stat(p.buf, &st) && S_ISREG(st.st_mode)) {
			inc->own_names = xrealloc(inc->own_names, (inc->n + 1) * sizeof(char *));
			inc->own_paths = xrealloc(inc->own_paths, (inc->n + 1) * sizeof(char *));
			inc->own_names[inc->n] = xstrdup(de->d_name);
			inc->own_paths[inc->n] = strbuf_detach(&p);
			inc->n++;
		}
	}
	closedir(d);
	strbuf_release(&p);
	inc->names = (const char *const *)inc->own_names;
	inc->paths = (const char *const *)inc->own_paths;
}

/*
 * The defaults files for a job key, looked up the first time the key is
 * seen: lkp-tests' include/ and programs/<key>/include with LKP_SRC,
 * else lkprobot's jobs/include/<key>/. NULL when there are none.
 */
static const struct incdir *find_incdir(struct expander *ex, const char *key)
{
	struct incdir inc = { 0 };

	if (sset_has(&ex->no_incs, key))
		return NULL;
	for (size_t i = 0; i < ex->nincs; i++)
		if (!strcmp(ex->incs[i].key, key))
			return &ex->incs[i];
	if (ex->env->lkp) {
		inc.n = lkpsrc_defaults(ex->env->lkp, key, &inc.names, &inc.paths);
	} else if (key[0] != '.' && !strchr(key, '/')) {
		char *dir = xasprintf("%s/jobs/include/%s", ex->env->data_dir, key);
		list_files(&inc, dir);
		free(dir);
	}
	if (!inc.n) {
		sset_add(&ex->no_incs, key);
		return NULL;
	}
	inc.key = xstrdup(key);
	ALLOC_GROW(ex->incs, ex->nincs + 1, ex->aincs);
	ex->incs[ex->nincs] = inc;
	return &ex->incs[ex->nincs++];
}

static const char *inc_path(const struct incdir *inc, const char *name)
{
	for (size_t i = 0; i < inc->n; i++)
		if (!strcmp(inc->names[i], name))
			return inc->paths[i];
	return NULL;
}

/* lkp-tests' ERB (trim mode '%'): "% if/unless/elsif/else/end" lines, "<%= expr %>". */
static bool has_erb(const char *text)
{
	return text[0] == '%' || strstr(text, "\n%") || strstr(text, "<%");
}

/* One "% ..." control line of ERB's trim mode. */
struct erb_if {
	bool on[32], taken[32];
	int depth;
};

static int erb_control(const char *c, struct erb_if *st, const struct node *ctx,
		       struct strbuf *err)
{
	bool is_if = !strncmp(c, "if ", 3), is_unless = !strncmp(c, "unless ", 7);
	bool elsif = !strncmp(c, "elsif ", 6);
	int r = 0;

	if (is_if || is_unless || elsif) {
		bool live, cond = false;
		if (elsif && !st->depth) {
			strbuf_setf(err, "'elsif' without 'if'");
			return -1;
		}
		live = elsif ? st->on[st->depth - 1] && !st->taken[st->depth] : st->on[st->depth];
		if (live) {
			struct node *v = NULL;
			if ((r = ruby_eval(c + (is_if ? 3 : is_unless ? 7 : 6), ctx, &v, err)))
				return r;
			cond = ruby_truthy(v) != is_unless;
			node_free(v);
		}
		if (!elsif) {
			if (st->depth + 1 >= (int)ARRAY_SIZE(st->on)) {
				strbuf_setf(err, "ERB conditions nested too deep");
				return -1;
			}
			st->depth++;
			st->taken[st->depth] = false;
		}
		st->on[st->depth] = live && cond;
		st->taken[st->depth] |= st->on[st->depth];
	} else if (!strcmp(c, "else") && st->depth) {
		st->on[st->depth] = st->on[st->depth - 1] && !st->taken[st->depth];
		st->taken[st->depth] = true;
	} else if (!strcmp(c, "end") && st->depth) {
		st->depth--;
	} else {
		strbuf_setf(err, "ERB code '%% %s' is not supported (only %% if/unless/elsif/else/end lines and <%%= expr %%>)", c);
		return -1;
	}
	return 0;
}

/*
 * Expand the ERB of a defaults file against the job (ERB's trim mode '%',
 * as lkp-tests: "%" lines are code, "<%= expr %>" output, "<%# %>" a
 * comment). Returns 0, -1 with err set, or RUBY_UNKNOWN_KEY when the
 * template reads a key the job lacks (lkp-tests then skips the file).
 */
static int erb_expand(const char *text, const char *path, const struct node *ctx,
		      struct strbuf *out, struct strbuf *err)
{
	struct erb_if st = { .on = { true }, .taken = { true } };
	struct strbuf e = STRBUF_INIT;
	int lineno = 1, r = 0;
	const char *p = text;

	while (*p && !r) {
		size_t len = strcspn(p, "\n");
		/* a "%" line (not "%%", not the "%>" that ends a tag) is code */
		if (p[0] == '%' && p[1] != '%' && p[1] != '>') {
			char *c = xstrndup(p + 1, len - 1);
			char *t = c + strspn(c, " \t");
			size_t tl = strlen(t);
			while (tl && isspace((unsigned char)t[tl - 1]))
				t[--tl] = '\0';
			r = erb_control(t, &st, ctx, &e);
			free(c);
			p += len + (p[len] == '\n');
			lineno++;
			continue;
		}
		if (p[0] == '%' && p[1] == '%')
			p++;	/* "%%" is a literal "%" */
		/* text up to the end of the line, or an ERB tag (which may span lines) */
		const char *o = strstr(p, "<%"), *nl = p + len;
		if (!o || o > nl) {
			if (st.on[st.depth])
				strbuf_add(out, p, (size_t)(nl - p) + (*nl == '\n'));
			p = nl + (*nl == '\n');
			lineno++;
			continue;
		}
		if (st.on[st.depth])
			strbuf_add(out, p, (size_t)(o - p));
		const char *close = strstr(o + 2, "%>");
		if (!close) {
			r = -1;
			strbuf_setf(&e, "an ERB tag '<%%' has no '%%>'");
			break;
		}
		for (const char *q = o; q < close; q++)
			lineno += *q == '\n';
		if (o[2] == '=' && st.on[st.depth]) {
			char *expr = xstrndup(o + 3, (size_t)(close - o - 3));
			struct node *v = NULL;
			r = ruby_eval(expr, ctx, &v, &e);
			free(expr);
			if (!r && v)
				ruby_value(v, out);
			node_free(v);
		} else if (o[2] != '=' && o[2] != '#') {
			r = -1;
			strbuf_setf(&e, "ERB code '<%%%.20s' is not supported (only <%%= expr %%>)", o + 2);
		}
		p = close + 2;
	}
	if (!r && st.depth) {
		r = -1;
		strbuf_setf(&e, "an ERB 'if' has no 'end'");
	}
	if (r == RUBY_UNKNOWN_KEY)
		strbuf_setf(err, "%s", e.buf);
	else if (r)
		strbuf_setf(err, "%s:%d: %s", path, lineno, e.buf);
	strbuf_release(&e);
	return r;
}

static struct node *first_map(struct node **docs, size_t n)
{
	struct node *doc = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!doc && docs[i]->type == NODE_MAP)
			doc = docs[i];
		else
			node_free(docs[i]);
	}
	free(docs);
	return doc;
}

/*
 * A defaults or host file, read once: parsed then, or, when `erb` allows
 * and it has ERB, kept as text to be expanded against each job. NULL with
 * err set when it cannot be read or parsed.
 */
static struct parsed *load_cached(struct expander *ex, const char *path, bool erb)
{
	struct parsed *pc;
	struct strbuf text = STRBUF_INIT;
	struct node **docs = NULL;
	size_t n = 0;

	for (size_t i = 0; i < ex->ncache; i++)
		if (!strcmp(ex->cache[i].path, path))
			return &ex->cache[i];
	if (fsutil_read_regular(&text, path, JOB_MAX_BYTES, ex->err)) {
		strbuf_release(&text);
		return NULL;
	}
	if (!(erb && has_erb(text.buf)) &&
	    yml_load(text.buf, text.len, path, NULL, &docs, &n, ex->err)) {
		strbuf_release(&text);
		return NULL;
	}
	ALLOC_GROW(ex->cache, ex->ncache + 1, ex->acache);
	pc = &ex->cache[ex->ncache++];
	memset(pc, 0, sizeof(*pc));
	pc->path = xstrdup(path);
	if (docs)
		pc->doc = first_map(docs, n);
	else if (erb && has_erb(text.buf))
		pc->text = strbuf_detach(&text);
	strbuf_release(&text);
	return pc;
}

/* An ERB file expanded against ctx and parsed: 0, -1 or RUBY_UNKNOWN_KEY (err set). */
static int load_erb(struct expander *ex, const struct parsed *pc, const struct node *ctx,
		    struct node **out)
{
	struct strbuf text = STRBUF_INIT;
	struct node **docs = NULL;
	size_t n = 0;
	int r = erb_expand(pc->text, pc->path, ctx, &text, ex->err);

	if (!r)
		r = yml_load(text.buf, text.len, pc->path, NULL, &docs, &n, ex->err);
	strbuf_release(&text);
	*out = r ? NULL : first_map(docs, n);
	return r;
}

/*
 * Merge the defaults file `name` of inc into defaults; 1 loaded, 0 not, -1
 * error. `self` is the value that led to the file (ERB's `___`).
 */
static int try_default(struct expander *ex, struct sset *loaded, const struct incdir *inc,
		       const char *name, const struct node *view, const struct node *self,
		       struct node *defaults)
{
	const char *path = inc_path(inc, name);
	const struct parsed *pc;
	struct node *doc, *fresh = NULL;

	if (!path || sset_has(loaded, path))
		return 0;
	/* lkp-tests' own include files have ERB; lkprobot's have none */
	if (!(pc = load_cached(ex, path, ex->env->lkp)))
		return -1;
	doc = pc->doc;
	if (pc->text) {
		/* ERB sees the defaults so far with the job on top, as load_one_defaults */
		struct node *ctx = node_dup(defaults);
		int r;
		revise(ctx, view, true);
		node_set(ctx, "___", node_dup(self));
		r = load_erb(ex, pc, ctx, &fresh);
		node_free(ctx);
		if (r == RUBY_UNKNOWN_KEY)
			return 0;	/* lkp-tests: KeyError, the file is not loaded */
		if (r)
			return -1;
		doc = fresh;
	}
	if (doc && doc->n) {
		const char *top = ex->env->lkp ? lkpsrc_dir(ex->env->lkp) : ex->env->data_dir;
		size_t tl = strlen(top);
		const char *rel = !strncmp(path, top, tl) && path[tl] == '/' ? path + tl + 1 : path;
		char *c = xasprintf("#! %s", rel);
		append_comment(defaults, c);
		free(c);
		revise(defaults, doc, true);
	}
	node_free(fresh);
	sset_add(loaded, path);
	return 1;
}

/*
 * lkp-tests' params/ mappings that decide which defaults apply: a scalar
 * "disk: 2pmem" reads as {nr_pmem: 2}, "fs: xfs" as {fs: xfs}, "md: RAID0"
 * as {raid_level: raid0}, "iosched: bfq" as {iosched: bfq}. Returns a new
 * node, or NULL when the key is not mapped.
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
	if ((!strcmp(k, "fs") || !strcmp(k, "fs1") || !strcmp(k, "fs2") || !strcmp(k, "iosched")) &&
	    node_str(v)) {
		struct node *m = node_new(NODE_MAP);
		node_append(m, k[0] == 'i' ? "iosched" : "fs", node_dup(v));
		return m;
	}
	if (!strcmp(k, "md") && node_str(v)) {
		struct node *m = node_new(NODE_MAP);
		char *low = xstrdup(v->str);
		for (char *c = low; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		node_append(m, "raid_level", node_new_scalar(low));
		free(low);
		return m;
	}
	return NULL;
}

struct walk {
	struct expander *ex;
	struct sset *loaded;
	const struct node *root;	/* the job view the walk reads */
	const struct refs *refs;
	struct node *defaults;
};

static int defaults_walk(struct walk *w, const struct node *m);

/* One entry of the walk (lkp-tests' load_defaults); `v` is already mapped. */
static int defaults_entry(struct walk *w, const char *k, const struct node *v)
{
	const struct incdir *inc;
	struct expander *ex = w->ex;
	int r;

	if ((inc = find_incdir(ex, k))) {
		if (sset_has(&w->refs->progs, k)) {
			struct pview pv;
			r = try_default(ex, w->loaded, inc, k, w->root, v, w->defaults);
			if (r < 0)
				return -1;
			if (r > 0)
				goto nested;	/* lkp-tests: `next` once <key>/<key> loaded */
			if (v->type == NODE_MAP && pview(ex->env->lkp, k, &pv))
				for (size_t j = 0; j < v->n; j++) {
					if (v->vals[j]->comment)
						continue;
					for (const char *const *o = pv.options; o && *o; o++)
						if (!strcmp(**o == '=' ? *o + 1 : *o, v->keys[j]) &&
						    try_default(ex, w->loaded, inc, v->keys[j], w->root,
								v->vals[j], w->defaults) < 0)
							return -1;
				}
		}
		if (ruby_value(v, NULL) == RUBY_STRING) {
			/* "vm-lkp-wsx01-4G": try vm, vm-lkp, vm-lkp-wsx01, vm-lkp-wsx01-4G */
			struct strbuf prefix = STRBUF_INIT;
			const char *s = v->str;
			r = 0;
			for (;;) {
				size_t seg = strcspn(s, ":-");
				strbuf_add(&prefix, s, seg);
				r = try_default(ex, w->loaded, inc, prefix.buf, w->root, v, w->defaults);
				if (r < 0) {
					strbuf_release(&prefix);
					return -1;
				}
				s += seg;
				if (!*s)
					break;
				strbuf_addch(&prefix, *s++);
			}
			strbuf_release(&prefix);
			/* OTHERS when the whole value had no file (the last try counts) */
			if (!r && try_default(ex, w->loaded, inc, "OTHERS", w->root, v, w->defaults) < 0)
				return -1;
			if (try_default(ex, w->loaded, inc, "ALL", w->root, v, w->defaults) < 0)
				return -1;
		}
	}
nested:
	if (v->type == NODE_MAP && defaults_walk(w, v))
		return -1;
	return 0;
}

static int defaults_walk(struct walk *w, const struct node *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct node *v = m->vals[i];
		struct node *mapped;
		int r;

		if (v->comment)
			continue;
		mapped = m == w->root ? map_param(m->keys[i], v) : NULL;
		r = defaults_entry(w, m->keys[i], mapped ? mapped : v);
		node_free(mapped);
		if (r)
			return -1;
	}
	return 0;
}

/* ---- defaults ---- */

static int merge_defaults(struct expander *ex, struct node *job, const struct node *job2,
			  bool first_time, struct sset *loaded)
{
	const struct node *ov = ex->env->overrides;
	struct node *view, *defaults;
	int ret = 0;

	if (!ex->env->no_defaults) {
		struct refs refs = { 0 };
		/*
		 * An atomic job already has the overrides and no lists, and
		 * refers to what its document does (lkp-tests copies the
		 * document's referenced programs into each atomic job).
		 */
		view = NULL;
		if (first_time) {
			view = node_dup(job);
			if (job2)
				revise(view, job2, true);
			if (ov)
				revise(view, ov, true);
			refs_build(ex->env->lkp, view, &refs);
			drop_lists(view, &refs);
		}
		defaults = node_new(NODE_MAP);
		struct walk w = { ex, loaded, view ? view : job, view ? &refs : &ex->refs, defaults };
		ret = defaults_walk(&w, w.root);
		if (!ret)
			revise(job, defaults, false);
		node_free(defaults);
		node_free(view);
		refs_release(&refs);
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

/* ---- checking an atomic job before it runs ---- */

static int errat(struct strbuf *err, const struct node *at, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int errat(struct strbuf *err, const struct node *at, const char *key, const char *fmt, ...)
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
		return errat(err, v, key, "%s where a single value is needed; give one value%s",
			     node_type_name(v),
			     v->type == NODE_SEQ ? " (lists expand only under programs and their options)" : "");
	if (node_str(v) && units_check(key, v->str, &e))
		ret = errat(err, v, key, "%s", e.buf);
	strbuf_release(&e);
	return ret;
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
				return errat(err, v, k, "not an option of '%s'; did you mean '%s'? ('lkprobot programs %s' lists them)",
					     parent->name, near, parent->name);
			return errat(err, v, k, "not an option of '%s'; 'lkprobot programs %s' lists its options",
				     parent->name, parent->name);
		}
		if ((p = program_find(k))) {
			if (v->type == NODE_SEQ)
				return errat(err, v, k, "%s '%s' takes a value or a mapping of options, not %s",
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
			return errat(err, v, k, "%s where a single value is needed; give one value",
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
		refs_build(NULL, job, &refs);
		ret = validate_map(err, job, &refs, NULL);
		refs_release(&refs);
	}
	strbuf_release(&first);
	strbuf_release(&more);
	return ret;
}

/* A top-level mapping under a name no data knows: options nobody reads. */
static void warn_unknown(struct expander *ex, const struct node *job)
{
	static const char *const known_maps[] = { "boot_params", "need_kconfig", "hw", "change_floor", NULL };

	if (!ex->env->warn || ex->env->lkp)
		return;	/* with lkp-tests' data, unknown keys are what lkp-tests ignores too */
	for (size_t i = 0; i < job->n; i++) {
		const char *k = job->keys[i];
		const struct node *v = job->vals[i];
		struct pview pv;
		bool known = false;

		if (v->comment || v->type != NODE_MAP || pview(NULL, k, &pv) ||
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
		if (has_braces(v) || (v->type == NODE_SEQ && is_dim(m->keys[i], refs))) {
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
		errat(ex->err, v, key, "'{{ }}' expression: %s; lkprobot evaluates if/case/?:, ==, =~, &&, || over the job's keys",
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
			return errat(err, v, k, "the value has a control character (0x%02x); write it on one line, in plain text",
				     *c);
	if (is_name && (strchr(v->str, '/') || !strcmp(v->str, ".") || !strcmp(v->str, "..") || !*v->str))
		return errat(err, v, k, "'%s' names a directory of the result root: write one name without '/', not '.' or '..'",
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
				return errat(err, v, "key", "a key has a control character (0x%02x); write keys in plain text",
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
		return errat(ex->err, first_placed(job), "job", "expands to more than %d atomic jobs; split it into several files",
			     JOB_MAX_ATOMIC);
	atomic = node_dup(job);
	sset_copy(&loaded, &ex->loaded);
	r = merge_defaults(ex, atomic, NULL, false, &loaded);
	sset_release(&loaded);
	if (!r)
		r = check_names(ex->err, atomic);
	if (!r)
		warn_unknown(ex, atomic);
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
	refs_release(&ex->refs);
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
		const char *top = env->lkp ? lkpsrc_dir(env->lkp) : env->data_dir;
		char *path = xasprintf("%s/hosts/%s", top, group);
		struct stat st;
		if (!stat(path, &st) && S_ISREG(st.st_mode)) {
			const struct parsed *pc = load_cached(ex, path, false);
			const struct node *host = pc ? pc->doc : NULL;
			if (!pc) {
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

	if (base_job(&ex, jf, &base))
		goto out;
	for (size_t d = 0; d < jf->ndocs; d++) {
		struct node *job = node_dup(base);
		sset_release(&ex.loaded);
		ret = merge_defaults(&ex, job, d ? jf->docs[d] : NULL, true, &ex.loaded);
		if (!ret) {
			refs_release(&ex.refs);
			refs_build(env->lkp, job, &ex.refs);
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
	    (merge_defaults(&ex, job, doc ? jf->docs[doc] : NULL, true, &ex.loaded) || check_names(err, job))) {
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

	refs_build(lk, job, &refs);
	r = !find_target((struct node *)job, &refs, &map, &idx);
	refs_release(&refs);
	return r;
}

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

	refs_build(lk, job, &refs);
	collect_params(job, NULL, &refs, ps);
	refs_release(&refs);
}

void job_path_params(const struct node *job, struct lkpsrc *lk, bool compatible,
		     struct strbuf *out)
{
	struct params ps = { 0 };
	struct strbuf raw = STRBUF_INIT, val = STRBUF_INIT;

	params_of(job, lk, &ps);
	if (!compatible && ps.n)
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

void job_atomic_name(const struct node *job, const char *base, struct lkpsrc *lk,
		     bool compatible, struct strbuf *out)
{
	strbuf_addf(out, "%s-", base);
	job_path_params(job, lk, compatible, out);
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

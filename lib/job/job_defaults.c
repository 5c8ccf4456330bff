/*
 * job_defaults: the defaults a job gets from jobs/include/<key>/<file> (and
 * lkp-tests' include/ with LKP_SRC): a file named after a referenced
 * program, after an option of it, or after the key's value (tried by
 * prefixes split at '-' and ':'), else OTHERS; ALL always. Files with ERB
 * lines are evaluated per job (the subset lkp-tests' files use).
 */
#include "job_int.h"
#include "../sys/fsutil.h"
#include "../util/ruby.h"
#include "../util/units.h"
#include "../util/yml.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- the expander ---- */

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
struct parsed *job_load_cached(struct expander *ex, const char *path, bool erb)
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
	if (!(pc = job_load_cached(ex, path, ex->env->lkp)))
		return -1;
	doc = pc->doc;
	if (pc->text) {
		/* ERB sees the defaults so far with the job on top, as load_one_defaults */
		struct node *ctx = node_dup(defaults);
		int r;
		job_revise(ctx, view, true);
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
		job_append_comment(defaults, c);
		free(c);
		job_revise(defaults, doc, true);
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
			if (v->type == NODE_MAP && job_pview(ex->env->lkp, k, &pv))
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

int job_merge_defaults(struct expander *ex, struct node *job, const struct node *job2,
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
				job_revise(view, job2, true);
			if (ov)
				job_revise(view, ov, true);
			job_refs_build(ex->env->lkp, view, &refs);
			job_drop_lists(view, &refs);
		}
		defaults = node_new(NODE_MAP);
		struct walk w = { ex, loaded, view ? view : job, view ? &refs : &ex->refs, defaults };
		ret = defaults_walk(&w, w.root);
		if (!ret)
			job_revise(job, defaults, false);
		node_free(defaults);
		node_free(view);
		job_refs_release(&refs);
	} else {
		job_resolve_special(job, false);
	}
	if (ret || !first_time)
		return ret;
	if (job2)
		job_revise(job, job2, true);
	if (ov && ov->n) {
		ssize_t i = job_comment_index(job, "#! user overrides");
		if (i >= 0)
			node_del(job, job->keys[i]);
		node_append(job, "#! user overrides", node_new_comment("#! user overrides"));
		job_revise(job, ov, true);
	}
	return 0;
}

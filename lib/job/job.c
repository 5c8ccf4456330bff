/*
 * job loading: textual includes and parsing. lkp-tests splices
 * `<<: file.yaml` lines into the including text before YAML parsing
 * (lib/yaml.rb); we do the same, recursively, keeping a line map so that
 * errors point at the file the user wrote. The search for an included file
 * follows lkp-tests: relative to the including file, then the data
 * directory, then anywhere under the nearest jobs/ tree. An include must
 * stay inside the jobs tree or the top job's directory.
 */
#include "job.h"
#include "lkpsrc.h"
#include "../sys/fsutil.h"
#include "../util/yml.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_INCLUDE_DEPTH 16

struct line {
	char *text;
	struct yml_line pos;
};

struct lines {
	struct line *v;
	size_t n, alloc;
};

static void lines_add(struct lines *ls, const char *text, size_t len, struct yml_line pos)
{
	ALLOC_GROW(ls->v, ls->n + 1, ls->alloc);
	ls->v[ls->n].text = xstrndup(text, len);
	ls->v[ls->n].pos = pos;
	node_intern_ref(pos.file);
	ls->n++;
}

static void lines_release(struct lines *ls)
{
	for (size_t i = 0; i < ls->n; i++) {
		free(ls->v[i].text);
		node_unintern(ls->v[i].pos.file);
	}
	free(ls->v);
	ls->v = NULL;
	ls->n = ls->alloc = 0;
}

struct splicer {
	const struct job_env *env;
	char *roots[3];		/* realpaths includes may resolve into */
	size_t nroots;
	char *stack[MAX_INCLUDE_DEPTH + 1];
	size_t depth;
	struct strbuf *err;
};

/* Where jobs/ and hosts/ live: the lkp-tests checkout when one is given. */
static const char *top_dir(const struct job_env *env)
{
	return env->lkp ? lkpsrc_dir(env->lkp) : env->data_dir;
}

static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* The nearest ancestor directory named "jobs" (the directory itself counts). */
static char *jobs_ancestor(const char *dir)
{
	char *real = realpath(dir, NULL);
	char *p;

	if (!real)
		return NULL;
	for (;;) {
		p = strrchr(real, '/');
		if (!p)
			break;
		if (!strcmp(p + 1, "jobs"))
			return real;
		if (p == real)
			break;
		*p = '\0';
	}
	free(real);
	return NULL;
}

static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);
	return !strncmp(path, root, n) && (path[n] == '/' || !path[n] || !strcmp(root, "/"));
}

static bool in_roots(const struct splicer *sp, const char *real)
{
	for (size_t i = 0; i < sp->nroots; i++)
		if (under(real, sp->roots[i]))
			return true;
	return false;
}

/* Depth-first search of `root` for `rel`; the lexically first match wins. */
static void find_under(const char *root, const char *rel, int depth, char **best)
{
	struct strbuf p = STRBUF_INIT;
	DIR *d;
	struct dirent *de;

	if (depth > 12)
		return;
	strbuf_addf(&p, "%s/%s", root, rel);
	if (is_file(p.buf) && (!*best || strcmp(p.buf, *best) < 0)) {
		free(*best);
		*best = strbuf_detach(&p);
	}
	strbuf_release(&p);
	d = opendir(root);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		strbuf_setf(&p, "%s/%s", root, de->d_name);
		if (!lstat(p.buf, &st) && S_ISDIR(st.st_mode))
			find_under(p.buf, rel, depth + 1, best);
	}
	strbuf_release(&p);
	closedir(d);
}

static char *resolve_include(const struct splicer *sp, const char *file, const char *from_dir)
{
	struct strbuf p = STRBUF_INIT;
	char *best = NULL;

	if (file[0] == '/')
		return is_file(file) ? xstrdup(file) : NULL;
	if (!strncmp(file, "./", 2) || !strncmp(file, "../", 3)) {
		strbuf_addf(&p, "%s/%s", from_dir, file);
		if (is_file(p.buf))
			return strbuf_detach(&p);
		strbuf_release(&p);
		return NULL;
	}
	strbuf_addf(&p, "%s/%s", from_dir, file);
	if (is_file(p.buf))
		return strbuf_detach(&p);
	strbuf_setf(&p, "%s/%s", top_dir(sp->env), file);
	if (is_file(p.buf))
		return strbuf_detach(&p);
	strbuf_setf(&p, "%s/jobs/%s", top_dir(sp->env), file);
	if (is_file(p.buf))
		return strbuf_detach(&p);
	strbuf_release(&p);

	char *jobs = jobs_ancestor(from_dir);
	if (jobs)
		find_under(jobs, file, 0, &best);
	free(jobs);
	if (!best) {
		char *shipped = xasprintf("%s/jobs", top_dir(sp->env));
		find_under(shipped, file, 0, &best);
		free(shipped);
	}
	return best;
}

static int fail(struct splicer *sp, const struct yml_line *pos, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct splicer *sp, const struct yml_line *pos, int col, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(sp->err);
	strbuf_addf(sp->err, "%s:%d:%d: ", pos->file, pos->line, col);
	va_start(ap, fmt);
	strbuf_vaddf(sp->err, fmt, ap);
	va_end(ap);
	return -1;
}

static int read_lines_of(struct splicer *sp, const char *path, const char *file, struct lines *out,
			 const struct yml_line *from)
{
	struct strbuf text = STRBUF_INIT;
	int lineno = 0;

	struct strbuf e = STRBUF_INIT;
	if (fsutil_read_regular(&text, path, JOB_MAX_BYTES, &e)) {
		const char *why = errno == EFBIG ? "larger than a job file may be (16 MiB)"
				  : errno == EINVAL ? "not a regular file" : strerror(errno);
		strbuf_release(&e);
		if (from)
			return fail(sp, from, 1, "cannot read included file '%s': %s", path, why);
		strbuf_setf(sp->err, "%s: cannot read job file: %s", path, why);
		return -1;
	}
	strbuf_release(&e);
	const char *nul = memchr(text.buf, '\0', text.len);
	if (nul) {
		/* a binary file, or text a NUL would cut short without a word */
		const char *bol = text.buf;
		int line = 1;
		for (const char *p = text.buf; p < nul; p++)
			if (*p == '\n') {
				line++;
				bol = p + 1;
			}
		struct yml_line pos = { file, line, 0 };
		strbuf_release(&text);
		return fail(sp, &pos, (int)(nul - bol) + 1, "a NUL byte: a job file is text; remove it");
	}
	for (const char *p = text.buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len && p[len - 1] == '\r')
			len--;
		struct yml_line pos = { file, ++lineno, 0 };
		lines_add(out, p, len, pos);
		if (!nl)
			break;
		p = nl + 1;
	}
	strbuf_release(&text);
	return 0;
}

/* The lines of path, each holding a reference to its interned name. */
static int read_lines(struct splicer *sp, const char *path, struct lines *out, const struct yml_line *from)
{
	const char *file = node_intern(path);
	int ret = read_lines_of(sp, path, file, out, from);

	node_unintern(file);
	return ret;
}

static bool is_comment_line(const char *s)
{
	s += strspn(s, " \t");
	return *s == '#';
}

/* Is this line a top-level "key:" line for `key`? */
static bool top_key_line(const char *s, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(s, key, n))
		return false;
	s += n;
	s += strspn(s, " \t");
	return *s == ':' && (s[1] == '\0' || s[1] == ' ' || s[1] == '\t');
}

/* A continuation of the previous top-level entry: indented, blank or a comment. */
static bool continues_entry(const char *s)
{
	return s[0] == ' ' || s[0] == '\t' || s[0] == '\0' || s[0] == '#' ||
	       (s[0] == '-' && (s[1] == ' ' || !s[1]));
}

static bool doc_separator(const char *s)
{
	return !strncmp(s, "---", 3) && (s[3] == '\0' || s[3] == ' ' || s[3] == '\t');
}

/* Drop a top-level entry (key line and its block) from every document. */
static void drop_key(struct lines *ls, const char *key)
{
	size_t w = 0;
	bool dropping = false;

	for (size_t r = 0; r < ls->n; r++) {
		const char *s = ls->v[r].text;
		if (dropping && (doc_separator(s) || !continues_entry(s)))
			dropping = false;
		if (!dropping && top_key_line(s, key))
			dropping = true;
		if (dropping) {
			free(ls->v[r].text);
			continue;
		}
		ls->v[w++] = ls->v[r];
	}
	ls->n = w;
}

/*
 * Set a top-level key in every document of an included text: replace its
 * entry where the document has one, append it where it does not.
 */
static void override_key(struct lines *ls, const char *key, const struct node *val,
			 struct yml_line at)
{
	struct strbuf line = STRBUF_INIT;
	struct lines out = { 0 };
	size_t start = 0;

	yml_emit_scalar(&line, key, false);
	strbuf_addstr(&line, ": ");
	yml_emit_flow(&line, val);

	while (start <= ls->n) {
		size_t end = start;
		while (end < ls->n && !(end > start && doc_separator(ls->v[end].text)))
			end++;
		/* [start, end) is one document, maybe with its leading "---" */
		bool has_content = false, done = false, dropping = false;
		for (size_t i = start; i < end; i++) {
			const char *s = ls->v[i].text;
			if (!doc_separator(s) && !is_comment_line(s) && s[strspn(s, " \t")])
				has_content = true;
		}
		for (size_t i = start; i < end; i++) {
			const char *s = ls->v[i].text;
			if (dropping && !continues_entry(s))
				dropping = false;
			if (dropping)
				continue;
			if (!done && top_key_line(s, key)) {
				lines_add(&out, line.buf, line.len, at);
				done = dropping = true;
				continue;
			}
			lines_add(&out, s, strlen(s), ls->v[i].pos);
		}
		if (has_content && !done)
			lines_add(&out, line.buf, line.len, at);
		if (end >= ls->n)
			break;
		start = end;
	}
	lines_release(ls);
	*ls = out;
	strbuf_release(&line);
}

static int splice(struct splicer *sp, const char *path, const struct yml_line *from,
		  const struct node *opts, struct lines *out, int indent);

/* /^(:|)#! / is a provenance line; /^(:|)#! .*\.yaml(:|)$/ one of a job file's own sections */
static int marker(const char *s)
{
	size_t n;

	s += *s == ':';
	if (strncmp(s, "#! ", 3))
		return 0;
	n = strlen(s);
	n -= n && s[n - 1] == ':';
	return n >= 8 && !strncmp(s + n - 5, ".yaml", 5) ? 2 : 1;
}

/*
 * split-job --compatible (lkp-tests' refine_job_file): a scheduled, "dirty"
 * job file keeps what comes before its first provenance line and the
 * sections of job files ("#! jobs/x.yaml"), not those of includes, hosts
 * or overrides.
 */
static void refine(struct lines *ls)
{
	size_t w = 0;
	bool keep = true;

	for (size_t i = 0; i < ls->n; i++) {
		if (marker(ls->v[i].text))
			keep = marker(ls->v[i].text) == 2;
		if (keep) {
			ls->v[w++] = ls->v[i];
			continue;
		}
		free(ls->v[i].text);
		node_unintern(ls->v[i].pos.file);
	}
	ls->n = w;
}

/*
 * lkp-tests keeps a job file's comments that follow an empty line as data:
 * "\n\n# text" becomes the key ":# text" (a Ruby symbol, saved back as
 * the comment). The key is at column 0 wherever the comment was, so it
 * can end the block above it, as it does in lkp-tests.
 */
static void comments_as_keys(struct lines *ls)
{
	static const char allowed[] = "-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789 !|/?@<>.,_+=%~";

	for (size_t i = 1; i < ls->n; i++) {
		const char *s = ls->v[i].text;
		if (ls->v[i - 1].text[0] || s[0] != '#' || (s[1] != '!' && s[1] != ' ') ||
		    !s[2] || strspn(s + 2, allowed) != strlen(s + 2))
			continue;
		char *k = xasprintf(":%s: ", s);
		free(ls->v[i].text);
		ls->v[i].text = k;
	}
}

/* Appended to a line: s[from, to), the rest of the spliced lines shifted by `shift`. */
static void add_shifted(struct lines *out, const char *text, size_t len, struct yml_line pos, int shift)
{
	pos.indent += shift;
	lines_add(out, text, len, pos);
}

/*
 * lkp-tests' literal_double_braces: "key: {{ expr }}" (or "- {{ expr }}")
 * becomes a block literal, so that the expression stays text for the
 * expansion to evaluate instead of reading as a YAML flow mapping:
 *   key: |
 *     {{ expr }}
 * The expression may span lines; it ends at the first "}}".
 */
static void literal_braces(struct lines *ls)
{
	struct lines out = { 0 };
	struct strbuf ind = STRBUF_INIT, line = STRBUF_INIT;

	for (size_t i = 0; i < ls->n; i++) {
		const char *s = ls->v[i].text;
		size_t pre = 0;
		/* the shortest prefix ending in [:-] and blanks before "{{" */
		for (size_t j = 0; s[j]; j++) {
			if (s[j] != ':' && s[j] != '-')
				continue;
			size_t b = strspn(s + j + 1, " \t\v\f\r");
			if (b && !strncmp(s + j + 1 + b, "{{", 2)) {
				pre = j + 1 + b;
				break;
			}
		}
		size_t k = i;
		const char *close = pre ? strstr(s + pre + 2, "}}") : NULL;
		while (pre && !close && ++k < ls->n)
			close = strstr(ls->v[k].text, "}}");
		if (!pre || !close) {
			lines_add(&out, s, strlen(s), ls->v[i].pos);
			continue;
		}
		strbuf_reset(&ind);
		for (size_t c = 0; c <= pre; c++)
			strbuf_addch(&ind, ' ');
		strbuf_setf(&line, "%.*s|", (int)pre, s);
		lines_add(&out, line.buf, line.len, ls->v[i].pos);
		strbuf_setf(&line, "%s%s", ind.buf, s + pre);
		add_shifted(&out, line.buf, line.len, ls->v[i].pos, 1);
		for (size_t m = i + 1; m <= k && k < ls->n; m++) {
			strbuf_setf(&line, "%s%s", ind.buf, ls->v[m].text);
			add_shifted(&out, line.buf, line.len, ls->v[m].pos, (int)ind.len);
		}
		i = k;
	}
	strbuf_release(&ind);
	strbuf_release(&line);
	lines_release(ls);
	*ls = out;
}

/* Handle one "<<: ..." line; returns 1 if it was not an include. */
static int include_line(struct splicer *sp, const struct line *ln, const char *from_dir,
			struct lines *out, int indent)
{
	const char *s = ln->text, *lt = strstr(s, "<<");
	size_t prefix;
	const char *c;

	if (!lt)
		return 1;
	c = lt + 2;
	c += strspn(c, " ");
	if (*c != ':' || (c[1] != ' ' && c[1] != '\t'))
		return 1;
	c += 1 + strspn(c + 1, " \t");
	if (*c == '*' || *c == '[' || !*c)
		return 1;	/* a YAML merge key, not an include */
	prefix = (size_t)(lt - s);
	if (strspn(s, " \t") != prefix && !(prefix >= 2 && s[prefix - 2] == '-' &&
					    strspn(s, " \t") == prefix - 2))
		return fail(sp, &ln->pos, (int)prefix + 1,
			    "an include '<<: file' must start its line; move it to a line of its own");

	struct node *opts = NULL;
	char *file = NULL;
	struct strbuf content = STRBUF_INIT;
	strbuf_addstr(&content, c);
	strbuf_rtrim(&content);
	if (content.buf[0] == '{') {
		struct strbuf e = STRBUF_INIT;
		opts = yml_load_one(content.buf, "include", &e);
		if (!opts || opts->type != NODE_MAP) {
			node_free(opts);
			strbuf_release(&content);
			fail(sp, &ln->pos, (int)(c - s) + 1,
			     "cannot read the include options (%s); write <<: {file: x.yaml, key: value, ignore: [k]}",
			     e.len ? e.buf : "not a mapping");
			strbuf_release(&e);
			return -1;
		}
		strbuf_release(&e);
		const char *f = node_str(node_get(opts, "file"));
		if (!node_get(opts, "file")) {
			/* a flow mapping without file: a plain YAML merge */
			node_free(opts);
			strbuf_release(&content);
			return 1;
		}
		if (!f || !*f) {
			node_free(opts);
			strbuf_release(&content);
			return fail(sp, &ln->pos, (int)(c - s) + 1,
				    "the include's 'file' must name a file");
		}
		file = xstrdup(f);
	} else {
		size_t len = content.len;
		const char *b = content.buf;
		if (len >= 2 && (b[0] == '\'' || b[0] == '"') && b[len - 1] == b[0])
			file = xstrndup(b + 1, len - 2);
		else
			file = xstrdup(b);
	}
	strbuf_release(&content);

	char *found = resolve_include(sp, file, from_dir);
	int ret = 0;
	if (!found) {
		ret = fail(sp, &ln->pos, (int)(c - s) + 1,
			   "included file '%s' not found next to the job, in %s/jobs or under the jobs tree; check the name",
			   file, top_dir(sp->env));
		goto out;
	}
	char *real = realpath(found, NULL);
	if (!real || !in_roots(sp, real)) {
		ret = fail(sp, &ln->pos, (int)(c - s) + 1,
			   "included file '%s' resolves to '%s', outside the jobs tree; keep includes under the job's directory or jobs/",
			   file, real ? real : found);
		free(real);
		free(found);
		goto out;
	}
	free(real);
	ret = splice(sp, found, &ln->pos, opts, out, indent + (int)prefix);
	free(found);
out:
	free(file);
	node_free(opts);
	return ret;
}

static int splice(struct splicer *sp, const char *path, const struct yml_line *from,
		  const struct node *opts, struct lines *out, int indent)
{
	struct lines ls = { 0 };
	char *real = realpath(path, NULL);
	char *dir = dir_of(path);
	int ret = -1;

	if (!real) {
		if (from)
			fail(sp, from, 1, "cannot open included file '%s': %s", path, strerror(errno));
		else
			strbuf_setf(sp->err, "%s: cannot open job file: %s", path, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < sp->depth; i++)
		if (!strcmp(sp->stack[i], real)) {
			fail(sp, from, 1, "include cycle: '%s' includes itself through this line; remove one of the includes", path);
			goto out;
		}
	if (sp->depth >= MAX_INCLUDE_DEPTH) {
		fail(sp, from, 1, "includes nested more than %d deep; flatten them", MAX_INCLUDE_DEPTH);
		goto out;
	}
	if (read_lines(sp, path, &ls, from))
		goto out;
	if (!from && sp->env->refine)
		refine(&ls);
	if (!from)
		comments_as_keys(&ls);

	if (opts) {
		const struct node *ign = node_get(opts, "ignore");
		if (ign && ign->type == NODE_SEQ) {
			for (size_t i = 0; i < ign->n; i++)
				if (node_str(ign->vals[i]))
					drop_key(&ls, ign->vals[i]->str);
		} else if (node_str(ign)) {
			drop_key(&ls, ign->str);
		}
		for (size_t i = 0; i < opts->n; i++) {
			if (opts->vals[i]->comment || !strcmp(opts->keys[i], "file") ||
			    !strcmp(opts->keys[i], "ignore"))
				continue;
			override_key(&ls, opts->keys[i], opts->vals[i], *from);
		}
	}

	sp->stack[sp->depth++] = real;
	real = NULL;
	for (size_t i = 0; i < ls.n; i++) {
		const struct line *ln = &ls.v[i];
		const char *s = ln->text;
		struct yml_line pos = ln->pos;

		if (is_comment_line(s)) {
			lines_add(out, "", 0, pos);
			continue;
		}
		if (s[0] == '%' || strstr(s, "<%")) {
			fail(sp, &pos, 1, "ERB template lines ('%%' or '<%%') are not supported; write the values out in YAML");
			goto pop;
		}
		int r = include_line(sp, ln, dir, out, indent);
		if (r < 0)
			goto pop;
		if (r == 0)
			continue;
		struct strbuf ind = STRBUF_INIT;
		for (int k = 0; k < indent; k++)
			strbuf_addch(&ind, ' ');
		strbuf_addstr(&ind, s);
		pos.indent += indent;
		lines_add(out, ind.buf, ind.len, pos);
		strbuf_release(&ind);
	}
	ret = 0;
pop:
	free(sp->stack[--sp->depth]);
out:
	free(real);
	free(dir);
	lines_release(&ls);
	return ret;
}

static char *origin_of(const char *path, const char *data_dir)
{
	char *real = realpath(path, NULL), *data = realpath(data_dir, NULL);
	char *ret;

	if (real && data && under(real, data) && strcmp(real, data))
		ret = xstrdup(real + strlen(data) + (strcmp(data, "/") ? 1 : 0));
	else
		ret = xstrdup(path);
	free(real);
	free(data);
	return ret;
}

int job_load(struct jobfile *jf, const char *path, const struct job_env *env,
	     struct strbuf *err)
{
	struct splicer sp = { .env = env, .err = err };
	struct lines ls = { 0 };
	struct strbuf text = STRBUF_INIT;
	struct yml_linemap lm = { 0 };
	char *dir = dir_of(path);
	int ret = -1;

	memset(jf, 0, sizeof(*jf));
	if (!is_file(path)) {
		strbuf_setf(err, "%s: %s; give the path of a job YAML file", path,
			    is_dir(path) ? "is a directory" : access(path, F_OK) ? "no such job file" : "not a regular file");
		goto out;
	}
	char *shipped = xasprintf("%s/jobs", top_dir(env));
	if ((sp.roots[sp.nroots] = realpath(shipped, NULL)))
		sp.nroots++;
	free(shipped);
	if ((sp.roots[sp.nroots] = realpath(dir, NULL)))
		sp.nroots++;
	if ((sp.roots[sp.nroots] = jobs_ancestor(dir)))
		sp.nroots++;

	if (splice(&sp, path, NULL, NULL, &ls, 0))
		goto out;
	literal_braces(&ls);
	for (size_t i = 0; i < ls.n; i++) {
		strbuf_addstr(&text, ls.v[i].text);
		strbuf_addch(&text, '\n');
		yml_linemap_add(&lm, ls.v[i].pos.file, ls.v[i].pos.line, ls.v[i].pos.indent);
	}
	if (yml_load(text.buf, text.len, path, &lm, &jf->docs, &jf->ndocs, err))
		goto out;
	/* lkp-tests ignores empty documents (a trailing "---") */
	size_t w = 0;
	for (size_t i = 0; i < jf->ndocs; i++) {
		struct node *d = jf->docs[i];
		if (node_is_null(d) && w > 0) {
			node_free(d);
			continue;
		}
		if (node_is_null(d)) {
			d->type = NODE_MAP;
		} else if (d->type == NODE_MAP) {
			/* comments kept as ":# text" keys (comments_as_keys) are comments again */
			for (size_t k = 0; k < d->n; k++)
				if (!strncmp(d->keys[k], ":#", 2) && node_is_null(d->vals[k])) {
					char *c = xstrdup(d->keys[k] + 1);
					node_free(d->vals[k]);
					d->vals[k] = node_new_comment(c);
					free(d->keys[k]);
					d->keys[k] = c;
				}
		} else {
			strbuf_setf(err, "%s:%d:%d: document %zu is %s; a job is a mapping of keys to values",
				    d->file, d->line, d->col, i + 1, node_type_name(d));
			for (size_t k = i; k < jf->ndocs; k++)
				node_free(jf->docs[k]);
			jf->ndocs = w;
			goto out;
		}
		jf->docs[w++] = d;
	}
	jf->ndocs = w;
	if (!jf->ndocs || !jf->docs[0]->n) {
		strbuf_setf(err, "%s: the job file is empty; a job needs at least 'testcase' and a program", path);
		goto out;
	}
	jf->path = xstrdup(path);
	jf->origin = origin_of(path, top_dir(env));
	ret = 0;
out:
	if (ret)
		job_release(jf);
	for (size_t i = 0; i < sp.nroots; i++)
		free(sp.roots[i]);
	lines_release(&ls);
	yml_linemap_release(&lm);
	strbuf_release(&text);
	free(dir);
	return ret;
}

void job_release(struct jobfile *jf)
{
	for (size_t i = 0; i < jf->ndocs; i++)
		node_free(jf->docs[i]);
	free(jf->docs);
	free(jf->path);
	free(jf->origin);
	memset(jf, 0, sizeof(*jf));
}

void job_boot_params(const struct node *job, struct strbuf *out)
{
	const struct node *bp = node_get(job, "boot_params");

	for (size_t i = 0; bp && bp->type == NODE_MAP && i < bp->n; i++) {
		const char *k = bp->keys[i], *v = node_str(bp->vals[i]);
		const char *name = strchr(k, '_');
		if (bp->vals[i]->comment || !name || !v || strpbrk(v, " \t\n\"'"))
			continue;
		strbuf_addf(out, " %s=%s", name + 1, v);
	}
}

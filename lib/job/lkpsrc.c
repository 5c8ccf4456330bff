/*
 * lkpsrc: reading an lkp-tests checkout. See lkpsrc.h.
 */
#include "lkpsrc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct defaults {
	char *key;
	char **names, **paths;
	size_t n;
};

struct lkpsrc {
	char *dir;
	bool old_layout;		/* setup/, tests/, ... instead of programs/ */
	struct lkpsrc_program **progs;	/* looked up so far, known or not; sorted by name */
	size_t nprogs, aprogs;
	char **wrapper;
	bool all_read;
	const struct lkpsrc_program **sorted;
	size_t nsorted;
	struct defaults *defs;
	size_t ndefs, adefs;
};

static bool is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

/* lkp-tests takes a program file only when it is executable (File.executable?). */
static bool is_program_file(const char *p)
{
	struct stat st;
	return !stat(p, &st) && !S_ISDIR(st.st_mode) && !access(p, X_OK);
}

struct lkpsrc *lkpsrc_open(const char *dir, struct strbuf *err)
{
	struct lkpsrc *lk;
	char *p = xasprintf("%s/programs", dir), *q = xasprintf("%s/tests", dir);
	bool progs = is_dir(p), old = !progs && is_dir(q);

	free(p);
	free(q);
	if (!progs && !old) {
		strbuf_setf(err, "LKP_SRC '%s' is not an lkp-tests checkout (it has no programs/ directory); give the top directory of one, or unset LKP_SRC",
			    dir);
		return NULL;
	}
	lk = xcalloc(1, sizeof(*lk));
	lk->dir = xstrdup(dir);
	lk->old_layout = old;
	return lk;
}

static void free_program(struct lkpsrc_program *p)
{
	if (!p)
		return;
	free(p->name);
	for (size_t i = 0; i < ARRAY_SIZE(p->script); i++)
		free(p->script[i]);
	for (char **o = p->options; o && *o; o++)
		free(*o);
	free(p->options);
	free(p);
}

void lkpsrc_free(struct lkpsrc *lk)
{
	if (!lk)
		return;
	for (size_t i = 0; i < lk->nprogs; i++)
		free_program(lk->progs[i]);
	free(lk->progs);
	for (char **o = lk->wrapper; o && *o; o++)
		free(*o);
	free(lk->wrapper);
	free(lk->sorted);
	for (size_t i = 0; i < lk->ndefs; i++) {
		for (size_t j = 0; j < lk->defs[i].n; j++) {
			free(lk->defs[i].names[j]);
			free(lk->defs[i].paths[j]);
		}
		free(lk->defs[i].names);
		free(lk->defs[i].paths);
		free(lk->defs[i].key);
	}
	free(lk->defs);
	free(lk->dir);
	free(lk);
}

const char *lkpsrc_dir(const struct lkpsrc *lk)
{
	return lk->dir;
}

/*
 * bin/program-options: the "# - name" and "# = name" lines before the
 * first empty line of a script, appended to *opts (n entries so far).
 */
static void read_options(const char *path, char ***opts, size_t *n)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (len == sizeof(line) - 1)
			break;	/* a line this long ends the header for us */
		if (!len)
			break;
		if (line[0] != '#' || line[1] != ' ' || (line[2] != '-' && line[2] != '=') ||
		    line[3] != ' ' || !line[4] ||
		    strspn(line + 4, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != len - 4)
			continue;
		*opts = xrealloc(*opts, (*n + 2) * sizeof(**opts));
		(*opts)[(*n)++] = line[2] == '=' ? xasprintf("=%s", line + 4) : xstrdup(line + 4);
		(*opts)[*n] = NULL;
	}
	fclose(f);
}

/* A job key that could be a program directory: no path tricks. */
static bool safe_name(const char *name)
{
	return *name && name[0] != '.' && !strchr(name, '/') && strlen(name) < 200;
}

static int kind_index(enum lkpsrc_kind kind)
{
	int i = 0;
	while (!((unsigned)kind & (1u << i)))
		i++;
	return i;
}

static void add_script(struct lkpsrc *lk, struct lkpsrc_program *p, enum lkpsrc_kind kind,
		       const char *rel)
{
	char *abs = xasprintf("%s/%s", lk->dir, rel);
	int i = kind_index(kind);

	if (is_program_file(abs) && !p->script[i]) {
		p->kinds |= kind;
		p->script[i] = xstrdup(rel);
	}
	free(abs);
}

static struct lkpsrc_program *read_program(struct lkpsrc *lk, const char *name)
{
	struct lkpsrc_program *p = xcalloc(1, sizeof(*p));
	char *rel;
	size_t n = 0;

	p->name = xstrdup(name);
	if (!safe_name(name))
		return p;
	if (!lk->old_layout) {
		static const struct { enum lkpsrc_kind kind; const char *file; } files[] = {
			{ LKPSRC_SETUP, "setup" }, { LKPSRC_TEST, "run" },
			{ LKPSRC_DAEMON, "daemon" }, { LKPSRC_MONITOR, "monitor" },
			{ LKPSRC_MONITOR, "no-stdout-monitor" },
			{ LKPSRC_MONITOR, "one-shot-monitor" },
			{ LKPSRC_MONITOR, "plain-monitor" }, { LKPSRC_STATS, "parse" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
			rel = xasprintf("programs/%s/%s", name, files[i].file);
			add_script(lk, p, files[i].kind, rel);
			free(rel);
		}
	} else {
		static const struct { enum lkpsrc_kind kind; const char *dir; } dirs[] = {
			{ LKPSRC_SETUP, "setup" }, { LKPSRC_TEST, "tests" },
			{ LKPSRC_DAEMON, "daemon" }, { LKPSRC_MONITOR, "monitors" },
			{ LKPSRC_STATS, "stats" },
		};
		for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
			rel = xasprintf("%s/%s", dirs[i].dir, name);
			add_script(lk, p, dirs[i].kind, rel);
			free(rel);
		}
	}
	/* lkp-tests merges setup, tests, daemon in that order: the last one's header counts */
	const char *opts = p->script[kind_index(LKPSRC_DAEMON)];
	if (!opts)
		opts = p->script[kind_index(LKPSRC_TEST)];
	if (!opts)
		opts = p->script[kind_index(LKPSRC_SETUP)];
	if (opts) {
		char *abs = xasprintf("%s/%s", lk->dir, opts);
		read_options(abs, &p->options, &n);
		free(abs);
	}
	return p;
}

const struct lkpsrc_program *lkpsrc_program(struct lkpsrc *lk, const char *name)
{
	size_t lo = 0, hi = lk->nprogs;
	struct lkpsrc_program *p;

	/* every job key is asked about for every atomic job: keep it a bsearch */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, lk->progs[mid]->name);
		if (!c)
			return lk->progs[mid]->kinds ? lk->progs[mid] : NULL;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	p = read_program(lk, name);
	ALLOC_GROW(lk->progs, lk->nprogs + 1, lk->aprogs);
	memmove(lk->progs + lo + 1, lk->progs + lo, (lk->nprogs - lo) * sizeof(*lk->progs));
	lk->progs[lo] = p;
	lk->nprogs++;
	return p->kinds ? p : NULL;
}

const char *lkpsrc_script(const struct lkpsrc_program *p, enum lkpsrc_kind kind)
{
	return p->script[kind_index(kind)];
}

const char *const *lkpsrc_wrapper_options(struct lkpsrc *lk)
{
	static const char *const none[] = { NULL };

	if (!lk->wrapper) {
		size_t n = 0;
		char *p;

		lk->wrapper = xcalloc(1, sizeof(*lk->wrapper));
		p = xasprintf("%s/bin/run-test", lk->dir);
		read_options(p, &lk->wrapper, &n);
		free(p);
		p = xasprintf("%s/bin/run-daemon", lk->dir);
		read_options(p, &lk->wrapper, &n);
		free(p);
	}
	return lk->wrapper ? (const char *const *)lk->wrapper : none;
}

static int cmp_prog(const void *a, const void *b)
{
	const struct lkpsrc_program *const *x = a, *const *y = b;
	return strcmp((*x)->name, (*y)->name);
}

static void list_names(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
}

size_t lkpsrc_all(struct lkpsrc *lk, const struct lkpsrc_program *const **out)
{
	if (!lk->all_read) {
		char **names = NULL;
		size_t n = 0;
		char *p;

		if (!lk->old_layout) {
			p = xasprintf("%s/programs", lk->dir);
			list_names(p, &names, &n);
			free(p);
		} else {
			static const char *const dirs[] = { "setup", "tests", "daemon", "monitors", "stats" };
			for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
				p = xasprintf("%s/%s", lk->dir, dirs[i]);
				list_names(p, &names, &n);
				free(p);
			}
		}
		for (size_t i = 0; i < n; i++) {
			const struct lkpsrc_program *prog = lkpsrc_program(lk, names[i]);
			bool dup = false;
			for (size_t j = 0; prog && j < lk->nsorted; j++)
				dup |= lk->sorted[j] == prog;
			if (prog && !dup) {
				lk->sorted = xrealloc(lk->sorted, (lk->nsorted + 1) * sizeof(*lk->sorted));
				lk->sorted[lk->nsorted++] = prog;
			}
			free(names[i]);
		}
		free(names);
		if (lk->nsorted)
			qsort(lk->sorted, lk->nsorted, sizeof(*lk->sorted), cmp_prog);
		lk->all_read = true;
	}
	*out = lk->sorted;
	return lk->nsorted;
}

static void add_default(struct defaults *d, const char *name, const char *path)
{
	d->names = xrealloc(d->names, (d->n + 1) * sizeof(*d->names));
	d->paths = xrealloc(d->paths, (d->n + 1) * sizeof(*d->paths));
	d->names[d->n] = xstrdup(name);
	d->paths[d->n] = xstrdup(path);
	d->n++;
}

/* lkp-tests globs d and its entries: d itself when it is a file, else its files. */
static void read_defaults(struct defaults *d, const char *path, const char *self_name)
{
	struct stat st;

	if (stat(path, &st))
		return;
	if (!S_ISDIR(st.st_mode)) {
		add_default(d, self_name, path);
		return;
	}
	char **names = NULL;
	size_t n = 0;
	list_names(path, &names, &n);
	for (size_t i = 0; i < n; i++) {
		char *f = xasprintf("%s/%s", path, names[i]);
		if (!stat(f, &st) && !S_ISDIR(st.st_mode))
			add_default(d, names[i], f);
		free(f);
		free(names[i]);
	}
	free(names);
}

size_t lkpsrc_defaults(struct lkpsrc *lk, const char *key, const char *const **names,
		       const char *const **paths)
{
	struct defaults *d = NULL;

	for (size_t i = 0; i < lk->ndefs; i++)
		if (!strcmp(lk->defs[i].key, key))
			d = &lk->defs[i];
	if (!d) {
		ALLOC_GROW(lk->defs, lk->ndefs + 1, lk->adefs);
		d = &lk->defs[lk->ndefs++];
		memset(d, 0, sizeof(*d));
		d->key = xstrdup(key);
		if (safe_name(key)) {
			char *p = xasprintf("%s/programs/%s/include", lk->dir, key);
			struct stat st;
			/* programs/<key>/include replaces include/<key> (a later hash entry) */
			if (stat(p, &st)) {
				free(p);
				p = xasprintf("%s/include/%s", lk->dir, key);
			}
			read_defaults(d, p, key);
			free(p);
		}
	}
	*names = (const char *const *)d->names;
	*paths = (const char *const *)d->paths;
	return d->n;
}

const char *lkpsrc_kind_name(enum lkpsrc_kind kind)
{
	switch (kind) {
	case LKPSRC_SETUP: return "setup";
	case LKPSRC_TEST: return "test";
	case LKPSRC_DAEMON: return "daemon";
	case LKPSRC_MONITOR: return "monitor";
	case LKPSRC_STATS: return "stats";
	}
	return "program";
}

/*
 * jobopts: the job files a command or a flow reads. See jobopts.h.
 */
#include "jobopts.h"
#include "../lib/util/say.h"
#include "../lib/job/job.h"
#include "../lib/job/lkpsrc.h"
#include "../lib/util/yml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <getopt.h>
#include <sys/stat.h>

void jobopts_init(struct jobopts *jo)
{
	memset(jo, 0, sizeof(*jo));
	jo->overrides = node_new(NODE_MAP);
}

void jobopts_release(struct jobopts *jo)
{
	node_free(jo->overrides);
	lkpsrc_free(jo->lkp);
	free(jo->files);
	memset(jo, 0, sizeof(*jo));
}

int jobopts_set(struct jobopts *jo, const char *yaml, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	struct node *n = yml_load_one(yaml, "command line", &e);

	if (!n || n->type != NODE_MAP) {
		strbuf_setf(err, "override '%s' is not 'key: value' (%s); write key=value or -s 'key: value'", yaml,
			    n ? "not a mapping" : e.buf);
		node_free(n);
		strbuf_release(&e);
		return -1;
	}
	for (size_t i = 0; i < n->n; i++)
		node_set(jo->overrides, n->keys[i], node_dup(n->vals[i]));
	node_free(n);
	strbuf_release(&e);
	return 0;
}

int jobopts_add(struct jobopts *jo, char *arg, struct strbuf *err)
{
	struct stat st;
	char *eq = strchr(arg, '=');

	/* as lkp-tests: an argument with '=' is an override unless it is a file */
	if (eq && eq != arg && stat(arg, &st)) {
		struct strbuf y = STRBUF_INIT;
		int ret;
		strbuf_add(&y, arg, (size_t)(eq - arg));
		strbuf_addstr(&y, ": ");
		strbuf_addstr(&y, eq + 1);
		ret = jobopts_set(jo, y.buf, err);
		strbuf_release(&y);
		return ret;
	}
	jo->files = xrealloc(jo->files, (jo->nfiles + 1) * sizeof(*jo->files));
	jo->files[jo->nfiles++] = arg;
	return 0;
}

int jobopts_args(struct jobopts *jo, int argc, char **argv, const char *cmd, struct strbuf *err)
{
	for (int i = optind; i < argc; i++)
		if (jobopts_add(jo, argv[i], err))
			return -1;
	if (!jo->nfiles) {
		strbuf_setf(err, "%s needs a job file; 'lkprobot %s --help' shows how", cmd, cmd);
		return -1;
	}
	return jobopts_lkp_src(jo, err);
}

/* An lkp-tests checkout, by its layout: programs/, include/ and lib/ side by side. */
static bool lkp_tree(const char *dir)
{
	static const char *const subs[] = { "programs", "include", "lib", NULL };
	bool all = true;

	for (const char *const *d = subs; *d && all; d++) {
		struct stat st;
		char *p = xasprintf("%s/%s", dir, *d);
		all = !stat(p, &st) && S_ISDIR(st.st_mode);
		free(p);
	}
	return all;
}

/* The lkp-tests checkout that holds path (a directory: it, or one above it), NULL when none does. */
static char *lkp_tree_above(const char *path)
{
	char *dir = realpath(path, NULL);

	while (dir && !lkp_tree(dir)) {
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			free(dir);
			return NULL;
		}
		*slash = '\0';
	}
	return dir;
}

/*
 * No LKP_SRC given: the lkp-tests checkout a job file is in, else the one
 * the current directory is in (what a user running lkprobot there means);
 * said on stderr. NULL when there is none.
 */
static char *lkp_src_found(const struct jobopts *jo)
{
	char *dir = NULL;

	for (size_t i = 0; i < jo->nfiles && !dir; i++) {
		char *parent = xstrdup(jo->files[i]);
		char *slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		dir = lkp_tree_above(slash ? (*parent ? parent : "/") : ".");
		if (dir)
			fprintf(stderr,
				"lkprobot: LKP_SRC=%s: the lkp-tests checkout %s is in (LKP_SRC or --lkp-src for "
				"another)\n",
				dir, jo->files[i]);
		free(parent);
	}
	if (!dir && (dir = lkp_tree_above(".")))
		fprintf(stderr,
			"lkprobot: LKP_SRC=%s: the lkp-tests checkout of the current directory (LKP_SRC or --lkp-src "
			"for another)\n",
			dir);
	return dir;
}

int jobopts_lkp_src(struct jobopts *jo, struct strbuf *err)
{
	const char *dir = jo->lkp_src ? jo->lkp_src : getenv("LKP_SRC");

	if (jo->lkp)
		return 0;
	if (!dir || !*dir) {
		char *found = lkp_src_found(jo);
		struct strbuf ignored = STRBUF_INIT;
		/* found by its layout, not asked for: one whose programs cannot be read is not used */
		jo->lkp = found ? lkpsrc_open(found, &ignored) : NULL;
		free(found);
		strbuf_release(&ignored);
		return 0;
	}
	jo->lkp = lkpsrc_open(dir, err);
	return jo->lkp ? 0 : -1;
}

static void warn_line(const char *msg)
{
	say_warn("%s", msg);
}

void jobopts_env(const struct jobopts *jo, const char *data_dir, struct job_env *env)
{
	memset(env, 0, sizeof(*env));
	env->data_dir = data_dir;
	env->no_defaults = jo->no_defaults;
	env->overrides = jo->overrides;
	env->testbox = jo->testbox;
	env->old_order = jo->old_order;
	env->refine = jo->refine;
	env->lkp = jo->lkp;
	env->warn = warn_line;
}

int jobopts_expand(struct jobopts *jo, const struct job_env *env,
		   int (*fn)(const struct node *atomic, void *arg, struct strbuf *err), void *arg, struct strbuf *err)
{
	for (size_t f = 0; f < jo->nfiles; f++) {
		struct jobfile jf;
		int r;

		jo->current = jo->files[f];
		if (job_load(&jf, jo->files[f], env, err))
			return -1;
		r = job_expand(&jf, env, fn, arg, err);
		job_release(&jf);
		if (r)
			return -1;
	}
	jo->current = NULL;
	return 0;
}

struct keep {
	struct atomic_list *l;
	const struct job_env *env;
};

static int keep_atomic(const struct node *atomic, void *arg, struct strbuf *err)
{
	struct keep *k = arg;
	struct atomic_list *l = k->l;

	if (job_check(atomic, k->env->lkp, err))
		return -1;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n++] = node_dup(atomic);
	return 0;
}

int jobopts_atomic_jobs(struct jobopts *jo, const struct job_env *env, struct atomic_list *l, struct strbuf *err)
{
	struct keep k = { l, env };
	return jobopts_expand(jo, env, keep_atomic, &k, err);
}

void jobopts_atomic_release(struct atomic_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		node_free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

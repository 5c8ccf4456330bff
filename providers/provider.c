/*
 * provider: the registry, the option sets each provider's table describes
 * (from a command line or serve's configuration), and the thin wrappers
 * every command calls. A new provider is its file and one row of
 * PROVIDERS below.
 */
#include "provider.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/util/conf.h"
#include "../lib/util/json.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the registry: one row a provider (its ops are provider_<name>, in providers/<name>*.c) */
#define PROVIDERS(X) X(local) X(qemu) X(slurm) X(ssh)

#define DECLARE(n) extern const struct provider_ops provider_##n;
PROVIDERS(DECLARE)
#undef DECLARE
#define ROW(n) &provider_##n,
static const struct provider_ops *const registry[] = { PROVIDERS(ROW) NULL };
#undef ROW

const struct provider_ops *const *provider_all(void)
{
	return registry;
}

const struct provider_ops *provider_find(const char *name)
{
	for (const struct provider_ops *const *p = registry; *p; p++)
		if (!strcmp((*p)->name, name))
			return *p;
	return NULL;
}

void provider_names(struct strbuf *out, const char *conj)
{
	size_t n = sizeof(registry) / sizeof(registry[0]) - 1;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(out, "%s%s", i == 0 ? "" : i + 1 < n || !strcmp(conj, ",") ? ", " : conj, registry[i]->name);
}

static const char *flag_of(const struct provider_option *o)
{
	return o->flag ? o->flag : o->name;
}

static size_t count_options(const struct provider_ops *ops)
{
	size_t n = 0;
	while (ops->options && ops->options[n].name)
		n++;
	return n;
}

/* A value of option o, checked: 0, or -1 with why in err. */
static int check_value(const struct provider_option *o, const char *v, struct strbuf *err)
{
	if (o->type == PROVIDER_OPT_UINT && (!*v || strspn(v, "0123456789") != strlen(v) || strlen(v) > 9)) {
		strbuf_setf(err, "must be a whole number (%s)", o->help);
		return -1;
	}
	if (o->type == PROVIDER_OPT_BOOL && strcmp(v, "true") && strcmp(v, "false")) {
		strbuf_setf(err, "must be true or false");
		return -1;
	}
	if (o->choices) {
		bool ok = false;
		for (const char *const *c = o->choices; *c; c++)
			ok |= !strcmp(*c, v);
		if (!ok) {
			strbuf_setf(err, "must be ");
			for (const char *const *c = o->choices; *c; c++)
				strbuf_addf(err, "%s%s", c == o->choices ? "" : c[1] ? ", " : " or ", *c);
			strbuf_addf(err, " (%s)", o->help);
			return -1;
		}
	}
	return 0;
}

int provider_registry_check(struct strbuf *err)
{
	for (size_t i = 0; registry[i]; i++) {
		const struct provider_ops *p = registry[i];
		if (!p->name || !p->open || !p->prepare || !p->run_job || !p->kconfig || !p->close) {
			strbuf_setf(err, "provider %zu (%s) lacks an op it needs", i, p->name ? p->name : "?");
			return -1;
		}
		for (size_t j = 0; j < i; j++)
			if (!strcmp(registry[j]->name, p->name)) {
				strbuf_setf(err, "two providers are called %s", p->name);
				return -1;
			}
		if (p->inventory && !p->inventory_title) {
			strbuf_setf(err, "provider %s has an inventory without a title", p->name);
			return -1;
		}
		for (size_t k = 0; p->options && p->options[k].name; k++) {
			const struct provider_option *o = &p->options[k];
			struct strbuf why = STRBUF_INIT;
			if (!o->help || (o->def && check_value(o, o->def, &why))) {
				strbuf_setf(err, "provider %s: option %s: %s", p->name, o->name, why.len ? why.buf : "no help");
				strbuf_release(&why);
				return -1;
			}
			/* a flag or key two providers share must mean the same kind of value */
			for (size_t j = 0; j <= i; j++)
				for (size_t q = 0; registry[j]->options && registry[j]->options[q].name; q++) {
					const struct provider_option *x = &registry[j]->options[q];
					if (x == o)
						break;
					if ((!strcmp(flag_of(x), flag_of(o)) || !strcmp(x->name, o->name)) &&
					    (x->type != o->type || strcmp(x->name, o->name) || strcmp(flag_of(x), flag_of(o)))) {
						strbuf_setf(err, "provider %s: option %s clashes with provider %s's %s", p->name,
							    o->name, registry[j]->name, x->name);
						return -1;
					}
				}
		}
	}
	return 0;
}

/* ---- option sets ---- */

struct provider_options {
	const struct provider_ops *ops;
	size_t n;
	char ***vals;		/* [n]: each option's values */
	size_t *nvals;
};

struct provider_options *provider_options_new(const struct provider_ops *ops)
{
	struct provider_options *o = xcalloc(1, sizeof(*o));

	o->ops = ops;
	o->n = count_options(ops);
	o->vals = xcalloc(o->n + 1, sizeof(*o->vals));
	o->nvals = xcalloc(o->n + 1, sizeof(*o->nvals));
	return o;
}

void provider_options_free(struct provider_options *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		for (size_t k = 0; k < o->nvals[i]; k++)
			free(o->vals[i][k]);
		free(o->vals[i]);
	}
	free(o->vals);
	free(o->nvals);
	free(o);
}

struct provider_options *provider_options_dup(const struct provider_options *o)
{
	struct provider_options *c = provider_options_new(o->ops);

	for (size_t i = 0; i < o->n; i++) {
		c->vals[i] = xcalloc(o->nvals[i] + 1, sizeof(char *));
		for (size_t k = 0; k < o->nvals[i]; k++)
			c->vals[i][k] = xstrdup(o->vals[i][k]);
		c->nvals[i] = o->nvals[i];
	}
	return c;
}

static ssize_t option_index(const struct provider_ops *ops, const char *name)
{
	for (size_t i = 0; ops && ops->options && ops->options[i].name; i++)
		if (!strcmp(ops->options[i].name, name))
			return (ssize_t)i;
	return -1;
}

int provider_options_set(struct provider_options *o, const char *name, const char *value, struct strbuf *err)
{
	ssize_t i = option_index(o->ops, name);

	if (i < 0) {
		strbuf_setf(err, "%s: not an option of provider %s", name, o->ops->name);
		return -1;
	}
	const struct provider_option *opt = &o->ops->options[i];
	struct strbuf why = STRBUF_INIT;
	if (check_value(opt, value, &why)) {
		strbuf_setf(err, "%s: %s", name, why.buf);
		strbuf_release(&why);
		return -1;
	}
	if (opt->type != PROVIDER_OPT_LIST) {
		for (size_t k = 0; k < o->nvals[i]; k++)
			free(o->vals[i][k]);
		o->nvals[i] = 0;
	}
	o->vals[i] = xrealloc(o->vals[i], (o->nvals[i] + 1) * sizeof(char *));
	o->vals[i][o->nvals[i]++] = xstrdup(value);
	return 0;
}

bool provider_options_has(const struct provider_options *o, const char *name)
{
	ssize_t i = o ? option_index(o->ops, name) : -1;
	return i >= 0 && o->nvals[i] > 0;
}

static void argv_add(char ***argv, size_t *n, char *s)
{
	*argv = xrealloc(*argv, (*n + 2) * sizeof(char *));
	(*argv)[(*n)++] = s;
	(*argv)[*n] = NULL;
}

static bool in_list(const char *const *list, const char *s)
{
	for (; list && *list; list++)
		if (!strcmp(*list, s))
			return true;
	return false;
}

/* Each set option as "--flag" and its value (a bool: the flag alone), but those not in where or named in skip. */
static void options_flags(const struct provider_options *o, unsigned where, const char *const *skip, char ***argv,
			  size_t *n)
{
	for (size_t i = 0; o && i < o->n; i++) {
		const struct provider_option *opt = &o->ops->options[i];
		if ((where && !(opt->where & where)) || in_list(skip, opt->name))
			continue;
		for (size_t k = 0; k < o->nvals[i]; k++) {
			if (opt->type == PROVIDER_OPT_BOOL && strcmp(o->vals[i][k], "true"))
				continue;
			argv_add(argv, n, xasprintf("--%s", flag_of(opt)));
			if (opt->type != PROVIDER_OPT_BOOL)
				argv_add(argv, n, xstrdup(o->vals[i][k]));
		}
	}
}

void provider_options_argv(const struct provider_options *o, char ***argv, size_t *n)
{
	options_flags(o, PROVIDER_OPT_CLI, NULL, argv, n);
}

const char *provider_opt(const struct provider_config *cfg, const char *name)
{
	const struct provider_options *o = cfg->opts;
	ssize_t i = o ? option_index(o->ops, name) : -1;

	if (i < 0)
		return NULL;
	return o->nvals[i] ? o->vals[i][o->nvals[i] - 1] : o->ops->options[i].def;
}

unsigned long provider_opt_uint(const struct provider_config *cfg, const char *name, unsigned long def)
{
	const char *v = provider_opt(cfg, name);
	return v ? strtoul(v, NULL, 10) : def;
}

const char *const *provider_opt_list(const struct provider_config *cfg, const char *name, size_t *n)
{
	const struct provider_options *o = cfg->opts;
	ssize_t i = o ? option_index(o->ops, name) : -1;

	*n = i < 0 ? 0 : o->nvals[i];
	return *n ? (const char *const *)o->vals[i] : NULL;
}

bool provider_opt_bool(const struct provider_config *cfg, const char *name)
{
	const char *v = provider_opt(cfg, name);
	return v && !strcmp(v, "true");
}

/* ---- command lines ---- */

size_t provider_cli_options(const struct provider_option **out, const char **who, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; registry[i]; i++)
		for (size_t k = 0; registry[i]->options && registry[i]->options[k].name; k++) {
			const struct provider_option *o = &registry[i]->options[k];
			bool dup = false;
			if (!(o->where & PROVIDER_OPT_CLI))
				continue;
			for (size_t j = 0; j < n && !dup; j++)
				dup = !strcmp(flag_of(out[j]), flag_of(o));
			if (!dup && n < max) {
				who[n] = registry[i]->name;
				out[n++] = o;
			}
		}
	return n;
}

const char *provider_option_flag(const struct provider_option *o)
{
	return flag_of(o);
}

void provider_option_help(struct strbuf *out, const char *who, const struct provider_option *o)
{
	/* a default the help does not say already */
	bool say_def = o->def && !strstr(o->help, "default") && !strstr(o->help, "0:");
	strbuf_addf(out, "%s: %s%s%s%s%s", who, o->help, o->type == PROVIDER_OPT_LIST ? " (repeatable)" : "",
		    say_def ? " (default " : "", say_def ? o->def : "", say_def ? ")" : "");
}

void provider_cli_add(struct provider_cli *pc, const char *flag, const char *value)
{
	pc->flags = xrealloc(pc->flags, (pc->n + 1) * sizeof(char *));
	pc->values = xrealloc(pc->values, (pc->n + 1) * sizeof(char *));
	pc->flags[pc->n] = flag;
	pc->values[pc->n++] = value;
}

int provider_cli_apply(const struct provider_cli *pc, struct provider_options *o, struct strbuf *err)
{
	for (size_t i = 0; i < pc->n; i++) {
		const struct provider_option *mine = NULL;
		for (size_t k = 0; k < o->n && !mine; k++)
			if (o->ops->options[k].where & PROVIDER_OPT_CLI && !strcmp(flag_of(&o->ops->options[k]), pc->flags[i]))
				mine = &o->ops->options[k];
		if (!mine) {
			struct strbuf who = STRBUF_INIT;
			for (size_t r = 0; registry[r]; r++)
				for (size_t k = 0; registry[r]->options && registry[r]->options[k].name; k++)
					if (!strcmp(flag_of(&registry[r]->options[k]), pc->flags[i]))
						strbuf_addf(&who, "%s%s", who.len ? " or " : "", registry[r]->name);
			strbuf_setf(err, "--%s is an option of provider %s, not %s", pc->flags[i], who.buf, o->ops->name);
			strbuf_release(&who);
			return -1;
		}
		struct strbuf why = STRBUF_INIT;
		if (provider_options_set(o, mine->name, pc->values[i], &why)) {
			strbuf_setf(err, "--%s: %s", pc->flags[i], strchr(why.buf, ':') ? strchr(why.buf, ':') + 2 : why.buf);
			strbuf_release(&why);
			return -1;
		}
		strbuf_release(&why);
	}
	return 0;
}

void provider_cli_release(struct provider_cli *pc)
{
	free(pc->flags);
	free(pc->values);
	memset(pc, 0, sizeof(*pc));
}

/* ---- configuration files ---- */

void provider_conf_doc(struct strbuf *out)
{
	strbuf_addstr(out, "| key | provider | where | value | default | what it is |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; registry[i]; i++)
		for (size_t k = 0; registry[i]->options && registry[i]->options[k].name; k++) {
			const struct provider_option *o = &registry[i]->options[k];
			if (!(o->where & (PROVIDER_OPT_TREE | PROVIDER_OPT_SERVE)))
				continue;
			strbuf_addf(out, "| `%s` | %s | %s%s%s | ", o->name, registry[i]->name,
				    o->where & PROVIDER_OPT_TREE ? "a tree" : "",
				    (o->where & PROVIDER_OPT_TREE) && (o->where & PROVIDER_OPT_SERVE) ? ", " : "",
				    o->where & PROVIDER_OPT_SERVE ? "serve: (every tree of the provider)" : "");
			const char *form = o->arg;
			if (!form)
				form = o->type == PROVIDER_OPT_BOOL ? "true or false" : "a string";
			if (o->type == PROVIDER_OPT_LIST)
				strbuf_addstr(out, "a list of ");
			conf_doc_escape(out, form);
			if (o->type == PROVIDER_OPT_LIST)
				strbuf_addstr(out, ", or one");
			strbuf_addstr(out, " | ");
			if (o->where & PROVIDER_OPT_REQUIRED)
				strbuf_addstr(out, "required");
			else if (o->def)
				strbuf_addf(out, "`%s`", o->def);
			strbuf_addstr(out, " | ");
			conf_doc_escape(out, o->help);
			strbuf_addstr(out, " |\n");
		}
}

bool provider_conf_key(const char *key, unsigned where)
{
	for (size_t i = 0; registry[i]; i++) {
		ssize_t k = option_index(registry[i], key);
		if (k >= 0 && registry[i]->options[k].where & where)
			return true;
	}
	return false;
}

/* The required options of o's provider that are missing: the first one's row, or NULL. */
static const struct provider_option *missing(const struct provider_options *o)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->ops->options[i].where & PROVIDER_OPT_REQUIRED && !o->nvals[i] && !o->ops->options[i].def)
			return &o->ops->options[i];
	return NULL;
}

/* The keys of map that are options of kind where: set on o (another provider's: refused, or skipped when skip). */
static int conf_keys(struct provider_options *o, const struct node *map, unsigned where, bool skip, const char **key,
		     const struct node **at, struct strbuf *err)
{
	for (size_t i = 0; map && map->type == NODE_MAP && i < map->n; i++) {
		const char *k = map->keys[i];
		const struct node *v = map->vals[i];
		ssize_t idx = option_index(o->ops, k);
		if (!provider_conf_key(k, where) || v->comment)
			continue;
		*key = k;
		*at = v;
		if (idx < 0 || !(o->ops->options[idx].where & where)) {
			if (skip)
				continue;
			struct strbuf who = STRBUF_INIT;
			for (size_t r = 0; registry[r]; r++) {
				ssize_t x = option_index(registry[r], k);
				if (x >= 0 && registry[r]->options[x].where & where)
					strbuf_addf(&who, "%s%s", who.len ? " or " : "", registry[r]->name);
			}
			strbuf_setf(err, "is a setting of provider: %s", who.buf);
			strbuf_release(&who);
			return -1;
		}
		const struct provider_option *opt = &o->ops->options[idx];
		if (v->type == NODE_SEQ && opt->type != PROVIDER_OPT_LIST) {
			strbuf_setf(err, "must be one value (%s)", opt->help);
			return -1;
		}
		size_t nv = v->type == NODE_SEQ ? v->n : 1;
		for (size_t q = 0; q < nv; q++) {
			const struct node *e = v->type == NODE_SEQ ? v->vals[q] : v;
			struct strbuf why = STRBUF_INIT;
			if (!node_str(e)) {
				strbuf_setf(err, "must be %s (%s)", opt->type == PROVIDER_OPT_LIST ? "a list of strings" : "a value",
					    opt->help);
				return -1;
			}
			if (provider_options_set(o, k, node_str(e), &why)) {
				*at = e;
				strbuf_setf(err, "%s", strchr(why.buf, ':') ? strchr(why.buf, ':') + 2 : why.buf);
				strbuf_release(&why);
				return -1;
			}
			strbuf_release(&why);
		}
	}
	return 0;
}

int provider_conf_apply(struct provider_options *o, const struct node *serve, const struct node *tree,
			const char **key, const struct node **at, struct strbuf *err)
{
	*at = NULL;
	if (conf_keys(o, serve, PROVIDER_OPT_SERVE, true, key, at, err) ||
	    conf_keys(o, tree, PROVIDER_OPT_TREE, false, key, at, err))
		return -1;
	*at = NULL;
	const struct provider_option *miss = missing(o);
	if (miss) {
		*key = miss->name;
		strbuf_setf(err, "provider: %s needs %s: %s", o->ops->name, miss->name, miss->arg ? miss->arg : "VALUE");
		return -1;
	}
	struct provider_config c = { .opts = o };
	if (o->ops->check && o->ops->check(&c, key, err)) {
		*at = node_get(tree, *key) ? node_get(tree, *key) : node_get(serve, *key);
		return -1;
	}
	return 0;
}

/* ---- using one ---- */

/* The configuration with the table's defaults when it brings no options of its own. */
static struct provider_options *with_defaults(const struct provider_ops *ops, struct provider_config *c, struct strbuf *err)
{
	if (!c->opts)
		return (struct provider_options *)(c->opts = provider_options_new(ops));
	if (c->opts->ops != ops)
		strbuf_setf(err, "the options of provider %s given to provider %s", c->opts->ops->name, ops->name);
	return NULL;
}

int provider_check(const struct provider_ops *ops, const struct provider_config *cfg, struct strbuf *err)
{
	struct provider_config c = *cfg;
	struct provider_options *defaults = with_defaults(ops, &c, err);
	const char *key = NULL;
	int rc = -1;

	if (!err->len) {
		const struct provider_option *miss = missing(c.opts);
		if (miss)
			strbuf_setf(err, "provider %s needs --%s %s", ops->name, flag_of(miss), miss->arg ? miss->arg : "VALUE");
		else
			rc = ops->check ? ops->check(&c, &key, err) : 0;
	}
	provider_options_free(defaults);
	return rc;
}

struct provider *provider_open(const struct provider_ops *ops, const struct provider_config *cfg, struct strbuf *err)
{
	struct provider_config c = *cfg;
	struct provider_options *defaults = with_defaults(ops, &c, err);
	/* a provider reads its options in open, never later: the defaults go with this call */
	struct provider *p = err->len ? NULL : ops->open(&c, err);

	provider_options_free(defaults);
	return p;
}

int provider_testbox(const struct provider_ops *ops, const struct provider_config *cfg, char **out, struct strbuf *err)
{
	*out = NULL;
	return ops->testbox ? ops->testbox(cfg, out, err) : 0;
}

size_t provider_slots(const struct provider_ops *ops, struct provider *p)
{
	size_t n = ops->slots ? ops->slots(p) : 1;
	return n ? n : 1;
}

int provider_inventory(const struct provider_ops *ops, const struct provider_config *cfg, struct node **out,
		       struct strbuf *err)
{
	*out = NULL;
	if (!ops->inventory) {
		strbuf_setf(err, "provider %s has no boxes to show", ops->name);
		return -1;
	}
	if (ops->inventory(cfg, out, err))
		return -1;
	for (size_t i = 0; *out && i < (*out)->n; i++) {
		struct node *name = node_new_scalar(ops->name);
		name->quoted = true;	/* a string, never read as a number or a bool */
		node_set((*out)->vals[i], "provider", name);
	}
	return 0;
}

void provider_run_release(struct provider_run *r)
{
	free(r->run_dir);
	free(r->reason);
	free(r->summary);
	free(r->node);
	for (size_t i = 0; i < r->nruns; i++) {
		free(r->run_dirs[i]);
		free(r->states[i]);
	}
	free(r->run_dirs);
	free(r->states);
	memset(r, 0, sizeof(*r));
}

/* ---- recording a run: the command that makes it again ---- */

void provider_reproduce_argv(const struct provider_reproduce *r, char ***argv, size_t *n)
{
	const char *cmd = r->command ? r->command : "run";

	*argv = NULL;
	*n = 0;
	argv_add(argv, n, xstrdup("lkprobot"));
	/* a command of two words (box run) is two arguments */
	for (const char *w = cmd; *w; w += strspn(w, " ")) {
		size_t len = strcspn(w, " ");
		argv_add(argv, n, xstrndup(w, len));
		w += len;
	}
	if (r->arg)
		argv_add(argv, n, xstrdup(r->arg));
	if (r->commit) {
		const char *tc[] = { "--tree", "linux", "--commit", r->commit, r->kconfig ? "--kconfig" : NULL, r->kconfig };
		for (size_t i = 0; i < sizeof(tc) / sizeof(tc[0]) && tc[i]; i++)
			argv_add(argv, n, xstrdup(tc[i]));
		if (r->kcflags && *r->kcflags) {
			argv_add(argv, n, xstrdup("--kcflags"));
			argv_add(argv, n, xstrdup(r->kcflags));
		}
	}
	options_flags(r->opts, 0, r->skip, argv, n);
	for (size_t i = 0; i < sizeof(r->extra) / sizeof(r->extra[0]) && r->extra[i]; i++)
		argv_add(argv, n, xstrdup(r->extra[i]));
	argv_add(argv, n, xstrdup("job.yaml"));
}

void provider_argv_free(char **argv, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(argv[i]);
	free(argv);
}

void provider_reproduce_json(struct strbuf *out, char *const *argv, size_t n)
{
	strbuf_addstr(out, "{\"argv\": [");
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		json_emit_string(out, argv[i]);
	}
	strbuf_addstr(out, "]}\n");
}

/* reproduce.json in run_dir for a run of p. 0, or -1 with err set. */
static int write_reproduce(const struct provider_ops *ops, struct provider *p, const char *run_dir, struct strbuf *err)
{
	struct provider_reproduce r = { 0 };
	struct strbuf json = STRBUF_INIT;
	char **argv, *path = xasprintf("%s/reproduce.json", run_dir);
	size_t n;

	ops->reproduce(p, &r);
	provider_reproduce_argv(&r, &argv, &n);
	provider_reproduce_json(&json, argv, n);
	int rc = fsutil_write_atomic(path, json.buf, json.len, err);
	provider_argv_free(argv, n);
	strbuf_release(&json);
	free(path);
	return rc;
}

int provider_run_job(const struct provider_ops *ops, struct provider *p, struct node *job, struct provider_run *res,
		     struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;

	if (ops->run_job(p, job, res, err))
		return -1;
	/* every result root the run made (several runs in one boot), else its one */
	size_t nd = !ops->reproduce ? 0 : res->nruns ? res->nruns : res->run_dir ? 1 : 0;
	for (size_t d = 0; d < nd; d++)
		if (write_reproduce(ops, p, res->nruns ? res->run_dirs[d] : res->run_dir, &why)) {
			fprintf(stderr, "lkprobot: warning: %s\n", why.buf);
			strbuf_reset(&why);
		}
	strbuf_release(&why);
	return 0;
}

int provider_run_batch(const struct provider_ops *ops, struct provider *p, struct provider_batch_item *items, size_t n,
		       char **prepared, struct strbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		items[i].prepared = -1;
		items[i].built = false;
		memset(&items[i].res, 0, sizeof(items[i].res));
	}
	if (ops->run_batch)
		return ops->run_batch(p, items, n, prepared, err);
	return provider_run_serial(ops, p, items, n, prepared, err);
}

int provider_run_serial(const struct provider_ops *ops, struct provider *p, struct provider_batch_item *items, size_t n,
			char **prepared, struct strbuf *err)
{
	for (size_t i = 0; i < n; i++) {
		struct provider_batch_item *it = &items[i];
		bool untestable = false, build_failed = false;
		for (size_t k = 0; k < i && !untestable; k++) {
			untestable = items[k].prepared == 1 && !strcmp(items[k].commit, it->commit);
			build_failed |= items[k].prepared == 0 && items[k].res.untestable && !strcmp(items[k].commit, it->commit);
		}
		if (untestable) {
			it->prepared = 1;
			it->res.reason = xstrdup("the commit cannot be tested (said earlier in this batch)");
			continue;
		}
		if (build_failed)
			continue;	/* its build failed in a run of this batch: the caller decides (not reached) */
		if (!*prepared || strcmp(*prepared, it->commit)) {
			struct strbuf why = STRBUF_INIT;
			int rc = ops->prepare(p, it->commit, &why);
			if (rc) {
				if (rc < 0) {
					strbuf_setf(err, "%s", why.buf);
					strbuf_release(&why);
					return -1;
				}
				it->prepared = 1;
				it->res.reason = strbuf_detach(&why);
				continue;
			}
			strbuf_release(&why);
			free(*prepared);
			*prepared = xstrdup(it->commit);
			it->built = true;
		}
		if (provider_run_job(ops, p, it->job, &it->res, err))
			return -1;
		it->prepared = 0;
		if (proc_stop_signal || it->res.stop)
			break;	/* stopped, or the provider cannot go on: the rest of the batch is not run */
	}
	return 0;
}

void provider_batch_release(struct provider_batch_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++)
		provider_run_release(&items[i].res);
}

/* ---- status files ---- */

int provider_spool_item(const char *spool, const struct provider_batch_item *it, size_t k, struct provider_spooled *out,
			struct strbuf *err)
{
	struct strbuf yaml = STRBUF_INIT;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(out->tag, sizeof(out->tag), "%.12s-%ld-%09ld-%d-%zu", it->commit, (long)ts.tv_sec, ts.tv_nsec,
		 (int)getpid(), k);
	out->jobfile = xasprintf("%s/%s.yaml", spool, out->tag);
	out->status = xasprintf("%s/%s.status", spool, out->tag);
	yml_emit(&yaml, it->job);
	int rc = fsutil_write_atomic(out->jobfile, yaml.buf, yaml.len, err);
	strbuf_release(&yaml);
	return rc;
}

void provider_spooled_release(struct provider_spooled *s)
{
	free(s->jobfile);
	free(s->status);
	s->jobfile = s->status = NULL;
}

void provider_status_json(struct strbuf *b, const struct provider_run *r, const char *reason, const char *node)
{
	strbuf_addstr(b, "{\"run_dir\": ");
	if (r->run_dir)
		json_emit_string(b, r->run_dir);
	else
		strbuf_addstr(b, "null");
	strbuf_addstr(b, ", \"job_state\": ");
	json_emit_string(b, r->job_state ? r->job_state : "failed");
	strbuf_addf(b, ", \"untestable\": %s, \"reason\": ", r->untestable ? "true" : "false");
	if (reason)
		json_emit_string(b, reason);
	else
		strbuf_addstr(b, "null");
	strbuf_addstr(b, ", \"node\": ");
	json_emit_string(b, node ? node : "");
	strbuf_addf(b, ", \"stop\": %s}\n", r->stop ? "true" : "false");
}

int provider_status_read(const char *text, size_t len, const char *file, struct provider_run *r, struct strbuf *err)
{
	static const char *const known[] = { "finished", "failed", "timeout", "killed", "panic", "boot_failed",
					     "build_failed", NULL };
	struct node *js = json_parse(text, len, file, err);

	if (!js)
		return -1;
	const char *rd = node_str(node_get(js, "run_dir")), *st = node_str(node_get(js, "job_state"));
	const char *why = node_str(node_get(js, "reason")), *node = node_str(node_get(js, "node"));
	const char *u = node_str(node_get(js, "untestable")), *stop = node_str(node_get(js, "stop"));
	r->job_state = "failed";
	for (const char *const *k = known; *k; k++)
		if (st && !strcmp(st, *k))
			r->job_state = *k;
	r->run_dir = rd ? xstrdup(rd) : NULL;
	r->untestable = u && !strcmp(u, "true");
	r->stop = stop && !strcmp(stop, "true");
	r->reason = why ? xstrdup(why) : NULL;
	r->node = node && *node ? xstrdup(node) : NULL;
	node_free(js);
	return 0;
}

/*
 * lkprobot serve: the robot as a service. It watches the branches of git
 * trees; each new head is compared with its base (the branch's last tested
 * head, or its parent) by `lkprobot bisect` — which measures both ends and,
 * when they differ, finds and confirms the first commit of the change —
 * and a culprit's report is queued and delivered by `lkprobot report
 * --send`. Each step is a child process of this same binary with an argv
 * (never a shell); all state is in the store and the result roots, so a
 * service killed at any moment and started again redoes nothing that had
 * completed (runs are reused, mails are queued once by Message-ID) and
 * goes on. `lkprobot status` shows it.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/results/compare.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/kernel/git.h"
#include "../lib/util/json.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/run/run.h"
#include "../lib/store/store.h"
#include "../lib/util/yml.h"
#include "../mail/mailconf.h"
#include "../mail/outbox.h"
#include "../providers/box.h"
#include "../providers/qemu.h"
#include "../web/web.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot serve -c FILE [--once] [--listen HOST:PORT] [--accel A]\n"
	"       lkprobot check-config -c FILE\n"
	"       lkprobot status -c FILE [--json]\n"
	"\n"
	"serve: watch the trees of the configuration's serve: section; test each new\n"
	"head of their branches against its base (the branch's last head that was\n"
	"tested and measured, or its parent) with 'lkprobot bisect' (both ends\n"
	"measured in interleaved rounds; when they differ beyond the metric's floor,\n"
	"the first commit of the change found and confirmed), queue the culprit's\n"
	"report with 'lkprobot report --send' (mail: section; the same decision) and\n"
	"deliver the outbox. A head that does not build is build_failed, with its\n"
	"first error line. One line a step on stderr, with its reason. SIGTERM: finish\n"
	"the step under way and stop; SIGHUP: read the configuration again. --once:\n"
	"one pass (poll, test what is queued, deliver), then stop.\n"
	"check-config: read the configuration and say what is wrong in it.\n"
	"status: the heads the service has seen, where each stands and why (--json:\n"
	"as JSON, each head's result as data).\n"
	"\n"
	"    serve:\n"
	"      result_root: /lkp/result     # where the runs go (and the store, lkprobot.db)\n"
	"      cache: /var/cache/lkprobot   # work trees and kernels\n"
	"      poll: 60                     # seconds between looks at the trees\n"
	"      web_token_file: /etc/lkprobot/web-token   # optional: the dashboard's actions need it\n"
	"      public_url: https://lkp.example.org/   # optional: where readers reach the dashboard;\n"
	"                                   # the mails link their bisection there (url:)\n"
	"      lkprobot_url: https://git.example.org/lkprobot.git   # optional: where readers get\n"
	"                                   # lkprobot (the mails' \"To reproduce\")\n"
	"      report_improvements: true    # mail the culprit of an improvement too (false: record it only)\n"
	"      max_bisections: 4            # heads tested at once when their provider runs on a farm\n"
	"                                   # (slurm, ssh): they share its boxes; others one at a time\n"
	"      change_floor:                # the smallest change worth a report, per metric or glob\n"
	"        command.throughput: 3%     # (default 1% for perf metrics, 5% for the rest)\n"
	"      trees:\n"
	"        - name: linux\n"
	"          path: /srv/git/linux     # a local repository (fetched into by others), or\n"
	"          # url: https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git\n"
	"          #                        # fetched with libgit2 into <cache>/mirrors/<name>.git\n"
	"          branches: [master]\n"
	"          base: last-tested        # last-tested, parent, or a revision (v6.1)\n"
	"          jobs: [/etc/lkprobot/jobs/fio-basic-smoke.yaml]\n"
	"          kconfig: x86_64-pmem     # qemu, ssh\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 stopped as asked (or the configuration is right), 1 a step\n"
	"failed in a way the service cannot go on from, 2 a bad configuration or usage\n";

/* The help's head: the providers and their settings from the registry's tables. */
static void usage_head_make(struct strbuf *b)
{
	struct strbuf names = STRBUF_INIT;

	provider_names(&names, ", ");
	strbuf_addstr(b, usage_head);
	strbuf_addf(b, "          provider: local          # %s; its own settings (serve: or the tree):\n", names.buf);
	provider_conf_help(b, "          ", 35);
	strbuf_addch(b, '\n');
	strbuf_release(&names);
}

struct tree_conf {
	char *name, *path, *base, *provider, *kconfig;
	char *url;		/* fetched into the mirror at path; NULL: path is kept up to date by others */
	const struct provider_ops *ops;
	struct provider_options *opts;	/* the provider's own settings, from its table */
	char **branches, **jobs;
	size_t nbranches, njobs;
};

struct serve_conf {
	char *path;
	char *result_root, *cache, *db;
	char *token;		/* from web_token_file; NULL: the dashboard has no actions */
	char *public_url;	/* where readers reach the dashboard (NULL: unknown) */
	char *lkprobot_url;	/* where readers get lkprobot (NULL: unknown) */
	bool report_improvements;	/* mail a culprit of an improvement too (default) */
	char **floors;			/* change_floor: "GLOB=PCT" each, for bisect and report (--floor) */
	size_t nfloors;
	long poll;
	long max_bisections;		/* heads tested at once (at most one whose provider runs here) */
	struct tree_conf *trees;
	size_t ntrees;
};

static void serve_conf_release(struct serve_conf *c)
{
	for (size_t i = 0; i < c->ntrees; i++) {
		struct tree_conf *t = &c->trees[i];
		free(t->name);
		free(t->path);
		free(t->url);
		provider_options_free(t->opts);
		free(t->base);
		free(t->provider);
		free(t->kconfig);
		for (size_t k = 0; k < t->nbranches; k++)
			free(t->branches[k]);
		for (size_t k = 0; k < t->njobs; k++)
			free(t->jobs[k]);
		free(t->branches);
		free(t->jobs);
	}
	free(c->trees);
	for (size_t i = 0; i < c->nfloors; i++)
		free(c->floors[i]);
	free(c->floors);
	free(c->path);
	free(c->result_root);
	free(c->cache);
	free(c->db);
	free(c->token);
	free(c->public_url);
	free(c->lkprobot_url);
	memset(c, 0, sizeof(*c));
}

static int conf_bad(struct strbuf *err, const char *file, const struct node *n, const char *key, const char *what)
{
	if (n && n->line)
		strbuf_setf(err, "%s:%d:%d: serve.%s: %s", file, n->line, n->col, key, what);
	else
		strbuf_setf(err, "%s: serve.%s: %s", file, key, what);
	return -1;
}

static int str_list(const char *file, const struct node *v, const char *key, char ***out, size_t *n,
		    struct strbuf *err)
{
	if (node_str(v)) {
		*out = xcalloc(1, sizeof(**out));
		(*out)[(*n)++] = xstrdup(node_str(v));
		return 0;
	}
	if (!v || v->type != NODE_SEQ || !v->n)
		return conf_bad(err, file, v, key, "must be a list of strings (at least one)");
	for (size_t i = 0; i < v->n; i++) {
		if (!node_str(v->vals[i]))
			return conf_bad(err, file, v->vals[i], key, "must be a list of strings");
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		(*out)[(*n)++] = xstrdup(node_str(v->vals[i]));
	}
	return 0;
}

/* The store of a serve: section: serve.db, else lkprobot.db in serve.result_root. */
static char *store_of(const struct node *s)
{
	const char *db = node_str(node_get(s, "db")), *root = node_str(node_get(s, "result_root"));
	return db ? xstrdup(db) : xasprintf("%s/lkprobot.db", root ? root : "/lkp/result");
}

char *serve_store_path(const char *file, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct node *doc = NULL;
	char *db = NULL;

	if (strbuf_read_file(&text, file))
		strbuf_setf(err, "%s: cannot read the configuration: %s", file, strerror(errno));
	else if ((doc = yml_load_one(text.buf, file, err)) && node_get(doc, "serve") &&
		 node_get(doc, "serve")->type == NODE_MAP)
		db = store_of(node_get(doc, "serve"));
	node_free(doc);
	strbuf_release(&text);
	return db;
}

/* The serve: section, checked: every tree a git repository, every job file there. */
static int serve_conf_load(struct serve_conf *c, const char *file, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct node *doc = NULL;
	int ret = -1;
	static const char *const top[] = { "result_root", "cache", "db", "poll", "trees", "web_token_file",
					   "report_improvements", "public_url", "lkprobot_url", "change_floor", "max_bisections", NULL };
	/* and the providers' own keys, from their tables */
	static const char *const tk[] = { "name", "path", "url", "branches", "base", "jobs", "provider", "kconfig", NULL };

	memset(c, 0, sizeof(*c));
	c->path = xstrdup(file);
	c->poll = 60;
	if (strbuf_read_file(&text, file)) {
		strbuf_setf(err, "%s: cannot read the configuration: %s", file, strerror(errno));
		goto out;
	}
	if (!(doc = yml_load_one(text.buf, file, err)))
		goto out;
	const struct node *s = node_get(doc, "serve");
	if (!s || s->type != NODE_MAP) {
		conf_bad(err, file, s, "", "the configuration has no serve: map (see 'lkprobot serve --help')");
		goto out;
	}
	for (size_t i = 0; i < s->n; i++) {
		bool ok = false;
		for (const char *const *k = top; *k; k++)
			ok |= !strcmp(s->keys[i], *k);
		ok |= provider_conf_key(s->keys[i], PROVIDER_OPT_SERVE);
		if (!ok && !s->vals[i]->comment) {
			conf_bad(err, file, s->vals[i], s->keys[i], "not a setting lkprobot knows (a typo?)");
			goto out;
		}
	}
	const char *v;
	c->result_root = xstrdup((v = node_str(node_get(s, "result_root"))) ? v : "/lkp/result");
	if ((v = node_str(node_get(s, "cache"))))
		c->cache = xstrdup(v);
	c->db = store_of(s);
	const struct node *pu = node_get(s, "public_url");
	if (pu) {
		if (!node_str(pu) || web_url_check(node_str(pu), err)) {
			char *why = node_str(pu) ? strbuf_detach(err) : xstrdup("must be the dashboard's URL (https://...)");
			conf_bad(err, file, pu, "public_url", why);
			free(why);
			goto out;
		}
		c->public_url = xstrdup(node_str(pu));
	}
	const struct node *lu = node_get(s, "lkprobot_url");
	if (lu) {
		/* a URL git can clone: one word, no control character (it is pasted into a shell) */
		const char *u = node_str(lu);
		if (!u || !*u || strpbrk(u, " \t\r\n'\"`$;&|<>") || u[0] == '-') {
			conf_bad(err, file, lu, "lkprobot_url", "must be a URL git can clone lkprobot from (one word)");
			goto out;
		}
		c->lkprobot_url = xstrdup(u);
	}
	const struct node *tf = node_get(s, "web_token_file");
	if (tf) {
		struct strbuf tok = STRBUF_INIT;
		const char *path = node_str(tf);
		if (!path || strbuf_read_file(&tok, path)) {
			char *why = xasprintf("cannot read the token file '%s': %s", path ? path : "", strerror(errno));
			conf_bad(err, file, tf, "web_token_file", why);
			free(why);
			strbuf_release(&tok);
			goto out;
		}
		strbuf_rtrim(&tok);
		if (tok.len < 16 || strchr(tok.buf, '\n')) {
			conf_bad(err, file, tf, "web_token_file",
				 "the token must be one line of at least 16 characters (head -c 24 /dev/urandom | base64)");
			strbuf_release(&tok);
			goto out;
		}
		c->token = strbuf_detach(&tok);
	}
	c->report_improvements = true;
	const struct node *ri = node_get(s, "report_improvements");
	if (ri) {
		const char *b = node_str(ri);
		if (!b || (strcmp(b, "true") && strcmp(b, "false"))) {
			conf_bad(err, file, ri, "report_improvements", "must be true or false");
			goto out;
		}
		c->report_improvements = !strcmp(b, "true");
	}
	const struct node *cf = node_get(s, "change_floor");
	if (cf && cf->type != NODE_MAP) {
		conf_bad(err, file, cf, "change_floor", "must be a map of metric (or glob) -> percent, e.g. command.throughput: 2%");
		goto out;
	}
	for (size_t i = 0; cf && i < cf->n; i++) {
		/* checked here, handed to bisect and report as --floor GLOB=PCT */
		struct compare_floors fl = { 0 };
		char *spec = xasprintf("%s=%s", cf->keys[i], node_str(cf->vals[i]) ? node_str(cf->vals[i]) : "");
		int rc = cf->vals[i]->comment ? 0 : compare_floors_add(&fl, spec, err);
		compare_floors_release(&fl);
		if (rc) {
			char *key = xasprintf("change_floor.%s", cf->keys[i]);
			conf_bad(err, file, cf->vals[i], key, "not a percentage; write e.g. 2% or 0.5");
			free(key);
			free(spec);
			goto out;
		}
		if (cf->vals[i]->comment) {
			free(spec);
			continue;
		}
		c->floors = xrealloc(c->floors, (c->nfloors + 1) * sizeof(*c->floors));
		c->floors[c->nfloors++] = spec;
	}
	c->max_bisections = 4;
	const struct node *mb = node_get(s, "max_bisections");
	if (mb) {
		char *end;
		c->max_bisections = node_str(mb) ? strtol(node_str(mb), &end, 10) : 0;
		if (!node_str(mb) || *end || c->max_bisections <= 0 || c->max_bisections > 64) {
			conf_bad(err, file, mb, "max_bisections", "must be a number of heads from 1 to 64");
			goto out;
		}
	}
	const struct node *p = node_get(s, "poll");
	if (p) {
		char *end;
		c->poll = node_str(p) ? strtol(node_str(p), &end, 10) : 0;
		if (!node_str(p) || *end || c->poll <= 0) {
			conf_bad(err, file, p, "poll", "must be a positive number of seconds");
			goto out;
		}
	}
	const struct node *trees = node_get(s, "trees");
	if (!trees || trees->type != NODE_SEQ || !trees->n) {
		conf_bad(err, file, trees, "trees", "must be a list of trees to watch (at least one)");
		goto out;
	}
	for (size_t i = 0; i < trees->n; i++) {
		const struct node *t = trees->vals[i];
		c->trees = xrealloc(c->trees, (c->ntrees + 1) * sizeof(*c->trees));
		struct tree_conf *tc = &c->trees[c->ntrees++];
		memset(tc, 0, sizeof(*tc));
		if (t->type != NODE_MAP) {
			conf_bad(err, file, t, "trees", "each tree is a map (name, path, branches, jobs, ...)");
			goto out;
		}
		for (size_t k = 0; k < t->n; k++) {
			bool ok = false;
			for (const char *const *n = tk; *n; n++)
				ok |= !strcmp(t->keys[k], *n);
			ok |= provider_conf_key(t->keys[k], PROVIDER_OPT_TREE);
			if (!ok && !t->vals[k]->comment) {
				char *key = xasprintf("trees.%s", t->keys[k]);
				conf_bad(err, file, t->vals[k], key, "not a setting lkprobot knows (a typo?)");
				free(key);
				goto out;
			}
		}
		const char *url = node_str(node_get(t, "url")), *path = node_str(node_get(t, "path"));
		if (!url == !path) {
			conf_bad(err, file, t, "trees.path",
				 "every tree needs either the path of a local repository or the url to fetch from");
			goto out;
		}
		if (url) {
			static const char *const schemes[] = { "https://", "http://", "git://", "ssh://", "file://", NULL };
			bool known = *url == '/';
			for (const char *const *sch = schemes; *sch; sch++)
				known |= !strncmp(url, *sch, strlen(*sch));
			v = node_str(node_get(t, "name"));
			if (!known) {
				conf_bad(err, file, node_get(t, "url"), "trees.url",
					 "not a repository address lkprobot fetches from (https://, git://, ssh://, file:// or /path)");
				goto out;
			}
			if (!v || !*v || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(v) ||
			    *v == '.') {
				conf_bad(err, file, node_get(t, "name") ? node_get(t, "name") : t, "trees.name",
					 "a tree with a url needs a name of letters, digits, '.', '_' and '-' (its mirror's directory)");
				goto out;
			}
			tc->url = xstrdup(url);
			tc->path = xasprintf("%s/mirrors/%s.git", c->cache ? c->cache : c->result_root, v);
		} else {
			tc->path = xstrdup(path);
		}
		tc->name = xstrdup((v = node_str(node_get(t, "name"))) ? v : tc->path);
		tc->base = xstrdup((v = node_str(node_get(t, "base"))) ? v : "last-tested");
		tc->provider = xstrdup((v = node_str(node_get(t, "provider"))) ? v : "local");
		if ((v = node_str(node_get(t, "kconfig"))))
			tc->kconfig = xstrdup(v);
		if (!(tc->ops = provider_find(tc->provider))) {
			struct strbuf names = STRBUF_INIT;
			provider_names(&names, " or ");
			char *why = xasprintf("must be %s", names.buf);
			conf_bad(err, file, node_get(t, "provider"), "trees.provider", why);
			free(why);
			strbuf_release(&names);
			goto out;
		}
		/* the provider's settings: its keys of serve: and of the tree, checked by its table */
		const char *pkey = NULL;
		const struct node *at = NULL;
		tc->opts = provider_options_new(tc->ops);
		if (provider_conf_apply(tc->opts, s, t, &pkey, &at, err)) {
			char *why = strbuf_detach(err), *key = xasprintf("%s%s", node_get(t, pkey) || !at ? "trees." : "", pkey);
			conf_bad(err, file, at ? at : node_get(t, "provider") ? node_get(t, "provider") : t, key, why);
			free(key);
			free(why);
			goto out;
		}
		if (str_list(file, node_get(t, "branches"), "trees.branches", &tc->branches, &tc->nbranches, err) ||
		    str_list(file, node_get(t, "jobs"), "trees.jobs", &tc->jobs, &tc->njobs, err))
			goto out;
		struct gitrepo *repo;
		if (!tc->url && gitrepo_open(&repo, tc->path, err)) {
			char *why = strbuf_detach(err);
			conf_bad(err, file, node_get(t, "path"), "trees.path", why);
			free(why);
			goto out;
		}
		if (!tc->url)
			gitrepo_close(repo);
		for (size_t k = 0; k < tc->njobs; k++)
			if (access(tc->jobs[k], R_OK)) {
				char *why = xasprintf("cannot read the job file '%s'", tc->jobs[k]);
				conf_bad(err, file, node_get(t, "jobs"), "trees.jobs", why);
				free(why);
				goto out;
			}
	}
	ret = 0;
out:
	node_free(doc);
	strbuf_release(&text);
	if (ret)
		serve_conf_release(c);	/* nothing for the caller to release */
	return ret;
}

static volatile sig_atomic_t reload_asked;

static void on_hup(int sig)
{
	(void)sig;
	reload_asked = 1;
}

/*
 * A child of the service (bisect, report, stats): in a process group of
 * its own, which a stop of the service ends (SIGTERM, then SIGKILL after
 * a grace), and killed when the service dies, so that a restarted service
 * never finds an orphan working in the checkout it is about to use. Its
 * stdout captured; stderr as ours (the service's log).
 */
static int serve_child(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	struct proc p = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = out, .pgroup = true,
			  .death_sig = SIGKILL, .stop = &proc_stop_signal, .grace = 30 };
	int rc = proc_run(&p, err);

	proc_kill_group(&p, 5);
	return rc;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s lkprobot serve: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Look at every branch: record its head when it is new, with its base. */
static int poll_trees(const struct serve_conf *c, struct store *s, struct strbuf *err)
{
	for (size_t i = 0; i < c->ntrees; i++) {
		const struct tree_conf *t = &c->trees[i];
		struct gitrepo *repo;
		if (t->url && gitrepo_mirror(t->url, t->path, err)) {
			say("%s: %s (skipped this time)", t->name, err->buf);
			strbuf_reset(err);
			continue;
		}
		if (gitrepo_open(&repo, t->path, err)) {
			say("%s: %s (skipped this time)", t->name, err->buf);
			strbuf_reset(err);
			continue;
		}
		for (size_t b = 0; b < t->nbranches; b++) {
			struct gitrepo_commit hc;
			char base[GITREPO_HEXSZ + 1] = "";
			if (gitrepo_commit_info(repo, t->branches[b], &hc, err)) {
				say("%s %s: %s (skipped this time)", t->name, t->branches[b], err->buf);
				strbuf_reset(err);
				continue;
			}
			if (!strcmp(t->base, "parent") || !strcmp(t->base, "last-tested")) {
				if (hc.nparents)
					snprintf(base, sizeof(base), "%s", hc.parents[0]);
			} else if (gitrepo_resolve(repo, t->base, base, err)) {
				say("%s: base %s: %s", t->name, t->base, err->buf);
				strbuf_reset(err);
			}
			/*
			 * the last head of this branch tested and measured, if it is an
			 * ancestor (no force-push); chosen again when the head is tested
			 */
			if (!strcmp(t->base, "last-tested")) {
				struct strbuf last = STRBUF_INIT;
				if (store_head_last_measured(s, t->name, t->branches[b], INT64_MAX, &last, err) == 1 &&
				    strcmp(last.buf, hc.id) && gitrepo_is_ancestor(repo, last.buf, hc.id, err) == 1)
					snprintf(base, sizeof(base), "%s", last.buf);
				strbuf_release(&last);
				strbuf_reset(err);
			}
			if (*base && strcmp(base, hc.id)) {
				int64_t id = store_head_add(s, t->name, t->branches[b], hc.id, base, (int64_t)time(NULL), err);
				if (id < 0) {
					gitrepo_commit_release(&hc);
					gitrepo_close(repo);
					return -1;
				}
				if (id)
					say("%s %s: new head %.12s (\"%s\"), base %.12s", t->name, t->branches[b], hc.id, hc.subject,
					    base);
			}
			gitrepo_commit_release(&hc);
		}
		gitrepo_close(repo);
	}
	return 0;
}

static const struct tree_conf *tree_named(const struct serve_conf *c, const char *name)
{
	for (size_t i = 0; i < c->ntrees; i++)
		if (!strcmp(c->trees[i].name, name))
			return &c->trees[i];
	return NULL;
}


/* A child's complaint in one line: the last line of its stderr, without "lkprobot: ". */
static void child_reason(const struct strbuf *e, struct strbuf *out)
{
	const char *p = e->buf, *end = e->buf + e->len;

	while (end > p && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	const char *line = end;
	while (line > p && line[-1] != '\n')
		line--;
	if ((size_t)(end - line) > 10 && !strncmp(line, "lkprobot: ", 10))
		line += 10;
	strbuf_reset(out);
	strbuf_add(out, line, (size_t)(end - line));
	if (!out->len)
		strbuf_addstr(out, "it said nothing");
}

/*
 * One head: each job bisected between base and head; a culprit's report
 * sent — unless the decision the report takes (the one bisect confirmed
 * the culprit with) says no, which is recorded with its reason. Returns
 * the head's status: done (measured), build_failed (the head does not
 * build: the reason is its first error line) or failed.
 */
static const char *test_head(const struct serve_conf *c, const char *config, const struct node *h, const char *base,
			     struct strbuf *result)
{
	const char *tree = node_str(node_get(h, "tree")), *head = node_str(node_get(h, "head"));
	const char *first = node_str(node_get(h, "first_seen"));
	const struct tree_conf *t = tree_named(c, tree ? tree : "");
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *status = "done";

	if (!t || n <= 0) {
		strbuf_setf(result, "{\"error\": \"the tree is not in the configuration any more\"}");
		return "failed";
	}
	exe[n] = '\0';
	strbuf_addstr(result, "[");
	for (size_t j = 0; j < t->njobs && !proc_stop_signal; j++) {
		struct strbuf out = STRBUF_INIT, e = STRBUF_INIT, why = STRBUF_INIT;
		size_t na = 0;
		char **args = NULL;
		/* the provider's settings as its command-line flags (its table), then the rest */
		provider_options_argv(t->opts, &args, &na);
		char **pargs = args;
		size_t npargs = na;
		args = xcalloc(32 + npargs + 2 * c->nfloors, sizeof(*args));
		na = 0;
#define ARG(x) (args[na++] = (char *)(x))
		ARG(exe), ARG("bisect"), ARG("--tree"), ARG(t->path), ARG("--good"), ARG(base), ARG("--bad"), ARG(head);
		ARG("--provider"), ARG(t->provider), ARG("-o"), ARG(c->result_root), ARG("--db"), ARG(c->db);
		if (c->cache)
			ARG("--cache"), ARG(c->cache);
		if (t->kconfig)
			ARG("--kconfig"), ARG(t->kconfig);
		for (size_t k = 0; k < npargs; k++)
			ARG(pargs[k]);
		for (size_t k = 0; k < c->nfloors; k++)
			ARG("--floor"), ARG(c->floors[k]);
		ARG("--json"), ARG(t->jobs[j]);
		say("%s %.12s..%.12s: %s", tree, base, head, t->jobs[j]);
		int rc = serve_child(args, &out, &e);
		struct strbuf pe = STRBUF_INIT;
		struct node *js = (rc == 0 || rc == 1) && out.len ? json_parse(out.buf, out.len, "bisect", &pe) : NULL;
		strbuf_release(&pe);
		const char *st = js ? node_str(node_get(js, "status")) : NULL;
		const char *culprit = js ? node_str(node_get(js, "culprit")) : NULL;
		const char *parent = js ? node_str(node_get(js, "parent")) : NULL;
		const char *metric = js ? node_str(node_get(js, "metric")) : NULL;
		const char *untestable = js ? node_str(node_get(js, "untestable")) : NULL;
		if (js && node_str(node_get(js, "why"))) {
			strbuf_addstr(&why, node_str(node_get(js, "why")));
		} else {
			child_reason(&e, &why);
			strbuf_addf(&why, " (exit %d)", rc);
		}
		strbuf_addf(result, "%s{\"job\": ", j ? ", " : "");
		json_emit_string(result, t->jobs[j]);
		strbuf_addstr(result, ", \"bisect\": ");
		json_emit_string(result, st ? st : "error");
		strbuf_addstr(result, ", \"why\": ");
		json_emit_string(result, why.buf);
		if (!st || !strcmp(st, "failed")) {
			/* a head that does not build is no base for the next: recorded as such, with its first error line */
			bool build = untestable && !strcmp(untestable, "bad");
			if (build && strcmp(status, "failed"))
				status = "build_failed";
			else
				status = "failed";
			say("%s %.12s: bisect failed: %s", tree, head, why.buf);
		} else {
			say("%s %.12s: %s%s%.12s: %s", tree, head, st, culprit ? ", culprit " : "", culprit ? culprit : "",
			    why.buf);
		}
		/* which way the change went, by the metric's direction (higher or lower is better) */
		double change = 0;
		const char *kind = NULL;
		/* found, or of an ambiguous set the one commit that can be tested, confirmed (bisect names it) */
		bool named = st && (!strcmp(st, "found") || !strcmp(st, "ambiguous")) && culprit && parent;
		if (named && json_number(node_get(js, "change"), &change) && metric && compare_direction(metric))
			kind = change * compare_direction(metric) > 0 ? "improvement" : "regression";
		if (kind && !strcmp(kind, "improvement") && !c->report_improvements) {
			say("%s %.12s: an improvement of %s, recorded, not mailed (report_improvements: false)", tree,
			    culprit ? culprit : "", metric);
			strbuf_addstr(result, ", \"kind\": \"improvement\"");
		} else if (named) {
			struct strbuf rout = STRBUF_INIT, re = STRBUF_INIT, rwhy = STRBUF_INIT, note = STRBUF_INIT;
			size_t nr = 0;
			char **r = xcalloc(40 + 2 * c->nfloors, sizeof(*r));
			const char *const fixed[] = { exe, "report", "--send", "--config", config, "--db", c->db,
						      "--result-root", c->result_root, "--tree", t->path, "--base", parent,
						      "--commit", culprit, "--date", first ? first : "0" };
			for (size_t k = 0; k < sizeof(fixed) / sizeof(*fixed); k++)
				r[nr++] = (char *)fixed[k];
			/* the mail's url: the bisection's page, which leads to the compare and the history */
			double bid = 0;
			char *url = c->public_url && json_number(node_get(js, "id"), &bid) && bid > 0
					    ? web_url_bisection(c->public_url, (long long)bid) : NULL;
			if (url) {
				/* and the fix's Closes: tag points there */
				r[nr++] = "--url";
				r[nr++] = url;
				r[nr++] = "--closes";
				r[nr++] = url;
			}
			if (t->url) {
				r[nr++] = "--tree-url";
				r[nr++] = t->url;
			}
			if (c->lkprobot_url) {
				r[nr++] = "--lkprobot-url";
				r[nr++] = c->lkprobot_url;
			}
			if (metric) {
				r[nr++] = "--metric";
				r[nr++] = (char *)metric;
			}
			for (size_t k = 0; k < c->nfloors; k++) {
				r[nr++] = "--floor";
				r[nr++] = c->floors[k];
			}
			if (!strcmp(st, "ambiguous")) {
				/* the set, in the mail: the reader decides between the commits that could not be tested */
				const struct node *cand = node_get(js, "candidates"), *skip = node_get(js, "skipped");
				strbuf_addstr(&note, "Commits that cannot be tested keep lkprobot from naming one first bad "
						     "commit; it is one of:");
				for (size_t k = 0; cand && cand->type == NODE_SEQ && k < cand->n; k++) {
					const char *x = node_str(cand->vals[k]);
					bool skipped = false;
					for (size_t q = 0; x && skip && skip->type == NODE_SEQ && q < skip->n; q++)
						skipped |= node_str(skip->vals[q]) && !strcmp(node_str(skip->vals[q]), x);
					strbuf_addf(&note, "%s %.12s%s", k ? "," : "", x ? x : "?",
						    skipped ? " (cannot be tested)" : "");
				}
				strbuf_addf(&note, ". The one that can be tested, %.12s, is reported here, compared with "
						   "%.12s, the nearest commit found good.", culprit, parent);
				r[nr++] = "--note";
				r[nr++] = note.buf;
			}
			int rr = serve_child(r, &rout, &re);
			free(url);
			strbuf_rtrim(&rout);
			if (rout.len)
				strbuf_addstr(&rwhy, rout.buf);
			else
				child_reason(&re, &rwhy);
			say("%s %.12s: report: %s (exit %d)", tree, culprit, rwhy.buf, rr);
			/* a mail the server refused for good is a failed delivery, not "nothing to report" */
			const char *refused = !strncmp(rout.buf, "failed ", 7) ? rout.buf : strstr(rout.buf, "\nfailed ");
			/* a regression or improvement only when it is reported: the same decision said so */
			if (kind && (rr == 0 || refused)) {
				strbuf_addstr(result, ", \"kind\": ");
				json_emit_string(result, kind);
			}
			strbuf_addstr(result, ", \"culprit\": ");
			json_emit_string(result, culprit);
			strbuf_addstr(result, ", \"report\": ");
			json_emit_string(result, refused ? "delivery failed" : rr == 0 ? "queued" : rr == 1 ? "not sent" : "error");
			if (refused) {
				const char *colon = strstr(refused, ": ");
				const char *text = colon ? colon + 2 : refused;
				char *line = xstrndup(text, strcspn(text, "\n"));
				strbuf_addstr(result, ", \"mail_error\": ");
				json_emit_string(result, line);
				free(line);
			} else if (rr) {
				strbuf_addstr(result, ", \"report_why\": ");
				json_emit_string(result, rwhy.buf);
			}
			if (rr == 2)
				status = "failed";
			free(r);
			strbuf_release(&rout);
			strbuf_release(&re);
			strbuf_release(&rwhy);
			strbuf_release(&note);
		}
#undef ARG
		strbuf_addstr(result, "}");
		node_free(js);
		free(args);
		for (size_t k = 0; k < npargs; k++)
			free(pargs[k]);
		free(pargs);
		strbuf_release(&out);
		strbuf_release(&e);
		strbuf_release(&why);
	}
	strbuf_addstr(result, "]");
	return status;
}

/*
 * The base a head is tested against, chosen when it is tested: for base
 * last-tested, the branch's last head that was tested and measured before
 * it (not one that failed or did not build: a regression behind a broken
 * head is still found) when that is an ancestor, else the head's parent;
 * a configured revision stays. Appended to base; recorded in the store.
 */
static void head_base(const struct serve_conf *c, struct store *s, const struct node *h, int64_t id, struct strbuf *base)
{
	const char *tree = node_str(node_get(h, "tree")), *branch = node_str(node_get(h, "branch"));
	const char *head = node_str(node_get(h, "head")), *was = node_str(node_get(h, "base"));
	const struct tree_conf *t = tree_named(c, tree ? tree : "");
	struct strbuf err = STRBUF_INIT, last = STRBUF_INIT;
	struct gitrepo *repo = NULL;
	struct gitrepo_commit hc;

	strbuf_addstr(base, was ? was : "");
	if (!t || strcmp(t->base, "last-tested") || !head || gitrepo_open(&repo, t->path, &err))
		goto out;
	if (store_head_last_measured(s, tree, branch, id, &last, &err) == 1 && strcmp(last.buf, head) &&
	    gitrepo_is_ancestor(repo, last.buf, head, &err) == 1) {
		strbuf_reset(base);
		strbuf_add(base, last.buf, last.len);
	} else if (!gitrepo_commit_info(repo, head, &hc, &err)) {
		if (hc.nparents) {
			strbuf_reset(base);
			strbuf_addstr(base, hc.parents[0]);
		}
		gitrepo_commit_release(&hc);
	}
	if (base->len && (!was || strcmp(was, base->buf))) {
		say("%s %.12s: base %.12s (the last head tested and measured, or the parent), not %.12s", tree, head,
		    base->buf, was ? was : "");
		strbuf_reset(&err);
		if (store_head_set_base(s, id, base->buf, (int64_t)time(NULL), &err))
			say("%s", err.buf);
	}
out:
	gitrepo_close(repo);
	strbuf_release(&err);
	strbuf_release(&last);
}

/*
 * A run killed between writing its stats.json and recording it in the store
 * is complete on disk: record such runs (the service may have been killed
 * in that moment), as `lkprobot stats --reindex --missing` does.
 */
static void record_missing_runs(const struct serve_conf *c)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;

	if (n <= 0)
		return;
	exe[n] = '\0';
	char *args[] = { exe, "stats", "--reindex", c->result_root, "--missing", "--db", c->db, NULL };
	int rc = serve_child(args, &out, &e);
	strbuf_rtrim(&out);
	strbuf_rtrim(&e);
	if (rc || strncmp(out.buf, "0 result root", 13))
		say("runs complete on disk but not in the store: %s%s%s", out.buf, e.len ? "; " : "", e.buf);
	strbuf_release(&out);
	strbuf_release(&e);
}

/*
 * A head under test: a worker, a fork of the service, runs test_head and
 * writes "<status>\n<result>" on its stdout; the service starts the next
 * heads meanwhile. Its bisections' children are its own: SIGTERM to the
 * worker stops them (a Slurm bisection cancels its jobs), as a stopped
 * service or a head cancelled from the dashboard asks.
 */
struct worker {
	struct proc p;
	struct strbuf out;
	int64_t id;
	const struct tree_conf *t;
	const char *branch;
	bool here;			/* its provider runs here, not on a farm */
	double term_at;			/* when it was asked to stop (0: not) */
	bool cancelled;
};

struct worker_arg {
	const struct serve_conf *c;
	const char *config, *base;
	const struct node *h;
};

static int worker_main(void *arg)
{
	const struct worker_arg *a = arg;
	struct strbuf result = STRBUF_INIT;
	const char *st = test_head(a->c, a->config, a->h, a->base, &result);

	printf("%s\n%s", st, result.buf);
	fflush(stdout);
	strbuf_release(&result);
	return 0;
}

#define WORKER_GRACE 60		/* s from SIGTERM to SIGKILL: longer than its bisect child's own grace */

/* Stop a worker (SIGTERM: its bisection stops and cancels what it started), once. */
static void worker_stop(struct worker *w)
{
	if (!w->term_at) {
		proc_signal(&w->p, SIGTERM);
		w->term_at = proc_now();
	} else if (proc_now() - w->term_at > WORKER_GRACE) {
		proc_signal(&w->p, SIGKILL);
	}
}

/* The ids of the heads cancelled from the dashboard among those in ws. */
static void mark_cancelled(struct store *s, struct worker *ws, size_t n)
{
	struct node *heads = NULL;
	struct strbuf err = STRBUF_INIT;

	if (!store_heads(s, false, &heads, &err))
		for (size_t i = 0; i < heads->n; i++) {
			double id = 0;
			const char *st = node_str(node_get(heads->vals[i], "status"));
			json_number(node_get(heads->vals[i], "id"), &id);
			for (size_t k = 0; st && k < n; k++)
				if (ws[k].id == (int64_t)id && !strcmp(st, "cancelled") && !ws[k].cancelled) {
					ws[k].cancelled = true;
					say("%s %.12s: cancelled from the dashboard: its bisection is stopped",
					    node_str(node_get(heads->vals[i], "tree")), node_str(node_get(heads->vals[i], "head")));
				}
		}
	node_free(heads);
	strbuf_release(&err);
}

/*
 * One pass: the trees polled, then every head to do tested — several at
 * once (up to max_bisections) when their providers run on a farm (they
 * share its boxes: each bisection asks for its fair share), at most one
 * at a time whose provider runs here, and the heads of one branch in
 * their order (a head's base is the last head tested before it). Then
 * the outbox delivered.
 */
static int one_pass(const struct serve_conf *c, const char *config, struct store *s, struct strbuf *err)
{
	struct node *todo;
	struct mailconf mc;
	int ret = 0;

	if (poll_trees(c, s, err) || store_heads(s, true, &todo, err))
		return -1;
	bool *done = xcalloc(todo->n + 1, sizeof(bool));
	struct worker *ws = xcalloc(todo->n + 1, sizeof(*ws));
	struct worker_arg *args = xcalloc(todo->n + 1, sizeof(*args));
	char **bases = xcalloc(todo->n + 1, sizeof(char *));
	size_t nw = 0, running = 0;
	double looked = 0;

	for (;;) {
		bool here_busy = false;
		for (size_t k = 0; k < nw; k++)
			here_busy |= ws[k].here && ws[k].p.pid && !ws[k].p.ended;
		/* start what may start, in the queue's order */
		for (size_t i = 0; i < todo->n && !proc_stop_signal && running < (size_t)c->max_bisections; i++) {
			const struct node *h = todo->vals[i];
			const char *tree = node_str(node_get(h, "tree")), *branch = node_str(node_get(h, "branch"));
			const struct tree_conf *t = tree_named(c, tree ? tree : "");
			bool here = !t || !(t->ops->caps & PROVIDER_PARALLEL), before = false;
			if (done[i] || (here && here_busy))
				continue;
			for (size_t k = 0; k < i && !before; k++) {
				const char *kt = node_str(node_get(todo->vals[k], "tree"));
				const char *kb = node_str(node_get(todo->vals[k], "branch"));
				before = !done[k] && kt && kb && tree && branch && !strcmp(kt, tree) && !strcmp(kb, branch);
			}
			/* and one running of the branch: its result is the next one's base */
			for (size_t k = 0; k < nw && !before; k++)
				before = ws[k].p.pid && !ws[k].p.ended && ws[k].t == t && branch && ws[k].branch &&
					 !strcmp(ws[k].branch, branch);
			if (before)
				continue;	/* an earlier head of the branch first */
			double id = 0;
			json_number(node_get(h, "id"), &id);
			done[i] = true;
			int set = store_head_set(s, (int64_t)id, "testing", NULL, (int64_t)time(NULL), err);
			if (set < 0) {
				ret = -1;
				goto stop;
			}
			if (set == 1) {
				say("%s %.12s: cancelled from the dashboard", tree, node_str(node_get(h, "head")));
				continue;
			}
			struct strbuf base = STRBUF_INIT;
			head_base(c, s, h, (int64_t)id, &base);
			bases[nw] = strbuf_detach(&base);
			args[nw] = (struct worker_arg){ c, config, bases[nw], h };
			struct worker *w = &ws[nw++];
			w->id = (int64_t)id;
			w->t = t;
			w->branch = branch;
			w->here = here;
			/* a fork of the service: its handlers too (SIGTERM stops its bisection) */
			w->p = (struct proc){ .fn = worker_main, .arg = &args[nw - 1], .keep_signals = true, .in = PROC_NULL,
					      .out = PROC_CAPTURE, .capture = &w->out, .death_sig = SIGKILL };
			if (proc_start(&w->p, err)) {
				ret = -1;
				goto stop;
			}
			running++;
			here_busy |= here;
		}
		if (!running)
			break;
		/* wait a little, collect what ended; stop what is cancelled */
		bool ended = false;
		for (size_t k = 0; k < nw; k++) {
			struct worker *w = &ws[k];
			if (!w->p.pid || w->p.ended)
				continue;
			if (proc_stop_signal || w->cancelled)
				worker_stop(w);
			struct strbuf e = STRBUF_INIT;
			int rc = proc_wait_for(&w->p, ended ? 0 : 0.2 / (double)running, &e);
			strbuf_release(&e);
			if (rc == PROC_RUNNING)
				continue;
			ended = true;
			running--;
			const char *nl = strchr(w->out.buf, '\n');
			if (proc_stop_signal && !w->cancelled)
				continue;	/* interrupted: it stays to do, and the next service goes on from the runs made */
			char *st = nl ? xstrndup(w->out.buf, (size_t)(nl - w->out.buf)) : NULL;
			const char *result = nl ? nl + 1 : NULL;
			char *why = NULL;
			if (!st) {
				char buf[32];
				why = xasprintf("{\"error\": \"the head's worker ended (%s) without a result\"}",
						proc_status_text(rc, buf));
			}
			if (store_head_set(s, w->id, st ? st : "failed", st ? result : why, (int64_t)time(NULL), err) < 0)
				ret = -1;
			free(st);
			free(why);
			if (ret)
				goto stop;
		}
		if (proc_now() - looked >= 1) {
			looked = proc_now();
			mark_cancelled(s, ws, nw);
		}
	}
stop:
	/* what still runs is stopped (a store error, a signal): the heads stay to do */
	for (size_t k = 0; k < nw; k++) {
		struct worker *w = &ws[k];
		while (w->p.pid && !w->p.ended) {
			struct strbuf e = STRBUF_INIT;
			worker_stop(w);
			proc_wait_for(&w->p, 1, &e);
			strbuf_release(&e);
		}
		strbuf_release(&w->out);
		free(bases[k]);
	}
	free(ws);
	free(args);
	free(bases);
	free(done);
	node_free(todo);
	if (ret || proc_stop_signal)
		return ret;
	/* what the reports queued, and what waits for a retry */
	if (!mailconf_load(&mc, config, err)) {
		FILE *log = stderr;
		long left = outbox_deliver(s, c->db, &mc, 0, log, err);
		if (left < 0)
			say("outbox: %s", err->buf);
		mailconf_release(&mc);
	}
	strbuf_reset(err);
	return 0;
}

int cmd_serve(int argc, char **argv, struct lkp_ctx *ctx)
{
	const char *config = NULL, *listen = NULL, *accel = NULL;
	bool once = false, json = false;
	const struct opt table[] = {
		OPT_STRING('c', "config", "FILE", "the configuration (serve: and mail: sections)", &config),
		OPT_BOOL(0, "once", "serve: one pass, then stop", &once),
		OPT_STRING(0, "listen", "HOST:PORT",
			   "serve: the dashboard (HTML, and JSON under /api/), on an\n"
			   "address, a name or [IPv6] (localhost:8080, [::1]:8080):\n"
			   "per tree and branch each head's state, queue,\n"
			   "machines, heads, commits, compare, metric history,\n"
			   "bisections, report mails, the result roots' files;\n"
			   "actions (retest, cancel, resend) with the token",
			   &listen),
		OPT_STRING(0, "accel", "A", "serve: qemu's kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto)", &accel),
		OPT_BOOL(0, "json", "status: as JSON", &json),
		OPT_END(),
	};
	struct web *web = NULL;
	struct serve_conf conf;
	struct strbuf err = STRBUF_INIT, head = STRBUF_INIT;
	struct store *s = NULL;
	int ret;

	usage_head_make(&head);
	ret = opt_parse(ctx->cmd, argc, argv, table, head.buf, usage_tail, false);
	strbuf_release(&head);
	if (ret != OPT_GO)
		return ret;
	if (!config || optind != argc)
		return cmd_error(EXIT_USAGE, "%s needs -c FILE (and nothing else); see 'lkprobot serve --help'", ctx->cmd);
	if (json && strcmp(ctx->cmd, "status"))
		return cmd_error(EXIT_USAGE, "--json is an option of 'lkprobot status'; see 'lkprobot serve --help'");
	/* the bisections it starts inherit the choice (LKPROBOT_ACCEL) */
	if (accel && qemu_accel_option(accel, &err)) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	if (serve_conf_load(&conf, config, &err) || lkpetc_load(&err)) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	if (!strcmp(ctx->cmd, "check-config")) {
		struct mailconf mc;
		if (mailconf_load(&mc, config, &err))
			ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		else {
			printf("%s: %zu tree%s, mail %s\n", config, conf.ntrees, conf.ntrees == 1 ? "" : "s",
			       mc.live ? "live" : "a dry run (to the operator only)");
			mailconf_release(&mc);
			ret = EXIT_OK;
		}
		goto out;
	}
	if (fsutil_mkdir_p(conf.result_root) || !(s = store_open(conf.db, &err))) {
		ret = cmd_error(EXIT_FAIL, "%s", err.len ? err.buf : "cannot create the result root");
		goto out;
	}
	if (!strcmp(ctx->cmd, "status")) {
		struct node *heads;
		if (store_heads(s, false, &heads, &err)) {
			ret = cmd_error(EXIT_FAIL, "%s", err.buf);
			goto out;
		}
		for (size_t i = 0; i < heads->n && json; i++) {
			/* the result is data, not text inside the JSON */
			const char *r = node_str(node_get(heads->vals[i], "result"));
			struct node *rj = r ? json_parse(r, strlen(r), "result", &err) : NULL;
			node_set(heads->vals[i], "result", rj ? rj : node_new(NODE_NULL));
			strbuf_reset(&err);
		}
		if (json) {
			struct strbuf out = STRBUF_INIT;
			json_emit(&out, heads);
			printf("%s\n", out.buf);
			strbuf_release(&out);
		}
		for (size_t i = 0; i < heads->n && !json; i++) {
			const struct node *h = heads->vals[i];
			const char *r = node_str(node_get(h, "result"));
			printf("%s %s %.12s (base %.12s) %s%s%s\n", node_str(node_get(h, "tree")),
			       node_str(node_get(h, "branch")), node_str(node_get(h, "head")), node_str(node_get(h, "base")),
			       node_str(node_get(h, "status")), r ? " " : "", r ? r : "");
		}
		node_free(heads);
		ret = EXIT_OK;
		goto out;
	}
	/* the providers whose boxes the dashboard shows: one inventory each (the first tree's settings) */
	struct web_inventory *inv = xcalloc(conf.ntrees + 1, sizeof(*inv));
	struct provider_config *invcfg = xcalloc(conf.ntrees + 1, sizeof(*invcfg));
	size_t ninv = 0;
	for (size_t i = 0; i < conf.ntrees; i++) {
		bool seen = !conf.trees[i].ops->inventory;
		for (size_t k = 0; k < ninv && !seen; k++)
			seen = inv[k].ops == conf.trees[i].ops;
		if (seen)
			continue;
		invcfg[ninv] = (struct provider_config){ .result_dir = conf.result_root, .cache = conf.cache, .db = conf.db,
							 .data_dir = ctx->data_dir, .opts = conf.trees[i].opts };
		inv[ninv] = (struct web_inventory){ conf.trees[i].ops, &invcfg[ninv] };
		ninv++;
	}
	/* the dashboard knows the trees: commit pages, subjects, one history series a tree */
	struct web_tree *wt = xcalloc(conf.ntrees + 1, sizeof(*wt));
	for (size_t i = 0; i < conf.ntrees; i++)
		wt[i] = (struct web_tree){ conf.trees[i].name, conf.trees[i].path,
					   (const char *const *)conf.trees[i].branches, conf.trees[i].nbranches };
	struct web_opts wo = { .addr = listen, .db = conf.db, .result_root = conf.result_root, .token = conf.token,
			       .inventories = inv, .ninventories = ninv, .trees = wt, .ntrees = conf.ntrees,
			       .public_url = conf.public_url };
	web = listen ? web_start(&wo, &err) : NULL;
	free(wt);
	free(inv);
	free(invcfg);
	if (listen && !web) {
		ret = cmd_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (web)
		say("the dashboard is at http://%s/%s%s (%s)", listen, conf.public_url ? ", for readers " : "",
		    conf.public_url ? conf.public_url : "", conf.token ? "actions need the token" : "read-only");
	struct sigaction sa = { 0 };
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	proc_catch_stop(NULL);
	record_missing_runs(&conf);
	say("watching %zu tree%s (%s), every %ld s", conf.ntrees, conf.ntrees == 1 ? "" : "s", config, conf.poll);
	ret = EXIT_OK;
	while (!proc_stop_signal) {
		if (one_pass(&conf, config, s, &err)) {
			say("%s", err.buf);
			ret = EXIT_FAIL;
			break;
		}
		if (once)
			break;
		for (long i = 0; i < conf.poll && !proc_stop_signal && !reload_asked; i++)
			sleep(1);
		if (reload_asked) {
			struct serve_conf fresh;
			reload_asked = 0;
			if (serve_conf_load(&fresh, config, &err)) {
				say("SIGHUP: %s; keeping the configuration in use", err.buf);
				strbuf_reset(&err);
			} else {
				serve_conf_release(&conf);
				conf = fresh;
				say("SIGHUP: configuration read again (%zu trees)", conf.ntrees);
			}
		}
	}
	say("stopped");
out:
	web_stop(web);
	if (s)
		store_close(s);
	serve_conf_release(&conf);
	strbuf_release(&err);
	return ret;
}

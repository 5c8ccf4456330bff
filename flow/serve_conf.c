/*
 * serve_conf: the service's configuration, the serve: section and its
 * trees, read by their tables (lib/util/conf.h); what a table cannot say —
 * the token file, a tree's repository and job files, its provider's
 * settings (the provider's own table) — is checked here after it. See
 * serve.h.
 */
#include "flow.h"
#include "../lib/util/say.h"
#include "serve.h"
#include "../lib/store/store.h"
#include "../lib/kernel/git.h"
#include "../lib/results/compare.h"
#include "../lib/util/conf.h"
#include "../lib/job/engine.h"
#include "../lib/job/job.h"
#include "jobopts.h"
#include "lists.h"
#include "../web/web.h"
#include "../mail/maildir.h"
#include "../mail/mime.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SERVE "serve."

static bool serve_provider_key(const char *key)
{
	return provider_conf_key(key, PROVIDER_OPT_SERVE);
}

static bool tree_provider_key(const char *key)
{
	return provider_conf_key(key, PROVIDER_OPT_TREE);
}

/* a URL git can clone: one word, no control character (it is pasted into a shell) */
/* layout_check: off, or a power of two from 2 to 4096 (-falign-functions=N) */
static int align_check(const char *v, struct strbuf *err)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (!strcmp(v, "off") || (*v && !*end && n >= 2 && n <= 4096 && !(n & (n - 1))))
		return 0;
	strbuf_setf(err, "'%s' is not off or a power of two from 2 to 4096", v);
	return -1;
}

static int clone_url_check(const char *u, struct strbuf *err)
{
	(void)err;
	return strpbrk(u, " \t\r\n'\"`$;&|<>") || u[0] == '-' ? -1 : 0;
}

/* a mail address (a list's): "list@host" or "Name <list@host>" */
static int address_check(const char *a, struct strbuf *err)
{
	char *spec = mime_addr_spec(a, err);

	free(spec);
	return spec ? 0 : -1;
}

static int fetch_url_check(const char *url, struct strbuf *err)
{
	static const char *const schemes[] = { "https://", "http://", "git://", "ssh://", "file://", NULL };
	bool known = *url == '/';

	(void)err;
	for (const char *const *sch = schemes; *sch; sch++)
		known |= !strncmp(url, *sch, strlen(*sch));
	return known ? 0 : -1;
}

#define S(member) CONF_FIELD(struct serve_conf, member)
static const struct conf_key serve_keys[] = {
	{ "result_root", CONF_STRING, S(result_root), .def = STORE_RESULT_ROOT,
	  .help = "where the runs go (and the store, lkprobot.db)" },
	{ "cache", CONF_STRING, S(cache),
	  .help = "work trees and kernels (default: bisect's, $LKPROBOT_CACHE, else /var/cache/lkprobot)" },
	{ "db", CONF_NODE, .form = "a file", .help = "the store (default: lkprobot.db in result_root)" },
	{ "poll", CONF_NUMBER, S(poll), .def = "60", .min = 1, .max = LONG_MAX,
	  .what = "must be a positive number of seconds", .help = "seconds between looks at the trees" },
	{ "web_token_file", CONF_NODE, .form = "a file",
	  .help = "the dashboard's actions (retest, cancel, resend) need its token: one line, 16 characters or more" },
	{ "report_improvements", CONF_BOOL, S(report_improvements), .def = "true",
	  .help = "mail the culprit of an improvement too (false: record it only)" },
	{ "report_unrestored", CONF_BOOL, S(report_unrestored), .def = "false",
	  .help = "mail a culprit whose revert on top of the head does not restore the metric (false: record it "
		  "only)" },
	{ "public_url", CONF_STRING, S(public_url), .check = web_url_check,
	  .what = "must be the dashboard's URL (https://...)",
	  .help = "where readers reach the dashboard: the mails link their bisection there (url:)" },
	{ "lkprobot_url", CONF_STRING, S(lkprobot_url), .check = clone_url_check,
	  .what = "must be a URL git can clone lkprobot from (one word)",
	  .help = "where readers get lkprobot (the mails' \"To reproduce\")" },
	{ "change_floor", CONF_PERCENT_MAP, S(floors), .flags = CONF_COUNTED,
	  .count_off = offsetof(struct serve_conf, nfloors),
	  .help = "the smallest change worth a report, per metric or glob (default 1% for perf metrics, else 5%)" },
	{ "max_bisections", CONF_NUMBER, S(max_bisections), .def = "4", .min = 1, .max = 64,
	  .what = "must be a number of heads from 1 to 64",
	  .help = "heads tested at once when their provider runs on a farm (slurm), sharing its boxes; others singly" },
	{ "trees", CONF_NODE, .form = "a list of trees", .help = "the trees to watch (their keys below)" },
	{ "lists", CONF_NODE, .form = "a list of mailing lists",
	  .help = "the mailing lists whose patch series are tested before they are merged (their keys below)" },
	{ "series_repo", CONF_STRING, S(series_repo), .form = "a directory",
	  .help = "the robot's own bare repository of applied series (default: series.git in cache, else "
		  "result_root)" },
	{ "series_url", CONF_STRING, S(series_url), .check = clone_url_check,
	  .what = "must be a URL git can clone series_repo from (one word)",
	  .help = "where readers fetch series_repo: a series' report says url: <series_url> <branch> (default with "
		  "serve --listen: the dashboard's <public_url or http://LISTEN>/git/<series_repo's name>)" },
	{ "series_wait", CONF_NUMBER, S(series_wait), .def = "3600", .min = 0, .max = LONG_MAX,
	  .what = "must be a number of seconds",
	  .help = "how long a series missing parts waits after its newest mail" },
	{ "maildir", CONF_STRING, S(maildir), .form = "a directory",
	  .help = "the robot's own mailbox, a Maildir (new mail in PATH/new as an MDA delivers it): replies to its "
		  "reports "
		  "are read there at every pass, their #lkprobot commands acted on" },
	{ "maintainers", CONF_LIST, S(maintainers), .flags = CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct serve_conf, nmaintainers),
	  .help = "addresses whose #lkprobot commands are taken for any report (else only the report's To and Cc)" },
	{ .type = CONF_OTHERS, .match = serve_provider_key, .help = "the providers' settings for all their trees" },
	{ 0 },
};
#undef S

#define T(member) CONF_FIELD(struct tree_conf, member)
static const struct conf_key tree_keys[] = {
	{ "name", CONF_STRING, T(name),
	  .help = "the tree's name (default: its path; a tree with a url needs one of letters, digits, . _ -)" },
	{ "path", CONF_STRING, T(path), .form = "a directory",
	  .help = "a local repository (fetched into by others); a tree has a path or a url" },
	{ "url", CONF_STRING, T(url), .check = fetch_url_check,
	  .what = "not a repository address lkprobot fetches from (https://, git://, ssh://, file:// or /path)",
	  .form = "https://, http://, git://, ssh://, file:// or /path",
	  .help = "fetched with libgit2 into <cache>/mirrors/<name>.git at every poll" },
	{ "fetch_timeout", CONF_NUMBER, T(fetch_stall), .def = "300", .min = 1, .max = 86400,
	  .what = "must be a number of seconds from 1 to 86400",
	  .help = "url: seconds a poll's fetch may receive nothing from the server before it is given up (skipped that "
		  "poll); a fetch that moves runs on, up to 12 hours" },
	{ "branches", CONF_LIST, T(branches), .flags = CONF_REQUIRED | CONF_NONEMPTY | CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct tree_conf, nbranches), .help = "the branches whose heads are tested" },
	{ "base", CONF_STRING, T(base), .def = "last-tested", .help = "last-tested, parent, or a revision (v6.1)" },
	{ "jobs", CONF_LIST, T(jobs), .flags = CONF_REQUIRED | CONF_NONEMPTY | CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct tree_conf, njobs), .help = "the job files each head runs" },
	{ "provider", CONF_STRING, T(provider), .def = "local",
	  .help = "where the jobs run: local, qemu, slurm or ssh (their settings below)" },
	{ "kconfig", CONF_STRING, T(kconfig), .help = "the kernel's config (qemu, ssh)" },
	{ "layout_check", CONF_STRING, T(layout_check), .def = "32", .check = align_check, .form = "N or off",
	  .help = "qemu, ssh: a culprit and its parent rebuilt with -falign-functions=N and run again (off: not)" },
	{ .type = CONF_OTHERS, .match = tree_provider_key, .help = "the settings of the tree's provider (below)" },
	{ 0 },
};
#undef T

#define L(member) CONF_FIELD(struct list_conf, member)
static const struct conf_key list_keys[] = {
	{ "name", CONF_STRING, L(name), .flags = CONF_REQUIRED,
	  .help = "the list's name (letters, digits, . _ -): its series in the store and on the dashboard" },
	{ "archive", CONF_STRING, L(archive), .form = "a directory",
	  .help = "its public-inbox v2 archive (git/0.git, git/1.git ...), read with libgit2 at every poll (a list has "
		  "an "
		  "archive or a maildir)" },
	{ "maildir", CONF_STRING, L(maildir), .form = "a directory",
	  .help = "instead of an archive: a Maildir the list's mail is delivered to (new/ read at every poll, each "
		  "mail "
		  "moved to cur/ once read)" },
	{ "tree", CONF_STRING, L(tree), .flags = CONF_REQUIRED,
	  .help = "the tree of serve.trees (its name) the list's patches apply to" },
	{ "url", CONF_STRING, L(url), .def = "https://lore.kernel.org/r", .check = clone_url_check,
	  .what = "must be a URL (one word)",
	  .help = "the archive's public address: each applied patch gets Link: <url>/<Message-ID> (its report replies "
		  "to it)" },
	{ "address", CONF_STRING, L(address), .check = address_check, .what = "must be a mail address",
	  .help = "the list's mail address: Cc of each report on its series (none: the list is not copied)" },
	{ "branch", CONF_STRING, L(branch),
	  .help = "the base when a series names none (base-commit:): its head at the series' date (default: the "
		  "tree's first branch)" },
	{ "mail_not_applied", CONF_BOOL, L(mail_not_applied), .def = "false",
	  .help = "mail the author of a series that does not apply a one-line notice (its first failing patch, file "
		  "and hunk), in reply to that patch, by the mail: rules (a dry run goes to the operator)" },
	{ 0 },
};
#undef L

void serve_conf_doc(struct strbuf *out)
{
	strbuf_addstr(out,
		      "## serve:\n\n"
		      "The service's section (`lkprobot serve`, `status`, `check-config`; `outbox` and\n"
		      "`report --send` find the service's store through it).\n\n");
	conf_doc(out, serve_keys);
	strbuf_addstr(out, "\n### serve.trees: each tree\n\n");
	conf_doc(out, tree_keys);
	strbuf_addstr(out, "\n### serve.lists: each mailing list\n\n");
	conf_doc(out, list_keys);
	strbuf_addstr(out,
		      "\n### The providers' settings\n\n"
		      "A tree's provider takes its settings in the tree, or in `serve:` for all its\n"
		      "trees (where the table says); another provider's key in a tree is an error.\n\n");
	provider_conf_doc(out);
}

void serve_conf_floors(const struct serve_conf *c, struct compare_floors *f)
{
	struct strbuf e = STRBUF_INIT;

	for (size_t k = 0; k < c->nfloors; k++)
		if (compare_floors_add(f, c->floors[k], &e))
			strbuf_reset(&e); /* checked when the configuration was read */
	strbuf_release(&e);
}

void serve_conf_release(struct serve_conf *c)
{
	for (size_t i = 0; i < c->ntrees; i++) {
		conf_release(tree_keys, &c->trees[i]);
		provider_options_free(c->trees[i].opts);
	}
	free(c->trees);
	for (size_t i = 0; i < c->nlists; i++)
		conf_release(list_keys, &c->lists[i]);
	free(c->lists);
	conf_release(serve_keys, c);
	free(c->path);
	free(c->db);
	free(c->token);
	memset(c, 0, sizeof(*c));
}

/* The store of a serve: section: serve.db, else lkprobot.db in serve.result_root. */
static char *store_of(const struct node *s)
{
	const char *db = node_str(node_get(s, "db")), *root = node_str(node_get(s, "result_root"));
	return store_default_path(db, root);
}

char *serve_store_path(const char *file, struct strbuf *err)
{
	struct node *doc = conf_load_file(file, err);
	char *db = NULL;

	if (doc && node_get(doc, "serve") && node_get(doc, "serve")->type == NODE_MAP)
		db = store_of(node_get(doc, "serve"));
	node_free(doc);
	return db;
}

/* web_token_file: one line of at least 16 characters. */
static int read_token(struct serve_conf *c, const char *file, const struct node *tf, struct strbuf *err)
{
	struct strbuf tok = STRBUF_INIT;
	const char *path = node_str(tf);

	if (!tf)
		return 0;
	struct strbuf e = STRBUF_INIT;
	if (!path || strbuf_read_bounded(&tok, path, 64 << 10, &e)) {
		char *why = xasprintf("cannot read the token file '%s': %s", path ? path : "",
				      errno == EFBIG	? "more than 64 KiB"
				      : errno == EINVAL ? "not a regular file"
							: strerror(errno));
		conf_error(err, file, tf, SERVE, "web_token_file", why);
		free(why);
		strbuf_release(&tok);
		strbuf_release(&e);
		return -1;
	}
	strbuf_release(&e);
	strbuf_rtrim(&tok);
	if (tok.len < 16 || strchr(tok.buf, '\n')) {
		strbuf_release(&tok);
		return conf_error(
			err, file, tf, SERVE, "web_token_file",
			"the token must be one line of at least 16 characters (head -c 24 /dev/urandom | base64)");
	}
	c->token = strbuf_detach(&tok);
	return 0;
}

/* Where a tree's commits are: its path, or for a url its mirror in the cache, named by the tree. */
static int tree_where(const struct serve_conf *c, struct tree_conf *tc, const char *file, const struct node *t,
		      struct strbuf *err)
{
	const char *v = tc->name;

	if (!tc->url == !tc->path)
		return conf_error(err, file, t, SERVE, "trees.path",
				  "every tree needs either the path of a local repository or the url to fetch from");
	if (tc->url) {
		if (!v || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(v) ||
		    *v == '.')
			return conf_error(err, file, node_get(t, "name") ? node_get(t, "name") : t, SERVE, "trees.name",
					  "a tree with a url needs a name of letters, digits, '.', '_' and '-' (its "
					  "mirror's directory)");
		tc->path = xasprintf("%s/mirrors/%s.git", c->cache ? c->cache : c->result_root, v);
	}
	if (!tc->name)
		tc->name = xstrdup(tc->path);
	return 0;
}

/* The tree's provider, and its settings of serve: and of the tree, checked by its table. */
static int tree_provider(struct tree_conf *tc, const char *file, const struct node *s, const struct node *t,
			 struct strbuf *err)
{
	const char *pkey = NULL;
	const struct node *at = NULL;

	if (!(tc->ops = provider_find(tc->provider))) {
		struct strbuf names = STRBUF_INIT;
		provider_names(&names, " or ");
		char *why = xasprintf("must be %s", names.buf);
		conf_error(err, file, node_get(t, "provider"), SERVE, "trees.provider", why);
		free(why);
		strbuf_release(&names);
		return -1;
	}
	tc->opts = provider_options_new(tc->ops);
	if (!provider_conf_apply(tc->opts, s, t, &pkey, &at, err))
		return 0;
	char *why = strbuf_detach(err), *key = xasprintf("%s%s", node_get(t, pkey) || !at ? "trees." : "", pkey);
	conf_error(err, file, at ? at : node_get(t, "provider") ? node_get(t, "provider") : t, SERVE, key, why);
	free(key);
	free(why);
	return -1;
}

/*
 * The tree's repository (a path: it must be one; a url: its mirror, once
 * a fetch into it has worked) has each branch the service watches: a branch it lacks
 * would be "skipped this time" at every poll. A path that is no repository
 * says what to change. 0, or -1 with one line in err.
 */
static int tree_repo_check(const struct tree_conf *tc, const char *file, const struct node *t, struct strbuf *err)
{
	struct gitrepo *repo;

	if (tc->url && access(tc->path, F_OK))
		return 0; /* not fetched yet: its branches are known at the first poll */
	if (gitrepo_open(&repo, tc->path, err)) {
		char *why = xasprintf(
			"%s; set path: to a clone of the tree (git clone URL %s), or give url: instead "
			"for lkprobot to fetch it",
			err->buf, tc->path);
		conf_error(err, file, node_get(t, tc->url ? "url" : "path"), SERVE,
			   tc->url ? "trees.url" : "trees.path", why);
		free(why);
		return -1;
	}
	if (tc->url && !gitrepo_count_refs(repo, "refs/heads/*")) {
		gitrepo_close(repo);
		return 0; /* made, but no fetch into it has worked yet (a server that did not answer) */
	}
	const struct node *bl = node_get(t, "branches");
	int ret = 0;
	for (size_t b = 0; b < tc->nbranches && !ret; b++) {
		char id[GITREPO_HEXSZ + 1];
		struct strbuf e = STRBUF_INIT;
		if (!gitrepo_resolve(repo, tc->branches[b], id, &e)) {
			strbuf_release(&e);
			continue;
		}
		char *why = xasprintf("'%s' is not a branch of %s; give one it has (git -C %s branch -a lists them)",
				      tc->branches[b], tc->path, tc->path);
		ret = conf_error(err, file, bl && bl->type == NODE_SEQ && b < bl->n ? bl->vals[b] : bl, SERVE,
				 "trees.branches", why);
		free(why);
		strbuf_release(&e);
	}
	gitrepo_close(repo);
	return ret;
}

/* One tree of the list: its keys, where it is, its provider, its repository and job files there. */
static int tree_load(const struct serve_conf *c, struct tree_conf *tc, const char *file, const struct node *s,
		     const struct node *t, struct strbuf *err)
{
	if (t->type != NODE_MAP)
		return conf_error(err, file, t, SERVE, "trees", "each tree is a map (name, path, branches, jobs, ...)");
	if (conf_read(t, tree_keys, tc, file, SERVE "trees.", err) || tree_where(c, tc, file, t, err) ||
	    tree_provider(tc, file, s, t, err))
		return -1;
	if (tree_repo_check(tc, file, t, err))
		return -1;
	for (size_t k = 0; k < tc->njobs; k++)
		if (access(tc->jobs[k], R_OK)) {
			char *why = xasprintf("cannot read the job file '%s': %s; give the path of a job file",
					      tc->jobs[k], strerror(errno));
			conf_error(err, file, node_get(t, "jobs"), SERVE, "trees.jobs", why);
			free(why);
			return -1;
		}
	return 0;
}

/* One list of serve.lists: its keys, its name, its archive, its tree of serve.trees and the branch there. */
static int list_load(const struct serve_conf *c, struct list_conf *lc, const char *file, const struct node *l,
		     struct strbuf *err)
{
	const char *ok = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
	struct strbuf e = STRBUF_INIT;

	if (l->type != NODE_MAP)
		return conf_error(err, file, l, SERVE, "lists", "each list is a map (name, archive, tree, branch)");
	if (conf_read(l, list_keys, lc, file, SERVE "lists.", err))
		return -1;
	if (strspn(lc->name, ok) != strlen(lc->name) || *lc->name == '.')
		return conf_error(err, file, node_get(l, "name"), SERVE, "lists.name",
				  "a list's name is letters, digits, '.', '_' and '-'");
	if (!lc->archive == !lc->maildir)
		return conf_error(err, file, l, SERVE, "lists.archive",
				  "a list needs either its public-inbox archive (archive:) or a Maildir (maildir:)");
	if (lc->maildir && !maildir_is(lc->maildir))
		return conf_error(err, file, node_get(l, "maildir"), SERVE, "lists.maildir",
				  "is not a Maildir (new/ and cur/ in it); give the Maildir the list is delivered to");
	if (lc->maildir)
		lc->archive = xstrdup(lc->maildir); /* the list's mails are read from there */
	else if (lists_check_archive(lc->archive, &e)) {
		conf_error(err, file, node_get(l, "archive"), SERVE, "lists.archive", e.buf);
		strbuf_release(&e);
		return -1;
	}
	for (size_t t = 0; t < c->ntrees && !lc->tc; t++)
		if (!strcmp(c->trees[t].name, lc->tree))
			lc->tc = &c->trees[t];
	if (!lc->tc)
		return conf_error(err, file, node_get(l, "tree"), SERVE, "lists.tree",
				  "names no tree of serve.trees; give the name of one");
	for (size_t t = 0; t < c->ntrees; t++)
		if (!strcmp(c->trees[t].name, lc->name))
			return conf_error(
				err, file, node_get(l, "name"), SERVE, "lists.name",
				"is the name of a tree too (the service's heads are named by either); give another");
	for (size_t k = 0; k + 1 < c->nlists; k++)
		if (!strcmp(c->lists[k].name, lc->name))
			return conf_error(err, file, node_get(l, "name"), SERVE, "lists.name", "names two lists");
	if (!lc->branch)
		lc->branch = xstrdup(lc->tc->branches[0]);
	struct tree_conf *st = &lc->series_tree;
	*st = *lc->tc;
	st->name = lc->name;
	st->path = c->series_repo;
	st->url = c->series_url;
	st->base = "parent"; /* each series' base is its own, recorded with its head */
	st->branches = NULL;
	st->nbranches = 0;
	return 0;
}

/* serve.lists (none is fine) and where the applied series go. */
static int lists_load(struct serve_conf *c, const char *file, const struct node *s, struct strbuf *err)
{
	const struct node *lists = node_get(s, "lists");

	if (!c->series_repo)
		c->series_repo = xasprintf("%s/series.git", c->cache ? c->cache : c->result_root);
	if (!lists)
		return 0;
	if (lists->type != NODE_SEQ)
		return conf_error(err, file, lists, SERVE, "lists", "must be a list of mailing lists");
	c->lists = xcalloc(lists->n + 1, sizeof(*c->lists));
	for (size_t i = 0; i < lists->n; i++)
		if (list_load(c, &c->lists[c->nlists++], file, lists->vals[i], err))
			return -1;
	return 0;
}

/* One job file as `run` and the service's bisections read it: atomic jobs lkprobot runs (job_check, engine_check). */
static int job_file_check(char *job, const char *data_dir, struct strbuf *err)
{
	struct jobopts jo;
	struct job_env env;
	struct atomic_list l = { 0 };
	int r;

	jobopts_init(&jo);
	r = jobopts_add(&jo, job, err) || jobopts_lkp_src(&jo, err);
	if (!r) {
		jobopts_env(&jo, data_dir, &env);
		env.warn = NULL; /* its warnings are run's and the bisections' to give */
		r = jobopts_atomic_jobs(&jo, &env, &l, err);
	}
	for (size_t i = 0; !r && i < l.n; i++)
		r = engine_check(l.v[i], err);
	jobopts_atomic_release(&l);
	jobopts_release(&jo);
	return r ? -1 : 0;
}

int serve_conf_check_jobs(const struct serve_conf *c, struct strbuf *err)
{
	for (size_t t = 0; t < c->ntrees; t++)
		for (size_t k = 0; k < c->trees[t].njobs; k++) {
			struct strbuf e = STRBUF_INIT;

			if (!job_file_check(c->trees[t].jobs[k], c->data_dir, &e)) {
				strbuf_release(&e);
				continue;
			}
			strbuf_setf(err, "%s: serve.trees.jobs of %s: %s", c->path, c->trees[t].name, e.buf);
			strbuf_release(&e);
			return -1;
		}
	return 0;
}

int serve_conf_load(struct serve_conf *c, const char *file, struct strbuf *err)
{
	struct node *doc;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->path = xstrdup(file);
	if (!(doc = conf_load_file(file, err)))
		goto out;
	const struct node *s = node_get(doc, "serve");
	if (!s || s->type != NODE_MAP) {
		conf_error(err, file, s, SERVE, NULL,
			   "the configuration has no serve: map (see 'lkprobot serve --help')");
		goto out;
	}
	if (conf_read(s, serve_keys, c, file, SERVE, err) || read_token(c, file, node_get(s, "web_token_file"), err))
		goto out;
	c->db = store_of(s);
	const struct node *trees = node_get(s, "trees");
	if (!trees || trees->type != NODE_SEQ || !trees->n) {
		conf_error(err, file, trees ? trees : s, SERVE, "trees",
			   "must be a list of trees to watch (at least one)");
		goto out;
	}
	c->trees = xcalloc(trees->n, sizeof(*c->trees));
	for (size_t i = 0; i < trees->n; i++)
		if (tree_load(c, &c->trees[c->ntrees++], file, s, trees->vals[i], err))
			goto out;
	if (lists_load(c, file, s, err))
		goto out;
	if (c->maildir && !maildir_is(c->maildir)) {
		char *why = xasprintf("'%s' is not a Maildir (new/ and cur/ in it; mkdir -p %s/new %s/cur %s/tmp)",
				      c->maildir, c->maildir, c->maildir, c->maildir);
		conf_error(err, file, node_get(s, "maildir"), SERVE, "maildir", why);
		free(why);
		goto out;
	}
	ret = 0;
out:
	node_free(doc);
	if (ret)
		serve_conf_release(c); /* nothing for the caller to release */
	return ret;
}

void serve_conf_series_url(struct serve_conf *c, const char *base)
{
	const char *name = c->series_repo ? strrchr(c->series_repo, '/') : NULL;

	if (!base || !c->nlists || c->series_url || !c->series_repo)
		return;
	size_t bl = strlen(base);
	while (bl && base[bl - 1] == '/')
		bl--;
	c->series_url = xasprintf("%.*s/git/%s", (int)bl, base, name ? name + 1 : c->series_repo);
	for (size_t i = 0; i < c->nlists; i++)
		c->lists[i].series_tree.url = c->series_url;
}

/*
 * lists: a public-inbox archive read into series, and a series applied in
 * the robot's repository. See lists.h.
 */
#include "lists.h"
#include "../lib/kernel/git.h"
#include "../lib/store/store.h"
#include "../mail/maildir.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The epochs of an archive, git/N.git, in order: their numbers; -1 with err when it has none. */
static int epochs(const char *dir, int **out, size_t *n, struct strbuf *err)
{
	char *git = xasprintf("%s/git", dir);
	DIR *d = opendir(git);
	struct dirent *e;

	*out = NULL;
	*n = 0;
	if (!d) {
		strbuf_setf(err,
			    "'%s': not a public-inbox v2 archive (no git/ in it: %s); give the directory "
			    "public-inbox-init -V2 made",
			    dir, strerror(errno));
		free(git);
		return -1;
	}
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		if (end == e->d_name || strcmp(end, ".git") || v < 0 || v > 100000)
			continue;
		*out = xrealloc(*out, (*n + 1) * sizeof(**out));
		size_t k = (*n)++;
		for (; k && (*out)[k - 1] > v; k--)
			(*out)[k] = (*out)[k - 1];
		(*out)[k] = (int)v;
	}
	closedir(d);
	free(git);
	if (!*n) {
		strbuf_setf(err, "'%s': not a public-inbox v2 archive (no git/N.git epoch in git/)", dir);
		return -1;
	}
	return 0;
}

int lists_check_archive(const char *dir, struct strbuf *err)
{
	int *ep;
	size_t n;

	if (epochs(dir, &ep, &n, err))
		return -1;
	free(ep);
	return 0;
}

struct reading {
	struct series_set *set;
	int epoch;
	size_t nmails;
	char last[GITREPO_HEXSZ + 1];
	lists_mail_fn each; /* every new mail is handed to it too (NULL: none) */
	void *each_arg;
	struct strbuf *err;
};

/* A mail added to the set; where: an archive's "epoch:commit" (id, of rd's epoch) or a Maildir's "cur/NAME". */
static void add_mail(struct reading *rd, const char *id, const char *where, const char *data, size_t len)
{
	struct series_mail *m = xcalloc(1, sizeof(*m));

	series_mail_parse(data, len, m);
	m->where = where ? xstrdup(where) : xasprintf("%d:%s", rd->epoch, id);
	series_set_add(rd->set, m);
	rd->nmails++;
}

static int one_mail(const char *id, const char *data, size_t len, void *arg)
{
	struct reading *rd = arg;

	if (rd->each && data) {
		char *where = xasprintf("%d:%s", rd->epoch, id);
		int rc = rd->each(data, len, where, rd->each_arg, rd->err);
		free(where);
		if (rc)
			return -1;
	}
	add_mail(rd, id, NULL, data, len);
	snprintf(rd->last, sizeof(rd->last), "%s", id);
	return 0;
}

/* A Maildir's new mail: handed on, added to the set (where: "cur/NAME", where it is once read). */
static int maildir_mail(const char *where, const char *msg, size_t len, void *arg, struct strbuf *err)
{
	struct reading *rd = arg;

	if (rd->each && rd->each(msg, len, where, rd->each_arg, err))
		return -1;
	add_mail(rd, NULL, where, msg, len);
	return 0;
}

int lists_mail_at(const char *dir, const char *where, struct strbuf *msg, struct strbuf *err)
{
	const char *colon = strchr(where, ':');
	struct gitrepo *r = NULL;

	if (!strncmp(where, "cur/", 4))
		return maildir_read(dir, where, SERIES_MAX_MAIL, msg, err);
	if (!colon) {
		strbuf_setf(err, "'%s': not where a mail of a list is", where);
		return -1;
	}
	char *path = xasprintf("%s/git/%.*s.git", dir, (int)(colon - where), where);
	int ret = gitrepo_open(&r, path, err) || gitrepo_read(r, colon + 1, "m", msg, err) ? -1 : 0;
	if (r)
		gitrepo_close(r);
	free(path);
	return ret;
}

/* The mails of list's waiting series, from where the store says they are, read again into rd's set. */
static void reread_waiting(const char *dir, struct store *st, const char *list, struct reading *rd)
{
	struct strbuf err = STRBUF_INIT;
	struct node *rows = NULL;

	if (store_series_list(st, list, &rows, &err))
		goto out;
	for (size_t i = 0; i < rows->n; i++) {
		const char *state = node_str(node_get(rows->vals[i], "state"));
		const char *parts = node_str(node_get(rows->vals[i], "parts"));
		if (!state || (strcmp(state, "waiting") && strcmp(state, "incomplete")) || !parts)
			continue;
		for (const char *p = parts; *p;) {
			size_t n = strcspn(p, " ");
			char *one = xstrndup(p, n), *colon = strchr(one, ':');
			p += n + (p[n] == ' ');
			struct strbuf m = STRBUF_INIT;
			if (!lists_mail_at(dir, one, &m, &err)) {
				rd->epoch = atoi(one);
				add_mail(rd, colon && strncmp(one, "cur/", 4) ? colon + 1 : NULL,
					 strncmp(one, "cur/", 4) ? NULL : one, m.buf, m.len);
			}
			strbuf_release(&m);
			free(one);
		}
	}
out:
	node_free(rows);
	strbuf_release(&err);
}

/* One epoch read from where the store says it stopped, its new position recorded. */
static int read_epoch(const char *repo, struct store *st, const char *list, struct reading *rd, int64_t now,
		      struct strbuf *err)
{
	struct gitrepo *r = NULL;
	char *since = NULL, head[GITREPO_HEXSZ + 1];
	struct strbuf e = STRBUF_INIT;
	int ret = -1;

	if (gitrepo_open(&r, repo, err))
		return -1;
	if (gitrepo_resolve(r, "HEAD", head, &e)) {
		ret = 0; /* an epoch without a mail yet */
		goto out;
	}
	if (st && store_list_epoch(st, list, rd->epoch, &since, err) < 0)
		goto out;
	rd->last[0] = '\0';
	if (gitrepo_each_file(r, "HEAD", since, "m", SERIES_MAX_MAIL, LISTS_MAX_COMMITS, one_mail, rd, err) < 0)
		goto out;
	ret = 0;
	if (st && rd->last[0])
		ret = store_list_epoch_set(st, list, rd->epoch, rd->last, now, err);
out:
	strbuf_release(&e);
	free(since);
	gitrepo_close(r);
	return ret;
}

int lists_read_each(const char *dir, struct store *st, const char *list, struct series_set *set, size_t *nmails,
		    int64_t now, lists_mail_fn each, void *arg, struct strbuf *err)
{
	struct reading rd = { .set = set, .each = each, .each_arg = arg, .err = err };
	int *ep;
	size_t n;
	int ret = 0;

	*nmails = 0;
	if (maildir_is(dir)) {
		size_t skipped;
		if (st)
			reread_waiting(dir, st, list, &rd);
		ret = maildir_each(dir, SERIES_MAX_MAIL, maildir_mail, &rd, &skipped, err) < 0 ? -1 : 0;
		*nmails = rd.nmails;
		return ret;
	}
	if (epochs(dir, &ep, &n, err))
		return -1;
	if (st)
		reread_waiting(dir, st, list, &rd);
	for (size_t i = 0; i < n && !ret; i++) {
		char *repo = xasprintf("%s/git/%d.git", dir, ep[i]);
		rd.epoch = ep[i];
		ret = read_epoch(repo, st, list, &rd, now, err);
		free(repo);
	}
	free(ep);
	*nmails = rd.nmails;
	return ret;
}

int lists_read(const char *dir, struct store *st, const char *list, struct series_set *set, size_t *nmails, int64_t now,
	       struct strbuf *err)
{
	return lists_read_each(dir, st, list, set, nmails, now, NULL, NULL, err);
}

char *lists_parts(const struct series *s)
{
	struct strbuf out = STRBUF_INIT;

	for (int i = 0; i <= s->total; i++)
		if (s->part[i] && s->part[i]->where)
			strbuf_addf(&out, "%s%s", out.len ? " " : "", s->part[i]->where);
	return strbuf_detach(&out);
}

/* The base: the series' base-commit: when the repository has it, else the branch's head at its date. */
static int find_base(struct gitrepo *r, const struct series *s, const char *tree_name, const char *branch,
		     struct lists_applied *out, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;

	if (s->base_commit && !gitrepo_resolve(r, s->base_commit, out->base, &e)) {
		strbuf_release(&e);
		out->base_how = "its base-commit:";
		return 0;
	}
	strbuf_release(&e);
	char *ref = xasprintf("refs/lkprobot/trees/%s/%s", tree_name, branch);
	int ret = gitrepo_at_time(r, ref, s->date, out->base, err);
	if (ret)
		strbuf_setf(err, "no base for the series: %s, and tree %s has no branch %s",
			    s->base_commit ? "its base-commit: is not in the tree" : "it has no base-commit:",
			    tree_name, branch);
	out->base_how = "the head of its branch at its date";
	free(ref);
	return ret;
}

/* The commit message of m: its own, with Link: <link>/<id> after its trailers (a paragraph of its own otherwise). */
static char *message_of(const struct series_mail *m, const char *link)
{
	if (!link)
		return xstrdup(m->message);
	const char *msg = m->message, *last = msg;
	for (const char *p = msg; *p; p++)
		if (*p == '\n' && p[1])
			last = p + 1;
	size_t key = strspn(last, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-");
	bool trailer = last != msg && key && !strncmp(last + key, ": ", 2);
	size_t idl = strlen(m->message_id);
	return xasprintf("%s%sLink: %s/%.*s\n", msg, trailer ? "" : "\n", link, (int)(idl - 2), m->message_id + 1);
}

/* Each patch on the one before, from the base: 0, or 1/2 with out->failed and out->why. */
static int apply_patches(struct gitrepo *r, const struct series *s, const char *link, struct lists_applied *out,
			 struct strbuf *err)
{
	snprintf(out->head, sizeof(out->head), "%s", out->base);
	for (int i = 1; i <= s->total; i++) {
		const struct series_mail *m = s->part[i];
		const struct gitrepo_author a = { m->author_name, m->author_email, m->date, m->tz };
		struct strbuf e = STRBUF_INIT;
		char id[GITREPO_HEXSZ + 1];
		char *msg = message_of(m, link);
		int rc = gitrepo_apply(r, out->head, m->diff, strlen(m->diff), &a, msg, id, &e);
		free(msg);
		if (rc) {
			out->failed = i;
			if (rc > 0)
				out->why = xasprintf("patch %d/%d (%s) %s%s", i, s->total, m->title,
						     rc == 1 ? "does not apply: " : "refused: ", e.buf);
			else
				strbuf_setf(err, "patch %d/%d: %s", i, s->total, e.buf);
			strbuf_release(&e);
			return rc;
		}
		strbuf_release(&e);
		snprintf(out->head, sizeof(out->head), "%s", id);
	}
	return 0;
}

int lists_apply(const struct series *s, const char *repo, const char *tree_path, const char *tree_name,
		const char *branch, const char *link, struct lists_applied *out, struct strbuf *err)
{
	struct gitrepo *r = NULL;
	struct strbuf name = STRBUF_INIT;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (gitrepo_open_bare(&r, repo, err))
		return -1;
	char *spec = xasprintf("+refs/heads/*:refs/lkprobot/trees/%s/*", tree_name);
	if (gitrepo_fetch(r, tree_path, spec, err) || find_base(r, s, tree_name, branch, out, err))
		goto out;
	if ((ret = apply_patches(r, s, link, out, err)))
		goto out;
	series_branch(s, &name);
	/* another series of the same author, subject and second keeps its branch: this one is name-2, ... */
	char id[GITREPO_HEXSZ + 1];
	struct strbuf e = STRBUF_INIT, ref = STRBUF_INIT;
	size_t len = name.len;
	for (int k = 2; k < 100; k++) {
		strbuf_reset(&ref);
		strbuf_addf(&ref, "refs/heads/%s", name.buf);
		if (gitrepo_resolve(r, ref.buf, id, &e) || !strcmp(id, out->head))
			break;
		strbuf_setlen(&name, len);
		strbuf_addf(&name, "-%d", k);
	}
	strbuf_release(&e);
	out->branch = xstrdup(name.buf);
	ret = gitrepo_set_ref(r, ref.buf, out->head, err);
	strbuf_release(&ref);
out:
	free(spec);
	strbuf_release(&name);
	gitrepo_close(r);
	return ret;
}

void lists_applied_release(struct lists_applied *a)
{
	free(a->branch);
	free(a->why);
	memset(a, 0, sizeof(*a));
}

/*
 * git: revisions, commit information and checkouts into plain directories,
 * on top of libgit2. See git.h. The checkout writes blobs itself instead of
 * calling git_checkout_tree(): that one judges "unchanged" with the
 * repository's own index and HEAD, which describe the repository's work
 * tree, not our directory, and it would rewrite the repository's index.
 */
#include "git.h"
#include "../sys/dynlib.h"
#include "../sys/fsutil.h"

#include <git2.h>
#include <mbedtls/sha1.h>

#include <dirent.h>
#include <errno.h>
#include <iconv.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The libgit2 functions this file calls, loaded on first use (dynlib.h):
 * most commands, and the agent in every guest, never touch a repository.
 */
#define GIT2_API(X) \
	X(git_blob_free) X(git_blob_lookup) X(git_blob_rawcontent) \
	X(git_blob_rawsize) X(git_commit_author) X(git_commit_committer) \
	X(git_commit_free) X(git_commit_id) X(git_commit_lookup) \
	X(git_commit_message) X(git_commit_parent) X(git_commit_parent_id) \
	X(git_commit_parentcount) X(git_commit_summary) X(git_commit_tree) \
	X(git_diff_find_similar) X(git_diff_foreach) X(git_diff_free) \
	X(git_diff_get_delta) X(git_diff_num_deltas) X(git_diff_options_init) \
	X(git_diff_tree_to_tree) X(git_error_clear) X(git_error_last) \
	X(git_graph_descendant_of) X(git_libgit2_init) X(git_libgit2_shutdown) \
	X(git_object_free) X(git_object_peel) X(git_object_type) \
	X(git_object_type2string) X(git_odb_hashfile) X(git_oid_equal) \
	X(git_oid_fromstr) X(git_oid_tostr) X(git_oid_tostr_s) \
	X(git_repository_free) X(git_repository_open_ext) X(git_revparse_single) \
	X(git_revwalk_free) X(git_revwalk_hide) X(git_revwalk_new) \
	X(git_revwalk_next) X(git_revwalk_push) X(git_revwalk_simplify_first_parent) \
	X(git_revwalk_sorting) X(git_tree_entry_bypath) X(git_tree_entry_filemode) \
	X(git_tree_entry_free) X(git_tree_entry_id) X(git_tree_entry_name) \
	X(git_tree_entry_type) X(git_tree_free) X(git_tree_id) \
	X(git_tree_lookup) X(git_tree_walk) X(git_repository_init) \
	X(git_remote_create_anonymous) X(git_fetch_options_init) X(git_remote_fetch) \
	X(git_remote_free) X(git_repository_odb) X(git_odb_free) X(git_odb_read) \
	X(git_odb_object_data) X(git_odb_object_size) X(git_odb_object_type) X(git_odb_object_free)
static struct {
	GIT2_API(DYNLIB_SLOT)
} g2;
#define G2_SYM(fn) DYNLIB_SYM(g2, fn)
static struct dynlib g2_lib = DYNLIB(LKP_SONAME_git2, "libgit2-1.5", GIT2_API(G2_SYM));

struct gitrepo {
	git_repository *repo;
	char *path;
};

/* libgit2's last error as "what: why". */
static int git_fail(struct strbuf *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int git_fail(struct strbuf *err, const char *fmt, ...)
{
	const git_error *e = g2.git_error_last();
	va_list ap;

	strbuf_reset(err);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	if (e && e->message && *e->message) {
		strbuf_addf(err, ": %s", e->message);
		strbuf_rtrim(err);
		/* libgit2 messages may hold a path with a line break in it: keep one line */
		for (size_t i = 0; i < err->len; i++)
			if (err->buf[i] == '\n' || err->buf[i] == '\r')
				err->buf[i] = ' ';
	}
	return -1;
}

int gitrepo_open(struct gitrepo **out, const char *path, struct strbuf *err)
{
	struct stat st;
	git_repository *repo = NULL;

	*out = NULL;
	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		strbuf_setf(err, "'%s': no such directory", path);
		return -1;
	}
	if (dynlib_load(&g2_lib, err))
		return -1;
	g2.git_libgit2_init();
	if (g2.git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		git_fail(err, "'%s': not a git repository", path);
		g2.git_libgit2_shutdown();
		return -1;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->repo = repo;
	(*out)->path = xstrdup(path);
	return 0;
}

int gitrepo_mirror(const char *url, const char *dir, struct strbuf *err)
{
	/* "+": a force-pushed branch replaces ours; prune: a deleted one goes */
	static char *specs[] = { "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*" };
	const git_strarray refspecs = { specs, 2 };
	git_repository *repo = NULL;
	git_remote *remote = NULL;
	git_fetch_options fo;
	struct stat st;
	int ret = -1;

	if (dynlib_load(&g2_lib, err))
		return -1;
	g2.git_libgit2_init();
	if (stat(dir, &st) ? g2.git_repository_init(&repo, dir, 1)
			   : g2.git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		git_fail(err, "'%s': cannot make or open the mirror of %s", dir, url);
		goto out;
	}
	if (g2.git_remote_create_anonymous(&remote, repo, url)) {
		git_fail(err, "%s: not a repository address", url);
		goto out;
	}
	g2.git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.prune = GIT_FETCH_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;	/* the refspec has them */
	if (g2.git_remote_fetch(remote, &refspecs, &fo, "lkprobot mirror")) {
		git_fail(err, "%s: fetch failed", url);
		goto out;
	}
	ret = 0;
out:
	g2.git_remote_free(remote);
	g2.git_repository_free(repo);
	g2.git_libgit2_shutdown();
	return ret;
}

void gitrepo_close(struct gitrepo *r)
{
	if (!r)
		return;
	g2.git_repository_free(r->repo);
	free(r->path);
	free(r);
	g2.git_libgit2_shutdown();
}

const char *gitrepo_path(const struct gitrepo *r)
{
	return r->path;
}

static int lookup_commit(struct gitrepo *r, const char *rev, git_commit **out, struct strbuf *err)
{
	git_object *obj = NULL, *peeled = NULL;

	*out = NULL;
	if (!rev || !*rev) {
		strbuf_setf(err, "an empty revision names no commit");
		return -1;
	}
	if (g2.git_revparse_single(&obj, r->repo, rev))
		return git_fail(err, "cannot resolve '%s' in '%s'", rev, r->path);
	if (g2.git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT)) {
		strbuf_setf(err, "'%s' in '%s' is a %s, not a commit", rev, r->path,
			    g2.git_object_type2string(g2.git_object_type(obj)));
		g2.git_object_free(obj);
		return -1;
	}
	g2.git_object_free(obj);
	*out = (git_commit *)peeled;
	return 0;
}

int gitrepo_resolve(struct gitrepo *r, const char *rev, char id[GITREPO_HEXSZ + 1],
		    struct strbuf *err)
{
	git_commit *c;

	if (lookup_commit(r, rev, &c, err))
		return -1;
	g2.git_oid_tostr(id, GITREPO_HEXSZ + 1, g2.git_commit_id(c));
	g2.git_commit_free(c);
	return 0;
}

/* ---- commits read from their objects ---------------------------------- */

/*
 * A commit as its object says, parsed here rather than by libgit2, which
 * refuses a whole commit for one malformed signature line (a commit the
 * world made, that a report must still name). Text is converted to UTF-8
 * from the commit's `encoding` header; bytes that do not convert become
 * U+FFFD.
 */
struct raw_commit {
	git_oid id, tree;
	git_oid parents[64];
	size_t nparents, more_parents;	/* the first 64, and how many were past them */
	struct strbuf author, committer;	/* the header lines' values, UTF-8 */
	struct strbuf message;			/* UTF-8 */
};

/* text (len bytes) in `encoding` appended to out as UTF-8; undecodable bytes become U+FFFD. */
static void to_utf8(struct strbuf *out, const char *text, size_t len, const char *encoding)
{
	iconv_t cd = (iconv_t)-1;

	if (encoding && *encoding && strcasecmp(encoding, "UTF-8") && strcasecmp(encoding, "utf8"))
		cd = iconv_open("UTF-8", encoding);
	if (cd == (iconv_t)-1) {
		strbuf_add_utf8(out, text, len);
		return;
	}
	struct strbuf conv = STRBUF_INIT;
	char *in = (char *)text, buf[4096];
	size_t left = len;
	while (left) {
		char *o = buf;
		size_t room = sizeof(buf);
		size_t rc = iconv(cd, &in, &left, &o, &room);
		strbuf_add(&conv, buf, (size_t)(o - buf));
		if (rc == (size_t)-1 && errno != E2BIG) {
			strbuf_addstr(&conv, "\xef\xbf\xbd");	/* EILSEQ, EINVAL: one byte lost */
			in++;
			left--;
			iconv(cd, NULL, NULL, NULL, NULL);
		}
	}
	iconv_close(cd);
	strbuf_add_utf8(out, conv.buf, conv.len);
	strbuf_release(&conv);
}

static void raw_commit_release(struct raw_commit *c)
{
	strbuf_release(&c->author);
	strbuf_release(&c->committer);
	strbuf_release(&c->message);
}

/* Parse a commit object's text into c (its id already set). */
static void raw_commit_parse(struct raw_commit *c, const char *text, size_t len)
{
	const char *end = text + len, *p = text, *encoding_at = NULL;
	char encoding[64] = "";
	const char *author = NULL, *committer = NULL;
	size_t alen = 0, clen = 0;

	while (p < end && *p != '\n') {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char hex[GITREPO_HEXSZ + 1];
		if (n == 5 + GITREPO_HEXSZ && !strncmp(p, "tree ", 5)) {
			memcpy(hex, p + 5, GITREPO_HEXSZ);
			hex[GITREPO_HEXSZ] = '\0';
			g2.git_oid_fromstr(&c->tree, hex);
		} else if (n == 7 + GITREPO_HEXSZ && !strncmp(p, "parent ", 7)) {
			memcpy(hex, p + 7, GITREPO_HEXSZ);
			hex[GITREPO_HEXSZ] = '\0';
			if (c->nparents < ARRAY_SIZE(c->parents))
				g2.git_oid_fromstr(&c->parents[c->nparents++], hex);
			else
				c->more_parents++;
		} else if (n > 7 && !strncmp(p, "author ", 7) && !author) {
			author = p + 7;
			alen = n - 7;
		} else if (n > 10 && !strncmp(p, "committer ", 10) && !committer) {
			committer = p + 10;
			clen = n - 10;
		} else if (n > 9 && !strncmp(p, "encoding ", 9) && !encoding_at) {
			encoding_at = p + 9;
			snprintf(encoding, sizeof(encoding), "%.*s", (int)(n - 9), p + 9);
		}
		p = nl ? nl + 1 : end;
	}
	if (p < end)
		p++;	/* the blank line */
	if (author)
		to_utf8(&c->author, author, alen, encoding);
	if (committer)
		to_utf8(&c->committer, committer, clen, encoding);
	to_utf8(&c->message, p, (size_t)(end - p), encoding);
}

/*
 * Read commit rev: resolved by libgit2 when it can, else (a commit it will
 * not parse) by its full id. 0, or -1 with err set.
 */
static int raw_commit_read(struct gitrepo *r, const char *rev, struct raw_commit *c, struct strbuf *err)
{
	git_commit *gc = NULL;
	git_odb *odb = NULL;
	git_odb_object *obj = NULL;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	strbuf_init(&c->author, 0);
	strbuf_init(&c->committer, 0);
	strbuf_init(&c->message, 0);
	if (!lookup_commit(r, rev, &gc, err)) {
		c->id = *g2.git_commit_id(gc);
		g2.git_commit_free(gc);
	} else if (strlen(rev) != GITREPO_HEXSZ || strspn(rev, "0123456789abcdef") != GITREPO_HEXSZ ||
		   g2.git_oid_fromstr(&c->id, rev)) {
		return -1;	/* err says why */
	}
	if (g2.git_repository_odb(&odb, r->repo) || g2.git_odb_read(&obj, odb, &c->id)) {
		git_fail(err, "cannot read commit '%s' in '%s'", rev, r->path);
		goto out;
	}
	if (g2.git_odb_object_type(obj) != GIT_OBJECT_COMMIT) {
		strbuf_setf(err, "'%s' in '%s' is not a commit", rev, r->path);
		goto out;
	}
	raw_commit_parse(c, g2.git_odb_object_data(obj), g2.git_odb_object_size(obj));
	strbuf_reset(err);
	ret = 0;
out:
	g2.git_odb_object_free(obj);
	g2.git_odb_free(odb);
	if (ret)
		raw_commit_release(c);
	return ret;
}

/* A signature's value "Name <email> time tz", leniently: what cannot be read stays empty or 0. */
static void signature_parse(const char *s, char **name, char **email, int64_t *when, int *offset)
{
	const char *lt = strrchr(s, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	size_t n;

	if (!lt || !gt) {
		*name = xstrdup(s);
		*email = xstrdup("");
		*when = 0;
		*offset = 0;
		return;
	}
	for (n = (size_t)(lt - s); n && s[n - 1] == ' '; n--)
		;
	*name = xstrndup(s, n);
	*email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	char *end;
	long long t = strtoll(gt + 1, &end, 10);
	long tz = end != gt + 1 ? strtol(end, NULL, 10) : 0;
	*when = end != gt + 1 ? t : 0;
	/* +hhmm: minutes east of UTC */
	*offset = tz > -10000 && tz < 10000 ? (int)((tz / 100) * 60 + tz % 100) : 0;
}

/* git's summary: the first paragraph, its lines joined by spaces. */
static char *summary_of(const char *msg)
{
	struct strbuf out = STRBUF_INIT;

	while (*msg == '\n' || *msg == ' ' || *msg == '\t' || *msg == '\r')
		msg++;
	for (const char *p = msg; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (!n)
			break;	/* a blank line ends the paragraph */
		if (out.len)
			strbuf_addch(&out, ' ');
		strbuf_add(&out, p, n);
		if (!nl)
			break;
		p = nl + 1;
	}
	return strbuf_detach(&out);
}

int gitrepo_range(struct gitrepo *r, const char *good, const char *bad, bool first_parent,
		  struct gitrepo_range *out, struct strbuf *err)
{
	git_revwalk *walk = NULL;
	git_commit *g = NULL, *b = NULL;
	git_oid oid;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (lookup_commit(r, good, &g, err) || lookup_commit(r, bad, &b, err))
		goto out;
	if (g2.git_revwalk_new(&walk, r->repo)) {
		git_fail(err, "cannot walk '%s'", r->path);
		goto out;
	}
	/* parents before children, so that each commit's ancestors come first */
	g2.git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (first_parent)
		g2.git_revwalk_simplify_first_parent(walk);
	if (g2.git_revwalk_push(walk, g2.git_commit_id(b)) || g2.git_revwalk_hide(walk, g2.git_commit_id(g))) {
		git_fail(err, "cannot walk from '%s' to '%s'", good, bad);
		goto out;
	}
	while (!g2.git_revwalk_next(&oid, walk)) {
		git_commit *c;
		if (g2.git_commit_lookup(&c, r->repo, &oid)) {
			git_fail(err, "cannot read a commit of '%s'", r->path);
			goto out;
		}
		size_t i = out->n++;
		out->id = xrealloc(out->id, out->n * sizeof(*out->id));
		out->parents = xrealloc(out->parents, out->n * sizeof(*out->parents));
		out->nparents = xrealloc(out->nparents, out->n * sizeof(*out->nparents));
		g2.git_oid_tostr(out->id[i], GITREPO_HEXSZ + 1, &oid);
		size_t np = first_parent && g2.git_commit_parentcount(c) ? 1 : g2.git_commit_parentcount(c);
		out->nparents[i] = 0;
		out->parents[i] = xcalloc(np ? np : 1, sizeof(**out->parents));
		for (size_t k = 0; k < np; k++) {
			char pid[GITREPO_HEXSZ + 1];
			g2.git_oid_tostr(pid, sizeof(pid), g2.git_commit_parent_id(c, (unsigned)k));
			/* parents come earlier: an index, or none when outside the range */
			for (size_t j = 0; j < i; j++)
				if (!strcmp(out->id[j], pid)) {
					out->parents[i][out->nparents[i]++] = j;
					break;
				}
		}
		g2.git_commit_free(c);
	}
	if (!out->n || strcmp(out->id[out->n - 1], g2.git_oid_tostr_s(g2.git_commit_id(b)))) {
		strbuf_setf(err, "'%s' is not a descendant of '%s' in '%s': nothing to bisect", bad, good, r->path);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		gitrepo_range_release(out);
	g2.git_revwalk_free(walk);
	g2.git_commit_free(g);
	g2.git_commit_free(b);
	return ret;
}

void gitrepo_range_release(struct gitrepo_range *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->parents[i]);
	free(g->parents);
	free(g->nparents);
	free(g->id);
	memset(g, 0, sizeof(*g));
}

static int collect_path(const git_diff_delta *d, float progress, void *payload)
{
	struct gitrepo_paths *p = payload;
	(void)progress;
	/* both sides of a rename; a path once */
	const char *paths[2] = { d->old_file.path, d->new_file.path };
	for (int k = 0; k < 2; k++) {
		if (!paths[k] || (k && d->old_file.path && !strcmp(paths[0], paths[1])))
			continue;
		p->v = xrealloc(p->v, (p->n + 1) * sizeof(*p->v));
		p->v[p->n++] = xstrdup(paths[k]);
	}
	return 0;
}

/* The tree of commit rev (NULL with err set when it has none that reads). */
static git_tree *commit_tree(struct gitrepo *r, const char *rev, git_oid *parent, struct strbuf *err)
{
	struct raw_commit c;
	git_tree *t = NULL;

	if (raw_commit_read(r, rev, &c, err))
		return NULL;
	if (g2.git_tree_lookup(&t, r->repo, &c.tree))
		git_fail(err, "cannot read the tree of '%s'", rev);
	if (parent) {
		memset(parent, 0, sizeof(*parent));
		if (c.nparents)
			*parent = c.parents[0];
	}
	raw_commit_release(&c);
	return t;
}

int gitrepo_changed_paths(struct gitrepo *r, const char *rev, struct gitrepo_paths *out, struct strbuf *err)
{
	git_tree *t = NULL, *pt = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	git_oid parent, zero;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&zero, 0, sizeof(zero));
	if (!(t = commit_tree(r, rev, &parent, err)))
		return -1;
	if (!g2.git_oid_equal(&parent, &zero) &&
	    !(pt = commit_tree(r, g2.git_oid_tostr_s(&parent), NULL, err)))
		goto out;
	g2.git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (g2.git_diff_tree_to_tree(&diff, r->repo, pt, t, &opts)) {
		git_fail(err, "cannot diff '%s' against its parent", rev);
		goto out;
	}
	if (g2.git_diff_find_similar(diff, NULL) || g2.git_diff_foreach(diff, collect_path, NULL, NULL, NULL, out)) {
		git_fail(err, "cannot list the files '%s' changes", rev);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		gitrepo_paths_release(out);
	g2.git_diff_free(diff);
	g2.git_tree_free(t);
	g2.git_tree_free(pt);
	return ret;
}

int gitrepo_read(struct gitrepo *r, const char *rev, const char *path, struct strbuf *out, struct strbuf *err)
{
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	int ret = -1;

	if (!(t = commit_tree(r, rev, NULL, err)))
		return -1;
	if (g2.git_tree_entry_bypath(&e, t, path)) {
		g2.git_error_clear();
		ret = 1;
		goto out;
	}
	if (g2.git_tree_entry_type(e) != GIT_OBJECT_BLOB || g2.git_blob_lookup(&b, r->repo, g2.git_tree_entry_id(e))) {
		git_fail(err, "'%s' at '%s' is not a file", path, rev);
		goto out;
	}
	strbuf_add(out, g2.git_blob_rawcontent(b), (size_t)g2.git_blob_rawsize(b));
	ret = 0;
out:
	g2.git_blob_free(b);
	g2.git_tree_entry_free(e);
	g2.git_tree_free(t);
	return ret;
}

int gitrepo_is_ancestor(struct gitrepo *r, const char *ancestor, const char *rev, struct strbuf *err)
{
	git_commit *a = NULL, *c = NULL;
	int ret = -1;

	if (lookup_commit(r, ancestor, &a, err) || lookup_commit(r, rev, &c, err))
		goto out;
	ret = g2.git_graph_descendant_of(r->repo, g2.git_commit_id(c), g2.git_commit_id(a));
	if (ret < 0)
		git_fail(err, "cannot walk '%s' in '%s'", rev, r->path);
	else if (g2.git_oid_equal(g2.git_commit_id(a), g2.git_commit_id(c)))
		ret = 1;
out:
	g2.git_commit_free(a);
	g2.git_commit_free(c);
	return ret;
}

void gitrepo_paths_release(struct gitrepo_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

int gitrepo_commit_info(struct gitrepo *r, const char *rev, struct gitrepo_commit *ci,
			struct strbuf *err)
{
	struct raw_commit c;

	memset(ci, 0, sizeof(*ci));
	if (raw_commit_read(r, rev, &c, err))
		return -1;
	g2.git_oid_tostr(ci->id, sizeof(ci->id), &c.id);
	ci->message = xstrdup(c.message.buf);
	ci->subject = summary_of(c.message.buf);
	signature_parse(c.author.buf, &ci->author_name, &ci->author_email, &ci->author_time, &ci->author_offset);
	signature_parse(c.committer.buf, &ci->committer_name, &ci->committer_email, &ci->committer_time,
			&ci->committer_offset);
	ci->nparents = c.nparents;
	if (ci->nparents) {
		ci->parents = xcalloc(ci->nparents, sizeof(*ci->parents));
		for (size_t i = 0; i < ci->nparents; i++)
			g2.git_oid_tostr(ci->parents[i], GITREPO_HEXSZ + 1, &c.parents[i]);
	}
	raw_commit_release(&c);
	return 0;
}

void gitrepo_commit_release(struct gitrepo_commit *c)
{
	free(c->subject);
	free(c->message);
	free(c->author_name);
	free(c->author_email);
	free(c->committer_name);
	free(c->committer_email);
	free(c->parents);
	memset(c, 0, sizeof(*c));
}

void gitrepo_hash(const void *data, size_t len, char out[GITREPO_HEXSZ + 1])
{
	/* git's blob id: SHA-1 of "blob <len>\0" and the data (no libgit2 needed) */
	char hdr[32];
	int n = snprintf(hdr, sizeof(hdr), "blob %zu", len) + 1;
	unsigned char md[20];
	mbedtls_sha1_context c;

	mbedtls_sha1_init(&c);
	mbedtls_sha1_starts_ret(&c);
	mbedtls_sha1_update_ret(&c, (const unsigned char *)hdr, (size_t)n);
	mbedtls_sha1_update_ret(&c, data, len);
	mbedtls_sha1_finish_ret(&c, md);
	mbedtls_sha1_free(&c);
	for (int i = 0; i < 20; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* ---- checkout ---------------------------------------------------------- */

struct co {
	struct gitrepo *r;
	const char *dir;
	git_tree *tree;
	struct gitrepo_checkout_stats st;
	struct strbuf path;	/* scratch: dir/relpath */
	struct strbuf parent;	/* the last directory known to be a real directory */
	struct strbuf *err;
	int failed;
};

/* A name a tree may hold for us to write: no way out of the directory. */
static bool safe_component(const char *s, size_t n)
{
	if (!n || (n == 1 && s[0] == '.') || (n == 2 && !memcmp(s, "..", 2)))
		return false;
	if (n == 4 && !strncasecmp(s, ".git", 4))
		return false;
	return !memchr(s, '\0', n);
}

static bool safe_path(const char *rel)
{
	for (const char *p = rel;;) {
		size_t n = strcspn(p, "/");
		if (!safe_component(p, n))
			return false;
		if (!p[n])
			return true;
		p += n + 1;
	}
}

/*
 * Make every directory above co->path.buf (from co->dir down) a real
 * directory: a file or a symlink in the way is removed, so that nothing is
 * written through a symlink the tree of an earlier commit left.
 */
static int make_parents(struct co *co, size_t rel_off)
{
	char *p = co->path.buf;
	char *last = strrchr(p + rel_off, '/');
	struct stat st;

	if (!last)
		return 0;
	if (co->parent.len == (size_t)(last - p) && !memcmp(co->parent.buf, p, co->parent.len))
		return 0;
	for (char *s = p + rel_off; s && s <= last; s = strchr(s + 1, '/')) {
		if (*s != '/')
			continue;
		*s = '\0';
		int bad = 0;
		if (lstat(p, &st)) {
			bad = mkdir(p, 0777) && errno != EEXIST;
		} else if (!S_ISDIR(st.st_mode)) {
			bad = unlink(p) || mkdir(p, 0777);
		}
		if (bad) {
			strbuf_setf(co->err, "cannot create directory '%s': %s", p, strerror(errno));
			*s = '/';
			return -1;
		}
		*s = '/';
	}
	strbuf_reset(&co->parent);
	strbuf_add(&co->parent, p, (size_t)(last - p));
	return 0;
}

/* Write blob `id` at co->dir/rel with git's `mode`, replacing what is there. */
static int write_entry(struct co *co, const char *rel, const git_oid *id, git_filemode_t mode)
{
	git_blob *blob = NULL;
	struct stat st;
	size_t off;
	int ret = -1;

	if (!safe_path(rel)) {
		strbuf_setf(co->err, "refusing to check out '%s': the path would leave '%s'", rel, co->dir);
		return -1;
	}
	strbuf_reset(&co->path);
	strbuf_addf(&co->path, "%s/", co->dir);
	off = co->path.len;
	strbuf_addstr(&co->path, rel);
	if (make_parents(co, off))
		return -1;
	if (g2.git_blob_lookup(&blob, co->r->repo, id))
		return git_fail(co->err, "cannot read '%s' from '%s'", rel, co->r->path);
	if (!lstat(co->path.buf, &st) &&
	    (S_ISDIR(st.st_mode) ? fsutil_remove_tree(co->path.buf) : unlink(co->path.buf)) && errno != ENOENT) {
		strbuf_setf(co->err, "cannot replace '%s': %s", co->path.buf, strerror(errno));
		goto out;
	}
	const char *data = g2.git_blob_rawcontent(blob);
	size_t len = (size_t)g2.git_blob_rawsize(blob);
	if (mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(data, len);
		int rc = symlink(target, co->path.buf);
		free(target);
		if (rc) {
			strbuf_setf(co->err, "cannot create symlink '%s': %s", co->path.buf, strerror(errno));
			goto out;
		}
	} else {
		int fd = open(co->path.buf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			      mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);
		if (fd < 0 || fsutil_write_all(fd, data, len) || close(fd)) {
			strbuf_setf(co->err, "cannot write '%s': %s", co->path.buf, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
	}
	co->st.written++;
	ret = 0;
out:
	g2.git_blob_free(blob);
	return ret;
}

/* Remove co->dir/rel and the directories it leaves empty. */
static int remove_entry(struct co *co, const char *rel)
{
	if (!safe_path(rel))
		return 0;	/* it was never written */
	strbuf_reset(&co->path);
	strbuf_addf(&co->path, "%s/%s", co->dir, rel);
	if (unlink(co->path.buf)) {
		if (errno == ENOENT)
			return 0;
		strbuf_setf(co->err, "cannot remove '%s': %s", co->path.buf, strerror(errno));
		return -1;
	}
	co->st.removed++;
	size_t top = strlen(co->dir);
	for (char *s = strrchr(co->path.buf, '/'); s && (size_t)(s - co->path.buf) > top;
	     s = strrchr(co->path.buf, '/')) {
		*s = '\0';
		if (rmdir(co->path.buf))
			break;
	}
	strbuf_reset(&co->parent);
	return 0;
}

/* Is the file at co->path.buf already blob `id` with `mode`? */
static bool same_as_blob(struct co *co, const git_oid *id, git_filemode_t mode)
{
	struct stat st;
	git_oid have;

	if (lstat(co->path.buf, &st))
		return false;
	if (mode == GIT_FILEMODE_LINK) {
		git_blob *blob;
		bool same = false;
		if (!S_ISLNK(st.st_mode) || g2.git_blob_lookup(&blob, co->r->repo, id))
			return false;
		size_t len = (size_t)g2.git_blob_rawsize(blob);
		char *buf = xmalloc(len + 1);
		ssize_t n = readlink(co->path.buf, buf, len + 1);
		same = n >= 0 && (size_t)n == len && !memcmp(buf, g2.git_blob_rawcontent(blob), len);
		free(buf);
		g2.git_blob_free(blob);
		return same;
	}
	if (!S_ISREG(st.st_mode) ||
	    !!(st.st_mode & S_IXUSR) != (mode == GIT_FILEMODE_BLOB_EXECUTABLE))
		return false;
	return !g2.git_odb_hashfile(&have, co->path.buf, GIT_OBJECT_BLOB) && g2.git_oid_equal(&have, id);
}

static int full_write_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct co *co = payload;
	const char *name = g2.git_tree_entry_name(e);
	git_filemode_t mode = g2.git_tree_entry_filemode(e);
	struct strbuf rel = STRBUF_INIT;
	int ret = 0;

	if (!safe_component(name, strlen(name))) {
		strbuf_setf(co->err, "refusing to check out '%s%s': the path would leave '%s'",
			    root, name, co->dir);
		co->failed = 1;
		return -1;
	}
	if (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT)
		return mode == GIT_FILEMODE_COMMIT ? 1 : 0;	/* submodules stay empty */
	strbuf_addf(&rel, "%s%s", root, name);
	strbuf_reset(&co->path);
	strbuf_addf(&co->path, "%s/%s", co->dir, rel.buf);
	if (same_as_blob(co, g2.git_tree_entry_id(e), mode))
		co->st.unchanged++;
	else if (write_entry(co, rel.buf, g2.git_tree_entry_id(e), mode)) {
		co->failed = 1;
		ret = -1;
	}
	strbuf_release(&rel);
	return ret;
}

/* Remove what is under co->dir/rel but not in the tree (rel "" is the top). */
static int remove_stale(struct co *co, const char *rel)
{
	struct strbuf p = STRBUF_INIT, sub = STRBUF_INIT;
	struct dirent *de;
	DIR *d;
	int ret = 0;

	strbuf_addf(&p, "%s%s%s", co->dir, *rel ? "/" : "", rel);
	if (!(d = opendir(p.buf))) {
		strbuf_release(&p);
		return 0;
	}
	while (!ret && (de = readdir(d))) {
		git_tree_entry *te = NULL;
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!*rel && !strcmp(de->d_name, GITREPO_CHECKOUT_STATE))
			continue;
		strbuf_reset(&sub);
		strbuf_addf(&sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		strbuf_reset(&co->path);
		strbuf_addf(&co->path, "%s/%s", co->dir, sub.buf);
		if (lstat(co->path.buf, &st))
			continue;
		bool in_tree = !g2.git_tree_entry_bypath(&te, co->tree, sub.buf);
		git_filemode_t mode = in_tree ? g2.git_tree_entry_filemode(te) : 0;
		g2.git_tree_entry_free(te);
		if (S_ISDIR(st.st_mode) && in_tree &&
		    (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT)) {
			ret = remove_stale(co, sub.buf);
			continue;
		}
		if (in_tree && !S_ISDIR(st.st_mode) && mode != GIT_FILEMODE_TREE)
			continue;	/* a file the write pass compares */
		if (S_ISDIR(st.st_mode) ? fsutil_remove_tree(co->path.buf) : unlink(co->path.buf)) {
			strbuf_setf(co->err, "cannot remove '%s': %s", co->path.buf, strerror(errno));
			ret = -1;
		}
		co->st.removed++;
	}
	closedir(d);
	strbuf_release(&p);
	strbuf_release(&sub);
	return ret;
}

static int checkout_full(struct co *co)
{
	if (remove_stale(co, ""))
		return -1;
	if (g2.git_tree_walk(co->tree, GIT_TREEWALK_PRE, full_write_cb, co)) {
		if (!co->failed)
			return git_fail(co->err, "cannot check out into '%s'", co->dir);
		return -1;
	}
	return 0;
}

static int checkout_diff(struct co *co, git_tree *old)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	int ret = -1;

	g2.git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	if (g2.git_diff_tree_to_tree(&diff, co->r->repo, old, co->tree, &opts))
		return git_fail(co->err, "cannot compare trees in '%s'", co->r->path);
	size_t n = g2.git_diff_num_deltas(diff);
	/* removals first: a directory may become a file of the same name */
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = g2.git_diff_get_delta(diff, i);
		if (d->status == GIT_DELTA_DELETED && d->old_file.mode != GIT_FILEMODE_COMMIT &&
		    remove_entry(co, d->old_file.path))
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = g2.git_diff_get_delta(diff, i);
		if (d->status == GIT_DELTA_DELETED || d->new_file.mode == GIT_FILEMODE_COMMIT)
			continue;
		if (write_entry(co, d->new_file.path, &d->new_file.id, d->new_file.mode))
			goto out;
	}
	ret = 0;
out:
	g2.git_diff_free(diff);
	return ret;
}

/* The tree the directory holds, from its state file; NULL if unknown here. */
static git_tree *previous_tree(struct co *co)
{
	struct strbuf state = STRBUF_INIT, p = STRBUF_INIT;
	git_oid oid;
	git_tree *t = NULL;

	strbuf_addf(&p, "%s/%s", co->dir, GITREPO_CHECKOUT_STATE);
	/* "<commit> <tree>\n" */
	if (!strbuf_read_file(&state, p.buf) && state.len >= 2 * GITREPO_HEXSZ + 1 &&
	    state.buf[GITREPO_HEXSZ] == ' ') {
		state.buf[2 * GITREPO_HEXSZ + 1] = '\0';
		if (g2.git_oid_fromstr(&oid, state.buf + GITREPO_HEXSZ + 1) ||
		    g2.git_tree_lookup(&t, co->r->repo, &oid))
			t = NULL;
	}
	g2.git_error_clear();
	strbuf_release(&state);
	strbuf_release(&p);
	return t;
}

int gitrepo_checkout(struct gitrepo *r, const char *id, const char *dir,
		     struct gitrepo_checkout_stats *stats, struct strbuf *err)
{
	struct co co = { .r = r, .dir = dir, .path = STRBUF_INIT, .parent = STRBUF_INIT, .err = err };
	struct strbuf state_path = STRBUF_INIT, state = STRBUF_INIT;
	git_commit *c = NULL;
	git_tree *old = NULL;
	char tree_hex[GITREPO_HEXSZ + 1];
	int ret = -1;

	if (lookup_commit(r, id, &c, err))
		goto out;
	if (g2.git_commit_tree(&co.tree, c)) {
		git_fail(err, "cannot read the tree of '%s'", id);
		goto out;
	}
	if (fsutil_mkdir_p(dir)) {
		strbuf_setf(err, "cannot create directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	g2.git_oid_tostr(tree_hex, sizeof(tree_hex), g2.git_tree_id(co.tree));
	strbuf_addf(&state_path, "%s/%s", dir, GITREPO_CHECKOUT_STATE);
	strbuf_addf(&state, "%s %s\n", g2.git_oid_tostr_s(g2.git_commit_id(c)), tree_hex);

	old = previous_tree(&co);
	co.st.incremental = old != NULL;
	if (old && g2.git_oid_equal(g2.git_tree_id(old), g2.git_tree_id(co.tree))) {
		ret = fsutil_write_atomic(state_path.buf, state.buf, state.len, err);
		goto out;
	}
	/* an interrupted checkout leaves no state: the next one compares every file */
	if (unlink(state_path.buf) && errno != ENOENT) {
		strbuf_setf(err, "cannot remove '%s': %s", state_path.buf, strerror(errno));
		goto out;
	}
	if (old ? checkout_diff(&co, old) : checkout_full(&co))
		goto out;
	ret = fsutil_write_atomic(state_path.buf, state.buf, state.len, err);
out:
	if (stats)
		*stats = co.st;
	g2.git_tree_free(old);
	g2.git_tree_free(co.tree);
	g2.git_commit_free(c);
	strbuf_release(&co.path);
	strbuf_release(&co.parent);
	strbuf_release(&state_path);
	strbuf_release(&state);
	return ret;
}

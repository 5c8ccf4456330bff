/*
 * git: revisions, commit information, ranges and mirrors of remote trees,
 * on top of libgit2. See git.h. Checkouts into plain directories are
 * git_checkout.c; what both share is in git_int.h.
 */
#include "git_int.h"
#include "../sys/fsutil.h"
#include "../sys/proc.h"

#include <mbedtls/sha1.h>

#include <errno.h>
#include <iconv.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct gitrepo_g2 gitrepo_g2;
#define G2_SYM(fn) DYNLIB_SYM(gitrepo_g2, fn)
static struct dynlib g2_lib = DYNLIB(LKP_SONAME_git2, "libgit2-1.5", GIT2_API(G2_SYM));

int gitrepo_fail(struct strbuf *err, const char *fmt, ...)
{
	const git_error *e = gitrepo_g2.git_error_last();
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

int gitrepo_load(struct strbuf *err)
{
	if (dynlib_load(&g2_lib, err))
		return -1;
	gitrepo_g2.git_libgit2_init();
	return 0;
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
	gitrepo_g2.git_libgit2_init();
	if (gitrepo_g2.git_repository_open_ext(&repo, path, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		gitrepo_fail(err, "'%s': not a git repository", path);
		gitrepo_g2.git_libgit2_shutdown();
		return -1;
	}
	*out = xcalloc(1, sizeof(**out));
	(*out)->repo = repo;
	(*out)->path = xstrdup(path);
	return 0;
}

/*
 * In gitrepo_fetch_within's child: the seconds a fetch may receive nothing
 * (0: no limit, the parent's case). Every sign of life from the server —
 * its progress lines, pack data — sets the alarm again; SIGALRM's default
 * action ends the child, which the parent reads as a stall.
 */
static unsigned fetch_stall;

static int fetch_alive_sideband(const char *str, int len, void *payload)
{
	(void)str, (void)len, (void)payload;
	alarm(fetch_stall);
	return 0;
}

static int fetch_alive_transfer(const git_indexer_progress *stats, void *payload)
{
	(void)stats, (void)payload;
	alarm(fetch_stall);
	return 0;
}

/* A fetch's options: no tags but a refspec's; in gitrepo_fetch_within's child, the stall alarm's callbacks. */
static void gitrepo_fetch_options(git_fetch_options *fo)
{
	gitrepo_g2.git_fetch_options_init(fo, GIT_FETCH_OPTIONS_VERSION);
	fo->download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	if (fetch_stall) {
		fo->callbacks.sideband_progress = fetch_alive_sideband;
		fo->callbacks.transfer_progress = fetch_alive_transfer;
	}
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
	gitrepo_g2.git_libgit2_init();
	if (stat(dir, &st) ? gitrepo_g2.git_repository_init(&repo, dir, 1)
			   : gitrepo_g2.git_repository_open_ext(&repo, dir, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL)) {
		gitrepo_fail(err, "'%s': cannot make or open the mirror of %s", dir, url);
		goto out;
	}
	if (gitrepo_g2.git_remote_create_anonymous(&remote, repo, url)) {
		gitrepo_fail(err, "%s: not a repository address", url);
		goto out;
	}
	gitrepo_fetch_options(&fo); /* no tags but those of the refspec */
	fo.prune = GIT_FETCH_PRUNE;
	if (gitrepo_g2.git_remote_fetch(remote, &refspecs, &fo, "lkprobot mirror")) {
		gitrepo_fail(err, "%s: fetch failed", url);
		goto out;
	}
	ret = 0;
out:
	gitrepo_g2.git_remote_free(remote);
	gitrepo_g2.git_repository_free(repo);
	gitrepo_g2.git_libgit2_shutdown();
	return ret;
}

int gitrepo_open_bare(struct gitrepo **out, const char *dir, struct strbuf *err)
{
	struct stat st;
	git_repository *repo = NULL;

	*out = NULL;
	if (stat(dir, &st)) {
		if (fsutil_mkdir_p(dir)) {
			strbuf_setf(err, "'%s': cannot make the directory: %s", dir, strerror(errno));
			return -1;
		}
		if (gitrepo_load(err))
			return -1;
		int rc = gitrepo_g2.git_repository_init(&repo, dir, 1);
		if (rc)
			gitrepo_fail(err, "'%s': cannot make a bare repository", dir);
		gitrepo_g2.git_repository_free(repo);
		gitrepo_g2.git_libgit2_shutdown();
		if (rc)
			return -1;
	}
	return gitrepo_open(out, dir, err);
}

int gitrepo_fetch(struct gitrepo *r, const char *url, const char *refspec, struct strbuf *err)
{
	char *spec = (char *)refspec;
	const git_strarray specs = { &spec, 1 };
	git_remote *remote = NULL;
	git_fetch_options fo;
	int ret = 0;

	if (gitrepo_g2.git_remote_create_anonymous(&remote, r->repo, url))
		return gitrepo_fail(err, "%s: not a repository address", url);
	gitrepo_fetch_options(&fo);
	if (gitrepo_g2.git_remote_fetch(remote, &specs, &fo, "lkprobot: the bases of series"))
		ret = gitrepo_fail(err, "%s: fetch into '%s' failed", url, r->path);
	gitrepo_g2.git_remote_free(remote);
	return ret;
}

struct fetch_child {
	const char *dir, *url, *refspec;
	unsigned stall;
};

static int fetch_child_main(void *arg)
{
	const struct fetch_child *fc = arg;
	struct gitrepo *r = NULL;
	struct strbuf e = STRBUF_INIT;
	int rc;

	signal(SIGALRM, SIG_DFL);
	fetch_stall = fc->stall;
	alarm(fc->stall); /* until the server's first sign of life */
	if (fc->refspec)
		rc = gitrepo_open_bare(&r, fc->dir, &e) || gitrepo_fetch(r, fc->url, fc->refspec, &e);
	else
		rc = gitrepo_mirror(fc->url, fc->dir, &e) != 0;
	alarm(0);
	if (rc)
		fprintf(stderr, "%s\n", e.buf);
	if (r)
		gitrepo_close(r);
	strbuf_release(&e);
	return rc;
}

int gitrepo_fetch_within(const char *dir, const char *url, const char *refspec, unsigned stall, double total,
			 struct strbuf *err)
{
	struct fetch_child fc = { dir, url, refspec, stall };
	struct strbuf out = STRBUF_INIT;
	struct proc p = { .fn = fetch_child_main,
			  .arg = &fc,
			  .in = PROC_NULL,
			  .out = PROC_CAPTURE,
			  .err = PROC_TO_OUT,
			  .capture = &out,
			  .capture_max = 4096,
			  .pgroup = true,
			  .death_sig = SIGKILL,
			  .timeout = total,
			  .stop = &proc_stop_signal };
	int rc = proc_run(&p, err);

	strbuf_rtrim(&out);
	if (rc > 0 && p.timed_out)
		strbuf_setf(err, "%s: not done in %.0f s", url, total);
	else if (rc == 128 + SIGALRM)
		strbuf_setf(err, "%s: nothing received for %u s", url, stall);
	else if (rc > 0 && p.stopped)
		strbuf_setf(err, "%s: the fetch was stopped", url);
	else if (rc > 0)
		strbuf_setf(err, "%s", out.len ? out.buf : "the fetch failed");
	strbuf_release(&out);
	return rc ? -1 : 0;
}

void gitrepo_close(struct gitrepo *r)
{
	if (!r)
		return;
	gitrepo_g2.git_repository_free(r->repo);
	free(r->path);
	free(r);
	gitrepo_g2.git_libgit2_shutdown();
}

const char *gitrepo_path(const struct gitrepo *r)
{
	return r->path;
}

static int count_ref(const char *name, void *payload)
{
	(void)name;
	++*(size_t *)payload;
	return 0;
}

size_t gitrepo_count_refs(struct gitrepo *r, const char *glob)
{
	size_t n = 0;

	gitrepo_g2.git_reference_foreach_glob(r->repo, glob, count_ref, &n);
	return n;
}

int gitrepo_lookup_commit(struct gitrepo *r, const char *rev, git_commit **out, struct strbuf *err)
{
	git_object *obj = NULL, *peeled = NULL;

	*out = NULL;
	if (!rev || !*rev) {
		strbuf_setf(err, "an empty revision names no commit");
		return -1;
	}
	if (gitrepo_g2.git_revparse_single(&obj, r->repo, rev))
		return gitrepo_fail(err, "cannot resolve '%s' in '%s'", rev, r->path);
	if (gitrepo_g2.git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT)) {
		strbuf_setf(err, "'%s' in '%s' is a %s, not a commit", rev, r->path,
			    gitrepo_g2.git_object_type2string(gitrepo_g2.git_object_type(obj)));
		gitrepo_g2.git_object_free(obj);
		return -1;
	}
	gitrepo_g2.git_object_free(obj);
	*out = (git_commit *)peeled;
	return 0;
}

int gitrepo_resolve(struct gitrepo *r, const char *rev, char id[GITREPO_HEXSZ + 1],
		    struct strbuf *err)
{
	git_commit *c;

	if (gitrepo_lookup_commit(r, rev, &c, err))
		return -1;
	gitrepo_g2.git_oid_tostr(id, GITREPO_HEXSZ + 1, gitrepo_g2.git_commit_id(c));
	gitrepo_g2.git_commit_free(c);
	return 0;
}

int gitrepo_resolve_in(const char *path, const char *rev, char id[GITREPO_HEXSZ + 1], struct strbuf *err)
{
	struct gitrepo *r = NULL;
	int ret = gitrepo_open(&r, path, err) ? -1 : gitrepo_resolve(r, rev, id, err);

	gitrepo_close(r);
	return ret;
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
			gitrepo_g2.git_oid_fromstr(&c->tree, hex);
		} else if (n == 7 + GITREPO_HEXSZ && !strncmp(p, "parent ", 7)) {
			memcpy(hex, p + 7, GITREPO_HEXSZ);
			hex[GITREPO_HEXSZ] = '\0';
			if (c->nparents < ARRAY_SIZE(c->parents))
				gitrepo_g2.git_oid_fromstr(&c->parents[c->nparents++], hex);
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
	if (!gitrepo_lookup_commit(r, rev, &gc, err)) {
		c->id = *gitrepo_g2.git_commit_id(gc);
		gitrepo_g2.git_commit_free(gc);
	} else if (strlen(rev) != GITREPO_HEXSZ || strspn(rev, "0123456789abcdef") != GITREPO_HEXSZ ||
		   gitrepo_g2.git_oid_fromstr(&c->id, rev)) {
		return -1;	/* err says why */
	}
	if (gitrepo_g2.git_repository_odb(&odb, r->repo) || gitrepo_g2.git_odb_read(&obj, odb, &c->id)) {
		gitrepo_fail(err, "cannot read commit '%s' in '%s'", rev, r->path);
		goto out;
	}
	if (gitrepo_g2.git_odb_object_type(obj) != GIT_OBJECT_COMMIT) {
		strbuf_setf(err, "'%s' in '%s' is not a commit", rev, r->path);
		goto out;
	}
	raw_commit_parse(c, gitrepo_g2.git_odb_object_data(obj), gitrepo_g2.git_odb_object_size(obj));
	strbuf_reset(err);
	ret = 0;
out:
	gitrepo_g2.git_odb_object_free(obj);
	gitrepo_g2.git_odb_free(odb);
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
	/* a name is printed, logged and mailed: a CR or an escape in it is shown, not acted on */
	struct strbuf nm = STRBUF_INIT;
	strbuf_add_oneline(&nm, s, n);
	*name = strbuf_detach(&nm);
	*email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
	char *end;
	long long t = strtoll(gt + 1, &end, 10);
	long tz = end != gt + 1 ? strtol(end, NULL, 10) : 0;
	*when = end != gt + 1 ? t : 0;
	/* +hhmm: minutes east of UTC */
	*offset = tz > -10000 && tz < 10000 ? (int)((tz / 100) * 60 + tz % 100) : 0;
}

/* git's summary: the first paragraph, its lines joined by spaces, its control characters escaped. */
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
		/* one line, whatever the commit holds: an ESC, an OSC or a CR shown, not acted on (logs, mails, status) */
		strbuf_add_oneline(&out, p, n);
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
	if (gitrepo_lookup_commit(r, good, &g, err) || gitrepo_lookup_commit(r, bad, &b, err))
		goto out;
	if (gitrepo_g2.git_revwalk_new(&walk, r->repo)) {
		gitrepo_fail(err, "cannot walk '%s'", r->path);
		goto out;
	}
	/* parents before children, so that each commit's ancestors come first */
	gitrepo_g2.git_revwalk_sorting(walk, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (first_parent)
		gitrepo_g2.git_revwalk_simplify_first_parent(walk);
	if (gitrepo_g2.git_revwalk_push(walk, gitrepo_g2.git_commit_id(b)) ||
	    gitrepo_g2.git_revwalk_hide(walk, gitrepo_g2.git_commit_id(g))) {
		gitrepo_fail(err, "cannot walk from '%s' to '%s'", good, bad);
		goto out;
	}
	while (!gitrepo_g2.git_revwalk_next(&oid, walk)) {
		git_commit *c;
		if (gitrepo_g2.git_commit_lookup(&c, r->repo, &oid)) {
			gitrepo_fail(err, "cannot read a commit of '%s'", r->path);
			goto out;
		}
		size_t i = out->n++;
		out->id = xrealloc(out->id, out->n * sizeof(*out->id));
		out->parents = xrealloc(out->parents, out->n * sizeof(*out->parents));
		out->nparents = xrealloc(out->nparents, out->n * sizeof(*out->nparents));
		gitrepo_g2.git_oid_tostr(out->id[i], GITREPO_HEXSZ + 1, &oid);
		size_t np = first_parent && gitrepo_g2.git_commit_parentcount(c) ? 1 : gitrepo_g2.git_commit_parentcount(c);
		out->nparents[i] = 0;
		out->parents[i] = xcalloc(np ? np : 1, sizeof(**out->parents));
		for (size_t k = 0; k < np; k++) {
			char pid[GITREPO_HEXSZ + 1];
			gitrepo_g2.git_oid_tostr(pid, sizeof(pid), gitrepo_g2.git_commit_parent_id(c, (unsigned)k));
			/* parents come earlier: an index, or none when outside the range */
			for (size_t j = 0; j < i; j++)
				if (!strcmp(out->id[j], pid)) {
					out->parents[i][out->nparents[i]++] = j;
					break;
				}
		}
		gitrepo_g2.git_commit_free(c);
	}
	if (!out->n || strcmp(out->id[out->n - 1], gitrepo_g2.git_oid_tostr_s(gitrepo_g2.git_commit_id(b)))) {
		strbuf_setf(err, "'%s' is not a descendant of '%s' in '%s': nothing to bisect", bad, good, r->path);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		gitrepo_range_release(out);
	gitrepo_g2.git_revwalk_free(walk);
	gitrepo_g2.git_commit_free(g);
	gitrepo_g2.git_commit_free(b);
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
	if (gitrepo_g2.git_tree_lookup(&t, r->repo, &c.tree))
		gitrepo_fail(err, "cannot read the tree of '%s'", rev);
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
	if (!gitrepo_g2.git_oid_equal(&parent, &zero) &&
	    !(pt = commit_tree(r, gitrepo_g2.git_oid_tostr_s(&parent), NULL, err)))
		goto out;
	gitrepo_g2.git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	if (gitrepo_g2.git_diff_tree_to_tree(&diff, r->repo, pt, t, &opts)) {
		gitrepo_fail(err, "cannot diff '%s' against its parent", rev);
		goto out;
	}
	if (gitrepo_g2.git_diff_find_similar(diff, NULL) ||
	    gitrepo_g2.git_diff_foreach(diff, collect_path, NULL, NULL, NULL, out)) {
		gitrepo_fail(err, "cannot list the files '%s' changes", rev);
		goto out;
	}
	ret = 0;
out:
	if (ret)
		gitrepo_paths_release(out);
	gitrepo_g2.git_diff_free(diff);
	gitrepo_g2.git_tree_free(t);
	gitrepo_g2.git_tree_free(pt);
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
	if (gitrepo_g2.git_tree_entry_bypath(&e, t, path)) {
		gitrepo_g2.git_error_clear();
		ret = 1;
		goto out;
	}
	if (gitrepo_g2.git_tree_entry_type(e) != GIT_OBJECT_BLOB ||
	    gitrepo_g2.git_blob_lookup(&b, r->repo, gitrepo_g2.git_tree_entry_id(e))) {
		gitrepo_fail(err, "'%s' at '%s' is not a file", path, rev);
		goto out;
	}
	strbuf_add(out, gitrepo_g2.git_blob_rawcontent(b), (size_t)gitrepo_g2.git_blob_rawsize(b));
	ret = 0;
out:
	gitrepo_g2.git_blob_free(b);
	gitrepo_g2.git_tree_entry_free(e);
	gitrepo_g2.git_tree_free(t);
	return ret;
}

int gitrepo_is_ancestor(struct gitrepo *r, const char *ancestor, const char *rev, struct strbuf *err)
{
	git_commit *a = NULL, *c = NULL;
	int ret = -1;

	if (gitrepo_lookup_commit(r, ancestor, &a, err) || gitrepo_lookup_commit(r, rev, &c, err))
		goto out;
	ret = gitrepo_g2.git_graph_descendant_of(r->repo, gitrepo_g2.git_commit_id(c), gitrepo_g2.git_commit_id(a));
	if (ret < 0)
		gitrepo_fail(err, "cannot walk '%s' in '%s'", rev, r->path);
	else if (gitrepo_g2.git_oid_equal(gitrepo_g2.git_commit_id(a), gitrepo_g2.git_commit_id(c)))
		ret = 1;
out:
	gitrepo_g2.git_commit_free(a);
	gitrepo_g2.git_commit_free(c);
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
	gitrepo_g2.git_oid_tostr(ci->id, sizeof(ci->id), &c.id);
	ci->message = xstrdup(c.message.buf);
	ci->subject = summary_of(c.message.buf);
	signature_parse(c.author.buf, &ci->author_name, &ci->author_email, &ci->author_time, &ci->author_offset);
	signature_parse(c.committer.buf, &ci->committer_name, &ci->committer_email, &ci->committer_time,
			&ci->committer_offset);
	ci->nparents = c.nparents;
	if (ci->nparents) {
		ci->parents = xcalloc(ci->nparents, sizeof(*ci->parents));
		for (size_t i = 0; i < ci->nparents; i++)
			gitrepo_g2.git_oid_tostr(ci->parents[i], GITREPO_HEXSZ + 1, &c.parents[i]);
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

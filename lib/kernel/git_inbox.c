/*
 * git_inbox: what the robot does with mail archives and the patches in
 * them — a public-inbox epoch read one message per commit, incrementally,
 * and a patch applied as `git am` would into a commit of the robot's own
 * repository (objects only: nothing is written outside it). See git.h.
 */
#include "git_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The walk of rev hiding since, oldest first: NULL with err set when it cannot be made. */
static git_revwalk *new_walk(struct gitrepo *r, const char *rev, const char *since, struct strbuf *err)
{
	git_revwalk *w = NULL;
	git_commit *head = NULL, *old = NULL;

	if (gitrepo_lookup_commit(r, rev, &head, err))
		return NULL;
	if (gitrepo_g2.git_revwalk_new(&w, r->repo)) {
		gitrepo_fail(err, "'%s': cannot walk %s", r->path, rev);
		gitrepo_g2.git_commit_free(head);
		return NULL;
	}
	gitrepo_g2.git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_REVERSE);
	if (gitrepo_g2.git_revwalk_push(w, gitrepo_g2.git_commit_id(head)))
		gitrepo_fail(err, "'%s': cannot walk %s", r->path, rev);
	else if (since && *since) {
		struct strbuf e = STRBUF_INIT;
		/* a commit the archive no longer has (rewritten by a purge): read it all again */
		if (!gitrepo_lookup_commit(r, since, &old, &e))
			gitrepo_g2.git_revwalk_hide(w, gitrepo_g2.git_commit_id(old));
		gitrepo_g2.git_error_clear();
		strbuf_release(&e);
	}
	gitrepo_g2.git_commit_free(old);
	gitrepo_g2.git_commit_free(head);
	return w;
}

/* The blob at path in commit id: 1 when there is none. */
static int file_of(struct gitrepo *r, const git_oid *id, const char *path, git_blob **out)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_tree_entry *e = NULL;
	int ret = 1;

	*out = NULL;
	if (!gitrepo_g2.git_commit_lookup(&c, r->repo, id) && !gitrepo_g2.git_commit_tree(&t, c) &&
	    !gitrepo_g2.git_tree_entry_bypath(&e, t, path) && gitrepo_g2.git_tree_entry_type(e) == GIT_OBJECT_BLOB &&
	    !gitrepo_g2.git_blob_lookup(out, r->repo, gitrepo_g2.git_tree_entry_id(e)))
		ret = 0;
	gitrepo_g2.git_error_clear();
	gitrepo_g2.git_tree_entry_free(e);
	gitrepo_g2.git_tree_free(t);
	gitrepo_g2.git_commit_free(c);
	return ret;
}

int gitrepo_each_file(struct gitrepo *r, const char *rev, const char *since, const char *path, size_t max_size,
		      size_t max_commits, gitrepo_file_fn fn, void *arg, struct strbuf *err)
{
	git_revwalk *w = new_walk(r, rev, since, err);
	git_oid oid;
	size_t n = 0;
	int ret = 0;

	if (!w)
		return -1;
	while (!ret && n < max_commits && !gitrepo_g2.git_revwalk_next(&oid, w)) {
		char id[GITREPO_HEXSZ + 1];
		git_blob *b;

		n++;
		gitrepo_g2.git_oid_tostr(id, sizeof(id), &oid);
		if (file_of(r, &oid, path, &b))
			continue;
		size_t len = (size_t)gitrepo_g2.git_blob_rawsize(b);
		ret = fn(id, len > max_size ? NULL : gitrepo_g2.git_blob_rawcontent(b), len, arg);
		gitrepo_g2.git_blob_free(b);
	}
	gitrepo_g2.git_revwalk_free(w);
	return ret;
}

int gitrepo_at_time(struct gitrepo *r, const char *rev, int64_t t, char id[GITREPO_HEXSZ + 1], struct strbuf *err)
{
	git_commit *c = NULL;

	if (gitrepo_lookup_commit(r, rev, &c, err))
		return -1;
	/* bounded: a first-parent history of a million commits is a kernel's */
	for (size_t k = 0; k < 1000000 && gitrepo_g2.git_commit_time(c) > t; k++) {
		git_commit *p = NULL;
		if (!gitrepo_g2.git_commit_parentcount(c) || gitrepo_g2.git_commit_parent(&p, c, 0))
			break;
		gitrepo_g2.git_commit_free(c);
		c = p;
	}
	gitrepo_g2.git_error_clear();
	gitrepo_g2.git_oid_tostr(id, GITREPO_HEXSZ + 1, gitrepo_g2.git_commit_id(c));
	gitrepo_g2.git_commit_free(c);
	return 0;
}

/* A path a patch may touch: relative, inside the tree, never into .git. */
static bool safe_path(const char *p)
{
	if (!p || !*p)
		return true; /* /dev/null: a file made or deleted */
	if (*p == '/')
		return false;
	for (const char *s = p; *s;) {
		size_t n = strcspn(s, "/");
		if ((n == 2 && !strncmp(s, "..", 2)) || (n == 1 && *s == '.') || n == 0 ||
		    (n == 4 && !strncasecmp(s, ".git", 4)))
			return false;
		s += n;
		s += *s == '/';
	}
	return true;
}

/* Why the patch's deltas are refused, in err: 2; 0 when none is. */
static int refuse_deltas(git_diff *d, struct strbuf *err)
{
	size_t n = gitrepo_g2.git_diff_num_deltas(d);

	if (!n) {
		strbuf_setf(err, "the patch changes no file");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *dl = gitrepo_g2.git_diff_get_delta(d, i);
		const char *op = dl->old_file.path, *np = dl->new_file.path;
		if (!safe_path(op) || !safe_path(np)) {
			strbuf_setf(err, "the patch's path '");
			strbuf_add_name(err, safe_path(op) ? np : op);
			strbuf_addstr(err, "' leaves the tree (absolute, '..' or '.git')");
			return 2;
		}
		if (dl->new_file.mode == GIT_FILEMODE_LINK || dl->old_file.mode == GIT_FILEMODE_LINK ||
		    dl->new_file.mode == GIT_FILEMODE_COMMIT || dl->old_file.mode == GIT_FILEMODE_COMMIT) {
			strbuf_setf(err, "the patch makes '");
			strbuf_add_name(err, np ? np : op);
			strbuf_addstr(err, "' a symlink or submodule, which lkprobot does not apply");
			return 2;
		}
		if (dl->flags & GIT_DIFF_FLAG_BINARY) {
			strbuf_setf(err, "the patch has a binary diff of '");
			strbuf_add_name(err, np ? np : op);
			strbuf_addstr(err, "', which lkprobot does not apply");
			return 2;
		}
	}
	return 0;
}

/* The commit of tree idx on parent, by a's author, committed by the same at the same time. */
static int make_commit(struct gitrepo *r, git_commit *parent, git_index *idx, const struct gitrepo_author *a,
		       const char *message, git_oid *id, struct strbuf *err)
{
	git_oid tree_id;
	git_tree *tree = NULL;
	git_signature *au = NULL, *co = NULL;
	const git_commit *parents[1] = { parent };
	int ret = -1;

	if (gitrepo_g2.git_index_write_tree_to(&tree_id, idx, r->repo) ||
	    gitrepo_g2.git_tree_lookup(&tree, r->repo, &tree_id))
		gitrepo_fail(err, "cannot write the patch's tree");
	else if (gitrepo_g2.git_signature_new(&au, a->name, a->email, a->time, a->offset) ||
		 gitrepo_g2.git_signature_new(&co, a->name, a->email, a->time, a->offset))
		gitrepo_fail(err, "the patch's author '%s <%s>' is no git signature", a->name, a->email);
	else if (gitrepo_g2.git_commit_create(id, r->repo, NULL, au, co, "UTF-8", message, tree, 1, parents))
		gitrepo_fail(err, "cannot write the patch's commit");
	else
		ret = 0;
	gitrepo_g2.git_signature_free(au);
	gitrepo_g2.git_signature_free(co);
	gitrepo_g2.git_tree_free(tree);
	return ret;
}

/* Where git_apply_to_tree() is: the file and hunk being applied, the ones that failed when it fails. */
struct apply_at {
	const char *file;
	int hunk; /* 1 = the file's first; 0: none yet (the file itself was not there) */
	char header[GIT_DIFF_HUNK_HEADER_SIZE];
};

static int note_delta(const git_diff_delta *d, void *payload)
{
	struct apply_at *at = payload;

	at->file = d->new_file.path ? d->new_file.path : d->old_file.path;
	at->hunk = 0;
	return 0;
}

static int note_hunk(const git_diff_hunk *h, void *payload)
{
	struct apply_at *at = payload;
	size_t n = h->header_len < sizeof(at->header) ? h->header_len : sizeof(at->header) - 1;

	at->hunk++;
	memcpy(at->header, h->header, n);
	while (n && (at->header[n - 1] == '\n' || at->header[n - 1] == '\r'))
		n--;
	at->header[n] = '\0';
	return 0;
}

/* Why a patch does not apply on parent, from where it stopped: its file, and its hunk when one failed. */
static void not_applied(struct strbuf *err, const struct apply_at *at, const char *parent)
{
	const git_error *e = gitrepo_g2.git_error_last();

	strbuf_reset(err);
	strbuf_add_name(err, at->file ? at->file : "it");
	if (at->hunk) {
		strbuf_addf(err, ": hunk #%d (", at->hunk);
		strbuf_add_name(err, at->header);
		strbuf_addf(err, ") does not apply on %.12s", parent);
	} else {
		strbuf_addf(err, " does not apply on %.12s: %s", parent,
			    e && e->message && *e->message ? "" : "no such file there");
		if (e && e->message && *e->message)
			strbuf_add_name(err, e->message);
	}
}

int gitrepo_apply(struct gitrepo *r, const char *parent, const char *diff, size_t len, const struct gitrepo_author *a,
		  const char *message, char out[GITREPO_HEXSZ + 1], struct strbuf *err)
{
	git_commit *p = NULL;
	git_tree *t = NULL;
	git_diff *d = NULL;
	git_index *idx = NULL;
	git_apply_options ao;
	struct apply_at at = { 0 };
	git_oid id;
	int ret = -1;

	if (gitrepo_lookup_commit(r, parent, &p, err))
		return -1;
	if (gitrepo_g2.git_diff_from_buffer(&d, diff, len)) {
		ret = 2;
		gitrepo_fail(err, "the patch is no diff git reads");
	} else if ((ret = refuse_deltas(d, err))) {
		;
	} else if (gitrepo_g2.git_commit_tree(&t, p)) {
		ret = gitrepo_fail(err, "cannot read the tree of %.12s", parent);
	} else if (gitrepo_g2.git_apply_options_init(&ao, GIT_APPLY_OPTIONS_VERSION) ||
		   (ao.delta_cb = note_delta, ao.hunk_cb = note_hunk, ao.payload = &at, 0) ||
		   gitrepo_g2.git_apply_to_tree(&idx, r->repo, t, d, &ao)) {
		ret = 1;
		not_applied(err, &at, parent);
	} else if (!(ret = make_commit(r, p, idx, a, message, &id, err))) {
		gitrepo_g2.git_oid_tostr(out, GITREPO_HEXSZ + 1, &id);
	}
	gitrepo_g2.git_index_free(idx);
	gitrepo_g2.git_diff_free(d);
	gitrepo_g2.git_tree_free(t);
	gitrepo_g2.git_commit_free(p);
	return ret;
}

int gitrepo_diff_since(struct gitrepo *r, const char *onto, const char *tip, struct strbuf *out, struct strbuf *err)
{
	git_commit *a = NULL, *b = NULL, *base = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *d = NULL;
	git_diff_options opts;
	git_buf buf = { 0 };
	git_oid mb;
	int ret = -1;

	if (gitrepo_lookup_commit(r, onto, &a, err) || gitrepo_lookup_commit(r, tip, &b, err))
		goto out;
	int rc = gitrepo_g2.git_merge_base(&mb, r->repo, gitrepo_g2.git_commit_id(a), gitrepo_g2.git_commit_id(b));
	if (rc == GIT_ENOTFOUND) {
		strbuf_setf(err, "%.12s and %.12s share no history", onto, tip);
		ret = 1;
	} else if (rc || gitrepo_g2.git_commit_lookup(&base, r->repo, &mb) || gitrepo_g2.git_commit_tree(&ta, base) ||
		   gitrepo_g2.git_commit_tree(&tb, b)) {
		gitrepo_fail(err, "cannot find what %.12s brings on %.12s", tip, onto);
	} else if (gitrepo_g2.git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION) ||
		   gitrepo_g2.git_diff_tree_to_tree(&d, r->repo, ta, tb, &opts) ||
		   gitrepo_g2.git_diff_to_buf(&buf, d, GIT_DIFF_FORMAT_PATCH)) {
		gitrepo_fail(err, "cannot diff %.12s against its merge base with %.12s", tip, onto);
	} else {
		strbuf_add(out, buf.ptr ? buf.ptr : "", buf.size);
		ret = 0;
	}
out:
	gitrepo_g2.git_buf_dispose(&buf);
	gitrepo_g2.git_diff_free(d);
	gitrepo_g2.git_tree_free(ta);
	gitrepo_g2.git_tree_free(tb);
	gitrepo_g2.git_commit_free(base);
	gitrepo_g2.git_commit_free(b);
	gitrepo_g2.git_commit_free(a);
	return ret;
}

int gitrepo_set_ref(struct gitrepo *r, const char *ref, const char *id, struct strbuf *err)
{
	git_reference *out = NULL;
	git_oid oid;
	int valid = 0;

	if (gitrepo_g2.git_reference_name_is_valid(&valid, ref) || !valid) {
		strbuf_setf(err, "'");
		strbuf_add_name(err, ref);
		strbuf_addstr(err, "' is no name git takes for a branch");
		return -1;
	}
	if (gitrepo_g2.git_oid_fromstr(&oid, id))
		return gitrepo_fail(err, "'%s' is no commit id", id);
	if (gitrepo_g2.git_reference_create(&out, r->repo, ref, &oid, 1, "lkprobot: a series applied"))
		return gitrepo_fail(err, "cannot point %s at %.12s", ref, id);
	gitrepo_g2.git_reference_free(out);
	return 0;
}

struct info_refs {
	struct gitrepo *r;
	struct strbuf *out;
};

static int info_ref(const char *name, void *payload)
{
	struct info_refs *ir = payload;
	git_oid oid;
	git_object *obj = NULL, *peeled = NULL;
	char hex[GITREPO_HEXSZ + 1];

	if (gitrepo_g2.git_reference_name_to_id(&oid, ir->r->repo, name))
		return 0; /* a symbolic ref to nothing: not listed */
	strbuf_addf(ir->out, "%s\t%s\n", gitrepo_g2.git_oid_tostr(hex, sizeof(hex), &oid), name);
	if (!gitrepo_g2.git_object_lookup(&obj, ir->r->repo, &oid, GIT_OBJECT_ANY) &&
	    gitrepo_g2.git_object_type(obj) == GIT_OBJECT_TAG &&
	    !gitrepo_g2.git_object_peel(&peeled, obj, GIT_OBJECT_COMMIT))
		strbuf_addf(ir->out, "%s\t%s^{}\n",
			    gitrepo_g2.git_oid_tostr(hex, sizeof(hex), gitrepo_g2.git_object_id(peeled)), name);
	gitrepo_g2.git_object_free(peeled);
	gitrepo_g2.git_object_free(obj);
	return 0;
}

int gitrepo_info_refs(struct gitrepo *r, struct strbuf *out, struct strbuf *err)
{
	struct info_refs ir = { r, out };

	if (gitrepo_g2.git_reference_foreach_glob(r->repo, "refs/heads/*", info_ref, &ir) ||
	    gitrepo_g2.git_reference_foreach_glob(r->repo, "refs/tags/*", info_ref, &ir))
		return gitrepo_fail(err, "cannot list the refs of %s", r->path);
	return 0;
}

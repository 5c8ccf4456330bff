/*
 * git_checkout: a commit's tree written into a plain directory, incrementally
 * from the tree its state file names (gitrepo_checkout, see git.h). It writes
 * blobs itself instead of calling git_checkout_tree(): that one judges
 * "unchanged" with the repository's own index and HEAD, which describe the
 * repository's work tree, not our directory, and it would rewrite the
 * repository's index. What it shares with git.c is in git_int.h.
 */
#include "git_int.h"
#include "../sys/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

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
	if (gitrepo_g2.git_blob_lookup(&blob, co->r->repo, id))
		return gitrepo_fail(co->err, "cannot read '%s' from '%s'", rel, co->r->path);
	if (!lstat(co->path.buf, &st) &&
	    (S_ISDIR(st.st_mode) ? fsutil_remove_tree(co->path.buf) : unlink(co->path.buf)) && errno != ENOENT) {
		strbuf_setf(co->err, "cannot replace '%s': %s", co->path.buf, strerror(errno));
		goto out;
	}
	const char *data = gitrepo_g2.git_blob_rawcontent(blob);
	size_t len = (size_t)gitrepo_g2.git_blob_rawsize(blob);
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
	gitrepo_g2.git_blob_free(blob);
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
		if (!S_ISLNK(st.st_mode) || gitrepo_g2.git_blob_lookup(&blob, co->r->repo, id))
			return false;
		size_t len = (size_t)gitrepo_g2.git_blob_rawsize(blob);
		char *buf = xmalloc(len + 1);
		ssize_t n = readlink(co->path.buf, buf, len + 1);
		same = n >= 0 && (size_t)n == len && !memcmp(buf, gitrepo_g2.git_blob_rawcontent(blob), len);
		free(buf);
		gitrepo_g2.git_blob_free(blob);
		return same;
	}
	if (!S_ISREG(st.st_mode) ||
	    !!(st.st_mode & S_IXUSR) != (mode == GIT_FILEMODE_BLOB_EXECUTABLE))
		return false;
	return !gitrepo_g2.git_odb_hashfile(&have, co->path.buf, GIT_OBJECT_BLOB) && gitrepo_g2.git_oid_equal(&have, id);
}

static int full_write_cb(const char *root, const git_tree_entry *e, void *payload)
{
	struct co *co = payload;
	const char *name = gitrepo_g2.git_tree_entry_name(e);
	git_filemode_t mode = gitrepo_g2.git_tree_entry_filemode(e);
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
	if (same_as_blob(co, gitrepo_g2.git_tree_entry_id(e), mode))
		co->st.unchanged++;
	else if (write_entry(co, rel.buf, gitrepo_g2.git_tree_entry_id(e), mode)) {
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
		bool in_tree = !gitrepo_g2.git_tree_entry_bypath(&te, co->tree, sub.buf);
		git_filemode_t mode = in_tree ? gitrepo_g2.git_tree_entry_filemode(te) : 0;
		gitrepo_g2.git_tree_entry_free(te);
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
	if (gitrepo_g2.git_tree_walk(co->tree, GIT_TREEWALK_PRE, full_write_cb, co)) {
		if (!co->failed)
			return gitrepo_fail(co->err, "cannot check out into '%s'", co->dir);
		return -1;
	}
	return 0;
}

static int checkout_diff(struct co *co, git_tree *old)
{
	git_diff_options opts;
	git_diff *diff = NULL;
	int ret = -1;

	gitrepo_g2.git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_TYPECHANGE;
	if (gitrepo_g2.git_diff_tree_to_tree(&diff, co->r->repo, old, co->tree, &opts))
		return gitrepo_fail(co->err, "cannot compare trees in '%s'", co->r->path);
	size_t n = gitrepo_g2.git_diff_num_deltas(diff);
	/* removals first: a directory may become a file of the same name */
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = gitrepo_g2.git_diff_get_delta(diff, i);
		if (d->status == GIT_DELTA_DELETED && d->old_file.mode != GIT_FILEMODE_COMMIT &&
		    remove_entry(co, d->old_file.path))
			goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = gitrepo_g2.git_diff_get_delta(diff, i);
		if (d->status == GIT_DELTA_DELETED || d->new_file.mode == GIT_FILEMODE_COMMIT)
			continue;
		if (write_entry(co, d->new_file.path, &d->new_file.id, d->new_file.mode))
			goto out;
	}
	ret = 0;
out:
	gitrepo_g2.git_diff_free(diff);
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
		if (gitrepo_g2.git_oid_fromstr(&oid, state.buf + GITREPO_HEXSZ + 1) ||
		    gitrepo_g2.git_tree_lookup(&t, co->r->repo, &oid))
			t = NULL;
	}
	gitrepo_g2.git_error_clear();
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

	if (gitrepo_lookup_commit(r, id, &c, err))
		goto out;
	if (gitrepo_g2.git_commit_tree(&co.tree, c)) {
		gitrepo_fail(err, "cannot read the tree of '%s'", id);
		goto out;
	}
	if (fsutil_mkdir_p(dir)) {
		strbuf_setf(err, "cannot create directory '%s': %s", dir, strerror(errno));
		goto out;
	}
	gitrepo_g2.git_oid_tostr(tree_hex, sizeof(tree_hex), gitrepo_g2.git_tree_id(co.tree));
	strbuf_addf(&state_path, "%s/%s", dir, GITREPO_CHECKOUT_STATE);
	strbuf_addf(&state, "%s %s\n", gitrepo_g2.git_oid_tostr_s(gitrepo_g2.git_commit_id(c)), tree_hex);

	old = previous_tree(&co);
	co.st.incremental = old != NULL;
	if (old && gitrepo_g2.git_oid_equal(gitrepo_g2.git_tree_id(old), gitrepo_g2.git_tree_id(co.tree))) {
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
	gitrepo_g2.git_tree_free(old);
	gitrepo_g2.git_tree_free(co.tree);
	gitrepo_g2.git_commit_free(c);
	strbuf_release(&co.path);
	strbuf_release(&co.parent);
	strbuf_release(&state_path);
	strbuf_release(&state);
	return ret;
}

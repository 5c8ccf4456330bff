/*
 * git (prefix gitrepo_): the robot's view of a git repository — resolve a
 * revision to a commit id, read a commit's subject and author, and check a
 * commit's tree out into a plain directory that is reused across commits.
 * The only file that includes <git2.h>; libgit2's errors are translated here
 * into one line in `err`. It knows nothing about kernels or builds.
 */
#ifndef LKP_GIT_H
#define LKP_GIT_H

#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GITREPO_HEXSZ 40	/* a full (SHA-1) object id in hex */

struct gitrepo;			/* an open repository; opaque */

/*
 * Open the repository at `path` (a work tree's top directory or a bare
 * repository; the parents of `path` are not searched). 0 and *out set
 * (gitrepo_close() it), or -1 with "'path': not a git repository (...)" in err.
 */
int gitrepo_open(struct gitrepo **out, const char *path, struct strbuf *err);
void gitrepo_close(struct gitrepo *r);
/*
 * Bring the bare repository at `dir` (made when missing) up to date with the
 * one at `url` (a path, file://, https://, git://, ssh://): every branch as
 * refs/heads/<name> — a force-pushed branch replaced, a deleted one removed
 * — and every tag. Objects are never removed, so commits known before a
 * force-push stay readable. 0, or -1 with one line in err.
 */
int gitrepo_mirror(const char *url, const char *dir, struct strbuf *err);
/*
 * gitrepo_mirror (refspec NULL) or gitrepo_fetch of refspec into the bare
 * repository at dir (made when missing), in a child process, so that a
 * server that stops answering cannot hold the caller (libgit2 has no
 * timeout of its own): given up when nothing arrives for `stall` seconds
 * (0: no such limit; a big first clone that moves is never cut) or when
 * it has taken `total`. 0, or -1 with one line in err ("nothing received
 * for N s", "not done in N s", or the fetch's own error).
 */
int gitrepo_fetch_within(const char *dir, const char *url, const char *refspec, unsigned stall, double total,
			 struct strbuf *err);

/* The path it was opened with. */
const char *gitrepo_path(const struct gitrepo *r);
/* How many references match the pattern glob (the branches: "refs/heads/" and a star); 0 in an unfilled mirror. */
size_t gitrepo_count_refs(struct gitrepo *r, const char *glob);

/*
 * Resolve a revision (full or abbreviated id, branch, tag, HEAD~2, any
 * `git rev-parse` expression that names a commit or a tag of one) to the
 * commit's full id in hex. 0, or -1 with one line in err.
 */
int gitrepo_resolve(struct gitrepo *r, const char *rev, char id[GITREPO_HEXSZ + 1],
		    struct strbuf *err);
/* The same in the repository at path, opened and closed for it (a command's --tree/--commit checked). */
int gitrepo_resolve_in(const char *path, const char *rev, char id[GITREPO_HEXSZ + 1], struct strbuf *err);

/* What the reports, bisection and mails need to know about a commit. */
struct gitrepo_commit {
	char id[GITREPO_HEXSZ + 1];
	char *subject;		/* the first paragraph of the message, on one line, control characters as \r, \x1b */
	char *message;		/* the whole message (trailers included) */
	char *author_name, *author_email;
	int64_t author_time;	/* seconds since the epoch */
	int author_offset;	/* the author's time zone, minutes east of UTC */
	char *committer_name, *committer_email;
	int64_t committer_time;
	int committer_offset;
	size_t nparents;
	char (*parents)[GITREPO_HEXSZ + 1];
};

/* Resolve `rev` and read its commit into *c (gitrepo_commit_release() it). */
int gitrepo_commit_info(struct gitrepo *r, const char *rev, struct gitrepo_commit *c,
			struct strbuf *err);
void gitrepo_commit_release(struct gitrepo_commit *c);

/*
 * The commits a bisection from good to bad looks at: ancestors of bad that
 * are not ancestors of good, merges included (first_parent: only the first
 * parent of each), parents before children; the last is bad. parents[i]
 * holds the indices of commit i's parents inside the range.
 */
struct gitrepo_range {
	size_t n;
	char (*id)[GITREPO_HEXSZ + 1];
	size_t **parents;
	size_t *nparents;
};
/* 0, or -1 with one line in err (bad is not a descendant of good, ...). */
int gitrepo_range(struct gitrepo *r, const char *good, const char *bad, bool first_parent,
		  struct gitrepo_range *out, struct strbuf *err);
void gitrepo_range_release(struct gitrepo_range *g);

/* The paths a commit changes against its first parent (all its files for a root commit). */
struct gitrepo_paths {
	char **v;
	size_t n;
};
/* 0, or -1 with one line in err. Renames give both paths. */
int gitrepo_changed_paths(struct gitrepo *r, const char *rev, struct gitrepo_paths *out, struct strbuf *err);
void gitrepo_paths_release(struct gitrepo_paths *p);

/*
 * Revert commit culprit on top of commit onto, as `git revert` would (a
 * merge against its first parent), into a new commit of the robot's own —
 * parent onto, dated as onto, so the same revert is the same commit — kept
 * under refs/lkprobot/reverts/ (no branch of the user's moves). Its id in
 * out. 0; 1 when it does not apply (conflicts: err names their paths) or
 * there is nothing to revert to (a root commit); -1 with err set.
 */
int gitrepo_revert(struct gitrepo *r, const char *culprit, const char *onto, char out[GITREPO_HEXSZ + 1],
		   struct strbuf *err);

/* Is ancestor an ancestor of rev (or rev itself)? 1, 0, or -1 with err set. */
int gitrepo_is_ancestor(struct gitrepo *r, const char *ancestor, const char *rev, struct strbuf *err);

/* The file at path in rev's tree, appended to out: 0, 1 when there is no such file, -1 with err set. */
int gitrepo_read(struct gitrepo *r, const char *rev, const char *path, struct strbuf *out, struct strbuf *err);

struct gitrepo_checkout_stats {
	bool incremental;	/* only the difference to the previous checkout was applied */
	size_t written;		/* files (and symlinks) written */
	size_t removed;		/* files removed */
	size_t unchanged;	/* files found already right and left alone (full checkouts) */
};

/*
 * Make `dir` (created if missing) hold exactly the tree of commit `id`, as
 * plain files: no .git, no index. Only files that differ are written, so
 * the modification time of every unchanged file is kept and make(1) in a
 * build directory that compiled an earlier checkout rebuilds only what
 * changed. `dir` records what it holds in `dir`/.lkprobot-checkout; when
 * that names a tree this repository has, only the difference between the
 * two trees is applied; otherwise (first use, another repository, an
 * interrupted checkout) every file is compared with its blob and written
 * if it differs, and files not in the tree are removed. The directory
 * belongs to the caller's robot: edits made to it by hand may be kept by
 * an incremental checkout. Entries that would leave `dir` (`..`, `.git`,
 * paths through symlinks) are refused. 0, or -1 with one line in err.
 * `stats` may be NULL.
 */
int gitrepo_checkout(struct gitrepo *r, const char *id, const char *dir,
		     struct gitrepo_checkout_stats *stats, struct strbuf *err);

/* The name of the file gitrepo_checkout() keeps in the directory. */
#define GITREPO_CHECKOUT_STATE ".lkprobot-checkout"

/*
 * The git blob id of `len` bytes (what `git hash-object` prints for a file
 * with that content), as 40 hex digits. Needs no repository.
 */
void gitrepo_hash(const void *data, size_t len, char out[GITREPO_HEXSZ + 1]);

/* ---- mail archives and patches (git_inbox.c) ---- */

/*
 * Called for each commit of gitrepo_each_file() with the file's content;
 * data is NULL (len its size) when the file is larger than the caller's
 * max. A nonzero return stops the walk with that value.
 */
typedef int (*gitrepo_file_fn)(const char *id, const char *data, size_t len, void *arg);
/*
 * The file at path in each commit of rev not reachable from since (NULL or
 * a commit the repository no longer has: every commit), oldest first, as a
 * public-inbox epoch holds one message per commit in the file "m"; commits
 * without the file are skipped. At most max_commits are read (the walk is
 * bounded; the last one read is where the next walk starts). 0, fn's
 * nonzero value, or -1 with one line in err.
 */
int gitrepo_each_file(struct gitrepo *r, const char *rev, const char *since, const char *path, size_t max_size,
		      size_t max_commits, gitrepo_file_fn fn, void *arg, struct strbuf *err);

/* Open the bare repository at dir, made (and its parents) when missing. 0, or -1 with err set. */
int gitrepo_open_bare(struct gitrepo **out, const char *dir, struct strbuf *err);
/* Fetch url's refs by refspec ("+refs/heads/<glob>:refs/lkprobot/trees/linux/<glob>", a star for glob) into r. 0, or -1 with err. */
int gitrepo_fetch(struct gitrepo *r, const char *url, const char *refspec, struct strbuf *err);
/* The newest commit of rev's first-parent history committed at or before t (rev itself when none is). */
int gitrepo_at_time(struct gitrepo *r, const char *rev, int64_t t, char id[GITREPO_HEXSZ + 1], struct strbuf *err);

/* Who wrote a patch and when, for its commit (the mail's From: and Date:). */
struct gitrepo_author {
	const char *name, *email;
	int64_t time;
	int offset; /* minutes east of UTC */
};
/*
 * Apply a patch (a diff in git's format, as a mail carries it) to the tree
 * of commit parent, as `git am` would, into a new commit with the author's
 * name, email and time and message; the committer is the author too (no
 * address of the robot's in the report's Cc), so the same series applied
 * twice gives the same commits. Only
 * objects are written (no work tree, no ref). Paths that leave the tree
 * (absolute, "..", ".git"), symlinks, submodules and binary diffs are
 * refused. 0 with out set; 1 when it does not apply (err: the file); 2 when
 * refused (err: why); -1 with err set.
 */
int gitrepo_apply(struct gitrepo *r, const char *parent, const char *diff, size_t len, const struct gitrepo_author *a,
		  const char *message, char out[GITREPO_HEXSZ + 1], struct strbuf *err);
/*
 * What tip brings since its merge base with onto, as one diff in git's
 * format (`git diff $(git merge-base onto tip) tip`), appended to out: a
 * branch's changes, to apply on onto. 0 (nothing appended: it brings
 * nothing), 1 when the two share no history, -1 with err set.
 */
int gitrepo_diff_since(struct gitrepo *r, const char *onto, const char *tip, struct strbuf *out, struct strbuf *err);
/* Point ref (refs/heads/...) at id, made or moved; a name git refuses is an error. 0, or -1 with err. */
int gitrepo_set_ref(struct gitrepo *r, const char *ref, const char *id, struct strbuf *err);
/*
 * What git's dumb HTTP protocol reads as info/refs (git update-server-info
 * writes it): "<id>\t<ref>\n" for each branch and tag, an annotated tag
 * followed by "<commit>\t<ref>^{}\n". Appended to out: 0, or -1 with err.
 */
int gitrepo_info_refs(struct gitrepo *r, struct strbuf *out, struct strbuf *err);

#endif

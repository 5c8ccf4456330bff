/*
 * git_revert: a commit reverted on top of another, as `git revert` would,
 * into a commit of the robot's own (under refs/lkprobot/reverts/, never on
 * a branch of the user's): the revert check of a named culprit. See git.h.
 */
#include "git_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The paths of the index's conflicts, "a.c, b.c" (three at most, then "..."). */
static void conflicts(git_index *idx, struct strbuf *out)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *ours, *theirs;
	size_t k = 0;

	if (gitrepo_g2.git_index_conflict_iterator_new(&it, idx))
		return;
	while (!gitrepo_g2.git_index_conflict_next(&anc, &ours, &theirs, it)) {
		const git_index_entry *e = ours ? ours : theirs ? theirs : anc;
		if (k++ == 3) {
			strbuf_addstr(out, ", ...");
			break;
		}
		strbuf_addf(out, "%s%s", k > 1 ? ", " : "", e && e->path ? e->path : "?");
	}
	gitrepo_g2.git_index_conflict_iterator_free(it);
}

/* The revert's commit: tree of idx, parent onto, message as git revert writes it, dated as onto. */
static int revert_commit(struct gitrepo *r, git_commit *culprit, git_commit *onto, git_index *idx, git_oid *id,
			 struct strbuf *err)
{
	git_oid tree_id;
	git_tree *tree = NULL;
	git_signature *sig = NULL;
	const git_signature *when = gitrepo_g2.git_commit_committer(onto);
	char cid[GITREPO_HEXSZ + 1];
	int ret = -1;

	gitrepo_g2.git_oid_tostr(cid, sizeof(cid), gitrepo_g2.git_commit_id(culprit));
	/* the same revert again is the same commit: its runs are found again */
	if (gitrepo_g2.git_index_write_tree_to(&tree_id, idx, r->repo) ||
	    gitrepo_g2.git_tree_lookup(&tree, r->repo, &tree_id) ||
	    gitrepo_g2.git_signature_new(&sig, "lkprobot", "lkprobot@localhost", when->when.time, when->when.offset))
		return gitrepo_fail(err, "cannot write the revert of %.12s", cid);
	char *msg =
		xasprintf("Revert \"%s\"\n\nThis reverts commit %s.\n", gitrepo_g2.git_commit_summary(culprit), cid);
	const git_commit *parents[1] = { onto };
	if (gitrepo_g2.git_commit_create(id, r->repo, NULL, sig, sig, "UTF-8", msg, tree, 1, parents))
		gitrepo_fail(err, "cannot write the revert of %.12s", cid);
	else
		ret = 0;
	free(msg);
	gitrepo_g2.git_signature_free(sig);
	gitrepo_g2.git_tree_free(tree);
	return ret;
}

/* refs/lkprobot/reverts/<culprit>-on-<onto>: the robot's commit kept from git gc. */
static int keep_ref(struct gitrepo *r, const char *culprit, const char *onto, const git_oid *id, struct strbuf *err)
{
	git_reference *ref = NULL;
	char *name = xasprintf("refs/lkprobot/reverts/%.12s-on-%.12s", culprit, onto);
	int ret = gitrepo_g2.git_reference_create(&ref, r->repo, name, id, 1, "lkprobot: revert check")
			  ? gitrepo_fail(err, "cannot record %s", name)
			  : 0;

	gitrepo_g2.git_reference_free(ref);
	free(name);
	return ret;
}

int gitrepo_revert(struct gitrepo *r, const char *culprit, const char *onto, char out[GITREPO_HEXSZ + 1],
		   struct strbuf *err)
{
	git_commit *c = NULL, *o = NULL;
	git_index *idx = NULL;
	git_oid id;
	int ret = -1;

	if (gitrepo_lookup_commit(r, culprit, &c, err) || gitrepo_lookup_commit(r, onto, &o, err))
		goto out;
	/* a merge is reverted against its first parent, as `git revert -m 1` */
	unsigned mainline = gitrepo_g2.git_commit_parentcount(c) > 1 ? 1 : 0;
	if (!gitrepo_g2.git_commit_parentcount(c)) {
		strbuf_setf(err, "%.12s is a root commit: there is nothing to revert it to", culprit);
		ret = 1;
		goto out;
	}
	if (gitrepo_g2.git_revert_commit(&idx, r->repo, c, o, mainline, NULL)) {
		gitrepo_fail(err, "cannot revert %.12s on %.12s", culprit, onto);
		goto out;
	}
	if (gitrepo_g2.git_index_has_conflicts(idx)) {
		strbuf_setf(err, "the revert of %.12s does not apply on %.12s: conflicts in ", culprit, onto);
		conflicts(idx, err);
		ret = 1;
		goto out;
	}
	if (revert_commit(r, c, o, idx, &id, err))
		goto out;
	gitrepo_g2.git_oid_tostr(out, GITREPO_HEXSZ + 1, &id);
	ret = keep_ref(r, culprit, onto, &id, err);
out:
	gitrepo_g2.git_index_free(idx);
	gitrepo_g2.git_commit_free(c);
	gitrepo_g2.git_commit_free(o);
	return ret;
}

/*
 * serve_poll: the service's view of its trees — every branch looked at
 * each pass (a new head recorded with its base) and, when a head is
 * tested, the base it is tested against.
 */
#include "serve_int.h"
#include "../lib/kernel/git.h"
#include "../lib/store/store.h"

#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* s a poll's fetch of a tree's url may take in all, moving (a first clone of linux.git is minutes) */
#define SERVE_FETCH_MAX (12 * 3600.0)

/*
 * The branches that could not be read, with what was said of each: a
 * deleted branch is said once (and again when the reason changes), not at
 * every pass; when it is back, that is said.
 */
static struct unread {
	char *tree, *branch, *why;
} * unread;
static size_t nunread;

static struct unread *unread_of(const char *tree, const char *branch)
{
	for (size_t i = 0; i < nunread; i++)
		if (!strcmp(unread[i].tree, tree) && !strcmp(unread[i].branch, branch))
			return &unread[i];
	return NULL;
}

static void branch_unread(const char *tree, const char *branch, const char *why)
{
	struct unread *u = unread_of(tree, branch);

	if (u && !strcmp(u->why, why))
		return;
	serve_say("%s %s: %s (skipped until it can be read; said once)", tree, branch, why);
	if (!u) {
		unread = xrealloc(unread, (nunread + 1) * sizeof(*unread));
		u = &unread[nunread++];
		u->tree = xstrdup(tree);
		u->branch = xstrdup(branch);
	} else {
		free(u->why);
	}
	u->why = xstrdup(why);
}

static void branch_read(const char *tree, const char *branch)
{
	struct unread *u = unread_of(tree, branch);

	if (!u)
		return;
	serve_say("%s %s: can be read again", tree, branch);
	free(u->tree);
	free(u->branch);
	free(u->why);
	*u = unread[--nunread];
}

/* Look at every branch: record its head when it is new, with its base. */
int serve_poll_trees(const struct serve_conf *c, struct store *s, struct strbuf *err)
{
	for (size_t i = 0; i < c->ntrees; i++) {
		const struct tree_conf *t = &c->trees[i];
		struct gitrepo *repo;
		if (t->url &&
		    gitrepo_fetch_within(t->path, t->url, NULL, (unsigned)t->fetch_stall, SERVE_FETCH_MAX, err)) {
			serve_say("%s: %s (skipped this time)", t->name, err->buf);
			strbuf_reset(err);
			continue;
		}
		if (gitrepo_open(&repo, t->path, err)) {
			serve_say("%s: %s (skipped this time)", t->name, err->buf);
			strbuf_reset(err);
			continue;
		}
		for (size_t b = 0; b < t->nbranches; b++) {
			struct gitrepo_commit hc;
			char base[GITREPO_HEXSZ + 1] = "";
			if (gitrepo_commit_info(repo, t->branches[b], &hc, err)) {
				branch_unread(t->name, t->branches[b], err->buf);
				strbuf_reset(err);
				continue;
			}
			branch_read(t->name, t->branches[b]);
			if (!strcmp(t->base, "parent") || !strcmp(t->base, "last-tested")) {
				if (hc.nparents)
					snprintf(base, sizeof(base), "%s", hc.parents[0]);
			} else if (gitrepo_resolve(repo, t->base, base, err)) {
				serve_say("%s: base %s: %s", t->name, t->base, err->buf);
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
			/* a root commit has no base: it is measured on its own, the base of the branch's next head */
			bool root = !hc.nparents && !*base &&
				    (!strcmp(t->base, "parent") || !strcmp(t->base, "last-tested"));
			if ((*base && strcmp(base, hc.id)) || root) {
				int64_t id = store_head_add(s, t->name, t->branches[b], hc.id, base,
							    (int64_t)time(NULL), err);
				if (id < 0) {
					gitrepo_commit_release(&hc);
					gitrepo_close(repo);
					return -1;
				}
				if (id && root)
					serve_say(
						"%s %s: new head %.12s (\"%s\"), a root commit: measured on its own as "
						"the branch's baseline",
						t->name, t->branches[b], hc.id, hc.subject);
				else if (id)
					serve_say("%s %s: new head %.12s (\"%s\"), base %.12s", t->name, t->branches[b],
						  hc.id, hc.subject, base);
			}
			gitrepo_commit_release(&hc);
		}
		gitrepo_close(repo);
	}
	return 0;
}

const struct tree_conf *serve_tree_named(const struct serve_conf *c, const char *name)
{
	for (size_t i = 0; i < c->ntrees; i++)
		if (!strcmp(c->trees[i].name, name))
			return &c->trees[i];
	for (size_t i = 0; i < c->nlists; i++)
		if (c->lists[i].name && !strcmp(c->lists[i].name, name))
			return &c->lists[i].series_tree;
	return NULL;
}

/*
 * The base a head is tested against, chosen when it is tested: for base
 * last-tested, the branch's last head that was tested and measured before
 * it (not one that failed or did not build: a regression behind a broken
 * head is still found; for one whose verdict was "not sure", its interval
 * ruling nothing out, the base it was measured against) when that is an
 * ancestor, else the head's parent;
 * a configured revision stays. Appended to base; recorded in the store.
 */
void serve_head_base(const struct serve_conf *c, struct store *s, const struct store_head *h, struct strbuf *base)
{
	const char *tree = h->tree, *branch = h->branch, *head = h->head, *was = h->base;
	int64_t id = h->id;
	const struct tree_conf *t = serve_tree_named(c, tree ? tree : "");
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
		serve_say("%s %.12s: base %.12s (the last head tested and measured sure, or the parent), not %.12s",
			  tree, head, base->buf, was ? was : "");
		strbuf_reset(&err);
		if (store_head_set_base(s, id, base->buf, (int64_t)time(NULL), &err))
			serve_say("%s", err.buf);
	}
out:
	gitrepo_close(repo);
	strbuf_release(&err);
	strbuf_release(&last);
}

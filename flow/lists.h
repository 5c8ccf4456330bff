/*
 * lists (prefix lists_): mailing lists as sources, as git trees are — a
 * public-inbox v2 archive read epoch by epoch (git/0.git, git/1.git ...),
 * from where the last reading stopped when a store keeps it, its mails
 * grouped into series (mail/series.h), and a complete series applied as
 * `git am` would onto its base in the robot's own repository, on a branch
 * named as 0-day names them. Nothing is written outside that repository.
 */
#ifndef LKP_LISTS_H
#define LKP_LISTS_H

#include "../lib/util/strbuf.h"
#include "../mail/series.h"

#include <stdint.h>

struct store;

#define LISTS_MAX_COMMITS 200000 /* an epoch's commits read in one go (lore's epochs hold ~1M mails) */

/*
 * The mails of the archive at dir added to set. With a store (st not
 * NULL), only those after the last commit read of each epoch (the store's
 * list_epochs of list), and the mails of list's series still waiting (or
 * incomplete: a late part completes them) read
 * again; the new positions recorded. *nmails: the mails read. 0, or -1 with
 * one line in err (not an archive, an epoch git cannot read).
 */
int lists_read(const char *dir, struct store *st, const char *list, struct series_set *set, size_t *nmails, int64_t now,
	       struct strbuf *err);

/*
 * A new mail of a list as it is read (where: the archive's "epoch:commit",
 * or a Maildir's "cur/NAME"): 0 go on, -1 stop with err set (the reading
 * fails, and the mail is read again the next time).
 */
typedef int (*lists_mail_fn)(const char *msg, size_t len, const char *where, void *arg, struct strbuf *err);
/*
 * lists_read, each new mail (not those of waiting series read again) handed
 * to each as well — the replies among them. dir may also be a Maildir
 * (new/ and cur/): its new mails are read and moved to cur/.
 */
int lists_read_each(const char *dir, struct store *st, const char *list, struct series_set *set, size_t *nmails,
		    int64_t now, lists_mail_fn each, void *arg, struct strbuf *err);
/* The mail at where (as lists_mail_fn names it) of the list at dir, into msg. 0, or -1 with err set. */
int lists_mail_at(const char *dir, const char *where, struct strbuf *msg, struct strbuf *err);

/* Is dir a public-inbox v2 archive (git/N.git epochs)? 0, or -1 with one line in err saying what to give. */
int lists_check_archive(const char *dir, struct strbuf *err);

/* What came of applying a series. */
struct lists_applied {
	char *branch; /* refs/heads/ of it, "Dan-Williams/dax-pmem-.../20170121-031649" */
	char base[41], head[41];
	const char *base_how; /* "its base-commit:", or "the head of its branch at its date" */
	int failed;	      /* the first patch that does not apply or was refused (1..n); 0 */
	char *why;	      /* then why, one line */
};

/*
 * Apply the complete series s onto its base — its base-commit: when the
 * tree has it, else the head of the tree's branch at the series' date —
 * in the bare repository repo (made when missing), which fetches the
 * tree's branches as refs/lkprobot/trees/<tree_name>/. 0 applied, with
 * the branch made; 1 a patch does not apply, 2 one was refused (out->failed,
 * out->why); -1 with err set (the repository, the tree, no base). With
 * link (an archive's address), each commit's message ends with the trailer
 * "Link: <link>/<its mail's Message-ID>", as b4 am -l writes it.
 */
int lists_apply(const struct series *s, const char *repo, const char *tree_path, const char *tree_name,
		const char *branch, const char *link, struct lists_applied *out, struct strbuf *err);
void lists_applied_release(struct lists_applied *a);

/* "epoch:commit ..." of the series' mails (what the store's series.parts holds). */
char *lists_parts(const struct series *s);

#endif

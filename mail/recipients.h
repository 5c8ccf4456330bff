/*
 * recipients: who gets the report of a commit — its author (To), its
 * committer and the people of its trailers (Signed-off-by, Co-developed-by,
 * Reviewed-by, Acked-by, Tested-by, Reported-by, Cc), the maintainers,
 * reviewers and lists of the MAINTAINERS sections whose F:/N:/X: patterns
 * match the files it touches (get_maintainer.pl's matching, in C), the
 * configured lists, and the subscribers (mail.subscriptions) whose paths,
 * MAINTAINERS entries or trees the change is in and whose kind it is. Each
 * address once (compared without case), with every reason it is there;
 * invalid addresses dropped with a warning. Pure text in, text out: the
 * caller reads the commit and MAINTAINERS.
 */
#ifndef LKP_RECIPIENTS_H
#define LKP_RECIPIENTS_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct recipient {
	char *addr;		/* as written in To:/Cc: ("Dan Williams <dan.j.williams@intel.com>") */
	char *email;		/* the addr-spec, lower case (the envelope recipient) */
	char *why;		/* "author", "Signed-off-by, maintainer of LIBNVDIMM PMEM (M:)", ... */
	bool to;		/* To (the author); else Cc */
	bool pinned;		/* configured (a list, a subscriber): never dropped by the cap */
	bool subscribed;	/* one of mail.subscriptions (why says which, by what) */
};

struct recipients {
	struct recipient *v;
	size_t n;
	char **warnings;	/* one line each: what was dropped and why */
	size_t nwarnings;
	char **notes; /* one line each: a subscriber the change is not for (its kind) */
	size_t nnotes;
};

/*
 * One of mail.subscriptions: addr gets (Cc) the report of a change that
 * touches one of paths (MAINTAINERS F: patterns), or is in one of the
 * MAINTAINERS entries (section titles; globs, without case), or is of one
 * of trees (a tree's name in serve.trees, or its path; globs) — when the
 * change is a regression, or any change with improvements.
 */
struct recipients_sub {
	char *address;
	char **paths, **maintainers, **trees; /* NULL-terminated */
	size_t npaths, nmaintainers, ntrees;
	bool improvements;
};

struct recipients_input {
	const char *author;		/* "Name <email>" */
	const char *committer;		/* "Name <email>" (NULL: none) */
	const char *message;		/* the commit message, trailers included */
	const char *maintainers;	/* the tree's MAINTAINERS file (NULL: none) */
	const char *const *paths;	/* the files the commit touches */
	size_t npaths;
	const char *const *lists;	/* configured addresses (the robot's list, LKML) */
	size_t nlists;
	size_t max;			/* at most this many recipients (0: no cap); the rest dropped with a warning */
	const struct recipients_sub *subs; /* mail.subscriptions */
	size_t nsubs;
	const char *tree_name, *tree_path; /* the change's tree, for the subscriptions' trees (NULL: none) */
	int kind;			   /* the change: +1 an improvement, -1 a regression, 0 not known */
};

void recipients_compute(const struct recipients_input *in, struct recipients *out);

/*
 * The recipients of commit rev of the repository at tree: its author,
 * committer, trailers, the MAINTAINERS file of that commit (if any) against
 * the files it touches, and from conf (its commit fields unused) the lists,
 * the subscriptions (conf->tree_path NULL: tree), the kind and the cap.
 * 0, or -1 with err set.
 */
int recipients_of_commit(const char *tree, const char *rev, const struct recipients_input *conf, struct recipients *out,
			 struct strbuf *err);
void recipients_release(struct recipients *r);

/*
 * "Name <email>" (or a bare email) made safe for a header: control
 * characters (CR, LF, tabs) become spaces, runs of spaces one, the name
 * trimmed. NULL when there is no usable address in it.
 */
char *recipients_normalize(const char *s);

/* Does a MAINTAINERS F:/X: pattern match the path (get_maintainer.pl's rule)? */
bool recipients_pattern_match(const char *pattern, const char *path, const char *const *paths, size_t npaths);

#endif

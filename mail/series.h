/*
 * series (prefix series_): patch series as a mailing list carries them —
 * one mail read into what `git am` needs (author, date, commit message,
 * diff, base-commit: trailer) and what threading needs (Message-ID, the
 * thread's first message, [PATCH vN m/n]); mails grouped into series by
 * their thread and version, vN superseding vN-1 of the same author and
 * subject, a series missing parts waiting a bounded time and then
 * incomplete. Replies, reviews and mail that is no patch are ignored;
 * hostile mail (too big, too many patches, control characters in its
 * header, no diff, a diff out of the tree, a symlink, a binary diff) is
 * refused with its reason. It reads bytes and knows
 * nothing of archives, git or the store (flow/lists.c drives it).
 */
#ifndef LKP_SERIES_H
#define LKP_SERIES_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERIES_MAX_MAIL (10u << 20) /* a mail larger is refused: no patch is that big */
#define SERIES_MAX_PATCHES 500	    /* a series longer is refused */

enum series_kind {
	SERIES_OTHER,	/* not a patch, or a reply: ignored */
	SERIES_COVER,	/* [PATCH 0/n] */
	SERIES_PATCH,	/* [PATCH m/n], m >= 1, with its diff */
	SERIES_REFUSED, /* hostile or broken: why says it */
};

struct series_mail {
	enum series_kind kind;
	char *why; /* SERIES_REFUSED: the reason, one line */
	char *message_id,
		*root; /* "<id>"; root: the thread's first message (References', else In-Reply-To, else its own) */
	char *subject, *title;		  /* the Subject:, and it without its [PATCH ...] tags */
	int version, index, total;	  /* v1 unless it says; [PATCH] alone is 1/1 */
	char *author_name, *author_email; /* From: (or the body's own From: line, as git am takes it) */
	int64_t date;			  /* Date:, seconds since the epoch (0: none or unreadable) */
	int tz;				  /* its zone, minutes east of UTC */
	char *message;			  /* the commit message: title, blank line, the body up to "---" */
	char *diff;			  /* from the first "diff --git" to the signature; NULL for a cover */
	char *base_commit;		  /* the base-commit: trailer's id, NULL when none */
	char *change_id;		  /* b4's change-id: trailer (the same work across versions), NULL when none */
	bool resend;			  /* [PATCH RESEND ...] */
	char *where;			  /* the caller's: where the mail is (an archive's "epoch:commit") */
};

/*
 * Read one mail (len bytes; a mail longer than SERIES_MAX_MAIL is refused
 * unread, msg may then be NULL). Never fails: what it is, is m->kind.
 * series_mail_release() it.
 */
void series_mail_parse(const char *msg, size_t len, struct series_mail *m);
void series_mail_release(struct series_mail *m);
/*
 * The headers of a patch's diff as git apply reads them (series_diff.c):
 * 0, or -1 with why (one line) when a path leaves the tree (absolute, "..",
 * ".git"), a file becomes a symlink, a submodule or a mode git does not
 * write, or a diff is binary. A mode change between 100644 and 100755 is
 * a patch like any other.
 */
int series_diff_check(const char *diff, struct strbuf *why);

enum series_state {
	SERIES_WAITING,	   /* parts missing, the wait not over */
	SERIES_COMPLETE,   /* every patch 1..n here: to apply */
	SERIES_INCOMPLETE, /* parts missing after the wait: why names them */
	SERIES_SUPERSEDED, /* a later version of it came */
	SERIES_BROKEN,	   /* its mails disagree (the count of patches) or one was refused: why */
};
const char *series_state_name(enum series_state s);

struct series {
	char *key; /* root and version: "<id> v2" */
	int version, total;
	char *subject; /* the cover letter's title, else the first patch's */
	char *author_name, *author_email;
	int64_t date, last;	   /* the first mail's date (the branch's name), the newest */
	struct series_mail **part; /* [0] the cover (may be NULL), [1..total] the patches; NULL: missing */
	enum series_state state;
	char *why;
	char *base_commit; /* the cover's base-commit:, else the first patch's that has one */
	char *change_id;   /* b4's change-id: of the cover, else of the first patch that has one */
	bool resend;	   /* its cover (or first patch) says RESEND */
};

struct series_set {
	struct series *v;
	size_t n;
	size_t ignored; /* replies and mail that is no patch */
	struct series_mail **refused;
	size_t nrefused;
	size_t *slots, nslots; /* series by key: a hash table of index + 1 (0: empty), for lists of 100,000s */
};

/* Add a parsed mail to the set, which takes it (ignored and refused ones too). */
void series_set_add(struct series_set *set, struct series_mail *m);
/*
 * Each series' state at time now: complete, superseded by a later version
 * (same author and subject, the same thread, or the same b4 change-id:) or,
 * a RESEND, by the series it sends again (same work and version), waiting
 * for its missing parts until wait seconds after its newest mail, then
 * incomplete.
 */
void series_set_settle(struct series_set *set, int64_t now, int64_t wait);
/* The series of key ("<id> v2") in the set, NULL when none. */
const struct series *series_set_get(const struct series_set *set, const char *key);
void series_set_release(struct series_set *set);

/*
 * The branch 0-day would name it, "<Author-Name>/<subject-slug>/<YYYYMMDD-HHMMSS>"
 * (the first mail's date, UTC): letters, digits and '_' kept, other runs
 * one '-', non-ASCII kept, at most 64 bytes a part.
 */
void series_branch(const struct series *s, struct strbuf *out);

/* "Wed, 21 Jan 2017 03:16:49 -0800" as seconds since the epoch and the zone's minutes: 0, or -1. */
int series_parse_date(const char *s, int64_t *t, int *tz);

#endif

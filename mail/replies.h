/*
 * replies (prefix replies_): a reply to one of the robot's reports read
 * for the commands it gives — lines "#lkprobot VERB [ARGS]" at the start of
 * a line (quoted ones, "> #lkprobot ...", are not commands), the messages
 * it answers (In-Reply-To, References) and who sent it, and for a test the
 * patch inline or attached. A verb it does not know, or one missing what
 * it needs, is kept with what was understood, to be answered. It reads
 * bytes and knows nothing of reports or the store (flow/replies.c acts).
 */
#ifndef LKP_REPLIES_H
#define LKP_REPLIES_H

#include "../lib/util/strbuf.h"

#include <stddef.h>

#define REPLIES_MAX_COMMANDS 8 /* commands read from one mail; more are not */

struct reply_command {
	const char *verb; /* test, recheck, invalid, fixed-by, dup, ack, wont-fix; NULL: not understood */
	char *args;	  /* the rest of the line, its spaces trimmed ("" when none) */
	char *line;	  /* the line as written */
	char *problem;	  /* not understood, or missing what it needs: what to answer (verb NULL) */
};

struct reply_mail {
	char *message_id; /* "<a@b>" (NULL: none: nothing is done with it) */
	char *from;	  /* the From: header, and its addr-spec (NULL when not an address) */
	char *from_spec;
	char *subject;
	char **refs; /* the messages it answers, "<a@b>": In-Reply-To first, then References from the newest */
	size_t nrefs;
	struct reply_command *cmds;
	size_t ncmds;
	char *patch; /* a diff, inline (from "diff --git") or an attachment's (NULL: none) */
};

/* The verbs, as the answers list them, NULL-terminated. */
extern const char *const replies_verbs[];

/*
 * Read msg (len bytes) into r (replies_release it). Returns the number of
 * command lines, 0 for a mail with none (most: they are not read further).
 */
size_t replies_parse(const char *msg, size_t len, struct reply_mail *r);
void replies_release(struct reply_mail *r);

#endif

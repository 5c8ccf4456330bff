/*
 * mailread (prefix mailread_): a message as its reader sees it — header
 * values unfolded and RFC 2047-decoded, the text body and the attachments
 * decoded from quoted-printable or base64, multipart/mixed split at its
 * boundary, attachment names from filename= and RFC 2231 filename*=
 * (sections too). Written for the messages mime.c makes (the dashboard
 * shows the outbox's mails with it); anything it does not understand is
 * kept as text rather than refused. No allocation is shared with the input.
 */
#ifndef LKP_MAILREAD_H
#define LKP_MAILREAD_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct mailread_part {
	char *name;		/* the attachment's file name; NULL for the text body */
	char *type;		/* its Content-Type without parameters, lower case ("text/plain") */
	struct strbuf data;	/* decoded; a text part with LF line ends */
};

struct mailread {
	struct mailread_part *parts;	/* the text body first (when there is one), then the attachments */
	size_t nparts;
};

/* Split msg (len bytes) into its parts. Never fails: a message without MIME is one text part. */
void mailread_parse(const char *msg, size_t len, struct mailread *m);
void mailread_release(struct mailread *m);

/*
 * The value of header `name` (case-insensitive) of msg's header block,
 * unfolded, RFC 2047 encoded-words decoded, control characters made
 * spaces; NULL when absent (free() it).
 */
char *mailread_header(const char *msg, size_t len, const char *name);

#endif

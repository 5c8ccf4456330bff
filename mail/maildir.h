/*
 * maildir (prefix maildir_): a Maildir as MDAs deliver into it — a new mail
 * appears whole in DIR/new (written in DIR/tmp, then renamed); once read
 * it is moved to DIR/cur with the ":2," info of a mail seen. A file in new/
 * still being written by a deliverer that skips tmp/ is left for the next
 * reading. It reads bytes and knows nothing of what the mails say.
 */
#ifndef LKP_MAILDIR_H
#define LKP_MAILDIR_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* A file of new/ younger than this, without the blank line that ends a header block, is still being written. */
#define MAILDIR_PARTIAL_AGE 60

/*
 * A mail handed to the reader: where it will be once read ("cur/NAME:2,",
 * relative to the Maildir), its bytes. 0: read (moved to cur/); -1: stop
 * there with err set (it stays in new/).
 */
typedef int (*maildir_fn)(const char *where, const char *msg, size_t len, void *arg, struct strbuf *err);

/* Is dir a Maildir (new/ and cur/ in it)? */
bool maildir_is(const char *dir);

/*
 * Each mail of dir/new, in the order of their names (a deliverer's names
 * start with the time), handed to fn and then moved to cur/; one larger
 * than max, or not a regular file, is moved unread (counted in *skipped).
 * Returns the number of mails read, or -1 with one line in err (dir is no
 * Maildir, a file cannot be read or moved, fn's error).
 */
long maildir_each(const char *dir, size_t max, maildir_fn fn, void *arg, size_t *skipped, struct strbuf *err);

/* The mail at dir/where (a where fn was given) into out, at most max bytes. 0, or -1 with err set. */
int maildir_read(const char *dir, const char *where, size_t max, struct strbuf *out, struct strbuf *err);

#endif

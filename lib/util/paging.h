/*
 * paging: a long list answered a page at a time — `limit` rows after the
 * row named by `after` (the last row of the page before), so that a list
 * of 20,000 heads is not one 10 MB answer. The JSON API's lists
 * (?limit=&after=) and `lkprobot status --json` (--limit/--after) share it.
 * It knows rows as maps with a key (id, name), nothing of what they are.
 */
#ifndef LKP_PAGING_H
#define LKP_PAGING_H

#include "node.h"
#include "strbuf.h"

#define PAGING_DEFAULT 500 /* rows of a page when no limit is given */
#define PAGING_MAX 10000   /* the most a limit may ask */

/*
 * The limit text (NULL: PAGING_DEFAULT) into *limit, 1..PAGING_MAX.
 * 0, or -1 with one line in err naming `name` ("limit", "--limit").
 */
int paging_limit(const char *name, const char *text, long *limit, struct strbuf *err);

/*
 * An id given as `after` (NULL: 0, from the first row): a whole number
 * >= 0. 0, or -1 with one line in err naming `name`.
 */
int paging_after_id(const char *name, const char *text, long long *after, struct strbuf *err);

/*
 * Keep, of the sequence seq, the rows after the one whose `key` is after
 * (NULL: from the first) in the sequence's order, at most limit of them.
 * 0, or -1 with one line in err when no row has that key (it may have
 * gone: start again without after).
 */
int paging_window(struct node *seq, const char *key, const char *name, const char *after, long limit,
		  struct strbuf *err);

#endif

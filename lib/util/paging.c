/*
 * paging: windows of long lists. See paging.h.
 */
#include "paging.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int paging_limit(const char *name, const char *text, long *limit, struct strbuf *err)
{
	char *end;

	*limit = PAGING_DEFAULT;
	if (!text)
		return 0;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno || !*text || strspn(text, "0123456789") != strlen(text) || *end || v < 1 || v > PAGING_MAX) {
		strbuf_setf(err, "%s=%s: not a number of rows from 1 to %d; give one", name, text, PAGING_MAX);
		return -1;
	}
	*limit = v;
	return 0;
}

int paging_after_id(const char *name, const char *text, long long *after, struct strbuf *err)
{
	char *end;

	*after = 0;
	if (!text)
		return 0;
	errno = 0;
	long long v = strtoll(text, &end, 10);
	if (errno || !*text || strspn(text, "0123456789") != strlen(text) || *end) {
		strbuf_setf(err,
			    "%s=%s: not a row's id (a whole number); give the id of the last row of the page before",
			    name, text);
		return -1;
	}
	*after = v;
	return 0;
}

int paging_window(struct node *seq, const char *key, const char *name, const char *after, long limit,
		  struct strbuf *err)
{
	size_t from = 0;

	if (after) {
		while (from < seq->n && (!node_str(node_get(seq->vals[from], key)) ||
					 strcmp(node_str(node_get(seq->vals[from], key)), after)))
			from++;
		if (from == seq->n) {
			strbuf_setf(err,
				    "%s=%s: no row of that %s in the list (it may have gone); start again without %s",
				    name, after, key, name);
			return -1;
		}
		from++;
	}
	size_t to = from + (size_t)limit < seq->n ? from + (size_t)limit : seq->n;
	for (size_t i = 0; i < seq->n; i++)
		if (i < from || i >= to)
			node_free(seq->vals[i]);
	if (to > from)
		memmove(seq->vals, seq->vals + from, (to - from) * sizeof(*seq->vals));
	seq->n = to - from;
	return 0;
}

/*
 * Fuzz the reading of a list's mail (mail/series.c) and the grouping of
 * mails into series (series_group.c): whatever a mailing list carries, the
 * robot reads it into a mail, a refusal with its reason, or nothing, and
 * never crashes. The input is split at "\n\x01\n" into several mails,
 * grouped and settled, and each series' branch named. Seeds: the real
 * public-inbox mails of tests/fixtures/series.
 */
#include "fuzzlib.h"
#include "../../mail/series.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct series_set set = { 0 };
	const char *p = (const char *)data, *end = p + size;

	while (p <= end) {
		const char *sep = memmem(p, (size_t)(end - p), "\n\x01\n", 3);
		size_t len = sep ? (size_t)(sep - p) : (size_t)(end - p);
		struct series_mail *m = xcalloc(1, sizeof(*m));
		char *copy = xstrndup(p, len); /* the archive's blobs are read with their length: NUL bytes too */
		series_mail_parse(copy, len, m);
		free(copy);
		if (m->kind == SERIES_REFUSED && (!m->why || !*m->why))
			abort(); /* a refusal always says why */
		series_set_add(&set, m);
		if (!sep)
			break;
		p = sep + 3;
	}
	series_set_settle(&set, 1484968609, 3600);
	for (size_t i = 0; i < set.n; i++) {
		struct strbuf b = STRBUF_INIT;
		series_branch(&set.v[i], &b);
		if (!b.len || strstr(b.buf, "..") || b.buf[0] == '/' || b.buf[0] == '-')
			abort(); /* a branch name git would refuse, or one that leaves refs/heads/ */
		strbuf_release(&b);
	}
	series_set_release(&set);
	return 0;
}

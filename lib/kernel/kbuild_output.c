/*
 * kbuild_output: what make's output says — a line that compiled an object
 * (the progress), the objects a config will compile, and a failed build's
 * first error line (kbuild.h).
 */
#include "kbuild.h"

#include <stdbool.h>
#include <string.h>

bool kbuild_object_line(const char *line)
{
	const char *p = line, *end;
	size_t n;

	if (*p != ' ')
		return false;
	while (*p == ' ')
		p++;
	if (strncmp(p, "CC", 2) && strncmp(p, "AS", 2))
		return false;
	p += 2;
	if (!strncmp(p, " [M]", 4))
		p += 4;
	if (*p != ' ')
		return false;
	while (*p == ' ')
		p++;
	end = p + strcspn(p, " \t\r\n");
	n = (size_t)(end - p);
	return n > 2 && !memcmp(end - 2, ".o", 2);
}

/*
 * A clean build of Linux 6.1 with x86_64-pmem (allnoconfig + the fragment)
 * compiled 1,360 objects for 591 "=y" lines in its .config: 2.3 per line.
 * Only a guide for the progress line (other configs were not measured).
 */
#define OBJECTS_PER_Y_TENTHS 23

size_t kbuild_estimate_objects(const char *config, size_t len)
{
	size_t ys = 0;

	for (const char *p = config, *end = config + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (le - p > 9 && !strncmp(p, "CONFIG_", 7) && !memcmp(le - 2, "=y", 2))
			ys++;
		p = nl ? nl + 1 : end;
	}
	return ys * OBJECTS_PER_Y_TENTHS / 10;
}

static bool has_word(const char *line, size_t n, const char *w)
{
	size_t wl = strlen(w);

	for (size_t i = 0; i + wl <= n; i++)
		if (!memcmp(line + i, w, wl))
			return true;
	return false;
}

void kbuild_first_error(const char *log, size_t len, struct strbuf *out)
{
	/* by rank: what the compiler said beats what make said about it */
	const char *best = NULL, *last = NULL;
	size_t best_n = 0, last_n = 0;
	int best_rank = 4;

	strbuf_reset(out);
	for (const char *p = log, *end = log + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		int rank = 4;

		if (has_word(p, n, ": error:") || has_word(p, n, ": fatal error:") || has_word(p, n, ": Error:") ||
		    (n >= 6 && !strncmp(p, "error:", 6)))
			rank = 1;
		else if (has_word(p, n, "undefined reference to") || has_word(p, n, "multiple definition of"))
			rank = 2;
		else if (has_word(p, n, "*** "))
			rank = 3;
		if (rank < best_rank) {
			best = p;
			best_n = n;
			best_rank = rank;
		}
		size_t k = n;
		while (k && (p[k - 1] == ' ' || p[k - 1] == '\t' || p[k - 1] == '\r'))
			k--;
		if (k) {
			last = p;
			last_n = k;
		}
		p = nl ? nl + 1 : end;
	}
	if (!best) {
		best = last;
		best_n = last_n;
	}
	if (!best)
		return;
	while (best_n && (*best == ' ' || *best == '\t')) {
		best++;
		best_n--;
	}
	if (best_n > 300) {
		best_n = 300;
		/* cut before a character, not inside one: a compiler's UTF-8 quotes stay whole */
		while (best_n && ((unsigned char)best[best_n] & 0xc0) == 0x80)
			best_n--;
	}
	/*
	 * One line that goes into YAML, the store, mails and onto a terminal:
	 * its UTF-8 kept (gcc's ‘quotes’), a tab a space, other control
	 * characters and bytes that are no UTF-8 as \xNN — never a '?'.
	 */
	struct strbuf line = STRBUF_INIT;
	for (size_t i = 0; i < best_n; i++)
		strbuf_addch(&line, best[i] == '\t' ? ' ' : best[i]);
	strbuf_add_oneline(out, line.buf, line.len);
	strbuf_release(&line);
	strbuf_rtrim(out);
}

/*
 * nearest: edit distance and the nearest word of a list. See nearest.h.
 * The optimal string alignment distance (a swap of two neighbours is one
 * edit), three rows of it on the stack: the words are names.
 */
#include "nearest.h"

#include <stdbool.h>
#include <string.h>

size_t nearest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), rows[3][64];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];

	if (la >= 63 || lb >= 63)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;
			size_t d = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			/* two letters swapped is one typo, not two */
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
				d = prev2[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *nearest_word(const char *word, const char *const *words, size_t n, size_t max)
{
	const char *best = NULL;
	size_t bestd = max + 1, len = strlen(word);

	for (size_t i = 0; i < n; i++) {
		if (!words[i] || !strcmp(words[i], word))
			continue;
		size_t d = nearest_distance(word, words[i]);
		/* of equals, one as long as the typo (a swap, a wrong letter) before one a letter off */
		bool closer = d < bestd || (d == bestd && best && strlen(best) != len && strlen(words[i]) == len);
		if (closer) {
			bestd = d;
			best = words[i];
		}
	}
	return best;
}

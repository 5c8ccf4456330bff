/*
 * nearest: the word a typo meant — edit distance (with swaps) and the
 * nearest of a list, only when it is close. For "did you mean ...?" in the
 * errors of a mistyped option, command or name.
 */
#ifndef LKP_NEAREST_H
#define LKP_NEAREST_H

#include <stddef.h>

/* Insertions, deletions, substitutions and swaps of neighbours from a to b (words of 62 bytes at most; longer: 99). */
size_t nearest_distance(const char *a, const char *b);
/*
 * Of the n words (NULL ones skipped), the nearest to word within `max`
 * edits (of equals, the first as long as word, else the first), and not
 * word itself; NULL when none is.
 */
const char *nearest_word(const char *word, const char *const *words, size_t n, size_t max);

#endif

/*
 * sset: a set of strings (open addressing, FNV-1a). Used where job
 * expansion asks "is this key an option / a dimension / already loaded"
 * thousands of times per job file. Members are copied in and freed by
 * sset_release(), unless the set is `borrowed`: then it keeps the caller's
 * pointers, which must outlive it (no copy per member, for sets made and
 * dropped once per atomic job). A zeroed struct is an empty set.
 */
#ifndef LKP_SSET_H
#define LKP_SSET_H

#include <stdbool.h>
#include <stddef.h>

struct sset {
	char **slot;
	size_t cap, n;
	bool borrowed;
};

bool sset_has(const struct sset *s, const char *k);
/* Returns true if k was added, false if it was already there. */
bool sset_add(struct sset *s, const char *k);
void sset_copy(struct sset *dst, const struct sset *src);
void sset_release(struct sset *s);

#endif

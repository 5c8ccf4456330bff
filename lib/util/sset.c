/*
 * sset: string sets. See sset.h.
 */
#include "sset.h"
#include "strbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t probe(char **slot, size_t cap, const char *k)
{
	size_t i = hash_str(k) & (cap - 1);

	while (slot[i] && strcmp(slot[i], k))
		i = (i + 1) & (cap - 1);
	return i;
}

bool sset_has(const struct sset *s, const char *k)
{
	return s->cap && s->slot[probe(s->slot, s->cap, k)];
}

bool sset_add(struct sset *s, const char *k)
{
	if (sset_has(s, k))
		return false;
	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **slot = xcalloc(cap, sizeof(*slot));
		for (size_t i = 0; i < s->cap; i++)
			if (s->slot[i])
				slot[probe(slot, cap, s->slot[i])] = s->slot[i];
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	s->slot[probe(s->slot, s->cap, k)] = s->borrowed ? (char *)k : xstrdup(k);
	s->n++;
	return true;
}

void sset_copy(struct sset *dst, const struct sset *src)
{
	dst->cap = src->cap;
	dst->n = src->n;
	dst->borrowed = false;
	dst->slot = src->cap ? xcalloc(src->cap, sizeof(char *)) : NULL;
	for (size_t i = 0; i < src->cap; i++)
		if (src->slot[i])
			dst->slot[i] = xstrdup(src->slot[i]);
}

void sset_release(struct sset *s)
{
	bool borrowed = s->borrowed;

	for (size_t i = 0; i < s->cap && !borrowed; i++)
		free(s->slot[i]);
	free(s->slot);
	memset(s, 0, sizeof(*s));
	s->borrowed = borrowed;
}

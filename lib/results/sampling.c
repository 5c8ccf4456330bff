/*
 * sampling: the interleave tags of runs. See sampling.h. Tags are read with
 * a scan for the top-level key rather than a YAML parse: a comparison
 * reads one per run, and a job.yaml is a few kilobytes of which this is one
 * line.
 */
#include "sampling.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sampling_tag(struct strbuf *out, uint64_t batch, size_t round, size_t position)
{
	strbuf_addf(out, "%016" PRIx64 "-%zu-%zu", batch, round, position);
}

/* FNV-1a over "<batch>-<round>" */
static uint64_t hash_round(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h ? h : 1;
}

uint64_t sampling_round_id(uint64_t batch, size_t round)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%016" PRIx64 "-%zu", batch, round);

	return hash_round(buf, (size_t)n);
}

uint64_t sampling_tag_round(const char *tag)
{
	size_t hex = tag ? strspn(tag, "0123456789abcdef") : 0;

	if (hex != 16 || tag[16] != '-')
		return 0;
	size_t digits = strspn(tag + 17, "0123456789");
	if (!digits || tag[17 + digits] != '-' || !tag[18 + digits] ||
	    strspn(tag + 18 + digits, "0123456789") != strlen(tag + 18 + digits))
		return 0;
	return hash_round(tag, 17 + digits);
}

uint64_t sampling_run_round(const char *run_dir)
{
	char *path = xasprintf("%s/job.yaml", run_dir), line[256];
	FILE *f = fopen(path, "r");
	uint64_t id = 0;
	const size_t klen = strlen(SAMPLING_KEY);

	free(path);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, SAMPLING_KEY, klen) || line[klen] != ':')
			continue;
		char *v = line + klen + 1;
		v += strspn(v, " \t\"'");
		v[strcspn(v, " \t\"'\r\n")] = '\0';
		id = sampling_tag_round(v);
		break;
	}
	fclose(f);
	return id;
}

uint64_t *sampling_matrix_rounds(const struct node *matrix, size_t *n)
{
	const struct node *src = node_get(matrix, "stats_source");

	*n = 0;
	if (!src || src->type != NODE_SEQ || !src->n)
		return NULL;
	const char **s = xcalloc(src->n, sizeof(*s));
	for (size_t i = 0; i < src->n; i++)
		s[i] = node_str(src->vals[i]);
	uint64_t *ids = sampling_rounds(s, src->n, n);
	free(s);
	return ids;
}

uint64_t *sampling_rounds(const char *const *sources, size_t nsources, size_t *n)
{
	uint64_t *ids;

	*n = 0;
	if (!nsources)
		return NULL;
	ids = xcalloc(nsources, sizeof(*ids));
	for (size_t i = 0; i < nsources; i++) {
		const char *s = sources[i];
		if (!s)
			continue;
		size_t len = strlen(s), tail = strlen("/stats.json");
		char *dir = len > tail && !strcmp(s + len - tail, "/stats.json") ? xstrndup(s, len - tail) : xstrdup(s);
		ids[i] = sampling_run_round(dir);
		free(dir);
	}
	*n = nsources;
	return ids;
}

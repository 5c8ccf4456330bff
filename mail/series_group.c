/*
 * series_group: mails grouped into series — by their thread's first
 * message and their version — and each series' state: complete, waiting
 * for its parts, incomplete after the wait, superseded by a later version.
 * One mail's reading is series.c. See series.h.
 */
#include "series.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

const char *series_state_name(enum series_state s)
{
	static const char *const names[] = {
		[SERIES_WAITING] = "waiting",	    [SERIES_COMPLETE] = "complete", [SERIES_INCOMPLETE] = "incomplete",
		[SERIES_SUPERSEDED] = "superseded", [SERIES_BROKEN] = "broken",
	};
	return names[s];
}

static size_t key_hash(const char *s)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return (size_t)h;
}

/* The hash table's slot of key: the series' index + 1 there, or 0 where it would go. */
static size_t *slot_of(const struct series_set *set, const char *key)
{
	size_t i = key_hash(key) & (set->nslots - 1);
	while (set->slots[i] && strcmp(set->v[set->slots[i] - 1].key, key))
		i = (i + 1) & (set->nslots - 1);
	return &set->slots[i];
}

/* The table made again, twice as big, when it is half full. */
static void grow_slots(struct series_set *set)
{
	if (set->nslots && set->n * 2 < set->nslots)
		return;
	free(set->slots);
	set->nslots = set->nslots ? set->nslots * 2 : 64;
	set->slots = xcalloc(set->nslots, sizeof(*set->slots));
	for (size_t i = 0; i < set->n; i++)
		*slot_of(set, set->v[i].key) = i + 1;
}

/* The series of m's thread and version, made when new. */
static struct series *series_of(struct series_set *set, const struct series_mail *m)
{
	char *key = xasprintf("%s v%d", m->root, m->version);

	grow_slots(set);
	size_t *slot = slot_of(set, key);
	if (*slot) {
		free(key);
		return &set->v[*slot - 1];
	}
	set->v = xrealloc(set->v, (set->n + 1) * sizeof(*set->v));
	struct series *s = &set->v[set->n++];
	*slot = set->n;
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->version = m->version;
	s->total = m->total;
	s->part = xcalloc((size_t)m->total + 1, sizeof(*s->part));
	s->date = m->date;
	return s;
}

const struct series *series_set_get(const struct series_set *set, const char *key)
{
	size_t at = set->nslots ? *slot_of(set, key) : 0;
	return at ? &set->v[at - 1] : NULL;
}

static void keep_refused(struct series_set *set, struct series_mail *m)
{
	set->refused = xrealloc(set->refused, (set->nrefused + 1) * sizeof(*set->refused));
	set->refused[set->nrefused++] = m;
}

void series_set_add(struct series_set *set, struct series_mail *m)
{
	if (m->kind == SERIES_OTHER) {
		set->ignored++;
		series_mail_release(m);
		free(m);
		return;
	}
	if (m->kind == SERIES_REFUSED) {
		keep_refused(set, m); /* its series, when it has one, is broken (series_set_settle) */
		return;
	}
	struct series *s = series_of(set, m);
	/* its count first: its place may be past the end of a shorter series' parts */
	if (m->total == s->total && s->part[m->index]) {
		set->ignored++; /* sent twice (a resend, a cross-post): the first kept */
		series_mail_release(m);
		free(m);
		return;
	}
	if (m->total != s->total) {
		m->kind = SERIES_REFUSED;
		m->why = xasprintf("patch %d/%d of a series of %d patches", m->index, m->total, s->total);
		s->state = SERIES_BROKEN;
		if (!s->why)
			s->why = xasprintf("its mails disagree on its length (%d/%d and %d patches)", m->index,
					   m->total, s->total);
		keep_refused(set, m);
		return;
	}
	s->part[m->index] = m;
	if (m->date && (!s->date || m->date < s->date))
		s->date = m->date;
	if (m->date > s->last)
		s->last = m->date;
}

/* Subject, author and base from the cover letter, else the first patch here. */
static void describe(struct series *s)
{
	struct series_mail *first = s->part[0];

	for (int i = 1; !first && i <= s->total; i++)
		first = s->part[i];
	if (!first)
		return;
	free(s->subject);
	free(s->author_name);
	free(s->author_email);
	s->subject = xstrdup(first->title);
	s->author_name = xstrdup(first->author_name ? first->author_name : first->author_email);
	s->author_email = xstrdup(first->author_email);
	for (int i = 0; !s->base_commit && i <= s->total; i++)
		if (s->part[i] && s->part[i]->base_commit)
			s->base_commit = xstrdup(s->part[i]->base_commit);
	for (int i = 0; !s->change_id && i <= s->total; i++)
		if (s->part[i] && s->part[i]->change_id)
			s->change_id = xstrdup(s->part[i]->change_id);
	s->resend = first->resend;
}

/* Series of the same work: the same subject and author (b4's, git send-email's vN). */
static int by_work(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a, *y = *(const struct series *const *)b;
	int c = strcmp(x->subject ? x->subject : "", y->subject ? y->subject : "");
	return c ? c : strcasecmp(x->author_email ? x->author_email : "", y->author_email ? y->author_email : "");
}

/* Series of the same thread: a vN sent in reply to vN-1. */
static int by_thread(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a, *y = *(const struct series *const *)b;
	size_t nx = strcspn(x->key, " "), ny = strcspn(y->key, " ");
	int c = strncmp(x->key, y->key, nx < ny ? nx : ny);
	return c ? c : nx < ny ? -1 : nx > ny;
}

/* Series of the same b4 change-id:; one without is its own (its key). */
static int by_change(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a, *y = *(const struct series *const *)b;
	if (!x->change_id != !y->change_id)
		return x->change_id ? 1 : -1;
	return x->change_id ? strcmp(x->change_id, y->change_id) : strcmp(x->key, y->key);
}

static int by_version_resend(const void *a, const void *b)
{
	const struct series *x = *(const struct series *const *)a, *y = *(const struct series *const *)b;
	return x->version != y->version ? (x->version > y->version) - (x->version < y->version)
					: (int)x->resend - (int)y->resend;
}

/*
 * resent[i]: series i is a RESEND of one of the set of the same work and
 * version that is not (the first kept, the resend not tested again).
 */
static void mark_resent(struct series_set *set, struct series **v, bool *resent)
{
	qsort(v, set->n, sizeof(*v), by_work);
	for (size_t i = 0; i < set->n;) {
		size_t j = i;
		for (; j < set->n && !by_work(&v[i], &v[j]); j++)
			;
		/* by version, a version's first sendings before its resends: one pass marks them */
		qsort(v + i, j - i, sizeof(*v), by_version_resend);
		for (size_t k = i + 1; k < j; k++)
			if (v[k]->resend && v[k]->subject && v[k]->version == v[k - 1]->version &&
			    (!v[k - 1]->resend || resent[v[k - 1] - set->v]))
				resent[v[k] - set->v] = true;
		i = j;
	}
}

/* later[i]: the latest version of series i in the set, when later than its own, by cmp (sorted, each run of equals at once). */
static void mark_later(struct series_set *set, struct series **v, int (*cmp)(const void *, const void *), int *later)
{
	qsort(v, set->n, sizeof(*v), cmp);
	for (size_t i = 0; i < set->n;) {
		size_t j = i;
		int top = 0;
		for (; j < set->n && !cmp(&v[i], &v[j]); j++)
			top = v[j]->version > top ? v[j]->version : top;
		for (size_t k = i; k < j; k++)
			if (v[k]->version < top && v[k]->subject && top > later[v[k] - set->v])
				later[v[k] - set->v] = top;
		i = j;
	}
}

/* "missing 2/3, 3/3" (ten at most named) */
static char *missing(const struct series *s)
{
	struct strbuf out = STRBUF_INIT;
	int k = 0;

	strbuf_addstr(&out, "missing");
	for (int i = 1; i <= s->total; i++)
		if (!s->part[i] && k++ < 10)
			strbuf_addf(&out, "%s %d/%d", k > 1 ? "," : "", i, s->total);
	if (k > 10)
		strbuf_addf(&out, " and %d more", k - 10);
	return strbuf_detach(&out);
}

/* The series of each refused mail of a thread, broken by it. */
static void break_by_refused(struct series_set *set)
{
	for (size_t r = 0; r < set->nrefused; r++) {
		const struct series_mail *m = set->refused[r];
		if (!m->root)
			continue;
		char *key = xasprintf("%s v%d", m->root, m->version);
		size_t at = set->nslots ? *slot_of(set, key) : 0;
		struct series *s = at ? &set->v[at - 1] : NULL;
		if (s && s->state != SERIES_BROKEN) {
			s->state = SERIES_BROKEN;
			free(s->why);
			s->why = xasprintf("%s refused: %s", m->message_id, m->why);
		}
		free(key);
	}
}

void series_set_settle(struct series_set *set, int64_t now, int64_t wait)
{
	break_by_refused(set);
	struct series **v = xcalloc(set->n + 1, sizeof(*v));
	int *later = xcalloc(set->n + 1, sizeof(*later));
	for (size_t i = 0; i < set->n; i++) {
		describe(&set->v[i]);
		v[i] = &set->v[i];
	}
	bool *resent = xcalloc(set->n + 1, sizeof(*resent));
	mark_later(set, v, by_work, later);
	mark_later(set, v, by_thread, later);
	mark_later(set, v, by_change, later);
	mark_resent(set, v, resent);
	free(v);
	for (size_t i = 0; i < set->n; i++) {
		struct series *s = &set->v[i];
		if (s->state == SERIES_BROKEN)
			continue;
		int have = 0;
		for (int k = 1; k <= s->total; k++)
			have += s->part[k] != NULL;
		free(s->why);
		s->why = NULL;
		if (later[i])
			s->state = SERIES_SUPERSEDED, s->why = xasprintf("superseded by v%d", later[i]);
		else if (resent[i])
			s->state = SERIES_SUPERSEDED, s->why = xasprintf("a RESEND of v%d, read already", s->version);
		else if (have == s->total)
			s->state = SERIES_COMPLETE;
		else if (now - s->last >= wait)
			s->state = SERIES_INCOMPLETE, s->why = missing(s);
		else
			s->state = SERIES_WAITING, s->why = missing(s);
	}
	free(later);
	free(resent);
}

void series_set_release(struct series_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		struct series *s = &set->v[i];
		for (int k = 0; k <= s->total; k++)
			if (s->part[k]) {
				series_mail_release(s->part[k]);
				free(s->part[k]);
			}
		free(s->part);
		free(s->key);
		free(s->subject);
		free(s->author_name);
		free(s->author_email);
		free(s->why);
		free(s->base_commit);
		free(s->change_id);
	}
	for (size_t i = 0; i < set->nrefused; i++) {
		series_mail_release(set->refused[i]);
		free(set->refused[i]);
	}
	free(set->refused);
	free(set->slots);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* s as a part of a branch name: letters, digits, '_' and non-ASCII kept, other runs one '-', 64 bytes at most. */
static void slug(struct strbuf *out, const char *s)
{
	size_t start = out->len;
	bool dash = false;

	for (; s && *s && out->len - start < 64; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		    c >= 0x80) {
			if (dash && out->len > start)
				strbuf_addch(out, '-');
			dash = false;
			strbuf_addch(out, (char)c);
		} else {
			dash = true;
		}
	}
	/* never cut a character in two: the last one, when its bytes are not all here, goes */
	size_t k = out->len;
	while (k > start && ((unsigned char)out->buf[k - 1] & 0xc0) == 0x80)
		k--;
	if (k > start && (unsigned char)out->buf[k - 1] >= 0xc0 &&
	    strbuf_utf8_len(out->buf + k - 1, out->len - k + 1) != out->len - k + 1)
		strbuf_setlen(out, k - 1);
	if (out->len == start)
		strbuf_addstr(out, "unnamed");
}

void series_branch(const struct series *s, struct strbuf *out)
{
	struct tm tm;
	time_t t = (time_t)s->date;
	char when[32];

	slug(out, s->author_name);
	strbuf_addch(out, '/');
	slug(out, s->subject);
	if (!gmtime_r(&t, &tm) || !strftime(when, sizeof(when), "%Y%m%d-%H%M%S", &tm))
		snprintf(when, sizeof(when), "%lld", (long long)s->date);
	strbuf_addf(out, "/%s", when);
}

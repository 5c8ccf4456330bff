/*
 * series: one mail of a list read as `git am` and threading read it. The
 * grouping of mails into series is series_group.c. See series.h.
 */
#include "series.h"
#include "mailread.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void refuse(struct series_mail *m, const char *fmt, const char *arg)
{
	m->kind = SERIES_REFUSED;
	free(m->why);
	m->why = xasprintf(fmt, arg);
}

int series_parse_date(const char *s, int64_t *t, int *tz)
{
	static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	char mon[4] = "";
	int d, y, hh, mm, ss = 0, n = 0;
	struct tm tm = { 0 };

	if (!s)
		return -1;
	const char *comma = strchr(s, ',');
	if (comma)
		s = comma + 1;
	if (sscanf(s, " %d %3s %d %d:%d%n", &d, mon, &y, &hh, &mm, &n) < 5)
		return -1;
	s += n;
	if (*s == ':' && sscanf(s, ":%d%n", &ss, &n) == 1)
		s += n;
	const char *mp = strcasestr(months, mon);
	if (strlen(mon) != 3 || !mp || (mp - months) % 3 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 ||
	    hh < 0 || mm < 0 || ss < 0)
		return -1;
	y += y >= 0 && y < 50 ? 2000 : y >= 0 && y < 1000 ? 1900 : 0;
	if (y < 1970 || y > 9999)
		return -1;
	int zone = 0;
	while (*s == ' ')
		s++;
	/* +hhmm: exactly four digits (a longer number is no zone) */
	if ((*s == '+' || *s == '-') && strspn(s + 1, "0123456789") == 4) {
		int v = (s[1] - '0') * 1000 + (s[2] - '0') * 100 + (s[3] - '0') * 10 + (s[4] - '0');
		zone = (v / 100 * 60 + v % 100) * (*s == '-' ? -1 : 1);
	}
	tm.tm_year = y - 1900;
	tm.tm_mon = (int)(mp - months) / 3;
	tm.tm_mday = d;
	tm.tm_hour = hh;
	tm.tm_min = mm;
	tm.tm_sec = ss;
	*t = (int64_t)timegm(&tm) - zone * 60;
	*tz = zone;
	return 0;
}

/* A byte below space other than tab and line ends, or DEL. */
static bool control(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

/* The header block: where the first blank line is. */
static size_t head_len(const char *msg, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (msg[i] == '\n' && (msg[i + 1] == '\n' || (msg[i + 1] == '\r' && i + 2 < len && msg[i + 2] == '\n')))
			return i + 1;
	return len;
}

/* "[PATCH v2 3/7] title": its version, index and total, and the title; false when no tag says PATCH. */
static bool patch_tags(const char *subj, struct series_mail *m)
{
	bool patch = false;
	const char *p = subj;

	m->version = 1;
	m->index = m->total = 1;
	while (*p == ' ')
		p++;
	while (*p == '[') {
		const char *end = strchr(p, ']');
		if (!end)
			break;
		char *tag = xstrndup(p + 1, (size_t)(end - p - 1));
		for (char *w = tag, *next; *w; w = next) {
			size_t n = strcspn(w, " ");
			next = w + n + (w[n] == ' ');
			w[n] = '\0';
			int a, b;
			char c;
			if (!strcasecmp(w, "PATCH"))
				patch = true;
			else if (!strcasecmp(w, "RESEND"))
				m->resend = true;
			else if ((*w == 'v' || *w == 'V') && sscanf(w + 1, "%d%c", &a, &c) == 1 && a > 0)
				m->version = a;
			else if (sscanf(w, "%d/%d%c", &a, &b, &c) == 2 && a >= 0 && b > 0)
				m->index = a, m->total = b;
		}
		free(tag);
		for (p = end + 1; *p == ' ';)
			p++;
	}
	m->title = xstrdup(p);
	return patch;
}

/* "Name <a@b>" (or "a@b", "a@b (Name)") into name and email. */
static void parse_from(const char *from, char **name, char **email)
{
	const char *lt = strchr(from, '<'), *gt = lt ? strchr(lt, '>') : NULL;

	free(*name);
	free(*email);
	if (lt && gt) {
		*email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
		size_t n = (size_t)(lt - from);
		while (n && from[n - 1] == ' ')
			n--;
		const char *s = from;
		if (n >= 2 && *s == '"' && s[n - 1] == '"')
			s++, n -= 2;
		*name = xstrndup(s, n);
	} else {
		size_t n = strcspn(from, " (");
		*email = xstrndup(from, n);
		*name = xstrdup(*email);
	}
}

/* The line of text at p that starts with key: its value (to the line end), or NULL. */
static char *line_value(const char *text, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, kl))
			return xstrndup(p + kl, strcspn(p + kl, "\n"));
	return NULL;
}

/* Where the line starting with prefix begins in text (at a line start), or NULL. */
static const char *find_line(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, n))
			return p;
	return NULL;
}

/* The diff of text (from its first "diff --git" to the signature) and its base-commit:, when it has them. */
static void take_diff(struct series_mail *m, const char *text)
{
	const char *diff = find_line(text, "diff --git ");

	if (diff && !m->diff) {
		const char *end = diff + strlen(diff), *sig = find_line(diff, "-- \n");
		const char *base = find_line(diff, "base-commit: ");
		if (sig && sig < end)
			end = sig;
		if (base && base < end)
			end = base;
		m->diff = xstrndup(diff, (size_t)(end - diff));
	}
	char *bc = m->base_commit ? NULL : line_value(text, "base-commit: ");
	if (bc && strlen(bc) >= 7 && strspn(bc, "0123456789abcdef") == strlen(bc))
		m->base_commit = bc;
	else
		free(bc);
	/* b4's change-id: a date and a slug, "20230101-topic-0123456789ab" */
	char *ci = m->change_id ? NULL : line_value(text, "change-id: ");
	size_t cl = ci ? strlen(ci) : 0;
	if (cl && cl <= 128 && strspn(ci, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") == cl)
		m->change_id = ci;
	else
		free(ci);
}

/* The body as git am splits it: an in-body From:, the message to "---", the diff to the signature. */
static void split_body(struct series_mail *m, const char *body)
{
	if (!strncmp(body, "From: ", 6)) {
		char *from = xstrndup(body + 6, strcspn(body + 6, "\n"));
		parse_from(from, &m->author_name, &m->author_email);
		free(from);
		body += strcspn(body, "\n");
		body += strspn(body, "\n");
	}
	const char *diff = find_line(body, "diff --git ");
	const char *cut = find_line(body, "---\n");
	if (!cut || (diff && diff < cut))
		cut = diff;
	struct strbuf msg = STRBUF_INIT;
	strbuf_addf(&msg, "%s\n", m->title);
	size_t blen = cut ? (size_t)(cut - body) : strlen(body);
	if (blen) {
		strbuf_addch(&msg, '\n');
		strbuf_add(&msg, body, blen);
	}
	strbuf_rtrim(&msg);
	strbuf_addch(&msg, '\n');
	m->message = strbuf_detach(&msg);
	take_diff(m, body);
}

/* The thread's first message: the first of References, else In-Reply-To, else its own id. */
static char *thread_root(const char *msg, size_t len, const char *own)
{
	char *refs = mailread_header(msg, len, "References"), *irt = mailread_header(msg, len, "In-Reply-To");
	const char *src = refs && strchr(refs, '<') ? refs : irt && strchr(irt, '<') ? irt : NULL;
	char *root = NULL;

	if (src) {
		const char *lt = strchr(src, '<'), *gt = strchr(lt, '>');
		root = gt ? xstrndup(lt, (size_t)(gt - lt + 1)) : NULL;
	}
	free(refs);
	free(irt);
	return root ? root : xstrdup(own);
}

/* The headers: Message-ID, thread, From, Date, Subject; false when refused. */
static bool read_head(struct series_mail *m, const char *msg, size_t len)
{
	size_t hl = head_len(msg, len);

	m->subject = mailread_header(msg, len, "Subject");
	char *id = mailread_header(msg, len, "Message-ID"), *from = mailread_header(msg, len, "From");
	char *date = mailread_header(msg, len, "Date");
	const char *lt = id ? strchr(id, '<') : NULL, *gt = lt ? strchr(lt, '>') : NULL;
	if (gt) {
		m->message_id = xstrndup(lt, (size_t)(gt - lt + 1));
		m->root = thread_root(msg, len, m->message_id);
	}
	if (from)
		parse_from(from, &m->author_name, &m->author_email);
	if (series_parse_date(date, &m->date, &m->tz))
		m->date = 0;
	free(id);
	free(from);
	free(date);
	/* its thread known first: a hostile patch breaks its series rather than going unseen */
	for (size_t i = 0; i < hl; i++)
		if (control((unsigned char)msg[i])) {
			refuse(m, "a control character in its header%s", "");
			return false;
		}
	if (!m->subject || !m->message_id || !m->author_email) {
		refuse(m, "no %s", !m->subject ? "Subject:" : !m->message_id ? "Message-ID:" : "From:");
		return false;
	}
	for (const char *p = m->subject; *p; p++)
		if (control((unsigned char)*p) || *p == '\n' || *p == '\r') {
			refuse(m, "control characters in its subject%s", "");
			return false;
		}
	return true;
}

void series_mail_parse(const char *msg, size_t len, struct series_mail *m)
{
	memset(m, 0, sizeof(*m));
	if (len > SERIES_MAX_MAIL || !msg) {
		m->kind = SERIES_REFUSED;
		m->why = xasprintf("a mail of %zu bytes: lkprobot reads mails of %u MiB at most", len,
				   SERIES_MAX_MAIL >> 20);
		return;
	}
	if (!read_head(m, msg, len))
		return;
	bool reply = !strncasecmp(m->subject, "re:", 3) || !strncasecmp(m->subject, "fwd:", 4) ||
		     !strncasecmp(m->subject, "aw:", 3);
	if (!patch_tags(m->subject, m) || reply) {
		m->kind = SERIES_OTHER;
		return;
	}
	if (m->total > SERIES_MAX_PATCHES || m->index > m->total) {
		m->kind = SERIES_REFUSED;
		m->why = xasprintf("patch %d/%d: lkprobot applies series of %d patches at most", m->index, m->total,
				   SERIES_MAX_PATCHES);
		return;
	}
	struct mailread mr = { 0 };
	mailread_parse(msg, len, &mr);
	if (!mr.nparts || mr.parts[0].name || strncmp(mr.parts[0].type ? mr.parts[0].type : "text/plain", "text/", 5)) {
		refuse(m, "no text body%s", "");
	} else {
		split_body(m, mr.parts[0].data.buf);
		/* git format-patch --attach and --inline: the diff in a text part after the message */
		for (size_t k = 1; k < mr.nparts && !m->diff; k++)
			if (mr.parts[k].type && !strncmp(mr.parts[k].type, "text/", 5))
				take_diff(m, mr.parts[k].data.buf);
		m->kind = m->index == 0 ? SERIES_COVER : SERIES_PATCH;
		struct strbuf why = STRBUF_INIT;
		if (m->kind == SERIES_PATCH && !m->diff)
			refuse(m, "patch %s has no diff (diff --git ...) in its text", m->subject);
		else if (m->kind == SERIES_PATCH && series_diff_check(m->diff, &why))
			refuse(m, "%s", why.buf);
		strbuf_release(&why);
	}
	mailread_release(&mr);
}

void series_mail_release(struct series_mail *m)
{
	free(m->why);
	free(m->message_id);
	free(m->root);
	free(m->subject);
	free(m->title);
	free(m->author_name);
	free(m->author_email);
	free(m->message);
	free(m->diff);
	free(m->base_commit);
	free(m->change_id);
	free(m->where);
	memset(m, 0, sizeof(*m));
}

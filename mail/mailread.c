/*
 * mailread: a message split into what its reader sees. See mailread.h.
 */
#include "mailread.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAILREAD_DEPTH 4	/* multiparts inside multiparts: mime.c makes one level */

/* Where the header block ends (its length) and the body starts. */
static void split_head(const char *msg, size_t len, size_t *hlen, size_t *body)
{
	for (size_t i = 0; i < len; i++) {
		if (msg[i] != '\n')
			continue;
		size_t j = i + 1;
		if (j < len && msg[j] == '\r')
			j++;
		if (j < len && msg[j] == '\n') {
			*hlen = i + 1;
			*body = j + 1;
			return;
		}
		if (i == 0 || (i == 1 && msg[0] == '\r'))
			break;
	}
	/* a message that starts with its blank line, or has no body */
	if (len && (msg[0] == '\n' || (len > 1 && msg[0] == '\r' && msg[1] == '\n'))) {
		*hlen = 0;
		*body = msg[0] == '\n' ? 1 : 2;
		return;
	}
	*hlen = len;
	*body = len;
}

/* The raw value of a header, unfolded (line ends dropped, the folding whitespace kept). */
static bool raw_header(const char *h, size_t hlen, const char *name, struct strbuf *out)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < hlen;) {
		size_t end = i;
		while (end < hlen && h[end] != '\n')
			end++;
		if (end - i > nl && !strncasecmp(h + i, name, nl) && h[i + nl] == ':') {
			size_t v = i + nl + 1;
			for (;;) {
				size_t e = end;
				if (e > v && h[e - 1] == '\r')
					e--;
				strbuf_add(out, h + v, e - v);
				if (end + 1 >= hlen || (h[end + 1] != ' ' && h[end + 1] != '\t'))
					break;
				v = end + 1;
				end = v;
				while (end < hlen && h[end] != '\n')
					end++;
			}
			return true;
		}
		i = end + 1;
	}
	return false;
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int b64val(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? c - 'a' + 26 : c >= '0' && c <= '9' ? c - '0' + 52
	       : c == '+' ? 62 : c == '/' ? 63 : -1;
}

static void base64_decode(struct strbuf *out, const char *s, size_t n)
{
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n && s[i] != '='; i++) {
		int v = b64val((unsigned char)s[i]);
		if (v < 0)
			continue;	/* line ends */
		acc = acc << 6 | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (char)(acc >> bits & 0xff));
		}
	}
}

/* Quoted-printable (a body) or RFC 2047's Q (a header word: '_' is a space). */
static void qp_decode(struct strbuf *out, const char *s, size_t n, bool q_word)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '=' && i + 1 < n && (s[i + 1] == '\n' || (s[i + 1] == '\r' && i + 2 < n && s[i + 2] == '\n'))) {
			i += s[i + 1] == '\r' ? 2 : 1;	/* a soft line break */
			continue;
		}
		if (s[i] == '=' && i + 2 < n && hexval((unsigned char)s[i + 1]) >= 0 && hexval((unsigned char)s[i + 2]) >= 0) {
			strbuf_addch(out, (char)(hexval((unsigned char)s[i + 1]) << 4 | hexval((unsigned char)s[i + 2])));
			i += 2;
			continue;
		}
		strbuf_addch(out, q_word && s[i] == '_' ? ' ' : s[i]);
	}
}

/* Bytes in charset appended as UTF-8: Latin-1 converted, anything else taken as UTF-8 already. */
static void add_charset(struct strbuf *out, const char *charset, const char *s, size_t n)
{
	bool latin1 = !strncasecmp(charset, "iso-8859-1", 10) || !strcasecmp(charset, "latin1");

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (latin1 && c >= 0x80) {
			strbuf_addch(out, (char)(0xc0 | c >> 6));
			strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
		} else {
			strbuf_addch(out, (char)c);
		}
	}
}

/* An encoded-word =?charset?Q|B?text?= at s: its decoded text appended and its length, or 0 when it is none. */
static size_t encoded_word(const char *s, struct strbuf *out)
{
	if (strncmp(s, "=?", 2))
		return 0;
	const char *cs = s + 2, *q1 = strchr(cs, '?');
	if (!q1 || (q1[1] != 'Q' && q1[1] != 'q' && q1[1] != 'B' && q1[1] != 'b') || q1[2] != '?')
		return 0;
	const char *text = q1 + 3, *end = strstr(text, "?=");
	if (!end || memchr(text, ' ', (size_t)(end - text)))
		return 0;
	char *charset = xstrndup(cs, (size_t)(q1 - cs));
	char *star = strchr(charset, '*');	/* RFC 2231's language */
	if (star)
		*star = '\0';
	struct strbuf raw = STRBUF_INIT;
	if (q1[1] == 'B' || q1[1] == 'b')
		base64_decode(&raw, text, (size_t)(end - text));
	else
		qp_decode(&raw, text, (size_t)(end - text), true);
	add_charset(out, charset, raw.buf ? raw.buf : "", raw.len);
	strbuf_release(&raw);
	free(charset);
	return (size_t)(end + 2 - s);
}

char *mailread_header(const char *msg, size_t len, const char *name)
{
	size_t hlen, body;
	struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;

	split_head(msg, len, &hlen, &body);
	if (!raw_header(msg, hlen, name, &raw)) {
		strbuf_release(&raw);
		return NULL;
	}
	const char *p = raw.buf ? raw.buf : "";
	while (*p == ' ' || *p == '\t')
		p++;
	bool after_word = false;
	while (*p) {
		size_t n = encoded_word(p, &out);
		if (n) {
			p += n;
			after_word = true;
			continue;
		}
		/* whitespace between two encoded-words is not text */
		size_t ws = strspn(p, " \t");
		if (ws && after_word) {
			struct strbuf probe = STRBUF_INIT;
			bool next_word = encoded_word(p + ws, &probe) > 0;
			strbuf_release(&probe);
			if (next_word) {
				p += ws;
				continue;
			}
		}
		after_word = false;
		strbuf_addch(&out, (unsigned char)*p < 0x20 || *p == 0x7f ? ' ' : *p);
		p++;
	}
	strbuf_rtrim(&out);
	strbuf_release(&raw);
	return strbuf_detach(&out);
}

/*
 * The parameter `key` of a structured value (Content-Type, -Disposition):
 * key="v", key=v, RFC 2231's key*=charset''pct and its sections key*0*=,
 * key*1=, ... joined. NULL when absent.
 */
static char *param(const char *value, const char *key)
{
	struct strbuf plain = STRBUF_INIT, sect[32];
	bool have_plain = false, have_sect = false;
	size_t kl = strlen(key), nsect = 0;
	char charset[32] = "utf-8";

	for (size_t i = 0; i < 32; i++)
		strbuf_init(&sect[i], 0);
	for (const char *p = strchr(value, ';'); p; p = strchr(p, ';')) {
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
		const char *eq = strchr(p, '=');
		if (!eq)
			break;
		size_t nl = (size_t)(eq - p);
		while (nl && (p[nl - 1] == ' ' || p[nl - 1] == '\t'))
			nl--;
		/* the value: quoted (with \ escapes) or a token */
		struct strbuf v = STRBUF_INIT;
		const char *q = eq + 1;
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == '"') {
			for (q++; *q && *q != '"'; q++) {
				if (*q == '\\' && q[1])
					q++;
				strbuf_addch(&v, *q);
			}
		} else {
			for (; *q && *q != ';' && *q != ' ' && *q != '\t'; q++)
				strbuf_addch(&v, *q);
		}
		const char *vs = v.buf ? v.buf : "";
		if (nl == kl && !strncasecmp(p, key, kl)) {
			strbuf_reset(&plain);
			strbuf_addstr(&plain, vs);
			have_plain = true;
		} else if (nl > kl && !strncasecmp(p, key, kl) && p[kl] == '*') {
			/* key*=ext, key*N=, key*N*=ext */
			const char *rest = p + kl + 1;
			bool ext = p[nl - 1] == '*';
			unsigned idx = 0;
			if (rest < p + nl && isdigit((unsigned char)*rest))
				idx = (unsigned)strtoul(rest, NULL, 10);
			if (idx < 32) {
				const char *data = vs;
				if (ext && idx == 0) {
					const char *a1 = strchr(vs, '\''), *a2 = a1 ? strchr(a1 + 1, '\'') : NULL;
					if (a2) {
						size_t cl = (size_t)(a1 - vs) < sizeof(charset) - 1 ? (size_t)(a1 - vs) : sizeof(charset) - 1;
						memcpy(charset, vs, cl);
						charset[cl] = '\0';
						data = a2 + 1;
					}
				}
				strbuf_reset(&sect[idx]);
				if (!ext) {
					strbuf_addstr(&sect[idx], data);
				} else {
					/* RFC 2231's percent-encoding */
					for (const char *c = data; *c; c++) {
						if (*c == '%' && hexval((unsigned char)c[1]) >= 0 && hexval((unsigned char)c[2]) >= 0) {
							strbuf_addch(&sect[idx], (char)(hexval((unsigned char)c[1]) << 4 | hexval((unsigned char)c[2])));
							c += 2;
						} else {
							strbuf_addch(&sect[idx], *c);
						}
					}
				}
				if (idx + 1 > nsect)
					nsect = idx + 1;
				have_sect = true;
			}
		}
		strbuf_release(&v);
		p = q;
	}
	char *ret = NULL;
	if (have_sect) {
		struct strbuf raw = STRBUF_INIT, out = STRBUF_INIT;
		for (size_t i = 0; i < nsect; i++)
			strbuf_add(&raw, sect[i].buf ? sect[i].buf : "", sect[i].len);
		add_charset(&out, charset, raw.buf ? raw.buf : "", raw.len);
		strbuf_release(&raw);
		ret = strbuf_detach(&out);
	} else if (have_plain) {
		ret = xstrdup(plain.buf ? plain.buf : "");
	}
	for (size_t i = 0; i < 32; i++)
		strbuf_release(&sect[i]);
	strbuf_release(&plain);
	return ret;
}

/* The part's Content-Type without parameters, lower case; text/plain by default. */
static char *bare_type(const char *ct)
{
	if (!ct || !*ct)
		return xstrdup("text/plain");
	size_t n = strcspn(ct, "; \t");
	char *t = xstrndup(ct, n);
	for (char *c = t; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return t;
}

static void add_part(struct mailread *m, char *name, char *type, struct strbuf *data)
{
	m->parts = xrealloc(m->parts, (m->nparts + 1) * sizeof(*m->parts));
	struct mailread_part *p = &m->parts[m->nparts++];
	p->name = name;
	p->type = type;
	p->data = *data;
	strbuf_init(data, 0);
}

static void entity(struct mailread *m, const char *msg, size_t len, int depth);

/* The parts of a multipart body between its "--boundary" lines. */
static void multipart(struct mailread *m, const char *body, size_t len, const char *boundary, int depth)
{
	char *delim = xasprintf("--%s", boundary);
	size_t dl = strlen(delim);
	const char *start = NULL;

	for (size_t i = 0; i + dl <= len;) {
		bool at_line = i == 0 || body[i - 1] == '\n';
		if (at_line && !memcmp(body + i, delim, dl)) {
			if (start) {
				/* the line end before the delimiter is the delimiter's */
				size_t e = (size_t)(body + i - start);
				if (e && start[e - 1] == '\n')
					e--;
				if (e && start[e - 1] == '\r')
					e--;
				entity(m, start, e, depth + 1);
			}
			if (i + dl + 2 <= len && body[i + dl] == '-' && body[i + dl + 1] == '-')
				break;	/* the closing delimiter */
			const char *nl = memchr(body + i, '\n', len - i);
			if (!nl)
				break;
			start = nl + 1;
			i = (size_t)(start - body);
			continue;
		}
		const char *nl = memchr(body + i, '\n', len - i);
		if (!nl)
			break;
		i = (size_t)(nl - body) + 1;
	}
	free(delim);
}

/* One entity (the message, or a part of it): its headers, then its body decoded or split. */
static void entity(struct mailread *m, const char *msg, size_t len, int depth)
{
	size_t hlen, body;
	struct strbuf ct = STRBUF_INIT, cte = STRBUF_INIT, cd = STRBUF_INIT, data = STRBUF_INIT;

	split_head(msg, len, &hlen, &body);
	raw_header(msg, hlen, "Content-Type", &ct);
	raw_header(msg, hlen, "Content-Transfer-Encoding", &cte);
	raw_header(msg, hlen, "Content-Disposition", &cd);
	const char *cts = ct.buf ? ct.buf : "", *ctes = cte.buf ? cte.buf : "", *cds = cd.buf ? cd.buf : "";
	while (*cts == ' ')
		cts++;
	while (*ctes == ' ')
		ctes++;
	while (*cds == ' ')
		cds++;
	char *type = bare_type(cts);
	char *boundary = param(cts, "boundary");
	if (!strncmp(type, "multipart/", 10) && boundary && *boundary && depth < MAILREAD_DEPTH) {
		multipart(m, msg + body, len - body, boundary, depth);
		free(type);
		goto out;
	}
	if (!strncasecmp(ctes, "base64", 6))
		base64_decode(&data, msg + body, len - body);
	else if (!strncasecmp(ctes, "quoted-printable", 16))
		qp_decode(&data, msg + body, len - body, false);
	else
		strbuf_add(&data, msg + body, len - body);
	char *name = param(cds, "filename");
	if (!name)
		name = param(cts, "name");
	bool attachment = name || !strncasecmp(cds, "attachment", 10) || strncmp(type, "text/", 5);
	if (!attachment || !strncmp(type, "text/", 5)) {
		/* text with LF line ends, as it is read */
		struct strbuf lf = STRBUF_INIT;
		for (size_t i = 0; i < data.len; i++)
			if (!(data.buf[i] == '\r' && i + 1 < data.len && data.buf[i + 1] == '\n'))
				strbuf_addch(&lf, data.buf[i]);
		strbuf_release(&data);
		data = lf;
	}
	if (attachment && !name)
		name = xasprintf("part-%zu", m->nparts + 1);
	/* a name is a file name: no directories, no control characters */
	for (char *c = name; c && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == '/' || *c == '\\')
			*c = '_';
	add_part(m, attachment ? name : NULL, type, &data);
	if (!attachment)
		free(name);
out:
	free(boundary);
	strbuf_release(&ct);
	strbuf_release(&cte);
	strbuf_release(&cd);
	strbuf_release(&data);
}

void mailread_parse(const char *msg, size_t len, struct mailread *m)
{
	memset(m, 0, sizeof(*m));
	entity(m, msg, len, 0);
	/* the (first) text body first */
	for (size_t i = 0; i < m->nparts; i++)
		if (!m->parts[i].name) {
			struct mailread_part t = m->parts[i];
			memmove(m->parts + 1, m->parts, i * sizeof(*m->parts));
			m->parts[0] = t;
			break;
		}
}

void mailread_release(struct mailread *m)
{
	for (size_t i = 0; i < m->nparts; i++) {
		free(m->parts[i].name);
		free(m->parts[i].type);
		strbuf_release(&m->parts[i].data);
	}
	free(m->parts);
	memset(m, 0, sizeof(*m));
}

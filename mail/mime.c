/*
 * mime: report mails as bytes — header folding, RFC 2047 encoded-words,
 * RFC 2231 file names, quoted-printable, base64, multipart. See mime.h.
 */
#include "mime.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_SOFT	78	/* header lines stay within this where possible */
#define LINE_HARD	998	/* octets per line, never more (RFC 5322 2.1.1) */
#define EW_MAX		75	/* characters per encoded-word (RFC 2047 2) */
#define EW_OVERHEAD	12	/* "=?UTF-8?Q?" and "?=" */
#define QP_LINE		76	/* quoted-printable line, "=" included */
#define B64_IN		57	/* input bytes per 76-character base64 line */
#define WORD_MAX	900	/* a longer plain header word is encoded (and so split) */
#define DNAME_MAX	256	/* octets of a display name */
#define PARAM_MAX	70	/* a longer filename parameter is split into sections */
#define PARAM_SEG	60	/* characters per RFC 2231 section (the first: 7 fewer, for "utf-8''") */

/* ---- characters --------------------------------------------------------- */

static bool is_ws(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 5322 atext */
static bool is_atext(unsigned char c)
{
	return is_alnum(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

/* RFC 2045 token characters (printable ASCII but SPACE and tspecials) */
static bool is_token(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?=", c);
}

/* Offset of the first byte that is not valid UTF-8, n if there is none. */
static size_t utf8_check(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t l = strbuf_utf8_len(s + i, n - i);
		if (!l)
			return i;
		i += l;
	}
	return n;
}

/* At most 200 bytes of s, escaped so that an error message stays on one line. */
static void add_printable(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	strbuf_add_oneline(sb, s, n < 200 ? n : 200);
	if (n > 200)
		strbuf_addstr(sb, "...");
}

/* FNV-1a 64 of the bytes but CR, so that CRLF and LF renderings agree */
static uint64_t fnv1a64_nocr(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\r')
			continue;
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static uint32_t fnv1a32(const char *s)
{
	uint32_t h = 0x811c9dc5;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x01000193;
	}
	return h;
}

/* ---- base64, quoted-printable, 8bit -------------------------------------- */

static void b64_add(struct strbuf *sb, const unsigned char *s, size_t n)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)s[i] << 16;
		if (i + 1 < n)
			v |= (uint32_t)s[i + 1] << 8;
		if (i + 2 < n)
			v |= s[i + 2];
		strbuf_addch(sb, tab[v >> 18 & 63]);
		strbuf_addch(sb, tab[v >> 12 & 63]);
		strbuf_addch(sb, i + 1 < n ? tab[v >> 6 & 63] : '=');
		strbuf_addch(sb, i + 2 < n ? tab[v & 63] : '=');
	}
}

/* base64 in lines of 76 characters, each ended by eol */
static void b64_lines(struct strbuf *sb, const void *data, size_t n, const char *eol)
{
	const unsigned char *s = data;

	for (size_t i = 0; i < n; i += B64_IN) {
		b64_add(sb, s + i, n - i < B64_IN ? n - i : B64_IN);
		strbuf_addstr(sb, eol);
	}
}

/*
 * The next line of s[*pos..n): its text without the line end (LF or
 * CRLF), and whether a line end followed it. False at the end.
 */
static bool next_line(const char *s, size_t n, size_t *pos, const char **line, size_t *len,
		      bool *ended)
{
	const char *p = s + *pos, *nl;
	size_t l;

	if (*pos >= n)
		return false;
	nl = memchr(p, '\n', n - *pos);
	l = nl ? (size_t)(nl - p) : n - *pos;
	*pos += l + (nl ? 1 : 0);
	if (nl && l && p[l - 1] == '\r')
		l--;
	*line = p;
	*len = l;
	*ended = nl != NULL;
	return true;
}

/* Text that can go as 8bit: no line over 998 octets, no CR but in CRLF. */
static bool text_is_8bit(const char *s, size_t n)
{
	size_t pos = 0, len;
	const char *line;
	bool ended;

	while (next_line(s, n, &pos, &line, &len, &ended))
		if (len > LINE_HARD || memchr(line, '\r', len))
			return false;
	return true;
}

static void text_8bit(struct strbuf *sb, const char *s, size_t n, const char *eol)
{
	size_t pos = 0, len;
	const char *line;
	bool ended;

	while (next_line(s, n, &pos, &line, &len, &ended)) {
		strbuf_add(sb, line, len);
		if (ended)
			strbuf_addstr(sb, eol);
	}
}

/* RFC 2045 6.7: line ends are hard breaks, soft breaks keep lines <= 76. */
static void text_qp(struct strbuf *sb, const char *s, size_t n, const char *eol)
{
	size_t pos = 0, len;
	const char *line;
	bool ended;

	while (next_line(s, n, &pos, &line, &len, &ended)) {
		size_t col = 0;
		for (size_t i = 0; i < len; i++) {
			unsigned char c = line[i];
			char tok[4];
			size_t tl = 1;

			if ((c > 32 && c < 127 && c != '=') || (is_ws(c) && i + 1 < len))
				tok[0] = c;
			else
				tl = (size_t)snprintf(tok, sizeof(tok), "=%02X", c);
			if (col + tl > QP_LINE - 1) {
				strbuf_addch(sb, '=');
				strbuf_addstr(sb, eol);
				col = 0;
			}
			strbuf_add(sb, tok, tl);
			col += tl;
		}
		if (ended)
			strbuf_addstr(sb, eol);
	}
}

/* ---- header lines --------------------------------------------------------- */

struct hdr {
	struct strbuf *out;
	const char *eol;
	size_t line;		/* offset of the current line in out */
	size_t start;		/* column after "Name:" */
};

static size_t hdr_col(const struct hdr *h)
{
	return h->out->len - h->line;
}

static void hdr_begin(struct hdr *h, struct strbuf *out, const char *eol, const char *name,
		      size_t namelen)
{
	h->out = out;
	h->eol = eol;
	h->line = out->len;
	strbuf_add(out, name, namelen);
	strbuf_addch(out, ':');
	h->start = hdr_col(h);
}

static void hdr_end(struct hdr *h)
{
	strbuf_addstr(h->out, h->eol);
}

static void hdr_fold(struct hdr *h)
{
	strbuf_addstr(h->out, h->eol);
	h->line = h->out->len;
}

/* Whitespace then a word; folded before the whitespace when the line would get too long. */
static void hdr_word(struct hdr *h, const char *ws, size_t wslen, const char *w, size_t wlen)
{
	if (hdr_col(h) > h->start && hdr_col(h) + wslen + wlen > LINE_SOFT)
		hdr_fold(h);
	strbuf_add(h->out, ws, wslen);
	strbuf_add(h->out, w, wlen);
}

/* Words separated by spaces, each folded as needed. */
static void hdr_words(struct hdr *h, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t w;
		while (i < n && s[i] == ' ')
			i++;
		for (w = i; w < n && s[w] != ' '; w++)
			;
		if (w > i)
			hdr_word(h, " ", 1, s + i, w - i);
		i = w;
	}
}

/*
 * A unit (one mailbox, with its comma) goes on one line: on this one if it
 * fits, else on the next. One longer than a line is split at its spaces.
 */
static void hdr_unit(struct hdr *h, const char *s, size_t n)
{
	if (hdr_col(h) > h->start && hdr_col(h) + 1 + n > LINE_SOFT && 1 + n <= LINE_SOFT)
		hdr_fold(h);
	if (hdr_col(h) + 1 + n <= LINE_SOFT) {
		strbuf_addch(h->out, ' ');
		strbuf_add(h->out, s, n);
		return;
	}
	hdr_words(h, s, n);
}

/* ---- RFC 2047 encoded-words ------------------------------------------------- */

/* Q characters written as themselves: RFC 2047 5(3), safe in phrases too */
static bool q_plain(unsigned char c)
{
	return is_alnum(c) || (c && strchr("!*+-/", c));
}

static size_t q_cost(unsigned char c)
{
	return c == ' ' || q_plain(c) ? 1 : 3;
}

/* Length of the encoded text of s[0..n) (without "=?UTF-8?Q?" and "?="). */
static size_t ew_cost(const char *s, size_t n, bool b64)
{
	size_t c = 0;

	if (b64)
		return (n + 2) / 3 * 4;
	for (size_t i = 0; i < n; i++)
		c += q_cost(s[i]);
	return c;
}

/* Q is easier to read raw; B only when Q would be more than 1.5 times as long. */
static bool ew_use_b64(const char *s, size_t n)
{
	return 2 * ew_cost(s, n, false) > 3 * ew_cost(s, n, true);
}

/* Octets of s[0..n), whole characters (at least one), for an encoded-word of <= max characters. */
static size_t ew_fit(const char *s, size_t n, bool b64, size_t max)
{
	size_t i = 0;

	while (i < n) {
		size_t cl = strbuf_utf8_len(s + i, n - i);
		if (!cl)
			cl = 1;
		if (i && EW_OVERHEAD + ew_cost(s, i + cl, b64) > max)
			break;
		i += cl;
	}
	return i;
}

static void ew_add(struct strbuf *sb, const char *s, size_t n, bool b64)
{
	strbuf_addstr(sb, b64 ? "=?UTF-8?B?" : "=?UTF-8?Q?");
	if (b64) {
		b64_add(sb, (const unsigned char *)s, n);
	} else {
		for (size_t i = 0; i < n; i++) {
			unsigned char c = s[i];
			if (c == ' ')
				strbuf_addch(sb, '_');
			else if (q_plain(c))
				strbuf_addch(sb, c);
			else
				strbuf_addf(sb, "=%02X", c);
		}
	}
	strbuf_addstr(sb, "?=");
}

/* Encoded-words of at most EW_MAX characters, separated by spaces. */
static void ew_words(struct strbuf *sb, const char *s, size_t n)
{
	bool b64 = ew_use_b64(s, n);
	size_t i = 0;

	while (i < n) {
		size_t take = ew_fit(s + i, n - i, b64, EW_MAX);
		if (i)
			strbuf_addch(sb, ' ');
		ew_add(sb, s + i, take, b64);
		i += take;
	}
}

static size_t ew_room(const struct hdr *h, size_t lead)
{
	size_t col = hdr_col(h) + lead;

	if (col >= LINE_SOFT)
		return 0;
	return LINE_SOFT - col < EW_MAX ? LINE_SOFT - col : EW_MAX;
}

/* Encoded-words filling the header's lines; ws (the original whitespace) before the first. */
static void hdr_encoded(struct hdr *h, const char *ws, size_t wslen, const char *s, size_t n)
{
	bool b64 = ew_use_b64(s, n);
	size_t i = 0;

	while (i < n) {
		const char *lead = i ? " " : ws;
		size_t leadlen = i ? 1 : wslen;
		size_t room = ew_room(h, leadlen);
		size_t take = ew_fit(s + i, n - i, b64, room);

		/* fold rather than write a word that does not fit, or a stub */
		if (hdr_col(h) > h->start &&
		    (EW_OVERHEAD + ew_cost(s + i, take, b64) > room ||
		     (take < n - i && room < EW_MAX / 2))) {
			hdr_fold(h);
			room = ew_room(h, leadlen);
			take = ew_fit(s + i, n - i, b64, room);
		}
		strbuf_add(h->out, lead, leadlen);
		ew_add(h->out, s + i, take, b64);
		i += take;
	}
}

static bool word_needs_ew(const char *w, size_t n)
{
	if (n > WORD_MAX)
		return true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = w[i];
		if (c >= 0x80 || c < 0x20 || c == 0x7f)
			return true;
		if (c == '=' && i + 1 < n && w[i + 1] == '?')
			return true;
	}
	return false;
}

/* An unstructured value (Subject, extra headers): words, encoded where needed. */
static void hdr_unstructured(struct hdr *h, const char *v)
{
	size_t i = 0, n = strlen(v);
	bool first = true;

	while (i < n && is_ws(v[i]))
		i++;
	while (n > i && is_ws(v[n - 1]))
		n--;
	while (i < n) {
		size_t ws0 = i, w0, end;
		const char *ws;
		size_t wslen;

		while (i < n && is_ws(v[i]))
			i++;
		ws = first ? " " : v + ws0;
		wslen = first ? 1 : i - ws0;
		first = false;
		for (w0 = i; i < n && !is_ws(v[i]); i++)
			;
		if (!word_needs_ew(v + w0, i - w0)) {
			hdr_word(h, ws, wslen, v + w0, i - w0);
			continue;
		}
		/* adjacent words needing it go into one run: the space between
		 * two encoded-words would be lost */
		end = i;
		for (;;) {
			size_t j = end, k;
			while (j < n && is_ws(v[j]))
				j++;
			for (k = j; k < n && !is_ws(v[k]); k++)
				;
			if (j == n || !word_needs_ew(v + j, k - j))
				break;
			end = k;
		}
		hdr_encoded(h, ws, wslen, v + w0, end - w0);
		i = end;
	}
}

/* ---- addresses ------------------------------------------------------------ */

struct mbox {
	struct strbuf name;	/* display name, whitespace collapsed; empty: none */
	const char *addr;	/* addr-spec, in the caller's string */
	size_t addrlen;
};

/* Why an addr-spec is invalid, or 0 with `why` untouched. */
static int addrspec_check(const char *a, size_t n, struct strbuf *why)
{
	const char *at = memchr(a, '@', n), *dom;
	size_t loclen, domlen, label = 0;

	if (!n) {
		strbuf_addstr(why, "empty address");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if ((unsigned char)a[i] >= 0x80) {
			strbuf_addstr(why, "non-ASCII addresses are not supported");
			return -1;
		}
	}
	if (!at) {
		strbuf_addstr(why, "no '@'");
		return -1;
	}
	loclen = (size_t)(at - a);
	dom = at + 1;
	domlen = n - loclen - 1;
	if (memchr(dom, '@', domlen)) {
		strbuf_addstr(why, "more than one '@'");
		return -1;
	}
	if (!loclen) {
		strbuf_addstr(why, "empty local part");
		return -1;
	}
	if (loclen > 64) {
		strbuf_addstr(why, "local part longer than 64 octets");
		return -1;
	}
	if (a[0] == '.' || a[loclen - 1] == '.' || memmem(a, loclen, "..", 2)) {
		strbuf_addstr(why, "misplaced '.' in the local part");
		return -1;
	}
	for (size_t i = 0; i < loclen; i++) {
		if (!is_atext(a[i]) && a[i] != '.') {
			strbuf_addf(why, "'%c' is not allowed in the local part", a[i]);
			return -1;
		}
	}
	if (!domlen) {
		strbuf_addstr(why, "empty domain");
		return -1;
	}
	if (domlen > 253) {
		strbuf_addstr(why, "domain longer than 253 octets");
		return -1;
	}
	for (size_t i = 0; i <= domlen; i++) {
		if (i == domlen || dom[i] == '.') {
			if (!label) {
				strbuf_addstr(why, "empty label in the domain");
				return -1;
			}
			if (label > 63) {
				strbuf_addstr(why, "domain label longer than 63 octets");
				return -1;
			}
			if (dom[i - 1] == '-' || dom[i - label] == '-') {
				strbuf_addstr(why, "domain label starts or ends with '-'");
				return -1;
			}
			label = 0;
			continue;
		}
		if (!is_alnum(dom[i]) && dom[i] != '-') {
			strbuf_addf(why, "'%c' is not allowed in the domain", dom[i]);
			return -1;
		}
		label++;
	}
	return 0;
}

static int parse_mailbox(const char *what, const char *s, struct mbox *mb, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, raw = STRBUF_INIT;
	const char *p = s, *end = s + strlen(s), *lt;
	size_t bad;

	strbuf_reset(&mb->name);
	for (const char *q = p; q < end; q++) {
		if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f) {
			strbuf_addstr(&why, "control character in it");
			goto fail;
		}
	}
	while (p < end && is_ws(*p))
		p++;
	while (end > p && is_ws(end[-1]))
		end--;
	if (p == end) {
		strbuf_addstr(&why, "empty");
		goto fail;
	}
	if (end[-1] != '>') {
		if (memchr(p, '<', end - p) || memchr(p, '>', end - p)) {
			strbuf_addstr(&why, "expected 'Name <addr@domain>' or 'addr@domain'");
			goto fail;
		}
		for (const char *q = p; q < end; q++) {
			if (is_ws(*q)) {
				strbuf_addstr(&why, "whitespace in the address (a display name needs <addr@domain>)");
				goto fail;
			}
		}
		mb->addr = p;
		mb->addrlen = (size_t)(end - p);
	} else {
		if (*p == '"') {
			const char *q = p + 1;
			while (q < end && *q != '"') {
				if (*q == '\\' && q + 1 < end)
					q++;
				strbuf_addch(&raw, *q++);
			}
			if (q == end) {
				strbuf_addstr(&why, "unterminated quoted display name");
				goto fail;
			}
			for (q++; q < end && is_ws(*q); q++)
				;
			if (*q != '<') {
				strbuf_addstr(&why, "expected '<' after the quoted display name");
				goto fail;
			}
			lt = q;
		} else {
			lt = memchr(p, '<', end - p);
			if (!lt) {
				strbuf_addstr(&why, "'>' without '<'");
				goto fail;
			}
			strbuf_add(&raw, p, lt - p);
			if (strpbrk(raw.buf, "\"<>")) {
				strbuf_addstr(&why, "a display name with '\"' must be quoted as a whole");
				goto fail;
			}
		}
		mb->addr = lt + 1;
		mb->addrlen = (size_t)(end - 1 - mb->addr);
		if (memchr(mb->addr, '<', mb->addrlen) || memchr(mb->addr, '>', mb->addrlen)) {
			strbuf_addstr(&why, "more than one '<' or '>'");
			goto fail;
		}
	}
	if (addrspec_check(mb->addr, mb->addrlen, &why))
		goto fail;

	/* the display name, whitespace runs collapsed */
	for (size_t i = 0; i < raw.len; i++) {
		if (is_ws(raw.buf[i])) {
			if (mb->name.len && !is_ws(raw.buf[i + 1]) && raw.buf[i + 1])
				strbuf_addch(&mb->name, ' ');
			continue;
		}
		strbuf_addch(&mb->name, raw.buf[i]);
	}
	bad = utf8_check(mb->name.buf, mb->name.len);
	if (bad != mb->name.len) {
		strbuf_addf(&why, "display name is not valid UTF-8 (byte %zu)", bad);
		goto fail;
	}
	if (mb->name.len > DNAME_MAX) {
		strbuf_addf(&why, "display name longer than %d octets", DNAME_MAX);
		goto fail;
	}
	strbuf_release(&raw);
	return 0;
fail:
	strbuf_reset(err);
	strbuf_addstr(err, "invalid ");
	if (what)
		strbuf_addf(err, "%s ", what);
	strbuf_addstr(err, "address '");
	add_printable(err, s);
	strbuf_addf(err, "': %s", why.buf);
	strbuf_release(&why);
	strbuf_release(&raw);
	return -1;
}

int mime_check_address(const char *addr, struct strbuf *err)
{
	struct mbox mb = { STRBUF_INIT, NULL, 0 };
	int ret = parse_mailbox(NULL, addr, &mb, err);

	strbuf_release(&mb.name);
	return ret;
}

char *mime_addr_spec(const char *addr, struct strbuf *err)
{
	struct mbox mb = { STRBUF_INIT, NULL, 0 };
	char *spec = NULL;

	if (!parse_mailbox(NULL, addr, &mb, err))
		spec = xstrndup(mb.addr, mb.addrlen);
	strbuf_release(&mb.name);
	return spec;
}

/* The mailbox as it goes into a header: name (atoms, quoted or encoded) <addr>. */
static void mailbox_unit(struct strbuf *sb, const struct mbox *mb, bool comma)
{
	const char *name = mb->name.buf;
	size_t n = mb->name.len;
	bool atoms = true;

	if (!n) {
		strbuf_add(sb, mb->addr, mb->addrlen);
	} else {
		if (word_needs_ew(name, n)) {
			ew_words(sb, name, n);
		} else {
			for (size_t i = 0; i < n; i++)
				if (!is_atext(name[i]) && name[i] != ' ')
					atoms = false;
			if (atoms) {
				strbuf_add(sb, name, n);
			} else {
				strbuf_addch(sb, '"');
				for (size_t i = 0; i < n; i++) {
					if (name[i] == '"' || name[i] == '\\')
						strbuf_addch(sb, '\\');
					strbuf_addch(sb, name[i]);
				}
				strbuf_addch(sb, '"');
			}
		}
		strbuf_addstr(sb, " <");
		strbuf_add(sb, mb->addr, mb->addrlen);
		strbuf_addch(sb, '>');
	}
	if (comma)
		strbuf_addch(sb, ',');
}

static int hdr_addresses(struct strbuf *out, const char *eol, const char *what,
			 const char *const *list, size_t n, struct strbuf *err)
{
	struct mbox mb = { STRBUF_INIT, NULL, 0 };
	struct strbuf unit = STRBUF_INIT;
	struct hdr h;
	int ret = 0;

	if (!n)
		return 0;
	if (!list) {
		strbuf_setf(err, "%s addresses are NULL", what);
		return -1;
	}
	hdr_begin(&h, out, eol, what, strlen(what));
	for (size_t i = 0; i < n; i++) {
		if (!list[i]) {
			strbuf_setf(err, "%s address %zu is NULL", what, i + 1);
			ret = -1;
			break;
		}
		if (parse_mailbox(what, list[i], &mb, err)) {
			ret = -1;
			break;
		}
		strbuf_reset(&unit);
		mailbox_unit(&unit, &mb, i + 1 < n);
		hdr_unit(&h, unit.buf, unit.len);
	}
	hdr_end(&h);
	strbuf_release(&unit);
	strbuf_release(&mb.name);
	return ret;
}

/* ---- the other header fields ------------------------------------------------- */

static int check_msgid(const char *what, const char *s, size_t n, struct strbuf *err)
{
	const char *why = NULL;
	const char *at = n > 2 ? memchr(s + 1, '@', n - 2) : NULL;

	if (n < 5 || s[0] != '<' || s[n - 1] != '>')
		why = "not <left@right>";
	else if (n > 250)
		why = "longer than 250 characters";
	else if (!at || at == s + 1 || at == s + n - 2 || memchr(at + 1, '@', s + n - 2 - at))
		why = "not <left@right>";
	for (size_t i = 1; !why && i + 1 < n; i++)
		if (s[i] <= 32 || s[i] >= 127 || strchr("<>\"\\()[],;:", s[i]))
			why = "a character that is not allowed in it";
	if (!why)
		return 0;
	strbuf_setf(err, "invalid %s '", what);
	add_printable(err, s);
	strbuf_addf(err, "': %s", why);
	return -1;
}

static int check_text(const char *what, const char *v, struct strbuf *err)
{
	size_t n = strlen(v), bad;

	if (strpbrk(v, "\r\n")) {
		strbuf_setf(err, "%s has a line break", what);
		return -1;
	}
	bad = utf8_check(v, n);
	if (bad != n) {
		strbuf_setf(err, "%s is not valid UTF-8 (byte %zu)", what, bad);
		return -1;
	}
	return 0;
}

/* Header fields mime_render() writes itself: no extra header may repeat them. */
static const char *const own_headers[] = {
	"From", "To", "Cc", "Subject", "Date", "Message-ID", "In-Reply-To",
	"References", "MIME-Version", "Content-Type", "Content-Transfer-Encoding",
	"Content-Disposition",
};

static int hdr_extra(struct strbuf *out, const char *eol, const char *x, struct strbuf *err)
{
	const char *colon = x ? strchr(x, ':') : NULL;
	size_t nlen = colon ? (size_t)(colon - x) : 0;
	struct strbuf what = STRBUF_INIT;
	struct hdr h;

	if (!x) {
		strbuf_setf(err, "extra header is NULL");
		return -1;
	}
	for (size_t i = 0; i < nlen; i++)
		if (x[i] <= 32 || x[i] >= 127)
			nlen = 0;
	if (!nlen || nlen > 76) {
		strbuf_setf(err, "extra header '");
		add_printable(err, x);
		strbuf_addstr(err, "' is not 'Name: value'");
		return -1;
	}
	for (size_t i = 0; i < ARRAY_SIZE(own_headers); i++) {
		if (strlen(own_headers[i]) == nlen && !strncasecmp(x, own_headers[i], nlen)) {
			strbuf_setf(err, "extra header '%.*s' would repeat a header mime_render writes",
				    (int)nlen, x);
			return -1;
		}
	}
	strbuf_addf(&what, "header %.*s", (int)nlen, x);
	if (check_text(what.buf, colon + 1, err)) {
		strbuf_release(&what);
		return -1;
	}
	strbuf_release(&what);
	hdr_begin(&h, out, eol, x, nlen);
	hdr_unstructured(&h, colon + 1);
	hdr_end(&h);
	return 0;
}

static const char *const wdays[] = { "Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
				      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };

int mime_date(struct strbuf *out, time_t t)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || tm.tm_year < 0 || tm.tm_year > 9999 - 1900)
		return -1;
	strbuf_addf(out, "%s, %02d %s %04d %02d:%02d:%02d +0000", wdays[tm.tm_wday], tm.tm_mday,
		    months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
	return 0;
}

void mime_message_id(struct strbuf *out, time_t t, const char *seed, const char *domain)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	strbuf_addf(out, "<%04d%02d%02d%02d%02d.%08" PRIx32 "-lkprobot@%s>", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, fnv1a32(seed ? seed : ""),
		    domain);
}

/* ---- parts ------------------------------------------------------------------- */

static void add_quoted(struct strbuf *sb, const char *s, size_t n)
{
	strbuf_addch(sb, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"' || s[i] == '\\')
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, s[i]);
	}
	strbuf_addch(sb, '"');
}

/* RFC 2231 attr-char, or %XX */
static void add_pct(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];
		if (is_alnum(c) || strchr("!#$&+-.^_`|~", c))
			strbuf_addch(sb, c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* Content-Disposition: attachment; filename="..." (RFC 2231 when needed). */
static void hdr_disposition(struct strbuf *out, const char *eol, const char *fname)
{
	size_t n = strlen(fname), i = 0;
	struct strbuf w = STRBUF_INIT;
	bool ascii = true;
	struct hdr h;

	for (size_t k = 0; k < n; k++)
		if ((unsigned char)fname[k] < 0x20 || (unsigned char)fname[k] >= 0x7f)
			ascii = false;
	hdr_begin(&h, out, eol, "Content-Disposition", strlen("Content-Disposition"));
	hdr_word(&h, " ", 1, "attachment;", strlen("attachment;"));
	if (ascii) {
		strbuf_addstr(&w, "filename=");
		add_quoted(&w, fname, n);
	} else {
		strbuf_addstr(&w, "filename*=utf-8''");
		add_pct(&w, fname, n);
	}
	if (w.len <= PARAM_MAX) {
		hdr_word(&h, " ", 1, w.buf, w.len);
		goto out;
	}
	/* sections of whole characters: filename*0*=utf-8''...; filename*1*=... */
	for (unsigned sec = 0; i < n; sec++) {
		size_t take = 0, cost = 0;
		while (i + take < n) {
			size_t cl = strbuf_utf8_len(fname + i + take, n - i - take);
			size_t c = 0;
			if (!cl)
				cl = 1;
			for (size_t k = 0; k < cl; k++) {
				unsigned char ch = fname[i + take + k];
				c += ascii ? (ch == '"' || ch == '\\' ? 2 : 1) :
					     (is_alnum(ch) || strchr("!#$&+-.^_`|~", ch) ? 1 : 3);
			}
			if (take && cost + c > (sec ? PARAM_SEG : PARAM_SEG - 7))
				break;
			take += cl;
			cost += c;
		}
		strbuf_reset(&w);
		if (ascii) {
			strbuf_addf(&w, "filename*%u=", sec);
			add_quoted(&w, fname + i, take);
		} else {
			strbuf_addf(&w, "filename*%u*=%s", sec, sec ? "" : "utf-8''");
			add_pct(&w, fname + i, take);
		}
		i += take;
		if (i < n)
			strbuf_addch(&w, ';');
		hdr_word(&h, " ", 1, w.buf, w.len);
	}
out:
	hdr_end(&h);
	strbuf_release(&w);
}

static void hdr_simple(struct strbuf *out, const char *eol, const char *name, const char *value)
{
	struct hdr h;

	hdr_begin(&h, out, eol, name, strlen(name));
	hdr_words(&h, value, strlen(value));
	hdr_end(&h);
}

/* Encode a UTF-8 text into content; returns its Content-Transfer-Encoding. */
static const char *text_encode(struct strbuf *content, const char *s, size_t n, const char *eol)
{
	if (text_is_8bit(s, n)) {
		text_8bit(content, s, n, eol);
		return "8bit";
	}
	text_qp(content, s, n, eol);
	return "quoted-printable";
}

/* type/subtype with optional parameters, printable ASCII */
static int check_type(const char *name, const char *type, struct strbuf *err)
{
	const char *p = type;
	size_t slash = 0;

	for (; is_token(*p) || *p == '/'; p++)
		slash += *p == '/';
	if (slash == 1 && p > type && type[0] != '/' && p[-1] != '/' && (!*p || *p == ';' || *p == ' ')) {
		for (; *p; p++)
			if (*p < 32 || *p >= 127)
				break;
		if (!*p && strlen(type) <= 200)
			return 0;
	}
	strbuf_setf(err, "attachment '%s': invalid content type '", name);
	add_printable(err, type);
	strbuf_addch(err, '\'');
	return -1;
}

static int attachment_part(struct strbuf *part, const char *eol, const struct mime_attachment *a,
			   size_t idx, struct strbuf *err)
{
	const char *type = a->type ? a->type : "application/octet-stream";
	struct strbuf content = STRBUF_INIT, t = STRBUF_INIT;
	const char *data = a->data, *cte;
	bool text;

	if (!a->name || !*a->name) {
		strbuf_setf(err, "attachment %zu has no name", idx + 1);
		return -1;
	}
	if (check_text("attachment name", a->name, err))
		return -1;
	for (const char *p = a->name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			strbuf_setf(err, "attachment name '");
			add_printable(err, a->name);
			strbuf_addstr(err, "' has a control character");
			return -1;
		}
	}
	if (check_type(a->name, type, err))
		return -1;
	if (a->len && !data) {
		strbuf_setf(err, "attachment '%s' has no data", a->name);
		return -1;
	}
	text = !strncasecmp(type, "text/", 5) && (!a->len || (!memchr(data, '\0', a->len) &&
							       utf8_check(data, a->len) == a->len));
	if (text) {
		strbuf_addstr(&t, type);
		if (!strcasestr(type, "charset="))
			strbuf_addstr(&t, "; charset=utf-8");
		cte = text_encode(&content, data, a->len, eol);
		type = t.buf;
	} else {
		cte = "base64";
		b64_lines(&content, data, a->len, eol);
	}
	hdr_simple(part, eol, "Content-Type", type);
	hdr_disposition(part, eol, a->name);
	hdr_simple(part, eol, "Content-Transfer-Encoding", cte);
	strbuf_addstr(part, eol);
	strbuf_add(part, content.buf, content.len);
	strbuf_release(&content);
	strbuf_release(&t);
	return 0;
}

/* ---- the message ------------------------------------------------------------- */

static int render_headers(const struct mime_message *m, struct strbuf *msg, const char *eol,
			  struct strbuf *err)
{
	struct hdr h;

	if (!m->from) {
		strbuf_setf(err, "no From address");
		return -1;
	}
	if (hdr_addresses(msg, eol, "From", &m->from, 1, err) ||
	    hdr_addresses(msg, eol, "To", m->to, m->nto, err) ||
	    hdr_addresses(msg, eol, "Cc", m->cc, m->ncc, err))
		return -1;
	if (m->subject) {
		if (check_text("Subject", m->subject, err))
			return -1;
		hdr_begin(&h, msg, eol, "Subject", strlen("Subject"));
		hdr_unstructured(&h, m->subject);
		hdr_end(&h);
	}
	strbuf_addstr(msg, "Date: ");
	if (mime_date(msg, m->date)) {
		strbuf_setf(err, "date %lld is out of range", (long long)m->date);
		return -1;
	}
	strbuf_addstr(msg, eol);
	if (m->message_id) {
		if (check_msgid("Message-ID", m->message_id, strlen(m->message_id), err))
			return -1;
		strbuf_addf(msg, "Message-ID: %s%s", m->message_id, eol);
	}
	if (m->in_reply_to) {
		if (check_msgid("In-Reply-To", m->in_reply_to, strlen(m->in_reply_to), err))
			return -1;
		strbuf_addf(msg, "In-Reply-To: %s%s", m->in_reply_to, eol);
	}
	if (m->references || m->in_reply_to) {
		const char *r = m->references ? m->references : m->in_reply_to;
		size_t i = 0, n = strlen(r), nids = 0;
		struct hdr rh;

		for (size_t w; i < n; i = w) {
			while (i < n && is_ws(r[i]))
				i++;
			for (w = i; w < n && !is_ws(r[w]); w++)
				;
			if (w > i && check_msgid("References id", r + i, w - i, err))
				return -1;
			nids += w > i;
		}
		if (nids) {
			hdr_begin(&rh, msg, eol, "References", strlen("References"));
			for (i = 0; i < n;) {
				size_t w;
				while (i < n && is_ws(r[i]))
					i++;
				for (w = i; w < n && !is_ws(r[w]); w++)
					;
				if (w > i)
					hdr_word(&rh, " ", 1, r + i, w - i);
				i = w;
			}
			hdr_end(&rh);
		}
	}
	if (m->nextra && !m->extra_headers) {
		strbuf_setf(err, "extra headers are NULL");
		return -1;
	}
	for (size_t i = 0; i < m->nextra; i++)
		if (hdr_extra(msg, eol, m->extra_headers[i], err))
			return -1;
	strbuf_addf(msg, "MIME-Version: 1.0%s", eol);
	return 0;
}

int mime_render(const struct mime_message *m, struct strbuf *out, struct strbuf *err)
{
	const char *eol = m->lf ? "\n" : "\r\n";
	const char *body = m->body ? m->body : "";
	size_t blen = strlen(body), bad = utf8_check(body, blen);
	struct strbuf msg = STRBUF_INIT, *parts = NULL;
	struct strbuf content = STRBUF_INIT, ct = STRBUF_INIT;
	const char *cte;
	int ret = -1;

	if (render_headers(m, &msg, eol, err))
		goto out;
	if (m->natt && !m->att) {
		strbuf_setf(err, "attachments are NULL");
		goto out;
	}
	if (bad != blen) {
		strbuf_setf(err, "body is not valid UTF-8 (byte %zu)", bad);
		goto out;
	}
	cte = text_encode(&content, body, blen, eol);
	if (!m->natt) {
		hdr_simple(&msg, eol, "Content-Type", "text/plain; charset=utf-8");
		hdr_simple(&msg, eol, "Content-Transfer-Encoding", cte);
		strbuf_addstr(&msg, eol);
		strbuf_add(&msg, content.buf, content.len);
		if (blen && body[blen - 1] != '\n')
			strbuf_addstr(&msg, eol);
		ret = 0;
		goto out;
	}

	/* multipart/mixed: the body inline, then the attachments */
	parts = xcalloc(m->natt + 1, sizeof(*parts));
	for (size_t i = 0; i <= m->natt; i++)
		strbuf_init(&parts[i], 0);
	hdr_simple(&parts[0], eol, "Content-Type", "text/plain; charset=utf-8");
	hdr_simple(&parts[0], eol, "Content-Disposition", "inline");
	hdr_simple(&parts[0], eol, "Content-Transfer-Encoding", cte);
	strbuf_addstr(&parts[0], eol);
	strbuf_add(&parts[0], content.buf, content.len);
	for (size_t i = 0; i < m->natt; i++)
		if (attachment_part(&parts[i + 1], eol, &m->att[i], i, err))
			goto out;

	{
		uint64_t hash = 0xcbf29ce484222325ULL;
		char boundary[64];
		bool clash;

		for (size_t i = 0; i <= m->natt; i++)
			hash = fnv1a64_nocr(hash, parts[i].buf, parts[i].len + 1);
		do {
			snprintf(boundary, sizeof(boundary), "=_lkprobot_%016" PRIx64, hash);
			clash = false;
			for (size_t i = 0; i <= m->natt && !clash; i++)
				clash = memmem(parts[i].buf, parts[i].len, boundary, strlen(boundary));
			hash = fnv1a64_nocr(hash, boundary, strlen(boundary));
		} while (clash);

		strbuf_addf(&ct, "multipart/mixed; boundary=\"%s\"", boundary);
		hdr_simple(&msg, eol, "Content-Type", ct.buf);
		strbuf_addstr(&msg, eol);
		for (size_t i = 0; i <= m->natt; i++) {
			if (i)
				strbuf_addstr(&msg, eol);
			strbuf_addf(&msg, "--%s%s", boundary, eol);
			strbuf_add(&msg, parts[i].buf, parts[i].len);
		}
		strbuf_addf(&msg, "%s--%s--%s", eol, boundary, eol);
	}
	ret = 0;
out:
	if (!ret)
		strbuf_add(out, msg.buf, msg.len);
	if (parts)
		for (size_t i = 0; i <= m->natt; i++)
			strbuf_release(&parts[i]);
	free(parts);
	strbuf_release(&msg);
	strbuf_release(&content);
	strbuf_release(&ct);
	return ret;
}

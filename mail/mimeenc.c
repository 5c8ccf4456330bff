/*
 * mimeenc: the encodings a report mail is written in — base64,
 * quoted-printable and 8bit text lines; header lines folded at 78
 * columns; RFC 2047 encoded-words; RFC 2231 file names. See mimeenc.h.
 */
#include "mimeenc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_SOFT	78	/* header lines stay within this where possible */
#define LINE_HARD	998	/* octets per line, never more (RFC 5322 2.1.1) */
#define EW_MAX		75	/* characters per encoded-word (RFC 2047 2) */
#define EW_OVERHEAD	12	/* "=?UTF-8?Q?" and "?=" */
#define QP_LINE		76	/* quoted-printable line, "=" included */
#define B64_IN		57	/* input bytes per 76-character base64 line */
#define WORD_MAX	900	/* a longer plain header word is encoded (and so split) */
#define PARAM_MAX	70	/* a longer filename parameter is split into sections */
#define PARAM_SEG	60	/* characters per RFC 2231 section (the first: 7 fewer, for "utf-8''") */

/* ---- characters --------------------------------------------------------- */

bool mimeenc_is_ws(char c)
{
	return c == ' ' || c == '\t';
}

bool mimeenc_is_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* RFC 5322 atext */
bool mimeenc_is_atext(unsigned char c)
{
	return mimeenc_is_alnum(c) || (c && strchr("!#$%&'*+-/=?^_`{|}~", c));
}

/* RFC 2045 token characters (printable ASCII but SPACE and tspecials) */
bool mimeenc_is_token(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("()<>@,;:\\\"/[]?=", c);
}

/* Offset of the first byte that is not valid UTF-8, n if there is none. */
size_t mimeenc_utf8_check(const char *s, size_t n)
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
void mimeenc_printable(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	strbuf_add_oneline(sb, s, n < 200 ? n : 200);
	if (n > 200)
		strbuf_addstr(sb, "...");
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
void mimeenc_b64(struct strbuf *sb, const void *data, size_t n, const char *eol)
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
bool mimeenc_is_8bit(const char *s, size_t n)
{
	size_t pos = 0, len;
	const char *line;
	bool ended;

	while (next_line(s, n, &pos, &line, &len, &ended)) {
		if (len > LINE_HARD || memchr(line, '\r', len))
			return false;
		/* an escape or another control character goes quoted (=1B), never raw on the wire or a terminal */
		for (size_t i = 0; i < len; i++)
			if (((unsigned char)line[i] < 0x20 && line[i] != '\t') || line[i] == 0x7f)
				return false;
	}
	return true;
}

void mimeenc_8bit(struct strbuf *sb, const char *s, size_t n, const char *eol)
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
void mimeenc_qp(struct strbuf *sb, const char *s, size_t n, const char *eol)
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

			if ((c > 32 && c < 127 && c != '=') || (mimeenc_is_ws(c) && i + 1 < len))
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


static size_t hdr_col(const struct mimeenc_hdr *h)
{
	return h->out->len - h->line;
}

void mimeenc_hdr_begin(struct mimeenc_hdr *h, struct strbuf *out, const char *eol, const char *name,
		       size_t namelen)
{
	h->out = out;
	h->eol = eol;
	h->line = out->len;
	strbuf_add(out, name, namelen);
	strbuf_addch(out, ':');
	h->start = hdr_col(h);
}

void mimeenc_hdr_end(struct mimeenc_hdr *h)
{
	strbuf_addstr(h->out, h->eol);
}

static void hdr_fold(struct mimeenc_hdr *h)
{
	strbuf_addstr(h->out, h->eol);
	h->line = h->out->len;
}

/* Whitespace then a word; folded before the whitespace when the line would get too long. */
void mimeenc_hdr_word(struct mimeenc_hdr *h, const char *ws, size_t wslen, const char *w, size_t wlen)
{
	if (hdr_col(h) > h->start && hdr_col(h) + wslen + wlen > LINE_SOFT)
		hdr_fold(h);
	strbuf_add(h->out, ws, wslen);
	strbuf_add(h->out, w, wlen);
}

/* Words separated by spaces, each folded as needed. */
void mimeenc_hdr_words(struct mimeenc_hdr *h, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t w;
		while (i < n && s[i] == ' ')
			i++;
		for (w = i; w < n && s[w] != ' '; w++)
			;
		if (w > i)
			mimeenc_hdr_word(h, " ", 1, s + i, w - i);
		i = w;
	}
}

/*
 * A unit (one mailbox, with its comma) goes on one line: on this one if it
 * fits, else on the next. One longer than a line is split at its spaces.
 */
void mimeenc_hdr_unit(struct mimeenc_hdr *h, const char *s, size_t n)
{
	if (hdr_col(h) > h->start && hdr_col(h) + 1 + n > LINE_SOFT && 1 + n <= LINE_SOFT)
		hdr_fold(h);
	if (hdr_col(h) + 1 + n <= LINE_SOFT) {
		strbuf_addch(h->out, ' ');
		strbuf_add(h->out, s, n);
		return;
	}
	mimeenc_hdr_words(h, s, n);
}

/* ---- RFC 2047 encoded-words ------------------------------------------------- */

/* Q characters written as themselves: RFC 2047 5(3), safe in phrases too */
static bool q_plain(unsigned char c)
{
	return mimeenc_is_alnum(c) || (c && strchr("!*+-/", c));
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
void mimeenc_ew_words(struct strbuf *sb, const char *s, size_t n)
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

static size_t ew_room(const struct mimeenc_hdr *h, size_t lead)
{
	size_t col = hdr_col(h) + lead;

	if (col >= LINE_SOFT)
		return 0;
	return LINE_SOFT - col < EW_MAX ? LINE_SOFT - col : EW_MAX;
}

/* Encoded-words filling the header's lines; ws (the original whitespace) before the first. */
static void hdr_encoded(struct mimeenc_hdr *h, const char *ws, size_t wslen, const char *s, size_t n)
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

bool mimeenc_needs_ew(const char *w, size_t n)
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
void mimeenc_hdr_unstructured(struct mimeenc_hdr *h, const char *v)
{
	size_t i = 0, n = strlen(v);
	bool first = true;

	while (i < n && mimeenc_is_ws(v[i]))
		i++;
	while (n > i && mimeenc_is_ws(v[n - 1]))
		n--;
	while (i < n) {
		size_t ws0 = i, w0, end;
		const char *ws;
		size_t wslen;

		while (i < n && mimeenc_is_ws(v[i]))
			i++;
		ws = first ? " " : v + ws0;
		wslen = first ? 1 : i - ws0;
		first = false;
		for (w0 = i; i < n && !mimeenc_is_ws(v[i]); i++)
			;
		if (!mimeenc_needs_ew(v + w0, i - w0)) {
			mimeenc_hdr_word(h, ws, wslen, v + w0, i - w0);
			continue;
		}
		/* adjacent words needing it go into one run: the space between
		 * two encoded-words would be lost */
		end = i;
		for (;;) {
			size_t j = end, k;
			while (j < n && mimeenc_is_ws(v[j]))
				j++;
			for (k = j; k < n && !mimeenc_is_ws(v[k]); k++)
				;
			if (j == n || !mimeenc_needs_ew(v + j, k - j))
				break;
			end = k;
		}
		hdr_encoded(h, ws, wslen, v + w0, end - w0);
		i = end;
	}
}

/* ---- RFC 2231 parameters ------------------------------------------------ */

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
		if (mimeenc_is_alnum(c) || strchr("!#$&+-.^_`|~", c))
			strbuf_addch(sb, c);
		else
			strbuf_addf(sb, "%%%02X", c);
	}
}

/* Content-Disposition: attachment; filename="..." (RFC 2231 when needed). */
void mimeenc_hdr_disposition(struct strbuf *out, const char *eol, const char *fname)
{
	size_t n = strlen(fname), i = 0;
	struct strbuf w = STRBUF_INIT;
	bool ascii = true;
	struct mimeenc_hdr h;

	for (size_t k = 0; k < n; k++)
		if ((unsigned char)fname[k] < 0x20 || (unsigned char)fname[k] >= 0x7f)
			ascii = false;
	mimeenc_hdr_begin(&h, out, eol, "Content-Disposition", strlen("Content-Disposition"));
	mimeenc_hdr_word(&h, " ", 1, "attachment;", strlen("attachment;"));
	if (ascii) {
		strbuf_addstr(&w, "filename=");
		add_quoted(&w, fname, n);
	} else {
		strbuf_addstr(&w, "filename*=utf-8''");
		add_pct(&w, fname, n);
	}
	if (w.len <= PARAM_MAX) {
		mimeenc_hdr_word(&h, " ", 1, w.buf, w.len);
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
					     (mimeenc_is_alnum(ch) || strchr("!#$&+-.^_`|~", ch) ? 1 : 3);
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
		mimeenc_hdr_word(&h, " ", 1, w.buf, w.len);
	}
out:
	mimeenc_hdr_end(&h);
	strbuf_release(&w);
}

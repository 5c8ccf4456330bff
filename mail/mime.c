/*
 * mime: report mails as bytes — addresses parsed and checked, the header
 * fields, the parts, multipart. See mime.h. How bytes are encoded
 * (folding, encoded-words, quoted-printable, base64) is mimeenc's.
 */
#include "mime.h"
#include "mimeenc.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DNAME_MAX	256	/* octets of a display name */

/* ---- hashes (Message-IDs, boundaries) ------------------------------------- */

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
		if (!mimeenc_is_atext(a[i]) && a[i] != '.') {
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
		if (!mimeenc_is_alnum(dom[i]) && dom[i] != '-') {
			strbuf_addf(why, "'%c' is not allowed in the domain", dom[i]);
			return -1;
		}
		label++;
	}
	return 0;
}

/* "addr@domain" alone, between p and end: no display name, so no '<', '>' or whitespace. */
static int bare_addr(const char *p, const char *end, struct mbox *mb, struct strbuf *why)
{
	if (memchr(p, '<', end - p) || memchr(p, '>', end - p)) {
		strbuf_addstr(why, "expected 'Name <addr@domain>' or 'addr@domain'");
		return -1;
	}
	for (const char *q = p; q < end; q++) {
		if (mimeenc_is_ws(*q)) {
			strbuf_addstr(why, "whitespace in the address (a display name needs <addr@domain>)");
			return -1;
		}
	}
	mb->addr = p;
	mb->addrlen = (size_t)(end - p);
	return 0;
}

/* "Name <addr@domain>" or "\"Name\" <addr@domain>" between p and end (which is '>'): the name, raw, to raw. */
static int angle_addr(const char *p, const char *end, struct mbox *mb, struct strbuf *raw, struct strbuf *why)
{
	const char *lt;

	if (*p == '"') {
		const char *q = p + 1;
		while (q < end && *q != '"') {
			if (*q == '\\' && q + 1 < end)
				q++;
			strbuf_addch(raw, *q++);
		}
		if (q == end) {
			strbuf_addstr(why, "unterminated quoted display name");
			return -1;
		}
		for (q++; q < end && mimeenc_is_ws(*q); q++)
			;
		if (*q != '<') {
			strbuf_addstr(why, "expected '<' after the quoted display name");
			return -1;
		}
		lt = q;
	} else {
		lt = memchr(p, '<', end - p);
		if (!lt) {
			strbuf_addstr(why, "'>' without '<'");
			return -1;
		}
		strbuf_add(raw, p, lt - p);
		if (strpbrk(raw->buf, "\"<>")) {
			strbuf_addstr(why, "a display name with '\"' must be quoted as a whole");
			return -1;
		}
	}
	mb->addr = lt + 1;
	mb->addrlen = (size_t)(end - 1 - mb->addr);
	if (memchr(mb->addr, '<', mb->addrlen) || memchr(mb->addr, '>', mb->addrlen)) {
		strbuf_addstr(why, "more than one '<' or '>'");
		return -1;
	}
	return 0;
}

/* The display name from its raw text, whitespace runs collapsed: valid UTF-8, at most DNAME_MAX octets. */
static int display_name(const struct strbuf *raw, struct mbox *mb, struct strbuf *why)
{
	size_t bad;

	for (size_t i = 0; i < raw->len; i++) {
		if (mimeenc_is_ws(raw->buf[i])) {
			if (mb->name.len && !mimeenc_is_ws(raw->buf[i + 1]) && raw->buf[i + 1])
				strbuf_addch(&mb->name, ' ');
			continue;
		}
		strbuf_addch(&mb->name, raw->buf[i]);
	}
	bad = mimeenc_utf8_check(mb->name.buf, mb->name.len);
	if (bad != mb->name.len) {
		strbuf_addf(why, "display name is not valid UTF-8 (byte %zu)", bad);
		return -1;
	}
	if (mb->name.len > DNAME_MAX) {
		strbuf_addf(why, "display name longer than %d octets", DNAME_MAX);
		return -1;
	}
	return 0;
}

static int parse_mailbox(const char *what, const char *s, struct mbox *mb, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT, raw = STRBUF_INIT;
	const char *p = s, *end = s + strlen(s);

	strbuf_reset(&mb->name);
	for (const char *q = p; q < end; q++) {
		if (((unsigned char)*q < 0x20 && *q != '\t') || *q == 0x7f) {
			strbuf_addstr(&why, "control character in it");
			goto fail;
		}
	}
	while (p < end && mimeenc_is_ws(*p))
		p++;
	while (end > p && mimeenc_is_ws(end[-1]))
		end--;
	if (p == end) {
		strbuf_addstr(&why, "empty");
		goto fail;
	}
	if (end[-1] != '>' ? bare_addr(p, end, mb, &why) : angle_addr(p, end, mb, &raw, &why))
		goto fail;
	if (addrspec_check(mb->addr, mb->addrlen, &why) || display_name(&raw, mb, &why))
		goto fail;
	strbuf_release(&raw);
	return 0;
fail:
	strbuf_reset(err);
	strbuf_addstr(err, "invalid ");
	if (what)
		strbuf_addf(err, "%s ", what);
	strbuf_addstr(err, "address '");
	mimeenc_printable(err, s);
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
		if (mimeenc_needs_ew(name, n)) {
			mimeenc_ew_words(sb, name, n);
		} else {
			for (size_t i = 0; i < n; i++)
				if (!mimeenc_is_atext(name[i]) && name[i] != ' ')
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
	struct mimeenc_hdr h;
	int ret = 0;

	if (!n)
		return 0;
	if (!list) {
		strbuf_setf(err, "%s addresses are NULL", what);
		return -1;
	}
	mimeenc_hdr_begin(&h, out, eol, what, strlen(what));
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
		mimeenc_hdr_unit(&h, unit.buf, unit.len);
	}
	mimeenc_hdr_end(&h);
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
	mimeenc_printable(err, s);
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
	bad = mimeenc_utf8_check(v, n);
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
	struct mimeenc_hdr h;

	if (!x) {
		strbuf_setf(err, "extra header is NULL");
		return -1;
	}
	for (size_t i = 0; i < nlen; i++)
		if (x[i] <= 32 || x[i] >= 127)
			nlen = 0;
	if (!nlen || nlen > 76) {
		strbuf_setf(err, "extra header '");
		mimeenc_printable(err, x);
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
	mimeenc_hdr_begin(&h, out, eol, x, nlen);
	mimeenc_hdr_unstructured(&h, colon + 1);
	mimeenc_hdr_end(&h);
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

static void hdr_simple(struct strbuf *out, const char *eol, const char *name, const char *value)
{
	struct mimeenc_hdr h;

	mimeenc_hdr_begin(&h, out, eol, name, strlen(name));
	mimeenc_hdr_words(&h, value, strlen(value));
	mimeenc_hdr_end(&h);
}

/* Encode a UTF-8 text into content; returns its Content-Transfer-Encoding. */
static const char *text_encode(struct strbuf *content, const char *s, size_t n, const char *eol)
{
	if (mimeenc_is_8bit(s, n)) {
		mimeenc_8bit(content, s, n, eol);
		return "8bit";
	}
	mimeenc_qp(content, s, n, eol);
	return "quoted-printable";
}

/* type/subtype with optional parameters, printable ASCII */
static int check_type(const char *name, const char *type, struct strbuf *err)
{
	const char *p = type;
	size_t slash = 0;

	for (; mimeenc_is_token(*p) || *p == '/'; p++)
		slash += *p == '/';
	if (slash == 1 && p > type && type[0] != '/' && p[-1] != '/' && (!*p || *p == ';' || *p == ' ')) {
		for (; *p; p++)
			if (*p < 32 || *p >= 127)
				break;
		if (!*p && strlen(type) <= 200)
			return 0;
	}
	strbuf_setf(err, "attachment '%s': invalid content type '", name);
	mimeenc_printable(err, type);
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
			mimeenc_printable(err, a->name);
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
							       mimeenc_utf8_check(data, a->len) == a->len));
	if (text) {
		strbuf_addstr(&t, type);
		if (!strcasestr(type, "charset="))
			strbuf_addstr(&t, "; charset=utf-8");
		cte = text_encode(&content, data, a->len, eol);
		type = t.buf;
	} else {
		cte = "base64";
		mimeenc_b64(&content, data, a->len, eol);
	}
	hdr_simple(part, eol, "Content-Type", type);
	mimeenc_hdr_disposition(part, eol, a->name);
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
	struct mimeenc_hdr h;

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
		mimeenc_hdr_begin(&h, msg, eol, "Subject", strlen("Subject"));
		mimeenc_hdr_unstructured(&h, m->subject);
		mimeenc_hdr_end(&h);
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
		struct mimeenc_hdr rh;

		for (size_t w; i < n; i = w) {
			while (i < n && mimeenc_is_ws(r[i]))
				i++;
			for (w = i; w < n && !mimeenc_is_ws(r[w]); w++)
				;
			if (w > i && check_msgid("References id", r + i, w - i, err))
				return -1;
			nids += w > i;
		}
		if (nids) {
			mimeenc_hdr_begin(&rh, msg, eol, "References", strlen("References"));
			for (i = 0; i < n;) {
				size_t w;
				while (i < n && mimeenc_is_ws(r[i]))
					i++;
				for (w = i; w < n && !mimeenc_is_ws(r[w]); w++)
					;
				if (w > i)
					mimeenc_hdr_word(&rh, " ", 1, r + i, w - i);
				i = w;
			}
			mimeenc_hdr_end(&rh);
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
	size_t blen = strlen(body), bad = mimeenc_utf8_check(body, blen);
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

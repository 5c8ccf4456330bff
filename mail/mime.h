/*
 * mime: complete RFC 5322 / MIME messages for the robot's report mails —
 * headers folded and RFC 2047-encoded, a UTF-8 text body, attachments.
 *
 * The output is a pure function of the input (no clock, no random
 * boundary), so the same report renders to the same bytes every time.
 *
 * Headers, in this order: From, To, Cc, Subject, Date, Message-ID,
 * In-Reply-To, References, the caller's extra headers, MIME-Version,
 * Content-Type and (single part) Content-Transfer-Encoding. To and Cc are
 * each one header holding every address; a header is folded at the spaces
 * between words (after the comma between addresses, keeping a mailbox on
 * one line when it fits one) so that lines stay within 78 characters where
 * possible and never exceed 998; continuation lines start with one space.
 *
 * Addresses are "addr@domain", "Display Name <addr@domain>" or
 * "\"Display, Name\" <addr@domain>". The addr-spec must be a dot-atom local
 * part (<= 64 octets) and a host name (letters, digits, '-', dots; <= 253
 * octets); quoted local parts, domain literals, comments, groups and
 * non-ASCII addresses are rejected. Display names are rendered as atoms
 * when they are atoms (kernel test robot <lkp@intel.com>), as one quoted
 * string otherwise ("H. Peter Anvin" <hpa@zytor.com>) and as RFC 2047
 * encoded-words when they hold non-ASCII (=?UTF-8?Q?J=C3=B6rg_R=C3=B6del?=);
 * one too long for a single encoded-word is split into several, which RFC
 * 2047 decoders join (Python 3.11's email.headerregistry wrongly puts a
 * space between them). Whitespace runs in display names become one space.
 *
 * Subject and extra header values are unstructured text: leading and
 * trailing whitespace is dropped; a word with non-ASCII or control bytes, or
 * one that contains "=?", is RFC 2047-encoded (adjacent such words together,
 * with the space between them inside the encoding), the rest stays as
 * written. Encoded-words are UTF-8, Q unless B is much shorter (Q more than
 * 1.5 times the length of B, as for CJK text), <= 75 characters each and
 * never split a character.
 *
 * Body: text/plain; charset=utf-8, LF (or CRLF) line ends in the input,
 * written with the chosen line end. Content-Transfer-Encoding 8bit when
 * every line is <= 998 octets and there is no bare CR, quoted-printable
 * otherwise (76-character lines). No attachments: the message is that one
 * part. With attachments: multipart/mixed, the body first (inline), then
 * each attachment (Content-Disposition: attachment; filename="..."; RFC 2231
 * filename*=utf-8''... for non-ASCII names, split into filename*0*= ...
 * sections when long). A text/... attachment that is valid UTF-8 without NUL
 * bytes is encoded as the body is (charset=utf-8 added when the type has no
 * charset parameter); every other attachment is base64 with 76-character
 * lines. The boundary is "=_lkprobot_" and 16 hex digits of an FNV-1a hash
 * of the encoded parts ("=_" cannot occur in quoted-printable or base64; it
 * is rehashed in the unlikely case it occurs in an 8bit part).
 *
 * Line ends: CRLF by default, as SMTP wants; lf = true writes LF for files
 * (mbox, .eml, golden tests). The message ends with a line end. SMTP
 * dot-stuffing is the transport's business, not done here.
 */
#ifndef LKP_MIME_H
#define LKP_MIME_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct mime_attachment {
	const char *name;		/* file name shown to the reader, UTF-8 */
	const char *type;		/* "text/plain", "application/x-xz", ...; NULL: application/octet-stream */
	const void *data;
	size_t len;
};

struct mime_message {
	const char *from;		/* "kernel test robot <lkp@example.org>" (required) */
	const char *const *to;		/* addresses; nto may be 0 (no To:) */
	size_t nto;
	const char *const *cc;
	size_t ncc;
	const char *subject;		/* UTF-8; NULL: no Subject: */
	time_t date;			/* written in UTC, "+0000" */
	const char *message_id;		/* "<left@right>"; NULL: none (see mime_message_id) */
	const char *in_reply_to;	/* "<left@right>"; NULL: none */
	const char *references;		/* "<a@b> <c@d>"; NULL: in_reply_to if set */
	const char *const *extra_headers; /* "X-lkprobot-Foo: value" (unstructured) */
	size_t nextra;
	const char *body;		/* UTF-8 text, LF line ends; NULL: empty */
	const struct mime_attachment *att;
	size_t natt;
	bool lf;			/* LF line ends instead of CRLF */
};

/*
 * Append the message to `out`. Returns 0, or -1 with a one-line message in
 * `err` (and `out` unchanged) when an input is invalid: a malformed
 * address ("invalid Cc address 'foo': no '@'"), a Message-ID that is not
 * <left@right>, a line break in a header value, an extra header that is not
 * "Name: value" or that duplicates one mime_render() writes, a body or
 * header that is not valid UTF-8, an attachment without a name.
 */
int mime_render(const struct mime_message *m, struct strbuf *out, struct strbuf *err);

/*
 * Append a stable Message-ID for a report:
 * "<YYYYMMDDhhmm.<8 hex digits of FNV-1a-32(seed)>-lkprobot@<domain>>",
 * the time in UTC; the same (time, seed) gives the same id. `domain` must
 * be a host name.
 */
void mime_message_id(struct strbuf *out, time_t t, const char *seed, const char *domain);

/* Append an RFC 5322 date: "Thu, 01 Feb 2024 12:34:56 +0000". -1 if out of range. */
int mime_date(struct strbuf *out, time_t t);

/*
 * Check one address as mime_render() does; 0, or -1 with "invalid address
 * '...': reason" in err.
 */
int mime_check_address(const char *addr, struct strbuf *err);

/*
 * The addr-spec of an address as mime_render() reads it ("a@b" of
 * "Name <a@b>"), newly allocated (the SMTP envelope's form); NULL with err
 * set as mime_check_address() says when it is not one.
 */
char *mime_addr_spec(const char *addr, struct strbuf *err);

#endif

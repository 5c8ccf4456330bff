/*
 * mimeenc (prefix mimeenc_): the byte-level writers under mime.c — body
 * text as base64, quoted-printable or 8bit lines; header lines folded
 * within 78 columns (998 at most) with RFC 2047 encoded-words where a word
 * is not plain ASCII; the RFC 2231 filename parameter; and the character
 * classes of RFC 5322 the address parser shares. mime.c builds messages
 * from these; nothing here knows what a message or an address is.
 */
#ifndef LKP_MIMEENC_H
#define LKP_MIMEENC_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* One header field being written into out (mimeenc_hdr_begin .. mimeenc_hdr_end). */
struct mimeenc_hdr {
	struct strbuf *out;
	const char *eol;
	size_t line;		/* offset of the current line in out */
	size_t start;		/* column after "Name:" */
};

/* RFC 5322 WSP (space, tab) */
bool mimeenc_is_ws(char c);

/* ASCII letters and digits, whatever the locale */
bool mimeenc_is_alnum(unsigned char c);

/* RFC 5322 atext */
bool mimeenc_is_atext(unsigned char c);

/* RFC 2045 token characters (printable ASCII but SPACE and tspecials) */
bool mimeenc_is_token(unsigned char c);

/* Offset of the first byte that is not valid UTF-8, n if there is none. */
size_t mimeenc_utf8_check(const char *s, size_t n);

/* At most 200 bytes of s, escaped so that an error message stays on one line. */
void mimeenc_printable(struct strbuf *sb, const char *s);

/* base64 in lines of 76 characters, each ended by eol */
void mimeenc_b64(struct strbuf *sb, const void *data, size_t n, const char *eol);

/* Text that can go as 8bit: no line over 998 octets, no CR but in CRLF, no control character but TAB. */
bool mimeenc_is_8bit(const char *s, size_t n);

/* Text as 8bit lines, each ended by eol (mimeenc_is_8bit() said it can go so). */
void mimeenc_8bit(struct strbuf *sb, const char *s, size_t n, const char *eol);

/* RFC 2045 6.7: line ends are hard breaks, soft breaks keep lines <= 76. */
void mimeenc_qp(struct strbuf *sb, const char *s, size_t n, const char *eol);

/* Start header field name (namelen bytes) in out: "Name:"; lines end with eol. */
void mimeenc_hdr_begin(struct mimeenc_hdr *h, struct strbuf *out, const char *eol, const char *name,
		       size_t namelen);

/* End the field: its line end. */
void mimeenc_hdr_end(struct mimeenc_hdr *h);

/* Whitespace then a word; folded before the whitespace when the line would get too long. */
void mimeenc_hdr_word(struct mimeenc_hdr *h, const char *ws, size_t wslen, const char *w, size_t wlen);

/* Words separated by spaces, each folded as needed. */
void mimeenc_hdr_words(struct mimeenc_hdr *h, const char *s, size_t n);

/*
 * A unit (one mailbox, with its comma) goes on one line: on this one if it
 * fits, else on the next. One longer than a line is split at its spaces.
 */
void mimeenc_hdr_unit(struct mimeenc_hdr *h, const char *s, size_t n);

/* Encoded-words of at most 75 characters, separated by spaces. */
void mimeenc_ew_words(struct strbuf *sb, const char *s, size_t n);

/* A header word that must go as encoded-words: not printable ASCII, "=?" (it would read as one), too long. */
bool mimeenc_needs_ew(const char *w, size_t n);

/* An unstructured value (Subject, extra headers): words, encoded where needed. */
void mimeenc_hdr_unstructured(struct mimeenc_hdr *h, const char *v);

/* Content-Disposition: attachment; filename="..." (RFC 2231 when needed). */
void mimeenc_hdr_disposition(struct strbuf *out, const char *eol, const char *fname);

#endif

/*
 * dkim: DKIM signatures (RFC 6376) for the robot's outgoing report mails —
 * rsa-sha256, c=relaxed/relaxed, with mbedTLS.
 *
 * Usage: dkim_key_load() once, then dkim_sign() each rendered message
 * (mime_render() output, CRLF line ends) and send the DKIM-Signature header
 * field it appends to `out` in front of the message. The receiving side
 * looks up the public key as a TXT record at
 * "<selector>._domainkey.<domain>"; dkim_key_txt_record() writes its value.
 *
 * What is signed: the canonicalized body (bh=, no l= tag: the whole body),
 * then the header fields named in h=, each taken from the bottom of the
 * header up (RFC 6376 5.4.2: a name listed twice takes the last instance,
 * then the one above it), then the DKIM-Signature field itself with an
 * empty b= and without its final CRLF.
 *
 * Line ends: the message's lines end with CRLF; a bare LF is taken as CRLF
 * (the SMTP transport sends it as one), so an LF-only rendering signs as
 * its CRLF form would. The DKIM-Signature field is always written with
 * CRLF, folded at the spaces between tags, after the ':' between h= names
 * and inside the b= value (FWS there is ignored by verifiers), so that no
 * line exceeds 78 characters.
 *
 * RSA PKCS#1 v1.5 signatures are deterministic: the same key, parameters
 * and message give the same bytes (the random generator only blinds the
 * private-key operation).
 */
#ifndef LKP_DKIM_H
#define LKP_DKIM_H

#include "../lib/util/strbuf.h"

#include <stddef.h>
#include <time.h>

struct dkim_key;	/* an RSA private key (opaque) */

/*
 * Load an RSA private key of at least 1024 bits (RFC 8301) from a PEM file
 * (PKCS#1 "BEGIN RSA PRIVATE KEY" or unencrypted PKCS#8 "BEGIN PRIVATE
 * KEY") or the same in DER. Returns 0 with *out set, or -1 with a one-line
 * message in err: "'path': No such file or directory", "'path': not a
 * private key (PEM or DER)", "'path': encrypted private keys are not
 * supported", "'path': not an RSA private key (EC)", "'path': RSA key of
 * 512 bits, DKIM needs at least 1024".
 */
int dkim_key_load(struct dkim_key **out, const char *pem_path, struct strbuf *err);

/* Free a key (its private parts are zeroed); NULL is fine. */
void dkim_key_free(struct dkim_key *k);

/* Key size in bits (2048, ...). */
size_t dkim_key_bits(const struct dkim_key *k);

/*
 * Append the value of the key's DNS TXT record:
 * "v=DKIM1; k=rsa; p=<base64 of the DER SubjectPublicKeyInfo>". 0, or -1
 * if mbedTLS cannot write the public key.
 */
int dkim_key_txt_record(const struct dkim_key *k, struct strbuf *out);

struct dkim_params {
	const char *domain;		/* d=, a host name: "example.org" (required) */
	const char *selector;		/* s=, dot-separated labels: "lkp2024" (required) */
	time_t time;			/* t=; <= 0: no t= tag */
	/*
	 * h=: header field names, any case, written lower-case in this
	 * order; a name may be listed more than once (one more time than it
	 * occurs "over-signs" it, so that an added instance breaks the
	 * signature) and names not in the message are allowed (they sign
	 * absence). Must include "from". NULL: every instance of each of
	 * from, to, cc, subject, date, message-id, in-reply-to, references,
	 * mime-version, content-type, content-transfer-encoding present in
	 * the message, in that order.
	 */
	const char *const *headers;
	size_t nheaders;
};

/*
 * Sign msg (a complete message: header, empty line, body) and append the
 * folded "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=...;
 * s=...; t=...; h=...; bh=...; b=...\r\n" field to out, to be put in front
 * of the message. Returns 0, or -1 with a one-line message in err and out
 * unchanged: invalid d= or s=, a header name that is not printable ASCII
 * without ':', h= without from, a malformed header (a line that is neither
 * "Name: value" nor a continuation), no From header or more than one, an
 * mbedTLS error.
 *
 * The key is not const: the private-key operation updates its blinding
 * values and random generator, so one key must not sign in two threads at
 * once.
 */
int dkim_sign(struct dkim_key *k, const struct dkim_params *p, const char *msg,
	      size_t len, struct strbuf *out, struct strbuf *err);

/*
 * The two canonicalizations (exposed for tests and debugging).
 *
 * dkim_canon_header(): relaxed header canonicalization (RFC 6376 3.4.2) of
 * one header field, "Name: value" with or without folding and its final
 * line end: appends "name:value\r\n" — name lower-cased, the field
 * unfolded (CR and LF dropped), WSP runs made one space, WSP around the
 * colon and at the end dropped.
 *
 * dkim_canon_body(): relaxed body canonicalization (RFC 6376 3.4.4) of a
 * message body (CRLF or LF line ends): appends it with WSP runs made one
 * space, WSP at line ends dropped, empty lines at the end dropped and
 * every line ended by CRLF. A body that is empty, or only empty lines,
 * canonicalizes to nothing (bh= is then the SHA-256 of "", as RFC 6376
 * 3.4.4 says and verifiers such as dkimpy do; "\r\n" is the rule for
 * simple canonicalization only).
 */
void dkim_canon_header(struct strbuf *out, const char *field, size_t len);
void dkim_canon_body(struct strbuf *out, const char *body, size_t len);

#endif

/*
 * dkim: rsa-sha256 relaxed/relaxed DKIM-Signature header fields for the
 * report mails — canonicalization, hashing and signing. See dkim.h.
 */
#include "dkim.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include <mbedtls/base64.h>
#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/md.h>
#include <mbedtls/pk.h>
#include <mbedtls/platform_util.h>
#include <mbedtls/version.h>

#define LINE_SOFT	78	/* DKIM-Signature lines stay within this */
#define KEY_MIN_BITS	1024	/* RFC 8301 3.2 */
#define SHA256_LEN	32
#define NAME_SHOW	40	/* characters of a bad header line shown in an error */

struct dkim_key {
	mbedtls_pk_context pk;
	mbedtls_entropy_context entropy;
	mbedtls_ctr_drbg_context drbg;	/* blinds the RSA private-key operation */
};

/* The header fields signed when dkim_params.headers is NULL (RFC 6376 5.4.1). */
static const char *const default_headers[] = {
	"from", "to", "cc", "subject", "date", "message-id", "in-reply-to", "references",
	"mime-version", "content-type", "content-transfer-encoding",
};

/* ---- characters --------------------------------------------------------- */

static bool is_wsp(char c)
{
	return c == ' ' || c == '\t';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* RFC 5322 ftext: printable US-ASCII except ':' */
static bool is_ftext(char c)
{
	return c >= 33 && c <= 126 && c != ':';
}

static bool is_let_dig(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Append s (n bytes, at most `max` shown), control and non-ASCII bytes as '?'. */
static void add_printable(struct strbuf *sb, const char *s, size_t n, size_t max)
{
	for (size_t i = 0; i < n && i < max; i++)
		strbuf_addch(sb, s[i] >= 32 && s[i] <= 126 ? s[i] : '?');
	if (n > max)
		strbuf_addstr(sb, "...");
}

/*
 * Labels of letters, digits and '-' (not first or last), 1-63 characters,
 * separated by single dots, at most 253 characters: a host name for d=,
 * the selector syntax for s= (RFC 6376 3.1).
 */
static bool is_dns_name(const char *s)
{
	size_t label = 0, len = 0;

	if (!s || !*s)
		return false;
	for (; *s; s++, len++) {
		if (*s == '.') {
			if (!label || s[-1] == '-')
				return false;
			label = 0;
		} else if (is_let_dig(*s) || (*s == '-' && label)) {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
	}
	return label && s[-1] != '-' && len <= 253;
}

static bool is_field_name(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!is_ftext(*s))
			return false;
	return true;
}

static bool name_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && !strncasecmp(a, b, alen);
}

/* ---- canonicalization ---------------------------------------------------- */

void dkim_canon_header(struct strbuf *out, const char *f, size_t len)
{
	const char *colon = memchr(f, ':', len);
	size_t nlen = colon ? (size_t)(colon - f) : len, i;
	bool started = false, space = false;

	while (nlen && (is_wsp(f[nlen - 1]) || f[nlen - 1] == '\r' || f[nlen - 1] == '\n'))
		nlen--;
	for (i = 0; i < nlen; i++)
		strbuf_addch(out, lower(f[i]));
	strbuf_addch(out, ':');
	for (i = colon ? (size_t)(colon - f) + 1 : len; i < len; i++) {
		char c = f[i];

		/* unfold: drop line ends (a CR only as part of CRLF) */
		if (c == '\n' || (c == '\r' && i + 1 < len && f[i + 1] == '\n'))
			continue;
		if (is_wsp(c)) {
			space = started;
			continue;
		}
		if (space)
			strbuf_addch(out, ' ');
		space = false;
		started = true;
		strbuf_addch(out, c);
	}
	strbuf_addstr(out, "\r\n");
}

void dkim_canon_body(struct strbuf *out, const char *b, size_t len)
{
	size_t pos = 0, empty = 0;

	while (pos < len) {
		const char *line = b + pos, *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, i;
		bool space = false, blank = true;

		pos += nl ? n + 1 : n;
		if (nl && n && line[n - 1] == '\r')
			n--;
		for (i = 0; i < n && blank; i++)
			blank = is_wsp(line[i]);
		if (blank) {
			/* written only if a non-empty line follows */
			empty++;
			continue;
		}
		for (; empty; empty--)
			strbuf_addstr(out, "\r\n");
		for (i = 0; i < n; i++) {
			if (is_wsp(line[i])) {
				space = true;
				continue;
			}
			if (space)
				strbuf_addch(out, ' ');
			space = false;
			strbuf_addch(out, line[i]);
		}
		strbuf_addstr(out, "\r\n");
	}
}

/* ---- keys ---------------------------------------------------------------- */

static void mbed_error(struct strbuf *err, const char *what, int ret)
{
	char buf[160];

	mbedtls_strerror(ret, buf, sizeof(buf));
	strbuf_setf(err, "%s: %s (mbedTLS -0x%04x)", what, buf, (unsigned)-ret);
}

int dkim_key_load(struct dkim_key **out, const char *path, struct strbuf *err)
{
	static const char pers[] = "lkprobot-dkim";
	struct dkim_key *k;
	FILE *f;
	int ret;

	*out = NULL;
	/* for a useful errno: mbedTLS only says "file I/O error" */
	f = fopen(path, "rb");
	if (!f) {
		strbuf_setf(err, "'%s': %s", path, strerror(errno));
		return -1;
	}
	/* mbedTLS reads the whole file into memory, whatever its size says */
	struct stat st;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > 64 << 10) {
		strbuf_setf(err, "'%s': not a key file (a regular file of at most 64 KiB)", path);
		fclose(f);
		return -1;
	}
	fclose(f);

	k = xcalloc(1, sizeof(*k));
	mbedtls_pk_init(&k->pk);
	mbedtls_entropy_init(&k->entropy);
	mbedtls_ctr_drbg_init(&k->drbg);
	ret = mbedtls_ctr_drbg_seed(&k->drbg, mbedtls_entropy_func, &k->entropy,
				    (const unsigned char *)pers, sizeof(pers) - 1);
	if (ret) {
		mbed_error(err, "cannot seed the random generator", ret);
		goto fail;
	}
#if MBEDTLS_VERSION_MAJOR >= 3
	ret = mbedtls_pk_parse_keyfile(&k->pk, path, NULL, mbedtls_ctr_drbg_random, &k->drbg);
#else
	ret = mbedtls_pk_parse_keyfile(&k->pk, path, NULL);
#endif
	if (ret == MBEDTLS_ERR_PK_PASSWORD_REQUIRED || ret == MBEDTLS_ERR_PK_PASSWORD_MISMATCH) {
		strbuf_setf(err, "'%s': encrypted private keys are not supported", path);
		goto fail;
	}
	if (ret == MBEDTLS_ERR_PK_FILE_IO_ERROR) {
		strbuf_setf(err, "'%s': cannot read the file", path);
		goto fail;
	}
	if (ret) {
		strbuf_setf(err, "'%s': not a private key (PEM or DER)", path);
		goto fail;
	}
	if (mbedtls_pk_get_type(&k->pk) != MBEDTLS_PK_RSA) {
		strbuf_setf(err, "'%s': not an RSA private key (%s)", path,
			    mbedtls_pk_get_name(&k->pk));
		goto fail;
	}
	if (mbedtls_pk_get_bitlen(&k->pk) < KEY_MIN_BITS) {
		strbuf_setf(err, "'%s': RSA key of %zu bits, DKIM needs at least %d", path,
			    mbedtls_pk_get_bitlen(&k->pk), KEY_MIN_BITS);
		goto fail;
	}
	*out = k;
	return 0;
fail:
	dkim_key_free(k);
	return -1;
}

void dkim_key_free(struct dkim_key *k)
{
	if (!k)
		return;
	mbedtls_pk_free(&k->pk);
	mbedtls_ctr_drbg_free(&k->drbg);
	mbedtls_entropy_free(&k->entropy);
	free(k);
}

size_t dkim_key_bits(const struct dkim_key *k)
{
	return mbedtls_pk_get_bitlen(&k->pk);
}

static void add_base64(struct strbuf *sb, const unsigned char *data, size_t n)
{
	size_t need = 4 * ((n + 2) / 3) + 1, olen = 0;
	unsigned char *b64 = xmalloc(need);

	if (mbedtls_base64_encode(b64, need, &olen, data, n)) {
		/* cannot happen: the buffer is large enough */
		fprintf(stderr, "dkim: base64 encoding failed\n");
		abort();
	}
	strbuf_add(sb, b64, olen);
	free(b64);
}

int dkim_key_txt_record(const struct dkim_key *k, struct strbuf *out)
{
	unsigned char der[2 * MBEDTLS_MPI_MAX_SIZE + 64];
	int n;

	/* mbedTLS takes a non-const context but only reads the public part */
	n = mbedtls_pk_write_pubkey_der((mbedtls_pk_context *)&k->pk, der, sizeof(der));
	if (n <= 0)
		return -1;
	strbuf_addstr(out, "v=DKIM1; k=rsa; p=");
	/* written at the end of the buffer */
	add_base64(out, der + sizeof(der) - (size_t)n, (size_t)n);
	return 0;
}

/* ---- the message's header ------------------------------------------------ */

struct field {
	const char *p;		/* "Name: value", folded lines and line ends included */
	size_t len;
	size_t namelen;		/* without WSP before the colon */
};

struct hname {
	const char *s;
	size_t n;
};

/*
 * Split msg into header fields and the body (after the empty line; none
 * without one). -1 with err set for a malformed header.
 */
static int parse_header(const char *msg, size_t len, struct field **fv, size_t *nf,
			const char **body, size_t *body_len, struct strbuf *err)
{
	size_t pos = 0, af = 0;

	*fv = NULL;
	*nf = 0;
	*body = msg + len;
	*body_len = 0;
	while (pos < len) {
		const char *line = msg + pos, *nl = memchr(line, '\n', len - pos), *colon;
		size_t n = nl ? (size_t)(nl - line) : len - pos, next = pos + (nl ? n + 1 : n);

		if (nl && n && line[n - 1] == '\r')
			n--;
		if (!n) {
			*body = msg + next;
			*body_len = len - next;
			return 0;
		}
		if (is_wsp(line[0])) {
			if (!*nf) {
				strbuf_setf(err, "malformed header: it starts with a continuation line");
				goto fail;
			}
			(*fv)[*nf - 1].len = next - (size_t)((*fv)[*nf - 1].p - msg);
			pos = next;
			continue;
		}
		colon = memchr(line, ':', n);
		if (colon) {
			size_t nlen = (size_t)(colon - line);

			while (nlen && is_wsp(line[nlen - 1]))
				nlen--;
			for (size_t i = 0; i < nlen; i++)
				if (!is_ftext(line[i]))
					colon = NULL;
			if (!nlen)
				colon = NULL;
			if (colon) {
				ALLOC_GROW(*fv, *nf + 1, af);
				(*fv)[(*nf)++] = (struct field){ line, next - pos, nlen };
				pos = next;
				continue;
			}
		}
		strbuf_setf(err, "malformed header line '");
		add_printable(err, line, n, NAME_SHOW);
		strbuf_addstr(err, "'");
		goto fail;
	}
	return 0;
fail:
	free(*fv);
	*fv = NULL;
	*nf = 0;
	return -1;
}

static size_t count_fields(const struct field *fv, size_t nf, const char *name, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < nf; i++)
		c += name_eq(fv[i].p, fv[i].namelen, name, n);
	return c;
}

/* The h= names: the caller's, checked, or the default ones present. */
static int signed_names(const struct dkim_params *p, const struct field *fv, size_t nf,
			struct hname **hv, size_t *nh, struct strbuf *err)
{
	size_t ah = 0;
	bool from = false;

	*hv = NULL;
	*nh = 0;
	if (!p->headers) {
		for (size_t i = 0; i < ARRAY_SIZE(default_headers); i++) {
			const char *s = default_headers[i];
			size_t c = count_fields(fv, nf, s, strlen(s));

			for (; c; c--) {
				ALLOC_GROW(*hv, *nh + 1, ah);
				(*hv)[(*nh)++] = (struct hname){ s, strlen(s) };
			}
		}
		return 0;
	}
	for (size_t i = 0; i < p->nheaders; i++) {
		const char *s = p->headers[i];

		if (!is_field_name(s)) {
			strbuf_setf(err, "invalid header name '");
			if (s)
				add_printable(err, s, strlen(s), NAME_SHOW);
			strbuf_addstr(err, "' in h=");
			free(*hv);
			*hv = NULL;
			*nh = 0;
			return -1;
		}
		from |= !strcasecmp(s, "from");
		ALLOC_GROW(*hv, *nh + 1, ah);
		(*hv)[(*nh)++] = (struct hname){ s, strlen(s) };
	}
	if (!from) {
		strbuf_setf(err, "h= does not name From (RFC 6376 5.4)");
		free(*hv);
		*hv = NULL;
		*nh = 0;
		return -1;
	}
	return 0;
}

/* ---- folding ------------------------------------------------------------- */

struct fold {
	struct strbuf *sb;
	size_t col;
};

/* Append s after a space, or at the start of a new line if it would not fit. */
static void fold_word(struct fold *f, const char *s)
{
	size_t n = strlen(s);

	if (f->col + 1 + n > LINE_SOFT) {
		strbuf_addstr(f->sb, "\r\n ");
		f->col = 1;
	} else {
		strbuf_addch(f->sb, ' ');
		f->col++;
	}
	strbuf_addstr(f->sb, s);
	f->col += n;
}

/* Append s directly, or at the start of a new line if it would not fit. */
static void fold_glued(struct fold *f, const char *s, size_t n)
{
	if (f->col + n > LINE_SOFT && f->col > 1) {
		strbuf_addstr(f->sb, "\r\n ");
		f->col = 1;
	}
	strbuf_add(f->sb, s, n);
	f->col += n;
}

/* ---- signing ------------------------------------------------------------- */

/* Update md with the relaxed form of field (without its CRLF if `last`). */
static int hash_field(mbedtls_md_context_t *md, const char *f, size_t len, bool last)
{
	struct strbuf c = STRBUF_INIT;
	int ret;

	dkim_canon_header(&c, f, len);
	if (last)
		strbuf_setlen(&c, c.len - 2);
	ret = mbedtls_md_update(md, (const unsigned char *)c.buf, c.len);
	strbuf_release(&c);
	return ret;
}

/* d= and s= as DNS names: they go into a header field and a DNS query. 0, or -1 with err set. */
static int check_names(const struct dkim_params *p, struct strbuf *err)
{
	const char *what[2] = { "d= domain", "s= selector" }, *v[2] = { p->domain, p->selector };

	for (int i = 0; i < 2; i++) {
		if (is_dns_name(v[i]))
			continue;
		strbuf_setf(err, "invalid %s '", what[i]);
		if (v[i])
			add_printable(err, v[i], strlen(v[i]), NAME_SHOW);
		strbuf_addstr(err, "'");
		return -1;
	}
	return 0;
}

/* The header fields of msg, exactly one From among them, and the names h= signs. 0, or -1 with err set. */
static int sign_inputs(const struct dkim_params *p, const char *msg, size_t len, struct field **fv, size_t *nf,
		       struct hname **hv, size_t *nh, const char **body, size_t *body_len, struct strbuf *err)
{
	if (parse_header(msg, len, fv, nf, body, body_len, err))
		return -1;
	switch (count_fields(*fv, *nf, "from", 4)) {
	case 0:
		strbuf_setf(err, "no From header");
		return -1;
	case 1:
		break;
	default:
		strbuf_setf(err, "more than one From header");
		return -1;
	}
	return signed_names(p, *fv, *nf, hv, nh, err);
}

/* The DKIM-Signature field up to an empty b= (what the header hash ends with), folded, into f. */
static void field_start(struct fold *f, const struct dkim_params *p, const struct hname *hv, size_t nh,
			const unsigned char *bh, size_t bhlen)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(f->sb, "DKIM-Signature:");
	f->col = f->sb->len;
	fold_word(f, "v=1;");
	fold_word(f, "a=rsa-sha256;");
	fold_word(f, "c=relaxed/relaxed;");
	strbuf_setf(&sb, "d=%s;", p->domain);
	fold_word(f, sb.buf);
	strbuf_setf(&sb, "s=%s;", p->selector);
	fold_word(f, sb.buf);
	if (p->time > 0) {
		strbuf_setf(&sb, "t=%lld;", (long long)p->time);
		fold_word(f, sb.buf);
	}
	for (size_t i = 0; i < nh; i++) {
		strbuf_reset(&sb);
		if (!i)
			strbuf_addstr(&sb, "h=");
		for (size_t j = 0; j < hv[i].n; j++)
			strbuf_addch(&sb, lower(hv[i].s[j]));
		strbuf_addch(&sb, i + 1 < nh ? ':' : ';');
		if (!i)
			fold_word(f, sb.buf);
		else
			fold_glued(f, sb.buf, sb.len);
	}
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "bh=");
	add_base64(&sb, bh, bhlen);
	strbuf_addch(&sb, ';');
	fold_word(f, sb.buf);
	fold_word(f, "b=");
	strbuf_release(&sb);
}

/*
 * The header hash: each h= name takes the last instance above the one
 * the same name took before (RFC 6376 5.4.2); a name with none left
 * adds nothing; then the signature's own field (sig, without its line
 * end). 0, or -1 with err set.
 */
static int header_hash(const mbedtls_md_info_t *sha256, const struct field *fv, size_t nf, const struct hname *hv,
		       size_t nh, const struct strbuf *sig, unsigned char *hash, struct strbuf *err)
{
	size_t *limit = xcalloc(nh ? nh : 1, sizeof(*limit));
	mbedtls_md_context_t md;
	int r;

	mbedtls_md_init(&md);
	r = mbedtls_md_setup(&md, sha256, 0);
	if (!r)
		r = mbedtls_md_starts(&md);
	for (size_t i = 0; i < nh && !r; i++) {
		size_t j = nf;

		for (size_t e = 0; e < i; e++)
			if (name_eq(hv[e].s, hv[e].n, hv[i].s, hv[i].n))
				j = limit[e];
		while (j > 0 && !name_eq(fv[j - 1].p, fv[j - 1].namelen, hv[i].s, hv[i].n))
			j--;
		limit[i] = j ? j - 1 : 0;
		if (j)
			r = hash_field(&md, fv[j - 1].p, fv[j - 1].len, false);
	}
	if (!r)
		r = hash_field(&md, sig->buf, sig->len, true);
	if (!r)
		r = mbedtls_md_finish(&md, hash);
	mbedtls_md_free(&md);
	free(limit);
	if (r) {
		mbed_error(err, "cannot hash the header", r);
		return -1;
	}
	return 0;
}

/* b=: the signature in base64, broken where the line is full, and the field's line end. */
static void field_end(struct fold *f, const unsigned char *sig, size_t siglen)
{
	struct strbuf sb = STRBUF_INIT;

	add_base64(&sb, sig, siglen);
	for (size_t i = 0; i < sb.len;) {
		size_t room = LINE_SOFT > f->col ? LINE_SOFT - f->col : 0, n = sb.len - i;

		if (!room) {
			strbuf_addstr(f->sb, "\r\n ");
			f->col = 1;
			continue;
		}
		if (n > room)
			n = room;
		fold_glued(f, sb.buf + i, n);
		i += n;
	}
	strbuf_addstr(f->sb, "\r\n");
	strbuf_release(&sb);
}

int dkim_sign(struct dkim_key *k, const struct dkim_params *p, const char *msg, size_t len,
	      struct strbuf *out, struct strbuf *err)
{
	const mbedtls_md_info_t *sha256 = mbedtls_md_info_from_type(MBEDTLS_MD_SHA256);
	struct strbuf hdr = STRBUF_INIT, sb = STRBUF_INIT;
	unsigned char bh[SHA256_LEN], hash[SHA256_LEN], sig[MBEDTLS_PK_SIGNATURE_MAX_SIZE];
	struct fold f = { &hdr, 0 };
	struct field *fv = NULL;
	struct hname *hv = NULL;
	size_t nf, nh, body_len, siglen = 0;
	const char *body;
	int ret = -1, r;

	if (check_names(p, err) || sign_inputs(p, msg, len, &fv, &nf, &hv, &nh, &body, &body_len, err))
		goto out;
	if (!sha256) {
		strbuf_setf(err, "SHA-256 is not available in mbedTLS");
		goto out;
	}
	/* bh= */
	dkim_canon_body(&sb, body, body_len);
	r = mbedtls_md(sha256, (const unsigned char *)sb.buf, sb.len, bh);
	if (r) {
		mbed_error(err, "cannot hash the body", r);
		goto out;
	}
	field_start(&f, p, hv, nh, bh, sizeof(bh));
	if (header_hash(sha256, fv, nf, hv, nh, &hdr, hash, err))
		goto out;
#if MBEDTLS_VERSION_MAJOR >= 3
	r = mbedtls_pk_sign(&k->pk, MBEDTLS_MD_SHA256, hash, sizeof(hash), sig, sizeof(sig),
			    &siglen, mbedtls_ctr_drbg_random, &k->drbg);
#else
	r = mbedtls_pk_sign(&k->pk, MBEDTLS_MD_SHA256, hash, sizeof(hash), sig, &siglen,
			    mbedtls_ctr_drbg_random, &k->drbg);
#endif
	if (r) {
		mbed_error(err, "cannot sign", r);
		goto out;
	}
	field_end(&f, sig, siglen);
	strbuf_add(out, hdr.buf, hdr.len);
	ret = 0;
out:
	free(fv);
	free(hv);
	strbuf_release(&hdr);
	strbuf_release(&sb);
	return ret;
}

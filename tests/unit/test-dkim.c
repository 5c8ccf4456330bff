/*
 * Unit tests: mail/dkim — the canonicalizations (RFC 6376 3.4.5 examples),
 * key loading and its errors, the DKIM-Signature field, and signatures
 * checked offline by Debian's python3-dkim (keys made with openssl).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/util/strbuf.h"
#include "../../mail/dkim.h"
#include "../../mail/mime.h"

#define PYTHON "/usr/bin/python3"	/* Debian's, with python3-dkim */
#define T_DATE ((time_t)1706790896)	/* Thu, 01 Feb 2024 12:34:56 +0000 */
#define DOMAIN "example.org"
#define SELECTOR "lkp2024"

/* ---- helpers ------------------------------------------------------------- */

static char *tmpdir;		/* keys, messages, the verifier */
static bool have_keys;		/* openssl made them */
static bool have_dkimpy;	/* /usr/bin/python3 can import dkim */

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/*
 * python3-dkim is slow to start, so verifications are queued
 * (expect_verify) and run in one go (verify_all).
 */
struct vcase {
	char *path;		/* the signed message */
	bool valid;		/* what python3-dkim must say */
	char *what;
};

static struct vcase *vq;
static size_t nvq, avq;

/* Forget what a failed test left queued. */
static void verify_clear(void)
{
	for (size_t i = 0; i < nvq; i++) {
		free(vq[i].path);
		free(vq[i].what);
	}
	free(vq);
	vq = NULL;
	nvq = avq = 0;
}

/* argv: the TXT record file, the name it answers, messages; prints 1 (valid) or 0 for each. */
static const char py_verify[] =
	"import sys, dkim\n"
	"rec = open(sys.argv[1], 'rb').read().strip()\n"
	"want = sys.argv[2].encode()\n"
	"def dns(name, timeout=5):\n"
	"    return rec if name == want else None\n"
	"for path in sys.argv[3:]:\n"
	"    print(1 if dkim.verify(open(path, 'rb').read(), dnsfunc=dns) else 0)\n";

/*
 * Keys (openssl): key.pem (PKCS#8, what `openssl genrsa` writes), pkcs1.pem,
 * key.der, the DNS record value txt (from openssl, not from dkim.c), and the
 * wrong ones: pub.pem, small.pem (512 bits), ec.pem, enc.pem (encrypted).
 */
static int setup(void **state)
{
	static const char *const cmds[] = {
		"openssl genrsa -out key.pem 2048",
		"openssl rsa -in key.pem -traditional -out pkcs1.pem",
		"openssl pkey -in key.pem -outform DER -out key.der",
		"openssl pkey -in key.pem -pubout -out pub.pem",
		"printf 'v=DKIM1; k=rsa; p=%s' \"$(openssl pkey -in key.pem -pubout -outform DER"
		" | base64 -w0)\" >txt",
		"openssl genrsa -out small.pem 512",
		"openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out ec.pem",
		"openssl pkey -in key.pem -aes128 -passout pass:secret -out enc.pem",
	};
	char *cmd;

	(void)state;
	tmpdir = xstrdup("/tmp/lkprobot-test-dkim.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	have_keys = !run("openssl version >/dev/null 2>&1");
	for (size_t i = 0; have_keys && i < ARRAY_SIZE(cmds); i++) {
		cmd = xasprintf("cd %s && %s 2>/dev/null", tmpdir, cmds[i]);
		if (run(cmd)) {
			fprintf(stderr, "test-dkim: failed: %s\n", cmds[i]);
			free(cmd);
			return -1;
		}
		free(cmd);
	}
	cmd = tmp_path("verify.py");
	write_file(cmd, py_verify, strlen(py_verify));
	free(cmd);
	have_dkimpy = !run(PYTHON " -c 'import dkim' >/dev/null 2>&1");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	verify_clear();
	if (tmpdir)
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(tmpdir);
	return 0;
}

static void need_keys(void)
{
	if (!have_keys) {
		print_message("openssl not found (apt-get install openssl): skipped\n");
		skip();
	}
}

static struct dkim_key *load_key(const char *name)
{
	struct strbuf err = STRBUF_INIT;
	struct dkim_key *k = NULL;
	char *path = tmp_path(name);

	if (dkim_key_load(&k, path, &err))
		fail_msg("dkim_key_load(%s): %s", path, err.buf);
	assert_non_null(k);
	free(path);
	strbuf_release(&err);
	return k;
}

static void sign_ok(struct dkim_key *k, const struct dkim_params *p, const char *msg,
		    struct strbuf *sig)
{
	struct strbuf err = STRBUF_INIT;

	strbuf_reset(sig);
	if (dkim_sign(k, p, msg, strlen(msg), sig, &err))
		fail_msg("dkim_sign: %s", err.buf);
	strbuf_release(&err);
}

static const struct dkim_params default_params = {
	.domain = DOMAIN, .selector = SELECTOR, .time = T_DATE,
};

/*
 * The value of tag `tag` in a DKIM-Signature field, unfolded; for h=, bh=
 * and b= without any whitespace. NULL if absent.
 */
static char *sig_tag(const char *sig, const char *tag)
{
	struct strbuf v = STRBUF_INIT;
	const char *p = strchr(sig, ':') + 1;
	size_t tlen = strlen(tag);

	while (*p) {
		const char *end = strchr(p, ';');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
			p++, n--;
		if (!strncmp(p, tag, tlen) && p[tlen] == '=') {
			for (size_t i = tlen + 1; i < n; i++)
				if (!strchr(" \t\r\n", p[i]))
					strbuf_addch(&v, p[i]);
			return strbuf_detach(&v);
		}
		p += n;
		if (*p == ';')
			p++;
	}
	strbuf_release(&v);
	return NULL;
}

static void assert_tag(const char *sig, const char *tag, const char *want)
{
	char *v = sig_tag(sig, tag);

	if (!v)
		fail_msg("no %s= in %s", tag, sig);
	if (strcmp(v, want))
		fail_msg("%s=%s, want %s", tag, v, want);
	free(v);
}

/* A field: starts with "DKIM-Signature: ", CRLF lines of <= 78 characters, one CRLF at the end. */
static void check_field(const char *sig)
{
	const char *p = sig;

	assert_true(!strncmp(sig, "DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed;", 53));
	while (*p) {
		const char *nl = strchr(p, '\n');

		if (!nl)
			fail_msg("no line end after '%s'", p);
		if (nl == p || nl[-1] != '\r')
			fail_msg("bare LF in %s", sig);
		if (nl - p - 1 > 78)
			fail_msg("line of %zu characters in %s", (size_t)(nl - p - 1), sig);
		if (memchr(p, '\r', (size_t)(nl - p - 1)))
			fail_msg("stray CR in %s", sig);
		p = nl + 1;
		if (*p && *p != ' ')
			fail_msg("continuation line without a leading space in %s", sig);
	}
}

/* ---- canonicalization ---------------------------------------------------- */

static void assert_canon_header(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "x");	/* appended, not replaced */
	dkim_canon_header(&sb, in, strlen(in));
	if (strcmp(sb.buf + 1, want) || sb.buf[0] != 'x')
		fail_msg("canon_header('%s') = '%s', want '%s'", in, sb.buf, want);
	strbuf_release(&sb);
}

static void assert_canon_body(const char *in, const char *want)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "x");
	dkim_canon_body(&sb, in, strlen(in));
	if (strcmp(sb.buf + 1, want) || sb.buf[0] != 'x')
		fail_msg("canon_body('%s') = '%s', want '%s'", in, sb.buf + 1, want);
	strbuf_release(&sb);
}

static void test_dkim_canon_header(void **state)
{
	(void)state;
	/* RFC 6376 3.4.5: "A: <SP> X <CRLF>" and "B <SP> : <SP> Y <HTAB><CRLF>
	 * <HTAB> Z <SP><SP><CRLF>" become "a:X <CRLF>" and "b:Y <SP> Z <CRLF>" */
	assert_canon_header("A: X\r\n", "a:X\r\n");
	assert_canon_header("B : Y\t\r\n\tZ  \r\n", "b:Y Z\r\n");
	/* without the line end, LF only, no space after the colon */
	assert_canon_header("A: X", "a:X\r\n");
	assert_canon_header("B : Y\t\n\tZ  \n", "b:Y Z\r\n");
	assert_canon_header("Subject:x", "subject:x\r\n");
	/* WSP runs inside, before and after the value; a value of only WSP */
	assert_canon_header("SUBJECT:\t  a \t b\t\t\r\n", "subject:a b\r\n");
	assert_canon_header("Message-ID:\r\n <1@example.org>\r\n", "message-id:<1@example.org>\r\n");
	assert_canon_header("X-Empty:   \r\n", "x-empty:\r\n");
	assert_canon_header("X-Empty:", "x-empty:\r\n");
	/* several folds; a colon in the value stays as it is */
	assert_canon_header("To: a@example.org,\r\n b@example.org,\r\n\t \"C: D\" <c@example.org>\r\n",
			    "to:a@example.org, b@example.org, \"C: D\" <c@example.org>\r\n");
	/* the name keeps its characters, lower-cased; a bare CR is not a line end */
	assert_canon_header("X-lkprobot-Job : fio\rx\r\n", "x-lkprobot-job:fio\rx\r\n");
}

static void test_dkim_canon_body(void **state)
{
	(void)state;
	/* RFC 6376 3.4.5: "<SP> C <SP><CRLF> D <SP><HTAB><SP> E <CRLF> <CRLF>
	 * <CRLF>" becomes "<SP> C <CRLF> D <SP> E <CRLF>" */
	assert_canon_body(" C \r\nD \t E\r\n\r\n\r\n", " C\r\nD E\r\n");
	/* an empty body, or only empty lines: nothing (3.4.4, not 3.4.3's CRLF) */
	assert_canon_body("", "");
	assert_canon_body("\r\n", "");
	assert_canon_body("\r\n\r\n\r\n", "");
	assert_canon_body(" \t\r\n\t\r\n", "");
	/* a CRLF is added to a last line without one */
	assert_canon_body("a", "a\r\n");
	assert_canon_body("a\r\nb  ", "a\r\nb\r\n");
	/* empty lines inside stay, trailing ones (also WSP-only ones) go */
	assert_canon_body("a\r\n\r\n \r\nb\r\n \r\n\r\n", "a\r\n\r\n\r\nb\r\n");
	/* LF is taken as CRLF; leading WSP becomes one space */
	assert_canon_body("\t\tindented  line \n\nend\n", " indented line\r\n\r\nend\r\n");
	/* a bare CR is not WSP and not a line end */
	assert_canon_body("a \r b \r\n", "a \r b\r\n");
}

/* ---- keys ---------------------------------------------------------------- */

static void test_dkim_key_formats(void **state)
{
	static const char *const names[] = { "key.pem", "pkcs1.pem", "key.der" };
	struct strbuf txt = STRBUF_INIT, want = STRBUF_INIT, sig = STRBUF_INIT;
	char *path;

	(void)state;
	need_keys();
	path = tmp_path("txt");
	assert_int_equal(strbuf_read_file(&want, path), 0);
	free(path);
	assert_true(!strncmp(want.buf, "v=DKIM1; k=rsa; p=MII", 21));
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct dkim_key *k = load_key(names[i]);

		assert_int_equal(dkim_key_bits(k), 2048);
		strbuf_reset(&txt);
		assert_int_equal(dkim_key_txt_record(k, &txt), 0);
		assert_string_equal(txt.buf, want.buf);
		/* the same key in three forms: the same (deterministic) signature */
		if (!i) {
			sign_ok(k, &default_params, "From: a@example.org\r\n\r\nhi\r\n", &sig);
		} else {
			struct strbuf again = STRBUF_INIT;

			sign_ok(k, &default_params, "From: a@example.org\r\n\r\nhi\r\n", &again);
			assert_string_equal(again.buf, sig.buf);
			strbuf_release(&again);
		}
		dkim_key_free(k);
	}
	dkim_key_free(NULL);
	strbuf_release(&txt);
	strbuf_release(&want);
	strbuf_release(&sig);
}

static void assert_load_fails(const char *name, const char *why)
{
	struct strbuf err = STRBUF_INIT, want = STRBUF_INIT;
	struct dkim_key *k = (struct dkim_key *)&err;	/* must be reset to NULL */
	char *path = tmp_path(name);

	assert_int_equal(dkim_key_load(&k, path, &err), -1);
	assert_null(k);
	strbuf_addf(&want, "'%s': %s", path, why);
	if (strcmp(err.buf, want.buf))
		fail_msg("error '%s', want '%s'", err.buf, want.buf);
	assert_null(strchr(err.buf, '\n'));
	free(path);
	strbuf_release(&err);
	strbuf_release(&want);
}

static void test_dkim_key_errors(void **state)
{
	char *path;

	(void)state;
	assert_load_fails("missing.pem", "No such file or directory");
	path = tmp_path("garbage.pem");
	write_file(path, "hello\n", 6);
	free(path);
	assert_load_fails("garbage.pem", "not a private key (PEM or DER)");
	path = tmp_path("empty.pem");
	write_file(path, "", 0);
	free(path);
	assert_load_fails("empty.pem", "not a private key (PEM or DER)");
	need_keys();
	assert_load_fails("pub.pem", "not a private key (PEM or DER)");
	assert_load_fails("ec.pem", "not an RSA private key (EC)");
	assert_load_fails("small.pem", "RSA key of 512 bits, DKIM needs at least 1024");
	assert_load_fails("enc.pem", "encrypted private keys are not supported");
}

/* ---- the DKIM-Signature field ------------------------------------------- */

static void test_dkim_field(void **state)
{
	static const char msg[] =
		"From: kernel test robot <lkp@example.org>\r\n"
		"To: a@example.org\r\n"
		"Subject: test\r\n"
		"Date: Thu, 01 Feb 2024 12:34:56 +0000\r\n"
		"X-Not-Signed: x\r\n"
		"Message-ID: <1@example.org>\r\n"
		"\r\n"
		"Hello,\r\n"
		"\r\n"
		"  kernel test robot\r\n";
	static const char *const over[] = { "From", "subject", "subject", "X-Not-In-Message" };
	struct dkim_params p = default_params;
	struct dkim_key *k;
	struct strbuf sig = STRBUF_INIT, again = STRBUF_INIT;
	char *b, *txt;

	(void)state;
	need_keys();
	k = load_key("key.pem");
	strbuf_addstr(&sig, "kept");		/* appended to */
	{
		struct strbuf err = STRBUF_INIT;

		assert_int_equal(dkim_sign(k, &p, msg, strlen(msg), &sig, &err), 0);
		strbuf_release(&err);
	}
	assert_true(!strncmp(sig.buf, "kept", 4));
	memmove(sig.buf, sig.buf + 4, sig.len - 3);
	sig.len -= 4;
	check_field(sig.buf);
	{
		static const char head[] =
			"DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=example.org;\r\n"
			" s=lkp2024; t=1706790896; h=from:to:subject:date:message-id;\r\n"
			" bh=Tk9OGj6Yyh5mqr+9iNH7IM5fFV9kQCDaCVBuddiB5ZY=; b=";

		if (strncmp(sig.buf, head, strlen(head)))
			fail_msg("field:\n%s\nwant it to start with\n%s", sig.buf, head);
	}
	assert_tag(sig.buf, "t", "1706790896");
	assert_tag(sig.buf, "h", "from:to:subject:date:message-id");
	/* SHA-256 of "Hello,\r\n\r\n kernel test robot\r\n" */
	assert_tag(sig.buf, "bh", "Tk9OGj6Yyh5mqr+9iNH7IM5fFV9kQCDaCVBuddiB5ZY=");
	b = sig_tag(sig.buf, "b");
	assert_non_null(b);
	assert_int_equal(strlen(b), 344);	/* 256 bytes */
	free(b);
	txt = sig_tag(sig.buf, "x");
	assert_null(txt);

	/* deterministic */
	sign_ok(k, &p, msg, &again);
	assert_string_equal(again.buf, sig.buf);

	/* no t=; the caller's h=, over-signing and absent names allowed */
	p.time = 0;
	p.headers = over;
	p.nheaders = ARRAY_SIZE(over);
	sign_ok(k, &p, msg, &again);
	check_field(again.buf);
	assert_null(sig_tag(again.buf, "t"));
	assert_tag(again.buf, "h", "from:subject:subject:x-not-in-message");

	/* every default header, and a long domain: folded within 78 columns */
	p = default_params;
	p.domain = "a-rather-long-subdomain-name.of-the-kernel-test-robot.example.org";
	sign_ok(k, &p,
		"From: a@example.org\r\nTo: b@example.org\r\nCc: c@example.org\r\n"
		"Subject: s\r\nDate: Thu, 01 Feb 2024 12:34:56 +0000\r\n"
		"Message-ID: <2@example.org>\r\nIn-Reply-To: <1@example.org>\r\n"
		"References: <1@example.org>\r\nMIME-Version: 1.0\r\n"
		"Content-Type: text/plain; charset=utf-8\r\n"
		"Content-Transfer-Encoding: 8bit\r\n\r\n",
		&again);
	check_field(again.buf);
	assert_tag(again.buf, "d", p.domain);
	assert_tag(again.buf, "h", "from:to:cc:subject:date:message-id:in-reply-to:references:"
		   "mime-version:content-type:content-transfer-encoding");
	/* an empty body */
	assert_tag(again.buf, "bh", "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=");

	dkim_key_free(k);
	strbuf_release(&sig);
	strbuf_release(&again);
}

static void assert_sign_fails(struct dkim_key *k, const struct dkim_params *p, const char *msg,
			      const char *want)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	strbuf_addstr(&out, "unchanged");
	assert_int_equal(dkim_sign(k, p, msg, strlen(msg), &out, &err), -1);
	assert_string_equal(out.buf, "unchanged");
	if (strcmp(err.buf, want))
		fail_msg("error '%s', want '%s'", err.buf, want);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_dkim_sign_errors(void **state)
{
	static const char ok[] = "From: a@example.org\r\nSubject: s\r\n\r\nbody\r\n";
	static const char *const no_from[] = { "to", "subject" };
	static const char *const bad_name[] = { "from", "sub ject" };
	struct dkim_params p = default_params;
	struct dkim_key *k;

	(void)state;
	need_keys();
	k = load_key("key.pem");
	assert_sign_fails(k, &p, "To: a@example.org\r\nSubject: s\r\n\r\nbody\r\n", "no From header");
	assert_sign_fails(k, &p, "\r\nFrom: a@example.org\r\n", "no From header");
	assert_sign_fails(k, &p, "", "no From header");
	assert_sign_fails(k, &p, "From: a@example.org\r\nfrom: b@example.org\r\n\r\n",
			  "more than one From header");
	assert_sign_fails(k, &p, "From: a@example.org\r\nSubject s\r\n\r\n",
			  "malformed header line 'Subject s'");
	assert_sign_fails(k, &p, ": a@example.org\r\n\r\n", "malformed header line ': a@example.org'");
	assert_sign_fails(k, &p, " From: a@example.org\r\n\r\n",
			  "malformed header: it starts with a continuation line");
	p.domain = "example..org";
	assert_sign_fails(k, &p, ok, "invalid d= domain 'example..org'");
	p.domain = "exa;mple.org";
	assert_sign_fails(k, &p, ok, "invalid d= domain 'exa;mple.org'");
	p.domain = NULL;
	assert_sign_fails(k, &p, ok, "invalid d= domain ''");
	p.domain = DOMAIN;
	p.selector = "-lkp";
	assert_sign_fails(k, &p, ok, "invalid s= selector '-lkp'");
	p.selector = "a\nb";
	assert_sign_fails(k, &p, ok, "invalid s= selector 'a?b'");
	p.selector = SELECTOR;
	p.headers = no_from;
	p.nheaders = ARRAY_SIZE(no_from);
	assert_sign_fails(k, &p, ok, "h= does not name From (RFC 6376 5.4)");
	p.headers = bad_name;
	p.nheaders = ARRAY_SIZE(bad_name);
	assert_sign_fails(k, &p, ok, "invalid header name 'sub ject' in h=");
	/* and these are fine: headers only, LF line ends, a selector with dots */
	p = default_params;
	p.selector = "2024.lkp";
	{
		struct strbuf out = STRBUF_INIT;

		sign_ok(k, &p, "From: a@example.org", &out);
		sign_ok(k, &p, "From: a@example.org\nSubject: s\n\nbody\n", &out);
		strbuf_release(&out);
	}
	dkim_key_free(k);
}

/* ---- verified by python3-dkim ------------------------------------------- */

/* Queue sig + msg, which python3-dkim must find valid or not. */
static void expect_verify(const char *sig, const char *msg, size_t len, bool valid,
			  const char *what)
{
	struct strbuf file = STRBUF_INIT, name = STRBUF_INIT;
	static unsigned seq;

	strbuf_addf(&name, "msg-%u.eml", seq++);
	ALLOC_GROW(vq, nvq + 1, avq);
	vq[nvq] = (struct vcase){ tmp_path(name.buf), valid, xstrdup(what) };
	strbuf_addstr(&file, sig);
	strbuf_add(&file, msg, len);
	write_file(vq[nvq].path, file.buf, file.len);
	nvq++;
	strbuf_release(&file);
	strbuf_release(&name);
}

static void verify_all(void)
{
	struct strbuf cmd = STRBUF_INIT, res = STRBUF_INIT, msg = STRBUF_INIT;
	char line[16];
	FILE *f;
	int st;

	strbuf_addf(&cmd, PYTHON " %s/verify.py %s/txt " SELECTOR "._domainkey." DOMAIN ".",
		    tmpdir, tmpdir);
	for (size_t i = 0; i < nvq; i++)
		strbuf_addf(&cmd, " %s", vq[i].path);
	f = popen(cmd.buf, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		strbuf_addstr(&res, line);
	st = pclose(f);
	if (!WIFEXITED(st) || WEXITSTATUS(st) || res.len != 2 * nvq)
		fail_msg("%s: exit status %d, output '%s'", cmd.buf, st, res.buf);
	for (size_t i = 0; i < nvq; i++) {
		if ((res.buf[2 * i] == '1') != vq[i].valid) {
			assert_int_equal(strbuf_read_file(&msg, vq[i].path), 0);
			fail_msg("python3-dkim says %s (want %s): %s:\n%s",
				 res.buf[2 * i] == '1' ? "valid" : "invalid",
				 vq[i].valid ? "valid" : "invalid", vq[i].what, msg.buf);
		}
	}
	verify_clear();
	strbuf_release(&cmd);
	strbuf_release(&res);
	strbuf_release(&msg);
}

/* Change the first letter or digit at or after p to another one. */
static void change_byte(char *p)
{
	while (*p && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		       (*p >= '0' && *p <= '9')))
		p++;
	assert_true(*p);
	*p = *p == 'x' ? 'y' : 'x';
}

/* Change one byte of the body; add a line if it has no letter or digit. */
static void change_body(struct strbuf *m)
{
	char *b = strstr(m->buf, "\r\n\r\n");

	if (!b && (b = strstr(m->buf, "\n\n")))
		b += 2;
	else if (b)
		b += 4;
	if (!b) {
		strbuf_addstr(m, "\r\nx\r\n");
		return;
	}
	for (char *p = b; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')) {
			change_byte(p);
			return;
		}
	}
	strbuf_addstr(m, "x\r\n");
}

/*
 * Sign msg; python3-dkim must accept it, and refuse it after one byte of
 * the body changed (a line added to an empty one) and after one of the
 * Subject changed; also after one of `field` ("\r\nCc: ...") changed, when
 * not NULL.
 */
static void check_verify(struct dkim_key *k, const struct dkim_params *p, const char *msg,
			 const char *field)
{
	struct strbuf sig = STRBUF_INIT, m = STRBUF_INIT, what = STRBUF_INIT;
	char *at;

	sign_ok(k, p, msg, &sig);
	check_field(sig.buf);
	expect_verify(sig.buf, msg, strlen(msg), true, "as signed");

	strbuf_addstr(&m, msg);
	change_body(&m);
	expect_verify(sig.buf, m.buf, m.len, false, "the body changed");

	strbuf_reset(&m);
	strbuf_addstr(&m, msg);
	at = strcasestr(m.buf, "Subject:");
	assert_non_null(at);
	change_byte(at + 8);
	expect_verify(sig.buf, m.buf, m.len, false, "the Subject changed");

	if (field) {
		strbuf_reset(&m);
		strbuf_addstr(&m, msg);
		at = strstr(m.buf, field);
		assert_non_null(at);
		change_byte(at + strlen(field));
		strbuf_addf(&what, "'%s' changed", field);
		expect_verify(sig.buf, m.buf, m.len, false, what.buf);
	}
	strbuf_release(&sig);
	strbuf_release(&m);
	strbuf_release(&what);
}

static void need_dkimpy(void)
{
	verify_clear();
	need_keys();
	if (!have_dkimpy) {
		print_message(PYTHON " cannot import dkim (apt-get install python3-dkim): skipped\n");
		skip();
	}
}

static void test_dkim_verify_mime(void **state)
{
	static const char *const to[] = { "Dan Williams <dan.j.williams@intel.com>" };
	static const char *const cc[] = {
		"Jörg Rödel <joro@8bytes.org>", "\"Huang, Ying\" <ying.huang@intel.com>",
		"linux-kernel@vger.kernel.org", "Andrew Morton <akpm@linux-foundation.org>",
		"Linus Torvalds <torvalds@linux-foundation.org>", "nvdimm@lists.linux.dev",
	};
	static const char xz[] = { (char)0xfd, '7', 'z', 'X', 'Z', 0, 0, 4, 1, 2, 3 };
	struct mime_attachment att[] = {
		{ "config-6.8.0-rc1", "text/plain", "CONFIG_X86_64=y\n", 16 },
		{ "dmesg.xz", "application/x-xz", xz, sizeof(xz) },
	};
	struct mime_message m = {
		.from = "kernel test robot <lkp@example.org>",
		.to = to,
		.nto = ARRAY_SIZE(to),
		.cc = cc,
		.ncc = ARRAY_SIZE(cc),
		.subject = "[linux-next:master] [nvdimm/pmem] 0123456789: fio.write_bw_MBps "
			   "-12.3% regression",
		.date = T_DATE,
		.message_id = "<202402011234.8b1f1a3c-lkprobot@example.org>",
		.in_reply_to = "<20240131.1@example.org>",
		.body = "Hello,\n\nkernel test robot noticed a -12.3% regression:  \n\n"
			"      1234 ±  2%     -12.3%       1082 ±  1%  fio.write_bw_MBps\n\n\n",
	};
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT;
	struct dkim_key *k;

	(void)state;
	need_dkimpy();
	k = load_key("key.pem");
	if (mime_render(&m, &msg, &err))
		fail_msg("mime_render: %s", err.buf);
	check_verify(k, &default_params, msg.buf, "\r\nCc:");
	check_verify(k, &default_params, msg.buf, "\r\nReferences:");
	check_verify(k, &default_params, msg.buf, "\r\nContent-Type:");

	/* multipart, the PKCS#1 form of the key */
	dkim_key_free(k);
	k = load_key("pkcs1.pem");
	m.att = att;
	m.natt = ARRAY_SIZE(att);
	strbuf_reset(&msg);
	if (mime_render(&m, &msg, &err))
		fail_msg("mime_render: %s", err.buf);
	check_verify(k, &default_params, msg.buf, "\r\nMIME-Version: ");

	/* LF line ends: signed as their CRLF form, which python3-dkim also reads */
	m.lf = true;
	strbuf_reset(&msg);
	if (mime_render(&m, &msg, &err))
		fail_msg("mime_render: %s", err.buf);
	check_verify(k, &default_params, msg.buf, "\nDate:");

	verify_all();
	dkim_key_free(k);
	strbuf_release(&msg);
	strbuf_release(&err);
}

static void test_dkim_verify_folded(void **state)
{
	static const char msg[] =
		"From: kernel test robot\r\n"
		"  <lkp@example.org>  \r\n"
		"To:   a@example.org,\r\n"
		"\tb@example.org \t \r\n"
		"SUBJECT:   a   folded\r\n"
		"   subject \t\r\n"
		"Date: Thu, 01 Feb 2024 12:34:56 +0000\r\n"
		"message-id:<3@example.org>\r\n"
		"\r\n"
		"line with trailing whitespace  \t\r\n"
		"\tindented \t  line\r\n"
		"\r\n"
		"last line \r\n"
		" \r\n"
		"\r\n"
		"\r\n";
	struct dkim_key *k;
	struct strbuf sig = STRBUF_INIT;

	(void)state;
	need_dkimpy();
	k = load_key("key.pem");
	check_verify(k, &default_params, msg, "\tb@");
	check_verify(k, &default_params, msg, "\r\nmessage-id:");
	/* whitespace changes do not matter with relaxed canonicalization */
	sign_ok(k, &default_params, msg, &sig);
	{
		static const char respaced[] =
			"From: kernel test robot <lkp@example.org>\r\n"
			"To: a@example.org, b@example.org\r\n"
			"Subject: a folded\r\n"
			" subject\r\n"
			"Date: Thu, 01 Feb 2024 12:34:56 +0000\r\n"
			"Message-ID: <3@example.org>\r\n"
			"\r\n"
			"line   with trailing whitespace\r\n"
			" indented line \r\n"
			"\r\n"
			"last line\r\n";

		expect_verify(sig.buf, respaced, strlen(respaced), true, "respaced");
	}
	verify_all();
	dkim_key_free(k);
	strbuf_release(&sig);
}

static void test_dkim_verify_empty_body(void **state)
{
	static const char *const msgs[] = {
		"From: a@example.org\r\nSubject: empty\r\n\r\n",
		"From: a@example.org\r\nSubject: only empty lines\r\n\r\n\r\n\r\n",
		"From: a@example.org\r\nSubject: no empty line\r\n",
	};
	struct dkim_key *k;

	(void)state;
	need_dkimpy();
	k = load_key("key.der");
	for (size_t i = 0; i < ARRAY_SIZE(msgs); i++)
		check_verify(k, &default_params, msgs[i], NULL);
	verify_all();
	dkim_key_free(k);
}

static void test_dkim_verify_repeated(void **state)
{
	static const char msg[] =
		"Received: from a by b; Thu, 01 Feb 2024 12:34:57 +0000\r\n"
		"Received: from c by d; Thu, 01 Feb 2024 12:34:58 +0000\r\n"
		"From: kernel test robot <lkp@example.org>\r\n"
		"To: a@example.org\r\n"
		"Cc: first@example.org\r\n"
		"Subject: repeated headers\r\n"
		"Cc: second@example.org\r\n"
		"Comments: one\r\n"
		"Date: Thu, 01 Feb 2024 12:34:56 +0000\r\n"
		"Comments: two\r\n"
		"cc: third@example.org\r\n"
		"\r\n"
		"body\r\n";
	static const char *const over[] = { "from", "subject", "cc", "comments", "comments",
					    "comments", "cc", "date", "subject" };
	struct dkim_params p = default_params;
	struct dkim_key *k;
	struct strbuf sig = STRBUF_INIT, m = STRBUF_INIT;

	(void)state;
	need_dkimpy();
	k = load_key("key.pem");
	/* by default, every Cc: is signed */
	check_verify(k, &p, msg, "\r\nCc: first");
	check_verify(k, &p, msg, "\r\nCc: second");
	check_verify(k, &p, msg, "\r\ncc: third");
	sign_ok(k, &p, msg, &sig);
	assert_tag(sig.buf, "h", "from:to:cc:cc:cc:subject:date");
	/* an unsigned header may change */
	strbuf_addstr(&m, msg);
	change_byte(strstr(m.buf, "Comments: one") + 10);
	change_byte(strstr(m.buf, "from c") + 5);
	expect_verify(sig.buf, m.buf, m.len, true, "unsigned headers changed");

	/* the caller's order, bottom-up instances, over-signing */
	p.headers = over;
	p.nheaders = ARRAY_SIZE(over);
	check_verify(k, &p, msg, "\r\nComments: one");
	check_verify(k, &p, msg, "\r\nComments: two");
	check_verify(k, &p, msg, "\r\ncc: third");
	check_verify(k, &p, msg, "\r\nCc: second");
	sign_ok(k, &p, msg, &sig);
	/* the first Cc: is not signed (two cc in h=, three in the message) */
	strbuf_reset(&m);
	strbuf_addstr(&m, msg);
	change_byte(strstr(m.buf, "Cc: first") + 3);
	expect_verify(sig.buf, m.buf, m.len, true, "the unsigned first Cc: changed");
	/* a third Comments: or a second Subject: added at the top (where the
	 * instances already signed stay the same) breaks it: over-signed */
	strbuf_reset(&m);
	strbuf_addf(&m, "Comments: three\r\n%s", msg);
	expect_verify(sig.buf, m.buf, m.len, false, "an over-signed Comments: added");
	strbuf_reset(&m);
	strbuf_addf(&m, "Subject: another\r\n%s", msg);
	expect_verify(sig.buf, m.buf, m.len, false, "an over-signed Subject: added");
	/* while a third Cc: there, not over-signed, does not */
	strbuf_reset(&m);
	strbuf_addf(&m, "Cc: fourth@example.org\r\n%s", msg);
	expect_verify(sig.buf, m.buf, m.len, true, "a Cc: added above the signed ones");

	verify_all();
	dkim_key_free(k);
	strbuf_release(&sig);
	strbuf_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dkim_canon_header),
		cmocka_unit_test(test_dkim_canon_body),
		cmocka_unit_test(test_dkim_key_formats),
		cmocka_unit_test(test_dkim_key_errors),
		cmocka_unit_test(test_dkim_field),
		cmocka_unit_test(test_dkim_sign_errors),
		cmocka_unit_test(test_dkim_verify_mime),
		cmocka_unit_test(test_dkim_verify_folded),
		cmocka_unit_test(test_dkim_verify_empty_body),
		cmocka_unit_test(test_dkim_verify_repeated),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

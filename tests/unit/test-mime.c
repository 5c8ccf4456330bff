/*
 * Unit tests: mail/mime — golden report mails (tests/fixtures/mime), header
 * folding and encoding, body and attachment encodings, errors, and a round
 * trip through Python's email package (skipped without python3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/util/strbuf.h"
#include "../../mail/mime.h"

/* ---- helpers ---------------------------------------------------------- */

static char fixture_dir[4096];

static void find_fixtures(void)
{
	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "mime");
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");
	if (!f)
		fail_msg("cannot write %s: %s", path, strerror(errno));
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void write_in(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = xasprintf("%s/%s", dir, name);
	write_file(p, data, len);
	free(p);
}

static void write_str_in(const char *dir, const char *name, const char *s)
{
	write_in(dir, name, s, strlen(s));
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_rf(char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

/*
 * Every line of a message: ends as asked (CRLF or LF, no stray CR or LF),
 * at most 998 octets, and header lines at most 78 characters.
 */
static void check_lines(const struct strbuf *msg, bool lf)
{
	bool in_headers = true;
	size_t i = 0;

	assert_true(msg->len > 0);
	while (i < msg->len) {
		const char *p = msg->buf + i, *nl = memchr(p, '\n', msg->len - i);
		size_t len;

		if (!nl)
			fail_msg("message does not end with a line end");
		len = (size_t)(nl - p);
		if (!lf) {
			if (!len || p[len - 1] != '\r')
				fail_msg("bare LF at offset %zu", i + len);
			len--;
		}
		if (memchr(p, '\r', len))
			fail_msg("stray CR in line '%.*s'", (int)len, p);
		if (len > 998)
			fail_msg("line of %zu octets", len);
		if (!len)
			in_headers = false;
		if (in_headers && len > 78) {
			/* only when there is nowhere to fold: no space after the
			 * name (or the indentation of a continuation line) */
			const char *w = p, *e = p + len;
			if (*w != ' ' && *w != '\t')
				w = memchr(p, ':', len) + 1;
			while (w < e && (*w == ' ' || *w == '\t'))
				w++;
			while (w < e && *w != ' ' && *w != '\t')
				w++;
			if (w < e)
				fail_msg("header line of %zu characters: '%.*s'", len, (int)len, p);
		}
		i += (size_t)(nl - p) + 1;
	}
}

static void render_ok(const struct mime_message *m, struct strbuf *out)
{
	struct strbuf err = STRBUF_INIT;

	strbuf_reset(out);
	if (mime_render(m, out, &err))
		fail_msg("mime_render: %s", err.buf);
	strbuf_release(&err);
	check_lines(out, m->lf);
}

/* The folded lines of header `name` ("Cc"), line ends included. */
static char *header_lines(const char *msg, const char *name)
{
	size_t nlen = strlen(name);
	const char *p = msg, *end;

	while (strncmp(p, name, nlen) || p[nlen] != ':') {
		p = strchr(p, '\n');
		if (!p || p[1] == '\n' || p[1] == '\r')
			return NULL;
		p++;
	}
	end = p;
	do {
		end = strchr(end, '\n') + 1;
	} while (*end == ' ' || *end == '\t');
	return xstrndup(p, (size_t)(end - p));
}

/* The unfolded value of header `name`, without the leading space. */
static char *header_value(const char *msg, const char *name)
{
	char *lines = header_lines(msg, name);
	struct strbuf v = STRBUF_INIT;

	if (!lines)
		return NULL;
	for (const char *p = lines + strlen(name) + 1; *p; p++)
		if (*p != '\r' && *p != '\n')
			strbuf_addch(&v, *p);
	free(lines);
	if (v.len && v.buf[0] == ' ')
		memmove(v.buf, v.buf + 1, v.len--);
	return strbuf_detach(&v);
}

/* The content of part `n` (0: the body) of a multipart message in LF. */
static char *part_content(const char *msg, int n)
{
	const char *b = strstr(msg, "boundary=\"");
	char *delim, *p, *end;

	assert_non_null(b);
	b += strlen("boundary=\"");
	delim = xasprintf("\n--%.*s", (int)(strchr(b, '"') - b), b);
	p = strstr(msg, delim);
	for (int i = 0; i < n && p; i++)
		p = strstr(p + 1, delim);
	assert_non_null(p);
	p = strstr(p, "\n\n");
	assert_non_null(p);
	p += 2;
	end = strstr(p - 1, delim);
	assert_non_null(end);
	free(delim);
	return xstrndup(p, (size_t)(end - p));
}

static int hexval(char c)
{
	return c >= 'A' ? c - 'A' + 10 : c - '0';
}

/* Decode quoted-printable with LF line ends. */
static void qp_decode(struct strbuf *out, const char *s)
{
	while (*s) {
		if (s[0] == '=' && s[1] == '\n') {
			s += 2;
		} else if (s[0] == '=') {
			assert_non_null(strchr("0123456789ABCDEF", s[1]));
			assert_non_null(strchr("0123456789ABCDEF", s[2]));
			strbuf_addch(out, hexval(s[1]) << 4 | hexval(s[2]));
			s += 3;
		} else {
			strbuf_addch(out, *s++);
		}
	}
}

static void b64_decode(struct strbuf *out, const char *s)
{
	static const char tab[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	uint32_t v = 0;
	int bits = 0;

	for (; *s; s++) {
		const char *c = strchr(tab, *s);
		if (*s == '\n' || *s == '=')
			continue;
		assert_non_null(c);
		v = v << 6 | (uint32_t)(c - tab);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (int)(v >> bits & 0xff));
		}
	}
}

static int count_lines_starting(const char *msg, const char *prefix)
{
	int n = 0;
	size_t len = strlen(prefix);

	for (const char *p = msg; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (!strncmp(p, prefix, len))
			n++;
	}
	return n;
}

/* ---- the messages -------------------------------------------------------- */

#define T_DATE ((time_t)1706790896)	/* Thu, 01 Feb 2024 12:34:56 +0000 */

static const char *const kernel_cc[] = {
	"H. Peter Anvin <hpa@zytor.com>",
	"oe-lkp@lists.linux.dev",
	"lkp@intel.com",
	"linux-kernel@vger.kernel.org",
	"Andrew Morton <akpm@linux-foundation.org>",
	"Linus Torvalds <torvalds@linux-foundation.org>",
	"Thomas Gleixner <tglx@linutronix.de>",
	"Ingo Molnar <mingo@redhat.com>",
	"Borislav Petkov <bp@alien8.de>",
	"Dave Hansen <dave.hansen@linux.intel.com>",
	"x86@kernel.org",
	"Peter Zijlstra <peterz@infradead.org>",
	"\"Matthew Wilcox (Oracle)\" <willy@infradead.org>",
	"Dan Williams <dan.j.williams@intel.com>",
	"Vishal Verma <vishal.l.verma@intel.com>",
	"Dave Jiang <dave.jiang@intel.com>",
	"nvdimm@lists.linux.dev",
	"linux-mm@kvack.org",
	"Jörg Rödel <joro@8bytes.org>",
	"ying.huang@intel.com",
};

/* The display names and addresses of kernel_cc, as a reader sees them. */
static const char *const kernel_cc_parsed[] = {
	"H. Peter Anvin\thpa@zytor.com",
	"\toe-lkp@lists.linux.dev",
	"\tlkp@intel.com",
	"\tlinux-kernel@vger.kernel.org",
	"Andrew Morton\takpm@linux-foundation.org",
	"Linus Torvalds\ttorvalds@linux-foundation.org",
	"Thomas Gleixner\ttglx@linutronix.de",
	"Ingo Molnar\tmingo@redhat.com",
	"Borislav Petkov\tbp@alien8.de",
	"Dave Hansen\tdave.hansen@linux.intel.com",
	"\tx86@kernel.org",
	"Peter Zijlstra\tpeterz@infradead.org",
	"Matthew Wilcox (Oracle)\twilly@infradead.org",
	"Dan Williams\tdan.j.williams@intel.com",
	"Vishal Verma\tvishal.l.verma@intel.com",
	"Dave Jiang\tdave.jiang@intel.com",
	"\tnvdimm@lists.linux.dev",
	"\tlinux-mm@kvack.org",
	"Jörg Rödel\tjoro@8bytes.org",
	"\tying.huang@intel.com",
};

static const char *const report_to[] = { "Dan Williams <dan.j.williams@intel.com>" };

static const char *const report_extra[] = {
	"X-lkprobot-Commit: 0123456789abcdef0123456789abcdef01234567",
	"X-lkprobot-Job: fio-basic-2pmem-xfs-dax-randwrite-2M-sync",
};

static const char report_body[] =
	"Hello,\n"
	"\n"
	"kernel test robot noticed a -12.3% regression of fio.write_bw_MBps on:\n"
	"\n"
	"commit: 0123456789ab (\"nvdimm/pmem: flush less\")\n"
	"\n"
	"testcase: fio-basic\n"
	"test machine: qemu, 2 CPUs, 4G memory, 2 pmem of 256G\n"
	"\n"
	"     base             patched\n"
	"---------------- ---------------------------\n"
	"      1234 ±  2%     -12.3%       1082 ±  1%  fio.write_bw_MBps\n";

static const char report_config[] =
	"#\n"
	"# Automatically generated file; DO NOT EDIT.\n"
	"# Linux/x86 6.8.0-rc1 Kernel Configuration\n"
	"#\n"
	"CONFIG_X86_64=y\n"
	"CONFIG_ZONE_DEVICE=y\n"
	"CONFIG_LIBNVDIMM=m\n"
	"CONFIG_BLK_DEV_PMEM=m\n"
	"CONFIG_FS_DAX=y\n";

/* an .xz stream header and some bytes of every value */
static unsigned char report_xz[300];

static void init_xz(void)
{
	static const unsigned char magic[] = { 0xfd, '7', 'z', 'X', 'Z', 0, 0, 4 };

	for (size_t i = 0; i < sizeof(report_xz); i++)
		report_xz[i] = (unsigned char)(i * 7 + 3);
	memcpy(report_xz, magic, sizeof(magic));
}

static struct mime_attachment report_att[2];

static void report_message(struct mime_message *m)
{
	init_xz();
	report_att[0] = (struct mime_attachment){ "config-6.8.0-rc1-00001-g0123456789ab", "text/plain",
						  report_config, strlen(report_config) };
	report_att[1] = (struct mime_attachment){ "dmesg.xz", "application/x-xz", report_xz,
						  sizeof(report_xz) };
	*m = (struct mime_message){
		.from = "kernel test robot <lkp@example.org>",
		.to = report_to,
		.nto = ARRAY_SIZE(report_to),
		.cc = kernel_cc,
		.ncc = ARRAY_SIZE(kernel_cc),
		.subject = "[linux-next:master] [nvdimm/pmem] 0123456789: fio.write_bw_MBps -12.3% regression",
		.date = T_DATE,
		.message_id = "<202402011234.8b1f1a3c-lkprobot@example.org>",
		.extra_headers = report_extra,
		.nextra = ARRAY_SIZE(report_extra),
		.body = report_body,
		.att = report_att,
		.natt = ARRAY_SIZE(report_att),
		.lf = true,
	};
}

static void plain_message(struct mime_message *m)
{
	static const char *const to[] = { "Jörg Rödel <joro@8bytes.org>" };
	static const char *const cc[] = { "H. Peter Anvin <hpa@zytor.com>", "lkp@intel.com" };

	*m = (struct mime_message){
		.from = "kernel test robot <lkp@example.org>",
		.to = to,
		.nto = ARRAY_SIZE(to),
		.cc = cc,
		.ncc = ARRAY_SIZE(cc),
		.subject = "[joro:iommu/next] [iommu/amd] abcdef0123: Größe der Seitentabellen +5.1% improvement",
		.date = T_DATE,
		.message_id = "<202402011234.00c0ffee-lkprobot@example.org>",
		.body = "Hello Jörg,\n\nkernel test robot noticed a +5.1% improvement.\n",
		.lf = true,
	};
}

static void reply_message(struct mime_message *m)
{
	static const char *const to[] = { "\"Huang, Ying\" <ying.huang@intel.com>" };
	static const char *const extra[] = { "X-lkprobot-Note: 性能回归已确认" };
#define PROFILE "12.34% calltrace.cycles-pp.clear_page_erms.clear_huge_page." \
		"__do_huge_pmd_anonymous_page.__handle_mm_fault.handle_mm_fault = 5.67% " \
		"calltrace.cycles-pp.native_queued_spin_lock_slowpath._raw_spin_lock." \
		"free_pcppages_bulk.free_unref_page_list.release_pages; "
	static const char body[] =
		"Bisected to the same commit again.\n"
		"\n"
		"The perf-profile of the run, on one line of more than 998 octets: "
		PROFILE PROFILE PROFILE PROFILE "with a trailing space \n"
		"\tand a tab-indented line, Grüße\n";
#undef PROFILE

	*m = (struct mime_message){
		.from = "kernel test robot <lkp@example.org>",
		.to = to,
		.nto = ARRAY_SIZE(to),
		.subject = "Re: [mm] 内存分配性能回归 -20% (will-it-scale.per_process_ops)",
		.date = (time_t)1709208000,	/* Thu, 29 Feb 2024 12:00:00 +0000 */
		.message_id = "<202402291200.0badcafe-lkprobot@example.org>",
		.in_reply_to = "<202402011234.8b1f1a3c-lkprobot@example.org>",
		.references = "<20240130120000.12345-1-author@kernel.org> "
			      "<202402011234.8b1f1a3c-lkprobot@example.org>",
		.extra_headers = extra,
		.nextra = ARRAY_SIZE(extra),
		.body = body,
		.lf = true,
	};
}

/*
 * Compare with tests/fixtures/mime/<name>; MIME_UPDATE_GOLDEN=1 rewrites
 * the file instead (look at the diff before committing it).
 */
static void assert_golden(const struct strbuf *got, const char *name)
{
	struct strbuf want = STRBUF_INIT;
	char *path = xasprintf("%s/%s", fixture_dir, name);

	if (getenv("MIME_UPDATE_GOLDEN")) {
		write_file(path, got->buf, got->len);
		free(path);
		return;
	}
	if (strbuf_read_file(&want, path))
		fail_msg("cannot read %s: %s", path, strerror(errno));
	if (want.len != got->len || memcmp(want.buf, got->buf, got->len)) {
		print_error("%s differs; got:\n%s", path, got->buf);
		fail();
	}
	strbuf_release(&want);
	free(path);
}

/* ---- tests ------------------------------------------------------------- */

static void test_mime_date(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;

	/* date -u -R -d @T */
	assert_int_equal(mime_date(&sb, T_DATE), 0);
	assert_string_equal(sb.buf, "Thu, 01 Feb 2024 12:34:56 +0000");
	strbuf_reset(&sb);
	assert_int_equal(mime_date(&sb, 0), 0);
	assert_string_equal(sb.buf, "Thu, 01 Jan 1970 00:00:00 +0000");
	strbuf_reset(&sb);
	assert_int_equal(mime_date(&sb, 1709208000), 0);
	assert_string_equal(sb.buf, "Thu, 29 Feb 2024 12:00:00 +0000");
	strbuf_reset(&sb);
	assert_int_equal(mime_date(&sb, 4102444800), 0);
	assert_string_equal(sb.buf, "Fri, 01 Jan 2100 00:00:00 +0000");
	strbuf_release(&sb);
}

static void test_mime_message_id(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	(void)state;

	/* FNV-1a 32 test vectors: "" 811c9dc5, "a" e40c292c, "foobar" bf9cf968 */
	mime_message_id(&a, T_DATE, "", "example.org");
	assert_string_equal(a.buf, "<202402011234.811c9dc5-lkprobot@example.org>");
	strbuf_reset(&a);
	mime_message_id(&a, T_DATE, "a", "example.org");
	assert_string_equal(a.buf, "<202402011234.e40c292c-lkprobot@example.org>");
	strbuf_reset(&a);
	mime_message_id(&a, 0, "foobar", "lkp.intel.com");
	assert_string_equal(a.buf, "<197001010000.bf9cf968-lkprobot@lkp.intel.com>");

	/* the same report, the same id; another report, another id */
	strbuf_reset(&a);
	mime_message_id(&a, T_DATE, "fio-basic/0123456789ab/fio.write_bw_MBps", "example.org");
	mime_message_id(&b, T_DATE, "fio-basic/0123456789ab/fio.write_bw_MBps", "example.org");
	assert_string_equal(a.buf, b.buf);
	strbuf_reset(&b);
	mime_message_id(&b, T_DATE, "fio-basic/0123456789ab/fio.read_bw_MBps", "example.org");
	assert_string_not_equal(a.buf, b.buf);
	/* appends */
	strbuf_setf(&b, "Message-ID: ");
	mime_message_id(&b, T_DATE, "a", "x.org");
	assert_string_equal(b.buf, "Message-ID: <202402011234.e40c292c-lkprobot@x.org>");
	strbuf_release(&a);
	strbuf_release(&b);
}

static void test_mime_golden_plain(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT;
	(void)state;

	plain_message(&m);
	render_ok(&m, &out);
	assert_golden(&out, "plain.eml");
	strbuf_release(&out);
}

static void test_mime_golden_report(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT;
	(void)state;

	report_message(&m);
	render_ok(&m, &out);
	assert_golden(&out, "report.eml");
	strbuf_release(&out);
}

static void test_mime_golden_reply(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT;
	(void)state;

	reply_message(&m);
	render_ok(&m, &out);
	assert_golden(&out, "reply.eml");
	strbuf_release(&out);
}

/* CRLF output is the LF output with every LF a CRLF: nothing else differs. */
static void test_mime_crlf(void **state)
{
	void (*const make[])(struct mime_message *) = { plain_message, report_message, reply_message };
	struct strbuf lf = STRBUF_INIT, crlf = STRBUF_INIT, conv = STRBUF_INIT;
	struct mime_message m;
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(make); i++) {
		make[i](&m);
		render_ok(&m, &lf);
		m.lf = false;
		render_ok(&m, &crlf);
		strbuf_reset(&conv);
		for (size_t k = 0; k < lf.len; k++) {
			if (lf.buf[k] == '\n')
				strbuf_addch(&conv, '\r');
			strbuf_addch(&conv, lf.buf[k]);
		}
		assert_int_equal(crlf.len, conv.len);
		assert_memory_equal(crlf.buf, conv.buf, conv.len);
	}
	strbuf_release(&lf);
	strbuf_release(&crlf);
	strbuf_release(&conv);
}

/* A kernel mail's Cc of 20: one header, broken after commas, <= 78 columns. */
static void test_mime_cc_folding(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT;
	char *cc, *v;
	int lines = 0;
	(void)state;

	report_message(&m);
	render_ok(&m, &out);
	assert_int_equal(count_lines_starting(out.buf, "Cc:"), 1);
	cc = header_lines(out.buf, "Cc");
	assert_non_null(cc);
	for (char *p = cc, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		lines++;
		assert_true(nl - p <= 78);
		if (p != cc)
			assert_true(p[0] == ' ' && p[1] != ' ');	/* indented once */
		if (nl[1])
			assert_int_equal(nl[-1], ',');		/* broken after a comma */
	}
	assert_true(lines >= 5);
	v = header_value(out.buf, "Cc");
	/* every mailbox whole on one line (no comma in these names) */
	for (char *mb = v, *c; mb; mb = c ? c + 2 : NULL) {
		c = strstr(mb, ", ");
		char *one = c ? xstrndup(mb, (size_t)(c - mb)) : xstrdup(mb);
		assert_non_null(strstr(cc, one));
		free(one);
	}
	assert_non_null(strstr(cc, "\n Linus Torvalds <torvalds@linux-foundation.org>,\n"));
	assert_string_equal(v,
		"\"H. Peter Anvin\" <hpa@zytor.com>, oe-lkp@lists.linux.dev, lkp@intel.com, "
		"linux-kernel@vger.kernel.org, Andrew Morton <akpm@linux-foundation.org>, "
		"Linus Torvalds <torvalds@linux-foundation.org>, Thomas Gleixner <tglx@linutronix.de>, "
		"Ingo Molnar <mingo@redhat.com>, Borislav Petkov <bp@alien8.de>, "
		"Dave Hansen <dave.hansen@linux.intel.com>, x86@kernel.org, "
		"Peter Zijlstra <peterz@infradead.org>, \"Matthew Wilcox (Oracle)\" <willy@infradead.org>, "
		"Dan Williams <dan.j.williams@intel.com>, Vishal Verma <vishal.l.verma@intel.com>, "
		"Dave Jiang <dave.jiang@intel.com>, nvdimm@lists.linux.dev, linux-mm@kvack.org, "
		"=?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joro@8bytes.org>, ying.huang@intel.com");
	free(v);
	free(cc);
	strbuf_release(&out);
}

/* A mailbox longer than a line is split at its spaces, never beyond 998. */
static void test_mime_long_mailbox(void **state)
{
	const char *to[] = {
		"Somebody With An Extraordinarily Long Name Indeed, Really Very Long "
		"<somebody.with.an.extraordinarily.long.local.part@subdomain.example.org>",
		"Jörg Rödel Jörg Rödel Jörg Rödel Jörg Rödel Jörg Rödel Jörg Rödel <joro@8bytes.org>",
	};
	struct mime_message m = { .from = "a@b.org", .to = to, .nto = 2, .lf = true };
	struct strbuf out = STRBUF_INIT;
	char *v;
	(void)state;

	render_ok(&m, &out);	/* checks <= 78 */
	v = header_value(out.buf, "To");
	assert_string_equal(v,
		"\"Somebody With An Extraordinarily Long Name Indeed, Really Very Long\" "
		"<somebody.with.an.extraordinarily.long.local.part@subdomain.example.org>, "
		"=?UTF-8?Q?J=C3=B6rg_R=C3=B6del_J=C3=B6rg_R=C3=B6del_J=C3=B6rg_R=C3=B6del_?= "
		"=?UTF-8?Q?J=C3=B6rg_R=C3=B6del_J=C3=B6rg_R=C3=B6del_J=C3=B6rg_R=C3=B6del?= "
		"<joro@8bytes.org>");
	free(v);
	strbuf_release(&out);
}

static void test_mime_rfc2047_name_and_subject(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT;
	char *v;
	(void)state;

	plain_message(&m);
	render_ok(&m, &out);
	v = header_lines(out.buf, "To");
	assert_string_equal(v, "To: =?UTF-8?Q?J=C3=B6rg_R=C3=B6del?= <joro@8bytes.org>\n");
	free(v);
	/* only the non-ASCII word is encoded, the rest stays readable */
	v = header_value(out.buf, "Subject");
	assert_string_equal(v, "[joro:iommu/next] [iommu/amd] abcdef0123: "
			       "=?UTF-8?Q?Gr=C3=B6=C3=9Fe?= der Seitentabellen +5.1% improvement");
	free(v);

	/* adjacent non-ASCII words share one encoded-word (the space is inside) */
	m.subject = "Grüße ändern: x";
	render_ok(&m, &out);
	v = header_value(out.buf, "Subject");
	assert_string_equal(v, "=?UTF-8?Q?Gr=C3=BC=C3=9Fe_=C3=A4ndern=3A?= x");
	free(v);
	/* ... split into words of whole characters that fill the line */
	m.subject = "Grüße ändern: völlig überraschend";
	render_ok(&m, &out);
	v = header_lines(out.buf, "Subject");
	assert_string_equal(v, "Subject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe_=C3=A4ndern=3A_v=C3=B6llig_=C3=BCberrasch?=\n"
			       " =?UTF-8?Q?end?=\n");
	free(v);

	/* mostly non-ASCII text is B-encoded, in words of <= 75 characters */
	m.subject = "内存分配性能回归，内存分配性能回归，内存分配性能回归，内存分配性能回归";
	render_ok(&m, &out);
	v = header_lines(out.buf, "Subject");
	assert_non_null(strstr(v, "=?UTF-8?B?"));
	assert_null(strstr(v, "=?UTF-8?Q?"));
	for (char *w = strstr(v, "=?"); w; w = strstr(w + 2, "=?"))
		assert_true(strstr(w, "?=") + 2 - w <= 75);
	free(v);

	/* ASCII that looks like an encoded-word is encoded so that it stays as written */
	m.subject = "literally =?UTF-8?Q?x?= here";
	render_ok(&m, &out);
	v = header_value(out.buf, "Subject");
	assert_string_equal(v, "literally =?UTF-8?Q?=3D=3FUTF-8=3FQ=3Fx=3F=3D?= here");
	free(v);
	strbuf_release(&out);
}

/* A long subject: folded at spaces, encoded-words sized to the line. */
static void test_mime_subject_folding(void **state)
{
	static char word[1500];
	struct mime_message m = { .from = "a@b.org", .lf = true };
	struct strbuf out = STRBUF_INIT;
	char *v;
	(void)state;

	m.subject = "[linus:master] [mm/pmem] 1234abcd: vm-scalability.throughput -12.3% "
		    "regression — Größe ändert sich nicht, völlig überraschend für alle";
	render_ok(&m, &out);
	v = header_lines(out.buf, "Subject");
	assert_string_equal(v,
		"Subject: [linus:master] [mm/pmem] 1234abcd: vm-scalability.throughput -12.3%\n"
		" regression =?UTF-8?Q?=E2=80=94_Gr=C3=B6=C3=9Fe_=C3=A4ndert?= sich nicht,\n"
		" =?UTF-8?Q?v=C3=B6llig_=C3=BCberraschend_f=C3=BCr?= alle\n");
	free(v);

	/* one word longer than a line: kept whole when short enough */
#define CALLTRACE "perf-profile.calltrace.cycles-pp.clear_page_erms.clear_huge_page." \
		  "__do_huge_pmd_anonymous_page.__handle_mm_fault"
	m.subject = CALLTRACE;
	render_ok(&m, &out);
	v = header_lines(out.buf, "Subject");
	assert_string_equal(v, "Subject: " CALLTRACE "\n");
#undef CALLTRACE
	free(v);
	/* (render_ok allowed it: a header line over 78 is only where unavoidable) */

	/* a word that would not fit 998 octets is encoded, so split */
	memset(word, 'x', sizeof(word) - 1);
	m.subject = word;
	render_ok(&m, &out);
	v = header_value(out.buf, "Subject");
	assert_non_null(strstr(v, "=?UTF-8?Q?xxx"));
	free(v);

	/* tabs and runs of spaces survive unfolding */
	m.subject = "a\tb   c";
	render_ok(&m, &out);
	v = header_lines(out.buf, "Subject");
	assert_string_equal(v, "Subject: a\tb   c\n");
	free(v);
	strbuf_release(&out);
}

static void test_mime_quoted_names(void **state)
{
	const char *to[] = {
		"H. Peter Anvin <hpa@zytor.com>",
		"\"H. Peter Anvin\" <hpa@zytor.com>",
		"\"Huang, Ying\" <ying.huang@intel.com>",
		"Say \\ \"Cheese\" <x@y.org>",
		"\"Say \\\\ \\\"Cheese\\\"\" <x@y.org>",
		"  Andrew    Morton  <akpm@linux-foundation.org> ",
		"<lkp@intel.com>",
		"O'Neil <o@n.org>",
	};
	struct mime_message m = { .from = "a@b.org", .to = to, .lf = true };
	struct strbuf out = STRBUF_INIT;
	char *v;
	(void)state;

	m.nto = 1;
	render_ok(&m, &out);
	v = header_lines(out.buf, "To");
	assert_string_equal(v, "To: \"H. Peter Anvin\" <hpa@zytor.com>\n");
	free(v);

	m.nto = 3;
	render_ok(&m, &out);
	v = header_value(out.buf, "To");
	assert_string_equal(v, "\"H. Peter Anvin\" <hpa@zytor.com>, \"H. Peter Anvin\" <hpa@zytor.com>, "
			       "\"Huang, Ying\" <ying.huang@intel.com>");
	free(v);

	m.to = to + 4;	/* to[3] is an error, below */
	m.nto = 4;
	render_ok(&m, &out);
	v = header_value(out.buf, "To");
	assert_string_equal(v, "\"Say \\\\ \\\"Cheese\\\"\" <x@y.org>, Andrew Morton <akpm@linux-foundation.org>, "
			       "lkp@intel.com, O'Neil <o@n.org>");
	free(v);

	/* a '"' inside an unquoted name is ambiguous */
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(mime_check_address(to[3], &err), -1);
	assert_string_equal(err.buf, "invalid address 'Say \\ \"Cheese\" <x@y.org>': "
				     "a display name with '\"' must be quoted as a whole");
	strbuf_release(&err);
	strbuf_release(&out);
}

/* A body line of 2000 octets makes the body quoted-printable. */
static void test_mime_long_line_qp(void **state)
{
	struct strbuf body = STRBUF_INIT, out = STRBUF_INIT, dec = STRBUF_INIT;
	struct mime_message m = { .from = "a@b.org", .lf = true };
	const char *content;
	(void)state;

	strbuf_addstr(&body, "short line\n");
	for (int i = 0; i < 2000; i++)
		strbuf_addch(&body, "abcdefghij klmnopq=rstuvwxyz"[i % 28]);
	strbuf_addstr(&body, "äöü \nlast line with trailing tab\t\n=3D not an escape\n");
	m.body = body.buf;
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Transfer-Encoding: quoted-printable\n"));
	content = strstr(out.buf, "\n\n") + 2;
	for (const char *p = content, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_true(nl - p <= 76);
		for (const char *c = p; c < nl; c++)
			assert_true(*c >= 32 && *c < 127);	/* 7bit */
		assert_false(nl > p && (nl[-1] == ' ' || nl[-1] == '\t'));
	}
	qp_decode(&dec, content);
	assert_string_equal(dec.buf, body.buf);

	/* 998 octets still go as 8bit, 999 do not */
	strbuf_reset(&body);
	for (int i = 0; i < 998; i++)
		strbuf_addch(&body, 'x');
	strbuf_addch(&body, '\n');
	m.body = body.buf;
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Transfer-Encoding: 8bit\n"));
	strbuf_setlen(&body, 998);
	strbuf_addstr(&body, "x\n");
	m.body = body.buf;
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Transfer-Encoding: quoted-printable\n"));

	/* a bare CR is not 8bit either; CRLF in the input is a line end */
	m.body = "a\rb\r\nc\n";
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Transfer-Encoding: quoted-printable\n\na=0Db\nc\n"));
	m.body = "a\r\nb";
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Transfer-Encoding: 8bit\n\na\nb\n"));
	strbuf_release(&body);
	strbuf_release(&out);
	strbuf_release(&dec);
}

/* A binary attachment goes as base64 in lines of 76. */
static void test_mime_binary_base64(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT, dec = STRBUF_INIT;
	char *part;
	size_t nlines = 0, len;
	(void)state;

	report_message(&m);
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Type: application/x-xz\n"
					"Content-Disposition: attachment; filename=\"dmesg.xz\"\n"
					"Content-Transfer-Encoding: base64\n\n/Td6WFoAAAQ"));
	part = part_content(out.buf, 2);
	len = strlen(part);
	for (char *p = part, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		assert_non_null(nl);
		nlines++;
		if (nl[1] && nl[1] != '\n')
			assert_int_equal(nl - p, 76);
		else
			assert_true(nl - p <= 76);
	}
	assert_int_equal(nlines, (sizeof(report_xz) + 56) / 57);
	assert_true(len > 0);
	b64_decode(&dec, part);
	assert_int_equal(dec.len, sizeof(report_xz));
	assert_memory_equal(dec.buf, report_xz, sizeof(report_xz));
	free(part);

	/* the text attachment stays readable */
	part = part_content(out.buf, 1);
	assert_string_equal(part, report_config);	/* + the newline before the delimiter */
	free(part);
	assert_non_null(strstr(out.buf, "\nContent-Type: text/plain; charset=utf-8\n"
					"Content-Disposition: attachment;\n"
					" filename=\"config-6.8.0-rc1-00001-g0123456789ab\"\n"
					"Content-Transfer-Encoding: 8bit\n"));
	/* and the body is the first part, inline */
	part = part_content(out.buf, 0);
	assert_string_equal(part, report_body);
	free(part);
	assert_non_null(strstr(out.buf, "\nContent-Type: text/plain; charset=utf-8\n"
					"Content-Disposition: inline\n"
					"Content-Transfer-Encoding: 8bit\n"));
	strbuf_release(&out);
	strbuf_release(&dec);
}

/* A text/... attachment that is not UTF-8 (or has NULs) goes as base64. */
static void test_mime_text_attachment_encodings(void **state)
{
	static const char latin1[] = "M\xfcller\n";
	static const char nul[] = "a\0b\n";
	struct mime_attachment att[] = {
		{ "latin1.txt", "text/plain", latin1, strlen(latin1) },
		{ "nul.txt", "text/plain", nul, sizeof(nul) - 1 },
		{ "ascii.txt", "text/plain; charset=us-ascii", "ok\n", 3 },
		{ "empty.bin", NULL, NULL, 0 },
		{ "long.log", "text/x-log", NULL, 0 },
	};
	struct strbuf out = STRBUF_INIT, longlog = STRBUF_INIT;
	struct mime_message m = { .from = "a@b.org", .body = "b\n", .att = att,
				  .natt = ARRAY_SIZE(att), .lf = true };
	(void)state;

	for (int i = 0; i < 1200; i++)
		strbuf_addch(&longlog, 'a' + i % 26);
	strbuf_addch(&longlog, '\n');
	att[4].data = longlog.buf;
	att[4].len = longlog.len;
	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "Content-Type: text/plain\nContent-Disposition: attachment; "
					"filename=\"latin1.txt\"\nContent-Transfer-Encoding: base64\n\n"
					"TfxsbGVyCg==\n"));
	assert_non_null(strstr(out.buf, "filename=\"nul.txt\"\nContent-Transfer-Encoding: base64\n\n"
					"YQBiCg==\n"));
	assert_non_null(strstr(out.buf, "Content-Type: text/plain; charset=us-ascii\n"
					"Content-Disposition: attachment; filename=\"ascii.txt\"\n"
					"Content-Transfer-Encoding: 8bit\n\nok\n"));
	assert_non_null(strstr(out.buf, "Content-Type: application/octet-stream\n"
					"Content-Disposition: attachment; filename=\"empty.bin\"\n"
					"Content-Transfer-Encoding: base64\n\n\n--"));
	assert_non_null(strstr(out.buf, "Content-Type: text/x-log; charset=utf-8\n"
					"Content-Disposition: attachment; filename=\"long.log\"\n"
					"Content-Transfer-Encoding: quoted-printable\n\nabcdef"));
	strbuf_release(&out);
	strbuf_release(&longlog);
}

/* Non-ASCII file names in RFC 2231, long ones in sections. */
static void test_mime_rfc2231_filename(void **state)
{
	struct mime_attachment att[] = {
		{ "Übersicht.txt", "text/plain", "x\n", 2 },
		{ "Übersicht über die Ergebnisse der Leistungsmessung für den Kernel.txt",
		  "text/plain", "y\n", 2 },
		{ "a \"quoted\" name.txt", "text/plain", "z\n", 2 },
	};
	struct mime_message m = { .from = "a@b.org", .body = "b\n", .att = att,
				  .natt = ARRAY_SIZE(att), .lf = true };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;

	render_ok(&m, &out);
	assert_non_null(strstr(out.buf, "\nContent-Disposition: attachment; "
					"filename*=utf-8''%C3%9Cbersicht.txt\n"));
	assert_non_null(strstr(out.buf, "\nContent-Disposition: attachment;\n"
					" filename*0*=utf-8''%C3%9Cbersicht%20%C3%BCber%20die%20Ergebnisse%20der;\n"
					" filename*1*=%20Leistungsmessung%20f%C3%BCr%20den%20Kernel.txt\n"));
	assert_non_null(strstr(out.buf, "\nContent-Disposition: attachment; "
					"filename=\"a \\\"quoted\\\" name.txt\"\n"));

	att[0].name = "";
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(err.buf, "attachment 1 has no name");
	att[0].name = "tab\there";
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(err.buf, "attachment name 'tab\\there' has a control character");
	att[0].name = "x";
	att[0].type = "text";
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(err.buf, "attachment 'x': invalid content type 'text'");
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_mime_deterministic(void **state)
{
	struct mime_message m;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
	char *ba, *bb;
	(void)state;

	report_message(&m);
	render_ok(&m, &a);
	render_ok(&m, &b);
	assert_int_equal(a.len, b.len);
	assert_memory_equal(a.buf, b.buf, a.len);

	/* another attachment, another boundary */
	ba = header_value(a.buf, "Content-Type");
	report_xz[100] ^= 1;
	render_ok(&m, &b);
	bb = header_value(b.buf, "Content-Type");
	assert_string_not_equal(ba, bb);
	assert_int_equal(strncmp(ba, "multipart/mixed; boundary=\"=_lkprobot_", 38), 0);
	assert_int_equal(strlen(ba), 38 + 16 + 1);
	free(ba);
	free(bb);

	/* appends to what out holds */
	strbuf_setf(&b, "From lkp Thu Feb  1 12:34:56 2024\n");
	report_xz[100] ^= 1;
	assert_int_equal(mime_render(&m, &b, &err), 0);
	assert_int_equal(b.len, strlen("From lkp Thu Feb  1 12:34:56 2024\n") + a.len);
	assert_memory_equal(b.buf + b.len - a.len, a.buf, a.len);
	strbuf_release(&err);
	strbuf_release(&a);
	strbuf_release(&b);
}

/* The boundary occurs in no part, even when the body quotes boundaries. */
static void test_mime_boundary_not_in_content(void **state)
{
	struct mime_attachment att = { "a.txt", "text/plain", "a\n", 2 };
	struct mime_message m = { .from = "a@b.org", .att = &att, .natt = 1, .lf = true };
	struct strbuf out = STRBUF_INIT, body = STRBUF_INIT;
	char *ct, *bound;
	(void)state;

	strbuf_addstr(&body, "no boundary here\n");
	m.body = body.buf;
	render_ok(&m, &out);
	ct = header_value(out.buf, "Content-Type");
	bound = xstrndup(strchr(ct, '"') + 1, strlen(strchr(ct, '"') + 1) - 1);
	strbuf_addf(&body, "--%s\n--=_lkprobot_0000000000000000\n", bound);
	free(bound);
	free(ct);
	m.body = body.buf;
	render_ok(&m, &out);
	ct = header_value(out.buf, "Content-Type");
	bound = xstrndup(strchr(ct, '"') + 1, strlen(strchr(ct, '"') + 1) - 1);
	for (int i = 0; i < 2; i++) {
		char *part = part_content(out.buf, i);
		assert_null(strstr(part, bound));
		free(part);
	}
	/* each delimiter line is there once, the close delimiter last */
	strbuf_setf(&body, "--%s", bound);
	assert_int_equal(count_lines_starting(out.buf, body.buf), 3);
	strbuf_addstr(&body, "--\n");
	assert_int_equal(strcmp(out.buf + out.len - body.len, body.buf), 0);
	free(bound);
	free(ct);
	strbuf_release(&out);
	strbuf_release(&body);
}

static void assert_bad_address(const char *addr, const char *msg)
{
	const char *to[] = { "ok@example.org", addr };
	struct mime_message m = { .from = "a@b.org", .to = to, .nto = 2, .lf = true };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	strbuf_addstr(&out, "kept");
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(out.buf, "kept");
	assert_string_equal(err.buf, msg);
	assert_null(strchr(err.buf, '\n'));
	strbuf_reset(&err);
	assert_int_equal(mime_check_address(addr, &err), -1);
	assert_int_equal(strncmp(err.buf, "invalid address '", 17), 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_mime_bad_addresses(void **state)
{
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_bad_address("nobody", "invalid To address 'nobody': no '@'");
	assert_bad_address("John Smith john@example.org",
			   "invalid To address 'John Smith john@example.org': whitespace in the address "
			   "(a display name needs <addr@domain>)");
	assert_bad_address("a@b@c.org", "invalid To address 'a@b@c.org': more than one '@'");
	assert_bad_address("Foo <foo@bar.org", "invalid To address 'Foo <foo@bar.org': "
			   "expected 'Name <addr@domain>' or 'addr@domain'");
	assert_bad_address("Foo <foo@bar.org> (comment)", "invalid To address 'Foo <foo@bar.org> (comment)': "
			   "expected 'Name <addr@domain>' or 'addr@domain'");
	assert_bad_address("foo..bar@x.org",
			   "invalid To address 'foo..bar@x.org': misplaced '.' in the local part");
	assert_bad_address("foo@-x.org",
			   "invalid To address 'foo@-x.org': domain label starts or ends with '-'");
	assert_bad_address("foo@x..org", "invalid To address 'foo@x..org': empty label in the domain");
	assert_bad_address("foo@x_y.org",
			   "invalid To address 'foo@x_y.org': '_' is not allowed in the domain");
	assert_bad_address("fo(o@x.org",
			   "invalid To address 'fo(o@x.org': '(' is not allowed in the local part");
	assert_bad_address("jörg@8bytes.org",
			   "invalid To address 'jörg@8bytes.org': non-ASCII addresses are not supported");
	assert_bad_address("@x.org", "invalid To address '@x.org': empty local part");
	assert_bad_address("x@", "invalid To address 'x@': empty domain");
	assert_bad_address("", "invalid To address '': empty");
	assert_bad_address("Evil <e@x.org>\nBcc: all@x.org",
			   "invalid To address 'Evil <e@x.org>\\nBcc: all@x.org': control character in it");
	assert_bad_address("\"Unterminated <u@x.org>", "invalid To address '\"Unterminated <u@x.org>': "
			   "unterminated quoted display name");
	assert_bad_address("Name <>", "invalid To address 'Name <>': empty address");

	/* the header named in the message is the one it was in */
	struct mime_message m = { .from = "robot", .lf = true };
	struct strbuf out = STRBUF_INIT;
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(err.buf, "invalid From address 'robot': no '@'");
	const char *cc[] = { "a@b.org", "x" };
	m.from = "a@b.org";
	m.cc = cc;
	m.ncc = 2;
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(err.buf, "invalid Cc address 'x': no '@'");
	assert_int_equal(out.len, 0);
	m.from = NULL;
	assert_int_equal(mime_render(&m, &out, &err), -1);
	assert_string_equal(err.buf, "no From address");

	assert_int_equal(mime_check_address("kernel test robot <lkp@intel.com>", &err), 0);
	assert_int_equal(mime_check_address("x@localhost", &err), 0);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void assert_bad_message(const struct mime_message *m, const char *msg)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;

	assert_int_equal(mime_render(m, &out, &err), -1);
	assert_int_equal(out.len, 0);
	assert_string_equal(err.buf, msg);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_mime_other_errors(void **state)
{
	struct mime_message m;
	const char *x[1];
	(void)state;

	plain_message(&m);
	m.message_id = "202402011234@example.org";
	assert_bad_message(&m, "invalid Message-ID '202402011234@example.org': not <left@right>");
	m.message_id = "<a b@example.org>";
	assert_bad_message(&m, "invalid Message-ID '<a b@example.org>': "
			       "a character that is not allowed in it");
	m.message_id = "<ab.example.org>";
	assert_bad_message(&m, "invalid Message-ID '<ab.example.org>': not <left@right>");

	plain_message(&m);
	m.in_reply_to = "<x@y>\r\nBcc: z@y";
	assert_bad_message(&m, "invalid In-Reply-To '<x@y>\\r\\nBcc: z@y': not <left@right>");
	m.in_reply_to = "<x@y\r\nBcc: z>";
	assert_bad_message(&m, "invalid In-Reply-To '<x@y\\r\\nBcc: z>': "
			       "a character that is not allowed in it");
	m.in_reply_to = NULL;
	m.references = "<a@b> c@d";
	assert_bad_message(&m, "invalid References id 'c@d': not <left@right>");

	plain_message(&m);
	m.subject = "two\nlines";
	assert_bad_message(&m, "Subject has a line break");
	m.subject = "latin1 M\xfcller";
	assert_bad_message(&m, "Subject is not valid UTF-8 (byte 8)");

	plain_message(&m);
	m.body = "ok\n\xc3(\n";
	assert_bad_message(&m, "body is not valid UTF-8 (byte 3)");

	plain_message(&m);
	m.extra_headers = x;
	m.nextra = 1;
	x[0] = "X-lkprobot-Job fio";
	assert_bad_message(&m, "extra header 'X-lkprobot-Job fio' is not 'Name: value'");
	x[0] = "subject: another";
	assert_bad_message(&m, "extra header 'subject' would repeat a header mime_render writes");
	x[0] = "X-Evil: a\nBcc: all@x.org";
	assert_bad_message(&m, "header X-Evil has a line break");
	x[0] = ": value";
	assert_bad_message(&m, "extra header ': value' is not 'Name: value'");
}

static void test_mime_headers(void **state)
{
	struct mime_message m;
	struct strbuf out = STRBUF_INIT;
	char *v;
	(void)state;

	reply_message(&m);
	render_ok(&m, &out);
	/* the order */
	const char *order[] = { "From:", "To:", "Subject:", "Date:", "Message-ID:", "In-Reply-To:",
				"References:", "X-lkprobot-Note:", "MIME-Version:", "Content-Type:",
				"Content-Transfer-Encoding:" };
	const char *p = out.buf;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		const char *q = strstr(out.buf, order[i]);
		assert_non_null(q);
		assert_true(q >= p);
		p = q;
	}
	assert_null(strstr(out.buf, "\nCc:"));
	v = header_lines(out.buf, "References");
	assert_string_equal(v, "References: <20240130120000.12345-1-author@kernel.org>\n"
			       " <202402011234.8b1f1a3c-lkprobot@example.org>\n");
	free(v);
	v = header_lines(out.buf, "Date");
	assert_string_equal(v, "Date: Thu, 29 Feb 2024 12:00:00 +0000\n");
	free(v);

	/* In-Reply-To alone is also the References */
	m.references = NULL;
	render_ok(&m, &out);
	v = header_value(out.buf, "References");
	assert_string_equal(v, "<202402011234.8b1f1a3c-lkprobot@example.org>");
	free(v);

	/* no Message-ID, no Subject: none written */
	m.message_id = NULL;
	m.subject = NULL;
	m.in_reply_to = NULL;
	render_ok(&m, &out);
	assert_null(strstr(out.buf, "Message-ID:"));
	assert_null(strstr(out.buf, "Subject:"));
	assert_null(strstr(out.buf, "References:"));
	strbuf_release(&out);
}

/* ---- round trip through Python's email package ------------------------------ */

static const char py_check[] =
	"import sys, email, email.policy\n"
	"d = sys.argv[1]\n"
	"def rd(n):\n"
	"    with open(d + '/' + n, 'rb') as f:\n"
	"        return f.read()\n"
	"bad = []\n"
	"def check(what, got, want):\n"
	"    if got != want:\n"
	"        bad.append('%s: got %r, want %r' % (what, got, want))\n"
	"m = email.message_from_bytes(rd('msg.eml'), policy=email.policy.default)\n"
	"for p in m.walk():\n"
	"    check('defects', [str(x) for x in p.defects], [])\n"
	"for k, v in m.items():\n"
	"    check(k + ' defects', [str(x) for x in v.defects], [])\n"
	"check('Subject', str(m['subject']), rd('subject').decode())\n"
	"check('Message-ID', str(m['message-id']), rd('message-id').decode())\n"
	"check('Date', int(m['date'].datetime.timestamp()), int(rd('date')))\n"
	"for h in ('from', 'to', 'cc'):\n"
	"    want = [tuple(l.split('\\t')) for l in rd(h).decode().splitlines()]\n"
	"    got = [(a.display_name, a.addr_spec) for a in m[h].addresses] if m[h] else []\n"
	"    check(h, got, want)\n"
	"for l in rd('extra').decode().splitlines():\n"
	"    k, v = l.split(': ', 1)\n"
	"    check(k, str(m[k]), v)\n"
	"body = m.get_body(('plain',))\n"
	"check('body', body.get_content().replace('\\r\\n', '\\n'), rd('body').decode())\n"
	"atts = list(m.iter_attachments())\n"
	"check('attachments', len(atts), int(rd('natt')))\n"
	"for i, a in enumerate(atts):\n"
	"    check('name %d' % i, a.get_filename(), rd('att%d.name' % i).decode())\n"
	"    c = a.get_content()\n"
	"    if isinstance(c, str):\n"
	"        c = c.replace('\\r\\n', '\\n').encode()\n"
	"    check('data %d' % i, c, rd('att%d.data' % i))\n"
	"if bad:\n"
	"    print('\\n'.join(bad))\n"
	"sys.exit(1 if bad else 0)\n";

static void write_mailboxes(const char *dir, const char *name, const char *const *list,
			    size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%s\n", list[i]);
	write_in(dir, name, sb.buf, sb.len);
	strbuf_release(&sb);
}

/*
 * Render m, let Python parse it, and compare what it decodes with what
 * went in. `from`, `to`, `cc`: "display name\taddress" lines as a reader
 * sees them.
 */
static void python_round_trip(const struct mime_message *m, const char *const *from,
			      const char *const *to, const char *const *cc)
{
	char *dir = xstrdup("/tmp/lkprobot-test-mime.XXXXXX"), *cmd;
	struct strbuf out = STRBUF_INIT, sb = STRBUF_INIT;
	int st;

	if (!mkdtemp(dir))
		fail_msg("mkdtemp: %s", strerror(errno));
	render_ok(m, &out);
	write_in(dir, "msg.eml", out.buf, out.len);
	write_str_in(dir, "check.py", py_check);
	write_str_in(dir, "subject", m->subject ? m->subject : "");
	write_str_in(dir, "message-id", m->message_id ? m->message_id : "");
	strbuf_addf(&sb, "%lld", (long long)m->date);
	write_str_in(dir, "date", sb.buf);
	write_mailboxes(dir, "from", from, 1);
	write_mailboxes(dir, "to", to, m->nto);
	write_mailboxes(dir, "cc", cc, m->ncc);
	write_mailboxes(dir, "extra", m->extra_headers, m->nextra);
	strbuf_reset(&sb);
	strbuf_addstr(&sb, m->body ? m->body : "");
	if (!m->natt && sb.len && sb.buf[sb.len - 1] != '\n')
		strbuf_addch(&sb, '\n');	/* a single part ends with a line end */
	write_in(dir, "body", sb.buf, sb.len);
	strbuf_setf(&sb, "%zu", m->natt);
	write_str_in(dir, "natt", sb.buf);
	for (size_t i = 0; i < m->natt; i++) {
		strbuf_setf(&sb, "att%zu.name", i);
		write_str_in(dir, sb.buf, m->att[i].name);
		strbuf_setf(&sb, "att%zu.data", i);
		write_in(dir, sb.buf, m->att[i].data, m->att[i].len);
	}
	cmd = xasprintf("python3 %s/check.py %s", dir, dir);
	st = system(cmd);
	free(cmd);
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		fail_msg("python3's email package disagrees (message in %s)", dir);
	rm_rf(dir);
	strbuf_release(&out);
	strbuf_release(&sb);
}

static void test_mime_python_round_trip(void **state)
{
	static const char *const robot[] = { "kernel test robot\tlkp@example.org" };
	static const char *const dan[] = { "Dan Williams\tdan.j.williams@intel.com" };
	static const char *const joerg[] = { "Jörg Rödel\tjoro@8bytes.org" };
	static const char *const plain_cc[] = { "H. Peter Anvin\thpa@zytor.com", "\tlkp@intel.com" };
	static const char *const huang[] = { "Huang, Ying\tying.huang@intel.com" };
	struct strbuf body = STRBUF_INIT;
	struct mime_message m;
	struct mime_attachment att[3];
	(void)state;

	if (system("python3 -c 'import email.policy' >/dev/null 2>&1")) {
		print_message("python3 with the email package not found: round trip skipped\n");
		skip();
	}
	for (int crlf = 0; crlf < 2; crlf++) {
		report_message(&m);
		m.lf = !crlf;
		python_round_trip(&m, robot, dan, kernel_cc_parsed);

		plain_message(&m);
		m.lf = !crlf;
		python_round_trip(&m, robot, joerg, plain_cc);

		reply_message(&m);
		m.lf = !crlf;
		python_round_trip(&m, robot, huang, NULL);
	}

	/* everything at once: QP body, long subject, RFC 2231 names, B words */
	strbuf_reset(&body);
	for (int i = 0; i < 2000; i++)
		strbuf_addch(&body, "ab cd=ef\tgh"[i % 11]);
	strbuf_addstr(&body, "\nzweite Zeile: äöü \n\n");
	init_xz();
	att[0] = (struct mime_attachment){ "Übersicht über die Ergebnisse der Leistungsmessung "
					   "für den Kernel.txt",
					   "text/plain", "ä\nö\n", 6 };
	att[1] = (struct mime_attachment){ "dmesg.xz", "application/x-xz", report_xz, sizeof(report_xz) };
	att[2] = (struct mime_attachment){ "性能.json", "application/json", "{}\n", 3 };
	plain_message(&m);
	m.subject = "内存分配性能回归，内存分配性能回归，内存分配性能回归 — Größe ändert sich nicht, "
		    "völlig überraschend für alle Beteiligten, =?UTF-8?Q?x?= literally";
	m.body = body.buf;
	m.att = att;
	m.natt = 3;
	m.lf = false;
	python_round_trip(&m, robot, joerg, plain_cc);
	strbuf_release(&body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mime_date),
		cmocka_unit_test(test_mime_message_id),
		cmocka_unit_test(test_mime_golden_plain),
		cmocka_unit_test(test_mime_golden_report),
		cmocka_unit_test(test_mime_golden_reply),
		cmocka_unit_test(test_mime_crlf),
		cmocka_unit_test(test_mime_cc_folding),
		cmocka_unit_test(test_mime_long_mailbox),
		cmocka_unit_test(test_mime_rfc2047_name_and_subject),
		cmocka_unit_test(test_mime_subject_folding),
		cmocka_unit_test(test_mime_quoted_names),
		cmocka_unit_test(test_mime_long_line_qp),
		cmocka_unit_test(test_mime_binary_base64),
		cmocka_unit_test(test_mime_text_attachment_encodings),
		cmocka_unit_test(test_mime_rfc2231_filename),
		cmocka_unit_test(test_mime_deterministic),
		cmocka_unit_test(test_mime_boundary_not_in_content),
		cmocka_unit_test(test_mime_bad_addresses),
		cmocka_unit_test(test_mime_other_errors),
		cmocka_unit_test(test_mime_headers),
		cmocka_unit_test(test_mime_python_round_trip),
	};
	find_fixtures();
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: mail/smtp against a real SMTP server (tests/fixtures/smtp/
 * smtpd.py, Debian's python3-aiosmtpd): plain, STARTTLS, smtps, AUTH,
 * certificate checks, 4xx/5xx replies, dead servers and refused inputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/util/strbuf.h"
#include "../../mail/mime.h"
#include "../../mail/smtp.h"

#define PYTHON "/usr/bin/python3"
#define USER "robot"
#define PASSWORD "s3cr:t p@ss%41"

/* ---- helpers ---------------------------------------------------------- */

static char smtpd_py[4096];
static bool have_aiosmtpd;
static char *cert_dir;		/* made once: good.pem/key, other.pem/key, wrongname.pem/key */

/* One test: its directory, spool and server. */
struct srv {
	char *dir;
	char *spool;
	pid_t pid;
	int port;
};

static void find_smtpd(void)
{
	char dir[4000];

	testlib_fixture_dir(dir, sizeof(dir), "smtp");
	snprintf(smtpd_py, sizeof(smtpd_py), "%s/smtpd.py", dir);
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(p);
}

static void rm_rf(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *make_tmpdir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/test-smtp.XXXXXX", tmp && *tmp ? tmp : "/tmp");

	if (!mkdtemp(dir))
		fail_msg("mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

/* A port on 127.0.0.1 that nobody listens on right now. */
static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}

/* A socket on 127.0.0.1 that accepts connections (in the kernel) and never says a word. */
static int mute_listener(int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* Whether anyone connected to the listener. */
static bool was_connected(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static bool port_answers(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	bool ok;

	assert_true(fd >= 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return ok;
}

static void need_aiosmtpd(void)
{
	if (!have_aiosmtpd) {
		print_message(PYTHON " cannot import aiosmtpd (apt-get install python3-aiosmtpd): skipped\n");
		skip();
	}
}

/* Start smtpd.py with `args` (NULL-terminated) and wait until its port answers. */
static void start_server(struct srv *s, const char *const *args)
{
	const char *argv[40];
	char port[16];
	size_t n = 0;
	struct timespec nap = { 0, 20 * 1000 * 1000 };

	need_aiosmtpd();
	s->port = free_port();
	snprintf(port, sizeof(port), "%d", s->port);
	argv[n++] = PYTHON;
	argv[n++] = smtpd_py;
	argv[n++] = "--port";
	argv[n++] = port;
	argv[n++] = "--spool";
	argv[n++] = s->spool;
	for (; args && *args; args++) {
		assert_true(n < ARRAY_SIZE(argv) - 1);
		argv[n++] = *args;
	}
	argv[n] = NULL;
	fflush(NULL);
	s->pid = fork();
	assert_true(s->pid >= 0);
	if (!s->pid) {
		execv(PYTHON, (char *const *)argv);
		fprintf(stderr, "exec %s: %s\n", PYTHON, strerror(errno));
		_exit(127);
	}
	for (int i = 0; i < 1000; i++) {	/* 20 s */
		int st;

		if (port_answers(s->port))
			return;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->pid = 0;
			fail_msg("smtpd.py exited (status %d) before listening", st);
		}
		nanosleep(&nap, NULL);
	}
	fail_msg("smtpd.py does not listen on port %d after 20 s", s->port);
}

static void stop_server(struct srv *s)
{
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
}

static int setup(void **state)
{
	struct srv *s = xcalloc(1, sizeof(*s));

	s->dir = make_tmpdir();
	s->spool = xasprintf("%s/spool", s->dir);
	if (mkdir(s->spool, 0755))
		return -1;
	*state = s;
	return 0;
}

static int teardown(void **state)
{
	struct srv *s = *state;

	stop_server(s);
	rm_rf(s->dir);
	free(s->dir);
	free(s->spool);
	free(s);
	return 0;
}

/* Self-signed certificates for 127.0.0.1/localhost (good, other) and for another host. */
static const struct {
	const char *name, *san;
} certs[] = {
	{ "good", "DNS:localhost,IP:127.0.0.1" },
	{ "other", "DNS:localhost,IP:127.0.0.1" },
	{ "wrongname", "DNS:mail.example.org" },
};
static char cert_path[ARRAY_SIZE(certs)][2][4200];	/* [cert][0: .pem, 1: .key] */

static void make_certs(void)
{
	if (cert_dir)
		return;
	cert_dir = make_tmpdir();
	for (size_t i = 0; i < ARRAY_SIZE(certs); i++) {
		char *cmd;
		int st;

		snprintf(cert_path[i][0], sizeof(cert_path[i][0]), "%s/%s.pem", cert_dir, certs[i].name);
		snprintf(cert_path[i][1], sizeof(cert_path[i][1]), "%s/%s.key", cert_dir, certs[i].name);
		cmd = xasprintf("openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 "
				"-nodes -days 2 -subj /CN=lkprobot-test-%s -addext subjectAltName=%s "
				"-out %s -keyout %s >/dev/null 2>&1",
				certs[i].name, certs[i].san, cert_path[i][0], cert_path[i][1]);
		st = system(cmd);
		free(cmd);
		if (st)
			fail_msg("openssl cannot make a certificate (apt-get install openssl)");
	}
}

/* The certificate (ext "pem") or key ("key") file of `name`. */
static const char *cert(const char *name, const char *ext)
{
	need_aiosmtpd();	/* skip before making certificates nobody will use */
	make_certs();
	for (size_t i = 0; i < ARRAY_SIZE(certs); i++)
		if (!strcmp(certs[i].name, name))
			return cert_path[i][!strcmp(ext, "key")];
	fail_msg("no certificate '%s'", name);
	return NULL;
}

/* Start a server with STARTTLS (or smtps) offered with certificate `name`, plus `more` args. */
static void start_tls_server(struct srv *s, const char *name, bool implicit,
			     const char *const *more)
{
	const char *args[30] = { "--tls-cert", NULL, "--tls-key", NULL };
	size_t n = 4;

	need_aiosmtpd();
	args[1] = cert(name, "pem");
	args[3] = cert(name, "key");
	if (implicit)
		args[n++] = "--implicit-tls";
	for (; more && *more; more++)
		args[n++] = *more;
	args[n] = NULL;
	start_server(s, args);
}

static int count_messages(const struct srv *s)
{
	DIR *d = opendir(s->spool);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* A file of spooled message `n` (freed by the caller). */
static char *spooled(const struct srv *s, int n, const char *file, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;
	char *p = xasprintf("%s/%d/%s", s->spool, n, file);

	if (strbuf_read_file(&sb, p))
		fail_msg("cannot read %s: %s", p, strerror(errno));
	free(p);
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb);
}

static void assert_spooled(const struct srv *s, int n, const char *file, const char *want)
{
	char *got = spooled(s, n, file, NULL);

	assert_string_equal(got, want);
	free(got);
}

static void assert_contains(const char *s, const char *want)
{
	if (!strstr(s, want))
		fail_msg("'%s' does not contain '%s'", s, want);
}

static struct smtp_config config(const struct srv *s, char *url_buf, size_t n)
{
	snprintf(url_buf, n, "smtp://127.0.0.1:%d", s->port);
	return (struct smtp_config){
		.url = url_buf,
		.tls = SMTP_TLS_NONE,
		.connect_timeout = 5,
		.timeout = 20,
		.helo = "robot.example.org",
	};
}

static const char *const one_rcpt[] = { "lkp@example.org" };
static const char small_msg[] = "From: lkp@example.org\r\nTo: lkp@example.org\r\n"
				"Subject: test\r\n\r\nHello.\r\n";

/* Send small_msg to one_rcpt; the result, why in `why`. */
static enum smtp_result send_small(const struct smtp_config *c, struct strbuf *why)
{
	strbuf_reset(why);
	return smtp_send(c, "robot@example.org", one_rcpt, 1, small_msg, strlen(small_msg), why);
}

static void assert_sent(enum smtp_result r, const struct strbuf *why)
{
	if (r != SMTP_SENT)
		fail_msg("not sent (%d): %s", (int)r, why->buf);
}

static void assert_failed(enum smtp_result r, enum smtp_result want, const struct strbuf *why)
{
	if (r != want)
		fail_msg("result %d, expected %d (why: '%s')", (int)r, (int)want, why->buf);
	if (!why->len || strchr(why->buf, '\n') || strchr(why->buf, '\r'))
		fail_msg("why is not one line: '%s'", why->buf);
}

/* ---- delivery --------------------------------------------------------- */

static void test_smtp_plain(void **state)
{
	static const char *const to[] = { "Jörg Rödel <joro@8bytes.org>" };
	static const char *const cc[] = { "lkp@intel.com" };
	static const char *const rcpt[] = { "joro@8bytes.org", "lkp@intel.com" };
	struct srv *s = *state;
	struct mime_message m = {
		.from = "kernel test robot <lkp@example.org>",
		.to = to,
		.nto = 1,
		.cc = cc,
		.ncc = 1,
		.subject = "[linux-next:master] [mm] 0123456789: vm-scalability.throughput -12.3% regression",
		.date = 1706790896,
		.message_id = "<202402011234.00c0ffee-lkprobot@example.org>",
		.body = "Hello,\n\nkernel test robot noticed a -12.3% regression.\n\n.\n..\n",
	};
	struct strbuf msg = STRBUF_INIT, why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	char *data;
	size_t len;

	start_server(s, NULL);
	c = config(s, url, sizeof(url));
	assert_int_equal(mime_render(&m, &msg, &why), 0);
	assert_sent(smtp_send(&c, "lkp@example.org", rcpt, 2, msg.buf, msg.len, &why), &why);
	assert_int_equal(count_messages(s), 1);
	data = spooled(s, 1, "data", &len);
	assert_int_equal(len, msg.len);
	assert_memory_equal(data, msg.buf, len);
	free(data);
	assert_spooled(s, 1, "from", "lkp@example.org");
	assert_spooled(s, 1, "rcpt", "joro@8bytes.org\nlkp@intel.com\n");
	assert_spooled(s, 1, "tls", "0");
	assert_spooled(s, 1, "auth", "");
	assert_spooled(s, 1, "helo", "robot.example.org");
	strbuf_release(&msg);
	strbuf_release(&why);
}

static void test_smtp_dot_lines(void **state)
{
	static const char tricky[] = ".starts with a dot\r\nSubject: dots\r\n\r\n"
				     ".\r\n..\r\n...\r\n.x\r\nx.\r\n\r\n.\r\n\r\n. \r\n.\r\n";
	struct srv *s = *state;
	struct strbuf big = STRBUF_INIT, why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	char *data;
	size_t len;

	start_server(s, NULL);
	c = config(s, url, sizeof(url));
	assert_sent(smtp_send(&c, "robot@example.org", one_rcpt, 1, tricky, strlen(tricky), &why), &why);

	/* lines of every length up to 997 with dot lines between them, so that
	 * "\r\n." falls on every offset of libcurl's upload buffers */
	strbuf_addstr(&big, "Subject: many dots\r\n\r\n");
	for (int i = 0; big.len < 600 * 1024; i++) {
		for (int k = 0; k < i % 997; k++)
			strbuf_addch(&big, k ? 'a' + k % 26 : '.');
		strbuf_addstr(&big, i % 3 ? "\r\n" : "\r\n.\r\n");
	}
	assert_sent(smtp_send(&c, "robot@example.org", one_rcpt, 1, big.buf, big.len, &why), &why);

	assert_int_equal(count_messages(s), 2);
	data = spooled(s, 1, "data", &len);
	assert_int_equal(len, strlen(tricky));
	assert_memory_equal(data, tricky, len);
	free(data);
	data = spooled(s, 2, "data", &len);
	assert_int_equal(len, big.len);
	assert_memory_equal(data, big.buf, len);
	free(data);
	strbuf_release(&big);
	strbuf_release(&why);
}

/* ---- TLS -------------------------------------------------------------- */

static void test_smtp_starttls_required(void **state)
{
	static const char *const require[] = { "--require-tls", NULL };
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *ca = cert("good", "pem");

	start_tls_server(s, "good", false, require);
	c = config(s, url, sizeof(url));
	c.tls = SMTP_TLS_REQUIRED;
	c.ca_file = ca;
	assert_sent(send_small(&c, &why), &why);
	assert_int_equal(count_messages(s), 1);
	assert_spooled(s, 1, "tls", "1");
	assert_spooled(s, 1, "data", small_msg);
	strbuf_release(&why);
}

static void test_smtp_starttls_not_offered(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];

	start_server(s, NULL);
	c = config(s, url, sizeof(url));
	c.tls = SMTP_TLS_REQUIRED;
	assert_failed(send_small(&c, &why), SMTP_PERMANENT, &why);
	assert_contains(why.buf, "STARTTLS");
	assert_int_equal(count_messages(s), 0);
	strbuf_release(&why);
}

static void test_smtp_tls_try(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *ca = cert("good", "pem");

	/* a plain server: delivered in the clear */
	start_server(s, NULL);
	c = config(s, url, sizeof(url));
	c.tls = SMTP_TLS_TRY;
	assert_sent(send_small(&c, &why), &why);
	assert_spooled(s, 1, "tls", "0");
	stop_server(s);

	/* a server with STARTTLS: used; SMTP_TLS_NONE does not use it */
	start_tls_server(s, "good", false, NULL);
	c = config(s, url, sizeof(url));
	c.tls = SMTP_TLS_TRY;
	c.ca_file = ca;
	assert_sent(send_small(&c, &why), &why);
	assert_spooled(s, 2, "tls", "1");
	c.tls = SMTP_TLS_NONE;
	assert_sent(send_small(&c, &why), &why);
	assert_spooled(s, 3, "tls", "0");
	assert_int_equal(count_messages(s), 3);
	strbuf_release(&why);
}

static void test_smtp_smtps(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *ca = cert("good", "pem");

	start_tls_server(s, "good", true, NULL);
	c = config(s, url, sizeof(url));
	snprintf(url, sizeof(url), "smtps://127.0.0.1:%d", s->port);
	c.tls = SMTP_TLS_NONE;		/* smtps is TLS whatever this says */
	c.ca_file = ca;
	c.helo = "[127.0.0.1]";
	assert_sent(send_small(&c, &why), &why);
	assert_int_equal(count_messages(s), 1);
	assert_spooled(s, 1, "tls", "1");
	assert_spooled(s, 1, "helo", "[127.0.0.1]");
	assert_spooled(s, 1, "data", small_msg);
	strbuf_release(&why);
}

static void test_smtp_wrong_ca(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *other = cert("other", "pem"), *good = cert("good", "pem");

	start_tls_server(s, "good", false, NULL);
	c = config(s, url, sizeof(url));
	c.ca_file = other;
	c.tls = SMTP_TLS_REQUIRED;
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	assert_contains(why.buf, "certificate");
	/* trying TLS does not mean trusting anybody */
	c.tls = SMTP_TLS_TRY;
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	/* the system's CA store does not know our certificate either */
	c.ca_file = NULL;
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	assert_int_equal(count_messages(s), 0);
	/* and with the right CA it goes (the test above can fail) */
	c.ca_file = good;
	assert_sent(send_small(&c, &why), &why);
	assert_int_equal(count_messages(s), 1);
	strbuf_release(&why);
}

static void test_smtp_wrong_host_name(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *ca = cert("wrongname", "pem");

	/* a trusted certificate, but for mail.example.org, not 127.0.0.1 */
	start_tls_server(s, "wrongname", false, NULL);
	c = config(s, url, sizeof(url));
	c.ca_file = ca;
	c.tls = SMTP_TLS_REQUIRED;
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	assert_contains(why.buf, "127.0.0.1");
	assert_int_equal(count_messages(s), 0);
	strbuf_release(&why);
}

/* ---- AUTH ------------------------------------------------------------- */

static void auth_delivers(struct srv *s, const char *mech)
{
	const char *args[] = { "--auth", USER ":" PASSWORD, "--auth-mech", mech, NULL };
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *ca = cert("good", "pem");
	char want[64];

	snprintf(want, sizeof(want), "%s " USER, mech);
	start_tls_server(s, "good", false, args);
	c = config(s, url, sizeof(url));
	c.tls = SMTP_TLS_REQUIRED;
	c.ca_file = ca;
	c.user = USER;
	c.password = PASSWORD;
	assert_sent(send_small(&c, &why), &why);
	assert_int_equal(count_messages(s), 1);
	assert_spooled(s, 1, "auth", want);
	assert_spooled(s, 1, "tls", "1");
	stop_server(s);
	strbuf_release(&why);
}

static void test_smtp_auth_plain(void **state)
{
	auth_delivers(*state, "PLAIN");
}

static void test_smtp_auth_login(void **state)
{
	auth_delivers(*state, "LOGIN");
}

static void test_smtp_auth_refused(void **state)
{
	static const char *const args[] = { "--auth", USER ":" PASSWORD, NULL };
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	const char *ca = cert("good", "pem");

	start_tls_server(s, "good", false, args);
	c = config(s, url, sizeof(url));
	c.tls = SMTP_TLS_REQUIRED;
	c.ca_file = ca;
	c.user = USER;
	c.password = "wrong password";
	assert_failed(send_small(&c, &why), SMTP_PERMANENT, &why);
	assert_contains(why.buf, "535");
	assert_contains(why.buf, "AUTH");
	if (strstr(why.buf, "wrong password"))
		fail_msg("the password is in why: %s", why.buf);
	/* no AUTH at all: the server wants it */
	c.user = NULL;
	assert_failed(send_small(&c, &why), SMTP_PERMANENT, &why);
	assert_contains(why.buf, "530");
	assert_int_equal(count_messages(s), 0);
	strbuf_release(&why);
}

/* ---- server replies --------------------------------------------------- */

static void test_smtp_rcpt_451(void **state)
{
	static const char *const args[] = { "--rcpt-reply", "451 4.3.0 Try again later", NULL };
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];

	start_server(s, args);
	c = config(s, url, sizeof(url));
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	assert_contains(why.buf, "said: 451 4.3.0 Try again later (in reply to RCPT TO:<lkp@example.org>)");
	assert_int_equal(count_messages(s), 0);
	strbuf_release(&why);
}

static void test_smtp_rcpt_550(void **state)
{
	static const char *const args[] = {
		"--rcpt-reply-for", "nobody@example.org",
		"550 5.1.1 <nobody@example.org>: Recipient address rejected", NULL
	};
	static const char *const rcpt[] = { "lkp@example.org", "nobody@example.org", "x@example.org" };
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];

	start_server(s, args);
	c = config(s, url, sizeof(url));
	assert_failed(smtp_send(&c, "robot@example.org", rcpt, 3, small_msg, strlen(small_msg), &why),
		      SMTP_PERMANENT, &why);
	assert_contains(why.buf, "550 5.1.1 <nobody@example.org>: Recipient address rejected");
	/* all or nothing: the good recipient did not get it either */
	assert_int_equal(count_messages(s), 0);
	/* the same server delivers to the others */
	assert_sent(smtp_send(&c, "robot@example.org", rcpt, 1, small_msg, strlen(small_msg), &why), &why);
	assert_int_equal(count_messages(s), 1);
	strbuf_release(&why);
}

static void data_reply(struct srv *s, const char *reply, enum smtp_result want)
{
	const char *args[] = { "--data-reply", reply, NULL };
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];

	start_server(s, args);
	c = config(s, url, sizeof(url));
	assert_failed(send_small(&c, &why), want, &why);
	assert_contains(why.buf, reply);
	assert_contains(why.buf, "(in reply to end of DATA)");
	assert_int_equal(count_messages(s), 0);
	stop_server(s);
	strbuf_release(&why);
}

static void test_smtp_data_451(void **state)
{
	data_reply(*state, "451 4.7.1 Greylisted, try again in 5 minutes", SMTP_TEMPORARY);
}

static void test_smtp_data_554(void **state)
{
	data_reply(*state, "554 5.7.1 Message rejected as spam", SMTP_PERMANENT);
}

/* ---- the server has it, the client cannot know ----------------------- */

/* A server that spools the message and then drops the connection or says nothing: in doubt, never "temporary". */
static void after_dot(struct srv *s, const char *mode, long timeout)
{
	const char *args[] = { "--after-dot", mode, NULL };
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	time_t t0;

	start_server(s, args);
	c = config(s, url, sizeof(url));
	c.timeout = timeout;
	t0 = time(NULL);
	assert_failed(send_small(&c, &why), SMTP_IN_DOUBT, &why);
	print_message("%s after the dot: %ld s, %s\n", mode, (long)(time(NULL) - t0), why.buf);
	/* the configured timeout holds for the answer to the final dot too */
	assert_true(time(NULL) - t0 <= timeout + 2);
	assert_contains(why.buf, "the message went out and the server's answer to its end never came");
	assert_int_equal(count_messages(s), 1);
	stop_server(s);
	strbuf_release(&why);
}

static void test_smtp_drop_after_dot(void **state)
{
	after_dot(*state, "drop", 20);
}

static void test_smtp_stall_after_dot(void **state)
{
	after_dot(*state, "stall", 3);
}

static int refuse_data(void *ctx, struct strbuf *why)
{
	(*(int *)ctx)++;
	strbuf_setf(why, "store 'x.db': database or disk is full");
	return -1;
}

/* on_data says no: the transaction stops before any byte of the message leaves. */
static void test_smtp_on_data_refuses(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	int calls = 0;

	start_server(s, NULL);
	c = config(s, url, sizeof(url));
	c.on_data = refuse_data;
	c.ctx = &calls;
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	assert_int_equal(calls, 1);
	assert_string_equal(why.buf, "not sent (nothing of it left): store 'x.db': database or disk is full");
	assert_int_equal(count_messages(s), 0);
	/* and the server can still take one: it was not left with half a message */
	c.on_data = NULL;
	assert_sent(send_small(&c, &why), &why);
	assert_int_equal(count_messages(s), 1);
	stop_server(s);
	strbuf_release(&why);
}

/* ---- no server -------------------------------------------------------- */

static void test_smtp_nothing_listening(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64], *want;

	s->port = free_port();
	c = config(s, url, sizeof(url));
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	want = xasprintf("connect to 127.0.0.1:%d: Connection refused", s->port);
	assert_string_equal(why.buf, want);
	free(want);
	strbuf_release(&why);
}

static void test_smtp_silent_server(void **state)
{
	struct srv *s = *state;
	struct strbuf why = STRBUF_INIT;
	struct smtp_config c;
	char url[64];
	int fd = mute_listener(&s->port);
	time_t t0 = time(NULL);

	c = config(s, url, sizeof(url));
	c.timeout = 1;
	assert_failed(send_small(&c, &why), SMTP_TEMPORARY, &why);
	assert_contains(why.buf, "timed out");
	assert_true(time(NULL) - t0 < 10);
	close(fd);
	strbuf_release(&why);
}

/* ---- refused inputs --------------------------------------------------- */

static void refused(const struct smtp_config *c, int fd, const char *from,
		    const char *const *rcpt, size_t n, const char *data, const char *want)
{
	struct strbuf why = STRBUF_INIT;

	assert_failed(smtp_send(c, from, rcpt, n, data, strlen(data), &why), SMTP_PERMANENT, &why);
	if (strcmp(why.buf, want))
		fail_msg("why '%s', expected '%s'", why.buf, want);
	if (was_connected(fd))
		fail_msg("connected although '%s'", want);
	strbuf_release(&why);
}

static void test_smtp_bad_addresses(void **state)
{
	static const char *const crlf[] = { "lkp@example.org", "x@example.org\r\nDATA" };
	static const char *const lf[] = { "x@example.org\nRSET" };
	static const char *const angle[] = { "<x@example.org>" };
	static const char *const named[] = { "Someone <x@example.org>" };
	static const char *const noat[] = { "postmaster" };
	static const char *const twoat[] = { "a@b@example.org" };
	static const char *const empty[] = { "" };
	static const char *const utf8[] = { "jörg@example.org" };
	struct srv *s = *state;
	struct smtp_config c;
	char url[64];
	int fd = mute_listener(&s->port);

	c = config(s, url, sizeof(url));
	c.timeout = 2;		/* if it did connect, do not hang */
	refused(&c, fd, "robot@example.org", crlf, 2, small_msg,
		"invalid recipient address 'x@example.org\\r\\nDATA': control character (CR, LF, ...) in the address");
	refused(&c, fd, "robot@example.org", lf, 1, small_msg,
		"invalid recipient address 'x@example.org\\nRSET': control character (CR, LF, ...) in the address");
	refused(&c, fd, "robot@example.org\r\n", one_rcpt, 1, small_msg,
		"invalid sender address 'robot@example.org\\r\\n': control character (CR, LF, ...) in the address");
	refused(&c, fd, "robot@example.org", angle, 1, small_msg,
		"invalid recipient address '<x@example.org>': '<' or '>' (give the bare address, without a display name)");
	refused(&c, fd, "robot@example.org>", one_rcpt, 1, small_msg,
		"invalid sender address 'robot@example.org>': '<' or '>' (give the bare address, without a display name)");
	refused(&c, fd, "robot@example.org", named, 1, small_msg,
		"invalid recipient address 'Someone <x@example.org>': space in the address");
	refused(&c, fd, "robot@example.org", noat, 1, small_msg,
		"invalid recipient address 'postmaster': no '@'");
	refused(&c, fd, "robot@example.org", twoat, 1, small_msg,
		"invalid recipient address 'a@b@example.org': more than one '@'");
	refused(&c, fd, "robot@example.org", empty, 1, small_msg, "empty recipient address");
	refused(&c, fd, "", one_rcpt, 1, small_msg, "empty sender address");
	refused(&c, fd, "robot@example.org", utf8, 1, small_msg,
		"invalid recipient address 'j\\xc3\\xb6rg@example.org': non-ASCII character (SMTPUTF8 is not supported)");
	refused(&c, fd, "robot@example.org", one_rcpt, 0, small_msg, "no recipients");
	close(fd);
}

static void test_smtp_bad_messages(void **state)
{
	struct srv *s = *state;
	struct smtp_config c;
	char url[64];
	int fd = mute_listener(&s->port);

	c = config(s, url, sizeof(url));
	c.timeout = 2;
	refused(&c, fd, "robot@example.org", one_rcpt, 1, "Subject: x\r\n\r\nbare\n.\nLF\r\n",
		"invalid message: bare LF at offset 18 (SMTP needs CRLF line ends)");
	refused(&c, fd, "robot@example.org", one_rcpt, 1, "Subject: x\r\n\r\nbare\r.\r\n",
		"invalid message: bare CR at offset 18 (SMTP needs CRLF line ends)");
	refused(&c, fd, "robot@example.org", one_rcpt, 1, "Subject: x\r\n\r\nno line end",
		"invalid message: does not end with CRLF");
	refused(&c, fd, "robot@example.org", one_rcpt, 1, "", "invalid message: empty");
	close(fd);
}

static void test_smtp_bad_config(void **state)
{
	struct srv *s = *state;
	struct smtp_config c;
	char url[64], *u, *want;
	int fd = mute_listener(&s->port);

	c = config(s, url, sizeof(url));
	c.timeout = 2;
	c.helo = "robot example";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid EHLO name 'robot example': only letters, digits, '-' and '.' are allowed in a host name");
	c.helo = "robot.example.org\r\nRSET";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid EHLO name 'robot.example.org\\r\\nRSET': only letters, digits, '-' and '.' are allowed in a host name");
	c.helo = "[192.0.2.1]";
	c.url = "http://127.0.0.1/";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid SMTP URL 'http://127.0.0.1/': the scheme must be smtp or smtps");
	/* the URL is shown in why, but never a password in it */
	c.url = "smtp://robot:hunter2@127.0.0.1";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid SMTP URL 'smtp://***@127.0.0.1': "
		"a user name or password belongs in user and password, not in the URL");
	c.url = "smtp://127.0.0.1/?x=y";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid SMTP URL 'smtp://127.0.0.1/?x=y': no query allowed");
	c.url = "smtp://robot:hunter2@127.0.0.1:99999";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid SMTP URL 'smtp://***@127.0.0.1:99999': "
		"Port number was not a decimal number between 0 and 65535");
	c.url = "ftp://robot:hunter2/@x@127.0.0.1/";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid SMTP URL 'ftp://***@127.0.0.1/': "
		"Port number was not a decimal number between 0 and 65535");
	c.url = "ftp://robot:hunter2@127.0.0.1/";
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg,
		"invalid SMTP URL 'ftp://***@127.0.0.1/': the scheme must be smtp or smtps");
	u = xasprintf("smtp://127.0.0.1:%d/robot.example.org", s->port);
	want = xasprintf("invalid SMTP URL '%s': no path allowed (the EHLO name is helo)", u);
	c.url = u;
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg, want);
	free(want);
	free(u);
	c.url = url;
	c.timeout = -1;
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg, "negative SMTP timeout");
	c.timeout = 2;
	c.tls = (enum smtp_tls)7;
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg, "invalid SMTP TLS mode 7");
	c.url = NULL;
	c.tls = SMTP_TLS_NONE;
	refused(&c, fd, "robot@example.org", one_rcpt, 1, small_msg, "no SMTP URL");
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_smtp_plain),
		T(test_smtp_dot_lines),
		T(test_smtp_starttls_required),
		T(test_smtp_starttls_not_offered),
		T(test_smtp_tls_try),
		T(test_smtp_smtps),
		T(test_smtp_wrong_ca),
		T(test_smtp_wrong_host_name),
		T(test_smtp_auth_plain),
		T(test_smtp_auth_login),
		T(test_smtp_auth_refused),
		T(test_smtp_rcpt_451),
		T(test_smtp_rcpt_550),
		T(test_smtp_data_451),
		T(test_smtp_data_554),
		T(test_smtp_drop_after_dot),
		T(test_smtp_stall_after_dot),
		T(test_smtp_on_data_refuses),
		T(test_smtp_nothing_listening),
		T(test_smtp_silent_server),
		T(test_smtp_bad_addresses),
		T(test_smtp_bad_messages),
		T(test_smtp_bad_config),
#undef T
	};
	int ret;

	find_smtpd();
	have_aiosmtpd = !system(PYTHON " -c 'import aiosmtpd.smtp' >/dev/null 2>&1");
	signal(SIGPIPE, SIG_IGN);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	if (cert_dir) {
		rm_rf(cert_dir);
		free(cert_dir);
	}
	return ret;
}

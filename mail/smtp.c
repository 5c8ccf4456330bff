/*
 * smtp: one message, one SMTP transaction, through libcurl; inputs checked
 * before anything reaches the wire, failures sorted into retry or give up.
 */
#include "smtp.h"
#include "../lib/sys/dynlib.h"

/* the type-checking macros of curl.h would expand inside cu.curl_easy_setopt(...) */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

/* The libcurl functions this file calls, loaded on first use (dynlib.h). */
/* clang-format off */
#define CURL_API(X) \
	X(curl_easy_cleanup) \
	X(curl_easy_getinfo) \
	X(curl_easy_init) \
	X(curl_easy_perform) \
	X(curl_easy_setopt) \
	X(curl_easy_strerror) \
	X(curl_free) \
	X(curl_global_init) \
	X(curl_slist_append) \
	X(curl_slist_free_all) \
	X(curl_url) \
	X(curl_url_cleanup) \
	X(curl_url_get) \
	X(curl_url_set) \
	X(curl_url_strerror)
/* clang-format on */
static struct {
	CURL_API(DYNLIB_SLOT)
} cu;
#define CU_SYM(fn) DYNLIB_SYM(cu, fn)
static struct dynlib cu_lib = DYNLIB(LKP_SONAME_curl, "libcurl4", CURL_API(CU_SYM));

#define SMTP_CONNECT_TIMEOUT	10
#define SMTP_TIMEOUT		60
#define SMTP_MAX_ADDR		254	/* RFC 5321 4.5.3.1.3: a path is 256 with <> */
#define SMTP_MAX_REPLY		400	/* characters of a server reply kept for `why` */

static pthread_once_t smtp_once = PTHREAD_ONCE_INIT;
static CURLcode smtp_init_rc;

static void smtp_global_init(void)
{
	smtp_init_rc = cu.curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* One transfer: the message being read out, the server's replies seen. */
struct smtp_xfer {
	const char *data;
	size_t len, pos;
	const struct smtp_config *c;	/* its on_data hook */
	bool data_started;
	bool data_refused;	  /* on_data said no: nothing of the message left */
	struct strbuf hook_why;	  /* on_data's reason */
	bool end_answered;	  /* the server answered the end of DATA */
	struct timespec deadline; /* the configured timeout, for the whole transaction */
	bool past_deadline;
	int fd;			/* the connection's socket, -1 before it */
	char label[320];	/* the command the next reply answers */
	struct strbuf cur;	/* the reply being read: "550 text text" */
	struct strbuf last;	/* the last complete reply (QUIT's excepted) */
	char last_label[320];	/* what it answered ("" for the greeting) */
	long last_code;
	bool sasl;		/* the last reply was 334: the client's next line is a secret */
};

/* Append `s` (at most `max` bytes of it) with control and non-ASCII bytes escaped. */
static void smtp_quote(struct strbuf *sb, const char *s, size_t max)
{
	size_t i;

	for (i = 0; s[i] && i < max; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == '\r')
			strbuf_addstr(sb, "\\r");
		else if (ch == '\n')
			strbuf_addstr(sb, "\\n");
		else if (ch == '\t')
			strbuf_addstr(sb, "\\t");
		else if (ch < 0x20 || ch >= 0x7f)
			strbuf_addf(sb, "\\x%02x", ch);
		else
			strbuf_addch(sb, (char)ch);
	}
	if (s[i])
		strbuf_addstr(sb, "...");
}

/* 0 if `addr` is a bare addr-spec we can put between < and >; else -1 and why. */
static int smtp_check_address(const char *what, const char *addr, struct strbuf *why)
{
	const char *reason = NULL, *at = NULL;
	size_t i;

	if (!addr || !*addr) {
		strbuf_setf(why, "empty %s address", what);
		return -1;
	}
	for (i = 0; addr[i] && !reason; i++) {
		unsigned char ch = (unsigned char)addr[i];

		if (ch < 0x20 || ch == 0x7f)
			reason = "control character (CR, LF, ...) in the address";
		else if (ch >= 0x80)
			reason = "non-ASCII character (SMTPUTF8 is not supported)";
		else if (ch == '<' || ch == '>')
			reason = "'<' or '>' (give the bare address, without a display name)";
		else if (ch == ' ')
			reason = "space in the address";
		else if (ch == '@' && at)
			reason = "more than one '@'";
		else if (ch == '@')
			at = addr + i;
	}
	if (!reason) {
		if (i > SMTP_MAX_ADDR)
			reason = "longer than 254 octets";
		else if (!at)
			reason = "no '@'";
		else if (at == addr)
			reason = "empty local part";
		else if (!at[1])
			reason = "empty domain";
	}
	if (!reason)
		return 0;
	strbuf_setf(why, "invalid %s address '", what);
	smtp_quote(why, addr, 300);
	strbuf_addf(why, "': %s", reason);
	return -1;
}

/* CRLF line ends only, no NUL, a CRLF at the end: nothing for a server to misread. */
static int smtp_check_message(const char *data, size_t len, struct strbuf *why)
{
	if (!data || !len) {
		strbuf_setf(why, "invalid message: empty");
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\0') {
			strbuf_setf(why, "invalid message: NUL byte at offset %zu", i);
			return -1;
		}
		if (data[i] == '\r' && (i + 1 == len || data[i + 1] != '\n')) {
			strbuf_setf(why, "invalid message: bare CR at offset %zu "
				    "(SMTP needs CRLF line ends)", i);
			return -1;
		}
		if (data[i] == '\n' && (i == 0 || data[i - 1] != '\r')) {
			strbuf_setf(why, "invalid message: bare LF at offset %zu "
				    "(SMTP needs CRLF line ends)", i);
			return -1;
		}
	}
	if (data[len - 1] != '\n') {
		strbuf_setf(why, "invalid message: does not end with CRLF");
		return -1;
	}
	return 0;
}

/* A host name ("robot.example.org") or an address literal ("[192.0.2.1]"). */
static int smtp_check_helo(const char *helo, struct strbuf *why)
{
	const char *reason = NULL;
	size_t n = strlen(helo);

	if (!n || n > 253) {
		reason = n ? "longer than 253 characters" : "empty";
	} else if (helo[0] == '[') {
		if (helo[n - 1] != ']' || n < 3)
			reason = "an address literal must be [...]";
		for (size_t i = 1; i + 1 < n && !reason; i++)
			if (helo[i] <= ' ' || helo[i] >= 0x7f || strchr("[]\\", helo[i]))
				reason = "invalid character in the address literal";
	} else {
		for (size_t i = 0; i < n && !reason; i++) {
			char ch = helo[i];

			if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			      (ch >= '0' && ch <= '9') || ch == '-' || ch == '.'))
				reason = "only letters, digits, '-' and '.' are allowed "
					 "in a host name";
		}
	}
	if (!reason)
		return 0;
	strbuf_setf(why, "invalid EHLO name '");
	smtp_quote(why, helo, 300);
	strbuf_addf(why, "': %s", reason);
	return -1;
}

/*
 * Append the URL for a message, with everything between "://" and the last
 * '@' (a user and password, whatever they hold) replaced by ***.
 */
static void smtp_quote_url(struct strbuf *sb, const char *url)
{
	const char *auth = strstr(url, "://"), *at = strrchr(url, '@');

	if (auth) {
		auth += 3;
		if (at && at >= auth) {
			char *head = xstrndup(url, (size_t)(auth - url));

			smtp_quote(sb, head, 300);
			strbuf_addstr(sb, "***");
			smtp_quote(sb, at, 300);
			free(head);
			return;
		}
	}
	smtp_quote(sb, url, 300);
}

/*
 * Parse and check c->url into `u` (EHLO name as its path); host:port for
 * messages into `where`. 0, or -1 with why.
 */
static int smtp_parse_url(const struct smtp_config *c, CURLU *u, struct strbuf *where,
			  struct strbuf *why)
{
	static const struct {
		CURLUPart part;
		const char *why;
	} forbidden[] = {
		{ CURLUPART_USER, "a user name or password belongs in user and password, not in the URL" },
		{ CURLUPART_PASSWORD, "a user name or password belongs in user and password, not in the URL" },
		{ CURLUPART_OPTIONS, "no login options allowed" },
		{ CURLUPART_QUERY, "no query allowed" },
		{ CURLUPART_FRAGMENT, "no fragment allowed" },
	};
	char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL, *part = NULL;
	CURLUcode uc;
	int ret = -1;

	if (!c->url || !*c->url) {
		strbuf_setf(why, "no SMTP URL");
		return -1;
	}
	uc = cu.curl_url_set(u, CURLUPART_URL, c->url, CURLU_NON_SUPPORT_SCHEME);
	if (uc == CURLUE_OK)
		uc = cu.curl_url_get(u, CURLUPART_SCHEME, &scheme, 0);
	if (uc != CURLUE_OK) {
		strbuf_setf(why, "invalid SMTP URL '");
		smtp_quote_url(why, c->url);
		strbuf_addf(why, "': %s", cu.curl_url_strerror(uc));
		goto out;
	}
	if (strcmp(scheme, "smtp") && strcmp(scheme, "smtps")) {
		strbuf_setf(why, "invalid SMTP URL '");
		smtp_quote_url(why, c->url);
		strbuf_addstr(why, "': the scheme must be smtp or smtps");
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(forbidden); i++) {
		if (cu.curl_url_get(u, forbidden[i].part, &part, 0) == CURLUE_OK) {
			strbuf_setf(why, "invalid SMTP URL '");
			smtp_quote_url(why, c->url);
			strbuf_addf(why, "': %s", forbidden[i].why);
			goto out;
		}
	}
	if (cu.curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK && strcmp(path, "/") && *path) {
		strbuf_setf(why, "invalid SMTP URL '");
		smtp_quote_url(why, c->url);
		strbuf_addstr(why, "': no path allowed (the EHLO name is helo)");
		goto out;
	}
	if (cu.curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    cu.curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK) {
		strbuf_setf(why, "invalid SMTP URL '");
		smtp_quote_url(why, c->url);
		strbuf_addstr(why, "': no host");
		goto out;
	}
	strbuf_setf(where, "%s:%s", host, port);
	if (c->helo) {
		char *p;

		if (smtp_check_helo(c->helo, why))
			goto out;
		/* libcurl takes the EHLO name from the URL's path */
		p = xasprintf("/%s", c->helo);
		uc = cu.curl_url_set(u, CURLUPART_PATH, p, CURLU_URLENCODE);
		free(p);
		if (uc != CURLUE_OK) {
			strbuf_setf(why, "cannot set the EHLO name: %s", cu.curl_url_strerror(uc));
			goto out;
		}
	}
	ret = 0;
out:
	cu.curl_free(scheme);
	cu.curl_free(host);
	cu.curl_free(port);
	cu.curl_free(path);
	cu.curl_free(part);
	return ret;
}

static size_t smtp_read(char *buf, size_t size, size_t nitems, void *arg)
{
	struct smtp_xfer *x = arg;
	size_t n = size * nitems;

	if (!x->data_started) {
		x->data_started = true;
		/* nothing of the message has left yet: a state the caller cannot record stops it here */
		if (x->c->on_data && x->c->on_data(x->c->ctx, &x->hook_why)) {
			x->data_refused = true;
			return CURL_READFUNC_ABORT;
		}
	}
	if (n > x->len - x->pos)
		n = x->len - x->pos;
	if (n)
		memcpy(buf, x->data + x->pos, n);
	x->pos += n;
	return n;
}

/*
 * libcurl's own timeout does not hold for the answer to the final dot,
 * nor for the QUIT after it (measured, libcurl 7.88: 123 s with a timeout
 * of 3 s: its fixed 120 s for a server response). Past the deadline this
 * ends the transaction and shuts the connection down, so that the QUIT
 * fails at once instead of waiting for an answer.
 */
static int smtp_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
	struct smtp_xfer *x = arg;
	struct timespec now;
	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > x->deadline.tv_sec ||
	    (now.tv_sec == x->deadline.tv_sec && now.tv_nsec >= x->deadline.tv_nsec)) {
		if (!x->past_deadline && x->fd >= 0)
			shutdown(x->fd, SHUT_RDWR);
		x->past_deadline = true;
	}
	return x->past_deadline;
}

/* The connection's socket, for smtp_progress. */
static int smtp_sockopt(void *arg, curl_socket_t fd, curlsocktype purpose)
{
	struct smtp_xfer *x = arg;

	if (purpose == CURLSOCKTYPE_IPCXN)
		x->fd = fd;
	return CURL_SOCKOPT_OK;
}

static size_t smtp_discard(char *buf, size_t size, size_t nitems, void *arg)
{
	(void)buf;
	(void)arg;
	return size * nitems;
}

/* A command line the client sent: remember what the next reply will answer. */
static void smtp_saw_command(struct smtp_xfer *x, const char *p, size_t n)
{
	static const char *const verbs[] = {
		"EHLO", "HELO", "STARTTLS", "AUTH", "MAIL", "RCPT", "DATA",
		"RSET", "QUIT", "NOOP", "VRFY", "EXPN",
	};
	size_t w = 0, keep = 0;
	struct strbuf sb = STRBUF_INIT;
	char *line;

	if (x->sasl) {		/* a SASL response: credentials, never looked at */
		x->sasl = false;
		return;
	}
	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	while (w < n && p[w] != ' ')
		w++;
	for (size_t i = 0; i < ARRAY_SIZE(verbs); i++)
		if (w == strlen(verbs[i]) && !strncasecmp(p, verbs[i], w))
			keep = w;
	if (!keep)
		return;
	if (!strncasecmp(p, "MAIL", 4) || !strncasecmp(p, "RCPT", 4)) {
		keep = n;		/* the (checked) address says which recipient */
	} else if (!strncasecmp(p, "AUTH", 4)) {
		keep = w;		/* "AUTH PLAIN", never the initial response */
		if (keep < n)
			keep++;
		while (keep < n && p[keep] != ' ')
			keep++;
	}
	line = xstrndup(p, keep);
	smtp_quote(&sb, line, 300);
	snprintf(x->label, sizeof(x->label), "%s", sb.buf);
	free(line);
	strbuf_release(&sb);
}

static void smtp_add_printable(struct strbuf *sb, const char *p, size_t n)
{
	for (size_t i = 0; i < n && sb->len < SMTP_MAX_REPLY; i++) {
		unsigned char ch = (unsigned char)p[i];

		strbuf_addch(sb, ch < 0x20 || ch >= 0x7f ? '?' : (char)ch);
	}
}

/* One line of a server reply: "250-text" continues, "250 text" ends it. */
static void smtp_saw_reply_line(struct smtp_xfer *x, const char *p, size_t n)
{
	long code;

	while (n && (p[n - 1] == '\n' || p[n - 1] == '\r'))
		n--;
	if (!x->cur.len)
		smtp_add_printable(&x->cur, p, n < 3 ? n : 3);
	if (n > 4) {
		smtp_add_printable(&x->cur, " ", 1);
		smtp_add_printable(&x->cur, p + 4, n - 4);
	}
	if (n >= 4 && p[3] == '-')
		return;
	code = strtol(x->cur.buf, NULL, 10);
	if (strcmp(x->label, "QUIT")) {
		strbuf_reset(&x->last);
		strbuf_add(&x->last, x->cur.buf, x->cur.len);
		snprintf(x->last_label, sizeof(x->last_label), "%s", x->label);
		x->last_code = code;
	}
	strbuf_reset(&x->cur);
	if (!strcmp(x->label, "end of DATA"))
		x->end_answered = true;
	x->sasl = code == 334;
	if (code == 354 && !strcmp(x->label, "DATA"))
		snprintf(x->label, sizeof(x->label), "end of DATA");
}

static int smtp_debug(CURL *h, curl_infotype type, char *p, size_t n, void *arg)
{
	struct smtp_xfer *x = arg;
	(void)h;

	if (type == CURLINFO_HEADER_OUT) {
		smtp_saw_command(x, p, n);
	} else if (type == CURLINFO_HEADER_IN) {
		while (n) {
			const char *nl = memchr(p, '\n', n);
			size_t l = nl ? (size_t)(nl - p) + 1 : n;

			smtp_saw_reply_line(x, p, l);
			p += l;
			n -= l;
		}
	}
	return 0;
}

/* Whether a CURLcode without a 4xx/5xx reply behind it is worth retrying. */
static bool smtp_temporary(CURLcode rc)
{
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_PROXY:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_PARTIAL_FILE:
	case CURLE_UPLOAD_FAILED:
	case CURLE_OUT_OF_MEMORY:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_INTERFACE_FAILED:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_SHUTDOWN_FAILED:
	case CURLE_AGAIN:
	case CURLE_SSL_INVALIDCERTSTATUS:
		return true;
	default:
		return false;
	}
}

/* `msg` without a trailing period or newline. */
static void smtp_add_error(struct strbuf *sb, const char *msg)
{
	size_t n = strlen(msg);

	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '.'))
		n--;
	strbuf_add(sb, msg, n);
}

static enum smtp_result smtp_classify(CURL *h, CURLcode rc, const struct smtp_xfer *x,
				      const char *where, const char *errbuf, struct strbuf *why)
{
	long code = 0, oserr = 0;
	const char *err = *errbuf ? errbuf : cu.curl_easy_strerror(rc);

	if (x->past_deadline) {
		strbuf_setf(why, "%s: timed out after %ld s", where, x->c->timeout ? x->c->timeout : SMTP_TIMEOUT);
		return SMTP_TEMPORARY;
	}

	cu.curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
	cu.curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &oserr);

	/*
	 * The server said no, and that ended it: libcurl fails with one of
	 * these codes right after a 4xx/5xx reply (RECV_ERROR, timeouts and
	 * the like may come after a tolerated one, like a refused STARTTLS
	 * with SMTP_TLS_TRY, and are the connection's fault).
	 */
	if ((rc == CURLE_SEND_ERROR || rc == CURLE_WEIRD_SERVER_REPLY ||
	     rc == CURLE_REMOTE_ACCESS_DENIED || rc == CURLE_LOGIN_DENIED ||
	     rc == CURLE_USE_SSL_FAILED) &&
	    code >= 400 && code < 600 && x->last_code == code) {
		strbuf_setf(why, "%s said: %s", where, x->last.buf);
		if (*x->last_label)
			strbuf_addf(why, " (in reply to %s)", x->last_label);
		else
			strbuf_addstr(why, " (greeting)");
		return code < 500 ? SMTP_TEMPORARY : SMTP_PERMANENT;
	}
	if (rc == CURLE_USE_SSL_FAILED) {
		strbuf_setf(why, "%s: STARTTLS required but not offered by the server", where);
		return SMTP_PERMANENT;
	}
	if (rc == CURLE_COULDNT_CONNECT && oserr) {
		strbuf_setf(why, "connect to %s: %s", where, strerror((int)oserr));
		return SMTP_TEMPORARY;
	}
	strbuf_setf(why, "%s: ", where);
	smtp_add_error(why, err);
	return smtp_temporary(rc) ? SMTP_TEMPORARY : SMTP_PERMANENT;
}

/*
 * The whole message went out and the connection failed before the server
 * answered its end: the server may have it (a server that drops the
 * connection or says nothing after the final dot). Sending it again could
 * deliver it twice; why (the failure) says so.
 */
static enum smtp_result smtp_in_doubt(struct strbuf *why)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb,
		    "the message went out and the server's answer to its end never came (%s): the server may have it",
		    why->buf);
	strbuf_reset(why);
	strbuf_add(why, sb.buf, sb.len);
	strbuf_release(&sb);
	return SMTP_IN_DOUBT;
}

#define SMTP_SETOPT(h, opt, val)					\
	do {								\
		if (rc == CURLE_OK)					\
			rc = cu.curl_easy_setopt((h), (opt), (val));	\
	} while (0)

/*
 * Everything that is ours to get wrong, before any connection: the
 * envelope, the message, the configuration; *use_ssl from its TLS mode.
 * 0, or -1 with why set (a permanent failure).
 */
static int smtp_check_input(const struct smtp_config *c, const char *from, const char *const *rcpt, size_t n,
			    const char *data, size_t len, long *use_ssl, struct strbuf *why)
{
	if (smtp_check_address("sender", from, why))
		return -1;
	if (!n) {
		strbuf_setf(why, "no recipients");
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (smtp_check_address("recipient", rcpt[i], why))
			return -1;
	if (smtp_check_message(data, len, why))
		return -1;
	if (c->connect_timeout < 0 || c->timeout < 0) {
		strbuf_setf(why, "negative SMTP timeout");
		return -1;
	}
	if (c->user && !*c->user) {
		strbuf_setf(why, "empty SMTP user name");
		return -1;
	}
	switch (c->tls) {
	case SMTP_TLS_REQUIRED:
		*use_ssl = CURLUSESSL_ALL;
		return 0;
	case SMTP_TLS_TRY:
		*use_ssl = CURLUSESSL_TRY;
		return 0;
	case SMTP_TLS_NONE:
		*use_ssl = CURLUSESSL_NONE;
		return 0;
	}
	strbuf_setf(why, "invalid SMTP TLS mode %d", (int)c->tls);
	return -1;
}

/* The transfer's options: server (u), timeouts, TLS that verifies, login, envelope, the message from x. */
static CURLcode smtp_setopts(CURL *h, const struct smtp_config *c, CURLU *u, long use_ssl, const char *from,
			     struct curl_slist *to, struct smtp_xfer *x, char *errbuf)
{
	long connect_timeout = c->connect_timeout ? c->connect_timeout : SMTP_CONNECT_TIMEOUT;
	long timeout = c->timeout ? c->timeout : SMTP_TIMEOUT;
	CURLcode rc = CURLE_OK;

	SMTP_SETOPT(h, CURLOPT_CURLU, u);
	SMTP_SETOPT(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
	SMTP_SETOPT(h, CURLOPT_NOSIGNAL, 1L);
	SMTP_SETOPT(h, CURLOPT_ERRORBUFFER, errbuf);
	SMTP_SETOPT(h, CURLOPT_CONNECTTIMEOUT, connect_timeout);
	SMTP_SETOPT(h, CURLOPT_TIMEOUT, timeout);
	clock_gettime(CLOCK_MONOTONIC, &x->deadline);
	x->deadline.tv_sec += timeout;
	SMTP_SETOPT(h, CURLOPT_XFERINFOFUNCTION, smtp_progress);
	SMTP_SETOPT(h, CURLOPT_XFERINFODATA, x);
	SMTP_SETOPT(h, CURLOPT_NOPROGRESS, 0L);
	SMTP_SETOPT(h, CURLOPT_SOCKOPTFUNCTION, smtp_sockopt);
	SMTP_SETOPT(h, CURLOPT_SOCKOPTDATA, x);
	SMTP_SETOPT(h, CURLOPT_USE_SSL, use_ssl);
	SMTP_SETOPT(h, CURLOPT_SSL_VERIFYPEER, 1L);
	SMTP_SETOPT(h, CURLOPT_SSL_VERIFYHOST, 2L);
	if (c->ca_file)
		SMTP_SETOPT(h, CURLOPT_CAINFO, c->ca_file);
	if (c->user) {
		SMTP_SETOPT(h, CURLOPT_USERNAME, c->user);
		SMTP_SETOPT(h, CURLOPT_PASSWORD, c->password ? c->password : "");
	}
	SMTP_SETOPT(h, CURLOPT_MAIL_FROM, from);
	SMTP_SETOPT(h, CURLOPT_MAIL_RCPT, to);
	SMTP_SETOPT(h, CURLOPT_UPLOAD, 1L);
	SMTP_SETOPT(h, CURLOPT_READFUNCTION, smtp_read);
	SMTP_SETOPT(h, CURLOPT_READDATA, x);
	SMTP_SETOPT(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)x->len);
	SMTP_SETOPT(h, CURLOPT_WRITEFUNCTION, smtp_discard);
	SMTP_SETOPT(h, CURLOPT_DEBUGFUNCTION, smtp_debug);
	SMTP_SETOPT(h, CURLOPT_DEBUGDATA, x);
	SMTP_SETOPT(h, CURLOPT_VERBOSE, 1L);
	return rc;
}

enum smtp_result smtp_send(const struct smtp_config *c, const char *from,
			   const char *const *rcpt, size_t n,
			   const char *data, size_t len, struct strbuf *why)
{
	struct smtp_xfer x = { .data = data,
			       .len = len,
			       .c = c,
			       .cur = STRBUF_INIT,
			       .last = STRBUF_INIT,
			       .hook_why = STRBUF_INIT,
			       .fd = -1 };
	struct strbuf where = STRBUF_INIT;
	char errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *to = NULL;
	enum smtp_result res = SMTP_PERMANENT;
	long use_ssl;
	CURLcode rc;
	CURLU *u = NULL;
	CURL *h = NULL;

	if (smtp_check_input(c, from, rcpt, n, data, len, &use_ssl, why))
		return SMTP_PERMANENT;
	if (dynlib_load(&cu_lib, why))
		return SMTP_TEMPORARY;	/* queued mail goes out once the library is installed */
	pthread_once(&smtp_once, smtp_global_init);
	if (smtp_init_rc != CURLE_OK) {
		strbuf_setf(why, "curl_global_init: %s", cu.curl_easy_strerror(smtp_init_rc));
		return SMTP_TEMPORARY;
	}
	u = cu.curl_url();
	h = cu.curl_easy_init();
	if (!u || !h) {
		strbuf_setf(why, "libcurl: out of memory");
		res = SMTP_TEMPORARY;
		goto out;
	}
	if (smtp_parse_url(c, u, &where, why))
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct curl_slist *t = cu.curl_slist_append(to, rcpt[i]);

		if (!t) {
			strbuf_setf(why, "libcurl: out of memory");
			res = SMTP_TEMPORARY;
			goto out;
		}
		to = t;
	}
	rc = smtp_setopts(h, c, u, use_ssl, from, to, &x, errbuf);
	if (rc != CURLE_OK) {
		strbuf_setf(why, "libcurl: %s", cu.curl_easy_strerror(rc));
		res = rc == CURLE_OUT_OF_MEMORY ? SMTP_TEMPORARY : SMTP_PERMANENT;
		goto out;
	}
	rc = cu.curl_easy_perform(h);
	if (x.data_refused) {
		strbuf_setf(why, "not sent (nothing of it left): %s", x.hook_why.buf);
		res = SMTP_TEMPORARY;
	} else if (rc != CURLE_OK) {
		res = smtp_classify(h, rc, &x, where.buf, errbuf, why);
		if (x.data_started && x.pos == len && !x.end_answered)
			res = smtp_in_doubt(why);
	} else if (x.pos != len) {
		strbuf_setf(why, "%s: message only partly sent", where.buf);
		res = SMTP_TEMPORARY;
	} else {
		res = SMTP_SENT;
	}
out:
	cu.curl_easy_cleanup(h);
	cu.curl_url_cleanup(u);
	cu.curl_slist_free_all(to);
	strbuf_release(&where);
	strbuf_release(&x.cur);
	strbuf_release(&x.last);
	strbuf_release(&x.hook_why);
	return res;
}

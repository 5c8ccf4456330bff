/*
 * smtp: deliver one already-rendered RFC 5322 message (mime_render()'s CRLF
 * output) to an SMTP relay with libcurl, and say whether a failure is worth
 * retrying.
 *
 * One call is one SMTP transaction on one connection: EHLO, STARTTLS (as
 * configured), AUTH (when a user is set), MAIL FROM, one RCPT TO per
 * recipient, DATA, QUIT. It is all or nothing: if the server refuses any
 * recipient the transaction is abandoned before DATA and nobody gets the
 * message (the caller decides whether to retry without that recipient).
 * libcurl does the SMTP dot-stuffing, so lines that are "." or start with
 * "." arrive as they were given.
 *
 * TLS: the server's certificate chain and host name are always verified
 * (ca_file, or the system's CA store). smtps:// is TLS from the first byte,
 * whatever `tls` says; for smtp:// `tls` chooses STARTTLS. With a user set
 * and tls other than SMTP_TLS_REQUIRED on smtp://, the password is sent in
 * the clear if the server offers AUTH without TLS; if the server offers no
 * AUTH at all, libcurl goes on without authenticating (and the server
 * decides, usually with a 530 to MAIL FROM).
 *
 * Thread safety: the first call initialises libcurl (curl_global_init,
 * once, under pthread_once; never cleaned up: other modules may use libcurl
 * too). After that smtp_send() keeps no state and may run in several
 * threads at once. It uses no signals or alarms (CURLOPT_NOSIGNAL; libcurl
 * writes with MSG_NOSIGNAL, so a server hanging up raises no SIGPIPE).
 */
#ifndef LKP_SMTP_H
#define LKP_SMTP_H

#include "../lib/util/strbuf.h"

#include <stddef.h>

enum smtp_tls {
	SMTP_TLS_REQUIRED,	/* STARTTLS must be offered and succeed (the default) */
	SMTP_TLS_TRY,		/* STARTTLS when the server offers it, else plain */
	SMTP_TLS_NONE,		/* never STARTTLS */
};

struct smtp_config {
	const char *url;	/* "smtp://host[:port]" (port 25) or "smtps://host[:port]"
				 * (port 465); no user, path, query or fragment */
	enum smtp_tls tls;	/* STARTTLS policy for smtp:// (ignored for smtps://) */
	const char *user;	/* AUTH (PLAIN, LOGIN, CRAM-MD5...: libcurl picks the
				 * best the server offers) when set; NULL: no AUTH */
	const char *password;	/* with user; NULL: "" */
	const char *ca_file;	/* PEM CA bundle that must verify the server's
				 * certificate; NULL: the system default */
	long connect_timeout;	/* seconds for the TCP connect; 0: 10 */
	long timeout;		/* seconds for the whole transaction, connect
				 * included; 0: 60 */
	const char *helo;	/* the EHLO name, a host name or an address literal
				 * ("[192.0.2.1]"); NULL: libcurl's (this host's name) */
	/*
	 * Called once, when the server has said go ahead to DATA and before
	 * the first byte of the message leaves (before that the server cannot
	 * have it): the outbox moves the message from "connecting" to
	 * "sending" there. Non-zero (with why set) stops the transaction
	 * there, nothing of the message sent: SMTP_TEMPORARY.
	 */
	int (*on_data)(void *ctx, struct strbuf *why);
	void *ctx;
};

enum smtp_result {
	SMTP_SENT = 0,		/* the server accepted the message (250 after DATA) */
	SMTP_TEMPORARY = 1,	/* not sent, worth retrying later */
	SMTP_PERMANENT = 2,	/* not sent, retrying will fail the same way */
	SMTP_IN_DOUBT = 3,	/* all of it went out, the server's answer never came */
};

/*
 * Send `data` (`len` bytes: a complete message with CRLF line ends, ending
 * with CRLF, no NUL, no bare CR or LF) from the envelope sender `from` to
 * the `n` envelope recipients `rcpt`. Addresses are bare addr-specs
 * ("lkp@example.org": printable ASCII without spaces, '<' or '>', one '@'
 * with something on both sides).
 *
 * Returns
 *   SMTP_SENT       the server took it (`why` untouched);
 *   SMTP_TEMPORARY  a 4xx reply; connection refused or timed out; a name
 *                   that does not resolve; the TLS handshake or certificate
 *                   verification failed; the connection broke; libcurl ran
 *                   out of memory;
 *   SMTP_IN_DOUBT   the whole message went out and then the connection
 *                   broke or timed out before the server answered its end:
 *                   the server may have taken it, and sending it again may
 *                   deliver it twice;
 *   SMTP_PERMANENT  a 5xx reply (recipient or sender refused, message
 *                   refused, authentication refused, ...); STARTTLS
 *                   required but not offered or refused with 5xx; an invalid
 *                   address or message, no recipients; a bad configuration
 *                   (URL, helo, timeouts, unreadable CA file);
 * and for the failures replaces `why` with one line, for example
 *   "127.0.0.1:2525 said: 550 5.1.1 <x@y>: Recipient address rejected (in reply to RCPT TO)"
 *   "connect to 127.0.0.1:2525: Connection refused"
 *   "127.0.0.1:2525: STARTTLS required but not offered by the server"
 *   "invalid recipient address 'x@y\r\nDATA': control character".
 * The password never appears in `why`.
 */
enum smtp_result smtp_send(const struct smtp_config *c, const char *from,
			   const char *const *rcpt, size_t n,
			   const char *data, size_t len, struct strbuf *why);

#endif

/*
 * Fuzz the dashboard's request path: a real server (web_start, the
 * service's own) on a loopback port over a small store, sent one request
 * per input — the method from its first byte, then the target (path and
 * query) up to the first newline, then a form body — with the actions'
 * token so that POSTs reach them too. The response is read to the end.
 * Seeds: tests/fuzz/regress/http (the pages and actions the dashboard has).
 */
#include "fuzzlib.h"
#include "../../lib/store/store.h"
#include "../../web/web.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>

static int port;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct strbuf err = STRBUF_INIT, db = STRBUF_INIT, addr = STRBUF_INIT;
	struct store *s;

	(void)argc;
	(void)argv;
	strbuf_addf(&db, "%s/lkprobot.db", fuzz_scratch());
	if (!(s = store_open(db.buf, &err))) {
		fprintf(stderr, "fuzz-http: %s\n", err.buf);
		abort();
	}
	store_close(s);
	for (int tries = 0; tries < 50; tries++) {
		port = 20000 + (int)((getpid() * 7 + tries * 131) % 30000);
		strbuf_setf(&addr, "127.0.0.1:%d", port);
		struct web_opts o = { .addr = addr.buf, .db = db.buf, .result_root = fuzz_scratch(), .token = "t0ken" };
		if (web_start(&o, &err))
			break;	/* kept running until the process ends */
		port = 0;
	}
	if (!port) {
		fprintf(stderr, "fuzz-http: %s\n", err.buf);
		abort();
	}
	strbuf_release(&err);
	strbuf_release(&db);
	strbuf_release(&addr);
	return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static const char *const methods[] = { "GET", "POST", "HEAD", "PUT" };
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct timeval tv = { 5, 0 };
	struct strbuf req = STRBUF_INIT;
	const char *text = (const char *)data + (size ? 1 : 0);
	size_t len = size ? size - 1 : 0, target = 0;
	char buf[65536];
	int fd;

	while (target < len && text[target] != '\n')
		target++;
	strbuf_addf(&req, "%s /", methods[size ? data[0] % 4 : 0]);
	for (size_t i = 0; i < target; i++) {
		unsigned char c = (unsigned char)text[i];
		/* the request line is not ours to break: what would end it is percent-encoded */
		if (c <= ' ' || c >= 0x7f)
			strbuf_addf(&req, "%%%02X", c);
		else
			strbuf_addch(&req, (char)c);
	}
	const char *body = target < len ? text + target + 1 : "";
	size_t blen = target < len ? len - target - 1 : 0;
	strbuf_addf(&req, " HTTP/1.1\r\nHost: fuzz\r\nConnection: close\r\n"
		    "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %zu\r\n\r\n", blen);
	strbuf_add(&req, body, blen);

	inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		abort();
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
		abort();	/* the server went away: that is a finding */
	if (send(fd, req.buf, req.len, MSG_NOSIGNAL) >= 0)
		while (recv(fd, buf, sizeof(buf), 0) > 0)
			;
	close(fd);
	strbuf_release(&req);
	return 0;
}

/*
 * serve_log: the service's log, one line a step on stderr, each with the
 * time it was said, nothing in it acted on by a terminal. See serve.h.
 */
#include "serve.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

/*
 * What is said holds the world's text (subjects, branch names, paths, a
 * server's reply): its control characters are escaped, so that a CR in a
 * commit subject cannot forge a line of the log nor an escape sequence
 * drive the terminal it is read in.
 */
void serve_say(const char *fmt, ...)
{
	struct strbuf msg = STRBUF_INIT, line = STRBUF_INIT;
	va_list ap;
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	strbuf_addf(&line, "%s lkprobot serve: ", when);
	strbuf_add_oneline(&line, msg.buf, msg.len);
	strbuf_addch(&line, '\n');
	fwrite(line.buf, 1, line.len, stderr);
	strbuf_release(&msg);
	strbuf_release(&line);
}

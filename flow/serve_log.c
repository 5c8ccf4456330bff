/*
 * serve_log: the service's log, one line a step on stderr, each with the
 * time it was said. See serve.h.
 */
#include "serve.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

void serve_say(const char *fmt, ...)
{
	va_list ap;
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s lkprobot serve: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

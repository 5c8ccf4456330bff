/*
 * say: one-line messages on stderr. See say.h.
 */
#include "say.h"
#include "strbuf.h"

#include <stdarg.h>
#include <stdio.h>

static void say_line(const char *prefix, const char *fmt, va_list ap)
{
	struct strbuf msg = STRBUF_INIT, line = STRBUF_INIT;

	strbuf_vaddf(&msg, fmt, ap);
	strbuf_addstr(&line, prefix);
	strbuf_add_oneline(&line, msg.buf, msg.len);
	strbuf_addch(&line, '\n');
	fwrite(line.buf, 1, line.len, stderr);
	strbuf_release(&msg);
	strbuf_release(&line);
}

int say_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_line("lkprobot: ", fmt, ap);
	va_end(ap);
	return code;
}

void say_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say_line("lkprobot: warning: ", fmt, ap);
	va_end(ap);
}

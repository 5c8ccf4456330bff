/*
 * strbuf: growable strings and the allocation helpers used everywhere.
 * See strbuf.h for the invariants.
 */
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

char strbuf_empty[1];

static void die_oom(size_t n)
{
	fprintf(stderr, "lkprobot: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		die_oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb);
}

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->len = 0;
	sb->alloc = 0;
	sb->buf = strbuf_empty;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *p = sb->alloc ? sb->buf : xstrdup("");
	strbuf_init(sb, 0);
	return p;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->alloc)
		return;
	if (!sb->alloc)
		sb->buf = NULL;
	size_t n = sb->alloc < 64 ? 64 : sb->alloc;
	while (n < need)
		n *= 2;
	sb->buf = xrealloc(sb->buf, n);
	sb->alloc = n;
	if (sb->len == 0)
		sb->buf[0] = '\0';
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc)
		return;
	sb->len = len < sb->len ? len : sb->len;
	sb->buf[sb->len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		abort();
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_setf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(sb);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t oldlen = sb->len;
	char buf[65536];

	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			strbuf_setlen(sb, oldlen);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		strbuf_add(sb, buf, (size_t)n);
	}
	close(fd);
	strbuf_grow(sb, 0);
	return 0;
}

/* strbuf_read_bounded's message, when it was given somewhere to put one. */
static void say_read(struct strbuf *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say_read(struct strbuf *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	strbuf_reset(err);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
}

int strbuf_read_bounded(struct strbuf *sb, const char *path, size_t max, struct strbuf *err)
{
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	size_t old = sb->len;
	struct stat st;
	char buf[65536];
	int e = 0;

	if (fd < 0) {
		e = errno;
		say_read(err, "cannot read '%s': %s", path, strerror(e));
		errno = e;
		return -1;
	}
	if (fstat(fd, &st)) {
		e = errno;
		say_read(err, "cannot read '%s': %s", path, strerror(e));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		e = EINVAL;
		say_read(err, "cannot read '%s': not a regular file", path);
		goto fail;
	}
	if ((uintmax_t)st.st_size > max) {
		e = EFBIG;
		say_read(err, "cannot read '%s': %jd bytes, more than the %zu bytes such a file may have", path,
			 (intmax_t)st.st_size, max);
		goto fail;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			say_read(err, "cannot read '%s': %s", path, strerror(e));
			goto fail;
		}
		if (!n)
			break;
		if (sb->len - old + (size_t)n > max) {
			/* it grew while we read it */
			e = EFBIG;
			say_read(err, "cannot read '%s': more than the %zu bytes such a file may have", path, max);
			goto fail;
		}
		strbuf_add(sb, buf, (size_t)n);
	}
	close(fd);
	return 0;
fail:
	strbuf_setlen(sb, old);
	close(fd);
	errno = e;
	return -1;
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' ||
			   sb->buf[sb->len - 1] == '\t' ||
			   sb->buf[sb->len - 1] == '\n' ||
			   sb->buf[sb->len - 1] == '\r'))
		sb->len--;
	if (sb->alloc)
		sb->buf[sb->len] = '\0';
}

size_t strbuf_utf8_len(const char *s, size_t left)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;
	unsigned cp;

	if (!left)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (left < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

void strbuf_add_utf8(struct strbuf *sb, const char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		size_t n = strbuf_utf8_len(s + i, len - i);
		if (n) {
			strbuf_add(sb, s + i, n);
			i += n;
		} else {
			strbuf_addstr(sb, "\xef\xbf\xbd");	/* U+FFFD */
			i++;
		}
	}
}

/* strbuf_add_oneline (lines false) and strbuf_add_lines (true) */
static void add_escaped(struct strbuf *sb, const char *s, size_t len, bool lines)
{
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		size_t n = strbuf_utf8_len(s + i, len - i);
		if (lines && (c == '\n' || c == '\t')) {
			strbuf_addch(sb, (char)c);
			i++;
		} else if (lines && c == '\r' && i + 1 < len && s[i + 1] == '\n') {
			i++;
		} else if (c == '\n' || c == '\r' || c == '\t') {
			strbuf_addstr(sb, c == '\n' ? "\\n" : c == '\r' ? "\\r" : "\\t");
			i++;
		} else if (!n || c < 0x20 || c == 0x7f) {
			strbuf_addf(sb, "\\x%02x", c);
			i++;
		} else if (n == 2 && c == 0xc2 && (unsigned char)s[i + 1] < 0xa0) {
			strbuf_addf(sb, "\\u%04x", (unsigned char)s[i + 1]);	/* C1: U+0080..U+009F */
			i += 2;
		} else {
			strbuf_add(sb, s + i, n);
			i += n;
		}
	}
}

void strbuf_add_oneline(struct strbuf *sb, const char *s, size_t len)
{
	add_escaped(sb, s, len, false);
}

void strbuf_add_lines(struct strbuf *sb, const char *s, size_t len)
{
	add_escaped(sb, s, len, true);
}

void strbuf_add_shell_word(struct strbuf *sb, const char *s)
{
	if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_./=:,+%@") == strlen(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void strbuf_add_name(struct strbuf *sb, const char *s)
{
	if (s)
		strbuf_add_oneline(sb, s, strlen(s));
}

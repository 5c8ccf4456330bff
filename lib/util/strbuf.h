/*
 * strbuf: growable NUL-terminated strings. Every path, YAML line and error
 * message in lkprobot is built with one of these.
 *
 * Invariants: after STRBUF_INIT or strbuf_init() `buf` is never NULL and is
 * always NUL-terminated; `len` excludes the NUL. Allocation failure aborts
 * (there is nothing sensible a test robot can do without memory).
 * Ownership: strbuf_detach() hands the buffer to the caller (free() it) and
 * leaves the strbuf empty and reusable.
 */
#ifndef LKP_STRBUF_H
#define LKP_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	size_t len;
	size_t alloc;
	char *buf;
};

extern char strbuf_empty[];
#define STRBUF_INIT { 0, 0, strbuf_empty }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);

void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* Replace the contents with a formatted string. */
void strbuf_setf(struct strbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Text from the world (commit messages, raw tool output, file names):
 * strbuf_utf8_len() is the length of the valid UTF-8 sequence at s (at
 * most `left` bytes, left > 0; 0: not valid — a stray byte, an overlong
 * form, a surrogate, past U+10FFFF); strbuf_add_utf8() appends s with each byte that is not
 * part of a valid sequence replaced by U+FFFD; strbuf_add_oneline() appends
 * it for a one-line message: line breaks and other control characters as
 * \n, \r, \t, \xNN (C1 as \u00NN), invalid bytes as \xNN — nothing in it
 * can start a second line or move a terminal's cursor; strbuf_add_lines()
 * the same for text of several lines quoted in a mail or a page (a kernel's
 * call trace): its line breaks and tabs kept, a CR before a line break
 * dropped (a serial console's CRLF).
 */
size_t strbuf_utf8_len(const char *s, size_t left);
void strbuf_add_utf8(struct strbuf *sb, const char *s, size_t len);
void strbuf_add_oneline(struct strbuf *sb, const char *s, size_t len);
void strbuf_add_lines(struct strbuf *sb, const char *s, size_t len);
/* A name from the world (a metric, a subject, a path) in a text output: strbuf_add_oneline of all of s (NULL: nothing). */
void strbuf_add_name(struct strbuf *sb, const char *s);

/*
 * One word as a reader pastes it into a POSIX shell (reproduce.sh, a
 * report's "To reproduce"): bare when it is all safe characters, else in
 * single quotes ('\'' for a quote). For display: never handed to a shell.
 */
void strbuf_add_shell_word(struct strbuf *sb, const char *s);

/* Read a whole file; returns 0, or -1 with errno set (sb unchanged). For the system's own files (/proc). */
int strbuf_read_file(struct strbuf *sb, const char *path);
/*
 * Read a file from outside (a configuration, a job file, a raw output)
 * into sb, appended: only a regular file (a FIFO would block, /dev/zero
 * never ends; symlinks are followed, to a regular file only) of at most
 * `max` bytes. 0, or -1 with "cannot read 'path': why" in err (unless
 * NULL) and errno set (EFBIG past max, EINVAL not a regular file); sb
 * unchanged then.
 */
int strbuf_read_bounded(struct strbuf *sb, const char *path, size_t max, struct strbuf *err);

/* Remove trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);

/* xmalloc family: abort with a message on allocation failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array (`arr`, count `nr`, capacity `alloc`) to hold `need` items. */
#define ALLOC_GROW(arr, need, alloc)                                         \
	do {                                                                 \
		if ((need) > (alloc)) {                                      \
			size_t ag_n_ = (alloc) < 8 ? 8 : (alloc) * 2;        \
			while (ag_n_ < (need))                               \
				ag_n_ *= 2;                                  \
			(arr) = xrealloc((arr), ag_n_ * sizeof(*(arr)));     \
			(alloc) = ag_n_;                                     \
		}                                                            \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif

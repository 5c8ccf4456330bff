/*
 * lock_stat: the kernel's lock statistics as a monitor, and its parser,
 * after lkp-tests' programs/lock_stat/{monitor,parse}.
 *
 * The monitor clears /proc/lock_stat when it starts (writing 0) and
 * copies it once when the test is over. It needs CONFIG_LOCK_STAT (and
 * /proc/sys/kernel/lock_stat on); without it the monitor is unavailable.
 *
 * The parser reads version 0.3 or 0.4 of the file: each class line
 * "<lock>: <con-bounces> <contentions> ..." gives `<lock>.<column>` (the
 * lock's name without blanks; columns with "time" in their name are
 * floats, summed with any other line of the same lock, the rest integer
 * counts), and each contention point "<n> [<addr>] <function>+..." under
 * it `<lock>.contentions.<function>` (a "-R" read side folded into the
 * lock), as lkp-tests prints them.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct lock_stat_sum {
	char *key;
	double v;
	bool is_float;
};

struct lock_stat_state {
	struct lock_stat_sum *s, *cont;
	size_t n, alloc, ncont, acont;
	char **names;
	size_t nnames;
	struct strbuf lock, key;
	regex_t class_re, cont_re;
};

static void lock_stat_add(struct lock_stat_sum **s, size_t *n, size_t *alloc, const char *key, double v, bool is_float)
{
	size_t i = 0;

	while (i < *n && strcmp((*s)[i].key, key))
		i++;
	if (i == *n) {
		ALLOC_GROW(*s, *n + 1, *alloc);
		(*s)[i].key = xstrdup(key);
		(*s)[i].v = 0;
		(*s)[i].is_float = is_float;
		(*n)++;
	}
	(*s)[i].v += v;
}

/* A lock's class line: "<lock>: <values>" */
static void lock_stat_class(struct lock_stat_state *st, const char *line, const regmatch_t *m)
{
	char *vals = xstrndup(line + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so)), *save = NULL;
	size_t i = 0;

	strbuf_reset(&st->lock);
	for (regoff_t k = m[1].rm_so; k < m[1].rm_eo; k++)
		if (line[k] != ' ')
			strbuf_addch(&st->lock, line[k]);
	for (char *v = strtok_r(vals, " \t", &save); v && i < st->nnames; v = strtok_r(NULL, " \t", &save), i++) {
		bool is_time = strstr(st->names[i], "time") != NULL;
		strbuf_setf(&st->key, "%s.%s", st->lock.buf, st->names[i]);
		lock_stat_add(&st->s, &st->n, &st->alloc, st->key.buf, is_time ? strtod(v, NULL) : (double)atoll(v),
			      is_time);
	}
	free(vals);
}

/* The blank line after a lock's contention points: they go under the lock. */
static void lock_stat_flush(struct lock_stat_state *st)
{
	if (!st->ncont)
		return;
	if (st->lock.len >= 2 && !strcmp(st->lock.buf + st->lock.len - 2, "-R"))
		strbuf_setlen(&st->lock, st->lock.len - 2);
	for (size_t i = 0; i < st->ncont; i++) {
		strbuf_setf(&st->key, "%s.contentions.%s", st->lock.buf, st->cont[i].key);
		lock_stat_add(&st->s, &st->n, &st->alloc, st->key.buf, st->cont[i].v, false);
		free(st->cont[i].key);
	}
	st->ncont = 0;
}

static int lock_stat_header(struct lock_stat_state *st, const char **p, const char *end, struct strbuf *err)
{
	char *l[3];

	for (int i = 0; i < 3; i++) {
		const char *nl = memchr(*p, '\n', (size_t)(end - *p));
		if (!nl) {
			strbuf_setf(err, "lock_stat: line %d has no end (truncated file, or no lock_stat output)",
				    i + 1);
			while (i--)
				free(l[i]);
			return -1;
		}
		l[i] = xstrndup(*p, (size_t)(nl - *p));
		*p = nl + 1;
	}
	int ret = 0;
	if (!strstr(l[0], "lock_stat version 0.3") && !strstr(l[0], "lock_stat version 0.4")) {
		strbuf_setf(err, "lock_stat: line 1 is not 'lock_stat version 0.3' or '0.4'");
		ret = -1;
	} else if (!strstr(l[1], "---------------------")) {
		strbuf_setf(err, "lock_stat: line 2 is not the '-----' line under the version");
		ret = -1;
	} else {
		char *save = NULL;
		size_t alloc = 0, n = 0;
		for (char *t = strtok_r(l[2], " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save), n++)
			if (n >= 2) {
				ALLOC_GROW(st->names, st->nnames + 1, alloc);
				st->names[st->nnames++] = xstrdup(t);
			}
	}
	for (int i = 0; i < 3; i++)
		free(l[i]);
	return ret;
}

/* lkp-tests drops its build trees' paths: "/c/kernel-tests/src/<x>/", "/kbuild/src/<x>/" (once each) */
static void lock_stat_strip(struct strbuf *line)
{
	static const char *const trees[] = { "/c/kernel-tests/src/", "/kbuild/src/" };

	for (size_t t = 0; t < 2; t++) {
		char *at = strstr(line->buf, trees[t]);
		char *slash = at ? strchr(at + strlen(trees[t]), '/') : NULL;
		if (slash && slash > at + strlen(trees[t])) {
			memmove(at, slash + 1, strlen(slash + 1) + 1);
			line->len = strlen(line->buf);
		}
	}
}

static int lock_stat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct lock_stat_state st = { .lock = STRBUF_INIT, .key = STRBUF_INIT };
	struct strbuf line = STRBUF_INIT;
	const char *p = text, *end = text + len;
	size_t lineno = 3;
	int ret = -1;

	if (!len)
		return 0; /* the monitor was unavailable: nothing written */
	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "lock_stat: the file has NUL bytes; not /proc/lock_stat text");
		return -1;
	}
	/* lkp-tests' / +(.+): +([0-9.]+ +[0-9.]+ +[0-9.]+ +.*)/ and / +(\d+) +\[<[0-9a-f]+>\] ([a-zA-Z0-9_]+)/ */
	regcomp(&st.class_re, " +(.+): +([0-9.]+ +[0-9.]+ +[0-9.]+ +.*)", REG_EXTENDED);
	regcomp(&st.cont_re, " +([0-9]+) +\\[<[0-9a-f]+>\\] ([a-zA-Z0-9_]+)", REG_EXTENDED);
	if (lock_stat_header(&st, &p, end, err))
		goto out;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		regmatch_t m[3];
		lineno++;
		if (!nl) {
			strbuf_setf(err, "lock_stat: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		lock_stat_strip(&line);
		if (!regexec(&st.class_re, line.buf, 3, m, 0)) {
			lock_stat_class(&st, line.buf, m);
		} else if (!regexec(&st.cont_re, line.buf, 3, m, 0)) {
			line.buf[m[2].rm_eo] = '\0';
			lock_stat_add(&st.cont, &st.ncont, &st.acont, line.buf + m[2].rm_so,
				      (double)atoll(line.buf + m[1].rm_so), false);
		} else if (!line.len) {
			lock_stat_flush(&st);
		}
	}
	for (size_t i = 0; i < st.n; i++)
		if (stats_add(out, st.s[i].key, st.s[i].v, st.s[i].is_float, err))
			goto out;
	ret = 0;
out:
	for (size_t i = 0; i < st.n; i++)
		free(st.s[i].key);
	for (size_t i = 0; i < st.ncont; i++)
		free(st.cont[i].key);
	for (size_t i = 0; i < st.nnames; i++)
		free(st.names[i]);
	free(st.s);
	free(st.cont);
	free(st.names);
	regfree(&st.class_re);
	regfree(&st.cont_re);
	strbuf_release(&st.lock);
	strbuf_release(&st.key);
	strbuf_release(&line);
	return ret;
}

static int lock_stat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf content = STRBUF_INIT;
	int fd, ret = 0;

	(void)r;
	(void)p;
	monitor_catch_stop();
	fd = open("/proc/lock_stat", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "lock_stat: cannot open /proc/lock_stat here (%s): CONFIG_LOCK_STAT is off\n",
			strerror(errno));
		return MONITOR_UNAVAILABLE;
	}
	if (write(fd, "0", 1) != 1)
		fprintf(stderr, "lock_stat: cannot clear /proc/lock_stat: %s\n", strerror(errno));
	close(fd);
	monitor_sleep(-1); /* until the test is over */
	if (strbuf_read_file(&content, "/proc/lock_stat") || fsutil_write_all(out_fd, content.buf, content.len)) {
		fprintf(stderr, "lock_stat: cannot copy /proc/lock_stat: %s\n", strerror(errno));
		ret = 1;
	}
	strbuf_release(&content);
	return ret;
}

const struct program program_lock_stat = {
	.version = PROGRAM_VERSION,
	.name = "lock_stat",
	.kind = PROGRAM_MONITOR,
	.summary =
		"/proc/lock_stat after the test, cleared before: each lock's contentions and times "
		"(needs CONFIG_LOCK_STAT)",
	.monitor = lock_stat_monitor,
	.parse = lock_stat_parse,
};

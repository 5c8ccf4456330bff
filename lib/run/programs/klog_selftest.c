/*
 * klog_selftest: the kernel's boot self-tests, as lkp-tests' stat_unittest
 * (lib/dmesg.rb, for its kmsg stats) counts them from the log: "Testing
 * tracer nop: PASSED" is tracer_nop.pass, "test_hexdump: all 1184 tests
 * passed" test_hexdump.pass, "### dt-test ### pass of_unittest_x():12"
 * of-unittest.of_unittest_x_12.pass, up to "Kernel tests: Boot OK".
 */
#include "klog_int.h"
#include "programs.h"
#include "../../stats/stats.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

enum {
	S_DT,
	S_OK,
	S_PASSED,
	S_NTESTS,
	S_MEMINIT,
	S_COUNT
};

/* lkp-tests' regexes, in the order its case statement tries them (the first that matches wins) */
static const char *const selftest_src[S_COUNT] = {
	[S_DT] = "### dt-test ### (pass|fail) (.+)",
	[S_OK] = "Testing (.+): OK",
	[S_PASSED] = "Testing (.+): (PASSED)",
	[S_NTESTS] = "([A-Za-z0-9_]+):[[:space:]].+[0-9]+ tests passed",
	[S_MEMINIT] = "test_meminit: all [0-9]+ tests in (test_.+) (passed)",
};

/* LKP::Stats.normalize: blanks and ,"_[]():  runs made one '_', none at the ends, "...." made "." */
static void normalize(struct strbuf *s)
{
	struct strbuf o = STRBUF_INIT;
	size_t b = 0, e = s->len;

	while (b < e && strchr(" \t\r\n\f\v", s->buf[b]))
		b++;
	while (e > b && strchr(" \t\r\n\f\v", s->buf[e - 1]))
		e--;
	for (size_t i = b; i < e;) {
		if (strchr(" \t\r\n\f\v,\"_[]():", s->buf[i])) {
			while (i < e && strchr(" \t\r\n\f\v,\"_[]():", s->buf[i]))
				i++;
			strbuf_addch(&o, '_');
		} else if (i + 4 <= e && !strncmp(s->buf + i, "....", 4)) {
			while (i < e && s->buf[i] == '.')
				i++;
			strbuf_addch(&o, '.');
		} else {
			strbuf_addch(&o, s->buf[i++]);
		}
	}
	b = 0;
	e = o.len;
	while (b < e && o.buf[b] == '_')
		b++;
	while (e > b && o.buf[e - 1] == '_')
		e--;
	strbuf_reset(s);
	strbuf_add(s, o.buf + b, e - b);
	strbuf_release(&o);
}

/* The test cases in the order first added; a later add of one overwrites its result in place. */
struct cases {
	char **name, **result;
	size_t n, alloc;
};

static void cases_add(struct cases *c, const char *name, const char *result, bool overwrite)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name)) {
			/* lkp-tests raises on a second one (its kmsg stats die): the first is kept */
			if (overwrite) {
				free(c->result[i]);
				c->result[i] = xstrdup(result);
			}
			return;
		}
	ALLOC_GROW(c->name, c->n + 1, c->alloc);
	c->result = xrealloc(c->result, c->alloc * sizeof(*c->result));
	c->name[c->n] = xstrdup(name);
	c->result[c->n++] = xstrdup(result);
}

static void group(struct strbuf *s, const char *line, const regmatch_t *m)
{
	strbuf_add(s, line + m->rm_so, (size_t)(m->rm_eo - m->rm_so));
}

/* One line: added to c; false at the line that ends the self-tests. */
static bool selftest_line(regex_t *rx, const char *line, bool *ftrace_again, struct cases *c)
{
	struct strbuf name = STRBUF_INIT, res = STRBUF_INIT;
	regmatch_t m[3];

	if (!regexec(&rx[S_DT], line, 3, m, 0)) {
		strbuf_addstr(&name, "of-unittest.");
		group(&name, line, &m[2]);
		group(&res, line, &m[1]);
		for (size_t i = 0; i < res.len; i++)
			res.buf[i] = (char)(res.buf[i] | 0x20); /* pass or fail, any case: downcased */
		normalize(&name);
		cases_add(c, name.buf, res.buf, true);
	} else if (strstr(line, "Running tests again, along with the function tracer")) {
		*ftrace_again = true;
	} else if (!regexec(&rx[S_OK], line, 2, m, 0)) {
		if (*ftrace_again)
			strbuf_addstr(&name, "function tracer.");
		group(&name, line, &m[1]);
		normalize(&name);
		cases_add(c, name.buf, "pass", false);
		if (strstr(line, "Testing ftrace filter: OK"))
			*ftrace_again = false;
	} else if (!regexec(&rx[S_PASSED], line, 3, m, 0)) {
		group(&name, line, &m[1]);
		normalize(&name);
		cases_add(c, name.buf, "pass", false);
	} else if (!regexec(&rx[S_NTESTS], line, 2, m, 0)) {
		group(&name, line, &m[1]);
		for (size_t i = 0; i < name.len; i++)
			if (name.buf[i] >= 'A' && name.buf[i] <= 'Z')
				name.buf[i] = (char)(name.buf[i] | 0x20);
		normalize(&name);
		cases_add(c, name.buf, "pass", false);
	} else if (!regexec(&rx[S_MEMINIT], line, 2, m, 0)) {
		strbuf_addstr(&name, "test_meminit.");
		group(&name, line, &m[1]);
		normalize(&name);
		cases_add(c, name.buf, "pass", false);
	} else if (strstr(line, "Kernel tests: Boot OK") || strstr(line, "run-job /lkp")) {
		return false;
	}
	strbuf_release(&name);
	strbuf_release(&res);
	return true;
}

int klog_selftests(char *const *lines, size_t n, struct stats_samples *out, struct strbuf *err)
{
	regex_t rx[S_COUNT];
	struct cases c = { 0 };
	struct strbuf key = STRBUF_INIT;
	bool again = false;
	int ret = 0;

	for (size_t i = 0; i < S_COUNT; i++)
		if (regcomp(&rx[i], selftest_src[i], REG_EXTENDED | (i == S_DT ? REG_ICASE : 0))) {
			strbuf_setf(err, "kmsg: the self-test regex '%s' does not compile", selftest_src[i]);
			while (i-- > 0)
				regfree(&rx[i]);
			return -1;
		}
	for (size_t i = 0; i < n && selftest_line(rx, lines[i], &again, &c); i++)
		;
	for (size_t i = 0; i < c.n && !ret; i++) {
		strbuf_setf(&key, "%s.%s", c.name[i], c.result[i]);
		ret = stats_add(out, key.buf, 1, false, err);
	}
	for (size_t i = 0; i < c.n; i++) {
		free(c.name[i]);
		free(c.result[i]);
	}
	free(c.name);
	free(c.result);
	for (size_t i = 0; i < S_COUNT; i++)
		regfree(&rx[i]);
	strbuf_release(&key);
	return ret;
}

/*
 * klog_trace: each oops's and WARNING's call trace cut out of the kernel
 * log as lkp-tests' get_crash_calltraces (lib/dmesg.rb) cuts it, with the
 * dmesg error ids its lines give, so that a report can quote the trace of
 * a dmesg.* row it shows.
 */
#include "programs.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

#define CALLTRACE_LIMIT_LEN 100
#define DECODE_FLAG "Code starting with the faulting instruction"

/* /---\[ cut here | BUG: | WARNING: | INFO: | UBSAN: | kernel BUG at / */
static bool trace_head(const char *line)
{
	static const char *const heads[] = { "---[ cut here ", " BUG: ",   " WARNING: ",
					     " INFO: ",	       " UBSAN: ", " kernel BUG at " };

	for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++)
		if (strstr(line, heads[i]))
			return true;
	return false;
}

/* lkp-tests' text.remove!(/kbuild\/src\/[^\/]+\//) */
static void drop_kbuild(struct strbuf *t)
{
	struct strbuf o = STRBUF_INIT;
	const char *p = t->buf, *k;

	while ((k = strstr(p, "kbuild/src/"))) {
		const char *name = k + 11, *slash = strchr(name, '/');

		strbuf_add(&o, p, (size_t)((slash && slash > name ? k : name) - p));
		p = slash && slash > name ? slash + 1 : name;
	}
	strbuf_addstr(&o, p);
	strbuf_reset(t);
	strbuf_add(t, o.buf, o.len);
	strbuf_release(&o);
}

/* A decoded stack trace's lines: /^(===|  ( [0-9a-f]|[0-9a-f]{2}):| +\.\.\.)/ */
static bool decode_line(const regex_t *rx, const char *line)
{
	return !regexec(rx, line, 0, NULL, 0);
}

struct cutter {
	struct strbuf *cur; /* the trace being cut (NULL: none yet) */
	struct klog_trace *v;
	size_t n, alloc;
	size_t count;
	bool in_trace, end_trace, in_decode, end_decode, decode;
	regex_t rx;
};

static void cut_line(struct cutter *c, const char *line)
{
	if (trace_head(line)) {
		c->in_trace = true;
		if (c->end_trace || !c->n) {
			ALLOC_GROW(c->v, c->n + 1, c->alloc);
			memset(&c->v[c->n++], 0, sizeof(*c->v));
			c->end_trace = false;
		}
		c->in_decode = c->end_decode = false;
		strbuf_addstr(&c->v[c->n - 1].text, line);
		c->count = 1;
	} else if (strstr(line, "---[ end trace ") && c->in_trace) {
		c->in_trace = false;
		c->end_trace = true;
		strbuf_addstr(&c->v[c->n - 1].text, line);
	} else if (c->in_trace) {
		strbuf_addstr(&c->v[c->n - 1].text, line);
		if (++c->count > CALLTRACE_LIMIT_LEN) {
			c->in_trace = false;
			c->end_trace = true;
		}
	} else if (!c->end_decode && c->end_trace && c->decode) {
		if (!c->in_decode) {
			c->count++;
			strbuf_addstr(&c->v[c->n - 1].text, line);
			c->in_decode = strstr(line, DECODE_FLAG) != NULL;
			c->end_decode = c->count > CALLTRACE_LIMIT_LEN * 3 / 2;
		} else if (!decode_line(&c->rx, line)) {
			c->in_decode = false;
			c->end_decode = true;
		} else {
			strbuf_addstr(&c->v[c->n - 1].text, line);
		}
	}
}

/* The error ids the dmesg parser gives for a trace's own lines: its signatures. */
static void trace_ids(struct klog *k, struct klog_trace *t)
{
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;

	stats_samples_init(&ss);
	if (k && !klog_parse_dmesg_with(k, t->text.buf, t->text.len, &ss, &err))
		for (size_t i = 0; i < ss.n; i++) {
			const char *key = ss.s[i].key;

			if (!strcmp(key, "boot_failures") || !strncmp(key, "timestamp:", 10))
				continue;
			ALLOC_GROW(t->ids, t->nids + 1, t->alloc_ids);
			t->ids[t->nids++] = xstrdup(key);
		}
	stats_samples_release(&ss);
	strbuf_release(&err);
}

size_t klog_calltraces(const char *text, size_t len, struct klog_trace **out)
{
	struct cutter c = { 0 };
	struct strbuf all = STRBUF_INIT, line = STRBUF_INIT;

	strbuf_add(&all, text, len);
	for (size_t i = 0; i < all.len; i++)
		if (!all.buf[i])
			all.buf[i] = ' ';
	drop_kbuild(&all);
	c.decode = strstr(all.buf, DECODE_FLAG) != NULL;
	if (regcomp(&c.rx, "^(===|  ( [0-9a-f]|[0-9a-f]{2}):| +\\.\\.\\.)", REG_EXTENDED | REG_NOSUB)) {
		strbuf_release(&all);
		*out = NULL;
		return 0;
	}
	for (const char *p = all.buf; *p;) {
		size_t n = strcspn(p, "\n");

		strbuf_reset(&line);
		strbuf_add(&line, p, n);
		if (line.len && line.buf[line.len - 1] == '\r')
			strbuf_setlen(&line, line.len - 1);
		strbuf_addch(&line, '\n');
		cut_line(&c, line.buf);
		p += n + (p[n] == '\n');
	}
	regfree(&c.rx);
	struct strbuf err = STRBUF_INIT;
	struct klog *k = c.n ? klog_open(&err) : NULL; /* one set of lib/dmesg.rb's regexes for every trace */
	for (size_t i = 0; i < c.n; i++)
		trace_ids(k, &c.v[i]);
	klog_close(k);
	strbuf_release(&err);
	strbuf_release(&all);
	strbuf_release(&line);
	*out = c.v;
	return c.n;
}

const struct klog_trace *klog_trace_of(const struct klog_trace *t, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < t[i].nids; j++)
			if (!strcmp(t[i].ids[j], id))
				return &t[i];
	return NULL;
}

void klog_traces_release(struct klog_trace *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		strbuf_release(&t[i].text);
		for (size_t j = 0; j < t[i].nids; j++)
			free(t[i].ids[j]);
		free(t[i].ids);
	}
	free(t);
}

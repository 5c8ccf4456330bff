/*
 * sched_debug: the scheduler's debug file as a monitor, and its parser,
 * after lkp-tests' programs/sched_debug/parse (its monitor is the
 * proc-vmstat one under another name).
 *
 * The monitor writes "time: <epoch>" and /sys/kernel/debug/sched/debug
 * (or /proc/sched_debug on kernels before 5.13) every `interval` seconds
 * (default 60, as lkp-tests) and once more when stopped. It needs
 * CONFIG_SCHED_DEBUG and debugfs mounted on /sys/kernel/debug; without
 * them it is unavailable.
 *
 * The parser follows lkp-tests' line by line: a line "<name>: <number>"
 * gives `<prefix><name>` (the top lines: sched_debug.jiffies), or
 * `<prefix><name>.<n>` inside a numbered section ("cpu#1" gives prefix
 * "cpu", n 1: sched_debug.cpu.nr_running.1; "cfs_rq[1]:/" prefix
 * "cfs_rq:/"), whose values also give, at the end of each snapshot,
 * `<key>.max`, `.min`, `.avg` and `.stddev` (population) over the
 * section numbers; any other line sets the prefix; autogroup sections
 * are skipped.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sched_debug_options[] = {
	"interval",
	NULL,
};

struct sched_debug_sample {
	char *key;
	double *v;
	size_t n, alloc;
};

struct sched_debug_state {
	struct sched_debug_sample *s;
	size_t n, alloc;
	struct strbuf prefix, no, key;
	regex_t value_re, hash_re, bracket_re;
};

static void sched_debug_sample(struct sched_debug_state *st, const char *key, double v)
{
	struct sched_debug_sample *s = NULL;

	for (size_t i = 0; i < st->n && !s; i++)
		if (!strcmp(st->s[i].key, key))
			s = &st->s[i];
	if (!s) {
		ALLOC_GROW(st->s, st->n + 1, st->alloc);
		s = &st->s[st->n++];
		memset(s, 0, sizeof(*s));
		s->key = xstrdup(key);
	}
	ALLOC_GROW(s->v, s->n + 1, s->alloc);
	s->v[s->n++] = v;
}

double programs_ruby_sum(const double *v, size_t n)
{
	double f = 0, c = 0;

	for (size_t i = 0; i < n; i++) {
		double t = f + v[i];
		c += fabs(f) >= fabs(v[i]) ? (f - t) + v[i] : (v[i] - t) + f;
		f = t;
	}
	return f + c;
}

/* lkp-tests' statistics(): max, min, avg, stddev of each sampled key; the samples dropped. */
static int sched_debug_flush(struct sched_debug_state *st, struct stats_samples *out, struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 0; i < st->n; i++) {
		struct sched_debug_sample *s = &st->s[i];
		double max = s->v[0], min = s->v[0], avg, var = 0;
		for (size_t k = 1; k < s->n; k++) {
			max = fmax(max, s->v[k]);
			min = fmin(min, s->v[k]);
		}
		avg = programs_ruby_sum(s->v, s->n) / (double)s->n;
		for (size_t k = 0; k < s->n; k++)
			var += (s->v[k] - avg) * (s->v[k] - avg);
		var = 1 / (double)s->n * var;
		strbuf_setf(&st->key, "%s.max", s->key);
		ret = ret ? ret : stats_add(out, st->key.buf, max, true, err);
		strbuf_setf(&st->key, "%s.min", s->key);
		ret = ret ? ret : stats_add(out, st->key.buf, min, true, err);
		strbuf_setf(&st->key, "%s.avg", s->key);
		ret = ret ? ret : stats_add(out, st->key.buf, avg, true, err);
		strbuf_setf(&st->key, "%s.stddev", s->key);
		ret = ret ? ret : stats_add(out, st->key.buf, sqrt(var), true, err);
		free(s->key);
		free(s->v);
	}
	st->n = 0;
	return ret;
}

static void sched_debug_set_prefix(struct sched_debug_state *st, const char *line)
{
	regmatch_t m[4];
	char word[256];
	size_t w = 0;
	const char *p = line + strspn(line, " \t\r");

	for (; *p && !strchr(" \t\r", *p) && w + 1 < sizeof(word); p++)
		if (*p != ',')
			word[w++] = *p;
	word[w] = '\0';
	strbuf_reset(&st->prefix);
	strbuf_reset(&st->no);
	if (!regexec(&st->hash_re, word, 3, m, 0)) {
		strbuf_add(&st->prefix, word, (size_t)m[1].rm_eo);
		strbuf_add(&st->no, word + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
	} else if (!regexec(&st->bracket_re, word, 4, m, 0)) {
		strbuf_add(&st->prefix, word, (size_t)m[1].rm_eo);
		strbuf_addstr(&st->prefix, word + m[3].rm_so);
		strbuf_add(&st->no, word + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
	} else {
		strbuf_addstr(&st->prefix, word);
	}
}

static int sched_debug_line(struct sched_debug_state *st, const char *line, size_t lineno, struct stats_samples *out,
			    struct strbuf *err)
{
	regmatch_t m[3];

	if (!strncmp(line, "Sched Debug Version:", 20) || !strncmp(line, "runnable tasks:", 15))
		return 0;
	if (regexec(&st->value_re, line, 3, m, 0)) {
		if (line[strspn(line, " \t\r")])
			sched_debug_set_prefix(st, line);
		return 0;
	}
	if (strstr(st->prefix.buf, ":/autogroup-"))
		return 0;
	strbuf_setf(&st->key, "%s%.*s", st->prefix.buf, (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
	char val[64];
	snprintf(val, sizeof(val), "%.*s", (int)(m[2].rm_eo - m[2].rm_so), line + m[2].rm_so);
	if (st->no.len)
		strbuf_addf(&st->key, ".%s", st->no.buf);
	if (stats_add_text(out, st->key.buf, val, err)) {
		strbuf_setf(err, "sched_debug: line %zu: %s: '%s' is not a number", lineno, st->key.buf, val);
		return -1;
	}
	if (st->no.len) {
		st->key.buf[st->key.len - st->no.len - 1] = '\0';
		sched_debug_sample(st, st->key.buf, strtod(val, NULL));
	}
	return 0;
}

static int sched_debug_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct sched_debug_state st = { .prefix = STRBUF_INIT, .no = STRBUF_INIT, .key = STRBUF_INIT };
	struct strbuf line = STRBUF_INIT;
	size_t lineno = 0;
	int ret = -1, rc;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "sched_debug: the file has NUL bytes; not the scheduler's debug text");
		return -1;
	}
	/* lkp-tests' /^\s*(\S+)\s*:\s+([0-9.-]+)/, /^(.*)#([0-9]+)$/ and /^(.*)\[([0-9]+)\](.*)$/ */
	regcomp(&st.value_re, "^[[:space:]]*([^[:space:]]+)[[:space:]]*:[[:space:]]+([-0-9.]+)", REG_EXTENDED);
	regcomp(&st.hash_re, "^(.*)#([0-9]+)$", REG_EXTENDED);
	regcomp(&st.bracket_re, "^(.*)\\[([0-9]+)\\](.*)$", REG_EXTENDED);
	const char *p = text, *end = text + len;

	for (rc = 0; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl) {
			strbuf_setf(err, "sched_debug: line %zu has no end (truncated file)", lineno);
			rc = -1;
			break;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		if (strncmp(line.buf, "time:", 5)) {
			if (sched_debug_line(&st, line.buf, lineno, out, err))
				goto out;
			continue;
		}
		/* a new snapshot: the statistics of the one before close its record */
		if (sched_debug_flush(&st, out, err) || stats_add_text(out, "time", line.buf + 5, err)) {
			strbuf_setf(err, "sched_debug: line %zu: bad time line '%s'", lineno, line.buf);
			goto out;
		}
		strbuf_reset(&st.prefix); /* lkp-tests keeps the section number */
	}
	if (rc < 0 || sched_debug_flush(&st, out, err))
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < st.n; i++) {
		free(st.s[i].key);
		free(st.s[i].v);
	}
	free(st.s);
	regfree(&st.value_re);
	regfree(&st.hash_re);
	regfree(&st.bracket_re);
	strbuf_release(&st.prefix);
	strbuf_release(&st.no);
	strbuf_release(&st.key);
	strbuf_release(&line);
	return ret;
}

static int sched_debug_monitor(struct run *r, const struct program *p, int out_fd)
{
	const char *path = "/sys/kernel/debug/sched/debug";

	if (access(path, R_OK) && !access("/proc/sched_debug", R_OK))
		path = "/proc/sched_debug";
	if (access(path, R_OK)) {
		monitor_catch_stop();
		fprintf(stderr,
			"sched_debug: neither /sys/kernel/debug/sched/debug nor /proc/sched_debug here "
			"(CONFIG_SCHED_DEBUG, debugfs mounted on /sys/kernel/debug)\n");
		return MONITOR_UNAVAILABLE;
	}
	return monitor_proc_file(r, p, path, 60, 0, out_fd);
}

const struct program program_sched_debug = {
	.version = PROGRAM_VERSION,
	.name = "sched_debug",
	.kind = PROGRAM_MONITOR,
	.summary = "the scheduler's debug file every 60 s: per-CPU run queues and their max/min/avg/stddev",
	.options = sched_debug_options,
	.monitor = sched_debug_monitor,
	.parse = sched_debug_parse,
};

/*
 * iostat: sysstat's iostat as a monitor, and its parser, after lkp-tests'
 * programs/iostat/{monitor,parse}.
 *
 * The monitor runs `iostat -tkx <interval> [count] <the job's disks>`
 * (interval 1 s by default, S_TIME_FORMAT=ISO) until the test ends. Like
 * lkp-tests it runs only for a job with disks (the disk setup's
 * partitions); without them, or without sysstat, it is unavailable.
 *
 * The parser emits per report `time` (its ISO time line), `cpu.<field>`
 * of the avg-cpu lines (the first '%' dropped: iostat.cpu.iowait), and
 * `<dev>.<field>` of each device line under the device header
 * (iostat.vda.w_await, iostat.vda.util; await-like ones get a `.max` too,
 * as lkp-tests' add-max-latency says).
 *
 * Where it differs from lkp-tests: its parser reads device lines only
 * under a header "Device:", which sysstat wrote before 11.5.7; newer
 * iostat writes "Device" and lkp-tests gets no device figures at all.
 * lkprobot reads both headers, under lkp-tests' names.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const iostat_options[] = {
	"interval",
	"count",
	NULL,
};

static const char *const iostat_debs[] = { "sysstat", NULL };

/* "2026-12-06T22:11:58+0000" -> epoch seconds; -1 if it is not that. */
static long long iostat_time(const char *s)
{
	struct tm tm = { 0 };
	int off, n = 0;

	if (strlen(s) != 24 ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%5d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
		   &tm.tm_sec, &off, &n) != 7 ||
	    n != 24)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	int sign = off < 0 ? -1 : 1;
	off = abs(off);
	return (long long)timegm(&tm) - sign * ((off / 100) * 3600 + (off % 100) * 60);
}

/* "<prefix>.<title>" with its first '%' dropped (lkp-tests' normalize_key). */
static void iostat_key(struct strbuf *key, const char *prefix, const char *title)
{
	strbuf_setf(key, "%s.%s", prefix, title);
	char *pct = strchr(key->buf, '%');
	if (pct) {
		memmove(pct, pct + 1, strlen(pct + 1) + 1);
		key->len--;
	}
}

struct iostat_state {
	char **titles; /* the last header's words */
	size_t ntitles;
	enum {
		IOSTAT_NONE,
		IOSTAT_CPU,
		IOSTAT_DEV
	} want;
	struct strbuf key;
};

static void iostat_titles(struct iostat_state *st, char **w, size_t n)
{
	for (size_t i = 0; i < st->ntitles; i++)
		free(st->titles[i]);
	free(st->titles);
	st->titles = xcalloc(n + 1, sizeof(*st->titles));
	st->ntitles = n;
	for (size_t i = 0; i < n; i++)
		st->titles[i] = xstrdup(w[i]);
}

static int iostat_values(struct iostat_state *st, const char *prefix, char **w, size_t from, size_t n, size_t lineno,
			 struct stats_samples *out, struct strbuf *err)
{
	for (size_t i = from; i < n; i++) {
		iostat_key(&st->key, prefix, st->titles[i + (st->want == IOSTAT_CPU)]);
		if (stats_add_text(out, st->key.buf, w[i], err)) {
			strbuf_setf(err, "iostat: line %zu: %s: '%s' is not a number", lineno, st->key.buf, w[i]);
			return -1;
		}
	}
	return 0;
}

static int iostat_line(struct iostat_state *st, char **w, size_t n, size_t lineno, struct stats_samples *out,
		       struct strbuf *err)
{
	if (!n) {
		st->want = IOSTAT_NONE; /* a blank line ends the device lines (lkp-tests: a line of other width) */
		return 0;
	}
	if (n == 1 && iostat_time(w[0]) >= 0)
		return stats_add(out, "time", (double)iostat_time(w[0]), false, err);
	if (!strcmp(w[0], "avg-cpu:")) {
		iostat_titles(st, w, n);
		st->want = IOSTAT_CPU;
		return 0;
	}
	if (!strcmp(w[0], "Device:") || !strcmp(w[0], "Device")) {
		iostat_titles(st, w, n);
		st->want = IOSTAT_DEV;
		return 0;
	}
	if (st->want == IOSTAT_CPU) {
		if (n + 1 != st->ntitles) {
			strbuf_setf(err, "iostat: line %zu: %zu avg-cpu values for %zu fields", lineno, n,
				    st->ntitles - 1);
			return -1;
		}
		int rc = iostat_values(st, "cpu", w, 0, n, lineno, out, err);
		st->want = IOSTAT_NONE;
		return rc;
	}
	if (st->want == IOSTAT_DEV) {
		if (n != st->ntitles) {
			strbuf_setf(err, "iostat: line %zu: device %s has %zu values for %zu fields", lineno, w[0],
				    n - 1, st->ntitles - 1);
			return -1;
		}
		return iostat_values(st, w[0], w, 1, n, lineno, out, err);
	}
	return 0; /* the "Linux ..." banner */
}

static int iostat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct iostat_state st = { .key = STRBUF_INIT };
	struct strbuf line = STRBUF_INIT;
	char **w = NULL;
	size_t walloc = 0, lineno = 0;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "iostat: the file has NUL bytes; not iostat's output");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl) {
			strbuf_setf(err, "iostat: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		size_t n = monitor_words(line.buf, &w, &walloc); /* before w is read: it may move */
		if (iostat_line(&st, w, n, lineno, out, err))
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < st.ntitles; i++)
		free(st.titles[i]);
	free(st.titles);
	free(w);
	strbuf_release(&st.key);
	strbuf_release(&line);
	return ret;
}

static int iostat_monitor(struct run *r, const struct program *p, int out_fd)
{
	const char *count = run_param(r, p, "count");
	struct strbuf err = STRBUF_INIT;
	double interval;
	char num[32];
	int rc;

	monitor_catch_stop();
	if (monitor_interval(r, p, 1, &interval, &err) || interval < 1 || interval != floor(interval)) {
		fprintf(stderr, "iostat: %s\n", err.len ? err.buf : "interval: iostat takes whole seconds");
		strbuf_release(&err);
		return 2;
	}
	if (!r->npartitions) {
		fprintf(stderr, "iostat: the job has no disks (lkp-tests runs iostat only for a job's disks)\n");
		return MONITOR_UNAVAILABLE;
	}
	snprintf(num, sizeof(num), "%.0f", interval);
	char **argv = xcalloc(r->npartitions + 6, sizeof(*argv));
	size_t n = 0;
	argv[n++] = "iostat";
	argv[n++] = "-tkx";
	argv[n++] = num;
	if (count)
		argv[n++] = (char *)count;
	for (size_t i = 0; i < r->npartitions; i++)
		argv[n++] = r->partitions[i];
	rc = monitor_exec(argv, out_fd, MONITOR_EXEC_SYSSTAT, &err);
	if (rc < 0) {
		bool missing = errno == ENOENT;
		fprintf(stderr, "iostat: %s%s\n", err.buf, missing ? " (Debian package sysstat)" : "");
		rc = missing ? MONITOR_UNAVAILABLE : 1;
	}
	free(argv);
	strbuf_release(&err);
	return rc;
}

const struct program program_iostat = {
	.version = PROGRAM_VERSION,
	.name = "iostat",
	.kind = PROGRAM_MONITOR,
	.summary = "iostat -tkx every second on the job's disks: CPU and per-device figures, needs sysstat",
	.options = iostat_options,
	.monitor = iostat_monitor,
	.parse = iostat_parse,
	.debs = iostat_debs,
};

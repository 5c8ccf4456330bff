/*
 * softirqs: the /proc/softirqs monitor and its parser, after lkp-tests'
 * programs/softirqs/{monitor,parse} (its monitor is the interrupts one).
 *
 * The monitor writes "time: <s>.<ns>" and /proc/softirqs when it starts
 * and when it is stopped (and every `interval` seconds if the job sets
 * one). The parser emits, per snapshot, `time`, then for each softirq
 * `CPU<n>.<NAME>` per CPU column and `<NAME>` = their sum
 * (softirqs.CPU0.TIMER, softirqs.NET_RX). lkp-tests' event-counter prefix
 * is "softirq." (the /proc/stat line), which softirqs.* do not start with:
 * they are reduced to their mean, as lkp-tests does.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const softirqs_options[] = {
	"interval",
	NULL,
};

struct softirqs_state {
	char **cpus;
	size_t ncpus;
	struct strbuf key;
};

static void softirqs_free_cpus(struct softirqs_state *st)
{
	for (size_t i = 0; i < st->ncpus; i++)
		free(st->cpus[i]);
	free(st->cpus);
	st->cpus = NULL;
	st->ncpus = 0;
}

static bool softirqs_count(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* One line of words (a monitor_line_fn; ctx: the state). */
static int softirqs_line(void *ctx, char **w, size_t n, size_t lineno, struct stats_samples *out, struct strbuf *err)
{
	struct softirqs_state *st = ctx;
	size_t klen = strlen(w[0]);
	unsigned long long sum = 0;

	if (klen < 2 || w[0][klen - 1] != ':') { /* "CPU0 CPU1 ...": the columns */
		softirqs_free_cpus(st);
		st->cpus = xcalloc(n, sizeof(*st->cpus));
		st->ncpus = n;
		for (size_t i = 0; i < n; i++)
			st->cpus[i] = xstrdup(w[i]);
		return 0;
	}
	if (!st->ncpus || n != st->ncpus + 1) {
		strbuf_setf(err, "softirqs: line %zu: %s has %zu counts for %zu CPU columns", lineno, w[0], n - 1,
			    st->ncpus);
		return -1;
	}
	w[0][klen - 1] = '\0';
	for (size_t i = 0; i < st->ncpus; i++) {
		strbuf_setf(&st->key, "%s.%s", st->cpus[i], w[0]);
		if (!softirqs_count(w[i + 1]) || stats_add_text(out, st->key.buf, w[i + 1], err)) {
			strbuf_setf(err, "softirqs: line %zu: %s: '%s' is not a number", lineno, st->key.buf, w[i + 1]);
			return -1;
		}
		sum += strtoull(w[i + 1], NULL, 10);
	}
	return stats_add(out, w[0], (double)sum, false, err) ? -1 : 0;
}

static int softirqs_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct softirqs_state st = { .key = STRBUF_INIT };
	int ret = monitor_parse_lines(text, len, "softirqs", "/proc/softirqs text", NULL, softirqs_line, &st, out, err);

	softirqs_free_cpus(&st);
	strbuf_release(&st.key);
	return ret;
}

static int softirqs_monitor(struct run *r, const struct program *p, int out_fd)
{
	/* lkp-tests: no interval = one snapshot before and one after the test */
	return monitor_proc_file(r, p, "/proc/softirqs", 0, MONITOR_SNAP_NSEC, out_fd);
}

const struct program program_softirqs = {
	.version = PROGRAM_VERSION,
	.name = "softirqs",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/softirqs before and after the test: each softirq per CPU and summed",
	.options = softirqs_options,
	.monitor = softirqs_monitor,
	.parse = softirqs_parse,
};

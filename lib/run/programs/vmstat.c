/*
 * vmstat: the vmstat monitor and its parser, after lkp-tests'
 * programs/vmstat/{monitor,parse}.
 *
 * The monitor runs `vmstat --timestamp -n <interval>` (default 1 s) with
 * TZ=UTC until stopped. The parser reads the two header lines and maps
 * every column by its name (procs.r ... cpu.st, cpu.gu; a column it does
 * not know is named after its group in the first header line), so vmstat
 * versions with more columns parse too; every data line is one sample,
 * the first (vmstat's since-boot average) included, as lkp-tests keeps
 * it. The timestamp becomes `time` (epoch seconds, read as UTC like
 * lkp-tests, which is why the monitor sets TZ=UTC).
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A whitespace-separated word of a line, with its column in the line. */
struct vmstat_word {
	const char *s;
	size_t len, col;
};

static size_t vmstat_split(const char *line, size_t len, struct vmstat_word **w, size_t *alloc)
{
	size_t n = 0;

	for (size_t i = 0; i < len;) {
		while (i < len && isspace((unsigned char)line[i]))
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && !isspace((unsigned char)line[i]))
			i++;
		ALLOC_GROW(*w, n + 1, *alloc);
		(*w)[n].s = line + start;
		(*w)[n].len = i - start;
		(*w)[n].col = start;
		n++;
	}
	return n;
}

static bool vmstat_is(const struct vmstat_word *w, const char *s)
{
	return w->len == strlen(s) && !memcmp(w->s, s, w->len);
}

/* "procs", or "--procs--" as vmstat -w prints it */
static bool vmstat_is_group(const struct vmstat_word *w, const char *name)
{
	const char *s = w->s, *e = w->s + w->len;

	while (s < e && *s == '-')
		s++;
	while (e > s && e[-1] == '-')
		e--;
	return (size_t)(e - s) == strlen(name) && !memcmp(s, name, (size_t)(e - s));
}

/* The names lkp-tests gives vmstat's columns (and -a's inact/active). */
static const char *const vmstat_names[][2] = {
	{ "r", "procs.r" }, { "b", "procs.b" },
	{ "swpd", "memory.swpd" }, { "free", "memory.free" },
	{ "buff", "memory.buff" }, { "cache", "memory.cache" },
	{ "inact", "memory.inact" }, { "active", "memory.active" },
	{ "si", "swap.si" }, { "so", "swap.so" },
	{ "bi", "io.bi" }, { "bo", "io.bo" },
	{ "in", "system.in" }, { "cs", "system.cs" },
	{ "us", "cpu.us" }, { "sy", "cpu.sy" }, { "id", "cpu.id" },
	{ "wa", "cpu.wa" }, { "st", "cpu.st" }, { "gu", "cpu.gu" },
};

struct vmstat_hdr {
	struct vmstat_word *groups;	/* words of "procs -----memory---- ..." */
	size_t ngroups, galloc;
	bool have_groups, timestamp;
	char **keys;			/* one per column */
	size_t ncols;
};

static void vmstat_hdr_clear_keys(struct vmstat_hdr *h)
{
	for (size_t i = 0; i < h->ncols; i++)
		free(h->keys[i]);
	free(h->keys);
	h->keys = NULL;
	h->ncols = 0;
}

/* Key of an unknown column: the group (dashes stripped) above it. */
static char *vmstat_group_key(const struct vmstat_hdr *h, const struct vmstat_word *c)
{
	for (size_t g = 0; g < h->ngroups; g++) {
		const struct vmstat_word *gw = &h->groups[g];
		size_t gs = gw->col, ge = gw->col + gw->len;
		if (c->col + c->len <= gs || c->col >= ge)
			continue;
		const char *s = gw->s, *e = gw->s + gw->len;
		while (s < e && *s == '-')
			s++;
		while (e > s && e[-1] == '-')
			e--;
		if (s == e)
			return NULL;
		return xasprintf("%.*s.%.*s", (int)(e - s), s, (int)c->len, c->s);
	}
	return NULL;
}

static int vmstat_columns(struct vmstat_hdr *h, const struct vmstat_word *w, size_t n,
			  size_t lineno, struct strbuf *err)
{
	size_t ncols = h->timestamp ? n - 1 : n;

	vmstat_hdr_clear_keys(h);
	if (!h->have_groups || (h->timestamp && n < 2)) {
		strbuf_setf(err, "vmstat: line %zu: column names without the 'procs ---memory---' line above them",
			    lineno);
		return -1;
	}
	h->keys = xcalloc(ncols, sizeof(*h->keys));
	h->ncols = ncols;
	for (size_t i = 0; i < ncols; i++) {
		for (size_t k = 0; k < ARRAY_SIZE(vmstat_names); k++)
			if (vmstat_is(&w[i], vmstat_names[k][0]))
				h->keys[i] = xstrdup(vmstat_names[k][1]);
		if (!h->keys[i])
			h->keys[i] = vmstat_group_key(h, &w[i]);
		if (!h->keys[i]) {
			strbuf_setf(err, "vmstat: line %zu: column '%.*s' is under no group of the first header line",
				    lineno, (int)w[i].len, w[i].s);
			return -1;
		}
	}
	return 0;
}

/* "2015-01-11" "20:18:35" (UTC, as lkp-tests reads it) -> epoch seconds */
static int vmstat_time(const struct vmstat_word *d, const struct vmstat_word *t, long long *out)
{
	char buf[32];
	struct tm tm;
	int y, mo, da, h, mi, s, n = 0;

	if (d->len != 10 || t->len != 8)
		return -1;
	snprintf(buf, sizeof(buf), "%.10s %.8s", d->s, t->s);
	if (sscanf(buf, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &da, &h, &mi, &s, &n) != 6 || n != 19 ||
	    mo < 1 || mo > 12 || da < 1 || da > 31 || h > 23 || mi > 59 || s > 60)
		return -1;
	for (int i = 0; i < 19; i++)
		if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && !isdigit((unsigned char)buf[i]))
			return -1;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = da;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = s;
	*out = (long long)timegm(&tm);
	return 0;
}

static int vmstat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct vmstat_hdr h = { 0 };
	struct vmstat_word *w = NULL;
	size_t walloc = 0, lineno = 0;
	struct strbuf val = STRBUF_INIT;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "vmstat: the output has NUL bytes; not vmstat's text");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;

		lineno++;
		if (!nl) {
			strbuf_setf(err, "vmstat: line %zu has no end (truncated output)", lineno);
			goto out;
		}
		n = vmstat_split(p, (size_t)(nl - p), &w, &walloc);
		p = nl + 1;
		if (!n)
			continue;
		if (vmstat_is_group(&w[0], "procs")) {
			/* the group line; "-----timestamp-----" says the data ends with date and time */
			ALLOC_GROW(h.groups, n, h.galloc);
			memcpy(h.groups, w, n * sizeof(*w));
			h.ngroups = n;
			h.have_groups = true;
			h.timestamp = false;
			for (size_t i = 0; i < n; i++)
				if (memmem(w[i].s, w[i].len, "timestamp", 9))
					h.timestamp = true;
			continue;
		}
		if (vmstat_is(&w[0], "r")) {
			if (vmstat_columns(&h, w, n, lineno, err))
				goto out;
			continue;
		}
		if (!h.ncols) {
			strbuf_setf(err, "vmstat: line %zu: data before vmstat's header lines", lineno);
			goto out;
		}
		if (n != h.ncols + (h.timestamp ? 2 : 0)) {
			strbuf_setf(err, "vmstat: line %zu: %zu fields where the header has %zu columns%s",
				    lineno, n, h.ncols, h.timestamp ? " plus date and time" : "");
			goto out;
		}
		if (h.timestamp) {
			long long t;
			if (vmstat_time(&w[n - 2], &w[n - 1], &t)) {
				strbuf_setf(err, "vmstat: line %zu: '%.*s %.*s' is not a 'YYYY-MM-DD HH:MM:SS' timestamp",
					    lineno, (int)w[n - 2].len, w[n - 2].s, (int)w[n - 1].len, w[n - 1].s);
				goto out;
			}
			if (stats_add(out, "time", (double)t, false, err))
				goto out;
		}
		for (size_t i = 0; i < h.ncols; i++) {
			strbuf_reset(&val);
			strbuf_add(&val, w[i].s, w[i].len);
			if (stats_add_text(out, h.keys[i], val.buf, err)) {
				strbuf_setf(err, "vmstat: line %zu: %s: '%s' is not a number", lineno,
					    h.keys[i], val.buf);
				goto out;
			}
		}
	}
	ret = 0;
out:
	vmstat_hdr_clear_keys(&h);
	free(h.groups);
	free(w);
	strbuf_release(&val);
	return ret;
}

static int vmstat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf err = STRBUF_INIT;
	double interval;

	monitor_catch_stop();
	if (monitor_interval(r, p, 1, &interval, &err)) {
		fprintf(stderr, "vmstat: %s\n", err.buf);
		strbuf_release(&err);
		return 2;
	}
	if (interval < 1 || interval != floor(interval)) {
		fprintf(stderr, "vmstat: interval: vmstat takes whole seconds, not %g\n", interval);
		strbuf_release(&err);
		return 2;
	}
	strbuf_release(&err);
	return vmstat_exec("vmstat", interval, out_fd);
}

int vmstat_exec(const char *who, double interval, int out_fd)
{
	struct strbuf err = STRBUF_INIT;
	char num[32];
	int rc;

	snprintf(num, sizeof(num), "%.0f", interval);
	char *argv[] = { "vmstat", "--timestamp", "-n", num, NULL };
	rc = monitor_exec(argv, out_fd, MONITOR_EXEC_UTC, &err);
	if (rc < 0) {
		bool missing = errno == ENOENT;
		fprintf(stderr, "%s: %s%s\n", who, err.buf, missing ? " (Debian package procps)" : "");
		rc = missing ? MONITOR_UNAVAILABLE : 1;
	}
	strbuf_release(&err);
	return rc;
}

static const char *const vmstat_debs[] = { "procps", NULL };

const struct program program_vmstat = {
	.version = PROGRAM_VERSION,
	.name = "vmstat",
	.kind = PROGRAM_MONITOR,
	.summary = "vmstat --timestamp every second: processes, memory, swap, I/O, CPU (needs procps)",
	.monitor = vmstat_monitor,
	.parse = vmstat_parse,
	.debs = vmstat_debs,
};

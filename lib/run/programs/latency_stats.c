/*
 * latency_stats: the kernel's latencytop counters as a monitor, and its
 * parser, after lkp-tests' monitors/latency_stats and stats/latency_stats
 * (deprecated there in 2023 and removed in 2024, at 8cadd0ff0 and
 * 8bca22f2c; older 0-day reports have its rows, `latency_stats.sum.*`).
 * Not in the default monitor set: a job names `latency_stats:`.
 *
 * The monitor clears /proc/latency_stats, turns latencytop on
 * (/proc/sys/kernel/latencytop), and when the test is over writes "time:
 * <s>.<ns>" and /proc/latency_stats and turns it off. It needs
 * CONFIG_LATENCYTOP (kconfig/x86_64-pmem.config has it); `disable_latency_stats`
 * turns it off.
 *
 * The parser reads the lines "<hits> <total us> <max us> <func> <func>..."
 * (the ".isra.N", ".constprop.N" and ".part.N" suffixes dropped, as
 * lkp-tests; a line whose first function does not start with a letter is
 * not read, as lkp-tests' pattern does not match it) into, per call chain
 * f1.f2..., `hits.<chain>`, `sum.<chain>`, `avg.<chain>` (integer sum /
 * hits), `max.<chain>`, then `hits.max`, `sum.max`, `avg.max`, `max.max`
 * (the largest of each over the chains).
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const latency_stats_options[] = {
	"disable_latency_stats",
	NULL,
};

struct latency_chain {
	char *funcs;
	long long hits, sum, max;
};

void programs_strip_suffixes(struct strbuf *line)
{
	static const char *const sfx[] = { ".isra.", ".constprop.", ".part." };
	struct strbuf out = STRBUF_INIT;

	for (const char *p = line->buf; *p;) {
		size_t skip = 0;
		for (size_t i = 0; i < 3 && !skip; i++) {
			size_t n = strlen(sfx[i]);
			if (!strncmp(p, sfx[i], n) && p[n] >= '0' && p[n] <= '9')
				skip = n + strspn(p + n, "0123456789");
		}
		if (skip)
			p += skip;
		else
			strbuf_addch(&out, *p++);
	}
	strbuf_reset(line);
	strbuf_add(line, out.buf, out.len);
	strbuf_release(&out);
}

static void latency_line(struct latency_chain **c, size_t *n, size_t *alloc, struct strbuf *line, char ***w,
			 size_t *walloc)
{
	struct strbuf funcs = STRBUF_INIT;

	programs_strip_suffixes(line);
	size_t nw = monitor_words(line->buf, w, walloc);
	for (size_t i = 3; i < nw; i++)
		strbuf_addf(&funcs, "%s%s", i > 3 ? "." : "", (*w)[i]);
	size_t i = 0;
	while (i < *n && strcmp((*c)[i].funcs, funcs.buf))
		i++;
	if (i == *n) {
		ALLOC_GROW(*c, *n + 1, *alloc);
		memset(&(*c)[i], 0, sizeof(**c));
		(*c)[i].funcs = strbuf_detach(&funcs);
		(*n)++;
	}
	(*c)[i].hits += atoll((*w)[0]);
	(*c)[i].sum += atoll((*w)[1]);
	if (atoll((*w)[2]) > (*c)[i].max)
		(*c)[i].max = atoll((*w)[2]);
	strbuf_release(&funcs);
}

static int latency_show(const struct latency_chain *c, size_t n, struct stats_samples *out, struct strbuf *err)
{
	static const char *const kinds[] = { "hits", "sum", "avg", "max" };
	long long top[4] = { 0 };
	struct strbuf key = STRBUF_INIT;
	int ret = -1;

	for (size_t i = 0; i < n; i++) {
		long long v[4] = { c[i].hits, c[i].sum, c[i].hits ? c[i].sum / c[i].hits : 0, c[i].max };
		for (int k = 0; k < 4; k++) {
			strbuf_setf(&key, "%s.%s", kinds[k], c[i].funcs);
			if (stats_add(out, key.buf, (double)v[k], false, err))
				goto out;
			if (top[k] < v[k])
				top[k] = v[k];
		}
	}
	for (int k = 0; n && k < 4; k++) {
		strbuf_setf(&key, "%s.max", kinds[k]);
		if (stats_add(out, key.buf, (double)top[k], false, err))
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&key);
	return ret;
}

static bool latency_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * Does the line hold lkp-tests' pattern /[0-9]+ [0-9]+ [0-9]+ [a-zA-Z]+/
 * anywhere? In one pass: k counts the runs of digits each followed by one
 * space that lead, back to back, up to where the scan is (glibc's regexec
 * took minutes on a long line of digits: it tries every start).
 */
static bool latency_line_matches(const char *s)
{
	size_t k = 0;

	while (*s) {
		if (!latency_digit(*s)) {
			if (k >= 3 && ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
				return true;
			k = 0;
			s++;
			continue;
		}
		while (latency_digit(*s))
			s++;
		if (*s == ' ') {
			k++;
			s++;
		} else {
			k = 0;
		}
	}
	return false;
}

static int latency_stats_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct latency_chain *c = NULL;
	struct strbuf line = STRBUF_INIT;
	size_t n = 0, alloc = 0, walloc = 0, lineno = 0;
	char **w = NULL;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "latency_stats: the file has NUL bytes; not /proc/latency_stats text");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl) {
			strbuf_setf(err, "latency_stats: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		if (strstr(line.buf, "Latency Top version") || !latency_line_matches(line.buf))
			continue;
		latency_line(&c, &n, &alloc, &line, &w, &walloc);
	}
	ret = latency_show(c, n, out, err);
out:
	for (size_t i = 0; i < n; i++)
		free(c[i].funcs);
	free(c);
	free(w);
	strbuf_release(&line);
	return ret;
}

static int latency_write(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = -1;

	if (fd >= 0) {
		ret = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -1;
		close(fd);
	}
	return ret;
}

static int latency_stats_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf snap = STRBUF_INIT;
	struct timespec ts;
	int ret = 0;

	monitor_catch_stop();
	if (run_param(r, p, "disable_latency_stats")) {
		fprintf(stderr, "latency_stats: disable_latency_stats is set\n");
		return MONITOR_UNAVAILABLE;
	}
	if (latency_write("/proc/latency_stats", "0") || latency_write("/proc/sys/kernel/latencytop", "1")) {
		fprintf(stderr,
			"latency_stats: cannot reset /proc/latency_stats or turn on "
			"/proc/sys/kernel/latencytop (%s): CONFIG_LATENCYTOP is off\n",
			strerror(errno));
		return MONITOR_UNAVAILABLE;
	}
	monitor_sleep(-1); /* until the test is over */
	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_addf(&snap, "time: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	if (strbuf_read_file(&snap, "/proc/latency_stats") || fsutil_write_all(out_fd, snap.buf, snap.len)) {
		fprintf(stderr, "latency_stats: cannot copy /proc/latency_stats: %s\n", strerror(errno));
		ret = 1;
	}
	latency_write("/proc/sys/kernel/latencytop", "0");
	strbuf_release(&snap);
	return ret;
}

const struct program program_latency_stats = {
	.version = PROGRAM_VERSION,
	.name = "latency_stats",
	.kind = PROGRAM_MONITOR,
	.summary = "latencytop's call chains after the test: hits, sum, avg, max of each (needs CONFIG_LATENCYTOP)",
	.options = latency_stats_options,
	.monitor = latency_stats_monitor,
	.parse = latency_stats_parse,
};

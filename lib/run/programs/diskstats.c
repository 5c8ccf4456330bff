/*
 * diskstats: the /proc/diskstats monitor and its parser, after lkp-tests'
 * programs/diskstats/{monitor,parse}.
 *
 * The monitor writes "time: <epoch>" and /proc/diskstats every `interval`
 * seconds (default 1) and once more when stopped. The parser emits, for
 * each device, lkp-tests' eleven fields `<field>.<dev>`: read_ios,
 * read_merges, read_sectors, read_ticks, write_ios, write_merges,
 * write_sectors, write_ticks, in_flight, io_ticks, time_in_queue
 * (diskstats.read_ios.vda); the counters among them are reduced last minus
 * first (lkp-tests' event-counter prefixes), in_flight and time_in_queue
 * to their mean.
 *
 * Where it differs from lkp-tests: its parser reads only lines of exactly
 * 14 fields, the format before Linux 4.18; a newer kernel's lines (18 or
 * 20 fields: discards, flushes) give it no numbers at all. lkprobot reads
 * the same first eleven fields of those lines under the same names (a
 * 14-field line gives what lkp-tests gives) and names the newer fields
 * its own way: discard_ios, discard_merges, discard_sectors,
 * discard_ticks, flush_ios, flush_ticks.
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

static const char *const diskstats_options[] = {
	"interval",
	NULL,
};

static const char *const diskstats_fields[] = {
	"read_ios",	  "read_merges",     "read_sectors",  "read_ticks", "write_ios",     "write_merges",
	"write_sectors",  "write_ticks",     "in_flight",     "io_ticks",   "time_in_queue", "discard_ios",
	"discard_merges", "discard_sectors", "discard_ticks", "flush_ios",  "flush_ticks",
};

static bool diskstats_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* One line of words (a monitor_line_fn; ctx: the key's buffer). */
static int diskstats_line(void *ctx, char **w, size_t n, size_t lineno, struct stats_samples *out, struct strbuf *err)
{
	struct strbuf *key = ctx;

	if (n != 14 && n != 18 && n != 20) {
		strbuf_setf(err, "diskstats: line %zu: %zu fields, not 14, 18 or 20 (major minor name counters)",
			    lineno, n);
		return -1;
	}
	for (size_t i = 3; i < n; i++) {
		strbuf_setf(key, "%s.%s", diskstats_fields[i - 3], w[2]);
		if (!diskstats_number(w[i]) || stats_add_text(out, key->buf, w[i], err)) {
			strbuf_setf(err, "diskstats: line %zu: %s: '%s' is not a number", lineno, key->buf, w[i]);
			return -1;
		}
	}
	return 0;
}

static int diskstats_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT;
	int ret = monitor_parse_lines(text, len, "diskstats", "/proc/diskstats text", NULL, diskstats_line, &key, out,
				      err);

	strbuf_release(&key);
	return ret;
}

static int diskstats_monitor(struct run *r, const struct program *p, int out_fd)
{
	return monitor_proc_file(r, p, "/proc/diskstats", 1, 0, out_fd);
}

const struct program program_diskstats = {
	.version = PROGRAM_VERSION,
	.name = "diskstats",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/diskstats every second: each block device's I/O counters",
	.options = diskstats_options,
	.monitor = diskstats_monitor,
	.parse = diskstats_parse,
};

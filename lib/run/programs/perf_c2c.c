/*
 * perf-c2c: `perf c2c` as a monitor, and its parser, after lkp-tests'
 * programs/perf-c2c/{no-stdout-monitor,parse}.
 *
 * The monitor runs `perf c2c record -ag [-e event] [-<mode>] -D <delay
 * ms>` for `duration` seconds (default 3) after `delay` (default three
 * quarters of the job's runtime, else 60 s), or until the test ends, then
 * writes `perf c2c report -NN --stats` into the raw file perf-c2c and
 * `perf c2c report --stdio --call-graph none` into perf-c2c-profile.log.
 * It needs perf and the CPU's memory-sampling events (a PMU: not in a
 * VM without one, where perf says "memory events not supported"); then it
 * is unavailable, saying so. lkp-tests skips it on a virtual machine.
 *
 * The parser picks the load counts of the statistics: `HITM.local`,
 * `HITM.remote`, `HIT.remote`, `DRAM.local`, `DRAM.remote`, and
 * `HITM.total` (local + remote), as lkp-tests prints them.
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
#include <unistd.h>

static const char *const perf_c2c_options[] = {
	"event", "mode", "ldlat", "delay", "duration", "debug_mode", NULL,
};

static const char *const perf_c2c_debs[] = { "linux-perf", NULL };

static int perf_c2c_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	/* lkp-tests' cases in its order: " Load Remote HITM" before " Load Remote HIT" */
	static const char *const pat[][2] = {
		{ " Load Local HITM", "HITM.local" },	{ " Load Remote HITM", "HITM.remote" },
		{ " Load Remote HIT", "HIT.remote" },	{ " Load Local DRAM", "DRAM.local" },
		{ " Load Remote DRAM", "DRAM.remote" },
	};
	struct strbuf line = STRBUF_INIT;
	long long hitm[2] = { 0, 0 };
	size_t lineno = 0;
	int ret = -1;

	if (!len)
		return 0; /* the monitor was unavailable: nothing written */
	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "perf-c2c: the file has NUL bytes; not perf c2c report's text");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl) {
			strbuf_setf(err, "perf-c2c: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		for (size_t i = 0; i < 5; i++) {
			if (!strstr(line.buf, pat[i][0]))
				continue;
			strbuf_rtrim(&line);
			const char *last = strrchr(line.buf, ' ');
			last = last ? last + 1 : line.buf;
			if (stats_add_text(out, pat[i][1], last, err)) {
				strbuf_setf(err, "perf-c2c: line %zu: %s: '%s' is not a number", lineno, pat[i][1],
					    last);
				goto out;
			}
			if (i < 2)
				hitm[i] = atoll(last);
			break;
		}
	}
	ret = stats_add(out, "HITM.total", (double)(hitm[0] + hitm[1]), false, err) ? -1 : 0;
out:
	strbuf_release(&line);
	return ret;
}

/* `perf c2c report <args> -i data` into the file `path` (or out_fd). */
static int perf_c2c_report(char **args, size_t nargs, const char *data, const char *path, int out_fd)
{
	char *argv[12] = { "perf", "c2c", "report" };
	struct strbuf said = STRBUF_INIT, err = STRBUF_INIT;
	size_t n = 3;
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : out_fd, rc;

	for (size_t i = 0; i < nargs; i++)
		argv[n++] = args[i];
	argv[n++] = "-i";
	argv[n++] = (char *)data;
	argv[n] = NULL;
	rc = fd < 0 ? -1 : monitor_run_to(argv, fd, &said, &err);
	if (rc)
		fprintf(stderr, "perf-c2c: perf c2c report failed (%d): %.200s\n", rc, err.len ? err.buf : said.buf);
	if (path && fd >= 0)
		close(fd);
	strbuf_release(&said);
	strbuf_release(&err);
	return rc ? -1 : 0;
}

static int perf_c2c_monitor(struct run *r, const struct program *p, int out_fd)
{
	const char *delay_s = run_param(r, p, "delay"), *dur_s = run_param(r, p, "duration");
	const char *runtime = run_param(r, p, "runtime"), *event = run_param(r, p, "event");
	const char *mode = run_param(r, p, "mode");
	long delay = delay_s ? atol(delay_s) : runtime ? atol(runtime) * 3 / 4 : 60;
	long duration = dur_s ? atol(dur_s) : 3;
	char *data = run_path(r, ".perf-c2c.data"), *log = run_path(r, "perf-c2c-profile.log");
	char dms[32], secs[32], modeopt[64];
	struct strbuf err = STRBUF_INIT, said = STRBUF_INIT;
	char *argv[20];
	size_t n = 0;
	int rc;

	monitor_catch_stop();
	snprintf(dms, sizeof(dms), "%ld", delay * 1000);
	snprintf(secs, sizeof(secs), "%ld", delay + duration);
	snprintf(modeopt, sizeof(modeopt), "-%s", mode ? mode : "");
	argv[n++] = "perf";
	argv[n++] = "c2c";
	argv[n++] = "record";
	argv[n++] = "-ag";
	if (event) {
		argv[n++] = "-e";
		argv[n++] = (char *)event;
	}
	if (mode)
		argv[n++] = modeopt;
	argv[n++] = "-o";
	argv[n++] = data;
	if (delay > 0) {
		argv[n++] = "-D";
		argv[n++] = dms;
	}
	argv[n++] = "--";
	argv[n++] = "sleep";
	argv[n++] = secs;
	argv[n] = NULL;
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	/* perf's own complaint ("memory events not supported") goes to our stderr, before our line */
	rc = monitor_exec(argv, null, MONITOR_EXEC_STOP_SIGINT, &err);
	close(null);
	if (rc < 0 || access(data, R_OK)) {
		bool missing = rc < 0 && errno == ENOENT;
		fprintf(stderr, "perf-c2c: perf c2c record %s%s\n",
			rc < 0 ? err.buf : "wrote no data (no memory-sampling events: a PMU is needed)",
			missing ? " (Debian package linux-perf)" : "");
		rc = MONITOR_UNAVAILABLE;
	} else {
		char *profile[] = { "--stdio", "--call-graph", "none" }, *stats[] = { "-NN", "--stats" };
		rc = perf_c2c_report(profile, 3, data, log, -1) | perf_c2c_report(stats, 2, data, NULL, out_fd) ? 1 : 0;
	}
	unlink(data);
	free(data);
	free(log);
	strbuf_release(&err);
	strbuf_release(&said);
	return rc;
}

const struct program program_perf_c2c = {
	.version = PROGRAM_VERSION,
	.name = "perf-c2c",
	.kind = PROGRAM_MONITOR,
	.summary = "perf c2c record for 3 s into the test: HITM loads, local and remote (needs perf and a PMU)",
	.options = perf_c2c_options,
	.monitor = perf_c2c_monitor,
	.parse = perf_c2c_parse,
	.debs = perf_c2c_debs,
};

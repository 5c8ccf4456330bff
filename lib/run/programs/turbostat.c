/*
 * turbostat: the CPU frequency/C-state/RAPL monitor and its parser, after
 * lkp-tests' programs/turbostat/{monitor,parse}.
 *
 * The monitor runs `turbostat cat` once, as lkp-tests runs
 * `turbostat <wait-for-post-test>`: turbostat measures while its command
 * runs and prints one summary at the end; `cat` reads a pipe the monitor
 * closes when it is stopped. turbostat prints on stderr, which goes to the
 * raw file with stdout (lkp-tests' 2>&1). It needs the msr driver
 * (/dev/cpu/N/msr); without it, or when a first `turbostat --quiet true`
 * fails (a VM without APERF/MPERF, a container that may not raise
 * RLIMIT_NOFILE), or when that check prints no Busy% column (a CPU without
 * APERF/MPERF, as under QEMU's TCG), the monitor says why on stderr and
 * exits MONITOR_UNAVAILABLE.
 *
 * The parser takes the first header line containing "Busy%" and the line
 * after it (the system summary row), aligns the values to the right of the
 * header and emits `<column>: <value>` under turbostat's own column names
 * (Avg_MHz, Busy%, Bzy_MHz, TSC_MHz, IRQ, C1%, CPU%c1, PkgWatt, ...),
 * skipping values with '*' and "-".
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t turbostat_split(char *line, char ***w, size_t *alloc)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		ALLOC_GROW(*w, n + 1, *alloc);
		(*w)[n++] = t;
	}
	return n;
}

static int turbostat_parse(const char *text, size_t len, struct stats_samples *out,
			   struct strbuf *err)
{
	struct strbuf head = STRBUF_INIT, row = STRBUF_INIT;
	char **titles = NULL, **vals = NULL;
	size_t talloc = 0, valloc = 0, lineno = 0;
	const char *p = text, *end = text + len;
	int ret = -1;

	if (!len)
		return 0;	/* turbostat never ran (unavailable here) */
	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "turbostat: the output has NUL bytes; not turbostat's text");
		return -1;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		lineno++;
		if (memmem(p, (size_t)(e - p), "Busy%", 5)) {
			strbuf_add(&head, p, (size_t)(e - p));
			p = nl ? nl + 1 : end;
			break;
		}
		p = nl ? nl + 1 : end;
	}
	if (!head.len) {
		strbuf_setf(err, "turbostat: no header line with 'Busy%%': turbostat printed no summary");
		goto out;
	}
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	if (p >= end || !nl) {
		strbuf_setf(err, "turbostat: line %zu: the header has no summary row after it (truncated output)",
			    lineno);
		goto out;
	}
	strbuf_add(&row, p, (size_t)(nl - p));
	size_t nt = turbostat_split(head.buf, &titles, &talloc);
	size_t nv = turbostat_split(row.buf, &vals, &valloc);
	if (!nv || nv > nt) {
		strbuf_setf(err, "turbostat: line %zu: %zu values under %zu column names", lineno + 1, nv, nt);
		goto out;
	}
	for (size_t i = 0; i < nv; i++) {
		const char *title = titles[nt - nv + i];
		if (strchr(vals[i], '*') || !strcmp(vals[i], "-"))
			continue;
		if (stats_add_text(out, title, vals[i], err)) {
			strbuf_setf(err, "turbostat: line %zu: %s: '%s' is not a number", lineno + 1, title,
				    vals[i]);
			goto out;
		}
	}
	ret = 0;
out:
	free(titles);
	free(vals);
	strbuf_release(&head);
	strbuf_release(&row);
	return ret;
}

static bool turbostat_cpu_has_msr(void)
{
	struct strbuf info = STRBUF_INIT;
	bool has = false;

	if (!strbuf_read_file(&info, "/proc/cpuinfo")) {
		for (char *l = info.buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			size_t n = strcspn(l, "\n");
			if (!strncmp(l, "flags", 5) && memmem(l, n, " msr ", 5)) {
				has = true;
				break;
			}
		}
	}
	strbuf_release(&info);
	return has;
}

static bool turbostat_have_msr_dev(void)
{
	struct stat st;

	return !stat("/dev/cpu/0/msr", &st) && S_ISCHR(st.st_mode);
}

/* Last non-empty line of a tool's output, for a one-line reason. */
static const char *turbostat_last_line(struct strbuf *sb)
{
	char *nl;

	strbuf_rtrim(sb);
	nl = strrchr(sb->buf, '\n');
	return nl ? nl + 1 : sb->buf;
}

static int turbostat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT;
	int rc = MONITOR_UNAVAILABLE;

	(void)r;
	(void)p;
	monitor_catch_stop();
	if (!run_have("turbostat")) {
		fprintf(stderr, "turbostat: not installed (Debian package linux-cpupower)\n");
		goto out;
	}
	if (!turbostat_cpu_has_msr()) {
		fprintf(stderr, "turbostat: the CPU has no MSRs (no 'msr' flag in /proc/cpuinfo)\n");
		goto out;
	}
	if (!turbostat_have_msr_dev() && run_have("modprobe")) {
		char *modprobe[] = { "modprobe", "msr", NULL };
		monitor_capture(modprobe, &msg, &err);
		strbuf_reset(&msg);
	}
	if (!turbostat_have_msr_dev()) {
		fprintf(stderr, "turbostat: /dev/cpu/0/msr does not exist (msr driver not loaded%s; a VM or container?)\n",
			run_have("modprobe") ? "" : ", no modprobe");
		goto out;
	}
	char *check[] = { "turbostat", "--quiet", "true", NULL };
	int st = monitor_capture(check, &msg, &err);
	if (st) {
		fprintf(stderr, "turbostat: does not work here: %s\n",
			st < 0 ? err.buf : turbostat_last_line(&msg));
		goto out;
	}
	if (!strstr(msg.buf, "Busy%")) {
		/* the table lkp-tests parses starts at Busy% */
		fprintf(stderr, "turbostat: the CPU has no APERF/MPERF counters (an emulated or virtual CPU): "
				"no Busy%%, Bzy_MHz or C-state columns to report\n");
		goto out;
	}

	char *argv[] = { "turbostat", "cat", NULL };
	rc = monitor_exec(argv, out_fd, MONITOR_EXEC_STDERR | MONITOR_EXEC_STOP_STDIN, &err);
	if (rc < 0) {
		fprintf(stderr, "turbostat: %s\n", err.buf);
		rc = errno == ENOENT ? MONITOR_UNAVAILABLE : 1;
	} else if (!monitor_stopped()) {
		fprintf(stderr, "turbostat: exited (status %d) before the test ended\n", rc);
		rc = rc ? rc : 1;
	}
out:
	strbuf_release(&err);
	strbuf_release(&msg);
	return rc;
}

static const char *const turbostat_debs[] = { "linux-cpupower", NULL };

/* power: less is better (lkp-tests' power index) */
static const struct program_metric turbostat_metrics[] = {
	{ "PkgWatt", -1, false },
	{ "RAMWatt", -1, false },
	{ "CorWatt", -1, false },
	{ NULL, 0, false },
};

const struct program program_turbostat = {
	.version = PROGRAM_VERSION,
	.name = "turbostat",
	.kind = PROGRAM_MONITOR,
	.summary =
		"turbostat over the test: CPU frequency, C-states and RAPL power (needs x86, the msr driver, "
		"linux-cpupower)",
	.monitor = turbostat_monitor,
	.parse = turbostat_parse,
	.debs = turbostat_debs,
	.metrics = turbostat_metrics,
};

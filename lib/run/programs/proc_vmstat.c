/*
 * proc-vmstat: the /proc/vmstat monitor and its parser, after lkp-tests'
 * programs/proc-vmstat/{monitor,parse}.
 *
 * The monitor writes "time: <epoch>" and /proc/vmstat every `interval`
 * seconds (default 1, as lkp-tests) and once more when stopped, keeping
 * only the first line of a counter the kernel lists twice (lkp-tests'
 * awk '!x[$1]++'). The parser emits `time` and every counter under its
 * own name (proc-vmstat.nr_free_pages, proc-vmstat.pgfault, ...); a
 * counter repeated inside one snapshot is read once, as the monitor
 * writes it.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../util/sset.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <stdio.h>
#include <string.h>

static const char *const proc_vmstat_options[] = {
	"interval", NULL,
};

static int proc_vmstat_parse(const char *text, size_t len, struct stats_samples *out,
			     struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	struct sset seen = { 0 };
	size_t lineno = 0;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "proc-vmstat: the file has NUL bytes; not /proc/vmstat text");
		return -1;
	}
	const char *p = text, *end = text + len;
	int rc;

	while ((rc = monitor_snapshot_line(&p, end, &lineno, &line, "proc-vmstat", out, err)) > 0) {
		char *save = NULL, *key, *val;

		if (rc == 2) {	/* a new snapshot */
			sset_release(&seen);
			continue;
		}
		key = strtok_r(line.buf, " \t\r", &save);
		if (!key)
			continue;
		val = strtok_r(NULL, " \t\r", &save);
		if (!val || strtok_r(NULL, " \t\r", &save)) {
			strbuf_setf(err, "proc-vmstat: line %zu: '%s' is not a 'counter value' line", lineno, key);
			goto out;
		}
		size_t klen = strlen(key);
		if (klen > 1 && key[klen - 1] == ':')
			key[klen - 1] = '\0';
		if (!sset_add(&seen, key))
			continue;
		if (stats_add_text(out, key, val, err)) {
			strbuf_setf(err, "proc-vmstat: line %zu: %s: '%s' is not a number", lineno, key, val);
			goto out;
		}
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	sset_release(&seen);
	strbuf_release(&line);
	return ret;
}

static int proc_vmstat_monitor(struct run *r, const struct program *p, int out_fd)
{
	return monitor_proc_file(r, p, "/proc/vmstat", 1, MONITOR_SNAP_DEDUP, out_fd);
}

const struct program program_proc_vmstat = {
	.version = PROGRAM_VERSION,
	.name = "proc-vmstat",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/vmstat every second (interval): the kernel's VM event counters",
	.options = proc_vmstat_options,
	.monitor = proc_vmstat_monitor,
	.parse = proc_vmstat_parse,
};

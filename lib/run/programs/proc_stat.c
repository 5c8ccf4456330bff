/*
 * proc-stat: the /proc/stat monitor, after lkp-tests' programs/proc-stat
 * (its proc-vmstat monitor under another name).
 *
 * The monitor writes "time: <epoch>" and /proc/stat every `interval`
 * seconds (default 10, as lkp-tests) and once more when stopped, into the
 * raw file proc-stat. lkp-tests has no parser for it (no proc-stat.*
 * metrics in its results, nor here): the file is kept for whoever reads
 * the result root.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"

static const char *const proc_stat_options[] = {
	"interval",
	NULL,
};

static int proc_stat_monitor(struct run *r, const struct program *p, int out_fd)
{
	return monitor_proc_file(r, p, "/proc/stat", 10, 0, out_fd);
}

const struct program program_proc_stat = {
	.version = PROGRAM_VERSION,
	.name = "proc-stat",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/stat every 10 s, raw only (lkp-tests parses none of it)",
	.options = proc_stat_options,
	.monitor = proc_stat_monitor,
};

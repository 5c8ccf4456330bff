/*
 * proc-vmstat: the /proc/vmstat monitor.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const proc_vmstat_options[] = {
	"interval", NULL,
};

const struct program program_proc_vmstat = {
	.version = PROGRAM_VERSION,
	.name = "proc-vmstat",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/vmstat counters",
	.options = proc_vmstat_options,
};

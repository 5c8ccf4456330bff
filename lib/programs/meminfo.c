/*
 * meminfo: the /proc/meminfo monitor.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const meminfo_options[] = {
	"interval", NULL,
};

const struct program program_meminfo = {
	.version = PROGRAM_VERSION,
	.name = "meminfo",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/meminfo samples",
	.options = meminfo_options,
};

/*
 * vmstat: the vmstat monitor.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

const struct program program_vmstat = {
	.version = PROGRAM_VERSION,
	.name = "vmstat",
	.kind = PROGRAM_MONITOR,
	.summary = "vmstat samples every second",
};

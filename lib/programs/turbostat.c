/*
 * turbostat: the CPU frequency/power monitor.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

const struct program program_turbostat = {
	.version = PROGRAM_VERSION,
	.name = "turbostat",
	.kind = PROGRAM_MONITOR,
	.summary = "CPU frequency, C-states and RAPL power over the test",
};

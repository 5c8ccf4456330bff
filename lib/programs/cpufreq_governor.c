/*
 * cpufreq_governor: the CPU frequency governor a benchmark runs under.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

const struct program program_cpufreq_governor = {
	.version = PROGRAM_VERSION,
	.name = "cpufreq_governor",
	.kind = PROGRAM_SETUP,
	.summary = "set the CPU frequency governor of every CPU (value: governor name)",
};

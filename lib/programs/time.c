/*
 * time: the rusage of a test (GNU time -v format); parsed, not run.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

const struct program program_time = {
	.version = PROGRAM_VERSION,
	.name = "time",
	.kind = PROGRAM_STATS,
	.summary = "rusage of the test, as GNU time -v prints it",
};

/*
 * debug-setup: a debugging hook before the test.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const debug_setup_options[] = {
	"param_a", "param_b", "param_c", "param_d", NULL,
};

const struct program program_debug_setup = {
	.version = PROGRAM_VERSION,
	.name = "debug-setup",
	.kind = PROGRAM_SETUP,
	.summary = "a debugging hook run before the test (value: its name)",
	.options = debug_setup_options,
};

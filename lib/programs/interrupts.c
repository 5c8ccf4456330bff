/*
 * interrupts: the /proc/interrupts monitor.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const interrupts_options[] = {
	"interval", NULL,
};

const struct program program_interrupts = {
	.version = PROGRAM_VERSION,
	.name = "interrupts",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/interrupts before and after the test",
	.options = interrupts_options,
};

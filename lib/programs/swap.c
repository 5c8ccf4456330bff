/*
 * swap: swap space on the job's devices (vm-scalability swap cases).
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const swap_options[] = {
	"priority", "vma_swap_readahead", NULL,
};

const struct program program_swap = {
	.version = PROGRAM_VERSION,
	.name = "swap",
	.kind = PROGRAM_SETUP,
	.summary = "make and enable swap on the job's devices",
	.options = swap_options,
};

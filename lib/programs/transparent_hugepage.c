/*
 * transparent_hugepage: THP settings for mm benchmarks.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const transparent_hugepage_options[] = {
	"thp_enabled", "thp_defrag", "shmem_enabled", "enabled_64kB",
	"enabled_32kB", "enabled_16kB", NULL,
};

const struct program program_transparent_hugepage = {
	.version = PROGRAM_VERSION,
	.name = "transparent_hugepage",
	.kind = PROGRAM_SETUP,
	.summary = "set /sys/kernel/mm/transparent_hugepage knobs",
	.options = transparent_hugepage_options,
};

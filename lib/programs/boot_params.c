/*
 * boot_params: the job's kernel command-line parameters (bp*_memmap, ...).
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const boot_params_options[] = {
	"bp_memmap", "bp1_memmap", "bp2_memmap", "bp3_memmap", "bp4_memmap",
	"bp_disable_mtrr_trim", "bp_idle", "bp_maxcpus", "bp_intel_iommu", NULL,
};

const struct program program_boot_params = {
	.version = PROGRAM_VERSION,
	.name = "boot_params",
	.kind = PROGRAM_SETUP,
	.summary = "check that the kernel command line carries the job's boot parameters (memmap=... for legacy pmem)",
	.options = boot_params_options,
};

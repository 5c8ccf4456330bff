/*
 * disk: which block devices a job uses (pmem, HDD, SSD, brd).
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const disk_options[] = {
	"nr_ssd", "nr_hdd", "nr_brd", "nr_srd", "nr_pmem",
	"wait_disks_timeout", NULL,
};

const struct program program_disk = {
	.version = PROGRAM_VERSION,
	.name = "disk",
	.kind = PROGRAM_SETUP,
	.summary = "find the job's block devices: Npmem, NHDD, NSSD, NBRD (value: e.g. 2pmem)",
	.options = disk_options,
};

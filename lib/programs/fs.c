/*
 * fs: the file system made and mounted on the job's devices.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const fs_options[] = {
	"fs", "format", "mkfs", "mount", "mount_option", "nr_tmpfs", NULL,
};

const struct program program_fs = {
	.version = PROGRAM_VERSION,
	.name = "fs",
	.kind = PROGRAM_SETUP,
	.summary = "make a file system on each device and mount it under /fs/<dev>",
	.options = fs_options,
};

static const char *const fs1_options[] = {
	"fs", "format", "mkfs", "mount", "mount_option", "nr_tmpfs", NULL,
};

const struct program program_fs1 = {
	.version = PROGRAM_VERSION,
	.name = "fs1",
	.kind = PROGRAM_SETUP,
	.summary = "a second file system setup (as fs), for jobs with two file systems",
	.options = fs1_options,
};

static const char *const fs2_options[] = {
	"fs", "format", "mkfs", "mount", "mount_option", "nr_tmpfs", NULL,
};

const struct program program_fs2 = {
	.version = PROGRAM_VERSION,
	.name = "fs2",
	.kind = PROGRAM_SETUP,
	.summary = "a third file system setup (as fs), e.g. NFS on top of a local file system",
	.options = fs2_options,
};

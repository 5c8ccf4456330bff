/*
 * cgroup2: run a test inside cgroup v2 groups.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const cgroup2_options[] = {
	"cg_count", "cg_bind", "cpuset.cpus", "cpuset.mems", "memory.high",
	"memory.low", "memory.max", "memory.swap.max", "io.max", "io.weight",
	"rdma.max", "pids.max", NULL,
};

const struct program program_cgroup2 = {
	.version = PROGRAM_VERSION,
	.name = "cgroup2",
	.kind = PROGRAM_SETUP,
	.summary = "run the test in cgroup v2 groups with the given limits",
	.options = cgroup2_options,
};

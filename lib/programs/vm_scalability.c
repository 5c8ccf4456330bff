/*
 * vm-scalability: the mm scalability test cases.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const vm_scalability_options[] = {
	"runtime", "nr_task", "test", "size", "unit_size", "fs", "pre_setup",
	"sync_rw", "bind_cpu", "repeat", "cpu_delay", "sync_free",
	"timed_wp", NULL,
};

const struct program program_vm_scalability = {
	.version = PROGRAM_VERSION,
	.name = "vm-scalability",
	.kind = PROGRAM_TEST,
	.summary = "exercise the kernel's mm (anon, swap, page cache cases)",
	.options = vm_scalability_options,
};

/*
 * Monitors that lkp-tests' default monitor set (include/category/benchmark)
 * names. They are declared so that lkp-tests job files load and expand
 * the same way; their options follow lkp-tests' monitor scripts.
 */
#include "../program.h"

static const char *const perf_node_options[] = {
	"events", "interval", "delay", NULL,
};

const struct program program_perf_node = {
	.version = PROGRAM_VERSION,
	.name = "perf-node",
	.kind = PROGRAM_MONITOR,
	.summary = "per-node perf events",
	.options = perf_node_options,
};

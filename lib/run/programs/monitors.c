/*
 * Monitors that lkp-tests' default monitor set (include/category/benchmark)
 * names. They are declared so that lkp-tests job files load and expand
 * the same way; their options follow lkp-tests' monitor scripts.
 */
#include "../program.h"

static const char *const perf_c2c_options[] = {
	"event", "mode", "ldlat", "delay", "duration", "debug_mode", NULL,
};

const struct program program_perf_c2c = {
	.version = PROGRAM_VERSION,
	.name = "perf-c2c",
	.kind = PROGRAM_MONITOR,
	.summary = "perf c2c cache-line contention",
	.options = perf_c2c_options,
};

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

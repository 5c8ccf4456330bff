/*
 * Monitors that lkp-tests' default monitor set (include/category/benchmark)
 * names. They are declared so that lkp-tests job files load and expand
 * the same way; their options follow lkp-tests' monitor scripts.
 */
#include "../program.h"

const struct program program_bdi_dev_mapping = {
	.version = PROGRAM_VERSION,
	.name = "bdi_dev_mapping",
	.kind = PROGRAM_MONITOR,
	.summary = "one-shot map of block devices to backing devices",
};

static const char *const cpufreq_stats_options[] = {
	"interval", NULL,
};

const struct program program_cpufreq_stats = {
	.version = PROGRAM_VERSION,
	.name = "cpufreq-stats",
	.kind = PROGRAM_MONITOR,
	.summary = "cpufreq time-in-state statistics",
	.options = cpufreq_stats_options,
};

static const char *const cpuidle_options[] = {
	"interval", NULL,
};

const struct program program_cpuidle = {
	.version = PROGRAM_VERSION,
	.name = "cpuidle",
	.kind = PROGRAM_MONITOR,
	.summary = "cpuidle state usage",
	.options = cpuidle_options,
};

const struct program program_heartbeat = {
	.version = PROGRAM_VERSION,
	.name = "heartbeat",
	.kind = PROGRAM_MONITOR,
	.summary = "periodic liveness line",
};

const struct program program_lock_stat = {
	.version = PROGRAM_VERSION,
	.name = "lock_stat",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/lock_stat (needs CONFIG_LOCK_STAT)",
};

static const char *const nfsstat_options[] = {
	"interval", NULL,
};

const struct program program_nfsstat = {
	.version = PROGRAM_VERSION,
	.name = "nfsstat",
	.kind = PROGRAM_MONITOR,
	.summary = "NFS statistics",
	.options = nfsstat_options,
};

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

static const char *const perf_profile_options[] = {
	"events", "period", "freq", "delay", "duration", "callgraph",
	"children", "inline", "cpu", "debug_mode", NULL,
};

const struct program program_perf_profile = {
	.version = PROGRAM_VERSION,
	.name = "perf-profile",
	.kind = PROGRAM_MONITOR,
	.summary = "perf record call-graph profile",
	.options = perf_profile_options,
};

static const char *const perf_sched_options[] = {
	"lite_mode", "delay", "duration", "runtime", NULL,
};

const struct program program_perf_sched = {
	.version = PROGRAM_VERSION,
	.name = "perf-sched",
	.kind = PROGRAM_MONITOR,
	.summary = "perf sched latency",
	.options = perf_sched_options,
};

static const char *const sched_debug_options[] = {
	"interval", NULL,
};

const struct program program_sched_debug = {
	.version = PROGRAM_VERSION,
	.name = "sched_debug",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/sched_debug samples",
	.options = sched_debug_options,
};

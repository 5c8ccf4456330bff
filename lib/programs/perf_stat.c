/*
 * perf-stat: the perf event counting monitor.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const perf_stat_options[] = {
	"events", "revents", "delay", "duration", "command", "per_socket",
	"per_die", "interval_ms", "rmetrics", "metrics", "metric_only",
	"list_pmu_events", NULL,
};

const struct program program_perf_stat = {
	.version = PROGRAM_VERSION,
	.name = "perf-stat",
	.kind = PROGRAM_MONITOR,
	.summary = "system-wide hardware and software event counts per interval",
	.options = perf_stat_options,
};

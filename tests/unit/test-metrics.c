/*
 * Unit tests: each metric's direction (compare_direction: +1 higher is
 * better, -1 lower is better, 0 none) and headline flag (program_metric_headline:
 * a test's key figure, which `run` prints and a report leads with), pinned
 * for the metrics that compare's KPI table and run's key-metric rule named
 * before the programs declared them: a program's table may grow, these
 * answers stay.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "../../lib/results/compare.h"
#include "../../lib/run/program.h"

static const struct {
	const char *metric;
	int direction;
	bool headline;
} pinned[] = {
	/* fio: bandwidth and IOPS up, latencies down */
	{ "fio.write_bw_MBps", +1, true },
	{ "fio.read_bw_MBps", +1, true },
	{ "fio.write_iops", +1, true },
	{ "fio.read_iops", +1, true },
	{ "fio.write_clat_mean_ns", -1, true },
	{ "fio.read_clat_mean_ns", -1, true },
	{ "fio.write_clat_stddev", -1, false },
	{ "fio.write_clat_90%_ns", -1, false },
	{ "fio.read_clat_95%_us", -1, false },
	{ "fio.write_clat_99%_ns", -1, false },
	{ "fio.write_slat_mean_us", -1, false },
	{ "fio.write_slat_stddev", -1, false },
	{ "fio.write_lat_mean_us", -1, false },
	{ "fio.read_lat_99%_us", -1, false },
	{ "fio.latency_50us%", 0, false },
	{ "fio.latency_2ms%", 0, false },
	{ "fio.workload", 0, false },
	{ "fio.time.elapsed_time", -1, true },
	{ "fio.time.elapsed_time.max", -1, true },
	{ "fio.time.user_time", 0, false },
	{ "fio.median", 0, true },
	{ "fio.x.median", 0, false },
	{ "fio.write_bw_MBps_stddev", 0, true },
	{ "fio.write_iops_stddev", 0, true },
	{ "fio.a_lat_b.throughput", -1, true },
	/* vm-scalability: throughput, the median worker and the work done up */
	{ "vm-scalability.throughput", +1, true },
	{ "vm-scalability.median", +1, true },
	{ "vm-scalability.workload", +1, false },
	{ "vm-scalability.median_stddev%", 0, false },
	{ "vm-scalability.stddev%", 0, false },
	{ "vm-scalability.throughput_fault", 0, true },
	{ "vm-scalability.time.elapsed_time", -1, true },
	{ "vm-scalability.time.elapsed_time.max", -1, true },
	{ "vm-scalability.time.system_time", 0, false },
	/* command: the user's figures, by the names every program shares */
	{ "command.throughput", +1, true },
	{ "command.jobs_per_min", +1, false },
	{ "command.ops_per_sec", +1, false },
	{ "command.ops", +1, false },
	{ "command.median", 0, true },
	{ "command.x.median", 0, false },
	{ "command.a.throughput", +1, true },
	{ "command.read_iops", 0, true },
	{ "command.clat_mean", 0, true },
	{ "command.latency", 0, false },
	{ "command.time.elapsed_time", -1, true },
	{ "command.time.elapsed_time.max", -1, true },
	{ "command.x.time.elapsed_time", -1, true },
	{ "command.time.elapsed_time_x", 0, true },
	{ "command.ops.x", 0, false },
	/* LKP's programs lkprobot does not run (a result root of lkp-tests): directions, never headlines */
	{ "will-it-scale.throughput", +1, false },
	{ "will-it-scale.per_process_ops", 0, false },
	{ "hackbench.throughput", +1, false },
	{ "aim7.jobs_per_min", +1, false },
	{ "stress-ng.ops_per_sec", +1, false },
	{ "stress-ng.fork.ops_per_sec", +1, false },
	{ "stress-ng.fork.ops", +1, false },
	{ "reaim.jobs_per_min", +1, false },
	{ "pmbench.x.y.throughput", +1, false },
	{ "unixbench.time.elapsed_time", -1, false },
	{ "netperf.Throughput_Mbps", 0, false },
	{ ".throughput", +1, false },
	{ "throughput", 0, false },
	{ "ops", 0, false },
	/* perf-stat: instructions per cycle up, cycles per instruction down */
	{ "perf-stat.ipc", +1, false },
	{ "perf-stat.overall.ipc", +1, false },
	{ "perf-stat.cpi", -1, false },
	{ "perf-stat.overall.cpi", -1, false },
	{ "perf-stat.ps.ipc", 0, false },
	{ "perf-stat.i.ipc", 0, false },
	{ "perf-stat.cache-misses", 0, false },
	{ "perf-stat.overall.cache-miss-rate%", 0, false },
	{ "perf-stat.throughput", +1, false },
	/* turbostat: power down (lkp-tests' power index) */
	{ "turbostat.PkgWatt", -1, false },
	{ "turbostat.RAMWatt", -1, false },
	{ "turbostat.CorWatt", -1, false },
	{ "turbostat.GFXWatt", 0, false },
	{ "turbostat.Avg_MHz", 0, false },
	{ "turbostat.Busy%", 0, false },
	/* monitors and the rest: no direction */
	{ "time.elapsed_time", 0, false },
	{ "time.elapsed_time.max", 0, false },
	{ "meminfo.MemFree", 0, false },
	{ "vmstat.cpu.us", 0, false },
	{ "proc-vmstat.pgfault", 0, false },
	{ "dmesg.BUG:unable_to_handle_page_fault", 0, false },
	{ "last_state.is_incomplete_run", 0, false },
	{ "interrupts.CAL:Function_call_interrupts", 0, false },
	{ "perf-profile.calltrace.cycles-pp.x", 0, false },
	{ "", 0, false },
};

static void test_pinned(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(pinned) / sizeof(pinned[0]); i++) {
		int d = compare_direction(pinned[i].metric);
		bool h = program_metric_headline(pinned[i].metric);
		if (d != pinned[i].direction || h != pinned[i].headline) {
			fprintf(stderr, "%s: direction %+d headline %d, want %+d %d\n", pinned[i].metric, d, h,
				pinned[i].direction, pinned[i].headline);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pinned),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

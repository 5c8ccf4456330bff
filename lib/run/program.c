/*
 * program: the program table and lookups. See program.h.
 */
#include "program.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/*
 * The registry: one X(name) a program, its `const struct program
 * program_<name>` in lib/run/programs/ (the wrapper's below). Sorted by
 * the programs' names (strcmp order, "boot-time" before "boot_params") for
 * bsearch; program_check() says where it is not.
 */
/* clang-format off */
#define PROGRAMS(X) \
	X(bdi_dev_mapping) \
	X(boot_time) \
	X(boot_params) \
	X(cgroup2) \
	X(command) \
	X(cpufreq_stats) \
	X(cpufreq_governor) \
	X(cpuidle) \
	X(debug_setup) \
	X(disk) \
	X(diskstats) \
	X(dmesg) \
	X(fio) \
	X(fio_setup_basic) \
	X(fs) \
	X(fs1) \
	X(fs2) \
	X(heartbeat) \
	X(interrupts) \
	X(iostat) \
	X(kmsg) \
	X(last_state) \
	X(latency_stats) \
	X(lock_stat) \
	X(meminfo) \
	X(mpstat) \
	X(nfsstat) \
	X(numa_meminfo) \
	X(numa_numastat) \
	X(numa_vmstat) \
	X(nvdimm) \
	X(perf_c2c) \
	X(perf_node) \
	X(perf_profile) \
	X(perf_sched) \
	X(perf_stat) \
	X(proc_stat) \
	X(proc_vmstat) \
	X(sched_debug) \
	X(slabinfo) \
	X(softirqs) \
	X(swap) \
	X(time) \
	X(transparent_hugepage) \
	X(turbostat) \
	X(uptime) \
	X(vm_scalability) \
	X(vmstat) \
	X(wrapper)
/* clang-format on */

#define DECLARE(n) extern const struct program program_##n;
PROGRAMS(DECLARE)
#undef DECLARE
#define ROW(n) &program_##n,
const struct program *const program_table[] = { PROGRAMS(ROW) };
#undef ROW
const size_t program_table_size = sizeof(program_table) / sizeof(program_table[0]);

static int program_index(const char *name)
{
	size_t lo = 0, hi = program_table_size;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, program_table[mid]->name);
		if (!c)
			return (int)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

const struct program *program_find(const char *name)
{
	int i = program_index(name);

	if (i < 0 || program_table[i]->kind == PROGRAM_WRAPPER)
		return NULL;
	return program_table[i];
}

bool program_has_option(const struct program *p, const char *opt, bool *eq)
{
	for (const char *const *o = p->options; o && *o; o++) {
		const char *name = **o == '=' ? *o + 1 : *o;
		if (!strcmp(name, opt)) {
			if (eq)
				*eq = **o == '=';
			return true;
		}
	}
	return false;
}

bool program_is_workload(const struct program *p)
{
	return p->kind == PROGRAM_SETUP || p->kind == PROGRAM_TEST ||
	       p->kind == PROGRAM_DAEMON;
}

const char *program_kind_name(enum program_kind kind)
{
	switch (kind) {
	case PROGRAM_SETUP: return "setup";
	case PROGRAM_TEST: return "test";
	case PROGRAM_DAEMON: return "daemon";
	case PROGRAM_MONITOR: return "monitor";
	case PROGRAM_STATS: return "stats";
	case PROGRAM_WRAPPER: return "wrapper";
	}
	return "?";
}

const struct program *program_of_metric(const char *metric)
{
	char base[64];
	size_t n = strcspn(metric, ".");

	if (n >= sizeof(base))
		return NULL;
	memcpy(base, metric, n);
	base[n] = '\0';
	return program_find(base);
}

/*
 * The tables that speak of a metric, in the order they are asked: its
 * program's, then the wrapper's; each matched on the name after the first
 * dot (none for a metric without one).
 */
static size_t metric_tables(const char *metric, const struct program_metric *tables[2], const char **name)
{
	const char *dot = strchr(metric, '.');
	const struct program *p = dot ? program_of_metric(metric) : NULL;
	size_t n = 0;

	if (!dot)
		return 0;
	*name = dot + 1;
	if (p && p->metrics)
		tables[n++] = p->metrics;
	tables[n++] = program_wrapper.metrics;
	return n;
}

int program_metric_direction(const char *metric)
{
	const struct program_metric *tables[2];
	const char *name;
	size_t n = metric_tables(metric, tables, &name);

	for (size_t t = 0; t < n; t++)
		for (const struct program_metric *r = tables[t]; r->glob; r++)
			if (r->direction && !fnmatch(r->glob, name, 0))
				return r->direction;
	return 0;
}

bool program_metric_headline(const char *metric)
{
	const struct program_metric *tables[2];
	const struct program *p = program_of_metric(metric);
	const char *name;
	size_t n = p && p->kind == PROGRAM_TEST ? metric_tables(metric, tables, &name) : 0;

	for (size_t t = 0; t < n; t++)
		for (const struct program_metric *r = tables[t]; r->glob; r++)
			if (r->headline && !fnmatch(r->glob, name, 0))
				return true;
	return false;
}

int program_check(char *msg, size_t msglen)
{
	for (size_t i = 0; i < program_table_size; i++) {
		const struct program *p = program_table[i];

		if (p->version != PROGRAM_VERSION) {
			snprintf(msg, msglen, "program '%s' has version %d, expected %d",
				 p->name, p->version, PROGRAM_VERSION);
			return -1;
		}
		if (i && strcmp(program_table[i - 1]->name, p->name) >= 0) {
			snprintf(msg, msglen, "program table not sorted at '%s'", p->name);
			return -1;
		}
		for (const char *const *o = p->options; o && *o; o++) {
			const char *name = **o == '=' ? *o + 1 : *o;
			if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyz"
					     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.") != strlen(name)) {
				snprintf(msg, msglen, "program '%s' declares a bad option '%s'",
					 p->name, *o);
				return -1;
			}
		}
		for (const struct program_metric *m = p->metrics; m && m->glob; m++)
			if (!*m->glob || m->direction < -1 || m->direction > 1 || (!m->direction && !m->headline)) {
				snprintf(msg, msglen, "program '%s': metric row '%s' says nothing or too much", p->name,
					 m->glob);
				return -1;
			}
	}
	return 0;
}

/* The options every test and daemon accepts (lkp-tests' run-test wrapper). */
static const char *const wrapper_options[] = {
	"nr_instances", "cpu_node_bind", "mem_node_bind", "cluster", NULL,
};
/*
 * The rows every program's metrics share, lkprobot's programs or LKP's
 * (a result root of lkp-tests: hackbench.throughput), after the program's
 * own. Each name also a level deeper, a figure of one of a test's parts
 * (stress-ng.fork.ops_per_sec).
 */
static const struct program_metric wrapper_metrics[] = {
	/* which way is better: throughputs up, the test's time down */
	{ "throughput", +1, false },
	{ "*.throughput", +1, false },
	{ "jobs_per_min", +1, false },
	{ "*.jobs_per_min", +1, false },
	{ "ops_per_sec", +1, false },
	{ "*.ops_per_sec", +1, false },
	{ "ops", +1, false },
	{ "*.ops", +1, false },
	{ "time.elapsed_time", -1, false },
	{ "*.time.elapsed_time", -1, false },
	{ "time.elapsed_time.max", -1, false },
	{ "*.time.elapsed_time.max", -1, false },
	/* a test's key figures: bandwidths, IOPS, throughputs, its mean latency, median and time */
	{ "*bw_MBps*", 0, true },
	{ "*_iops*", 0, true },
	{ "*throughput*", 0, true },
	{ "*clat_mean*", 0, true },
	{ "median", 0, true },
	{ "time.elapsed_time*", 0, true },
	{ "*.time.elapsed_time*", 0, true },
	{ NULL, 0, false },
};

const struct program program_wrapper = {
	.version = PROGRAM_VERSION,
	.name = "~wrapper",
	.kind = PROGRAM_WRAPPER,
	.summary = "options of the test wrapper, valid in every job",
	.options = wrapper_options,
	.metrics = wrapper_metrics,
};

/*
 * program: the program table and lookups. See program.h.
 */
#include "program.h"

#include <stdio.h>
#include <string.h>

extern const struct program program_bdi_dev_mapping, program_boot_params,
	program_boot_time, program_cgroup2, program_cpufreq_stats, program_cpufreq_governor,
	program_command, program_cpuidle, program_debug_setup, program_disk, program_diskstats, program_dmesg, program_fio,
	program_fio_setup_basic, program_fs, program_fs1, program_fs2, program_heartbeat,
	program_interrupts, program_iostat, program_kmsg, program_last_state, program_lock_stat,
	program_meminfo, program_mpstat, program_nfsstat,
	program_numa_meminfo, program_nvdimm, program_numa_numastat, program_numa_vmstat,
	program_perf_c2c, program_perf_node, program_perf_profile,
	program_perf_sched, program_perf_stat, program_proc_stat,
	program_proc_vmstat, program_sched_debug, program_slabinfo,
	program_softirqs, program_swap, program_time,
	program_transparent_hugepage, program_turbostat, program_uptime,
	program_vm_scalability, program_vmstat, program_wrapper;

/* Sorted by name (strcmp order) for bsearch. */
const struct program *const program_table[] = {
	&program_bdi_dev_mapping,
	&program_boot_time,
	&program_boot_params,
	&program_cgroup2,
	&program_command,
	&program_cpufreq_stats,
	&program_cpufreq_governor,
	&program_cpuidle,
	&program_debug_setup,
	&program_disk,
	&program_diskstats,
	&program_dmesg,
	&program_fio,
	&program_fio_setup_basic,
	&program_fs,
	&program_fs1,
	&program_fs2,
	&program_heartbeat,
	&program_interrupts,
	&program_iostat,
	&program_kmsg,
	&program_last_state,
	&program_lock_stat,
	&program_meminfo,
	&program_mpstat,
	&program_nfsstat,
	&program_numa_meminfo,
	&program_numa_numastat,
	&program_numa_vmstat,
	&program_nvdimm,
	&program_perf_c2c,
	&program_perf_node,
	&program_perf_profile,
	&program_perf_sched,
	&program_perf_stat,
	&program_proc_stat,
	&program_proc_vmstat,
	&program_sched_debug,
	&program_slabinfo,
	&program_softirqs,
	&program_swap,
	&program_time,
	&program_transparent_hugepage,
	&program_turbostat,
	&program_uptime,
	&program_vm_scalability,
	&program_vmstat,
	&program_wrapper,
};
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

bool program_metric_headline(const char *metric)
{
	const char *k = metric, *dot = strchr(k, '.');
	const struct program *p;
	char prog[64];

	if (!dot || (size_t)(dot - k) >= sizeof(prog))
		return false;
	memcpy(prog, k, (size_t)(dot - k));
	prog[dot - k] = '\0';
	if (!(p = program_find(prog)) || p->kind != PROGRAM_TEST)
		return false;
	return strstr(k, "bw_MBps") || strstr(k, "_iops") || strstr(k, "throughput") || strstr(k, "clat_mean") ||
	       !strcmp(dot, ".median") || strstr(k, ".time.elapsed_time");
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
	}
	return 0;
}

/* The options every test and daemon accepts (lkp-tests' run-test wrapper). */
static const char *const wrapper_options[] = {
	"nr_instances", "cpu_node_bind", "mem_node_bind", "cluster", NULL,
};
const struct program program_wrapper = {
	.version = PROGRAM_VERSION,
	.name = "~wrapper",
	.kind = PROGRAM_WRAPPER,
	.summary = "options of the test wrapper, valid in every job",
	.options = wrapper_options,
};

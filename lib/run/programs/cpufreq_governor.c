/*
 * cpufreq_governor: set the CPU frequency governor of every CPU, as
 * lkp-tests' programs/cpufreq_governor/setup. Where the machine has no
 * cpufreq (VMs) or refuses the governor, the run records that instead of
 * failing: the job still runs, and its results say the governor was not set.
 */
#include "../program.h"
#include "../run.h"

#include <glob.h>
#include <string.h>

static int cpufreq_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	const char *gov = node_str(node_get(r->job, p->name));
	glob_t g;
	size_t set = 0;

	if (!gov)
		return 0;
	if (strpbrk(gov, "/\n")) {
		strbuf_setf(err, "cpufreq_governor: '%s' is not a governor name", gov);
		return -1;
	}
	if (glob("/sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", 0, NULL, &g)) {
		run_unavailable(r, "cpufreq_governor",
				"no cpufreq on this machine (/sys/devices/system/cpu/cpu*/cpufreq missing): governor '%s' not set",
				gov);
		return 0;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct strbuf e = STRBUF_INIT;
		if (run_write_sys(r, g.gl_pathv[i], gov, &e))
			run_unavailable(r, "cpufreq_governor", "%s", e.buf);
		else
			set++;
		strbuf_release(&e);
	}
	globfree(&g);
	if (set)
		run_fact(r, "cpufreq_governor", gov);
	return 0;
}

static const char *const cpufreq_debs[] = { "linux-cpupower", NULL };

const struct program program_cpufreq_governor = {
	.version = PROGRAM_VERSION,
	.name = "cpufreq_governor",
	.kind = PROGRAM_SETUP,
	.summary = "set the CPU frequency governor of every CPU (value: governor name)",
	.setup = cpufreq_setup,
	.debs = cpufreq_debs,
};

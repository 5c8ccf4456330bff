/*
 * Fuzz every raw-output parser of the program table (fio's JSON,
 * vm-scalability, vmstat, perf-stat, turbostat, time, interrupts, meminfo,
 * proc-vmstat, ...): each input goes through all of them, then through the
 * reduction to stats.json, as `lkprobot stats` does with a raw file;
 * and, as a kernel log, through the cut of its call traces (a report's).
 * Seeds: tests/fixtures/{tools,perf-stat,vm-scalability}.
 */
#include "fuzzlib.h"
#include "../../lib/run/program.h"
#include "../../lib/run/programs/programs.h"
#include "../../lib/stats/stats.h"
#include "../../lib/util/json.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	for (size_t i = 0; i < program_table_size; i++) {
		const struct program *p = program_table[i];
		struct stats_samples ss;
		struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;

		if (!p->parse)
			continue;
		stats_samples_init(&ss);
		if (!p->parse((const char *)data, size, &ss, &err)) {
			struct node *pj = stats_program_json(&ss, p->name), *st = node_new(NODE_MAP);
			if (pj) {
				stats_reduce(pj, st);
				json_emit(&out, pj);
				json_emit(&out, st);
			}
			node_free(pj);
			node_free(st);
		}
		stats_samples_release(&ss);
		strbuf_release(&err);
		strbuf_release(&out);
	}
	struct klog_trace *t;
	size_t n = klog_calltraces((const char *)data, size, &t);
	if (n)
		(void)klog_trace_of(t, n, t[n - 1].nids ? t[n - 1].ids[0] : "x");
	klog_traces_release(t, n);
	return 0;
}

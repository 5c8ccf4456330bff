/*
 * perfevent: system-wide event counting with perf_event_open(2), as
 * `perf stat -a --scale` does: one counter per event per online CPU
 * (pid -1, cpu N), events in {...} groups opened as kernel groups, counts
 * read with their enabled/running times and scaled (count * enabled /
 * running) when the kernel multiplexed them. This is the only code that
 * includes libpfm4 or calls perf_event_open.
 *
 * Event names are perf's (cpu-cycles, dTLB-load-misses, task-clock, ...).
 * They are encoded by libpfm4 through its "perf" PMU table (perf::<name>),
 * then as a libpfm4 name of any present PMU (INST_RETIRED:ANY_P,
 * perf_raw::r003c; perf's rNNNN is read as perf_raw::rNNNN); only a name
 * libpfm4 does not know falls back to the kernel's generic
 * PERF_TYPE_HARDWARE / HW_CACHE / SOFTWARE numbers (libpfm4 4.13 lacks
 * alignment-faults, emulation-faults and dummy, for instance).
 *
 * An event the kernel refuses (no PMU here: ENOENT, EOPNOTSUPP, EINVAL,
 * also EACCES under perf_event_paranoid) is not an error: it stays in the
 * set, not supported, with the errno. A group that cannot be opened whole
 * is opened again as individual events.
 */
#ifndef LKP_PERFEVENT_H
#define LKP_PERFEVENT_H

#include "../stats/stats.h"
#include "../util/strbuf.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* lkp-tests' default perf-stat events (programs/perf-stat/monitor). */
#define PERFEVENT_LKP_DEFAULT                                                        \
	"{cpu-cycles,instructions,cache-references,cache-misses,branch-instructions," \
	"branch-misses},{dTLB-loads,dTLB-load-misses},{dTLB-stores,dTLB-store-misses}," \
	"{iTLB-loads,iTLB-load-misses},{node-loads,node-load-misses},"                \
	"{node-stores,node-store-misses},cpu-clock,task-clock,page-faults,"           \
	"context-switches,cpu-migrations,minor-faults,major-faults"

/* One interval of one event, summed over the CPUs. */
struct perfevent_count {
	double value;		/* scaled count; nanoseconds for the clock events */
	uint64_t enabled;	/* ns the counters were enabled, summed over CPUs */
	uint64_t running;	/* ns they really counted, summed over CPUs */
	bool counted;		/* running > 0: perf's "<not counted>" otherwise */
};

struct perfevent {
	char *name;		/* as the job wrote it */
	int group;		/* index of its {...} group; -1 when alone */
	struct perf_event_attr attr;
	bool libpfm;		/* encoded by libpfm4, else the generic numbers */
	char *encoding;		/* libpfm4's full name, or "generic <type>:<config>" */
	bool is_clock;		/* cpu-clock / task-clock: counts nanoseconds */
	bool supported;		/* opened on at least one CPU */
	int error;		/* errno of the first refusal when not supported */
	struct perfevent_count last;	/* filled by perfevent_read() */

	/* private: one fd and the previous reading per CPU */
	int *fd;
	uint64_t (*prev)[3];
};

struct perfevent_set {
	struct perfevent *ev;
	size_t n, alloc;
	int ngroups;
	int *cpus;		/* online CPUs, filled by perfevent_open() */
	size_t ncpus;
};

void perfevent_set_init(struct perfevent_set *s);
/* Close the counters and free everything. */
void perfevent_set_release(struct perfevent_set *s);

/*
 * Encode one perf event name into attr (zeroed, counting user and kernel,
 * size set). *libpfm says which path encoded it; *encoding (caller frees,
 * may be NULL) is the canonical name. -1 with err set for a name neither
 * libpfm4 nor the generic table knows.
 */
int perfevent_encode(const char *name, struct perf_event_attr *attr, bool *libpfm,
		     char **encoding, struct strbuf *err);

/*
 * Add the events of a perf -e list ("{a,b},c,d": braces make a group) to
 * the set, each encoded. -1 with err set on bad syntax or an unknown name.
 */
int perfevent_parse(struct perfevent_set *s, const char *spec, struct strbuf *err);

/*
 * Open every event of the set on every online CPU and take the baseline
 * reading. Returns the number of events opened (0: nothing can be counted
 * here; each event's `error` says why), or -1 with err set on a real
 * failure (out of file descriptors, no CPU list).
 */
int perfevent_open(struct perfevent_set *s, struct strbuf *err);

/*
 * Read every opened event: ev->last becomes the delta since the previous
 * reading, scaled. 0, or -1 with err set.
 */
int perfevent_read(struct perfevent_set *s, struct strbuf *err);

#endif

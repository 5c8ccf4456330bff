/*
 * programs: helpers that program files export to the rest of lkprobot
 * (the engine, the tests). Each program's `struct program` is reached
 * through the table in program.c; only the extra functions are here.
 */
#ifndef LKP_PROGRAMS_H
#define LKP_PROGRAMS_H

#include "../../stats/stats.h"
#include "../../util/strbuf.h"

#include <stddef.h>
#include <sys/resource.h>

/* fio_parse.c: fio's --output-format=json output -> fio.* samples. */
int fio_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err);
/* fio.output.1, fio.output.2 ... of nr_instances, combined as lkp-tests does. */
int fio_combine(const struct stats_samples *inst, const long *ids, size_t n, struct stats_samples *out,
		struct strbuf *err);

/*
 * time.c: write a test's rusage in the format of GNU `time -v` (what
 * lkp-tests' <test>.time files hold), so that the time parser reads it.
 */
void time_format_rusage(struct strbuf *out, const char *command, const struct rusage *ru,
			double elapsed_seconds, int exit_status);

/*
 * perf_stat.c: append to
 * `list` the events a perf-stat raw file (`perf stat -x ,` interval
 * output, real or lkprobot's) shows as "<not supported>", or as
 * "<not counted>" in every interval, space-separated and each once.
 * Returns their number. The parser emits nothing for them.
 */
int perf_stat_unsupported(const char *text, struct strbuf *list);
/* The perf-stat parser itself (also program_perf_stat.parse). */
int perf_stat_parse(const char *text, size_t len, struct stats_samples *out,
		    struct strbuf *err);

/*
 * vmstat.c: run `vmstat --timestamp -n INTERVAL` (whole seconds) with its
 * output to out_fd, as the vmstat and heartbeat monitors do; `who` names
 * the monitor in its error line. A monitor's exit: MONITOR_UNAVAILABLE when
 * vmstat is not installed.
 */
int vmstat_exec(const char *who, double interval, int out_fd);

/* vm_scalability_parse.c: the raw file vm-scalability -> vm-scalability.* samples. */
int vm_scalability_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err);

/*
 * klog_parse.c: lkp-tests' dmesg and kmsg parsers — the serial console's oopses
 * (dmesg.*, dmesg.boot_failures) or the kmsg monitor's printk errors
 * (kmsg.*) as error ids counted 1 a run, with their timestamps.
 */
int klog_parse_dmesg(const char *text, size_t len, struct stats_samples *out, struct strbuf *err);
int klog_parse_kmsg(const char *text, size_t len, struct stats_samples *out, struct strbuf *err);
/* The dmesg parser for many texts: lib/dmesg.rb's regexes compiled once (klog_open: NULL and err on failure). */
struct klog;
struct klog *klog_open(struct strbuf *err);
int klog_parse_dmesg_with(struct klog *k, const char *text, size_t len, struct stats_samples *out, struct strbuf *err);
void klog_close(struct klog *k);

/*
 * klog_trace.c: the call traces of a kernel log, cut as lkp-tests'
 * get_crash_calltraces cuts them (from a "---[ cut here", BUG:, WARNING:,
 * INFO:, UBSAN: or "kernel BUG at" line to "---[ end trace", 100 lines at
 * most, and the decoded code after it), each with the dmesg error ids its
 * lines give ("WARNING:at_fs/xfs/x.c:#f": the dmesg.* stats' names).
 */
struct klog_trace {
	struct strbuf text; /* its lines, each ending in '\n' */
	char **ids;
	size_t nids, alloc_ids;
};
size_t klog_calltraces(const char *text, size_t len, struct klog_trace **out);
/* The first trace whose ids hold `id` (a dmesg stat's name without "dmesg."); NULL: none. */
const struct klog_trace *klog_trace_of(const struct klog_trace *t, size_t n, const char *id);
void klog_traces_release(struct klog_trace *t, size_t n);

/* sched_debug.c: Ruby's Array#sum of floats (Kahan-Babuska), which lkp-tests' means use. */
double programs_ruby_sum(const double *v, size_t n);

/* latency_stats.c: drop ".isra.N", ".constprop.N", ".part.N" everywhere (lkp-tests' symbol fixup). */
void programs_strip_suffixes(struct strbuf *line);

#endif

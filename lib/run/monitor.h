/*
 * monitor: what the monitor programs (lib/programs/) share. A monitor runs
 * in a child process of its own, writes its raw output to a file
 * descriptor and stops on SIGTERM (or SIGINT), as lkp-tests' monitors stop
 * when the test ends.
 *
 *   monitor_catch_stop()   SIGTERM/SIGINT set a stop flag instead of killing;
 *   monitor_sleep()        sleep that ends early when the flag is set;
 *   monitor_snapshots()    "time: <epoch>" + a /proc file, every interval
 *                          and once more when stopped (interrupts, meminfo);
 *   monitor_exec()         run a tool (argv, no shell) with stdout to the
 *                          raw file until stopped (vmstat, turbostat).
 *
 * Signals: monitor_catch_stop() blocks SIGTERM, SIGINT and SIGCHLD except
 * while a monitor sleeps or waits (ppoll with the old mask), so a stop that
 * arrives at any moment is seen at the next wait, never lost. A stop sent
 * before the monitor installed its handler kills it; the engine avoids that
 * by blocking SIGTERM before forking (the pending signal is then delivered
 * at the first wait). Tools are spawned with an empty signal mask and
 * default dispositions.
 */
#ifndef LKP_MONITOR_H
#define LKP_MONITOR_H

#include "../util/strbuf.h"

#include <stdbool.h>

struct run;
struct program;

/* Install the stop handlers (idempotent; the monitor helpers call it too). */
void monitor_catch_stop(void);

/* Has SIGTERM or SIGINT arrived since monitor_catch_stop()? */
bool monitor_stopped(void);

/*
 * Sleep `seconds` (negative: until stopped). Returns true when stopped
 * (at once if the flag is already set), false when the time is up.
 */
bool monitor_sleep(double seconds);

/*
 * The monitor's `interval` option in seconds (run_param: under the
 * program's mapping, else the job's): a positive number ("1", "0.5") or a
 * duration ("10s", "5m"). `def` when unset; -1 with err set when bad.
 */
int monitor_interval(const struct run *r, const struct program *p, double def,
		     double *out, struct strbuf *err);

/* monitor_snapshot(s) flags */
#define MONITOR_SNAP_NSEC	1	/* "time: <s>.<ns>" (lkp's interrupts monitor: date +%s.%N) */
#define MONITOR_SNAP_DEDUP	2	/* keep the first line of each key (proc-vmstat: awk '!x[$1]++') */

/*
 * Write one snapshot to out_fd in one write: "time: <epoch seconds>\n"
 * then the file's content. 0, or -1 with err set.
 */
int monitor_snapshot(const char *path, unsigned flags, int out_fd, struct strbuf *err);

/*
 * The snapshot monitor: a snapshot now, then every `interval` seconds
 * (interval <= 0: none in between), and a last one when stopped. Returns
 * the monitor's exit status: 0; MONITOR_UNAVAILABLE when `path` does not
 * exist here; 1 when a snapshot cannot be read or written. `name` prefixes
 * the one-line messages on stderr.
 */
int monitor_snapshots(const char *name, const char *path, double interval, unsigned flags,
		      int out_fd);

/*
 * The same loop with a snapshot of one's own (numa-*: a file per node):
 * snap(ctx, out_fd, err) writes one, 0 or -1 with err set. Returns 0, or
 * 1 after a failed snapshot (said on stderr under `name`).
 */
typedef int monitor_snap_fn(void *ctx, int out_fd, struct strbuf *err);
int monitor_snapshots_with(const char *name, double interval, monitor_snap_fn *snap, void *ctx, int out_fd);

/* Append text keeping the first line of each first word (awk '!x[$1]++'). */
void monitor_add_dedup(struct strbuf *out, const char *text);

struct stats_samples;
/*
 * Read a snapshot monitor's raw file line by line: the next line into
 * `line` (1), a "time: <epoch>" line taken as a `time` sample, i.e. a new
 * snapshot starts (2), the end (0), or -1 with "<name>: line N ..." in err
 * for a line cut short.
 * *p walks from the start of the text to `end`.
 */
int monitor_snapshot_line(const char **p, const char *end, size_t *lineno, struct strbuf *line,
			  const char *name, struct stats_samples *out, struct strbuf *err);

/*
 * A whole /proc snapshot monitor (interrupts, proc-vmstat, meminfo): catch
 * the stop, read the `interval` option (default def_interval seconds),
 * then monitor_snapshots() of `path` under the program's name.
 */
int monitor_proc_file(const struct run *r, const struct program *p, const char *path,
		      double def_interval, unsigned flags, int out_fd);

/*
 * Split a raw line in place into its blank-separated words (as Ruby's
 * String#split): their number; *w grows as needed (free it when done).
 */
size_t monitor_words(char *line, char ***w, size_t *alloc);

/*
 * What a snapshot monitor's parser does with one line of words (n >= 1):
 * 0, or -1 with "<name>: line N: ..." in err.
 */
typedef int (*monitor_line_fn)(void *ctx, char **w, size_t n, size_t lineno, struct stats_samples *out,
			       struct strbuf *err);
/*
 * A snapshot monitor's raw file read whole: refused when it has NUL bytes
 * ("<name>: the file has NUL bytes; not <what>"), then each line that is
 * not a "time:" line (monitor_snapshot_line) split into words by split
 * (NULL: monitor_words) and, unless blank, given to line. 0, or -1 with
 * err set.
 */
int monitor_parse_lines(const char *text, size_t len, const char *name, const char *what,
			size_t (*split)(char *line, char ***w, size_t *alloc), monitor_line_fn line, void *ctx,
			struct stats_samples *out, struct strbuf *err);

/* monitor_exec flags */
#define MONITOR_EXEC_STDERR	1	/* stderr to out_fd too (turbostat prints there; lkp: 2>&1) */
#define MONITOR_EXEC_UTC	2	/* TZ=UTC in its environment (vmstat --timestamp) */
#define MONITOR_EXEC_STOP_STDIN	4	/* stdin is a pipe; stop = close it (EOF) instead of SIGTERM */
#define MONITOR_EXEC_SYSSTAT 16	   /* LC_ALL=C S_TIME_FORMAT=ISO in its environment (mpstat, iostat as lkp runs them) */
#define MONITOR_EXEC_STOP_SIGINT 8 /* stop = SIGINT (mpstat, iostat end their output then; lkp: pkill -INT) */

/*
 * Spawn argv (argv[0] looked up in PATH; stdin /dev/null unless
 * MONITOR_EXEC_STOP_STDIN) with stdout to out_fd, and wait. When the stop
 * flag is set the tool is sent SIGTERM (or sees EOF), then SIGKILL if it
 * has not exited 5 s later (within the 10 s the engine gives a monitor).
 * Returns its exit status (128+signal when killed by a signal other than
 * our stop), 0 when our stop ended it; -1 with err and errno set (ENOENT:
 * not installed) when it cannot be started. monitor_stopped() tells
 * whether it ended on its own.
 */
int monitor_exec(char *const argv[], int out_fd, unsigned flags, struct strbuf *err);

/*
 * Run argv to completion with stdout and stderr captured into out (stdin
 * /dev/null), for checks before the real run. Returns the exit status,
 * or -1 with err (and errno) set when it cannot be started.
 */
int monitor_capture(char *const argv[], struct strbuf *out, struct strbuf *err);

/*
 * The same with stdout to out_fd and stderr captured into `said` (perf
 * report's raw output without its warnings), after the stop too.
 */
int monitor_run_to(char *const argv[], int out_fd, struct strbuf *said, struct strbuf *err);

/*
 * A monitor's exit status when what it measures does not exist here (no
 * PMU, no MSRs, tool missing): it prints one line on stderr saying why and
 * the engine records it as unavailable rather than as a failure.
 */
#define MONITOR_UNAVAILABLE 3

#endif

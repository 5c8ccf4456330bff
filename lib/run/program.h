/*
 * program: the table of LKP programs lkprobot knows — setups, tests,
 * daemons, monitors and stats-only parsers — with the options each one
 * declares. The option lists match lkp-tests' programs so that a job file
 * expands to the same atomic jobs and path_params as under lkp-tests.
 *
 * Each program also says what its metrics mean (struct program_metric):
 * which way is better, which figures a report leads with. compare, run and
 * the reports ask here (program_metric_direction, program_metric_headline)
 * and keep no list of their own.
 *
 * Adding a program: one file in lib/run/programs/ defining a
 * `const struct program program_<name>` (its metrics' rows included) and
 * one X(<name>) in PROGRAMS in program.c (kept sorted by name;
 * program_check() verifies the table at start-up).
 * This module knows nothing about job files.
 */
#ifndef LKP_PROGRAM_H
#define LKP_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>

struct run;
struct stats_samples;
struct strbuf;

#define PROGRAM_VERSION 1

enum program_kind {
	PROGRAM_SETUP,		/* runs before the test (disk, fs, fio-setup-basic) */
	PROGRAM_TEST,		/* the workload itself (fio, vm-scalability) */
	PROGRAM_DAEMON,		/* background service the test talks to */
	PROGRAM_MONITOR,	/* samples while the test runs (vmstat, perf-stat) */
	PROGRAM_STATS,		/* parser only: output produced by others (time) */
	PROGRAM_WRAPPER,	/* options every test accepts (nr_instances, ...) */
};

/*
 * A row of a program's metric table: a glob (fnmatch(3)) on the metric's
 * name after "<program>." — "*_bw_MBps" is fio.write_bw_MBps — and what it
 * says of the metrics it matches. A table ends with a NULL glob.
 */
struct program_metric {
	const char *glob;
	int direction; /* +1 higher is better, -1 lower is better, 0 the row does not say */
	bool headline; /* a test's key figure: `run` prints it, a report leads with it */
};

struct program {
	int version;
	const char *name;
	enum program_kind kind;
	const char *summary;
	/* NULL-terminated; a leading '=' marks a "key=value" option in path_params */
	const char *const *options;

	/*
	 * What lkprobot does with the program (all optional; a program
	 * without them is declared for job compatibility only):
	 *   setup    prepare the machine before the monitors start (in the
	 *            lkprobot process); 0, or -1 with err set;
	 *   run      the test, in a child process of its own whose rusage is
	 *            the test's; returns the exit status (0 = passed);
	 *   monitor  in a child process: sample until SIGTERM, writing the raw
	 *            output to out_fd; returns the exit status;
	 *   parse    raw output text -> samples (lkp-tests' "key: value"
	 *            protocol); -1 with err set on malformed or truncated input,
	 *            never a wrong number.
	 */
	int (*setup)(struct run *r, const struct program *p, struct strbuf *err);
	int (*run)(struct run *r, const struct program *p);
	int (*monitor)(struct run *r, const struct program *p, int out_fd);
	int (*parse)(const char *text, size_t len, struct stats_samples *out,
		     struct strbuf *err);
	/* Raw file in the result root that parse reads (default: the name). */
	const char *raw;
	/*
	 * Several instances of the test (lkp-tests' nr_instances): when the
	 * raw file is missing and <raw>.1, <raw>.2 ... are there, each is
	 * parsed alone into inst[i] (ids[i] its number, ascending) and this
	 * makes the program's samples of them; NULL: no such files are read.
	 */
	int (*combine)(const struct stats_samples *inst, const long *ids, size_t n, struct stats_samples *out,
		       struct strbuf *err);
	/* Debian packages the program needs on the test box (NULL-terminated). */
	const char *const *debs;
	/* Tests: what the reports say of them ("test-description:", "test-url:"). */
	const char *description;
	const char *url;
	/* A setup that changes nothing needing root (it only shapes the job). */
	bool setup_unprivileged;
	/*
	 * What its metrics mean (NULL: nothing more than program_wrapper's
	 * rows, which hold for every program's, lkprobot's or not).
	 */
	const struct program_metric *metrics;
};

extern const struct program *const program_table[];
extern const size_t program_table_size;
/* The options every test accepts, the metric rows every program's metrics share; not a job key itself. */
extern const struct program program_wrapper;

/* Look a program up by its job key; NULL when lkprobot does not know it. */
const struct program *program_find(const char *name);

/* Does the program declare `opt`? Sets *eq for '=' options. */
bool program_has_option(const struct program *p, const char *opt, bool *eq);

/* setup, test and daemon programs: their options shape path_params */
bool program_is_workload(const struct program *p);

const char *program_kind_name(enum program_kind kind);

/* The program that made a metric: the part of its name before the first dot; NULL: none lkprobot knows. */
const struct program *program_of_metric(const char *metric);

/*
 * Which way is better for a metric ("<program>.<name>"): +1 higher, -1
 * lower, 0 unknown (a change in it is a change, neither a regression nor
 * an improvement). The first row that matches and gives a direction, of
 * its program's table, then of program_wrapper's.
 */
int program_metric_direction(const char *metric);

/*
 * Is the metric one of a test's key figures, which `run` prints and a
 * report leads with: a metric of a test program that a row of its table or
 * of program_wrapper's flags headline?
 */
bool program_metric_headline(const char *metric);

/* Verify the table (sorted, versions, options well-formed); 0 or -1 with a message. */
int program_check(char *msg, size_t msglen);

#endif

/*
 * engine: run one atomic job on this machine, as `lkp run job.yaml` does on
 * a test box, and leave an LKP result root.
 *
 * Order: setups (in job order), monitors started (each a child process
 * writing its raw file), the test (a child process in its own process
 * group, timed, killed at runtime + margin), monitors stopped, the run's
 * devices and mounts released, stats extracted, the commit's matrix
 * rebuilt. A test that fails, is killed or runs out of time still leaves a
 * result root whose job.yaml says which (job_state) with the monitors' data
 * up to then. The engine knows nothing about the store, QEMU or mail.
 */
#ifndef LKP_ENGINE_H
#define LKP_ENGINE_H

#include "../sys/machine.h"
#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

/* The accel fact of a run on an emulated CPU (QEMU without KVM). */
#define ENGINE_TCG_NOTE "tcg: an emulated CPU; the numbers are a functional check, not a performance figure"

struct engine_opts {
	const char *result_dir;		/* RESULT_ROOT_DIR: /lkp/result by default */
	bool loop_disks;		/* stand loop devices in for the job's disks */
	uint64_t loop_size;		/* their size (default 1 GiB) */
	const char *fs_root;		/* mount points go under it (default /fs) */
	unsigned timeout_margin;	/* seconds past runtime before the test is killed */
	bool progress;			/* one-line progress on stderr (a terminal) */
	bool older_names;		/* also the metric names of older reports */
	const struct node *facts;	/* known before the run (accel: tcg), a map or NULL */
	bool markers;			/* "@@LKPROBOT test-start/test-end" on stdout (the guest's console) */
	bool raw_only;			/* leave stats and matrix to the host (result_restat) */
	const char *src_dir;		/* the source tree programs like `command` work in (NULL: cwd) */
	bool fresh_boot;		/* the kernel was booted for this run (a QEMU guest): its whole log is the run's */
	const char *insmod;		/* kernel modules (paths, comma-separated) loaded once the test has
					 * started: a module that provokes what the run should see (NULL: none) */
};

struct engine_result {
	char *rt;			/* the commit directory (_rt) */
	char *run_dir;			/* rt/<run> */
	int run_no;
	const char *job_state;		/* finished, failed, timeout, killed */
	char *reason;			/* one line when not finished */
	double start_time, end_time;	/* epoch seconds */
	double test_seconds;		/* wall time of the test itself */
	int test_status;		/* the test's exit status (125: it could not be built) */
	struct node *stats;		/* stats.json */
	struct node *unavailable;	/* what could not be measured or set, and why */
	struct node *facts;		/* dax, disk stand-ins, governor, ... */
	struct node *problems;		/* raw files a parser rejected */
};

/*
 * Can lkprobot run this job (atomic, a test lkprobot runs, setups it
 * implements)? 0, or -1 with one line in err. Nothing is touched. The
 * commands that run it elsewhere (a QEMU guest, a box) ask this.
 */
int engine_check(const struct node *job, struct strbuf *err);
/* The same, and can it run on this machine (root where its setups need it)? */
int engine_check_here(const struct node *job, struct strbuf *err);

/*
 * Run the job. Returns 0 when a result root was made (whatever job_state
 * says), -1 with err set when the job could not start (see engine_check_here,
 * or the result root cannot be created).
 */
int engine_run(const struct node *job, const struct machine *m, const struct engine_opts *o,
	       struct engine_result *res, struct strbuf *err);

void engine_result_release(struct engine_result *res);

/*
 * With on, print "@@LKPROBOT <what> <name> (<uptime> s since boot)" on
 * stdout: a guest's progress on its console. The host times the boot with
 * these lines; the uptime in them shows where a slow boot goes.
 */
void engine_marker(bool on, const char *what, const char *name);

#endif

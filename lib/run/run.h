/*
 * run: one atomic job running on the machine we are on — the state shared
 * by the engine and the programs (lib/programs/), and the helpers programs
 * use to read their parameters, spawn commands and write result files.
 *
 * Order (as `lkp run`): setups in job order, monitors started, the test,
 * monitors stopped, stats extracted. Everything a program writes goes under
 * r->root (the run's result root). Commands are spawned from argv arrays:
 * job values are never put into a shell command line.
 */
#ifndef LKP_RUN_H
#define LKP_RUN_H

#include "../sys/machine.h"
#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct program;

struct run {
	const struct node *job;		/* the atomic job (borrowed) */
	const struct machine *machine;	/* what units convert against */
	char *root;			/* this run's result root directory */
	char *tmpdir;			/* scratch space, removed after the run */
	bool loop_disks;		/* back the job's disks by loop devices (no spare disks) */
	uint64_t loop_size;		/* size of each loop device's sparse backing file */
	const char *fs_root;		/* where file systems are mounted: <fs_root>/<dev> (/fs) */
	const char *src_dir;		/* the source tree `command` builds and runs in (NULL: cwd) */
	bool fresh_boot;		/* the kernel was booted for this run: its whole log is the run's (kmsg) */
	bool verbose;

	/* set by setups, read by later setups and the test */
	char **partitions;		/* block devices of the job (disk) */
	size_t npartitions;
	char **mount_points;		/* file systems mounted for the job (fs) */
	size_t nmounts;
	char **loops;			/* loop devices we attached: detached after the run */
	size_t nloops;
	char **swaps;			/* swap devices we enabled: disabled after the run */
	size_t nswaps;
	char *fs;			/* the file system type made by fs */
	bool dax;			/* fs asked for DAX and DAX is really on */

	/* notes for job.yaml and the store: "perf-stat: cycles <not supported>" */
	struct node *unavailable;	/* map: what -> why */
	struct node *facts;		/* map: things measured about the machine (accel, dax) */
};

/* A test's runtime when the job sets none (seconds), as lkp-tests'. */
#define RUN_RUNTIME_DEFAULT 300
/* What a whole job may take past its runtime: setups, monitors, a boot (seconds). */
#define RUN_JOB_MARGIN 600

/*
 * How long a whole job may take where it is run from outside (QEMU, a
 * Slurm node): its runtime (default RUN_RUNTIME_DEFAULT; a bad one counts
 * as the default: the engine refuses it later) + RUN_JOB_MARGIN seconds.
 */
unsigned run_job_timeout(const struct node *job);

/*
 * A program option's value: under the program's own mapping, else anywhere
 * in the job (lkp-tests' non-local options, e.g. top-level runtime). NULL
 * when the job does not set it or sets it to nothing.
 */
const char *run_param(const struct run *r, const struct program *p, const char *opt);
/* The same converted: durations, sizes, task counts (against the machine). */
int run_param_seconds(const struct run *r, const struct program *p, const char *opt,
		      uint64_t def, uint64_t *out, struct strbuf *err);
int run_param_bytes(const struct run *r, const struct program *p, const char *opt,
		    uint64_t def, uint64_t *out, struct strbuf *err);
int run_param_tasks(const struct run *r, const struct program *p, const char *opt,
		    uint64_t def, uint64_t *out, struct strbuf *err);

/* Remember a string in one of the run's lists (partitions, mounts, ...). */
void run_list_add(char ***list, size_t *n, const char *s);

/* Note that something could not be measured or set, and why. */
void run_unavailable(struct run *r, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void run_fact(struct run *r, const char *what, const char *value);

/* Path of a file in the result root (caller frees). */
char *run_path(const struct run *r, const char *name);
/* Write (create or replace) a file in the result root. */
int run_write(const struct run *r, const char *name, const char *data, size_t len,
	      struct strbuf *err);
/* Append a command line, quoted for a shell reader, to reproduce.sh. */
void run_log_cmd(const struct run *r, char *const argv[]);
/* Write `value` to a sysfs/procfs file, and log it to reproduce.sh. */
int run_write_sys(const struct run *r, const char *path, const char *value, struct strbuf *err);

/*
 * Run argv (argv[0] looked up in PATH; lib/sys/proc, with SIGKILL as its
 * death signal: a job's command never outlives us) and wait for it. stdout goes to
 * out_file in the result root (NULL: inherited), stderr to err_file (NULL:
 * same as stdout), stdin from in_file (NULL: /dev/null); relative names are
 * in the result root, absolute paths as given. The command is logged to
 * reproduce.sh. Returns the exit status (0..255), 128+signal if killed,
 * or -1 with err set when it could not be started (e.g. not installed).
 */
int run_cmd(const struct run *r, char *const argv[], const char *in_file,
	    const char *out_file, const char *err_file, struct strbuf *err);
/*
 * Run n commands at once and wait for them all, as lkp-tests' setups do
 * with `cmd & ... wait` (mkfs on each device): stdin /dev/null, stdout and
 * stderr to out_file (NULL: inherited), each logged to reproduce.sh with
 * " &" and a "wait" after them. codes[i] is command i's status as run_cmd
 * returns it (-1: not started). Returns 0, or -1 with err set when one
 * could not be started.
 */
int run_cmds(const struct run *r, char **const argvs[], size_t n, const char *out_file, int codes[],
	     struct strbuf *err);
/* Run argv and capture its stdout into out (stderr to the result root's "stderr"). */
int run_capture(const struct run *r, char *const argv[], struct strbuf *out, struct strbuf *err);

/*
 * Run argv outside any job (no result root, not logged): stdin /dev/null,
 * stdout and stderr to the given fds (-1: inherited). Same return values
 * as run_cmd().
 */
int run_exec(char *const argv[], int out_fd, int err_fd, struct strbuf *err);
/* The same with `dir` as its working directory. */
int run_exec_in(const char *dir, char *const argv[], int out_fd, int err_fd, struct strbuf *err);
/* The same capturing stdout into out (stderr inherited). */
int run_exec_capture(char *const argv[], struct strbuf *out, struct strbuf *err);

/* Is a command available in PATH? */
bool run_have(const char *cmd);

#endif

/*
 * proc: the one way lkprobot starts a child process, on the model of git's
 * run-command. A child runs an argv (argv[0] looked up in PATH; never a
 * shell line) or a function in a forked copy of us; it gets environment
 * additions, a working directory, stdin/stdout/stderr from a file, an fd,
 * /dev/null, a pipe or a capture buffer (with a size cap), its own process
 * group or session, a death signal (it must not outlive us), and a timeout
 * or a stop flag that ends it — its whole group when it has one — with
 * SIGTERM, a grace period, then SIGKILL. The wait gives its status and
 * rusage; every wait is bounded by what the caller asked for.
 *
 * The small things children and their waits need live here too: the
 * monotonic clock and the process's one stop flag (SIGTERM/SIGINT seen).
 *
 *	struct proc p = { .argv = argv, .out = PROC_CAPTURE, .capture = &out };
 *	int rc = proc_run(&p, err);	// 0..255, 128+signal, or -1 with err
 */
#ifndef LKP_PROC_H
#define LKP_PROC_H

#include "../util/strbuf.h"

#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/types.h>

/* in, out, err: an fd >= 0 is dup'd into place (0 in `in` and zero-filled: inherited) */
#define PROC_INHERIT	0	/* the parent's own (the zero value) */
#define PROC_NULL	(-1)	/* /dev/null */
#define PROC_PIPE	(-2)	/* a pipe: after proc_start() the field holds the parent's end */
#define PROC_TO_OUT	(-3)	/* err only: wherever stdout goes */
#define PROC_CAPTURE	(-4)	/* out (and err): into p->capture, up to capture_max bytes */

/* proc_start() of a function: how long other threads of ours may take to end, seconds */
#define PROC_THREADS_WAIT 5

/* proc_wait_for(): still running when the time was up */
#define PROC_RUNNING	(-2)

struct proc {
	/*
	 * what runs: argv, or fn(arg) in a forked child (its return value is
	 * the exit status) — only from a process with one thread: proc_start
	 * waits PROC_THREADS_WAIT s for the others to end, then refuses
	 * (EDEADLK): another thread could hold a lock the child needs
	 */
	char *const *argv;
	int (*fn)(void *arg);
	void *arg;
	const char *const *env;		/* "NAME=value" set, "NAME" removed; the rest inherited */
	const char *dir;		/* working directory (NULL: ours) */

	/* where stdin/stdout/stderr come from and go (see PROC_*); a file name wins over the fd */
	int in, out, err;
	const char *in_file;		/* opened for reading */
	const char *out_file, *err_file;	/* created or appended to (0644) */

	bool pgroup;			/* its own process group: a timeout or a stop ends all it started */
	bool setsid;			/* its own session: detached from our terminal (implies a group) */
	int death_sig;			/* sent to it when we die (PR_SET_PDEATHSIG); 0: it may outlive us */
	bool keep_signals;		/* fn: keep our signal mask and handlers (argv: always reset) */

	double timeout;			/* seconds after the start; 0: none */
	double grace;			/* SIGTERM to SIGKILL, seconds (0: 5) */
	volatile sig_atomic_t *stop;	/* when it turns non-zero: ended as on a timeout */
	bool stop_closes_stdin;		/* a stop closes its stdin pipe (EOF) instead of SIGTERM */
	int stop_sig;			/* the signal a stop sends (0: SIGTERM; mpstat: SIGINT) */
	const sigset_t *wait_mask;	/* the signal mask while waiting (ppoll) (NULL: ours) */

	struct strbuf *capture;		/* PROC_CAPTURE's buffer (appended to) */
	size_t capture_max;		/* bytes kept (0: 16 MiB); the rest is read and dropped */

	/* filled in */
	pid_t pid;
	int status;			/* the raw wait status */
	struct rusage ru;
	bool timed_out;			/* ended by the timeout */
	bool stopped;			/* ended by the stop flag */
	bool killed;			/* it needed the SIGKILL */
	bool truncated;			/* capture_max was reached */
	int start_errno;		/* why proc_start() failed (ENOENT: not installed) */

	/* internal */
	bool ended;
	int cap_fd, pidfd;
	double started, term_at;
};

/* Start it. 0, or -1 with "cannot run 'argv0': why" in err (and p->start_errno). */
int proc_start(struct proc *p, struct strbuf *err);
/*
 * Wait for it to end, reading its capture and applying its timeout and
 * stop flag. Its exit status (0..255), 128+signal when a signal ended it,
 * or -1 with err set when it could not be waited for.
 */
int proc_wait(struct proc *p, struct strbuf *err);
/* The same, for at most `seconds`: PROC_RUNNING when it still runs then. */
int proc_wait_for(struct proc *p, double seconds, struct strbuf *err);
/* proc_start() then proc_wait(). */
int proc_run(struct proc *p, struct strbuf *err);
/* Send sig to it, or to its group when it has one. */
void proc_signal(const struct proc *p, int sig);
/*
 * End it now: SIGTERM (to its group when it has one), up to `grace`
 * seconds for it to go, then SIGKILL. Its status as proc_wait gives it.
 */
int proc_end(struct proc *p, double grace, struct strbuf *err);
/*
 * After it ended: SIGKILL what is left of its process group until nothing
 * is, for at most `seconds` (a test's children holding a mount).
 */
void proc_kill_group(const struct proc *p, double seconds);

/* An exit status as the shell says it: "exit 3", "killed by signal 9". */
const char *proc_status_text(int code, char buf[32]);

/* Seconds on the monotonic clock (for deadlines). */
double proc_now(void);

/*
 * The process's one stop flag: proc_catch_stop() clears proc_stop_signal
 * and makes SIGTERM and SIGINT (an inherited "ignore SIGINT" is kept) set
 * it to the signal's number instead of killing us; a wait given
 * `.stop = &proc_stop_signal` then ends its child. With `saved`, the
 * handlers before are kept there for proc_restore_stop().
 */
struct proc_saved_stop {
	struct sigaction term, intr;
};
extern volatile sig_atomic_t proc_stop_signal;
void proc_catch_stop(struct proc_saved_stop *saved);
void proc_restore_stop(const struct proc_saved_stop *saved);

#endif

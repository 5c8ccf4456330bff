/* Unit tests: lib/sys/proc — real children (sh, cat, sleep), no mocks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/sys/proc.h"

static void test_capture_status_env_dir(void **state)
{
	char *argv[] = { "sh", "-c", "echo \"$A:$B:$(pwd)\"; echo err >&2; exit 3", NULL };
	const char *env[] = { "A=1", "B", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;

	setenv("B", "gone", 1);
	struct proc p = { .argv = argv, .env = env, .dir = "/", .out = PROC_CAPTURE, .err = PROC_NULL,
			  .capture = &out };
	assert_int_equal(proc_run(&p, &err), 3);
	assert_string_equal(out.buf, "1::/\n");
	unsetenv("B");

	/* stderr with stdout */
	strbuf_reset(&out);
	struct proc q = { .argv = argv, .out = PROC_CAPTURE, .err = PROC_TO_OUT, .capture = &out };
	assert_int_equal(proc_run(&q, &err), 3);
	assert_non_null(strstr(out.buf, "err\n"));
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_not_installed_is_a_start_error(void **state)
{
	char *argv[] = { "lkprobot-no-such-tool", NULL };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	struct proc p = { .argv = argv };
	assert_int_equal(proc_run(&p, &err), -1);
	assert_int_equal(p.start_errno, ENOENT);
	assert_string_equal(err.buf, "cannot run 'lkprobot-no-such-tool': No such file or directory");

	char *sh[] = { "true", NULL };
	struct proc q = { .argv = sh, .dir = "/nonexistent" };
	assert_int_equal(proc_run(&q, &err), -1);
	assert_non_null(strstr(err.buf, "in '/nonexistent'"));
	strbuf_release(&err);
}

static void test_capture_is_capped(void **state)
{
	char *argv[] = { "head", "-c", "100000", "/dev/zero", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;

	struct proc p = { .argv = argv, .out = PROC_CAPTURE, .capture = &out, .capture_max = 1000 };
	assert_int_equal(proc_run(&p, &err), 0);
	assert_int_equal(out.len, 1000);
	assert_true(p.truncated);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_timeout_ends_the_group(void **state)
{
	/* the shell's own child would outlive a kill of the shell alone */
	char *argv[] = { "sh", "-c", "trap '' TERM; sleep 30 & sleep 30; wait", NULL };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	double t0 = proc_now();
	struct proc p = { .argv = argv, .pgroup = true, .timeout = 0.3, .grace = 0.3 };
	int rc = proc_run(&p, &err);
	assert_true(p.timed_out);
	assert_true(rc >= 128);
	proc_kill_group(&p, 5);
	assert_int_equal(kill(-p.pid, 0), -1);
	assert_true(proc_now() - t0 < 10);
	strbuf_release(&err);
}

static int child_fn(void *arg)
{
	return *(int *)arg;
}

static void test_function_child_and_stdin_pipe(void **state)
{
	int seven = 7;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;

	struct proc p = { .fn = child_fn, .arg = &seven };
	assert_int_equal(proc_run(&p, &err), 7);

	char *argv[] = { "cat", NULL };
	struct proc c = { .argv = argv, .in = PROC_PIPE, .out = PROC_CAPTURE, .capture = &out };
	assert_int_equal(proc_start(&c, &err), 0);
	assert_true(c.in > 2);
	assert_int_equal(write(c.in, "hello", 5), 5);
	close(c.in);
	c.in = -1;
	assert_int_equal(proc_wait(&c, &err), 0);
	assert_string_equal(out.buf, "hello");
	strbuf_release(&out);
	strbuf_release(&err);
}

static void *wait_for_pipe(void *arg)
{
	char c;
	return (void *)(intptr_t)read(*(int *)arg, &c, 1);
}

static void *end_soon(void *arg)
{
	(void)arg;
	usleep(300000);
	return NULL;
}

/*
 * A function child forked while another thread runs is refused (EDEADLK),
 * after PROC_THREADS_WAIT s: a lock that thread held would stay held in the
 * child for ever (the service's worker once waited on libgit2's). An argv
 * child is fine; once the thread is gone, the function child runs; a thread
 * that ends within the wait (a resolver let go) is waited for.
 */
static void test_function_child_refused_beside_a_thread(void **state)
{
	int seven = 7, fds[2];
	struct strbuf err = STRBUF_INIT;
	pthread_t t;
	void *ret;
	(void)state;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_for_pipe, &fds[0]), 0);
	struct proc p = { .fn = child_fn, .arg = &seven };
	assert_int_equal(proc_run(&p, &err), -1);
	assert_int_equal(p.start_errno, EDEADLK);
	assert_non_null(strstr(err.buf, "this process has 2 threads"));
	char *argv[] = { "true", NULL };
	struct proc a = { .argv = argv };
	assert_int_equal(proc_run(&a, &err), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	assert_int_equal(pthread_join(t, &ret), 0);
	struct proc q = { .fn = child_fn, .arg = &seven };
	assert_int_equal(proc_run(&q, &err), 7);
	assert_int_equal(pthread_create(&t, NULL, end_soon, NULL), 0);
	assert_int_equal(pthread_detach(t), 0);
	struct proc r = { .fn = child_fn, .arg = &seven };
	assert_int_equal(proc_run(&r, &err), 7);
	close(fds[0]);
	close(fds[1]);
	strbuf_release(&err);
}

/* proc_end: SIGTERM, and SIGKILL after the grace for a child that ignores it. */
static void test_end_term_then_kill(void **state)
{
	char *sleeper[] = { "sleep", "30", NULL };
	char *stubborn[] = { "sh", "-c", "trap '' TERM; echo ready; sleep 30", NULL };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	struct proc a = { .argv = sleeper };
	assert_int_equal(proc_start(&a, &err), 0);
	assert_int_equal(proc_end(&a, 5, &err), 128 + SIGTERM);
	struct proc b = { .argv = stubborn, .pgroup = true, .out = PROC_PIPE };
	assert_int_equal(proc_start(&b, &err), 0);
	char c;
	assert_int_equal(read(b.out, &c, 1), 1); /* its trap is set */
	double t0 = proc_now();
	assert_int_equal(proc_end(&b, 0.3, &err), 128 + SIGKILL);
	assert_true(proc_now() - t0 < 10);
	close(b.out);
	strbuf_release(&err);
}

static void test_stop_flag_closes_stdin(void **state)
{
	volatile sig_atomic_t stop = 0;
	char *argv[] = { "cat", NULL };
	struct strbuf err = STRBUF_INIT;
	(void)state;

	struct proc p = { .argv = argv, .in = PROC_PIPE, .out = PROC_NULL, .stop = &stop, .stop_closes_stdin = true };
	assert_int_equal(proc_start(&p, &err), 0);
	assert_int_equal(proc_wait_for(&p, 0.2, &err), PROC_RUNNING);
	stop = 1;
	assert_int_equal(proc_wait(&p, &err), 0);	/* cat ends at EOF, no signal */
	assert_true(p.stopped);
	assert_false(p.killed);
	strbuf_release(&err);
}

static void test_death_signal_reaches_the_child(void **state)
{
	int pfd[2];
	struct strbuf err = STRBUF_INIT;
	(void)state;

	/* a middle process starts a long sleep with a death signal, then dies; we adopt the orphan */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(pfd), 0);
	pid_t mid = fork();
	if (mid == 0) {
		char *argv[] = { "sleep", "30", NULL };
		struct proc p = { .argv = argv, .death_sig = SIGKILL };
		if (proc_start(&p, &err))
			_exit(1);
		if (write(pfd[1], &p.pid, sizeof(p.pid)) < 0)
			_exit(1);
		_exit(0);
	}
	pid_t child = 0;
	assert_int_equal(read(pfd[0], &child, sizeof(child)), sizeof(child));
	waitpid(mid, NULL, 0);
	int st = 0, gone = 0;
	for (int i = 0; i < 250 && !gone; i++) {
		gone = waitpid(child, &st, WNOHANG) == child;
		if (!gone)
			usleep(20000);
	}
	assert_true(gone);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	close(pfd[0]);
	close(pfd[1]);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_status_env_dir),
		cmocka_unit_test(test_not_installed_is_a_start_error),
		cmocka_unit_test(test_capture_is_capped),
		cmocka_unit_test(test_timeout_ends_the_group),
		cmocka_unit_test(test_function_child_and_stdin_pipe),
		cmocka_unit_test(test_function_child_refused_beside_a_thread),
		cmocka_unit_test(test_end_term_then_kill),
		cmocka_unit_test(test_stop_flag_closes_stdin),
		cmocka_unit_test(test_death_signal_reaches_the_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

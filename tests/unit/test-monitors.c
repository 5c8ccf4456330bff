/*
 * Unit tests: the /proc and /sys monitors lkp-tests runs by default that
 * test-parsers.c does not cover (slabinfo, softirqs, diskstats, proc-stat,
 * numa-meminfo, numa-numastat, numa-vmstat), on their raw files captured
 * here (tests/fixtures/tools/, see its README). Each parser is compared
 * with what lkp-tests' own parser printed for the same file (*.lkp), with
 * numbers read from the fixture, and on cut or garbled copies; each
 * monitor is run for a moment and its output parsed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/run/monitor.h"
#include "../../lib/run/program.h"
#include "../../lib/run/run.h"
#include "../../lib/stats/stats.h"
#include "../../lib/util/yml.h"

typedef int (*parse_fn)(const char *, size_t, struct stats_samples *, struct strbuf *);

static char fixture_dir[4096];

static void load(struct strbuf *sb, const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path))
		fail_msg("cannot read fixture %s", path);
}

static const struct program *prog(const char *name)
{
	const struct program *p = program_find(name);
	assert_non_null(p);
	return p;
}

static parse_fn parser(const char *name)
{
	assert_non_null(prog(name)->parse);
	return prog(name)->parse;
}

static void parse_ok(const char *program, const char *fixture, struct stats_samples *ss)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

	load(&text, fixture);
	stats_samples_init(ss);
	if (parser(program)(text.buf, text.len, ss, &err))
		fail_msg("%s: %s", fixture, err.buf);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The parser refuses the fixture with one line that mentions `what`. */
static void parse_bad(const char *program, const char *fixture, const char *what)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;

	load(&text, fixture);
	stats_samples_init(&ss);
	assert_int_equal(parser(program)(text.buf, text.len, &ss, &err), -1);
	assert_true(err.len > 0);
	assert_null(strchr(err.buf, '\n'));
	if (!strstr(err.buf, what))
		fail_msg("%s: error '%s' does not mention '%s'", fixture, err.buf, what);
	stats_samples_release(&ss);
	strbuf_release(&text);
	strbuf_release(&err);
}

static const struct stats_series *series(const struct stats_samples *ss, const char *key)
{
	const struct stats_series *se = stats_find(ss, key);
	if (!se)
		fail_msg("no series '%s'", key);
	return se;
}

/*
 * The samples equal what lkp-tests' parser printed for the same file:
 * same keys in the same order, sample counts, values and kinds. With
 * `subset`, ss may have more series than lkp-tests (they must come after).
 */
static void same_as_lkp(const struct stats_samples *ss, const char *lkp_file, bool subset)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples want;

	load(&text, lkp_file);
	stats_samples_init(&want);
	if (stats_add_lines(&want, text.buf, &err))
		fail_msg("%s: %s", lkp_file, err.buf);
	for (size_t i = 0; i < want.n; i++) {
		const struct stats_series *w = &want.s[i], *g = i < ss->n ? &ss->s[i] : NULL;
		if (!g || strcmp(w->key, g->key))
			fail_msg("%s: series %zu is '%s', lkp-tests has '%s'", lkp_file, i, g ? g->key : "none",
				 w->key);
		if (w->n != g->n || w->is_float != g->is_float)
			fail_msg("%s: %s has %zu samples (%s), lkp-tests %zu (%s)", lkp_file, w->key, g->n,
				 g->is_float ? "float" : "integer", w->n, w->is_float ? "float" : "integer");
		for (size_t k = 0; k < w->n; k++)
			if (!(fabs(w->v[k] - g->v[k]) <= 1e-12 * fmax(1, fabs(w->v[k]))))
				fail_msg("%s: %s[%zu] = %.17g, lkp-tests %.17g", lkp_file, w->key, k, g->v[k], w->v[k]);
	}
	if (!subset && want.n != ss->n)
		fail_msg("%s: %zu series, lkp-tests %zu", lkp_file, ss->n, want.n);
	stats_samples_release(&want);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The same, whatever the order of the series (lkp-tests' order of ties is Ruby's unstable sort's). */
static void same_as_lkp_any_order(const struct stats_samples *ss, const char *lkp_file)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples want;

	load(&text, lkp_file);
	stats_samples_init(&want);
	if (stats_add_lines(&want, text.buf, &err))
		fail_msg("%s: %s", lkp_file, err.buf);
	for (size_t i = 0; i < want.n; i++) {
		const struct stats_series *w = &want.s[i], *g = stats_find(ss, w->key);
		if (!g || w->n != g->n || w->is_float != g->is_float)
			fail_msg("%s: %s missing, or another count or kind", lkp_file, w->key);
		for (size_t k = 0; k < w->n; k++)
			if (!(fabs(w->v[k] - g->v[k]) <= 1e-12 * fmax(1, fabs(w->v[k]))))
				fail_msg("%s: %s[%zu] = %.17g, lkp-tests %.17g", lkp_file, w->key, k, g->v[k], w->v[k]);
	}
	if (want.n != ss->n)
		fail_msg("%s: %zu series, lkp-tests %zu", lkp_file, ss->n, want.n);
	stats_samples_release(&want);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The reduced stats of the samples as the engine writes them (stats.json). */
static struct node *reduced(const struct stats_samples *ss, const char *group)
{
	struct node *pj = stats_program_json(ss, group), *stats = node_new(NODE_MAP);

	assert_non_null(pj);
	stats_reduce(pj, stats);
	node_free(pj);
	return stats;
}

static double stat_of(const struct node *stats, const char *key)
{
	const struct node *n = node_get(stats, key);
	if (!n || !n->str)
		fail_msg("no '%s' in the stats", key);
	return strtod(n->str, NULL);
}

/* The n-th number (from 0) after the first line starting with `prefix`'s words. */
static double fixture_word(const char *text, const char *prefix, int word)
{
	const char *l = strstr(text, prefix);
	char *end;
	double v = 0;

	if (!l)
		fail_msg("no '%s' in the fixture", prefix);
	l += strlen(prefix);
	for (int i = 0; i <= word; i++) {
		v = strtod(l, &end);
		if (end == l)
			fail_msg("'%s' has no number %d", prefix, word);
		l = end;
	}
	return v;
}

/* Run p's monitor for ms milliseconds, then SIGTERM; its output and its exit status. */
static int run_monitor(const struct program *p, const char *job_yaml, int ms, struct strbuf *out, struct strbuf *said)
{
	char path[] = "/tmp/lkp-monitor-XXXXXX", epath[] = "/tmp/lkp-monitor-err-XXXXXX";
	int fd = mkstemp(path), efd = mkstemp(epath), status;
	struct strbuf err = STRBUF_INIT;
	struct node *job = yml_load_one(job_yaml, "job", &err);
	struct run r;
	pid_t pid;

	memset(&r, 0, sizeof(r));
	r.job = job;
	r.root = "/tmp";
	assert_non_null(job);
	assert_true(fd >= 0 && efd >= 0);
	/* as the engine: SIGTERM blocked until the monitor waits, so an early stop is not lost */
	sigset_t term, old;
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(efd, 2);
		_exit(p->monitor(&r, p, fd) & 0xff);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0)
		;
	strbuf_read_file(out, path);
	strbuf_read_file(said, epath);
	close(fd);
	close(efd);
	unlink(path);
	unlink(epath);
	node_free(job);
	strbuf_release(&err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- slabinfo ------------------------------------------------------------- */

static void test_slabinfo_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	parse_ok("slabinfo", "slabinfo", &ss);
	same_as_lkp(&ss, "slabinfo.lkp", false);
	load(&text, "slabinfo");
	assert_int_equal(series(&ss, "time")->n, 3);
	assert_true(series(&ss, "kmalloc-64.active_objs")->v[0] == fixture_word(text.buf, "\nkmalloc-64 ", 0));
	assert_true(series(&ss, "kmalloc-64.num_objs")->v[0] == fixture_word(text.buf, "\nkmalloc-64 ", 1));
	assert_null(stats_find(&ss, "kmalloc-64.objsize")); /* lkp-tests keeps four columns */
	struct node *st = reduced(&ss, "slabinfo");
	const struct stats_series *se = series(&ss, "kmalloc-64.num_objs");
	assert_true(fabs(stat_of(st, "slabinfo.kmalloc-64.num_objs") - (se->v[0] + se->v[1] + se->v[2]) / 3) < 1e-9);
	node_free(st);
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("slabinfo", "slabinfo-truncated", "truncated");
	parse_bad("slabinfo", "slabinfo-garbled", "kmalloc-64 has 13 fields");
}

/* ---- softirqs ------------------------------------------------------------- */

static void test_softirqs_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	parse_ok("softirqs", "softirqs", &ss);
	same_as_lkp(&ss, "softirqs.lkp", false);
	load(&text, "softirqs");
	double c0 = fixture_word(text.buf, "TIMER:", 0), c1 = fixture_word(text.buf, "TIMER:", 1);
	assert_true(series(&ss, "CPU0.TIMER")->v[0] == c0);
	assert_true(series(&ss, "CPU1.TIMER")->v[0] == c1);
	assert_true(series(&ss, "TIMER")->v[0] == c0 + c1);
	assert_true(series(&ss, "TIMER")->is_float == false);
	/* lkp-tests' event-counter prefix is "softirq.": softirqs.* are means */
	struct node *st = reduced(&ss, "softirqs");
	const struct stats_series *t = series(&ss, "TIMER");
	assert_true(fabs(stat_of(st, "softirqs.TIMER") - (t->v[0] + t->v[1]) / 2) < 1e-9);
	node_free(st);
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("softirqs", "softirqs-garbled", "TIMER: has 0 counts for 2 CPU columns");
}

/* ---- diskstats ------------------------------------------------------------ */

static void test_diskstats_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* this kernel's 20-field lines: lkp-tests gives only the times */
	parse_ok("diskstats", "diskstats", &ss);
	same_as_lkp(&ss, "diskstats.lkp", true);
	load(&text, "diskstats");
	const char *last = strrchr(text.buf, 't'); /* the last "time:" line */
	while (last > text.buf && strncmp(last, "time:", 5))
		last--;
	double w0 = fixture_word(text.buf, " vda ", 6), w2 = fixture_word(last, " vda ", 6);
	assert_true(series(&ss, "read_ios.vda")->v[0] == fixture_word(text.buf, " vda ", 0));
	assert_true(series(&ss, "write_sectors.vda")->v[0] == w0);
	assert_true(series(&ss, "flush_ticks.vda")->v[0] == fixture_word(text.buf, " vda ", 16));
	assert_true(w2 > w0); /* dd wrote while it was captured */
	struct node *st = reduced(&ss, "diskstats");
	assert_true(stat_of(st, "diskstats.write_sectors.vda") == w2 - w0); /* last - first */
	node_free(st);
	stats_samples_release(&ss);
	/* cut to the 14 fields of kernels before 4.18: lkp-tests' numbers exactly */
	parse_ok("diskstats", "diskstats-14", &ss);
	same_as_lkp(&ss, "diskstats-14.lkp", false);
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("diskstats", "diskstats-garbled", "40 fields");
}

/* ---- numa-* --------------------------------------------------------------- */

static void test_numa_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	parse_ok("numa-meminfo", "numa-meminfo", &ss);
	same_as_lkp(&ss, "numa-meminfo.lkp", false);
	load(&text, "numa-meminfo");
	assert_true(series(&ss, "node0.MemFree")->v[0] == fixture_word(text.buf, "MemFree:", 0));
	struct node *st = reduced(&ss, "numa-meminfo");
	assert_non_null(node_get(st, "numa-meminfo.node0.AnonPages.max"));
	node_free(st);
	stats_samples_release(&ss);
	parse_ok("numa-numastat", "numa-numastat", &ss);
	same_as_lkp(&ss, "numa-numastat.lkp", false);
	load(&text, "numa-numastat");
	const struct stats_series *hit = series(&ss, "node0.numa_hit");
	assert_true(hit->v[0] == fixture_word(text.buf, "numa_hit", 0));
	st = reduced(&ss, "numa-numastat");
	assert_true(stat_of(st, "numa-numastat.node0.numa_hit") == hit->v[1] - hit->v[0]);
	node_free(st);
	stats_samples_release(&ss);
	parse_ok("numa-vmstat", "numa-vmstat", &ss);
	same_as_lkp(&ss, "numa-vmstat.lkp", false);
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("numa-vmstat", "numa-vmstat-truncated", "truncated");
	parse_bad("numa-meminfo", "numa-meminfo-garbled", "MemFree: 'kB' is not a number");
}

/* ---- mpstat --------------------------------------------------------------- */

static void test_mpstat_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	parse_ok("mpstat", "mpstat", &ss);
	same_as_lkp(&ss, "mpstat.lkp", false);
	load(&text, "mpstat");
	assert_true(series(&ss, "cpu.all.sys%")->v[0] == fixture_word(strstr(text.buf, "\"sys\":"), ":", 0));
	assert_true(series(&ss, "cpu.all.sys%")->is_float);
	/* one max_utilization_pct, zero-padded to the run: its mean is lkp-tests' figure */
	struct node *st = reduced(&ss, "mpstat");
	assert_non_null(node_get(st, "mpstat.cpu.all.sys%"));
	assert_non_null(node_get(st, "mpstat.max_utilization_pct"));
	node_free(st);
	stats_samples_release(&ss);
	parse_ok("mpstat", "mpstat-cpus", &ss); /* -P ALL */
	same_as_lkp(&ss, "mpstat-cpus.lkp", false);
	series(&ss, "cpu.1.idle%");
	stats_samples_release(&ss);
	parse_ok("mpstat", "mpstat-cut", &ss); /* cut inside an entry: mended as lkp-tests mends it */
	same_as_lkp(&ss, "mpstat-cut.lkp", false);
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("mpstat", "mpstat-text", "not JSON");
}

/* ---- iostat --------------------------------------------------------------- */

static void test_iostat_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* sysstat 12's "Device" header: lkp-tests reads the CPU lines only */
	parse_ok("iostat", "iostat", &ss);
	same_as_lkp(&ss, "iostat.lkp", true);
	load(&text, "iostat");
	const char *vda = strstr(text.buf, "\nvda ");
	assert_non_null(vda);
	assert_true(series(&ss, "vda.r/s")->v[0] == fixture_word(vda, "vda", 0));
	assert_true(series(&ss, "vda.util")->v[0] == fixture_word(vda, "vda", 21));
	struct node *st = reduced(&ss, "iostat");
	assert_non_null(node_get(st, "iostat.vda.w_await.max"));
	assert_non_null(node_get(st, "iostat.cpu.iowait"));
	node_free(st);
	stats_samples_release(&ss);
	/* the older "Device:" header: lkp-tests' numbers exactly */
	parse_ok("iostat", "iostat-colon", &ss);
	same_as_lkp(&ss, "iostat-colon.lkp", false);
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("iostat", "iostat-truncated", "truncated");
}

/* ---- sched_debug ---------------------------------------------------------- */

static void test_sched_debug_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* captured in the QEMU guest (Debian's 6.1 kernel, debugfs): lkp-tests' numbers exactly */
	parse_ok("sched_debug", "sched_debug", &ss);
	same_as_lkp(&ss, "sched_debug.lkp", false);
	load(&text, "sched_debug");
	const struct stats_series *n0 = series(&ss, "cpu.nr_switches.0"), *n1 = series(&ss, "cpu.nr_switches.1");
	assert_true(n0->v[0] == fixture_word(strstr(text.buf, "cpu#0"), ".nr_switches                   :", 0));
	assert_true(series(&ss, "cpu.nr_switches.max")->v[0] == fmax(n0->v[0], n1->v[0]));
	assert_true(series(&ss, "cpu.nr_switches.avg")->v[0] == (n0->v[0] + n1->v[0]) / 2);
	assert_true(fabs(series(&ss, "cpu.nr_switches.stddev")->v[0] - fabs(n0->v[0] - n1->v[0]) / 2) < 1e-6);
	series(&ss, "jiffies");
	stats_samples_release(&ss);
	strbuf_release(&text);
	parse_bad("sched_debug", "sched_debug-truncated", "truncated");
}

/* ---- perf-sched ----------------------------------------------------------- */

static void test_perf_sched_parse(void **state)
{
	struct stats_samples ss;
	(void)state;

	parse_ok("perf-sched", "perf-sched", &ss);
	same_as_lkp_any_order(&ss, "perf-sched.lkp");
	assert_string_equal(ss.s[0].key, "total_wait_time.max.ms");
	assert_true(series(&ss, "total_wait_and_delay.count.ms")->v[0] > 1000);
	stats_samples_release(&ss);
	parse_bad("perf-sched", "perf-sched-truncated", "truncated");
}

/* ---- perf-profile --------------------------------------------------------- */

static void test_perf_profile_parse(void **state)
{
	struct stats_samples ss;
	(void)state;

	/* no PMU here: perf fell back to cpu-clock, and the names say so */
	parse_ok("perf-profile", "perf-profile", &ss);
	same_as_lkp(&ss, "perf-profile.lkp", false);
	series(&ss, "children.cpu-clock.do_syscall_64");
	assert_true(series(&ss, "self.cpu-clock._PyObject_Malloc")->is_float);
	stats_samples_release(&ss);
	parse_bad("perf-profile", "perf-profile-truncated", "truncated");
}

/* ---- the monitors, run here ------------------------------------------------- */

static void test_proc_monitors(void **state)
{
	static const char *const names[] = { "slabinfo", "softirqs", "diskstats", "proc-stat", "mpstat", "heartbeat" };
	(void)state;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct strbuf out = STRBUF_INIT, said = STRBUF_INIT, err = STRBUF_INIT, job = STRBUF_INIT;
		const struct program *p = prog(names[i]);
		struct stats_samples ss;

		bool whole = !strcmp(names[i], "mpstat") || !strcmp(names[i], "heartbeat"); /* whole seconds */
		strbuf_addf(&job, "%s:\n  interval: %s\n", names[i], whole ? "1" : "0.5");
		int rc = run_monitor(p, job.buf, whole ? 2500 : 1200, &out, &said);
		if (rc == MONITOR_UNAVAILABLE && strstr(said.buf, "Permission denied") && geteuid()) {
			/* /proc/slabinfo is root's: unavailable to a user, and said (make check as a user) */
			strbuf_release(&out);
			strbuf_release(&said);
			strbuf_release(&job);
			continue;
		}
		if (rc)
			fail_msg("%s: %s", names[i], said.buf);
		stats_samples_init(&ss);
		if (!strcmp(names[i], "heartbeat")) {
			assert_non_null(strstr(out.buf, "procs")); /* vmstat's header, raw only */
			assert_null(p->parse);
		} else if (p->parse) {
			assert_int_equal(strncmp(out.buf, whole ? "{\"sysstat\"" : "time: ", whole ? 10 : 6), 0);
			if (p->parse(out.buf, out.len, &ss, &err))
				fail_msg("%s: %s", names[i], err.buf);
			assert_true(series(&ss, "time")->n >= 2); /* 0, 0.5, 1.0 and the stop; mpstat: 1, 2 */
		} else {
			assert_non_null(strstr(out.buf, "\ncpu "));
		}
		stats_samples_release(&ss);
		strbuf_release(&out);
		strbuf_release(&said);
		strbuf_release(&err);
		strbuf_release(&job);
	}
}

/* bdi_dev_mapping: once, the job's disk of each partition (a partition number cut, pmem skipped) */
static void test_bdi_dev_mapping_monitor(void **state)
{
	char path[] = "/tmp/lkp-bdi-XXXXXX";
	char *parts[] = { "/dev/vda1", "/dev/pmem0" };
	struct strbuf out = STRBUF_INIT, want = STRBUF_INIT;
	struct stat st;
	struct run r;
	int fd = mkstemp(path);
	(void)state;

	if (stat("/dev/vda", &st) || !S_ISBLK(st.st_mode))
		skip();
	memset(&r, 0, sizeof(r));
	r.partitions = parts;
	r.npartitions = 2;
	assert_int_equal(prog("bdi_dev_mapping")->monitor(&r, prog("bdi_dev_mapping"), fd), 0);
	close(fd);
	strbuf_read_file(&out, path);
	unlink(path);
	strbuf_addf(&want, "'%u:%u': vda\n", major(st.st_rdev), minor(st.st_rdev));
	assert_string_equal(out.buf, want.buf);
	strbuf_release(&out);
	strbuf_release(&want);
}

/*
 * The monitors whose source this machine lacks say so in one line and
 * write nothing (recorded unavailable, never a failure); each parser
 * reads the empty raw file as no samples.
 */
static void test_monitors_unavailable_here(void **state)
{
	static const struct {
		const char *name, *needs, *said;
	} m[] = {
		{ "cpuidle", "/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "no cpuidle driver" },
		{ "cpufreq-stats", "/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state", "cpufreq" },
		{ "lock_stat", "/proc/lock_stat", "CONFIG_LOCK_STAT" },
		{ "sched_debug", "/sys/kernel/debug/sched/debug", "CONFIG_SCHED_DEBUG" },
		{ "nfsstat", NULL, "not NFS" },
		{ "latency_stats", "/proc/latency_stats", "CONFIG_LATENCYTOP" },
		{ "perf-c2c", "/sys/bus/event_source/devices/cpu/events/mem-loads", "PMU" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		struct strbuf out = STRBUF_INIT, said = STRBUF_INIT, job = STRBUF_INIT, err = STRBUF_INIT;
		struct stats_samples ss;
		const struct program *p = prog(m[i].name);

		stats_samples_init(&ss);
		assert_int_equal(p->parse("", 0, &ss, &err), 0);
		assert_int_equal(ss.n, 0);
		stats_samples_release(&ss);
		if (m[i].needs && !access(m[i].needs, R_OK))
			continue; /* this machine has it */
		strbuf_addf(&job, "%s:\n  delay: 0\n  duration: 1\n", m[i].name);
		assert_int_equal(run_monitor(p, job.buf, 1500, &out, &said), MONITOR_UNAVAILABLE);
		strbuf_rtrim(&said);
		const char *last = strrchr(said.buf, '\n') ? strrchr(said.buf, '\n') + 1 : said.buf;
		if (!strstr(last, m[i].said))
			fail_msg("%s said '%s', its last line without '%s'", m[i].name, said.buf, m[i].said);
		assert_int_equal(out.len, 0);
		strbuf_release(&out);
		strbuf_release(&said);
		strbuf_release(&job);
		strbuf_release(&err);
	}
}

/* perf-profile: a record, then its report in the raw file (or unavailable, saying why) */
static void test_perf_profile_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, said = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	int rc = run_monitor(prog("perf-profile"), "perf-profile:\n  delay: 0\n  duration: 1\n", 3000, &out, &said);
	(void)state;

	stats_samples_init(&ss);
	if (rc == MONITOR_UNAVAILABLE) {
		assert_non_null(strstr(said.buf, "perf-profile: "));
	} else {
		if (rc)
			fail_msg("perf-profile exited %d: %s", rc, said.buf);
		assert_int_equal(strncmp(out.buf, "# ========\n", 11), 0);
		if (prog("perf-profile")->parse(out.buf, out.len, &ss, &err))
			fail_msg("%s", err.buf);
	}
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&said);
	strbuf_release(&err);
}

/* perf-sched: a record, then its timehist in the raw file (or unavailable, saying why) */
static void test_perf_sched_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, said = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	int rc = run_monitor(prog("perf-sched"), "perf-sched:\n  delay: 0\n  duration: 1\nlite_mode: 1\n", 4000, &out,
			     &said);
	(void)state;

	stats_samples_init(&ss);
	if (rc == MONITOR_UNAVAILABLE) {
		assert_non_null(strstr(said.buf, "perf-sched: "));
	} else {
		assert_int_equal(rc, 0);
		assert_non_null(strstr(out.buf, " <- "));
		assert_int_equal(prog("perf-sched")->parse(out.buf, out.len, &ss, &err), 0);
		series(&ss, "total_wait_and_delay.count.ms");
	}
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&said);
	strbuf_release(&err);
}

/* iostat, as lkp-tests', runs only for a job's disks */
static void test_iostat_monitor_no_disks(void **state)
{
	struct strbuf out = STRBUF_INIT, said = STRBUF_INIT;
	(void)state;

	assert_int_equal(run_monitor(prog("iostat"), "iostat:\n", 300, &out, &said), MONITOR_UNAVAILABLE);
	assert_non_null(strstr(said.buf, "no disks"));
	assert_int_equal(out.len, 0);
	strbuf_release(&out);
	strbuf_release(&said);
}

static void test_numa_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, said = STRBUF_INIT, err = STRBUF_INIT;
	const struct program *p = prog("numa-vmstat");
	struct stats_samples ss;
	int rc = run_monitor(p, "numa-vmstat:\n", 1200, &out, &said);
	(void)state;

	stats_samples_init(&ss);
	if (access("/sys/devices/system/node/node1", F_OK)) {
		/* one node here: unavailable, one line says why, nothing written */
		assert_int_equal(rc, MONITOR_UNAVAILABLE);
		assert_non_null(strstr(said.buf, "no NUMA node 1"));
		assert_ptr_equal(strchr(said.buf, '\n'), said.buf + said.len - 1);
		assert_int_equal(out.len, 0);
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(p->parse(out.buf, out.len, &ss, &err), 0);
		series(&ss, "node1.nr_free_pages");
	}
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&said);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slabinfo_parse),
		cmocka_unit_test(test_softirqs_parse),
		cmocka_unit_test(test_diskstats_parse),
		cmocka_unit_test(test_numa_parse),
		cmocka_unit_test(test_sched_debug_parse),
		cmocka_unit_test(test_perf_sched_parse),
		cmocka_unit_test(test_perf_profile_parse),
		cmocka_unit_test(test_mpstat_parse),
		cmocka_unit_test(test_iostat_parse),
		cmocka_unit_test(test_proc_monitors),
		cmocka_unit_test(test_numa_monitor),
		cmocka_unit_test(test_iostat_monitor_no_disks),
		cmocka_unit_test(test_bdi_dev_mapping_monitor),
		cmocka_unit_test(test_monitors_unavailable_here),
		cmocka_unit_test(test_perf_sched_monitor),
		cmocka_unit_test(test_perf_profile_monitor),
	};

	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "tools");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

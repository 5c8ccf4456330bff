/*
 * Unit tests: lib/perfevent (libpfm4 encoding, system-wide counting) and
 * the perf-stat monitor and parser of lib/programs/perf_stat.c, on outputs
 * captured from real perf and from the monitor (tests/fixtures/perf-stat/,
 * see its README). The parser is checked against what lkp-tests' own Ruby
 * parser printed for the same files (*.lkp), including lkp-tests' fixtures
 * from machines with hardware counters, and on cut or garbled copies.
 *
 * `test-perfstat capture SECONDS FILE [OPTION VALUE]...` runs the monitor
 * for SECONDS, stops it with SIGTERM and leaves its raw output in FILE
 * (how the monitor fixture was made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/run/monitor.h"
#include "../../lib/run/perfevent.h"
#include "../../lib/run/program.h"
#include "../../lib/run/programs/programs.h"
#include "../../lib/run/run.h"
#include "../../lib/stats/stats.h"
#include "../../lib/util/json.h"

extern const struct program program_perf_stat;

/* ---- helpers ---------------------------------------------------------- */

static char fixture_dir[4096];

static void find_fixtures(void)
{
	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "perf-stat");
}

static void load(struct strbuf *sb, const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path))
		fail_msg("cannot read fixture %s", path);
}

static bool have_cpu_pmu(void)
{
	return !access("/sys/bus/event_source/devices/cpu", F_OK) ||
	       !access("/sys/bus/event_source/devices/cpu_core", F_OK);
}

static void parse_ok(const char *text, struct stats_samples *ss)
{
	struct strbuf err = STRBUF_INIT;

	stats_samples_init(ss);
	if (perf_stat_parse(text, strlen(text), ss, &err))
		fail_msg("parse failed: %s", err.buf);
	strbuf_release(&err);
}

static void parse_bad(const char *text, size_t len, const char *want)
{
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;

	stats_samples_init(&ss);
	if (program_perf_stat.parse(text, len, &ss, &err) != -1)
		fail_msg("accepted: %.*s", (int)(len > 200 ? 200 : len), text);
	assert_non_null(strstr(err.buf, "perf-stat: line "));
	assert_null(strchr(err.buf, '\n'));
	if (want && !strstr(err.buf, want))
		fail_msg("error '%s' does not say '%s'", err.buf, want);
	stats_samples_release(&ss);
	strbuf_release(&err);
}

static const struct stats_series *series(const struct stats_samples *ss, const char *key)
{
	return stats_find(ss, key);
}

static void assert_close(double a, double b, const char *what)
{
	if (fabs(a - b) > 1e-12 * fmax(fabs(a), fabs(b)) && fabs(a - b) > 1e-300)
		fail_msg("%s: %.17g != %.17g", what, a, b);
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* The last sample of a key (ps./total./overall. come once, in the last record). */
static double last(const struct stats_samples *ss, const char *key)
{
	const struct stats_series *se = stats_find(ss, key);

	if (!se || !se->n)
		fail_msg("%s missing", key);
	return se->v[se->n - 1];
}

/* Time and count of the nth (from 0) data line of `event` in a raw file. */
static void line_of(const char *text, const char *event, int nth, double *t, double *count)
{
	struct strbuf pat = STRBUF_INIT;

	strbuf_addf(&pat, ",%s,", event);
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if ((p[0] == ' ' || (p[0] >= '0' && p[0] <= '9')) && memmem(p, len, pat.buf, pat.len) &&
		    nth-- == 0) {
			assert_int_equal(sscanf(p, "%lf,%lf", t, count), 2);
			strbuf_release(&pat);
			return;
		}
		p += len + (nl ? 1 : 0);
	}
	fail_msg("no line %d of %s", nth, event);
}

/*
 * Compare our samples with lkp-tests' (its parse of the same file), as both
 * leave the parser: the <program>.json each makes (arrays aligned, zero
 * series dropped, as lkp-tests' dump-stat), key for key and value for
 * value. Ours has nothing more than lkprobot's own sum.* (and the keys of
 * `extra`); lkp-tests nothing more than the keys of `skip`.
 */
static void compare_text_with_lkp(const char *what, const char *raw, const char *lkp, const char *const *skip,
				  size_t nskip)
{
	struct strbuf err = STRBUF_INIT;
	struct stats_samples ours, theirs;
	struct node *a, *b;

	parse_ok(raw, &ours);
	stats_samples_init(&theirs);
	if (stats_add_lines(&theirs, lkp, &err))
		fail_msg("%s: lkp-tests' output: %s", what, err.buf);
	a = stats_program_json(&theirs, "perf-stat");
	b = stats_program_json(&ours, "perf-stat");
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < a->n; i++) {
		const struct node *x = a->vals[i], *y = node_get(b, a->keys[i]);
		bool skipped = false;

		for (size_t k = 0; k < nskip; k++)
			skipped |= !strcmp(a->keys[i] + strlen("perf-stat."), skip[k]);
		if (skipped)
			continue;
		if (!y)
			fail_msg("%s: %s missing", what, a->keys[i]);
		if (x->n != y->n)
			fail_msg("%s: %s has %zu samples, lkp-tests %zu", what, a->keys[i], y->n, x->n);
		for (size_t j = 0; j < x->n; j++) {
			double u, v;

			assert_true(json_number(x->vals[j], &u) && json_number(y->vals[j], &v));
			assert_close(v, u, a->keys[i]);
		}
	}
	for (size_t i = 0; i < b->n; i++)
		if (!node_get(a, b->keys[i]) && !starts_with(b->keys[i], "perf-stat.sum."))
			fail_msg("%s: %s is not in lkp-tests' output", what, b->keys[i]);
	node_free(a);
	node_free(b);
	stats_samples_release(&ours);
	stats_samples_release(&theirs);
	strbuf_release(&err);
}

static void compare_with_lkp(const char *fixture, const char *const *skip, size_t nskip)
{
	struct strbuf raw = STRBUF_INIT, lkp = STRBUF_INIT, name = STRBUF_INIT;

	load(&raw, fixture);
	strbuf_addf(&name, "%s.lkp", fixture);
	load(&lkp, name.buf);
	compare_text_with_lkp(fixture, raw.buf, lkp.buf, skip, nskip);
	strbuf_release(&raw);
	strbuf_release(&lkp);
	strbuf_release(&name);
}

/* Run the monitor in a child (as `uid` unless 0) for `ms`, then send `sig`. */
static int run_monitor_as(uid_t uid, int sig, const char *const *opts, unsigned ms,
			  struct strbuf *out, struct strbuf *errout)
{
	char outname[] = "/tmp/test-perfstat-out-XXXXXX", errname[] = "/tmp/test-perfstat-err-XXXXXX";
	int out_fd = mkstemp(outname), err_fd = mkstemp(errname), status = 0;
	struct node *job = node_new(NODE_MAP), *po = node_new(NODE_MAP);
	struct run r;
	pid_t pid;

	assert_true(out_fd >= 0 && err_fd >= 0);
	for (size_t i = 0; opts && opts[i]; i += 2)
		node_set(po, opts[i], node_new_scalar(opts[i + 1]));
	node_set(job, "perf-stat", po);
	memset(&r, 0, sizeof(r));
	r.job = job;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(err_fd, 2);
		if (uid && (setgid(uid) || setuid(uid)))
			_exit(99);
		_exit(program_perf_stat.monitor(&r, &program_perf_stat, out_fd) & 0xff);
	}
	for (unsigned waited = 0; waited < ms; waited += 10) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			goto done;
		usleep(10000);
	}
	kill(pid, sig);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
done:
	close(out_fd);
	close(err_fd);
	strbuf_reset(out);
	strbuf_reset(errout);
	assert_int_equal(strbuf_read_file(out, outname), 0);
	assert_int_equal(strbuf_read_file(errout, errname), 0);
	unlink(outname);
	unlink(errname);
	node_free(job);
	if (!WIFEXITED(status))
		fail_msg("monitor killed by signal %d", WTERMSIG(status));
	return WEXITSTATUS(status);
}

static int run_monitor(const char *const *opts, unsigned ms, struct strbuf *out,
		       struct strbuf *errout)
{
	return run_monitor_as(0, SIGTERM, opts, ms, out, errout);
}

/*
 * The monitor counts system-wide: as a user, perf_event_paranoid > 0
 * forbids that and it says it is unavailable (make check as a user).
 */
static bool forbidden_here(int rc)
{
	return rc == MONITOR_UNAVAILABLE && geteuid() != 0;
}

/* ---- perfevent: encoding ----------------------------------------------- */

static void encode_ok(const char *name, uint32_t type, uint64_t config, bool libpfm)
{
	struct perf_event_attr attr;
	struct strbuf err = STRBUF_INIT;
	bool used_pfm = !libpfm;
	char *enc = NULL;

	if (perfevent_encode(name, &attr, &used_pfm, &enc, &err))
		fail_msg("%s: %s", name, err.buf);
	if (attr.type != type || attr.config != config)
		fail_msg("%s: type %u config %#llx, want %u %#llx", name, attr.type,
			 (unsigned long long)attr.config, type, (unsigned long long)config);
	if (used_pfm != libpfm)
		fail_msg("%s: encoded by %s (%s)", name, used_pfm ? "libpfm4" : "the generic table",
			 enc);
	assert_non_null(enc);
	assert_true(libpfm ? starts_with(enc, "perf::") : starts_with(enc, "generic "));
	assert_int_equal(attr.size, sizeof(attr));
	assert_int_equal(attr.read_format,
			 PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_false(attr.exclude_user);
	assert_false(attr.exclude_kernel);
	free(enc);
	strbuf_release(&err);
}

static void test_encode_software_by_libpfm4(void **state)
{
	(void)state;
	encode_ok("cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, true);
	encode_ok("task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, true);
	encode_ok("page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, true);
	encode_ok("context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, true);
	encode_ok("cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, true);
	encode_ok("cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, true);
	encode_ok("minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, true);
	encode_ok("major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, true);
	encode_ok("perf::PERF_COUNT_SW_TASK_CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
		  true);
}

static void test_encode_hardware_and_cache_by_libpfm4(void **state)
{
	(void)state;
	/* encoding does not need the PMU: the kernel refuses them at open */
	encode_ok("cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true);
	encode_ok("cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, true);
	encode_ok("instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, true);
	encode_ok("cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, true);
	encode_ok("cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, true);
	encode_ok("branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		  true);
	encode_ok("branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, true);
	encode_ok("dTLB-loads", PERF_TYPE_HW_CACHE, 0x3, true);
	encode_ok("dTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10003, true);
	encode_ok("dTLB-stores", PERF_TYPE_HW_CACHE, 0x103, true);
	encode_ok("dTLB-store-misses", PERF_TYPE_HW_CACHE, 0x10103, true);
	encode_ok("iTLB-loads", PERF_TYPE_HW_CACHE, 0x4, true);
	encode_ok("iTLB-load-misses", PERF_TYPE_HW_CACHE, 0x10004, true);
	encode_ok("node-loads", PERF_TYPE_HW_CACHE, 0x6, true);
	encode_ok("node-load-misses", PERF_TYPE_HW_CACHE, 0x10006, true);
	encode_ok("node-stores", PERF_TYPE_HW_CACHE, 0x106, true);
	encode_ok("node-store-misses", PERF_TYPE_HW_CACHE, 0x10106, true);
	encode_ok("LLC-load-misses", PERF_TYPE_HW_CACHE, 0x10002, true);
}

static void test_encode_generic_fallback_and_unknown(void **state)
{
	struct perf_event_attr attr;
	struct strbuf err = STRBUF_INIT;
	bool pfm;
	char *enc = NULL;
	(void)state;
	/* libpfm4 4.13 (Debian 12) has no alignment-faults, emulation-faults, dummy */
	encode_ok("alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, false);
	encode_ok("emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, false);
	encode_ok("dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, false);

	assert_int_equal(perfevent_encode("no-such-event", &attr, &pfm, &enc, &err), -1);
	assert_non_null(strstr(err.buf, "'no-such-event' is not an event"));
	assert_null(enc);
	assert_int_equal(perfevent_encode("alignment-faults:u", &attr, &pfm, NULL, &err), -1);
	strbuf_release(&err);
}

static void test_parse_event_list(void **state)
{
	static const char *const bad[] = {
		"", "{cpu-clock", "cpu-clock}", "{cpu-clock}{task-clock}", "cpu-clock,,task-clock",
		"{{cpu-clock}}", "{cpu-clock}x", "{}", "cpu-clock,", "no-such-event",
	};
	struct perfevent_set s;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	perfevent_set_init(&s);
	assert_int_equal(perfevent_parse(&s, "{cpu-clock, task-clock},page-faults,{cs}", &err), 0);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.ev[1].name, "task-clock");
	assert_int_equal(s.ev[0].group, 0);
	assert_int_equal(s.ev[1].group, 0);
	assert_int_equal(s.ev[2].group, -1);
	assert_int_equal(s.ev[3].group, 1);
	assert_true(s.ev[0].is_clock && s.ev[1].is_clock && !s.ev[2].is_clock);
	perfevent_set_release(&s);

	perfevent_set_init(&s);
	assert_int_equal(perfevent_parse(&s, PERFEVENT_LKP_DEFAULT, &err), 0);
	assert_int_equal(s.n, 23);
	assert_int_equal(s.ngroups, 6);
	perfevent_set_release(&s);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		perfevent_set_init(&s);
		strbuf_reset(&err);
		if (perfevent_parse(&s, bad[i], &err) != -1)
			fail_msg("accepted '%s'", bad[i]);
		assert_true(err.len > 0);
		perfevent_set_release(&s);
	}
	strbuf_release(&err);
}

/* ---- perfevent: counting here ------------------------------------------ */

static void test_open_default_set_here(void **state)
{
	struct perfevent_set s;
	struct strbuf err = STRBUF_INIT;
	int opened;
	(void)state;

	perfevent_set_init(&s);
	assert_int_equal(perfevent_parse(&s, PERFEVENT_LKP_DEFAULT, &err), 0);
	opened = perfevent_open(&s, &err);
	if (opened < 0)
		fail_msg("%s", err.buf);
	if (opened == 0) {
		perfevent_set_release(&s);
		strbuf_release(&err);
		skip();	/* perf_event_paranoid forbids system-wide counting */
	}
	usleep(200000);
	assert_int_equal(perfevent_read(&s, &err), 0);
	for (size_t i = 0; i < s.n; i++) {
		const struct perfevent *e = &s.ev[i];

		if (e->attr.type == PERF_TYPE_SOFTWARE) {
			if (!e->supported)
				fail_msg("%s not opened: %s", e->name, strerror(e->error));
			assert_true(e->last.counted);
			assert_true(e->last.running > 0);
		} else if (!have_cpu_pmu()) {
			/* no PMU (this VM): listed as not supported, with the reason */
			if (e->supported)
				fail_msg("%s opened without a PMU", e->name);
			assert_true(e->error != 0);
		}
		if (!strcmp(e->name, "task-clock") || !strcmp(e->name, "cpu-clock")) {
			/* two CPUs for 0.2 s: about 0.4 s of clock; scaled counts */
			assert_true(e->last.value > 1e8);
			assert_true(e->last.value <= (double)e->last.enabled * 1.01 + 1e7);
		}
	}
	assert_true(opened >= 7);
	perfevent_set_release(&s);
	strbuf_release(&err);
}

/* ---- parser: real perf output ------------------------------------------ */

static void test_parse_real_perf_61_no_pmu(void **state)
{
	static const char *const hw[] = {
		"cpu-cycles", "instructions", "cache-references", "cache-misses",
		"branch-instructions", "branch-misses", "dTLB-loads", "dTLB-load-misses",
		"dTLB-stores", "dTLB-store-misses", "iTLB-loads", "iTLB-load-misses",
		"node-loads", "node-load-misses", "node-stores", "node-store-misses",
	};
	/* lkp-tests emits 0 for <not supported>, its dump-stat drops it; we emit nothing */
	struct strbuf raw = STRBUF_INIT, list = STRBUF_INIT, want = STRBUF_INIT;
	struct stats_samples ss;
	const struct stats_series *t;
	double t1, t2, t3, c1, c2;
	(void)state;

	for (size_t i = 0; i < 16; i++)
		strbuf_addf(&want, "%s%s", i ? " " : "", hw[i]);
	compare_with_lkp("perf-6.1-default-ungrouped", NULL, 0);

	load(&raw, "perf-6.1-default-ungrouped");
	parse_ok(raw.buf, &ss);
	t = series(&ss, "time");
	assert_non_null(t);
	assert_int_equal(t->n, 2);	/* 3 records, the last dropped */
	assert_non_null(series(&ss, "i.task-clock"));
	assert_non_null(series(&ss, "i.cpu-clock"));
	assert_non_null(series(&ss, "i.context-switches"));
	assert_non_null(series(&ss, "ps.task-clock"));
	assert_non_null(series(&ss, "sum.context-switches"));
	assert_null(series(&ss, "total.context-switches")); /* lkp-tests: instructions only */
	for (size_t i = 0; i < ss.n; i++) {
		const char *k = ss.s[i].key;

		for (size_t j = 0; j < 16; j++)
			if (strstr(k, hw[j]))
				fail_msg("%s from an unsupported event", k);
		if (strstr(k, "ipc") || strstr(k, "cpi") || strstr(k, "miss") || strstr(k, "MPKI") ||
		    starts_with(k, "overall."))
			fail_msg("%s without hardware counters", k);
	}
	/* i.task-clock = msec / interval; ps = total / the end of the dropped record */
	line_of(raw.buf, "task-clock", 0, &t1, &c1);
	assert_close(series(&ss, "i.task-clock")->v[0], c1 / t1, "i.task-clock");
	line_of(raw.buf, "context-switches", 0, &t1, &c1);
	line_of(raw.buf, "context-switches", 1, &t2, &c2);
	assert_close(series(&ss, "i.context-switches")->v[1], c2 / (t2 - t1), "i.context-switches");
	line_of(raw.buf, "context-switches", 2, &t3, &c1);
	line_of(raw.buf, "context-switches", 0, &t1, &c1);
	assert_close(last(&ss, "ps.context-switches"), (c1 + c2) / t3, "ps.context-switches");
	assert_close(last(&ss, "sum.context-switches"), c1 + c2, "sum.context-switches");

	assert_int_equal(perf_stat_unsupported(raw.buf, &list), 16);
	assert_string_equal(list.buf, want.buf);
	strbuf_reset(&list);
	load(&raw, "perf-6.1-lkp-software");
	assert_int_equal(perf_stat_unsupported(raw.buf, &list), 0);
	assert_string_equal(list.buf, "");
	compare_with_lkp("perf-6.1-lkp-software", NULL, 0);
	stats_samples_release(&ss);
	strbuf_release(&raw);
	strbuf_release(&list);
	strbuf_release(&want);
}

/* Time and count of the first line holding `what` in the space-separated form. */
static void space_line_of(const char *text, const char *what, double *t, double *count)
{
	const char *p = strstr(strchr(text, '\n'), what);

	assert_non_null(p);
	while (p[-1] != '\n')
		p--;
	assert_int_equal(sscanf(p, "%lf %lf", t, count), 2);
}

/* perf's space-separated form (-x ' '): lkp-tests sums both clocks as "msec" */
static void test_parse_space_separated(void **state)
{
	struct strbuf raw = STRBUF_INIT;
	struct stats_samples ss;
	double t1, c1, t2, tc;
	(void)state;

	compare_with_lkp("perf-6.1-space-separated", NULL, 0);
	load(&raw, "perf-6.1-space-separated");
	parse_ok(raw.buf, &ss);
	assert_null(series(&ss, "i.cpu-clock"));
	assert_null(series(&ss, "i.task-clock"));
	assert_non_null(series(&ss, "ps.msec"));
	/* the first record's two clock lines, summed over the interval */
	space_line_of(raw.buf, "msec cpu-clock", &t1, &c1);
	space_line_of(raw.buf, "msec task-clock", &t2, &tc);
	assert_close(series(&ss, "i.msec")->v[0], (c1 + tc) / t1, "i.msec");
	/* perf's K/sec metric values, summed as lkp-tests does */
	assert_non_null(series(&ss, "i.metric.K/sec"));
	stats_samples_release(&ss);
	strbuf_release(&raw);
}

static void test_parse_derived_ratios_arithmetic(void **state)
{
	/*
	 * No machine here has hardware counters, so no real capture with
	 * them exists in the fixtures. This checks the arithmetic of the
	 * derived ratios on counts written in perf's -x, interval format:
	 * a unit test of the formulas, not a stand-in for perf's output.
	 */
	/* two intervals: like lkp-tests, the parser treats the last record as possibly cut short */
	static const char text[] =
		"     1.000000000,4000000,,cpu-cycles,1000000000,100.00,,\n"
		"     1.000000000,2000000,,instructions,1000000000,100.00,,\n"
		"     1.000000000,10000,,cache-references,1000000000,100.00,,\n"
		"     1.000000000,2500,,cache-misses,1000000000,100.00,,\n"
		"     1.000000000,500000,,branch-instructions,1000000000,100.00,,\n"
		"     1.000000000,5000,,branch-misses,1000000000,100.00,,\n"
		"     1.000000000,800000,,dTLB-loads,1000000000,100.00,,\n"
		"     1.000000000,200,,dTLB-load-misses,1000000000,100.00,,\n"
		"     1.000000000,40,,iTLB-load-misses,1000000000,100.00,,\n"
		"     1.000000000,160,,iTLB-loads,1000000000,100.00,,\n"
		"     2.000000000,4000000,,cpu-cycles,1000000000,100.00,,\n"
		"     2.000000000,2000000,,instructions,1000000000,100.00,,\n"
		"     2.000000000,10000,,cache-references,1000000000,100.00,,\n"
		"     2.000000000,2500,,cache-misses,1000000000,100.00,,\n"
		"     2.000000000,500000,,branch-instructions,1000000000,100.00,,\n"
		"     2.000000000,5000,,branch-misses,1000000000,100.00,,\n"
		"     2.000000000,800000,,dTLB-loads,1000000000,100.00,,\n"
		"     2.000000000,200,,dTLB-load-misses,1000000000,100.00,,\n"
		"     2.000000000,40,,iTLB-load-misses,1000000000,100.00,,\n"
		"     2.000000000,160,,iTLB-loads,1000000000,100.00,,\n";
	struct stats_samples ss;
	(void)state;

	parse_ok(text, &ss);
	assert_close(series(&ss, "i.ipc")->v[0], 0.5, "i.ipc");
	assert_close(series(&ss, "i.cpi")->v[0], 2.0, "i.cpi");
	assert_close(series(&ss, "i.cache-miss-rate%")->v[0], 25.0, "cache-miss-rate%");
	assert_close(series(&ss, "i.branch-miss-rate%")->v[0], 1.0, "branch-miss-rate%");
	assert_close(series(&ss, "i.dTLB-load-miss-rate%")->v[0], 200 * 100.0 / (800000 + 200),
		     "dTLB-load-miss-rate%");
	assert_close(series(&ss, "i.iTLB-load-miss-rate%")->v[0], 40 * 100.0 / (160 + 40),
		     "iTLB-load-miss-rate%");
	assert_close(series(&ss, "i.MPKI")->v[0], 2500.0 / 2000000 * 1000, "MPKI");
	assert_close(series(&ss, "i.cycles-between-cache-misses")->v[0], 4000000.0 / 2500,
		     "cycles-between-cache-misses");
	assert_close(series(&ss, "i.instructions-per-iTLB-miss")->v[0], 2000000.0 / 40,
		     "instructions-per-iTLB-miss");
	stats_samples_release(&ss);
}

static void test_parse_per_socket(void **state)
{
	struct strbuf raw = STRBUF_INIT, sock = STRBUF_INIT;
	struct stats_samples a, b;
	(void)state;

	load(&raw, "perf-6.1-lkp-software");
	for (const char *p = raw.buf; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *comma = memchr(p, ',', len);

		if (comma && p[0] == ' ') {
			strbuf_add(&sock, p, (size_t)(comma - p) + 1);
			strbuf_addstr(&sock, "S0,2,");
			strbuf_add(&sock, comma + 1, len - (size_t)(comma - p) - 1);
		} else {
			strbuf_add(&sock, p, len);
		}
		strbuf_addch(&sock, '\n');
		p += len + (nl ? 1 : 0);
	}
	parse_ok(raw.buf, &a);
	parse_ok(sock.buf, &b);
	for (size_t i = 0; i < a.n; i++) {
		const struct stats_series *x = &a.s[i], *y = series(&b, x->key);
		struct strbuf k = STRBUF_INIT;

		if (starts_with(x->key, "i.metric.")) {
			/* lkp-tests: a socket's metric only as i.S0.metric.<unit> */
			assert_null(y);
			strbuf_addf(&k, "i.S0.%s", x->key + 2);
			y = series(&b, k.buf);
			if (!y)
				fail_msg("%s missing", k.buf);
			assert_close(x->v[x->n - 1], y->v[y->n - 1], k.buf);
			strbuf_release(&k);
			continue;
		}
		assert_non_null(y);
		assert_int_equal(x->n, y->n);
		for (size_t j = 0; j < x->n; j++)
			assert_close(x->v[j], y->v[j], x->key);
		if (starts_with(x->key, "i.") || starts_with(x->key, "ps.")) {
			const char *dot = strchr(x->key, '.');

			strbuf_addf(&k, "%.*sS0.%s", (int)(dot - x->key + 1), x->key, dot + 1);
			y = series(&b, k.buf);
			if (!y)
				fail_msg("%s missing", k.buf);
			assert_close(x->v[0], y->v[0], k.buf);
		}
		strbuf_release(&k);
	}
	stats_samples_release(&a);
	stats_samples_release(&b);
	strbuf_release(&raw);
	strbuf_release(&sock);
}

static void test_parse_malformed(void **state)
{
	static const char *const hdr =
		"perf stat -a --scale -I 1000 -x , -e task-clock,context-switches --log-fd 1 -D 0 -- sleep 3\n";
	struct strbuf raw = STRBUF_INIT, t = STRBUF_INIT;
	const char *cut;
	(void)state;

#define BAD(text, want) parse_bad(text, sizeof(text) - 1, want)
	BAD("     1.001,abc,,task-clock,2003,100.00,,\n", "count 'abc'");
	BAD("     1.001,5,,task-clock\n", "fields");
	BAD("     1.001,5,,task-clock,2003,x,,\n", "not a number");
	BAD("     1.001", "only a time stamp");
	BAD("     1.001 5\n", NULL);
	BAD("     1.001,<not a count>,,cs,2003,100.00,,\n", "is not a number");
	BAD("     2.001,5,,cs,2003,100.00,,\n     1.001,5,,cs,2003,100.00,,\n", "goes back");
	BAD("     1.001,5,,cs,20\0003,100.00,,\n", "NUL");
	strbuf_addf(&t, "%s     1.001,5,,page-faults,2003,100.00,,\n", hdr);
	parse_bad(t.buf, t.len, "'page-faults' is not in the perf stat -e list");

	/* a real file cut inside a count */
	load(&raw, "perf-6.1-lkp-software");
	cut = strstr(raw.buf, "2.003722800,2314");
	assert_non_null(cut);
	parse_bad(raw.buf, (size_t)(cut - raw.buf) + 13, "fields");
	/* ... or right after a complete line: fine, the last record is dropped */
	{
		struct stats_samples ss;
		struct strbuf err = STRBUF_INIT;

		cut = strstr(raw.buf, "     2.003722800,2314");
		stats_samples_init(&ss);
		assert_int_equal(perf_stat_parse(raw.buf, (size_t)(cut - raw.buf), &ss, &err), 0);
		assert_int_equal(series(&ss, "time")->n, 1);
		stats_samples_release(&ss);
		strbuf_release(&err);
	}
	strbuf_release(&raw);
	strbuf_release(&t);
}

static void test_unsupported_lists(void **state)
{
	struct strbuf raw = STRBUF_INIT, list = STRBUF_INIT;
	(void)state;

	/* <not counted> in every interval: listed; in some: not */
	assert_int_equal(perf_stat_unsupported("     1.0,<not counted>,,cpu-cycles,0,0.00,,\n"
					       "     1.0,5,,cs,10,100.00,,\n"
					       "     2.0,<not counted>,,cpu-cycles,0,0.00,,\n"
					       "     2.0,<not counted>,,cs,0,0.00,,\n",
					       &list),
			 1);
	assert_string_equal(list.buf, "cpu-cycles");
	strbuf_release(&raw);
	strbuf_release(&list);
}

/*
 * lkp-tests' own inputs: with LKP_SRC set to an lkp-tests checkout, each of
 * its spec/fixtures/stats/perf-stat/N (real perf captures from machines
 * with counters: groups, the space-separated form, hybrid cpu_atom/ events)
 * parsed by us gives what N.yaml says lkp-tests' parser prints. Skipped
 * without LKP_SRC (its files are not ours to ship).
 */
static void test_lkp_spec_fixtures(void **state)
{
	const char *src = getenv("LKP_SRC");
	struct strbuf raw = STRBUF_INIT, want = STRBUF_INIT, path = STRBUF_INIT;
	int done = 0;
	(void)state;

	if (!src || !*src)
		skip();
	for (int i = 1; i < 100; i++) {
		strbuf_setf(&path, "%s/spec/fixtures/stats/perf-stat/%d", src, i);
		if (strbuf_read_file(&raw, path.buf))
			break;
		strbuf_addstr(&path, ".yaml");
		if (strbuf_read_file(&want, path.buf))
			fail_msg("%s: cannot read it", path.buf);
		compare_text_with_lkp(path.buf, raw.buf, want.buf, NULL, 0);
		strbuf_reset(&raw);
		strbuf_reset(&want);
		done++;
	}
	if (!done)
		fail_msg("LKP_SRC=%s has no spec/fixtures/stats/perf-stat/1", src);
	strbuf_release(&raw);
	strbuf_release(&want);
	strbuf_release(&path);
}

/* ---- the monitor ------------------------------------------------------- */

static void test_monitor_fixture_parses_like_lkp(void **state)
{
	static const char *const hw[] = {
		"cpu-cycles",	       "instructions",	    "cache-references", "cache-misses",
		"branch-instructions", "branch-misses",	    "dTLB-loads",	"dTLB-load-misses",
		"dTLB-stores",	       "dTLB-store-misses", "iTLB-loads",	"iTLB-load-misses",
		"node-loads",	       "node-load-misses",  "node-stores",	"node-store-misses",
	};
	struct strbuf raw = STRBUF_INIT, list = STRBUF_INIT;
	struct stats_samples ss;
	double t1, cs;
	(void)state;

	compare_with_lkp("lkprobot-monitor", NULL, 0);
	for (size_t i = 0; i < ARRAY_SIZE(hw); i++)
		assert_true(strlen(hw[i]) > 0); /* the events lkp-tests counts 0 and drops */

	/* i.context-switches of the first record from the line itself */
	load(&raw, "lkprobot-monitor");
	line_of(raw.buf, "context-switches", 0, &t1, &cs);
	parse_ok(raw.buf, &ss);
	assert_close(series(&ss, "i.context-switches")->v[0], cs / t1,
		     "i.context-switches");
	assert_int_equal(perf_stat_unsupported(raw.buf, &list), have_cpu_pmu() ? 0 : 16);
	stats_samples_release(&ss);
	strbuf_release(&raw);
	strbuf_release(&list);
}

static void test_monitor_runs_and_stops_on_sigterm(void **state)
{
	static const char *const opts[] = { "interval_ms", "500", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, list = STRBUF_INIT;
	struct stats_samples ss;
	const struct stats_series *cs, *tc, *t;
	(void)state;

	int rc = run_monitor(opts, 2000, &out, &err);
	if (forbidden_here(rc)) {
		strbuf_release(&out);
		strbuf_release(&err);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_true(starts_with(out.buf, "# lkprobot perf-stat"));
	assert_non_null(strstr(out.buf, " -e {cpu-cycles,instructions,"));
	parse_ok(out.buf, &ss);
	t = series(&ss, "time");
	cs = series(&ss, "i.context-switches");
	tc = series(&ss, "i.task-clock");
	assert_non_null(t);
	assert_non_null(cs);
	assert_non_null(tc);
	assert_true(t->n >= 3);	/* 4 records at 0.5 s, the SIGTERM one dropped */
	assert_true(t->v[0] > 0.49 && t->v[0] < 0.75);
	for (size_t i = 0; i < cs->n; i++) {
		assert_true(cs->v[i] > 0);
		assert_true(tc->v[i] > 0);
	}
	assert_true(last(&ss, "ps.task-clock") > 0);
	if (!have_cpu_pmu()) {
		assert_int_equal(perf_stat_unsupported(out.buf, &list), 16);
		assert_null(series(&ss, "i.ipc"));
	}
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&list);
}

static void test_monitor_events_option(void **state)
{
	static const char *const opts[] = {
		"interval_ms", "300", "events",
		"{cpu-cycles,instructions},task-clock,{context-switches,cpu-migrations}", NULL,
	};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, list = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* SIGINT stops it too */
	int rc = run_monitor_as(0, SIGINT, opts, 1000, &out, &err);
	if (forbidden_here(rc)) {
		strbuf_release(&out);
		strbuf_release(&err);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out.buf,
			       " -e {cpu-cycles,instructions},task-clock,{context-switches,cpu-migrations} "));
	parse_ok(out.buf, &ss);
	assert_non_null(series(&ss, "i.task-clock"));
	assert_non_null(series(&ss, "i.context-switches"));
	assert_non_null(series(&ss, "i.cpu-migrations"));
	assert_null(series(&ss, "i.page-faults"));
	if (!have_cpu_pmu()) {
		assert_null(series(&ss, "i.ipc"));
		assert_null(series(&ss, "i.cpu-cycles"));
		assert_int_equal(perf_stat_unsupported(out.buf, &list), 2);
		assert_string_equal(list.buf, "cpu-cycles instructions");
	}
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&list);
}

static void test_monitor_unavailable_and_bad_options(void **state)
{
	static const char *const hw_only[] = { "events", "cpu-cycles,instructions", NULL };
	static const char *const bad_interval[] = { "interval_ms", "0", NULL };
	static const char *const bad_events[] = { "events", "{task-clock", NULL };
	static const char *const unknown[] = { "events", "task-clock,no-such-event", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;

	if (!have_cpu_pmu()) {
		assert_int_equal(run_monitor(hw_only, 5000, &out, &err), MONITOR_UNAVAILABLE);
		assert_true(starts_with(err.buf, "perf-stat: no event can be counted here"));
		assert_ptr_equal(strchr(err.buf, '\n'), err.buf + err.len - 1);	/* one line */
		assert_int_equal(out.len, 0);
	}
	/* perf_event_paranoid > 0 forbids system-wide counting to nobody */
	strbuf_reset(&out);
	if (geteuid() == 0 && !strbuf_read_file(&out, "/proc/sys/kernel/perf_event_paranoid") &&
	    atoi(out.buf) > 0) {
		assert_int_equal(run_monitor_as(65534, SIGTERM, NULL, 5000, &out, &err), MONITOR_UNAVAILABLE);
		assert_true(starts_with(err.buf, "perf-stat: no event can be counted here (Permission denied; kernel.perf_event_paranoid="));
		assert_ptr_equal(strchr(err.buf, '\n'), err.buf + err.len - 1);
	}
	assert_int_equal(run_monitor(bad_interval, 5000, &out, &err), 2);
	assert_non_null(strstr(err.buf, "interval_ms: '0'"));
	assert_int_equal(run_monitor(bad_events, 5000, &out, &err), 2);
	assert_non_null(strstr(err.buf, "'{' without '}'"));
	assert_int_equal(run_monitor(unknown, 5000, &out, &err), 2);
	assert_non_null(strstr(err.buf, "'no-such-event' is not an event"));
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_program_entry(void **state)
{
	const struct program *p = program_find("perf-stat");
	(void)state;

	assert_ptr_equal(p, &program_perf_stat);
	assert_non_null(p->monitor);
	assert_non_null(p->parse);
	assert_non_null(p->debs);
	assert_string_equal(p->debs[0], "libpfm4");
}

/* test-perfstat capture SECONDS FILE [OPTION VALUE]... */
static int capture(int argc, char **argv)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char **opts = calloc((size_t)argc, sizeof(*opts));
	FILE *f;
	int rc;

	for (int i = 4; i < argc; i++)
		opts[i - 4] = argv[i];
	rc = run_monitor(opts, (unsigned)(atof(argv[2]) * 1000), &out, &err);
	fputs(err.buf, stderr);
	f = fopen(argv[3], "w");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len || fclose(f))
		rc = 1;
	free(opts);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_software_by_libpfm4),
		cmocka_unit_test(test_encode_hardware_and_cache_by_libpfm4),
		cmocka_unit_test(test_encode_generic_fallback_and_unknown),
		cmocka_unit_test(test_parse_event_list),
		cmocka_unit_test(test_open_default_set_here),
		cmocka_unit_test(test_parse_real_perf_61_no_pmu),
		cmocka_unit_test(test_parse_derived_ratios_arithmetic),
		cmocka_unit_test(test_parse_space_separated),
		cmocka_unit_test(test_parse_per_socket),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_unsupported_lists),
		cmocka_unit_test(test_lkp_spec_fixtures),
		cmocka_unit_test(test_monitor_fixture_parses_like_lkp),
		cmocka_unit_test(test_monitor_runs_and_stops_on_sigterm),
		cmocka_unit_test(test_monitor_events_option),
		cmocka_unit_test(test_monitor_unavailable_and_bad_options),
		cmocka_unit_test(test_program_entry),
	};

	find_fixtures();
	if (argc >= 4 && !strcmp(argv[1], "capture"))
		return capture(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

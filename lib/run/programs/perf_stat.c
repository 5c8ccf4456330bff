/*
 * perf-stat: the perf event counting monitor and its parser, after
 * lkp-tests' programs/perf-stat/monitor and parse. Option names follow
 * lkp-tests' program of the same name.
 *
 * Monitor: counts the job's events (`revents`, else `events`: a perf -e
 * list such as "{cpu-cycles,instructions},task-clock"; default lkp-tests'
 * set) system-wide through perfevent (perf_event_open, no perf binary) and
 * every `interval_ms` (1000) writes what `perf stat -a --scale -I <ms>
 * -x ,` writes: per event "time,count,unit,event,run-time,percent,metric,
 * metric-unit", "<not supported>" for events the kernel refused and
 * "<not counted>" for ones that never ran in the interval. The first line
 * is a '#' comment that names the equivalent perf command, as lkp-tests'
 * echo_exec puts it in the raw file (its parser needs the -e list).
 * `delay` waits before counting, `duration` stops after that long;
 * SIGTERM (or SIGINT) makes a last reading and exit 0. per_socket, per_die, metrics,
 * rmetrics, metric_only and list_pmu_events are not implemented (a warning
 * on stderr). No event at all: MONITOR_UNAVAILABLE.
 *
 * Parser: perf_stat_parse.c.
 */
#include "../monitor.h"
#include "../perfevent.h"
#include "../program.h"
#include "../run.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const perf_stat_options[] = {
	"events", "revents", "delay", "duration", "command", "per_socket",
	"per_die", "interval_ms", "rmetrics", "metrics", "metric_only",
	"list_pmu_events", NULL,
};

/* ---- monitor ----------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Sleep until `deadline` (now_ns); true when SIGTERM/SIGINT (blocked) came first. */
static bool wait_until(uint64_t deadline, const sigset_t *set)
{
	for (;;) {
		uint64_t now = now_ns();
		struct timespec ts;

		if (now >= deadline)
			return false;
		ts.tv_sec = (time_t)((deadline - now) / 1000000000ULL);
		ts.tv_nsec = (long)((deadline - now) % 1000000000ULL);
		int sig = sigtimedwait(set, NULL, &ts);

		if (sig == SIGTERM || sig == SIGINT)
			return true;
	}
}

/* lkp-tests' parse_bool: empty, 0*, no*, false*, n* are false. */
static bool parse_bool(const char *v)
{
	if (!v || !*v)
		return false;
	return !(v[0] == '0' || !strncmp(v, "no", 2) || !strncmp(v, "false", 5) || v[0] == 'n');
}

static const struct perfevent *find_counted(const struct perfevent_set *s, uint32_t type,
					    uint64_t config)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].supported && s->ev[i].last.counted && s->ev[i].attr.type == type &&
		    s->ev[i].attr.config == config)
			return &s->ev[i];
	return NULL;
}

/* perf's per-second figure: against the clock events' nanoseconds */
static void add_rate(struct strbuf *out, double v, double clock_ns)
{
	const char *unit = "";
	double r;

	if (clock_ns <= 0) {
		strbuf_addstr(out, ",");
		return;
	}
	r = v * 1e9 / clock_ns;
	if (r >= 1e9)
		r /= 1e9, unit = "G";
	else if (r >= 1e6)
		r /= 1e6, unit = "M";
	else if (r >= 1e3)
		r /= 1e3, unit = "K";
	strbuf_addf(out, "%.3f,%s/sec", r, unit);
}

/* The "metric,metric-unit" columns perf stat prints after a counted event. */
static void add_shadow(struct strbuf *out, const struct perfevent_set *s,
		       const struct perfevent *e, double clock_ns)
{
	static const char *const cache_what[] = {
		[PERF_COUNT_HW_CACHE_L1D] = "L1-dcache", [PERF_COUNT_HW_CACHE_L1I] = "L1-icache",
		[PERF_COUNT_HW_CACHE_LL] = "LL-cache", [PERF_COUNT_HW_CACHE_DTLB] = "dTLB cache",
		[PERF_COUNT_HW_CACHE_ITLB] = "iTLB cache",
	};
	const struct perfevent *base = NULL;
	double v = e->last.value;
	uint64_t c = e->attr.config;

	if (e->attr.type == PERF_TYPE_HARDWARE) {
		switch (c) {
		case PERF_COUNT_HW_CPU_CYCLES:
			if (clock_ns > 0)
				strbuf_addf(out, "%.3f,GHz", v / clock_ns);
			else
				strbuf_addstr(out, ",");
			return;
		case PERF_COUNT_HW_INSTRUCTIONS:
			base = find_counted(s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
			if (base && base->last.value > 0)
				strbuf_addf(out, "%.2f,insn per cycle", v / base->last.value);
			else
				strbuf_addstr(out, ",");
			return;
		case PERF_COUNT_HW_CACHE_MISSES:
			base = find_counted(s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES);
			if (base && base->last.value > 0)
				strbuf_addf(out, "%.3f,of all cache refs", v * 100 / base->last.value);
			else
				strbuf_addstr(out, ",");
			return;
		case PERF_COUNT_HW_BRANCH_MISSES:
			base = find_counted(s, PERF_TYPE_HARDWARE,
					    PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
			if (base && base->last.value > 0)
				strbuf_addf(out, "%.2f,of all branches", v * 100 / base->last.value);
			else
				strbuf_addstr(out, ",");
			return;
		}
	} else if (e->attr.type == PERF_TYPE_HW_CACHE && (c & 0xff) < ARRAY_SIZE(cache_what) &&
		   ((c >> 8) & 0xff) == PERF_COUNT_HW_CACHE_OP_READ &&
		   (c >> 16) == PERF_COUNT_HW_CACHE_RESULT_MISS) {
		base = find_counted(s, PERF_TYPE_HW_CACHE, c & 0xffff);
		if (base && base->last.value > 0)
			strbuf_addf(out, "%.2f,of all %s accesses", v * 100 / base->last.value,
				    cache_what[c & 0xff]);
		else
			strbuf_addstr(out, ",");
		return;
	}
	add_rate(out, v, clock_ns);
}

/* One interval record, as perf stat -x , -I prints it. */
static void format_record(struct strbuf *out, const struct perfevent_set *s, uint64_t ts,
			  uint64_t interval_ns)
{
	double clock_ns = 0;
	int nclock = 0;

	/* perf's STAT_NSECS: the mean of the clock events' counts */
	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].is_clock && s->ev[i].supported && s->ev[i].last.counted) {
			clock_ns += s->ev[i].last.value;
			nclock++;
		}
	if (nclock)
		clock_ns /= nclock;
	for (size_t i = 0; i < s->n; i++) {
		const struct perfevent *e = &s->ev[i];
		const struct perfevent_count *n = &e->last;
		double pct = n->enabled ? 100.0 * (double)n->running / (double)n->enabled : 100.0;

		strbuf_addf(out, "%6llu.%09llu,", (unsigned long long)(ts / 1000000000ULL),
			    (unsigned long long)(ts % 1000000000ULL));
		if (!e->supported) {
			strbuf_addf(out, "<not supported>,,%s,0,100.00,,\n", e->name);
		} else if (!n->counted) {
			strbuf_addf(out, "<not counted>,%s,%s,%llu,%.2f,,\n",
				    e->is_clock ? "msec" : "", e->name,
				    (unsigned long long)n->running, pct);
		} else if (e->is_clock) {
			strbuf_addf(out, "%.2f,msec,%s,%llu,%.2f,%.3f,CPUs utilized\n",
				    n->value / 1e6, e->name, (unsigned long long)n->running, pct,
				    interval_ns ? n->value / (double)interval_ns : 0.0);
		} else {
			strbuf_addf(out, "%.0f,,%s,%llu,%.2f,", n->value, e->name,
				    (unsigned long long)n->running, pct);
			add_shadow(out, s, e, clock_ns);
			strbuf_addch(out, '\n');
		}
	}
}

/* "{a,b},c" back from the set: what perf's -e would be given */
static void format_spec(struct strbuf *out, const struct perfevent_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct perfevent *e = &s->ev[i];
		bool first = e->group >= 0 && (i == 0 || s->ev[i - 1].group != e->group);
		bool last = e->group >= 0 && (i + 1 == s->n || s->ev[i + 1].group != e->group);

		if (i)
			strbuf_addch(out, ',');
		strbuf_addf(out, "%s%s%s", first ? "{" : "", e->name, last ? "}" : "");
	}
}

static void warn_unsupported_options(const struct run *r, const struct program *p)
{
	static const char *const opts[] = {
		"per_socket", "per_die", "metrics", "rmetrics", "metric_only", "list_pmu_events",
	};

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		const char *v = run_param(r, p, opts[i]);

		if (v && (strcmp(opts[i], "metrics") && strcmp(opts[i], "rmetrics") ? parse_bool(v)
										   : *v != 0))
			fprintf(stderr, "perf-stat: %s is not implemented by lkprobot's monitor; ignored\n",
				opts[i]);
	}
}

static int interval_param(const struct run *r, const struct program *p, uint64_t *ms)
{
	const char *v = run_param(r, p, "interval_ms");
	char *end;
	unsigned long long n;

	*ms = 1000;
	if (!v)
		return 0;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (!isdigit((unsigned char)*v) || *end || errno || n < 1 || n > 86400000) {
		fprintf(stderr, "perf-stat: interval_ms: '%s' is not a whole number of milliseconds (1 to 86400000)\n",
			v);
		return -1;
	}
	*ms = n;
	return 0;
}

static void unavailable_reason(struct strbuf *why, const struct perfevent_set *s)
{
	struct strbuf sb = STRBUF_INIT;
	int err = 0;

	/* a permission refusal says more than "this PMU does not exist" */
	for (size_t i = 0; i < s->n; i++)
		if (s->ev[i].error == EACCES || s->ev[i].error == EPERM) {
			err = s->ev[i].error;
			break;
		}
	for (size_t i = 0; i < s->n && !err; i++)
		err = s->ev[i].error;
	strbuf_addf(why, "perf-stat: no event can be counted here (%s", strerror(err ? err : ENOENT));
	if (!strbuf_read_file(&sb, "/proc/sys/kernel/perf_event_paranoid")) {
		strbuf_rtrim(&sb);
		strbuf_addf(why, "; kernel.perf_event_paranoid=%s", sb.buf);
	}
	strbuf_addstr(why, ")");
	strbuf_release(&sb);
}

/* The job's parameters: the events, the interval, the delay before and the duration of counting. 0, or 2 (bad). */
static int monitor_params(const struct run *r, const struct program *p, const char **spec, uint64_t *interval_ms,
			  uint64_t *delay, uint64_t *duration)
{
	struct strbuf err = STRBUF_INIT;

	*spec = run_param(r, p, "revents");
	if (!*spec || !**spec)
		*spec = run_param(r, p, "events");
	if (!*spec || !**spec)
		*spec = PERFEVENT_LKP_DEFAULT;
	if (interval_param(r, p, interval_ms))
		return 2;
	if (run_param_seconds(r, p, "delay", 0, delay, &err) ||
	    run_param_seconds(r, p, "duration", 0, duration, &err)) {
		fprintf(stderr, "perf-stat: %s\n", err.buf);
		strbuf_release(&err);
		return 2;
	}
	warn_unsupported_options(r, p);
	return 0;
}

/* The raw file's head: the perf command it stands for, and the events this machine cannot count. */
static int write_header(int out_fd, const struct perfevent_set *set, int opened, uint64_t interval_ms, uint64_t delay)
{
	struct strbuf out = STRBUF_INIT;
	int rc = 0;

	strbuf_addf(&out,
		    "# lkprobot perf-stat (perf_event_open, libpfm4; %d of %zu events), as: perf stat -a --scale -I "
		    "%llu -x , -e ",
		    opened, set->n, (unsigned long long)interval_ms);
	format_spec(&out, set);
	strbuf_addf(&out, " --log-fd 1 -D %llu --\n", (unsigned long long)(delay * 1000));
	for (size_t i = 0, k = 0; i < set->n; i++)
		if (!set->ev[i].supported)
			strbuf_addf(&out, "%s%s (%s)", k++ ? ", " : "# not supported here: ", set->ev[i].name,
				    strerror(set->ev[i].error));
	if (opened < (int)set->n)
		strbuf_addch(&out, '\n');
	if (fsutil_write_all(out_fd, out.buf, out.len)) {
		fprintf(stderr, "perf-stat: cannot write: %s\n", strerror(errno));
		rc = 1;
	}
	strbuf_release(&out);
	return rc;
}

/* A record every interval from t0 until a stop signal or end (0: none), and one at the stop. The exit status. */
static int sample(int out_fd, struct perfevent_set *set, const sigset_t *term, uint64_t t0, uint64_t end,
		  uint64_t interval_ms)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	uint64_t last = t0, next = t0 + interval_ms * 1000000ULL;
	int rc = 0;

	for (;;) {
		bool stop = wait_until(end && end < next ? end : next, term);
		uint64_t now = now_ns();

		if (end && now >= end)
			stop = true;
		if (perfevent_read(set, &err)) {
			fprintf(stderr, "perf-stat: %s\n", err.buf);
			rc = 1;
			break;
		}
		strbuf_reset(&out);
		format_record(&out, set, now - t0, now - last);
		last = now;
		if (fsutil_write_all(out_fd, out.buf, out.len)) {
			fprintf(stderr, "perf-stat: cannot write: %s\n", strerror(errno));
			rc = 1;
			break;
		}
		if (stop)
			break;
		while (next <= now)
			next += interval_ms * 1000000ULL;
	}
	strbuf_release(&err);
	strbuf_release(&out);
	return rc;
}

static int perf_stat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct perfevent_set set;
	struct strbuf err = STRBUF_INIT, e2 = STRBUF_INIT;
	const char *spec;
	uint64_t interval_ms, delay = 0, duration = 0, t0, end = 0;
	sigset_t term, old;
	int opened, rc;

	if ((rc = monitor_params(r, p, &spec, &interval_ms, &delay, &duration)))
		return rc;

	/* stop on SIGTERM or SIGINT, as lib/monitor's monitors */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigaddset(&term, SIGINT);
	sigprocmask(SIG_BLOCK, &term, &old);
	perfevent_set_init(&set);
	if (perfevent_parse(&set, spec, &err)) {
		fprintf(stderr, "perf-stat: events: %s\n", err.buf);
		rc = 2;
		goto out;
	}
	if (delay && wait_until(now_ns() + delay * 1000000000ULL, &term))
		goto out;
	opened = perfevent_open(&set, &err);
	if (opened < 0) {
		fprintf(stderr, "perf-stat: %s\n", err.buf);
		rc = 1;
		goto out;
	}
	if (!opened) {
		unavailable_reason(&e2, &set);
		fprintf(stderr, "%s\n", e2.buf);
		rc = MONITOR_UNAVAILABLE;
		goto out;
	}
	t0 = now_ns();
	if (duration)
		end = t0 + duration * 1000000000ULL;
	if (!(rc = write_header(out_fd, &set, opened, interval_ms, delay)))
		rc = sample(out_fd, &set, &term, t0, end, interval_ms);
out:
	perfevent_set_release(&set);
	/* a stop still pending would kill us on unblocking: we are done anyway */
	while (sigtimedwait(&term, NULL, &(struct timespec){ 0, 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	strbuf_release(&err);
	strbuf_release(&e2);
	return rc;
}

static const char *const perf_stat_debs[] = { "libpfm4", NULL };

/* instructions per cycle up, cycles per instruction down */
static const struct program_metric perf_stat_metrics[] = {
	{ "ipc", +1, false },	      { "overall.ipc", +1, false }, { "cpi", -1, false },
	{ "overall.cpi", -1, false }, { NULL, 0, false },
};

const struct program program_perf_stat = {
	.version = PROGRAM_VERSION,
	.name = "perf-stat",
	.kind = PROGRAM_MONITOR,
	.summary =
		"perf_event_open every second, system-wide: counts, rates, ratios (root or perf_event_paranoid <= 0; a "
		"PMU for hardware events)",
	.options = perf_stat_options,
	.monitor = perf_stat_monitor,
	.parse = perf_stat_parse,
	.debs = perf_stat_debs,
	.metrics = perf_stat_metrics,
};

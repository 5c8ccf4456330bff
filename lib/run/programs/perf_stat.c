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
 * Parser (real perf output or ours, also perf's older space-separated
 * form and --per-socket "S0,<cpus>," lines): lines within 10 ms form one
 * interval record; per record `time` and `i.<event>` = count / interval
 * seconds, then the `i.` derived ratios; the last record is dropped as in
 * lkp-tests (it may be cut short); at the end `ps.<event>` = total / run
 * seconds, `total.<event>` and `overall.<ratio>`. Ratios, from summed
 * counts: <x>-miss-rate% = misses * 100 / (<x>s + misses), else /
 * <x>-references, else / <x>-instructions; ipc, cpi; instructions-per-
 * iTLB-miss; cycles-between-cache-misses; MPKI = cache-misses /
 * instructions * 1000. A ratio whose inputs were not counted is absent.
 * Deliberate differences from lkp-tests' parse:
 *   - "<not supported>" / "<not counted>" lines give no sample (lkp-tests
 *     emits 0); perf_stat_unsupported() lists those events;
 *   - run seconds = end of the last record counted (lkp-tests divides by
 *     the time of the dropped last record too: ps.* 1/N too low for N
 *     intervals);
 *   - total.<event> for every event (lkp-tests: instructions only);
 *   - perf's own shadow-metric units (GHz, K/sec, M/sec, ...) are not
 *     taken for `-M` metric names (lkp-tests emits i.metric.K/sec, the sum
 *     of unrelated rates); real metric names (CPI, ...) give i.metric.<Name>;
 *   - the space-separated form keeps unit and event apart (lkp-tests names
 *     the clock events "msec");
 *   - uncore UNC_M_*_INSERTS latency/throughput and the stats_part_begin/
 *     end window are not implemented.
 */
#include "../monitor.h"
#include "../perfevent.h"
#include "../program.h"
#include "../run.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
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

static int perf_stat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct perfevent_set set;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, e2 = STRBUF_INIT;
	const char *spec = run_param(r, p, "revents");
	uint64_t interval_ms, delay = 0, duration = 0, t0, last, next, end = 0;
	sigset_t term, old;
	int opened, rc = 0;

	if (!spec || !*spec)
		spec = run_param(r, p, "events");
	if (!spec || !*spec)
		spec = PERFEVENT_LKP_DEFAULT;
	if (interval_param(r, p, &interval_ms))
		return 2;
	if (run_param_seconds(r, p, "delay", 0, &delay, &err) ||
	    run_param_seconds(r, p, "duration", 0, &duration, &err)) {
		fprintf(stderr, "perf-stat: %s\n", err.buf);
		strbuf_release(&err);
		return 2;
	}
	warn_unsupported_options(r, p);

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
	t0 = last = now_ns();
	if (duration)
		end = t0 + duration * 1000000000ULL;

	strbuf_addf(&out, "# lkprobot perf-stat (perf_event_open, libpfm4; %d of %zu events), as: perf stat -a --scale -I %llu -x , -e ",
		    opened, set.n, (unsigned long long)interval_ms);
	format_spec(&out, &set);
	strbuf_addf(&out, " --log-fd 1 -D %llu --\n", (unsigned long long)(delay * 1000));
	for (size_t i = 0, k = 0; i < set.n; i++)
		if (!set.ev[i].supported)
			strbuf_addf(&out, "%s%s (%s)", k++ ? ", " : "# not supported here: ",
				    set.ev[i].name, strerror(set.ev[i].error));
	if (opened < (int)set.n)
		strbuf_addch(&out, '\n');
	if (fsutil_write_all(out_fd, out.buf, out.len)) {
		fprintf(stderr, "perf-stat: cannot write: %s\n", strerror(errno));
		rc = 1;
		goto out;
	}

	next = t0 + interval_ms * 1000000ULL;
	for (;;) {
		bool stop = wait_until(end && end < next ? end : next, &term);
		uint64_t now = now_ns();

		if (end && now >= end)
			stop = true;
		if (perfevent_read(&set, &err)) {
			fprintf(stderr, "perf-stat: %s\n", err.buf);
			rc = 1;
			break;
		}
		strbuf_reset(&out);
		format_record(&out, &set, now - t0, now - last);
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
out:
	perfevent_set_release(&set);
	/* a stop still pending would kill us on unblocking: we are done anyway */
	while (sigtimedwait(&term, NULL, &(struct timespec){ 0, 0 }) > 0)
		;
	sigprocmask(SIG_SETMASK, &old, NULL);
	strbuf_release(&err);
	strbuf_release(&e2);
	strbuf_release(&out);
	return rc;
}

/* ---- parser ------------------------------------------------------------ */

struct kv {
	char *key;
	double v;
};

struct kvlist {
	struct kv *a;
	size_t n, alloc;
};

static struct kv *kv_find(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->a[i].key, key))
			return &l->a[i];
	return NULL;
}

/* 0 when absent, as lkp-tests' Hash.new(0) */
static double kv_get(const struct kvlist *l, const char *key)
{
	const struct kv *kv = kv_find(l, key);

	return kv ? kv->v : 0;
}

static void kv_add(struct kvlist *l, const char *key, double v)
{
	struct kv *kv = kv_find(l, key);

	if (!kv) {
		ALLOC_GROW(l->a, l->n + 1, l->alloc);
		kv = &l->a[l->n++];
		kv->key = xstrdup(key);
		kv->v = 0;
	}
	kv->v += v;
}

static void kv_reset(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->a[i].key);
	l->n = 0;
}

static void kv_release(struct kvlist *l)
{
	kv_reset(l);
	free(l->a);
	memset(l, 0, sizeof(*l));
}

/* One data line, split in place. */
struct pline {
	double time;
	const char *socket;	/* "S0" (--per-socket) or NULL */
	const char *count;	/* number text, "<not supported>" or "<not counted>" */
	const char *unit;	/* "" when none */
	const char *event;	/* cpu_core/cpu-cycles/ made cpu-cycles */
	const char *mval, *munit;	/* metric columns; NULL when absent */
};

static bool is_number(const char *s, double *v)
{
	char *end;
	double d;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	d = strtod(s, &end);
	if (*end || errno || !isfinite(d))
		return false;
	if (v)
		*v = d;
	return true;
}

/* lkp-tests' /^\s*\d+\.\d+\W+/ (end of line counts: it is then truncated) */
static bool is_data_line(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	if (*s != '.' || !isdigit((unsigned char)s[1]))
		return false;
	for (s++; isdigit((unsigned char)*s); s++)
		;
	return !isalnum((unsigned char)*s) && *s != '_';
}

#define MAX_FIELDS 32

/* Split `line` (modified) into fields after the time stamp. */
static size_t split_fields(char *line, char **f, bool *csv)
{
	size_t n = 0;
	char *p = line;

	*csv = strchr(line, ',') != NULL;
	if (*csv) {
		p = strchr(line, ',') + 1;
		for (;;) {
			char *c = strchr(p, ',');

			if (n < MAX_FIELDS)
				f[n++] = p;
			if (!c)
				break;
			*c = 0;
			p = c + 1;
		}
		return n;
	}
	/* space-separated: the stamp is the first token */
	while (*p == ' ' || *p == '\t')
		p++;
	p += strcspn(p, " \t");
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (n < MAX_FIELDS)
			f[n++] = p;
		if (!strncmp(p, "<not supported>", 15) || !strncmp(p, "<not counted>", 13))
			p = strchr(p, '>') + 1;
		else
			p += strcspn(p, " \t");
		if (*p)
			*p++ = 0;
	}
	return n;
}

/* 1 data line, 0 not one (text, header, empty stamp), -1 malformed (why set). */
static int parse_line(char *line, struct pline *pl, struct strbuf *why)
{
	char *f[MAX_FIELDS];
	bool csv;
	size_t n, k = 0;
	char *ev, *slash;

	memset(pl, 0, sizeof(*pl));
	if (!is_data_line(line))
		return 0;
	pl->time = strtod(line, NULL);
	n = split_fields(line, f, &csv);
	if (n >= MAX_FIELDS) {
		strbuf_setf(why, "too many fields");
		return -1;
	}
	if (!n) {
		strbuf_setf(why, "only a time stamp");
		return -1;
	}
	/* "time," alone, or metric-only lines without a count and an event */
	bool empty = true;
	for (size_t i = 0; i < n; i++)
		if (*f[i])
			empty = false;
	if ((csv && empty) || (csv && n >= 3 && !*f[0] && !*f[2]) ||
	    (csv && n >= 5 && f[0][0] == 'S' && isdigit((unsigned char)f[0][1]) && !*f[2] &&
	     !*f[4]))
		return 0;
	if (n && f[0][0] == 'S' && isdigit((unsigned char)f[0][1])) {
		pl->socket = f[0];
		k = 2;
	}
	if (csv) {
		if (n < k + 5) {
			strbuf_setf(why, "%zu fields where perf writes count,unit,event,run,percent",
				    n - (n < k ? n : k));
			return -1;
		}
		pl->count = f[k];
		pl->unit = f[k + 1];
		ev = f[k + 2];
		if (!is_number(f[k + 3], NULL) || !is_number(f[k + 4], NULL)) {
			strbuf_setf(why, "run time '%s' or percentage '%s' is not a number", f[k + 3],
				    f[k + 4]);
			return -1;
		}
		if (n > k + 5)
			pl->mval = f[k + 5];
		if (n > k + 6)
			pl->munit = f[k + 6];
	} else {
		size_t e;

		if (n >= k + 4 && is_number(f[k + 2], NULL)) {
			pl->unit = "";
			e = k + 1;
		} else if (n >= k + 5 && is_number(f[k + 3], NULL)) {
			pl->unit = f[k + 1];
			e = k + 2;
		} else {
			strbuf_setf(why, "not count [unit] event run percent");
			return -1;
		}
		pl->count = f[k];
		ev = f[e];
		if (!is_number(f[e + 2], NULL)) {
			strbuf_setf(why, "percentage '%s' is not a number", f[e + 2]);
			return -1;
		}
		if (n > e + 3)
			pl->mval = f[e + 3];
		if (n == e + 5)
			pl->munit = f[e + 4];
	}
	if (!*ev) {
		strbuf_setf(why, "no event name");
		return -1;
	}
	/* hybrid CPUs: cpu_atom/cpu-cycles/ is cpu-cycles (lkp-tests) */
	slash = strrchr(ev, '/');
	if (slash && slash > ev) {
		char *open = slash - 1;

		while (open >= ev && *open != '/')
			open--;
		if (open >= ev) {
			*slash = 0;
			ev = open + 1;
		}
	}
	pl->event = ev;
	if (strcmp(pl->count, "<not supported>") && strcmp(pl->count, "<not counted>") &&
	    !is_number(pl->count, NULL)) {
		strbuf_setf(why, "count '%s' is not a number", pl->count);
		return -1;
	}
	return 1;
}

struct pstate {
	struct stats_samples *out;
	struct strbuf *err;
	struct kvlist rec, metrics, total;
	bool have_rec;
	double rec_time;	/* time of the record's last line */
	double prev_time;	/* time of the previous record (0: start) */
	double end_time;	/* time of the last record counted */
	size_t counted;		/* records counted */
	char **events;		/* the -e list of the raw file's header, if any */
	size_t nevents, alloc_events;
	struct strbuf key;
};

static int emit(struct pstate *ps, const char *prefix, const char *name, const char *suffix,
		double v)
{
	strbuf_setf(&ps->key, "%s%s%s", prefix, name, suffix);
	return stats_add(ps->out, ps->key.buf, v, true, ps->err);
}

static bool ends_with(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n < m || strcmp(s + n - m, suffix))
		return false;
	*stem = n - m;
	return true;
}

/* lkp-tests' calc_addon_keys on summed counts */
static int derive(struct pstate *ps, const struct kvlist *l, const char *prefix)
{
	struct strbuf stem = STRBUF_INIT, k = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < l->n && !ret; i++) {
		const char *key = l->a[i].key;
		double v = l->a[i].v;
		size_t n;

		if (ends_with(key, "-misses", &n)) {
			static const char *const sfx[] = { "s", "-references", "-instructions" };

			strbuf_reset(&stem);
			strbuf_add(&stem, key, n);
			for (size_t j = 0; j < ARRAY_SIZE(sfx); j++) {
				double base;

				strbuf_setf(&k, "%s%s", stem.buf, sfx[j]);
				base = kv_get(l, k.buf);
				if (base == 0)
					continue;
				ret = emit(ps, prefix, stem.buf, "-miss-rate%",
					   v * 100.0 / (j == 0 ? base + v : base));
				break;
			}
			if (ret || v == 0)
				continue;
			if (ends_with(key, "iTLB-load-misses", &n)) {
				double instr;

				strbuf_reset(&stem);
				strbuf_add(&stem, key, n);
				strbuf_setf(&k, "%sinstructions", stem.buf);
				instr = kv_get(l, k.buf);
				if (instr != 0)
					ret = emit(ps, prefix, stem.buf, "instructions-per-iTLB-miss",
						   instr / v);
			} else if (ends_with(key, "cache-misses", &n)) {
				double cycles, instr;

				strbuf_reset(&stem);
				strbuf_add(&stem, key, n);
				strbuf_setf(&k, "%scpu-cycles", stem.buf);
				cycles = kv_get(l, k.buf);
				if (cycles != 0)
					ret = emit(ps, prefix, stem.buf, "cycles-between-cache-misses",
						   cycles / v);
				strbuf_setf(&k, "%sinstructions", stem.buf);
				instr = kv_get(l, k.buf);
				if (!ret && instr != 0)
					ret = emit(ps, prefix, stem.buf, "MPKI", v / instr * 1000);
			}
		} else if (ends_with(key, "cpu-cycles", &n)) {
			double instr;

			strbuf_reset(&stem);
			strbuf_add(&stem, key, n);
			strbuf_setf(&k, "%sinstructions", stem.buf);
			instr = kv_get(l, k.buf);
			if (instr == 0 || v == 0)
				continue;
			ret = emit(ps, prefix, stem.buf, "ipc", instr / v);
			if (!ret)
				ret = emit(ps, prefix, stem.buf, "cpi", v / instr);
		}
	}
	strbuf_release(&stem);
	strbuf_release(&k);
	return ret;
}

/* The record that just ended: its samples, and into the totals. */
static int flush_record(struct pstate *ps, size_t lineno)
{
	double interval = ps->rec_time - ps->prev_time;

	if (interval <= 0) {
		strbuf_setf(ps->err, "perf-stat: line %zu: an interval of %g s", lineno, interval);
		return -1;
	}
	if (stats_add(ps->out, "time", ps->rec_time, true, ps->err))
		return -1;
	for (size_t i = 0; i < ps->rec.n; i++)
		if (emit(ps, "i.", ps->rec.a[i].key, "", ps->rec.a[i].v / interval))
			return -1;
	if (derive(ps, &ps->rec, "i."))
		return -1;
	for (size_t i = 0; i < ps->metrics.n; i++)
		if (emit(ps, "i.", ps->metrics.a[i].key, "", ps->metrics.a[i].v))
			return -1;
	for (size_t i = 0; i < ps->rec.n; i++)
		kv_add(&ps->total, ps->rec.a[i].key, ps->rec.a[i].v);
	ps->end_time = ps->rec_time;
	ps->prev_time = ps->rec_time;
	ps->counted++;
	kv_reset(&ps->rec);
	kv_reset(&ps->metrics);
	ps->have_rec = false;
	return 0;
}

/* lkp-tests reads the -e list from the echoed command line */
static void header_events(struct pstate *ps, const char *line)
{
	const char *p;

	if (!strstr(line, "perf stat "))
		return;
	for (p = strstr(line, " -e "); p; p = strstr(p, " -e ")) {
		size_t n;

		p += 4;
		n = strcspn(p, " ");
		if (!p[n])
			break;	/* lkp-tests wants a blank after the list */
		for (size_t i = 0; i < n;) {
			size_t m = strcspn(p + i, ",");

			if (m > n - i)
				m = n - i;
			char *name = xstrndup(p + i, m);
			char *s = name, *d = name;

			for (; *s; s++)
				if (*s != '{' && *s != '}')
					*d++ = *s;
			*d = 0;
			ALLOC_GROW(ps->events, ps->nevents + 1, ps->alloc_events);
			ps->events[ps->nevents++] = name;
			i += m + 1;
		}
	}
}

static bool metric_name(const char *s)
{
	/* -M metric names (CPI, Load_Miss_Real_Latency); not perf's own units */
	if (!s || !isupper((unsigned char)*s) || !strcmp(s, "GHz"))
		return false;
	for (; *s; s++)
		if (isspace((unsigned char)*s) || *s == '/')
			return false;
	return true;
}

static int add_line(struct pstate *ps, struct pline *pl, size_t lineno)
{
	struct strbuf key = STRBUF_INIT;
	double v, mv;

	if (ps->nevents) {
		bool known = false;

		for (size_t i = 0; i < ps->nevents && !known; i++)
			known = !strcmp(ps->events[i], pl->event);
		if (!known) {
			strbuf_setf(ps->err, "perf-stat: line %zu: event '%s' is not in the perf stat -e list of the file",
				    lineno, pl->event);
			return -1;
		}
	}
	if (ps->have_rec && pl->time < ps->rec_time - 0.01) {
		strbuf_setf(ps->err, "perf-stat: line %zu: time %.9f goes back (after %.9f)", lineno,
			    pl->time, ps->rec_time);
		return -1;
	}
	if (ps->have_rec && pl->time - ps->rec_time > 0.01 && flush_record(ps, lineno))
		return -1;
	ps->have_rec = true;
	ps->rec_time = pl->time;
	if (!is_number(pl->count, &v))
		return 0;	/* <not supported>, <not counted>: nothing */

	strbuf_addstr(&key, pl->event);
	if (strstr(key.buf, "_IMC"))
		strbuf_setlen(&key, (size_t)(strstr(key.buf, "_IMC") - key.buf));
	if (!strcmp(pl->unit, "Bytes"))
		strbuf_addstr(&key, "_Bytes");
	kv_add(&ps->rec, key.buf, v);
	if (pl->socket) {
		strbuf_setf(&ps->key, "%s.%s", pl->socket, key.buf);
		kv_add(&ps->rec, ps->key.buf, v);
	}
	if (metric_name(pl->munit) && pl->mval && is_number(pl->mval, &mv)) {
		if (pl->socket)
			strbuf_setf(&ps->key, "%s.metric.%s", pl->socket, pl->munit);
		else
			strbuf_setf(&ps->key, "metric.%s", pl->munit);
		kv_add(&ps->metrics, ps->key.buf, mv);
	}
	strbuf_release(&key);
	return 0;
}

/* The lines of text[0..len), each copied NUL-terminated into `line`. */
struct line_iter {
	const char *p, *end;
	size_t lineno;
	struct strbuf line;
};

static bool next_line(struct line_iter *it)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	strbuf_reset(&it->line);
	strbuf_add(&it->line, it->p, nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p));
	it->p = nl ? nl + 1 : it->end;
	it->lineno++;
	return true;
}

int perf_stat_parse(const char *text, size_t len, struct stats_samples *out,
		    struct strbuf *err)
{
	struct line_iter it = { text, text + len, 0, STRBUF_INIT };
	struct pstate ps;
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	memset(&ps, 0, sizeof(ps));
	ps.out = out;
	ps.err = err;
	strbuf_init(&ps.key, 64);
	while (!ret && next_line(&it)) {
		struct pline pl;
		int r;

		if (strlen(it.line.buf) != it.line.len) {
			strbuf_setf(err, "perf-stat: line %zu: a NUL byte in the text", it.lineno);
			ret = -1;
			break;
		}
		r = parse_line(it.line.buf, &pl, &why);
		if (r < 0) {
			strbuf_setf(err, "perf-stat: line %zu: %s (truncated or not perf stat -x , -I output)",
				    it.lineno, why.buf);
			ret = -1;
		} else if (r == 0) {
			header_events(&ps, it.line.buf);
		} else {
			ret = add_line(&ps, &pl, it.lineno);
		}
	}
	/* the last record is dropped (lkp-tests: its interval has not run out) */
	if (!ret && ps.counted && ps.end_time > 0) {
		for (size_t i = 0; i < ps.total.n && !ret; i++)
			ret = emit(&ps, "ps.", ps.total.a[i].key, "", ps.total.a[i].v / ps.end_time);
		for (size_t i = 0; i < ps.total.n && !ret; i++)
			ret = emit(&ps, "total.", ps.total.a[i].key, "", ps.total.a[i].v);
		if (!ret)
			ret = derive(&ps, &ps.total, "overall.");
	}
	for (size_t i = 0; i < ps.nevents; i++)
		free(ps.events[i]);
	free(ps.events);
	kv_release(&ps.rec);
	kv_release(&ps.metrics);
	kv_release(&ps.total);
	strbuf_release(&ps.key);
	strbuf_release(&why);
	strbuf_release(&it.line);
	return ret;
}

int perf_stat_unsupported(const char *text, struct strbuf *list)
{
	struct line_iter it = { text, text + strlen(text), 0, STRBUF_INIT };
	struct strbuf why = STRBUF_INIT;
	struct kvlist seen = { 0 };	/* event -> 1 unsupported, 2 counted, 3 not counted yet */
	int n = 0;

	while (next_line(&it)) {
		struct pline pl;
		struct kv *kv;
		double state;

		if (parse_line(it.line.buf, &pl, &why) != 1)
			continue;
		state = !strcmp(pl.count, "<not supported>") ? 1
			: !strcmp(pl.count, "<not counted>") ? 3 : 2;
		kv = kv_find(&seen, pl.event);
		if (!kv)
			kv_add(&seen, pl.event, state);
		else if (kv->v == 3 || state == 1)
			kv->v = state;
	}
	for (size_t i = 0; i < seen.n; i++)
		if (seen.a[i].v != 2) {
			strbuf_addf(list, "%s%s", list->len ? " " : "", seen.a[i].key);
			n++;
		}
	kv_release(&seen);
	strbuf_release(&why);
	strbuf_release(&it.line);
	return n;
}

static const char *const perf_stat_debs[] = { "libpfm4", NULL };

const struct program program_perf_stat = {
	.version = PROGRAM_VERSION,
	.name = "perf-stat",
	.kind = PROGRAM_MONITOR,
	.summary = "system-wide hardware and software event counts per interval",
	.options = perf_stat_options,
	.monitor = perf_stat_monitor,
	.parse = perf_stat_parse,
	.debs = perf_stat_debs,
};

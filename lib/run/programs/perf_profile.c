/*
 * perf-profile: `perf record -g` as a monitor, and its parser, after
 * lkp-tests' programs/perf-profile/{no-stdout-monitor,parse}.
 *
 * The monitor records the whole machine (`cpu` for some CPUs) with call
 * graphs for `duration` seconds (default 10) after `delay` (default half
 * the job's runtime, else 100 s), or until the test ends, every `period`
 * events (1000003) or at `freq`, of `events` (default the first of
 * cycles:pp, cycles:p, cycles that perf can record here; where the
 * machine has no PMU, cpu-clock — the metrics then say cpu-clock where
 * 0-day's say cycles-pp), then writes `perf report --children --header -U
 * -g folded,0.5,callee --sort=dso,symbol` into the raw file perf-profile
 * (kptr_restrict lifted meanwhile, as lkp-tests). Needs perf (Debian
 * package linux-perf). lkp-tests skips it on a virtual machine; lkprobot
 * runs it there too.
 *
 * The parser gives, for the report's event (its ':' made '-': cycles-pp),
 * `children.<event>.<symbol>` and `self.<event>.<symbol>` (percentages,
 * summed over DSOs) and, from the folded call chains,
 * `calltrace.<event>.<f1>.<f2>...` (at most five callees), symbols
 * without ".isra.N"-like suffixes; sorted by name, each rounded to 0.01
 * and kept when at least 0.05, as lkp-tests prints them.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const perf_profile_options[] = {
	"events", "period", "freq", "delay", "duration", "callgraph", "children", "inline", "cpu", "debug_mode", NULL,
};

static const char *const perf_profile_debs[] = { "linux-perf", NULL };

struct perf_profile_sum {
	char *key;
	double v;
};

struct perf_profile_state {
	struct perf_profile_sum *s;
	size_t n, alloc;
	struct strbuf event, key, sym;
	regex_t child_re, chain_re;
};

static void perf_profile_add(struct perf_profile_state *st, const char *key, double v)
{
	size_t i = 0;

	while (i < st->n && strcmp(st->s[i].key, key))
		i++;
	if (i == st->n) {
		ALLOC_GROW(st->s, st->n + 1, st->alloc);
		st->s[i].key = xstrdup(key);
		st->s[i].v = 0;
		st->n++;
	}
	st->s[i].v += v;
}

static void perf_profile_fix(struct strbuf *sym, const char *s, size_t len)
{
	strbuf_reset(sym);
	strbuf_add(sym, s, len);
	programs_strip_suffixes(sym);
}

static void perf_profile_line(struct perf_profile_state *st, const char *line)
{
	regmatch_t m[5];

	if (!strncmp(line, "# ", 2))
		return;
	if (!regexec(&st->child_re, line, 5, m, 0)) {
		perf_profile_fix(&st->sym, line + m[3].rm_so, (size_t)(m[3].rm_eo - m[3].rm_so));
		strbuf_setf(&st->key, "children.%s.%s", st->event.buf, st->sym.buf);
		perf_profile_add(st, st->key.buf, strtod(line + m[1].rm_so, NULL));
		strbuf_setf(&st->key, "self.%s.%s", st->event.buf, st->sym.buf);
		perf_profile_add(st, st->key.buf, strtod(line + m[2].rm_so, NULL));
	} else if (!regexec(&st->chain_re, line, 3, m, 0)) {
		const char *f = line + m[2].rm_so, *end = line + m[2].rm_eo;
		strbuf_setf(&st->key, "calltrace.%s", st->event.buf);
		for (int i = 0; i < 5 && f <= end; i++) {
			const char *semi = memchr(f, ';', (size_t)(end - f));
			size_t len = semi ? (size_t)(semi - f) : (size_t)(end - f);
			perf_profile_fix(&st->sym, f, len);
			strbuf_addf(&st->key, ".%s", st->sym.buf);
			if (!semi)
				break;
			f = semi + 1;
		}
		perf_profile_add(st, st->key.buf, strtod(line + m[1].rm_so, NULL));
	}
}

static int perf_profile_cmp(const void *a, const void *b)
{
	return strcmp(((const struct perf_profile_sum *)a)->key, ((const struct perf_profile_sum *)b)->key);
}

/* "# Samples: 5K of event 'cycles:pp'" -> cycles-pp; false for another line */
static bool perf_profile_event(const char *line, struct strbuf *event)
{
	const char *p = NULL;
	char unit;
	int n = 0;

	if (sscanf(line, "# Samples: %*d%c of event %n", &unit, &n) == 1 && n && strchr("KMG ", unit))
		p = line + n;
	else if (sscanf(line, "# Events: %*d%c%n", &unit, &n) == 1 && n && strchr("KMG ", unit))
		p = line + n + strspn(line + n, " \t");
	if (!p)
		return false;
	strbuf_reset(event);
	for (; *p && *p != '\n' && *p != '\r'; p++)
		if (*p != '\'')
			strbuf_addch(event, *p == ':' ? '-' : *p);
	return true;
}

static int perf_profile_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct perf_profile_state st = { .event = STRBUF_INIT, .key = STRBUF_INIT, .sym = STRBUF_INIT };
	struct strbuf line = STRBUF_INIT, v = STRBUF_INIT;
	bool header = false, first = true;
	size_t lineno = 0;
	int ret = -1;

	if (!len)
		return 0; /* the monitor was unavailable: nothing written */
	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "perf-profile: the file has NUL bytes; not perf report's text");
		return -1;
	}
	regcomp(&st.child_re,
		"^[[:space:]]*([0-9]+\\.[0-9]+)%[[:space:]]+([0-9]+\\.[0-9]+)%[[:space:]]+[^[:space:]]+[[:space:]]+"
		"[^[:space:]]+[[:space:]]+([^[:space:]]+)([[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+)?"
		"[[:space:]]*$",
		REG_EXTENDED);
	regcomp(&st.chain_re, "^([0-9]+\\.[0-9]+)%[[:space:]]+([^[:space:]]+)$", REG_EXTENDED);
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl) {
			strbuf_setf(err, "perf-profile: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		if (first) {
			first = false;
			if (strcmp(line.buf, "# ========") && !strstr(line.buf, " --header")) {
				strbuf_setf(err, "perf-profile: line 1 is not perf report --header's '# ========'");
				goto out;
			}
			continue;
		}
		if (!header) {
			header = perf_profile_event(line.buf, &st.event);
			continue;
		}
		perf_profile_line(&st, line.buf);
	}
	if (st.n)
		qsort(st.s, st.n, sizeof(*st.s), perf_profile_cmp);
	for (size_t i = 0; i < st.n; i++) {
		if (!(st.s[i].v >= 0.05))
			continue;
		strbuf_setf(&v, "%.2f", st.s[i].v);
		if (stats_add_text(out, st.s[i].key, v.buf, err))
			goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < st.n; i++)
		free(st.s[i].key);
	free(st.s);
	regfree(&st.child_re);
	regfree(&st.chain_re);
	strbuf_release(&st.event);
	strbuf_release(&st.key);
	strbuf_release(&st.sym);
	strbuf_release(&line);
	strbuf_release(&v);
	return ret;
}

/* The first event perf can record here (lkp-tests' default_events), cpu-clock where none is. */
static const char *perf_profile_default_event(const char *probe)
{
	static const char *const events[] = { "cycles:pp", "cycles:p", "cycles" };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	const char *ev = "cpu-clock";

	for (size_t i = 0; i < 3; i++) {
		char *argv[] = { "perf", "record",	"-q", "--freq=800", "-e",   (char *)events[i],
				 "-o",	 (char *)probe, "--", "sleep",	    "0.01", NULL };
		strbuf_reset(&out);
		if (monitor_capture(argv, &out, &err) == 0) {
			ev = events[i];
			break;
		}
	}
	unlink(probe);
	strbuf_release(&out);
	strbuf_release(&err);
	return ev;
}

static bool perf_profile_yes(const char *v)
{
	return !v || !strcmp(v, "1") || !strcmp(v, "yes") || !strcmp(v, "true") || !strcmp(v, "on");
}

/* The perf report of data into out_fd. */
static int perf_profile_report(const struct run *r, const struct program *p, const char *data, int out_fd)
{
	const char *cg = run_param(r, p, "callgraph");
	char *argv[] = { "perf",
			 "report",
			 perf_profile_yes(run_param(r, p, "children")) ? "--children" : "--no-children",
			 "--header",
			 "-U",
			 "-g",
			 (char *)(cg ? cg : "folded,0.5,callee"),
			 "--sort=dso,symbol",
			 "-i",
			 (char *)data,
			 run_param(r, p, "inline") ? "--inline" : NULL,
			 NULL };
	struct strbuf said = STRBUF_INIT, err = STRBUF_INIT;
	int rc = monitor_run_to(argv, out_fd, &said, &err);

	if (rc)
		fprintf(stderr, "perf-profile: perf report failed (%d): %.200s\n", rc, err.len ? err.buf : said.buf);
	strbuf_release(&said);
	strbuf_release(&err);
	return rc ? 1 : 0;
}

static void perf_profile_kptr(const char *v)
{
	int fd = open("/proc/sys/kernel/kptr_restrict", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, v, strlen(v)) < 0)
			fprintf(stderr, "perf-profile: cannot set kptr_restrict: %s\n", strerror(errno));
		close(fd);
	}
}

/* perf record's argv (its strings in buf) for the job's options. */
static void perf_profile_argv(const struct run *r, const struct program *p, const char *event, const char *data,
			      long delay, long duration, char **argv, struct strbuf *buf)
{
	const char *freq = run_param(r, p, "freq"), *period = run_param(r, p, "period"), *cpu = run_param(r, p, "cpu");
	size_t n = 0;
	char *at[4];

	strbuf_reset(buf);
	/* four strings, NUL-separated, then pointed at */
	strbuf_addf(buf, "--count=%s", period ? period : "1000003");
	strbuf_addch(buf, '\0');
	strbuf_addf(buf, "%ld", delay * 1000);
	strbuf_addch(buf, '\0');
	strbuf_addf(buf, "%ld", delay + duration);
	strbuf_addch(buf, '\0');
	strbuf_addf(buf, "--freq=%s", freq ? freq : "");
	at[0] = buf->buf;
	for (int i = 1; i < 4; i++)
		at[i] = at[i - 1] + strlen(at[i - 1]) + 1;
	argv[n++] = "perf";
	argv[n++] = "record";
	argv[n++] = "-q";
	argv[n++] = "-g";
	argv[n++] = "--realtime=1";
	argv[n++] = "-m";
	argv[n++] = "256";
	if (cpu) {
		argv[n++] = "-C";
		argv[n++] = (char *)cpu;
	} else {
		argv[n++] = "-a";
	}
	if (freq)
		argv[n++] = at[3];
	argv[n++] = at[0];
	argv[n++] = "-e";
	argv[n++] = (char *)event;
	argv[n++] = "-o";
	argv[n++] = (char *)data;
	if (delay > 0) {
		argv[n++] = "-D";
		argv[n++] = at[1];
	}
	argv[n++] = "--";
	argv[n++] = "sleep";
	argv[n++] = at[2];
	argv[n] = NULL;
}

/* Why perf may refuse here: a user under perf_event_paranoid >= 2 cannot profile the kernel. */
static const char *perf_profile_paranoid(void)
{
	struct strbuf b = STRBUF_INIT;
	long level = strbuf_read_file(&b, "/proc/sys/kernel/perf_event_paranoid") < 0 ? -1 : atol(b.buf);

	strbuf_release(&b);
	return geteuid() && level >= 2 ? " (kernel.perf_event_paranoid is 2 or more: run as root, or lower it)" : "";
}

static int perf_profile_monitor(struct run *r, const struct program *p, int out_fd)
{
	const char *delay_s = run_param(r, p, "delay"), *dur_s = run_param(r, p, "duration");
	const char *runtime = run_param(r, p, "runtime"), *events = run_param(r, p, "events");
	long delay = delay_s ? atol(delay_s) : runtime ? atol(runtime) / 2 : 100;
	long duration = dur_s ? atol(dur_s) : 10;
	char *data = run_path(r, ".perf-profile.data"), *probe = run_path(r, ".perf-profile.probe");
	struct strbuf err = STRBUF_INIT, buf = STRBUF_INIT, kptr = STRBUF_INIT;
	char *argv[32];
	int rc, null;

	monitor_catch_stop();
	const char *event = events ? events : perf_profile_default_event(probe);
	/* perf report needs the kernel's symbols: lift kptr_restrict meanwhile (lkp-tests does) */
	strbuf_read_file(&kptr, "/proc/sys/kernel/kptr_restrict");
	bool restricted = kptr.len && kptr.buf[0] != '0';
	if (restricted)
		perf_profile_kptr("0");
	perf_profile_argv(r, p, event, data, delay, duration, argv, &buf);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	rc = monitor_exec(argv, null, MONITOR_EXEC_STOP_SIGINT, &err);
	close(null);
	struct stat st;
	if (rc < 0 || stat(data, &st) || !st.st_size) {
		/* perf refused (perf_event_paranoid, as a user) or found nothing: an empty file, or none */
		bool missing = rc < 0 && errno == ENOENT;
		fprintf(stderr, "perf-profile: %s%s%s\n", rc < 0 ? err.buf : "perf record wrote no data",
			missing ? " (Debian package linux-perf)" : "", perf_profile_paranoid());
		rc = MONITOR_UNAVAILABLE;
	} else {
		rc = perf_profile_report(r, p, data, out_fd);
	}
	if (restricted) {
		strbuf_setlen(&kptr, strcspn(kptr.buf, "\n"));
		perf_profile_kptr(kptr.buf);
	}
	unlink(data);
	free(data);
	free(probe);
	strbuf_release(&err);
	strbuf_release(&buf);
	strbuf_release(&kptr);
	return rc;
}

const struct program program_perf_profile = {
	.version = PROGRAM_VERSION,
	.name = "perf-profile",
	.kind = PROGRAM_MONITOR,
	.summary =
		"perf record -g for 10 s into the test, then perf report: children/self/calltrace percentages "
		"(needs perf; cpu-clock without a PMU)",
	.options = perf_profile_options,
	.monitor = perf_profile_monitor,
	.parse = perf_profile_parse,
	.debs = perf_profile_debs,
};

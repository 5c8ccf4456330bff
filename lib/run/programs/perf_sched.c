/*
 * perf-sched: `perf sched` as a monitor, and its parser, after lkp-tests'
 * programs/perf-sched/{monitor,parse}.
 *
 * The monitor runs `perf sched record -g -D <delay ms>` system-wide for
 * `duration` seconds (default 5) after `delay` (default a quarter of the
 * job's runtime, else 30 s), or until the test ends, then writes `perf
 * sched timehist` of the record into the raw file perf-sched and, unless
 * `lite_mode: 1`, `perf sched latency` into perf-sched.latency. It needs
 * perf (Debian package linux-perf) and the sched tracepoints (tracefs);
 * without them it is unavailable. lkp-tests skips it on a virtual
 * machine; lkprobot runs it there too (a VM's scheduling is a VM's).
 *
 * The parser reads the timehist lines with a call chain ("... <- ..."):
 * each wakeup's wait time, scheduling delay and their sum (rounded to
 * 0.001 ms), under the chain's first five '.'-separated parts; then
 * `total_{wait_time,sch_delay,wait_and_delay}.{max,average}.ms` and
 * `total_wait_and_delay.count.ms` over all wakeups, and per chain
 * `{wait_time,sch_delay}.{max,avg}.ms.<chain>` and
 * `wait_and_delay.{count,max.ms,avg.ms}.<chain>` (the latter only for a
 * chain whose mean is at least the overall one or that has at least 0.5 %
 * of the wakeups), most frequent chain first, as lkp-tests prints them.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const perf_sched_options[] = {
	"lite_mode", "delay", "duration", "runtime", NULL,
};

static const char *const perf_sched_debs[] = { "linux-perf", NULL };

struct perf_sched_chain {
	char *key;
	double *v[3]; /* wait time, sch delay, their sum */
	size_t n, alloc;
};

/* Ruby's Float#round(3) */
static double perf_sched_round3(double x)
{
	double f = round(x * 1000);

	if ((f + 0.5) / 1000 <= x)
		f += 1;
	return f / 1000;
}

static double perf_sched_max(const double *v, size_t n)
{
	double m = v[0];

	for (size_t i = 1; i < n; i++)
		m = fmax(m, v[i]);
	return m;
}

static int perf_sched_line(struct perf_sched_chain **c, size_t *n, size_t *alloc, char *line, char ***w, size_t *walloc)
{
	struct strbuf key = STRBUF_INIT;

	/* " <- " -> "." */
	for (char *a; (a = strstr(line, " <- "));) {
		*a = '.';
		memmove(a + 1, a + 4, strlen(a + 4) + 1);
	}
	size_t nw = monitor_words(line, w, walloc);
	if (nw < 4)
		return 0;
	const char *chain = (*w)[nw - 1];
	for (int part = 0; part < 5 && *chain; part++) {
		size_t len = strcspn(chain, ".");
		strbuf_addf(&key, "%s%.*s", part ? "." : "", (int)len, chain);
		chain += len + (chain[len] == '.');
	}
	size_t i = 0;
	while (i < *n && strcmp((*c)[i].key, key.buf))
		i++;
	if (i == *n) {
		ALLOC_GROW(*c, *n + 1, *alloc);
		memset(&(*c)[i], 0, sizeof(**c));
		(*c)[i].key = strbuf_detach(&key);
		(*n)++;
	}
	struct perf_sched_chain *e = &(*c)[i];
	if (e->n == e->alloc) {
		e->alloc = e->alloc ? 2 * e->alloc : 16;
		for (int k = 0; k < 3; k++)
			e->v[k] = xrealloc(e->v[k], e->alloc * sizeof(double));
	}
	double wt = strtod((*w)[nw - 4], NULL), sd = strtod((*w)[nw - 3], NULL);
	e->v[0][e->n] = wt;
	e->v[1][e->n] = sd;
	e->v[2][e->n] = perf_sched_round3(wt + sd);
	e->n++;
	strbuf_release(&key);
	return 0;
}

static int perf_sched_cmp(const void *a, const void *b)
{
	const struct perf_sched_chain *x = *(const struct perf_sched_chain *const *)a;
	const struct perf_sched_chain *y = *(const struct perf_sched_chain *const *)b;

	if (x->n != y->n)
		return x->n < y->n ? 1 : -1; /* most wakeups first */
	return strcmp(x->key, y->key);	     /* lkp-tests' order of ties is Ruby's sort's: any */
}

/* lkp-tests' mean: Ruby's sum(0.0) / size, rounded to 0.001 */
static double perf_sched_avg(const double *v, size_t n)
{
	return perf_sched_round3(programs_ruby_sum(v, n) / (double)n);
}

static int perf_sched_show(struct perf_sched_chain *c, size_t n, struct stats_samples *out, struct strbuf *err)
{
	static const char *const total[] = { "total_wait_time", "total_sch_delay", "total_wait_and_delay" };
	static const char *const each[] = { "wait_time", "sch_delay", "wait_and_delay" };
	struct perf_sched_chain **order = xcalloc(n, sizeof(*order));
	struct strbuf key = STRBUF_INIT;
	size_t all = 0, count = 0;
	double *v = NULL, cmp_avg = 0;
	int ret = -1;

	for (size_t i = 0; i < n; i++)
		all += c[i].n;
	v = xcalloc(all, sizeof(*v));
	for (int k = 0; k < 3; k++) {
		size_t at = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < c[i].n; j++)
				v[at++] = c[i].v[k][j];
		double avg = perf_sched_avg(v, all);
		if (k == 2) {
			cmp_avg = avg;
			count = (size_t)((double)all * 0.005);
			strbuf_setf(&key, "%s.count.ms", total[k]);
			if (stats_add(out, key.buf, (double)all, false, err))
				goto out;
		}
		strbuf_setf(&key, "%s.max.ms", total[k]);
		if (stats_add(out, key.buf, perf_sched_max(v, all), true, err))
			goto out;
		strbuf_setf(&key, "%s.average.ms", total[k]);
		if (stats_add(out, key.buf, avg, true, err))
			goto out;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = &c[i];
	qsort(order, n, sizeof(*order), perf_sched_cmp);
	for (size_t i = 0; i < n; i++) {
		const struct perf_sched_chain *e = order[i];
		for (int k = 0; k < 3; k++) {
			double avg = perf_sched_avg(e->v[k], e->n);
			if (k == 2) {
				if (avg < cmp_avg && e->n < count)
					continue;
				strbuf_setf(&key, "%s.count.%s", each[k], e->key);
				if (stats_add(out, key.buf, (double)e->n, false, err))
					goto out;
			}
			strbuf_setf(&key, "%s.max.ms.%s", each[k], e->key);
			if (stats_add(out, key.buf, perf_sched_max(e->v[k], e->n), true, err))
				goto out;
			strbuf_setf(&key, "%s.avg.ms.%s", each[k], e->key);
			if (stats_add(out, key.buf, avg, true, err))
				goto out;
		}
	}
	ret = 0;
out:
	free(order);
	free(v);
	strbuf_release(&key);
	return ret;
}

static int perf_sched_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct perf_sched_chain *c = NULL;
	struct strbuf line = STRBUF_INIT;
	size_t n = 0, alloc = 0, walloc = 0, lineno = 0;
	char **w = NULL;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "perf-sched: the file has NUL bytes; not perf sched timehist's output");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		lineno++;
		if (!nl) {
			strbuf_setf(err, "perf-sched: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		if (strstr(line.buf, " <- "))
			perf_sched_line(&c, &n, &alloc, line.buf, &w, &walloc);
	}
	ret = n ? perf_sched_show(c, n, out, err) : 0;
out:
	for (size_t i = 0; i < n; i++) {
		free(c[i].key);
		for (int k = 0; k < 3; k++)
			free(c[i].v[k]);
	}
	free(c);
	free(w);
	strbuf_release(&line);
	return ret;
}

/* `perf sched <what> -i data` into the file `path` (or out_fd when path is NULL). */
static int perf_sched_report(const char *what, const char *data, const char *path, int out_fd)
{
	char *argv[] = { "perf", "sched", (char *)what, "-i", (char *)data, NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644) : out_fd, rc;

	rc = fd < 0 ? -1 : monitor_capture(argv, &out, &err);
	if (rc == 0) {
		/* perf's own notes on stderr ("Samples do not have callchains") are mixed in: keep stdout's lines */
		if (fsutil_write_all(fd, out.buf, out.len))
			rc = -1;
	} else {
		fprintf(stderr, "perf-sched: perf sched %s failed (%d): %s\n", what, rc, err.len ? err.buf : out.buf);
	}
	if (path && fd >= 0)
		close(fd);
	strbuf_release(&out);
	strbuf_release(&err);
	return rc ? -1 : 0;
}

static int perf_sched_monitor(struct run *r, const struct program *p, int out_fd)
{
	const char *delay_s = run_param(r, p, "delay"), *dur_s = run_param(r, p, "duration");
	const char *runtime = run_param(r, p, "runtime"), *lite = run_param(r, p, "lite_mode");
	long delay = delay_s ? atol(delay_s) : runtime ? atol(runtime) / 4 : 30;
	long duration = dur_s ? atol(dur_s) : 5;
	char *data = run_path(r, ".perf-sched.data"), *lat = run_path(r, "perf-sched.latency");
	char dms[32], secs[32];
	struct strbuf err = STRBUF_INIT;
	int rc;

	monitor_catch_stop();
	snprintf(dms, sizeof(dms), "%ld", delay * 1000);
	snprintf(secs, sizeof(secs), "%ld", delay + duration);
	char *argv[] = { "perf", "sched", "record", "-g", "-o", data, "-D", dms, "--", "sleep", secs, NULL };
	if (delay <= 0) /* perf refuses -D 0 */
		memmove(argv + 6, argv + 8, 4 * sizeof(*argv));
	/* perf record writes its notes on stderr; stdout (nothing) to /dev/null */
	int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	rc = monitor_exec(argv, null, MONITOR_EXEC_STOP_SIGINT, &err);
	close(null);
	if (rc < 0 || access(data, R_OK)) {
		bool missing = rc < 0 && errno == ENOENT;
		fprintf(stderr, "perf-sched: %s%s\n", rc < 0 ? err.buf : "perf sched record wrote no data",
			missing ? " (Debian package linux-perf)" : "");
		rc = MONITOR_UNAVAILABLE;
		goto out;
	}
	rc = 0;
	if ((!lite || strcmp(lite, "1")) && perf_sched_report("latency", data, lat, -1))
		rc = 1;
	if (perf_sched_report("timehist", data, NULL, out_fd))
		rc = 1;
out:
	unlink(data);
	free(data);
	free(lat);
	strbuf_release(&err);
	return rc;
}

const struct program program_perf_sched = {
	.version = PROGRAM_VERSION,
	.name = "perf-sched",
	.kind = PROGRAM_MONITOR,
	.summary =
		"perf sched record for 5 s into the test, then timehist: wakeup wait and delay per call chain "
		"(needs perf)",
	.options = perf_sched_options,
	.monitor = perf_sched_monitor,
	.parse = perf_sched_parse,
	.debs = perf_sched_debs,
};

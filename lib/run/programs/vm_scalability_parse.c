/*
 * vm_scalability_parse: the raw file `vm-scalability` (what lkp-tests' run
 * prints: "./case-<test>" before each run of the case, then usemem's, dd's
 * and the cases' result lines) -> vm-scalability.* samples, after
 * lkp-tests' programs/vm-scalability/parse: per run the workers' summed
 * throughput and the median worker, their spread, the work done, the
 * "fault" figures apart. A broken or truncated line is an error, never a
 * number. The test itself is vm_scalability.c.
 */
#include "../../stats/stats.h"
#include "../../util/strbuf.h"
#include "programs.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	VMS_RE_USEMEM,
	VMS_RE_DD,
	VMS_RE_TRUNCATED,
	VMS_RE_FAULTED,
	VMS_RE_MIGRATED,
	VMS_RE_REMAPPED,
	VMS_RE_FREE,
	VMS_RE_CASE,
	/* not lkp-tests': the starts of usemem's lines, to catch broken ones */
	VMS_RE_USEMEM_START,
	VMS_RE_FREE_START,
	VMS_RE_N
};

/* lkp-tests' regular expressions in POSIX ERE, tried in its order */
static const char *const vms_patterns[VMS_RE_N] = {
	"^\\.*([0-9]+) bytes / ([0-9]+) usecs = ([0-9]+) KB.s",
	"([0-9]+) bytes \\([0-9.]+ .B(, [0-9.]+ .iB)?\\) copied, ([0-9.]+) s, ([0-9.]+) .B.s",
	"([0-9]+) bytes truncated in ([0-9.]+)-([0-9.]+) seconds",
	"([0-9]+) bytes faulted in ([0-9.]+)-([0-9.]+) seconds",
	"[0-9]+ \\* [0-9]+ bytes migrated, [0-9]+ usecs, ([0-9]+) MB.s",
	"([0-9]+) bytes remapped, ([0-9]+) usecs, ([0-9]+) MB.s",
	"([0-9]+) usecs to free memory",
	"\\./case-[a-z-]+",
	"^\\.*[0-9]+ bytes /",
	"^[0-9]+ usecs",
};

struct vms_vec {
	double *v;
	size_t n, alloc;
};

static void vms_push(struct vms_vec *a, double x)
{
	ALLOC_GROW(a->v, a->n + 1, a->alloc);
	a->v[a->n++] = x;
}

/* One kind of result (plain, or the "faulted" lines): per-run samples. */
struct vms_series {
	struct vms_vec kbps;	   /* this run's workers */
	struct vms_vec throughput; /* per run: sum of the workers' KB/s */
	struct vms_vec median;	   /* per run: the median worker */
	size_t per_run;		   /* workers in the first run */
};

/* Ruby's Array#sum: Kahan-Babuska summation. */
static double vms_sum(const struct vms_vec *a)
{
	double f = 0.0, c = 0.0;

	for (size_t i = 0; i < a->n; i++) {
		double x = a->v[i], t = f + x;
		if (fabs(f) >= fabs(x))
			c += (f - t) + x;
		else
			c += (x - t) + f;
		f = t;
	}
	return f + c;
}

static double vms_average(const struct vms_vec *a)
{
	return vms_sum(a) / (double)a->n;
}

/* lib/statistics.rb: the population deviation, summed in order. */
static double vms_stddev(const struct vms_vec *a)
{
	double avg = vms_average(a), sum = 0;

	for (size_t i = 0; i < a->n; i++)
		sum += (a->v[i] - avg) * (a->v[i] - avg);
	return sqrt(1 / (double)a->n * sum);
}

static int vms_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* add_one_sample(): close one run of the case. */
static int vms_close_run(struct vms_series *s, size_t run, const char *what, struct strbuf *err)
{
	if (!s->kbps.n)
		return 0;
	if (!s->throughput.n) {
		s->per_run = s->kbps.n;
	} else if (s->kbps.n != s->per_run) {
		strbuf_setf(err,
			    "vm-scalability: run %zu of the case has %zu %sresult lines, the first had %zu; the output "
			    "is truncated or mixed",
			    run, s->kbps.n, what, s->per_run);
		return -1;
	}
	vms_push(&s->throughput, vms_sum(&s->kbps));
	qsort(s->kbps.v, s->kbps.n, sizeof(*s->kbps.v), vms_cmp);
	vms_push(&s->median, s->kbps.v[s->kbps.n / 2]);
	return 0;
}

/* cal_stddev(): across runs, or from the last run's workers when there was one run. */
static double vms_rel_stddev(const struct vms_series *s)
{
	if (s->throughput.n > 1)
		return vms_stddev(&s->throughput) / vms_average(&s->throughput);
	return vms_stddev(&s->kbps) * (double)s->kbps.n / vms_average(&s->kbps);
}

static double vms_median_stddev(const struct vms_series *s)
{
	if (s->median.n > 1)
		return vms_stddev(&s->median) / vms_average(&s->median);
	return 0;
}

static void vms_series_release(struct vms_series *s)
{
	free(s->kbps.v);
	free(s->throughput.v);
	free(s->median.v);
}

/* Add "key: value" as lkp-tests' printf prints it (the text decides int or float). */
__attribute__((format(printf, 4, 5))) static int vms_emit(struct stats_samples *out, struct strbuf *err,
							  const char *key, const char *fmt, ...)
{
	char val[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	if (stats_add_text(out, key, val, err)) {
		char *e = strbuf_detach(err);
		strbuf_setf(err, "vm-scalability: %s", e);
		free(e);
		return -1;
	}
	return 0;
}

/* Ruby's printf("%d", float): truncated toward zero (callers check the range first). */
static long long vms_trunc(double v)
{
	return (long long)v;
}

/*
 * A figure that printf("%d") would print: finite and within long long
 * (converting one beyond it is undefined behaviour, and no machine moves
 * 2^63 KB/s: such a line is garbage).
 */
static bool vms_fits(double v)
{
	return isfinite(v) && v > -9.2e18 && v < 9.2e18;
}

static int vms_emit_series(struct stats_samples *out, const struct vms_series *s, bool fault,
			   const struct vms_vec *free_secs, double bytes, struct strbuf *err)
{
	if (!vms_fits(vms_average(&s->throughput)) || !vms_fits(vms_average(&s->median))) {
		strbuf_setf(err, "vm-scalability: a throughput of %g KB/s is out of range; the output is garbled",
			    vms_average(&s->throughput));
		return -1;
	}
	if (!fault) {
		return vms_emit(out, err, "throughput", "%lld", vms_trunc(vms_average(&s->throughput))) ||
				       vms_emit(out, err, "stddev%", "%g", vms_rel_stddev(s) * 100) ||
				       (free_secs->n &&
					vms_emit(out, err, "free_time", "%g", vms_average(free_secs))) ||
				       vms_emit(out, err, "median", "%lld", vms_trunc(vms_average(&s->median))) ||
				       vms_emit(out, err, "median_stddev%", "%g", vms_median_stddev(s) * 100) ||
				       vms_emit(out, err, "workload", "%.2f", bytes / 1024)
			       ? -1
			       : 0;
	}
	return vms_emit(out, err, "throughput_fault", "%lld", vms_trunc(vms_average(&s->throughput))) ||
			       vms_emit(out, err, "stddev_fault%", "%g", vms_rel_stddev(s) * 100) ||
			       vms_emit(out, err, "median_fault", "%lld", vms_trunc(vms_average(&s->median))) ||
			       vms_emit(out, err, "median_fault_stddev%", "%g", vms_median_stddev(s) * 100)
		       ? -1
		       : 0;
}

static int vms_uint(const char *line, const regmatch_t *m, uint64_t *out)
{
	char *end;

	errno = 0;
	unsigned long long v = strtoull(line + m->rm_so, &end, 10);
	if (errno || end != line + m->rm_eo)
		return -1;
	*out = v;
	return 0;
}

/* Ruby's String#to_f on "[0-9.]+": the longest number at the start. */
static double vms_float(const char *line, const regmatch_t *m)
{
	return strtod(line + m->rm_so, NULL);
}

#define VMS_MAX_LINE 4096 /* bytes in one line of output */

struct vms_state {
	regex_t re[VMS_RE_N];
	struct vms_series plain, fault;
	struct vms_vec free_secs;
	double bytes, bytes_fault;
	size_t run; /* ./case- lines seen */
	bool run_has_results;
};

/* One line of output (no newline). 0, or -1 with err set. */
static int vms_line(struct vms_state *st, const char *line, size_t lineno, struct stats_samples *out,
		    struct strbuf *err)
{
	regmatch_t m[5];
	uint64_t a, b;
	bool fault = false;

#define VMS_MATCH(i) (!regexec(&st->re[i], line, ARRAY_SIZE(m), m, 0))
#define VMS_BAD(why) \
	do { \
		strbuf_setf(err, "vm-scalability: line %zu: %s: '%.80s'", lineno, why, line); \
		return -1; \
	} while (0)

	if (VMS_MATCH(VMS_RE_USEMEM)) {
		if (vms_uint(line, &m[1], &a) || vms_uint(line, &m[3], &b))
			VMS_BAD("number out of range");
		st->bytes += (double)a;
		vms_push(&st->plain.kbps, (double)b);
	} else if (VMS_MATCH(VMS_RE_DD)) {
		double secs = vms_float(line, &m[3]);
		if (vms_uint(line, &m[1], &a))
			VMS_BAD("number out of range");
		if (!(secs > 0))
			VMS_BAD("copied in no time");
		st->bytes += (double)a;
		vms_push(&st->plain.kbps, (double)(a >> 10) / secs);
	} else if (VMS_MATCH(VMS_RE_TRUNCATED) || (fault = VMS_MATCH(VMS_RE_FAULTED))) {
		double secs = vms_float(line, &m[2]) - vms_float(line, &m[3]);
		if (vms_uint(line, &m[1], &a))
			VMS_BAD("number out of range");
		if (secs == 0 || !isfinite(secs))
			VMS_BAD("no time between the two timestamps");
		if (fault)
			st->bytes_fault += (double)a;
		else
			st->bytes += (double)a;
		vms_push(fault ? &st->fault.kbps : &st->plain.kbps, (double)(a >> 10) / secs);
	} else if (VMS_MATCH(VMS_RE_MIGRATED)) {
		char num[32];
		if (vms_uint(line, &m[1], &a))
			VMS_BAD("number out of range");
		/* lkp-tests adds the MB/s to the bytes, as it does */
		st->bytes += (double)a;
		snprintf(num, sizeof(num), "%" PRIu64, a);
		if (stats_add_text(out, "migrate_mbps", num, err))
			return -1;
		return 0;
	} else if (VMS_MATCH(VMS_RE_REMAPPED)) {
		if (vms_uint(line, &m[1], &a) || vms_uint(line, &m[2], &b))
			VMS_BAD("number out of range");
		if (!(b >> 10))
			VMS_BAD("remapped in under 1024 usecs");
		st->bytes += (double)a;
		vms_push(&st->plain.kbps, (double)(a / (b >> 10)));
	} else if (VMS_MATCH(VMS_RE_FREE)) {
		if (vms_uint(line, &m[1], &a))
			VMS_BAD("number out of range");
		vms_push(&st->free_secs, (double)a / 1000000.0);
		return 0;
	} else if (VMS_MATCH(VMS_RE_CASE)) {
		if (st->run && !st->run_has_results) {
			strbuf_setf(err,
				    "vm-scalability: line %zu: run %zu of the case printed no result line; it failed "
				    "or its output is lost",
				    lineno, st->run);
			return -1;
		}
		if (vms_close_run(&st->plain, st->run, "", err) || vms_close_run(&st->fault, st->run, "fault ", err))
			return -1;
		st->plain.kbps.n = st->fault.kbps.n = 0;
		st->run++;
		st->run_has_results = false;
		return 0;
	} else if (VMS_MATCH(VMS_RE_USEMEM_START) || VMS_MATCH(VMS_RE_FREE_START)) {
		VMS_BAD("not a whole usemem line");
	} else {
		return 0; /* log lines: truncate commands, "repeat count: 4", ... */
	}
	st->run_has_results = true;
	return 0;
#undef VMS_MATCH
#undef VMS_BAD
}

int vm_scalability_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct vms_state st;
	struct strbuf line = STRBUF_INIT;
	size_t lineno = 0, nre = 0;
	int ret = -1;

	memset(&st, 0, sizeof(st));
	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "vm-scalability: the output has NUL bytes; not vm-scalability's text");
		return -1;
	}
	for (nre = 0; nre < VMS_RE_N; nre++)
		if (regcomp(&st.re[nre], vms_patterns[nre], REG_EXTENDED)) {
			strbuf_setf(err, "vm-scalability: internal error: bad pattern %zu", nre);
			goto out;
		}
	for (size_t pos = 0; pos < len;) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		lineno++;
		if (!nl) {
			strbuf_setf(err, "vm-scalability: line %zu has no end (truncated output)", lineno);
			goto out;
		}
		if (n > VMS_MAX_LINE) {
			/* no line of the tool is this long; regexec on it would take minutes */
			strbuf_setf(err,
				    "vm-scalability: line %zu is longer than %d bytes; not vm-scalability's output",
				    lineno, VMS_MAX_LINE);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, text + pos, n);
		if (vms_line(&st, line.buf, lineno, out, err))
			goto out;
		pos += n + 1;
	}
	if (st.run && !st.run_has_results) {
		strbuf_setf(err,
			    "vm-scalability: the output ends after run %zu of the case started (truncated, or the case "
			    "failed)",
			    st.run);
		goto out;
	}
	if (vms_close_run(&st.plain, st.run, "", err) || vms_close_run(&st.fault, st.run, "fault ", err))
		goto out;
	if (!st.plain.throughput.n) {
		strbuf_setf(err, "vm-scalability: no result lines ('N bytes / U usecs = K KB/s') in the output");
		goto out;
	}
	if (!st.plain.kbps.n) {
		strbuf_setf(err,
			    "vm-scalability: the last run of the case has no throughput lines (incomplete output)");
		goto out;
	}
	if (vms_emit_series(out, &st.plain, false, &st.free_secs, st.bytes, err))
		goto out;
	if (st.fault.throughput.n && vms_emit_series(out, &st.fault, true, NULL, 0, err))
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < nre; i++)
		regfree(&st.re[i]);
	vms_series_release(&st.plain);
	vms_series_release(&st.fault);
	free(st.free_secs.v);
	strbuf_release(&line);
	return ret;
}

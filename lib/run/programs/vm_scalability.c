/*
 * vm-scalability: the mm scalability test cases, after lkp-tests'
 * programs/vm-scalability/{run,parse}. Option names follow lkp-tests'.
 *
 * The cases are lkprobot's own C workers (lib/vmscal.c) unless
 * LKPROBOT_VM_SCALABILITY names an upstream vm-scalability checkout that
 * has case-<test>; then that script runs, with the job's values passed as
 * numbers in its environment (never through a shell command line).
 * Either way the raw file `vm-scalability` holds what lkp-tests' run
 * prints: "YYYY-MM-DD HH:MM:SS  ./case-<test>" before each run of the case,
 * then the workers' "N bytes / U usecs = K KB/s" and "U usecs to free
 * memory" lines.
 *
 * Sizes, as lkp-tests' run and the case scripts: one run of the case
 * covers unit_size bytes, split evenly over nr_task workers (default: the
 * case's own share of memory, vmscal_default_bytes()). With size, the case
 * runs size x nr_node / unit_size times, unit_size capped at that total
 * (lkp-tests caps only a unit_size the job gives; lkprobot caps the
 * default too, so a small size means a small run rather than MemTotal/2).
 * runtime (default 300 s) bounds the whole test: workers stop accessing
 * memory at the deadline (usemem --runtime) and no run starts after it; a
 * run after the first that the deadline cuts short is dropped from the raw
 * file, so that every sample is a whole run (lkp-tests would let it finish
 * past runtime, where the engine kills the test).
 *
 * Other options in the C cases: repeat (passes over the memory, usemem -r),
 * sync_free (usemem -x), bind_cpu (usemem -b; 0 means nr_cpu/2/nr_task as
 * lkp-tests' run), sync_rw (usemem -y: the C workers always map before the
 * start barrier); fs and pre_setup only shape upstream's sparse root, which
 * lkprobot does not make; cpu_delay and timed_wp need upstream's usemem and
 * are refused. Like lkp-tests' run, the test sets vm.overcommit_memory=1
 * (and, for upstream's cases, vm.max_map_count and kernel.threads-max),
 * logged to reproduce.sh; lkprobot puts the old values back afterwards.
 */
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../vmscal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

static const char *const vm_scalability_options[] = {
	"runtime", "nr_task", "test", "size", "unit_size", "fs", "pre_setup",
	"sync_rw", "bind_cpu", "repeat", "cpu_delay", "sync_free",
	"timed_wp", NULL,
};

/* ---- parse: lkp-tests' programs/vm-scalability/parse -------------------- */

enum {
	VMS_RE_USEMEM, VMS_RE_DD, VMS_RE_TRUNCATED, VMS_RE_FAULTED, VMS_RE_MIGRATED,
	VMS_RE_REMAPPED, VMS_RE_FREE, VMS_RE_CASE,
	/* not lkp-tests': the starts of usemem's lines, to catch broken ones */
	VMS_RE_USEMEM_START, VMS_RE_FREE_START, VMS_RE_N
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
	struct vms_vec kbps;		/* this run's workers */
	struct vms_vec throughput;	/* per run: sum of the workers' KB/s */
	struct vms_vec median;		/* per run: the median worker */
	size_t per_run;			/* workers in the first run */
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
		strbuf_setf(err, "vm-scalability: run %zu of the case has %zu %sresult lines, the first had %zu; the output is truncated or mixed",
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
__attribute__((format(printf, 4, 5)))
static int vms_emit(struct stats_samples *out, struct strbuf *err, const char *key, const char *fmt, ...)
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
		       (free_secs->n && vms_emit(out, err, "free_time", "%g", vms_average(free_secs))) ||
		       vms_emit(out, err, "median", "%lld", vms_trunc(vms_average(&s->median))) ||
		       vms_emit(out, err, "median_stddev%", "%g", vms_median_stddev(s) * 100) ||
		       vms_emit(out, err, "workload", "%.2f", bytes / 1024) ? -1 : 0;
	}
	return vms_emit(out, err, "throughput_fault", "%lld", vms_trunc(vms_average(&s->throughput))) ||
	       vms_emit(out, err, "stddev_fault%", "%g", vms_rel_stddev(s) * 100) ||
	       vms_emit(out, err, "median_fault", "%lld", vms_trunc(vms_average(&s->median))) ||
	       vms_emit(out, err, "median_fault_stddev%", "%g", vms_median_stddev(s) * 100) ? -1 : 0;
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

#define VMS_MAX_LINE 4096	/* bytes in one line of output */

struct vms_state {
	regex_t re[VMS_RE_N];
	struct vms_series plain, fault;
	struct vms_vec free_secs;
	double bytes, bytes_fault;
	size_t run;			/* ./case- lines seen */
	bool run_has_results;
};

/* One line of output (no newline). 0, or -1 with err set. */
static int vms_line(struct vms_state *st, const char *line, size_t lineno,
		    struct stats_samples *out, struct strbuf *err)
{
	regmatch_t m[5];
	uint64_t a, b;
	bool fault = false;

#define VMS_MATCH(i) (!regexec(&st->re[i], line, ARRAY_SIZE(m), m, 0))
#define VMS_BAD(why) do { \
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
			strbuf_setf(err, "vm-scalability: line %zu: run %zu of the case printed no result line; it failed or its output is lost",
				    lineno, st->run);
			return -1;
		}
		if (vms_close_run(&st->plain, st->run, "", err) ||
		    vms_close_run(&st->fault, st->run, "fault ", err))
			return -1;
		st->plain.kbps.n = st->fault.kbps.n = 0;
		st->run++;
		st->run_has_results = false;
		return 0;
	} else if (VMS_MATCH(VMS_RE_USEMEM_START) || VMS_MATCH(VMS_RE_FREE_START)) {
		VMS_BAD("not a whole usemem line");
	} else {
		return 0;	/* log lines: truncate commands, "repeat count: 4", ... */
	}
	st->run_has_results = true;
	return 0;
#undef VMS_MATCH
#undef VMS_BAD
}

static int vms_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
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
			strbuf_setf(err, "vm-scalability: line %zu is longer than %d bytes; not vm-scalability's output",
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
		strbuf_setf(err, "vm-scalability: the output ends after run %zu of the case started (truncated, or the case failed)",
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
		strbuf_setf(err, "vm-scalability: the last run of the case has no throughput lines (incomplete output)");
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

/* ---- run ----------------------------------------------------------------- */

struct vms_job {
	const char *test;
	uint64_t nr_task, runtime, size, unit_size, repeat, bind_cpu, cpu_delay, timed_wp;
	bool has_size, has_unit_size, has_repeat, has_bind_cpu, has_cpu_delay, has_timed_wp;
	bool sync_rw, sync_free;
	const char *fs;
	uint64_t nr_node;
};

/* A whole number option; *has says whether the job sets it. */
static int vms_number(const struct run *r, const struct program *p, const char *opt,
		      uint64_t *out, bool *has, struct strbuf *err)
{
	const char *v = run_param(r, p, opt);
	char *end;

	*has = v && *v;
	*out = 0;
	if (!*has)
		return 0;
	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || *end || !(*v >= '0' && *v <= '9')) {
		strbuf_setf(err, "%s: '%s' is not a whole number", opt, v);
		return -1;
	}
	return 0;
}

/* lkp-tests passes these on when they are non-empty (hw_vars: [ -n "$SYNC_RW" ]). */
static bool vms_set(const struct run *r, const struct program *p, const char *opt)
{
	const char *v = run_param(r, p, opt);
	return v && *v;
}

static int vms_job_read(const struct run *r, const struct program *p, struct vms_job *j,
			struct strbuf *err)
{
	int nr_cpu = r->machine && r->machine->nr_cpu > 0 ? r->machine->nr_cpu : 1;

	memset(j, 0, sizeof(*j));
	j->test = run_param(r, p, "test");
	if (!j->test || !*j->test) {
		strbuf_setf(err, "test is not set; name a case, e.g. test: anon-w-seq");
		return -1;
	}
	/* the name becomes a path (case-<test>): only upstream's alphabet */
	if (strspn(j->test, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(j->test) ||
	    j->test[0] == '-') {
		strbuf_setf(err, "test: '%s' is not a case name (lower-case letters, digits and '-', like anon-w-seq)",
			    j->test);
		return -1;
	}
	if (run_param_tasks(r, p, "nr_task", (uint64_t)nr_cpu, &j->nr_task, err) ||
	    run_param_seconds(r, p, "runtime", RUN_RUNTIME_DEFAULT, &j->runtime, err) ||
	    run_param_bytes(r, p, "size", 0, &j->size, err) ||
	    run_param_bytes(r, p, "unit_size", 0, &j->unit_size, err) ||
	    vms_number(r, p, "repeat", &j->repeat, &j->has_repeat, err) ||
	    vms_number(r, p, "bind_cpu", &j->bind_cpu, &j->has_bind_cpu, err) ||
	    vms_number(r, p, "cpu_delay", &j->cpu_delay, &j->has_cpu_delay, err) ||
	    vms_number(r, p, "timed_wp", &j->timed_wp, &j->has_timed_wp, err))
		return -1;
	if (!j->nr_task || j->nr_task > 1U << 20) {
		strbuf_setf(err, "nr_task '%s' gives %" PRIu64 " workers on %d CPUs; give 1 to 1048576",
			    run_param(r, p, "nr_task") ? run_param(r, p, "nr_task") : "", j->nr_task, nr_cpu);
		return -1;
	}
	if (j->has_repeat && (!j->repeat || j->repeat > 1U << 30)) {
		strbuf_setf(err, "repeat: give a number of passes from 1 to 1073741824");
		return -1;
	}
	j->has_size = vms_set(r, p, "size");
	j->has_unit_size = vms_set(r, p, "unit_size");
	if ((j->has_size && !j->size) || (j->has_unit_size && !j->unit_size)) {
		strbuf_setf(err, "%s: 0 bytes; give a size like 64M or leave it out for the case's default",
			    j->has_size && !j->size ? "size" : "unit_size");
		return -1;
	}
	j->sync_rw = vms_set(r, p, "sync_rw");
	j->sync_free = vms_set(r, p, "sync_free");
	/* lkp-tests' run: bind_cpu 0 spreads the tasks over one hyperthread each */
	if (j->has_bind_cpu && !j->bind_cpu)
		j->bind_cpu = (uint64_t)nr_cpu / 2 / j->nr_task;
	j->fs = run_param(r, p, "fs");
	j->nr_node = r->machine && r->machine->nr_node > 0 ? (uint64_t)r->machine->nr_node : 1;
	if (j->has_size && j->size > UINT64_MAX / j->nr_node) {
		strbuf_setf(err, "size: %" PRIu64 " bytes x %" PRIu64 " nodes is too large", j->size, j->nr_node);
		return -1;
	}
	return 0;
}

/* Where file cases put their sparse files: lkp-tests' SPARSE_ROOT. */
static const char *vms_sparse_root(const struct run *r)
{
	return r->nmounts ? r->mount_points[0] : r->tmpdir;
}

/* lkp-tests' log_test line before each run of the case. */
static int vms_log_case(int fd, const char *test, struct strbuf *err)
{
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(date, sizeof(date), "%F %T", &tm))
		snprintf(date, sizeof(date), "%lld", (long long)now);
	if (dprintf(fd, "%s  ./case-%s\n", date, test) < 0) {
		strbuf_setf(err, "cannot write the raw file 'vm-scalability': %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A sysctl lkp-tests' run sets; put back after the test (lkp-tests leaves it). */
struct vms_sysctl {
	const char *path;
	char *old;
};

static void vms_sysctl_set(const struct run *r, struct vms_sysctl *s, const char *path,
			   const char *value)
{
	struct strbuf old = STRBUF_INIT, e = STRBUF_INIT;

	s->path = path;
	s->old = NULL;
	if (!strbuf_read_file(&old, path)) {
		strbuf_rtrim(&old);
		/* best effort, as lkp-tests' echo: a failure shows in the case's own errors */
		if (strcmp(old.buf, value) && !run_write_sys(r, path, value, &e))
			s->old = strbuf_detach(&old);
	}
	strbuf_release(&old);
	strbuf_release(&e);
}

static void vms_sysctl_restore(struct vms_sysctl *s)
{
	if (!s->old)
		return;
	int fd = open(s->path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, s->old, strlen(s->old)) < 0) {
			/* nothing better to do: the test is over */
		}
		close(fd);
	}
	free(s->old);
	s->old = NULL;
}

static int vms_open_raw(const struct run *r, struct strbuf *err)
{
	char *path = run_path(r, "vm-scalability");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		strbuf_setf(err, "cannot write '%s': %s", path, strerror(errno));
	free(path);
	return fd;
}

/* Our C cases. 0, or 1 with one line in err. */
static int vms_run_ours(struct run *r, const struct vms_job *j, const struct vmscal_case *c,
			struct strbuf *err)
{
	struct vmscal_meminfo mi;
	struct vms_sysctl overcommit;
	uint64_t unit, runs = 1;
	int fd, ret = 1;

	if (j->has_cpu_delay || j->has_timed_wp) {
		strbuf_setf(err, "%s is not supported by lkprobot's C cases; point LKPROBOT_VM_SCALABILITY at an upstream vm-scalability checkout to run it",
			    j->has_cpu_delay ? "cpu_delay" : "timed_wp");
		return 1;
	}
	if (vmscal_meminfo_read(&mi, err) || vmscal_check(c, &mi, err))
		return 1;
	unit = j->has_unit_size ? j->unit_size : vmscal_default_bytes(c, &mi, (unsigned)j->nr_task);
	if (j->has_size) {
		uint64_t total = j->size * j->nr_node;
		if (unit > total)
			unit = total;
		runs = total / unit;
	}

	long page = sysconf(_SC_PAGESIZE);
	struct vmscal_params vp = {
		.c = c,
		.nr_task = (unsigned)j->nr_task,
		.worker_bytes = unit / j->nr_task,
		.repeat = j->has_repeat ? (unsigned)j->repeat : 1,
		.bind_interval = (unsigned)j->bind_cpu,
		.sync_free = j->sync_free,
		.dir = vms_sparse_root(r),
	};
	if (vp.worker_bytes < (uint64_t)(page > 0 ? page : 4096)) {
		strbuf_setf(err, "%" PRIu64 " bytes over %" PRIu64 " workers is %" PRIu64 " bytes each, less than a page; raise %s",
			    unit, j->nr_task, vp.worker_bytes,
			    j->has_unit_size ? "unit_size" : j->has_size ? "size" : "the memory");
		return 1;
	}
	if (c->kind == VMSCAL_FILE && !vp.dir) {
		strbuf_setf(err, "%s needs a directory for its sparse files: the job mounts no file system and the run has no tmpdir",
			    c->name);
		return 1;
	}
	/* upstream's warning in hw_vars: holes of tmpfs files are read without page cache */
	struct statfs sfs;
	if (c->kind == VMSCAL_FILE && !statfs(vp.dir, &sfs) && sfs.f_type == TMPFS_MAGIC) {
		strbuf_setf(err, "%s: %s is tmpfs, where reading a sparse file fills no page cache; give the job a disk and fs:",
			    c->name, vp.dir);
		return 1;
	}
	if ((fd = vms_open_raw(r, err)) < 0)
		return 1;
	/* sync_rw (usemem -y: map before the start barrier) is what the C workers always do */
	vms_sysctl_set(r, &overcommit, "/proc/sys/vm/overcommit_memory", "1");
	if (j->has_size)
		dprintf(fd, "repeat count: %" PRIu64 "\n", runs);
	vp.deadline_ns = j->runtime ? vmscal_now_ns() + j->runtime * 1000000000ULL : 0;
	for (uint64_t i = 0; i < runs; i++) {
		off_t before = lseek(fd, 0, SEEK_END);
		bool cut = false;

		if (vms_log_case(fd, c->name, err) || vmscal_run(&vp, fd, &cut, err))
			goto out;
		/*
		 * A later run the deadline cut short would be a sample of another
		 * kind (usemem credits the whole allocation up front): drop it.
		 * lkp-tests lets that run finish, past runtime.
		 */
		if (cut && i > 0 && before >= 0 && ftruncate(fd, before)) {
			strbuf_setf(err, "cannot cut the raw file 'vm-scalability': %s", strerror(errno));
			goto out;
		}
		if (i + 1 < runs && (cut || (vp.deadline_ns && vmscal_now_ns() >= vp.deadline_ns))) {
			dprintf(fd, "runtime exceeded, consider adjust size configuration\n");
			break;
		}
	}
	ret = 0;
out:
	vms_sysctl_restore(&overcommit);
	close(fd);
	return ret;
}

/*
 * An upstream checkout: lkp-tests' run around case-<test>, the job's values
 * in the environment as numbers, through `env -C <checkout> NAME=VALUE ...
 * ./case-<test>` (an argv, and a line of reproduce.sh anyone can rerun).
 * lkprobot makes no tmpfs and no loop-mounted sparse root (pre_setup=0):
 * SPARSE_ROOT is the job's first mount point or the run's tmpdir.
 */
static int vms_run_upstream(struct run *r, const struct vms_job *j, const char *checkout,
			    struct strbuf *err)
{
	struct vms_sysctl sys[3];
	char **argv = xcalloc(24, sizeof(*argv));
	size_t argc = 0;
	uint64_t runs = 1;
	int fd = -1, ret = 1;
	const char *root = vms_sparse_root(r);
	const char *tmpfs_mnt = "/tmp/vm-scalability-tmp";
	bool made_tmpfs_mnt = false;

	argv[argc++] = xstrdup("env");
	argv[argc++] = xstrdup("-C");
	argv[argc++] = xstrdup(checkout);
	argv[argc++] = xasprintf("nr_task=%" PRIu64, j->nr_task);
	argv[argc++] = xasprintf("runtime=%" PRIu64, j->runtime);
	if (j->has_size) {
		struct vmscal_meminfo mi;
		uint64_t total = j->size * j->nr_node, unit;
		if (vmscal_meminfo_read(&mi, err))
			goto out;
		/* set_repeat_count(): a unit_size the job gives is capped and passed on */
		unit = j->has_unit_size ? j->unit_size : mi.mem_total / 2;
		if (unit > total)
			unit = total;
		runs = unit ? total / unit : 1;
		argv[argc++] = xasprintf("size=%" PRIu64, total);
		if (j->has_unit_size)
			argv[argc++] = xasprintf("unit_size=%" PRIu64, unit);
	} else if (j->has_unit_size) {
		argv[argc++] = xasprintf("unit_size=%" PRIu64, j->unit_size);
	}
	if (j->fs) {
		if (strspn(j->fs, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(j->fs)) {
			strbuf_setf(err, "fs: '%s' is not a file system type", j->fs);
			goto out;
		}
		argv[argc++] = xasprintf("fs=%s", j->fs);
	}
	if (root)
		argv[argc++] = xasprintf("SPARSE_ROOT=%s", root);
	if (j->sync_rw)
		argv[argc++] = xstrdup("SYNC_RW=1");
	if (j->sync_free)
		argv[argc++] = xstrdup("SYNC_FREE=1");
	if (j->has_bind_cpu)
		argv[argc++] = xasprintf("BIND_CPU=%" PRIu64, j->bind_cpu);
	if (j->has_repeat)
		argv[argc++] = xasprintf("REPEAT_COUNT=%" PRIu64, j->repeat);
	if (j->has_cpu_delay)
		argv[argc++] = xasprintf("DELAY=%" PRIu64, j->cpu_delay);
	if (j->has_timed_wp)
		argv[argc++] = xasprintf("TIMED_WP=%" PRIu64, j->timed_wp);
	argv[argc++] = xasprintf("./case-%s", j->test);

	if ((fd = vms_open_raw(r, err)) < 0)
		goto out;
	/* hw_vars keeps dd outputs and shm files in TMPFS_MNT */
	if (!mkdir(tmpfs_mnt, 0755))
		made_tmpfs_mnt = true;
	vms_sysctl_set(r, &sys[0], "/proc/sys/vm/overcommit_memory", "1");
	vms_sysctl_set(r, &sys[1], "/proc/sys/vm/max_map_count", "1073741824");
	vms_sysctl_set(r, &sys[2], "/proc/sys/kernel/threads-max", "1048576");
	if (j->has_size)
		dprintf(fd, "repeat count: %" PRIu64 "\n", runs);

	uint64_t start = vmscal_now_ns();
	int rc = 0;
	for (uint64_t i = 0; i < runs; i++) {
		if (vms_log_case(fd, j->test, err))
			break;
		rc = run_cmd(r, argv, NULL, "vm-scalability", "stderr", err);
		if (rc < 0)
			break;
		if (rc > 0) {
			strbuf_setf(err, "./case-%s of %s exited with status %d; see 'stderr' in the result root",
				    j->test, checkout, rc);
			break;
		}
		if (i + 1 < runs && (vmscal_now_ns() - start) / 1000000000ULL > j->runtime) {
			dprintf(fd, "runtime exceeded, consider adjust size configuration\n");
			break;
		}
	}
	ret = err->len ? 1 : 0;
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		vms_sysctl_restore(&sys[i]);
	if (made_tmpfs_mnt)
		rmdir(tmpfs_mnt);
out:
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

static int vms_run(struct run *r, const struct program *p)
{
	struct strbuf err = STRBUF_INIT, list = STRBUF_INIT;
	const char *checkout = getenv("LKPROBOT_VM_SCALABILITY");
	const struct vmscal_case *c;
	struct vms_job j;
	int ret = 1;

	if (vms_job_read(r, p, &j, &err))
		goto out;
	if (checkout && *checkout) {
		char *script = xasprintf("%s/case-%s", checkout, j.test);
		bool have = !access(script, X_OK);
		free(script);
		if (have) {
			ret = vms_run_upstream(r, &j, checkout, &err);
			goto out;
		}
	}
	if (!(c = vmscal_find(j.test))) {
		vmscal_list(&list);
		if (checkout && *checkout)
			strbuf_setf(&err, "test '%s': %s has no executable case-%s, and lkprobot's C cases are %s",
				    j.test, checkout, j.test, list.buf);
		else
			strbuf_setf(&err, "test '%s' is not one of lkprobot's C cases (%s); set LKPROBOT_VM_SCALABILITY to an upstream vm-scalability checkout to run the others",
				    j.test, list.buf);
		goto out;
	}
	ret = vms_run_ours(r, &j, c, &err);
out:
	if (ret && err.len)
		fprintf(stderr, "vm-scalability: %s\n", err.buf);
	strbuf_release(&err);
	strbuf_release(&list);
	return ret;
}

/* the workers' throughput, the median worker's and the work done: up */
static const struct program_metric vms_metrics[] = {
	{ "throughput", +1, true },
	{ "median", +1, true },
	{ "workload", +1, false },
	{ NULL, 0, false },
};

const struct program program_vm_scalability = {
	.version = PROGRAM_VERSION,
	.name = "vm-scalability",
	.kind = PROGRAM_TEST,
	.summary = "exercise the kernel's mm (anon, swap, page cache cases)",
	.description = "The motivation behind this suite is to exercise functions and regions of the mm/ "
		       "of the Linux kernel which are of interest to us.",
	.url = "https://git.kernel.org/cgit/linux/kernel/git/wfg/vm-scalability.git/",
	.options = vm_scalability_options,
	.run = vms_run,
	.parse = vms_parse,
	.raw = "vm-scalability",
	.debs = NULL,
	.metrics = vms_metrics,
};

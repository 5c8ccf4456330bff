/*
 * cpuidle and cpufreq-stats: the per-CPU sysfs monitors and their parsers,
 * after lkp-tests' programs/cpuidle and programs/cpufreq-stats.
 *
 * cpuidle writes "time: <s>.<ns>" and, for each CPU's idle state,
 * "cpu<N>.<state name, ' ' made '-'>.{time,usage}: <value>" from
 * /sys/devices/system/cpu/cpu<N>/cpuidle/state<M>/ when it starts and
 * when it is stopped (every `interval` seconds if the job sets one). Its
 * parser sums each state's time and usage over the CPUs, per snapshot:
 * cpuidle.POLL.usage, cpuidle.C1.time (no cpuidle.time: lkp-tests prints
 * none); reduced last minus first. Needs a cpuidle driver (state0).
 *
 * cpufreq-stats writes "time: <s>.<ns>" and each CPU's
 * "cpu<N>.time_in_state.<kHz>: <10 ms units>" and "cpu<N>.total_trans:
 * <n>" from cpufreq/stats every `interval` seconds (default 1); its
 * parser reads the lines as they are (lkp-tests' default parser is cat).
 * Needs cpufreq with CONFIG_CPU_FREQ_STAT.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const cpu_sysfs_options[] = {
	"interval",
	NULL,
};

/* A sysfs file's first line, trimmed, into out; -1 when it cannot be read. */
static int cpu_sysfs_read(struct strbuf *out, const char *dir, const char *file)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	strbuf_setf(&path, "%s%s", dir, file);
	strbuf_reset(out);
	ret = strbuf_read_file(out, path.buf);
	strbuf_release(&path);
	if (ret)
		return -1;
	strbuf_setlen(out, strcspn(out->buf, "\n"));
	return 0;
}

static int cpu_sysfs_write(struct strbuf *snap, int out_fd, struct strbuf *err)
{
	if (fsutil_write_all(out_fd, snap->buf, snap->len)) {
		strbuf_setf(err, "cannot write the snapshot: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void cpu_sysfs_time(struct strbuf *snap)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_setf(snap, "time: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
}

static int cpuidle_snapshot(void *ctx, int out_fd, struct strbuf *err)
{
	struct strbuf snap = STRBUF_INIT, name = STRBUF_INIT, t = STRBUF_INIT, u = STRBUF_INIT;
	glob_t g;
	int ret = -1;

	(void)ctx;
	cpu_sysfs_time(&snap);
	if (!glob("/sys/devices/system/cpu/cpu*/cpuidle/state*/", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *dir = g.gl_pathv[i], *cpu = dir + strlen("/sys/devices/system/cpu/");
			if (cpu_sysfs_read(&name, dir, "name") || cpu_sysfs_read(&t, dir, "time") ||
			    cpu_sysfs_read(&u, dir, "usage"))
				continue; /* a CPU going offline */
			for (char *c = name.buf; *c; c++)
				if (*c == ' ')
					*c = '-';
			int clen = (int)strcspn(cpu, "/");
			strbuf_addf(&snap, "%.*s.%s.time: %s\n%.*s.%s.usage: %s\n", clen, cpu, name.buf, t.buf, clen,
				    cpu, name.buf, u.buf);
		}
		globfree(&g);
	}
	ret = cpu_sysfs_write(&snap, out_fd, err);
	strbuf_release(&snap);
	strbuf_release(&name);
	strbuf_release(&t);
	strbuf_release(&u);
	return ret;
}

static int cpufreq_snapshot(void *ctx, int out_fd, struct strbuf *err)
{
	struct strbuf snap = STRBUF_INIT, file = STRBUF_INIT, v = STRBUF_INIT;
	glob_t g;
	int ret;

	(void)ctx;
	cpu_sysfs_time(&snap);
	if (!glob("/sys/devices/system/cpu/cpu[0-9]*", 0, NULL, &g)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			const char *cpu = strrchr(g.gl_pathv[i], '/') + 1;
			strbuf_setf(&file, "%s/cpufreq/stats/time_in_state", g.gl_pathv[i]);
			strbuf_reset(&v);
			if (strbuf_read_file(&v, file.buf))
				continue;
			char *save = NULL;
			for (char *l = strtok_r(v.buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
				char state[64], t[64];
				if (sscanf(l, "%63s %63s", state, t) == 2)
					strbuf_addf(&snap, "%s.time_in_state.%s: %s\n", cpu, state, t);
			}
			strbuf_setf(&file, "%s/cpufreq/stats/", g.gl_pathv[i]);
			if (!cpu_sysfs_read(&v, file.buf, "total_trans"))
				strbuf_addf(&snap, "%s.total_trans: %s\n", cpu, v.buf);
		}
		globfree(&g);
	}
	ret = cpu_sysfs_write(&snap, out_fd, err);
	strbuf_release(&snap);
	strbuf_release(&file);
	strbuf_release(&v);
	return ret;
}

static int cpu_sysfs_monitor(struct run *r, const struct program *p, int out_fd, const char *needs, const char *why,
			     double def, monitor_snap_fn *snap)
{
	struct strbuf err = STRBUF_INIT;
	double interval;

	monitor_catch_stop();
	if (monitor_interval(r, p, def, &interval, &err)) {
		fprintf(stderr, "%s: %s\n", p->name, err.buf);
		strbuf_release(&err);
		return 2;
	}
	strbuf_release(&err);
	if (access(needs, R_OK)) {
		fprintf(stderr, "%s: no %s here (%s)\n", p->name, needs, why);
		return MONITOR_UNAVAILABLE;
	}
	return monitor_snapshots_with(p->name, interval, snap, NULL, out_fd);
}

static int cpuidle_monitor(struct run *r, const struct program *p, int out_fd)
{
	/* lkp-tests: no interval = one snapshot before and one after the test */
	return cpu_sysfs_monitor(r, p, out_fd, "/sys/devices/system/cpu/cpu0/cpuidle/state0/name", "no cpuidle driver",
				 0, cpuidle_snapshot);
}

static int cpufreq_stats_monitor(struct run *r, const struct program *p, int out_fd)
{
	return cpu_sysfs_monitor(r, p, out_fd, "/sys/devices/system/cpu/cpu0/cpufreq/stats/time_in_state",
				 "no cpufreq driver, or CONFIG_CPU_FREQ_STAT off", 1, cpufreq_snapshot);
}

struct cpuidle_sum {
	char *key;
	long long sum;
};

static int cpuidle_show(struct cpuidle_sum **s, size_t *n, struct stats_samples *out, struct strbuf *err)
{
	int ret = 0;

	for (size_t i = 0; i < *n; i++) {
		if (!ret && stats_add(out, (*s)[i].key, (double)(*s)[i].sum, false, err))
			ret = -1;
		free((*s)[i].key);
	}
	*n = 0;
	return ret;
}

/* "cpu<N>.<state>.<time|usage>: <value>" -> the state's sum over the CPUs, per snapshot */
static int cpuidle_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct cpuidle_sum *s = NULL;
	struct strbuf line = STRBUF_INIT;
	size_t n = 0, alloc = 0, lineno = 0;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "cpuidle: the file has NUL bytes; not the cpuidle monitor's text");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		char *colon, *e;
		lineno++;
		if (!nl) {
			strbuf_setf(err, "cpuidle: line %zu has no end (truncated file)", lineno);
			goto out;
		}
		strbuf_reset(&line);
		strbuf_add(&line, p, (size_t)(nl - p));
		p = nl + 1;
		if (!strncmp(line.buf, "time: ", 6)) {
			if (cpuidle_show(&s, &n, out, err))
				goto out;
			continue;
		}
		const char *k = line.buf + 3;
		colon = strstr(line.buf, ": ");
		if (strncmp(line.buf, "cpu", 3) || !colon || k[strspn(k, "0123456789")] != '.' ||
		    !strspn(k, "0123456789")) {
			strbuf_setf(err, "cpuidle: line %zu: '%s' is not a 'cpuN.state.field: value' line", lineno,
				    line.buf);
			goto out;
		}
		*colon = '\0';
		k += strspn(k, "0123456789") + 1;
		long long v = strtoll(colon + 2, &e, 10);
		if (e == colon + 2 || *e) {
			strbuf_setf(err, "cpuidle: line %zu: %s: '%s' is not a number", lineno, line.buf, colon + 2);
			goto out;
		}
		size_t i = 0;
		while (i < n && strcmp(s[i].key, k))
			i++;
		if (i == n) {
			ALLOC_GROW(s, n + 1, alloc);
			s[n].key = xstrdup(k);
			s[n++].sum = 0;
		}
		s[i].sum += v;
	}
	if (cpuidle_show(&s, &n, out, err))
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < n; i++)
		free(s[i].key);
	free(s);
	strbuf_release(&line);
	return ret;
}

/* lkp-tests' default parser (cat): the monitor already writes "key: value" lines */
static int cpufreq_stats_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	if (memchr(text, '\0', len) || (len && text[len - 1] != '\n')) {
		strbuf_setf(err, "cpufreq-stats: NUL bytes or a last line without its end (truncated file)");
		return -1;
	}
	/* the raw file is (text, len), not a C string: stats_add_lines reads to a NUL */
	struct strbuf e = STRBUF_INIT;
	char *copy = xstrndup(text, len);
	int ret = stats_add_lines(out, copy, &e);

	if (ret)
		strbuf_setf(err, "cpufreq-stats: %s", e.buf);
	free(copy);
	strbuf_release(&e);
	return ret ? -1 : 0;
}

const struct program program_cpufreq_stats = {
	.version = PROGRAM_VERSION,
	.name = "cpufreq-stats",
	.kind = PROGRAM_MONITOR,
	.summary = "cpufreq time-in-state and transitions of each CPU every second (needs cpufreq stats)",
	.options = cpu_sysfs_options,
	.monitor = cpufreq_stats_monitor,
	.parse = cpufreq_stats_parse,
};

const struct program program_cpuidle = {
	.version = PROGRAM_VERSION,
	.name = "cpuidle",
	.kind = PROGRAM_MONITOR,
	.summary = "each idle state's time and usage, summed over the CPUs, before and after the test",
	.options = cpu_sysfs_options,
	.monitor = cpuidle_monitor,
	.parse = cpuidle_parse,
};

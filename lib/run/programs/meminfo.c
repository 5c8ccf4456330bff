/*
 * meminfo: the /proc/meminfo monitor and its parser, after lkp-tests'
 * programs/meminfo/{monitor,parse}.
 *
 * The monitor writes "time: <epoch>" and /proc/meminfo every `interval`
 * seconds (default 1, as lkp-tests) and once more when stopped. The
 * parser emits `time` and every field under its /proc/meminfo name, in
 * the file's unit (KiB; HugePages_* are counts): MemTotal, MemFree,
 * Active(anon), ...; after MemFree it adds lkp-tests' `Memused` (the
 * first MemTotal minus this MemFree) and `max_used_kB` (the largest
 * Memused so far; "kB" is MemFree's unit).
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const meminfo_options[] = {
	"interval", NULL,
};

static int meminfo_parse(const char *text, size_t len, struct stats_samples *out,
			 struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT, unit = STRBUF_INIT, key = STRBUF_INIT;
	bool have_total = false, have_used = false;
	long long total = 0, max_used = 0;
	size_t lineno = 0;
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "meminfo: the file has NUL bytes; not /proc/meminfo text");
		return -1;
	}
	const char *p = text, *end = text + len;
	int rc;

	while ((rc = monitor_snapshot_line(&p, end, &lineno, &line, "meminfo", out, err)) > 0) {
		char *save = NULL, *name, *val, *u, *e;

		if (rc == 2) {	/* a new snapshot */
			continue;
		}
		/* kselftests' livepatch tests replace /proc/meminfo now and then (lkp-tests skips these) */
		if (!strncmp(line.buf, "test_klp_atomic_replace:", 24) || !strncmp(line.buf, "entries", 7))
			continue;
		name = strtok_r(line.buf, " \t\r", &save);
		if (!name)
			continue;
		val = strtok_r(NULL, " \t\r", &save);
		u = val ? strtok_r(NULL, " \t\r", &save) : NULL;
		size_t nlen = strlen(name);
		if (!val || nlen < 2 || name[nlen - 1] != ':' || (u && strtok_r(NULL, " \t\r", &save))) {
			strbuf_setf(err, "meminfo: line %zu: '%s' is not a 'Field: value [kB]' line", lineno, name);
			goto out;
		}
		name[nlen - 1] = '\0';
		long long v = strtoll(val, &e, 10);
		if (e == val || *e || stats_add_text(out, name, val, err)) {
			strbuf_setf(err, "meminfo: line %zu: %s: '%s' is not a number", lineno, name, val);
			goto out;
		}
		if (!strcmp(name, "MemTotal") && !have_total) {
			total = v;
			have_total = true;
		}
		if (!strcmp(name, "MemFree")) {
			if (!have_total) {
				strbuf_setf(err, "meminfo: line %zu: MemFree before any MemTotal", lineno);
				goto out;
			}
			long long used = total - v;
			if (!have_used || used > max_used)
				max_used = used;
			have_used = true;
			if (!unit.len)
				strbuf_addstr(&unit, u ? u : "");
			strbuf_setf(&key, "max_used_%s", unit.buf);
			if (stats_add(out, "Memused", (double)used, false, err) ||
			    stats_add(out, key.buf, (double)max_used, false, err))
				goto out;
		}
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	strbuf_release(&line);
	strbuf_release(&unit);
	strbuf_release(&key);
	return ret;
}

static int meminfo_monitor(struct run *r, const struct program *p, int out_fd)
{
	return monitor_proc_file(r, p, "/proc/meminfo", 1, 0, out_fd);
}

const struct program program_meminfo = {
	.version = PROGRAM_VERSION,
	.name = "meminfo",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/meminfo every second (interval): each field, in kB",
	.options = meminfo_options,
	.monitor = meminfo_monitor,
	.parse = meminfo_parse,
};

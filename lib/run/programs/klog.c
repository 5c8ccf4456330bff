/*
 * klog: the kernel log's programs as lkp-tests has them — the dmesg stats,
 * the kmsg, boot-time and uptime monitors, and last_state. The dmesg and
 * kmsg stats (lib/dmesg.rb's error ids) are made in klog_parse.c, from the
 * regexes of klog_patterns.c.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <time.h>

/* ---- dmesg: the serial console's log, parsed in klog_parse.c ---- */

const struct program program_dmesg = {
	.version = PROGRAM_VERSION,
	.name = "dmesg",
	.kind = PROGRAM_STATS,
	.summary = "the kernel log (serial console): oopses, BUGs, WARNINGs, panics as failure stats",
	.parse = klog_parse_dmesg,
};

/* ---- kmsg: the kernel log, as `dmesg --follow --decode` prints it ---- */

static int kmsg_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf err = STRBUF_INIT;
	/* a kernel booted for this run: its whole log is the run's; else only what the run adds */
	char *argv[] = { "dmesg", "--decode", r->fresh_boot ? "--follow" : "--follow-new", NULL };
	int rc;

	(void)p;
	monitor_catch_stop();
	rc = monitor_exec(argv, out_fd, 0, &err);
	if (rc < 0)
		fprintf(stderr, "kmsg: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 1 : 0;
}

const struct program program_kmsg = {
	.version = PROGRAM_VERSION,
	.name = "kmsg",
	.kind = PROGRAM_MONITOR,
	.summary =
		"the kernel log during the run (dmesg --follow --decode): printk errors and boot self-tests as stats "
		"(needs util-linux)",
	.monitor = kmsg_monitor,
	.parse = klog_parse_kmsg,
	.debs = (const char *const[]){ "util-linux", NULL },
};

/* ---- boot-time and uptime ---- */

/*
 * boot-time: /proc/uptime when the monitors start (lkp-tests' raw file),
 * then the kernel log lines its parser reads the boot's stages from (it
 * reads them from kmsg; here they travel in the same file).
 */
static int boot_time_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf out = STRBUF_INIT;
	int rc = 0, size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log = size > 0 ? xmalloc((size_t)size + 1) : NULL;
	int n = log ? klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size) : -1;

	(void)r;
	(void)p;
	monitor_catch_stop();
	if (strbuf_read_file(&out, "/proc/uptime")) {
		fprintf(stderr, "boot-time: cannot read /proc/uptime\n");
		rc = 1;
		goto done;
	}
	for (int i = 0; i < n;) {
		int e = i;
		while (e < n && log[e] != '\n')
			e++;
		const char *l = log + i;
		size_t len = (size_t)(e - i);
		if (memmem(l, len, "] Sending DHCP requests", 23) || memmem(l, len, "] x86: Booting SMP configuration:", 33) ||
		    memmem(l, len, "] smp: Brought up ", 18) || memmem(l, len, "] Freeing unused kernel memory:", 31)) {
			strbuf_add(&out, l, len);
			strbuf_addch(&out, '\n');
		}
		i = e + 1;
	}
	if (fsutil_write_all(out_fd, out.buf, out.len))
		rc = 1;
done:
	monitor_sleep(-1);
	free(log);
	strbuf_release(&out);
	return rc;
}

/* The number in "[ 12.345678] <what>" before `what`, as the text has it; NULL: none. */
static char *stamp_before(const char *line, const char *what)
{
	const char *w = strstr(line, what), *b;

	if (!w)
		return NULL;
	for (b = w; b > line && b[-1] != '['; b--)
		;
	if (b == line)
		return NULL;
	while (*b == ' ')
		b++;
	size_t n = strspn(b, "0123456789.");
	if (!n || b + n != w)
		return NULL;
	return xstrndup(b, n);
}

/* programs/boot-time/parse: the boot's stages from the kernel log, then boot and idle */
static int boot_time_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	char *t = xstrndup(text, len), *save = NULL;
	char *first = strtok_r(t, "\n", &save);
	bool dhcp = false;
	double smp_start = -1;
	int ret = 0;

	/* the first when that matches a line, as the parser's case does */
	for (char *l = strtok_r(NULL, "\n", &save); l && !ret; l = strtok_r(NULL, "\n", &save)) {
		char *ts;
		if ((ts = stamp_before(l, "] Sending DHCP requests"))) {
			if (!dhcp)
				ret = stats_add_text(out, "dhcp", ts, err);
			dhcp = true;
		} else if ((ts = stamp_before(l, "] x86: Booting SMP configuration:"))) {
			smp_start = strtod(ts, NULL);
		} else if ((ts = stamp_before(l, "] smp: Brought up ")) && strstr(l, " CPUs")) {
			if (smp_start >= 0) {
				char num[64];
				snprintf(num, sizeof(num), "%g", strtod(ts, NULL) - smp_start);
				ret = stats_add_text(out, "smp_boot", num, err);
			}
		} else if ((ts = stamp_before(l, "] Freeing unused kernel memory:"))) {
			ret = stats_add_text(out, "kernel_boot", ts, err);
			free(ts);
			break;
		}
		free(ts);
	}
	if (!ret && first) {
		char boot[64], idle[64];
		if (sscanf(first, "%63s %63s", boot, idle) == 2) {
			ret = stats_add_text(out, "boot", boot, err);
			if (!ret)
				ret = stats_add_text(out, "idle", idle, err);
		} else {
			strbuf_setf(err, "boot-time: the first line is not /proc/uptime's 'boot idle'");
			ret = -1;
		}
	}
	free(t);
	return ret;
}

const struct program program_boot_time = {
	.version = PROGRAM_VERSION,
	.name = "boot-time",
	.kind = PROGRAM_MONITOR,
	.summary = "the boot's stages from the kernel log (dmesg), and /proc/uptime when the run starts",
	.monitor = boot_time_monitor,
	.parse = boot_time_parse,
};

/* uptime: when the test is over, "time: <epoch>", "boot: <s>", "idle: <s>" (lkp-tests' snapshot) */
static int uptime_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf up = STRBUF_INIT, out = STRBUF_INIT;
	struct timespec ts;
	char boot[64], idle[64];
	int rc = 0;

	(void)r;
	(void)p;
	monitor_catch_stop();
	monitor_sleep(-1);
	clock_gettime(CLOCK_REALTIME, &ts);
	if (strbuf_read_file(&up, "/proc/uptime") || sscanf(up.buf, "%63s %63s", boot, idle) != 2) {
		fprintf(stderr, "uptime: cannot read /proc/uptime\n");
		rc = 1;
	} else {
		strbuf_addf(&out, "time: %lld.%09ld\nboot: %s\nidle: %s\n", (long long)ts.tv_sec, ts.tv_nsec, boot, idle);
		if (fsutil_write_all(out_fd, out.buf, out.len))
			rc = 1;
	}
	strbuf_release(&up);
	strbuf_release(&out);
	return rc;
}

static int lines_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	char *t = xstrndup(text, len);
	int ret = stats_add_lines(out, t, err);
	free(t);
	return ret;
}

const struct program program_uptime = {
	.version = PROGRAM_VERSION,
	.name = "uptime",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/uptime when the test is over: uptime and idle seconds",
	.monitor = uptime_monitor,
	.parse = lines_parse,
};

/*
 * last_state: how the run ended, in lkp-tests' words — "exit_fail: 1",
 * "test.fio.exit_code.1: 1", "soft_timeout: 1", "is_incomplete_run: 1"
 * (the engine writes the file). Its parser keeps the "<key>: <number>"
 * lines, each once (grep -E ".+: [0-9]+$" | sort -u).
 */
static int last_state_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	char *t = xstrndup(text, len), *save = NULL;
	char **seen = NULL;
	size_t n = 0, alloc = 0;
	int ret = 0;

	for (char *l = strtok_r(t, "\n", &save); l && !ret; l = strtok_r(NULL, "\n", &save)) {
		char *sep = strrchr(l, ':');
		if (!sep || sep == l || sep[1] != ' ' || !sep[2] || strspn(sep + 2, "0123456789") != strlen(sep + 2))
			continue;
		bool dup = false;
		for (size_t i = 0; i < n && !dup; i++)
			dup = !strcmp(seen[i], l);
		if (dup)
			continue;
		ALLOC_GROW(seen, n + 1, alloc);
		seen[n++] = l;
		*sep = '\0';
		ret = stats_add_text(out, l, sep + 2, err);
		*sep = ':';
	}
	free(seen);
	free(t);
	return ret;
}

const struct program program_last_state = {
	.version = PROGRAM_VERSION,
	.name = "last_state",
	.kind = PROGRAM_STATS,
	.summary = "how the run ended (exit_fail, soft_timeout, is_incomplete_run) as failure stats",
	.parse = last_state_parse,
};

/*
 * time: a test's rusage in GNU `time -v` format — written by
 * time_format_rusage() (the engine times the test itself) and read back
 * by the parser, after lkp-tests' programs/time/parse.
 *
 * Keys are the labels with leading blanks and " (...)" groups removed,
 * blanks made '_', lowercased: user_time, system_time,
 * percent_of_cpu_this_job_got ('%' stripped, '?' read as 0), elapsed_time
 * (h:mm:ss or m:ss.cc in seconds, a float), maximum_resident_set_size, ...,
 * exit_status. Several outputs one after the other (the result root's
 * `time` file concatenates every <test>.time) are successive samples. A
 * record must end with its "Exit status" line: anything cut short is an
 * error, never a sample with the wrong numbers.
 *
 * time_format_rusage() follows GNU time 1.9 field by field (labels, order,
 * 1/100 s truncation, %P from milliseconds, "?%" for no time). exit_status
 * is the test's exit code (0..255); a negative value -N stands for "killed
 * by signal N", which GNU time prints as "Command terminated by signal N"
 * with "Exit status: 0".
 */
#include "../program.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void time_format_rusage(struct strbuf *out, const char *command, const struct rusage *ru,
			double elapsed_seconds, int exit_status)
{
	/* GNU time 1.9 (resuse.c, time.c): milliseconds for %P, 1/100 s for %U %S %E */
	long long el_us = elapsed_seconds > 0 ? llround(elapsed_seconds * 1e6) : 0;
	long long el_sec = el_us / 1000000, el_usec = el_us % 1000000;
	unsigned long long r = (unsigned long long)(el_sec * 1000 + el_usec / 1000);
	unsigned long long v = (unsigned long long)ru->ru_utime.tv_sec * 1000 +
			       (unsigned long long)ru->ru_utime.tv_usec / 1000 +
			       (unsigned long long)ru->ru_stime.tv_sec * 1000 +
			       (unsigned long long)ru->ru_stime.tv_usec / 1000;
	unsigned long long us_r = (unsigned long long)el_usec;
	unsigned long long us_v = (unsigned long long)ru->ru_utime.tv_usec +
				  (unsigned long long)ru->ru_stime.tv_usec;
	unsigned long long ticks = v / 10;	/* MSEC_TO_TICKS at 100 ticks/s */
#define TIME_AVG(x) (ticks ? (unsigned long long)(x) / ticks : 0ULL)

	if (exit_status < 0)
		strbuf_addf(out, "Command terminated by signal %d\n", -exit_status);
	else if (exit_status)
		strbuf_addf(out, "Command exited with non-zero status %d\n", exit_status);
	strbuf_addf(out, "\tCommand being timed: \"%s\"\n", command ? command : "");
	strbuf_addf(out, "\tUser time (seconds): %ld.%02ld\n", (long)ru->ru_utime.tv_sec,
		    (long)(ru->ru_utime.tv_usec / 10000));
	strbuf_addf(out, "\tSystem time (seconds): %ld.%02ld\n", (long)ru->ru_stime.tv_sec,
		    (long)(ru->ru_stime.tv_usec / 10000));
	if (r > 0)
		strbuf_addf(out, "\tPercent of CPU this job got: %llu%%\n", v * 100 / r);
	else if (us_r > 0)
		strbuf_addf(out, "\tPercent of CPU this job got: %llu%%\n", us_v * 100 / us_r);
	else
		strbuf_addstr(out, "\tPercent of CPU this job got: ?%\n");
	if (el_sec >= 3600)
		strbuf_addf(out, "\tElapsed (wall clock) time (h:mm:ss or m:ss): %lld:%02lld:%02lld\n",
			    el_sec / 3600, (el_sec % 3600) / 60, el_sec % 60);
	else
		strbuf_addf(out, "\tElapsed (wall clock) time (h:mm:ss or m:ss): %lld:%02lld.%02lld\n",
			    el_sec / 60, el_sec % 60, el_usec / 10000);
	strbuf_addf(out, "\tAverage shared text size (kbytes): %llu\n", TIME_AVG(ru->ru_ixrss));
	strbuf_addf(out, "\tAverage unshared data size (kbytes): %llu\n",
		    TIME_AVG(ru->ru_idrss) + TIME_AVG(ru->ru_isrss));
	strbuf_addf(out, "\tAverage stack size (kbytes): %llu\n", TIME_AVG(ru->ru_isrss));
	strbuf_addf(out, "\tAverage total size (kbytes): %llu\n",
		    TIME_AVG(ru->ru_idrss) + TIME_AVG(ru->ru_isrss) + TIME_AVG(ru->ru_ixrss));
	strbuf_addf(out, "\tMaximum resident set size (kbytes): %ld\n", (long)ru->ru_maxrss);
	strbuf_addf(out, "\tAverage resident set size (kbytes): %llu\n", TIME_AVG(ru->ru_idrss));
	strbuf_addf(out, "\tMajor (requiring I/O) page faults: %ld\n", (long)ru->ru_majflt);
	strbuf_addf(out, "\tMinor (reclaiming a frame) page faults: %ld\n", (long)ru->ru_minflt);
	strbuf_addf(out, "\tVoluntary context switches: %ld\n", (long)ru->ru_nvcsw);
	strbuf_addf(out, "\tInvoluntary context switches: %ld\n", (long)ru->ru_nivcsw);
	strbuf_addf(out, "\tSwaps: %ld\n", (long)ru->ru_nswap);
	strbuf_addf(out, "\tFile system inputs: %ld\n", (long)ru->ru_inblock);
	strbuf_addf(out, "\tFile system outputs: %ld\n", (long)ru->ru_oublock);
	strbuf_addf(out, "\tSocket messages sent: %ld\n", (long)ru->ru_msgsnd);
	strbuf_addf(out, "\tSocket messages received: %ld\n", (long)ru->ru_msgrcv);
	strbuf_addf(out, "\tSignals delivered: %ld\n", (long)ru->ru_nsignals);
	strbuf_addf(out, "\tPage size (bytes): %ld\n", sysconf(_SC_PAGESIZE));
	strbuf_addf(out, "\tExit status: %d\n", exit_status > 0 ? exit_status : 0);
#undef TIME_AVG
}

/* "User time (seconds)" -> "user_time" (lkp-tests' rule) */
static void time_key(struct strbuf *key, const char *s, size_t len)
{
	const char *end = s + len;
	bool blank = false;

	strbuf_reset(key);
	while (s < end && isspace((unsigned char)*s))
		s++;
	while (s < end) {
		/* " (...)" with something inside goes, the blank before it too */
		if (*s == ' ' && s + 1 < end && s[1] == '(') {
			const char *close = memchr(s + 2, ')', (size_t)(end - s - 2));
			if (close && close > s + 2) {
				s = close + 1;
				continue;
			}
		}
		if (isspace((unsigned char)*s)) {
			blank = true;
			s++;
			continue;
		}
		if (blank) {
			strbuf_addch(key, '_');
			blank = false;
		}
		strbuf_addch(key, tolower((unsigned char)*s));
		s++;
	}
	if (blank)
		strbuf_addch(key, '_');
}

/* "1:02:03" or "0:00.61" -> seconds, folding the fields as lkp-tests does */
static int time_elapsed(const char *v, double *out)
{
	double t = 0;
	int fields = 0;
	const char *p = v;

	for (;;) {
		const char *start = p;
		while (isdigit((unsigned char)*p))
			p++;
		if (p == start)
			return -1;
		if (*p == '.') {
			const char *frac = ++p;
			while (isdigit((unsigned char)*p))
				p++;
			if (p == frac)
				return -1;
		}
		t = t * 60 + strtod(start, NULL);
		if (++fields > 3)
			return -1;
		if (!*p)
			break;
		if (*p++ != ':')
			return -1;
	}
	*out = t;
	return 0;
}

static int time_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	size_t lineno = 0;
	bool in_record = false;	/* a record started and its Exit status is still to come */
	int ret = -1;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "time: the output has NUL bytes; not GNU time's text");
		return -1;
	}
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *line = p, *sep, *vend;

		lineno++;
		if (!nl) {
			strbuf_setf(err, "time: line %zu has no end (truncated output)", lineno);
			goto out;
		}
		p = nl + 1;
		/* any text opens a record that only its "Exit status" line closes */
		for (const char *c = line; c < nl; c++)
			if (!isspace((unsigned char)*c))
				in_record = true;
		if (memmem(line, (size_t)(nl - line), "Command being timed: ", 21))
			continue;
		sep = memmem(line, (size_t)(nl - line), ": ", 2);
		if (!sep)
			continue;	/* "Command exited with non-zero status 2" */
		vend = memmem(sep + 2, (size_t)(nl - sep - 2), ": ", 2);
		if (!vend)
			vend = nl;
		time_key(&key, line, (size_t)(sep - line));
		strbuf_reset(&val);
		strbuf_add(&val, sep + 2, (size_t)(vend - sep - 2));
		strbuf_rtrim(&val);
		if (!strcmp(key.buf, "elapsed_time")) {
			double s;
			if (time_elapsed(val.buf, &s)) {
				strbuf_setf(err, "time: line %zu: elapsed time '%s' is not h:mm:ss or m:ss.cc",
					    lineno, val.buf);
				goto out;
			}
			if (stats_add(out, key.buf, s, true, err))
				goto out;
			continue;
		}
		if (!strcmp(key.buf, "percent_of_cpu_this_job_got")) {
			if (val.len && val.buf[val.len - 1] == '%')
				strbuf_setlen(&val, val.len - 1);
			if (!strcmp(val.buf, "?"))
				strbuf_setf(&val, "0");
		}
		if (stats_add_text(out, key.buf, val.buf, err)) {
			strbuf_setf(err, "time: line %zu: %s: '%s' is not a number", lineno, key.buf, val.buf);
			goto out;
		}
		if (!strcmp(key.buf, "exit_status"))
			in_record = false;
	}
	if (in_record) {
		strbuf_setf(err, "time: the output ends before its 'Exit status' line (truncated)");
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&key);
	strbuf_release(&val);
	return ret;
}

static const char *const time_debs[] = { "time", NULL };

const struct program program_time = {
	.version = PROGRAM_VERSION,
	.name = "time",
	.kind = PROGRAM_STATS,
	.summary = "rusage of the test, as GNU time -v prints it",
	.parse = time_parse,
	.debs = time_debs,
};

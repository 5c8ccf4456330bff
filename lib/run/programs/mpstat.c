/*
 * mpstat: sysstat's mpstat as a monitor, and its parser, after lkp-tests'
 * programs/mpstat/{monitor,parse}.
 *
 * The monitor runs `mpstat [-n | -N nodes | -P cpus] -o JSON <interval>
 * [count]` (interval 1 s by default) with LC_ALL=C and S_TIME_FORMAT=ISO,
 * after `delay` seconds if set, until the test ends, then stops it with
 * SIGINT as lkp-tests does (mpstat closes its JSON then). Needs the
 * sysstat package; without it the monitor is unavailable.
 *
 * The parser reads the JSON (mending an end cut as lkp-tests does: a
 * trailing ",", a last "}" without the closing brackets, or a cut inside
 * an entry, which is dropped) and prints, after each statistics entry,
 * every figure seen so far: `time` (the entry's date and time as UTC),
 * `cpu.<cpu>.<field>%` of the "cpu-load" rows (mpstat.cpu.all.sys%),
 * `node.<node>.<field>%` of "node-load", `<array>.<first value>.<field>`
 * of any other array; then, once, `max_utilization_pct` (100 - idle -
 * iowait at its highest over all rows, times the number of rows: the
 * series is zero-padded to the run's length and its mean is the figure)
 * and `max_utilization.seconds` alike.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../util/json.h"
#include "programs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const mpstat_options[] = {
	"delay", "interval", "count", "nodes", "cpus", "per_node", NULL,
};

static const char *const mpstat_debs[] = { "sysstat", NULL };

/* The text mended as lkp-tests mends a cut mpstat file; NULL when it cannot be. */
static struct node *mpstat_json(const char *text, size_t len, struct strbuf *err)
{
	static const char close[] = "\n\t\t\t]\n\t\t}\n\t]\n}}\n";
	struct strbuf fixed = STRBUF_INIT, e = STRBUF_INIT;
	struct node *root = json_parse(text, len, "mpstat", err);

	if (root)
		return root;
	strbuf_add(&fixed, text, len);
	if (len >= 2 && !memcmp(text + len - 2, ",\n", 2)) {
		strbuf_setlen(&fixed, len - 2);
		strbuf_addstr(&fixed, close);
	} else if (len >= 2 && !memcmp(text + len - 2, "\t}", 2)) {
		strbuf_addstr(&fixed, close);
	}
	root = json_parse(fixed.buf, fixed.len, "mpstat", &e);
	if (!root) {
		/* cut inside an entry: keep what ends at the last whole one */
		const char *last = NULL;
		for (const char *p = fixed.buf; (p = strstr(p, "\n\t\t\t\t}")); p++)
			last = p;
		if (last) {
			strbuf_setlen(&fixed, (size_t)(last - fixed.buf) + 6);
			strbuf_addstr(&fixed, close);
			root = json_parse(fixed.buf, fixed.len, "mpstat", &e);
		}
	}
	if (root)
		strbuf_reset(err);
	strbuf_release(&fixed);
	strbuf_release(&e);
	return root;
}

struct mpstat_state {
	struct node *results; /* what lkp-tests' parser prints after each entry, in order */
	double *idle, *iowait;
	size_t nidle, niowait, aidle, aiowait;
};

static void mpstat_set(struct mpstat_state *st, const char *key, const struct node *v)
{
	node_set(st->results, key, node_dup(v));
}

static void mpstat_array(struct mpstat_state *st, const char *prefix, const struct node *arr)
{
	struct strbuf key = STRBUF_INIT;

	for (size_t i = 0; i < arr->n; i++) {
		const struct node *item = arr->vals[i];
		if (item->type != NODE_MAP || !item->n)
			continue;
		const char *v0 = node_str(item->vals[0]) ? node_str(item->vals[0]) : "";
		for (size_t k = 1; k < item->n; k++) {
			const char *f = item->keys[k];
			double d;
			if (!strcmp(prefix, "node-load"))
				strbuf_setf(&key, "node.%s.%s%%", v0, f);
			else if (!strcmp(prefix, "cpu-load"))
				strbuf_setf(&key, "cpu.%s.%s%%", v0, f);
			else
				strbuf_setf(&key, "%s.%s.%s", prefix, v0, f);
			if (!strcmp(f, "idle") && json_number(item->vals[k], &d)) {
				ALLOC_GROW(st->idle, st->nidle + 1, st->aidle);
				st->idle[st->nidle++] = d;
			} else if (!strcmp(f, "iowait") && json_number(item->vals[k], &d)) {
				ALLOC_GROW(st->iowait, st->niowait + 1, st->aiowait);
				st->iowait[st->niowait++] = d;
			}
			mpstat_set(st, key.buf, item->vals[k]);
		}
	}
	strbuf_release(&key);
}

/* "2026-12-06" + "22:07:47" as UTC -> epoch seconds; -1 if either is not a date or time. */
static long long mpstat_time(const char *date, const char *hms)
{
	struct tm tm = { 0 };
	char rest;

	if (!date || !hms || sscanf(date, "%d-%d-%d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &rest) != 3 ||
	    sscanf(hms, "%d:%d:%d%c", &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &rest) != 3)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

static int mpstat_entry(struct mpstat_state *st, const struct node *item, const char *date, struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT;
	int ret = -1;

	for (size_t i = 0; item->type == NODE_MAP && i < item->n; i++) {
		const char *k = item->keys[i];
		const struct node *v = item->vals[i];
		if (v->type == NODE_SEQ) {
			mpstat_array(st, k, v);
		} else if (v->type == NODE_MAP) {
			for (size_t j = 0; j < v->n; j++) {
				const struct node *w = v->vals[j];
				if (w->type == NODE_SEQ) {
					mpstat_array(st, v->keys[j], w);
				} else if (w->type == NODE_MAP) {
					for (size_t h = 0; h < w->n; h++) {
						strbuf_setf(&key, "%s.%s", v->keys[j], w->keys[h]);
						mpstat_set(st, key.buf, w->vals[h]);
					}
				} else {
					strbuf_setf(&key, "%s.%s", k, v->keys[j]);
					mpstat_set(st, key.buf, w);
				}
			}
		} else if (!strcmp(k, "timestamp")) {
			long long t = mpstat_time(date, node_str(v));
			if (t < 0) {
				strbuf_setf(err, "mpstat: timestamp '%s' of %s is not HH:MM:SS (S_TIME_FORMAT=ISO)",
					    node_str(v) ? node_str(v) : "?", date ? date : "no date");
				goto out;
			}
			strbuf_setf(&key, "%lld", t);
			struct node *tn = node_new_scalar(key.buf);
			node_set(st->results, "time", tn);
		}
	}
	ret = 0;
out:
	strbuf_release(&key);
	return ret;
}

static int mpstat_print(const struct mpstat_state *st, struct stats_samples *out, struct strbuf *err)
{
	for (size_t i = 0; i < st->results->n; i++) {
		const char *v = node_str(st->results->vals[i]);
		if (!*st->results->keys[i])
			continue;
		if (!v || stats_add_text(out, st->results->keys[i], v, err)) {
			strbuf_setf(err, "mpstat: %s: '%s' is not a number", st->results->keys[i], v ? v : "?");
			return -1;
		}
	}
	return 0;
}

/* lkp-tests' display_max_util: the highest 100 - idle - iowait, times the number of rows. */
static int mpstat_max_util(const struct mpstat_state *st, struct stats_samples *out, struct strbuf *err)
{
	size_t n = st->nidle, at = 0;
	double best = 0;

	if (!n)
		return 0;
	if (st->niowait < n) {
		strbuf_setf(err, "mpstat: %zu rows with idle, %zu with iowait", n, st->niowait);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		double u = 100 - st->idle[i] - st->iowait[i];
		if (!i || u > best) {
			best = u;
			at = i;
		}
	}
	if (stats_add(out, "max_utilization_pct", best * (double)n, true, err) ||
	    stats_add(out, "max_utilization.seconds", (double)((at + 1) * n), false, err))
		return -1;
	return 0;
}

static int mpstat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct mpstat_state st = { .results = node_new(NODE_MAP) };
	struct node *root = NULL;
	int ret = -1;

	if (!len) {
		ret = 0; /* the monitor was unavailable: nothing written */
		goto out;
	}
	if (len >= 6 && !strncmp(text, "Linux ", 6)) {
		strbuf_setf(err, "mpstat: text output, not JSON: the monitor runs mpstat -o JSON (sysstat 11.7+)");
		goto out;
	}
	root = mpstat_json(text, len, err);
	if (!root)
		goto out;
	const struct node *host = json_path(root, "sysstat", "hosts", "0", NULL);
	const struct node *stats = json_path(host, "statistics", NULL);
	if (!stats || stats->type != NODE_SEQ) {
		strbuf_setf(err, "mpstat: no sysstat.hosts[0].statistics array");
		goto out;
	}
	const char *date = node_str(json_path(host, "date", NULL));
	for (size_t i = 0; i < stats->n; i++)
		if (mpstat_entry(&st, stats->vals[i], date, err) || mpstat_print(&st, out, err))
			goto out;
	if (mpstat_max_util(&st, out, err))
		goto out;
	ret = 0;
out:
	node_free(root);
	node_free(st.results);
	free(st.idle);
	free(st.iowait);
	return ret;
}

/* The mpstat command line of the job's options (strings kept in argv_buf). */
static size_t mpstat_argv(const struct run *r, const struct program *p, const char *interval, char **argv)
{
	const char *per_node = run_param(r, p, "per_node"), *nodes = run_param(r, p, "nodes");
	const char *cpus = run_param(r, p, "cpus"), *count = run_param(r, p, "count");
	size_t n = 0;

	argv[n++] = "mpstat";
	if (per_node && (!strcmp(per_node, "1") || !strcmp(per_node, "true") || !strcmp(per_node, "yes") ||
			 !strcmp(per_node, "on"))) {
		argv[n++] = nodes ? "-N" : "-n";
		if (nodes)
			argv[n++] = (char *)nodes;
	} else if (cpus) {
		argv[n++] = "-P";
		argv[n++] = (char *)cpus;
	}
	argv[n++] = "-o";
	argv[n++] = "JSON";
	argv[n++] = (char *)interval;
	if (count)
		argv[n++] = (char *)count;
	argv[n] = NULL;
	return n;
}

static int mpstat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf err = STRBUF_INIT;
	const char *delay = run_param(r, p, "delay");
	double interval;
	char num[32], *argv[12];
	int rc;

	monitor_catch_stop();
	if (monitor_interval(r, p, 1, &interval, &err) || interval < 1 || interval != floor(interval)) {
		fprintf(stderr, "mpstat: %s\n", err.len ? err.buf : "interval: mpstat takes whole seconds");
		strbuf_release(&err);
		return 2;
	}
	if (delay && monitor_sleep(atof(delay)))
		return 0; /* the test ended first */
	snprintf(num, sizeof(num), "%.0f", interval);
	mpstat_argv(r, p, num, argv);
	rc = monitor_exec(argv, out_fd, MONITOR_EXEC_SYSSTAT | MONITOR_EXEC_STOP_SIGINT, &err);
	if (rc < 0) {
		bool missing = errno == ENOENT;
		fprintf(stderr, "mpstat: %s%s\n", err.buf, missing ? " (Debian package sysstat)" : "");
		rc = missing ? MONITOR_UNAVAILABLE : 1;
	}
	strbuf_release(&err);
	return rc;
}

const struct program program_mpstat = {
	.version = PROGRAM_VERSION,
	.name = "mpstat",
	.kind = PROGRAM_MONITOR,
	.summary = "mpstat -o JSON every second: CPU utilisation (cpu.all.sys% ...), needs sysstat",
	.options = mpstat_options,
	.monitor = mpstat_monitor,
	.parse = mpstat_parse,
	.debs = mpstat_debs,
};

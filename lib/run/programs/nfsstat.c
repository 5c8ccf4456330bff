/*
 * nfsstat: nfs-utils' nfsstat as a monitor, and its parser, after
 * lkp-tests' programs/nfsstat/{monitor,parse}.
 *
 * The monitor writes "time: <s>.<ns>" and `nfsstat -v` every `interval`
 * seconds (default 1) and once more when stopped. Like lkp-tests it runs
 * only for a job whose file system is NFS (`fs: nfsv4` ...); otherwise,
 * or without nfsstat (Debian package nfs-common), it is unavailable.
 *
 * The parser follows lkp-tests' awk: a line ending in ':' names the
 * section ("Client nfs v4:" -> Client.nfs.v4, "Server rpc stats:" ->
 * Server.rpc); then lines alternate between names and values, each value
 * giving `<section>.<name>`, and a value "12%" `<section>.<name>.percent`
 * (a values line twice as long as its names line holds a count and a
 * percentage per name); the second "ncachedir" of the server's file
 * handle cache is skipped.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const nfsstat_options[] = {
	"interval",
	NULL,
};

static const char *const nfsstat_debs[] = { "nfs-common", NULL };

struct nfsstat_state {
	struct strbuf prefix, key;
	char **names;
	size_t nnames;
	bool have_names;
};

static void nfsstat_section(struct nfsstat_state *st, char **w, size_t n)
{
	size_t last = n - 1;

	strbuf_reset(&st->prefix);
	if (!strcmp(w[last], "stats:") && n > 1)
		last--; /* "Server rpc stats:" -> Server.rpc */
	else
		w[last][strlen(w[last]) - 1] = '\0';
	for (size_t i = 0; i <= last; i++)
		strbuf_addf(&st->prefix, "%s%s", i ? "." : "", w[i]);
}

static int nfsstat_values(struct nfsstat_state *st, char **w, size_t n, size_t lineno, struct stats_samples *out,
			  struct strbuf *err)
{
	double is_dbl = (double)n / (double)st->nnames - 1;

	for (size_t i = 1; i <= n; i++) {
		size_t k = (size_t)(((double)i + is_dbl) / (1 + is_dbl));
		if (k < 1 || k > st->nnames) {
			strbuf_setf(err, "nfsstat: line %zu: %zu values for %zu names", lineno, n, st->nnames);
			return -1;
		}
		if (k == 4 && !strcmp(st->names[3], "ncachedir"))
			continue;
		char *v = w[i - 1];
		size_t vlen = strlen(v);
		bool pct = vlen && v[vlen - 1] == '%';
		if (pct)
			v[vlen - 1] = '\0';
		strbuf_setf(&st->key, "%s.%s%s", st->prefix.buf, st->names[k - 1], pct ? ".percent" : "");
		if (stats_add_text(out, st->key.buf, v, err)) {
			strbuf_setf(err, "nfsstat: line %zu: %s: '%s' is not a number", lineno, st->key.buf, v);
			return -1;
		}
	}
	return 0;
}

static void nfsstat_free_names(struct nfsstat_state *st)
{
	for (size_t i = 0; i < st->nnames; i++)
		free(st->names[i]);
	free(st->names);
	st->names = NULL;
	st->nnames = 0;
}

/* One line of words (a monitor_line_fn; ctx: the state): a section's title, its names, or their values. */
static int nfsstat_line(void *ctx, char **w, size_t n, size_t lineno, struct stats_samples *out, struct strbuf *err)
{
	struct nfsstat_state *st = ctx;

	if (w[n - 1][strlen(w[n - 1]) - 1] == ':') {
		nfsstat_section(st, w, n);
	} else if (!st->have_names) {
		nfsstat_free_names(st);
		st->names = xcalloc(n, sizeof(*st->names));
		for (size_t i = 0; i < n; i++)
			st->names[i] = xstrdup(w[i]);
		st->nnames = n;
		st->have_names = true;
	} else {
		st->have_names = false;
		return nfsstat_values(st, w, n, lineno, out, err);
	}
	return 0;
}

static int nfsstat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct nfsstat_state st = { .prefix = STRBUF_INIT, .key = STRBUF_INIT };
	int ret = monitor_parse_lines(text, len, "nfsstat", "nfsstat's output", NULL, nfsstat_line, &st, out, err);

	nfsstat_free_names(&st);
	strbuf_release(&st.prefix);
	strbuf_release(&st.key);
	return ret;
}

static int nfsstat_snapshot(void *ctx, int out_fd, struct strbuf *err)
{
	char *argv[] = { "nfsstat", "-v", NULL };
	struct strbuf snap = STRBUF_INIT, text = STRBUF_INIT;
	struct timespec ts;
	int ret = -1;

	(void)ctx;
	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_addf(&snap, "time: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	if (monitor_capture(argv, &text, err) < 0)
		goto out;
	strbuf_add(&snap, text.buf, text.len);
	if (fsutil_write_all(out_fd, snap.buf, snap.len)) {
		strbuf_setf(err, "cannot write the snapshot: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&snap);
	strbuf_release(&text);
	return ret;
}

static int nfsstat_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf err = STRBUF_INIT, probe = STRBUF_INIT;
	char *argv[] = { "nfsstat", "-v", NULL };
	const char *fs = r->fs ? r->fs : run_param(r, p, "fs");
	double interval;

	monitor_catch_stop();
	if (monitor_interval(r, p, 1, &interval, &err)) {
		fprintf(stderr, "nfsstat: %s\n", err.buf);
		strbuf_release(&err);
		return 2;
	}
	if (!fs || !strstr(fs, "nfs")) {
		fprintf(stderr, "nfsstat: the job's file system is not NFS (lkp-tests runs it only for nfs)\n");
		return MONITOR_UNAVAILABLE;
	}
	if (monitor_capture(argv, &probe, &err) < 0) {
		fprintf(stderr, "nfsstat: %s (Debian package nfs-common)\n", err.buf);
		strbuf_release(&err);
		strbuf_release(&probe);
		return MONITOR_UNAVAILABLE;
	}
	strbuf_release(&err);
	strbuf_release(&probe);
	return monitor_snapshots_with(p->name, interval, nfsstat_snapshot, NULL, out_fd);
}

const struct program program_nfsstat = {
	.version = PROGRAM_VERSION,
	.name = "nfsstat",
	.kind = PROGRAM_MONITOR,
	.summary = "nfsstat -v every second for an NFS job: client and server RPC counts (needs nfs-common)",
	.options = nfsstat_options,
	.monitor = nfsstat_monitor,
	.parse = nfsstat_parse,
	.debs = nfsstat_debs,
};

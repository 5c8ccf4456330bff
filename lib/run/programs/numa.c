/*
 * numa-meminfo, numa-numastat, numa-vmstat: the per-node monitors and
 * their parsers, after lkp-tests' programs/numa-{meminfo,numastat,vmstat}.
 *
 * The monitor (one for the three) writes "time: <s>.<ns>", then for each
 * node of /proc/zoneinfo "node: <N>" and /sys/devices/system/node/node<N>/
 * <file> (vmstat: the first line of each counter), every `interval`
 * seconds (default 1) and once more when stopped. Like lkp-tests it runs
 * only where there is a node 1: on a machine of one node the per-node
 * figures are the machine's (meminfo, proc-vmstat) and it is recorded as
 * unavailable, saying so.
 *
 * The parsers: numa-meminfo's lines "Node 0 MemTotal: 16310376 kB" give
 * `node0.MemTotal` (numa-meminfo.node0.AnonPages has a `.max` too, as
 * lkp-tests' add-max-latency says); numastat's and vmstat's "numa_hit 12"
 * under "node: 0" give `node0.numa_hit` (numa-numastat.*, and
 * numa-vmstat.node<N>.{numa_,pg,nr_dirtied,...} are reduced last minus
 * first, the rest to their mean, as lkp-tests' event-counter lists say).
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../../util/sset.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const numa_options[] = {
	"interval",
	NULL,
};

static int numa_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The nodes /proc/zoneinfo names ("Node 0, zone   Normal"), as text sorted (lkp-tests: sort | uniq). */
static size_t numa_nodes(char ***out)
{
	struct strbuf zi = STRBUF_INIT, n = STRBUF_INIT;
	struct sset seen = { 0 };
	size_t count = 0, alloc = 0;

	if (strbuf_read_file(&zi, "/proc/zoneinfo") == 0) {
		for (const char *l = zi.buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			if (strncmp(l, "Node ", 5))
				continue;
			strbuf_reset(&n);
			strbuf_add(&n, l + 5, strspn(l + 5, "0123456789"));
			if (n.len && sset_add(&seen, n.buf)) {
				ALLOC_GROW(*out, count + 1, alloc);
				(*out)[count++] = xstrdup(n.buf);
			}
		}
	}
	sset_release(&seen);
	strbuf_release(&zi);
	strbuf_release(&n);
	qsort(*out, count, sizeof(**out), numa_cmp);
	return count;
}

struct numa_snap {
	const char *file; /* meminfo, numastat, vmstat */
	char **nodes;
	size_t n;
};

static int numa_snapshot(void *ctx, int out_fd, struct strbuf *err)
{
	const struct numa_snap *s = ctx;
	struct strbuf snap = STRBUF_INIT, content = STRBUF_INIT, path = STRBUF_INIT;
	struct timespec ts;
	int ret = -1;

	clock_gettime(CLOCK_REALTIME, &ts);
	strbuf_addf(&snap, "time: %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	for (size_t i = 0; i < s->n; i++) {
		strbuf_setf(&path, "/sys/devices/system/node/node%s/%s", s->nodes[i], s->file);
		strbuf_reset(&content);
		if (strbuf_read_file(&content, path.buf)) {
			strbuf_setf(err, "cannot read '%s': %s", path.buf, strerror(errno));
			goto out;
		}
		strbuf_addf(&snap, "node: %s\n", s->nodes[i]);
		if (!strcmp(s->file, "vmstat"))
			monitor_add_dedup(&snap, content.buf);
		else
			strbuf_add(&snap, content.buf, content.len);
		if (snap.len && snap.buf[snap.len - 1] != '\n')
			strbuf_addch(&snap, '\n');
	}
	if (fsutil_write_all(out_fd, snap.buf, snap.len)) {
		strbuf_setf(err, "cannot write the snapshot: %s", strerror(errno));
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&snap);
	strbuf_release(&content);
	strbuf_release(&path);
	return ret;
}

static int numa_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf err = STRBUF_INIT, node1 = STRBUF_INIT;
	struct numa_snap s = { .file = p->name + 5 };
	double interval;
	int ret;

	monitor_catch_stop();
	if (monitor_interval(r, p, 1, &interval, &err)) {
		fprintf(stderr, "%s: %s\n", p->name, err.buf);
		strbuf_release(&err);
		return 2;
	}
	strbuf_release(&err);
	strbuf_addf(&node1, "/sys/devices/system/node/node1/%s", s.file);
	if (access(node1.buf, R_OK)) {
		fprintf(stderr, "%s: no NUMA node 1 here (%s: %s): one node, whose figures are the machine's\n",
			p->name, node1.buf, strerror(errno));
		strbuf_release(&node1);
		return MONITOR_UNAVAILABLE;
	}
	strbuf_release(&node1);
	s.n = numa_nodes(&s.nodes);
	ret = monitor_snapshots_with(p->name, interval, numa_snapshot, &s, out_fd);
	for (size_t i = 0; i < s.n; i++)
		free(s.nodes[i]);
	free(s.nodes);
	return ret;
}

/* "Node 0 MemTotal: 16310376 kB" -> node0.MemTotal (lkp-tests' awk: tolower($1) $2 "." $3, $4) */
static int numa_meminfo_line(char **w, size_t n, size_t lineno, struct strbuf *key, struct stats_samples *out,
			     struct strbuf *err)
{
	size_t klen = n >= 3 ? strlen(w[2]) : 0;

	if (n < 4 || n > 5 || strcmp(w[0], "Node") || klen < 2 || w[2][klen - 1] != ':') {
		strbuf_setf(err, "numa-meminfo: line %zu: '%s' is not a 'Node N Field: value [kB]' line", lineno, w[0]);
		return -1;
	}
	strbuf_setf(key, "node%s.%.*s", w[1], (int)(klen - 1), w[2]);
	if (stats_add_text(out, key->buf, w[3], err)) {
		strbuf_setf(err, "numa-meminfo: line %zu: %s: '%s' is not a number", lineno, key->buf, w[3]);
		return -1;
	}
	return 0;
}

/* "numa_hit 12" under "node: 0" -> node0.numa_hit (lkp-tests' numa-numastat parse, numa-vmstat's too) */
static int numa_counter_line(const char *name, char **w, size_t n, size_t lineno, const char *node, struct strbuf *key,
			     struct stats_samples *out, struct strbuf *err)
{
	if (n != 2 || !*node) {
		strbuf_setf(err, "%s: line %zu: '%s' is not a 'counter value' line after a 'node: N' line", name,
			    lineno, w[0]);
		return -1;
	}
	strbuf_setf(key, "node%s.%s", node, w[0]);
	if (stats_add_text(out, key->buf, w[1], err)) {
		strbuf_setf(err, "%s: line %zu: %s: '%s' is not a number", name, lineno, key->buf, w[1]);
		return -1;
	}
	return 0;
}

struct numa_parse {
	const char *name;
	bool meminfo;
	struct strbuf key, node;
};

/* One line of words (a monitor_line_fn; ctx: struct numa_parse): "node: N" or a node's counters. */
static int numa_line(void *ctx, char **w, size_t n, size_t lineno, struct stats_samples *out, struct strbuf *err)
{
	struct numa_parse *np = ctx;

	if (!strcmp(w[0], "node:")) {
		if (n != 2 || strspn(w[1], "0123456789") != strlen(w[1])) {
			strbuf_setf(err, "%s: line %zu: a 'node:' line without a node number", np->name, lineno);
			return -1;
		}
		strbuf_reset(&np->node);
		strbuf_addstr(&np->node, w[1]);
		return 0;
	}
	return np->meminfo ? numa_meminfo_line(w, n, lineno, &np->key, out, err)
			   : numa_counter_line(np->name, w, n, lineno, np->node.buf, &np->key, out, err);
}

static int numa_parse_as(const char *name, const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct numa_parse np = { name, !strcmp(name, "numa-meminfo"), STRBUF_INIT, STRBUF_INIT };
	int ret = monitor_parse_lines(text, len, name, "a monitor's text", NULL, numa_line, &np, out, err);

	strbuf_release(&np.key);
	strbuf_release(&np.node);
	return ret;
}

static int numa_meminfo_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	return numa_parse_as("numa-meminfo", text, len, out, err);
}

static int numa_numastat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	return numa_parse_as("numa-numastat", text, len, out, err);
}

static int numa_vmstat_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	return numa_parse_as("numa-vmstat", text, len, out, err);
}

const struct program program_numa_meminfo = {
	.version = PROGRAM_VERSION,
	.name = "numa-meminfo",
	.kind = PROGRAM_MONITOR,
	.summary = "each NUMA node's meminfo every second (needs a node 1)",
	.options = numa_options,
	.monitor = numa_monitor,
	.parse = numa_meminfo_parse,
};

const struct program program_numa_numastat = {
	.version = PROGRAM_VERSION,
	.name = "numa-numastat",
	.kind = PROGRAM_MONITOR,
	.summary = "each NUMA node's numastat (numa_hit, numa_miss...) every second (needs a node 1)",
	.options = numa_options,
	.monitor = numa_monitor,
	.parse = numa_numastat_parse,
};

const struct program program_numa_vmstat = {
	.version = PROGRAM_VERSION,
	.name = "numa-vmstat",
	.kind = PROGRAM_MONITOR,
	.summary = "each NUMA node's vmstat counters every second (needs a node 1)",
	.options = numa_options,
	.monitor = numa_monitor,
	.parse = numa_vmstat_parse,
};

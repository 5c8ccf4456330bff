/*
 * compare_metric: what a metric is to a comparison — a failure stat, a
 * test's own figure, a perf metric (lkp-tests' 1 % rule); which way is
 * better and the floor of a change worth reporting. The rest of compare calls these; they call
 * nothing of it (compare.c the rows, compare_lkp.c lkp-tests' rules).
 */
#include "compare_int.h"
#include "../util/conf.h"
#include "../run/program.h"
#include "../stats/lkpetc.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* lkp-tests' function_stat?: its etc/failure and etc/pass patterns, counted per run */
bool compare_is_failure(const char *m)
{
	if (strstr(m, ".time.") || strstr(m, ".timestamp:") || strstr(m, ".bootstage:"))
		return false;
	return lkpetc_failure(m) || lkpetc_pass(m);
}

/* The part before the first dot: the program that made the metric. */
size_t compare_metric_base_len(const char *m)
{
	const char *dot = strchr(m, '.');
	return dot ? (size_t)(dot - m) : strlen(m);
}

bool compare_is_test_metric(const char *m)
{
	const struct program *p = program_of_metric(m);
	return p && p->kind == PROGRAM_TEST;
}

/*
 * lkp-tests' perf_metric?: etc/perf-metrics-prefixes and -patterns, and
 * the prefix of every test program (its own figures, where 1-5 % is real).
 */
bool compare_is_perf_metric(const char *m)
{
	return lkpetc_perf_metric(m) || compare_is_test_metric(m);
}

/* lkp-tests' index files first, then each program's table (program.h): its own rows, then those all share. */
int compare_direction(const char *metric)
{
	int d = lkpetc_direction(metric);

	return d ? d : program_metric_direction(metric);
}

int compare_direction_of(const struct compare_floors *f, const char *metric)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].direction && !fnmatch(f->v[i].glob, metric, 0))
			return f->v[i].direction;
	return compare_direction(metric);
}

int compare_floors_add(struct compare_floors *f, const char *spec, struct strbuf *err)
{
	const char *eq = spec ? strrchr(spec, '=') : NULL;
	double pct;

	if (!eq || eq == spec) {
		strbuf_setf(err,
			    "'%s': a floor is METRIC=PERCENT, e.g. command.throughput=2%% (a glob may stand for the "
			    "metric)",
			    spec ? spec : "");
		return -1;
	}
	if (conf_percent(eq + 1, &pct)) {
		strbuf_setf(err, "'%s': '%s' is not a percentage above 0; write e.g. 2%% or 0.5", spec, eq + 1);
		return -1;
	}
	f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	f->v[f->n++] = (struct compare_floor){ xstrndup(spec, (size_t)(eq - spec)), pct / 100, 0 };
	return 0;
}

int compare_floors_add_map(struct compare_floors *f, const struct node *map, const char *where, struct strbuf *err)
{
	if (!map)
		return 0;
	if (map->type != NODE_MAP) {
		strbuf_setf(err, "%s: must be a map of metric (or glob) -> percent, e.g. command.throughput: 2%%",
			    where);
		return -1;
	}
	for (size_t i = 0; i < map->n; i++) {
		const char *v = node_str(map->vals[i]);
		if (map->vals[i]->comment)
			continue;
		char *spec = xasprintf("%s=%s", map->keys[i], v ? v : "");
		int rc = v ? compare_floors_add(f, spec, err) : -1;
		free(spec);
		if (rc) {
			strbuf_setf(err, "%s.%s: '%s' is not a percentage; write e.g. 2%% or 0.5", where, map->keys[i],
				    v ? v : "");
			return -1;
		}
	}
	return 0;
}

/* metric_direction: GLOB -> higher | lower (or +1 | -1) */
static int add_directions(struct compare_floors *f, const struct node *map, struct strbuf *err)
{
	if (!map)
		return 0;
	if (map->type != NODE_MAP) {
		strbuf_setf(err,
			    "metric_direction: must be a map of metric (or glob) -> higher or lower, e.g. "
			    "command.latency_ns: lower");
		return -1;
	}
	for (size_t i = 0; i < map->n; i++) {
		const char *v = node_str(map->vals[i]);
		if (map->vals[i]->comment)
			continue;
		int d = !v							      ? 0
			: !strcmp(v, "higher") || !strcmp(v, "+1") || !strcmp(v, "1") ? +1
			: !strcmp(v, "lower") || !strcmp(v, "-1")		      ? -1
										      : 0;
		if (!d) {
			strbuf_setf(err, "metric_direction.%s: '%s' is not higher or lower (which way is better)",
				    map->keys[i], v ? v : "");
			return -1;
		}
		f->v = xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
		f->v[f->n++] = (struct compare_floor){ xstrdup(map->keys[i]), 0, d };
	}
	return 0;
}

int compare_floors_add_job(struct compare_floors *f, const struct node *job, struct strbuf *err)
{
	if (!job || job->type != NODE_MAP)
		return 0;
	if (compare_floors_add_map(f, node_get(job, "change_floor"), "change_floor", err))
		return -1;
	return add_directions(f, node_get(job, "metric_direction"), err);
}

void compare_floors_release(struct compare_floors *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].glob);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

void compare_floors_truncate(struct compare_floors *f, size_t n)
{
	while (f->n > n)
		free(f->v[--f->n].glob);
}

double compare_floor_of(const struct compare_floors *f, const char *metric)
{
	for (size_t i = 0; f && i < f->n; i++)
		if (f->v[i].floor > 0 && !fnmatch(f->v[i].glob, metric, 0))
			return f->v[i].floor;
	/* lkp-tests' thresholds: 1 % for perf metrics (the test's own KPIs among them), 5 % for the rest */
	return compare_is_perf_metric(metric) ? 0.01 : 0.05;
}

struct decide_metric compare_metric_spec(const struct compare_floors *f, const char *metric)
{
	return (struct decide_metric){ compare_direction_of(f, metric), compare_floor_of(f, metric) };
}

/*
 * fio_parse: fio's --output-format=json output -> fio.* samples, after
 * lkp-tests' programs/fio/parse.
 *
 * From jobs[0] (with group_reporting, the aggregate of all jobs), for
 * read and then write: <op>_bw_MBps (bw KiB/s / 1024), <op>_iops,
 * <op>_clat_mean_ns, <op>_clat_stddev, <op>_clat_90%_ns, _95%_ns, _99%_ns
 * (clat_ns.percentile, or clat for fio 2), <op>_slat_mean_us and
 * <op>_slat_stddev (from slat_ns, named _us as lkp-tests names them); then
 * latency_<k>us% and latency_<k>ms% for fio's latency_us / latency_ms
 * buckets, and workload = read + write total_ios. Numbers keep their JSON
 * text, so integers stay integers. Lines before the first line starting
 * with '{' (fio's notes and warnings) are skipped; truncated JSON or a
 * missing field is an error.
 *
 * Several instances (nr_instances: fio.output.1, fio.output.2 ...), as
 * lkp-tests combines them: for each key of the first instance, the sum of
 * the instances' values for workload, *_iops and *_bw_MBps, the mean for
 * the rest (latencies, percentages); then every instance's own values as
 * <key>.instance<N>.
 */
#include "../../util/json.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <math.h>
#include <string.h>

/* A number of the JSON (not a string) under obj.key, or NULL with err set. */
static const struct node *fio_num(const struct node *obj, const char *what, const char *key,
				  struct strbuf *err)
{
	const struct node *n = node_get(obj, key);
	double v;

	if (!n) {
		strbuf_setf(err, "fio: %s has no '%s'", what, key);
		return NULL;
	}
	if (n->type != NODE_SCALAR || n->quoted || !json_number(n, &v)) {
		strbuf_setf(err, "fio: %s.%s is not a number", what, key);
		return NULL;
	}
	return n;
}

static int fio_add(struct stats_samples *out, const char *key, const struct node *n,
		   struct strbuf *err)
{
	if (!n)
		return -1;
	if (stats_add_text(out, key, n->str, err)) {
		strbuf_setf(err, "fio: %s: '%s' is not a number", key, n->str);
		return -1;
	}
	return 0;
}

static const struct node *fio_map(const struct node *obj, const char *what, const char *k1,
				  const char *k2, struct strbuf *err)
{
	const struct node *n = node_get(obj, k1);

	if (!n && k2)
		n = node_get(obj, k2);
	if (!n || n->type != NODE_MAP) {
		strbuf_setf(err, "fio: %s has no '%s' object", what, k2 ? k2 : k1);
		return NULL;
	}
	return n;
}

static int fio_op(struct stats_samples *out, const struct node *job, const char *op,
		  double *total_ios, struct strbuf *err)
{
	static const char *const pct[] = { "90.000000", "90", "95.000000", "95", "99.000000", "99" };
	struct strbuf key = STRBUF_INIT, what = STRBUF_INIT;
	const struct node *o, *clat, *slat, *n;
	double v;
	int ret = -1;

	strbuf_setf(&what, "jobs[0].%s", op);
	if (!(o = fio_map(job, "jobs[0]", op, NULL, err)))
		goto out;
	if (!(n = fio_num(o, what.buf, "bw", err)))
		goto out;
	json_number(n, &v);
	strbuf_setf(&key, "%s_bw_MBps", op);
	if (stats_add(out, key.buf, v / 1024, true, err))
		goto out;
	strbuf_setf(&key, "%s_iops", op);
	if (fio_add(out, key.buf, fio_num(o, what.buf, "iops", err), err))
		goto out;

	if (!(clat = fio_map(o, what.buf, "clat", "clat_ns", err)))
		goto out;
	strbuf_addstr(&what, ".clat_ns");
	strbuf_setf(&key, "%s_clat_mean_ns", op);
	if (fio_add(out, key.buf, fio_num(clat, what.buf, "mean", err), err))
		goto out;
	strbuf_setf(&key, "%s_clat_stddev", op);
	if (fio_add(out, key.buf, fio_num(clat, what.buf, "stddev", err), err))
		goto out;
	const struct node *perc = node_get(clat, "percentile");
	if (perc && perc->type == NODE_MAP) {
		/* in the JSON's order, as lkp-tests iterates it */
		for (size_t i = 0; i < perc->n; i++) {
			if (perc->vals[i]->comment)
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(pct); k += 2) {
				if (strcmp(perc->keys[i], pct[k]))
					continue;
				strbuf_setf(&key, "%s_clat_%s%%_ns", op, pct[k + 1]);
				if (fio_add(out, key.buf, fio_num(perc, "clat_ns.percentile", pct[k], err), err))
					goto out;
			}
		}
	}

	strbuf_setf(&what, "jobs[0].%s", op);
	if (!(slat = fio_map(o, what.buf, "slat", "slat_ns", err)))
		goto out;
	strbuf_addstr(&what, ".slat_ns");
	strbuf_setf(&key, "%s_slat_mean_us", op);
	if (fio_add(out, key.buf, fio_num(slat, what.buf, "mean", err), err))
		goto out;
	strbuf_setf(&key, "%s_slat_stddev", op);
	if (fio_add(out, key.buf, fio_num(slat, what.buf, "stddev", err), err))
		goto out;

	strbuf_setf(&what, "jobs[0].%s", op);
	if (!(n = fio_num(o, what.buf, "total_ios", err)))
		goto out;
	json_number(n, &v);
	*total_ios += trunc(v);
	ret = 0;
out:
	strbuf_release(&key);
	strbuf_release(&what);
	return ret;
}

static int fio_buckets(struct stats_samples *out, const struct node *job, const char *name,
		       const char *unit, struct strbuf *err)
{
	const struct node *b = node_get(job, name);
	struct strbuf key = STRBUF_INIT;
	int ret = -1;

	if (!b)
		return 0;
	if (b->type != NODE_MAP) {
		strbuf_setf(err, "fio: jobs[0].%s is not an object", name);
		return -1;
	}
	for (size_t i = 0; i < b->n; i++) {
		if (b->vals[i]->comment)
			continue;
		strbuf_setf(&key, "latency_%s%s%%", b->keys[i], unit);
		if (fio_add(out, key.buf, fio_num(b, name, b->keys[i], err), err))
			goto out;
	}
	ret = 0;
out:
	strbuf_release(&key);
	return ret;
}

int fio_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	const char *p = text, *end = text + len, *json = NULL;
	struct node *root;
	double total = 0;
	int ret = -1;

	/* fio's notes and warnings may come first: the JSON starts at a line beginning with '{' */
	while (p < end) {
		if (*p == '{') {
			json = p;
			break;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!json) {
		strbuf_setf(err, "fio: no JSON in the output (no line starts with '{'); did fio fail?");
		return -1;
	}
	root = json_parse(json, (size_t)(end - json), "fio.output", &e);
	if (!root) {
		strbuf_setf(err, "fio: bad or truncated JSON: %s", e.buf);
		strbuf_release(&e);
		return -1;
	}
	const struct node *job = json_path(root, "jobs", "0", NULL);
	if (!job || job->type != NODE_MAP) {
		strbuf_setf(err, "fio: the JSON has no jobs[0] object");
		goto out;
	}
	if (fio_op(out, job, "read", &total, err) || fio_op(out, job, "write", &total, err) ||
	    fio_buckets(out, job, "latency_us", "us", err) ||
	    fio_buckets(out, job, "latency_ms", "ms", err) ||
	    stats_add(out, "workload", total, false, err))
		goto out;
	ret = 0;
out:
	node_free(root);
	strbuf_release(&e);
	return ret;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

int fio_combine(const struct stats_samples *inst, const long *ids, size_t n, struct stats_samples *out,
		struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; !ret && n && i < inst[0].n; i++) {
		const char *k = inst[0].s[i].key;
		bool additive = !strcmp(k, "workload") || ends_with(k, "_iops") || ends_with(k, "_bw_MBps");
		bool is_float = !additive;
		double sum = 0;
		size_t m = 0;

		for (size_t j = 0; j < n; j++) {
			const struct stats_series *se = stats_find(&inst[j], k);

			if (!se || !se->n)
				continue;
			sum += se->v[se->n - 1];
			is_float |= se->is_float;
			m++;
		}
		ret = stats_add(out, k, additive ? sum : sum / (double)m, is_float, err);
	}
	for (size_t j = 0; !ret && j < n; j++)
		for (size_t i = 0; !ret && i < inst[j].n; i++) {
			const struct stats_series *se = &inst[j].s[i];

			strbuf_setf(&key, "%s.instance%ld", se->key, ids[j]);
			ret = stats_add(out, key.buf, se->v[se->n - 1], se->is_float, err);
		}
	strbuf_release(&key);
	return ret;
}

/*
 * stats: samples, <program>.json, stats.json and matrix.json as lkp-tests
 * builds them. See stats.h for the rules.
 */
#include "stats.h"
#include "../util/json.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void stats_samples_init(struct stats_samples *ss)
{
	memset(ss, 0, sizeof(*ss));
}

void stats_samples_release(struct stats_samples *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->s[i].key);
		free(ss->s[i].v);
	}
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

struct stats_series *stats_find(const struct stats_samples *ss, const char *key)
{
	for (size_t i = ss->n; i-- > 0;)
		if (!strcmp(ss->s[i].key, key))
			return &ss->s[i];
	return NULL;
}

static void push(struct stats_series *se, double v)
{
	ALLOC_GROW(se->v, se->n + 1, se->alloc);
	se->v[se->n++] = v;
}

/* A key refused for what is in it: -1, the key shown escaped. */
static int bad_key(const char *key, const char *what, unsigned char c, struct strbuf *err)
{
	strbuf_setf(err, "stats key '");
	strbuf_add_oneline(err, key, strlen(key));
	strbuf_addf(err, "' has %s (0x%02x)", what, c);
	return -1;
}

int stats_add(struct stats_samples *ss, const char *key, double v, bool is_float,
	      struct strbuf *err)
{
	struct stats_series *se;

	if (!*key || strpbrk(key, " \t\n")) {
		strbuf_setf(err, "stats key '%s' is empty or has whitespace", key);
		return -1;
	}
	/*
	 * a metric's name is printed in tables and logs: no control character
	 * (C0, DEL, C1); a byte that is not UTF-8 is written as U+FFFD
	 */
	for (size_t i = 0, left = strlen(key); i < left;) {
		unsigned char c = (unsigned char)key[i];
		size_t n = strbuf_utf8_len(key + i, left - i);
		if (c < 0x20 || c == 0x7f || (n == 2 && c == 0xc2 && (unsigned char)key[i + 1] < 0xa0))
			return bad_key(key, "a control character", c, err);
		i += n ? n : 1;
	}
	if (!isfinite(v)) {
		strbuf_setf(err, "stats value of '%s' is not a finite number", key);
		return -1;
	}
	se = stats_find(ss, key);
	if (!se) {
		ALLOC_GROW(ss->s, ss->n + 1, ss->alloc);
		se = &ss->s[ss->n++];
		memset(se, 0, sizeof(*se));
		se->key = xstrdup(key);
	}
	/* dump-stat: a repeated key starts a new record; gaps are 0 */
	if (ss->record < se->n)
		ss->record = se->n;
	while (se->n < ss->record)
		push(se, 0);
	push(se, v);
	se->is_float |= is_float;
	return 0;
}

int stats_add_text(struct stats_samples *ss, const char *key, const char *value,
		   struct strbuf *err)
{
	char *end;
	const char *s = value;
	double v;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s) {
		strbuf_setf(err, "stats value of '%s' is empty", key);
		return -1;
	}
	v = strtod(s, &end);
	while (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')
		end++;
	/* strtod also reads hex ("0x10"), which dump-stat would turn into 0 */
	if (*end || end == s || isalpha((unsigned char)*s) || strpbrk(s, "xX")) {
		strbuf_setf(err, "stats value of '%s' is not a number: '%s'", key, value);
		return -1;
	}
	return stats_add(ss, key, v, strpbrk(s, ".eE") != NULL, err);
}

int stats_add_lines(struct stats_samples *ss, const char *text, struct strbuf *err)
{
	struct strbuf key = STRBUF_INIT, val = STRBUF_INIT;
	int ret = 0;

	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *sep = memmem(p, len, ": ", 2);

		if (*p != '#' && sep) {
			strbuf_reset(&key);
			strbuf_reset(&val);
			strbuf_add(&key, p, (size_t)(sep - p));
			strbuf_add(&val, sep + 2, len - (size_t)(sep - p) - 2);
			/* a test's own output names these: the safe alphabet, printable ASCII ("\e[2Jx: 5" is none) */
			const char *odd = key.buf;
			while (*odd > 0x20 && *odd < 0x7f)
				odd++;
			if (*odd && !strpbrk(key.buf, " \t")) {
				ret = bad_key(key.buf, "a character that is not printable ASCII", (unsigned char)*odd,
					      err);
				break;
			}
			if (stats_add_text(ss, key.buf, val.buf, err)) {
				ret = -1;
				break;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	strbuf_release(&key);
	strbuf_release(&val);
	return ret;
}

struct node *stats_number(double v, bool is_float)
{
	struct strbuf sb = STRBUF_INIT;
	struct node *n = node_new(NODE_SCALAR);

	json_format_number(&sb, v, is_float);
	n->str = strbuf_detach(&sb);
	return n;
}

struct node *stats_program_json(const struct stats_samples *ss, const char *group)
{
	size_t maxn = 0, minn = SIZE_MAX;
	struct node *out = node_new(NODE_MAP);
	struct strbuf key = STRBUF_INIT;

	/* over every series, the zero ones dropped below included: dump-stat
	 * measures the lengths before it drops them */
	for (size_t i = 0; i < ss->n; i++) {
		const struct stats_series *se = &ss->s[i];
		if (se->n > maxn)
			maxn = se->n;
		if (se->n < minn)
			minn = se->n;
	}
	/* an incomplete last record is cut, as dump-stat does */
	size_t cut = (maxn && minn + 1 == maxn) ? minn : maxn;
	for (size_t i = 0; i < ss->n; i++) {
		const struct stats_series *se = &ss->s[i];
		double sum = 0;
		for (size_t k = 0; k < se->n; k++)
			sum += se->v[k];
		if (!se->n || (se->v[0] == 0 && se->v[se->n - 1] == 0 && sum == 0))
			continue;
		struct node *arr = node_new(NODE_SEQ);
		for (size_t k = 0; k < se->n && k < cut; k++)
			node_push(arr, stats_number(se->v[k], se->is_float));
		strbuf_setf(&key, "%s.%s", group, se->key);
		node_append(out, key.buf, arr);
	}
	strbuf_release(&key);
	if (!out->n) {
		node_free(out);
		return NULL;
	}
	return out;
}

static const char *const independent_prefixes[] = {
	"perf-stat.overall.",
	"perf-stat.ps.",
	"perf-stat.sum.",
	"perf-stat.total.",
	"pmu-tools.",
	"time.file_system_inputs",
	"time.file_system_outputs",
	"time.involuntary_context_switches",
	"time.major_page_faults",
	"time.minor_page_faults",
	"time.percent_of_cpu_this_job_got",
	"time.socket_messages_received",
	"time.socket_messages_sent",
	"time.swaps",
	"time.system_time",
	"time.user_time",
	"time.voluntary_context_switches",
	NULL,
};

static const char *const event_prefixes[] = {
	"cpuidle.", "diskstats.io_ticks.", "diskstats.read_ios.",
	"diskstats.read_merges.", "diskstats.read_sectors.",
	"diskstats.read_ticks.", "diskstats.write_ios.",
	"diskstats.write_merges.", "diskstats.write_sectors.",
	"diskstats.write_ticks.", "energy.", "ethtool.", "interrupts.",
	"numa-numastat.", "numa-vmstat.nr_dirtied",
	"numa-vmstat.nr_vmscan_immediate_reclaim", "numa-vmstat.nr_written",
	"numa-vmstat.numa_", "pmu-numa.total_moved", "proc-vmstat.allocstall",
	"proc-vmstat.compact_", "proc-vmstat.htlb_buddy_alloc_",
	"proc-vmstat.kswapd_", "proc-vmstat.nr_dirtied",
	"proc-vmstat.nr_promoted", "proc-vmstat.nr_promote_fail",
	"proc-vmstat.nr_promote_isolate_fail", "proc-vmstat.nr_promote_ratelimit",
	"proc-vmstat.nr_vmscan_immediate_reclaim", "proc-vmstat.nr_written",
	"proc-vmstat.numa_", "proc-vmstat.pageoutrun", "proc-vmstat.pg",
	"proc-vmstat.pswp", "proc-vmstat.slabs_scanned", "proc-vmstat.thp_",
	"proc-vmstat.unevictable_pgs_", "proc-vmstat.zone_reclaim_failed",
	"softirq.", NULL,
};

static bool has_prefix(const char *s, const char *const *prefixes)
{
	for (const char *const *p = prefixes; *p; p++)
		if (!strncmp(s, *p, strlen(*p)))
			return true;
	return false;
}

bool stats_is_independent_counter(const char *metric)
{
	return has_prefix(metric, independent_prefixes);
}

bool stats_is_event_counter(const char *metric)
{
	if (has_prefix(metric, event_prefixes))
		return true;
	/* numa-vmstat.node<N>.{nr_dirtied,nr_vmscan_immediate_reclaim,nr_written,numa_,pg} */
	if (!strncmp(metric, "numa-vmstat.node", 16)) {
		const char *p = metric + 16;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p++ != '.')
			return false;
		static const char *const rest[] = { "nr_dirtied", "nr_vmscan_immediate_reclaim",
						    "nr_written", "numa_", "pg", NULL };
		return has_prefix(p, rest);
	}
	return false;
}

static bool add_max(const char *k)
{
	size_t n = strlen(k);
	/* etc/add-max-latency: .*time.elapsed_time, iostat await-like stats and
	 * numa-meminfo.node<N>.AnonPages */
	if (n >= 17 && !strcmp(k + n - 17, "time.elapsed_time"))
		return true;
	/* numa-meminfo\.node[0-9]\.AnonPages */
	if (n == 28 && !strncmp(k, "numa-meminfo.node", 17) && isdigit((unsigned char)k[17]) &&
	    !strcmp(k + 18, ".AnonPages"))
		return true;
	if (!strncmp(k, "iostat.", 7)) {
		static const char *const sfx[] = { ".await", ".r_await", ".w_await", ".svctm", ".avgqu-sz", NULL };
		for (const char *const *s = sfx; *s; s++)
			if (n > strlen(*s) && !strcmp(k + n - strlen(*s), *s))
				return true;
	}
	return false;
}

void stats_reduce(const struct node *pj, struct node *stats)
{
	const char *dot;
	size_t glen = 0;

	/* "<group>.time" holds timestamps, not a metric */
	if (pj->n && (dot = strchr(pj->keys[0], '.')))
		glen = (size_t)(dot - pj->keys[0]);
	for (size_t i = 0; i < pj->n; i++) {
		const char *k = pj->keys[i];
		const struct node *arr = pj->vals[i];
		bool is_float = false, samples_float;
		double v, sum = 0, first = 0, last = 0, max = -INFINITY;
		size_t n = 0;

		if (arr->type != NODE_SEQ || !arr->n)
			continue;
		if (glen && !strncmp(k, pj->keys[0], glen) && !strcmp(k + glen, ".time"))
			continue;
		for (size_t j = 0; j < arr->n; j++) {
			if (!json_number(arr->vals[j], &v))
				continue;
			is_float |= strpbrk(arr->vals[j]->str, ".eE") != NULL;
			if (!n)
				first = v;
			last = v;
			sum += v;
			if (v > max)
				max = v;
			n++;
		}
		if (!n)
			continue;
		samples_float = is_float;	/* the max is a sample: its type */
		if (n == 1)
			v = first;
		else if (stats_is_independent_counter(k))
			v = sum;
		else if (stats_is_event_counter(k))
			v = last - first;
		else {
			v = sum / (double)n;
			is_float = true;
		}
		node_set(stats, k, stats_number(v, is_float));
		if (add_max(k)) {
			struct strbuf mk = STRBUF_INIT;
			strbuf_addf(&mk, "%s.max", k);
			node_set(stats, mk.buf, stats_number(max, samples_float));
			strbuf_release(&mk);
		}
	}
}

static size_t matrix_columns(const struct node *matrix)
{
	const struct node *src = node_get(matrix, "stats_source");
	return src && src->type == NODE_SEQ ? src->n : 0;
}

void stats_matrix_add(struct node *matrix, const struct node *stats, const char *source)
{
	size_t cols = matrix_columns(matrix);
	struct node *src = node_get(matrix, "stats_source");

	for (size_t i = 0; i < stats->n; i++) {
		const char *k = stats->keys[i];
		struct node *col = node_get(matrix, k);
		if (stats->vals[i]->comment || !strcmp(k, "stats_source"))
			continue;
		if (!col || col->type != NODE_SEQ) {
			col = node_new(NODE_SEQ);
			node_set(matrix, k, col);
		}
		/* earlier runs without this metric count as 0 (lkp-tests pads) */
		while (col->n < cols)
			node_push(col, node_new_scalar("0"));
		node_push(col, node_dup(stats->vals[i]));
	}
	/* metrics this run lacks: padded with 0 so columns stay runs */
	for (size_t i = 0; i < matrix->n; i++) {
		struct node *col = matrix->vals[i];
		if (col->comment || col->type != NODE_SEQ || !strcmp(matrix->keys[i], "stats_source"))
			continue;
		while (col->n < cols + 1)
			node_push(col, node_new_scalar("0"));
	}
	if (!src || src->type != NODE_SEQ) {
		src = node_new(NODE_SEQ);
		node_set(matrix, "stats_source", src);
	}
	struct node *s = node_new_scalar(source);
	s->quoted = 1;
	node_push(src, s);
}

void stats_matrix_summary(const struct node *matrix, struct node *avg, struct node *stddev)
{
	for (size_t i = 0; i < matrix->n; i++) {
		const struct node *col = matrix->vals[i];
		double v, sum = 0, sq = 0;
		size_t n = 0;

		if (col->comment || col->type != NODE_SEQ || !strcmp(matrix->keys[i], "stats_source"))
			continue;
		for (size_t j = 0; j < col->n; j++)
			if (json_number(col->vals[j], &v)) {
				sum += v;
				n++;
			}
		if (!n)
			continue;
		double mean = sum / (double)n;
		for (size_t j = 0; j < col->n; j++)
			if (json_number(col->vals[j], &v))
				sq += (v - mean) * (v - mean);
		node_set(avg, matrix->keys[i], stats_number(mean, true));
		node_set(stddev, matrix->keys[i], stats_number(sqrt(sq / (double)n), true));
	}
}

void stats_add_older_names(struct node *stats)
{
	size_t n = stats->n;	/* only the metrics that were there before */
	struct strbuf k = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const char *name = stats->keys[i];
		double v;
		size_t len = strlen(name);

		if (stats->vals[i]->comment || !json_number(stats->vals[i], &v))
			continue;
		if (!strncmp(name, "fio.", 4) && strstr(name, "_clat_") && len > 3 &&
		    !strcmp(name + len - 3, "_ns")) {
			strbuf_reset(&k);
			strbuf_add(&k, name, len - 3);
			strbuf_addstr(&k, "_us");
			node_set(stats, k.buf, stats_number(v / 1000.0, true));
		} else if (!strncmp(name, "perf-stat.overall.", 18)) {
			strbuf_setf(&k, "perf-stat.%s", name + 18);
			node_set(stats, k.buf, node_dup(stats->vals[i]));
		} else if (!strncmp(name, "perf-stat.sum.", 14)) {
			/* lkprobot's sums: the event totals reports printed before 2019 */
			strbuf_setf(&k, "perf-stat.%s", name + 14);
			if (node_index(stats, k.buf) < 0)
				node_set(stats, k.buf, node_dup(stats->vals[i]));
		}
	}
	strbuf_release(&k);
}

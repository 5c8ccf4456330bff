/*
 * perf-stat's parser (perf_stat_parse, perf_stat_unsupported; see
 * programs.h), after lkp-tests' programs/perf-stat/parse: lines into
 * interval records, then the per-second rates and derived ratios. The
 * monitor that writes this output is perf_stat.c.
 *
 * Parser (real perf output or ours, also perf's older space-separated
 * form and --per-socket "S0,<cpus>," lines): lines within 10 ms form one
 * interval record; per record `time` and `i.<event>` = count / interval
 * seconds, then the `i.` derived ratios; the last record is dropped as in
 * lkp-tests (it may be cut short); at the end `ps.<event>` = total / run
 * seconds, `total.<event>` and `overall.<ratio>`. Ratios, from summed
 * counts: <x>-miss-rate% = misses * 100 / (<x>s + misses), else /
 * <x>-references, else / <x>-instructions; ipc, cpi; instructions-per-
 * iTLB-miss; cycles-between-cache-misses; MPKI = cache-misses /
 * instructions * 1000. A ratio whose inputs were not counted is absent.
 * Deliberate differences from lkp-tests' parse:
 *   - "<not supported>" / "<not counted>" lines give no sample (lkp-tests
 *     emits 0); perf_stat_unsupported() lists those events;
 *   - run seconds = end of the last record counted (lkp-tests divides by
 *     the time of the dropped last record too: ps.* 1/N too low for N
 *     intervals);
 *   - total.<event> for every event (lkp-tests: instructions only);
 *   - perf's own shadow-metric units (GHz, K/sec, M/sec, ...) are not
 *     taken for `-M` metric names (lkp-tests emits i.metric.K/sec, the sum
 *     of unrelated rates); real metric names (CPI, ...) give i.metric.<Name>;
 *   - the space-separated form keeps unit and event apart (lkp-tests names
 *     the clock events "msec");
 *   - uncore UNC_M_*_INSERTS latency/throughput and the stats_part_begin/
 *     end window are not implemented.
 */
#include "programs.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct kv {
	char *key;
	double v;
};

struct kvlist {
	struct kv *a;
	size_t n, alloc;
};

static struct kv *kv_find(const struct kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->a[i].key, key))
			return &l->a[i];
	return NULL;
}

/* 0 when absent, as lkp-tests' Hash.new(0) */
static double kv_get(const struct kvlist *l, const char *key)
{
	const struct kv *kv = kv_find(l, key);

	return kv ? kv->v : 0;
}

static void kv_add(struct kvlist *l, const char *key, double v)
{
	struct kv *kv = kv_find(l, key);

	if (!kv) {
		ALLOC_GROW(l->a, l->n + 1, l->alloc);
		kv = &l->a[l->n++];
		kv->key = xstrdup(key);
		kv->v = 0;
	}
	kv->v += v;
}

static void kv_reset(struct kvlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->a[i].key);
	l->n = 0;
}

static void kv_release(struct kvlist *l)
{
	kv_reset(l);
	free(l->a);
	memset(l, 0, sizeof(*l));
}

/* One data line, split in place. */
struct pline {
	double time;
	const char *socket;	/* "S0" (--per-socket) or NULL */
	const char *count;	/* number text, "<not supported>" or "<not counted>" */
	const char *unit;	/* "" when none */
	const char *event;	/* cpu_core/cpu-cycles/ made cpu-cycles */
	const char *mval, *munit;	/* metric columns; NULL when absent */
};

static bool is_number(const char *s, double *v)
{
	char *end;
	double d;

	if (!*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	d = strtod(s, &end);
	if (*end || errno || !isfinite(d))
		return false;
	if (v)
		*v = d;
	return true;
}

/* lkp-tests' /^\s*\d+\.\d+\W+/ (end of line counts: it is then truncated) */
static bool is_data_line(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	if (*s != '.' || !isdigit((unsigned char)s[1]))
		return false;
	for (s++; isdigit((unsigned char)*s); s++)
		;
	return !isalnum((unsigned char)*s) && *s != '_';
}

#define MAX_FIELDS 32

/* Split `line` (modified) into fields after the time stamp. */
static size_t split_fields(char *line, char **f, bool *csv)
{
	size_t n = 0;
	char *p = line;

	*csv = strchr(line, ',') != NULL;
	if (*csv) {
		p = strchr(line, ',') + 1;
		for (;;) {
			char *c = strchr(p, ',');

			if (n < MAX_FIELDS)
				f[n++] = p;
			if (!c)
				break;
			*c = 0;
			p = c + 1;
		}
		return n;
	}
	/* space-separated: the stamp is the first token */
	while (*p == ' ' || *p == '\t')
		p++;
	p += strcspn(p, " \t");
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (n < MAX_FIELDS)
			f[n++] = p;
		if (!strncmp(p, "<not supported>", 15) || !strncmp(p, "<not counted>", 13))
			p = strchr(p, '>') + 1;
		else
			p += strcspn(p, " \t");
		if (*p)
			*p++ = 0;
	}
	return n;
}

/* 1 data line, 0 not one (text, header, empty stamp), -1 malformed (why set). */
static int parse_line(char *line, struct pline *pl, struct strbuf *why)
{
	char *f[MAX_FIELDS];
	bool csv;
	size_t n, k = 0;
	char *ev, *slash;

	memset(pl, 0, sizeof(*pl));
	if (!is_data_line(line))
		return 0;
	pl->time = strtod(line, NULL);
	n = split_fields(line, f, &csv);
	if (n >= MAX_FIELDS) {
		strbuf_setf(why, "too many fields");
		return -1;
	}
	if (!n) {
		strbuf_setf(why, "only a time stamp");
		return -1;
	}
	/* "time," alone, or metric-only lines without a count and an event */
	bool empty = true;
	for (size_t i = 0; i < n; i++)
		if (*f[i])
			empty = false;
	if ((csv && empty) || (csv && n >= 3 && !*f[0] && !*f[2]) ||
	    (csv && n >= 5 && f[0][0] == 'S' && isdigit((unsigned char)f[0][1]) && !*f[2] &&
	     !*f[4]))
		return 0;
	if (n && f[0][0] == 'S' && isdigit((unsigned char)f[0][1])) {
		pl->socket = f[0];
		k = 2;
	}
	if (csv) {
		if (n < k + 5) {
			strbuf_setf(why, "%zu fields where perf writes count,unit,event,run,percent",
				    n - (n < k ? n : k));
			return -1;
		}
		pl->count = f[k];
		pl->unit = f[k + 1];
		ev = f[k + 2];
		if (!is_number(f[k + 3], NULL) || !is_number(f[k + 4], NULL)) {
			strbuf_setf(why, "run time '%s' or percentage '%s' is not a number", f[k + 3],
				    f[k + 4]);
			return -1;
		}
		if (n > k + 5)
			pl->mval = f[k + 5];
		if (n > k + 6)
			pl->munit = f[k + 6];
	} else {
		size_t e;

		if (n >= k + 4 && is_number(f[k + 2], NULL)) {
			pl->unit = "";
			e = k + 1;
		} else if (n >= k + 5 && is_number(f[k + 3], NULL)) {
			pl->unit = f[k + 1];
			e = k + 2;
		} else {
			strbuf_setf(why, "not count [unit] event run percent");
			return -1;
		}
		pl->count = f[k];
		ev = f[e];
		if (!is_number(f[e + 2], NULL)) {
			strbuf_setf(why, "percentage '%s' is not a number", f[e + 2]);
			return -1;
		}
		if (n > e + 3)
			pl->mval = f[e + 3];
		if (n == e + 5)
			pl->munit = f[e + 4];
	}
	if (!*ev) {
		strbuf_setf(why, "no event name");
		return -1;
	}
	/* hybrid CPUs: cpu_atom/cpu-cycles/ is cpu-cycles (lkp-tests) */
	slash = strrchr(ev, '/');
	if (slash && slash > ev) {
		char *open = slash - 1;

		while (open >= ev && *open != '/')
			open--;
		if (open >= ev) {
			*slash = 0;
			ev = open + 1;
		}
	}
	pl->event = ev;
	if (strcmp(pl->count, "<not supported>") && strcmp(pl->count, "<not counted>") &&
	    !is_number(pl->count, NULL)) {
		strbuf_setf(why, "count '%s' is not a number", pl->count);
		return -1;
	}
	return 1;
}

struct pstate {
	struct stats_samples *out;
	struct strbuf *err;
	struct kvlist rec, metrics, total;
	bool have_rec;
	double rec_time;	/* time of the record's last line */
	double prev_time;	/* time of the previous record (0: start) */
	double end_time;	/* time of the last record counted */
	size_t counted;		/* records counted */
	char **events;		/* the -e list of the raw file's header, if any */
	size_t nevents, alloc_events;
	struct strbuf key;
};

static int emit(struct pstate *ps, const char *prefix, const char *name, const char *suffix,
		double v)
{
	strbuf_setf(&ps->key, "%s%s%s", prefix, name, suffix);
	return stats_add(ps->out, ps->key.buf, v, true, ps->err);
}

static bool ends_with(const char *s, const char *suffix, size_t *stem)
{
	size_t n = strlen(s), m = strlen(suffix);

	if (n < m || strcmp(s + n - m, suffix))
		return false;
	*stem = n - m;
	return true;
}

/* lkp-tests' calc_addon_keys on summed counts */
static int derive(struct pstate *ps, const struct kvlist *l, const char *prefix)
{
	struct strbuf stem = STRBUF_INIT, k = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < l->n && !ret; i++) {
		const char *key = l->a[i].key;
		double v = l->a[i].v;
		size_t n;

		if (ends_with(key, "-misses", &n)) {
			static const char *const sfx[] = { "s", "-references", "-instructions" };

			strbuf_reset(&stem);
			strbuf_add(&stem, key, n);
			for (size_t j = 0; j < ARRAY_SIZE(sfx); j++) {
				double base;

				strbuf_setf(&k, "%s%s", stem.buf, sfx[j]);
				base = kv_get(l, k.buf);
				if (base == 0)
					continue;
				ret = emit(ps, prefix, stem.buf, "-miss-rate%",
					   v * 100.0 / (j == 0 ? base + v : base));
				break;
			}
			if (ret || v == 0)
				continue;
			if (ends_with(key, "iTLB-load-misses", &n)) {
				double instr;

				strbuf_reset(&stem);
				strbuf_add(&stem, key, n);
				strbuf_setf(&k, "%sinstructions", stem.buf);
				instr = kv_get(l, k.buf);
				if (instr != 0)
					ret = emit(ps, prefix, stem.buf, "instructions-per-iTLB-miss",
						   instr / v);
			} else if (ends_with(key, "cache-misses", &n)) {
				double cycles, instr;

				strbuf_reset(&stem);
				strbuf_add(&stem, key, n);
				strbuf_setf(&k, "%scpu-cycles", stem.buf);
				cycles = kv_get(l, k.buf);
				if (cycles != 0)
					ret = emit(ps, prefix, stem.buf, "cycles-between-cache-misses",
						   cycles / v);
				strbuf_setf(&k, "%sinstructions", stem.buf);
				instr = kv_get(l, k.buf);
				if (!ret && instr != 0)
					ret = emit(ps, prefix, stem.buf, "MPKI", v / instr * 1000);
			}
		} else if (ends_with(key, "cpu-cycles", &n)) {
			double instr;

			strbuf_reset(&stem);
			strbuf_add(&stem, key, n);
			strbuf_setf(&k, "%sinstructions", stem.buf);
			instr = kv_get(l, k.buf);
			if (instr == 0 || v == 0)
				continue;
			ret = emit(ps, prefix, stem.buf, "ipc", instr / v);
			if (!ret)
				ret = emit(ps, prefix, stem.buf, "cpi", v / instr);
		}
	}
	strbuf_release(&stem);
	strbuf_release(&k);
	return ret;
}

/* The record that just ended: its samples, and into the totals. */
static int flush_record(struct pstate *ps, size_t lineno)
{
	double interval = ps->rec_time - ps->prev_time;

	if (interval <= 0) {
		strbuf_setf(ps->err, "perf-stat: line %zu: an interval of %g s", lineno, interval);
		return -1;
	}
	if (stats_add(ps->out, "time", ps->rec_time, true, ps->err))
		return -1;
	for (size_t i = 0; i < ps->rec.n; i++)
		if (emit(ps, "i.", ps->rec.a[i].key, "", ps->rec.a[i].v / interval))
			return -1;
	if (derive(ps, &ps->rec, "i."))
		return -1;
	for (size_t i = 0; i < ps->metrics.n; i++)
		if (emit(ps, "i.", ps->metrics.a[i].key, "", ps->metrics.a[i].v))
			return -1;
	for (size_t i = 0; i < ps->rec.n; i++)
		kv_add(&ps->total, ps->rec.a[i].key, ps->rec.a[i].v);
	ps->end_time = ps->rec_time;
	ps->prev_time = ps->rec_time;
	ps->counted++;
	kv_reset(&ps->rec);
	kv_reset(&ps->metrics);
	ps->have_rec = false;
	return 0;
}

/* lkp-tests reads the -e list from the echoed command line */
static void header_events(struct pstate *ps, const char *line)
{
	const char *p;

	if (!strstr(line, "perf stat "))
		return;
	for (p = strstr(line, " -e "); p; p = strstr(p, " -e ")) {
		size_t n;

		p += 4;
		n = strcspn(p, " ");
		if (!p[n])
			break;	/* lkp-tests wants a blank after the list */
		for (size_t i = 0; i < n;) {
			size_t m = strcspn(p + i, ",");

			if (m > n - i)
				m = n - i;
			char *name = xstrndup(p + i, m);
			char *s = name, *d = name;

			for (; *s; s++)
				if (*s != '{' && *s != '}')
					*d++ = *s;
			*d = 0;
			ALLOC_GROW(ps->events, ps->nevents + 1, ps->alloc_events);
			ps->events[ps->nevents++] = name;
			i += m + 1;
		}
	}
}

static bool metric_name(const char *s)
{
	/* -M metric names (CPI, Load_Miss_Real_Latency); not perf's own units */
	if (!s || !isupper((unsigned char)*s) || !strcmp(s, "GHz"))
		return false;
	for (; *s; s++)
		if (isspace((unsigned char)*s) || *s == '/')
			return false;
	return true;
}

static int add_line(struct pstate *ps, struct pline *pl, size_t lineno)
{
	struct strbuf key = STRBUF_INIT;
	double v, mv;

	if (ps->nevents) {
		bool known = false;

		for (size_t i = 0; i < ps->nevents && !known; i++)
			known = !strcmp(ps->events[i], pl->event);
		if (!known) {
			strbuf_setf(ps->err, "perf-stat: line %zu: event '%s' is not in the perf stat -e list of the file",
				    lineno, pl->event);
			return -1;
		}
	}
	if (ps->have_rec && pl->time < ps->rec_time - 0.01) {
		strbuf_setf(ps->err, "perf-stat: line %zu: time %.9f goes back (after %.9f)", lineno,
			    pl->time, ps->rec_time);
		return -1;
	}
	if (ps->have_rec && pl->time - ps->rec_time > 0.01 && flush_record(ps, lineno))
		return -1;
	ps->have_rec = true;
	ps->rec_time = pl->time;
	if (!is_number(pl->count, &v))
		return 0;	/* <not supported>, <not counted>: nothing */

	strbuf_addstr(&key, pl->event);
	if (strstr(key.buf, "_IMC"))
		strbuf_setlen(&key, (size_t)(strstr(key.buf, "_IMC") - key.buf));
	if (!strcmp(pl->unit, "Bytes"))
		strbuf_addstr(&key, "_Bytes");
	kv_add(&ps->rec, key.buf, v);
	if (pl->socket) {
		strbuf_setf(&ps->key, "%s.%s", pl->socket, key.buf);
		kv_add(&ps->rec, ps->key.buf, v);
	}
	if (metric_name(pl->munit) && pl->mval && is_number(pl->mval, &mv)) {
		if (pl->socket)
			strbuf_setf(&ps->key, "%s.metric.%s", pl->socket, pl->munit);
		else
			strbuf_setf(&ps->key, "metric.%s", pl->munit);
		kv_add(&ps->metrics, ps->key.buf, mv);
	}
	strbuf_release(&key);
	return 0;
}

/* The lines of text[0..len), each copied NUL-terminated into `line`. */
struct line_iter {
	const char *p, *end;
	size_t lineno;
	struct strbuf line;
};

static bool next_line(struct line_iter *it)
{
	const char *nl;

	if (it->p >= it->end)
		return false;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	strbuf_reset(&it->line);
	strbuf_add(&it->line, it->p, nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p));
	it->p = nl ? nl + 1 : it->end;
	it->lineno++;
	return true;
}

int perf_stat_parse(const char *text, size_t len, struct stats_samples *out,
		    struct strbuf *err)
{
	struct line_iter it = { text, text + len, 0, STRBUF_INIT };
	struct pstate ps;
	struct strbuf why = STRBUF_INIT;
	int ret = 0;

	memset(&ps, 0, sizeof(ps));
	ps.out = out;
	ps.err = err;
	strbuf_init(&ps.key, 64);
	while (!ret && next_line(&it)) {
		struct pline pl;
		int r;

		if (strlen(it.line.buf) != it.line.len) {
			strbuf_setf(err, "perf-stat: line %zu: a NUL byte in the text", it.lineno);
			ret = -1;
			break;
		}
		r = parse_line(it.line.buf, &pl, &why);
		if (r < 0) {
			strbuf_setf(err, "perf-stat: line %zu: %s (truncated or not perf stat -x , -I output)",
				    it.lineno, why.buf);
			ret = -1;
		} else if (r == 0) {
			header_events(&ps, it.line.buf);
		} else {
			ret = add_line(&ps, &pl, it.lineno);
		}
	}
	/* the last record is dropped (lkp-tests: its interval has not run out) */
	if (!ret && ps.counted && ps.end_time > 0) {
		for (size_t i = 0; i < ps.total.n && !ret; i++)
			ret = emit(&ps, "ps.", ps.total.a[i].key, "", ps.total.a[i].v / ps.end_time);
		for (size_t i = 0; i < ps.total.n && !ret; i++)
			ret = emit(&ps, "total.", ps.total.a[i].key, "", ps.total.a[i].v);
		if (!ret)
			ret = derive(&ps, &ps.total, "overall.");
	}
	for (size_t i = 0; i < ps.nevents; i++)
		free(ps.events[i]);
	free(ps.events);
	kv_release(&ps.rec);
	kv_release(&ps.metrics);
	kv_release(&ps.total);
	strbuf_release(&ps.key);
	strbuf_release(&why);
	strbuf_release(&it.line);
	return ret;
}

int perf_stat_unsupported(const char *text, struct strbuf *list)
{
	struct line_iter it = { text, text + strlen(text), 0, STRBUF_INIT };
	struct strbuf why = STRBUF_INIT;
	struct kvlist seen = { 0 };	/* event -> 1 unsupported, 2 counted, 3 not counted yet */
	int n = 0;

	while (next_line(&it)) {
		struct pline pl;
		struct kv *kv;
		double state;

		if (parse_line(it.line.buf, &pl, &why) != 1)
			continue;
		state = !strcmp(pl.count, "<not supported>") ? 1
			: !strcmp(pl.count, "<not counted>") ? 3 : 2;
		kv = kv_find(&seen, pl.event);
		if (!kv)
			kv_add(&seen, pl.event, state);
		else if (kv->v == 3 || state == 1)
			kv->v = state;
	}
	for (size_t i = 0; i < seen.n; i++)
		if (seen.a[i].v != 2) {
			strbuf_addf(list, "%s%s", list->len ? " " : "", seen.a[i].key);
			n++;
		}
	kv_release(&seen);
	strbuf_release(&why);
	strbuf_release(&it.line);
	return n;
}

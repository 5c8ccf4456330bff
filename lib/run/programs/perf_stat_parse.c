/*
 * perf-stat's parser (perf_stat_parse, perf_stat_unsupported; see
 * programs.h), after lkp-tests' programs/perf-stat/parse: lines into
 * interval records, then the per-second rates and derived ratios. The
 * monitor that writes this output is perf_stat.c.
 *
 * Real perf output or ours, perf's `-x ,` form and its older space-separated
 * one, --per-socket "S0,<cpus>," lines. Lines within 10 ms form one interval
 * record; per record `time`, `i.<key>` = count / interval seconds, the `i.`
 * derived ratios, and `i.metric.<Unit>`: the sum of the record's metric
 * values whose unit is one upper-case word (perf's GHz, K/sec, M/sec, or a -M
 * metric's name), as lkp-tests sums them. The last record is dropped (it may
 * be cut short). At the end `ps.<key>` = total / the stamp of the second to
 * last line (lkp-tests' run time: the dropped record's end), `total.
 * instructions` and `overall.<ratio>`; and lkprobot's own `sum.<key>`, the
 * counts of the records counted (the `perf-stat.<event>` of older reports).
 * A key is the event, or in the space-separated form the word after the
 * count (the unit: cpu-clock and task-clock both count as `msec`), as
 * lkp-tests names them. Ratios, from summed counts: <x>-miss-rate% = misses
 * * 100 / (<x>s + misses), else / <x>-references, else / <x>-instructions;
 * ipc, cpi; instructions-per-iTLB-miss; cycles-between-cache-misses; MPKI =
 * cache-misses / instructions * 1000. A ratio whose inputs were not counted
 * is absent. Where lkp-tests differs:
 *   - "<not supported>" / "<not counted>" lines give no sample (lkp-tests
 *     emits 0, which its dump-stat drops or back-fills the same);
 *     perf_stat_unsupported() lists those events;
 *   - a line that is no perf line (too few fields, a count or run time that
 *     is no number, time going back) is an error, where lkp-tests skips it
 *     or stops;
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
	const char *key;	/* lkp-tests' key: the event; the unit in the space form */
	const char *event;	/* cpu_core/cpu-cycles/ made cpu-cycles */
	bool bytes;		/* the unit is "Bytes" */
	const char *metric;	/* an upper-case unit or metric name (GHz, K/sec, CPI), or NULL */
	double mval;		/* its value */
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

/* Ruby's String#to_f: the number the text starts with, else 0 */
static double to_f(const char *s)
{
	double d = strtod(s, NULL);

	return isfinite(d) ? d : 0;
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

/* lkp-tests' metric unit: /^[A-Z][^ ]+$/ (GHz, K/sec, M/sec, CPI; not "/sec") */
static const char *metric_unit(const char *s)
{
	if (!s || !isupper((unsigned char)s[0]) || !s[1] || strchr(s, ' '))
		return NULL;
	return s;
}

#define MAX_FIELDS 32

/*
 * Split `line` (modified) into the fields after the time stamp: at commas
 * when it has one (perf -x ,), else at blanks as Ruby's split does.
 */
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
	p += strspn(p, " \t");
	p += strcspn(p, " \t"); /* the stamp */
	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = 0;
		if (!*p)
			break;
		if (n < MAX_FIELDS)
			f[n++] = p;
		p += strcspn(p, " \t");
	}
	return n;
}

/* hybrid CPUs: cpu_atom/cpu-cycles/ is cpu-cycles (lkp-tests) */
static char *hybrid_event(char *ev)
{
	char *slash = strrchr(ev, '/'), *open;

	if (!slash || slash == ev)
		return ev;
	for (open = slash - 1; open >= ev && *open != '/'; open--)
		;
	if (open < ev)
		return ev;
	*slash = 0;
	return open + 1;
}

/* perf -x , : count,unit,event,run,percent[,metric value,metric unit] */
static int csv_line(char **f, size_t n, size_t k, bool terminated, struct pline *pl, struct strbuf *why)
{
	size_t ruby_n = n;

	if (n < k + 5) {
		strbuf_setf(why, "%zu fields where perf writes count,unit,event,run,percent", n - (n < k ? n : k));
		return -1;
	}
	if (!is_number(f[k + 3], NULL) || !is_number(f[k + 4], NULL)) {
		strbuf_setf(why, "run time '%s' or percentage '%s' is not a number", f[k + 3], f[k + 4]);
		return -1;
	}
	/* Ruby's split drops trailing empty fields; a line keeps its "\n" */
	while (!terminated && ruby_n && !*f[ruby_n - 1])
		ruby_n--;
	if (ruby_n < 7)
		return 0; /* lkp-tests skips a line without its metric columns */
	pl->count = f[k];
	pl->bytes = !strcmp(f[k + 1], "Bytes");
	pl->event = pl->key = hybrid_event(f[k + 2]);
	if (n > k + 6 && (pl->metric = metric_unit(f[k + 6])))
		pl->mval = to_f(f[k + 5]);
	return 1;
}

/* the older space-separated form: count [unit] event run percent [metric...] */
static int space_line(char **f, size_t n, size_t k, struct pline *pl, struct strbuf *why)
{
	size_t e;

	if (n >= k + 2 && !strcmp(f[k], "<not") && (!strcmp(f[k + 1], "supported>") || !strcmp(f[k + 1], "counted>"))) {
		/* Ruby splits it in two words; lkp-tests counts 0 for "supported>" */
		pl->count = !strcmp(f[k + 1], "counted>") ? "<not counted>" : "<not supported>";
		k++;
	} else {
		pl->count = f[k];
	}
	if (n >= k + 4 && is_number(f[k + 2], NULL)) {
		e = k + 1;
	} else if (n >= k + 5 && is_number(f[k + 3], NULL)) {
		e = k + 2;
	} else {
		strbuf_setf(why, "not count [unit] event run percent");
		return -1;
	}
	if (!is_number(f[e + 2], NULL)) {
		strbuf_setf(why, "percentage '%s' is not a number", f[e + 2]);
		return -1;
	}
	pl->event = hybrid_event(f[e]);
	pl->key = f[k + 1]; /* lkp-tests: the word after the count ("msec") */
	pl->bytes = !strcmp(pl->key, "Bytes");
	if (n > k + 5 && (pl->metric = metric_unit(f[k + 5])))
		pl->mval = to_f(f[k + 4]);
	return 1;
}

/* 1 data line, 0 not one (text, header, empty stamp), -1 malformed (why set). */
static int parse_line(char *line, bool terminated, struct pline *pl, struct strbuf *why)
{
	char *f[MAX_FIELDS];
	bool csv;
	size_t n, k = 0;
	int r;

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
	if (f[0][0] == 'S' && isdigit((unsigned char)f[0][1])) {
		pl->socket = f[0];
		k = 2;
	}
	r = csv ? csv_line(f, n, k, terminated, pl, why) : space_line(f, n, k, pl, why);
	if (r <= 0)
		return r;
	if (!*pl->event) {
		strbuf_setf(why, "no event name");
		return -1;
	}
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
	double line_before;	/* time of the line before the last (lkp-tests' run time) */
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

/* lkp-tests' /(.*)<pat>/: the key holds pat; stem = what comes before its last one */
static bool ends_with(const char *s, const char *pat, size_t *stem)
{
	const char *last = NULL;

	for (const char *p = strstr(s, pat); p; p = strstr(p + 1, pat))
		last = p;
	if (!last)
		return false;
	*stem = (size_t)(last - s);
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

static int add_line(struct pstate *ps, struct pline *pl, size_t lineno)
{
	struct strbuf key = STRBUF_INIT;
	double v;

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
	ps->line_before = ps->have_rec ? ps->rec_time : 0;
	ps->have_rec = true;
	ps->rec_time = pl->time;
	if (!is_number(pl->count, &v))
		return 0;	/* <not supported>, <not counted>: nothing */

	strbuf_addstr(&key, pl->key);
	if (strstr(key.buf, "_IMC"))
		strbuf_setlen(&key, (size_t)(strstr(key.buf, "_IMC") - key.buf));
	if (pl->bytes)
		strbuf_addstr(&key, "_Bytes");
	kv_add(&ps->rec, key.buf, v);
	if (pl->socket) {
		strbuf_setf(&ps->key, "%s.%s", pl->socket, key.buf);
		kv_add(&ps->rec, ps->key.buf, v);
	}
	if (pl->metric) {
		if (pl->socket)
			strbuf_setf(&ps->key, "%s.metric.%s", pl->socket, pl->metric);
		else
			strbuf_setf(&ps->key, "metric.%s", pl->metric);
		kv_add(&ps->metrics, ps->key.buf, pl->mval);
	}
	strbuf_release(&key);
	return 0;
}

/*
 * The last record is dropped (lkp-tests: its interval has not run out), yet
 * lkp-tests' run time is the stamp of the line before the last one: the
 * dropped record's end when it has two lines or more. ps.* divide by it, as
 * lkp-tests' do; sum.* are lkprobot's: the counts of the records counted.
 */
static int emit_totals(struct pstate *ps)
{
	int ret = 0;
	double instr = kv_get(&ps->total, "instructions");

	for (size_t i = 0; i < ps->total.n && !ret; i++)
		ret = emit(ps, "ps.", ps->total.a[i].key, "", ps->total.a[i].v / ps->line_before);
	if (!ret && instr != 0)
		ret = emit(ps, "total.", "instructions", "", instr);
	if (!ret)
		ret = derive(ps, &ps->total, "overall.");
	for (size_t i = 0; i < ps->total.n && !ret; i++)
		ret = emit(ps, "sum.", ps->total.a[i].key, "", ps->total.a[i].v);
	return ret;
}

/* The lines of text[0..len), each copied NUL-terminated into `line`. */
struct line_iter {
	const char *p, *end;
	size_t lineno;
	struct strbuf line;
	bool terminated; /* the line ended with a newline */
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
	it->terminated = nl != NULL;
	it->lineno++;
	return true;
}

int perf_stat_parse(const char *text, size_t len, struct stats_samples *out,
		    struct strbuf *err)
{
	struct line_iter it = { text, text + len, 0, STRBUF_INIT, false };
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
		r = parse_line(it.line.buf, it.terminated, &pl, &why);
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
	if (!ret && ps.counted && ps.line_before > 0)
		ret = emit_totals(&ps);
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
	struct line_iter it = { text, text + strlen(text), 0, STRBUF_INIT, false };
	struct strbuf why = STRBUF_INIT;
	struct kvlist seen = { 0 };	/* event -> 1 unsupported, 2 counted, 3 not counted yet */
	int n = 0;

	while (next_line(&it)) {
		struct pline pl;
		struct kv *kv;
		double state;

		if (parse_line(it.line.buf, it.terminated, &pl, &why) != 1)
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

/*
 * lkpetc: lkp-tests' etc/ data, loaded once. See lkpetc.h.
 *
 * Most lookups never reach regexec: a pattern like ^perf-stat\. is its
 * literal prefix, and a metric that does not start with a pattern's
 * literal cannot match it. A comparison of 2,000 metrics asks each list
 * about every metric.
 */
#include "lkpetc.h"
#include "../sys/fsutil.h"
#include "../util/node.h"
#include "../util/yml.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LKPETC_FILE_MAX (4u << 20)

struct threshold {
	regex_t re;
	double floor;
	bool whole;
};

/* An index file: lkp-tests' /^regex$/ patterns, each with its weight (its sign: which way is better). */
#define LKPETC_NINDEX 6
struct index {
	struct lkpetc_list l;
	double *weight;
};

static struct {
	char *dir;
	pthread_once_t once;
	int rc;
	char *err;
	struct lkpetc_list deny, allow, report, perf_patterns, failure, pass, oops, oops_ignore;
	char **perf_prefixes;
	size_t nperf_prefixes;
	struct threshold *thr;
	size_t nthr;
	struct index index[LKPETC_NINDEX];
	char **devices, **kmsg_deny;
} etc = { .once = PTHREAD_ONCE_INIT };

void lkpetc_set_dir(const char *data_dir)
{
	free(etc.dir);
	etc.dir = data_dir ? xstrdup(data_dir) : NULL;
}

/* A { that starts a repetition count: {n}, {n,}, {n,m} */
static bool is_interval(const char *p)
{
	if (*p++ != '{' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p == ',')
		for (p++; isdigit((unsigned char)*p); p++)
			;
	return *p == '}';
}

int lkpetc_regcomp(regex_t *re, const char *ruby, int cflags, struct strbuf *err)
{
	struct strbuf x = STRBUF_INIT;
	bool bracket = false, dash = false;
	int rc;

	for (const char *p = ruby; *p; p++) {
		if (bracket) {
			/* in a bracket expression a backslash is literal to POSIX: Ruby's escapes become the character */
			if (*p == '[' && p[1] == ':') {
				const char *e = strstr(p + 2, ":]");
				if (e) {
					strbuf_add(&x, p, (size_t)(e + 2 - p));
					p = e + 1;
					continue;
				}
			}
			if (*p == ']') {
				bracket = false;
				if (dash)	/* an escaped - is a member: last, where POSIX reads it so */
					strbuf_addch(&x, '-');
				strbuf_addch(&x, ']');
			} else if (*p == '\\' && p[1]) {
				p++;
				if (*p == 'd')
					strbuf_addstr(&x, "0-9");
				else if (*p == '-')
					dash = true;
				else if (*p == 'n')
					strbuf_addch(&x, '\n');
				else if (*p == 't')
					strbuf_addch(&x, '\t');
				else if (*p == '0')
					;	/* a NUL never reaches a C string */
				else
					strbuf_addch(&x, *p);
			} else {
				strbuf_addch(&x, *p);
			}
			continue;
		}
		if (*p == '[') {
			bracket = true;
			dash = false;
			strbuf_addch(&x, '[');
			if (p[1] == '^')
				strbuf_addch(&x, *++p);
			if (p[1] == ']')	/* a ] first is a member */
				strbuf_addch(&x, *++p);
		} else if (*p == '\\' && p[1]) {
			p++;
			if (*p == 'd')
				strbuf_addstr(&x, "[0-9]");
			else if (*p == 'D')
				strbuf_addstr(&x, "[^0-9]");
			else if (*p == 'h')
				strbuf_addstr(&x, "[0-9a-fA-F]");
			else if (*p == 'n')
				strbuf_addch(&x, '\n');
			else if (*p == 't')
				strbuf_addch(&x, '\t');
			else if (*p == 'x' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
				char hex[3] = { p[1], p[2], 0 };
				int c = (int)strtol(hex, NULL, 16);
				p += 2;
				if (c && strchr(".[]()|*+?{}^$\\", c))
					strbuf_addch(&x, '\\');
				if (c)
					strbuf_addch(&x, c);
			} else if (strchr("wWsSbB", *p) || isdigit((unsigned char)*p))
				strbuf_addf(&x, "\\%c", *p);	/* GNU's \w \s \b and back-references mean Ruby's */
			else if (strchr(".[]()|*+?{}^$\\", *p))
				strbuf_addf(&x, "\\%c", *p);
			else
				strbuf_addch(&x, *p);	/* \- \/ \' \< ...: the character (GNU gives \' \< \> a meaning) */
		} else if (*p == '{' && !is_interval(p)) {
			strbuf_addstr(&x, "\\{");
		} else if (*p == '}') {
			/* the } of an interval was copied with it below; any other is literal */
			strbuf_addstr(&x, "\\}");
		} else if (*p == '{') {
			size_t n = strcspn(p, "}") + 1;
			strbuf_add(&x, p, n);
			p += n - 1;
		} else {
			strbuf_addch(&x, *p);
		}
	}
	rc = regcomp(re, x.buf ? x.buf : "", REG_EXTENDED | cflags);
	if (rc) {
		char msg[128];
		regerror(rc, re, msg, sizeof(msg));
		strbuf_setf(err, "'%s': %s", ruby, msg);
		regfree(re);
	}
	strbuf_release(&x);
	return rc ? -1 : 0;
}

/* The literal text a pattern starts with (after ^), and whether nothing but ".*" follows it. */
static void literal_prefix(struct lkpetc_re *r)
{
	const char *p = r->src;
	struct strbuf lit = STRBUF_INIT;
	int depth = 0;
	bool in_bracket = false;

	/* a | outside any group ("^a|b") can match anywhere: no prefix then */
	for (const char *q = p; *q; q++) {
		if (*q == '\\' && q[1])
			q++;
		else if (in_bracket)
			in_bracket = *q != ']';
		else if (*q == '[') {
			in_bracket = true;
			q += q[1] == '^';
			q += q[1] == ']';	/* a ] first is a member */
		}
		else if (*q == '(')
			depth++;
		else if (*q == ')')
			depth--;
		else if (*q == '|' && depth <= 0) {
			r->lit = xstrdup("");
			return;
		}
	}
	r->anchored = *p == '^';
	if (r->anchored)
		p++;
	while (*p) {
		if (*p == '\\' && p[1] && strchr(".[]()|*+?{}^$\\-/", p[1])) {
			/* an escaped character: literal, unless a quantifier follows */
			if (p[2] && strchr("*+?{", p[2]))
				break;
			strbuf_addch(&lit, p[1]);
			p += 2;
		} else if (!strchr(".[]()|*+?{}^$\\", *p)) {
			if (p[1] && strchr("*+?{", p[1]))
				break;
			strbuf_addch(&lit, *p++);
		} else {
			break;
		}
	}
	r->lit_only = !*p || !strcmp(p, ".*");
	r->litlen = lit.len;
	r->lit = strbuf_detach(&lit);
}

/*
 * The longest literal run every match contains (outside groups, brackets
 * and optional characters): ".pass" of ^.+\.pass$, "time" of
 * ^(.*\.)?time..* — a strstr() that saves most regexec()s. NULL: none.
 */
static char *required_literal(const char *src)
{
	struct strbuf run = STRBUF_INIT, best = STRBUF_INIT;
	int depth = 0;
	bool bracket = false;

	for (const char *p = src; *p;) {
		int c = -1;
		const char *next = p + 1;
		if (bracket) {
			bracket = *p != ']';
		} else if (*p == '\\' && p[1]) {
			next = p + 2;
			if (depth <= 0 && strchr(".[]()|*+?{}^$\\-/", p[1]))
				c = p[1];
		} else if (*p == '[') {
			bracket = true;
			next += p[1] == '^';
			next += *next == ']';
		} else if (*p == '(') {
			depth++;
		} else if (*p == ')') {
			depth--;
		} else if (depth <= 0 && !strchr(".[]()|*+?{}^$", *p)) {
			c = *p;
		}
		if (c >= 0 && *next && strchr("?*{", *next))
			c = -1;	/* optional: not in every match */
		if (c >= 0)
			strbuf_addch(&run, c);
		if (c < 0 || (*next && *next == '+')) {
			if (run.len > best.len) {
				strbuf_reset(&best);
				strbuf_add(&best, run.buf, run.len);
			}
			strbuf_reset(&run);
		}
		p = next;
	}
	if (run.len > best.len) {
		strbuf_reset(&best);
		strbuf_add(&best, run.buf, run.len);
	}
	strbuf_release(&run);
	if (best.len < 2) {
		strbuf_release(&best);
		return NULL;
	}
	return strbuf_detach(&best);
}

/* Could the text match, by the pattern's literals alone? */
static bool lit_may_match(const struct lkpetc_re *r, const char *text)
{
	if (r->anchored ? strncmp(text, r->lit, r->litlen) : r->litlen && !strstr(text, r->lit))
		return false;
	return !r->need || strstr(text, r->need);
}

static bool pattern_match(const struct lkpetc_re *r, const char *text)
{
	if (!lit_may_match(r, text))
		return false;
	if (r->lit_only)
		return true;
	return r->compiled && !regexec(&r->re, text, 0, NULL, 0);
}

bool lkpetc_list_match(const struct lkpetc_list *l, const char *text)
{
	unsigned char c = (unsigned char)*text;

	for (size_t i = 0; l && i < l->nby_first[c]; i++)
		if (pattern_match(&l->v[l->by_first[c][i]], text))
			return true;
	return false;
}

bool lkpetc_list_first(const struct lkpetc_list *l, const char *text, size_t *so, size_t *eo)
{
	bool found = false;

	for (size_t i = 0; l && i < l->n; i++) {
		regmatch_t m;
		if (!l->v[i].compiled || !lit_may_match(&l->v[i], text))
			continue;
		if (regexec(&l->v[i].re, text, 1, &m, 0))
			continue;
		if (!found || (size_t)m.rm_so < *so) {
			*so = (size_t)m.rm_so;
			*eo = (size_t)m.rm_eo;
			found = true;
		}
	}
	return found;
}

/* The file to read: the operator's copy when there is one, else ours. */
static char *etc_path(const char *name)
{
	const char *over = getenv("LKPROBOT_LKP_ETC");
	char *p = xasprintf("%s/%s", over && *over ? over : "/etc/lkprobot/lkp-etc", name);

	if (!access(p, F_OK))
		return p;
	free(p);
	return xasprintf("%s/lkp-etc/%s", etc.dir ? etc.dir : LKPROBOT_DATADIR, name);
}

static int read_file(const char *name, struct strbuf *text, char **path, struct strbuf *err)
{
	*path = etc_path(name);
	if (fsutil_read_regular(text, *path, LKPETC_FILE_MAX, err)) {
		if (errno == ENOENT)
			strbuf_setf(err, "%s: missing (lkprobot's lkp-etc/ data: reinstall it, or set LKPROBOT_DATA)", *path);
		return -1;
	}
	return 0;
}

/* The lines of a file: not empty, not a # comment; trailing \r dropped. */
static char **read_lines(const char *name, size_t *n, char **path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char **v = NULL;
	size_t alloc = 0;

	*n = 0;
	if (read_file(name, &text, path, err)) {
		strbuf_release(&text);
		return NULL;
	}
	for (char *p = text.buf; p && *p;) {
		size_t len = strcspn(p, "\n");
		size_t l = len;
		if (l && p[l - 1] == '\r')
			l--;
		if (l && *p != '#') {
			ALLOC_GROW(v, *n + 2, alloc);
			v[(*n)++] = xstrndup(p, l);
		}
		p += len + (p[len] == '\n');
	}
	ALLOC_GROW(v, *n + 1, alloc);
	v[*n] = NULL;
	strbuf_release(&text);
	return v;
}

static void free_lines(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* Compile n patterns (lines) into l, in their order; `path` names the file in an error. */
static int compile_list(char *const *lines, size_t n, const char *path, struct lkpetc_list *l, struct strbuf *err)
{
	int ret = 0;

	l->v = xcalloc(n ? n : 1, sizeof(*l->v));
	l->n = 0;
	for (size_t i = 0; lines && i < n; i++) {
		struct lkpetc_re *r = &l->v[l->n];
		struct strbuf e = STRBUF_INIT;
		r->src = xstrdup(lines[i]);
		literal_prefix(r);
		if (lkpetc_regcomp(&r->re, r->src, 0, &e)) {
			strbuf_setf(err, "%s: %s: a regex that does not compile: %s; write it as lkp-tests does", path,
				    lines[i], e.buf);
			strbuf_release(&e);
			free(r->src);
			free(r->lit);
			ret = -1;
			break;
		}
		r->compiled = true;
		if (!r->lit_only)
			r->need = required_literal(r->src);
		l->n++;
		strbuf_release(&e);
	}
	/* a pattern anchored on a literal can only match a text that starts with its first byte */
	for (size_t c = 0; c < 256; c++) {
		l->by_first[c] = xcalloc(l->n ? l->n : 1, sizeof(size_t));
		for (size_t i = 0; i < l->n; i++)
			if (!(l->v[i].anchored && l->v[i].litlen) || (unsigned char)l->v[i].lit[0] == c)
				l->by_first[c][l->nby_first[c]++] = i;
	}
	return ret;
}

/* A pattern file; `anchor` puts ^ in front of every line (lkp-tests' %r{^#{pattern}}). */
static int load_list(const char *name, bool anchor, struct lkpetc_list *l, struct strbuf *err)
{
	char *path = NULL;
	size_t n;
	char **lines = read_lines(name, &n, &path, err);
	int ret = lines ? 0 : -1;

	for (size_t i = 0; anchor && lines && i < n; i++) {
		char *a = xasprintf("^%s", lines[i]);
		free(lines[i]);
		lines[i] = a;
	}
	if (compile_list(lines, lines ? n : 0, path, l, err))
		ret = -1;
	free_lines(lines);
	free(path);
	return ret;
}

/* A YAML file that is a map (or empty: NULL in *map, 0). -1 with err: unreadable, or no map. */
static int load_map(const char *name, struct node **map, char **path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret = -1;

	*map = NULL;
	if (read_file(name, &text, path, err))
		goto out;
	ret = 0;
	if (!text.len || strspn(text.buf, " \t\r\n") == text.len)
		goto out; /* an empty file: nothing in it */
	ret = -1;
	if (!(*map = yml_load_one(text.buf, *path, err)))
		goto out;
	if ((*map)->type != NODE_MAP && !node_is_null(*map)) {
		strbuf_setf(err, "%s: not a map of stat regex -> number", *path);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&text);
	return ret;
}

/* A number of such a map; -1 with err naming the file and key when it is none. */
static int map_number(const struct node *map, size_t i, const char *path, double *v, struct strbuf *err)
{
	const char *s = node_str(map->vals[i]);
	char *end;

	*v = s ? strtod(s, &end) : 0;
	if (!s || end == s || *end) {
		strbuf_setf(err, "%s: %s: '%s' is not a number; write it as lkp-tests does, e.g. 10, 2.00 or -0.1",
			    path, map->keys[i], s ? s : "");
		return -1;
	}
	return 0;
}

/*
 * An index file (etc/index-*.yaml: regex -> weight), matched as lkp-tests'
 * /^#{regex}$/ (lib/stats.rb kpi_stat_direction), in the file's order.
 */
static int load_index(const char *name, struct index *ix, struct strbuf *err)
{
	struct node *map = NULL;
	char *path = NULL, **lines = NULL;
	size_t n = 0;
	int ret = -1;

	if (load_map(name, &map, &path, err))
		goto out;
	size_t nk = map && map->type == NODE_MAP ? map->n : 0;
	lines = xcalloc(nk + 1, sizeof(*lines));
	ix->weight = xcalloc(nk + 1, sizeof(*ix->weight));
	for (size_t i = 0; i < nk; i++) {
		if (map->vals[i]->comment)
			continue;
		if (map_number(map, i, path, &ix->weight[n], err))
			goto out;
		lines[n++] = xasprintf("^%s$", map->keys[i]);
	}
	ret = compile_list(lines, n, path, &ix->l, err);
out:
	free_lines(lines);
	node_free(map);
	free(path);
	return ret;
}

static int load_thresholds(struct strbuf *err)
{
	char *path = NULL;
	struct node *map = NULL;
	int ret = -1;

	if (load_map("perf-metrics-threshold.yaml", &map, &path, err))
		goto out;
	size_t nk = map && map->type == NODE_MAP ? map->n : 0;
	etc.thr = xcalloc(nk ? nk : 1, sizeof(*etc.thr));
	for (size_t i = 0; i < nk; i++) {
		const char *v = node_str(map->vals[i]);
		struct strbuf e = STRBUF_INIT;
		double f;
		if (map->vals[i]->comment)
			continue;
		if (map_number(map, i, path, &f, err))
			goto out;
		char *anchored = xasprintf("^(%s)$", map->keys[i]);
		int rc = lkpetc_regcomp(&etc.thr[etc.nthr].re, anchored, REG_NOSUB, &e);
		free(anchored);
		if (rc) {
			strbuf_setf(err, "%s: %s: a regex that does not compile: %s", path, map->keys[i], e.buf);
			strbuf_release(&e);
			goto out;
		}
		etc.thr[etc.nthr].floor = f;
		/* Ruby's YAML: an Integer unless the number has a point or an exponent */
		etc.thr[etc.nthr++].whole = !strpbrk(v, ".eE");
		strbuf_release(&e);
	}
	ret = 0;
out:
	node_free(map);
	free(path);
	return ret;
}

/*
 * Which way is better, as lkp-tests knows it: the index files in the order
 * its kpi_stat_direction asks them (index-perf-all, then index-latency-all),
 * then those `compare --index` merges after (index-power, index-latency,
 * index-size) and the older index-perf.
 */
static const char *const index_files[LKPETC_NINDEX] = {
	"index-perf-all.yaml", "index-latency-all.yaml", "index-power.yaml",
	"index-latency.yaml",  "index-size.yaml",	 "index-perf.yaml",
};

static int load_indexes(struct strbuf *err)
{
	for (size_t i = 0; i < LKPETC_NINDEX; i++)
		if (load_index(index_files[i], &etc.index[i], err))
			return -1;
	return 0;
}

static void load(void)
{
	struct strbuf err = STRBUF_INIT;
	char *path = NULL;
	size_t n;

	etc.rc = -1;
	if (load_list("stat-denylist", false, &etc.deny, &err) ||
	    load_list("stat-allowlist", false, &etc.allow, &err) ||
	    load_list("report-allowlist", false, &etc.report, &err) ||
	    load_list("perf-metrics-patterns", false, &etc.perf_patterns, &err) ||
	    load_list("failure", true, &etc.failure, &err) || load_list("pass", true, &etc.pass, &err) ||
	    load_list("oops-pattern", false, &etc.oops, &err) ||
	    load_list("oops-pattern-ignore", false, &etc.oops_ignore, &err) || load_thresholds(&err) ||
	    load_indexes(&err))
		goto out;
	if (!(etc.perf_prefixes = read_lines("perf-metrics-prefixes", &n, &path, &err)))
		goto out;
	etc.nperf_prefixes = n;
	free(path);
	path = NULL;
	if (!(etc.devices = read_lines("linux-device-names", &n, &path, &err)))
		goto out;
	free(path);
	path = NULL;
	if (!(etc.kmsg_deny = read_lines("kmsg-denylist.raw", &n, &path, &err)))
		goto out;
	etc.rc = 0;
out:
	free(path);
	if (etc.rc)
		etc.err = strbuf_detach(&err);
	strbuf_release(&err);
}

int lkpetc_load(struct strbuf *err)
{
	pthread_once(&etc.once, load);
	if (etc.rc)
		strbuf_setf(err, "%s", etc.err ? etc.err : "lkp-etc: cannot be loaded");
	return etc.rc;
}

static void ensure(void)
{
	pthread_once(&etc.once, load);
}

bool lkpetc_bisectable(const char *stat)
{
	ensure();
	return lkpetc_list_match(&etc.allow, stat) || !lkpetc_list_match(&etc.deny, stat);
}

bool lkpetc_report_allowed(const char *stat)
{
	ensure();
	return lkpetc_list_match(&etc.report, stat);
}

bool lkpetc_perf_metric(const char *stat)
{
	ensure();
	for (size_t i = 0; i < etc.nperf_prefixes; i++)
		if (!strncmp(stat, etc.perf_prefixes[i], strlen(etc.perf_prefixes[i])))
			return true;
	return lkpetc_list_match(&etc.perf_patterns, stat);
}

bool lkpetc_failure(const char *stat)
{
	ensure();
	return lkpetc_list_match(&etc.failure, stat);
}

bool lkpetc_pass(const char *stat)
{
	ensure();
	return lkpetc_list_match(&etc.pass, stat);
}

bool lkpetc_threshold(const char *stat, double *floor, bool *whole)
{
	ensure();
	for (size_t i = 0; i < etc.nthr; i++)
		if (!regexec(&etc.thr[i].re, stat, 0, NULL, 0)) {
			*floor = etc.thr[i].floor;
			*whole = etc.thr[i].whole;
			return true;
		}
	return false;
}

int lkpetc_direction(const char *stat)
{
	unsigned char c = (unsigned char)*stat;

	ensure();
	for (size_t k = 0; k < LKPETC_NINDEX; k++) {
		const struct index *ix = &etc.index[k];
		for (size_t i = 0; i < ix->l.nby_first[c]; i++) {
			size_t at = ix->l.by_first[c][i];
			if (pattern_match(&ix->l.v[at], stat))
				return ix->weight[at] > 0 ? +1 : ix->weight[at] < 0 ? -1 : 0;
		}
	}
	return 0;
}

const struct lkpetc_list *lkpetc_oops(void)
{
	ensure();
	return &etc.oops;
}

const struct lkpetc_list *lkpetc_oops_ignore(void)
{
	ensure();
	return &etc.oops_ignore;
}

static const char *const no_lines[] = { NULL };

const char *const *lkpetc_device_names(void)
{
	ensure();
	return etc.devices ? (const char *const *)etc.devices : no_lines;
}

const char *const *lkpetc_kmsg_denylist(void)
{
	ensure();
	return etc.kmsg_deny ? (const char *const *)etc.kmsg_deny : no_lines;
}

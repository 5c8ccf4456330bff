/*
 * klog_parse: the kernel log as lkp-tests measures it — the dmesg and kmsg
 * stats (its lib/dmesg.rb, programs/{dmesg,kmsg}/parse); the regexes are in
 * klog_patterns.c, the programs in klog.c.
 *
 * dmesg.* come from the serial console (`dmesg` in the result root): the
 * lines that are oopses, BUGs, WARNINGs, panics (lkp-etc/oops-pattern, not
 * oops-pattern-ignore, and call-trace lines) each become an error id —
 * the message with its numbers, addresses, devices and paths normalized,
 * "WARNING: CPU: 0 PID: 1 at fs/xfs/x.c:12 f+0x1/0x2" is
 * "WARNING:at_fs/xfs/x.c:#f" — counted 1 a run, plus dmesg.boot_failures
 * when there is one, and the timestamps. kmsg.* are the printk errors of
 * the kmsg monitor's log (levels err to emerg, not oopses, not in
 * kmsg-denylist.raw). The regexes are lkp-tests' (Ruby), compiled for POSIX
 * by lkpetc_regcomp() at each parse; a global substitution scans the
 * original text, as Ruby's gsub does.
 */
#include "../../stats/lkpetc.h"
#include "../../stats/stats.h"
#include "klog_int.h"
#include "programs.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* ---- Ruby's regexes, sub and gsub ---- */

struct rx {
	regex_t re;
	bool ok;
};

static void rx_init(struct rx *r, const char *ruby)
{
	struct strbuf e = STRBUF_INIT;

	r->ok = !lkpetc_regcomp(&r->re, ruby, 0, &e);
	strbuf_release(&e);
}

static void rx_free(struct rx *r)
{
	if (r->ok)
		regfree(&r->re);
	r->ok = false;
}

/* The first match at or after `from`, the text before it still its context (\b, ^). */
static bool rx_find(const struct rx *r, const char *s, size_t from, regmatch_t *m, size_t nm)
{
	m[0].rm_so = (regoff_t)from;
	m[0].rm_eo = (regoff_t)strlen(s);
	return r->ok && !regexec(&r->re, s, nm, m, REG_STARTEND);
}

static bool rx_match(const struct rx *r, const char *s, regmatch_t *m, size_t nm)
{
	regmatch_t one[1];
	return rx_find(r, s, 0, m ? m : one, m ? nm : 1);
}

/* Group g of the last match, appended. */
static void add_group(struct strbuf *out, const char *s, const regmatch_t *m, size_t g)
{
	if (m[g].rm_so >= 0)
		strbuf_add(out, s + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
}

/* s.sub / s.gsub(re, rep): \1..\9 in rep are groups; matches are found in the original text */
static void rx_sub(struct strbuf *s, const struct rx *r, const char *rep, bool all)
{
	struct strbuf out = STRBUF_INIT;
	regmatch_t m[10];
	size_t pos = 0;
	bool any = false;

	while (pos <= s->len && rx_find(r, s->buf, pos, m, 10)) {
		any = true;
		strbuf_add(&out, s->buf + pos, (size_t)m[0].rm_so - pos);
		for (const char *p = rep; *p; p++) {
			if (*p == '\\' && p[1] >= '1' && p[1] <= '9') {
				add_group(&out, s->buf, m, (size_t)(*++p - '0'));
				continue;
			}
			strbuf_addch(&out, *p);
		}
		pos = (size_t)m[0].rm_eo;
		if (m[0].rm_eo == m[0].rm_so) {	/* an empty match: the next character stays, the scan goes on after it */
			if (pos < s->len)
				strbuf_addch(&out, s->buf[pos]);
			pos++;
		}
		if (!all)
			break;
	}
	if (!any) {
		strbuf_release(&out);
		return;
	}
	if (pos < s->len)
		strbuf_add(&out, s->buf + pos, s->len - pos);
	strbuf_reset(s);
	strbuf_add(s, out.buf ? out.buf : "", out.len);
	strbuf_release(&out);
}

/* A plain string's every occurrence replaced (Ruby's gsub with a String). */
static void str_gsub(struct strbuf *s, const char *from, const char *to)
{
	struct strbuf out = STRBUF_INIT;
	size_t n = strlen(from);
	const char *p = s->buf, *hit;

	if (!s->len || !(hit = strstr(p, from)))
		return;
	for (; (hit = strstr(p, from)); p = hit + n) {
		strbuf_add(&out, p, (size_t)(hit - p));
		strbuf_addstr(&out, to);
	}
	strbuf_addstr(&out, p);
	strbuf_reset(s);
	strbuf_add(s, out.buf, out.len);
	strbuf_release(&out);
}

/* ---- lib/dmesg.rb's regexes (klog_patterns.c), compiled once a parse ---- */

struct klog {
	struct rx r[R_COUNT];
	struct rx simple[KLOG_NSIMPLE];
};

static void klog_init(struct klog *k)
{
	struct strbuf dev = STRBUF_INIT;

	for (size_t i = 0; i < R_COUNT; i++)
		if (klog_rx_src[i])
			rx_init(&k->r[i], klog_rx_src[i]);
	for (size_t i = 0; i < KLOG_NSIMPLE; i++)
		rx_init(&k->simple[i], klog_simple_src[i]);
	/* LINUX_DEVICE_NAMES_RE: \b(<every name>)\d+ */
	strbuf_addstr(&dev, "\\b(");
	const char *const *names = lkpetc_device_names();
	for (size_t i = 0; names[i]; i++)
		strbuf_addf(&dev, "%s%s", i ? "|" : "", names[i]);
	strbuf_addstr(&dev, ")\\d+");
	if (names[0])
		rx_init(&k->r[R_G_DEVICES], dev.buf);
	strbuf_release(&dev);
}

static void klog_release(struct klog *k)
{
	for (size_t i = 0; i < R_COUNT; i++)
		rx_free(&k->r[i]);
	for (size_t i = 0; i < KLOG_NSIMPLE; i++)
		rx_free(&k->simple[i]);
}

/* ---- the lines ---- */

struct lines {
	char **v;
	size_t n, alloc;
};

static void lines_push(struct lines *l, char *s)
{
	ALLOC_GROW(l->v, l->n + 1, l->alloc);
	l->v[l->n++] = s;
}

static void lines_release(struct lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * fixup_dmesg_file: each line (\r\n or \n cut, NULs dropped as grep reads
 * them) with the build paths and .isra suffixes dropped, and a line where
 * a kernel message follows other text split before the timestamp.
 */
static void fixup(const struct klog *k, const char *text, size_t len, struct lines *out)
{
	struct strbuf line = STRBUF_INIT;
	regmatch_t m[3];

	for (size_t i = 0; i < len;) {
		size_t e = i;
		while (e < len && text[e] != '\n')
			e++;
		strbuf_reset(&line);
		for (size_t j = i; j < e; j++)
			if (text[j])
				strbuf_addch(&line, text[j]);
		if (line.len && line.buf[line.len - 1] == '\r')
			strbuf_setlen(&line, line.len - 1);
		if (!line.len)
			strbuf_addstr(&line, "");
		rx_sub(&line, &k->r[R_KBUILD], "", false);
		rx_sub(&line, &k->r[R_TMP_KBUILD], "", false);
		rx_sub(&line, &k->r[R_ISRA_0X], "+0x", false);
		if (!rx_match(&k->r[R_NO_SPLIT], line.buf, NULL, 0) && rx_match(&k->r[R_SPLIT], line.buf, m, 3)) {
			lines_push(out, xstrndup(line.buf + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so)));
			lines_push(out, xstrndup(line.buf + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so)));
		} else {
			lines_push(out, xstrdup(line.buf));
		}
		i = e + 1;
	}
	strbuf_release(&line);
}

/* An ordered map: error id or oops -> line (Ruby's Hash keeps the order of insertion). */
struct omap {
	char **keys, **vals;
	size_t n, alloc;
};

static bool omap_has(const struct omap *m, const char *key)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return true;
	return false;
}

/* m[key] ||= val */
static void omap_add(struct omap *m, const char *key, const char *val)
{
	if (omap_has(m, key))
		return;
	if (m->n + 1 > m->alloc) {
		m->alloc = m->alloc ? 2 * m->alloc : 16;
		m->keys = xrealloc(m->keys, m->alloc * sizeof(*m->keys));
		m->vals = xrealloc(m->vals, m->alloc * sizeof(*m->vals));
	}
	m->keys[m->n] = xstrdup(key);
	m->vals[m->n++] = xstrdup(val);
}

static void omap_release(struct omap *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->keys[i]);
		free(m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/*
 * concat_context_from_dmesg: a lockdep report's line, and the same with the
 * first 4 of "trying to acquire lock", "already holding lock" and "at: ..."
 * of the 30 lines after it joined on ("at:" from the word at on).
 */
static void lockdep_context(const struct klog *k, const struct lines *all, size_t at, struct lines *out)
{
	struct strbuf joined = STRBUF_INIT;
	size_t found = 0;
	regmatch_t m[1];

	lines_push(out, xstrdup(all->v[at]));
	if (!rx_match(&k->r[R_LOCKDEP], all->v[at], NULL, 0))
		return;
	strbuf_addstr(&joined, all->v[at]);
	for (size_t i = at + 1; i < all->n && i <= at + 30 && found < 4; i++) {
		if (!rx_match(&k->r[R_LOCKDEP_CONTEXT], all->v[i], m, 1))
			continue;
		found++;
		/* sed 's/^.* at:/at:/', then the leading "[...] " removed (as lib/dmesg.rb) */
		const char *l = all->v[i], *a = NULL;
		for (const char *p = strstr(l, " at:"); p; p = strstr(p + 1, " at:"))
			a = p;
		const char *t = a ? a + 1 : l;
		if (!a && *t == '[') {
			const char *c = strrchr(t, ']');	/* Ruby's greedy ^\[.*\] */
			if (c && c[1] == ' ')
				t = c + 2;
		}
		strbuf_addf(&joined, " %s", t);
	}
	if (found)
		lines_push(out, strbuf_detach(&joined));
	strbuf_release(&joined);
}

/* grep_crash_head: oops lines and call traces, keyed by what they say (oops_map) */
static void crash_head(const struct klog *k, const struct lines *all, struct omap *oops)
{
	const struct lkpetc_list *pat = lkpetc_oops(), *ignore = lkpetc_oops_ignore();
	struct lines raw = { 0 };
	const char *prev = NULL;
	bool has_oom = false;
	regmatch_t m[2];

	for (size_t i = 0; i < all->n; i++) {
		const char *l = all->v[i];
		if (!strstr(l, "+0x") && !lkpetc_list_match(pat, l))
			continue;
		if (lkpetc_list_match(ignore, l))
			continue;
		lockdep_context(k, all, i, &raw);
	}
	for (size_t i = 0; i < raw.n; i++) {
		const char *l = raw.v[i];
		size_t so, eo;
		if (lkpetc_list_first(pat, l, &so, &eo)) {
			char *key = xstrndup(l + so, eo - so);
			omap_add(oops, key, l);
			free(key);
			if (rx_match(&k->r[R_OOM], l, NULL, 0))
				has_oom = true;
		} else if (strstr(l, "+0x")) {
			if (strstr(l, " ? "))
				continue;
			if (rx_match(&k->r[R_CALLTRACE], l, NULL, 0)) {
				const char *trace[2] = { strstr(l, "SyS_") ? NULL : prev, l };
				for (size_t t = 0; t < 2; t++) {
					if (!trace[t] || has_oom || rx_match(&k->r[R_CALLTRACE_IGNORE], trace[t], NULL, 0) ||
					    !rx_match(&k->r[R_CALLTRACE_FUNC], trace[t], m, 2))
						continue;
					char *key = xasprintf("calltrace:%.*s", (int)(m[1].rm_eo - m[1].rm_so), trace[t] + m[1].rm_so);
					omap_add(oops, key, trace[t]);
					free(key);
				}
				prev = NULL;
			} else {
				prev = l;
			}
		}
	}
	lines_release(&raw);
}

/* oops_to_bisect_pattern: only whether it is empty counts (an empty one is no error) */
static char *to_bisect(const struct klog *k, const char *line)
{
	struct strbuf out = STRBUF_INIT;
	char **pat = NULL;
	size_t n = 0, alloc = 0, words = 0;
	char *copy = xstrdup(line), *save = NULL;
	regmatch_t m[2];

	for (char *w = strtok_r(copy, " \t\n\v\f\r", &save); w; w = strtok_r(NULL, " \t\n\v\f\r", &save))
		words++;
	free(copy);
	if (words <= 1) {
		free(pat);
		return xstrdup(words ? line : "");
	}
	copy = xstrdup(line);
	for (char *w = strtok_r(copy, " \t\n\v\f\r", &save); w; w = strtok_r(NULL, " \t\n\v\f\r", &save)) {
		ALLOC_GROW(pat, n + 1, alloc);
		if (rx_match(&k->r[R_W_ISRA], w, m, 2) || rx_match(&k->r[R_W_0X], w, m, 2) ||
		    rx_match(&k->r[R_W_EQ], w, m, 2)) {
			pat[n++] = xstrndup(w + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
			break;
		} else if (rx_match(&k->r[R_W_FILE], w, m, 2)) {
			pat[n++] = xasprintf("%.*s:.*", (int)(m[1].rm_eo - m[1].rm_so), w + m[1].rm_so);
		} else if (rx_match(&k->r[R_W_OTHER], w, NULL, 0)) {
			if (!n || strcmp(pat[n - 1], ".*"))
				pat[n++] = xstrdup(".*");
		} else {
			pat[n++] = xstrdup(w);
		}
	}
	free(copy);
	size_t lo = 0, hi = n;
	while (lo < hi && !strcmp(pat[lo], ".*"))
		lo++;
	while (hi > lo && !strcmp(pat[hi - 1], ".*"))
		hi--;
	for (size_t i = lo; i < hi; i++)
		strbuf_addf(&out, "%s%s", i > lo ? " " : "", pat[i]);
	for (size_t i = 0; i < n; i++)
		free(pat[i]);
	free(pat);
	return strbuf_detach(&out);
}

/* handle_known_patterns: true, with the line and what to bisect set, when one applies */
static bool known_patterns(const struct klog *k, struct strbuf *line, char **bug)
{
	regmatch_t m[3];
	struct strbuf x = STRBUF_INIT;

	for (size_t i = 0; i < KLOG_NSIMPLE; i++)
		if (rx_match(&k->simple[i], line->buf, m, 2)) {
			add_group(&x, line->buf, m, 1);
			*bug = xstrdup(x.buf);
			strbuf_reset(line);
			strbuf_addstr(line, *bug);
			strbuf_release(&x);
			return true;
		}
	if (rx_match(&k->r[R_COMP_LOCKS], line->buf, m, 3) || rx_match(&k->r[R_COMP_BLOCKED], line->buf, m, 3)) {
		add_group(&x, line->buf, m, 1);
		add_group(&x, line->buf, m, 2);
		*bug = xstrndup(line->buf + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
		strbuf_reset(line);
		strbuf_addstr(line, x.buf);
		strbuf_release(&x);
		return true;
	}
	/* handle_complex_patterns */
	if (rx_match(&k->r[R_X_WARNING], line->buf, m, 2)) {
		struct strbuf fn = STRBUF_INIT;
		add_group(&fn, line->buf, m, 1);
		rx_sub(&fn, &k->r[R_ISRA_0X], "", false);
		*bug = xasprintf("WARNING:.* at .* %s", fn.buf);
		strbuf_release(&fn);
		if (rx_match(&k->r[R_X_AT], line->buf, m, 2)) {
			strbuf_addstr(&x, "WARNING: ");
			add_group(&x, line->buf, m, 1);
			strbuf_reset(line);
			strbuf_addstr(line, x.buf);
		}
	} else if (rx_match(&k->r[R_X_UBSAN], line->buf, m, 2) || rx_match(&k->r[R_X_SMP_ID], line->buf, m, 2) ||
		   rx_match(&k->r[R_X_ADDR], line->buf, m, 2)) {
		add_group(&x, line->buf, m, 1);
		strbuf_reset(line);
		strbuf_addstr(line, x.buf);
		*bug = to_bisect(k, line->buf);
	} else if (rx_match(&k->r[R_X_KEY], line->buf, m, 3) || rx_match(&k->r[R_X_DENTRY], line->buf, m, 3)) {
		struct strbuf b = STRBUF_INIT;
		add_group(&x, line->buf, m, 1);
		add_group(&x, line->buf, m, 2);
		add_group(&b, line->buf, m, 1);
		strbuf_addstr(&b, ".* ");
		add_group(&b, line->buf, m, 2);
		*bug = strbuf_detach(&b);
		strbuf_reset(line);
		strbuf_addstr(line, x.buf);
	} else if (rx_match(&k->r[R_X_BACKTRACE], line->buf, m, 2) || rx_match(&k->r[R_X_CALLTRACE], line->buf, m, 2)) {
		add_group(&x, line->buf, m, 1);
		strbuf_addstr(&x, "+0x");
		*bug = strbuf_detach(&x);
	} else if (rx_match(&k->r[R_X_LOWMEM], line->buf, NULL, 0)) {
		*bug = to_bisect(k, line->buf);
		rx_sub(line, &k->r[R_X_LOWMEM_PHYS], "# phys", false);
		rx_sub(line, &k->r[R_X_LOWMEM_EQ], "= #", false);
	} else if (rx_match(&k->r[R_X_KOBJECT], line->buf, NULL, 0)) {
		*bug = to_bisect(k, line->buf);
		rx_sub(line, &k->r[R_X_KOBJECT_SUB], "kobject (#)", false);
	} else if (rx_match(&k->r[R_X_RSS], line->buf, NULL, 0)) {
		*bug = to_bisect(k, line->buf);
		rx_sub(line, &k->r[R_X_RSS], "BUG: Bad rss-counter state mm:# ", false);
	} else if (rx_match(&k->r[R_X_PAGETABLE], line->buf, NULL, 0)) {
		*bug = to_bisect(k, line->buf);
		rx_sub(line, &k->r[R_X_PAGETABLE], "Bad pagetable: # [#", false);
	} else if (rx_match(&k->r[R_X_SLAB], line->buf, m, 3)) {
		*bug = to_bisect(k, line->buf);
		add_group(&x, line->buf, m, 1);
		strbuf_addstr(&x, "(#) ");
		add_group(&x, line->buf, m, 2);
		strbuf_reset(line);
		strbuf_addstr(line, x.buf);
	} else if (rx_match(&k->r[R_X_END], line->buf, m, 3)) {
		add_group(&x, line->buf, m, 1);
		add_group(&x, line->buf, m, 2);
		strbuf_reset(line);
		strbuf_addstr(line, x.buf);
		*bug = to_bisect(k, line->buf);
	} else if (rx_match(&k->r[R_X_SEGFAULT], line->buf, NULL, 0)) {
		strbuf_reset(line);
		strbuf_addstr(line, "segfault at ip sp error");
		*bug = to_bisect(k, line->buf);
	} else {
		strbuf_release(&x);
		return false;
	}
	strbuf_release(&x);
	return true;
}

/* common_error_id, then the rest of generate_error_id */
static void error_id(const struct klog *k, struct strbuf *id)
{
	const struct rx *r = k->r;

	/* generate_error_id */
	rx_sub(id, &r[R_G_BRACKET], "", true);
	rx_sub(id, &r[R_G_KTESTS], "", true);
	rx_sub(id, &r[R_G_CWFG], "", true);
	rx_sub(id, &r[R_G_LKP], "", true);
	rx_sub(id, &r[R_G_KTLINUX], "", true);
	rx_sub(id, &r[R_G_ISRA], "", true);
	rx_sub(id, &r[R_G_BLOCKDEV], "\\1#", true);
	rx_sub(id, &r[R_G_DEVICES], "\\1#", true);
	rx_sub(id, &r[R_G_HEX8], "#", true);
	rx_sub(id, &r[R_G_HEX16], "#", true);
	rx_sub(id, &r[R_G_EQHEX], "\\1#", true);
	rx_sub(id, &r[R_G_OFFSET0X], "", true);
	rx_sub(id, &r[R_G_OFFSET], "", true);
	rx_sub(id, &r[R_G_TAINTED], "", true);
	/* common_error_id */
	while (id->len && id->buf[id->len - 1] == '\n')
		strbuf_setlen(id, id->len - 1);
	rx_sub(id, &r[R_C_VERSION], "#", true);
	rx_sub(id, &r[R_C_DATE], "#", true);
	rx_sub(id, &r[R_C_HEX], "#", true);
	rx_sub(id, &r[R_C_SHA1], "#", true);
	rx_sub(id, &r[R_C_NUMBER], "#", true);
	rx_sub(id, &r[R_C_HASHX], "0x", true);
	rx_sub(id, &r[R_C_QUOTE], "~", true);
	rx_sub(id, &r[R_C_BLANK], " ", true);
	rx_sub(id, &r[R_C_SPACES], " ", true);
	rx_sub(id, &r[R_C_AFTER], "\\1", true);
	rx_sub(id, &r[R_C_BEFORE], "\\1", true);
	rx_sub(id, &r[R_C_LEADING], "", true);
	str_gsub(id, "  _", "_");
	for (size_t i = 0; i < id->len; i++)
		if (id->buf[i] == ' ')
			id->buf[i] = '_';
	rx_sub(id, &r[R_C_TRAILING], "", true);
	/* generate_error_id, after */
	rx_sub(id, &r[R_G_LINENO], "\\1", true);
	rx_sub(id, &r[R_G_RIPADDR], "", true);
	str_gsub(id, "RIP:#:", "RIP:");
	rx_sub(id, &r[R_G_WORDNUM1], "#", true);
	rx_sub(id, &r[R_G_WORDNUM2], "#", true);
}

/* analyze_error_id: the id of an oops (or printk error) and whether there is anything to bisect */
static void analyze(const struct klog *k, const char *oops, struct strbuf *id, bool *bisectable)
{
	char *bug = NULL;

	strbuf_reset(id);
	strbuf_addstr(id, oops);
	rx_sub(id, &k->r[R_FACILITY], "", false);
	rx_sub(id, &k->r[R_CALLER], " ", false);
	rx_sub(id, &k->r[R_LEADING], "", false);
	if (!known_patterns(k, id, &bug))
		bug = to_bisect(k, id->buf);
	error_id(k, id);
	*bisectable = bug && *bug;
	free(bug);
}

/* Printable as Ruby's [[:print:]] (tab, newline, NUL too): a control character makes a line no error */
static bool printable(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
			return false;
	return true;
}

/* The timestamp of a line ("12.345678"), or NULL. */
static char *stamp(const struct rx *r, const char *line)
{
	regmatch_t m[3];

	if (!rx_match(r, line, m, 3) || m[2].rm_so < 0)
		return NULL;
	return xstrndup(line + m[2].rm_so, (size_t)(m[2].rm_eo - m[2].rm_so));
}

/*
 * A sanitizer's leak reports in the log (userspace under ASan), as the
 * kmsg parser's grep -o | sed | awk | tr pipeline makes them: each
 * "Direct/Indirect leak" starts a "sanitizer.direct_leak/<f1>/<f2>..." of
 * the functions of the frames #0-#5 that follow it.
 */
static void leaks(const struct klog *k, const struct lines *all, struct omap *oops)
{
	struct strbuf chain = STRBUF_INIT, l = STRBUF_INIT;
	regmatch_t m[1];

	for (size_t i = 0; i < all->n; i++)
		for (size_t pos = 0; rx_find(&k->r[R_K_LEAK], all->v[i], pos, m, 1); pos = (size_t)m[0].rm_eo) {
			const char *t = all->v[i] + m[0].rm_so;
			size_t n = (size_t)(m[0].rm_eo - m[0].rm_so);
			if (!n)
				break;
			if (!strncmp(t, "Indirect leak", 13)) {
				strbuf_addstr(&chain, "|sanitizer.indirect_leak/");
			} else if (!strncmp(t, "Direct leak", 11)) {
				strbuf_addstr(&chain, "|sanitizer.direct_leak/");
			} else {
				strbuf_reset(&l);
				strbuf_add(&l, t, n);
				rx_sub(&l, &k->r[R_K_FRAME], "", true);
				size_t s = strspn(l.buf, " \t");
				strbuf_add(&chain, l.buf + s, strcspn(l.buf + s, " \t"));
				strbuf_addch(&chain, '/');
			}
		}
	/* tr '|' '\n', and each line's last / cut */
	for (char *p = chain.buf, *bar; p && *p; p = bar ? bar + 1 : NULL) {
		bar = strchr(p, '|');
		size_t n = bar ? (size_t)(bar - p) : strlen(p);
		if (n && p[n - 1] == '/')
			n--;
		strbuf_reset(&l);
		strbuf_add(&l, p, n);
		omap_add(oops, l.buf, l.buf);
	}
	strbuf_release(&chain);
	strbuf_release(&l);
}

/* grep_printk_errors, the kmsg file's way: the printk errors, a boot's end, sanitizers, leaks */
static void printk_errors(const struct klog *k, const struct lines *all, struct omap *oops)
{
	struct strbuf l = STRBUF_INIT;
	const struct lkpetc_list *pat = lkpetc_oops();
	const char *const *deny = lkpetc_kmsg_denylist();
	for (size_t i = 0; i < all->n; i++) {
		if (!rx_match(&k->r[R_K_PRINTK], all->v[i], NULL, 0))
			continue;
		strbuf_reset(&l);
		strbuf_addstr(&l, all->v[i]);
		rx_sub(&l, &k->r[R_K_ANSI], "", true);
		if (lkpetc_list_match(pat, l.buf))
			continue;
		bool denied = false;
		for (size_t d = 0; deny[d] && !denied; d++)
			denied = strstr(l.buf, deny[d]) != NULL;
		if (!denied)
			omap_add(oops, l.buf, l.buf);
	}
	for (size_t i = 0; i < all->n; i++)
		if (strstr(all->v[i], "Kernel tests: Boot OK"))
			omap_add(oops, all->v[i], all->v[i]);
	for (size_t i = 0; i < all->n; i++) {
		regmatch_t m[1];
		if (rx_match(&k->r[R_K_SANITIZER], all->v[i], m, 1)) {
			strbuf_reset(&l);
			strbuf_addf(&l, "sanitizer.%.*s", (int)(m[0].rm_eo - m[0].rm_so), all->v[i] + m[0].rm_so);
			omap_add(oops, l.buf, l.buf);
		}
	}
	leaks(k, all, oops);
	strbuf_release(&l);
}

static int add_stat(struct stats_samples *out, const char *key, const char *value, struct strbuf *err)
{
	return stats_add_text(out, key, value, err);
}

/*
 * programs/{dmesg,kmsg}/parse: the error ids of the oopses (dmesg) or the
 * printk errors (kmsg) into stats.
 */
static int klog_parse_with(struct klog *kp, const char *text, size_t len, bool dmesg, struct stats_samples *out,
			   struct strbuf *err)
{
	struct klog k;
	struct lines all = { 0 };
	struct omap oops = { 0 }, ids = { 0 }, stamps = { 0 };
	struct strbuf id = STRBUF_INIT;
	int ret = 0;

	if (lkpetc_load(err))
		return -1;
	if (kp)
		k = *kp;
	else
		klog_init(&k);
	fixup(&k, text, len, &all);
	if (dmesg)
		crash_head(&k, &all, &oops);
	else
		printk_errors(&k, &all, &oops);
	for (size_t i = all.n; i-- > 0;) {
		char *ts = stamp(&k.r[R_STAMP_LAST], all.v[i]);
		if (ts) {
			omap_add(&stamps, "last", ts);
			free(ts);
			break;
		}
	}
	for (size_t i = 0; i < oops.n; i++) {
		const char *line = oops.vals[i];
		regmatch_t m[1];
		if (strstr(line, "cpu clock throttled")) {
			strbuf_setf(err, "cpu clock throttled: the kernel log is not parsed (lkp-tests does the same)");
			ret = -1;
			goto out;
		}
		if (strstr(line, "trinity") && (strstr(line, "invoked oom-killer:") ||
						strstr(line, "page allocation stalls for") || strstr(line, "tried to map")))
			break;
		if (rx_match(&k.r[R_HEX16], line, m, 1) || rx_match(&k.r[R_HEX4], line, m, 1) ||
		    rx_match(&k.r[R_HEX8], line, m, 1) || !printable(line))
			continue;
		bool bisectable;
		analyze(&k, oops.keys[i], &id, &bisectable);
		if (id.len <= 3 || !bisectable)
			continue;
		omap_add(&ids, id.buf, line);
		char *ts = stamp(&k.r[R_STAMP], line);
		if (ts)
			omap_add(&stamps, id.buf, ts);
		free(ts);
	}
	if (!dmesg && (ret = klog_selftests(all.v, all.n, out, err)))
		goto out;
	if (dmesg && ids.n && (ret = add_stat(out, "boot_failures", "1", err)))
		goto out;
	for (size_t i = 0; i < ids.n && !ret; i++)
		ret = add_stat(out, ids.keys[i], "1", err);
	for (size_t i = 0; i < stamps.n && !ret; i++) {
		char *key = xasprintf("timestamp:%s", stamps.keys[i]);
		ret = add_stat(out, key, stamps.vals[i], err);
		free(key);
	}
out:
	strbuf_release(&id);
	omap_release(&oops);
	omap_release(&ids);
	omap_release(&stamps);
	lines_release(&all);
	if (!kp)
		klog_release(&k);
	return ret;
}

int klog_parse_dmesg(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	return klog_parse_with(NULL, text, len, true, out, err);
}

int klog_parse_kmsg(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	return klog_parse_with(NULL, text, len, false, out, err);
}

struct klog *klog_open(struct strbuf *err)
{
	struct klog *k;

	if (lkpetc_load(err))
		return NULL;
	k = xcalloc(1, sizeof(*k));
	klog_init(k);
	return k;
}

int klog_parse_dmesg_with(struct klog *k, const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	return klog_parse_with(k, text, len, true, out, err);
}

void klog_close(struct klog *k)
{
	if (k)
		klog_release(k);
	free(k);
}

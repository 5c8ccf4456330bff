/*
 * ruby: Psych's scalar types, Ruby's to_s and inspect, and an evaluator
 * for the expressions of lkp-tests' job templates. See ruby.h.
 *
 * The scalar rules are those of Psych 4's ScalarScanner#tokenize (Ruby
 * 3.1), in its order: the "looks like a word" test first, then time, date,
 * infinities, symbols, sexagesimals, floats and integers. The evaluator
 * parses and evaluates in one pass; a branch not taken is parsed with
 * `live` off, so it reads no key and cannot fail on one.
 */
#include "ruby.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- scalars ---- */

static bool word_char(unsigned char c)
{
	/* [[:alpha:]_\s!@#$%^&*(){}<>|/\\~;=]; any non-ASCII byte counts as a letter */
	return c >= 0x80 || isalpha(c) || (c && strchr("_ \t\n\v\f\r!@#$%^&*(){}<>|/\\~;=", c));
}

static bool ci_eq(const char *a, const char *b)
{
	return !strcasecmp(a, b);
}

static bool all_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return n > 0;
}

/* ^-?\d{4}-\d{1,2}-\d{1,2}([Tt]|\s+)\d{1,2}:\d\d:\d\d(\.\d*)?(\s*(Z|[-+]\d{1,2}:?(\d\d)?))?$ */
static bool is_time(const char *s)
{
	const char *p = s;
	size_t n;

	if (*p == '-')
		p++;
	if (!all_digits(p, 4) || p[4] != '-')
		return false;
	p += 5;
	for (int part = 0; part < 2; part++) {
		n = strspn(p, "0123456789");
		if (n < 1 || n > 2)
			return false;
		p += n;
		if (part == 0 && *p++ != '-')
			return false;
	}
	if (*p == 'T' || *p == 't')
		p++;
	else if (isspace((unsigned char)*p))
		p += strspn(p, " \t\r\n\v\f");
	else
		return false;
	n = strspn(p, "0123456789");
	if (n < 1 || n > 2 || p[n] != ':')
		return false;
	p += n + 1;
	if (!all_digits(p, 2) || p[2] != ':' || !all_digits(p + 3, 2))
		return false;
	p += 5;
	if (*p == '.')
		p += 1 + strspn(p + 1, "0123456789");
	if (!*p)
		return true;
	p += strspn(p, " \t\r\n\v\f");
	if (*p == 'Z')
		return !p[1];
	if (*p != '-' && *p != '+')
		return false;
	p++;
	n = strspn(p, "0123456789");
	if (n < 1)
		return false;
	if (n > 2) {	/* \d{1,2} then (\d\d)? without the colon */
		return (n == 3 || n == 4) && !p[n];
	}
	p += n;
	if (*p == ':')
		p++;
	if (!*p)
		return true;
	return all_digits(p, 2) && !p[2];
}

/* ^\d{4}-(1[012]|0\d|\d)-([12]\d|3[01]|0\d|\d)$ and a real day (Date.strptime) */
static bool is_date(const char *s, int *y, int *m, int *d)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	size_t n1, n2;

	if (!all_digits(s, 4) || s[4] != '-')
		return false;
	n1 = strspn(s + 5, "0123456789");
	if (n1 < 1 || n1 > 2 || s[5 + n1] != '-')
		return false;
	n2 = strspn(s + 6 + n1, "0123456789");
	if (n2 < 1 || n2 > 2 || s[6 + n1 + n2])
		return false;
	*y = atoi(s);
	*m = atoi(s + 5);
	*d = atoi(s + 6 + n1);
	if (*m < 1 || *m > 12 || *d < 1 || *d > mdays[*m - 1])
		return false;
	if (*m == 2 && *d == 29 && !((*y % 4 == 0 && *y % 100) || *y % 400 == 0))
		return false;
	return true;
}

/* ^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}(\.[0-9_]*)?$ ; *frac says which */
static bool is_sexagesimal(const char *s, bool *frac)
{
	const char *p = s;
	int parts = 0;

	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	p += strspn(p, "0123456789_");
	while (*p == ':') {
		size_t n = strspn(p + 1, "0123456789");
		if (n == 2 && p[1] > '5')
			return false;
		if (n < 1 || n > 2)
			return false;
		p += 1 + n;
		parts++;
	}
	if (parts < 1 || parts > 2)
		return false;
	*frac = *p == '.';
	if (*frac)
		p += 1 + strspn(p + 1, "0123456789_");
	return !*p;
}

/* Ruby's String#to_i / to_f of a sexagesimal part (underscores allowed) */
static double part_value(const char *s, size_t n)
{
	char buf[64];
	size_t w = 0;

	for (size_t i = 0; i < n && w + 1 < sizeof(buf); i++)
		if (s[i] != '_')
			buf[w++] = s[i];
	buf[w] = '\0';
	return strtod(buf, NULL);
}

/* ^[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?$ */
static bool is_float(const char *s)
{
	const char *p = s;

	if (*p == '-' || *p == '+')
		p++;
	if (isdigit((unsigned char)*p))
		p += strspn(p, "0123456789_,");
	if (*p != '.')
		return false;
	p++;
	p += strspn(p, "0123456789");
	if (*p == 'e' || *p == 'E') {
		if (p[1] != '-' && p[1] != '+')
			return false;
		size_t n = strspn(p + 2, "0123456789");
		if (!n)
			return false;
		p += 2 + n;
	}
	return !*p;
}

/*
 * Psych's integer forms, commas and underscores allowed. Writes the
 * decimal value to out; false when s is no integer (or too large for 64
 * bits in a base other than ten, which no job uses).
 */
static bool parse_int(const char *s, struct strbuf *out)
{
	const char *p = s;
	bool neg = false;
	int base = 10;
	const char *digits;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	if (p[0] == '0' && p[1] == 'b')
		base = 2, p += 2, digits = "01_,";
	else if (p[0] == '0' && p[1] == 'x')
		base = 16, p += 2, digits = "0123456789abcdefABCDEF_,";
	else if (p[0] == '0' && p[1])
		base = 8, digits = "01234567_,";	/* the leading 0 is a digit */
	else
		digits = "0123456789";
	if (!*p)
		return false;
	if (base == 10) {
		/* 0|[1-9]([0-9]|,[0-9]|_[0-9])* */
		if (p[0] == '0') {
			if (p[1])
				return false;
		} else {
			if (!isdigit((unsigned char)p[0]))
				return false;
			for (const char *q = p + 1; *q; q++)
				if (!isdigit((unsigned char)*q) &&
				    !((*q == ',' || *q == '_') && isdigit((unsigned char)q[1])))
					return false;
		}
		if (neg && strcmp(p, "0"))
			strbuf_addch(out, '-');
		for (; *p; p++)
			if (isdigit((unsigned char)*p))
				strbuf_addch(out, *p);
		return true;
	}
	if (strspn(p, digits) != strlen(p))
		return false;
	uint64_t v = 0;
	bool any = false;
	for (; *p; p++) {
		if (*p == '_' || *p == ',')
			continue;
		int d = isdigit((unsigned char)*p) ? *p - '0' : (*p | 0x20) - 'a' + 10;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		v = v * (uint64_t)base + (uint64_t)d;
		any = true;
	}
	if (!any)
		return false;	/* Integer("0x") raises */
	strbuf_addf(out, "%s%llu", neg && v ? "-" : "", (unsigned long long)v);
	return true;
}

/* Ruby's Float#to_s: the shortest digits that read back, fixed or e-notation. */
static void float_to_s(double f, struct strbuf *out)
{
	char buf[40], digits[32];
	int prec, exp10, nd = 0;

	if (isnan(f)) {
		strbuf_addstr(out, "NaN");
		return;
	}
	if (isinf(f)) {
		strbuf_addstr(out, f < 0 ? "-Infinity" : "Infinity");
		return;
	}
	if (f == 0) {
		strbuf_addstr(out, signbit(f) ? "-0.0" : "0.0");
		return;
	}
	for (prec = 0; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*e", prec, f);
		if (strtod(buf, NULL) == f)
			break;
	}
	snprintf(buf, sizeof(buf), "%.*e", prec, f);
	/* buf: [-]d.ddde[+-]xx */
	const char *p = buf;
	if (*p == '-') {
		strbuf_addch(out, '-');
		p++;
	}
	for (; *p && *p != 'e'; p++)
		if (isdigit((unsigned char)*p))
			digits[nd++] = *p;
	digits[nd] = '\0';
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = '\0';
	exp10 = atoi(p + 1);
	int decpt = exp10 + 1;	/* digits[0] is at 10^(decpt-1) */
	if (decpt > 0 && decpt < 16) {
		if (nd <= decpt) {
			strbuf_addstr(out, digits);
			for (int i = nd; i < decpt; i++)
				strbuf_addch(out, '0');
			strbuf_addstr(out, ".0");
		} else {
			strbuf_add(out, digits, (size_t)decpt);
			strbuf_addch(out, '.');
			strbuf_addstr(out, digits + decpt);
		}
	} else if (decpt <= 0 && decpt > -4) {
		strbuf_addstr(out, "0.");
		for (int i = 0; i < -decpt; i++)
			strbuf_addch(out, '0');
		strbuf_addstr(out, digits);
	} else {
		strbuf_addch(out, digits[0]);
		strbuf_addch(out, '.');
		strbuf_addstr(out, nd > 1 ? digits + 1 : "0");
		strbuf_addf(out, "e%+03d", decpt - 1);
	}
}

/*
 * Time#to_s of a timestamp is_time() accepted: "Z" reads as UTC, an offset
 * is kept, no zone is this machine's local time (as Psych's Time.at).
 */
static void time_to_s(const char *s, struct strbuf *out)
{
	struct tm tm = { 0 };
	const char *p = s;
	char buf[64];
	long off = 0;
	int zone = 0;	/* 0 none, 1 Z, 2 offset */

	tm.tm_year = (int)strtol(p, (char **)&p, 10) - 1900;
	tm.tm_mon = (int)strtol(p + 1, (char **)&p, 10) - 1;
	tm.tm_mday = (int)strtol(p + 1, (char **)&p, 10);
	p += strspn(p, "Tt \t");
	tm.tm_hour = (int)strtol(p, (char **)&p, 10);
	tm.tm_min = (int)strtol(p + 1, (char **)&p, 10);
	tm.tm_sec = (int)strtol(p + 1, (char **)&p, 10);
	if (*p == '.')
		p += 1 + strspn(p + 1, "0123456789");
	p += strspn(p, " \t");
	if (*p == 'Z') {
		zone = 1;
	} else if (*p == '-' || *p == '+') {
		int sign = *p == '-' ? -1 : 1;
		size_t n = strspn(p + 1, "0123456789");
		long h, m = 0;
		if (n > 2) {	/* +HHMM or +HMM */
			char hh[3] = { 0 };
			memcpy(hh, p + 1, n - 2);
			h = strtol(hh, NULL, 10);
			m = strtol(p + 1 + n - 2, NULL, 10);
		} else {
			h = strtol(p + 1, (char **)&p, 10);
			if (*p == ':')
				p++;
			if (isdigit((unsigned char)*p))
				m = strtol(p, NULL, 10);
		}
		off = sign * (h * 3600 + m * 60);
		zone = 2;
	}
	time_t t = timegm(&tm) - off;
	if (zone == 1) {
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&t, &tm));
	} else if (zone == 2) {
		time_t local = t + off;
		gmtime_r(&local, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), " %c%02ld%02ld",
			 off < 0 ? '-' : '+', labs(off) / 3600, labs(off) % 3600 / 60);
	} else {
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S %z", localtime_r(&t, &tm));
	}
	strbuf_addstr(out, buf);
}

/* The type of a plain scalar's text, as ScalarScanner#tokenize decides. */
static enum ruby_type scalar_type(const char *s, struct strbuf *to_s)
{
	size_t len = strlen(s);
	int y, m, d;
	bool frac;

	if (!len)
		return RUBY_NIL;
	if (word_char((unsigned char)s[0]) ||
	    (!isdigit((unsigned char)s[0]) && !strchr(".:-", s[0]) && word_char((unsigned char)s[1])) ||
	    strchr(s, '\n')) {
		if (len > 5 || !strchr("ytonfYTONF~", s[0]))
			goto string;
		if (!strcmp(s, "~") || ci_eq(s, "null"))
			return RUBY_NIL;
		if (ci_eq(s, "yes") || ci_eq(s, "true") || ci_eq(s, "on")) {
			if (to_s)
				strbuf_addstr(to_s, "true");
			return RUBY_TRUE;
		}
		if (ci_eq(s, "no") || ci_eq(s, "false") || ci_eq(s, "off")) {
			if (to_s)
				strbuf_addstr(to_s, "false");
			return RUBY_FALSE;
		}
		goto string;
	}
	if (is_time(s)) {
		if (to_s)
			time_to_s(s, to_s);
		return RUBY_TIME;
	}
	if (is_date(s, &y, &m, &d)) {
		if (to_s)
			strbuf_addf(to_s, "%04d-%02d-%02d", y, m, d);
		return RUBY_DATE;
	}
	if (ci_eq(s, ".inf") || ci_eq(s, "+.inf") || ci_eq(s, "-.inf") || ci_eq(s, ".nan")) {
		if (to_s)
			strbuf_addstr(to_s, s[1] == 'n' || s[1] == 'N' ? "NaN"
					   : s[0] == '-' ? "-Infinity" : "Infinity");
		return RUBY_FLOAT;
	}
	if (s[0] == ':' && s[1]) {
		if (to_s) {
			const char *q = strchr("\"'", s[1]) ? strrchr(s + 2, s[1]) : NULL;
			if (q && q > s + 1) {
				const char *b = s + 2;
				if (*b == ':' && b < q)
					b++;
				strbuf_add(to_s, b, (size_t)(q - b));
			} else {
				strbuf_addstr(to_s, s + 1);
			}
		}
		return RUBY_SYMBOL;
	}
	if (is_sexagesimal(s, &frac)) {
		/* Psych weighs part e by 60^|e-2|: "1:30" is 5400, as it says */
		static const double weight[] = { 3600, 60, 1 };
		double v = 0;
		int e = 0;
		for (const char *p = s;; e++) {
			size_t n = strcspn(p, ":");
			v += part_value(p, n) * weight[e];
			if (!p[n])
				break;
			p += n + 1;
		}
		if (frac) {
			if (to_s)
				float_to_s(v, to_s);
			return RUBY_FLOAT;
		}
		if (to_s)
			strbuf_addf(to_s, "%.0f", v);
		return RUBY_INT;
	}
	if (is_float(s)) {
		char buf[128];
		size_t w = 0;
		const char *p = s;
		if ((p[0] == '-' || p[0] == '+') && p[1] == '.' && !p[2])
			goto string;
		if (p[0] == '.' && !p[1])
			goto string;
		for (; *p && w + 1 < sizeof(buf); p++) {
			if (*p == ',' || *p == '_')
				continue;
			if (*p == '.' && (!p[1] || p[1] == 'e' || p[1] == 'E'))
				continue;
			buf[w++] = *p;
		}
		buf[w] = '\0';
		if (to_s)
			float_to_s(strtod(buf, NULL), to_s);
		return RUBY_FLOAT;
	}
	if (to_s) {
		size_t mark = to_s->len;
		if (parse_int(s, to_s))
			return RUBY_INT;
		strbuf_setlen(to_s, mark);
	} else {
		struct strbuf tmp = STRBUF_INIT;
		bool ok = parse_int(s, &tmp);
		strbuf_release(&tmp);
		if (ok)
			return RUBY_INT;
	}
string:
	if (to_s)
		strbuf_addstr(to_s, s);
	return RUBY_STRING;
}

static void inspect(const struct node *v, struct strbuf *out);

static void inspect_string(const char *s, struct strbuf *out)
{
	strbuf_addch(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': strbuf_addstr(out, "\\\""); break;
		case '\\': strbuf_addstr(out, "\\\\"); break;
		case '\n': strbuf_addstr(out, "\\n"); break;
		case '\t': strbuf_addstr(out, "\\t"); break;
		case '\r': strbuf_addstr(out, "\\r"); break;
		case '#':
			strbuf_addstr(out, p[1] == '{' || p[1] == '$' || p[1] == '@' ? "\\#" : "#");
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				strbuf_addf(out, "\\x%02X", *p);
			else
				strbuf_addch(out, (char)*p);
		}
	}
	strbuf_addch(out, '"');
}

/* Ruby's inspect of a value inside a list or map */
static void inspect(const struct node *v, struct strbuf *out)
{
	if (v->type == NODE_SEQ) {
		strbuf_addch(out, '[');
		for (size_t i = 0; i < v->n; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			inspect(v->vals[i], out);
		}
		strbuf_addch(out, ']');
		return;
	}
	if (v->type == NODE_MAP) {
		bool first = true;
		strbuf_addch(out, '{');
		for (size_t i = 0; i < v->n; i++) {
			if (v->vals[i]->comment)
				continue;
			if (!first)
				strbuf_addstr(out, ", ");
			first = false;
			inspect_string(v->keys[i], out);
			strbuf_addstr(out, "=>");
			inspect(v->vals[i], out);
		}
		strbuf_addch(out, '}');
		return;
	}
	struct strbuf s = STRBUF_INIT;
	switch (ruby_value(v, &s)) {
	case RUBY_NIL: strbuf_addstr(out, "nil"); break;
	case RUBY_STRING: inspect_string(s.buf, out); break;
	case RUBY_SYMBOL: strbuf_addf(out, ":%s", s.buf); break;
	case RUBY_DATE: strbuf_addf(out, "#<Date: %s>", s.buf); break;
	default: strbuf_addstr(out, s.buf); break;
	}
	strbuf_release(&s);
}

enum ruby_type ruby_value(const struct node *v, struct strbuf *to_s)
{
	if (!v || v->type == NODE_NULL)
		return RUBY_NIL;
	if (v->type == NODE_SEQ || v->type == NODE_MAP) {
		if (to_s)
			inspect(v, to_s);
		return v->type == NODE_SEQ ? RUBY_ARRAY : RUBY_HASH;
	}
	if (v->quoted) {
		if (to_s)
			strbuf_addstr(to_s, v->str);
		return RUBY_STRING;
	}
	return scalar_type(v->str, to_s);
}

bool ruby_truthy(const struct node *v)
{
	enum ruby_type t = ruby_value(v, NULL);
	return t != RUBY_NIL && t != RUBY_FALSE;
}

/* ---- the expression evaluator ---- */

enum vtype { V_NIL, V_BOOL, V_INT, V_FLOAT, V_STR, V_REGEX, V_NODE };

struct val {
	enum vtype t;
	bool b;
	long long i;
	double f;
	const char *s;		/* V_STR: in the evaluator's arena; V_REGEX: the pattern */
	const struct node *n;	/* V_NODE: a map or list of the context */
};

struct ev {
	const char *p;		/* the cursor */
	const struct node *ctx;
	struct strbuf *err;
	int failed;		/* 0, -1 or RUBY_UNKNOWN_KEY */
	char **arena;
	size_t narena, aarena;
};

static const struct val nil_val = { .t = V_NIL };

static const char *keep(struct ev *e, char *s)
{
	ALLOC_GROW(e->arena, e->narena + 1, e->aarena);
	e->arena[e->narena++] = s;
	return s;
}

static struct val fail(struct ev *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static struct val fail(struct ev *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e->failed) {
		e->failed = code;
		strbuf_reset(e->err);
		va_start(ap, fmt);
		strbuf_vaddf(e->err, fmt, ap);
		va_end(ap);
	}
	return nil_val;
}

static void skip_space(struct ev *e)
{
	for (;;) {
		e->p += strspn(e->p, " \t\r");
		if (e->p[0] == '\\' && e->p[1] == '\n') {
			e->p += 2;
			continue;
		}
		if (*e->p == '#') {
			e->p += strcspn(e->p, "\n");
			continue;
		}
		return;
	}
}

/* Newlines and ';' separate statements; inside an expression they may follow an operator. */
static void skip_nl(struct ev *e)
{
	for (;;) {
		skip_space(e);
		if (*e->p != '\n' && *e->p != ';')
			return;
		e->p++;
	}
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Is the next token the keyword (or operator) `w`? Consumes it if so. */
static bool accept(struct ev *e, const char *w)
{
	size_t n = strlen(w);

	skip_space(e);
	if (strncmp(e->p, w, n))
		return false;
	if (ident_char(w[0]) && ident_char(e->p[n]))
		return false;
	e->p += n;
	return true;
}

static bool peek_word(struct ev *e, const char *w)
{
	const char *save = e->p;
	bool r = accept(e, w);
	e->p = save;
	return r;
}

static struct val node_val(struct ev *e, const struct node *n)
{
	struct val v = nil_val;
	struct strbuf s = STRBUF_INIT;

	if (!n)
		return v;
	switch (ruby_value(n, &s)) {
	case RUBY_NIL: break;
	case RUBY_TRUE: v.t = V_BOOL; v.b = true; break;
	case RUBY_FALSE: v.t = V_BOOL; v.b = false; break;
	case RUBY_INT: v.t = V_INT; v.i = strtoll(s.buf, NULL, 10); break;
	case RUBY_FLOAT: v.t = V_FLOAT; v.f = strtod(s.buf, NULL); break;
	case RUBY_ARRAY:
	case RUBY_HASH: v.t = V_NODE; v.n = n; break;
	default:
		v.t = V_STR;
		v.s = keep(e, strbuf_detach(&s));
		break;
	}
	strbuf_release(&s);
	return v;
}

static const char *type_name(const struct val *v)
{
	switch (v->t) {
	case V_NIL: return "nil";
	case V_BOOL: return v->b ? "true" : "false";
	case V_INT: return "an Integer";
	case V_FLOAT: return "a Float";
	case V_STR: return "a String";
	case V_REGEX: return "a Regexp";
	case V_NODE: return v->n->type == NODE_SEQ ? "an Array" : "a Hash";
	}
	return "?";
}

static bool truthy(const struct val *v)
{
	return !(v->t == V_NIL || (v->t == V_BOOL && !v->b));
}

static bool num(const struct val *v, double *d)
{
	if (v->t == V_INT)
		*d = (double)v->i;
	else if (v->t == V_FLOAT)
		*d = v->f;
	else
		return false;
	return true;
}

static bool equal(const struct val *a, const struct val *b)
{
	double x, y;

	if (num(a, &x) && num(b, &y))
		return x == y;
	if (a->t != b->t)
		return false;
	switch (a->t) {
	case V_NIL: return true;
	case V_BOOL: return a->b == b->b;
	case V_STR:
	case V_REGEX: return !strcmp(a->s, b->s);
	case V_NODE: return node_equal(a->n, b->n);
	default: return false;
	}
}

static struct val match(struct ev *e, const struct val *str, const struct val *re)
{
	regex_t rx;
	regmatch_t m;
	struct val r = nil_val;

	if (str->t == V_NIL)
		return r;
	if (str->t != V_STR)
		return fail(e, -1, "=~ needs a String, not %s", type_name(str));
	if (regcomp(&rx, re->s, REG_EXTENDED))
		return fail(e, -1, "cannot read the regular expression /%s/", re->s);
	if (!regexec(&rx, str->s, 1, &m, 0)) {
		r.t = V_INT;
		r.i = m.rm_so;
	}
	regfree(&rx);
	return r;
}

static struct val expr(struct ev *e, bool live);
static struct val stmts(struct ev *e, bool live, const char *const *enders);

static const char *const end_only[] = { "end", NULL };
static const char *const if_enders[] = { "elsif", "else", "end", NULL };
static const char *const when_enders[] = { "when", "else", "end", NULL };

static bool at_ender(struct ev *e, const char *const *enders)
{
	skip_nl(e);
	if (!*e->p || *e->p == ')' || *e->p == '}')
		return true;
	for (const char *const *w = enders; w && *w; w++)
		if (peek_word(e, *w))
			return true;
	return false;
}

static void expect(struct ev *e, const char *w)
{
	skip_nl(e);
	if (!accept(e, w))
		fail(e, -1, "expected '%s' at '%.20s'", w, e->p);
}

/* "then" or a newline after a condition */
static void then(struct ev *e)
{
	skip_space(e);
	if (!accept(e, "then") && *e->p != '\n' && *e->p != ';')
		fail(e, -1, "expected 'then' or a new line at '%.20s'", e->p);
	skip_nl(e);
}

static struct val if_expr(struct ev *e, bool live, bool unless)
{
	struct val c = expr(e, live), r = nil_val;
	bool taken = live && (truthy(&c) != unless);
	bool done = taken;

	then(e);
	r = stmts(e, taken, if_enders);
	if (!taken)
		r = nil_val;
	while (!unless && accept(e, "elsif")) {
		c = expr(e, live && !done);
		taken = live && !done && truthy(&c);
		then(e);
		struct val b = stmts(e, taken, if_enders);
		if (taken)
			r = b;
		done |= taken;
	}
	skip_nl(e);
	if (accept(e, "else")) {
		struct val b = stmts(e, live && !done, end_only);
		if (live && !done)
			r = b;
	}
	expect(e, "end");
	return r;
}

static struct val case_expr(struct ev *e, bool live)
{
	struct val subject = nil_val, r = nil_val;
	bool has_subject = false, done = false;

	skip_space(e);
	if (*e->p != '\n' && *e->p != ';') {
		subject = expr(e, live);
		has_subject = true;
	}
	skip_nl(e);
	if (!peek_word(e, "when"))
		return fail(e, -1, "expected 'when' after 'case'");
	while (accept(e, "when")) {
		bool hit = false;
		do {
			skip_nl(e);
			struct val w = expr(e, live && !done);
			if (!live || done)
				continue;
			if (!has_subject)
				hit |= truthy(&w);
			else if (w.t == V_REGEX) {
				struct val m = match(e, &subject, &w);
				hit |= m.t != V_NIL;
			} else
				hit |= equal(&w, &subject);	/* String#=== and Integer#=== are == */
		} while (accept(e, ","));
		then(e);
		struct val b = stmts(e, live && !done && hit, when_enders);
		if (live && !done && hit) {
			r = b;
			done = true;
		}
		skip_nl(e);
	}
	if (accept(e, "else")) {
		struct val b = stmts(e, live && !done, end_only);
		if (live && !done)
			r = b;
	}
	expect(e, "end");
	return r;
}

/* Ruby's to_s of a value of the evaluator */
static void to_s(const struct val *v, struct strbuf *out)
{
	switch (v->t) {
	case V_NIL: break;
	case V_BOOL: strbuf_addstr(out, v->b ? "true" : "false"); break;
	case V_INT: strbuf_addf(out, "%lld", v->i); break;
	case V_FLOAT: float_to_s(v->f, out); break;
	case V_STR: strbuf_addstr(out, v->s); break;
	case V_REGEX: strbuf_addf(out, "(?-mix:%s)", v->s); break;
	case V_NODE: ruby_value(v->n, out); break;
	}
}

static struct val string_lit(struct ev *e, char q, bool live)
{
	struct strbuf s = STRBUF_INIT;

	e->p++;
	for (; *e->p && *e->p != q; e->p++) {
		if (q == '"' && e->p[0] == '#' && e->p[1] == '{') {
			/* "#{expr}": the expression's to_s */
			e->p += 2;
			struct val v = stmts(e, live, NULL);
			skip_nl(e);
			if (*e->p != '}') {
				strbuf_release(&s);
				return fail(e, -1, "expected '}' of '#{' at '%.20s'", e->p);
			}
			to_s(&v, &s);
			continue;
		}
		if (*e->p == '\\' && e->p[1]) {
			e->p++;
			if (q == '\'') {
				if (*e->p != '\'' && *e->p != '\\')
					strbuf_addch(&s, '\\');
				strbuf_addch(&s, *e->p);
			} else {
				switch (*e->p) {
				case 'n': strbuf_addch(&s, '\n'); break;
				case 't': strbuf_addch(&s, '\t'); break;
				default: strbuf_addch(&s, *e->p); break;
				}
			}
			continue;
		}
		strbuf_addch(&s, *e->p);
	}
	if (*e->p != q) {
		strbuf_release(&s);
		return fail(e, -1, "a string is not closed with %c", q);
	}
	e->p++;
	struct val v = { .t = V_STR };
	v.s = keep(e, strbuf_detach(&s));
	return v;
}

static struct val regex_lit(struct ev *e)
{
	struct strbuf s = STRBUF_INIT;

	e->p++;
	for (; *e->p && *e->p != '/' && *e->p != '\n'; e->p++) {
		if (*e->p == '\\' && e->p[1] == '/')
			e->p++;
		strbuf_addch(&s, *e->p);
	}
	if (*e->p != '/') {
		strbuf_release(&s);
		return fail(e, -1, "a regular expression is not closed with /");
	}
	e->p++;
	if (isalpha((unsigned char)*e->p)) {
		strbuf_release(&s);
		return fail(e, -1, "regular expression flags are not supported");
	}
	struct val v = { .t = V_REGEX };
	v.s = keep(e, strbuf_detach(&s));
	return v;
}

/* key lookup: `a.key` raises KeyError when missing (Hashugar), `a['key']` gives nil */
static struct val member(struct ev *e, bool live, const struct val *of, const char *key,
			 bool strict)
{
	if (!live)
		return nil_val;
	if (of->t != V_NODE || of->n->type != NODE_MAP)
		return fail(e, -1, "cannot read '%s' of %s", key, type_name(of));
	const struct node *v = node_get(of->n, key);
	if (!v && strict)
		return fail(e, RUBY_UNKNOWN_KEY, "unknown hash key: '%s'", key);
	return node_val(e, v);
}

/* The few String methods lkp-tests' templates call: no arguments, no side effects. */
static struct val method(struct ev *e, bool live, const struct val *of, const char *name)
{
	struct val r = { .t = V_STR };
	struct strbuf s = STRBUF_INIT;

	if (!live)
		return nil_val;
	if (!strcmp(name, "to_s")) {
		to_s(of, &s);
	} else if (!strcmp(name, "to_i") && (of->t == V_STR || of->t == V_INT || of->t == V_FLOAT)) {
		r.t = V_INT;
		r.i = of->t == V_STR ? strtoll(of->s, NULL, 10) : of->t == V_INT ? of->i : (long long)of->f;
		return r;
	} else if (of->t == V_STR && (!strcmp(name, "upcase") || !strcmp(name, "downcase"))) {
		for (const char *c = of->s; *c; c++)
			strbuf_addch(&s, name[0] == 'u' ? toupper((unsigned char)*c) : tolower((unsigned char)*c));
	} else if (of->t == V_STR && !strcmp(name, "strip")) {
		const char *b = of->s + strspn(of->s, " \t\r\n\v\f");
		size_t n = strlen(b);
		while (n && isspace((unsigned char)b[n - 1]))
			n--;
		strbuf_add(&s, b, n);
	} else {
		strbuf_release(&s);
		return fail(e, -1, "cannot call '%s' on %s (lkprobot knows upcase, downcase, strip, to_s, to_i)",
			    name, type_name(of));
	}
	r.s = keep(e, strbuf_detach(&s));
	return r;
}

static struct val primary(struct ev *e, bool live)
{
	struct val v = nil_val;

	skip_space(e);
	char c = *e->p;
	if (c == '(') {
		e->p++;
		skip_nl(e);
		v = stmts(e, live, NULL);
		skip_nl(e);
		if (*e->p != ')')
			return fail(e, -1, "expected ')' at '%.20s'", e->p);
		e->p++;
	} else if (c == '\'' || c == '"') {
		v = string_lit(e, c, live);
	} else if (c == '/') {
		v = regex_lit(e);
	} else if (isdigit((unsigned char)c)) {
		const char *start = e->p;
		e->p += strspn(e->p, "0123456789_");
		bool isf = e->p[0] == '.' && isdigit((unsigned char)e->p[1]);
		if (isf)
			e->p += 1 + strspn(e->p + 1, "0123456789_");
		char *t = xstrndup(start, (size_t)(e->p - start));
		size_t w = 0;
		for (size_t r = 0; t[r]; r++)
			if (t[r] != '_')
				t[w++] = t[r];
		t[w] = '\0';
		if (isf) {
			v.t = V_FLOAT;
			v.f = strtod(t, NULL);
		} else {
			v.t = V_INT;
			v.i = strtoll(t, NULL, 10);
		}
		free(t);
	} else if (isalpha((unsigned char)c) || c == '_') {
		const char *start = e->p;
		while (ident_char(*e->p))
			e->p++;
		char *id = xstrndup(start, (size_t)(e->p - start));
		if (!strcmp(id, "nil")) {
			v = nil_val;
		} else if (!strcmp(id, "true") || !strcmp(id, "false")) {
			v.t = V_BOOL;
			v.b = id[0] == 't';
		} else if (!strcmp(id, "if") || !strcmp(id, "unless")) {
			v = if_expr(e, live, id[0] == 'u');
		} else if (!strcmp(id, "case")) {
			v = case_expr(e, live);
		} else if (!strcmp(id, "job")) {
			v.t = V_NODE;
			v.n = e->ctx;
		} else if (*e->p == '(' || *e->p == '?' || *e->p == '!') {
			fail(e, -1, "method calls are not supported ('%s%c')", id, *e->p);
		} else {
			struct val ctx = { .t = V_NODE, .n = e->ctx };
			v = member(e, live, &ctx, id, true);
		}
		free(id);
	} else {
		return fail(e, -1, "unexpected '%.20s'", e->p);
	}
	/* postfix: .key and [key] */
	for (;;) {
		skip_space(e);
		if (e->p[0] == '.' && (isalpha((unsigned char)e->p[1]) || e->p[1] == '_')) {
			const char *start = ++e->p;
			while (ident_char(*e->p))
				e->p++;
			if (*e->p == '?' || *e->p == '!' || *e->p == '(')
				return fail(e, -1, "method calls are not supported ('%.*s')",
					    (int)(e->p - start + 1), start);
			char *id = xstrndup(start, (size_t)(e->p - start));
			if (v.t == V_NODE && v.n->type == NODE_MAP)
				v = member(e, live, &v, id, true);
			else
				v = method(e, live, &v, id);
			free(id);
		} else if (e->p[0] == '[') {
			e->p++;
			struct val k = expr(e, live);
			skip_space(e);
			if (*e->p != ']')
				return fail(e, -1, "expected ']' at '%.20s'", e->p);
			e->p++;
			if (!live)
				continue;
			if (v.t == V_NODE && v.n->type == NODE_SEQ && k.t == V_INT) {
				long long i = k.i < 0 ? (long long)v.n->n + k.i : k.i;
				v = i >= 0 && (size_t)i < v.n->n ? node_val(e, v.n->vals[i]) : nil_val;
			} else if (k.t == V_STR) {
				v = member(e, live, &v, k.s, false);
			} else {
				return fail(e, -1, "cannot index %s with %s", type_name(&v), type_name(&k));
			}
		} else {
			return v;
		}
		if (e->failed)
			return nil_val;
	}
}

static struct val unary(struct ev *e, bool live)
{
	skip_space(e);
	if (e->p[0] == '!' && e->p[1] != '=' && e->p[1] != '~') {
		e->p++;
		struct val v = unary(e, live);
		struct val r = { .t = V_BOOL, .b = !truthy(&v) };
		return r;
	}
	if (e->p[0] == '-' && !isspace((unsigned char)e->p[1])) {
		e->p++;
		struct val v = unary(e, live);
		if (!live)
			return v;
		if (v.t == V_INT)
			v.i = -v.i;
		else if (v.t == V_FLOAT)
			v.f = -v.f;
		else
			return fail(e, -1, "cannot negate %s", type_name(&v));
		return v;
	}
	return primary(e, live);
}

static struct val arith(struct ev *e, bool live, struct val a, char op, struct val b)
{
	double x, y;

	if (!live)
		return nil_val;
	if (op == '+' && a.t == V_STR && b.t == V_STR) {
		struct val r = { .t = V_STR };
		r.s = keep(e, xasprintf("%s%s", a.s, b.s));
		return r;
	}
	if (!num(&a, &x) || !num(&b, &y))
		return fail(e, -1, "cannot compute %s %c %s", type_name(&a), op, type_name(&b));
	if (a.t == V_INT && b.t == V_INT) {
		struct val r = { .t = V_INT };
		if ((op == '/' || op == '%') && !b.i)
			return fail(e, -1, "divided by 0");
		switch (op) {
		case '+': r.i = a.i + b.i; break;
		case '-': r.i = a.i - b.i; break;
		case '*': r.i = a.i * b.i; break;
		/* Ruby's integer division and modulo round toward minus infinity */
		case '/': r.i = a.i / b.i - ((a.i % b.i) && ((a.i < 0) != (b.i < 0))); break;
		case '%': r.i = ((a.i % b.i) + b.i) % b.i; break;
		}
		return r;
	}
	struct val r = { .t = V_FLOAT };
	switch (op) {
	case '+': r.f = x + y; break;
	case '-': r.f = x - y; break;
	case '*': r.f = x * y; break;
	case '/': r.f = x / y; break;
	case '%': r.f = fmod(x, y); break;
	}
	return r;
}

/* One left-associative level of arithmetic: its operator characters and its operands. */
static struct val arith_level(struct ev *e, bool live, const char *ops,
			      struct val (*operand)(struct ev *, bool))
{
	struct val a = operand(e, live);

	for (;;) {
		skip_space(e);
		char op = *e->p;
		if (!op || !strchr(ops, op) || e->p[1] == '=' || (op == '*' && e->p[1] == '*'))
			return a;
		e->p++;
		skip_nl(e);
		struct val b = operand(e, live);
		a = arith(e, live, a, op, b);
	}
}

static struct val term(struct ev *e, bool live)
{
	return arith_level(e, live, "*/%", unary);
}

static struct val sum(struct ev *e, bool live)
{
	return arith_level(e, live, "+-", term);
}

static struct val relation(struct ev *e, bool live)
{
	struct val a = sum(e, live);

	for (;;) {
		const char *op;
		skip_space(e);
		if (accept(e, "<="))
			op = "<=";
		else if (accept(e, ">="))
			op = ">=";
		else if (e->p[0] == '<' && e->p[1] != '<' && accept(e, "<"))
			op = "<";
		else if (e->p[0] == '>' && accept(e, ">"))
			op = ">";
		else
			return a;
		skip_nl(e);
		struct val b = sum(e, live);
		if (!live)
			continue;
		double x, y;
		int c;
		if (num(&a, &x) && num(&b, &y))
			c = (x > y) - (x < y);
		else if (a.t == V_STR && b.t == V_STR)
			c = strcmp(a.s, b.s);
		else
			return fail(e, -1, "comparison of %s with %s failed", type_name(&a), type_name(&b));
		struct val r = { .t = V_BOOL };
		r.b = !strcmp(op, "<") ? c < 0 : !strcmp(op, "<=") ? c <= 0 : !strcmp(op, ">") ? c > 0 : c >= 0;
		a = r;
	}
}

static struct val equality(struct ev *e, bool live)
{
	struct val a = relation(e, live);

	for (;;) {
		int op;
		skip_space(e);
		if (accept(e, "=="))
			op = '=';
		else if (accept(e, "!="))
			op = '!';
		else if (accept(e, "=~"))
			op = '~';
		else if (accept(e, "!~"))
			op = 'n';
		else
			return a;
		skip_nl(e);
		struct val b = relation(e, live);
		if (!live)
			continue;
		struct val r = { .t = V_BOOL };
		if (op == '=' || op == '!') {
			r.b = equal(&a, &b) == (op == '=');
		} else {
			const struct val *s = b.t == V_REGEX ? &a : &b, *re = b.t == V_REGEX ? &b : &a;
			if (re->t != V_REGEX)
				return fail(e, -1, "=~ needs a regular expression");
			struct val m = match(e, s, re);
			if (op == '~')
				r = m;
			else
				r.b = m.t == V_NIL;
		}
		a = r;
	}
}

/* `&&` or `||`: the right side is evaluated only when the left does not decide. */
static struct val logic_level(struct ev *e, bool live, const char *op, bool is_and,
			      struct val (*operand)(struct ev *, bool))
{
	struct val a = operand(e, live);

	while (accept(e, op)) {
		skip_nl(e);
		bool go = live && truthy(&a) == is_and;
		struct val b = operand(e, go);
		if (go)
			a = b;
	}
	return a;
}

static struct val and_expr(struct ev *e, bool live)
{
	return logic_level(e, live, "&&", true, equality);
}

static struct val or_expr(struct ev *e, bool live)
{
	return logic_level(e, live, "||", false, and_expr);
}

static struct val ternary(struct ev *e, bool live)
{
	struct val c = or_expr(e, live);

	skip_space(e);
	if (*e->p != '?')
		return c;
	e->p++;
	skip_nl(e);
	bool yes = live && truthy(&c);
	struct val a = ternary(e, yes);
	skip_nl(e);
	if (*e->p != ':')
		return fail(e, -1, "expected ':' of '?:' at '%.20s'", e->p);
	e->p++;
	skip_nl(e);
	struct val b = ternary(e, live && !yes);
	return yes ? a : b;
}

static struct val not_expr(struct ev *e, bool live)
{
	if (accept(e, "not")) {
		struct val v = not_expr(e, live);
		struct val r = { .t = V_BOOL, .b = !truthy(&v) };
		return r;
	}
	return ternary(e, live);
}

/* `and` / `or`: the lowest precedence, equal to each other */
static struct val expr(struct ev *e, bool live)
{
	struct val a = not_expr(e, live);

	for (;;) {
		bool is_and;
		if (accept(e, "and"))
			is_and = true;
		else if (accept(e, "or"))
			is_and = false;
		else
			return a;
		skip_nl(e);
		bool go = live && (truthy(&a) == is_and);
		struct val b = not_expr(e, go);
		if (go)
			a = b;
	}
}

/* Statements up to one of `enders` (not consumed); the value of the last. */
static struct val stmts(struct ev *e, bool live, const char *const *enders)
{
	struct val v = nil_val;

	while (!e->failed && !at_ender(e, enders)) {
		v = expr(e, live);
		skip_space(e);
		if (*e->p && *e->p != '\n' && *e->p != ';' && *e->p != ')' && *e->p != '}' &&
		    !at_ender(e, enders))
			return fail(e, -1, "unexpected '%.20s'", e->p);
	}
	return v;
}

int ruby_eval(const char *text, const struct node *ctx, struct node **out,
	      struct strbuf *err)
{
	struct ev e = { .p = text, .ctx = ctx, .err = err };
	struct val v = stmts(&e, true, NULL);

	skip_nl(&e);
	if (!e.failed && *e.p)
		fail(&e, -1, "unexpected '%.20s'", e.p);
	*out = NULL;
	if (!e.failed) {
		char buf[64];
		switch (v.t) {
		case V_NIL:
			break;
		case V_BOOL:
			*out = node_new_scalar(v.b ? "true" : "false");
			break;
		case V_INT:
			snprintf(buf, sizeof(buf), "%lld", v.i);
			*out = node_new_scalar(buf);
			break;
		case V_FLOAT: {
			struct strbuf s = STRBUF_INIT;
			float_to_s(v.f, &s);
			*out = node_new_scalar(s.buf);
			strbuf_release(&s);
			break;
		}
		case V_STR:
			*out = node_new_scalar(v.s);
			(*out)->quoted = 1;
			break;
		case V_NODE:
			*out = node_dup(v.n);
			break;
		case V_REGEX:
			fail(&e, -1, "the value is a regular expression");
			break;
		}
	}
	for (size_t i = 0; i < e.narena; i++)
		free(e.arena[i]);
	free(e.arena);
	return e.failed;
}

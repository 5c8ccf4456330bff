/*
 * ruby: Psych's scalar types, Ruby's to_s and inspect. See ruby.h; the
 * evaluator of job templates' expressions is in ruby_eval.c.
 *
 * The scalar rules are those of Psych 4's ScalarScanner#tokenize (Ruby
 * 3.1), in its order: the "looks like a word" test first, then time, date,
 * infinities, symbols, sexagesimals, floats and integers.
 */
#include "ruby.h"
#include "ruby_int.h"

#include <ctype.h>
#include <math.h>
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
void ruby_float_to_s(double f, struct strbuf *out)
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

/* A scalar that looks like a word: nil, true or false by its spelling (yes, Off, NULL), else a string. */
static enum ruby_type word_type(const char *s, size_t len, struct strbuf *to_s)
{
	if (len > 5 || !strchr("ytonfYTONF~", s[0]))
		return RUBY_STRING;
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
	return RUBY_STRING;
}

/* A symbol's to_s: its name without the colon, or the quoted name (:"a b", :'::x') without its quotes. */
static void symbol_to_s(const char *s, struct strbuf *to_s)
{
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

/* A sexagesimal number (1:30, 1:30.5): an integer, or a float with a fraction. */
static enum ruby_type sexagesimal_type(const char *s, bool frac, struct strbuf *to_s)
{
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
			ruby_float_to_s(v, to_s);
		return RUBY_FLOAT;
	}
	if (to_s)
		strbuf_addf(to_s, "%.0f", v);
	return RUBY_INT;
}

/*
 * A float's value to to_s, read without its separators (1_000.5) and a dot
 * before nothing or the exponent (1.e3); false: ".", "-." and "+." are strings.
 */
static bool float_to_s(const char *s, struct strbuf *to_s)
{
	char buf[128];
	size_t w = 0;
	const char *p = s;

	if ((p[0] == '-' || p[0] == '+') && p[1] == '.' && !p[2])
		return false;
	if (p[0] == '.' && !p[1])
		return false;
	for (; *p && w + 1 < sizeof(buf); p++) {
		if (*p == ',' || *p == '_')
			continue;
		if (*p == '.' && (!p[1] || p[1] == 'e' || p[1] == 'E'))
			continue;
		buf[w++] = *p;
	}
	buf[w] = '\0';
	if (to_s)
		ruby_float_to_s(strtod(buf, NULL), to_s);
	return true;
}

/* Is s an integer (1_000, 0x1f, 0b101, 017)? Its decimal value goes to to_s when it is (nothing when not). */
static bool int_to_s(const char *s, struct strbuf *to_s)
{
	struct strbuf tmp = STRBUF_INIT;
	bool ok;

	if (to_s) {
		size_t mark = to_s->len;
		if (parse_int(s, to_s))
			return true;
		strbuf_setlen(to_s, mark);
		return false;
	}
	ok = parse_int(s, &tmp);
	strbuf_release(&tmp);
	return ok;
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
		enum ruby_type t = word_type(s, len, to_s);
		if (t != RUBY_STRING)
			return t;
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
		if (to_s)
			symbol_to_s(s, to_s);
		return RUBY_SYMBOL;
	}
	if (is_sexagesimal(s, &frac))
		return sexagesimal_type(s, frac, to_s);
	if (is_float(s)) {
		if (float_to_s(s, to_s))
			return RUBY_FLOAT;
		goto string;
	}
	if (int_to_s(s, to_s))
		return RUBY_INT;
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

/*
 * ruby_eval: the evaluator for the expressions of lkp-tests' job
 * templates (`{{ }}` values, ERB's "% if" lines). See ruby.h.
 *
 * It parses and evaluates in one pass; a branch not taken is parsed with
 * `live` off, so it reads no key and cannot fail on one.
 */
#include "ruby.h"
#include "ruby_int.h"

#include <ctype.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	case V_FLOAT: ruby_float_to_s(v->f, out); break;
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
			ruby_float_to_s(v.f, &s);
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

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
#include <stdlib.h>
#include <string.h>

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
		ruby_fail(e, -1, "expected '%s' at '%.20s'", w, e->p);
}

/* "then" or a newline after a condition */
static void then(struct ev *e)
{
	skip_space(e);
	if (!accept(e, "then") && *e->p != '\n' && *e->p != ';')
		ruby_fail(e, -1, "expected 'then' or a new line at '%.20s'", e->p);
	skip_nl(e);
}

static struct val if_expr(struct ev *e, bool live, bool unless)
{
	struct val c = expr(e, live), r = nil_val;
	bool taken = live && (ruby_val_truthy(&c) != unless);
	bool done = taken;

	then(e);
	r = stmts(e, taken, if_enders);
	if (!taken)
		r = nil_val;
	while (!unless && accept(e, "elsif")) {
		c = expr(e, live && !done);
		taken = live && !done && ruby_val_truthy(&c);
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
		return ruby_fail(e, -1, "expected 'when' after 'case'");
	while (accept(e, "when")) {
		bool hit = false;
		do {
			skip_nl(e);
			struct val w = expr(e, live && !done);
			if (!live || done)
				continue;
			if (!has_subject)
				hit |= ruby_val_truthy(&w);
			else if (w.t == V_REGEX) {
				struct val m = ruby_val_match(e, &subject, &w);
				hit |= m.t != V_NIL;
			} else
				hit |= ruby_val_equal(&w, &subject); /* String#=== and Integer#=== are == */
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
				return ruby_fail(e, -1, "expected '}' of '#{' at '%.20s'", e->p);
			}
			ruby_val_to_s(&v, &s);
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
		return ruby_fail(e, -1, "a string is not closed with %c", q);
	}
	e->p++;
	struct val v = { .t = V_STR };
	v.s = ruby_keep(e, strbuf_detach(&s));
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
		return ruby_fail(e, -1, "a regular expression is not closed with /");
	}
	e->p++;
	if (isalpha((unsigned char)*e->p)) {
		strbuf_release(&s);
		return ruby_fail(e, -1, "regular expression flags are not supported");
	}
	struct val v = { .t = V_REGEX };
	v.s = ruby_keep(e, strbuf_detach(&s));
	return v;
}

/* A number: 12, 1_000 (an Integer), 1.5 (a Float). */
static struct val number_lit(struct ev *e)
{
	struct val v = nil_val;
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
	return v;
}

/* A word: nil, true, false, if/unless/case, job, or a key of the job (`a` is job.a). */
static struct val word(struct ev *e, bool live)
{
	struct val v = nil_val;
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
		ruby_fail(e, -1, "method calls are not supported ('%s%c')", id, *e->p);
	} else {
		struct val ctx = { .t = V_NODE, .n = e->ctx };
		v = ruby_val_member(e, live, &ctx, id, true);
	}
	free(id);
	return v;
}

/* What follows a primary: .key (a String's method) and [key] or [index], left to right. */
static struct val postfix(struct ev *e, bool live, struct val v)
{
	for (;;) {
		skip_space(e);
		if (e->p[0] == '.' && (isalpha((unsigned char)e->p[1]) || e->p[1] == '_')) {
			const char *start = ++e->p;
			while (ident_char(*e->p))
				e->p++;
			if (*e->p == '?' || *e->p == '!' || *e->p == '(')
				return ruby_fail(e, -1, "method calls are not supported ('%.*s')",
						 (int)(e->p - start + 1), start);
			char *id = xstrndup(start, (size_t)(e->p - start));
			if (v.t == V_NODE && v.n->type == NODE_MAP)
				v = ruby_val_member(e, live, &v, id, true);
			else
				v = ruby_val_method(e, live, &v, id);
			free(id);
		} else if (e->p[0] == '[') {
			e->p++;
			struct val k = expr(e, live);
			skip_space(e);
			if (*e->p != ']')
				return ruby_fail(e, -1, "expected ']' at '%.20s'", e->p);
			e->p++;
			if (!live)
				continue;
			if (v.t == V_NODE && v.n->type == NODE_SEQ && k.t == V_INT) {
				long long i = k.i < 0 ? (long long)v.n->n + k.i : k.i;
				v = i >= 0 && (size_t)i < v.n->n ? ruby_node_val(e, v.n->vals[i]) : nil_val;
			} else if (k.t == V_STR) {
				v = ruby_val_member(e, live, &v, k.s, false);
			} else {
				return ruby_fail(e, -1, "cannot index %s with %s", ruby_type_name(&v),
						 ruby_type_name(&k));
			}
		} else {
			return v;
		}
		if (e->failed)
			return nil_val;
	}
}

/* A parenthesized expression, a literal or a word, and what follows it. */
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
			return ruby_fail(e, -1, "expected ')' at '%.20s'", e->p);
		e->p++;
	} else if (c == '\'' || c == '"') {
		v = string_lit(e, c, live);
	} else if (c == '/') {
		v = regex_lit(e);
	} else if (isdigit((unsigned char)c)) {
		v = number_lit(e);
	} else if (isalpha((unsigned char)c) || c == '_') {
		v = word(e, live);
	} else {
		return ruby_fail(e, -1, "unexpected '%.20s'", e->p);
	}
	return postfix(e, live, v);
}

static struct val unary(struct ev *e, bool live)
{
	skip_space(e);
	if (e->p[0] == '!' && e->p[1] != '=' && e->p[1] != '~') {
		e->p++;
		struct val v = unary(e, live);
		struct val r = { .t = V_BOOL, .b = !ruby_val_truthy(&v) };
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
			return ruby_fail(e, -1, "cannot negate %s", ruby_type_name(&v));
		return v;
	}
	return primary(e, live);
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
		a = ruby_val_arith(e, live, a, op, b);
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
		if (ruby_val_num(&a, &x) && ruby_val_num(&b, &y))
			c = (x > y) - (x < y);
		else if (a.t == V_STR && b.t == V_STR)
			c = strcmp(a.s, b.s);
		else
			return ruby_fail(e, -1, "comparison of %s with %s failed", ruby_type_name(&a),
					 ruby_type_name(&b));
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
			r.b = ruby_val_equal(&a, &b) == (op == '=');
		} else {
			const struct val *s = b.t == V_REGEX ? &a : &b, *re = b.t == V_REGEX ? &b : &a;
			if (re->t != V_REGEX)
				return ruby_fail(e, -1, "=~ needs a regular expression");
			struct val m = ruby_val_match(e, s, re);
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
		bool go = live && ruby_val_truthy(&a) == is_and;
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
	bool yes = live && ruby_val_truthy(&c);
	struct val a = ternary(e, yes);
	skip_nl(e);
	if (*e->p != ':')
		return ruby_fail(e, -1, "expected ':' of '?:' at '%.20s'", e->p);
	e->p++;
	skip_nl(e);
	struct val b = ternary(e, live && !yes);
	return yes ? a : b;
}

static struct val not_expr(struct ev *e, bool live)
{
	if (accept(e, "not")) {
		struct val v = not_expr(e, live);
		struct val r = { .t = V_BOOL, .b = !ruby_val_truthy(&v) };
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
		bool go = live && (ruby_val_truthy(&a) == is_and);
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
			return ruby_fail(e, -1, "unexpected '%.20s'", e->p);
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
		ruby_fail(&e, -1, "unexpected '%.20s'", e.p);
	*out = NULL;
	if (!e.failed)
		*out = ruby_val_node(&e, &v);
	for (size_t i = 0; i < e.narena; i++)
		free(e.arena[i]);
	free(e.arena);
	return e.failed;
}

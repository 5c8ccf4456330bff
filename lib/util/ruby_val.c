/*
 * ruby_val: the values of the `{{ }}`/ERB evaluator (ruby_eval.c) — a
 * job's values as Ruby sees them, their equality, =~, to_s, arithmetic,
 * key lookups and the few String methods templates call — with the
 * evaluator's arena and its one error. Calls nothing of ruby_eval.c.
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

const char *ruby_keep(struct ev *e, char *s)
{
	ALLOC_GROW(e->arena, e->narena + 1, e->aarena);
	e->arena[e->narena++] = s;
	return s;
}

struct val ruby_fail(struct ev *e, int code, const char *fmt, ...)
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

struct val ruby_node_val(struct ev *e, const struct node *n)
{
	struct val v = nil_val;
	struct strbuf s = STRBUF_INIT;

	if (!n)
		return v;
	switch (ruby_value(n, &s)) {
	case RUBY_NIL:
		break;
	case RUBY_TRUE:
		v.t = V_BOOL;
		v.b = true;
		break;
	case RUBY_FALSE:
		v.t = V_BOOL;
		v.b = false;
		break;
	case RUBY_INT:
		v.t = V_INT;
		v.i = strtoll(s.buf, NULL, 10);
		break;
	case RUBY_FLOAT:
		v.t = V_FLOAT;
		v.f = strtod(s.buf, NULL);
		break;
	case RUBY_ARRAY:
	case RUBY_HASH:
		v.t = V_NODE;
		v.n = n;
		break;
	default:
		v.t = V_STR;
		v.s = ruby_keep(e, strbuf_detach(&s));
		break;
	}
	strbuf_release(&s);
	return v;
}

const char *ruby_type_name(const struct val *v)
{
	switch (v->t) {
	case V_NIL:
		return "nil";
	case V_BOOL:
		return v->b ? "true" : "false";
	case V_INT:
		return "an Integer";
	case V_FLOAT:
		return "a Float";
	case V_STR:
		return "a String";
	case V_REGEX:
		return "a Regexp";
	case V_NODE:
		return v->n->type == NODE_SEQ ? "an Array" : "a Hash";
	}
	return "?";
}

bool ruby_val_truthy(const struct val *v)
{
	return !(v->t == V_NIL || (v->t == V_BOOL && !v->b));
}

bool ruby_val_num(const struct val *v, double *d)
{
	if (v->t == V_INT)
		*d = (double)v->i;
	else if (v->t == V_FLOAT)
		*d = v->f;
	else
		return false;
	return true;
}

bool ruby_val_equal(const struct val *a, const struct val *b)
{
	double x, y;

	if (ruby_val_num(a, &x) && ruby_val_num(b, &y))
		return x == y;
	if (a->t != b->t)
		return false;
	switch (a->t) {
	case V_NIL:
		return true;
	case V_BOOL:
		return a->b == b->b;
	case V_STR:
	case V_REGEX:
		return !strcmp(a->s, b->s);
	case V_NODE:
		return node_equal(a->n, b->n);
	default:
		return false;
	}
}

struct val ruby_val_match(struct ev *e, const struct val *str, const struct val *re)
{
	regex_t rx;
	regmatch_t m;
	struct val r = nil_val;

	if (str->t == V_NIL)
		return r;
	if (str->t != V_STR)
		return ruby_fail(e, -1, "=~ needs a String, not %s", ruby_type_name(str));
	if (regcomp(&rx, re->s, REG_EXTENDED))
		return ruby_fail(e, -1, "cannot read the regular expression /%s/", re->s);
	if (!regexec(&rx, str->s, 1, &m, 0)) {
		r.t = V_INT;
		r.i = m.rm_so;
	}
	regfree(&rx);
	return r;
}

/* Ruby's to_s of a value of the evaluator */
void ruby_val_to_s(const struct val *v, struct strbuf *out)
{
	switch (v->t) {
	case V_NIL:
		break;
	case V_BOOL:
		strbuf_addstr(out, v->b ? "true" : "false");
		break;
	case V_INT:
		strbuf_addf(out, "%lld", v->i);
		break;
	case V_FLOAT:
		ruby_float_to_s(v->f, out);
		break;
	case V_STR:
		strbuf_addstr(out, v->s);
		break;
	case V_REGEX:
		strbuf_addf(out, "(?-mix:%s)", v->s);
		break;
	case V_NODE:
		ruby_value(v->n, out);
		break;
	}
}

/* key lookup: `a.key` raises KeyError when missing (Hashugar), `a['key']` gives nil */
struct val ruby_val_member(struct ev *e, bool live, const struct val *of, const char *key, bool strict)
{
	if (!live)
		return nil_val;
	if (of->t != V_NODE || of->n->type != NODE_MAP)
		return ruby_fail(e, -1, "cannot read '%s' of %s", key, ruby_type_name(of));
	const struct node *v = node_get(of->n, key);
	if (!v && strict)
		return ruby_fail(e, RUBY_UNKNOWN_KEY, "unknown hash key: '%s'", key);
	return ruby_node_val(e, v);
}

/* The few String methods lkp-tests' templates call: no arguments, no side effects. */
struct val ruby_val_method(struct ev *e, bool live, const struct val *of, const char *name)
{
	struct val r = { .t = V_STR };
	struct strbuf s = STRBUF_INIT;

	if (!live)
		return nil_val;
	if (!strcmp(name, "to_s")) {
		ruby_val_to_s(of, &s);
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
		return ruby_fail(e, -1, "cannot call '%s' on %s (lkprobot knows upcase, downcase, strip, to_s, to_i)",
				 name, ruby_type_name(of));
	}
	r.s = ruby_keep(e, strbuf_detach(&s));
	return r;
}

struct val ruby_val_arith(struct ev *e, bool live, struct val a, char op, struct val b)
{
	double x, y;

	if (!live)
		return nil_val;
	if (op == '+' && a.t == V_STR && b.t == V_STR) {
		struct val r = { .t = V_STR };
		r.s = ruby_keep(e, xasprintf("%s%s", a.s, b.s));
		return r;
	}
	if (!ruby_val_num(&a, &x) || !ruby_val_num(&b, &y))
		return ruby_fail(e, -1, "cannot compute %s %c %s", ruby_type_name(&a), op, ruby_type_name(&b));
	if (a.t == V_INT && b.t == V_INT) {
		struct val r = { .t = V_INT };
		if ((op == '/' || op == '%') && !b.i)
			return ruby_fail(e, -1, "divided by 0");
		switch (op) {
		case '+':
			r.i = a.i + b.i;
			break;
		case '-':
			r.i = a.i - b.i;
			break;
		case '*':
			r.i = a.i * b.i;
			break;
		/* Ruby's integer division and modulo round toward minus infinity */
		case '/':
			r.i = a.i / b.i - ((a.i % b.i) && ((a.i < 0) != (b.i < 0)));
			break;
		case '%':
			r.i = ((a.i % b.i) + b.i) % b.i;
			break;
		}
		return r;
	}
	struct val r = { .t = V_FLOAT };
	switch (op) {
	case '+':
		r.f = x + y;
		break;
	case '-':
		r.f = x - y;
		break;
	case '*':
		r.f = x * y;
		break;
	case '/':
		r.f = x / y;
		break;
	case '%':
		r.f = fmod(x, y);
		break;
	}
	return r;
}

struct node *ruby_val_node(struct ev *e, const struct val *v)
{
	char buf[64];

	switch (v->t) {
	case V_NIL:
		return NULL;
	case V_BOOL:
		return node_new_scalar(v->b ? "true" : "false");
	case V_INT:
		snprintf(buf, sizeof(buf), "%lld", v->i);
		return node_new_scalar(buf);
	case V_FLOAT: {
		struct strbuf s = STRBUF_INIT;
		ruby_float_to_s(v->f, &s);
		struct node *n = node_new_scalar(s.buf);
		strbuf_release(&s);
		return n;
	}
	case V_STR: {
		struct node *n = node_new_scalar(v->s);
		n->quoted = 1;
		return n;
	}
	case V_NODE:
		return node_dup(v->n);
	case V_REGEX:
		ruby_fail(e, -1, "the value is a regular expression");
		return NULL;
	}
	return NULL;
}

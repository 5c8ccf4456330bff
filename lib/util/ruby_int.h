/*
 * ruby_int: what the files of the ruby module share and nobody else may
 * see (ruby.h is the public API).
 *   ruby.c       Psych's scalar types, Ruby's to_s and inspect
 *   ruby_eval.c  the `{{ }}`/ERB expression evaluator: its grammar
 *   ruby_val.c   the evaluator's values and what Ruby does with them
 * The calls go one way: ruby_eval.c -> ruby_val.c -> ruby.c.
 */
#ifndef LKP_RUBY_INT_H
#define LKP_RUBY_INT_H

#include "node.h"
#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* Ruby's Float#to_s: the shortest digits that read back, fixed or e-notation. */
void ruby_float_to_s(double f, struct strbuf *out);

/* ---- the evaluator's values (ruby_val.c) ---- */

/* A value of the evaluator: what Ruby would hold while it runs a template's expression. */
enum vtype {
	V_NIL,
	V_BOOL,
	V_INT,
	V_FLOAT,
	V_STR,
	V_REGEX,
	V_NODE
};

struct val {
	enum vtype t;
	bool b;
	long long i;
	double f;
	const char *s;	      /* V_STR: in the evaluator's arena; V_REGEX: the pattern */
	const struct node *n; /* V_NODE: a map or list of the context */
};

/* The evaluator: where it reads, the job it reads keys of, its first error and what it allocated. */
struct ev {
	const char *p; /* the cursor */
	const struct node *ctx;
	struct strbuf *err;
	int failed; /* 0, -1 or RUBY_UNKNOWN_KEY */
	char **arena;
	size_t narena, aarena;
};

static const struct val nil_val = { .t = V_NIL };

/* s kept until the evaluation ends (freed with the evaluator); returns s. */
const char *ruby_keep(struct ev *e, char *s);
/* The evaluation fails with code (-1, RUBY_UNKNOWN_KEY) and the message, unless it failed already; nil. */
struct val ruby_fail(struct ev *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A value of the job (NULL: nil) as the evaluator's: Psych's type for a scalar, a map or list as it is. */
struct val ruby_node_val(struct ev *e, const struct node *n);
/* "an Integer", "nil" ...: for messages */
const char *ruby_type_name(const struct val *v);
/* Ruby's truth: all but nil and false. */
bool ruby_val_truthy(const struct val *v);
/* An Integer or a Float as a double; false for the rest. */
bool ruby_val_num(const struct val *v, double *d);
/* Ruby's ==: numbers by value (1 == 1.0), the rest by type and contents. */
bool ruby_val_equal(const struct val *a, const struct val *b);
/* str =~ re: the offset of the first match, nil without one (or for a nil str). */
struct val ruby_val_match(struct ev *e, const struct val *str, const struct val *re);
/* Ruby's to_s */
void ruby_val_to_s(const struct val *v, struct strbuf *out);
/* of.key (strict: KeyError when missing, as Hashugar raises) or of['key'] (nil); nil when not live. */
struct val ruby_val_member(struct ev *e, bool live, const struct val *of, const char *key, bool strict);
/* of.name for the few methods templates call (to_s, to_i, upcase, downcase, strip); nil when not live. */
struct val ruby_val_method(struct ev *e, bool live, const struct val *of, const char *name);
/* a op b (+ - * / %), in Ruby's arithmetic; nil when not live. */
struct val ruby_val_arith(struct ev *e, bool live, struct val a, char op, struct val b);
/* The evaluation's value as a node (NULL for nil; a regular expression fails). */
struct node *ruby_val_node(struct ev *e, const struct val *v);

#endif

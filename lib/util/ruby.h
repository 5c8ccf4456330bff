/*
 * ruby: what lkp-tests' Ruby makes of a job's values, so that lkprobot
 * names and expands jobs as lkp-tests does. Three things:
 *
 *   - the type Psych (Ruby's YAML loader) gives a plain scalar: "10.10" is
 *     the Float 10.1, "1_000" the Integer 1000, "off" false, "1:30" the
 *     sexagesimal 90, "2020-1-2" a Date;
 *   - Ruby's to_s of such a value (what path_params writes), and of lists
 *     and maps (Ruby's inspect);
 *   - the small part of Ruby that job templates use: `{{ expression }}`
 *     values and ERB's "% if" lines (if/elsif/else/end, case/when, ?:,
 *     == != =~ < > && || !, literals, `key.sub` and `job['key']` lookups).
 *     Anything else is refused with one line, never executed.
 *
 * Knows nothing about jobs beyond "a map of keys to values".
 */
#ifndef LKP_RUBY_H
#define LKP_RUBY_H

#include "node.h"
#include "strbuf.h"

#include <stdbool.h>

enum ruby_type {
	RUBY_NIL, RUBY_TRUE, RUBY_FALSE, RUBY_INT, RUBY_FLOAT, RUBY_STRING,
	RUBY_SYMBOL, RUBY_DATE, RUBY_TIME, RUBY_ARRAY, RUBY_HASH,
};

/*
 * The Ruby type of a loaded value; with to_s non-NULL, appends Ruby's
 * to_s of it (lists and maps as Ruby's inspect).
 */
enum ruby_type ruby_value(const struct node *v, struct strbuf *to_s);

/* Ruby's truth: everything but nil and false. */
bool ruby_truthy(const struct node *v);

/* ruby_eval's result when the expression names a key the context lacks. */
#define RUBY_UNKNOWN_KEY (-2)

/*
 * Evaluate `expr` with the keys of the map `ctx` as variables (and `job`
 * as ctx itself). *out is a new node (a plain scalar for numbers and
 * booleans, a quoted one for strings, a copy for lists and maps), or NULL
 * for nil. Returns 0; -1 with one line in err when the expression is
 * outside the subset; RUBY_UNKNOWN_KEY (err set) when it reads a key ctx
 * lacks with `key` or `a.b` (lkp-tests' KeyError).
 */
int ruby_eval(const char *expr, const struct node *ctx, struct node **out,
	      struct strbuf *err);

#endif

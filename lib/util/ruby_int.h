/*
 * ruby_int: what the files of the ruby module share and nobody else may
 * see (ruby.h is the public API).
 *   ruby.c       Psych's scalar types, Ruby's to_s and inspect
 *   ruby_eval.c  the `{{ }}`/ERB expression evaluator
 */
#ifndef LKP_RUBY_INT_H
#define LKP_RUBY_INT_H

#include "strbuf.h"

/* Ruby's Float#to_s: the shortest digits that read back, fixed or e-notation. */
void ruby_float_to_s(double f, struct strbuf *out);

#endif

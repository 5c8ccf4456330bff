/*
 * opt: a command's options as one declarative table — each row its short
 * letter, long name, value name, help and where the value goes — from
 * which both the parsing (getopt_long underneath) and the options part of
 * the command's --help are made, so that what a command accepts and what
 * it documents cannot drift apart. The prose of a help (synopsis,
 * description, exit codes) stays next to the table. Providers' flags join
 * a table as rows (opt_provider_rows) and are parsed and shown the same way.
 */
#ifndef LKP_OPT_H
#define LKP_OPT_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>	/* optind: where the arguments begin after opt_parse() */

enum opt_kind {
	OPTK_END,
	OPTK_STRING,	/* dst is a const char **: the value (the last one given) */
	OPTK_FLAG,	/* dst is a bool *: set true */
	OPTK_UNFLAG,	/* dst is a bool *: set false (--no-store) */
	OPTK_CALL,	/* fn(row, value, err): values that need parsing or go elsewhere */
	OPTK_PROVIDER,	/* a provider's flag (opt_provider_rows): remembered in dst, a struct provider_cli * */
};

struct opt {
	enum opt_kind kind;
	char shrt;		/* the short letter, 0: none */
	const char *name;	/* the long name without "--" */
	/*
	 * The value's name in the help (DIR, N); NULL: a flag without a
	 * value; "[=SIZE]": a value that may be left out (fn gets NULL).
	 */
	const char *arg;
	const char *help;	/* the help; each '\n' starts a line under the first */
	void *dst;
	/* OPTK_CALL: take value (NULL: left out) — 0, or -1 with why in err ("'x' is not a number") */
	int (*fn)(const struct opt *o, const char *value, struct strbuf *err);
	const char *key;	/* for fn (opt_provider_set: the provider option); OPTK_PROVIDER: the provider */
	const void *prov;	/* OPTK_PROVIDER: its struct provider_option */
	long min, max;		/* opt_long: the range of the value */
};

#define OPT_STRING(s, l, a, h, p) { .kind = OPTK_STRING, .shrt = (s), .name = (l), .arg = (a), .help = (h), .dst = (p) }
#define OPT_BOOL(s, l, h, p) { .kind = OPTK_FLAG, .shrt = (s), .name = (l), .help = (h), .dst = (p) }
#define OPT_NO(s, l, h, p) { .kind = OPTK_UNFLAG, .shrt = (s), .name = (l), .help = (h), .dst = (p) }
/* a copy of the value into a char * the command frees (dst, a char **) */
#define OPT_DUP(s, l, a, h, p) { .kind = OPTK_CALL, .shrt = (s), .name = (l), .arg = (a), .help = (h), .fn = opt_dup, .dst = (p) }
#define OPT_CALL(s, l, a, h, f, p) { .kind = OPTK_CALL, .shrt = (s), .name = (l), .arg = (a), .help = (h), .fn = (f), .dst = (p) }
/* a value for option k of a provider's option set (dst, a struct provider_options *) */
#define OPT_PROVIDER(s, l, a, h, k, p) \
	{ .kind = OPTK_CALL, .shrt = (s), .name = (l), .arg = (a), .help = (h), .fn = opt_provider_set, .key = (k), .dst = (p) }
/* a whole number from lo to hi into a long (dst); what: "a number of runs (1-1000)" for the error */
#define OPT_LONG(s, l, a, h, p, lo, hi, what)                                                                  \
	{ .kind = OPTK_CALL, .shrt = (s), .name = (l), .arg = (a), .help = (h), .fn = opt_long, .dst = (p), .min = (lo), \
	  .max = (hi), .key = (what) }
/* ... into an int */
#define OPT_INT(s, l, a, h, p, lo, hi, what)                                                                  \
	{ .kind = OPTK_CALL, .shrt = (s), .name = (l), .arg = (a), .help = (h), .fn = opt_int, .dst = (p), .min = (lo), \
	  .max = (hi), .key = (what) }
/* the rows of table t (up to its end) in this place of a table */
#define OPT_INCLUDE(t) { .kind = OPTK_END, .dst = (t) }
#define OPT_END() { .kind = OPTK_END }

/* How opt_parse() ended when the command should not go on: its exit status. */
#define OPT_GO (-1)

/*
 * Parse argv[1..] of command cmd (NULL: lkprobot's own, before the command) against table t: values go
 * where the rows say; -h/--help (every command has it) prints head, the
 * options and tail to stdout. The arguments that are no options are
 * moved behind them, from optind on (getopt_long's order; with
 * stop_at_arg, the first one ends the options: what main does before the
 * command). OPT_GO to go on, else the exit status: 0 after the help, 2
 * after one line on stderr ("lkprobot: --jobs: 'x' is not a number...",
 * "--bogus: not an option of build; 'lkprobot build --help' lists them").
 */
int opt_parse(const char *cmd, int argc, char **argv, const struct opt *t, const char *head, const char *tail,
	      bool stop_at_arg);

/* The options part of a help: one row a line (then its help's other lines), aligned in columns. */
void opt_usage(struct strbuf *out, const struct opt *t);
/* The whole help: head, the options of t (and -h, --help), tail. */
void opt_help(struct strbuf *out, const struct opt *t, const char *head, const char *tail);

/* OPT_DUP's fn. */
int opt_dup(const struct opt *o, const char *value, struct strbuf *err);
/* OPT_LONG's fn: "'x' is not a number of runs (1-1000)" (o->key) when out of o->min..o->max. */
int opt_long(const struct opt *o, const char *value, struct strbuf *err);
/* OPT_INT's fn, the same into an int. */
int opt_int(const struct opt *o, const char *value, struct strbuf *err);
/* OPT_CALL's fn for a bisection of the store: its id (> 0) into o->dst, a long long. */
int opt_bisection_id(const struct opt *o, const char *value, struct strbuf *err);
/* --floor METRIC=PCT's fn: one more floor on o->dst, a struct compare_floors. */
int opt_floor(const struct opt *o, const char *value, struct strbuf *err);

/* OPT_PROVIDER's fn: set option o->key of the provider option set o->dst ("--cpus: must be a whole number"). */
int opt_provider_set(const struct opt *o, const char *value, struct strbuf *err);

struct provider_cli;
/*
 * Rows for every provider's command-line flags (PROVIDER_OPT_CLI), each
 * shown with its provider's name and remembered in pc when given (for
 * provider_cli_apply() once the provider is known), ended by OPT_END()
 * (to OPT_INCLUDE() in a table); at most max rows with the end, the
 * providers' counted.
 */
size_t opt_provider_rows(struct opt *rows, size_t max, struct provider_cli *pc);

#endif

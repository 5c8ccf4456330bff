/*
 * opt: parse a command's options and write their help from one table
 * (opt.h). getopt_long does the parsing, quiet: its errors are said here,
 * in one line, as every other error of lkprobot.
 */
#include "opt.h"
#include "cmd.h"
#include "../lib/results/compare.h"
#include "../providers/provider.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The column the helps start in (0-based), as the hand-written helps had it. */
#define OPT_HELP_COL 25

static const struct opt help_row = OPT_BOOL('h', "help", "this help", NULL);

/* The rows of t, OPT_INCLUDE()s spliced in and -h, --help last, into a new array of *n. */
static const struct opt **flatten(const struct opt *t, const struct opt **v, size_t *n, bool top)
{
	for (; t && !(t->kind == OPTK_END && !t->dst); t++) {
		if (t->kind == OPTK_END) {
			v = flatten(t->dst, v, n, false);
			continue;
		}
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = t;
	}
	if (top) {
		v = xrealloc(v, (*n + 1) * sizeof(*v));
		v[(*n)++] = &help_row;
	}
	return v;
}

static bool optional_arg(const struct opt *o)
{
	return o->arg && o->arg[0] == '[';
}

void opt_usage(struct strbuf *out, const struct opt *t)
{
	size_t n = 0;
	const struct opt **v = flatten(t, NULL, &n, true);
	struct strbuf help = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		const struct opt *o = v[i];
		size_t at = out->len;
		if (o->shrt)
			strbuf_addf(out, "  -%c, --%s", o->shrt, o->name);
		else
			strbuf_addf(out, "      --%s", o->name);
		if (o->arg)
			strbuf_addf(out, "%s%s", optional_arg(o) ? "" : " ", o->arg);
		size_t w = out->len - at;
		if (w >= OPT_HELP_COL)
			strbuf_addf(out, "\n%*s", OPT_HELP_COL, "");
		else
			strbuf_addf(out, "%*s", (int)(OPT_HELP_COL - w), "");
		strbuf_reset(&help);
		if (o->kind == OPTK_PROVIDER)
			provider_option_help(&help, o->key, o->prov);
		else
			strbuf_addstr(&help, o->help);
		/* the help's other lines under its first */
		for (const char *p = help.buf, *nl; *p; p = nl + 1) {
			nl = strchr(p, '\n');
			if (p != help.buf)
				strbuf_addf(out, "%*s", OPT_HELP_COL, "");
			strbuf_add(out, p, nl ? (size_t)(nl - p) : strlen(p));
			strbuf_addch(out, '\n');
			if (!nl)
				break;
		}
	}
	strbuf_release(&help);
	free(v);
}

void opt_help(struct strbuf *out, const struct opt *t, const char *head, const char *tail)
{
	strbuf_addstr(out, head ? head : "");
	opt_usage(out, t);
	strbuf_addstr(out, tail ? tail : "");
}

/*
 * The option at argv[optind - 1] as the user gave it: "--name" (r's whole
 * name, when the user wrote a prefix of it; without "=value") or "-x".
 */
static void said(struct strbuf *out, char **argv, const struct opt *r, int c)
{
	const char *a = argv[optind - 1];

	if (strncmp(a, "--", 2))
		strbuf_addf(out, "-%c", c);
	else if (r)
		strbuf_addf(out, "--%s", r->name);
	else
		strbuf_add(out, a, strchr(a, '=') ? (size_t)(strchr(a, '=') - a) : strlen(a));
}

static int take(const struct opt *o, const char *value, struct strbuf *err)
{
	switch (o->kind) {
	case OPTK_STRING:
		*(const char **)o->dst = value;
		return 0;
	case OPTK_FLAG:
	case OPTK_UNFLAG:
		*(bool *)o->dst = o->kind == OPTK_FLAG;
		return 0;
	case OPTK_CALL:
		return o->fn(o, value, err);
	case OPTK_PROVIDER:
		provider_cli_add(o->dst, provider_option_flag(o->prov), value ? value : "true");
		return 0;
	case OPTK_END:
		break;
	}
	return 0;
}

int opt_parse(const char *cmd, int argc, char **argv, const struct opt *t, const char *head, const char *tail,
	      bool stop_at_arg)
{
	size_t n = 0;
	const struct opt **v = flatten(t, NULL, &n, true);
	struct option *lo = xcalloc(n + 1, sizeof(*lo));
	struct strbuf shorts = STRBUF_INIT, err = STRBUF_INIT, what = STRBUF_INIT;
	int c, ret = OPT_GO;

	/* quiet (':' first): a missing value comes back as ':', the rest as '?' */
	strbuf_addstr(&shorts, stop_at_arg ? "+:" : ":");
	for (size_t i = 0; i < n; i++) {
		int has = !v[i]->arg ? no_argument : optional_arg(v[i]) ? optional_argument : required_argument;
		lo[i] = (struct option){ v[i]->name, has, NULL, 0x100 + (int)i };
		if (v[i]->shrt)
			strbuf_addf(&shorts, "%c%s", v[i]->shrt, has == required_argument ? ":" : has == optional_argument ? "::" : "");
	}
	optind = 0;	/* glibc: start afresh (an earlier parse, main's, leaves state behind) */
	opterr = 0;
	while (ret == OPT_GO && (c = getopt_long(argc, argv, shorts.buf, lo, NULL)) != -1) {
		const struct opt *o = NULL;
		if (c >= 0x100 && c < 0x100 + (int)n)
			o = v[c - 0x100];
		for (size_t i = 0; i < n && !o && c != '?' && c != ':'; i++)
			if (v[i]->shrt == c)
				o = v[i];
		strbuf_reset(&what);
		if (c == '?' || c == ':' || !o) {
			int bad = c == '?' || c == ':' ? optopt : c;
			const struct opt *r = bad >= 0x100 && bad < 0x100 + (int)n ? v[bad - 0x100] : NULL;
			for (size_t i = 0; i < n && !r && bad > 0; i++)
				if (v[i]->shrt == bad)
					r = v[i];
			said(&what, argv, r, r && r->shrt ? r->shrt : bad);
			if (c == ':' && r)
				strbuf_setf(&err, "%s: needs a value (%s)", what.buf, r->arg);
			else if (r)
				strbuf_setf(&err, "%s: takes no value", what.buf);
			else
				strbuf_setf(&err, "%s: not an option of %s%s; 'lkprobot%s%s --help' lists them", what.buf,
					    cmd ? "" : "lkprobot", cmd ? cmd : "", cmd ? " " : "", cmd ? cmd : "");
			ret = say_error(EXIT_USAGE, "%s", err.buf);
		} else if (o == &help_row) {
			struct strbuf h = STRBUF_INIT;
			opt_help(&h, t, head, tail);
			fputs(h.buf, stdout);
			strbuf_release(&h);
			ret = EXIT_OK;
		} else {
			struct strbuf why = STRBUF_INIT;
			if (take(o, optarg, &why)) {
				/* the why names the option already when the value is checked elsewhere too */
				if (!strncmp(why.buf, "--", 2))
					ret = say_error(EXIT_USAGE, "%s", why.buf);
				else
					ret = say_error(EXIT_USAGE, "--%s: %s", o->name, why.buf);
			}
			strbuf_release(&why);
		}
	}
	strbuf_release(&shorts);
	strbuf_release(&err);
	strbuf_release(&what);
	free(lo);
	free(v);
	return ret;
}

/* value as a whole number of o's range: 0, or -1 with "'x' is not <o->key>" in err */
static int whole(const struct opt *o, const char *value, long *n, struct strbuf *err)
{
	char *end;

	errno = 0;
	*n = strtol(value, &end, 10);
	if (!*value || *end || errno || *n < o->min || *n > o->max) {
		strbuf_setf(err, "'%s' is not %s", value, o->key);
		return -1;
	}
	return 0;
}

int opt_long(const struct opt *o, const char *value, struct strbuf *err)
{
	return whole(o, value, o->dst, err);
}

int opt_int(const struct opt *o, const char *value, struct strbuf *err)
{
	long n;

	if (whole(o, value, &n, err))
		return -1;
	*(int *)o->dst = (int)n;
	return 0;
}

int opt_bisection_id(const struct opt *o, const char *value, struct strbuf *err)
{
	char *end;
	long long id = strtoll(value, &end, 10);

	if (!*value || *end || id <= 0) {
		strbuf_setf(err, "'%s' is not a bisection id", value);
		return -1;
	}
	*(long long *)o->dst = id;
	return 0;
}

int opt_dup(const struct opt *o, const char *value, struct strbuf *err)
{
	(void)err;
	free(*(char **)o->dst);
	*(char **)o->dst = xstrdup(value);
	return 0;
}

int opt_floor(const struct opt *o, const char *value, struct strbuf *err)
{
	return compare_floors_add(o->dst, value, err);
}

int opt_provider_set(const struct opt *o, const char *value, struct strbuf *err)
{
	struct strbuf why = STRBUF_INIT;
	int r = provider_options_set(o->dst, o->key, value ? value : "true", &why);

	/* its why begins "KEY: " — the flag is said instead */
	if (r)
		strbuf_addstr(err, strchr(why.buf, ':') ? strchr(why.buf, ':') + 2 : why.buf);
	strbuf_release(&why);
	return r;
}

size_t opt_provider_rows(struct opt *rows, size_t max, struct provider_cli *pc)
{
	const struct provider_option *po[64];
	const char *who[64];
	size_t n = provider_cli_options(po, who, max - 1 < 64 ? max - 1 : 64);

	for (size_t i = 0; i < n; i++)
		rows[i] = (struct opt){ .kind = OPTK_PROVIDER, .name = provider_option_flag(po[i]),
					.arg = po[i]->type == PROVIDER_OPT_BOOL ? NULL : po[i]->arg ? po[i]->arg : "VALUE",
					.dst = pc, .key = who[i], .prov = po[i] };
	rows[n] = (struct opt)OPT_END();
	return n;
}

int jobopts_set_opt(const struct opt *o, const char *value, struct strbuf *err)
{
	return jobopts_set(o->dst, value, err);
}

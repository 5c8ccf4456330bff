/*
 * lkprobot programs: the programs a job may name — what lkprobot runs,
 * what it only declares, and, with an lkp-tests checkout, what lkp-tests
 * knows that lkprobot does not — and each program's options.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/job/lkpsrc.h"
#include "../lib/run/program.h"
#include "../lib/util/strbuf.h"
#include "../lib/util/yml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
	"usage: lkprobot programs [options] [NAME...]\n"
	"\n"
	"List the programs a job can name: kind (setup, test, daemon, monitor,\n"
	"stats) and what lkprobot does with it — 'runs' (it implements it),\n"
	"'declared' (it knows the name and options; a monitor is recorded as\n"
	"unavailable, anything else refused by run) or, with an lkp-tests checkout,\n"
	"'lkp-tests' (only lkp-tests runs it; run refuses the job). Given names,\n"
	"each program's options: lkprobot's, and lkp-tests' (its script's header,\n"
	"what names use; meta.yaml parameters the header lacks are shown apart).\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 printed, 2 unknown program or bad --lkp-src\n";

/* Does lkprobot do what the program's kind asks? */
static bool implemented(const struct program *p)
{
	switch (p->kind) {
	case PROGRAM_SETUP: return p->setup;
	case PROGRAM_TEST: return p->run;
	case PROGRAM_MONITOR: return p->monitor;
	case PROGRAM_STATS: return p->parse;
	default: return false;
	}
}

static void kinds_text(unsigned kinds, struct strbuf *out)
{
	for (unsigned k = LKPSRC_SETUP; k <= LKPSRC_STATS; k <<= 1)
		if (kinds & k)
			strbuf_addf(out, "%s%s", out->len ? "+" : "", lkpsrc_kind_name((enum lkpsrc_kind)k));
}

static void list_line(const char *name, const char *kind, const char *status, const char *what)
{
	printf("%-24s %-14s %-9s %s\n", name, kind, status, what);
}

static int list_all(struct lkpsrc *lk)
{
	const struct lkpsrc_program *const *all = NULL;
	size_t n = lk ? lkpsrc_all(lk, &all) : 0, i = 0, j = 0;
	size_t runs = 0, declared = 0, lkp_only = 0;
	struct strbuf kind = STRBUF_INIT, what = STRBUF_INIT;

	/* merge the two sorted lists */
	while (i < program_table_size || j < n) {
		const struct program *p = i < program_table_size ? program_table[i] : NULL;
		const struct lkpsrc_program *lp = j < n ? all[j] : NULL;
		int c = !p ? 1 : !lp ? -1 : strcmp(p->name, lp->name);

		if (p && p->kind == PROGRAM_WRAPPER) {
			i++;
			continue;
		}
		strbuf_reset(&kind);
		strbuf_reset(&what);
		if (c <= 0) {
			bool runs_it = implemented(p);
			if (c == 0)
				kinds_text(lp->kinds, &kind);
			else
				strbuf_addstr(&kind, program_kind_name(p->kind));
			runs += runs_it;
			declared += !runs_it;
			list_line(p->name, kind.buf, runs_it ? "runs" : "declared", p->summary);
			i++;
			j += c == 0;
			continue;
		}
		kinds_text(lp->kinds, &kind);
		for (unsigned k = LKPSRC_SETUP; k <= LKPSRC_STATS; k <<= 1)
			if (lkpsrc_script(lp, (enum lkpsrc_kind)k)) {
				strbuf_addf(&what, "lkp-tests runs %s", lkpsrc_script(lp, (enum lkpsrc_kind)k));
				break;
			}
		list_line(lp->name, kind.buf, "lkp-tests", what.buf);
		lkp_only++;
		j++;
	}
	if (lk)
		printf("lkprobot runs %zu and declares %zu programs; %zu more are lkp-tests' only (%s)\n",
		       runs, declared, lkp_only, lkpsrc_dir(lk));
	strbuf_release(&kind);
	strbuf_release(&what);
	return EXIT_OK;
}

/* meta.yaml's parameters: the documentation lkp-tests keeps next to the script. */
static struct node *meta_parameters(struct lkpsrc *lk, const char *name)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	char *path = xasprintf("%s/programs/%s/meta.yaml", lkpsrc_dir(lk), name);
	struct node *doc = NULL, *params = NULL;

	if (!strbuf_read_file(&text, path) && (doc = yml_load_one(text.buf, path, &err)) &&
	    doc->type == NODE_MAP && (params = node_get(doc, "parameters")) &&
	    params->type == NODE_MAP)
		params = node_dup(params);
	else
		params = NULL;
	node_free(doc);
	free(path);
	strbuf_release(&text);
	strbuf_release(&err);
	return params;
}

static void show_lkp(struct lkpsrc *lk, const struct lkpsrc_program *lp)
{
	struct strbuf kind = STRBUF_INIT;
	struct node *meta = meta_parameters(lk, lp->name);

	kinds_text(lp->kinds, &kind);
	printf("lkp-tests (%s): %s", lkpsrc_dir(lk), kind.buf);
	for (unsigned k = LKPSRC_SETUP; k <= LKPSRC_STATS; k <<= 1)
		if (lkpsrc_script(lp, (enum lkpsrc_kind)k))
			printf(" %s", lkpsrc_script(lp, (enum lkpsrc_kind)k));
	printf("\n");
	if (lp->kinds & LKPSRC_WORKLOAD && !lp->options)
		printf("  no options in the script's header; the value itself is the parameter\n");
	for (char **o = lp->options; o && *o; o++) {
		printf("  %s%s\n", **o == '=' ? "=" : "- ", **o == '=' ? *o + 1 : *o);
		if (meta)
			node_del(meta, **o == '=' ? *o + 1 : *o);
	}
	if (meta && meta->n) {
		printf("  documented in meta.yaml but not in the header (not part of names):");
		for (size_t i = 0; i < meta->n; i++)
			printf(" %s", meta->keys[i]);
		printf("\n");
	}
	node_free(meta);
	strbuf_release(&kind);
}

int cmd_programs(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	const struct opt table[] = {
		JOBOPTS_LKP_SRC_ROW(&jo),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	int ret;

	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	if (jobopts_lkp_src(&jo, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (optind == argc) {
		ret = list_all(jo.lkp);
		goto out;
	}
	ret = EXIT_OK;
	for (int a = optind; a < argc; a++) {
		const struct program *p = program_find(argv[a]);
		const struct lkpsrc_program *lp = jo.lkp ? lkpsrc_program(jo.lkp, argv[a]) : NULL;
		if (!p && !lp) {
			ret = say_error(EXIT_USAGE,
					"'%s' is not a program lkprobot knows%s; 'lkprobot programs' lists them",
					argv[a], jo.lkp ? " nor one of lkp-tests" : "");
			goto out;
		}
		if (p) {
			printf("%s (%s, %s by lkprobot): %s\n", p->name, program_kind_name(p->kind),
			       implemented(p) ? "run" : "declared only", p->summary);
			if (!p->options)
				printf("  no options; the value itself is the parameter\n");
			for (const char *const *o = p->options; o && *o; o++)
				printf("  %s%s\n", **o == '=' ? "=" : "- ", **o == '=' ? *o + 1 : *o);
		} else {
			printf("%s (not implemented by lkprobot)\n", argv[a]);
		}
		if (lp)
			show_lkp(jo.lkp, lp);
	}
out:
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

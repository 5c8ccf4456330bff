/*
 * lkprobot compare: what changed between a base and one or more commits,
 * as `lkp ncompare` prints it (or the classic layout of the older reports,
 * or JSON). A side is a commit directory of result roots, run directories,
 * or a commit the store knows (then every job both commits ran is a group).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/results/compare.h"
#include "../lib/util/json.h"
#include "../lib/results/sides.h"
#include "../lib/stats/lkpetc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot compare [options] BASE NEW [NEW...]\n"
	"\n"
	"Compare the runs of NEW with those of BASE, metric by metric, with\n"
	"lkp-tests' rules: only the changed metrics are shown, as `lkp ncompare`\n"
	"prints them (its data: lkp-etc/, or $LKPROBOT_LKP_ETC). Each side is\n"
	"  - a commit directory (.../<compiler>/<commit>, its matrix.json),\n"
	"  - run directories (.../<commit>/<run>), several joined with commas,\n"
	"  - or a commit (or a prefix of one) the store knows: every job that both\n"
	"    commits ran is compared, one group each.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 compared (changed or not), 2 a side that is not found or\n"
	"cannot be read, or usage\n";

/* --perf-profile N: a positive number */
static int take_threshold(const struct opt *o, const char *value, struct strbuf *err)
{
	char *end;
	double *t = o->dst;

	*t = strtod(value, &end);
	if (!*value || *end || !(*t > 0)) {
		strbuf_setf(err, "'%s' is not a positive number", value);
		return -1;
	}
	return 0;
}

int cmd_compare(int argc, char **argv, struct lkp_ctx *ctx)
{
	bool classic = false, json = false, stats = false, noise = false;
	const char *field = NULL, *db = NULL, *result_dir = "/lkp/result";
	struct compare_opts co = { 0 };
	struct compare_floors floors = { 0 };
	const struct opt table[] = {
		OPT_BOOL(0, "classic", "the layout of the older LKP reports (\"change\" column)", &classic),
		OPT_STRING(0, "field", "METRIC", "the classic one-metric table across the groups, with GEO-MEAN", &field),
		OPT_BOOL(0, "json", "every metric, changed or not (with why not), as JSON", &json),
		OPT_BOOL(0, "stats", "also the p-values (Mann-Whitney U, Welch t) and Hedges' g", &stats),
		OPT_BOOL(0, "all", "every metric of the base, changed or not", &co.all),
		OPT_BOOL(0, "more",
			 "also the stats lkp-tests' stat-denylist leaves out\n"
			 "(interrupts.*, ...), as its ncompare --more",
			 &co.more),
		OPT_BOOL(0, "show-noise", "--field: keep tests whose stddev is over half the mean", &noise),
		OPT_CALL(0, "perf-profile", "N", "perf-profile rows change when a median is above N (default 5)",
			 take_threshold, &co.perf_profile_threshold),
		OPT_CALL(0, "floor", "METRIC=PCT",
			 "the decision's floor for METRIC (a glob; repeatable): a\n"
			 "smaller change is never a regression or improvement\n"
			 "(default 1% for perf metrics and the test's own, else 5%)",
			 opt_floor, &floors),
		OPT_STRING(0, "db", "FILE", "the store (default: RESULT_ROOT_DIR/lkprobot.db)", &db),
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default /lkp/result)", &result_dir),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct side *sides = NULL;
	size_t nsides = 0;
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (argc - optind < 2) {
		strbuf_setf(&err, "compare needs a base and at least one commit to compare with it; see 'lkprobot compare --help'");
		goto bad;
	}
	if (json + classic + (field != NULL) > 1) {
		strbuf_setf(&err, "--json, --classic and --field are different outputs: choose one");
		goto bad;
	}
	co.floors = &floors;
	if (lkpetc_load(&err))
		goto bad;

	nsides = (size_t)(argc - optind);
	if (sides_load(argv + optind, nsides, db, result_dir, &sides, &err))
		goto bad;

	/* the groups every side has, in the base's order */
	const struct node **mats = xcalloc(nsides, sizeof(*mats));
	const char **labels = xcalloc(nsides, sizeof(*labels));
	const struct group **grs = xcalloc(nsides, sizeof(*grs));
	const uint64_t **rounds = xcalloc(nsides, sizeof(*rounds));
	size_t *nrounds = xcalloc(nsides, sizeof(*nrounds));
	struct compare_field_row *frows = NULL;
	size_t nfrows = 0, ngroups = 0;
	if (json)
		strbuf_addstr(&out, "[\n");
	for (size_t gi = 0; gi < sides[0].ng; gi++) {
		const struct group *bg = &sides[0].g[gi];
		bool everywhere = true;
		mats[0] = bg->matrix;
		labels[0] = sides[0].label;
		grs[0] = bg;
		for (size_t s = 1; s < nsides; s++) {
			const struct group *hit = side_match(&sides[s], &sides[0], bg);
			if (!hit) {
				everywhere = false;
				break;
			}
			mats[s] = hit->matrix;
			labels[s] = sides[s].label;
			grs[s] = hit;
		}
		if (!everywhere)
			continue;
		ngroups++;
		if (field) {
			const struct node *b = node_get(mats[0], field), *n = node_get(mats[nsides - 1], field);
			if (!b || !n || b->type != NODE_SEQ || n->type != NODE_SEQ)
				continue;
			frows = xrealloc(frows, (nfrows + 1) * sizeof(*frows));
			double *bv = xcalloc(b->n + 1, sizeof(double)), *nv = xcalloc(n->n + 1, sizeof(double));
			size_t nb = 0, nn = 0;
			for (size_t k = 0; k < b->n; k++)
				if (json_number(b->vals[k], &bv[nb]))
					nb++;
			for (size_t k = 0; k < n->n; k++)
				if (json_number(n->vals[k], &nv[nn]))
					nn++;
			frows[nfrows++] = (struct compare_field_row){ bg->desc, bv, nv, nb, nn };
			continue;
		}
		struct compare_result res;
		sides_rounds(grs, nsides, rounds, nrounds);
		co.rounds = rounds;
		co.nrounds = nrounds;
		if (compare_matrices(mats, labels, nsides, &co, &res, &err)) {
			free(mats);
			free(labels);
			free(grs);
			free(rounds);
			free(nrounds);
			goto bad;
		}
		if (json) {
			if (ngroups > 1)
				strbuf_addstr(&out, ",\n");
			compare_render_json(&out, &res);
		} else if (classic) {
			compare_render_classic(&out, &res, bg->desc);
			strbuf_addch(&out, '\n');
		} else {
			compare_render_ncompare(&out, &res, *bg->key ? "testcase/path_params/tbox_group/rootfs/kconfig/compiler" : NULL,
						bg->key, stats);
		}
		compare_result_release(&res);
	}
	if (json)
		strbuf_addstr(&out, "]\n");
	if (field && nfrows) {
		compare_render_field(&out, sides[0].label, sides[nsides - 1].label, field, frows, nfrows, noise);
	}
	for (size_t i = 0; i < nfrows; i++) {
		free((double *)frows[i].base);
		free((double *)frows[i].new_);
	}
	free(frows);
	free(mats);
	free(labels);
	free(grs);
	free(rounds);
	free(nrounds);
	if (!ngroups) {
		strbuf_setf(&err, "%s and %s share no job: nothing to compare", sides[0].label ? sides[0].label : "base",
			    sides[nsides - 1].label ? sides[nsides - 1].label : "new");
		goto bad;
	}
	if (field && !nfrows) {
		strbuf_setf(&err, "--field %s: no group has that metric on both sides", field);
		goto bad;
	}
	fwrite(out.buf, 1, out.len, stdout);
	ret = EXIT_OK;
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	compare_floors_release(&floors);
	sides_release(sides, nsides);
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}

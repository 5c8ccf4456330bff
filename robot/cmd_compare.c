/*
 * lkprobot compare: what changed between a base and one or more commits,
 * as `lkp ncompare` prints it (or the classic layout of the older reports,
 * or JSON). A side is a commit directory of result roots, run directories,
 * or a commit the store knows (then every job both commits ran is a group).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/store/store.h"
#include "../lib/results/compare.h"
#include "../lib/results/result.h"
#include "../lib/results/sides.h"
#include "../lib/stats/lkpetc.h"

#include <math.h>
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

/* What compare prints, from its options: one layout, and what it adds. */
struct compare_out {
	bool classic, json, stats, noise, headline;
	const char *field;	/* --field METRIC */
};

/* One group of the base matched on every side: each side's matrix, label, group and rounds. */
struct matched {
	const struct matrix **mats;
	const char **labels;
	const struct group **grs;
	const uint64_t **rounds;
	size_t *nrounds;
};

/* The base's group gi on every side: false when a side does not have it. */
static bool match_group(const struct side *sides, size_t nsides, size_t gi, struct matched *m)
{
	const struct group *bg = &sides[0].g[gi];

	m->mats[0] = bg->matrix;
	m->labels[0] = sides[0].label;
	m->grs[0] = bg;
	for (size_t s = 1; s < nsides; s++) {
		const struct group *hit = side_match(&sides[s], &sides[0], bg);
		if (!hit)
			return false;
		m->mats[s] = hit->matrix;
		m->labels[s] = sides[s].label;
		m->grs[s] = hit;
	}
	return true;
}

/* --field: the metric's samples on the base and the last side as a row; false when one of them lacks it. */
static bool field_row(const struct matched *m, size_t nsides, const char *field, const char *desc,
		      struct compare_field_row *row)
{
	const struct matrix_col *b = matrix_get(m->mats[0], field), *n = matrix_get(m->mats[nsides - 1], field);

	if (!b || !n || !b->list || !n->list)
		return false;
	double *bv = xcalloc(b->n + 1, sizeof(double)), *nv = xcalloc(n->n + 1, sizeof(double));
	size_t nb = 0, nn = 0;
	/* the cells that are numbers (NAN: one that is not) */
	for (size_t k = 0; k < b->n; k++)
		if (!isnan(b->v[k]))
			bv[nb++] = b->v[k];
	for (size_t k = 0; k < n->n; k++)
		if (!isnan(n->v[k]))
			nv[nn++] = n->v[k];
	*row = (struct compare_field_row){ desc, bv, nv, nb, nn };
	return true;
}

/* One matched group compared and rendered into out in the chosen layout (ngroups: this one's number). */
static int compare_group(const struct matched *m, size_t nsides, const struct group *bg, size_t ngroups,
			 const struct compare_out *how, struct compare_opts *co, struct strbuf *out, struct strbuf *err)
{
	struct compare_result res;
	struct compare_floors *floors = (struct compare_floors *)co->floors;
	size_t ours = floors->n;
	struct strbuf e = STRBUF_INIT;
	/* the job's floors and directions (metric_direction:), after the command line's */
	struct node *job = result_load_job(m->grs[nsides - 1]->run_dir, &e);

	if (job && compare_floors_add_job(floors, job, &e))
		say_warn("%s/job.yaml: %s; its floors and directions are ignored", m->grs[nsides - 1]->run_dir, e.buf);
	node_free(job);
	strbuf_release(&e);
	sides_rounds(m->grs, nsides, m->rounds, m->nrounds);
	co->rounds = m->rounds;
	co->nrounds = m->nrounds;
	int rc = compare_tables(m->mats, m->labels, nsides, co, &res, err);
	compare_floors_truncate(floors, ours);
	if (rc)
		return -1;
	if (how->json) {
		if (ngroups > 1)
			strbuf_addstr(out, ",\n");
		compare_render_json(out, &res);
	} else if (how->classic) {
		compare_render_classic(out, &res, bg->desc);
		strbuf_addch(out, '\n');
	} else {
		compare_render_ncompare(out, &res, *bg->key ? "testcase/path_params/tbox_group/rootfs/kconfig/compiler" : NULL,
					bg->key, how->stats);
	}
	if (how->headline && !how->json)
		compare_render_headline(out, &res);
	compare_result_release(&res);
	return 0;
}

/* The groups every side has, in the base's order, compared into out; -1 with err when none is. */
static int compare_sides(const struct side *sides, size_t nsides, const struct compare_out *how,
			 struct compare_opts *co, struct strbuf *out, struct strbuf *err)
{
	struct matched m = {
		xcalloc(nsides, sizeof(*m.mats)), xcalloc(nsides, sizeof(*m.labels)), xcalloc(nsides, sizeof(*m.grs)),
		xcalloc(nsides, sizeof(*m.rounds)), xcalloc(nsides, sizeof(*m.nrounds)),
	};
	struct compare_field_row *frows = NULL;
	size_t nfrows = 0, ngroups = 0;
	int ret = -1;

	if (how->json)
		strbuf_addstr(out, "[\n");
	for (size_t gi = 0; gi < sides[0].ng; gi++) {
		const struct group *bg = &sides[0].g[gi];
		if (!match_group(sides, nsides, gi, &m))
			continue;
		ngroups++;
		if (how->field) {
			frows = xrealloc(frows, (nfrows + 1) * sizeof(*frows));
			if (field_row(&m, nsides, how->field, bg->desc, &frows[nfrows]))
				nfrows++;
			continue;
		}
		if (compare_group(&m, nsides, bg, ngroups, how, co, out, err))
			goto out;
	}
	if (how->json)
		strbuf_addstr(out, "]\n");
	if (how->field && nfrows)
		compare_render_field(out, sides[0].label, sides[nsides - 1].label, how->field, frows, nfrows, how->noise);
	if (!ngroups) {
		strbuf_setf(err, "%s and %s share no job: nothing to compare", sides[0].label ? sides[0].label : "base",
			    sides[nsides - 1].label ? sides[nsides - 1].label : "new");
		goto out;
	}
	if (how->field && !nfrows) {
		strbuf_setf(err, "--field %s: no group has that metric on both sides", how->field);
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < nfrows; i++) {
		free((double *)frows[i].base);
		free((double *)frows[i].new_);
	}
	free(frows);
	free(m.mats);
	free(m.labels);
	free(m.grs);
	free(m.rounds);
	free(m.nrounds);
	return ret;
}

int cmd_compare(int argc, char **argv, struct lkp_ctx *ctx)
{
	bool classic = false, json = false, stats = false, noise = false, headline = false;
	const char *field = NULL, *db = NULL, *result_dir = STORE_RESULT_ROOT;
	struct compare_opts co = { 0 };
	struct compare_floors floors = { 0 };
	const struct opt table[] = {
		OPT_BOOL(0, "classic", "the layout of the older LKP reports (\"change\" column)", &classic),
		OPT_STRING(0, "field", "METRIC", "the classic one-metric table across the groups, with GEO-MEAN",
			   &field),
		OPT_BOOL(0, "json", "every metric, changed or not (with why not), as JSON", &json),
		OPT_BOOL(0, "stats", "also the p-values (Mann-Whitney U, Welch t) and Hedges' g", &stats),
		OPT_BOOL(0, "headline",
			 "also the headline: the metric a report and a bisection\n"
			 "follow, with lkprobot's decision (change, interval)",
			 &headline),
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
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &result_dir),
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
	co.shown_only = !json; /* the tables show the changed rows: only those (and the headline's) are kept */
	if (lkpetc_load(&err))
		goto bad;

	nsides = (size_t)(argc - optind);
	if (sides_load(argv + optind, nsides, db, result_dir, &sides, &err))
		goto bad;

	struct compare_out how = { classic, json, stats, noise, headline, field };
	if (compare_sides(sides, nsides, &how, &co, &out, &err))
		goto bad;
	fwrite(out.buf, 1, out.len, stdout);
	ret = EXIT_OK;
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	compare_floors_release(&floors);
	sides_release(sides, nsides);
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}

/*
 * lkprobot compare: what changed between a base and one or more commits,
 * as `lkp ncompare` prints it (or the classic layout of the older reports,
 * or JSON). A side is a commit directory of result roots, run directories,
 * or a commit the store knows (then every job both commits ran is a group).
 */
#include "cmd.h"
#include "../lib/compare.h"
#include "../lib/json.h"
#include "../lib/result.h"
#include "../lib/stats.h"
#include "../lib/store.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot compare [options] BASE NEW [NEW...]\n"
	"\n"
	"Compare the runs of NEW with those of BASE, metric by metric, with\n"
	"lkp-tests' rules: only the changed metrics are shown, as `lkp ncompare`\n"
	"prints them. Each side is\n"
	"  - a commit directory (.../<compiler>/<commit>, its matrix.json),\n"
	"  - run directories (.../<commit>/<run>), several joined with commas,\n"
	"  - or a commit (or a prefix of one) the store knows: every job that both\n"
	"    commits ran is compared, one group each.\n"
	"\n"
	"      --classic          the layout of the older LKP reports (\"change\" column)\n"
	"      --field METRIC     the classic one-metric table across the groups, with GEO-MEAN\n"
	"      --json             every metric, changed or not (with why not), as JSON\n"
	"      --stats            also the p-values (Mann-Whitney U, Welch t) and Hedges' g\n"
	"      --all              every metric of the base, changed or not\n"
	"      --show-noise       --field: keep tests whose stddev is over half the mean\n"
	"      --perf-profile N   perf-profile rows change when a median is above N (default 5)\n"
	"      --db FILE          the store (default: RESULT_ROOT_DIR/lkprobot.db)\n"
	"  -o, --result-root DIR RESULT_ROOT_DIR (default /lkp/result)\n"
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 compared (changed or not), 2 a side that is not found or\n"
	"cannot be read, or usage\n";

enum { OPT_CLASSIC = 0x500, OPT_FIELD, OPT_JSON, OPT_STATS, OPT_ALL, OPT_NOISE, OPT_PPROF, OPT_DB };

/* One group of a side: the runs of one job on one commit. */
struct group {
	char *key;		/* testcase/path_params/tbox_group/rootfs/kconfig/compiler */
	char *desc;		/* testcase/path_params/tbox_group (the classic rows' label) */
	struct node *matrix;
};

struct side {
	char *label;
	struct group *g;
	size_t ng;
};

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->ng; i++) {
		free(s->g[i].key);
		free(s->g[i].desc);
		node_free(s->g[i].matrix);
	}
	free(s->g);
	free(s->label);
}

static struct group *add_group(struct side *s, const char *key, const char *desc)
{
	for (size_t i = 0; i < s->ng; i++)
		if (!strcmp(s->g[i].key, key))
			return &s->g[i];
	s->g = xrealloc(s->g, (s->ng + 1) * sizeof(*s->g));
	struct group *g = &s->g[s->ng++];
	g->key = xstrdup(key);
	g->desc = xstrdup(desc);
	g->matrix = node_new(NODE_MAP);
	return g;
}

/*
 * n components of a path, ending `skip` components before its end, joined
 * with '/'; NULL when the path is shorter.
 */
static char *path_tail(const char *path, int n, int skip)
{
	char *copy = xstrdup(path), *save = NULL, *comp[256];
	int k = 0;
	struct strbuf sb = STRBUF_INIT;

	for (char *c = strtok_r(copy, "/", &save); c && k < 256; c = strtok_r(NULL, "/", &save))
		if (strcmp(c, "."))
			comp[k++] = c;
	if (k - skip - n < 0) {
		free(copy);
		return NULL;
	}
	for (int i = k - skip - n; i < k - skip; i++)
		strbuf_addf(&sb, "%s%s", i > k - skip - n ? "/" : "", comp[i]);
	free(copy);
	return strbuf_detach(&sb);
}

/*
 * A result path's group: <testcase>/<path_params>/<tbox_group>/<rootfs>/
 * <kconfig>/<compiler> above the commit directory; desc is the first
 * three. skip: how many components sit below the commit directory.
 */
static void group_of(const char *path, int skip, char **key, char **desc)
{
	*key = path_tail(path, 6, skip + 1);
	*desc = path_tail(path, 3, skip + 4);
	if (!*key)
		*key = xstrdup("");
	if (!*desc)
		*desc = xstrdup(*key);
}

static int load_run(struct group *g, const char *run_dir, struct strbuf *err)
{
	char *sp = xasprintf("%s/stats.json", run_dir);
	struct node *stats = NULL;
	int ret = result_load_json(sp, &stats, err);

	free(sp);
	if (ret)
		return -1;
	if (stats->type != NODE_MAP) {
		strbuf_setf(err, "%s/stats.json: not a map of metric -> value", run_dir);
		node_free(stats);
		return -1;
	}
	stats_matrix_add(g->matrix, stats, run_dir);
	node_free(stats);
	return 0;
}

static bool is_dir_with(const char *dir, const char *file)
{
	char *p = xasprintf("%s/%s", dir, file);
	bool ok = !access(p, R_OK);
	free(p);
	return ok;
}

/* A side from the file system: a commit directory, or run directories. */
static int side_from_files(struct side *s, const char *arg, struct strbuf *err)
{
	if (!strchr(arg, ',') && is_dir_with(arg, "matrix.json")) {
		char *mp = xasprintf("%s/matrix.json", arg), *key, *desc;
		struct node *m = NULL;
		int r = result_load_json(mp, &m, err);
		free(mp);
		if (r)
			return -1;
		group_of(arg, 0, &key, &desc);
		struct group *g = add_group(s, key, desc);
		node_free(g->matrix);
		g->matrix = m;
		s->label = path_tail(arg, 1, 0);
		free(key);
		free(desc);
		return 0;
	}
	char *copy = xstrdup(arg), *save = NULL;
	int ret = 0;
	for (char *d = strtok_r(copy, ",", &save); d && !ret; d = strtok_r(NULL, ",", &save)) {
		char *key, *desc;
		if (!is_dir_with(d, "stats.json")) {
			strbuf_setf(err, "%s: neither a commit directory (matrix.json) nor a run directory (stats.json)", d);
			ret = -1;
			break;
		}
		group_of(d, 1, &key, &desc);
		ret = load_run(add_group(s, key, desc), d, err);
		if (!s->label)
			s->label = path_tail(d, 1, 1);
		free(key);
		free(desc);
	}
	free(copy);
	return ret;
}

/* A side from the store: every run of the commits starting with arg. */
static int side_from_store(struct side *s, struct store *st, const char *arg, struct strbuf *err)
{
	struct node *runs = NULL;
	char *commit = NULL;
	int ret = -1;

	if (store_list_runs(st, NULL, &runs, err))
		return -1;
	for (size_t i = 0; i < runs->n; i++) {
		const char *c = node_str(node_get(runs->vals[i], "commit"));
		if (!c || strncmp(c, arg, strlen(arg)))
			continue;
		if (commit && strcmp(commit, c)) {
			strbuf_setf(err, "'%s' names more than one commit in the store (%s, %s); give more of it", arg,
				    commit, c);
			goto out;
		}
		if (!commit)
			commit = xstrdup(c);
	}
	if (!commit) {
		strbuf_setf(err, "'%s': not a result directory, and no commit of that name in the store", arg);
		goto out;
	}
	for (size_t i = 0; i < runs->n; i++) {
		const struct node *r = runs->vals[i];
		const char *c = node_str(node_get(r, "commit")), *rt = node_str(node_get(r, "result_root"));
		const char *tc = node_str(node_get(r, "testcase")), *pp = node_str(node_get(r, "path_params"));
		const char *tg = node_str(node_get(r, "tbox_group")), *rootfs = node_str(node_get(r, "rootfs"));
		const char *kc = node_str(node_get(r, "kconfig")), *cc = node_str(node_get(r, "compiler"));
		struct node *stats = NULL;
		if (!c || strcmp(c, commit) || !rt)
			continue;
		char *key = xasprintf("%s/%s/%s/%s/%s/%s", tc ? tc : "", pp ? pp : "", tg ? tg : "", rootfs ? rootfs : "",
				      kc ? kc : "", cc ? cc : "");
		char *desc = xasprintf("%s/%s/%s", tc ? tc : "", pp ? pp : "", tg ? tg : "");
		struct group *g = add_group(s, key, desc);
		free(key);
		free(desc);
		if (store_run_stats(st, rt, &stats, err) < 0)
			goto out;
		if (stats)
			stats_matrix_add(g->matrix, stats, rt);
		node_free(stats);
	}
	s->label = commit;
	commit = NULL;
	ret = 0;
out:
	free(commit);
	node_free(runs);
	return ret;
}

int cmd_compare(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "classic", no_argument, NULL, OPT_CLASSIC },
		{ "field", required_argument, NULL, OPT_FIELD },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "stats", no_argument, NULL, OPT_STATS },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "show-noise", no_argument, NULL, OPT_NOISE },
		{ "perf-profile", required_argument, NULL, OPT_PPROF },
		{ "db", required_argument, NULL, OPT_DB },
		{ "result-root", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool classic = false, json = false, stats = false, noise = false;
	const char *field = NULL, *db = NULL, *result_dir = "/lkp/result";
	struct compare_opts co = { 0 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct side *sides = NULL;
	struct store *st = NULL;
	size_t nsides = 0;
	int c, ret = EXIT_USAGE;
	char *dbpath = NULL;

	(void)ctx;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_CLASSIC: classic = true; break;
		case OPT_FIELD: field = optarg; break;
		case OPT_JSON: json = true; break;
		case OPT_STATS: stats = true; break;
		case OPT_ALL: co.all = true; break;
		case OPT_NOISE: noise = true; break;
		case OPT_PPROF: {
			char *end;
			co.perf_profile_threshold = strtod(optarg, &end);
			if (*end || !(co.perf_profile_threshold > 0))
				return cmd_error(EXIT_USAGE, "--perf-profile: '%s' is not a positive number", optarg);
			break;
		}
		case OPT_DB: db = optarg; break;
		case 'o': result_dir = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		default:
			fputs(usage_text, stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind < 2)
		return cmd_error(EXIT_USAGE, "compare needs a base and at least one commit to compare with it; see 'lkprobot compare --help'");
	if (json + classic + (field != NULL) > 1)
		return cmd_error(EXIT_USAGE, "--json, --classic and --field are different outputs: choose one");

	nsides = (size_t)(argc - optind);
	sides = xcalloc(nsides, sizeof(*sides));
	for (size_t i = 0; i < nsides; i++) {
		const char *arg = argv[optind + (int)i];
		if (!access(arg, F_OK) || strchr(arg, '/') || strchr(arg, ',')) {
			if (side_from_files(&sides[i], arg, &err))
				goto bad;
			continue;
		}
		if (!st) {
			dbpath = db ? xstrdup(db) : xasprintf("%s/lkprobot.db", result_dir);
			if (access(dbpath, R_OK)) {
				strbuf_setf(&err, "'%s': not a result directory, and there is no store at %s (--db FILE)", arg,
					    dbpath);
				goto bad;
			}
			if (!(st = store_open(dbpath, &err)))
				goto bad;
		}
		if (side_from_store(&sides[i], st, arg, &err))
			goto bad;
	}

	/* the groups every side has, in the base's order */
	const struct node **mats = xcalloc(nsides, sizeof(*mats));
	const char **labels = xcalloc(nsides, sizeof(*labels));
	struct compare_field_row *frows = NULL;
	size_t nfrows = 0, ngroups = 0;
	if (json)
		strbuf_addstr(&out, "[\n");
	for (size_t gi = 0; gi < sides[0].ng; gi++) {
		const struct group *bg = &sides[0].g[gi];
		bool everywhere = true;
		mats[0] = bg->matrix;
		labels[0] = sides[0].label;
		for (size_t s = 1; s < nsides; s++) {
			const struct group *hit = NULL;
			/* a directory side has one group: it pairs with the base's whatever its path */
			if (sides[s].ng == 1 && sides[0].ng == 1)
				hit = &sides[s].g[0];
			for (size_t j = 0; !hit && j < sides[s].ng; j++)
				if (!strcmp(sides[s].g[j].key, bg->key))
					hit = &sides[s].g[j];
			if (!hit) {
				everywhere = false;
				break;
			}
			mats[s] = hit->matrix;
			labels[s] = sides[s].label;
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
		if (compare_matrices(mats, labels, nsides, &co, &res, &err)) {
			free(mats);
			free(labels);
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
	for (size_t i = 0; i < nsides; i++)
		side_release(&sides[i]);
	free(sides);
	if (st)
		store_close(st);
	free(dbpath);
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}

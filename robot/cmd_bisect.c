/*
 * lkprobot bisect: the first commit of a performance change between a good
 * and a bad commit. The driver behind lib/bisect: a provider (local or
 * qemu) prepares each commit and runs the job; samples come from the
 * result roots, so every run is kept and a second bisection over the same
 * commits reuses them; the bisection itself is recorded in the store and
 * can be resumed.
 */
#include "cmd.h"
#include "../lib/bisect.h"
#include "../lib/compare.h"
#include "../lib/engine.h"
#include "../lib/fsutil.h"
#include "../lib/git.h"
#include "../lib/job.h"
#include "../lib/json.h"
#include "../lib/kbuild.h"
#include "../lib/machine.h"
#include "../lib/result.h"
#include "../lib/store.h"
#include "../lib/yml.h"
#include "../providers/box.h"
#include "../providers/provider.h"
#include "../providers/qemu.h"
#include "runstore.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot bisect --tree DIR --good REV --bad REV [options] JOB.yaml [key=value...]\n"
	"       lkprobot bisect --resume ID [options]\n"
	"\n"
	"Find the first commit between REV good and REV bad that changed a metric of\n"
	"the job. The commits are the ancestors of bad that are not ancestors of good\n"
	"(merges included); each tested commit is prepared by the provider and run\n"
	"3 times, more while its verdict is unsure; the ends are measured first (no\n"
	"change between them: nothing is bisected) and the culprit is confirmed\n"
	"against its parent before it is named. A commit that cannot be built or\n"
	"booted is skipped. Runs are ordinary result roots: they are reused.\n"
	"\n"
	"      --tree DIR         the git repository\n"
	"      --good REV, --bad REV   the ends of the range\n"
	"      --metric M         the metric to follow (default: the job's KPI metric that\n"
	"                         changed most between the ends, said on stderr)\n"
	"      --provider P       local (default: the job runs here, in a checkout of each\n"
	"                         commit), qemu (each commit's kernel is built and booted)\n"
	"                         slurm (each run a batch job on a box of a Slurm farm)\n"
	"                         or ssh (kexec'd into on a real test box; see 'lkprobot box')\n"
	"      --box NAME         ssh: the box (its tbox_group is the testbox)\n"
	"      --boxes FILE       ssh: the boxes file (default $LKPROBOT_BOXES,\n"
	"                         /etc/lkprobot/boxes.yaml)\n"
	"      --via local|qemu   slurm: what the box runs (default local)\n"
	"      --constraint F     slurm: boxes with node feature F (the tbox_group)\n"
	"      --partition P      slurm: the partition (default: the cluster's)\n"
	"      --sbatch-arg ARG   slurm: one more sbatch argument (repeatable)\n"
	"      --pending-timeout S  slurm: fail a run that waits S s for a box (default 3600;\n"
	"                         0: wait for ever)\n"
	"      --accel A          qemu: kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto)\n"
	"      --kconfig NAME|FILE  qemu, ssh: the kernel config (default x86_64-pmem)\n"
	"      --first-parent     only the first parent of each commit (the mainline)\n"
	"      --json             the outcome as JSON on stdout\n"
	"      --resume ID        go on with bisection ID of the store (same arguments)\n"
	"  -o, --result-root DIR RESULT_ROOT_DIR (default /lkp/result)\n"
	"      --cache DIR        work trees and kernels (default $LKPROBOT_CACHE, /var/cache/lkprobot)\n"
	"      --db FILE          the store (default RESULT_ROOT_DIR/lkprobot.db)\n"
	"  -t, --testbox NAME     hosts/NAME describes the machine (qemu: qemu-pmem)\n"
	"  -s, --set 'KEY: VALUE' set or override a job key\n"
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 a culprit found and confirmed; 1 no culprit (the ends do not\n"
	"differ, the change does not reproduce, or skipped commits leave a set),\n"
	"or a run could not be made; 2 bad input or usage\n";

enum { OPT_TREE = 0x700, OPT_GOOD, OPT_BAD, OPT_METRIC, OPT_PROVIDER, OPT_KCONFIG, OPT_FIRST_PARENT, OPT_JSON,
       OPT_RESUME, OPT_CACHE, OPT_DB, OPT_VIA, OPT_CONSTRAINT, OPT_PARTITION, OPT_SBATCH_ARG, OPT_PENDING, OPT_ACCEL,
       OPT_BOX, OPT_BOXES };

struct driver {
	const struct provider_ops *ops;
	struct provider *prov;
	struct node *job;
	const struct machine *m;
	const struct gitrepo_range *range;
	char good[GITREPO_HEXSZ + 1];
	const char *result_dir;
	const char *metric;		/* NULL while the ends are measured for all metrics */
	char *prepared;
	bool *untestable;
	bool *built;			/* prepared at least once (a build, or a kernel-cache hit) */
	unsigned char *failures;	/* failed runs of each commit: a second one makes it untestable */
	double *buf;
	size_t builds, runs;
	struct runstore *rs;
	bool progress;
	size_t expect_steps;
};

static const char *commit_of(const struct driver *d, size_t i)
{
	return i < d->range->n ? d->range->id[i] : d->good;
}

/* The commit directory of commit i's runs. */
static char *commit_dir(struct driver *d, size_t i, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;

	node_set(d->job, "commit", node_new_scalar(commit_of(d, i)));
	strbuf_addf(&p, "%s/", d->result_dir);
	if (job_result_path(d->job, d->m, false, &p, err)) {
		strbuf_release(&p);
		return NULL;
	}
	return strbuf_detach(&p);
}

/* The samples of the metric in a commit directory's matrix (0 runs when none yet). */
static size_t load_samples(struct driver *d, const char *rt, size_t *runs)
{
	char *mp = xasprintf("%s/matrix.json", rt);
	struct node *m = NULL;
	struct strbuf e = STRBUF_INIT;
	size_t n = 0;

	*runs = 0;
	if (!access(mp, R_OK) && !result_load_json(mp, &m, &e)) {
		const struct node *src = node_get(m, "stats_source");
		*runs = src && src->type == NODE_SEQ ? src->n : 0;
		const struct node *col = d->metric ? node_get(m, d->metric) : NULL;
		free(d->buf);
		d->buf = xcalloc(col && col->type == NODE_SEQ ? col->n + 1 : 1, sizeof(double));
		for (size_t k = 0; col && col->type == NODE_SEQ && k < col->n; k++)
			if (json_number(col->vals[k], &d->buf[n]))
				n++;
	}
	node_free(m);
	free(mp);
	strbuf_release(&e);
	return n;
}

static void mark_untestable(struct driver *d, size_t i, const char *rt, const char *why)
{
	char *mp = xasprintf("%s/untestable", rt);
	struct strbuf e = STRBUF_INIT;

	d->untestable[i] = true;
	fsutil_mkdir_p(rt);
	fsutil_write_atomic(mp, why, strlen(why), &e);
	if (d->progress)
		fprintf(stderr, "\r\033[Kbisect: %.12s cannot be tested: %s\n", commit_of(d, i), why);
	free(mp);
	strbuf_release(&e);
}

static int measure(void *ctx, size_t i, size_t want, const double **v, size_t *n, struct strbuf *err)
{
	struct driver *d = ctx;
	char *rt = commit_dir(d, i, err), *marker;
	size_t runs;
	int ret = -1;

	if (!rt)
		return -1;
	marker = xasprintf("%s/untestable", rt);
	if (d->untestable[i] || !access(marker, F_OK)) {
		d->untestable[i] = true;
		ret = 1;
		goto out;
	}
	*n = load_samples(d, rt, &runs);
	while (runs < want) {
		struct strbuf why = STRBUF_INIT;
		struct provider_run pr;
		if (!d->prepared || strcmp(d->prepared, commit_of(d, i))) {
			int rc = d->ops->prepare(d->prov, commit_of(d, i), &why);
			if (rc) {
				if (rc > 0)
					mark_untestable(d, i, rt, why.buf);
				else
					strbuf_setf(err, "%s", why.buf);
				strbuf_release(&why);
				ret = rc;
				goto out;
			}
			free(d->prepared);
			d->prepared = xstrdup(commit_of(d, i));
			d->builds += !d->built[i];
			d->built[i] = true;
		}
		strbuf_release(&why);
		node_set(d->job, "commit", node_new_scalar(commit_of(d, i)));
		if (d->ops->run_job(d->prov, d->job, &pr, err))
			goto out;
		d->runs++;
		if (pr.run_dir && d->rs && runstore_record_dir(d->rs, pr.run_dir, &why))
			cmd_warn("%s", why.buf);
		strbuf_release(&why);
		if (pr.untestable || strcmp(pr.job_state, "finished")) {
			/*
			 * A run that fails measures nothing. Once may be the machine's
			 * hiccup: run again; twice, the commit cannot be tested.
			 */
			fprintf(stderr, "%slkprobot: a run of %.12s failed (%s)%s\n", d->progress ? "\r\033[K" : "",
				commit_of(d, i), pr.reason ? pr.reason : pr.job_state,
				d->failures[i] ? "" : "; once more");
			if (!d->failures[i]++) {
				provider_run_release(&pr);
				continue;
			}
			mark_untestable(d, i, rt, pr.reason ? pr.reason : pr.job_state);
			provider_run_release(&pr);
			ret = 1;
			goto out;
		}
		provider_run_release(&pr);
		*n = load_samples(d, rt, &runs);
		if (d->metric && *n < runs) {
			strbuf_setf(err, "the job's runs of %.12s have no '%s' metric ('lkprobot compare' lists what they have)",
				    commit_of(d, i), d->metric);
			goto out;
		}
	}
	*v = d->buf;
	ret = 0;
out:
	free(marker);
	free(rt);
	return ret;
}

static void progress(void *ctx, size_t step, size_t left, size_t i, int verdict, size_t runs)
{
	struct driver *d = ctx;

	if (!d->progress)
		return;
	fprintf(stderr, "\r\033[Kbisect: step %zu of ~%zu: %.12s is %s (%zu runs); %zu commit%s left, %zu runs so far\n",
		step, d->expect_steps, commit_of(d, i), verdict > 0 ? "bad" : verdict < 0 ? "good" : "skipped", runs,
		left, left == 1 ? "" : "s", d->runs);
}

/*
 * The ends' matrices: the job's KPI metric that moved most, when none is
 * given. NULL with *nochange when no metric of the test changed, else
 * NULL with err set on an error.
 */
static char *pick_metric(struct driver *d, bool *nochange, struct strbuf *err)
{
	const double *v;
	size_t n;
	struct node *mats[2] = { NULL, NULL };
	char *picked = NULL;
	size_t ends[2] = { d->range->n, d->range->n - 1 };

	for (int k = 0; k < 2; k++) {
		int rc = measure(d, ends[k], 5, &v, &n, err);
		if (rc) {
			if (rc > 0)
				strbuf_setf(err, "the %s end %.12s cannot be tested", k ? "bad" : "good", commit_of(d, ends[k]));
			goto out;
		}
		char *rt = commit_dir(d, ends[k], err), *mp = xasprintf("%s/matrix.json", rt ? rt : "");
		int r = rt ? result_load_json(mp, &mats[k], err) : -1;
		free(rt);
		free(mp);
		if (r)
			goto out;
	}
	struct compare_result cmp;
	const struct node *mm[2] = { mats[0], mats[1] };
	const char *labels[2] = { "good", "bad" };
	if (compare_matrices(mm, labels, 2, NULL, &cmp, err))
		goto out;
	/*
	 * A metric with a direction (throughput, latency) first; else the
	 * test's own figures, but not its rusage (*.time.*: context switches
	 * and page faults move with the machine, not with the commit).
	 */
	const struct compare_row *h = compare_headline(&cmp, true);
	for (size_t i = 0; !h && i < cmp.nrows; i++) {
		const struct compare_row *r = &cmp.rows[i];
		if (r->changed && r->kind == COMPARE_PERF && compare_is_test_metric(r->metric) &&
		    !strstr(r->metric, ".time.") && isfinite(r->change[1]))
			h = r;
	}
	if (h)
		picked = xstrdup(h->metric);
	else
		*nochange = true;
	compare_result_release(&cmp);
out:
	node_free(mats[0]);
	node_free(mats[1]);
	return picked;
}

static const char *status_name(enum bisect_status s)
{
	return s == BISECT_FOUND ? "found" : s == BISECT_AMBIGUOUS ? "ambiguous" : "not-reproduced";
}

static void print_json(const struct driver *d, const struct bisect_outcome *o, const char *metric, long long id)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "{\"id\": ");
	strbuf_addf(&out, "%lld, \"status\": \"%s\", \"why\": ", id, status_name(o->status));
	json_emit_string(&out, o->why);
	strbuf_addstr(&out, ", \"metric\": ");
	json_emit_string(&out, metric);
	strbuf_addstr(&out, ", \"culprit\": ");
	if (o->status == BISECT_FOUND)
		json_emit_string(&out, commit_of(d, o->culprit));
	else
		strbuf_addstr(&out, "null");
	strbuf_addstr(&out, ", \"parent\": ");
	if (o->status == BISECT_FOUND)
		json_emit_string(&out, commit_of(d, o->parent));
	else
		strbuf_addstr(&out, "null");
	strbuf_addstr(&out, ", \"confidence\": ");
	if (isfinite(o->p))
		strbuf_addf(&out, "%.6g", 1 - o->p);
	else
		strbuf_addstr(&out, "null");
	strbuf_addstr(&out, ", \"p\": ");
	if (isfinite(o->p))
		strbuf_addf(&out, "%.6g", o->p);
	else
		strbuf_addstr(&out, "null");
	strbuf_addstr(&out, ", \"change\": ");
	if (o->status == BISECT_FOUND && isfinite(o->change))
		strbuf_addf(&out, "%.6g", o->change);
	else
		strbuf_addstr(&out, "null");
	strbuf_addstr(&out, ", \"ends_change\": ");
	if (isfinite(o->ends_change))
		strbuf_addf(&out, "%.6g", o->ends_change);
	else
		strbuf_addstr(&out, "null");
	strbuf_addf(&out, ", \"builds\": %zu, \"runs\": %zu, \"commits\": %zu, \"steps\": [", d->builds, o->runs,
		    d->range->n);
	for (size_t i = 0; i < o->nsteps; i++) {
		const struct bisect_step *s = &o->steps[i];
		strbuf_addf(&out, "%s{\"commit\": \"%s\", \"verdict\": \"%s\", \"runs\": %zu, \"llr\": %.4g, \"sure\": %s}",
			    i ? ", " : "", commit_of(d, s->commit),
			    s->verdict > 0 ? "bad" : s->verdict < 0 ? "good" : "skip", s->runs, s->llr,
			    s->sure ? "true" : "false");
	}
	strbuf_addstr(&out, "], \"skipped\": [");
	size_t k = 0;
	for (size_t i = 0; i <= d->range->n; i++)
		if (d->untestable[i])
			strbuf_addf(&out, "%s\"%s\"", k++ ? ", " : "", commit_of(d, i));
	strbuf_addstr(&out, "], \"candidates\": [");
	for (size_t i = 0; i < o->ncandidates; i++)
		strbuf_addf(&out, "%s\"%s\"", i ? ", " : "", commit_of(d, o->candidates[i]));
	strbuf_addstr(&out, "]}\n");
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
}

static void print_text(const struct driver *d, const struct bisect_outcome *o, const char *metric,
		       const char *subject, long long id)
{
	if (o->status == BISECT_FOUND) {
		printf("first bad commit: %s%s%s%s\n", commit_of(d, o->culprit), subject ? " (\"" : "",
		       subject ? subject : "", subject ? "\")" : "");
		printf("  %s: %+.1f%% against its parent %.12s (Mann-Whitney U p = %.2g); the range moved %+.1f%%\n",
		       metric, o->change, commit_of(d, o->parent), o->p, o->ends_change);
	} else if (o->status == BISECT_AMBIGUOUS) {
		printf("no single culprit: %s; the first bad commit is one of:\n", o->why);
		for (size_t i = 0; i < o->ncandidates; i++)
			printf("  %s%s\n", commit_of(d, o->candidates[i]), d->untestable[o->candidates[i]] ? " (cannot be tested)" : "");
	} else {
		printf("no culprit: %s\n", o->why);
	}
	printf("  %zu commits in the range, %zu tested, %zu builds, %zu runs (bisection %lld in the store)\n",
	       d->range->n, o->commits, d->builds, o->runs, id);
}

int cmd_bisect(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		JOBOPTS_LONGOPTS,
		{ "tree", required_argument, NULL, OPT_TREE },
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "provider", required_argument, NULL, OPT_PROVIDER },
		{ "via", required_argument, NULL, OPT_VIA },
		{ "constraint", required_argument, NULL, OPT_CONSTRAINT },
		{ "partition", required_argument, NULL, OPT_PARTITION },
		{ "sbatch-arg", required_argument, NULL, OPT_SBATCH_ARG },
		{ "pending-timeout", required_argument, NULL, OPT_PENDING },
		{ "accel", required_argument, NULL, OPT_ACCEL },
		{ "kconfig", required_argument, NULL, OPT_KCONFIG },
		{ "box", required_argument, NULL, OPT_BOX },
		{ "boxes", required_argument, NULL, OPT_BOXES },
		{ "first-parent", no_argument, NULL, OPT_FIRST_PARENT },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "resume", required_argument, NULL, OPT_RESUME },
		{ "result-root", required_argument, NULL, 'o' },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "db", required_argument, NULL, OPT_DB },
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct job_env env;
	struct atomic_list jobs = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct gitrepo *repo = NULL;
	struct gitrepo_range range = { 0 };
	struct machine m = { 0 };
	struct driver d = { 0 };
	struct bisect_outcome outcome = { 0 };
	struct runstore rs = { 0 };
	struct store_bisection sb = { 0 };
	bool have_m = false, have_rs = false, first_parent = false, json = false;
	const char *tree = NULL, *good = NULL, *bad = NULL, *metric = NULL, *provider = "local", *kconfig = NULL;
	const char *via = "local", *constraint = NULL, *partition = NULL, **sbatch_args = NULL;
	size_t nsbatch = 0;
	int pending = PROVIDER_PENDING_TIMEOUT;
	const char *accel = NULL;
	const char *result_dir = "/lkp/result", *db = NULL, *box = NULL, *boxes = NULL;
	char *cache = NULL, *picked = NULL, *picked_testbox = NULL, res_real[PATH_MAX], bad_id[GITREPO_HEXSZ + 1];
	long long resume = 0, id = 0;
	int c, r, ret = EXIT_USAGE;

	jobopts_init(&jo);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:t:s:h", longopts, NULL)) != -1) {
		if ((r = jobopts_option(&jo, c, optarg, &err)) < 0)
			goto bad;
		if (r)
			continue;
		switch (c) {
		case OPT_TREE: tree = optarg; break;
		case OPT_GOOD: good = optarg; break;
		case OPT_BAD: bad = optarg; break;
		case OPT_METRIC: metric = optarg; break;
		case OPT_PROVIDER: provider = optarg; break;
		case OPT_VIA: via = optarg; break;
		case OPT_CONSTRAINT: constraint = optarg; break;
		case OPT_PARTITION: partition = optarg; break;
		case OPT_SBATCH_ARG:
			sbatch_args = xrealloc(sbatch_args, (nsbatch + 1) * sizeof(*sbatch_args));
			sbatch_args[nsbatch++] = optarg;
			break;
		case OPT_PENDING: {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 0 || v > INT_MAX) {
				strbuf_setf(&err, "--pending-timeout: '%s' is not whole seconds", optarg);
				goto bad;
			}
			pending = (int)v;
			break;
		}
		case OPT_ACCEL: accel = optarg; break;
		case OPT_KCONFIG: kconfig = optarg; break;
		case OPT_BOX: box = optarg; break;
		case OPT_BOXES: boxes = optarg; break;
		case OPT_FIRST_PARENT: first_parent = true; break;
		case OPT_JSON: json = true; break;
		case OPT_RESUME: {
			char *end;
			resume = strtoll(optarg, &end, 10);
			if (*end || resume <= 0) {
				strbuf_setf(&err, "--resume: '%s' is not a bisection id", optarg);
				goto bad;
			}
			break;
		}
		case 'o': result_dir = optarg; break;
		case OPT_CACHE: cache = xstrdup(optarg); break;
		case OPT_DB: db = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (accel && qemu_accel_option(accel, &err))
		goto bad;
	if (fsutil_mkdir_p(result_dir) || !realpath(result_dir, res_real)) {
		strbuf_setf(&err, "%s: cannot create the result directory", result_dir);
		goto bad;
	}
	if (runstore_open(&rs, true, db, res_real, &err))
		goto bad;
	have_rs = true;
	if (resume) {
		if (store_bisection_get(rs.store, resume, &sb, &err))
			goto bad;
		/* the recorded arguments; the job file and overrides are in sb too */
		tree = sb.tree;
		good = sb.good;
		bad = sb.bad;
		metric = metric ? metric : sb.metric;
		provider = sb.provider;
		first_parent = sb.first_parent;
		if (sb.overrides && strspn(sb.overrides, " \n{}") < strlen(sb.overrides) && jobopts_set(&jo, sb.overrides, &err))
			goto bad;
		char *args[] = { "bisect", sb.job, NULL };
		optind = 1;
		if (jobopts_args(&jo, 2, args, ctx->cmd, &err))
			goto bad;
		id = resume;
	} else {
		if (!tree || !good || !bad) {
			strbuf_setf(&err, "bisect needs --tree, --good and --bad (or --resume ID); see 'lkprobot bisect --help'");
			goto bad;
		}
		if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
			goto bad;
	}
	d.ops = provider_find(provider);
	if (!d.ops) {
		strbuf_setf(&err, "--provider: '%s' is not a provider (local, qemu, slurm, ssh)", provider);
		goto bad;
	}
	if (!strcmp(provider, "ssh") && !jo.testbox) {
		/* the box's tbox_group names its hosts/ file and the result path */
		struct box b;
		if (!box) {
			strbuf_setf(&err, "--provider ssh needs --box NAME (a box of the boxes file)");
			goto bad;
		}
		if (box_load(boxes ? boxes : box_default_file(), box, &b, &err))
			goto bad;
		picked_testbox = xstrdup(b.tbox_group);
		jo.testbox = picked_testbox;
		box_release(&b);
	}
	if (!jo.testbox && (!strcmp(provider, "qemu") || (!strcmp(provider, "slurm") && !strcmp(via, "qemu"))))
		jo.testbox = "qemu-pmem";
	if (machine_get(&m, ctx->data_dir, jo.testbox, &err))
		goto bad;
	have_m = true;
	if (!jo.testbox)
		jo.testbox = m.hostname;
	jobopts_env(&jo, ctx, &env);
	if (jobopts_atomic_jobs(&jo, &env, &jobs, &err))
		goto bad;
	if (jobs.n != 1) {
		strbuf_setf(&err, "the job splits into %zu atomic jobs; bisect follows one: choose with key=value overrides",
			    jobs.n);
		goto bad;
	}
	if (engine_check(jobs.v[0], &err))
		goto bad;
	if (gitrepo_open(&repo, tree, &err) || gitrepo_resolve(repo, bad, bad_id, &err) ||
	    gitrepo_resolve(repo, good, d.good, &err) || gitrepo_range(repo, d.good, bad_id, first_parent, &range, &err))
		goto bad;
	if (!cache) {
		struct strbuf cd = STRBUF_INIT;
		kbuild_cache_dir(&cd);
		cache = strbuf_detach(&cd);
	}
	char data_real[PATH_MAX];
	if (!realpath(ctx->data_dir, data_real)) {
		strbuf_setf(&err, "cannot tell where lkprobot's data is");
		goto bad;
	}
	struct provider_config pc = { .tree = tree, .result_dir = res_real, .cache = cache, .data_dir = data_real,
				      .kconfig = kconfig, .testbox = jo.testbox, .progress = isatty(2),
				      .slurm_via = via, .slurm_constraint = constraint, .slurm_partition = partition,
				      .slurm_args = sbatch_args, .slurm_nargs = nsbatch, .slurm_pending_timeout = pending,
				      .box = box, .boxes = boxes, .db = db };
	if (fsutil_mkdir_p(cache) || !(d.prov = d.ops->open(&pc, &err)))
		goto fail;
	if (d.ops->kconfig(d.prov))
		node_set(jobs.v[0], "kconfig", node_new_scalar(d.ops->kconfig(d.prov)));
	d.job = jobs.v[0];
	d.m = &m;
	d.range = &range;
	d.result_dir = res_real;
	d.untestable = xcalloc(range.n + 1, sizeof(bool));
	d.built = xcalloc(range.n + 1, sizeof(bool));
	d.failures = xcalloc(range.n + 1, 1);
	d.rs = &rs;
	d.progress = isatty(2);
	d.expect_steps = bisect_log2_ceil(range.n);
	if (!id) {
		struct store_bisection nb = { .tree = (char *)tree, .good = d.good, .bad = bad_id,
					      .job = jo.files[0], .provider = (char *)provider,
					      .first_parent = first_parent, .metric = (char *)metric };
		struct strbuf ov = STRBUF_INIT;
		yml_emit(&ov, jo.overrides);
		nb.overrides = ov.buf;
		id = store_bisection_add(rs.store, &nb, &err);
		strbuf_release(&ov);
		if (id < 0)
			goto fail;
	}
	if (!metric) {
		bool nochange = false;
		if (!(picked = pick_metric(&d, &nochange, &err)) && !nochange)
			goto fail;
		if (nochange) {
			/* the ends measured: nothing of the test's moved, by lkp-tests' rules */
			outcome.status = BISECT_NOT_REPRODUCED;
			outcome.why = "no metric of the test changed between the good and the bad end (5 runs each)";
			store_bisection_end(rs.store, id, NULL, status_name(outcome.status), NULL, &err);
			if (json)
				print_json(&d, &outcome, "", id);
			else
				print_text(&d, &outcome, "", NULL, id);
			ret = EXIT_FAIL;
			goto out;
		}
		metric = picked;
		fprintf(stderr, "lkprobot: bisecting %s: the metric of the test that changed most between the ends\n",
			metric);
	}
	d.metric = metric;
	if (d.progress)
		fprintf(stderr, "bisect: %zu commits between %.12s and %.12s, about %zu steps\n", range.n, d.good, bad_id,
			d.expect_steps);
	struct bisect_oracle o = { measure, &d, progress };
	if (bisect_run(range.n, range.parents, range.nparents, &o, NULL, &outcome, &err))
		goto fail;
	store_bisection_end(rs.store, id, metric, status_name(outcome.status),
			    outcome.status == BISECT_FOUND ? commit_of(&d, outcome.culprit) : NULL, &err);
	if (json) {
		print_json(&d, &outcome, metric, id);
	} else {
		struct gitrepo_commit gc = { 0 };
		bool have = outcome.status == BISECT_FOUND &&
			    !gitrepo_commit_info(repo, commit_of(&d, outcome.culprit), &gc, &err);
		print_text(&d, &outcome, metric, have ? gc.subject : NULL, id);
		if (have)
			gitrepo_commit_release(&gc);
	}
	ret = outcome.status == BISECT_FOUND ? EXIT_OK : EXIT_FAIL;
	goto out;
fail:
	ret = cmd_error(EXIT_FAIL, "%s", err.buf);
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	bisect_outcome_release(&outcome);
	if (d.prov)
		d.ops->close(d.prov);
	free(d.prepared);
	free(d.untestable);
	free(d.built);
	free(d.failures);
	free(d.buf);
	free(picked);
	free(picked_testbox);
	gitrepo_range_release(&range);
	gitrepo_close(repo);
	if (have_m)
		machine_release(&m);
	if (have_rs)
		runstore_close(&rs);
	if (resume)
		store_bisection_release(&sb);
	jobopts_atomic_release(&jobs);
	jobopts_release(&jo);
	free(cache);
	free(sbatch_args);
	strbuf_release(&err);
	return ret;
}

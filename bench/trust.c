/*
 * bench/trust: can a maintainer believe the robot's verdicts on a machine
 * that drifts? Two parts.
 *
 * 1. bisect, simulated (lib/results/bisect with the seeded simulator of the
 *    unit tests, tests/unit/bisect-sim.h): ranges of 1-300 commits, noise
 *    1-10 % (a quarter of them bimodal: a fifth of the runs 3 noise-stddevs
 *    high), 5 % of the commits unbuildable (never the culprit), shifts of
 *    3-75 % either way and a quarter of the ranges with no change; the
 *    machine drifts — none, a sinusoid of 2-10 % with a period of 2 to 400
 *    runs, a bounded random walk (within +-10 %), or both — as a function of
 *    the run's sequence number (one run is one unit of time: "a period of
 *    20 runs" is 20 s of a 1-s benchmark, 20 min of a 1-min one).
 * 2. the service, for real: `lkprobot serve --once` on a local git tree
 *    with a `command` job whose benchmark (a shell script) drifts the same
 *    way with its own run counter; heads that change nothing (docs) and
 *    heads that bring a regression, one pass a head; reports counted in
 *    the store's outbox (the SMTP server is not there: mails stay queued).
 *
 * Prints: wrong culprits, false reports on no-change heads, right culprits
 * where |shift| >= 3 sigma (sigma the benchmark's noise; also with the
 * drift between neighbouring runs counted in), bisections over
 * ceil(log2 N)+2 builds, runs per range. Targets (issue 17): 0 wrong
 * culprits; <= 1 % false reports under drift; >= 95 % right where
 * |shift| >= 3 sigma; never over ceil(log2 N)+2 builds.
 * Then the same ranges on a farm of 4 and 16 boxes (issue 20: several
 * commits a step when boxes are free): the same targets, the builds
 * within twice ceil(log2 N)+2, and the wall time in waves against one box.
 *
 *   bench/trust [--ranges N] [--heads N] [--no-serve] [LKPROBOT]
 */
#include "../tests/unit/bisect-sim.h"
#include "../lib/run/run.h"
#include "../lib/store/store.h"
#include "../lib/sys/fsutil.h"
#include "../lib/util/json.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { DRIFT_NONE, DRIFT_SINE, DRIFT_WALK, DRIFT_BOTH, NDRIFT };
static const char *const drift_names[] = { "none", "sine", "random walk", "both" };

struct tally {
	size_t ranges, changed, nochange;
	size_t wrong, false_reports;
	size_t big, big_right;		/* |shift| >= 3 noise stddevs */
	size_t big_eff, big_eff_right;	/* ... counting the drift between neighbouring runs in */
	size_t over_builds, over_builds_noskip;
	size_t runs_changed, runs_nochange;
	size_t not_sure;
	size_t builds, waves, over_farm;	/* a farm: builds and waves in all, ranges over 2 (ceil(log2 N)+2) */
};

static double log_uniform(struct scenario *s, double lo, double hi)
{
	return exp(log(lo) + uniform(s) * (log(hi) - log(lo)));
}

/* Range k of the seeded set; *culprit n when nothing changes. Returns the drift kind. */
static int trust_range(struct scenario *s, uint64_t k, size_t *culprit, double *shift)
{
	struct scenario seed;
	size_t n;
	bool nochange;

	linear(&seed, 1, 77000 + k);
	nochange = uniform(&seed) < 0.25;
	/* a no-change range is the service's head half of the time: one commit */
	n = nochange && uniform(&seed) < 0.5 ? 1 : 8 + (size_t)(uniform(&seed) * 292);
	uint64_t rng = seed.rng;
	release(&seed);
	linear(s, n, 1);
	s->rng = rng;
	s->noise = 0.01 + uniform(s) * 0.09;
	s->bimodal = uniform(s) < 0.25;
	*shift = nochange ? 0 : (0.03 + uniform(s) * 0.72) * (uniform(s) < 0.5 ? -1 : 1);
	*culprit = nochange ? n : (size_t)(uniform(s) * (double)(n - 1));
	if (!nochange)
		shift_from(s, *culprit, *shift);
	for (size_t i = 0; i + 1 < n; i++)
		s->broken[i] = i != *culprit && uniform(s) < 0.05;
	int kind = (int)(k % NDRIFT);
	if (kind == DRIFT_SINE || kind == DRIFT_BOTH) {
		s->drift_amp = 0.02 + uniform(s) * 0.08;
		s->drift_period = log_uniform(s, 2, 400);
		s->drift_phase = uniform(s) * 2 * M_PI;
	}
	if (kind == DRIFT_WALK || kind == DRIFT_BOTH) {
		s->walk_step = 0.005 + uniform(s) * 0.015;
		s->walk_max = kind == DRIFT_BOTH ? 0.10 - s->drift_amp : 0.10;
	}
	return kind;
}

/* The noise of back-to-back runs of one commit: the benchmark's and the drift's change from one run to the next. */
static double neighbour_noise(const struct scenario *s)
{
	double v = s->noise * s->noise;
	if (s->drift_amp > 0)
		v += pow(s->drift_amp * sin(M_PI / s->drift_period), 2);
	v += s->walk_step * s->walk_step;
	return sqrt(v);
}

/* The ranges on `slots` boxes (1: one at a time); the tallies of all and by drift. */
static void simulate(size_t nranges, size_t slots, struct tally *all, struct tally *by)
{
	for (uint64_t k = 0; k < nranges; k++) {
		struct scenario s;
		struct bisect_outcome out;
		struct strbuf err = STRBUF_INIT;
		size_t culprit;
		double shift;
		int kind = trust_range(&s, k, &culprit, &shift);
		s.slots = slots;
		struct bisect_oracle o = { sim_run, sim_samples, &s, NULL, slots > 1 ? sim_slots : NULL };
		struct bisect_opts opts = { .metric = { +1, 0.01 }, .seed = 1 + k };
		if (bisect_run(s.n, s.parents, s.nparents, &o, &opts, &out, &err)) {
			fprintf(stderr, "bench/trust: range %llu: %s\n", (unsigned long long)k, err.buf);
			exit(1);
		}
		struct tally *t[2] = { all, &by[kind] };
		bool skips = false;	/* a commit the search stepped around */
		for (size_t i = 0; i < out.nsteps; i++)
			skips |= out.steps[i].verdict == 0;
		/* a culprit named (and reported by the service): found, or the one testable commit of a set */
		bool found = out.status == BISECT_FOUND || out.located;
		bool right = found && out.culprit == culprit;
		for (size_t i = 0; i < out.ncandidates && out.status == BISECT_AMBIGUOUS && !out.located; i++)
			right |= out.candidates[i] == culprit;
		for (int j = 0; j < 2; j++) {
			t[j]->ranges++;
			t[j]->not_sure += out.status == BISECT_NOT_SURE;
			t[j]->over_builds += out.commits > bisect_log2_ceil(s.n) + 2;
			t[j]->over_builds_noskip += out.commits > bisect_log2_ceil(s.n) + 2 && !skips;
			t[j]->over_farm += out.commits > 2 * (bisect_log2_ceil(s.n) + 2);
			t[j]->builds += out.commits;
			t[j]->waves += s.waves;
			if (culprit == s.n) {
				t[j]->nochange++;
				t[j]->false_reports += found;
				t[j]->runs_nochange += out.runs;
				continue;
			}
			t[j]->changed++;
			t[j]->runs_changed += out.runs;
			t[j]->wrong += found && out.culprit != culprit;
			if (fabs(shift) >= 3 * s.noise) {
				t[j]->big++;
				t[j]->big_right += right;
			}
			if (fabs(shift) >= 3 * neighbour_noise(&s)) {
				t[j]->big_eff++;
				t[j]->big_eff_right += right;
			}
		}
		if (getenv("TRUST_DEBUG") && out.commits > bisect_log2_ceil(s.n) + 2) {
			size_t nb = 0;
			for (size_t i = 0; i < s.n; i++)
				nb += s.broken[i];
			fprintf(stderr, "range %llu: n %zu, %zu builds, %zu steps, %zu broken, culprit %zu parent %zu found %d\n",
				(unsigned long long)k, s.n, out.commits, out.nsteps, nb, out.culprit, out.parent, found);
			for (size_t i = 0; i < out.nsteps; i++)
				fprintf(stderr, "   step %zu %d\n", out.steps[i].commit, out.steps[i].verdict);
		}
		if (getenv("TRUST_DEBUG") && ((found && !right) || (!right && fabs(shift) >= 3 * s.noise) ||
					      (culprit == s.n && found)))
			fprintf(stderr, "range %llu: n %zu culprit %zu shift %+.3f noise %.3f%s drift %s amp %.3f period %.1f walk %.4f: %s %zu: %s\n",
				(unsigned long long)k, s.n, culprit, shift, s.noise, s.bimodal ? " bimodal" : "",
				drift_names[kind], s.drift_amp, s.drift_period, s.walk_step,
				found ? "named" : "no culprit", out.culprit, out.why);
		bisect_outcome_release(&out);
		release(&s);
		strbuf_release(&err);
	}
}

static void simulated(size_t nranges)
{
	struct tally all = { 0 }, by[NDRIFT] = { { 0 } };

	simulate(nranges, 1, &all, by);
	printf("bisect, simulated: %zu seeded ranges (1-300 commits, 1-10 %% noise, a quarter bimodal, 5 %% unbuildable, shifts 3-75 %% either way, a quarter no change; drift none, sine 2-10 %% with periods of 2-400 runs, random walk within +-10 %%, or both)\n",
	       all.ranges);
	printf("  wrong culprits:                        %zu (target 0)\n", all.wrong);
	printf("  false reports on no-change ranges:     %zu of %zu (%.1f %%; target <= 1 %%)\n", all.false_reports,
	       all.nochange, 100.0 * (double)all.false_reports / (double)(all.nochange ? all.nochange : 1));
	printf("  right where |shift| >= 3 sigma:        %.1f %% of %zu (target >= 95 %%); counting the drift between neighbouring runs in sigma: %.1f %% of %zu\n",
	       100.0 * (double)all.big_right / (double)(all.big ? all.big : 1), all.big,
	       100.0 * (double)all.big_eff_right / (double)(all.big_eff ? all.big_eff : 1), all.big_eff);
	printf("  over ceil(log2 N)+2 builds:            %zu (target 0); %zu of them where no commit had to be stepped around\n",
	       all.over_builds, all.over_builds_noskip);
	printf("  runs per range:                        %.1f with a change, %.1f without; %zu ended not sure\n",
	       (double)all.runs_changed / (double)(all.changed ? all.changed : 1),
	       (double)all.runs_nochange / (double)(all.nochange ? all.nochange : 1), all.not_sure);
	for (int d = 0; d < NDRIFT; d++)
		printf("  drift %-12s %4zu ranges: %zu wrong, %zu of %zu false, %.1f %% right >= 3 sigma (%zu), %zu over builds, %.1f runs\n",
		       drift_names[d], by[d].ranges, by[d].wrong, by[d].false_reports, by[d].nochange,
		       100.0 * (double)by[d].big_right / (double)(by[d].big ? by[d].big : 1), by[d].big, by[d].over_builds,
		       (double)(by[d].runs_changed + by[d].runs_nochange) / (double)(by[d].ranges ? by[d].ranges : 1));
	for (size_t f = 0; f < 2; f++) {
		size_t slots = f ? 16 : 4;
		struct tally farm = { 0 }, fby[NDRIFT] = { { 0 } };
		simulate(nranges, slots, &farm, fby);
		printf("the same on a farm of %zu boxes (several commits a step while boxes are free):\n", slots);
		printf("  wrong culprits %zu, false reports %zu of %zu, right where |shift| >= 3 sigma %.1f %% of %zu, "
		       "over 2 (ceil(log2 N)+2) builds %zu (targets 0, <= 1 %%, >= 95 %%, 0)\n",
		       farm.wrong, farm.false_reports, farm.nochange,
		       100.0 * (double)farm.big_right / (double)(farm.big ? farm.big : 1), farm.big, farm.over_farm);
		printf("  builds %.2fx, wall time %.2fx of one box's (in waves of runs made at once); %zu ended not sure\n",
		       (double)farm.builds / (double)(all.builds ? all.builds : 1),
		       (double)farm.waves / (double)(all.waves ? all.waves : 1), farm.not_sure);
	}
}

/* ---- part 2: the service, for real ---- */

struct service {
	const char *exe;
	char dir[256], repo[300], cfg[300], db[300];
	size_t pass;
};

static int sh(const char *dir, char *const argv[])
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char cwd[4096];
	int rc;

	if (!getcwd(cwd, sizeof(cwd)) || chdir(dir))
		return -1;
	rc = run_exec_capture(argv, &out, &err);
	if (rc)
		fprintf(stderr, "bench/trust: %s: %s%s\n", argv[0], out.buf, err.buf);
	if (chdir(cwd))
		rc = -1;
	strbuf_release(&out);
	strbuf_release(&err);
	return rc;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	if (fsutil_write(p, text, strlen(text))) {
		fprintf(stderr, "bench/trust: cannot write %s\n", p);
		exit(1);
	}
	free(p);
}

/* Commit everything in the repository with this message; its id into id. */
static void commit_all(struct service *sv, const char *msg, char id[41])
{
	char *add[] = { "git", "add", "-A", NULL };
	char *ci[] = { "git", "-c", "user.name=Bench", "-c", "user.email=bench@example.org", "commit", "-qm", (char *)msg,
		       NULL };
	char *rp[] = { "git", "rev-parse", "HEAD", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	char cwd[4096];

	if (sh(sv->repo, add) || sh(sv->repo, ci) || !getcwd(cwd, sizeof(cwd)) || chdir(sv->repo) ||
	    run_exec_capture(rp, &out, &err) || chdir(cwd)) {
		fprintf(stderr, "bench/trust: git commit in %s failed\n", sv->repo);
		exit(1);
	}
	snprintf(id, 41, "%.40s", out.buf);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void service_setup(struct service *sv, const char *exe)
{
	char tmpl[] = "/tmp/lkprobot-trust.XXXXXX";
	const char *d = mkdtemp(tmpl);

	if (!d) {
		perror("bench/trust: mkdtemp");
		exit(1);
	}
	sv->exe = exe;
	snprintf(sv->dir, sizeof(sv->dir), "%s", d);
	snprintf(sv->repo, sizeof(sv->repo), "%s/repo", d);
	snprintf(sv->cfg, sizeof(sv->cfg), "%s/robot.yaml", d);
	snprintf(sv->db, sizeof(sv->db), "%s/res/lkprobot.db", d);
	fsutil_mkdir_p(sv->repo);
	char *init[] = { "git", "init", "-q", "-b", "main", ".", NULL };
	if (sh(sv->repo, init))
		exit(1);
	struct strbuf src = STRBUF_INIT;
	if (strbuf_read_file(&src, "tests/fixtures/command/bench.sh")) {
		fprintf(stderr, "bench/trust: run it from the source tree (tests/fixtures/command/bench.sh)\n");
		exit(1);
	}
	write_file(sv->repo, "bench.sh", src.buf);
	strbuf_release(&src);
	write_file(sv->repo, "Makefile", "all:\n\t@true\n");
	write_file(sv->repo, "speed", "100\n");
	write_file(sv->repo, "README", "a project\n");
	char id[41];
	commit_all(sv, "base", id);
	char *job = xasprintf("%s/job.yaml", d);
	const char *jt = "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n";
	fsutil_write(job, jt, strlen(jt));
	/* mail to a port nobody listens on: each report stays queued in the outbox, where it is counted */
	char *cfg = xasprintf("serve:\n  result_root: %s/res\n  cache: %s/cache\n  trees:\n    - name: bench\n"
			      "      path: %s\n      branches: [main]\n      jobs: [%s]\n"
			      "mail:\n  live: false\n  operator: Ops <ops@example.org>\n  from: robot <robot@example.org>\n"
			      "  domain: example.org\n  retry: 3600\n  smtp:\n    url: smtp://127.0.0.1:9\n    tls: none\n"
			      "    connect_timeout: 1\n",
			      d, d, sv->repo, job);
	fsutil_write(sv->cfg, cfg, strlen(cfg));
	free(cfg);
	free(job);
	char *counter = xasprintf("%s/counter", d);
	setenv("BENCH_COUNTER", counter, 1);
	free(counter);
}

/* One pass of the service; what came of the newest head. */
struct pass {
	bool found, reported, build_failed;
	char culprit[41];
	long runs;
};

static long count_rows(struct service *sv, bool runs)
{
	struct strbuf err = STRBUF_INIT;
	struct store *s = store_open(sv->db, &err);
	struct node *n = NULL;
	long c = -1;

	if (s) {
		if (runs)
			c = store_count_runs(s, NULL, &err);
		else if (!store_outbox_list(s, &n, &err))
			c = (long)n->n;
		node_free(n);
		store_close(s);
	}
	strbuf_release(&err);
	return c < 0 ? 0 : c;
}

static void serve_once(struct service *sv, struct pass *p)
{
	char *argv[] = { (char *)sv->exe, "serve", "-c", sv->cfg, "--once", NULL };
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT, e2 = STRBUF_INIT;
	long runs0 = count_rows(sv, true), mails0 = count_rows(sv, false);
	struct store *s = NULL;
	struct node *heads = NULL;

	memset(p, 0, sizeof(*p));
	for (int attempt = 0;; attempt++) {
		strbuf_reset(&err);
		if (run_exec_capture(argv, &out, &err)) {
			fprintf(stderr, "bench/trust: serve --once failed: %s\n", err.buf);
			exit(1);
		}
		if (getenv("TRUST_DEBUG"))
			fputs(err.buf, stderr);
		if (!(s = store_open(sv->db, &e2)) || store_heads(s, false, &heads, &e2) || !heads->n) {
			fprintf(stderr, "bench/trust: %s\n", e2.len ? e2.buf : "no head recorded");
			exit(1);
		}
		/*
		 * A bisection killed from outside (exit 137: on a shared machine,
		 * another test's pkill) is not the robot's verdict: test the head again.
		 */
		const struct node *h = heads->vals[heads->n - 1];
		const char *st = node_str(node_get(h, "status")), *res = node_str(node_get(h, "result"));
		double id = 0;
		json_number(node_get(h, "id"), &id);
		if (attempt < 3 && st && !strcmp(st, "failed") && res && strstr(res, "exit 137")) {
			fprintf(stderr, "bench/trust: a bisection was killed from outside; the head is tested again\n");
			store_head_retest(s, (int64_t)id, (int64_t)time(NULL), &e2);
			node_free(heads);
			heads = NULL;
			store_close(s);
			continue;
		}
		break;
	}
	p->runs = count_rows(sv, true) - runs0;
	p->reported = count_rows(sv, false) > mails0;
	{
		const struct node *h = heads->vals[heads->n - 1];
		const char *st = node_str(node_get(h, "status")), *res = node_str(node_get(h, "result"));
		p->build_failed = st && !strcmp(st, "build_failed");
		struct node *r = res ? json_parse(res, strlen(res), "result", &e2) : NULL;
		const struct node *j = r && r->type == NODE_SEQ && r->n ? r->vals[0] : NULL;
		const char *b = j ? node_str(node_get(j, "bisect")) : NULL, *c = j ? node_str(node_get(j, "culprit")) : NULL;
		/* a culprit named: found, or of an ambiguous set the one commit that can be tested */
		p->found = b && (!strcmp(b, "found") || (!strcmp(b, "ambiguous") && c));
		if (c)
			snprintf(p->culprit, sizeof(p->culprit), "%s", c);
		node_free(r);
	}
	node_free(heads);
	store_close(s);
	strbuf_release(&out);
	strbuf_release(&err);
	strbuf_release(&e2);
}

/* What the service part counts. */
struct serve_tally {
	size_t nochange, false_reports, changed, big, big_right, wrong, broken;
	size_t broken_recorded, after_broken, after_broken_right, late;
	long runs_nochange, runs_changed;
	/*
	 * The changes of speed not found at their own head: a head whose
	 * verdict was "not sure" is no base, so a later head's range still
	 * holds them, and a culprit named there among them is a right one.
	 */
	struct {
		char id[41];
		bool big;
	} pending[64];
	size_t npending;
};

/* Is the pass's culprit one of the earlier changes still in its range? Then it is right, found late. */
static bool credit_late(struct serve_tally *t, const struct pass *p)
{
	for (size_t i = 0; p->found && i < t->npending; i++)
		if (!strcmp(p->culprit, t->pending[i].id)) {
			t->late++;
			t->big_right += t->pending[i].big;
			t->pending[i] = t->pending[--t->npending];
			return true;
		}
	return false;
}

static void serve_print(const struct serve_tally *t, size_t nheads)
{
	printf("serve --once, for real: %zu heads on a local tree with a command job (each pass noise 1-10 %%, three "
	       "in four drifting by 2-10 %% with a period of 2-100 runs; a quarter of the heads change the speed by "
	       "3-75 %%, 5 %% break the build)\n",
	       nheads);
	printf("  wrong culprits:                        %zu (target 0)\n", t->wrong);
	printf("  false reports on no-change heads:      %zu of %zu (target <= 1 %%)\n", t->false_reports, t->nochange);
	printf("  right where |shift| >= 3 sigma:        %zu of %zu (target >= 95 %%); %zu of %zu changed heads in "
	       "all; "
	       "%zu found at a later head (an earlier one not sure: no base)\n",
	       t->big_right, t->big, t->big_right, t->changed, t->late);
	printf("  heads that do not build:               %zu, %zu recorded as build_failed; the head after one tested "
	       "against the last measured: %zu of %zu found\n",
	       t->broken, t->broken_recorded, t->after_broken_right, t->after_broken);
	printf("  runs per head:                         %.1f without a change, %.1f with one\n",
	       (double)t->runs_nochange / (double)(t->nochange ? t->nochange : 1),
	       (double)t->runs_changed / (double)(t->changed ? t->changed : 1));
}

static void service(const char *exe, size_t nheads)
{
	struct service sv;
	struct scenario rng;
	struct serve_tally t = { 0 };
	double speed = 100;
	bool fixing = false;
	char id[41];

	service_setup(&sv, exe);
	linear(&rng, 1, 4242);
	for (size_t k = 0; k < nheads; k++) {
		/* this pass's machine: noise 1-10 %, a drift of up to +-10 % with a period of 2-100 runs */
		double noise = 0.01 + uniform(&rng) * 0.09, drift = uniform(&rng) < 0.25 ? 0 : 0.02 + uniform(&rng) * 0.08;
		double period = log_uniform(&rng, 2, 100), u = uniform(&rng), shift = 0;
		char buf[64];
		snprintf(buf, sizeof(buf), "%.4f", noise);
		setenv("BENCH_NOISE", buf, 1);
		snprintf(buf, sizeof(buf), "%.4f", drift);
		setenv("BENCH_DRIFT", buf, 1);
		snprintf(buf, sizeof(buf), "%.2f", period);
		setenv("BENCH_PERIOD", buf, 1);
		bool breaks = !fixing && u < 0.05;
		if (breaks) {
			write_file(sv.repo, "Makefile", "all:\n\t@echo 'bench.c:1:1: error: broken on purpose' >&2; false\n");
			commit_all(&sv, "break the build", id);
		} else {
			if (fixing)
				write_file(sv.repo, "Makefile", "all:\n\t@true\n");
			if (u > 0.75) {
				/* a change of 3-75 % either way, the next head's */
				shift = (0.03 + uniform(&rng) * 0.72) * (uniform(&rng) < 0.5 ? -1 : 1);
				speed *= 1 + shift;
				if (speed < 5 || speed > 2000)
					speed = 100;
				snprintf(buf, sizeof(buf), "%.4f\n", speed);
				write_file(sv.repo, "speed", buf);
			} else {
				snprintf(buf, sizeof(buf), "a project, said %zu times\n", k);
				write_file(sv.repo, "README", buf);
			}
			commit_all(&sv, shift ? "a change of speed" : "docs", id);
		}
		struct pass p;
		serve_once(&sv, &p);
		if (breaks) {
			t.broken++;
			t.broken_recorded += p.build_failed;
			fixing = true;
			continue;
		}
		bool after = fixing;
		fixing = false;
		if (!shift && getenv("TRUST_DEBUG"))
			fprintf(stderr, "head %zu: docs, noise %.3f drift %.3f period %.1f: %s%s\n", k, noise, drift, period,
				p.found ? "culprit named" : "no culprit", p.reported ? ", REPORTED" : "");
		/* a culprit named among the earlier changes still in the range: right, late */
		bool late_hit = credit_late(&t, &p);
		if (!shift) {
			t.nochange++;
			/* a report of a docs head is false unless it is of an earlier change still in its range */
			t.false_reports += p.reported && !late_hit;
			t.runs_nochange += p.runs;
			t.wrong += p.found && !late_hit;
			continue;
		}
		t.changed++;
		t.runs_changed += p.runs;
		bool right = p.found && p.reported && !strcmp(p.culprit, id);
		t.wrong += p.found && strcmp(p.culprit, id) != 0 && !late_hit;
		if (fabs(shift) >= 3 * noise)
			t.big++;
		t.big_right += right && fabs(shift) >= 3 * noise;
		if (!right && t.npending < sizeof(t.pending) / sizeof(*t.pending)) {
			snprintf(t.pending[t.npending].id, sizeof(t.pending[t.npending].id), "%s", id);
			t.pending[t.npending++].big = fabs(shift) >= 3 * noise;
		}
		if (after) {
			t.after_broken++;
			t.after_broken_right += right;
		}
		if (getenv("TRUST_DEBUG"))
			fprintf(stderr, "head %zu: shift %+.3f noise %.3f drift %.3f period %.1f: %s\n", k, shift, noise, drift,
				period, right ? "right" : p.found ? "wrong" : "missed");
	}
	release(&rng);
	serve_print(&t, nheads);
	if (!getenv("TRUST_KEEP")) {
		char *rm[] = { "rm", "-rf", sv.dir, NULL };
		sh("/", rm);
	} else {
		printf("  (kept %s)\n", sv.dir);
	}
}

int main(int argc, char **argv)
{
	size_t nranges = 4000, nheads = 40;
	const char *exe = "./lkprobot";
	bool serve = true;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--ranges") && i + 1 < argc)
			nranges = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "--heads") && i + 1 < argc)
			nheads = (size_t)atol(argv[++i]);
		else if (!strcmp(argv[i], "--no-serve"))
			serve = false;
		else
			exe = argv[i];
	}
	simulated(nranges);
	if (serve && nheads) {
		if (access(exe, X_OK)) {
			fprintf(stderr, "bench/trust: %s: no lkprobot to run (give its path)\n", exe);
			return 1;
		}
		service(exe, nheads);
	}
	return 0;
}

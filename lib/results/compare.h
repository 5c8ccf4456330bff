/*
 * compare: two or more sides (a commit's runs, as a matrix: metric -> one
 * sample per run) reduced to LKP's comparison rows — which metrics
 * changed by lkp-tests' rules, by how much, how sure we are (Welch t and
 * Mann–Whitney U, effect sizes), regression or improvement — and rendered
 * as `lkp ncompare` prints them, in the classic layout of the older reports,
 * or as JSON. Knows nothing of result roots, the store or mail: callers
 * bring the matrices.
 */
#ifndef LKP_COMPARE_H
#define LKP_COMPARE_H

#include "../stats/decide.h"
#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* One side of one metric. */
struct compare_side {
	bool present;			/* the metric is in this side's matrix */
	size_t n;			/* its samples (runs) */
	double mean, stddev;		/* over all samples; population stddev (divided by n) */
	double median, min, max;	/* after LKP's trimming (n>>5 a side, at most 3) */
	size_t fails;			/* failure stats: runs where it is not 0 */
	const double *v;		/* the samples, in run order (the matrix's, or own) */
	double *own;			/* v when it is the side's own copy (runs left out, padding) */
};

enum compare_kind {
	COMPARE_PERF,			/* a measurement */
	COMPARE_FAILURE,		/* dmesg.*, last_state.*, *.fail ...: counted per run */
};

struct compare_row {
	const char *metric; /* a matrix's pool's (the result holds the matrices) */
	enum compare_kind kind;
	struct compare_side *side;	/* [nsides]; side[0] is the base */
	double *change;			/* [nsides]: side i against the base; [0] unused.
					 * percent, or a plain difference when absolute;
					 * failure stats: %reproduction. NAN: undefined */
	bool absolute;			/* the change is a difference (…% and perf-profile metrics) */
	bool changed;			/* lkp-tests' rules say it changed (the last side vs the base) */
	const char *why;		/* why not (or "" when changed): for --json */
	double p_welch, p_mwu;		/* last side vs base, two-sided; NAN: undefined */
	bool mwu_exact;
	double hedges_g, cliffs_delta;	/* effect sizes of the last side over the base */
	int direction;			/* +1 higher is better, -1 lower is better, 0 unknown */
	struct decision decision;	/* the one decision (decide.h), the last side against the base;
					 * perf rows only (verdict DECIDE_UNSURE with why "" otherwise) */
	int verdict;			/* the decision's: +1 improvement, -1 regression, 0 none or unknown */
	bool decided;			/* the decision (and the tests) were made */
};

struct matrix;

struct compare_result {
	size_t nsides;
	char **labels;			/* [nsides] commits (or what stands for a side) */
	struct compare_row *rows;	/* every metric (o->shown_only: those kept), changed first in LKP's order */
	size_t nrows, nchanged;
	size_t ncompared;		/* the metrics compared (nrows, unless o->shown_only left some out) */
	bool all;			/* render every row the base has, changed or not */
	struct matrix **mats;		/* [nsides]: the samples and names the rows point into, held */
};

/*
 * Per-metric floors of the decision: the smallest relative change worth
 * reporting, by metric glob (fnmatch), the first match winning; a metric
 * no glob matches gets lkp-tests' thresholds: 1 % for a perf metric
 * (compare_is_perf_metric: the test's own KPIs among them), else 5 %.
 * The same list carries the job's word on which way is better
 * (metric_direction:), entries with a direction and no floor.
 */
struct compare_floor {
	char *glob;
	double floor;  /* 0.02 is 2 %; 0: the entry gives a direction only */
	int direction; /* +1 higher is better, -1 lower (the job's); 0: a floor only */
};
struct compare_floors {
	struct compare_floor *v;
	size_t n;
};

/* Add "GLOB=PCT" (PCT a percentage, "2" or "2%"). 0, or -1 with one line in err. */
int compare_floors_add(struct compare_floors *f, const char *spec, struct strbuf *err);
/*
 * Add a map GLOB -> PCT (a job's change_floor:, the service's). 0, or -1
 * with err set naming the key ("where.GLOB: ...").
 */
int compare_floors_add_map(struct compare_floors *f, const struct node *map, const char *where, struct strbuf *err);
/*
 * Add what a job (its job.yaml) says of its metrics: change_floor: (GLOB
 * -> PCT) and metric_direction: (GLOB -> higher | lower: which way is
 * better, e.g. a `command` job's command.latency_ns: lower). 0, or -1 with
 * err naming the key.
 */
int compare_floors_add_job(struct compare_floors *f, const struct node *job, struct strbuf *err);
void compare_floors_release(struct compare_floors *f);
/* Drop the entries after the first n (what a job added, once its group is compared). */
void compare_floors_truncate(struct compare_floors *f, size_t n);
/* The floor of a metric: the first matching glob's, else the default above. */
double compare_floor_of(const struct compare_floors *f, const char *metric);
/* Which way is better: the first matching direction entry of f (the job's), else compare_direction(). */
int compare_direction_of(const struct compare_floors *f, const char *metric);
/* What the decision needs of a metric: its direction (compare_direction_of) and floor. */
struct decide_metric compare_metric_spec(const struct compare_floors *f, const char *metric);

struct compare_opts {
	bool all;			/* every metric is a row to show, changed or not */
	bool more;			/* lkp-tests' --more: the stats its stat-denylist leaves out count too */
	double perf_profile_threshold;	/* perf-profile rows change when a median is above it (0: lkp-tests' 5) */
	const struct compare_floors *floors;	/* NULL: the defaults */
	/*
	 * The round each side's runs were measured in (sampling.h), aligned
	 * with the matrices' columns: rounds[s][k] for column k of side s,
	 * nrounds[s] of them (NULL, or a NULL entry: none). Runs of the base
	 * and of the last side that share a round are compared as pairs.
	 */
	const uint64_t *const *rounds;
	const size_t *nrounds;
	/*
	 * Keep only the rows a table shows (changed by lkp-tests' rules; with
	 * all, every row of the base) and those the decision says changed
	 * (the headline's): a compare of 1,000,000 metrics keeps the few it
	 * prints. The p-values and effect sizes are reckoned for kept rows only.
	 */
	bool shown_only;
};

/*
 * Compare matrices[1..n-1] with matrices[0] (compact matrices, matrix.h;
 * one pool of names for all is the quickest; the result holds them). Returns 0, or -1 with err
 * set (fewer than two sides, a NULL side: one that was no map).
 */
int compare_tables(const struct matrix *const *matrices, const char *const *labels, size_t nsides,
		   const struct compare_opts *o, struct compare_result *res, struct strbuf *err);

/*
 * Compare matrices[1..n-1] with matrices[0] (each a map metric -> sequence
 * of numbers, as matrix.json; "stats_source" and non-numbers are ignored,
 * a non-finite number makes the metric skipped with a reason). Returns 0,
 * or -1 with err set (fewer than two sides, a side that is not a map).
 */
int compare_matrices(const struct node *const *matrices, const char *const *labels, size_t nsides,
		     const struct compare_opts *o, struct compare_result *res, struct strbuf *err);
void compare_result_release(struct compare_result *res);

/*
 * The row a report or a bisection is about: among the rows the decision
 * says changed (with a direction, when need_direction; else the test's own
 * metrics), the test's own throughput-like ones first (higher is better),
 * then latencies and times, then the largest move (|ln(new/base)|, so
 * -75 % and +300 % weigh alike). lkp-tests' rule does not enter: a change
 * its range separation misses (one outlier) is still one. NULL: none.
 */
const struct compare_row *compare_headline(const struct compare_result *cmp, bool need_direction);

/*
 * The headline's change as every place that shows it writes it (the
 * mail's subject, greeting, table and "how sure" lines, compare
 * --headline, the dashboard, status): the decision's estimate, "-20.5%",
 * "57.1%" (no "+"; whole percent from 1000 %; "n/a" when there is none).
 */
void compare_format_decision(struct strbuf *out, const struct decision *d);
/* "regression", "improvement", or "change" (a metric with no direction: never mailed). */
const char *compare_kind_word(const struct compare_row *r);
/*
 * compare --headline: "headline: <metric> <change> <kind> (<the decision's
 * summary>)", or why there is none; a newline after it.
 */
void compare_render_headline(struct strbuf *out, const struct compare_result *res);

/*
 * +1 higher is better, -1 lower is better, 0 unknown: what lkp-tests'
 * index files say (lkpetc_direction), else the metric's program
 * (program_metric_direction). A job's metric_direction: comes first
 * (compare_direction_of).
 */
int compare_direction(const char *metric);
/* A failure stat (dmesg.*, kmsg.*, last_state.*, stderr.*, *.fail/.error/.warn)? */
bool compare_is_failure(const char *metric);
/* A metric of a test program itself (fio.*, vm-scalability.*)? */
bool compare_is_test_metric(const char *metric);
/* A metric for which changes of 1–5 % count (perf-stat.*, the tests' own, *.time.* ...)? */
bool compare_is_perf_metric(const char *metric);

/*
 * `lkp ncompare`: the group header (a line of '=', the common axes when
 * given — "key/key:" then "  value/value" — "commit:" and the labels), then
 * the fail:runs block and the %stddev/%change block of the changed rows (all
 * rows with o->all). With stats, each row also gets the p-values and the
 * effect size after the metric name.
 */
void compare_render_ncompare(struct strbuf *out, const struct compare_result *res, const char *axes_keys,
			     const char *axes_values, bool stats);

/*
 * The classic layout of the older reports (`lkp compare`): "change" column
 * (-75%, 14149%), stddev shown above 3 %, one number format per row, the
 * changed rows (noisy ones too, as the reports show them). test_desc heads
 * it ("testcase/path_params/tbox_group/run: <test_desc>"); NULL: no head.
 */
void compare_render_classic(struct strbuf *out, const struct compare_result *res, const char *test_desc);
/*
 * The classic layout led by a report's headline: lead (a perf row of res,
 * which the caller puts first among them) is printed whether lkp-tests'
 * rule selects it or not, with the decision's change in its change column
 * (compare_format_decision: the mail's one figure for it) and mark, when
 * given, after its metric. lead NULL: compare_render_classic.
 */
void compare_render_classic_lead(struct strbuf *out, const struct compare_result *res, const char *test_desc,
				 const struct compare_row *lead, const char *mark);

/*
 * The classic layout for one metric across several tests (`lkp compare
 * -f METRIC`): one row per test (label, base and new sample arrays) and a
 * GEO-MEAN row. Tests whose samples are noisy are hidden unless show_noise.
 */
struct compare_field_row {
	const char *test_desc;
	const double *base, *new_;
	size_t nbase, nnew;
};
void compare_render_field(struct strbuf *out, const char *base_label, const char *new_label, const char *metric,
			  const struct compare_field_row *rows, size_t nrows, bool show_noise);

/*
 * A decision as JSON: {"verdict": changed|same|unsure, "change", "low",
 * "high" (percent; null when none), "floor", "pairs", "why"}.
 */
void compare_decision_json(struct strbuf *out, const struct decision *d);

/* Every row (changed or not, with the reason) as a JSON document. */
void compare_render_json(struct strbuf *out, const struct compare_result *res);

/* ncompare's number formats, for tests: a value in 10 columns, a change. */
void compare_format_value(struct strbuf *out, double v);
/* A value as the tables write it, without the padding (prose: "went from 2977834 to ..."). */
void compare_format_number(struct strbuf *out, double v);
void compare_format_change(struct strbuf *out, double change, bool absolute);

#endif

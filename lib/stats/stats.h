/*
 * stats: LKP's statistics pipeline after the raw files.
 *
 *   parser --(key, value) lines--> struct stats_samples    (one program)
 *          --stats_program_json()--> <program>.json         {"vmstat.system.in": [129, 753], ...}
 *          --stats_reduce()-------> stats.json              one number per metric
 *   runs of one commit --stats_matrix_add()--> matrix.json, avg.json, stddev.json
 *
 * The rules are lkp-tests' (sbin/dump-stat, lib/matrix.rb): a repeated key
 * starts a new sample; a key missing from a record is back-filled with 0; a
 * key appearing late is left-padded with 0; a series that is 0 at its first
 * and last sample and sums to 0 is dropped; when every series but some is one
 * sample longer, the last record is incomplete and cut. Reduction: a single
 * sample is itself; "independent counters" (perf-stat.overall./ps./total./sum.,
 * time.* counters) sum; "event counters" (interrupts., softirq., cpuidle.,
 * proc-vmstat.pg*, ...) are last minus first; everything else is the mean.
 * Integers stay integers and floats floats ('.' in the text), as lkp-tests.
 * Pure data: no files except through the caller.
 */
#ifndef LKP_STATS_H
#define LKP_STATS_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdbool.h>

struct stats_series {
	char *key;
	double *v;
	size_t n, alloc;
	bool is_float;
};

/* One program's samples, in the order keys first appeared. */
struct stats_samples {
	struct stats_series *s;
	size_t n, alloc;
	size_t record;		/* index of the current record (dump-stat's record_index) */
};

void stats_samples_init(struct stats_samples *ss);
void stats_samples_release(struct stats_samples *ss);

/*
 * Add one "key: value" sample (key without the program prefix). A key that
 * has whitespace or a control character (an escape, a CR, C1: a metric's
 * name is printed in tables and logs), or a value that is not a number, is
 * an error (-1, err set: parsers must not turn garbage into numbers).
 * is_float as the text says.
 */
int stats_add(struct stats_samples *ss, const char *key, double v, bool is_float,
	      struct strbuf *err);
/* The same from text as a parser prints it ("753", "0.70", "1.4e+13"). */
int stats_add_text(struct stats_samples *ss, const char *key, const char *value,
		   struct strbuf *err);
/*
 * Feed "key: value" lines (lkp-tests' parser protocol; '#' lines ignored):
 * the keys a test prints are printable ASCII only, the safe alphabet of
 * metric names.
 */
int stats_add_lines(struct stats_samples *ss, const char *text, struct strbuf *err);

struct stats_series *stats_find(const struct stats_samples *ss, const char *key);

/*
 * The <program>.json object of a program: keys prefixed "<group>.", arrays
 * aligned, zero series dropped, an incomplete last record cut. NULL when
 * nothing is left (lkp-tests writes no file then).
 */
struct node *stats_program_json(const struct stats_samples *ss, const char *group);

/* Reduce <program>.json objects into stats (a map metric -> number). */
void stats_reduce(const struct node *program_json, struct node *stats);

bool stats_is_event_counter(const char *metric);
bool stats_is_independent_counter(const char *metric);

/*
 * Add the names older reports used, next to today's (lkp-tests renamed
 * them): fio.<op>_clat_{mean,90%,95%,99%}_ns also as ..._us in
 * microseconds (before 2024-03), and perf-stat.overall.<ratio> and
 * perf-stat.total.<event> also as perf-stat.<name> (before 2018-12).
 */
void stats_add_older_names(struct node *stats);

/* A number node as lkprobot writes metrics. */
struct node *stats_number(double v, bool is_float);

/*
 * Add one run's stats.json (a map) as a new column of a commit's matrix
 * (a map metric -> [values per run], with "stats_source" -> [paths]); a
 * metric absent from earlier runs is left-padded with 0, and one absent from
 * this run gets 0, so every column is one run (lkp-tests fills missing values
 * with zeros the same way when it compares). avg/stddev (population) are
 * recomputed from the matrix by stats_matrix_summary().
 */
void stats_matrix_add(struct node *matrix, const struct node *stats, const char *source);
void stats_matrix_summary(const struct node *matrix, struct node *avg, struct node *stddev);

#endif

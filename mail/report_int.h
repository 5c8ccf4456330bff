/*
 * report_int: what the files of a report's text share — report.c (the
 * head, the table, the message), report_sure.c (how sure the robot is, how
 * noisy the machine was, how many runs show the change) and
 * report_repro.c (the steps that reproduce it), report_trace.c (the new
 * oopses' call traces).
 */
#ifndef LKP_REPORT_INT_H
#define LKP_REPORT_INT_H

#include "report.h"

/* Wrap text at 75 columns (the paragraphs we write; tables are not wrapped). */
void report_wrap(struct strbuf *out, const char *text);

/*
 * "How sure lkprobot is:" in short lines — the change and its interval
 * (the one figure of the mail), the runs and how they were compared, the
 * floor, p, a noisy machine's figures, and whether lkp-tests' rule selects
 * the row.
 */
void report_sure(struct strbuf *out, const struct report_input *in, const struct compare_row *h);

/*
 * How many runs of each commit a reader needs to see h's change again
 * when they run the two commits one after the other (as To reproduce
 * does, compared as two independent sets): from the spread the runs
 * showed (the larger side's, drift and load included) and how far the
 * change is beyond its floor. At least 5, at most REPORT_MAX_RUNS.
 */
#define REPORT_MAX_RUNS 100
size_t report_runs_needed(const struct compare_result *cmp, const struct compare_row *h);

/* The number of threads of the machine the runs ran on (its facts, else its host file); 0: unknown. */
long report_threads(const struct node *job);

/*
 * report_trace.c: the call traces of the dmesg rows that are new in the
 * commit's runs (none in the base's), the first of each signature, cut
 * from the kernel log (dmesg, else kmsg) of a run that has the row; into
 * rj->traces, rj->in.traces (at most REPORT_MAX_TRACES).
 */
#define REPORT_MAX_TRACES 5
struct reportjob;
struct group;
void reportjob_traces(struct reportjob *rj, const struct compare_result *cmp, const struct group *g);
void reportjob_traces_release(struct reportjob *rj);
/* The traces, quoted under the table as 0-day quotes them. */
void report_traces(struct strbuf *out, const struct report_input *in);

/* "To reproduce:" — commands that work when pasted into a fresh shell. */
void report_reproduce(struct strbuf *out, const struct report_input *in, const struct compare_row *h);

#endif

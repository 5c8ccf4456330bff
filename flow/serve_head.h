/*
 * serve_head: what testing a head gave — its status and each job's
 * outcome (the bisection's status and why, a culprit, what became of its
 * report) — and its one JSON form: the head's result as the store keeps
 * it (read by `lkprobot status` and the dashboard), and the message a
 * head's worker sends the service.
 */
#ifndef LKP_SERVE_HEAD_H
#define LKP_SERVE_HEAD_H

#include "../lib/kernel/git.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* What became of a culprit's report (the "report" key; NULL: none was sent). */
enum job_report {
	JOB_REPORT_NONE,
	JOB_REPORT_QUEUED,
	JOB_REPORT_NOT_SENT,
	JOB_REPORT_DELIVERY_FAILED,
	JOB_REPORT_ERROR,
	JOB_REPORT_HELD, /* a mail rule held it back (report_why says why): recorded, not mailed */
};

struct job_outcome {
	char *job;			 /* the job file */
	char *bisect;			 /* the bisection's status (bisection_status_name), or "error" */
	char *why;			 /* one line */
	const char *kind;		 /* "regression", "improvement", or NULL (not reported as either) */
	bool named;			 /* a culprit was named ... */
	char culprit[GITREPO_HEXSZ + 1]; /* ... this one */
	enum job_report report;
	char *mail_error; /* DELIVERY_FAILED: the server's answer */
	char *report_why; /* NOT_SENT, ERROR, HELD: why */
	/*
	 * The change of the metric followed, with its interval, percent: the
	 * mail's decision when one was made (the figure it gives), else the
	 * bisection's (the culprit's against its parent, or the ends'); NULL
	 * metric: none.
	 */
	char *metric;
	double change, lo, hi;
	const char *revert, *layout; /* the culprit's checks (check_status_name), NULL: none made */
};

/*
 * A head's status (the store's): done (measured against its base),
 * baseline (measured on its own: a branch's first head, with no parent),
 * build_failed, failed.
 */
enum head_status {
	HEAD_DONE,
	HEAD_BUILD_FAILED,
	HEAD_FAILED,
	HEAD_BASELINE
};

struct head_outcome {
	enum head_status status;
	char *error; /* the head could not be tested at all (NULL: jobs says) */
	struct job_outcome *jobs;
	size_t njobs;
};

const char *head_status_name(enum head_status s);
/* A new job outcome at the end of h's jobs (zeroed, no change: NAN; h owns it). */
struct job_outcome *head_outcome_add(struct head_outcome *h);
void head_outcome_release(struct head_outcome *h);

/* A job's change with its interval in words: "command.throughput -21.9% (99.8% interval -33.7% to -7.9%)"; "" none. */
void job_outcome_change_text(const struct job_outcome *j, struct strbuf *out);

/* The result as the store keeps it: a list of the jobs' outcomes, or {"error": ...}. */
void head_outcome_result_json(struct strbuf *out, const struct head_outcome *h);
/* The worker's message: {"status": ..., "result": <the result>}. */
void head_outcome_json(struct strbuf *out, const struct head_outcome *h);
/* Read a stored result (head_outcome_result_json's) into *h's jobs or error (released first; status done). 0, or -1. */
int head_result_parse(const char *text, size_t len, struct head_outcome *h, struct strbuf *err);
/* Read head_outcome_json's message back into *h (released first). 0, or -1 with err set. */
int head_outcome_parse(const char *text, size_t len, struct head_outcome *h, struct strbuf *err);

#endif

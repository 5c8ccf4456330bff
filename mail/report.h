/*
 * report: an LKP-style report mail from a comparison — subject, the
 * "Greeting, FYI, we noticed ..." body of the example reports (commit, test
 * machine, parameters, test description, other jobs that changed, how sure
 * the robot is, reproduce steps, the compare table, per-sample plots),
 * attachments — rendered into a complete message with mime. Knows nothing
 * of result roots or the store: the caller brings the pieces.
 */
#ifndef LKP_REPORT_H
#define LKP_REPORT_H

#include "../lib/results/compare.h"
#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stddef.h>
#include <time.h>

/* Another job the commit changed ("In addition to that, ..."). */
struct report_other {
	const char *testcase;
	const struct compare_row *row;	/* its headline row */
	const char *machine;		/* test machine description */
	const struct node *params;	/* key -> value */
};

/* A new oops's or WARNING's call trace, as the kernel log has it (quoted under the table). */
struct report_trace {
	const char *metric; /* its dmesg.* row */
	const char *text;   /* its lines, each ending in '\n' */
};

struct report_input {
	const struct compare_result *cmp;	/* the main job: base vs the commit */
	const char *metric;			/* the metric the report is about (a bisection's); NULL: the headline */
	const struct node *job;			/* the commit's run job.yaml (params, machine, facts) */
	const char *test_desc;			/* testcase/path_params/tbox_group */
	const char *commit;			/* full id */
	const char *base_commit;		/* the base's full id (To reproduce runs both); NULL: unknown */
	double load_max; /* the highest load average of the runs (their job.yaml's); 0: unknown */
	const char *commit_subject;		/* NULL: unknown */
	const char *url;			/* "url: ..." line (tree and branch); NULL: none */
	const char *base_line;			/* the line after it: a series' base ("base: ..."); NULL: none */
	const char *tree_url;			/* where readers clone the tree from (To reproduce); NULL: unknown */
	const char *lkprobot_url;		/* where readers get lkprobot (To reproduce); NULL: unknown */
	const char *closes;			/* the "Closes:" URL; ending in '/': the Message-ID is appended; NULL: none */
	const char *in_reply_to;		/* the Message-ID ("<id>") the mail replies to; NULL: none */
	const char *references;			/* "<a@b> <c@d>", ending in in_reply_to; NULL: in_reply_to alone */
	const char *note;			/* a paragraph before "How sure" (a bisection's caveat); NULL: none */
	const char *checks; /* the culprit's checks, lines after "How sure" (flow/prove.c); NULL: none */
	bool layout_effect; /* the change vanished in aligned builds: no Reported-by asked */
	const struct report_other *others;
	size_t nothers;
	const struct report_trace *traces; /* the new dmesg rows' call traces, first per signature */
	size_t ntraces;
	const char *from;			/* the robot's address */
	const char *const *to;			/* the commit's author, ... */
	size_t nto;
	const char *const *cc;
	size_t ncc;
	const char *signature;			/* "Thanks,\n<signature>" */
	const char *domain;			/* of the Message-ID */
	time_t date;
	const char *job_yaml;			/* attachments (NULL: not attached) */
	const char *reproduce;
	const char *const *command;		/* the lkprobot command the run recorded (To reproduce); NULL: made up */
	size_t ncommand;
	const char *kconfig;
	const char *kconfig_name;		/* "config-<release>" */
	bool lf;				/* LF line ends (files) instead of CRLF (SMTP) */
	const char *const *extra_headers;	/* more "Name: value" headers */
	size_t nextra;
	struct strbuf *message_id_out;		/* gets the Message-ID (NULL: not wanted) */
};

/*
 * The row a report is about: the row of `metric` when the decision says it
 * changed (a bisection's metric) and which way is better is known, else
 * (metric NULL) compare_headline() with a direction. NULL: nothing worth a
 * report — a change of a metric with no direction is never mailed as a
 * regression or an improvement. Its decision's estimate is the one figure
 * the mail gives for the change.
 */
const struct compare_row *report_headline(const struct compare_result *cmp, const char *metric);

/* Why there is nothing to report (no headline row), one line, into err. */
void report_nothing(const struct compare_result *cmp, const char *metric, struct strbuf *err);

/*
 * "56 threads Intel(R) Xeon(R) CPU ... with 256G memory": what the run
 * recorded of the machine it ran on (job.yaml's facts: nr_threads, cpu,
 * memory), else the job's host keys (nr_cpu, brand or model, memory).
 */
void report_machine(const struct node *job, struct strbuf *out);

/*
 * The Message-ID of a commit's "Link: https://.../<message-id>" trailer
 * (lore style, the last such trailer), as "<message-id>", or NULL.
 */
char *report_link_message_id(const char *commit_message);

/*
 * Append the whole message to out. 0; 1 nothing to report (no headline
 * row: report_nothing's line in err); -1 with one line in err (an invalid
 * address).
 */
int report_render(const struct report_input *in, struct strbuf *out, struct strbuf *err);

/* The body alone (for tests and `report --body`). 0, or 1 with err: no headline. */
int report_body(const struct report_input *in, struct strbuf *out, struct strbuf *err);

#endif

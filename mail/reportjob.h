/*
 * reportjob (prefix reportjob_): the pieces of a report mail gathered from
 * what the runs left — the sides of a base and a commit (result roots or
 * the store), every job both ran compared, the one that moved most leading,
 * the others that changed, the call traces of the oopses and WARNINGs the
 * commit brought (report_trace.c), the lead run's job.yaml, reproduce.sh, recorded
 * command (reproduce.json) and kernel config (kernel.config), the commit's
 * subject, author and thread (a Link: trailer's patch, or the store's first
 * report of the commit a Fixes: trailer names). report.c renders what this
 * gathers and knows nothing of result roots or the store; this module is
 * the one that reads them.
 */
#ifndef LKP_REPORTJOB_H
#define LKP_REPORTJOB_H

#include "report.h"
#include "../lib/results/compare.h"
#include "../lib/util/strbuf.h"

#include <stddef.h>

struct reportjob_opts {
	const char *base, *commit;	/* each a commit directory, run directories, or a commit the store knows */
	const char *db;			/* the store; NULL: RESULT_ROOT_DIR/lkprobot.db */
	const char *result_dir;		/* RESULT_ROOT_DIR */
	const char *tree;		/* the git repository; NULL: no subject, author or thread */
	const char *jobfile;		/* the job file to attach; NULL: the lead run's job.yaml */
	const char *kconfig;		/* the kernel config to attach; NULL: the lead run's kernel.config, if any */
	const char *metric;		/* the metric to report on; NULL: the headline */
	struct compare_floors *floors;	/* the command line's (each job's change_floor is added, then taken off) */
	bool live;			/* the mail goes to its recipients: it threads only to reports they got */
	const char *
		thread; /* the Message-ID it replies to (a series' cover letter); NULL: the commit's Link:, a Fixes: report's */
	const char *const *to;		/* recipients the user named (none: the commit's author) */
	size_t nto;
	const char *const *cc;
	size_t ncc;
};

struct reportjob {
	/*
	 * Everything but what the caller decides (from, signature, domain,
	 * date, url, tree_url, lkprobot_url, closes, note, lf, ...), pointing
	 * into the fields below.
	 */
	struct report_input in;
	char **warnings;		/* what was ignored (a job's bad change_floor, ...), one line each */
	size_t nwarnings;
	/* owned; reportjob_release() */
	struct side *sides;
	struct compare_result *res;
	size_t nres;
	struct report_other *others;
	struct report_trace *traces;
	struct node **params;
	char **machines;
	struct node *job, *command_json;
	const char **command, **to;
	char *job_text, *repro, *config, *config_name, *full, *base_full, *subject, *author, *reply_to, *references;
};

/*
 * Gather a report from o into *rj (zeroed by it; reportjob_release() in
 * every case). 0; 1 nothing to report (the decision's reason in err); -1
 * bad input, one line in err.
 */
int reportjob_assemble(struct reportjob *rj, const struct reportjob_opts *o, struct strbuf *err);
void reportjob_release(struct reportjob *rj);

/*
 * The commit the nth (from 0) "Fixes: <sha> (...)" trailer of a commit
 * message names, as the hex prefix it gives (7 to 40 digits), newly
 * allocated; NULL: no such trailer.
 */
char *reportjob_fixes(const char *commit_message, size_t nth);

#endif

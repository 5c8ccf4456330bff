/*
 * bisect_result (flow): what a bisection ends with — its status, steps,
 * culprit, decisions and the checks of a named culprit (its revert, its
 * code layout) — their names, and their one JSON form: what `lkprobot
 * bisect --json` prints, the service reads back from its bisect children
 * and the store keeps (bisections.checks). A failed bisection has a short
 * form: id, status, why, metric, which end cannot be tested, builds and
 * runs. Data and its codec only: flow/bisect.c makes a result, this reads
 * and writes it.
 */
#ifndef LKP_FLOW_BISECT_RESULT_H
#define LKP_FLOW_BISECT_RESULT_H

#include "../lib/kernel/git.h"
#include "../lib/stats/decide.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* How a bisection ended: its JSON "status". */
enum bisection_status {
	BISECTION_FOUND,	  /* the culprit, confirmed against its parent */
	BISECTION_NOT_REPRODUCED, /* the ends do not differ, or the change does not reproduce */
	BISECTION_AMBIGUOUS,	  /* commits that cannot be tested leave a set */
	BISECTION_NOT_SURE,	  /* not sure at the cap */
	BISECTION_FAILED,	  /* it could not be made: why says why */
	BISECTION_BASELINE,	  /* flow_measure: the commit measured on its own, the base of what follows */
};

/* Which end of a failed bisection cannot be tested (a head that does not build is no base). */
enum bisection_end {
	BISECTION_END_NONE,
	BISECTION_END_GOOD,
	BISECTION_END_BAD
};

struct bisection_step {
	char commit[GITREPO_HEXSZ + 1];
	int verdict; /* +1 bad, -1 good, 0 skipped */
	size_t runs;
	double llr;
	bool sure;
};

/*
 * A check of a named culprit, made before any mail (flow/prove.c): the
 * revert (the culprit reverted on top of the bad end, run against the bad
 * end) and the layout (culprit and parent rebuilt with aligned functions,
 * run against each other).
 */
enum check_status {
	CHECK_NOT_MADE, /* not asked for, or not for this job or provider (why says) */
	CHECK_CONFIRMS, /* revert: restores the metric; layout: the change survives aligned builds */
	CHECK_REFUTES,	/* revert: restores nothing; layout: the change vanishes (a layout effect) */
	CHECK_UNSURE,	/* the decision is not sure at its cap */
	CHECK_CANNOT,	/* it could not be made: the revert does not apply, a build failed (why) */
};

struct bisection_check {
	enum check_status status;
	char *why;			/* one line (NULL: none) */
	char commit[GITREPO_HEXSZ + 1]; /* revert: the revert's commit ("" none) */
	char *kcflags;			/* layout: the builds' KCFLAGS (NULL: none) */
	struct decision d;		/* decided: commit against base (revert against bad; culprit against parent) */
	bool decided;
	bool out_of_reach;	       /* no change beyond the floor in reach of more rounds */
	double base_mean, commit_mean; /* the metric's mean on each side (NAN: none) */
	size_t builds, runs;	       /* what the check added */
	char *table;		       /* layout: its figures in 0-day's compact table (NULL: none) */
};

struct bisect_result {
	long long id; /* in the store (0: not recorded) */
	enum bisection_status status;
	bool known;   /* the range was known: the result is worth printing as such */
	char *why;    /* one line */
	char *metric; /* the one followed (NULL: none) */
	bool named;   /* a culprit: found, or of an ambiguous set the one that can be tested */
	char culprit[GITREPO_HEXSZ + 1], parent[GITREPO_HEXSZ + 1];
	char *subject;		       /* the culprit's (found; NULL when unknown) */
	double p, change, ends_change; /* NAN when there is none */
	struct decision ends, confirm;
	bool have_ends, confirmed;
	size_t builds, runs, commits, tested, batches;
	struct bisection_step *steps;
	size_t nsteps;
	char **skipped, **candidates; /* commit ids: what cannot be tested; an ambiguous set */
	size_t nskipped, ncandidates;
	enum bisection_end untestable; /* failed: the end that cannot be tested */
	bool fault; /* failed on a fault of the machine that may pass (a full disk, the store held) */
	struct bisection_check revert, layout; /* of a named culprit */
	/*
	 * flow_pair: the bad end (culprit) against the good one (parent) in
	 * rounds of their own — confirms: changed, refutes: the same, not-sure
	 * (not-made: no pair was compared); its table the layout's form.
	 */
	struct bisection_check again;
};

/* Free what res holds and zero it. */
void bisect_result_release(struct bisect_result *res);

/* The check status's name in the JSON: not-made, confirms, refutes, not-sure, cannot. */
const char *check_status_name(enum check_status s);

/* The status's name in the JSON and the store: found, not-reproduced, ambiguous, not-sure, failed. */
const char *bisection_status_name(enum bisection_status s);

/* The checks of the culprit as one JSON object, {"revert": {...}, "layout": {...}} (the store keeps it). */
void bisect_checks_json(struct strbuf *out, const struct bisect_result *res);

/* Read bisect_checks_json's object into r's revert and layout. 0, or -1 with err set. */
int bisect_checks_parse(const char *text, size_t len, struct bisect_result *r, struct strbuf *err);
/* What the layout check's table shows (bisect_layout_table). */
struct layout_figures {
	const char *kcflags;	      /* NULL: no rebuild, the table alone (its caller says what it shows) */
	bool worse, gone;	      /* a regression (else an improvement); gone in the aligned builds */
	const char *parent, *culprit; /* full ids */
	double base, change, commit;  /* the parent's mean, the decision's change (percent), the culprit's */
	const char *job;	      /* testcase/path_params/tbox_group */
	const char *metric;
};
/*
 * 0-day's compact table of a rebuild with aligned functions (the second
 * example's "We recompiled the kernels with option ..."): the header of
 * parent and culprit, the job's row, the metric's GEO-MEAN. Without
 * kcflags the table alone (two commits run again, a patch tested).
 */
void bisect_layout_table(struct strbuf *out, const struct layout_figures *f);

/* The checks as a mail's lines: what each made says, then the layout's table. */
void bisect_checks_text(const struct bisect_result *r, struct strbuf *out);

/* The result as one JSON object and a newline (`bisect --json`). */
void bisect_result_json(struct strbuf *out, const struct bisect_result *res);
/* Read bisect_result_json's object back into *res (released first). 0, or -1 with err set. */
int bisect_result_parse(const char *text, size_t len, struct bisect_result *res, struct strbuf *err);

#endif

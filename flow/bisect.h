/*
 * bisect (flow): one bisection session, from a typed request to a typed
 * result — the store's record (new, the same one again, or --resume), the
 * job, the range, the head's lock, the provider opened, the metric picked
 * from the ends when none is asked for, lib/results/bisect's search with
 * flow/bisect_driver.c's callbacks, the outcome recorded. `lkprobot bisect`
 * and the service's bisect children both run it; its result has one JSON
 * form (bisect_result_json, bisect_result_parse), which `bisect --json`
 * prints and the service reads back from its children.
 */
#ifndef LKP_FLOW_BISECT_H
#define LKP_FLOW_BISECT_H

#include "flow.h"
#include "../lib/kernel/git.h"
#include "../lib/stats/decide.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct compare_floors;
struct jobopts;
struct provider_cli;
struct provider_options;

/* The layout check's alignment when none is asked for: -falign-functions=32, as 0-day rebuilds. */
#define BISECT_LAYOUT_ALIGN 32

struct bisect_request {
	const char *tree, *good, *bad;	     /* a new bisection: all three */
	long long resume;		     /* or: go on with this one of the store (its recorded arguments) */
	const char *metric;		     /* NULL: the job's metric that changed most between the ends */
	const char *provider;		     /* by name (a resumed bisection: the store's) */
	const struct provider_options *opts; /* the provider's settings (NULL: its defaults) ... */
	const struct provider_cli *cli;	     /* ... and the command line's on top (NULL: none) */
	const char *accel;		     /* qemu: kvm, tcg or auto (NULL: $LKPROBOT_ACCEL) */
	const char *kconfig;		     /* qemu, ssh (NULL: the provider's default) */
	const char *result_dir;		     /* RESULT_ROOT_DIR */
	const char *db;			     /* the store (NULL: result_dir/lkprobot.db) */
	const char *cache;		     /* work trees and kernels (NULL: the default) */
	const char *data_dir;		     /* lkprobot's jobs/, hosts/ */
	size_t max_points;		     /* commits tested at once in a step (0: as the slots allow) */
	bool first_parent;
	int layout_align;	       /* the layout check's -falign-functions=N (kernel jobs); 0: none */
	struct jobopts *jo;	       /* the job file and its overrides (a resumed one's are added) */
	struct compare_floors *floors; /* the job's change_floor is added after these */
};

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
};

/*
 * Run the bisection req asks for. FLOW_OK with *res filled (whatever it
 * found: res->status), FLOW_FAIL when it could not be made (res->status
 * failed, recorded so in the store, res->known when the range was), or
 * FLOW_BAD on bad input; err says why in one line in both. Release res
 * with bisect_result_release() in every case.
 */
enum flow_status flow_bisect(const struct bisect_request *req, struct bisect_result *res, struct strbuf *err);
void bisect_result_release(struct bisect_result *res);

/*
 * Measure one commit on its own (req->bad; good and resume are not used):
 * `runs` runs of the job through the provider, recorded like a
 * bisection's — what a branch's first head gets when it has no parent to
 * be compared with (the base of the next head). FLOW_OK with res->status
 * baseline, FLOW_FAIL (the commit cannot be tested: res->untestable bad,
 * why its first error line) or FLOW_BAD, as flow_bisect.
 */
enum flow_status flow_measure(const struct bisect_request *req, size_t runs, struct bisect_result *res,
			      struct strbuf *err);

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
	const char *kcflags;
	bool worse, gone;	      /* a regression (else an improvement); gone in the aligned builds */
	const char *parent, *culprit; /* full ids */
	double base, change, commit;  /* the parent's mean, the decision's change (percent), the culprit's */
	const char *job;	      /* testcase/path_params/tbox_group */
	const char *metric;
};
/*
 * 0-day's compact table of a rebuild with aligned functions (the second
 * example's "We recompiled the kernels with option ..."): the header of
 * parent and culprit, the job's row, the metric's GEO-MEAN.
 */
void bisect_layout_table(struct strbuf *out, const struct layout_figures *f);

/* The checks as a mail's lines: what each made says, then the layout's table. */
void bisect_checks_text(const struct bisect_result *r, struct strbuf *out);

/* The result as one JSON object and a newline (`bisect --json`). */
void bisect_result_json(struct strbuf *out, const struct bisect_result *res);
/* Read bisect_result_json's object back into *res (released first). 0, or -1 with err set. */
int bisect_result_parse(const char *text, size_t len, struct bisect_result *res, struct strbuf *err);

#endif

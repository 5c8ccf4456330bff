/*
 * mailrules: who gets a report, and whether it goes at all — one table of
 * rules (mail_rules[]), each a function over the report about to go (a
 * mail_case) and what will be done with it (a mail_plan). Rules of stage
 * MAIL_BEFORE run before the report is gathered from the runs (a change
 * the configuration holds back, the floors of the decision); rules of
 * stage MAIL_ADDRESS after it (the commit's people or the ones named,
 * the lists, the subscribers, never anyone opted out, live or a dry run
 * to the operator). Adding a rule: a
 * function here, its row in mail_rules[] (in the order it must run), and
 * its setting in a configuration table (mailconf.c, or flow/serve_conf.c
 * for the service's) when it has one.
 */
#ifndef LKP_MAILRULES_H
#define LKP_MAILRULES_H

#include "recipients.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct compare_floors;
struct mailconf;

struct mail_case {
	const struct mailconf *mc;
	const char *tree;      /* the commit's repository: its people (NULL: only the ones named) */
	const char *tree_name; /* its name in serve.trees, for mail.subscriptions' trees (NULL: tree) */
	const char *commit;    /* the commit reported (MAIL_ADDRESS: its full id) */
	const char *const *to; /* recipients the user named (then the commit's people are not asked) */
	size_t nto;
	const char *const *cc;
	size_t ncc;
	const char *const *also_cc; /* Cc as well as the commit's people or the ones named (a series' mails') */
	size_t nalso_cc;
	int kind;		   /* the change: +1 an improvement, -1 a regression, 0 not known (subscribers too) */
	bool hold_improvements;	   /* serve.report_improvements: false */
	bool revert_refutes;	   /* the culprit's revert does not restore the metric (flow/prove.c) ... */
	bool mail_unrestored;	   /* ... and serve.report_unrestored: true mails it anyway */
	const char *const *floors; /* serve.change_floor: "GLOB=PCT" each (NULL-terminated, or NULL) */
	const char *from;	   /* the robot's address: never one of the recipients (NULL: none) */
};

struct mail_plan {
	bool held;	     /* not mailed: why says why ... */
	const char *held_by; /* ... and this rule of mail_rules[] held it */
	struct strbuf why;
	struct compare_floors *floors; /* the decision's floors (MAIL_BEFORE adds to them) */
	const char **to, **cc;	       /* the headers' recipients */
	size_t nto, ncc;
	char **envelope; /* who really gets it (addr-specs) */
	size_t nenvelope;
	char *dry_run;		  /* the X-lkprobot-Dry-Run header of a dry run (NULL: live) */
	struct recipients people; /* the commit's, as recipients_of_commit found them */
	char **opted_out;	  /* "ADDR (mail.opt_out: ENTRY)": dropped from To and Cc */
	size_t nopted_out;
};

enum mail_stage {
	MAIL_BEFORE,
	MAIL_ADDRESS
};

struct mail_rule {
	const char *name;
	enum mail_stage stage;
	const char *what; /* one line: what it decides */
	/* 0 go on, 1 held (why set: the later rules are not asked), -1 with err set (bad input) */
	int (*apply)(const struct mail_case *c, struct mail_plan *p, struct strbuf *err);
};

/* The rules, in the order they run; ends with a row whose name is NULL. */
extern const struct mail_rule mail_rules[];

/* Run the rules of a stage on c into p (zeroed by mail_plan_init). 0, 1 held, -1 with err set. */
int mail_rules_apply(enum mail_stage stage, const struct mail_case *c, struct mail_plan *p, struct strbuf *err);
void mail_plan_init(struct mail_plan *p, struct compare_floors *floors);
void mail_plan_release(struct mail_plan *p);

#endif

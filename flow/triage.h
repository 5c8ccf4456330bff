/*
 * triage (flow): what people tell the robot about its reports — the
 * replies read from the lists it watches and from its own Maildir
 * (serve.maildir), their #lkprobot commands recorded before they are acted
 * on and each answered once through the outbox (the answer's Message-ID is
 * made from the command's, so a restart, kill -9 included, queues the same
 * one, which the outbox takes once); the reports' triage states they set;
 * a report's follow-up when its change is gone (triage_check.c).
 */
#ifndef LKP_FLOW_TRIAGE_H
#define LKP_FLOW_TRIAGE_H

#include "bisect_result.h"
#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct serve_conf;
struct store;
struct tree_conf;
struct mailconf;

/* The triage states, in their order. */
extern const char *const triage_states[];
/* Is state one of them? */
int triage_state_ok(const char *state);

/*
 * A mail of a list or of the Maildir (where: where it was, for the log):
 * its commands recorded, once each — queued, or ignored and logged (it
 * replies to no report, its sender is neither on the report's To/Cc nor
 * in serve.maintainers). 0, or -1 with err set (the store).
 */
int triage_take(const struct serve_conf *c, struct store *s, const char *msg, size_t len, const char *where,
		struct strbuf *err);
/* serve.maildir's new mail, each taken and then moved to cur/. 0, or -1 with err set. */
int triage_poll_maildir(const struct serve_conf *c, struct store *s, struct strbuf *err);
/*
 * The commands queued (or left acting by a service that died), acted on
 * and answered, once each. 0, or -1 with err set (the store).
 */
int triage_act(const struct serve_conf *c, const char *config, struct store *s, struct strbuf *err);

/* An answer in a report's thread. */
struct triage_answer {
	const struct node *report; /* the store's row */
	const char *to;		   /* NULL: the report's recipients */
	const char *in_reply_to;   /* NULL: the report's Message-ID */
	const char *quote;	   /* the lines answered, quoted first (NULL: none) */
	const char *body;
	const char *seed; /* the Message-ID is made of it and id_time: the same answer, the same id */
	time_t id_time;
};
/*
 * Queue it through the mail rules (the ones named and mail.lists; live, or
 * a dry run to the operator) and the outbox, once by its Message-ID (put
 * in mid). 0 queued (or queued before), -1 with err set.
 */
int triage_answer(const struct serve_conf *c, const struct mailconf *mc, struct store *s, const struct triage_answer *a,
		  struct strbuf *mid, struct strbuf *err);

/*
 * The follow-ups of tree's branch at its head just tested (triage_check.c):
 * each open report whose culprit the head contains, its change measured
 * again against the culprit's parent with the head's runs — gone (the
 * same decision says no change), or the culprit reverted upstream between
 * base and head: a reply in the report's thread "fixed at <commit>" with
 * the figures, once, and the report marked fixed. 0, or -1 with err set.
 */
int triage_followup(const struct serve_conf *c, const char *config, struct store *s, const char *tree,
		    const char *branch, const char *head, const char *base, struct strbuf *err);
/*
 * #lkprobot test and recheck (triage_run.c), run in a worker of their own
 * (serve_loop.c): is the command (a row of store_commands_todo) one, of a
 * report? They are left queued by triage_act for the service's pass.
 */
int triage_is_check(const struct node *cmd);
/*
 * A check's worker: the command acted on and answered once, as
 * triage_act does, in a store of its own. 0; 1 when it was stopped (the
 * service's stop: the command stays to do) or failed (err says why).
 */
int triage_check_main(const struct serve_conf *c, const char *config, const struct node *cmd, struct strbuf *err);
/*
 * A check whose worker ended without answering (it died): answered once
 * with why, and done, so that a command that kills its worker is not
 * started again and again. 0, or -1 with err set.
 */
int triage_check_lost(const struct serve_conf *c, const char *config, struct store *s, const struct node *cmd,
		      const char *why, struct strbuf *err);
/*
 * The check's measuring and its answer's text into out: recheck — the
 * report's culprit and its parent run again in interleaved rounds of their
 * own, and for a provider that builds kernels the layout check (both
 * rebuilt with -falign-functions=N); test — the command's patch (or what
 * its <git-url> <branch-or-commit> brings) applied on the culprit in
 * series_repo, run against the culprit, with Tested-by: when the reported
 * change is gone. Each by the bisection's decision on the report's metric
 * and job.
 */
void triage_run_check(const struct serve_conf *c, const struct mailconf *mc, const struct node *report,
		      const struct node *cmd, struct strbuf *out);

/* Two commits compared by flow_pair, in a child of their own. */
struct triage_pair {
	const struct tree_conf *t; /* the tree's provider, kconfig and settings */
	const char *repo;	   /* where the commits are (NULL: t->path) */
	const char *job, *good, *bad, *metric;
	bool fresh; /* only rounds made now count */
	int align;  /* the layout check's -falign-functions=N (0: none) */
};
/*
 * Run it in a child, in a process group of its own that a stop of the
 * service ends (as the heads' bisections run): 0 with *res
 * (bisect_result_release), -1 with why when the child gave no result.
 */
int triage_pair_run(const struct serve_conf *c, const struct triage_pair *q, struct bisect_result *res,
		    struct strbuf *why);
/*
 * A recheck's pair for report (a row of the store's reports) of tree t:
 * its culprit against its parent, in rounds of their own, with the layout
 * check at the tree's layout_check N — or 0-day's 32 when the tree has
 * none or off: a recheck asks for it (a provider that builds no kernel
 * makes none).
 */
void triage_recheck_pair(const struct node *report, const struct tree_conf *t, struct triage_pair *q);

#endif

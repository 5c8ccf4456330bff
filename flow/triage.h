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

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct serve_conf;
struct store;
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
 * #lkprobot test and recheck (triage_check.c): the report's job run again
 * on a patched culprit, or on the culprit and its parent, by the bisection
 * machinery with the same metric and decision; the answer's text into out.
 */
void triage_run_check(const struct serve_conf *c, const struct node *report, const char *verb, const char *args,
		      int64_t cmd_id, struct strbuf *out);

#endif

/*
 * report (flow): a report mail sent — gathered from the runs (mail/
 * reportjob), its recipients by the mail rules (mail/mailrules: the
 * commit's people or the ones named, the lists, live or a dry run to the
 * operator), rendered, DKIM-signed, queued in the store's outbox and
 * delivered once — with a typed verdict. `lkprobot report --send` and the
 * service's heads both send through it.
 */
#ifndef LKP_FLOW_REPORT_H
#define LKP_FLOW_REPORT_H

#include "../lib/stats/decide.h"
#include "../lib/util/strbuf.h"
#include "../mail/reportjob.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct mailconf;

struct report_request {
	struct reportjob_opts what; /* the change and its runs; .live is set from mc */
	const char *from, *domain;  /* NULL: mail.from, mail.domain */
	const char *tree_name; /* what.tree's name in serve.trees (subscriptions, the report's row; NULL: the path) */
	const char *url, *tree_url, *lkprobot_url, *closes, *note, *signature;
	time_t date;
	const struct mailconf *mc;
	FILE *log; /* the queue's and the delivery's lines (NULL: none) */
	/* what the service's mail rules ask of it (mail/mailrules.h) */
	int kind;			/* +1 an improvement, -1 a regression, 0 not known (then the decision's) */
	bool hold_improvements;		/* serve.report_improvements: false */
	bool revert_refutes;		/* the culprit's revert restores nothing ... */
	bool mail_unrestored;		/* ... and serve.report_unrestored says mail it anyway */
	const char *checks;		/* the culprit's checks, lines for the mail (revert, layout); NULL: none */
	bool layout_effect;		/* the change vanished in aligned builds: no Reported-by asked */
	const char *base_line;		/* a series' "base: ..." line after url: (NULL: none) */
	const char *const *also_cc;	/* Cc as well (a series' list and mails' people), NULL-terminated or NULL */
	const char *const *conf_floors; /* serve.change_floor, "GLOB=PCT" each (NULL-terminated, or NULL) */
	/* the report's row in the store (its home: replies and follow-ups find it there) */
	const char *branch, *job; /* the service's branch (tree: tree_name), the job file (NULL: unknown) */
	long long bisection;	  /* the bisection that named the culprit (0: none) */
};

enum report_verdict {
	REPORT_QUEUED,	  /* queued: delivered, or to be retried by the outbox */
	REPORT_HELD,	  /* a mail rule holds it back (why): recorded, not mailed */
	REPORT_DUPLICATE, /* the same report (Message-ID) is queued already */
	REPORT_NOTHING,	  /* the decision says nothing changed worth a mail */
	REPORT_REFUSED,	  /* the server refused it for good (mail_error) */
	REPORT_FAILED,	  /* it could not be queued or delivered: the store, DKIM, the sender's lock */
	REPORT_BAD,	  /* bad input: the sides, recipients, the configuration */
};

struct report_outcome {
	enum report_verdict verdict;
	long long id;	   /* in the outbox (0: not queued) */
	struct strbuf why; /* one line, whatever the verdict */
	char *mail_error;  /* REPORT_REFUSED: the server's answer */
	/* the mail's headline and its decision (the one change it gives), when it was made */
	bool decided;
	char *metric;
	struct decision decision;
	const char *held_by; /* REPORT_HELD: the mail rule that held it (mail/mailrules.c) */
};

/*
 * The caller's parts of the message (report.h's report_input: from,
 * domain, url, tree_url, lkprobot_url, closes, note, signature, date) from
 * rq, onto what reportjob gathered; from and domain: rq's, else these.
 */
struct report_input;
void report_request_input(const struct report_request *rq, const char *from, const char *domain,
			  struct report_input *in);

/*
 * A one-line notice, not a report (a series that does not apply, to its
 * author): addressed by the mail rules of stage MAIL_ADDRESS (to, and
 * mail.lists; never the robot; live, or a dry run to the operator),
 * rendered, signed and queued in the outbox of the store db (delivered by
 * the next delivery: the service's, at the end of its pass). Its
 * Message-ID is made from id_time and seed, so the same notice is queued
 * once.
 */
struct notice_request {
	const struct mailconf *mc;
	const char *db;
	const char *to;			      /* "Name <addr>" */
	const char *subject;		      /* "Re: [PATCH 2/3] ..." */
	const char *in_reply_to, *references; /* the mail it answers, its thread ("<a> <b>") */
	const char *seed;		      /* what its Message-ID is made of, with id_time */
	time_t id_time, date;		      /* date: its Date: (0: now) */
	const char *text;		      /* the line */
};
/* REPORT_QUEUED, REPORT_DUPLICATE (queued before), REPORT_BAD or REPORT_FAILED; why: one line in every case. */
enum report_verdict flow_notice_queue(const struct notice_request *rq, struct strbuf *why);

/*
 * msg (a rendered message, CRLF) DKIM-signed when mc says so (mail.dkim),
 * appended to out. 0; 1 the key cannot be read, -1 it cannot be signed
 * (err set).
 */
int flow_mail_sign(const struct mailconf *mc, time_t date, const struct strbuf *msg, struct strbuf *out,
		   struct strbuf *err);

/* Send the report rq asks for; out filled in every case (report_outcome_release()). */
void flow_report_send(const struct report_request *rq, struct report_outcome *out);
void report_outcome_release(struct report_outcome *out);

#endif

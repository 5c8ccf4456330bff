/*
 * mailrules: the table of who gets a report and whether it goes. See
 * mailrules.h.
 */
#include "mailrules.h"
#include "mailconf.h"
#include "mime.h"
#include "../lib/results/compare.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* serve.report_improvements: false — an improvement is recorded, not mailed */
static int rule_hold_improvements(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	(void)err;
	if (c->kind <= 0 || !c->hold_improvements)
		return 0;
	strbuf_setf(&p->why, "an improvement, recorded, not mailed (report_improvements: false)");
	return 1;
}

/* the culprit's revert on top of the bad end restores nothing: the culprit is in doubt, recorded, not mailed */
static int rule_revert_restores(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	(void)err;
	if (!c->revert_refutes || c->mail_unrestored)
		return 0;
	strbuf_setf(&p->why,
		    "its revert does not restore the metric: the culprit is in doubt, recorded, not mailed "
		    "(report_unrestored: false)");
	return 1;
}

/* serve.change_floor: the smallest change worth a mail, added to the decision's floors */
static int rule_floors(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	for (const char *const *f = c->floors; f && *f; f++)
		if (compare_floors_add(p->floors, *f, err))
			return -1;
	return 0;
}

static void add_addr(const char ***v, size_t *n, const char *a)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = a;
}

/* a as Cc, unless To or Cc has its addr-spec already */
static void add_new_cc(struct mail_plan *p, const char *a)
{
	struct strbuf e = STRBUF_INIT;
	char *spec = mime_addr_spec(a, &e);
	bool seen = !spec;

	for (size_t i = 0; !seen && i < p->nto + p->ncc; i++) {
		char *s = mime_addr_spec(i < p->nto ? p->to[i] : p->cc[i - p->nto], &e);
		seen = s && !strcasecmp(s, spec);
		free(s);
	}
	if (!seen)
		add_addr(&p->cc, &p->ncc, a);
	free(spec);
	strbuf_release(&e);
}

/*
 * To and Cc: the commit's people (author, trailers, MAINTAINERS, the lists
 * and the subscribers) when there is a tree and the user named nobody;
 * else the ones named, the lists, and (with a tree) the subscribers.
 */
static int rule_recipients(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	const struct mailconf *mc = c->mc;
	bool named = c->nto || c->ncc;
	struct recipients_input conf = { .lists = named ? NULL : (const char *const *)mc->lists,
					 .nlists = named ? 0 : mc->nlists,
					 .max = named ? 0 : (size_t)mc->max_recipients,
					 .subs = mc->subs,
					 .nsubs = mc->nsubs,
					 .tree_name = c->tree_name,
					 .kind = c->kind };

	if (c->tree && (!named || mc->nsubs) && recipients_of_commit(c->tree, c->commit, &conf, &p->people, err))
		return -1;
	/* named: the commit's people are not asked, what is wrong with their trailers is no news */
	for (size_t i = 0; named && i < p->people.nwarnings; i++)
		free(p->people.warnings[i]);
	if (named)
		p->people.nwarnings = 0;
	for (size_t i = 0; i < c->nto; i++)
		add_addr(&p->to, &p->nto, c->to[i]);
	for (size_t i = 0; i < c->ncc; i++)
		add_addr(&p->cc, &p->ncc, c->cc[i]);
	for (size_t i = 0; named && i < mc->nlists; i++)
		add_addr(&p->cc, &p->ncc, mc->lists[i]);
	/* named: of the commit's people only the subscribers */
	for (size_t i = 0; i < p->people.n; i++)
		if (!named)
			add_addr(p->people.v[i].to ? &p->to : &p->cc, p->people.v[i].to ? &p->nto : &p->ncc,
				 p->people.v[i].addr);
		else if (p->people.v[i].subscribed)
			add_new_cc(p, p->people.v[i].addr);
	for (size_t i = 0; i < c->nalso_cc; i++)
		add_new_cc(p, c->also_cc[i]);
	return 0;
}

/* The addresses of v that are not the robot's own (spec: its addr-spec), kept in order. */
static void drop_self(const char **v, size_t *n, const char *spec)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		struct strbuf e = STRBUF_INIT;
		char *s = mime_addr_spec(v[i], &e);
		if (!s || strcasecmp(s, spec))
			v[k++] = v[i];
		free(s);
		strbuf_release(&e);
	}
	*n = k;
}

/*
 * The robot never mails itself: its own address (mail.from, --from) is no
 * recipient, however the commit names it (a fix's "Reported-by: kernel
 * test robot <...>", a list it is on).
 */
static int rule_not_self(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	char *spec = c->from ? mime_addr_spec(c->from, &e) : NULL;

	(void)err;
	if (spec) {
		drop_self(p->to, &p->nto, spec);
		drop_self(p->cc, &p->ncc, spec);
	}
	free(spec);
	strbuf_release(&e);
	return 0;
}

/* The addresses of v that mail.opt_out does not name, kept in order; the others said in p->opted_out. */
static void drop_opted_out(const struct mailconf *mc, struct mail_plan *p, const char **v, size_t *n)
{
	size_t k = 0;

	for (size_t i = 0; i < *n; i++) {
		const char *entry = mailconf_opted_out(mc, v[i]);
		if (!entry) {
			v[k++] = v[i];
			continue;
		}
		p->opted_out = xrealloc(p->opted_out, (p->nopted_out + 1) * sizeof(*p->opted_out));
		p->opted_out[p->nopted_out++] = xasprintf("%s (mail.opt_out: %s)", v[i], entry);
	}
	*n = k;
}

/*
 * Nobody in mail.opt_out is mailed, however the commit, the user or a
 * subscription names them: dropped from To and Cc (the dry run and the log
 * say who). A report whose every recipient opted out is held.
 */
static int rule_opt_out(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	(void)err;
	drop_opted_out(c->mc, p, p->to, &p->nto);
	drop_opted_out(c->mc, p, p->cc, &p->ncc);
	if (!p->nopted_out || p->nto + p->ncc)
		return 0;
	strbuf_setf(&p->why, "every recipient is in mail.opt_out (%zu): recorded, not mailed", p->nopted_out);
	return 1;
}

static int add_spec(struct mail_plan *p, const char *addr, struct strbuf *err)
{
	char *spec = mime_addr_spec(addr, err);

	if (!spec)
		return -1;
	p->envelope = xrealloc(p->envelope, (p->nenvelope + 1) * sizeof(*p->envelope));
	p->envelope[p->nenvelope++] = spec;
	return 0;
}

/*
 * The envelope: everyone in To and Cc when mail.live, else the operator
 * alone, said in an X-lkprobot-Dry-Run header.
 */
static int rule_live(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	const struct mailconf *mc = c->mc;

	if (mc->live) {
		for (size_t i = 0; i < p->nto + p->ncc; i++)
			if (add_spec(p, i < p->nto ? p->to[i] : p->cc[i - p->nto], err))
				return -1;
		return 0;
	}
	if (!mc->operator_) {
		strbuf_setf(err, "%s: mail.live is not true and there is no mail.operator: a dry run has nowhere to go",
			    mc->path ? mc->path : "the configuration (none found)");
		return -1;
	}
	if (add_spec(p, mc->operator_, err))
		return -1;
	struct strbuf h = STRBUF_INIT;
	strbuf_addf(
		&h,
		"X-lkprobot-Dry-Run: mail.live is not true; sent to the operator only, not to the %zu addresses in To "
		"and Cc",
		p->nto + p->ncc);
	/* the operator sees who a live run would leave out */
	for (size_t i = 0; i < p->nopted_out; i++)
		strbuf_addf(&h, "%s %s", i ? "," : "; not to, by mail.opt_out:", p->opted_out[i]);
	p->dry_run = strbuf_detach(&h);
	return 0;
}

/* a report nobody gets is bad input */
static int rule_someone(const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	(void)c;
	if (p->nenvelope)
		return 0;
	strbuf_setf(err, "no recipient: give --tree (the commit's people), --to or --cc");
	return -1;
}

const struct mail_rule mail_rules[] = {
	{ "hold-improvements", MAIL_BEFORE, "an improvement is recorded, not mailed, with report_improvements: false",
	  rule_hold_improvements },
	{ "revert-restores", MAIL_BEFORE,
	  "a culprit whose revert does not restore the metric is recorded, not mailed (unless report_unrestored)",
	  rule_revert_restores },
	{ "floors", MAIL_BEFORE, "serve.change_floor: the smallest change worth a mail", rule_floors },
	{ "recipients", MAIL_ADDRESS,
	  "To and Cc: the commit's author, trailers, MAINTAINERS, mail.lists and mail.subscriptions; or the ones "
	  "named, mail.lists and mail.subscriptions; and a series' list and the people on its mails",
	  rule_recipients },
	{ "not-self", MAIL_ADDRESS, "the robot's own address (mail.from) is never a recipient", rule_not_self },
	{ "opt-out", MAIL_ADDRESS,
	  "nobody in mail.opt_out is a recipient (said in the log and the dry run); a report left with nobody is held",
	  rule_opt_out },
	{ "live", MAIL_ADDRESS, "mail.live: everyone in To and Cc gets it; else only mail.operator (a dry run)",
	  rule_live },
	{ "someone", MAIL_ADDRESS, "a report nobody would get is refused", rule_someone },
	{ NULL, MAIL_BEFORE, NULL, NULL },
};

int mail_rules_apply(enum mail_stage stage, const struct mail_case *c, struct mail_plan *p, struct strbuf *err)
{
	for (const struct mail_rule *r = mail_rules; r->name; r++) {
		int rc = r->stage == stage ? r->apply(c, p, err) : 0;
		if (rc == 1) {
			p->held = true;
			p->held_by = r->name;
		}
		if (rc)
			return rc;
	}
	return 0;
}

void mail_plan_init(struct mail_plan *p, struct compare_floors *floors)
{
	*p = (struct mail_plan){ .why = STRBUF_INIT, .floors = floors };
}

void mail_plan_release(struct mail_plan *p)
{
	strbuf_release(&p->why);
	free(p->to);
	free(p->cc);
	for (size_t i = 0; i < p->nenvelope; i++)
		free(p->envelope[i]);
	free(p->envelope);
	free(p->dry_run);
	for (size_t i = 0; i < p->nopted_out; i++)
		free(p->opted_out[i]);
	free(p->opted_out);
	recipients_release(&p->people);
	memset(p, 0, sizeof(*p));
}

/*
 * triage_check: what the robot measures again for a report — the
 * follow-up of a report whose change went away at a later head (or whose
 * culprit was reverted upstream), and the #lkprobot test and recheck
 * commands. See triage.h.
 */
#include "triage.h"
#include "serve_int.h"

void triage_run_check(const struct serve_conf *c, const struct node *report, const char *verb, const char *args,
		      int64_t cmd_id, struct strbuf *out)
{
	(void)c, (void)report, (void)args, (void)cmd_id;
	strbuf_addf(out, "'#lkprobot %s' is not done by this robot yet; nothing was run.", verb);
}

int triage_followup(const struct serve_conf *c, const char *config, struct store *s, const char *tree,
		    const char *branch, const char *head, const char *base, struct strbuf *err)
{
	(void)c, (void)config, (void)s, (void)tree, (void)branch, (void)head, (void)base, (void)err;
	return 0;
}

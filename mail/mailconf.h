/*
 * mailconf: the `mail:` section of lkprobot's configuration file — who the
 * robot is, whether mail goes to the real recipients (`live: true`) or only
 * to the operator (the default: a dry run), the SMTP server, DKIM, retries.
 * The file is YAML: --config FILE, else $LKPROBOT_CONFIG, else
 * /etc/lkprobot/config.yaml (a missing default file means the defaults).
 * Its keys are mail_keys' rows in mailconf.c, listed with their defaults in
 * docs/configuration.md ('lkprobot help config' prints them).
 */
#ifndef LKP_MAILCONF_H
#define LKP_MAILCONF_H

#include "recipients.h"
#include "smtp.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct mailconf {
	char *path;			/* where it was read from (NULL: defaults) */
	bool live;
	char *operator_;		/* the dry run's recipient */
	char *from;
	char **lists;
	size_t nlists;
	long max_recipients;		/* default 100 */
	char *domain;
	long retry;			/* seconds */
	struct smtp_config smtp;	/* its strings point into this struct's own copies */
	char *smtp_url, *smtp_user, *smtp_password, *smtp_ca;
	char *dkim_key, *dkim_selector, *dkim_domain;
	struct recipients_sub *subs; /* mail.subscriptions */
	size_t nsubs;
	char **opt_out; /* mail.opt_out: addresses (or globs of them) never mailed */
	size_t nopt_out;
};

/*
 * Read the configuration (path NULL: $LKPROBOT_CONFIG, else the default
 * file, which may be missing). 0, or -1 with one line in err naming the file,
 * the key and what is wrong (then c holds nothing to release).
 */
int mailconf_load(struct mailconf *c, const char *path, struct strbuf *err);
void mailconf_release(struct mailconf *c);
/*
 * The entry of mail.opt_out that addr ("Name <a@b>" or a@b) matches (without
 * case; an entry may be a glob, *@example.org), or NULL: it may be mailed.
 */
const char *mailconf_opted_out(const struct mailconf *c, const char *addr);
/* The mail: section's keys as markdown ('lkprobot help config'). */
void mailconf_doc(struct strbuf *out);

#endif

/*
 * mailconf: reading the `mail:` section. See mailconf.h. Unknown keys are
 * errors (a typo in `live` must not silently mean a dry run, nor the
 * reverse).
 */
#include "mailconf.h"
#include "mime.h"
#include "../lib/util/conf.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_PATH "/etc/lkprobot/config.yaml"

#define M(member) CONF_FIELD(struct mailconf, member)
static const char *const tls_choices[] = { "required", "try", "none", NULL };	/* enum smtp_tls's order */

/* smtp:// (STARTTLS by tls:) or smtps:// (TLS from the start): what the SMTP client speaks */
static int smtp_url_check(const char *url, struct strbuf *err)
{
	(void)err;
	return strncmp(url, "smtp://", 7) && strncmp(url, "smtps://", 8) ? -1 : 0;
}

static const struct conf_key smtp_keys[] = {
	{ "url", CONF_STRING, M(smtp_url), .check = smtp_url_check,
	  .what = "must be smtp://HOST[:PORT] (STARTTLS, by tls:) or smtps://HOST[:PORT] (TLS from the start)",
	  .help = "smtp://mail.example.org:587 or smtps://...:465" },
	{ "tls", CONF_CHOICE, M(smtp.tls), .def = "required", .choices = tls_choices,
	  .help = "required (STARTTLS must work), try, none" },
	{ "user", CONF_STRING, M(smtp_user), .help = "AUTH as this user" },
	{ "password", CONF_STRING, M(smtp_password), .help = "its password (or password_file)" },
	{ "password_file", CONF_NODE, .form = "a file", .help = "a file holding the password (its first line)" },
	{ "ca_file", CONF_STRING, M(smtp_ca), .form = "a file",
	  .help = "the CA bundle that must verify the server (default: the system's)" },
	{ "connect_timeout", CONF_NUMBER, M(smtp.connect_timeout), .def = "10", .min = 1, .max = LONG_MAX,
	  .what = "must be a positive number of seconds", .help = "seconds" },
	{ "timeout", CONF_NUMBER, M(smtp.timeout), .def = "60", .min = 1, .max = LONG_MAX,
	  .what = "must be a positive number of seconds", .help = "seconds" },
	{ 0 },
};

static const struct conf_key dkim_keys[] = {
	{ "key", CONF_STRING, M(dkim_key), .form = "a file",
	  .help = "the private key (PEM); needs selector and domain" },
	{ "selector", CONF_STRING, M(dkim_selector), .help = "the DNS selector" },
	{ "domain", CONF_STRING, M(dkim_domain), .help = "the signing domain" },
	{ 0 },
};

/* an address to subscribe */
static int address_check(const char *a, struct strbuf *err)
{
	char *spec = mime_addr_spec(a, err);

	free(spec);
	if (!spec)
		strbuf_addstr(err, "; give an address (name@host, or Name <name@host>)");
	return spec ? 0 : -1;
}

/* an address to opt out, or a glob of addresses (*@example.org: '*' is a character of an address) */
static int opt_out_check(const char *a, struct strbuf *err)
{
	char *spec = mime_addr_spec(a, err);

	free(spec);
	if (!spec)
		strbuf_addstr(err, "; give an address, or a glob of them (*@example.org)");
	return spec ? 0 : -1;
}

#define SUB(member) CONF_FIELD(struct recipients_sub, member)
static const struct conf_key sub_keys[] = {
	{ "address", CONF_STRING, SUB(address), .flags = CONF_REQUIRED, .check = address_check,
	  .what = "must be a mail address", .help = "who subscribes (a person or a list): Cc of the reports below" },
	{ "paths", CONF_LIST, SUB(paths), .flags = CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct recipients_sub, npaths),
	  .help = "a change touching one of these files (MAINTAINERS F: patterns: drivers/nvdimm/, fs/*.c)" },
	{ "maintainers", CONF_LIST, SUB(maintainers), .flags = CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct recipients_sub, nmaintainers),
	  .help = "a change in one of these MAINTAINERS entries (their titles; globs, without case: LIBNVDIMM*)" },
	{ "trees", CONF_LIST, SUB(trees), .flags = CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct recipients_sub, ntrees),
	  .help = "a change of one of these trees (a name of serve.trees, or a repository's path; globs)" },
	{ "improvements", CONF_BOOL, SUB(improvements), .def = "false",
	  .help = "true: every change reported, improvements too; false: regressions only" },
	{ 0 },
};
#undef SUB

static const struct conf_key mail_keys[] = {
	{ "live", CONF_BOOL, M(live), .def = "false",
	  .help = "true: the report's recipients; false: the operator only" },
	{ "operator", CONF_STRING, M(operator_), .help = "the dry run's recipient (none: a dry run sends nothing)" },
	{ "from", CONF_STRING, M(from), .def = "lkprobot <lkprobot@localhost>", .help = "the robot's address" },
	{ "lists", CONF_LIST, M(lists), .flags = CONF_COUNTED, .count_off = offsetof(struct mailconf, nlists),
	  .what = "must be a list of addresses", .help = "always Cc'd" },
	{ "domain", CONF_STRING, M(domain), .def = "localhost", .help = "of the Message-IDs" },
	{ "retry", CONF_NUMBER, M(retry), .def = "60", .min = 1, .max = LONG_MAX,
	  .what = "must be a positive number of seconds",
	  .help = "seconds before the first retry (doubling, at most 6 h)" },
	{ "max_recipients", CONF_NUMBER, M(max_recipients), .def = "100", .min = 1, .max = LONG_MAX,
	  .what = "must be a positive number",
	  .help = "at most this many recipients of a report (the author and the lists first; the rest dropped, said)" },
	{ "subscriptions", CONF_NODE, .form = "a list of subscriptions",
	  .help = "who else gets which reports: Cc by the paths, MAINTAINERS entries or trees of the change (keys "
		  "below)" },
	{ "opt_out", CONF_LIST, M(opt_out), .flags = CONF_ONE_OK | CONF_COUNTED,
	  .count_off = offsetof(struct mailconf, nopt_out), .check = opt_out_check,
	  .what = "must be a list of addresses (or globs of them: *@example.org)",
	  .help = "addresses never mailed, by any mail the robot sends (globs: *@example.org; without case)" },
	{ "smtp", CONF_SECTION, .sub = smtp_keys, .help = "the SMTP server" },
	{ "dkim", CONF_SECTION, .sub = dkim_keys, .help = "DKIM signing" },
	{ 0 },
};
#undef M

const char *mailconf_opted_out(const struct mailconf *c, const char *addr)
{
	struct strbuf e = STRBUF_INIT;
	char *spec = c->nopt_out ? mime_addr_spec(addr, &e) : NULL;
	const char *hit = NULL;

	for (size_t i = 0; spec && !hit && i < c->nopt_out; i++) {
		char *pat = mime_addr_spec(c->opt_out[i], &e);
		if (pat && !fnmatch(pat, spec, FNM_CASEFOLD))
			hit = c->opt_out[i];
		free(pat);
	}
	free(spec);
	strbuf_release(&e);
	return hit;
}

/* One subscription of mail.subscriptions: its keys, and something it subscribes to. */
static int sub_load(struct recipients_sub *sub, const char *file, const struct node *n, struct strbuf *err)
{
	const char *prefix = "mail.subscriptions.";

	if (n->type != NODE_MAP)
		return conf_error(err, file, n, prefix, NULL, "each subscription is a map (address, paths, ...)");
	if (conf_read(n, sub_keys, sub, file, prefix, err))
		return -1;
	if (!sub->npaths && !sub->nmaintainers && !sub->ntrees)
		return conf_error(err, file, n, prefix, NULL,
				  "subscribes to nothing: give paths, maintainers or trees");
	return 0;
}

/* mail.subscriptions, and no address both subscribed (or the operator) and opted out. */
static int subs_load(struct mailconf *c, const char *file, const struct node *m, struct strbuf *err)
{
	const struct node *l = node_get(m, "subscriptions");

	if (l && l->type != NODE_NULL) {
		if (l->type != NODE_SEQ)
			return conf_error(err, file, l, "mail.", "subscriptions", "must be a list of subscriptions");
		c->subs = xcalloc(l->n + 1, sizeof(*c->subs));
		for (size_t i = 0; i < l->n; i++)
			if (sub_load(&c->subs[c->nsubs++], file, l->vals[i], err))
				return -1;
	}
	for (size_t i = 0; i < c->nsubs; i++)
		if (mailconf_opted_out(c, c->subs[i].address))
			return conf_error(err, file, node_get(l->vals[i], "address"), "mail.", "subscriptions.address",
					  "is in mail.opt_out too: remove the one that is wrong");
	if (c->operator_ && mailconf_opted_out(c, c->operator_))
		return conf_error(err, file, node_get(m, "operator"), "mail.", "operator",
				  "is in mail.opt_out: the dry runs would go nowhere; remove it from one");
	return 0;
}

/* The mail: section (m NULL: the defaults); what the table cannot say checked after it. */
static int load_map(struct mailconf *c, const char *file, const struct node *m, struct strbuf *err)
{
	const struct node *pwfile = node_get(node_get(m, "smtp"), "password_file");
	const char *pwpath = node_str(pwfile);

	if (conf_read(m, mail_keys, c, file, "mail.", err))
		return -1;
	if (pwfile && pwfile->type != NODE_NULL && !(pwpath && !*pwpath)) {	/* left empty: none */
		struct strbuf pw = STRBUF_INIT, why = STRBUF_INIT;
		if (!pwpath || strbuf_read_bounded(&pw, pwpath, 64 << 10, &why)) {
			strbuf_release(&pw);
			strbuf_release(&why);
			return conf_error(err, file, pwfile, "mail.", "smtp.password_file",
					  "cannot be read (a regular file of at most 64 KiB)");
		}
		strbuf_release(&why);
		strbuf_rtrim(&pw);
		free(c->smtp_password);
		c->smtp_password = strbuf_detach(&pw);
	}
	if (c->dkim_key && (!c->dkim_selector || !c->dkim_domain))
		return conf_error(err, file, node_get(m, "dkim"), "mail.", "dkim", "key needs selector and domain too");
	/* every address must be one mime writes */
	const char *check[] = { c->from, c->operator_ };
	for (int i = 0; i < 2; i++)
		if (check[i] && mime_check_address(check[i], err)) {
			char *why = strbuf_detach(err);
			conf_error(err, file, node_get(m, i ? "operator" : "from"), "mail.", i ? "operator" : "from", why);
			free(why);
			return -1;
		}
	if (subs_load(c, file, m, err))
		return -1;
	c->smtp.url = c->smtp_url;
	c->smtp.user = c->smtp_user;
	c->smtp.password = c->smtp_password;
	c->smtp.ca_file = c->smtp_ca;
	return 0;
}

int mailconf_load(struct mailconf *c, const char *path, struct strbuf *err)
{
	struct node *doc;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	if (!path)
		path = getenv("LKPROBOT_CONFIG");
	bool given = path && *path;
	if (!given)
		path = DEFAULT_PATH;
	if (!(doc = conf_load_file(path, err))) {
		if (!given && errno == ENOENT) {
			/* no configuration: the defaults (a dry run with nowhere to go) */
			strbuf_reset(err);
			ret = load_map(c, "defaults", NULL, err);
		}
	} else {
		c->path = xstrdup(path);
		ret = load_map(c, path, node_get(doc, "mail"), err);
	}
	node_free(doc);
	if (ret)
		mailconf_release(c);	/* nothing for the caller to release */
	return ret;
}

void mailconf_doc(struct strbuf *out)
{
	strbuf_addstr(out,
		      "## mail:\n\n"
		      "Who the robot is and how reports are delivered (`lkprobot report --send`, `outbox`,\n"
		      "`recipients`, `serve`): a dry run to the operator unless `live` is true.\n\n");
	conf_doc(out, mail_keys);
	strbuf_addstr(out,
		      "\n### mail.subscriptions: each subscription\n\n"
		      "A subscriber is Cc'd on the report of a change that matches any of its paths,\n"
		      "maintainers or trees (one at least), when the change is a regression (or any\n"
		      "change, with `improvements: true`); `lkprobot recipients` says which subscription\n"
		      "added each address. Nobody in `mail.opt_out` is mailed, whoever names them.\n\n");
	conf_doc(out, sub_keys);
}

void mailconf_release(struct mailconf *c)
{
	for (size_t i = 0; i < c->nsubs; i++)
		conf_release(sub_keys, &c->subs[i]);
	free(c->subs);
	conf_release(mail_keys, c);
	free(c->path);
	memset(c, 0, sizeof(*c));
}

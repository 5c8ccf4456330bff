/*
 * mailconf: reading the `mail:` section. See mailconf.h. Unknown keys are
 * errors (a typo in `live` must not silently mean a dry run, nor the
 * reverse).
 */
#include "mailconf.h"
#include "mime.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_PATH "/etc/lkprobot/config.yaml"

static int bad(struct strbuf *err, const struct mailconf *c, const struct node *n, const char *key, const char *what)
{
	if (n && n->line)
		strbuf_setf(err, "%s:%d:%d: mail.%s: %s", c->path, n->line, n->col, key, what);
	else
		strbuf_setf(err, "%s: mail.%s: %s", c->path, key, what);
	return -1;
}

static int get_str(const struct mailconf *c, const struct node *map, const char *prefix, const char *key, char **out,
		   struct strbuf *err)
{
	const struct node *v = node_get(map, key);
	char *full = xasprintf("%s%s", prefix, key);
	int ret = 0;

	if (v && !node_str(v))
		ret = bad(err, c, v, full, "must be a string");
	else if (v && *node_str(v)) {
		free(*out);
		*out = xstrdup(node_str(v));
	}
	free(full);
	return ret;
}

static int get_long(const struct mailconf *c, const struct node *map, const char *prefix, const char *key, long *out,
		    struct strbuf *err)
{
	const struct node *v = node_get(map, key);
	char *full = xasprintf("%s%s", prefix, key), *end;
	int ret = 0;

	if (v) {
		long x = node_str(v) ? strtol(node_str(v), &end, 10) : -1;
		if (!node_str(v) || *end || x <= 0)
			ret = bad(err, c, v, full, strcmp(key, "max_recipients") ? "must be a positive number of seconds"
										 : "must be a positive number");
		else
			*out = x;
	}
	free(full);
	return ret;
}

static int check_keys(const struct mailconf *c, const struct node *map, const char *prefix,
		      const char *const *known, struct strbuf *err)
{
	for (size_t i = 0; map && i < map->n; i++) {
		bool ok = false;
		for (const char *const *k = known; *k && !ok; k++)
			ok = !strcmp(map->keys[i], *k);
		if (!ok && !map->vals[i]->comment) {
			char *full = xasprintf("%s%s", prefix, map->keys[i]);
			int r = bad(err, c, map->vals[i], full, "not a setting lkprobot knows (a typo?)");
			free(full);
			return r;
		}
	}
	return 0;
}

static int load_map(struct mailconf *c, const struct node *m, struct strbuf *err)
{
	static const char *const top[] = { "live", "operator", "from", "lists", "domain", "retry", "smtp", "dkim",
					   "max_recipients", NULL };
	static const char *const smtp[] = { "url", "tls", "user", "password", "password_file", "ca_file",
					    "connect_timeout", "timeout", NULL };
	static const char *const dkim[] = { "key", "selector", "domain", NULL };
	const struct node *v;
	char *tls = NULL, *pwfile = NULL;
	int ret = -1;

	if (m->type != NODE_MAP)
		return bad(err, c, m, "", "the mail section must be a map");
	if (check_keys(c, m, "", top, err))
		return -1;
	if ((v = node_get(m, "live"))) {
		const char *s = node_str(v);
		if (s && (!strcmp(s, "true") || !strcmp(s, "yes")))
			c->live = true;
		else if (s && (!strcmp(s, "false") || !strcmp(s, "no")))
			c->live = false;
		else
			return bad(err, c, v, "live", "must be true or false");
	}
	if (get_str(c, m, "", "operator", &c->operator_, err) || get_str(c, m, "", "from", &c->from, err) ||
	    get_str(c, m, "", "domain", &c->domain, err) || get_long(c, m, "", "retry", &c->retry, err) ||
	    get_long(c, m, "", "max_recipients", &c->max_recipients, err))
		return -1;
	if ((v = node_get(m, "lists"))) {
		if (v->type != NODE_SEQ)
			return bad(err, c, v, "lists", "must be a list of addresses");
		for (size_t i = 0; i < v->n; i++) {
			if (!node_str(v->vals[i]))
				return bad(err, c, v->vals[i], "lists", "must be a list of addresses");
			c->lists = xrealloc(c->lists, (c->nlists + 1) * sizeof(*c->lists));
			c->lists[c->nlists++] = xstrdup(node_str(v->vals[i]));
		}
	}
	const struct node *s = node_get(m, "smtp");
	if (s && (s->type != NODE_MAP || check_keys(c, s, "smtp.", smtp, err)))
		return s->type != NODE_MAP ? bad(err, c, s, "smtp", "must be a map") : -1;
	if (s && (get_str(c, s, "smtp.", "url", &c->smtp_url, err) || get_str(c, s, "smtp.", "user", &c->smtp_user, err) ||
		  get_str(c, s, "smtp.", "password", &c->smtp_password, err) ||
		  get_str(c, s, "smtp.", "password_file", &pwfile, err) || get_str(c, s, "smtp.", "ca_file", &c->smtp_ca, err) ||
		  get_str(c, s, "smtp.", "tls", &tls, err) ||
		  get_long(c, s, "smtp.", "connect_timeout", &c->smtp.connect_timeout, err) ||
		  get_long(c, s, "smtp.", "timeout", &c->smtp.timeout, err)))
		goto out;
	if (tls) {
		if (!strcmp(tls, "required"))
			c->smtp.tls = SMTP_TLS_REQUIRED;
		else if (!strcmp(tls, "try"))
			c->smtp.tls = SMTP_TLS_TRY;
		else if (!strcmp(tls, "none"))
			c->smtp.tls = SMTP_TLS_NONE;
		else {
			bad(err, c, node_get(s, "tls"), "smtp.tls", "must be required, try or none");
			goto out;
		}
	}
	if (pwfile) {
		struct strbuf pw = STRBUF_INIT;
		if (strbuf_read_file(&pw, pwfile)) {
			bad(err, c, node_get(s, "password_file"), "smtp.password_file", "cannot be read");
			strbuf_release(&pw);
			goto out;
		}
		strbuf_rtrim(&pw);
		free(c->smtp_password);
		c->smtp_password = strbuf_detach(&pw);
	}
	const struct node *d = node_get(m, "dkim");
	if (d && (d->type != NODE_MAP || check_keys(c, d, "dkim.", dkim, err)))
		goto out;
	if (d && (get_str(c, d, "dkim.", "key", &c->dkim_key, err) || get_str(c, d, "dkim.", "selector", &c->dkim_selector, err) ||
		  get_str(c, d, "dkim.", "domain", &c->dkim_domain, err)))
		goto out;
	if (c->dkim_key && (!c->dkim_selector || !c->dkim_domain)) {
		bad(err, c, d, "dkim", "key needs selector and domain too");
		goto out;
	}
	ret = 0;
out:
	free(tls);
	free(pwfile);
	return ret;
}

int mailconf_load(struct mailconf *c, const char *path, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	struct node *doc = NULL;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->retry = 60;
	c->max_recipients = 100;
	c->smtp.tls = SMTP_TLS_REQUIRED;
	c->smtp.connect_timeout = 10;
	c->smtp.timeout = 60;
	if (!path)
		path = getenv("LKPROBOT_CONFIG");
	bool given = path && *path;
	if (!given)
		path = DEFAULT_PATH;
	if (strbuf_read_file(&text, path)) {
		if (!given && errno == ENOENT) {
			ret = 0;	/* no configuration: the defaults (a dry run with nowhere to go) */
			goto done;
		}
		strbuf_setf(err, "%s: cannot read the configuration: %s", path, strerror(errno));
		goto out;
	}
	c->path = xstrdup(path);
	if (!(doc = yml_load_one(text.buf, path, err)))
		goto out;
	const struct node *m = node_get(doc, "mail");
	if (m && load_map(c, m, err))
		goto out;
	ret = 0;
done:
	if (!c->from)
		c->from = xstrdup("lkprobot <lkprobot@localhost>");
	if (!c->domain)
		c->domain = xstrdup("localhost");
	/* every address must be one mime writes */
	const char *check[] = { c->from, c->operator_ };
	for (int i = 0; !ret && i < 2; i++)
		if (check[i] && mime_check_address(check[i], err)) {
			char *why = strbuf_detach(err);
			strbuf_setf(err, "%s: mail.%s: %s", c->path ? c->path : "defaults", i ? "operator" : "from", why);
			free(why);
			ret = -1;
		}
	c->smtp.url = c->smtp_url;
	c->smtp.user = c->smtp_user;
	c->smtp.password = c->smtp_password;
	c->smtp.ca_file = c->smtp_ca;
out:
	node_free(doc);
	strbuf_release(&text);
	if (ret)
		mailconf_release(c);	/* nothing for the caller to release */
	return ret;
}

void mailconf_release(struct mailconf *c)
{
	free(c->path);
	free(c->operator_);
	free(c->from);
	for (size_t i = 0; i < c->nlists; i++)
		free(c->lists[i]);
	free(c->lists);
	free(c->domain);
	free(c->smtp_url);
	free(c->smtp_user);
	free(c->smtp_password);
	free(c->smtp_ca);
	free(c->dkim_key);
	free(c->dkim_selector);
	free(c->dkim_domain);
	memset(c, 0, sizeof(*c));
}

/*
 * replies: the commands of a reply to a report, its threading and its
 * patch. See replies.h.
 */
#include "replies.h"
#include "mailread.h"
#include "mime.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const replies_verbs[] = { "test", "recheck", "invalid", "fixed-by", "dup", "ack", "wont-fix", NULL };

/* Does verb need an argument, and which ("" none needed)? */
static const char *needs(const char *verb)
{
	if (!strcmp(verb, "fixed-by"))
		return "a commit: #lkprobot fixed-by <commit>";
	if (!strcmp(verb, "dup"))
		return "the report it duplicates: #lkprobot dup <Message-ID or report number>";
	return "";
}

/* Edit distance of a and b, capped (typos are one or two letters off). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la > 30 || lb > 30)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = d[i - 1][j - 1] + (tolower((unsigned char)a[i - 1]) != b[j - 1]);
			size_t del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
			d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
	return d[la][lb];
}

/* One "#lkprobot ..." line (the part after the tag) read into c. */
static void one_command(const char *rest, size_t len, struct reply_command *c)
{
	char *s = xstrndup(rest, len);
	char *w = s + strspn(s, " \t"), *end = w + strcspn(w, " \t");
	char *args = end + strspn(end, " \t");
	size_t al = strlen(args);

	while (al && isspace((unsigned char)args[al - 1]))
		args[--al] = '\0';
	*end = '\0';
	c->args = xstrdup(args);
	for (const char *const *v = replies_verbs; *v && !c->verb; v++)
		if (!strcasecmp(w, *v) || (!strcasecmp(w, "wontfix") && !strcmp(*v, "wont-fix")) ||
		    (!strcasecmp(w, "fixed") && !strcmp(*v, "fixed-by") && !strncasecmp(args, "by ", 3)))
			c->verb = *v;
	if (c->verb && !strcasecmp(w, "fixed")) {
		char *a = xstrdup(args + 3 + strspn(args + 3, " "));
		free(c->args);
		c->args = a;
	}
	if (c->verb && *needs(c->verb) && !*c->args) {
		c->problem = xasprintf("'#lkprobot %s' needs %s; nothing was done", c->verb, needs(c->verb));
		c->verb = NULL;
	} else if (!c->verb) {
		const char *best = NULL;
		size_t bd = 3;
		for (const char *const *v = replies_verbs; *v; v++)
			if (distance(w, *v) < bd)
				bd = distance(w, *v), best = *v;
		struct strbuf known = STRBUF_INIT;
		for (const char *const *v = replies_verbs; *v; v++)
			strbuf_addf(&known, "%s%s", v == replies_verbs ? "" : ", ", *v);
		if (best)
			c->problem = xasprintf(
				"'#lkprobot %s' is no command lkprobot knows; did you mean '#lkprobot %s%s%s'? "
				"Nothing was done: send it again as such (the commands: %s)",
				w, best, *c->args ? " " : "", c->args, known.buf);
		else
			c->problem = xasprintf(
				"'#lkprobot %s' is no command lkprobot knows; nothing was done (the commands: "
				"%s)",
				w, known.buf);
		strbuf_release(&known);
	}
	free(s);
}

/* The command lines of text into r. */
static void commands_of(const char *text, struct reply_mail *r)
{
	for (const char *p = text; p && *p && r->ncmds < REPLIES_MAX_COMMANDS;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len > 9 && !strncasecmp(p, "#lkprobot", 9) && (p[9] == ' ' || p[9] == '\t')) {
			r->cmds = xrealloc(r->cmds, (r->ncmds + 1) * sizeof(*r->cmds));
			struct reply_command *c = &r->cmds[r->ncmds++];
			memset(c, 0, sizeof(*c));
			c->line = xstrndup(p, len - (len && p[len - 1] == '\r'));
			one_command(p + 9, len - 9, c);
		}
		p = nl ? nl + 1 : NULL;
	}
}

/* Each "<id>" of a header's value, in order, onto r->refs (newest_first: reversed). */
static void add_ids(struct reply_mail *r, const char *v, bool newest_first)
{
	size_t at = r->nrefs;

	for (const char *p = v ? strchr(v, '<') : NULL; p; p = strchr(p + 1, '<')) {
		const char *e = strchr(p, '>');
		if (!e || (size_t)(e - p) > 998)
			break;
		char *id = xstrndup(p, (size_t)(e - p + 1));
		bool seen = false;
		for (size_t i = 0; i < r->nrefs; i++)
			seen |= !strcmp(r->refs[i], id);
		if (seen) {
			free(id);
			continue;
		}
		r->refs = xrealloc(r->refs, (r->nrefs + 1) * sizeof(*r->refs));
		if (newest_first) {
			memmove(r->refs + at + 1, r->refs + at, (r->nrefs - at) * sizeof(*r->refs));
			r->refs[at] = id;
		} else {
			r->refs[r->nrefs] = id;
		}
		r->nrefs++;
	}
}

/* The patch: a text part's from its first "diff --git" (up to the signature), else an attachment's. */
static char *patch_of(const struct mailread *m)
{
	for (size_t i = 0; i < m->nparts; i++) {
		const char *t = m->parts[i].data.buf, *d = t ? strstr(t, "diff --git ") : NULL;
		if (!d || (d != t && d[-1] != '\n'))
			continue;
		const char *sig = strstr(d, "\n-- \n");
		return xstrndup(d, sig ? (size_t)(sig - d + 1) : strlen(d));
	}
	return NULL;
}

static bool has_tag(const char *msg, size_t len)
{
	for (size_t i = 0; i + 9 <= len; i++)
		if ((msg[i] == '#') && !strncasecmp(msg + i, "#lkprobot", 9))
			return true;
	return false;
}

size_t replies_parse(const char *msg, size_t len, struct reply_mail *r)
{
	struct mailread m;
	struct strbuf e = STRBUF_INIT;

	memset(r, 0, sizeof(*r));
	if (!msg || !has_tag(msg, len))
		return 0;
	mailread_parse(msg, len, &m);
	if (m.nparts && !m.parts[0].name)
		commands_of(m.parts[0].data.buf, r);
	if (r->ncmds) {
		char *mid = mailread_header(msg, len, "Message-ID"), *irt = mailread_header(msg, len, "In-Reply-To");
		char *refs = mailread_header(msg, len, "References");
		struct reply_mail ids = { 0 };
		add_ids(&ids, mid, false);
		r->message_id = ids.nrefs ? xstrdup(ids.refs[0]) : NULL;
		replies_release(&ids);
		add_ids(r, irt, false);
		add_ids(r, refs, true);
		r->from = mailread_header(msg, len, "From");
		r->from_spec = r->from ? mime_addr_spec(r->from, &e) : NULL;
		r->subject = mailread_header(msg, len, "Subject");
		r->patch = patch_of(&m);
		free(mid);
		free(irt);
		free(refs);
	}
	mailread_release(&m);
	strbuf_release(&e);
	return r->ncmds;
}

void replies_release(struct reply_mail *r)
{
	for (size_t i = 0; i < r->ncmds; i++) {
		free(r->cmds[i].args);
		free(r->cmds[i].line);
		free(r->cmds[i].problem);
	}
	free(r->cmds);
	for (size_t i = 0; i < r->nrefs; i++)
		free(r->refs[i]);
	free(r->refs);
	free(r->message_id);
	free(r->from);
	free(r->from_spec);
	free(r->subject);
	free(r->patch);
	memset(r, 0, sizeof(*r));
}

/*
 * serve_lists: the service's mailing lists, looked at each pass — the
 * archive's new mails read (from where the last pass stopped), each series'
 * state recorded, a complete one applied in serve.series_repo and its head
 * queued like a pushed head (tree: the list's name, branch: the series'),
 * tested against its base by the same workers, its report's url: the
 * branch, in reply to the series' cover letter (serve_series_thread).
 */
#include "serve_int.h"
#include "lists.h"
#include "triage.h"
#include "../lib/store/store.h"
#include "../lib/kernel/git.h"
#include "../mail/mailconf.h"
#include "../mail/mailread.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The store's row of key among rows (NULL: none). */
static const struct node *row_of(const struct node *rows, const char *key)
{
	for (size_t i = 0; rows && i < rows->n; i++) {
		const char *k = node_str(node_get(rows->vals[i], "key"));
		if (k && !strcmp(k, key))
			return rows->vals[i];
	}
	return NULL;
}

static bool same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/*
 * serve.lists[].mail_not_applied: the author of the patch that does not
 * apply gets a one-line notice in reply to it (flow_notice_queue: the
 * mail rules, the outbox; delivered at the end of the pass).
 */
static void notice_not_applied(const struct serve_conf *c, const struct list_conf *l, const struct series *s,
			       const struct lists_applied *a)
{
	const struct series_mail *m = a->failed > 0 && a->failed <= s->total ? s->part[a->failed] : NULL;
	struct strbuf err = STRBUF_INIT, why = STRBUF_INIT;
	struct mailconf mc;

	if (!m || !m->message_id)
		return;
	if (mailconf_load(&mc, c->path, &err)) {
		serve_say("%s: series \"%s\" v%d: no notice to its author: %s", l->name, s->subject, s->version,
			  err.buf);
		strbuf_release(&err);
		return;
	}
	char *to = xasprintf("%s <%s>", m->author_name ? m->author_name : "", m->author_email);
	char *subject = xasprintf("Re: %s", m->subject);
	char *refs = strcmp(m->root, m->message_id) ? xasprintf("%s %s", m->root, m->message_id) : NULL;
	char *text =
		xasprintf("lkprobot could not test this series: %s (the base: %s).", a->why,
			  strcmp(a->base_how, "its base-commit:") ? "the head of the list's branch at the series' date"
								  : "the series' base-commit:");
	char *seed = xasprintf("%s not applied", s->key);
	const struct notice_request rq = { .mc = &mc,
					   .db = c->db,
					   .to = m->author_name && *m->author_name ? to : m->author_email,
					   .subject = subject,
					   .in_reply_to = m->message_id,
					   .references = refs,
					   .seed = seed,
					   .id_time = (time_t)s->date,
					   .text = text };
	enum report_verdict v = flow_notice_queue(&rq, &why);
	serve_say("%s: series \"%s\" v%d: the notice to its author %s%s", l->name, s->subject, s->version,
		  v == REPORT_QUEUED || v == REPORT_DUPLICATE ? "" : "not queued: ", why.buf);
	free(to);
	free(subject);
	free(refs);
	free(text);
	free(seed);
	mailconf_release(&mc);
	strbuf_release(&why);
	strbuf_release(&err);
}

/* A complete series applied, its head queued: the row to record in *ser (its strings owned by a). */
static int apply_series(const struct serve_conf *c, const struct list_conf *l, const struct series *s,
			struct store_series *ser, struct lists_applied *a, struct store *st, struct strbuf *err)
{
	int rc = lists_apply(s, c->series_repo, l->tc->path, l->tc->name, l->branch, l->url, a, err);

	if (rc < 0) {
		serve_say("%s: series \"%s\" v%d: %s (tried again at the next pass)", l->name, s->subject, s->version,
			  err->buf);
		strbuf_reset(err);
		return 1;
	}
	if (rc) {
		ser->state = rc == 1 ? "does not apply" : "refused";
		ser->why = a->why;
		serve_say("%s: series \"%s\" v%d %s: %s", l->name, s->subject, s->version, ser->state, a->why);
		if (rc == 1 && l->mail_not_applied)
			notice_not_applied(c, l, s, a);
		return 0;
	}
	ser->state = "applied";
	ser->branch = a->branch;
	ser->base = a->base;
	ser->head = a->head;
	serve_say("%s: series \"%s\" v%d applied: %s (%d patches on %.12s, %s)", l->name, s->subject, s->version,
		  a->branch, s->total, a->base, a->base_how);
	return store_head_add(st, l->name, a->branch, a->head, a->base, (int64_t)time(NULL), err) < 0 ? -1 : 0;
}

/* One series: applied when complete and not yet, else its state recorded when it changed. */
static int one_series(const struct serve_conf *c, const struct list_conf *l, const struct series *s,
		      const struct node *rows, struct store *st, struct strbuf *err)
{
	const struct node *was = row_of(rows, s->key);
	const char *state = node_str(node_get(was, "state"));
	char *parts = lists_parts(s);
	struct store_series ser = { .list = l->name,
				    .key = s->key,
				    .subject = s->subject ? s->subject : "",
				    .author = s->author_email ? s->author_email : "",
				    .state = series_state_name(s->state),
				    .version = s->version,
				    .why = s->why,
				    .parts = parts,
				    .change_id = s->change_id };
	struct lists_applied a = { 0 };
	int ret = 0;

	/* applied, not applying, refused: done with; a superseded one stays as it was tested */
	if (state && (!strcmp(state, "applied") || !strcmp(state, "does not apply") || !strcmp(state, "refused")))
		goto out;
	if (s->state == SERIES_COMPLETE && (ret = apply_series(c, l, s, &ser, &a, st, err)))
		goto out;
	if (was && same(state, ser.state) && same(node_str(node_get(was, "why")), ser.why))
		goto out;
	if (s->state == SERIES_INCOMPLETE)
		serve_say("%s: series \"%s\" v%d incomplete: %s", l->name, s->subject, s->version, s->why);
	ret = store_series_put(st, &ser, (int64_t)time(NULL), err) < 0 ? -1 : 0;
out:
	ret = ret > 0 ? 0 : ret;
	lists_applied_release(&a);
	free(parts);
	return ret;
}

/*
 * Is the store's row r the same work as s: its thread, b4's change-id: of
 * both, or its subject and author (vN sent anew)?
 */
static bool same_work(const struct node *r, const struct series *s)
{
	const char *key = node_str(node_get(r, "key")), *subject = node_str(node_get(r, "subject"));
	const char *author = node_str(node_get(r, "author")), *cid = node_str(node_get(r, "change_id"));
	size_t n = strcspn(s->key, " ");

	if ((key && !strncmp(key, s->key, n) && key[n] == ' ') || (cid && s->change_id && !strcmp(cid, s->change_id)))
		return true;
	return subject && author && s->subject && s->author_email && !strcmp(subject, s->subject) &&
	       !strcasecmp(author, s->author_email);
}

/*
 * Row r, a series of an earlier pass that s (a later version) supersedes:
 * recorded superseded when it was not tested yet — waiting, incomplete,
 * or applied with its head still to test (queued, or a test a stopped
 * service left under way: no pass tests it while the lists are read), then
 * cancelled: not tested any more. One tested stays as it is. 0, or -1 with
 * err.
 */
static int supersede_row(const struct list_conf *l, const struct node *r, const struct series *s,
			 const struct store_heads *todo, struct store *st, struct strbuf *err)
{
	const char *state = node_str(node_get(r, "state")), *branch = node_str(node_get(r, "branch"));
	const char *head = node_str(node_get(r, "head")), *version = node_str(node_get(r, "version"));
	bool applied = state && !strcmp(state, "applied");
	int64_t now = (int64_t)time(NULL);

	if (!state ||
	    (!applied && strcmp(state, "waiting") && strcmp(state, "incomplete") && strcmp(state, "complete")))
		return 0;
	if (applied) {
		const struct store_head *h = NULL;
		for (size_t i = 0; i < todo->n && !h && branch && head; i++)
			if (!strcmp(todo->v[i].tree, l->name) && !strcmp(todo->v[i].branch, branch) &&
			    !strcmp(todo->v[i].head, head))
				h = &todo->v[i];
		struct strbuf e = STRBUF_INIT;
		int rc = h ? store_head_cancel(st, h->id, now, &e) : 1;
		strbuf_release(&e);
		if (rc)
			return 0; /* tested already, or its test began meanwhile */
	}
	char *why = xasprintf("superseded by v%d, %.*s", s->version, (int)strcspn(s->key, " "), s->key);
	const struct store_series ser = { .list = l->name,
					  .key = node_str(node_get(r, "key")),
					  .subject = node_str(node_get(r, "subject")),
					  .author = node_str(node_get(r, "author")),
					  .state = "superseded",
					  .version = version ? atoi(version) : 0,
					  .why = why,
					  .parts = node_str(node_get(r, "parts")),
					  .base = node_str(node_get(r, "base")),
					  .branch = branch,
					  .head = head };
	int ret = store_series_put(st, &ser, now, err) < 0 ? -1 : 0;
	if (!ret)
		serve_say("%s: series \"%s\" v%d %s%s", l->name, ser.subject, ser.version, why,
			  applied ? ": its head is not tested" : "");
	free(why);
	return ret;
}

/*
 * Versions across passes: a series of this pass that a recorded one of a
 * later version supersedes (sent late) is superseded, and so is a RESEND of
 * a recorded one of its version (unless that one stayed incomplete); a
 * recorded one of an earlier version that one of this pass supersedes, not
 * tested yet, is recorded superseded (supersede_row). The set's own
 * versions are series_set_settle()'s. b4's change-id: ties versions in a
 * pass and across passes (the store keeps each series' change-id).
 */
static int supersede_across(const struct list_conf *l, struct series_set *set, const struct node *rows,
			    struct store *st, struct strbuf *err)
{
	struct store_heads todo = { 0 };
	int ret = store_head_rows(st, true, &todo, err);

	for (size_t k = 0; !ret && k < set->n; k++) {
		struct series *s = &set->v[k];
		for (size_t i = 0; !ret && s->state != SERIES_BROKEN && s->state != SERIES_SUPERSEDED && i < rows->n;
		     i++) {
			const struct node *r = rows->vals[i];
			const char *key = node_str(node_get(r, "key")), *v = node_str(node_get(r, "version"));
			if (!key || !v || series_set_get(set, key) || !same_work(r, s))
				continue;
			if (atoi(v) > s->version) {
				s->state = SERIES_SUPERSEDED;
				free(s->why);
				s->why = xasprintf("superseded by v%s, %.*s", v, (int)strcspn(key, " "), key);
			} else if (atoi(v) < s->version) {
				ret = supersede_row(l, r, s, &todo, st, err);
			} else if (s->resend &&
				   strcmp(node_str(node_get(r, "state")) ? node_str(node_get(r, "state")) : "",
					  "incomplete")) {
				/* a RESEND of what was read already: not applied and tested again */
				s->state = SERIES_SUPERSEDED;
				free(s->why);
				s->why = xasprintf("a RESEND of v%s, read already: %.*s", v, (int)strcspn(key, " "),
						   key);
			}
		}
	}
	store_heads_release(&todo);
	return ret;
}

/*
 * A mail refused (too big, a hostile header or diff) that is a patch, or
 * could not be read to tell: recorded as a series "refused" with why, once
 * — the dashboard shows it. One of a series of the set breaks that series
 * instead (series_set_settle).
 */
static int record_refused(const struct list_conf *l, const struct series_set *set, const struct series_mail *m,
			  const struct node *rows, struct store *st, struct strbuf *err)
{
	char *key = m->root ? xasprintf("%s v%d", m->root, m->version ? m->version : 1) : xstrdup(m->where);
	int ret = 0;

	if (key && !series_set_get(set, key) && !row_of(rows, key) &&
	    (!m->subject || strcasestr(m->subject, "PATCH"))) {
		const struct store_series ser = { .list = l->name,
						  .key = key,
						  .subject = m->title	  ? m->title
							     : m->subject ? m->subject
									  : "",
						  .author = m->author_email ? m->author_email : "",
						  .state = "refused",
						  .version = m->version ? m->version : 1,
						  .why = m->why,
						  .parts = m->where };
		ret = store_series_put(st, &ser, (int64_t)time(NULL), err) < 0 ? -1 : 0;
	}
	free(key);
	return ret;
}

/* A list's new mail: its replies' commands taken (triage.h). */
struct take_arg {
	const struct serve_conf *c;
	const struct list_conf *l;
	struct store *st;
};

static int take_reply(const char *msg, size_t len, const char *where, void *arg, struct strbuf *err)
{
	const struct take_arg *ta = arg;
	char *w = xasprintf("%s %s", ta->l->name, where);
	int rc = triage_take(ta->c, ta->st, msg, len, w, err);

	free(w);
	return rc;
}

int serve_poll_lists(const struct serve_conf *c, struct store *st, struct strbuf *err)
{
	for (size_t i = 0; i < c->nlists; i++) {
		const struct list_conf *l = &c->lists[i];
		struct series_set set = { 0 };
		struct node *rows = NULL;
		size_t nmails = 0;
		int64_t now = (int64_t)time(NULL);
		int ret = 0;

		struct take_arg ta = { c, l, st };
		if (lists_read_each(l->archive, st, l->name, &set, &nmails, now, take_reply, &ta, err)) {
			serve_say("%s: %s (skipped this time)", l->name, err->buf);
			strbuf_reset(err);
		} else {
			series_set_settle(&set, now, c->series_wait);
			if (nmails)
				serve_say("%s: %zu mail%s read: %zu series, %zu ignored, %zu refused", l->name, nmails,
					  nmails == 1 ? "" : "s", set.n, set.ignored, set.nrefused);
			for (size_t r = 0; r < set.nrefused; r++)
				serve_say("%s: mail %s refused: %s", l->name,
					  set.refused[r]->message_id ? set.refused[r]->message_id
								     : set.refused[r]->where,
					  set.refused[r]->why);
			ret = store_series_list(st, l->name, &rows, err) || supersede_across(l, &set, rows, st, err);
			for (size_t r = 0; !ret && r < set.nrefused; r++)
				ret = record_refused(l, &set, set.refused[r], rows, st, err);
			for (size_t k = 0; !ret && k < set.n; k++)
				ret = one_series(c, l, &set.v[k], rows, st, err);
		}
		node_free(rows);
		series_set_release(&set);
		if (ret)
			return -1;
	}
	return 0;
}

char *serve_series_thread(const struct serve_conf *c, const char *tree, const char *branch)
{
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	struct node *rows = NULL;
	char *thread = NULL;
	bool list = false;

	for (size_t i = 0; i < c->nlists && tree; i++)
		list |= !strcmp(c->lists[i].name, tree);
	if (!list || !branch || !(st = store_open(c->db, &err)) || store_series_list(st, tree, &rows, &err)) {
		if (list)
			serve_say("%s %s: %s; the report does not reply to the series", tree, branch, err.buf);
		goto out;
	}
	for (size_t i = 0; i < rows->n && !thread; i++) {
		const char *b = node_str(node_get(rows->vals[i], "branch")),
			   *key = node_str(node_get(rows->vals[i], "key"));
		if (b && key && !strcmp(b, branch) && *key == '<' && strchr(key, '>'))
			thread = xstrndup(key, (size_t)(strchr(key, '>') - key + 1));
	}
out:
	node_free(rows);
	if (st)
		store_close(st);
	strbuf_release(&err);
	return thread;
}

/* Each address of an address-list header (To:, Cc:) split at its commas outside quotes and <>, added to v. */
static void add_header_addrs(const char *h, char ***v, size_t *n)
{
	bool quoted = false;
	int angle = 0;
	const char *start = h;

	for (const char *p = h;; p++) {
		if (*p && (quoted || angle || *p != ',')) {
			quoted ^= *p == '"';
			angle += !quoted && *p == '<' ? 1 : !quoted && *p == '>' && angle ? -1 : 0;
			continue;
		}
		while (start < p && (*start == ' ' || *start == '\t'))
			start++;
		size_t len = (size_t)(p - start);
		while (len && (start[len - 1] == ' ' || start[len - 1] == '\t'))
			len--;
		if (len) {
			*v = xrealloc(*v, (*n + 2) * sizeof(**v));
			(*v)[(*n)++] = xstrndup(start, len);
			(*v)[*n] = NULL;
		}
		if (!*p)
			return;
		start = p + 1;
	}
}

/* The To: and Cc: of the mail at where (of the list at archive) when it is the cover or patch index. */
static void mail_people(const char *archive, const char *where, int index, char ***v, size_t *n)
{
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT;
	struct series_mail m = { 0 };

	if (!lists_mail_at(archive, where, &msg, &err)) {
		series_mail_parse(msg.buf, msg.len, &m);
		if (m.kind == SERIES_COVER || (m.kind == SERIES_PATCH && m.index == index))
			for (int h = 0; h < 2; h++) {
				char *s = mailread_header(msg.buf, msg.len, h ? "Cc" : "To");
				if (s)
					add_header_addrs(s, v, n);
				free(s);
			}
		series_mail_release(&m);
	} else {
		serve_say("%s: %s: %s (its people are not copied)", archive, where, err.buf);
	}
	strbuf_release(&msg);
	strbuf_release(&err);
}

/* Which patch of the series (1..n) culprit is: its place after base; 0 when not known. */
static int patch_index(const char *repo, const char *base, const char *culprit)
{
	struct strbuf err = STRBUF_INIT;
	struct gitrepo *r = NULL;
	struct gitrepo_range g = { 0 };
	int index = 0;

	if (base && !gitrepo_open(&r, repo, &err) && !gitrepo_range(r, base, culprit, true, &g, &err)) {
		index = (int)g.n;
		gitrepo_range_release(&g);
	}
	if (r)
		gitrepo_close(r);
	strbuf_release(&err);
	return index;
}

char **serve_series_cc(const struct serve_conf *c, const char *tree, const char *branch, const char *culprit)
{
	const struct list_conf *l = NULL;
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	struct node *rows = NULL;
	char **v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->nlists && tree && !l; i++)
		l = !strcmp(c->lists[i].name, tree) ? &c->lists[i] : NULL;
	if (!l || !branch || !culprit)
		return NULL;
	v = xcalloc(1, sizeof(*v));
	if (l->address)
		add_header_addrs(l->address, &v, &n);
	if (!(st = store_open(c->db, &err)) || store_series_list(st, tree, &rows, &err))
		goto out;
	for (size_t i = 0; i < rows->n; i++) {
		const char *b = node_str(node_get(rows->vals[i], "branch"));
		const char *parts = node_str(node_get(rows->vals[i], "parts"));
		if (!b || strcmp(b, branch) || !parts)
			continue;
		int index = patch_index(c->series_repo, node_str(node_get(rows->vals[i], "base")), culprit);
		char *dup = xstrdup(parts);
		for (char *save = NULL, *w = strtok_r(dup, " ", &save); w; w = strtok_r(NULL, " ", &save))
			mail_people(l->archive, w, index, &v, &n);
		free(dup);
		break;
	}
out:
	if (err.len)
		serve_say("%s %s: %s; the report copies only the list", tree, branch, err.buf);
	node_free(rows);
	if (st)
		store_close(st);
	strbuf_release(&err);
	return v;
}

/* Does the mail at where (of the list at archive) carry a base-commit: that base (a full id) starts with? */
static bool names_base(const char *archive, const char *where, const char *base)
{
	struct strbuf msg = STRBUF_INIT, err = STRBUF_INIT;
	struct series_mail m = { 0 };
	bool yes = false;

	if (!lists_mail_at(archive, where, &msg, &err)) {
		series_mail_parse(msg.buf, msg.len, &m);
		yes = m.base_commit && strlen(m.base_commit) >= 7 &&
		      !strncmp(base, m.base_commit, strlen(m.base_commit));
		series_mail_release(&m);
	}
	strbuf_release(&msg);
	strbuf_release(&err);
	return yes;
}

char *serve_series_base(const struct serve_conf *c, const char *tree, const char *branch)
{
	const struct list_conf *l = NULL;
	struct strbuf err = STRBUF_INIT;
	struct store *st = NULL;
	struct node *rows = NULL;
	char *line = NULL;

	for (size_t i = 0; i < c->nlists && tree && !l; i++)
		l = !strcmp(c->lists[i].name, tree) ? &c->lists[i] : NULL;
	if (!l || !branch || !(st = store_open(c->db, &err)) || store_series_list(st, tree, &rows, &err))
		goto out;
	for (size_t i = 0; i < rows->n && !line; i++) {
		const char *b = node_str(node_get(rows->vals[i], "branch"));
		const char *parts = node_str(node_get(rows->vals[i], "parts"));
		const char *base = node_str(node_get(rows->vals[i], "base"));
		if (!b || strcmp(b, branch) || !base)
			continue;
		bool named = false;
		char *dup = xstrdup(parts ? parts : "");
		for (char *save = NULL, *w = strtok_r(dup, " ", &save); w && !named; w = strtok_r(NULL, " ", &save))
			named = names_base(l->archive, w, base);
		free(dup);
		line = named ? xasprintf("base: the series' base-commit: %s", base)
			     : xasprintf("base: the head of %s at the mail's date: %s", l->branch, base);
	}
out:
	if (err.len)
		serve_say("%s %s: %s; the report does not say its base", tree, branch, err.buf);
	node_free(rows);
	if (st)
		store_close(st);
	strbuf_release(&err);
	return line;
}

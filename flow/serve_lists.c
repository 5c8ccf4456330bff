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
#include "../mail/mailread.h"

#include <stdlib.h>
#include <string.h>
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
				    .parts = parts };
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
			ret = store_series_list(st, l->name, &rows, err);
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

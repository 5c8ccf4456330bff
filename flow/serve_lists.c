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
#include "../lib/store/store.h"

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

int serve_poll_lists(const struct serve_conf *c, struct store *st, struct strbuf *err)
{
	for (size_t i = 0; i < c->nlists; i++) {
		const struct list_conf *l = &c->lists[i];
		struct series_set set = { 0 };
		struct node *rows = NULL;
		size_t nmails = 0;
		int64_t now = (int64_t)time(NULL);
		int ret = 0;

		if (lists_read(l->archive, st, l->name, &set, &nmails, now, err)) {
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

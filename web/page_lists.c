/*
 * page_lists: the store's lists as pages — every bisection, every report
 * mail (as /reports and, JSON only, as /outbox), every head and every
 * machine, each row as the overview shows it; a mailing list's patch
 * series (JSON only: /api/series?list=NAME). See pagekit.h.
 */
#include "pagekit.h"
#include "../lib/store/store.h"

static int bisections_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const struct node *list = page_bisections(c, err);

	(void)a;
	if (!list)
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, page_bisection_row(c, list->vals[i]));
	return 200;
}

static void bisections_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	(void)env;
	strbuf_addstr(&doc->title, "bisections");
	page_bisections_html(&doc->body, d);
}

const struct page_def page_def_bisections = {
	.name = "bisections",
	.nav = "bisections",
	.list = true,
	.data = bisections_data,
	.html = bisections_html,
};

static int mails_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const struct node *list = page_mails(c, err);

	(void)a;
	if (!list)
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, node_dup(list->vals[i]));
	return 200;
}

static void mails_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	(void)env;
	strbuf_addstr(&doc->title, "report mails");
	page_mails_html(&doc->body, d, true);
}

const struct page_def page_def_reports = {
	.name = "reports",
	.nav = "mails",
	.list = true,
	.data = mails_data,
	.html = mails_html,
};

const struct page_def page_def_outbox = {
	.name = "outbox",
	.list = true,
	.data = mails_data,
};

static int heads_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const struct node *list = page_heads(c, err);

	(void)a;
	if (!list)
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, page_head_row(c, list->vals[i], false));
	return 200;
}

const struct page_def page_def_heads = {
	.name = "heads",
	.list = true,
	.data = heads_data,
};

static int machines_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	struct node *list;

	(void)a;
	if (store_machines(c->s, &list, err))
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, node_dup(list->vals[i]));
	node_free(list);
	return 200;
}

const struct page_def page_def_machines = {
	.name = "machines",
	.list = true,
	.data = machines_data,
};

/* A mailing list's series as the store records them: subject, version, author, state, why, branch, base, head. */
static int series_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const char *list = page_arg(a, "list");
	struct node *rows = NULL;

	if (!list) {
		strbuf_setf(err, "give ?list=NAME (a list of serve.lists)");
		return 400;
	}
	if (store_series_list(c->s, list, &rows, err))
		return 500;
	for (size_t i = 0; i < rows->n; i++)
		node_push(out, node_dup(rows->vals[i]));
	node_free(rows);
	return 200;
}

const struct page_def page_def_series = {
	.name = "series",
	.list = true,
	.query = "?list=NAME",
	.data = series_data,
};

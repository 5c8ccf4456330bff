/*
 * page_lists: the store's lists as pages — every bisection, every report
 * mail (as /reports, newest first, and, JSON only, as /outbox, oldest
 * first), every head and every
 * machine, each row as the overview shows it, a page at a time
 * (?limit=&after=: paging.h). See pagekit.h.
 */
#include "pagekit.h"
#include "../lib/store/store.h"
#include "../lib/util/paging.h"

/* The page ?limit=&after= asks of the rows in out (after: a row's key), in place: 200, or 400 with err. */
static int window(struct node *out, const struct page_args *a, const char *key, struct strbuf *err)
{
	long limit;

	if (paging_limit("limit", page_arg(a, "limit"), &limit, err) ||
	    paging_window(out, key, "after", page_arg(a, "after"), limit, err))
		return 400;
	return 200;
}

static int bisections_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	const struct node *list = page_bisections(c, err);

	if (!list)
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, page_bisection_row(c, list->vals[i]));
	return window(out, a, "id", err);
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
	.key = "id",
	.data = bisections_data,
	.html = bisections_html,
	.reads = STORE_READS(STORE_TOPIC_BISECTIONS) | STORE_READS(STORE_TOPIC_HEADS) | STORE_READS(STORE_TOPIC_OUTBOX),
};

/* The mails, oldest first (/outbox: the queue's order) or newest first (/reports: what a reader wants first). */
static int mails_in_order(struct page_ctx *c, const struct page_args *a, bool newest_first, struct node *out,
			  struct strbuf *err)
{
	const struct node *list = page_mails(c, err);

	if (!list)
		return 500;
	for (size_t k = 0; k < list->n; k++)
		node_push(out, node_dup(list->vals[newest_first ? list->n - 1 - k : k]));
	return window(out, a, "id", err);
}

static int mails_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	return mails_in_order(c, a, false, out, err);
}

/* /reports: newest first, so that its first page has the newest mails and ?after= goes back in time */
static int reports_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	return mails_in_order(c, a, true, out, err);
}

static void mails_html(const struct page_env *env, const struct node *d, struct page_doc *doc)
{
	(void)env;
	strbuf_addstr(&doc->title, "report mails");
	page_mails_html(&doc->body, d, false); /* in the data's order: newest first */
}

const struct page_def page_def_reports = {
	.name = "reports",
	.nav = "mails",
	.list = true,
	.key = "id",
	.data = reports_data,
	.html = mails_html,
	.reads = STORE_READS(STORE_TOPIC_OUTBOX),
};

const struct page_def page_def_outbox = {
	.name = "outbox",
	.list = true,
	.key = "id",
	.data = mails_data,
	.reads = STORE_READS(STORE_TOPIC_OUTBOX),
};

static int heads_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	struct node *list;
	long limit;
	long long after;

	/* a page of the store's heads, on its primary key: not all of them read to answer a few */
	if (paging_limit("limit", page_arg(a, "limit"), &limit, err) ||
	    paging_after_id("after", page_arg(a, "after"), &after, err))
		return 400;
	if (store_heads_page(c->s, after, limit, &list, err))
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, page_head_row(c, list->vals[i], false));
	node_free(list);
	return 200;
}

const struct page_def page_def_heads = {
	.name = "heads",
	.list = true,
	.key = "id",
	.data = heads_data,
	.reads = STORE_READS(STORE_TOPIC_HEADS) | STORE_READS(STORE_TOPIC_BISECTIONS) | STORE_READS(STORE_TOPIC_OUTBOX),
};

static int machines_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err)
{
	struct node *list;

	if (store_machines(c->s, &list, err))
		return 500;
	for (size_t i = 0; i < list->n; i++)
		node_push(out, node_dup(list->vals[i]));
	node_free(list);
	return window(out, a, "name", err);
}

const struct page_def page_def_machines = {
	.name = "machines",
	.list = true,
	.key = "name",
	.data = machines_data,
	.reads = STORE_READS(STORE_TOPIC_RUNS) | STORE_READS(STORE_TOPIC_BOXES),
};

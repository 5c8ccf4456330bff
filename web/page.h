/*
 * page (prefix page_): the dashboard's pages, each made twice from the same
 * data — the data first, as a node tree that /api/<page> returns as JSON,
 * then the HTML page rendered from that tree, so the page and the API can
 * never disagree. route.c does HTTP (routing, headers, actions); these
 * files read the store and the watched trees and write text (html.h).
 * Everything from commits, jobs, results and mails is escaped on the way
 * into HTML.
 *
 *   pagekit.c       what they share (pagekit.h): states, the lists of heads, bisections, mails
 *   page.c          the table of pages
 *   page_overview.c the overview: per tree and branch, the queue, bisections, mails, machines
 *   page_commit.c   a commit (of a watched tree, measured or not), compare
 *   page_history.c  a metric over commits, one series a tree
 *   page_bisect.c   a bisection, and the states of heads and bisections
 *   page_report.c   a report mail as its reader sees it, its attachments
 */
#ifndef LKP_WEB_PAGE_H
#define LKP_WEB_PAGE_H

#include "pagekit.h"

#include <stdbool.h>

/*
 * The data of page `name` ("" or "overview", "commit", "compare",
 * "history", "bisections", "reports", "heads", "outbox", "machines") into
 * *out. Returns an HTTP status: 200 with *out set, or 400/404/500 with one
 * line in err.
 */
int page_data(const struct page_env *env, const char *name, const struct page_args *a, struct node **out,
	      struct strbuf *err);

/* Does page `name` show more than the store (the farm's boxes now): never kept in the cache? */
bool page_live(const struct page_env *env, const char *name);

/* The HTML page of `name` from its data; false when the page is JSON only. */
bool page_html(const struct page_env *env, const char *name, const struct page_args *a, const struct node *data,
	       struct strbuf *out);

/*
 * Attachment n (1 = the first after the text) of report mail `id`, decoded:
 * its bytes into body, its type and name. An HTTP status as page_data.
 */
int page_attachment(const struct page_env *env, const char *id, const char *n, struct strbuf *body, char **type,
		    char **name, struct strbuf *err);

/* Pages of the other files, into out (a map), with the status page_data returns. */
int page_overview_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err);
void page_overview_html(const struct page_env *env, const struct node *d, struct strbuf *b);
int page_commit_data(struct page_ctx *c, const char *name, struct node *out, struct strbuf *err);
void page_commit_html(const struct page_env *env, const struct node *d, struct strbuf *b);
int page_compare_data(struct page_ctx *c, const char *base, const char *commit, bool all, struct node *out,
		      struct strbuf *err);
void page_compare_html(const struct node *d, struct strbuf *b);
/* A compare's rows as a table (links to the metric's history when job is known), and the plots. */
void page_compare_rows(struct strbuf *b, const struct node *rows, bool plots, const char *job);
int page_history_data(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err);
void page_history_html(const struct node *d, struct strbuf *b);
int page_bisection_data(struct page_ctx *c, const char *rest, struct node *out, struct strbuf *err);
void page_bisection_html(const struct node *d, struct strbuf *b);
int page_report_data(struct page_ctx *c, const char *rest, struct node *out, struct strbuf *err);
void page_report_html(const struct page_env *env, const struct node *d, struct strbuf *b);

#endif

/*
 * page (prefix page_): the dashboard's pages, each made twice from the same
 * data — the data first, as a node tree that /api/<page> returns as JSON,
 * then the HTML page rendered from that tree, so the page and the API can
 * never disagree. web.c does HTTP (routing, headers, actions); this file
 * reads the store and writes text. Everything from commits, jobs, results
 * and mails is escaped on the way into HTML.
 */
#ifndef LKP_WEB_PAGE_H
#define LKP_WEB_PAGE_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>

/* What a request names: the part of the path after the page, and query arguments (NULL: absent). */
struct page_args {
	const char *rest;		/* /commit/<rest>, /bisections/<rest>, /reports/<rest> */
	const char *base, *commit;	/* compare */
	const char *testcase, *path_params, *metric, *tbox_group;	/* history */
};

struct page_env {
	const char *db;			/* the store */
	const char *root;		/* the result root /runs/ serves (a real path) */
	bool actions;			/* a token is configured: show the action forms */
	bool farm;			/* the overview asks Slurm for the farm's boxes */
};

/*
 * The data of page `name` ("", "commit", "compare", "history",
 * "bisections", "reports", "heads", "outbox") into *out. Returns an HTTP
 * status: 200 with *out set, or 400/404/500 with one line in err.
 */
int page_data(const struct page_env *env, const char *name, const struct page_args *a, struct node **out,
	      struct strbuf *err);

/* The HTML page of `name` from its data; false when the page is JSON only. */
bool page_html(const struct page_env *env, const char *name, const struct page_args *a, const struct node *data,
	       struct strbuf *out);

/* The HTML document around a page: title, navigation, styles; and its end. */
void page_head(struct strbuf *b, const char *title, bool refresh);
void page_foot(struct strbuf *b);

/* Append s with &, <, >, " and ' as HTML entities. */
void page_escape(struct strbuf *out, const char *s);

#endif

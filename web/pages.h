/*
 * pages (prefix pages_): the table of the dashboard's pages and what is
 * made from it. Each page is made twice from the same data — the data
 * first, as a node tree that /api/<page> returns as JSON, then the HTML
 * page rendered from that tree, so the page and the API can never
 * disagree. A page is one row (a struct page_def of pagekit.h, defined in
 * its file web/page_<name>.c); from the rows come which page a path names,
 * the navigation bar of every page and the API's index. route.c does HTTP
 * (routing, headers, the cache, actions) and asks this table. The pages
 * (web/page_*.c, each opening with what it shows) are made with
 * pagekit.h and know neither this table nor each other.
 */
#ifndef LKP_WEB_PAGES_H
#define LKP_WEB_PAGES_H

#include "pagekit.h"

#include <stdbool.h>

/*
 * The data of page `name` ("" is the home page) with what follows it
 * (a->rest) into *out. Returns an HTTP status: 200 with *out set, or
 * 400/404/500 with one line in err.
 */
int pages_data(const struct page_env *env, const char *name, const struct page_args *a, struct node **out,
	       struct strbuf *err);

/* Does page `name` show more than the store (the farm's boxes now): never kept in the cache? */
bool pages_live(const struct page_env *env, const char *name);

/* What of the store page `name` (with rest after it: NULL, none) reads: STORE_READS() bits (store.h). */
unsigned pages_reads(const char *name, const char *rest);

/* The HTML page of `name` from its data, in the site's frame; false when the page is JSON only. */
bool pages_html(const struct page_env *env, const char *name, const struct page_args *a, const struct node *data,
		struct strbuf *out);

/* Has page `name` files under it: /<name>/<rest>/N[/NAME]? */
bool pages_has_files(const char *name);
/*
 * File n (1 = the first) under /<name>/<rest>/ (a report mail's
 * attachment), decoded: its bytes into body, its type and name. An HTTP
 * status as pages_data.
 */
int pages_file(const struct page_env *env, const char *name, const char *rest, const char *n, struct strbuf *body,
	       char **type, char **fname, struct strbuf *err);

/*
 * The document around a page (html_head) with the site's navigation bar:
 * the pages that have a title there, then the result roots and the API's
 * index. html_foot closes it.
 */
void pages_head(struct strbuf *b, const char *title, int refresh);

/*
 * The API index's entries, each as a JSON string after ", ": the pages'
 * paths (/api/<name>[/<rest>][<query>]), or, when files, their files
 * (/<name>/<rest>/N/NAME).
 */
void pages_index(struct strbuf *b, bool files);

#endif

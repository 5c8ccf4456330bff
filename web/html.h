/*
 * html (prefix html_): the HTML every dashboard page is written with —
 * escaping for text, attributes and URLs, the document around a page
 * (which links the stylesheet and the icon, never inline styles or
 * scripts: the pages are served under a CSP that forbids both), table
 * cells, links to commits, times and p-values. The stylesheet and the icon
 * are here too, compiled in. No store, no HTTP: page*.c, svg.c and httpd.c
 * all write through it.
 */
#ifndef LKP_WEB_HTML_H
#define LKP_WEB_HTML_H

#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* The stylesheet (/static/style.css) and the icon (/favicon.svg, /favicon.ico), as served. */
extern const char html_css[];
extern const char html_favicon[];

/* Append s with &, <, >, " and ' as HTML entities (for text and attribute values). */
void html_escape(struct strbuf *out, const char *s);
/* Append s percent-encoded for a URL's path segment or query value. */
void html_url_escape(struct strbuf *out, const char *s);
/* Append a path's parts each as "/" and the part percent-encoded (empty parts dropped): "/a%20b/c". */
void html_path_escape(struct strbuf *out, const char *path);

/*
 * The document around a page: title, stylesheet, icon, the navigation bar
 * (the site's name, then nav: its links, HTML) and the <h1>; refresh > 0
 * makes it reload itself that often (seconds: live progress without
 * JavaScript). html_foot closes it.
 */
void html_head(struct strbuf *b, const char *title, int refresh, const char *nav);
void html_foot(struct strbuf *b);

/* <td>text</td>, escaped; with a class when cls is not NULL. */
void html_td(struct strbuf *b, const char *s);
void html_td_class(struct strbuf *b, const char *cls, const char *s);
/* A number as the compare tables write it, right-aligned; empty when not finite. */
void html_td_num(struct strbuf *b, double v);
/* A time (seconds since the epoch) as "2024-02-01 12:34 UTC"; empty when not positive. */
void html_time(struct strbuf *b, double t);
void html_td_time(struct strbuf *b, double t);
/*
 * A p-value as a reader should see it: "< 0.001" below that, two
 * significant digits above, "—" when undefined (never "0.00").
 */
void html_pvalue(struct strbuf *b, double p);

/* <a href="/commit/ID"><code>ID12</code></a>, nothing for an empty id; and the subject after it when not empty. */
void html_commit_link(struct strbuf *b, const char *id);
void html_commit_subject(struct strbuf *b, const char *id, const char *subject);
/* <a href="/PAGE/ID">text</a>, the id URL-escaped, the text HTML-escaped. */
void html_link(struct strbuf *b, const char *page, const char *id, const char *text);
/* /compare?base=A&amp;commit=B as an href value. */
void html_compare_href(struct strbuf *b, const char *base, const char *commit);

#endif

/*
 * pages: the table of pages — one row a page, its struct page_def in its
 * file — and what is made from it: dispatch, the navigation bar, the API
 * index. See pages.h.
 */
#include "pages.h"
#include "html.h"
#include "../lib/util/json.h"
#include "../lib/util/paging.h"
#include "../lib/store/store.h"

#include <string.h>

/*
 * The table, in the order of the navigation bar and the API index: one row
 * a page, defined in its file web/page_<name>.c.
 */
/* clang-format off */
#define PAGES(X) \
	X(page_def_overview) \
	X(page_def_regressions) \
	X(page_def_bisections) \
	X(page_def_bisection) \
	X(page_def_reports) \
	X(page_def_report) \
	X(page_def_outbox) \
	X(page_def_heads) \
	X(page_def_series) \
	X(page_def_machines) \
	X(page_def_commit) \
	X(page_def_compare) \
	X(page_def_history)
/* clang-format on */

#define DECLARE(def) extern const struct page_def def;
PAGES(DECLARE)
#undef DECLARE
#define ROW(def) &def,
static const struct page_def *const table[] = { PAGES(ROW) };
#undef ROW
#define NPAGES (sizeof(table) / sizeof(*table))

static bool named(const struct page_def *p, const char *name)
{
	return !strcmp(p->name, name) || (p->home && !*name);
}

/* What follows a page's name, NULL when nothing does ("/commit/" has nothing after it). */
static const char *rest_of(const struct page_args *a)
{
	return a->rest && *a->rest ? a->rest : NULL;
}

/* The row a request names: name's that takes what follows the name (rest), or that takes nothing when none does. */
static const struct page_def *find(const char *name, const char *rest)
{
	for (size_t i = 0; i < NPAGES; i++)
		if (named(table[i], name) && !table[i]->rest == !rest)
			return table[i];
	/* a page that wants what follows its name, asked without it: its data says what is missing */
	for (size_t i = 0; !rest && i < NPAGES; i++)
		if (named(table[i], name))
			return table[i];
	return NULL;
}

bool pages_live(const struct page_env *env, const char *name)
{
	for (size_t i = 0; env->ninventories && i < NPAGES; i++)
		if (named(table[i], name) && table[i]->live)
			return true;
	return false;
}

unsigned pages_reads(const char *name, const char *rest)
{
	const struct page_def *p = find(name, rest && *rest ? rest : NULL);

	return p && p->reads ? p->reads : STORE_READS_ALL;
}

int pages_data(const struct page_env *env, const char *name, const struct page_args *a, struct node **out,
	       struct strbuf *err)
{
	struct page_args pa = *a;
	const struct page_def *p = find(name, pa.rest = rest_of(a));
	struct page_ctx c;
	int code = 404;

	*out = NULL;
	if (!p && pa.rest) {
		/* nothing may follow this name; a name without a rest is looked up with the store open (500 when it cannot) */
		strbuf_setf(err, "no such page");
		return 404;
	}
	if (page_ctx_open(&c, env, err))
		return 500;
	struct node *d = node_new(p && p->list ? NODE_SEQ : NODE_MAP);
	if (p)
		code = p->data(&c, &pa, d, err);
	else
		strbuf_setf(err, "no such page");
	page_ctx_close(&c);
	if (code != 200) {
		node_free(d);
		return code;
	}
	*out = d;
	return 200;
}

/* A list page as long as its limit: a link to the page after its last row (?after=KEY). */
static void next_page(struct strbuf *out, const struct page_def *p, const struct page_args *a, const struct node *d)
{
	long limit;
	struct strbuf e = STRBUF_INIT;

	if (p->list && p->key && d && d->n && !paging_limit("limit", page_arg(a, "limit"), &limit, &e) &&
	    d->n >= (size_t)limit && node_str(node_get(d->vals[d->n - 1], p->key))) {
		strbuf_addf(out, "<p class=\"next\"><a href=\"/%s?limit=%ld&amp;after=", p->name, limit);
		html_url_escape(out, node_str(node_get(d->vals[d->n - 1], p->key)));
		strbuf_addstr(out, "\">next page</a></p>\n");
	}
	strbuf_release(&e);
}

bool pages_html(const struct page_env *env, const char *name, const struct page_args *a, const struct node *data,
		struct strbuf *out)
{
	const struct page_def *p = find(name, rest_of(a));
	struct page_doc doc = { STRBUF_INIT, 0, STRBUF_INIT };

	if (!p || !p->html)
		return false;
	p->html(env, data, &doc);
	pages_head(out, doc.title.buf, doc.refresh);
	strbuf_add(out, doc.body.buf, doc.body.len);
	next_page(out, p, a, data);
	html_foot(out);
	strbuf_release(&doc.title);
	strbuf_release(&doc.body);
	return true;
}

bool pages_has_files(const char *name)
{
	for (size_t i = 0; i < NPAGES; i++)
		if (named(table[i], name) && table[i]->file)
			return true;
	return false;
}

int pages_file(const struct page_env *env, const char *name, const char *rest, const char *n, struct strbuf *body,
	       char **type, char **fname, struct strbuf *err)
{
	for (size_t i = 0; i < NPAGES; i++)
		if (named(table[i], name) && table[i]->file)
			return table[i]->file(env, rest, n, body, type, fname, err);
	strbuf_setf(err, "no such page");
	return 404;
}

void pages_head(struct strbuf *b, const char *title, int refresh)
{
	struct strbuf nav = STRBUF_INIT;

	for (size_t i = 0; i < NPAGES; i++) {
		if (!table[i]->nav)
			continue;
		strbuf_addf(&nav, "<a href=\"/%s\">", table[i]->home ? "" : table[i]->name);
		html_escape(&nav, table[i]->nav);
		strbuf_addstr(&nav, "</a>");
	}
	/* and what is not a page: the result roots' files, the API's index */
	strbuf_addstr(&nav, "<a href=\"/runs/\">result roots</a><a href=\"/api/\">JSON</a>");
	html_head(b, title, refresh, nav.buf);
	strbuf_release(&nav);
}

void pages_index(struct strbuf *b, bool files)
{
	struct strbuf e = STRBUF_INIT;

	for (size_t i = 0; i < NPAGES; i++) {
		const struct page_def *p = table[i];
		if (files && !p->file)
			continue;
		strbuf_reset(&e);
		strbuf_addf(&e, files ? "/%s" : "/api/%s", p->name);
		if (p->rest)
			strbuf_addf(&e, "/%s", p->rest);
		if (files)
			strbuf_addstr(&e, "/N/NAME");
		else if (p->query)
			strbuf_addstr(&e, p->query);
		strbuf_addstr(b, ", ");
		json_emit_string(b, e.buf);
	}
	strbuf_release(&e);
}

/*
 * page: the table of pages — which page a name is, its data and its HTML.
 * See page.h.
 */
#include "page.h"
#include "html.h"
#include "../lib/kernel/git.h"
#include "../lib/store/store.h"

#include <stdlib.h>
#include <string.h>

/* The pages that take nothing after their name. */
static bool takes_rest(const char *name)
{
	return !strcmp(name, "commit") || !strcmp(name, "bisections") || !strcmp(name, "reports");
}

bool page_live(const struct page_env *env, const char *name)
{
	return env->ninventories && (!*name || !strcmp(name, "overview"));
}

int page_data(const struct page_env *env, const char *name, const struct page_args *a, struct node **out,
	      struct strbuf *err)
{
	struct page_ctx c = { .env = env };
	const char *rest = a->rest && *a->rest ? a->rest : NULL;
	int code = 404;

	*out = NULL;
	if (rest && !takes_rest(name)) {
		strbuf_setf(err, "no such page");
		return 404;
	}
	if (!(c.s = store_open(env->db, err)))
		return 500;
	c.repos = xcalloc(env->ntrees + 1, sizeof(*c.repos));
	c.repo_tried = xcalloc(env->ntrees + 1, sizeof(*c.repo_tried));
	c.commits = node_new(NODE_MAP);
	struct node *d = node_new(NODE_MAP);
	const struct node *list;
	if (!strcmp(name, "") || !strcmp(name, "overview")) {
		code = page_overview_data(&c, a, d, err);
	} else if (!strcmp(name, "commit")) {
		code = page_commit_data(&c, rest, d, err);
	} else if (!strcmp(name, "compare")) {
		code = page_compare_data(&c, page_arg(a, "base"), page_arg(a, "commit"), false, d, err);
	} else if (!strcmp(name, "history")) {
		code = page_history_data(&c, a, d, err);
	} else if (!strcmp(name, "bisections") && rest) {
		code = page_bisection_data(&c, rest, d, err);
	} else if (!strcmp(name, "bisections")) {
		code = 500;
		if ((list = page_bisections(&c, err))) {
			node_free(d);
			d = node_new(NODE_SEQ);
			for (size_t i = 0; i < list->n; i++)
				node_push(d, page_bisection_row(&c, list->vals[i]));
			code = 200;
		}
	} else if (!strcmp(name, "reports") && rest) {
		code = page_report_data(&c, rest, d, err);
	} else if (!strcmp(name, "reports") || !strcmp(name, "outbox")) {
		code = 500;
		if ((list = page_mails(&c, err))) {
			node_free(d);
			d = node_dup(list);
			code = 200;
		}
	} else if (!strcmp(name, "heads")) {
		code = 500;
		if ((list = page_heads(&c, err))) {
			node_free(d);
			d = node_new(NODE_SEQ);
			for (size_t i = 0; i < list->n; i++)
				node_push(d, page_head_row(&c, list->vals[i], false));
			code = 200;
		}
	} else if (!strcmp(name, "machines")) {
		node_free(d);
		code = store_machines(c.s, &d, err) ? 500 : 200;
	} else {
		strbuf_setf(err, "no such page");
	}
	for (size_t i = 0; i < env->ntrees; i++)
		gitrepo_close(c.repos[i]);
	free(c.repos);
	free(c.repo_tried);
	node_free(c.commits);
	node_free(c.mails);
	node_free(c.heads);
	node_free(c.bisections);
	store_close(c.s);
	if (code != 200) {
		node_free(d);
		return code;
	}
	*out = d;
	return 200;
}

bool page_html(const struct page_env *env, const char *name, const struct page_args *a, const struct node *data,
	       struct strbuf *out)
{
	bool rest = a->rest && *a->rest;

	if (!strcmp(name, "") || !strcmp(name, "overview")) {
		page_overview_html(env, data, out);
	} else if (!strcmp(name, "commit")) {
		page_commit_html(env, data, out);
	} else if (!strcmp(name, "compare")) {
		page_compare_html(data, out);
	} else if (!strcmp(name, "history")) {
		page_history_html(data, out);
	} else if (!strcmp(name, "bisections") && rest) {
		page_bisection_html(data, out);
	} else if (!strcmp(name, "bisections")) {
		html_head(out, "bisections", 0);
		page_bisections_html(out, data);
		html_foot(out);
	} else if (!strcmp(name, "reports") && rest) {
		page_report_html(env, data, out);
	} else if (!strcmp(name, "reports")) {
		html_head(out, "report mails", 0);
		page_mails_html(out, data, true);
		html_foot(out);
	} else {
		return false;
	}
	return true;
}

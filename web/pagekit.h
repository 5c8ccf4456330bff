/*
 * pagekit (prefix page_): what every dashboard page is made with — the
 * request (its query arguments, the store, the watched trees' repositories
 * opened when first needed), the commits of the watched trees, the store's
 * lists read once a request, the honest states of heads and bisections,
 * and the tables and badges more than one page shows; what a page is
 * (struct page_def). It knows no page: the pages (page_*.c) use it, the
 * table of pages (pages.c) dispatches to them. Store rows are maps of text (page_get); everything that comes from
 * commits, jobs, results and mails is escaped on the way into HTML.
 */
#ifndef LKP_WEB_PAGEKIT_H
#define LKP_WEB_PAGEKIT_H

#include "web.h"
#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <sys/types.h>

/* What a request names: the part of the path after the page, and its query arguments. */
struct page_args {
	const char *rest; /* /commit/<rest>, /bisections/<rest>, /reports/<rest>; NULL: none */
	size_t n;
	const char *const *keys, *const *vals;
};

/* The value of query argument key, NULL when absent or empty. */
const char *page_arg(const struct page_args *a, const char *key);

struct page_env {
	const char *db;				 /* the store */
	const char *root;			 /* the result root /runs/ serves (a real path) */
	bool actions;				 /* a token is configured: show the action forms */
	const struct web_inventory *inventories; /* the overview asks them for their boxes */
	size_t ninventories;
	const struct web_tree *trees;
	size_t ntrees;
	const struct web_list *lists; /* the mailing lists: their archives' addresses */
	size_t nlists;
	const char *series_url;	 /* git fetch <series_url> <branch> (NULL: not known) */
	const char *series_repo; /* the series' repository: the commits of patches no tree has (NULL: none) */
};

/* The tree a commit of the series' repository is said to be in (page_commit_info). */
#define PAGE_SERIES_TREE "series"

struct store;
struct gitrepo;

/* One request's view: the store, and the watched trees' repositories opened when first needed. */
struct page_ctx {
	const struct page_env *env;
	struct store *s;
	struct gitrepo **repos; /* [ntrees] */
	bool *repo_tried;
	struct node *commits;		 /* full id -> commit info, looked up so far (NULL value: in no tree) */
	struct node *mails;		 /* the outbox with subjects, read when first needed */
	struct node *heads, *bisections; /* likewise */
};

/* Open the store for one request (-1 with err set when it cannot), and close it with what the request opened. */
int page_ctx_open(struct page_ctx *c, const struct page_env *env, struct strbuf *err);
void page_ctx_close(struct page_ctx *c);

/* A page's HTML as its html function writes it; pages.c puts it in the site's frame. */
struct page_doc {
	struct strbuf title;
	int refresh; /* seconds: > 0 makes the page reload itself (live progress) */
	struct strbuf body;
};

/*
 * A dashboard page: a const struct page_def page_def_<what> in the page's
 * file (web/page_<name>.c), one row of the table in pages.c. Dispatch, the
 * navigation bar and the API index are made from these rows.
 */
struct page_def {
	const char *name;  /* /<name>, /api/<name> */
	bool home;	   /* also the home page: / */
	const char *rest;  /* what follows /<name>/, as the API index names it ("ID"); NULL: nothing */
	const char *query; /* its query arguments, as the API index shows them; NULL: none */
	const char *nav;   /* its title in the navigation bar; NULL: not there */
	bool live;	   /* shows the providers' boxes now (env->inventories): never kept in the cache */
	bool list;	   /* its data is a list (a JSON array), not a map */
	const char *key;   /* a list's rows' key: ?after= names a row by it (paged: ?limit=&after=) */
	/* Its data into out (an empty map or list): an HTTP status, 200 or 400/404/500 with one line in err. */
	int (*data)(struct page_ctx *c, const struct page_args *a, struct node *out, struct strbuf *err);
	/* Its HTML from its data; NULL: JSON only. */
	void (*html)(const struct page_env *env, const struct node *d, struct page_doc *doc);
	/*
	 * File n (1 = the first) under /<name>/<rest>/, served as
	 * /<name>/<rest>/N[/NAME]: its bytes into body, its type ("text/..."
	 * shows as text, anything else is saved as bytes) and name, an HTTP
	 * status as data. NULL: none.
	 */
	int (*file)(const struct page_env *env, const char *rest, const char *n, struct strbuf *body, char **type,
		    char **name, struct strbuf *err);
	/*
	 * What of the store it reads: STORE_READS(STORE_TOPIC_...) bits (0:
	 * all). Its kept copy (web/cache) stays while those topics are
	 * unchanged, whatever else the store takes in.
	 */
	unsigned reads;
};

struct node *page_str(const char *s);
struct node *page_num(double v);
/* A map's value as text ("" when absent) and as a number (NAN). */
const char *page_get(const struct node *m, const char *key);
double page_getnum(const struct node *m, const char *key);
/* A decimal id: digits only, 1 to 10^18. */
bool page_id_ok(const char *s, long long *id);
/* Is s 7 to 40 hex digits: a commit id or a unique prefix of one? */
bool page_is_hex_id(const char *s);

/* Tree i's repository (i == ntrees: the series' repository), opened on first use; NULL when it cannot be. */
struct gitrepo *page_repo(struct page_ctx *c, size_t i);
/* The tree (index) whose repository path is path; -1 when none. */
ssize_t page_tree_by_path(const struct page_ctx *c, const char *path);
/*
 * A commit of a watched tree: a map with commit (full id), subject, author,
 * author_email, date (the author's), commit_date (the committer's), tree
 * (the first tree that has it; PAGE_SERIES_TREE when only the series' repository has it), trees, parents and
 * message; NULL when none has it (or id is not hex). Kept for the request.
 */
const struct node *page_commit_info(struct page_ctx *c, const char *id);
/* A map's commit id with its subject: {commit, subject}; the subject "" when unknown. */
struct node *page_commit_ref(struct page_ctx *c, const char *id);

/* The store's lists, read once a request (NULL with err set when the store fails). */
const struct node *page_heads(struct page_ctx *c, struct strbuf *err);
const struct node *page_bisections(struct page_ctx *c, struct strbuf *err);
/* The outbox, each mail with its subject, commit (X-lkprobot-Commit) and verdict. */
const struct node *page_mails(struct page_ctx *c, struct strbuf *err);
/* The newest mail about commit (a map of page_mails), NULL when none. */
const struct node *page_mail_about(struct page_ctx *c, const char *commit);

/*
 * What a head stands at, as a maintainer reads it: a map with state
 * (queued, testing, bisecting, found, no change, not sure, build failed,
 * failed, cancelled, or the store's own word), kind (regression,
 * improvement), reason, culprit (with subject), bisection (id), mail (id,
 * subject). States the store adds later show as they are.
 */
struct node *page_head_state(struct page_ctx *c, const struct node *head);
/* A bisection's honest state: running only while something runs it; a map with state, reason, refresh. */
struct node *page_bisection_state(struct page_ctx *c, const struct node *bisection);
/* The CSS class of a state word: "state state-no-change". */
void page_state_class(struct strbuf *b, const char *state);
/* <span class="state ...">word</span> and the reason after it. */
void page_badge(struct strbuf *b, const char *word, const char *reason);
/* A state map (page_head_state, page_bisection_state) as badges: its state, reason and kind. */
void page_state_html(struct strbuf *b, const struct node *st);

/* A head as the pages show it: the store's row, its result as JSON (not text), subject and author (git), state. */
struct node *page_head_row(struct page_ctx *c, const struct node *h, bool git);
/* A bisection as the lists show it: the row, its honest state, its tree's name, the culprit's subject. */
struct node *page_bisection_row(struct page_ctx *c, const struct node *x);
/* Tables of such heads, bisections and mails (page_mails' maps). */
void page_heads_html(struct strbuf *b, const struct node *heads, bool actions, bool tree_column);
void page_bisections_html(struct strbuf *b, const struct node *bis);
void page_mails_html(struct strbuf *b, const struct node *mails, bool newest_first);
/* A token form for an action (POST /api/WHAT/ID/LABEL). */
void page_action_form(struct strbuf *b, const char *what, long long id, const char *label);

/* The triage state a dashboard verb sets (POST /api/regressions/ID/VERB: ack, fixed, invalid, wontfix, reopen); NULL: none. */
const char *page_regression_state(const char *verb);

/* The href of a metric's history: /history?testcase=..&path_params=..&metric=..[&tree=..]. */
void page_history_href(struct strbuf *b, const char *testcase, const char *path_params, const char *metric,
		       const char *tree);

#endif

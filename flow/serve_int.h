/*
 * serve_int: what the service's files share, private to flow/serve_*.c —
 * serve_loop.c (the passes and the heads' workers), serve_poll.c (the
 * trees polled, a head's base), serve_worker.c (testing one head).
 */
#ifndef LKP_SERVE_INT_H
#define LKP_SERVE_INT_H

#include "bisect.h"
#include "serve.h"
#include "serve_head.h"
#include "../lib/store/store.h"

#include <stdint.h>

/* The tree of that name in the configuration (NULL: none). */
const struct tree_conf *serve_tree_named(const struct serve_conf *c, const char *name);
/* Look at every branch: record its head when it is new, with its base. 0, or -1 with err set (the store). */
int serve_poll_trees(const struct serve_conf *c, struct store *s, struct strbuf *err);
/*
 * Look at every mailing list: its new mails read, its series' states
 * recorded, a complete one applied and its head recorded (serve_lists.c).
 * 0, or -1 with err set (the store).
 */
int serve_poll_lists(const struct serve_conf *c, struct store *s, struct strbuf *err);
/* The head of branch of list tree: its series' first message ("<id>", free() it); NULL for a tree's head. */
char *serve_series_thread(const struct serve_conf *c, const char *tree, const char *branch);
/*
 * The Cc of a list's series report on culprit: the list's address and the
 * people in To and Cc of the culprit's patch mail and of the cover letter,
 * NULL-terminated (free each and it); NULL when tree is no list.
 */
/*
 * The report's line on a list's series' base: "base: the series'
 * base-commit: X" when its mails name X, else "base: the head of BRANCH
 * at the mail's date: X"; NULL when tree is no list. Newly allocated.
 */
char *serve_series_base(const struct serve_conf *c, const char *tree, const char *branch);
char **serve_series_cc(const struct serve_conf *c, const char *tree, const char *branch, const char *culprit);
/*
 * The base head h is tested against, chosen when it is tested,
 * appended to base and recorded in the store. See serve_poll.c.
 */
void serve_head_base(const struct serve_conf *c, struct store *s, const struct store_head *h, struct strbuf *base);
/* Test head h against base, in the head's worker: what it gave into *out (head_outcome_release). */
void serve_test_head(const struct serve_conf *c, const char *config, const struct store_head *h, const char *base,
		     struct head_outcome *out);

/*
 * Measure in a child of the service — a head's bisection, a check's
 * comparison: in a process group of its own, which a stop of the service
 * ends (SIGTERM, then SIGKILL after a grace), and killed when its parent
 * dies, so that a restarted service never finds an orphan working in the
 * checkout it is about to use. The child reads job for tree t into a
 * request (t's provider, settings and kconfig; the service's result root,
 * store, cache and data; serve.change_floor), which fn completes and runs;
 * its result comes back in the bisection result's JSON form into *res
 * (bisect_result_release). 0, or -1 with why ("<what> ended (...) without
 * a result") when it gave none.
 */
typedef enum flow_status (*serve_measure_fn)(struct bisect_request *req, void *arg, struct bisect_result *res,
					     struct strbuf *err);
int serve_measure(const struct serve_conf *c, const struct tree_conf *t, const char *job, serve_measure_fn fn,
		  void *arg, const char *what, struct bisect_result *res, struct strbuf *why);

#endif

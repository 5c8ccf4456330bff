/*
 * serve: the service's own pieces, private to it (robot/cmd_serve.c: its
 * options, start and signals). serve_conf.c reads the serve: section of
 * the configuration and its trees; serve_loop.c is the service's loop —
 * the trees polled, each new head tested against its base by bisect
 * children (several at once on a farm), the culprits' reports queued and
 * the outbox delivered.
 */
#ifndef LKP_SERVE_H
#define LKP_SERVE_H

#include "../lib/util/strbuf.h"
#include "../providers/provider.h"

#include <stdbool.h>
#include <stddef.h>

struct compare_floors;
struct store;

struct tree_conf {
	char *name, *path, *base, *provider, *kconfig;
	char *url;	    /* fetched into the mirror at path; NULL: path is kept up to date by others */
	long fetch_stall;   /* seconds a fetch of url may receive nothing before it is given up */
	char *layout_check; /* the layout check's alignment N, or off */
	const struct provider_ops *ops;
	struct provider_options *opts; /* the provider's own settings, from its table */
	char **branches, **jobs;       /* NULL-terminated */
	size_t nbranches, njobs;
};

/* A mailing list the service watches: its archive, the tree and branch its patches apply to. */
struct list_conf {
	char *name, *archive, *tree, *branch;
	char *maildir;		    /* a Maildir instead of an archive (then archive is a copy of it) */
	char *address;		    /* the list's mail address: Cc of its series' reports (NULL: none) */
	char *url;		    /* the archive's public address: each applied patch's Link: trailer */
	bool mail_not_applied;	    /* mail a series' author a notice when it does not apply */
	const struct tree_conf *tc; /* the tree of serve.trees named by tree */
	/*
	 * Where its series' heads are tested: tc's jobs and provider, the
	 * repository series_repo, url series_url (the report's url: line), base
	 * as each series' own. Its strings are the list's and tc's (not owned).
	 */
	struct tree_conf series_tree;
};

struct serve_conf {
	char *path;
	char *result_root, *cache, *db;
	char *token;		  /* from web_token_file; NULL: the dashboard has no actions */
	char *public_url;	  /* where readers reach the dashboard (NULL: unknown) */
	char *lkprobot_url;	  /* where readers get lkprobot (NULL: unknown) */
	bool report_improvements; /* mail a culprit of an improvement too (default) */
	bool report_unrestored;	  /* mail a culprit whose revert does not restore the metric (not by default) */
	char **floors;		  /* change_floor: "GLOB=PCT" each, for bisect and report (--floor) */
	size_t nfloors;
	long poll;
	long max_bisections; /* heads tested at once (at most one whose provider runs here) */
	struct tree_conf *trees;
	size_t ntrees;
	struct list_conf *lists; /* serve.lists; none: the service watches trees only */
	size_t nlists;
	char *series_repo;  /* the robot's own bare repository of applied series */
	char *series_url;   /* where readers fetch it (git clone URL); NULL: the reports link the bisection */
	long series_wait;   /* seconds a series missing parts waits after its newest mail */
	char *maildir;	    /* the robot's own mailbox: replies to its reports (NULL: none) */
	char **maintainers; /* whose commands are taken for any report (NULL-terminated) */
	size_t nmaintainers;
	const char *data_dir; /* lkprobot's jobs/ and hosts/ (the caller's, not the file's) */
};

/*
 * The serve: section of file, checked: every tree a git repository (or a
 * URL to fetch), every job file there, each provider's settings by its
 * table. 0, or -1 with one line in err (then c holds nothing to release).
 */
int serve_conf_load(struct serve_conf *c, const char *file, struct strbuf *err);
/*
 * With lists and no serve.series_url, the dashboard's address of
 * series_repo (git's dumb HTTP): base (serve.public_url, else
 * http://LISTEN) + "/git/" + series_repo's name. Nothing without base.
 */
void serve_conf_series_url(struct serve_conf *c, const char *base);
/*
 * Every job file of every tree checked as `lkprobot run` checks it (split
 * into atomic jobs, each one lkprobot runs: its programs, their options and
 * values), with c->data_dir's jobs/include; 0, or -1 with one line in err.
 */
int serve_conf_check_jobs(const struct serve_conf *c, struct strbuf *err);
void serve_conf_release(struct serve_conf *c);
/* The serve: section's change_floor added to f (checked when the configuration was read). */
void serve_conf_floors(const struct serve_conf *c, struct compare_floors *f);
/* The serve: section's keys, its trees' and the providers' settings as markdown ('lkprobot help config'). */
void serve_conf_doc(struct strbuf *out);

/*
 * The store of the service a configuration file describes (serve.db, else
 * lkprobot.db in serve.result_root), newly allocated; NULL when the file
 * has no serve: section (err untouched) or cannot be read (err set).
 */
char *serve_store_path(const char *file, struct strbuf *err);

/* One line on stderr, "TIME lkprobot serve: ...": the service's log. */
void serve_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * One pass: the trees polled, every head to do tested (config: the file,
 * handed to the report children), the outbox delivered. 0 (a signal may
 * have cut it short: the heads not done stay to do), or -1 with err set
 * when the store fails.
 */
int serve_one_pass(const struct serve_conf *c, const char *config, struct store *s, struct strbuf *err);

/*
 * A fault of the machine that may pass — the result root's disk full for a
 * while, another process holding the store — is waited out, never the end
 * of the service: a store write is tried again every SERVE_FAULT_RETRY s
 * for up to SERVE_FAULT_WAIT s (said when it starts and when it passed),
 * a pass that failed on one too, and a bisection that failed on one is
 * started again (it goes on from the runs made) up to
 * SERVE_FAULT_BISECTS times, SERVE_FAULT_RETRY s and more apart.
 */
#define SERVE_FAULT_RETRY 5
#define SERVE_FAULT_WAIT 600
#define SERVE_FAULT_BISECTS 4

#endif

/*
 * provider: where a job runs for a given commit — this machine with the
 * commit's source tree (`local`, for the `command` program and any job),
 * or a kernel built from the commit and booted in QEMU with NVDIMMs
 * (`qemu`), or either of those on a test box of a Slurm farm (`slurm`), or
 * a kernel built here and kexec'd into on a real test box over ssh (`ssh`).
 * Every command that runs a job — run, qemu, box run, run-commit, bisect,
 * and the service through bisect — talks to a provider through these ops:
 * open it with a configuration, prepare a commit (or the kernel its
 * options name), run the atomic job on it as often as needed.
 *
 * A provider is one file and one row of the registry (provider.c): its ops
 * carry its name, its capabilities, its option table (the settings only it
 * knows: each with a type, a help line, and where it may be given — a
 * command-line flag of bisect, a key of serve's trees or serve: section),
 * and optionally a batch runner, its parallel slots and an inventory of
 * its boxes for the dashboard. No command compares provider names.
 */
#ifndef LKP_PROVIDER_H
#define LKP_PROVIDER_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>

/*
 * How long a run may wait for a box of a Slurm farm by default (bisect's
 * --pending-timeout): long enough for a busy farm, and a farm whose boxes
 * never come up (slurmd not running) ends in a failure that says so.
 */
#define PROVIDER_PENDING_TIMEOUT 3600

/* How prepare's why begins when a commit's kernel does not build; the build's first error line follows. */
#define PROVIDER_NO_BUILD "the kernel does not build: "

/* ---- options ---- */

enum provider_opt_type {
	PROVIDER_OPT_STRING,	/* any text (or one of choices) */
	PROVIDER_OPT_UINT,	/* a whole number >= 0 (seconds, counts) */
	PROVIDER_OPT_LIST,	/* repeatable flag; a list (or one value) in the configuration */
	PROVIDER_OPT_BOOL,	/* a flag without a value; true/false in the configuration */
};

/* where an option may be given (none of these: only a command sets it, by name) */
#define PROVIDER_OPT_CLI	0x1	/* --flag of bisect (what serve passes its child) */
#define PROVIDER_OPT_TREE	0x2	/* trees.<name> in serve's configuration */
#define PROVIDER_OPT_SERVE	0x4	/* serve.<name>: for every tree of the provider */
#define PROVIDER_OPT_REQUIRED	0x8	/* the provider cannot open without it */

struct provider_option {
	const char *name;	/* its key in the option set and in serve's configuration */
	const char *flag;	/* the command-line flag without "--" (NULL: the name) */
	enum provider_opt_type type;
	unsigned where;
	const char *arg;	/* the value's name in the help (F, SECONDS) */
	const char *help;	/* one line */
	const char *def;	/* the value when it is not given (NULL: none) */
	const char *const *choices;	/* the values it may take (NULL: any) */
};

struct provider_ops;

/* A provider's option set: values for the rows of its table (opaque). */
struct provider_options;

struct provider_options *provider_options_new(const struct provider_ops *ops);
void provider_options_free(struct provider_options *o);
/*
 * Set option `name` of o's provider (a list appends). 0, or -1 with
 * "NAME: why" in err (not an option of the provider, not a number, not
 * one of the choices).
 */
int provider_options_set(struct provider_options *o, const char *name, const char *value, struct strbuf *err);
/* A copy of o (provider_options_free()). */
struct provider_options *provider_options_dup(const struct provider_options *o);
/* Is option name set (not its default)? */
bool provider_options_has(const struct provider_options *o, const char *name);
/*
 * Each set option that has a command-line flag as "--flag" and its value
 * (a list: one pair a value; a bool: the flag alone), appended to a
 * NULL-terminated argv of *n entries (reallocated; each string
 * allocated: provider_argv_free()).
 */
void provider_options_argv(const struct provider_options *o, char ***argv, size_t *n);

/* ---- configuration ---- */

struct provider_config {
	const char *tree;		/* the git repository of the commits (NULL: none: run as is) */
	const char *result_dir;		/* RESULT_ROOT_DIR */
	const char *cache;		/* kernel cache, checkouts, NVDIMM files */
	const char *data_dir;		/* jobs/ and hosts/ */
	const char *kconfig;		/* qemu, ssh: the kernel config (NULL: x86_64-pmem) */
	const char *kcflags;		/* PROVIDER_KCFLAGS: make's KCFLAGS of every build (NULL: none) */
	const char *testbox;		/* the hosts/ file to use (NULL: this machine) */
	const char *db;			/* the store (NULL: <result_dir>/lkprobot.db) */
	const char *slot;		/* the box this runs on, when several share the cache (a
					 * farm's node): local keeps a work tree of its own for it */
	const char *label;		/* what the runs are for, shown with them in a farm's queue */
	bool progress;			/* builds and boots say how far they are on the terminal */
	double lock_wait;		/* local: seconds to wait for a work tree in use (0: 30) */
	const struct provider_options *opts;	/* the provider's own (NULL: every default) */
};

/* Option `name` of the configuration: its value (a list: the last), else its default, else NULL. */
const char *provider_opt(const struct provider_config *cfg, const char *name);
/* A PROVIDER_OPT_UINT option's value, def when neither set nor defaulted. */
unsigned long provider_opt_uint(const struct provider_config *cfg, const char *name, unsigned long def);
/* A PROVIDER_OPT_LIST option's values (*n of them; NULL when none). */
const char *const *provider_opt_list(const struct provider_config *cfg, const char *name, size_t *n);
bool provider_opt_bool(const struct provider_config *cfg, const char *name);

/* ---- runs ---- */

struct provider_run {
	char *run_dir;			/* the result root written (NULL if none) */
	const char *job_state;		/* finished, failed, timeout, killed, panic, boot_failed */
	bool untestable;		/* the commit cannot be tested (a build failed: git bisect's 125) */
	char *reason;			/* one line when not finished */
	char *summary;			/* how the run went, for the commands' output: "(test 2.0 s)" */
	char **run_dirs;		/* every result root this run made, in order (several runs in one
					 * boot); NULL: run_dir alone */
	char **states;			/* ... and each one's job_state */
	size_t nruns;
	bool stop;			/* the provider cannot make more runs (its box is out of service) */
	char *node;			/* the box it ran on, when the provider has several (NULL: none) */
};

struct provider;

/*
 * The single-commit command equivalent to a run, for reproduce.json (a
 * report's "To reproduce"): what a reader on another machine types, with
 * the tree cloned as "linux" and the result root's job as "job.yaml". So
 * only what the run was given goes in — options that were set, never
 * their defaults, nor what lkprobot decides by itself there (KVM or TCG,
 * unless forced) — and no path of this machine but a kernel image given
 * by hand.
 */
struct provider_reproduce {
	const char *command;		/* the words after "lkprobot" ("qemu", "box run"); NULL: "run" */
	const char *arg;		/* the command's own argument before the flags (box run's NAME) */
	const char *commit;		/* --tree linux --commit C (NULL: the command builds none) */
	const char *kconfig;		/* --kconfig K, with a commit */
	const char *kcflags; /* --kcflags F, with a commit: make's KCFLAGS of its build (the layout check's) */
	const struct provider_options *opts;	/* each set option as --flag [value] ... */
	const char *const *skip;	/* ... but these (NULL-terminated; NULL: none) */
	const char *extra[8];		/* more flags, as they are (NULL-terminated) */
};

/* r's argv: "lkprobot", the command, its flags, "job.yaml" (NULL-terminated, *n entries; provider_argv_free()). */
void provider_reproduce_argv(const struct provider_reproduce *r, char ***argv, size_t *n);
void provider_argv_free(char **argv, size_t n);
/* argv as reproduce.json's text: {"argv": [...]} and a newline. */
void provider_reproduce_json(struct strbuf *out, char *const *argv, size_t n);

/*
 * One run of a batch: the comparisons of a bisection measure their commits
 * in interleaved rounds (lib/results/sampling.h), and a batch — the runs
 * in their recorded order — is the unit a provider receives. The caller
 * fills commit and job (its commit and interleave keys set); the provider
 * fills the rest.
 */
struct provider_batch_item {
	const char *commit;		/* the full id */
	struct node *job;		/* the atomic job of this run */
	int prepared;			/* 0 the run was made (res holds it), 1 the commit cannot be
					 * tested (res.reason says why), -1 not reached */
	bool built;			/* this item prepared its commit (a build or a cache hit) */
	struct provider_run res;
};

/* capabilities */
#define PROVIDER_BUILDS_KERNELS	0x01	/* prepare builds the commit's kernel here (kconfig matters) */
#define PROVIDER_BOOTS		0x02	/* each run boots the kernel under test */
#define PROVIDER_PARALLEL	0x04	/* runs on several boxes at once (slots); not on this machine */
#define PROVIDER_NEEDS_BOX	0x08	/* runs on a named box of a boxes file */
#define PROVIDER_ON_NODE	0x10	/* what a farm's node runs (run-commit --provider) */
#define PROVIDER_KCFLAGS 0x20		/* builds with provider_config.kcflags (the layout check's aligned kernels) */

struct provider_ops {
	const char *name;
	const char *summary;		/* one line: what it is, for --help */
	unsigned caps;			/* PROVIDER_* */
	const struct provider_option *options;	/* its table, ended by a row without a name */
	/*
	 * Optional: are the options right, before anything is opened or
	 * reached? 0, or -1 with err set and *key the option at fault.
	 */
	int (*check)(const struct provider_config *cfg, const char **key, struct strbuf *err);
	/*
	 * Optional: the hosts/ file the runs need when none is given (*out
	 * NULL: this machine's). 0, or -1 with err set.
	 */
	int (*testbox)(const struct provider_config *cfg, char **out, struct strbuf *err);
	/* a provider for cfg; NULL with err set when it cannot work here */
	struct provider *(*open)(const struct provider_config *cfg, struct strbuf *err);
	/*
	 * Make commit (a full id) the one the next runs test: check its tree
	 * out, build it; NULL: what the options name (a kernel image), else
	 * what runs now. 0, 1 when it cannot be tested (why set: a build that
	 * fails), -1 with err set on an error that stops the caller.
	 */
	int (*prepare)(struct provider *p, const char *commit, struct strbuf *why);
	/*
	 * Run the atomic job once on the prepared commit (its `commit` key
	 * set) into a new result root, stats extracted and the commit's
	 * matrix rebuilt. 0 with *res filled (whatever the job's state), -1
	 * with err set when nothing could run.
	 */
	int (*run_job)(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err);
	/* The result path's kconfig for this provider's runs (NULL: the job's own, defconfig). */
	const char *(*kconfig)(struct provider *p);
	/* Optional: what prepare made ready, in words ("commit X of T, from the kernel cache"). */
	const char *(*describe)(struct provider *p);
	/* Optional: can this atomic job run under it at all (before anything runs)? 0, or -1 with err set. */
	int (*check_job)(const struct node *job, struct strbuf *err);
	void (*close)(struct provider *p);
	/*
	 * Optional: run a whole batch (provider_run_batch() below) — a farm
	 * starts its runs at once, as many as it has boxes free. NULL:
	 * provider_run_batch() makes the runs one after the other.
	 */
	int (*run_batch)(struct provider *p, struct provider_batch_item *items, size_t n, char **prepared,
			 struct strbuf *err);
	/* Optional: how many runs it can make at once now (its free boxes, its fair share); NULL: 1. */
	size_t (*slots)(struct provider *p);
	/*
	 * Optional: its boxes now, for the dashboard — a sequence of maps:
	 * name, state, features, cpus, memory_mb, running (what runs there,
	 * or empty). 0, or -1 with one line in err.
	 */
	int (*inventory)(const struct provider_config *cfg, struct node **out, struct strbuf *err);
	const char *inventory_title;	/* the dashboard's heading for it ("The Slurm farm") */
	/*
	 * Optional: how a run of the prepared commit is made again on another
	 * machine (reproduce.json): the provider fills r with its command and
	 * what it runs with; provider_reproduce_argv() makes the argv. NULL:
	 * its runs write their own (a farm's nodes: run-commit with theirs).
	 */
	void (*reproduce)(struct provider *p, struct provider_reproduce *r);
};

/* ---- the registry ---- */

/* The provider called name; NULL when there is none. */
const struct provider_ops *provider_find(const char *name);
/* The registry's providers, in order (NULL-terminated). */
const struct provider_ops *const *provider_all(void);
/* "local, qemu, slurm or ssh" (conj: "or", "and", or "," for a comma list) */
void provider_names(struct strbuf *out, const char *conj);
/*
 * The registry checked at start-up: names and flags unique, the ops a
 * provider needs there, defaults and choices valid. 0, or -1 with the
 * first fault in err (a bug: the program stops).
 */
int provider_registry_check(struct strbuf *err);

/* ---- command lines: every provider's flags (robot/opt.c makes them rows of a command's table) ---- */

/* An option's command-line flag, without "--" (its name when it has no flag of its own). */
const char *provider_option_flag(const struct provider_option *o);
/*
 * Every provider's command-line options (PROVIDER_OPT_CLI), one a flag,
 * with the provider that has it in who[]; at most max, their count.
 */
size_t provider_cli_options(const struct provider_option **out, const char **who, size_t max);
/* The help of option o of provider who: "slurm: help (repeatable) (default X)". */
void provider_option_help(struct strbuf *out, const char *who, const struct provider_option *o);

/* Flags seen on a command line, set on the provider's options once it is known. */
struct provider_cli {
	const char **flags, **values;
	size_t n;
};
/* Remember flag (without "--") and its value (a flag without one: "true"). */
void provider_cli_add(struct provider_cli *pc, const char *flag, const char *value);
/*
 * Set what was seen on o; a flag of another provider is refused: "--via
 * is an option of provider slurm, not local". 0, or -1 with err set.
 */
int provider_cli_apply(const struct provider_cli *pc, struct provider_options *o, struct strbuf *err);
void provider_cli_release(struct provider_cli *pc);

/* ---- configuration files ---- */

/*
 * Every provider's settings of serve's configuration (PROVIDER_OPT_TREE,
 * _SERVE) as a markdown table — key, provider, where, value, default, what
 * it is — for docs/configuration.md ('lkprobot help config').
 */
void provider_conf_doc(struct strbuf *out);

/* Is key an option some provider takes in a map of kind where (PROVIDER_OPT_TREE or _SERVE)? */
bool provider_conf_key(const char *key, unsigned where);
/*
 * A tree of serve's configuration whose provider is o's: the options of
 * its serve: section (those of o's provider; the others are other
 * providers' business) and then the tree's own, set on o; a key of
 * another provider's, or a bad value, is refused with *key and *at (the
 * node) set for the caller's "file:line:col: key: why", and err the why
 * ("is a setting of provider: slurm", "must be local or qemu (...)").
 * Then o's required options (*key the missing one, *at NULL: "provider:
 * ssh needs box: NAME") and the provider's check(). 0, or -1.
 */
int provider_conf_apply(struct provider_options *o, const struct node *serve, const struct node *tree,
			const char **key, const struct node **at, struct strbuf *err);

/* ---- using one ---- */

/*
 * Are the options right (required ones given — else "provider P needs
 * --flag ARG" — and the provider's own check), before anything is opened
 * or reached? What fails here is bad input. 0, or -1 with err set.
 */
int provider_check(const struct provider_ops *ops, const struct provider_config *cfg, struct strbuf *err);
/* Open it (cfg->opts NULL: the table's defaults); NULL with err set when it cannot work here. */
struct provider *provider_open(const struct provider_ops *ops, const struct provider_config *cfg, struct strbuf *err);
/* ops->testbox, or NULL (this machine's): 0, or -1 with err set. */
int provider_testbox(const struct provider_ops *ops, const struct provider_config *cfg, char **out, struct strbuf *err);
/* ops->slots, else 1 */
size_t provider_slots(const struct provider_ops *ops, struct provider *p);
/* ops->inventory: 0 with *out a sequence (each box a map with its provider's name), -1 with err set. */
int provider_inventory(const struct provider_ops *ops, const struct provider_config *cfg, struct node **out,
		       struct strbuf *err);

void provider_run_release(struct provider_run *r);

/*
 * Run the atomic job once on the prepared commit (ops->run_job) and record
 * in each result root it made how to make it again: reproduce.json (see
 * struct provider_reproduce). What every command that runs jobs calls
 * (runjobs, provider_run_batch(), run-commit). As ops->run_job; a result
 * root that cannot take the file is warned about on stderr.
 */
int provider_run_job(const struct provider_ops *ops, struct provider *p, struct node *job, struct provider_run *res,
		     struct strbuf *err);

/*
 * Run a batch's items in their order (ops->run_batch, else one at a time:
 * prepare when the commit is not *prepared — kept across calls, a string
 * the caller frees — then run_job). A commit that cannot be prepared makes
 * its items prepared = 1 and is not prepared again in this batch; once a
 * run of a commit says it cannot be tested (its build failed: git bisect's
 * 125), its later items are not reached (prepared = -1). 0, or -1
 * with err set on an error that stops the caller (items already made keep
 * their results; provider_batch_release() them either way).
 */
int provider_run_batch(const struct provider_ops *ops, struct provider *p, struct provider_batch_item *items, size_t n,
		       char **prepared, struct strbuf *err);
/* The one-at-a-time batch of provider_run_batch(), for a run_batch that has nothing better to do this time. */
int provider_run_serial(const struct provider_ops *ops, struct provider *p, struct provider_batch_item *items, size_t n,
			char **prepared, struct strbuf *err);
void provider_batch_release(struct provider_batch_item *items, size_t n);

/*
 * A batch item handed to a child process (`lkprobot run-commit` on a
 * farm's node, or here for a box): its job written to <spool>/<tag>.yaml,
 * the child's outcome to come in <spool>/<tag>.status. The tag is the
 * commit, the time, our pid and k (the item's index): unique in the spool.
 */
struct provider_spooled {
	char tag[96];
	char *jobfile, *status;
};
int provider_spool_item(const char *spool, const struct provider_batch_item *it, size_t k, struct provider_spooled *out,
			struct strbuf *err);
void provider_spooled_release(struct provider_spooled *s);

/*
 * A run's outcome as the status file a node writes (run-commit) and the
 * farm providers read back: {"run_dir", "job_state", "untestable",
 * "reason", "node", "stop"} — stop: nothing more can run there (the box is
 * out of service or could not be used; the run did not measure the commit).
 */
void provider_status_json(struct strbuf *out, const struct provider_run *r, const char *reason, const char *node);
/* Read one back into *r (job_state one of the known states, else failed). 0, or -1 with err set. */
int provider_status_read(const char *text, size_t len, const char *file, struct provider_run *r, struct strbuf *err);

#endif

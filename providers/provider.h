/*
 * provider: where a job runs for a given commit — this machine with the
 * commit's source tree (`local`, for the `command` program and any job),
 * or a kernel built from the commit and booted in QEMU with NVDIMMs
 * (`qemu`), or either of those on a test box of a Slurm farm (`slurm`), or
 * a kernel built here and kexec'd into on a real test box over ssh (`ssh`). The bisect driver talks to every provider through these ops:
 * prepare a commit once, then run the atomic job on it as often as it
 * needs. (`lkprobot run` and `lkprobot qemu` drive the same engine and QEMU
 * code directly.)
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

struct provider_config {
	const char *tree;		/* the git repository of the commits */
	const char *result_dir;		/* RESULT_ROOT_DIR */
	const char *cache;		/* kernel cache, checkouts, NVDIMM files */
	const char *data_dir;		/* jobs/ and hosts/ */
	const char *kconfig;		/* qemu: the kernel config (NULL: x86_64-pmem) */
	const char *testbox;		/* local: the hosts/ file to use (NULL: this machine) */
	bool progress;			/* builds and boots say how far they are on the terminal */
	/* slurm: what the nodes run, and how the runs are submitted */
	const char *slurm_via;		/* local or qemu */
	const char *slurm_constraint;	/* --constraint (a node feature: the tbox_group); NULL: any node */
	const char *slurm_partition;	/* NULL: the cluster's default */
	const char *const *slurm_args;	/* more sbatch arguments, each one argv element */
	size_t slurm_nargs;
	int slurm_pending_timeout;	/* seconds a run may wait for a node; 0: for ever */
	/* ssh: the box and the file describing it; the store keeps whether it is in service */
	const char *box;
	const char *boxes;		/* NULL: box_default_file() */
	const char *db;			/* NULL: <result_dir>/lkprobot.db */
	double lock_wait;		/* local: seconds to wait for a work tree in use (0: 30) */
};

struct provider_run {
	char *run_dir;			/* the result root written (NULL if none) */
	const char *job_state;		/* finished, failed, timeout, killed, panic, boot_failed */
	bool untestable;		/* the commit cannot be tested (a build failed: git bisect's 125) */
	char *reason;			/* one line when not finished */
};

struct provider;

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

struct provider_ops {
	const char *name;
	/* a provider for cfg; NULL with err set when it cannot work here */
	struct provider *(*open)(const struct provider_config *cfg, struct strbuf *err);
	/*
	 * Make commit (a full id) the one the next runs test: check its tree
	 * out, build it. 0, 1 when it cannot be tested (why set: a build that
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
	/* The result path's kconfig for this provider's runs ("defconfig" locally). */
	const char *(*kconfig)(struct provider *p);
	void (*close)(struct provider *p);
	/*
	 * Optional: run a whole batch (provider_run_batch() below) at once —
	 * a farm can start its rounds in parallel. NULL: provider_run_batch()
	 * makes the runs one after the other with prepare and run_job.
	 */
	int (*run_batch)(struct provider *p, struct provider_batch_item *items, size_t n, char **prepared,
			 struct strbuf *err);
};

extern const struct provider_ops provider_local, provider_qemu, provider_slurm, provider_ssh;

/*
 * The boxes of the Slurm farm, as `sinfo -N` sees them: a sequence of maps
 * name, features, state (idle, allocated, mixed, down...), cpus,
 * memory_mb — the farm's capacity. 0, or -1 with one line in err.
 */
int slurm_boxes(struct node **out, struct strbuf *err);

/* The provider called name; NULL when there is none. */
const struct provider_ops *provider_find(const char *name);

void provider_run_release(struct provider_run *r);

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
void provider_batch_release(struct provider_batch_item *items, size_t n);

#endif

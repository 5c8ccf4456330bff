/*
 * provider slurm: each run is a Slurm batch job on a test box of the farm.
 * `sbatch --parsable --exclusive --constraint=<feature>` submits a fixed
 * script that execs its arguments — `lkprobot run-commit --provider
 * <via> ...` with the atomic job's file — so no value of the job ever
 * reaches a shell. The node writes the result root into the shared result
 * directory and a status file next to it; the robot follows its jobs with
 * one `squeue` for all of them (a stable text format, no libslurm ABI),
 * reads the status files (not Slurm's accounting), submits a run again
 * once when its node failed or the job was preempted, and `scancel`s all
 * its jobs when it is stopped itself.
 *
 * This file: the provider, its options and the farm's inventory; a
 * batch's scheduling is slurm_batch.c, Slurm's commands and the farm's
 * free slots slurm_cmd.c.
 *
 * A batch's runs are submitted together, as many at once as the farm has
 * boxes for them (slots): the boxes of the constraint that are up, shared
 * fairly with the other lkprobot clients that have jobs in the queue (a
 * client is a bisection: its jobs carry `--comment=lkprobot <client>:
 * <label>`), and more while boxes stand idle that nobody's pending job
 * will take. Separate jobs rather than a job array: each run has its own
 * commit and job file, is resubmitted alone after a node failure, and a
 * job of another client can start between two of ours (fairness).
 */
#include "provider.h"
#include "slurm_int.h"
#include "../lib/sys/fsutil.h"
#include "../lib/run/run.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLURM_STR_(x) #x
#define SLURM_STR(x) SLURM_STR_(x)

static const char *const via_choices[] = { "local", "qemu", NULL };

static const struct provider_option slurm_options[] = {
	{ "via", NULL, PROVIDER_OPT_STRING, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE, "local|qemu", "what the box runs", "local",
	  via_choices },
	{ "constraint", NULL, PROVIDER_OPT_STRING, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE, "F",
	  "boxes with node feature F (the tbox_group)", NULL, NULL },
	{ "partition", NULL, PROVIDER_OPT_STRING, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE, "P",
	  "the partition (default: the cluster's)", NULL, NULL },
	{ "sbatch_args", "sbatch-arg", PROVIDER_OPT_LIST, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE, "ARG",
	  "one more sbatch argument", NULL, NULL },
	{ "pending_timeout", "pending-timeout", PROVIDER_OPT_UINT, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE, "S",
	  "fail a run that waits S seconds for a box (default "
	  SLURM_STR(PROVIDER_PENDING_TIMEOUT) "; 0: wait for ever)", SLURM_STR(PROVIDER_PENDING_TIMEOUT), NULL },
	{ "max_boxes", "max-boxes", PROVIDER_OPT_UINT, PROVIDER_OPT_CLI | PROVIDER_OPT_TREE, "N",
	  "at most N boxes at once (0: the free ones, shared fairly)", "0", NULL },
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL },
};

static void slurm_close(struct provider *p)
{
	if (!p)
		return;
	free(p->spool);
	free(p->script);
	free(p->via);
	free(p->constraint);
	free(p->partition);
	for (size_t i = 0; i < p->nargs; i++)
		free(p->args[i]);
	free(p->args);
	free(p->comment);
	free(p);
}

static int slurm_check(const struct provider_config *cfg, const char **key, struct strbuf *err)
{
	(void)cfg;
	(void)key;
	(void)err;
	return 0;	/* the table says it all (via's choices, numbers) */
}

static int slurm_testbox(const struct provider_config *cfg, char **out, struct strbuf *err)
{
	(void)err;
	/* a box that boots the kernel in QEMU is the QEMU machine */
	*out = !strcmp(provider_opt(cfg, "via"), "qemu") ? xstrdup("qemu-pmem") : NULL;
	return 0;
}

static struct provider *slurm_open(const struct provider_config *cfg, struct strbuf *err)
{
	/* its arguments are argv lists between SLURM_NEXT_RUN separators, run one after another: bash's arrays keep each word one */
	static const char script[] =
		"#!/bin/bash\n"
		"# lkprobot's Slurm batch script: runs the commands in its arguments one after\n"
		"# another, each an argv, the argument " SLURM_NEXT_RUN " between two (no word is parsed).\n"
		"cmd=()\n"
		"for a in \"$@\"; do\n"
		"\tif [ \"$a\" = '" SLURM_NEXT_RUN "' ]; then \"${cmd[@]}\"; cmd=(); else cmd+=(\"$a\"); fi\n"
		"done\n"
		"exec \"${cmd[@]}\"\n";
	struct provider *p;
	ssize_t n;
	const char *v;
	size_t na;

	for (const char *const *c = (const char *const[]){ "sbatch", "squeue", "scancel", "sinfo", NULL }; *c; c++)
		if (!run_have(*c)) {
			strbuf_setf(err, "provider slurm: '%s' is not installed (Debian package slurm-client)", *c);
			return NULL;
		}
	p = xcalloc(1, sizeof(*p));
	p->cfg = *cfg;
	p->cfg.opts = NULL;	/* read here, not kept */
	p->via = xstrdup(provider_opt(cfg, "via"));
	if ((v = provider_opt(cfg, "constraint")))
		p->constraint = xstrdup(v);
	if ((v = provider_opt(cfg, "partition")))
		p->partition = xstrdup(v);
	const char *const *args = provider_opt_list(cfg, "sbatch_args", &na);
	p->args = xcalloc(na + 1, sizeof(char *));
	for (size_t i = 0; i < na; i++)
		p->args[p->nargs++] = xstrdup(args[i]);
	p->pending_timeout = (unsigned)provider_opt_uint(cfg, "pending_timeout", PROVIDER_PENDING_TIMEOUT);
	p->max_boxes = (unsigned)provider_opt_uint(cfg, "max_boxes", 0);
	char host[128] = "";
	gethostname(host, sizeof(host) - 1);
	p->comment = xasprintf("lkprobot %s:%d: %s", host, (int)getpid(), cfg->label ? cfg->label : "runs");
	p->spool = xasprintf("%s/.slurm", cfg->result_dir);
	p->script = xasprintf("%s/lkprobot-batch.sh", p->spool);
	n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	if (n <= 0 || fsutil_mkdir_p(p->spool) || fsutil_write_atomic(p->script, script, sizeof(script) - 1, err) ||
	    chmod(p->script, 0755)) {
		if (!err->len)
			strbuf_setf(err, "provider slurm: cannot write '%s': %s", p->script, strerror(errno));
		slurm_close(p);
		return NULL;
	}
	p->exe[n] = '\0';
	/* a feature no node has is refused by sbatch one run at a time: say it once, now */
	if (p->constraint) {
		struct strbuf out = STRBUF_INIT;
		char *argv[] = { "sinfo", "-h", "-o", "%f", NULL };
		int rc = slurm_cmd(argv, &out, err);
		bool found = false;
		for (char *save = NULL, *line = strtok_r(out.buf, "\n", &save); !rc && line; line = strtok_r(NULL, "\n", &save))
			found |= slurm_features_match(line, p->constraint);
		strbuf_release(&out);
		if (rc || !found) {
			if (!rc)
				strbuf_setf(err, "provider slurm: no node of the cluster has the feature '%s' (sinfo -o %%f)",
					    p->constraint);
			slurm_close(p);
			return NULL;
		}
	}
	return p;
}

static int slurm_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	(void)why;
	/* the node checks the commit out (or builds its kernel) in run-commit */
	snprintf(p->commit, sizeof(p->commit), "%s", commit ? commit : "");
	return 0;
}

/* One run: a batch of one (the ops' single run, for run-commit-like callers). */
static int slurm_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct provider_batch_item it = { .commit = p->commit, .job = job, .prepared = -1 };
	int rc = slurm_run_batch(p, &it, 1, NULL, err);

	*res = it.res;
	return rc;
}

static const char *slurm_kconfig(struct provider *p)
{
	/* what the node's provider puts in the result path */
	if (!strcmp(p->via, "qemu"))
		return p->cfg.kconfig ? p->cfg.kconfig : "x86_64-pmem";
	return NULL;
}

/*
 * The farm's boxes as `sinfo -N` sees them (name, features, state, cpus,
 * memory_mb), each with what runs there now (`squeue`: the job's comment,
 * id and name).
 */
static int slurm_inventory(const struct provider_config *cfg, struct node **out, struct strbuf *err)
{
	char *argv[] = { "sinfo", "-h", "-N", "-o", "%N|%f|%T|%c|%m", NULL };
	char *sq[] = { "squeue", "-h", "-t", "running,completing", "-o", "%N|%i|%j|%k", NULL };
	struct strbuf o = STRBUF_INIT, q = STRBUF_INIT, e = STRBUF_INIT;

	(void)cfg;
	*out = NULL;
	if (!run_have("sinfo")) {
		strbuf_setf(err, "sinfo is not installed (Debian package slurm-client)");
		return -1;
	}
	if (slurm_cmd(argv, &o, err)) {
		strbuf_release(&o);
		return -1;
	}
	if (slurm_cmd(sq, &q, &e))
		strbuf_reset(&q);	/* the boxes without what runs on them */
	static const char *const keys[] = { "name", "features", "state", "cpus", "memory_mb" };
	*out = node_new(NODE_SEQ);
	for (char *save = NULL, *line = strtok_r(o.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct node *m = node_new(NODE_MAP);
		char *f = line;
		bool dup = false;
		for (size_t i = 0; i < (*out)->n && !dup; i++)
			dup = !strncmp(node_str(node_get((*out)->vals[i], "name")), line, strcspn(line, "|")) &&
			      strlen(node_str(node_get((*out)->vals[i], "name"))) == strcspn(line, "|");
		if (dup) {
			node_free(m);
			continue;	/* a node in two partitions */
		}
		for (size_t k = 0; k < 5 && f; k++) {
			char *bar = strchr(f, '|');
			if (bar)
				*bar = '\0';
			struct node *v = node_new_scalar(f);
			v->quoted = k < 3;
			node_append(m, keys[k], v);
			f = bar ? bar + 1 : NULL;
		}
		/* what runs there: "<label> (job ID NAME)" */
		struct strbuf running = STRBUF_INIT;
		const char *name = node_str(node_get(m, "name"));
		for (const char *l = q.buf; l && *l;) {
			size_t len = strcspn(l, "\n");
			char *row = xstrndup(l, len), *a = strchr(row, '|'), *b = a ? strchr(a + 1, '|') : NULL;
			char *c = b ? strchr(b + 1, '|') : NULL;
			if (c && (size_t)(a - row) == strlen(name) && !strncmp(row, name, strlen(name))) {
				*a = *b = *c = '\0';
				const char *label = !strncmp(c + 1, "lkprobot ", 9) && strstr(c + 1, ": ") ? strstr(c + 1, ": ") + 2 : c + 1;
				strbuf_addf(&running, "%s%s (job %s %s)", running.len ? "; " : "", *label ? label : "a job", a + 1, b + 1);
			}
			free(row);
			l += len + (l[len] == '\n');
		}
		struct node *r = node_new_scalar(running.buf);
		r->quoted = true;
		node_append(m, "running", r);
		strbuf_release(&running);
		node_push(*out, m);
	}
	strbuf_release(&o);
	strbuf_release(&q);
	strbuf_release(&e);
	return 0;
}

const struct provider_ops provider_slurm = {
	.name = "slurm",
	.summary = "each run a batch job on a box of a Slurm farm, the runs of a batch at once",
	.caps = PROVIDER_PARALLEL,
	.options = slurm_options,
	.check = slurm_check,
	.testbox = slurm_testbox,
	.open = slurm_open,
	.prepare = slurm_prepare,
	.run_job = slurm_run_job,
	.kconfig = slurm_kconfig,
	.close = slurm_close,
	.run_batch = slurm_run_batch,
	.slots = slurm_slots,
	.inventory = slurm_inventory,
	.inventory_title = "The Slurm farm",
};

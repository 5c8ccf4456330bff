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
 * This file: the provider, its options, Slurm's commands and the farm's
 * boxes (slots, inventory); a batch's scheduling is slurm_batch.c.
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
#include "../lib/sys/proc.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SLURM_CMD_TIMEOUT 120	/* s: sbatch, squeue, scancel, sinfo */
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

/* Run a Slurm command: 0 with its stdout in out, or -1 with "cmd: the last line of its stderr" in err. */
int slurm_cmd(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	FILE *ef = tmpfile();	/* its stderr apart from its stdout (unlinked already) */
	int rc = -1;

	strbuf_reset(out);
	strbuf_reset(err);
	if (!ef) {
		strbuf_setf(err, "%s: cannot make a temporary file: %s", argv[0], strerror(errno));
		return -1;
	}
	/* a controller that does not answer: Slurm's own commands give up after a minute or two */
	struct proc pr = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = out, .err = fileno(ef),
			   .timeout = SLURM_CMD_TIMEOUT, .death_sig = SIGTERM };
	rc = proc_run(&pr, err);
	if (pr.timed_out)
		strbuf_setf(err, "no answer within %d s", SLURM_CMD_TIMEOUT);
	char buf[4096];
	size_t got;
	rewind(ef);
	while ((got = fread(buf, 1, sizeof(buf), ef)) > 0)
		strbuf_add(&e, buf, got);
	fclose(ef);
	strbuf_rtrim(&e);
	if (rc) {
		const char *nl = strrchr(e.buf, '\n');
		char *why = xstrdup(e.len ? (nl ? nl + 1 : e.buf) : err->len ? err->buf : "failed");
		strbuf_setf(err, "%s: %s", argv[0], why);
		free(why);
		rc = -1;
	}
	strbuf_release(&e);
	return rc;
}

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

/* Does a node's feature list (a,b,c) satisfy the constraint (F, F&G, F|G)? */
static bool features_match(const char *features, const char *constraint)
{
	if (!constraint)
		return true;
	bool any = strchr(constraint, '|') != NULL, all = true, one = false;
	char *c = xstrdup(constraint);
	for (char *save = NULL, *tok = strtok_r(c, "&|", &save); tok; tok = strtok_r(NULL, "&|", &save)) {
		bool has = false;
		size_t n = strlen(tok);
		for (const char *f = features; f && *f;) {
			size_t m = strcspn(f, ",");
			has |= m == n && !strncmp(f, tok, n);
			f += m + (f[m] == ',');
		}
		all &= has;
		one |= has;
	}
	free(c);
	return any ? one : all;
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
			found |= features_match(line, p->constraint);
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

/* ---- the farm's boxes and queue ---- */

/* Is a node in this sinfo state one that runs jobs (or will, once its current one ends)? */
static bool state_up(const char *s)
{
	static const char *const up[] = { "idle", "allocated", "alloc", "mixed", "completing", "planned", NULL };
	for (const char *const *u = up; *u; u++)
		if (!strncmp(s, *u, strlen(*u)) && !strchr(s, '*'))	/* "idle*": not responding */
			return true;
	return false;
}

/* The length of a job comment's client, "lkprobot host:pid:" (0: not an lkprobot job's). */
static size_t client_len(const char *comment)
{
	const char *a = strncmp(comment, "lkprobot ", 9) ? NULL : strchr(comment, ':');
	const char *b = a ? strchr(a + 1, ':') : NULL;
	return b ? (size_t)(b - comment) + 1 : 0;
}

/*
 * How many runs this client may have in the queue now: the boxes of the
 * constraint that are up, shared with the other lkprobot clients that
 * have jobs queued (a fair share each), and more while boxes stand idle
 * that no pending job will take. At least 1.
 */
size_t slurm_slots(struct provider *p)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	size_t up = 0, idle = 0, pending_all = 0, clients = 0;
	char **seen = NULL;
	bool me = false;

	char *part = p->partition ? xasprintf("--partition=%s", p->partition) : NULL;
	char *si[] = { "sinfo", "-h", "-N", "-o", "%N|%T|%f", part, NULL };
	if (slurm_cmd(si, &out, &err)) {
		free(part);
		strbuf_release(&out);
		strbuf_release(&err);
		return 1;
	}
	free(part);
	/* sinfo -N lists a node once per partition: count each name once */
	char **names = NULL;
	size_t nn = 0;
	for (char *save = NULL, *line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *a = strchr(line, '|'), *b = a ? strchr(a + 1, '|') : NULL;
		if (!b)
			continue;
		*a = *b = '\0';
		bool dup = false;
		for (size_t i = 0; i < nn && !dup; i++)
			dup = !strcmp(names[i], line);
		if (dup || !features_match(b + 1, p->constraint) || !state_up(a + 1))
			continue;
		names = xrealloc(names, (nn + 1) * sizeof(char *));
		names[nn++] = xstrdup(line);
		up++;
		idle += !strncmp(a + 1, "idle", 4);
	}
	for (size_t i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	char *sq[] = { "squeue", "-h", "-t", "pending,running,configuring,completing", "-o", "%T|%k", NULL };
	if (!slurm_cmd(sq, &out, &err)) {
		size_t mine = client_len(p->comment);
		for (char *save = NULL, *line = strtok_r(out.buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *bar = strchr(line, '|');
			if (!bar)
				continue;
			pending_all += !strncmp(line, "PENDING", 7);
			const char *c = bar + 1;
			size_t len = client_len(c);
			if (!len)
				continue;
			bool dup = false;
			for (size_t i = 0; i < clients && !dup; i++)
				dup = !strncmp(seen[i], c, len) && strlen(seen[i]) == len;
			me |= len == mine && !strncmp(c, p->comment, mine);
			if (!dup) {
				seen = xrealloc(seen, (clients + 1) * sizeof(char *));
				seen[clients++] = xstrndup(c, len);
			}
		}
	}
	for (size_t i = 0; i < clients; i++)
		free(seen[i]);
	free(seen);
	clients += !me;
	size_t fair = up ? (up + clients - 1) / clients : 1;
	size_t free_boxes = idle > pending_all ? idle - pending_all : 0;
	size_t slots = p->running + p->pending + free_boxes;
	if (slots < fair)
		slots = fair;
	if (slots > up)
		slots = up;
	if (p->max_boxes && slots > p->max_boxes)
		slots = p->max_boxes;
	strbuf_release(&out);
	strbuf_release(&err);
	return slots ? slots : 1;
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

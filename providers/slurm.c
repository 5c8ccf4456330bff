/*
 * provider slurm: each run is a Slurm batch job on a test box of the farm.
 * `sbatch --parsable --exclusive --constraint=<feature>` submits a fixed
 * script that execs its arguments — `lkprobot run-commit --provider
 * <via> ...` with the atomic job's file — so no value of the job ever
 * reaches a shell. The node writes the result root into the shared result
 * directory and a status file next to it; the robot follows the job with
 * `squeue` (a stable text format, no libslurm ABI), reads the status file
 * (not Slurm's accounting), submits again once when the node failed or
 * the job was preempted, and `scancel`s the job when it is stopped itself.
 */
#include "provider.h"
#include "../lib/sys/fsutil.h"
#include "../lib/util/json.h"
#include "../lib/run/run.h"
#include "../lib/sys/proc.h"
#include "../lib/util/units.h"
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

#define SLURM_POLL_US 200000	/* squeue every 0.2 s */
#define SLURM_GONE_S 60		/* a job Slurm forgot: this long for its status file on the shared file system */
#define SLURM_MAX_ARGS 64
#define SLURM_CMD_TIMEOUT 120	/* s: sbatch, squeue, scancel, sinfo */

struct provider {
	struct provider_config cfg;
	char *spool;		/* <result_dir>/.slurm: job files, status files, Slurm's output */
	char *script;		/* the batch script: exec "$@" */
	char exe[PATH_MAX];	/* this lkprobot, which the nodes run too (a shared path) */
	char commit[64];
};

/* Run a Slurm command: 0 with its stdout in out, or -1 with "cmd: the last line of its stderr" in err. */
static int slurm_cmd(struct provider *p, char *const argv[], struct strbuf *out, struct strbuf *err)
{
	char *of = xasprintf("%s/.stdout.%d", p->spool, (int)getpid()), *ef = xasprintf("%s/.stderr.%d", p->spool, (int)getpid());
	int ofd = open(of, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int efd = open(ef, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct strbuf e = STRBUF_INIT;
	int rc = -1;

	strbuf_reset(out);
	strbuf_reset(err);
	if (ofd >= 0 && efd >= 0) {
		/* a controller that does not answer: Slurm's own commands give up after a minute or two */
		struct proc pr = { .argv = argv, .in = PROC_NULL, .out = ofd, .err = efd, .timeout = SLURM_CMD_TIMEOUT,
				   .death_sig = SIGTERM };
		rc = proc_run(&pr, err);
		if (pr.timed_out)
			strbuf_setf(err, "no answer within %d s", SLURM_CMD_TIMEOUT);
	} else
		strbuf_setf(err, "cannot write in '%s': %s", p->spool, strerror(errno));
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	strbuf_read_file(out, of);
	strbuf_read_file(&e, ef);
	unlink(of);
	unlink(ef);
	free(of);
	free(ef);
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

static struct provider *slurm_open(const struct provider_config *cfg, struct strbuf *err)
{
	static const char script[] = "#!/bin/sh\n# lkprobot's Slurm batch script: it runs its arguments, an argv.\nexec \"$@\"\n";
	struct provider *p;
	ssize_t n;

	for (const char *const *c = (const char *const[]){ "sbatch", "squeue", "scancel", "sinfo", NULL }; *c; c++)
		if (!run_have(*c)) {
			strbuf_setf(err, "provider slurm: '%s' is not installed (Debian package slurm-client)", *c);
			return NULL;
		}
	if (!cfg->slurm_via || (strcmp(cfg->slurm_via, "local") && strcmp(cfg->slurm_via, "qemu"))) {
		strbuf_setf(err, "provider slurm: --via must be local or qemu (what the node runs)");
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->cfg = *cfg;
	p->spool = xasprintf("%s/.slurm", cfg->result_dir);
	p->script = xasprintf("%s/lkprobot-batch.sh", p->spool);
	n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	if (n <= 0 || fsutil_mkdir_p(p->spool) || fsutil_write_atomic(p->script, script, sizeof(script) - 1, err) ||
	    chmod(p->script, 0755)) {
		if (!err->len)
			strbuf_setf(err, "provider slurm: cannot write '%s': %s", p->script, strerror(errno));
		free(p->spool);
		free(p->script);
		free(p);
		return NULL;
	}
	p->exe[n] = '\0';
	/* a feature no node has is refused by sbatch one run at a time: say it once, now */
	if (cfg->slurm_constraint) {
		struct strbuf out = STRBUF_INIT;
		char *argv[] = { "sinfo", "-h", "-o", "%f", NULL };
		int rc = slurm_cmd(p, argv, &out, err);
		bool found = false;
		for (char *tok = strtok(out.buf, ",\n"); !rc && tok; tok = strtok(NULL, ",\n"))
			found |= !strcmp(tok, cfg->slurm_constraint);
		strbuf_release(&out);
		if (rc || !found) {
			if (!rc)
				strbuf_setf(err, "provider slurm: no node of the cluster has the feature '%s' (sinfo -o %%f)",
					    cfg->slurm_constraint);
			free(p->spool);
			free(p->script);
			free(p);
			return NULL;
		}
	}
	return p;
}

static int slurm_prepare(struct provider *p, const char *commit, struct strbuf *why)
{
	(void)why;
	/* the node checks the commit out (or builds its kernel) in run-commit */
	snprintf(p->commit, sizeof(p->commit), "%s", commit);
	return 0;
}

/* The job's state, reason and node from squeue; "" when Slurm has forgotten the job. */
static int slurm_state(struct provider *p, const char *id, char *state, size_t n, char *reason, size_t rn,
		       char *node, size_t nn, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	char *argv[] = { "squeue", "-h", "-t", "all", "-j", (char *)id, "-o", "%T|%r|%N", NULL };
	int rc = slurm_cmd(p, argv, &out, err);

	*state = *reason = *node = '\0';
	if (!rc) {
		char *a = out.buf, *b = strchr(a, '|'), *c = b ? strchr(b + 1, '|') : NULL;
		strbuf_rtrim(&out);
		if (b && c) {
			snprintf(state, n, "%.*s", (int)(b - a), a);
			snprintf(reason, rn, "%.*s", (int)(c - b - 1), b + 1);
			snprintf(node, nn, "%s", c + 1);
		}
	}
	strbuf_release(&out);
	return rc;
}

static bool slurm_final(const char *state)
{
	static const char *const done[] = { "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
					    "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", NULL };
	for (const char *const *d = done; *d; d++)
		if (!strcmp(state, *d))
			return true;
	return false;
}

/* scancel id (a job that ended already: nothing to do, nothing said) */
static void slurm_cancel(struct provider *p, const char *id)
{
	char *argv[] = { "scancel", (char *)id, NULL };
	struct strbuf o = STRBUF_INIT, e = STRBUF_INIT;

	slurm_cmd(p, argv, &o, &e);
	strbuf_release(&o);
	strbuf_release(&e);
}

/* Submit one batch job for the run; its id into id. */
static int slurm_submit(struct provider *p, const struct node *job, const char *jobfile, const char *status,
			const char *tag, char *id, size_t idn, struct strbuf *err)
{
	char *argv[SLURM_MAX_ARGS];
	int a = 0;
	char *output = xasprintf("--output=%s/%s.out", p->spool, tag), *name = xasprintf("--job-name=lkprobot-%.12s", p->commit);
	char *constraint = p->cfg.slurm_constraint ? xasprintf("--constraint=%s", p->cfg.slurm_constraint) : NULL;
	char *partition = p->cfg.slurm_partition ? xasprintf("--partition=%s", p->cfg.slurm_partition) : NULL;
	struct strbuf out = STRBUF_INIT;

	argv[a++] = "sbatch";
	argv[a++] = "--parsable";
	argv[a++] = "--exclusive";	/* a benchmark is alone on its box */
	argv[a++] = "--no-requeue";	/* after a node failure we submit again, once */
	argv[a++] = name;
	argv[a++] = output;
	if (constraint)
		argv[a++] = constraint;
	if (partition)
		argv[a++] = partition;
	/*
	 * The time limit from the job's runtime (run_job_timeout), plus the
	 * node's preparation: 10 minutes for a checkout, 60 for a kernel build
	 * and boot. --sbatch-arg --time=... wins.
	 */
	bool have_time = false;
	for (size_t i = 0; i < p->cfg.slurm_nargs; i++)
		have_time |= !strncmp(p->cfg.slurm_args[i], "--time", 6) || !strncmp(p->cfg.slurm_args[i], "-t", 2);
	unsigned limit = run_job_timeout(job) + (strcmp(p->cfg.slurm_via, "qemu") ? 600 : 3600);
	char *tlimit = have_time ? NULL : xasprintf("--time=%u", (limit + 59) / 60);
	if (tlimit)
		argv[a++] = tlimit;
	for (size_t i = 0; i < p->cfg.slurm_nargs && a < SLURM_MAX_ARGS - 24; i++)
		argv[a++] = (char *)p->cfg.slurm_args[i];
	argv[a++] = p->script;
	argv[a++] = p->exe;
	argv[a++] = "run-commit";
	argv[a++] = "--provider";
	argv[a++] = (char *)p->cfg.slurm_via;
	argv[a++] = "--tree";
	argv[a++] = (char *)p->cfg.tree;
	argv[a++] = "--commit";
	argv[a++] = p->commit;
	argv[a++] = "-o";
	argv[a++] = (char *)p->cfg.result_dir;
	argv[a++] = "--cache";
	argv[a++] = (char *)p->cfg.cache;
	argv[a++] = "--status";
	argv[a++] = (char *)status;
	if (p->cfg.kconfig) {
		argv[a++] = "--kconfig";
		argv[a++] = (char *)p->cfg.kconfig;
	}
	if (p->cfg.testbox) {
		argv[a++] = "-t";
		argv[a++] = (char *)p->cfg.testbox;
	}
	argv[a++] = (char *)jobfile;
	argv[a] = NULL;
	int rc = slurm_cmd(p, argv, &out, err);
	strbuf_rtrim(&out);
	/* --parsable: "ID" or "ID;cluster" */
	if (!rc && (!out.len || strspn(out.buf, "0123456789") == 0)) {
		strbuf_setf(err, "sbatch: no job id in its answer '%s'", out.buf);
		rc = -1;
	}
	if (!rc)
		snprintf(id, idn, "%.*s", (int)strspn(out.buf, "0123456789"), out.buf);
	free(output);
	free(name);
	free(constraint);
	free(partition);
	free(tlimit);
	strbuf_release(&out);
	return rc;
}

static int slurm_run_job(struct provider *p, struct node *job, struct provider_run *res, struct strbuf *err)
{
	struct strbuf yaml = STRBUF_INIT, st = STRBUF_INIT;
	char tag[64], id[32] = "", state[32], reason[128], node[128];
	struct timespec ts;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(tag, sizeof(tag), "%.12s-%ld-%09ld-%d", p->commit, (long)ts.tv_sec, ts.tv_nsec, (int)getpid());
	char *jobfile = xasprintf("%s/%s.yaml", p->spool, tag), *status = xasprintf("%s/%s.status", p->spool, tag);
	yml_emit(&yaml, job);
	if (fsutil_write_atomic(jobfile, yaml.buf, yaml.len, err))
		goto out;

	struct proc_saved_stop saved;
	proc_catch_stop(&saved);
	const char *lost = NULL;	/* the node failure that cost the first submission */
	double pending_since = 0, gone_since = 0;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (slurm_submit(p, job, jobfile, status, tag, id, sizeof(id), err))
			break;
		pending_since = gone_since = 0;
		for (;;) {
			if (proc_stop_signal) {
				int sig = proc_stop_signal;
				slurm_cancel(p, id);
				fprintf(stderr, "lkprobot: stopped (%s): Slurm job %s cancelled\n", strsignal(sig), id);
				proc_restore_stop(&saved);
				raise(sig);
				goto out;	/* a handler that returned */
			}
			if (slurm_state(p, id, state, sizeof(state), reason, sizeof(reason), node, sizeof(node), err))
				goto done;
			if (!*state && !access(status, R_OK))
				break;	/* forgotten by Slurm, but its status is there */
			if (slurm_final(state))
				break;
			double now = proc_now();
			if (!*state && !gone_since)
				gone_since = now;
			else if (!*state && now - gone_since > SLURM_GONE_S)
				break;	/* said below: ended without a status file */
			else if (*state)
				gone_since = 0;
			if (!strcmp(state, "PENDING") && p->cfg.slurm_pending_timeout > 0) {
				if (!pending_since)
					pending_since = now;
				else if (now - pending_since > p->cfg.slurm_pending_timeout) {
					slurm_cancel(p, id);
					res->job_state = "failed";
					res->reason = xasprintf("Slurm job %s still pending after %d s (%s)%s%s: cancelled", id,
								p->cfg.slurm_pending_timeout, reason, lost ? "; before that " : "",
								lost ? lost : "");
					ret = 0;
					goto done;
				}
			} else {
				pending_since = 0;
			}
			usleep(SLURM_POLL_US);
		}
		if (!strcmp(state, "NODE_FAIL") || !strcmp(state, "PREEMPTED") || !strcmp(state, "BOOT_FAIL")) {
			/* not the commit's fault: once more, on whatever box is up */
			free((char *)lost);
			lost = xasprintf("Slurm job %s: %s on %s", id, state, *node ? node : "its node");
			if (attempt == 0) {
				fprintf(stderr, "lkprobot: %s; submitted again\n", lost);
				continue;
			}
			res->job_state = "failed";
			res->reason = xasprintf("%s, and the job submitted again failed the same way", lost);
			ret = 0;
			goto done;
		}
		break;
	}
	if (!*id)
		goto done;	/* sbatch refused: err says why */
	if (strbuf_read_file(&st, status)) {
		res->job_state = !strcmp(state, "CANCELLED") ? "killed" : "failed";
		res->reason = xasprintf("Slurm job %s ended %s%s%s without a status file (see %s/%s.out)", id,
					*state ? state : "(forgotten)", *node ? " on " : "", node, p->spool, tag);
		ret = 0;
		goto done;
	}
	struct node *js = json_parse(st.buf, st.len, status, err);
	if (!js)
		goto done;
	const char *rd = node_str(node_get(js, "run_dir")), *js_state = node_str(node_get(js, "job_state"));
	const char *why = node_str(node_get(js, "reason"));
	static const char *const known[] = { "finished", "failed", "timeout", "killed", "panic", "boot_failed",
					     "build_failed", NULL };
	res->job_state = "failed";
	for (const char *const *k = known; *k; k++)
		if (js_state && !strcmp(js_state, *k))
			res->job_state = *k;
	res->run_dir = rd ? xstrdup(rd) : NULL;
	res->untestable = node_str(node_get(js, "untestable")) && !strcmp(node_str(node_get(js, "untestable")), "true");
	res->reason = why ? xstrdup(why) : NULL;
	node_free(js);
	ret = 0;
done:
	free((char *)lost);
	proc_restore_stop(&saved);
out:
	free(jobfile);
	free(status);
	strbuf_release(&yaml);
	strbuf_release(&st);
	return ret;
}

static const char *slurm_kconfig(struct provider *p)
{
	/* what the node's provider puts in the result path */
	if (!strcmp(p->cfg.slurm_via, "qemu"))
		return p->cfg.kconfig ? p->cfg.kconfig : "x86_64-pmem";
	return NULL;
}

static void slurm_close(struct provider *p)
{
	if (!p)
		return;
	free(p->spool);
	free(p->script);
	free(p);
}

const struct provider_ops provider_slurm = {
	.name = "slurm",
	.open = slurm_open,
	.prepare = slurm_prepare,
	.run_job = slurm_run_job,
	.kconfig = slurm_kconfig,
	.close = slurm_close,
};

int slurm_boxes(struct node **out, struct strbuf *err)
{
	char *argv[] = { "sinfo", "-h", "-N", "-o", "%N|%f|%T|%c|%m", NULL };
	struct strbuf o = STRBUF_INIT;
	int rc;

	*out = NULL;
	if (!run_have("sinfo")) {
		strbuf_setf(err, "sinfo is not installed (Debian package slurm-client)");
		return -1;
	}
	struct proc pr = { .argv = argv, .in = PROC_NULL, .out = PROC_CAPTURE, .capture = &o,
			   .timeout = SLURM_CMD_TIMEOUT, .death_sig = SIGTERM };
	rc = proc_run(&pr, err);
	if (rc) {
		if (!err->len)
			strbuf_setf(err, "sinfo failed (exit %d): is the cluster up, and SLURM_CONF right?", rc);
		strbuf_release(&o);
		return -1;
	}
	static const char *const keys[] = { "name", "features", "state", "cpus", "memory_mb" };
	*out = node_new(NODE_SEQ);
	for (char *line = strtok(o.buf, "\n"); line; line = strtok(NULL, "\n")) {
		struct node *m = node_new(NODE_MAP);
		char *f = line;
		for (size_t k = 0; k < 5 && f; k++) {
			char *bar = strchr(f, '|');
			if (bar)
				*bar = '\0';
			struct node *v = node_new_scalar(f);
			v->quoted = k < 3;
			node_append(m, keys[k], v);
			f = bar ? bar + 1 : NULL;
		}
		node_push(*out, m);
	}
	strbuf_release(&o);
	return 0;
}

/*
 * slurm_cmd: Slurm's commands for provider slurm — running one (sbatch,
 * squeue, scancel, sinfo) with a bound on its wait, and what sinfo and
 * squeue say of the farm: the boxes a constraint matches, the slots a
 * batch of ours may take now. slurm.c (the provider) and slurm_batch.c
 * (a batch's runs) call these; they call neither.
 */
#include "slurm_int.h"
#include "../lib/sys/proc.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLURM_CMD_TIMEOUT 120 /* s: sbatch, squeue, scancel, sinfo */

/* Run a Slurm command: 0 with its stdout in out, or -1 with "cmd: the last line of its stderr" in err. */
int slurm_cmd(char *const argv[], struct strbuf *out, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	FILE *ef = tmpfile(); /* its stderr apart from its stdout (unlinked already) */
	int rc = -1;

	strbuf_reset(out);
	strbuf_reset(err);
	if (!ef) {
		strbuf_setf(err, "%s: cannot make a temporary file: %s", argv[0], strerror(errno));
		return -1;
	}
	/* a controller that does not answer: Slurm's own commands give up after a minute or two */
	struct proc pr = { .argv = argv,
			   .in = PROC_NULL,
			   .out = PROC_CAPTURE,
			   .capture = out,
			   .err = fileno(ef),
			   .timeout = SLURM_CMD_TIMEOUT,
			   .death_sig = SIGTERM };
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

/* Does a node's feature list (a,b,c) satisfy the constraint (F, F&G, F|G)? */
bool slurm_features_match(const char *features, const char *constraint)
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

/* ---- the farm's boxes and queue ---- */

/* Is a node in this sinfo state one that runs jobs (or will, once its current one ends)? */
static bool state_up(const char *s)
{
	static const char *const up[] = { "idle", "allocated", "alloc", "mixed", "completing", "planned", NULL };
	for (const char *const *u = up; *u; u++)
		if (!strncmp(s, *u, strlen(*u)) && !strchr(s, '*')) /* "idle*": not responding */
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
		if (dup || !slurm_features_match(b + 1, p->constraint) || !state_up(a + 1))
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
		for (char *save = NULL, *line = strtok_r(out.buf, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
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

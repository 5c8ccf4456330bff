/*
 * box_run: one run on a box — boot it into the kernel, wait for it (power-cycle
 * it when it does not come back), check it, run the job there, bring the
 * result home; the box's failures in the store. See box.h.
 */
#include "box.h"
#include "box_int.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/kernel/git.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/job/job.h"
#include "../lib/sys/machine.h"
#include "../lib/results/result.h"
#include "../lib/run/run.h"
#include "../lib/store/store.h"
#include "../lib/util/conf.h"
#include "../lib/util/units.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BOX_POLL_S 2		/* how often a rebooting box is asked whether it is back */

/* ---- a run ---- */

void box_run_release(struct box_run *r)
{
	free(r->run_dir);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

struct probe {
	char boot_id[64];
	struct strbuf release, cmdline;
};

/* What kernel the box runs: 0, or the ssh status (255: not reachable). */
static int box_probe(const struct box *b, struct probe *p, int timeout, struct strbuf *err)
{
	struct strbuf out = STRBUF_INIT;
	int rc = box_ssh(b, "cat /proc/sys/kernel/random/boot_id; uname -r; cat /proc/cmdline", -1, &out, timeout, err);

	if (!rc) {
		char *l1 = out.buf, *l2 = strchr(l1, '\n'), *l3 = l2 ? strchr(l2 + 1, '\n') : NULL;
		if (!l3) {
			strbuf_setf(err, "box %s answered something else than boot_id, uname -r and /proc/cmdline", b->name);
			rc = -1;
		} else {
			snprintf(p->boot_id, sizeof(p->boot_id), "%.*s", (int)(l2 - l1), l1);
			strbuf_reset(&p->release);
			strbuf_add(&p->release, l2 + 1, (size_t)(l3 - l2 - 1));
			strbuf_reset(&p->cmdline);
			strbuf_addstr(&p->cmdline, l3 + 1);
			strbuf_rtrim(&p->cmdline);
		}
	}
	strbuf_release(&out);
	return rc;
}

/* Does the command line hold this word? */
static bool has_word(const char *cmdline, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = cmdline; (p = strstr(p, word)); p += n)
		if ((p == cmdline || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * Wait for the box to answer from another boot than old_boot_id. 0 back
 * (p filled), 1 not within timeout seconds.
 */
static int wait_back(const struct box *b, const char *old_boot_id, int timeout, struct probe *p)
{
	double deadline = proc_now() + timeout;
	struct strbuf e = STRBUF_INIT;

	while (proc_now() < deadline) {
		int left = (int)(deadline - proc_now()) + 1;
		if (!box_probe(b, p, left < 30 ? left : 30, &e) && strcmp(p->boot_id, old_boot_id)) {
			strbuf_release(&e);
			return 0;
		}
		sleep(BOX_POLL_S);
	}
	strbuf_release(&e);
	return 1;
}

/* Power-cycle the box with its command and wait for it; what happened, said in why. */
static void power_cycle(const struct box *b, const char *old_boot_id, struct strbuf *why)
{
	struct strbuf e = STRBUF_INIT;
	struct probe p = { .release = STRBUF_INIT, .cmdline = STRBUF_INIT };
	bool timed_out;
	int efd;

	if (!b->power_cycle_cmd) {
		strbuf_addstr(why, "; no power_cycle_cmd is configured: the box needs a hand");
		return;
	}
	FILE *ef = tmpfile();
	efd = ef ? fileno(ef) : -1;
	int rc = box_spawn(b->power_cycle_cmd, -1, efd, efd, 120, &timed_out, &e);
	if (rc) {
		if (efd >= 0 && rc > 0)
			box_last_line(efd, &e);
		strbuf_addf(why, "; power_cycle_cmd %s failed (%s%s%d)%s%s", b->power_cycle_cmd[0],
			    timed_out ? "killed after 120 s, " : "", "status ", rc, e.len ? ": " : "", e.buf);
	} else if (wait_back(b, old_boot_id, b->boot_timeout, &p)) {
		strbuf_addf(why, "; power-cycled, and it did not answer within %d s either", b->boot_timeout);
	} else {
		strbuf_addstr(why, "; power-cycled: it is back");
	}
	if (ef)
		fclose(ef);
	strbuf_release(&e);
	strbuf_release(&p.release);
	strbuf_release(&p.cmdline);
}

/* A result root here for a run that never ran: job.yaml says why. */
static char *failed_root(const struct box *b, const struct node *job, const char *rt, const char *state,
			 const char *why, struct strbuf *err)
{
	char *dir = NULL;
	int no;

	if (result_claim_run(rt, &dir, &no, err))
		return NULL;
	struct node *j = node_dup(job), *facts = node_new(NODE_MAP);
	struct strbuf out = STRBUF_INIT;
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", (long long)time(NULL));
	node_set(j, "job_state", node_new_scalar(state));
	struct node *r = node_new_scalar(why);
	r->quoted = 1;
	node_set(j, "job_state_reason", r);
	node_set(j, "start_time", node_new_scalar(buf));
	node_set(j, "lkprobot_version", node_new_scalar(LKPROBOT_VERSION));
	char *where = xasprintf("%s (%s@%s:%d)", b->name, b->user, b->host, b->port);
	struct node *w = node_new_scalar(where);
	w->quoted = 1;
	node_set(facts, "box", w);
	node_set(j, "facts", facts);
	free(where);
	strbuf_addstr(&out, "---\n");
	yml_emit(&out, j);
	char *path = xasprintf("%s/job.yaml", dir);
	if (fsutil_write_atomic(path, out.buf, out.len, err)) {
		free(dir);
		dir = NULL;
	}
	free(path);
	node_free(j);
	strbuf_release(&out);
	return dir;
}

/* The box failed this run: counted in the store, maybe out of service now. */
static void box_failure(const struct box *b, struct store *s, struct box_run *r)
{
	struct strbuf e = STRBUF_INIT;

	r->box_failed = true;
	if (s) {
		int rc = store_box_failed(s, b->name, r->reason, b->max_failures, (int64_t)time(NULL), &e);
		if (rc < 0)
			fprintf(stderr, "lkprobot: warning: %s\n", e.buf);
		r->out_of_service = rc == 1;
		if (r->out_of_service) {
			char *more = xasprintf("%s; box %s is out of service after %d failures in a row "
					       "('lkprobot box enable %s' puts it back)",
					       r->reason, b->name, b->max_failures, b->name);
			free(r->reason);
			r->reason = more;
		}
	}
	strbuf_release(&e);
}

/*
 * The job ran, or may have, but nothing came home: a failure of the box
 * (counted) and a result root here saying why. Takes reason. 0, or -1
 * with err set when not even that root could be written.
 */
static int lost_run(const struct box *b, struct store *s, const struct node *job, const char *rt, struct box_run *r,
		    char *reason, struct strbuf *err)
{
	r->job_state = "failed";
	r->reason = reason;
	strbuf_reset(err);
	box_failure(b, s, r);
	r->run_dir = failed_root(b, job, rt, r->job_state, r->reason, err);
	return r->run_dir ? 0 : -1;
}

/* Fill the result path's axes the job leaves to the machine, so that the box and we agree on it. */
static void fill_axes(struct node *job, const struct box *b, const struct machine *m)
{
	const char *axes[][2] = { { "tbox_group", b->tbox_group }, { "rootfs", m->rootfs }, { "kconfig", m->kconfig },
				  { "compiler", m->compiler }, { "commit", m->commit } };
	for (size_t i = 0; i < sizeof(axes) / sizeof(axes[0]); i++)
		if (!job_get_str(job, axes[i][0]) && axes[i][1])
			node_set(job, axes[i][0], node_new_scalar(axes[i][1]));
}

/* boot.yaml: what `lkprobot box boot` does on the box (the kernel copied to rdir/bzImage). */
static void boot_yaml(const struct box *b, const char *rdir, const char *cmdline, struct strbuf *out)
{
	struct node *boot = node_new(NODE_MAP);
	char *kpath = xasprintf("%s/bzImage", rdir);

	node_set(boot, "kernel", node_new_scalar(kpath));
	if (b->initrd)
		node_set(boot, "initrd", node_new_scalar(b->initrd));
	struct node *cl = node_new_scalar(cmdline);
	cl->quoted = 1;
	node_set(boot, "cmdline", cl);
	node_set(boot, "method", node_new_scalar(b->reboot ? "reboot" : "kexec"));
	if (b->reboot) {
		struct node *seq = node_new(NODE_SEQ);
		for (char **a = b->reboot_cmd; *a; a++) {
			struct node *v = node_new_scalar(*a);
			v->quoted = 1;
			node_push(seq, v);
		}
		node_set(boot, "reboot_cmd", seq);
	}
	yml_emit(out, boot);
	node_free(boot);
	free(kpath);
}

/* Back with the kernel (release) and parameters (want) asked for: 0; or it fell back to another one: 1, r filled. */
static int booted_right(struct box *b, const struct probe *after, const char *release, const char *want,
			struct store *s, struct box_run *r)
{
	bool params = true;
	char *words = xstrdup(want);

	for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		params &= has_word(after->cmdline.buf, w);
	free(words);
	if (!strcmp(after->release.buf, release) && params)
		return 0;
	r->job_state = "boot_failed";
	r->reason = xasprintf("box %s came back running %s with the command line '%s', not %s with '%s': "
			      "it did not boot the kernel under test", b->name, after->release.buf, after->cmdline.buf,
			      release, want + 1);
	box_failure(b, s, r);
	return 1;
}

/* Boot the box into kernel: 0 it runs it, 1 it failed (r filled), -1 error. */
static int box_boot(struct box *b, const char *kernel, const struct node *job, const char *id, const char *rdir,
		    struct store *s, struct box_run *r, struct strbuf *err)
{
	struct probe before = { .release = STRBUF_INIT, .cmdline = STRBUF_INIT };
	struct probe after = { .release = STRBUF_INIT, .cmdline = STRBUF_INIT };
	struct strbuf release = STRBUF_INIT, cmdline = STRBUF_INIT, want = STRBUF_INIT, why = STRBUF_INIT,
		      out = STRBUF_INIT;
	int ret = -1;

	if (box_kernel_release(kernel, &release, err))
		goto out;
	int rc = box_probe(b, &before, 60, err);
	if (rc) {
		box_err(b, err, rc == 255 ? "cannot reach it" : "cannot ask which kernel it runs");
		goto out;
	}
	/* the box's own command line, without what an earlier run added */
	if (b->cmdline) {
		strbuf_addstr(&cmdline, b->cmdline);
	} else {
		char *mark = strstr(before.cmdline.buf, " lkprobot.run=");
		strbuf_add(&cmdline, before.cmdline.buf, mark ? (size_t)(mark - before.cmdline.buf) : before.cmdline.len);
	}
	strbuf_addf(&want, " lkprobot.run=%s", id);
	job_boot_params(job, &want);
	strbuf_add(&cmdline, want.buf, want.len);

	boot_yaml(b, rdir, cmdline.buf, &out);
	char *cmd = xasprintf("cat > %s/boot.yaml", rdir);
	rc = box_ssh_text(b, cmd, out.buf, out.len, 60, err);
	free(cmd);
	int fd = rc ? -1 : open(kernel, O_RDONLY | O_CLOEXEC);
	cmd = xasprintf("cat > %s/bzImage", rdir);
	if (!rc)
		rc = fd < 0 ? -1 : box_ssh(b, cmd, fd, NULL, 600, err);
	if (fd >= 0)
		close(fd);
	free(cmd);
	if (rc) {
		box_err(b, err, "cannot copy the kernel there");
		goto out;
	}
	cmd = xasprintf("%s box boot %s/boot.yaml", b->agent, rdir);
	rc = box_ssh(b, cmd, -1, NULL, 120, err);
	free(cmd);
	if (rc == 255 || rc < 0) {
		box_err(b, err, "cannot reach it");
		goto out;
	}
	if (rc) {
		/* kexec -l refused the image: the kernel's fault or the box's, but nothing booted */
		r->job_state = "boot_failed";
		r->reason = xasprintf("box %s could not load the kernel: %s", b->name, err->len ? err->buf : "no reason given");
		strbuf_reset(err);
		ret = 1;
		goto out;
	}
	fprintf(stderr, "lkprobot: box %s: booting %s (%s) with%s\n", b->name, release.buf, b->reboot ? "reboot_cmd" : "kexec",
		want.buf);
	if (wait_back(b, before.boot_id, b->boot_timeout, &after)) {
		strbuf_addf(&why, "box %s did not answer within %d s of %s into %s", b->name, b->boot_timeout,
			    b->reboot ? "its reboot_cmd" : "kexec", release.buf);
		fprintf(stderr, "lkprobot: %s\n", why.buf);
		power_cycle(b, before.boot_id, &why);
		r->job_state = "boot_failed";
		r->reason = strbuf_detach(&why);
		box_failure(b, s, r);
		ret = 1;
		goto out;
	}
	ret = booted_right(b, &after, release.buf, want.buf, s, r);
out:
	strbuf_release(&before.release);
	strbuf_release(&before.cmdline);
	strbuf_release(&after.release);
	strbuf_release(&after.cmdline);
	strbuf_release(&release);
	strbuf_release(&cmdline);
	strbuf_release(&want);
	strbuf_release(&why);
	strbuf_release(&out);
	return ret;
}

/* The run dir `lkprobot run` printed ("<state> <dir> (test ...)"): prefix/rel/<N>. */
static char *printed_run_dir(const char *out, const char *prefix, const char *rel)
{
	char *want = xasprintf("%s/%s/", prefix, rel), *dir = NULL;

	for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *sp = strchr(l, ' ');
		size_t n = sp ? strcspn(sp + 1, " \n") : 0;
		if (sp && n > strlen(want) && !strncmp(sp + 1, want, strlen(want))) {
			char *d = xstrndup(sp + 1, n);
			const char *tail = d + strlen(want);
			if (*tail && strspn(tail, "0123456789") == strlen(tail)) {
				dir = d;
				break;
			}
			free(d);
		}
	}
	free(want);
	return dir;
}

/*
 * What came home is checked: a job.yaml with a state, stats made here by
 * this robot's parsers, the box's dmesg beside them; the box did its job
 * (store). Problems are warnings: the run is there.
 */
static void check_home(const struct box *b, const char *rt, struct store *s, struct box_run *r)
{
	struct strbuf e = STRBUF_INIT;

	FILE *dm = tmpfile();
	if (dm && !box_ssh_to(b, "dmesg", -1, fileno(dm), 60, &e)) {
		struct strbuf text = STRBUF_INIT;
		char *p = xasprintf("%s/dmesg", r->run_dir);
		box_read_all(fileno(dm), &text);
		if (access(p, F_OK) && fsutil_write_atomic(p, text.buf, text.len, &e))
			fprintf(stderr, "lkprobot: warning: %s\n", e.buf);
		free(p);
		strbuf_release(&text);
	}
	if (dm)
		fclose(dm);
	struct strbuf text = STRBUF_INIT;
	char *jp = xasprintf("%s/job.yaml", r->run_dir);
	struct node *got = strbuf_read_bounded(&text, jp, JOB_MAX_BYTES, NULL) ? NULL : yml_load_one(text.buf, jp, &e);
	const char *state = got ? node_str(node_get(got, "job_state")) : NULL;
	static const char *const known[] = { "finished", "failed", "timeout", "killed", NULL };
	r->job_state = "failed";
	for (const char *const *k = known; state && *k; k++)
		if (!strcmp(state, *k))
			r->job_state = *k;
	if (!state) {
		r->reason = xasprintf("box %s: the result root has no job.yaml with a job_state", b->name);
	} else if (node_str(node_get(got, "job_state_reason"))) {
		r->reason = xstrdup(node_str(node_get(got, "job_state_reason")));
	}
	node_free(got);
	free(jp);
	strbuf_release(&text);
	struct node *problems = node_new(NODE_MAP);
	if (state && result_restat(r->run_dir, false, problems, &e))
		fprintf(stderr, "lkprobot: warning: %s\n", e.buf);
	node_free(problems);
	if (result_update_matrix(rt, &e))
		fprintf(stderr, "lkprobot: warning: %s\n", e.buf);
	if (s && store_box_ok(s, b->name, (int64_t)time(NULL), &e) < 0)
		fprintf(stderr, "lkprobot: warning: %s\n", e.buf);
	strbuf_release(&e);
}

/*
 * Home: the box's result tree (rdir/result) as a tar stream into tarf
 * (only paths made here on its command line), unpacked aside, its one run
 * (rel/tail) moved into a run directory of our own under rt (r->run_dir).
 * 0, or -1 with err set.
 */
static int bring_home(const struct box *b, const char *rdir, const char *tail, const char *rel, const char *rt,
		      const char *tarf, struct box_run *r, struct strbuf *err)
{
	char *aside = xstrndup(tarf, strlen(tarf) - strlen(".tar")), *from = xasprintf("%s/%s/%s", aside, rel, tail);
	char *cmd = xasprintf("tar -C %s/result -cf - .", rdir);
	int tfd = open(tarf, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = tfd < 0 ? -1 : box_ssh_to(b, cmd, -1, tfd, 600, err);

	if (tfd >= 0)
		close(tfd);
	char *tar[] = { "tar", "-xf", (char *)tarf, "-C", aside, "--no-same-owner", NULL };
	if (!rc && (fsutil_mkdir_p(aside) || run_exec(tar, -1, 2, err)))
		rc = -1;
	if (!rc && (result_claim_run(rt, &r->run_dir, &(int){ 0 }, err) || rename(from, r->run_dir))) {
		if (!err->len)
			strbuf_setf(err, "%s: %s", from, strerror(errno));
		rc = -1;
	}
	fsutil_remove_tree(aside);
	free(aside);
	free(from);
	free(cmd);
	return rc;
}

/* Is box name in service? 1 yes, 0 no (why said in err), -1 with err set. */
static int box_in_service(const char *name, struct store *s, struct strbuf *err)
{
	struct node *row = NULL;

	if (s && store_box_get(s, name, &row, err) < 0)
		return -1;
	const char *in = row ? node_str(node_get(row, "in_service")) : NULL;
	int rc = !(in && !strcmp(in, "0"));
	if (!rc) {
		const char *last = node_str(node_get(row, "last_error"));
		strbuf_setf(err, "box %s is out of service (%s); 'lkprobot box enable %s' puts it back", name,
			    last ? last : "taken out by hand", name);
	}
	node_free(row);
	return rc;
}

/* The lock file of box name's runs under result_dir (its directory made), opened; -1 when it cannot be. */
static int box_lock_open(const char *name, const char *result_dir, char **path)
{
	char *lock = xasprintf("%s/.boxes/%s.lock", result_dir, name);

	*strrchr(lock, '/') = '\0';
	fsutil_mkdir_p(lock);
	lock[strlen(lock)] = '/';
	int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (path)
		*path = lock;
	else
		free(lock);
	return fd;
}

int box_available(const char *name, const char *result_dir, struct store *s, struct strbuf *why)
{
	int rc = box_in_service(name, s, why);

	if (rc <= 0)
		return rc < 0 ? -1 : BOX_OUT;
	int fd = box_lock_open(name, result_dir, NULL);
	rc = BOX_FREE;
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		strbuf_setf(why, "box %s: another run has it", name);
		rc = BOX_HELD;
	}
	if (fd >= 0)
		close(fd);	/* the lock, if it was ours, goes with it */
	return rc;
}

#define BOX_TAKE_WAIT (24 * 3600) /* s: another run's hold on a box (its boots and its job) */

/*
 * The box for one run: in service (else -2, err says so), and ours alone —
 * one run at a time on a box: a second robot process waits (a kexec would
 * pull the box from under the first), up to BOX_TAKE_WAIT s and not past a
 * SIGTERM (-2, err says who has it). The lock's fd (-1: no lock file).
 */
static int box_take(const struct box *b, const char *result_dir, struct store *s, struct strbuf *err)
{
	if (box_in_service(b->name, s, err) <= 0)
		return -2;
	char *lock;
	int lock_fd = box_lock_open(b->name, result_dir, &lock);
	if (lock_fd >= 0 && flock(lock_fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK) {
		fprintf(stderr, "lkprobot: box %s: another run has it (%s); waiting\n", b->name, lock);
		struct strbuf e = STRBUF_INIT;
		if (fsutil_lock_fd(lock_fd, lock, BOX_TAKE_WAIT, FSUTIL_LOCK_STOP, &e)) {
			strbuf_setf(err, "box %s: %s", b->name, e.buf);
			close(lock_fd);
			lock_fd = -2;
		}
		strbuf_release(&e);
	}
	free(lock);
	return lock_fd;
}

/* The job to the box's run directory, as a file: its values never reach a command line. */
static int send_job(const struct box *b, const struct node *j, const char *rdir, struct strbuf *err)
{
	struct strbuf yaml = STRBUF_INIT;
	char *cmd = xasprintf("mkdir -p %s && cat > %s/job.yaml", rdir, rdir);
	int rc;

	yml_emit(&yaml, j);
	rc = box_ssh_text(b, cmd, yaml.buf, yaml.len, 60, err);
	if (rc)
		box_err(b, err, rc == 255 ? "cannot reach it" : "cannot copy the job there");
	free(cmd);
	strbuf_release(&yaml);
	return rc ? -1 : 0;
}

/*
 * lkprobot run of the job there, for as long as the engine may take and
 * the setups and stats: the run directory it printed (NULL: none; *rc is
 * ssh's status, 255 when the box stopped answering, out what it printed).
 */
static char *run_job(const struct box *b, const struct node *j, const char *rdir, const char *rel, struct strbuf *out,
		     int *rc, struct strbuf *err)
{
	struct strbuf e = STRBUF_INIT;
	uint64_t runtime = 300;
	const char *v = node_str(node_get(j, "runtime"));
	char *cmd, *prefix, *box_dir;

	if (v && units_seconds(v, &runtime, &e))
		runtime = 300;
	strbuf_release(&e);
	/* -t: units against the box, under its tbox_group (the box's host name may differ) */
	cmd = xasprintf("%s run --no-defaults --no-store -t %s --fs-root %s -o %s/result %s/job.yaml", b->agent,
			b->tbox_group, b->fs_root, rdir, rdir);
	fprintf(stderr, "lkprobot: box %s: running the job\n", b->name);
	*rc = box_ssh(b, cmd, -1, out, (int)runtime * 2 + 900, err);
	prefix = xasprintf("%s/result", rdir);
	box_dir = *rc == 255 ? NULL : printed_run_dir(out->buf, prefix, rel);
	free(prefix);
	free(cmd);
	return box_dir;
}

int box_run(struct box *b, const char *kernel, const struct node *job, const struct machine *m, const char *result_dir,
	    struct store *s, struct box_run *r, struct strbuf *err)
{
	struct strbuf rel = STRBUF_INIT, out = STRBUF_INIT, e = STRBUF_INIT;
	struct node *j = node_dup(job);
	char id[64], *rdir = NULL, *rt = NULL, *cmd = NULL, *box_dir = NULL, *tarf = NULL;
	int ret = -1, rc, lock_fd = -1;

	memset(r, 0, sizeof(*r));
	if ((lock_fd = box_take(b, result_dir, s, err)) < -1)
		goto out;
	if (!b->agent && box_connect(b, err))
		goto out;
	fill_axes(j, b, m);
	if (job_result_path(j, m, NULL, false, &rel, err))
		goto out;
	rt = xasprintf("%s/%s", result_dir, rel.buf);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(id, sizeof(id), "%lld-%d-%03ld", (long long)ts.tv_sec, (int)getpid(), ts.tv_nsec / 1000000);
	rdir = xasprintf("%s/runs/%s", b->workdir, id);

	if (send_job(b, j, rdir, err))
		goto out;
	if (kernel) {
		rc = box_boot(b, kernel, j, id, rdir, s, r, err);
		if (rc < 0)
			goto out;
		if (rc > 0) {
			if (!(r->run_dir = failed_root(b, j, rt, r->job_state, r->reason, err)))
				goto out;
			ret = 0;
			goto out;
		}
	}
	box_dir = run_job(b, j, rdir, rel.buf, &out, &rc, err);
	if (!box_dir) {
		strbuf_rtrim(&out);
		const char *nl = strrchr(out.buf, '\n');
		ret = lost_run(b, s, j, rt, r, rc == 255
			? xasprintf("box %s stopped answering during the run: %s", b->name, err->buf)
			: xasprintf("box %s: lkprobot run made no result root (exit status %d): %s", b->name, rc,
				    err->len ? err->buf : out.len ? (nl ? nl + 1 : out.buf) : "no output"), err);
		goto out;
	}
	/* the result root home, then checked and its stats extracted again here */
	tarf = xasprintf("%s/.boxes/%s.tar", result_dir, id);
	rc = bring_home(b, rdir, box_dir + strlen(rdir) + strlen("/result/") + rel.len + 1, rel.buf, rt, tarf, r, err);
	if (rc) {
		/* the run happened but is lost on the way: a failure of the box, recorded as such */
		if (r->run_dir)
			rmdir(r->run_dir);
		free(r->run_dir);
		r->run_dir = NULL;
		ret = lost_run(b, s, j, rt, r, xasprintf("box %s: cannot bring the result root %s home: %s", b->name,
							 box_dir, err->len ? err->buf : "tar failed"), err);
		goto out;
	}
	check_home(b, rt, s, r);
	cmd = xasprintf("rm -rf %s", rdir);
	box_ssh(b, cmd, -1, NULL, 120, &e);
	ret = 0;
out:
	/* every result root, a failed boot's too: the .config of the kernel the box was to run */
	if (!ret && r->run_dir && kbuild_record_config(kernel, r->run_dir, &e))
		fprintf(stderr, "lkprobot: warning: %s\n", e.buf);
	if (ret < 0)
		box_run_release(r);	/* err says what went wrong; nothing for the caller to free */
	if (lock_fd >= 0)
		close(lock_fd);
	if (tarf)
		unlink(tarf);
	free(tarf);
	free(box_dir);
	free(cmd);
	free(rdir);
	free(rt);
	node_free(j);
	strbuf_release(&rel);
	strbuf_release(&out);
	strbuf_release(&e);
	return ret;
}

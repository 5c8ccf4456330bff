/*
 * kbuild: kernel builds and the kernel cache. See kbuild.h for the cache
 * layout. make runs with stdout and stderr on a pipe that we copy to the
 * build log line by line, counting the objects for the progress line,
 * within its timeout and until our stop; the first error line is taken
 * from the log afterwards (kbuild_output.c reads make's lines). The
 * cache's own steps (its directories and lock, lookups, a build recorded)
 * are in kbuild_cache.c.
 */
#include "kbuild.h"
#include "kbuild_int.h"
#include "../sys/fsutil.h"
#include "../sys/proc.h"
#include "git.h"
#include "../run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- configuration input ----------------------------------------------- */

static void short_hash(const void *data, size_t len, char out[KBUILD_HASHSZ + 1])
{
	char full[GITREPO_HEXSZ + 1];

	gitrepo_hash(data, len, full);
	memcpy(out, full, KBUILD_HASHSZ);
	out[KBUILD_HASHSZ] = '\0';
}

int kbuild_kcflags_check(const char *kcflags, struct strbuf *err)
{
	if (kcflags && strspn(kcflags, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -=,._+") !=
			       strlen(kcflags)) {
		strbuf_setf(err, "KCFLAGS '%s': only letters, digits, spaces and -=,._+ (make runs it through a shell)",
			    kcflags);
		return -1;
	}
	return 0;
}

int kbuild_key_kcflags(struct kbuild_config *kc, const char *kcflags, struct strbuf *err)
{
	if (!kcflags || !*kcflags)
		return 0;
	if (kbuild_kcflags_check(kcflags, err))
		return -1;
	char *key = xasprintf("kcflags %s\ninput %s\n", kcflags, kc->input);
	short_hash(key, strlen(key), kc->input);
	free(key);
	return 0;
}

char *kbuild_kconfig_name(const char *kconfig, const char *kcflags)
{
	const char *kc = kconfig && *kconfig ? kconfig : KBUILD_DEFAULT_KCONFIG;
	struct strbuf b = STRBUF_INIT;

	strbuf_addstr(&b, strrchr(kc, '/') ? strrchr(kc, '/') + 1 : kc);
	for (const char *f = kcflags; f && *f;) {
		f += strspn(f, " ");
		size_t n = strcspn(f, " ");
		if (n)
			strbuf_addf(&b, "+%.*s", (int)(n - strspn(f, "-")), f + strspn(f, "-"));
		f += n;
	}
	return strbuf_detach(&b);
}

void kbuild_config_hash(const char *config, size_t len, const char *kcflags, char out[KBUILD_HASHSZ + 1])
{
	struct strbuf b = STRBUF_INIT;

	strbuf_add(&b, config, len);
	if (kcflags && *kcflags)
		strbuf_addf(&b, "\n# lkprobot: KCFLAGS=%s\n", kcflags);
	short_hash(b.buf, b.len, out);
	strbuf_release(&b);
}

static int read_config_file(const char *path, struct strbuf *out, struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || strbuf_read_file(out, path)) {
		strbuf_setf(err, "'%s': cannot read the kconfig file: %s", path,
			    errno ? strerror(errno) : "not a regular file");
		return -1;
	}
	return 0;
}

static bool has_config_lines(const char *s)
{
	for (const char *p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "CONFIG_", 7) || !strncmp(p, "# CONFIG_", 9))
			return true;
	return false;
}

int kbuild_config_resolve(struct kbuild_config *kc, const char *spec, const char *data_dir,
			  struct strbuf *err)
{
	struct strbuf frag = STRBUF_INIT, base = STRBUF_INIT, p = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT, input = STRBUF_INIT;
	struct stat st;
	int ret = -1;

	memset(kc, 0, sizeof(*kc));
	if (!spec || !*spec)
		spec = KBUILD_DEFAULT_KCONFIG;
	strbuf_addf(&p, "%s/kconfig/%s.config", data_dir, KBUILD_FRAGMENT);
	if (strbuf_read_file(&frag, p.buf)) {
		strbuf_setf(err, "cannot read the robot's kconfig fragment '%s': %s (is the data directory right?)",
			    p.buf, strerror(errno));
		goto out;
	}
	strbuf_reset(&p);
	strbuf_addf(&p, "%s/kconfig/%s.config", data_dir, spec);
	if (!strcmp(spec, "defconfig")) {
		kc->base = KBUILD_BASE_DEFCONFIG;
		kc->name = xstrdup(spec);
		strbuf_addf(&text, "\n# lkprobot: kconfig/%s.config\n%s", KBUILD_FRAGMENT, frag.buf);
	} else if (!strchr(spec, '/') && !stat(p.buf, &st) && S_ISREG(st.st_mode)) {
		kc->base = KBUILD_BASE_FRAGMENT;
		kc->name = xstrdup(spec);
		kc->path = xstrdup(p.buf);
		if (strcmp(spec, KBUILD_FRAGMENT)) {
			if (read_config_file(p.buf, &base, err))
				goto out;
			strbuf_addf(&text, "%s\n", base.buf);
		}
		strbuf_addstr(&text, frag.buf);
	} else if (strchr(spec, '/') || !stat(spec, &st)) {
		if (read_config_file(spec, &base, err))
			goto out;
		if (!has_config_lines(base.buf)) {
			strbuf_setf(err, "'%s' is not a kernel .config: it has no CONFIG_ lines", spec);
			goto out;
		}
		const char *slash = strrchr(spec, '/');
		kc->base = KBUILD_BASE_FILE;
		kc->name = xstrdup(slash ? slash + 1 : spec);
		kc->path = xstrdup(spec);
		strbuf_addf(&text, "%s\n# lkprobot: kconfig/%s.config\n%s", base.buf, KBUILD_FRAGMENT,
			    frag.buf);
	} else {
		strbuf_setf(err, "'%s' is not a kconfig: give defconfig, a name from %s/kconfig (%s) or a .config file",
			    spec, data_dir, KBUILD_FRAGMENT);
		goto out;
	}
	/*
	 * the input's identity: how the base is made and every byte fed to
	 * Kconfig (no paths: an installed lkprobot finds the same kernels)
	 */
	static const char *const kinds[] = { "defconfig", "allnoconfig", "file" };
	strbuf_addf(&input, "lkprobot-kbuild 1\nbase: %s\n", kinds[kc->base]);
	strbuf_add(&input, text.buf, text.len);
	short_hash(input.buf, input.len, kc->input);
	kc->text = strbuf_detach(&text);
	ret = 0;
out:
	if (ret)
		kbuild_config_release(kc);
	strbuf_release(&frag);
	strbuf_release(&base);
	strbuf_release(&p);
	strbuf_release(&text);
	strbuf_release(&input);
	return ret;
}

void kbuild_config_release(struct kbuild_config *kc)
{
	free(kc->name);
	free(kc->path);
	free(kc->text);
	memset(kc, 0, sizeof(*kc));
}

/* ---- one build --------------------------------------------------------- */

static double elapsed(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - since->tv_sec) + (double)(now.tv_nsec - since->tv_nsec) / 1e9;
}

static void progress(struct kb *kb, bool force)
{
	if (!kb->o->progress)
		return;
	if (!force && elapsed(&kb->shown) < 0.2)
		return;
	clock_gettime(CLOCK_MONOTONIC, &kb->shown);
	printf("\r\033[K  %.12s %s", kb->ci.id, kb->phase);
	if (kb->objects || kb->expected) {
		if (kb->expected) {
			size_t pct = kb->objects * 100 / kb->expected;
			printf(" %zu%% (%zu of ~%zu objects)", pct > 99 ? 99 : pct, kb->objects,
			       kb->expected);
		} else {
			printf(", %zu objects made", kb->objects);
		}
	}
	printf(", %.0f s", elapsed(&kb->t0));
	fflush(stdout);
}

static void progress_done(struct kb *kb)
{
	if (kb->o->progress) {
		fputs("\r\033[K", stdout);
		fflush(stdout);
	}
}

static void phase(struct kb *kb, const char *what)
{
	kb->phase = what;
	progress(kb, true);
}

/*
 * make's environment: ours without what would change the build behind the
 * cache key's back (ARCH, CROSS_COMPILE, KBUILD_OUTPUT...) or confuse a make
 * started from a make (MAKEFLAGS with a jobserver we do not pass on), in
 * the C locale so that error lines read the same everywhere.
 */
static const char *const make_env[] = {
	"MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS", "MAKELEVEL", "MAKEOVERRIDES",
	"ARCH", "SUBARCH", "CROSS_COMPILE", "LLVM", "CC", "KBUILD_OUTPUT",
	"KCONFIG_CONFIG", "KCONFIG_ALLCONFIG", "KBUILD_VERBOSE", "V", "O",
	"LOCALVERSION", "LANG", "LANGUAGE", "LC_ALL=C", NULL,
};

static void log_write(struct kb *kb, const char *buf, size_t n)
{
	if (kb->log_fd >= 0 && write(kb->log_fd, buf, n) != (ssize_t)n) {
		close(kb->log_fd);	/* a full disk: the build still gets its verdict */
		kb->log_fd = -1;
	}
}

/*
 * make's output into the log and the progress, until its end — its time
 * and our stop applied meanwhile (proc_wait_for). make's status as
 * proc_wait gives it, or -1 with err set.
 */
static int pump(struct kb *kb, struct proc *mk, struct strbuf *err)
{
	struct strbuf line = STRBUF_INIT;
	char buf[8192];
	int rc = PROC_RUNNING;
	double ended = 0;

	for (;;) {
		struct pollfd pfd = { .fd = mk->out, .events = POLLIN };
		int r = poll(&pfd, 1, 200);
		if (r < 0 && errno != EINTR)
			break;
		if (r > 0) {
			ssize_t n = read(mk->out, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			log_write(kb, buf, (size_t)n);
			for (ssize_t i = 0; i < n; i++) {
				if (buf[i] != '\n') {
					if (line.len < 4096)
						strbuf_addch(&line, buf[i]);
					continue;
				}
				if (kbuild_object_line(line.buf))
					kb->objects++;
				strbuf_reset(&line);
			}
			progress(kb, false);
		}
		if (rc == PROC_RUNNING) {
			/* its timeout and our stop: SIGTERM to its group, SIGKILL after the grace */
			if ((rc = proc_wait_for(mk, 0, err)) == -1)
				break;
			if (rc != PROC_RUNNING)
				ended = proc_now();
		} else if (proc_now() - ended > 10) {
			/* make is gone and something it started still holds the pipe */
			proc_kill_group(mk, 5);
			break;
		}
	}
	strbuf_release(&line);
	return rc == PROC_RUNNING ? proc_wait(mk, err) : rc;
}

/*
 * make -C <src> O=<build> -j<N> [CC=ccache gcc] <args...>: its exit status,
 * or -1 with err set if it could not be started or was killed by a signal.
 */
static int run_make(struct kb *kb, const char *const *args, struct strbuf *err)
{
	char *argv[16];
	size_t n = 0;
	char *o = xasprintf("O=%s", kb->build.buf), *j = xasprintf("-j%d", kb->jobs);
	/* its own group, and killed if we die: a build in a work tree we no longer own would spoil it */
	struct proc mk = { .argv = argv, .env = make_env, .in = PROC_NULL, .out = PROC_PIPE, .err = PROC_TO_OUT,
			   .pgroup = true, .death_sig = SIGKILL };
	/* bounded, and ended by our stop: a SIGTERM'd service does not wait for a build */
	mk.timeout = kb->o->timeout > 0 ? kb->o->timeout : KBUILD_TIMEOUT;
	mk.stop = &proc_stop_signal;
	int status = -1, rc;

	argv[n++] = (char *)"make";
	argv[n++] = (char *)"-C";
	argv[n++] = kb->src.buf;
	argv[n++] = o;
	argv[n++] = j;
	if (kb->cc.len)
		argv[n++] = kb->cc.buf;
	char *kcflags = kb->o->kcflags && *kb->o->kcflags ? xasprintf("KCFLAGS=%s", kb->o->kcflags) : NULL;
	if (kcflags)
		argv[n++] = kcflags;
	for (size_t i = 0; args[i] && n < ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;

	if (kb->log_fd >= 0) {
		/* the command, as a reader would type it, heads its part of the log */
		struct strbuf cmd = STRBUF_INIT;
		strbuf_addstr(&cmd, "$");
		for (size_t i = 0; i < n; i++)
			strbuf_addf(&cmd, " %s%s%s", strchr(argv[i], ' ') ? "'" : "", argv[i],
				    strchr(argv[i], ' ') ? "'" : "");
		strbuf_addch(&cmd, '\n');
		log_write(kb, cmd.buf, cmd.len);
		strbuf_release(&cmd);
	}
	if (proc_start(&mk, err)) {
		if (mk.start_errno == ENOENT)
			strbuf_addstr(err, " (apt-get install build-essential)");
		goto out;
	}
	rc = pump(kb, &mk, err);
	close(mk.out);
	if (rc < 0)
		goto out;
	status = mk.status;
	if (mk.timed_out || mk.stopped) {
		/* the robot's failure, not the commit's: nothing cached */
		if (mk.timed_out)
			strbuf_setf(err,
				    "make ran for more than %.0f s and was stopped (a build that does not end?); "
				    "nothing was recorded",
				    mk.timeout);
		else
			strbuf_setf(err, "interrupted by signal %d while make ran; nothing was recorded",
				    (int)proc_stop_signal);
		status = -1;
		goto out;
	}
	if (WIFSIGNALED(status)) {
		/* interrupted, not failed: a verdict would be cached for good */
		strbuf_setf(err, "make was killed by signal %d; nothing was recorded", WTERMSIG(status));
		status = -1;
		goto out;
	}
	status = WEXITSTATUS(status);
out:
	free(o);
	free(j);
	free(kcflags);
	return status;
}

/* Write the configuration into <build>/.config: make's exit status, or -1. */
static int configure(struct kb *kb, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT, in = STRBUF_INIT;
	int st = -1;

	switch (kb->kc.base) {
	case KBUILD_BASE_DEFCONFIG: {
		const char *a[] = { "defconfig", NULL };
		if ((st = run_make(kb, a, err)) != 0)
			break;
		strbuf_addf(&path, "%s/.config", kb->build.buf);
		if (strbuf_read_file(&in, path.buf)) {
			strbuf_setf(err, "make defconfig wrote no '%s': %s", path.buf, strerror(errno));
			st = -1;
			break;
		}
		strbuf_addstr(&in, kb->kc.text);
		if (fsutil_write(path.buf, in.buf, in.len)) {
			strbuf_setf(err, "cannot write '%s': %s", path.buf, strerror(errno));
			st = -1;
			break;
		}
		const char *b[] = { "olddefconfig", NULL };
		st = run_make(kb, b, err);
		break;
	}
	case KBUILD_BASE_FRAGMENT: {
		/* make allnoconfig reads it: kept in the build directory, our file */
		strbuf_addf(&path, "%s/.lkprobot-allconfig", kb->build.buf);
		if (fsutil_write(path.buf, kb->kc.text, strlen(kb->kc.text))) {
			strbuf_setf(err, "cannot write '%s': %s", path.buf, strerror(errno));
			break;
		}
		char *allconfig = xasprintf("KCONFIG_ALLCONFIG=%s", path.buf);
		const char *a[] = { allconfig, "allnoconfig", NULL };
		st = run_make(kb, a, err);
		free(allconfig);
		break;
	}
	case KBUILD_BASE_FILE: {
		strbuf_addf(&path, "%s/.config", kb->build.buf);
		if (fsutil_write(path.buf, kb->kc.text, strlen(kb->kc.text))) {
			strbuf_setf(err, "cannot write '%s': %s", path.buf, strerror(errno));
			break;
		}
		const char *a[] = { "olddefconfig", NULL };
		st = run_make(kb, a, err);
		break;
	}
	}
	strbuf_release(&path);
	strbuf_release(&in);
	return st;
}

/* The build failed: its first error line, without our work tree's prefix. */
static void failure(struct kb *kb, struct kbuild_result *res, const char *why)
{
	struct strbuf log = STRBUF_INIT, line = STRBUF_INIT, prefix = STRBUF_INIT;

	res->built = false;
	if (why) {
		strbuf_addstr(&line, why);
	} else if (!strbuf_read_file(&log, kb->log_path.buf)) {
		kbuild_first_error(log.buf, log.len, &line);
	}
	strbuf_addf(&prefix, "%s/", kb->src.buf);
	for (char *p; (p = strstr(line.buf, prefix.buf));)
		memmove(p, p + prefix.len, strlen(p + prefix.len) + 1);
	free(res->error);
	res->error = xstrdup(*line.buf ? line.buf : "make failed with no output");
	strbuf_release(&log);
	strbuf_release(&line);
	strbuf_release(&prefix);
}

static int jobs_default(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) > 0)
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* The build directory, and its log opened afresh. */
static int build_log_open(struct kb *kb, struct strbuf *err)
{
	if (fsutil_mkdir_p(kb->build.buf)) {
		strbuf_setf(err, "cannot create '%s': %s", kb->build.buf, strerror(errno));
		return -1;
	}
	strbuf_addf(&kb->log_path, "%s/%s", kb->build.buf, LOG_NAME);
	kb->log_fd = open(kb->log_path.buf, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (kb->log_fd < 0) {
		strbuf_setf(err, "cannot write '%s': %s", kb->log_path.buf, strerror(errno));
		return -1;
	}
	return 0;
}

/* The commit's tree into the source directory, and a line in the log on what that took. */
static int build_checkout(struct kb *kb, struct strbuf *err)
{
	struct gitrepo_checkout_stats cs;
	struct strbuf line = STRBUF_INIT;

	phase(kb, "checking out");
	if (gitrepo_checkout(kb->repo, kb->ci.id, kb->src.buf, &cs, err))
		return -1;
	/*
	 * What libgit2 holds is not needed while make runs: a full checkout of
	 * Linux leaves ~290 MB in this process, ~8 MB after closing and trimming.
	 */
	gitrepo_close(kb->repo);
	kb->repo = NULL;
	malloc_trim(0);
	strbuf_addf(&line,
		    "lkprobot: checked out %s into %s in %.1f s: %s, %zu file(s) written, %zu removed, %zu compared "
		    "unchanged\n",
		    kb->ci.id, kb->src.buf, elapsed(&kb->t0),
		    cs.incremental ? "the difference to the previous commit" : "every file compared", cs.written,
		    cs.removed, cs.unchanged);
	log_write(kb, line.buf, line.len);
	strbuf_release(&line);
	if (run_have("ccache"))
		strbuf_addstr(&kb->cc, "CC=ccache gcc");
	return 0;
}

/* make bzImage with the configuration made: res->built, or the failure in res; -1 when make cannot run. */
static int build_make(struct kb *kb, const struct strbuf *config, struct kbuild_result *res, struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	int status;

	/* a clean build directory gets a percentage, a used one a count */
	strbuf_addf(&path, "%s/vmlinux", kb->build.buf);
	if (stat(path.buf, &st))
		kb->expected = kbuild_estimate_objects(config->buf, config->len);

	phase(kb, "building");
	const char *args[] = { "bzImage", NULL };
	status = run_make(kb, args, err);
	if (status >= 0) {
		strbuf_reset(&path);
		strbuf_addf(&path, "%s/arch/x86/boot/bzImage", kb->build.buf);
		if (status)
			failure(kb, res, NULL);
		else if (stat(path.buf, &st))
			failure(kb, res, "make bzImage succeeded but left no arch/x86/boot/bzImage");
		else
			res->built = true;
	}
	strbuf_release(&path);
	return status < 0 ? -1 : 0;
}

static int build(struct kb *kb, struct kbuild_result *res, struct strbuf *err)
{
	const struct kbuild_opts *o = kb->o;
	struct strbuf path = STRBUF_INIT, config = STRBUF_INIT;
	char *kdir = NULL, *idx = kbuild_cache_index_path(kb), *real;
	int ret = KBUILD_EFAIL, status;

	/* the same commit built from the same input: nothing to do */
	if (!o->rebuild && (real = realpath(idx, NULL))) {
		bool found = kbuild_cache_lookup(real, res);
		free(real);
		if (found) {
			res->cached = true;
			ret = 0;
			goto out;
		}
	}
	if (build_log_open(kb, err) || build_checkout(kb, err))
		goto out;

	phase(kb, "configuring");
	status = configure(kb, err);
	if (status < 0)
		goto out;
	if (status) {
		/* no final .config to name it by: the input names it */
		memcpy(res->config, kb->kc.input, sizeof(res->config));
		failure(kb, res, NULL);
		goto done;
	}
	strbuf_addf(&path, "%s/.config", kb->build.buf);
	if (strbuf_read_file(&config, path.buf)) {
		strbuf_setf(err, "'%s' is missing after the configuration step", path.buf);
		goto out;
	}
	kbuild_config_hash(config.buf, config.len, o->kcflags, res->config);
	kdir = kbuild_cache_kernel_dir(kb, res->config);
	if (!o->rebuild && kbuild_cache_lookup(kdir, res)) {
		/* another input made the same .config: the same kernel */
		res->cached = true;
		ret = kbuild_cache_link(kb, kdir, err) ? KBUILD_EFAIL : 0;
		goto out;
	}
	if (build_make(kb, &config, res, err))
		goto out;
done:
	progress_done(kb);
	res->seconds = (long)(elapsed(&kb->t0) + 0.5);
	if (kb->log_fd >= 0) {
		close(kb->log_fd);
		kb->log_fd = -1;
	}
	ret = kbuild_cache_record(kb, res, err) ? KBUILD_EFAIL : 0;
out:
	progress_done(kb);
	free(kdir);
	free(idx);
	strbuf_release(&path);
	strbuf_release(&config);
	return ret;
}

int kbuild_build(const struct kbuild_opts *o, struct kbuild_result *res, struct strbuf *err)
{
	struct kb kb = {
		.o = o, .log_fd = -1, .lock_fd = -1,
		.cache = STRBUF_INIT, .src = STRBUF_INIT, .build = STRBUF_INIT,
		.log_path = STRBUF_INIT, .cc = STRBUF_INIT,
	};
	int ret = KBUILD_EINPUT;

	memset(res, 0, sizeof(*res));
	clock_gettime(CLOCK_MONOTONIC, &kb.t0);
	kb.jobs = o->jobs > 0 ? o->jobs : jobs_default();
	if (kbuild_config_resolve(&kb.kc, o->kconfig, o->data_dir, err) || kbuild_key_kcflags(&kb.kc, o->kcflags, err))
		goto out;
	if (gitrepo_open(&kb.repo, o->tree, err) ||
	    gitrepo_commit_info(kb.repo, o->rev, &kb.ci, err))
		goto out;
	memcpy(res->commit, kb.ci.id, sizeof(res->commit));
	memcpy(res->input, kb.kc.input, sizeof(res->input));
	ret = KBUILD_EFAIL;
	if (kbuild_cache_open(&kb, err))
		goto out;
	ret = build(&kb, res, err);
out:
	if (kb.log_fd >= 0)
		close(kb.log_fd);
	if (kb.lock_fd >= 0)
		close(kb.lock_fd);	/* releases the lock */
	gitrepo_commit_release(&kb.ci);
	gitrepo_close(kb.repo);
	kbuild_config_release(&kb.kc);
	strbuf_release(&kb.cache);
	strbuf_release(&kb.src);
	strbuf_release(&kb.build);
	strbuf_release(&kb.log_path);
	strbuf_release(&kb.cc);
	return ret;
}

/* The .config of image (see kbuild_record_config()), NULL when none is there. */
static char *image_config(const char *image)
{
	const char *slash = strrchr(image, '/'), *base = slash ? slash + 1 : image;
	int dir = slash ? (int)(slash - image) : 1;
	const char *at = slash ? image : ".";
	const char *boot = "/arch/x86/boot/bzImage";
	size_t n = strlen(image), nb = strlen(boot);
	char *c[3] = { xasprintf("%.*s/.config", dir, at), NULL, NULL };

	if (!strncmp(base, "vmlinuz-", 8) || !strncmp(base, "vmlinux-", 8))
		c[1] = xasprintf("%.*s/config-%s", dir, at, base + 8);
	if (n > nb && !strcmp(image + n - nb, boot))
		c[2] = xasprintf("%.*s/.config", (int)(n - nb), image);
	char *found = NULL;
	for (int i = 0; i < 3; i++) {
		if (!found && c[i] && !access(c[i], R_OK))
			found = c[i];
		else
			free(c[i]);
	}
	return found;
}

int kbuild_record_config(const char *image, const char *run_dir, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char *config = image ? image_config(image) : NULL;
	int rc = 0;

	if (!config)
		return 0;
	if (strbuf_read_file(&text, config)) {
		strbuf_setf(err, "cannot read the kernel's config '%s': %s", config, strerror(errno));
		rc = -1;
	} else {
		char *dst = xasprintf("%s/kernel.config", run_dir);
		rc = fsutil_write_atomic(dst, text.buf, text.len, err);
		free(dst);
	}
	free(config);
	strbuf_release(&text);
	return rc;
}

const char *kbuild_config_portable(const char *spec, const char *data_dir)
{
	struct stat st;

	if (!spec || !*spec)
		return NULL;
	if (!strcmp(spec, "defconfig"))
		return spec;
	/* as kbuild_config_resolve() reads it: a name of kconfig/ first */
	char *named = xasprintf("%s/kconfig/%s.config", data_dir, spec);
	bool name = !strchr(spec, '/') && !stat(named, &st) && S_ISREG(st.st_mode);
	free(named);
	return name ? spec : "kernel.config";
}

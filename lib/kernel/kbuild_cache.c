/*
 * kbuild_cache: the kernel cache of lib/kernel/kbuild (its layout is in
 * kbuild.h): where it is, its directories and the lock of its one work
 * tree, a kernel looked up by commit and input or by commit and final
 * .config, and a build's outputs moved into kernels/ with their result
 * file and indexed. kbuild.c makes the build.
 */
#include "kbuild.h"
#include "kbuild_int.h"
#include "../sys/fsutil.h"
#include "../util/node.h"
#include "../util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void kbuild_cache_dir(struct strbuf *out)
{
	const char *env = getenv("LKPROBOT_CACHE"), *home = getenv("HOME");

	strbuf_reset(out);
	if (env && *env) {
		strbuf_addstr(out, env);
		return;
	}
	if (!geteuid()) {
		strbuf_addstr(out, "/var/cache/lkprobot");
		return;
	}
	if (!home || !*home) {
		struct passwd *pw = getpwuid(geteuid());
		home = pw ? pw->pw_dir : "/tmp";
	}
	strbuf_addf(out, "%s/.cache/lkprobot", home);
}
static int copy_file(const char *from, const char *to, struct strbuf *err)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, ret = -1;
	struct stat st;

	if (in < 0 || fstat(in, &st)) {
		strbuf_setf(err, "cannot read '%s': %s", from, strerror(errno));
		goto out;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777);
	if (out < 0)
		goto fail;
	for (off_t left = st.st_size; left > 0;) {
		ssize_t n = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
			char buf[65536];
			n = read(in, buf, sizeof(buf));
			if (n > 0 && write(out, buf, (size_t)n) != n)
				goto fail;
		}
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		left -= n;
	}
	if (close(out)) {
		out = -1;
		goto fail;
	}
	out = -1;
	ret = 0;
	goto out;
fail:
	strbuf_setf(err, "cannot write '%s': %s", to, strerror(errno));
out:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return ret;
}

static void set(struct node *m, const char *key, const char *val)
{
	node_set(m, key, node_new_scalar(val));
}

static void result_text(struct kb *kb, const struct kbuild_result *res, struct strbuf *out)
{
	struct node *m = node_new(NODE_MAP);
	char date[32], num[32];
	time_t now = time(NULL);
	struct tm tm;

	set(m, "state", res->built ? "built" : "failed");
	set(m, "commit", res->commit);
	set(m, "subject", kb->ci.subject);
	set(m, "author", kb->ci.author_name);
	char *tree = realpath(kb->o->tree, NULL);
	set(m, "tree", tree ? tree : kb->o->tree);
	free(tree);
	set(m, "kconfig", kb->kc.name);
	set(m, "config", res->config);
	set(m, "input", res->input);
	if (kb->o->compiler)
		set(m, "compiler", kb->o->compiler);
	set(m, "cc", kb->cc.len ? kb->cc.buf + 3 : "gcc");
	snprintf(num, sizeof(num), "%d", kb->jobs);
	set(m, "jobs", num);
	snprintf(num, sizeof(num), "%ld", res->seconds);
	set(m, "seconds", num);
	gmtime_r(&now, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	set(m, "date", date);
	if (!res->built)
		set(m, "error", res->error ? res->error : "");
	yml_emit(out, m);
	node_free(m);
}

int kbuild_read_result(const char *dir, struct kbuild_result *res, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT, text = STRBUF_INIT;
	struct node *m = NULL;
	const char *state, *s;
	int ret = -1;

	strbuf_addf(&p, "%s/result", dir);
	if (strbuf_read_file(&text, p.buf)) {
		strbuf_setf(err, "cannot read '%s': %s", p.buf, strerror(errno));
		goto out;
	}
	if (!(m = yml_load_one(text.buf, p.buf, err)))
		goto out;
	state = node_str(node_get(m, "state"));
	if (!state || (strcmp(state, "built") && strcmp(state, "failed"))) {
		strbuf_setf(err, "%s: state: neither built nor failed", p.buf);
		goto out;
	}
	res->built = !strcmp(state, "built");
	if ((s = node_str(node_get(m, "commit"))))
		snprintf(res->commit, sizeof(res->commit), "%s", s);
	if ((s = node_str(node_get(m, "config"))))
		snprintf(res->config, sizeof(res->config), "%s", s);
	if ((s = node_str(node_get(m, "input"))))
		snprintf(res->input, sizeof(res->input), "%s", s);
	if ((s = node_str(node_get(m, "seconds"))))
		res->seconds = strtol(s, NULL, 10);
	free(res->error);
	res->error = NULL;
	if (!res->built && (s = node_str(node_get(m, "error"))))
		res->error = xstrdup(s);
	free(res->dir);
	res->dir = xstrdup(dir);
	ret = 0;
out:
	node_free(m);
	strbuf_release(&p);
	strbuf_release(&text);
	return ret;
}

void kbuild_result_release(struct kbuild_result *res)
{
	free(res->dir);
	free(res->error);
	memset(res, 0, sizeof(*res));
}

/* kernels/<commit>-<config> and index/<commit>-<input> */
char *kbuild_cache_kernel_dir(struct kb *kb, const char *config)
{
	return xasprintf("%s/kernels/%s-%s", kb->cache.buf, kb->ci.id, config);
}

char *kbuild_cache_index_path(struct kb *kb)
{
	return xasprintf("%s/index/%s-%s", kb->cache.buf, kb->ci.id, kb->kc.input);
}

/* Is the kernel (or its failure) of dir in the cache? Fills res if so. */
bool kbuild_cache_lookup(const char *dir, struct kbuild_result *res)
{
	struct strbuf e = STRBUF_INIT;
	bool found = !kbuild_read_result(dir, res, &e);

	strbuf_release(&e);
	return found;
}

/* Point index/<commit>-<input> at the kernel directory (atomically). */
int kbuild_cache_link(struct kb *kb, const char *kdir, struct strbuf *err)
{
	char *idx = kbuild_cache_index_path(kb), *tmp = xasprintf("%s.tmp.%d", idx, (int)getpid());
	const char *base = strrchr(kdir, '/') + 1;
	char *target = xasprintf("../kernels/%s", base);
	int ret = 0;

	unlink(tmp);
	if (symlink(target, tmp) || rename(tmp, idx)) {
		strbuf_setf(err, "cannot write '%s': %s", idx, strerror(errno));
		unlink(tmp);
		ret = -1;
	}
	free(idx);
	free(tmp);
	free(target);
	return ret;
}

/* Move the outputs into kernels/<commit>-<config>/ with the result file. */
int kbuild_cache_record(struct kb *kb, struct kbuild_result *res, struct strbuf *err)
{
	char *kdir = kbuild_cache_kernel_dir(kb, res->config);
	char *tmp = xasprintf("%s.tmp.%d", kdir, (int)getpid());
	struct strbuf from = STRBUF_INIT, to = STRBUF_INIT, text = STRBUF_INIT;
	static const struct { const char *from, *to; bool needed; } files[] = {
		{ "arch/x86/boot/bzImage", "bzImage", true },
		{ "vmlinux", "vmlinux", false },
		{ ".config", ".config", false },
		{ LOG_NAME, "build.log", false },
	};
	int ret = -1;

	if (fsutil_remove_tree(tmp) || fsutil_mkdir_p(tmp)) {
		strbuf_setf(err, "cannot create '%s': %s", tmp, strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		if (files[i].needed && !res->built)
			continue;
		strbuf_reset(&from);
		strbuf_addf(&from, "%s/%s", kb->build.buf, files[i].from);
		strbuf_reset(&to);
		strbuf_addf(&to, "%s/%s", tmp, files[i].to);
		if (access(from.buf, F_OK) && !files[i].needed)
			continue;
		if (copy_file(from.buf, to.buf, err))
			goto out;
	}
	result_text(kb, res, &text);
	strbuf_reset(&to);
	strbuf_addf(&to, "%s/result", tmp);
	if (fsutil_write(to.buf, text.buf, text.len)) {
		strbuf_setf(err, "cannot write '%s': %s", to.buf, strerror(errno));
		goto out;
	}
	if (fsutil_remove_tree(kdir) || rename(tmp, kdir)) {
		strbuf_setf(err, "cannot replace '%s': %s", kdir, strerror(errno));
		goto out;
	}
	free(res->dir);
	res->dir = xstrdup(kdir);
	ret = kbuild_cache_link(kb, kdir, err);
out:
	if (ret)
		fsutil_remove_tree(tmp);
	free(kdir);
	free(tmp);
	strbuf_release(&from);
	strbuf_release(&to);
	strbuf_release(&text);
	return ret;
}

/* Create the cache's directories; cache, src and index paths made absolute. */
int kbuild_cache_open(struct kb *kb, struct strbuf *err)
{
	char real[PATH_MAX];
	static const char *const sub[] = { "src", "build", "kernels", "index" };

	if (kb->o->cache)
		strbuf_addstr(&kb->cache, kb->o->cache);
	else
		kbuild_cache_dir(&kb->cache);
	if (fsutil_mkdir_p(kb->cache.buf) || !realpath(kb->cache.buf, real)) {
		strbuf_setf(err, "cannot create the kernel cache '%s': %s (--cache DIR or $LKPROBOT_CACHE chooses another)",
			    kb->cache.buf, strerror(errno));
		return -1;
	}
	strbuf_reset(&kb->cache);
	strbuf_addstr(&kb->cache, real);
	for (size_t i = 0; i < ARRAY_SIZE(sub); i++) {
		struct strbuf d = STRBUF_INIT;
		strbuf_addf(&d, "%s/%s", real, sub[i]);
		int bad = fsutil_mkdir_p(d.buf);
		if (bad)
			strbuf_setf(err, "cannot create '%s': %s", d.buf, strerror(errno));
		strbuf_release(&d);
		if (bad)
			return -1;
	}
	strbuf_addf(&kb->src, "%s/src", real);
	strbuf_addf(&kb->build, "%s/build/%s", real, kb->kc.input);

	/* one build at a time per cache: they share the work tree */
	struct strbuf lock = STRBUF_INIT;
	strbuf_addf(&lock, "%s/lock", real);
	kb->lock_fd = open(lock.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (kb->lock_fd < 0) {
		strbuf_setf(err, "cannot open '%s': %s", lock.buf, strerror(errno));
		strbuf_release(&lock);
		return -1;
	}
	if (flock(kb->lock_fd, LOCK_EX | LOCK_NB)) {
		if (kb->o->progress) {
			printf("  waiting for another build in %s\n", real);
			fflush(stdout);
		}
		/* its make is bounded by its timeout (KBUILD_TIMEOUT unless told): as long, and its checkout */
		double t = kb->o->timeout > 0 ? kb->o->timeout : KBUILD_TIMEOUT;
		if (fsutil_lock_fd(kb->lock_fd, lock.buf, 3 * t + 600, FSUTIL_LOCK_STOP, err)) {
			strbuf_release(&lock);
			return -1;
		}
	}
	strbuf_release(&lock);
	return 0;
}

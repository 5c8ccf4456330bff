/*
 * Unit tests: lib/kbuild and lib/git — checkouts into one reused work tree,
 * cache keys, cache hits, incremental reuse of the O= directory and failed
 * builds, against a tiny git repository made here whose Makefile stands in
 * for Kbuild (allnoconfig, defconfig, olddefconfig and bzImage honouring O=
 * and KCONFIG_ALLCONFIG; every make run is counted in a file). Needs git
 * and make.
 */
#include "../../lib/sys/fsutil.h"
#include "../../lib/sys/proc.h"
#include "../../lib/kernel/git.h"
#include "../../lib/kernel/kbuild.h"
#include "../../lib/run/run.h"
#include "../../lib/util/strbuf.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The fake Kbuild. Every target appends its name to $FAKEKBUILD_COUNTER; with $FAKEKBUILD_HANG its link never ends. */
static const char fake_makefile[] =
	"O ?= .\n"
	"SRCS := $(sort $(wildcard *.c))\n"
	"OBJS := $(SRCS:%.c=$(O)/%.o)\n"
	"count = @echo $@ >> $(FAKEKBUILD_COUNTER)\n"
	".PHONY: allnoconfig defconfig olddefconfig bzImage\n"
	"allnoconfig:\n"
	"\t$(count)\n"
	"\t@{ echo CONFIG_NO=y; if [ -n \"$(KCONFIG_ALLCONFIG)\" ]; then cat \"$(KCONFIG_ALLCONFIG)\"; fi; } | grep "
	"'^CONFIG_' | sort -u > $(O)/.config\n"
	"defconfig:\n"
	"\t$(count)\n"
	"\t@echo CONFIG_DEF=y > $(O)/.config\n"
	"olddefconfig:\n"
	"\t$(count)\n"
	"\t@grep '^CONFIG_' $(O)/.config | sort -u > $(O)/.config.new && mv $(O)/.config.new $(O)/.config\n"
	"bzImage: $(O)/vmlinux\n"
	"\t$(count)\n"
	"\t@mkdir -p $(O)/arch/x86/boot\n"
	"\t@echo '  BUILD   arch/x86/boot/bzImage'\n"
	"\t@cat $(O)/vmlinux > $(O)/arch/x86/boot/bzImage\n"
	"\t@touch $(O)/marker\n"
	"$(O)/vmlinux: $(OBJS)\n"
	"\t@echo '  LD      vmlinux'\n"
	"\t@[ -z \"$(FAKEKBUILD_HANG)\" ] || sleep 300\n"
	"\t@cat $(OBJS) > $@\n"
	"$(O)/%.o: %.c\n"
	"\t@echo '  CC      $*.o'\n"
	"\t@echo $*.o >> $(O)/compiled\n"
	"\t@cat $< > $@\n";

/* The third commit's Makefile adds a rule that fails like gcc. */
static const char bad_rule[] =
	"$(O)/bad.o: bad.c\n"
	"\t@echo '  CC      bad.o'\n"
	"\t@echo \"bad.c:3:5: error: expected ';' before '}' token\" >&2\n"
	"\t@echo 'bad.c:9:1: error: a later error' >&2\n"
	"\t@false\n";

static char top[64];
static char repo[128], data[128], counter[128];
static char c1[41], c2[41], c3[41];

static void put(const char *dir, const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);
	char *slash = strrchr(p, '/');

	*slash = '\0';
	assert_int_equal(fsutil_mkdir_p(p), 0);
	*slash = '/';
	assert_int_equal(fsutil_write(p, text, strlen(text)), 0);
	free(p);
}

static void git(const char *const *args)
{
	char *argv[16] = { "git", "-c", "user.name=Ada Tester", "-c", "user.email=ada@example.org" };
	size_t n = 5;
	struct strbuf err = STRBUF_INIT;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (size_t i = 0; args[i]; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	int rc = run_exec_in(repo, argv, devnull, -1, &err);
	if (rc)
		fail_msg("git %s: %d %s", args[0], rc, err.buf);
	close(devnull);
	strbuf_release(&err);
}

static void head(char out[41])
{
	struct gitrepo *r;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(gitrepo_open(&r, repo, &err), 0);
	assert_int_equal(gitrepo_resolve(r, "HEAD", out, &err), 0);
	gitrepo_close(r);
	strbuf_release(&err);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/lkp-test-kbuild-XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(repo, sizeof(repo), "%s/repo", top);
	snprintf(data, sizeof(data), "%s/data", top);
	snprintf(counter, sizeof(counter), "%s/counter", top);
	setenv("FAKEKBUILD_COUNTER", counter, 1);
	put(data, "kconfig/x86_64-pmem.config", "# the robot's fragment\nCONFIG_PMEM=y\n");
	put(data, "kconfig/tiny.config", "CONFIG_TINY=y\n");

	/* commit 1: Makefile, two sources, a document, a symlink, a script */
	put(repo, "Makefile", fake_makefile);
	put(repo, "a.c", "int a;\n");
	put(repo, "b.c", "int b;\n");
	put(repo, "doc/readme", "read me\n");
	put(repo, "scripts/run.sh", "#!/bin/sh\necho hi\n");
	char *p = xasprintf("%s/scripts/run.sh", repo);
	int bad = chmod(p, 0755);
	free(p);
	p = xasprintf("%s/link", repo);
	bad |= symlink("a.c", p);
	free(p);
	if (bad)
		return -1;
	git((const char *[]){ "init", "-q", "-b", "main", NULL });
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "first: the fake kernel", NULL });
	git((const char *[]){ "tag", "v1", NULL });
	head(c1);

	/* commit 2: b.c changed, new.c added, doc/readme removed */
	put(repo, "b.c", "int b = 2;\n");
	put(repo, "new.c", "int n;\n");
	char *doc = xasprintf("%s/doc/readme", repo);
	unlink(doc);
	free(doc);
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "second: change b.c\n\nwith a body", NULL });
	head(c2);

	/* commit 3: does not build */
	struct strbuf mk = STRBUF_INIT;
	strbuf_addf(&mk, "%s%s", fake_makefile, bad_rule);
	put(repo, "Makefile", mk.buf);
	put(repo, "bad.c", "int bad\n");
	strbuf_release(&mk);
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "third: broken", NULL });
	head(c3);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	nftw(top, rm_one, 32, FTW_DEPTH | FTW_PHYS);
	return 0;
}

static long count_makes(void)
{
	struct strbuf s = STRBUF_INIT;
	long n = 0;

	if (!strbuf_read_file(&s, counter))
		for (size_t i = 0; i < s.len; i++)
			n += s.buf[i] == '\n';
	strbuf_release(&s);
	return n;
}

static char *path_in(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static bool exists(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	bool ok = !access(p, F_OK);
	free(p);
	return ok;
}

static char *slurp(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	struct strbuf s = STRBUF_INIT;

	if (strbuf_read_file(&s, p))
		fail_msg("cannot read %s", p);
	free(p);
	return strbuf_detach(&s);
}

static void set_old_mtime(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	struct timespec ts[2] = { { 1000000000, 0 }, { 1000000000, 0 } };

	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
	free(p);
}

static bool is_old(const char *dir, const char *name)
{
	char *p = path_in(dir, name);
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	free(p);
	return st.st_mtime == 1000000000;
}

/* ---- git -------------------------------------------------------------- */

static void test_gitrepo_resolve_revisions(void **state)
{
	struct gitrepo *r;
	struct strbuf err = STRBUF_INIT;
	char id[41];
	(void)state;

	assert_int_equal(gitrepo_open(&r, repo, &err), 0);
	assert_int_equal(gitrepo_resolve(r, "HEAD~2", id, &err), 0);
	assert_string_equal(id, c1);
	assert_int_equal(gitrepo_resolve(r, "v1", id, &err), 0);
	assert_string_equal(id, c1);
	assert_int_equal(gitrepo_resolve(r, "main", id, &err), 0);
	assert_string_equal(id, c3);
	char abbrev[9];
	memcpy(abbrev, c2, 8);
	abbrev[8] = '\0';
	assert_int_equal(gitrepo_resolve(r, abbrev, id, &err), 0);
	assert_string_equal(id, c2);

	assert_int_equal(gitrepo_resolve(r, "no-such-branch", id, &err), -1);
	assert_non_null(strstr(err.buf, "cannot resolve 'no-such-branch'"));
	assert_null(strchr(err.buf, '\n'));
	assert_int_equal(gitrepo_resolve(r, "HEAD:Makefile", id, &err), -1);
	assert_non_null(strstr(err.buf, "is a blob, not a commit"));
	gitrepo_close(r);

	assert_int_equal(gitrepo_open(&r, top, &err), -1);
	assert_non_null(strstr(err.buf, "not a git repository"));
	assert_int_equal(gitrepo_open(&r, "/nonexistent/tree", &err), -1);
	assert_string_equal(err.buf, "'/nonexistent/tree': no such directory");
	strbuf_release(&err);
}

static void test_gitrepo_commit_info(void **state)
{
	struct gitrepo *r;
	struct gitrepo_commit ci;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(gitrepo_open(&r, repo, &err), 0);
	assert_int_equal(gitrepo_commit_info(r, "HEAD~1", &ci, &err), 0);
	assert_string_equal(ci.id, c2);
	assert_string_equal(ci.subject, "second: change b.c");
	assert_string_equal(ci.author_name, "Ada Tester");
	assert_string_equal(ci.author_email, "ada@example.org");
	assert_true(ci.author_time > 1600000000);
	assert_int_equal(ci.nparents, 1);
	assert_string_equal(ci.parents[0], c1);
	gitrepo_commit_release(&ci);
	assert_int_equal(gitrepo_commit_info(r, c1, &ci, &err), 0);
	assert_int_equal(ci.nparents, 0);
	gitrepo_commit_release(&ci);
	gitrepo_close(r);
	strbuf_release(&err);
}

/*
 * What a commit brings since its merge base with another, as one diff:
 * applied on that other, its files are the commit's (a #lkprobot test of
 * <git-url> <branch>); a commit the other already has brings nothing.
 */
static void test_gitrepo_diff_since(void **state)
{
	struct gitrepo *r;
	struct strbuf err = STRBUF_INIT, diff = STRBUF_INIT, f = STRBUF_INIT;
	const struct gitrepo_author a = { "Ada Tester", "ada@example.org", 1700000000, 0 };
	char id[41];
	(void)state;

	assert_int_equal(gitrepo_open(&r, repo, &err), 0);
	assert_int_equal(gitrepo_diff_since(r, c1, c2, &diff, &err), 0);
	assert_non_null(strstr(diff.buf, "diff --git a/b.c b/b.c\n"));
	assert_non_null(strstr(diff.buf, "+int b = 2;\n"));
	assert_int_equal(gitrepo_apply(r, c1, diff.buf, diff.len, &a, "test\n", id, &err), 0);
	assert_int_equal(gitrepo_read(r, id, "b.c", &f, &err), 0);
	assert_string_equal(f.buf, "int b = 2;\n");
	strbuf_reset(&f);
	assert_int_equal(gitrepo_read(r, id, "new.c", &f, &err), 0);
	assert_int_equal(gitrepo_read(r, id, "doc/readme", &f, &err), 1);
	strbuf_reset(&diff);
	assert_int_equal(gitrepo_diff_since(r, c2, c1, &diff, &err), 0);
	assert_int_equal(diff.len, 0);
	assert_int_equal(gitrepo_diff_since(r, c1, "no-such-branch", &diff, &err), -1);
	assert_non_null(strstr(err.buf, "cannot resolve 'no-such-branch'"));
	gitrepo_close(r);
	strbuf_release(&err);
	strbuf_release(&diff);
	strbuf_release(&f);
}

static void test_gitrepo_hash_is_git_blob_id(void **state)
{
	char id[41];
	(void)state;

	/* `printf 'hello\n' | git hash-object --stdin` */
	gitrepo_hash("hello\n", 6, id);
	assert_string_equal(id, "ce013625030ba8dba906f756967f9e9ca394464a");
	gitrepo_hash("", 0, id);
	assert_string_equal(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

static void test_gitrepo_checkout_rewrites_only_changed_files(void **state)
{
	struct gitrepo *r;
	struct gitrepo_checkout_stats st;
	struct strbuf err = STRBUF_INIT;
	char *wt = path_in(top, "wt-checkout");
	char *txt;
	struct stat sb;
	(void)state;

	assert_int_equal(gitrepo_open(&r, repo, &err), 0);
	assert_int_equal(gitrepo_checkout(r, c1, wt, &st, &err), 0);
	assert_false(st.incremental);
	assert_int_equal(st.written, 6);
	assert_true(exists(wt, "doc/readme"));
	assert_false(exists(wt, ".git"));
	char *lp = path_in(wt, "link"), target[16] = "";
	assert_int_equal(readlink(lp, target, sizeof(target) - 1), 3);
	assert_string_equal(target, "a.c");
	free(lp);
	char *sp = path_in(wt, "scripts/run.sh");
	assert_int_equal(stat(sp, &sb), 0);
	assert_true(sb.st_mode & S_IXUSR);
	free(sp);

	/* age every file: what the next checkout writes gets a new mtime */
	const char *files[] = { "Makefile", "a.c", "b.c", "link", "scripts/run.sh" };
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		set_old_mtime(wt, files[i]);
	assert_int_equal(gitrepo_checkout(r, c2, wt, &st, &err), 0);
	assert_true(st.incremental);
	assert_int_equal(st.written, 2);	/* b.c, new.c */
	assert_int_equal(st.removed, 1);	/* doc/readme */
	assert_true(is_old(wt, "Makefile"));
	assert_true(is_old(wt, "a.c"));
	assert_true(is_old(wt, "link"));
	assert_true(is_old(wt, "scripts/run.sh"));
	assert_false(is_old(wt, "b.c"));
	txt = slurp(wt, "b.c");
	assert_string_equal(txt, "int b = 2;\n");
	free(txt);
	assert_true(exists(wt, "new.c"));
	assert_false(exists(wt, "doc/readme"));
	assert_false(exists(wt, "doc"));	/* left empty, removed */

	/* no state (another repository, an interrupted checkout): every file compared */
	char *state_file = path_in(wt, GITREPO_CHECKOUT_STATE);
	assert_int_equal(unlink(state_file), 0);
	put(wt, "a.c", "edited by hand\n");
	put(wt, "stale/file", "not in the tree\n");
	set_old_mtime(wt, "a.c");
	assert_int_equal(gitrepo_checkout(r, c2, wt, &st, &err), 0);
	assert_false(st.incremental);
	assert_int_equal(st.written, 1);	/* a.c */
	assert_int_equal(st.unchanged, 5);
	assert_int_equal(st.removed, 1);	/* stale/ */
	assert_false(exists(wt, "stale"));
	assert_false(is_old(wt, "a.c"));
	assert_true(is_old(wt, "Makefile"));
	assert_true(exists(wt, GITREPO_CHECKOUT_STATE));

	/* back to the first commit: only what differs */
	assert_int_equal(gitrepo_checkout(r, c1, wt, &st, &err), 0);
	assert_true(st.incremental);
	assert_int_equal(st.written, 2);	/* b.c, doc/readme */
	assert_int_equal(st.removed, 1);	/* new.c */
	assert_true(is_old(wt, "Makefile"));
	free(state_file);
	free(wt);
	gitrepo_close(r);
	strbuf_release(&err);
}

/* ---- kbuild ----------------------------------------------------------- */

static void build_ok(struct kbuild_opts *o, const char *rev, struct kbuild_result *res)
{
	struct strbuf err = STRBUF_INIT;

	o->rev = rev;
	if (kbuild_build(o, res, &err))
		fail_msg("kbuild_build %s: %s", rev, err.buf);
	strbuf_release(&err);
}

static struct kbuild_opts opts_for(const char *cache)
{
	struct kbuild_opts o = { .tree = repo, .data_dir = data, .cache = cache, .jobs = 2 };
	return o;
}

static void test_kbuild_build_cache_keys_and_hits(void **state)
{
	char *cache = path_in(top, "cache-keys");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result r1, r2, r3, r4;
	(void)state;

	build_ok(&o, c1, &r1);
	assert_true(r1.built);
	assert_false(r1.cached);
	assert_string_equal(r1.commit, c1);
	char *want = xasprintf("%s/kernels/%s-%s", cache, c1, r1.config);
	assert_string_equal(r1.dir, want);
	free(want);
	assert_true(exists(r1.dir, "bzImage"));
	assert_true(exists(r1.dir, "vmlinux"));
	assert_true(exists(r1.dir, "build.log"));
	char *cfg = slurp(r1.dir, ".config");
	assert_string_equal(cfg, "CONFIG_NO=y\nCONFIG_PMEM=y\n");	/* allnoconfig + fragment */
	/* the key is the final .config's git blob id */
	char full[41];
	gitrepo_hash(cfg, strlen(cfg), full);
	assert_memory_equal(full, r1.config, KBUILD_HASHSZ);
	free(cfg);
	char *res = slurp(r1.dir, "result");
	assert_non_null(strstr(res, "state: built\n"));
	assert_non_null(strstr(res, "subject: 'first: the fake kernel'\n"));
	assert_non_null(strstr(res, "kconfig: x86_64-pmem\n"));
	assert_non_null(strstr(res, "seconds: "));
	assert_non_null(strstr(res, "date: 20"));
	free(res);

	/* the same key again: found, make not run at all */
	long makes = count_makes();
	build_ok(&o, "v1", &r2);
	assert_true(r2.built);
	assert_true(r2.cached);
	assert_string_equal(r2.dir, r1.dir);
	assert_int_equal(count_makes(), makes);

	/* another commit: another key, same configuration */
	build_ok(&o, c2, &r3);
	assert_true(r3.built);
	assert_false(r3.cached);
	assert_string_equal(r3.config, r1.config);
	assert_string_not_equal(r3.dir, r1.dir);

	/* another configuration: another key */
	o.kconfig = "defconfig";
	build_ok(&o, c1, &r4);
	assert_true(r4.built);
	assert_false(r4.cached);
	assert_string_not_equal(r4.config, r1.config);
	assert_string_not_equal(r4.input, r1.input);
	cfg = slurp(r4.dir, ".config");
	assert_string_equal(cfg, "CONFIG_DEF=y\nCONFIG_PMEM=y\n");	/* defconfig + fragment */
	free(cfg);

	/* --rebuild builds again */
	kbuild_result_release(&r2);
	o.kconfig = NULL;
	o.rebuild = true;
	build_ok(&o, c1, &r2);
	assert_false(r2.cached);
	assert_true(count_makes() > makes);

	kbuild_result_release(&r1);
	kbuild_result_release(&r2);
	kbuild_result_release(&r3);
	kbuild_result_release(&r4);
	free(cache);
}

/* KCFLAGS (the layout check's aligned kernels): keys of their own, a name of their own, no shell's characters. */
static void test_kbuild_kcflags_keys(void **state)
{
	char *cache = path_in(top, "cache-kcflags");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result plain, aligned, again, bad;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	build_ok(&o, c1, &plain);
	o.kcflags = "-falign-functions=32";
	long makes = count_makes();
	build_ok(&o, c1, &aligned);
	/* the same .config, but another input and another kernel: built, not found */
	assert_false(aligned.cached);
	assert_true(count_makes() > makes);
	assert_string_not_equal(aligned.input, plain.input);
	assert_string_not_equal(aligned.config, plain.config);
	assert_string_not_equal(aligned.dir, plain.dir);
	build_ok(&o, c1, &again);
	assert_true(again.cached);
	assert_string_equal(again.dir, aligned.dir);
	/* the result paths' name */
	char *name = kbuild_kconfig_name("x86_64-pmem", "-falign-functions=32");
	assert_string_equal(name, "x86_64-pmem+falign-functions=32");
	free(name);
	name = kbuild_kconfig_name("/some/dir/my.config", NULL);
	assert_string_equal(name, "my.config");
	free(name);
	/* make hands KCFLAGS to a shell: what a shell would read is refused, as bad input */
	o.kcflags = "-O2; rm -rf /";
	assert_int_equal(kbuild_build(&o, &bad, &err), KBUILD_EINPUT);
	assert_non_null(strstr(err.buf, "KCFLAGS '-O2; rm -rf /': only letters, digits"));
	kbuild_result_release(&plain);
	kbuild_result_release(&aligned);
	kbuild_result_release(&again);
	kbuild_result_release(&bad);
	strbuf_release(&err);
	free(cache);
}

static void test_kbuild_build_reuses_build_dir(void **state)
{
	char *cache = path_in(top, "cache-incr");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result r1, r2;
	(void)state;

	o.jobs = 1;	/* objects in a stable order */

	build_ok(&o, c1, &r1);
	char *bdir = xasprintf("%s/build/%s", cache, r1.input);
	assert_true(exists(bdir, "marker"));
	char *compiled = slurp(bdir, "compiled");
	assert_string_equal(compiled, "a.o\nb.o\n");
	free(compiled);
	char *marker = path_in(bdir, "marker");
	assert_int_equal(unlink(marker), 0);
	assert_int_equal(fsutil_write(marker, "left by the first build\n", 24), 0);

	build_ok(&o, c2, &r2);
	assert_true(r2.built);
	/* the same O= directory: the marker is still there, only what changed was made */
	char *m = slurp(bdir, "marker");
	assert_string_equal(m, "left by the first build\n");
	free(m);
	compiled = slurp(bdir, "compiled");
	assert_string_equal(compiled, "a.o\nb.o\nb.o\nnew.o\n");
	free(compiled);
	char *log = slurp(r2.dir, "build.log");
	assert_non_null(strstr(log, "  CC      new.o\n"));
	assert_null(strstr(log, "  CC      a.o\n"));
	free(log);

	free(marker);
	free(bdir);
	kbuild_result_release(&r1);
	kbuild_result_release(&r2);
	free(cache);
}

static void test_kbuild_build_failure_is_recorded(void **state)
{
	char *cache = path_in(top, "cache-fail");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result r, again;
	(void)state;

	build_ok(&o, c3, &r);
	assert_false(r.built);
	assert_false(r.cached);
	assert_string_equal(r.error, "bad.c:3:5: error: expected ';' before '}' token");
	assert_false(exists(r.dir, "bzImage"));
	assert_true(exists(r.dir, "build.log"));
	assert_true(exists(r.dir, ".config"));
	char *res = slurp(r.dir, "result");
	assert_non_null(strstr(res, "state: failed\n"));
	assert_non_null(strstr(res, "\nerror: "));
	free(res);
	struct kbuild_result back = { 0 };
	struct strbuf err = STRBUF_INIT;
	assert_int_equal(kbuild_read_result(r.dir, &back, &err), 0);
	assert_false(back.built);
	assert_string_equal(back.error, r.error);
	assert_string_equal(back.commit, c3);
	kbuild_result_release(&back);
	strbuf_release(&err);

	/* a recorded failure is an outcome: not built again */
	long makes = count_makes();
	build_ok(&o, c3, &again);
	assert_false(again.built);
	assert_true(again.cached);
	assert_string_equal(again.error, r.error);
	assert_int_equal(count_makes(), makes);

	kbuild_result_release(&r);
	kbuild_result_release(&again);
	free(cache);
}

/*
 * A make that does not end is stopped after the build's timeout, and one
 * under way when we are asked to stop is stopped at once: the robot's
 * failure (KBUILD_EFAIL), nothing recorded — the same commit builds later.
 */
static void test_kbuild_make_bounded(void **state)
{
	char *cache = path_in(top, "cache-hang");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result r;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	setenv("FAKEKBUILD_HANG", "1", 1);
	o.rev = c1;
	o.timeout = 1;
	double t0 = proc_now();
	assert_int_equal(kbuild_build(&o, &r, &err), KBUILD_EFAIL);
	assert_non_null(strstr(err.buf, "make ran for more than 1 s and was stopped"));
	assert_true(proc_now() - t0 < 30);
	kbuild_result_release(&r);

	proc_stop_signal = SIGTERM;
	strbuf_reset(&err);
	o.timeout = 0;
	t0 = proc_now();
	assert_int_equal(kbuild_build(&o, &r, &err), KBUILD_EFAIL);
	proc_stop_signal = 0;
	assert_non_null(strstr(err.buf, "interrupted by signal 15 while make ran"));
	assert_true(proc_now() - t0 < 30);
	kbuild_result_release(&r);

	unsetenv("FAKEKBUILD_HANG");
	build_ok(&o, c1, &r);
	assert_true(r.built);
	assert_false(r.cached);
	kbuild_result_release(&r);
	strbuf_release(&err);
	free(cache);
}

/*
 * Locks are waited for within bounds: fsutil_lock gives up after its wait
 * and names the holder; a build waiting for another build of its cache
 * stops waiting when we are asked to stop.
 */
static void test_locks_bounded(void **state)
{
	char *cache = path_in(top, "cache-lock");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result r;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	build_ok(&o, c1, &r);
	kbuild_result_release(&r);
	char *lock = path_in(cache, "lock");
	int held = fsutil_lock(lock, 1, &err);
	assert_true(held >= 0);
	/* another process asks: a forked child, as another robot would */
	pid_t pid = fork();
	if (pid == 0) {
		struct strbuf e = STRBUF_INIT;
		int fd = fsutil_lock(lock, 0.3, &e);
		char want[64];
		snprintf(want, sizeof(want), "is in use by process %d (waited 0 s)", (int)getppid());
		_exit(fd < 0 && strstr(e.buf, want) ? 0 : 1);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pid = fork();
	if (pid == 0) {
		struct strbuf e = STRBUF_INIT;
		struct kbuild_result rr;
		proc_stop_signal = SIGTERM;
		o.rebuild = true;
		o.rev = c2;
		int rc = kbuild_build(&o, &rr, &e);
		_exit(rc == KBUILD_EFAIL && strstr(e.buf, "interrupted by signal 15 while waiting for") ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(held);
	free(lock);
	strbuf_release(&err);
	free(cache);
}

static void test_kbuild_build_bad_input(void **state)
{
	char *cache = path_in(top, "cache-bad");
	struct kbuild_opts o = opts_for(cache);
	struct kbuild_result r;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	o.rev = "no-such-rev";
	assert_int_equal(kbuild_build(&o, &r, &err), KBUILD_EINPUT);
	assert_non_null(strstr(err.buf, "cannot resolve 'no-such-rev'"));
	kbuild_result_release(&r);

	o.rev = "HEAD";
	o.tree = "/nonexistent";
	assert_int_equal(kbuild_build(&o, &r, &err), KBUILD_EINPUT);
	assert_string_equal(err.buf, "'/nonexistent': no such directory");
	kbuild_result_release(&r);

	o.tree = repo;
	o.kconfig = "no-such-config";
	assert_int_equal(kbuild_build(&o, &r, &err), KBUILD_EINPUT);
	assert_non_null(strstr(err.buf, "'no-such-config' is not a kconfig"));
	kbuild_result_release(&r);
	/* nothing was built or even created for bad input */
	assert_int_equal(access(cache, F_OK), -1);

	o.kconfig = NULL;
	o.cache = "/proc/no-cache-here";
	assert_int_equal(kbuild_build(&o, &r, &err), KBUILD_EFAIL);
	assert_non_null(strstr(err.buf, "cannot create the kernel cache"));
	kbuild_result_release(&r);
	strbuf_release(&err);
	free(cache);
}

static void test_kbuild_config_resolve(void **state)
{
	struct kbuild_config kc, kc2;
	struct strbuf err = STRBUF_INIT;
	char *file = path_in(top, "my.config"), *junk = path_in(top, "junk.txt");
	(void)state;

	assert_int_equal(kbuild_config_resolve(&kc, NULL, data, &err), 0);
	assert_int_equal(kc.base, KBUILD_BASE_FRAGMENT);
	assert_string_equal(kc.name, "x86_64-pmem");
	assert_string_equal(kc.text, "# the robot's fragment\nCONFIG_PMEM=y\n");
	assert_int_equal(strlen(kc.input), KBUILD_HASHSZ);

	assert_int_equal(kbuild_config_resolve(&kc2, "tiny", data, &err), 0);
	assert_int_equal(kc2.base, KBUILD_BASE_FRAGMENT);
	assert_non_null(strstr(kc2.text, "CONFIG_TINY=y\n"));
	assert_non_null(strstr(kc2.text, "CONFIG_PMEM=y\n"));	/* the fragment is merged */
	assert_string_not_equal(kc.input, kc2.input);
	kbuild_config_release(&kc2);

	assert_int_equal(kbuild_config_resolve(&kc2, "defconfig", data, &err), 0);
	assert_int_equal(kc2.base, KBUILD_BASE_DEFCONFIG);
	assert_string_not_equal(kc.input, kc2.input);
	kbuild_config_release(&kc2);

	assert_int_equal(fsutil_write(file, "CONFIG_USER=y\n", 14), 0);
	assert_int_equal(kbuild_config_resolve(&kc2, file, data, &err), 0);
	assert_int_equal(kc2.base, KBUILD_BASE_FILE);
	assert_string_equal(kc2.name, "my.config");
	assert_true(!strncmp(kc2.text, "CONFIG_USER=y\n", 14));
	assert_non_null(strstr(kc2.text, "CONFIG_PMEM=y\n"));
	kbuild_config_release(&kc2);

	assert_int_equal(fsutil_write(junk, "hello\n", 6), 0);
	assert_int_equal(kbuild_config_resolve(&kc2, junk, data, &err), -1);
	assert_non_null(strstr(err.buf, "is not a kernel .config"));
	assert_int_equal(kbuild_config_resolve(&kc2, "./missing.config", data, &err), -1);
	assert_non_null(strstr(err.buf, "cannot read the kconfig file"));
	assert_int_equal(kbuild_config_resolve(&kc2, "x86_64-pmem", "/nonexistent", &err), -1);
	assert_non_null(strstr(err.buf, "robot's kconfig fragment"));

	kbuild_config_release(&kc);
	strbuf_release(&err);
	free(file);
	free(junk);
}

static void test_kbuild_first_error_ranks(void **state)
{
	struct strbuf out = STRBUF_INIT;
	(void)state;

	const char *gcc =
		"  CC      init/main.o\n"
		"init/main.c: In function 'start_kernel':\n"
		"init/main.c:12:2: warning: unused variable 'x'\n"
		"init/main.c:13:5: error: 'foo' undeclared (first use in this function)\n"
		"make[2]: *** [scripts/Makefile.build:250: init/main.o] Error 1\n"
		"init/main.c:20:1: error: later\n";
	kbuild_first_error(gcc, strlen(gcc), &out);
	assert_string_equal(out.buf, "init/main.c:13:5: error: 'foo' undeclared (first use in this function)");

	const char *ld =
		"make[1]: *** [Makefile:1234: vmlinux] Error 1\n"
		"ld: init/main.o: in function `start_kernel':\n"
		"main.c:(.text+0x5): undefined reference to `foo'\n";
	kbuild_first_error(ld, strlen(ld), &out);
	assert_string_equal(out.buf, "main.c:(.text+0x5): undefined reference to `foo'");

	const char *mk = "  CC      a.o\nmake: *** No rule to make target 'bzImage'.  Stop.\n";
	kbuild_first_error(mk, strlen(mk), &out);
	assert_string_equal(out.buf, "make: *** No rule to make target 'bzImage'.  Stop.");

	const char *other = "something odd\n\tthe last words  \n\n";
	kbuild_first_error(other, strlen(other), &out);
	assert_string_equal(out.buf, "the last words");

	kbuild_first_error("", 0, &out);
	assert_string_equal(out.buf, "");

	/* one line of at most 300 bytes of the log: its UTF-8 kept, a control character as \xNN */
	struct strbuf big = STRBUF_INIT;
	strbuf_addstr(&big, "x.c:1:1: error: \x1b[31m\xc3\xa9");
	for (int i = 0; i < 400; i++)
		strbuf_addch(&big, 'y');
	kbuild_first_error(big.buf, big.len, &out);
	assert_int_equal(out.len, 303); /* the escape character written as its 4 characters */
	assert_true(!strncmp(out.buf, "x.c:1:1: error: \\x1b[31m\xc3\xa9yyy", 29));
	/* gcc's quotes in a UTF-8 locale, never '?'; a byte that is no UTF-8 as \xNN */
	const char *q =
		"bench.c:3:1: error: expected \xe2\x80\x98;\xe2\x80\x99 before \xe2\x80\x98}\xe2\x80\x99 "
		"token \xff\n";
	kbuild_first_error(q, strlen(q), &out);
	assert_string_equal(out.buf,
			    "bench.c:3:1: error: expected \xe2\x80\x98;\xe2\x80\x99 before "
			    "\xe2\x80\x98}\xe2\x80\x99 token \\xff");
	/* a cut at 300 bytes falls before a character, not inside it */
	strbuf_reset(&big);
	strbuf_addstr(&big, "x.c:1:1: error: ");
	while (big.len < 299)
		strbuf_addch(&big, 'z');
	strbuf_addstr(&big, "\xe2\x80\x98tail\n");
	kbuild_first_error(big.buf, big.len, &out);
	assert_int_equal(out.len, 299);
	strbuf_release(&big);
	strbuf_release(&out);
}

static void test_kbuild_object_line(void **state)
{
	(void)state;
	assert_true(kbuild_object_line("  CC      init/main.o"));
	assert_true(kbuild_object_line("  AS      arch/x86/entry/entry_64.o"));
	assert_true(kbuild_object_line("  CC [M]  fs/xfs/xfs_super.o"));
	assert_false(kbuild_object_line("  CC      scripts/mod/empty.s"));
	assert_false(kbuild_object_line("  LD      vmlinux.o"));
	assert_false(kbuild_object_line("  HOSTCC  scripts/basic/fixdep"));
	assert_false(kbuild_object_line("CC init/main.o"));
	assert_false(kbuild_object_line("  CCX     a.o"));
	assert_false(kbuild_object_line(""));
}

static void test_kbuild_estimate_objects(void **state)
{
	const char *cfg = "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=m\nCONFIG_D=y\nCONFIG_E=\"y\"\n";
	(void)state;

	assert_int_equal(kbuild_estimate_objects(cfg, strlen(cfg)), 2 * 23 / 10);
	assert_int_equal(kbuild_estimate_objects("", 0), 0);
}

static void test_kbuild_cache_dir(void **state)
{
	struct strbuf d = STRBUF_INIT;
	(void)state;

	setenv("LKPROBOT_CACHE", "/somewhere/else", 1);
	kbuild_cache_dir(&d);
	assert_string_equal(d.buf, "/somewhere/else");
	unsetenv("LKPROBOT_CACHE");
	kbuild_cache_dir(&d);
	if (!geteuid())
		assert_string_equal(d.buf, "/var/cache/lkprobot");
	else
		assert_non_null(strstr(d.buf, "/.cache/lkprobot"));
	strbuf_release(&d);
}

/* kernel.config in a run's result root: the .config of the kernel it booted, found where each kind of kernel keeps it */
static void test_kbuild_record_config(void **state)
{
	char *cache = path_in(top, "cache-record"), *run = path_in(top, "run"), *got;
	struct kbuild_opts o = opts_for(cache);
	struct strbuf err = STRBUF_INIT;
	struct kbuild_result r;
	(void)state;

	assert_int_equal(fsutil_mkdir_p(run), 0);
	/* the kernel cache: beside bzImage and vmlinux */
	build_ok(&o, c1, &r);
	char *image = path_in(r.dir, "bzImage"), *want = slurp(r.dir, ".config");
	assert_int_equal(kbuild_record_config(image, run, &err), 0);
	got = slurp(run, "kernel.config");
	assert_string_equal(got, want);
	free(got);
	free(image);
	free(want);
	kbuild_result_release(&r);
	/* a build directory's bzImage; /boot's vmlinuz-<release> */
	put(top, "o/arch/x86/boot/bzImage", "kernel");
	put(top, "o/.config", "CONFIG_O=y\n");
	put(top, "boot/vmlinuz-6.1.0-1-amd64", "kernel");
	put(top, "boot/config-6.1.0-1-amd64", "CONFIG_BOOT=y\n");
	const char *const cases[][2] = { { "o/arch/x86/boot/bzImage", "CONFIG_O=y\n" },
					 { "boot/vmlinuz-6.1.0-1-amd64", "CONFIG_BOOT=y\n" } };
	for (size_t i = 0; i < 2; i++) {
		image = path_in(top, cases[i][0]);
		assert_int_equal(kbuild_record_config(image, run, &err), 0);
		got = slurp(run, "kernel.config");
		assert_string_equal(got, cases[i][1]);
		free(got);
		free(image);
	}
	/* a kernel whose config nobody knows, or none (the machine's own): no file */
	char *kc = path_in(run, "kernel.config");
	unlink(kc);
	put(top, "elsewhere/bzImage", "kernel");
	image = path_in(top, "elsewhere/bzImage");
	assert_int_equal(kbuild_record_config(image, run, &err), 0);
	assert_int_equal(kbuild_record_config(NULL, run, &err), 0);
	assert_int_not_equal(access(kc, F_OK), 0);
	/* a result root that cannot take it: an error, said */
	char *gone = path_in(top, "no/such/run");
	image = (free(image), path_in(top, "o/arch/x86/boot/bzImage"));
	assert_int_equal(kbuild_record_config(image, gone, &err), -1);
	assert_non_null(strstr(err.buf, "kernel.config"));
	free(gone);
	free(image);
	free(kc);
	free(cache);
	free(run);
	strbuf_release(&err);
}

/* the --kconfig another machine understands: names as they are, a file as the result root's copy */
static void test_kbuild_config_portable(void **state)
{
	(void)state;
	assert_null(kbuild_config_portable(NULL, data));
	assert_string_equal(kbuild_config_portable("defconfig", data), "defconfig");
	assert_string_equal(kbuild_config_portable("tiny", data), "tiny");
	assert_string_equal(kbuild_config_portable("/home/me/my.config", data), "kernel.config");
	assert_string_equal(kbuild_config_portable("my.config", data), "kernel.config");
}

/*
 * A culprit that is a merge is reverted against its first parent (as `git
 * revert -m 1`): what the side branch brought goes, the rest stays; the
 * revert is a commit of the robot's on top of the bad end, under
 * refs/lkprobot/reverts/. A root commit has nothing to revert to: 1, said.
 */
static void test_gitrepo_revert_merge(void **state)
{
	char saved[sizeof(repo)], base[41], merge[41], tip[41], out[41], ref[41];
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	struct gitrepo *r;
	(void)state;

	memcpy(saved, repo, sizeof(repo));
	snprintf(repo, sizeof(repo), "%s/merges", top);
	put(repo, "a.c", "int a;\n");
	git((const char *[]){ "init", "-q", "-b", "main", NULL });
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "base", NULL });
	head(base);
	git((const char *[]){ "checkout", "-q", "-b", "side", NULL });
	put(repo, "side.c", "int side;\n");
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "side: the slow path", NULL });
	git((const char *[]){ "checkout", "-q", "main", NULL });
	put(repo, "main.c", "int m;\n");
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "main", NULL });
	git((const char *[]){ "merge", "-q", "--no-ff", "-m", "Merge branch side", "side", NULL });
	head(merge);
	put(repo, "later.c", "int l;\n");
	git((const char *[]){ "add", "-A", NULL });
	git((const char *[]){ "commit", "-q", "-m", "later", NULL });
	head(tip);

	assert_int_equal(gitrepo_open(&r, repo, &err), 0);
	if (gitrepo_revert(r, merge, tip, out, &err))
		fail_msg("revert of the merge: %s", err.buf);
	assert_int_equal(gitrepo_read(r, out, "side.c", &text, &err), 1);  /* the side branch's file: gone */
	assert_int_equal(gitrepo_read(r, out, "main.c", &text, &err), 0);  /* the first parent's: kept */
	assert_int_equal(gitrepo_read(r, out, "later.c", &text, &err), 0); /* the bad end's: kept */
	assert_int_equal(gitrepo_is_ancestor(r, tip, out, &err), 1);
	char *name = xasprintf("refs/lkprobot/reverts/%.12s-on-%.12s", merge, tip);
	assert_int_equal(gitrepo_resolve(r, name, ref, &err), 0);
	assert_string_equal(ref, out);
	free(name);
	/* the same revert again is the same commit */
	char again[41];
	assert_int_equal(gitrepo_revert(r, merge, tip, again, &err), 0);
	assert_string_equal(again, out);
	strbuf_reset(&err);
	assert_int_equal(gitrepo_revert(r, base, tip, out, &err), 1);
	assert_non_null(strstr(err.buf, "root commit"));
	gitrepo_close(r);
	strbuf_release(&err);
	strbuf_release(&text);
	memcpy(repo, saved, sizeof(repo));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gitrepo_resolve_revisions),
		cmocka_unit_test(test_gitrepo_commit_info),
		cmocka_unit_test(test_gitrepo_diff_since),
		cmocka_unit_test(test_gitrepo_revert_merge),
		cmocka_unit_test(test_gitrepo_hash_is_git_blob_id),
		cmocka_unit_test(test_gitrepo_checkout_rewrites_only_changed_files),
		cmocka_unit_test(test_kbuild_build_cache_keys_and_hits),
		cmocka_unit_test(test_kbuild_kcflags_keys),
		cmocka_unit_test(test_kbuild_build_reuses_build_dir),
		cmocka_unit_test(test_kbuild_build_failure_is_recorded),
		cmocka_unit_test(test_kbuild_build_bad_input),
		cmocka_unit_test(test_kbuild_make_bounded),
		cmocka_unit_test(test_locks_bounded),
		cmocka_unit_test(test_kbuild_config_resolve),
		cmocka_unit_test(test_kbuild_first_error_ranks),
		cmocka_unit_test(test_kbuild_object_line),
		cmocka_unit_test(test_kbuild_estimate_objects),
		cmocka_unit_test(test_kbuild_cache_dir),
		cmocka_unit_test(test_kbuild_record_config),
		cmocka_unit_test(test_kbuild_config_portable),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

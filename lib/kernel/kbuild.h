/*
 * kbuild: build a kernel from a git commit into the kernel cache — check the
 * commit out (lib/git), write its .config (a base config merged with the
 * robot's fragment, kconfig/x86_64-pmem.config), run make bzImage in a build
 * directory reused across commits, and keep bzImage, vmlinux, .config and
 * the build log under a key of (commit, hash of the final .config). Every
 * command is spawned from an argv array. It knows nothing about jobs,
 * machines or how a kernel is booted.
 *
 * The cache (kbuild_cache_dir()):
 *   lock                          held (flock) while a build runs: builds queue
 *   src/                          the one work tree, rewritten file by file
 *   build/<input>/                make's O= directory, one per configuration input
 *   kernels/<commit>-<config>/    bzImage vmlinux .config build.log result
 *   index/<commit>-<input>        symlink to the kernel built from that input
 * <input> is the first 12 hex digits of the git blob id of the configuration
 * input (base, base file or fragment, robot fragment; and KCFLAGS, when
 * given); <config> those of the final .config (`git hash-object .config |
 * cut -c1-12`; with KCFLAGS, of the .config and a line naming them). The O= directory is
 * keyed by the input, not the final .config, because the final .config of
 * one input changes as Kconfig changes between commits, and a new directory
 * per change would make every bisection step a clean build.
 */
#ifndef LKP_KBUILD_H
#define LKP_KBUILD_H

#include "../util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

#define KBUILD_HASHSZ 12	/* hex digits of a config hash in cache names */
#define KBUILD_DEFAULT_KCONFIG "x86_64-pmem"
#define KBUILD_FRAGMENT "x86_64-pmem"	/* kconfig/<this>.config: always merged */

/*
 * The cache directory: $LKPROBOT_CACHE, else /var/cache/lkprobot for root,
 * else ~/.cache/lkprobot. Not created.
 */
void kbuild_cache_dir(struct strbuf *out);

/* How the base configuration is made. */
enum kbuild_base {
	KBUILD_BASE_DEFCONFIG,	/* make defconfig, fragment appended, make olddefconfig */
	KBUILD_BASE_FRAGMENT,	/* KCONFIG_ALLCONFIG=<kconfig/NAME.config + fragment> make allnoconfig */
	KBUILD_BASE_FILE,	/* the user's .config, fragment appended, make olddefconfig */
};

struct kbuild_config {
	enum kbuild_base base;
	char *name;		/* for result paths: defconfig, x86_64-pmem, the file's base name */
	char *path;		/* the fragment or file; NULL for defconfig */
	char *text;		/* what goes to KCONFIG_ALLCONFIG or .config before make */
	char input[KBUILD_HASHSZ + 1];	/* hash of the configuration input */
};

/*
 * Resolve --kconfig: "defconfig", NAME for <data_dir>/kconfig/NAME.config,
 * or a .config file (a path with '/' or an existing file). The robot's
 * fragment <data_dir>/kconfig/x86_64-pmem.config is merged into each.
 * 0, or -1 with one line in err (no such name or file, not a .config).
 */
int kbuild_config_resolve(struct kbuild_config *kc, const char *spec, const char *data_dir,
			  struct strbuf *err);
void kbuild_config_release(struct kbuild_config *kc);

struct kbuild_opts {
	const char *tree;	/* the git repository to build from */
	const char *rev;	/* the revision to build */
	const char *kconfig;	/* see kbuild_config_resolve(); NULL: KBUILD_DEFAULT_KCONFIG */
	const char *data_dir;	/* holds kconfig/ */
	const char *cache;	/* NULL: kbuild_cache_dir() */
	const char *compiler;	/* recorded in the result (gcc-12); NULL: not recorded */
	int jobs;		/* make -j; 0: the CPUs this process may run on */
	bool rebuild;		/* build even when the cache has the kernel (or its failure) */
	/*
	 * make's KCFLAGS (NULL: none): -falign-functions=32 for the layout
	 * check. Part of both cache keys (its input and its kernel), so an
	 * aligned kernel is never taken for the plain one; letters, digits,
	 * spaces and "-=,._+" only (make hands it to a shell in its recipes).
	 */
	const char *kcflags;
	bool progress;		/* show progress on stdout (a terminal) */
	double timeout;		/* seconds one make may run; 0: KBUILD_TIMEOUT */
};

/*
 * A make that runs longer (a compiler that never ends, a build waiting on
 * a terminal) is stopped — SIGTERM to its group, SIGKILL 5 s later — and
 * nothing is recorded: the build is the robot's failure, not the commit's.
 * A SIGTERM to us stops it the same way. Another build of the same cache is
 * waited for as long, and more.
 */
#define KBUILD_TIMEOUT (6 * 3600)

struct kbuild_result {
	bool built;		/* a kernel is there; false: its build failed */
	bool cached;		/* found in the cache: nothing was checked out or run */
	char commit[41];
	char config[KBUILD_HASHSZ + 1];	/* hash of the final .config (of the input if config failed) */
	char input[KBUILD_HASHSZ + 1];
	char *dir;		/* the kernel's directory in the cache */
	char *error;		/* when the build failed: its first error line */
	long seconds;		/* wall time of the build (checkout, config, make) */
};
void kbuild_result_release(struct kbuild_result *res);

enum {
	KBUILD_EINPUT = -1,	/* bad input: no such tree, revision or kconfig (exit 2) */
	KBUILD_EFAIL = -2,	/* the robot could not build: cache not writable, no make (exit 1) */
};

/*
 * Build opts->rev of opts->tree, or find it in the cache. 0 when there is
 * an outcome — a kernel (res->built) or a recorded failure with its first
 * error line — built now or found (res->cached); KBUILD_EINPUT or
 * KBUILD_EFAIL with one line in err otherwise. Blocks for the build's
 * duration (minutes for a kernel) and waits for a build already running in
 * the same cache. res is filled in every case (release it).
 */
int kbuild_build(const struct kbuild_opts *opts, struct kbuild_result *res, struct strbuf *err);

/*
 * The cache keys of a build with KCFLAGS: kc's input hash made anew from
 * the old one and the flags; config (a final .config's hash) likewise. A
 * no-op without flags. 0, or -1 with err set (a character make's shell
 * would read).
 */
int kbuild_key_kcflags(struct kbuild_config *kc, const char *kcflags, struct strbuf *err);
/* KCFLAGS a build may be given (NULL: none): 0, or -1 with err set (a character make's shell would read). */
int kbuild_kcflags_check(const char *kcflags, struct strbuf *err);
void kbuild_config_hash(const char *config, size_t len, const char *kcflags, char out[KBUILD_HASHSZ + 1]);

/*
 * The kconfig's name in result paths: its base name (x86_64-pmem, a
 * file's name), with "+" and the KCFLAGS (without their leading dashes,
 * spaces as "+") when given: x86_64-pmem+falign-functions=32. Newly
 * allocated.
 */
char *kbuild_kconfig_name(const char *kconfig, const char *kcflags);

/* Read a kernel directory's `result` file into res. 0, or -1 with err set. */
int kbuild_read_result(const char *dir, struct kbuild_result *res, struct strbuf *err);

/*
 * The first error line of a build log: a compiler, assembler or Kconfig
 * "error:", else a linker "undefined reference", else make's "*** ... Error
 * N" line, else the last line. Empty if the log is empty. At most 300 bytes
 * of it, cut before a character; its UTF-8 kept (a compiler's quotes), a
 * tab a space, other control characters and bytes that are no UTF-8 as
 * \xNN (strbuf_add_oneline): one line, never a '?' for what it said.
 */
void kbuild_first_error(const char *log, size_t len, struct strbuf *out);

/* Is this line of make's V=0 output an object being made ("  CC      init/main.o")? */
bool kbuild_object_line(const char *line);

/*
 * How many objects a clean build of this .config makes, estimated from its
 * number of "=y" lines (see kbuild.c for the measured ratio); 0 if unknown.
 */
size_t kbuild_estimate_objects(const char *config, size_t len);

/*
 * The run in run_dir booted `image`: a copy of that kernel's .config as
 * <run_dir>/kernel.config, the configuration a report of the run names.
 * The .config is the one beside the image, where the kernel cache keeps it
 * (kernels/<commit>-<config>/: bzImage vmlinux .config) and a build
 * directory has it for its vmlinux; <O>/.config for <O>/arch/x86/boot/
 * bzImage; /boot's config-<release> for a vmlinuz-<release>. No image, or
 * none of these: no file (a kernel whose configuration is not known). 0, or
 * -1 with err set.
 */
int kbuild_record_config(const char *image, const char *run_dir, struct strbuf *err);

/*
 * The --kconfig that names spec's configuration on another machine (a
 * run's reproduce.json): defconfig or a name of kconfig/ as it is; a
 * .config file as "kernel.config", the copy kbuild_record_config() leaves
 * in the run's result root. NULL (the default) for NULL.
 */
const char *kbuild_config_portable(const char *spec, const char *data_dir);

#endif

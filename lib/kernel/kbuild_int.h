/*
 * kbuild_int: what the files of lib/kernel/kbuild share and nobody else
 * may see: one build's state (struct kb) and the kernel cache's steps
 * that kbuild.c's build calls (kbuild_cache.c). The public API, with the
 * cache's layout, is kbuild.h.
 */
#ifndef LKP_KBUILD_INT_H
#define LKP_KBUILD_INT_H

#include "kbuild.h"
#include "git.h"
#include "../util/strbuf.h"

#include <stdbool.h>
#include <time.h>

#define LOG_NAME ".lkprobot-build.log"	/* in the O= directory while building */

/* One build, from kbuild_build() to its result. */
struct kb {
	const struct kbuild_opts *o;
	struct kbuild_config kc;
	struct gitrepo *repo;
	struct gitrepo_commit ci;
	struct strbuf cache, src, build, log_path, cc;
	int jobs;
	int log_fd;
	int lock_fd;
	struct timespec t0;
	/* progress */
	const char *phase;
	size_t objects, expected;
	struct timespec shown;
};

/* Create the cache's directories; cache, src and index paths made absolute. */
int kbuild_cache_open(struct kb *kb, struct strbuf *err);
/* kernels/<commit>-<config> and index/<commit>-<input> */
char *kbuild_cache_kernel_dir(struct kb *kb, const char *config);
char *kbuild_cache_index_path(struct kb *kb);
/* Is the kernel (or its failure) of dir in the cache? Fills res if so. */
bool kbuild_cache_lookup(const char *dir, struct kbuild_result *res);
/* Point index/<commit>-<input> at the kernel directory (atomically). */
int kbuild_cache_link(struct kb *kb, const char *kdir, struct strbuf *err);
/* Move the outputs into kernels/<commit>-<config>/ with the result file. */
int kbuild_cache_record(struct kb *kb, struct kbuild_result *res, struct strbuf *err);

#endif

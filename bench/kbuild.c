/*
 * bench/kbuild: what reusing the O= directory buys — the wall time of
 * `lkprobot build` on a real kernel from a fresh cache (checkout of every
 * file, configuration, every object) against the next commit, which
 * changes one file, built in the same cache (only the changed files are
 * checked out, only their objects compiled). The kernel is Debian's
 * linux-source-6.1 unpacked into a git repository by `make check-kernel`;
 * without it the benchmark says so and skips. The clean build takes
 * 10-20 minutes on 2 cores.
 *
 * usage (from the source tree): build/rel/bench/kbuild [TREE [path/to/lkprobot [KCONFIG]]]
 * It commits a one-line change to drivers/nvdimm/pmem.c in TREE.
 */
#include "bench.h"
#include "../lib/run/run.h"
#include "../lib/util/strbuf.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Run argv with stdout into `out` (a file); its exit status. */
static int run_to(char *const argv[], const char *out)
{
	struct strbuf err = STRBUF_INIT;
	int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int rc = fd < 0 ? -1 : run_exec(argv, fd, -1, &err);

	if (rc < 0)
		fprintf(stderr, "bench/kbuild: %s\n", err.len ? err.buf : "cannot write the output");
	if (fd >= 0)
		close(fd);
	strbuf_release(&err);
	return rc;
}

/* The build's second output line ("built in N s") and how many objects its log compiled. */
static void report(const char *what, double wall, const char *out)
{
	struct strbuf s = STRBUF_INIT, log = STRBUF_INIT;
	size_t objects = 0;

	strbuf_read_file(&s, out);
	char *nl = strchr(s.buf, '\n');
	if (nl) {
		*nl = '\0';
		char *path = xasprintf("%s/build.log", s.buf);
		if (!strbuf_read_file(&log, path))
			for (char *p = log.buf; (p = strstr(p, "\n  CC ")); p++)
				objects++;
		free(path);
		*nl = '\n';
	}
	strbuf_rtrim(&s);
	printf("%-16s %7.1f s wall, %zu object(s) compiled   [%s]\n", what, wall, objects,
	       nl ? nl + 1 : s.buf);
	strbuf_release(&s);
	strbuf_release(&log);
}

int main(int argc, char **argv)
{
	const char *tree = argc > 1 ? argv[1] : "/var/tmp/lkprobot-linux/linux-source-6.1";
	const char *bin = argc > 2 ? argv[2] : "./lkprobot";
	const char *kconfig = argc > 3 ? argv[3] : "x86_64-pmem";
	char base[] = "/var/tmp/lkp-bench-kbuild-XXXXXX";
	struct stat st;
	char *gitdir = xasprintf("%s/.git", tree);

	if (stat(gitdir, &st)) {
		printf("bench/kbuild: skipped: no kernel git tree at %s ('make check-kernel' unpacks Debian's linux-source-6.1 there)\n",
		       tree);
		free(gitdir);
		return 0;
	}
	free(gitdir);
	if (!mkdtemp(base))
		return 1;
	char *cache = xasprintf("%s/cache", base), *out1 = xasprintf("%s/clean.out", base),
	     *out2 = xasprintf("%s/change.out", base), *file = xasprintf("%s/drivers/nvdimm/pmem.c", tree);

	/* the change: one comment line in one file the pmem kernel compiles */
	FILE *f = fopen(file, "a");
	if (!f || fprintf(f, "/* lkprobot bench/kbuild %ld */\n", (long)time(NULL)) < 0 || fclose(f)) {
		fprintf(stderr, "bench/kbuild: cannot change %s\n", file);
		return 1;
	}
	char *commit[] = { "git", "-C", (char *)tree, "-c", "user.name=lkprobot", "-c",
			   "user.email=lkprobot@localhost", "commit", "-q", "-a", "-m",
			   "nvdimm/pmem: a comment (lkprobot bench/kbuild)", NULL };
	if (run_to(commit, "/dev/null")) {
		fprintf(stderr, "bench/kbuild: git commit failed in %s\n", tree);
		return 1;
	}

	char *clean[] = { (char *)bin, "build", "--tree", (char *)tree, "--commit", "HEAD~1",
			  "--kconfig", (char *)kconfig, "--cache", cache, NULL };
	char *change[] = { (char *)bin, "build", "--tree", (char *)tree, "--commit", "HEAD",
			   "--kconfig", (char *)kconfig, "--cache", cache, NULL };
	printf("bench/kbuild: %s (%s), fresh cache in %s; the clean build takes minutes\n",
	       tree, kconfig, cache);
	fflush(stdout);
	double t0 = now();
	if (run_to(clean, out1)) {
		fprintf(stderr, "bench/kbuild: the clean build failed (see %s)\n", out1);
		return 1;
	}
	double t1 = now();
	if (run_to(change, out2)) {
		fprintf(stderr, "bench/kbuild: the one-file rebuild failed (see %s)\n", out2);
		return 1;
	}
	double t2 = now();
	report("clean build", t1 - t0, out1);
	report("one file changed", t2 - t1, out2);
	printf("the rebuild takes %.1f %% of the clean build (%s keeps the cache: rm -rf it)\n",
	       100 * (t2 - t1) / (t1 - t0), base);
	free(cache);
	free(out1);
	free(out2);
	free(file);
	return 0;
}

/*
 * fuzzlib: what the libFuzzer harnesses share (header-only: one harness,
 * one file) — where the source tree is (jobs/, fixtures), and a scratch
 * directory of the process's own.
 */
#ifndef LKP_FUZZLIB_H
#define LKP_FUZZLIB_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The source tree: the harness is build/fuzz/fuzz-x, three levels down. */
static inline const char *fuzz_src_dir(void)
{
	static char dir[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n;

	if (*dir)
		return dir;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return ".";
	exe[n] = '\0';
	for (int up = 0; up < 3; up++)
		if (strrchr(exe, '/'))
			*strrchr(exe, '/') = '\0';
	snprintf(dir, sizeof(dir), "%s", exe);
	return dir;
}

/* A directory of our own under $TMPDIR (made once; left for the OS to clean). */
static inline const char *fuzz_scratch(void)
{
	static char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");

	if (!*dir) {
		snprintf(dir, sizeof(dir), "%s/lkprobot-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
	}
	return dir;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

#endif

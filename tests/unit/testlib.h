/*
 * testlib: what the unit tests share — finding tests/fixtures/<name> both
 * when a test runs from the source tree (make check) and when it is run by
 * hand from elsewhere (next to the binary in build/<flavour>/tests/).
 * Header-only: each test binary is one file.
 */
#ifndef LKP_TESTLIB_H
#define LKP_TESTLIB_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* out = the directory tests/fixtures/<name>, absolute (tests may chdir) */
static inline void testlib_fixture_dir(char *out, size_t n, const char *name)
{
	char exe[4096];
	ssize_t len;

	snprintf(out, n, "tests/fixtures/%s", name);
	/* else build/san/tests/test-x -> ../../../tests/fixtures/<name> */
	len = access(out, R_OK) ? readlink("/proc/self/exe", exe, sizeof(exe) - 1) : 0;
	if (len > 0) {
		exe[len] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		snprintf(out, n, "%.3900s/../../../tests/fixtures/%s", exe, name);
	}
	char *abs = realpath(out, NULL);
	if (abs) {
		snprintf(out, n, "%s", abs);
		free(abs);
	}
}

#endif

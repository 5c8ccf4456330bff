/*
 * dynlib: load an optional shared library on first use. libgit2, libcurl,
 * libmicrohttpd and libpmem bring 44 more shared objects into the process
 * (OpenSSL, GnuTLS, Kerberos, LDAP, udev...). Most commands — and the agent
 * that every QEMU boot starts over 9p on an emulated CPU — never call them,
 * and the dynamic loader's work for them was a third of the agent's start.
 * So the one file that uses such a library lists the functions it calls and
 * loads them here before the first call; everything else links normally.
 *
 *	#define GIT2_API(X) X(git_libgit2_init) X(git_repository_open_ext)
 *	static struct { GIT2_API(DYNLIB_SLOT) } g2;
 *	#define G2_SYM(fn) DYNLIB_SYM(g2, fn)
 *	static struct dynlib g2_lib = DYNLIB("libgit2.so.1.5", "libgit2-1.5", GIT2_API(G2_SYM));
 *	if (dynlib_load(&g2_lib, err)) return -1;	then g2.git_libgit2_init();
 *
 * The slots keep the library's own prototypes (__typeof__), so calls are
 * still type-checked by the compiler. Thread-safe; a library that failed to
 * load fails the same way again, with the same one-line reason.
 */
#ifndef LKP_DYNLIB_H
#define LKP_DYNLIB_H

#include "../util/strbuf.h"

#include <stddef.h>

struct dynlib_sym {
	const char *name;
	void **slot;
};

struct dynlib {
	const char *soname;		/* "libgit2.so.1.5", from the build */
	const char *package;		/* the Debian package that has it */
	const struct dynlib_sym *syms;
	size_t nsyms;
	int state;			/* 0 not tried, 1 loaded, -1 failed */
	char *why;			/* when failed: the reason, one line */
};

#define DYNLIB_SLOT(fn) __typeof__(fn) *fn;
#define DYNLIB_SYM(table, fn) { #fn, (void **)&(table).fn },
#define DYNLIB(soname_, package_, ...)                                              \
	{ .soname = (soname_), .package = (package_),                                 \
	  .syms = (const struct dynlib_sym[]){ __VA_ARGS__ },                         \
	  .nsyms = sizeof((const struct dynlib_sym[]){ __VA_ARGS__ }) / sizeof(struct dynlib_sym) }

/*
 * Load the library and fill every slot (once). 0, or -1 with
 * "libgit2.so.1.5: cannot open shared object file ...; install the Debian
 * package libgit2-1.5 ('make deps')" in err.
 */
int dynlib_load(struct dynlib *lib, struct strbuf *err);

#endif

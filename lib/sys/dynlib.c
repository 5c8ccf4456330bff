/*
 * dynlib: optional shared libraries loaded on first use. See dynlib.h.
 */
#include "dynlib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

static pthread_mutex_t dynlib_lock = PTHREAD_MUTEX_INITIALIZER;

static void dynlib_fail(struct dynlib *lib, const char *what)
{
	lib->why = xasprintf("%s; install the Debian package %s ('make deps')", what, lib->package);
	lib->state = -1;
}

static void dynlib_open(struct dynlib *lib)
{
	/* RTLD_NOW: a symbol missing from an unexpected version fails here,
	 * with its name, not later in the middle of a call */
	void *h = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		dynlib_fail(lib, dlerror());
		return;
	}
	for (size_t i = 0; i < lib->nsyms; i++) {
		void *p = dlsym(h, lib->syms[i].name);

		if (!p) {
			char *what = xasprintf("%s: no symbol %s (another version?)", lib->soname,
					       lib->syms[i].name);

			dynlib_fail(lib, what);
			free(what);
			return;	/* the handle stays: slots filled so far are harmless */
		}
		*lib->syms[i].slot = p;
	}
	lib->state = 1;	/* never dlclose()d: libraries keep threads and atexit hooks */
}

int dynlib_load(struct dynlib *lib, struct strbuf *err)
{
	int state;

	pthread_mutex_lock(&dynlib_lock);
	if (!lib->state)
		dynlib_open(lib);
	state = lib->state;
	pthread_mutex_unlock(&dynlib_lock);
	if (state > 0)
		return 0;
	strbuf_setf(err, "%s", lib->why);
	return -1;
}

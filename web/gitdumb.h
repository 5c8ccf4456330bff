/*
 * gitdumb: a bare git repository (the service's serve.series_repo) served
 * read-only as git's dumb HTTP protocol, so that `git clone` and `git
 * fetch` of http://HOST:PORT/git/NAME take it: info/refs made from the
 * repository's branches and tags at each request (libgit2), objects/info/
 * packs from its pack directory, HEAD, loose objects and packs streamed.
 * Only those names are served (hex ids, pack-<id>.pack/.idx): no "..", no
 * other file of the repository, nothing outside it.
 */
#ifndef LKP_GITDUMB_H
#define LKP_GITDUMB_H

#include "web.h"

/* The file rel ("info/refs", "objects/ab/cdef...") of the bare repository repo, into rs (status 200 or 404). */
void gitdumb_serve(const char *repo, const char *rel, struct web_response *rs);

#endif

/*
 * fsutil: the few file operations several modules need — create a
 * directory and its parents, write a whole file, replace a file atomically
 * (temp file + rename, so a reader never sees half of it).
 */
#ifndef LKP_FSUTIL_H
#define LKP_FSUTIL_H

#include "../util/strbuf.h"

#include <stddef.h>

/* mkdir -p; 0, or -1 with errno set (ENOTDIR when a part is not a directory). */
int fsutil_mkdir_p(const char *dir);

/* Create or truncate `path` and write `len` bytes; 0, or -1 with errno set. */
int fsutil_write(const char *path, const char *data, size_t len);

/* Replace `path` atomically; 0, or -1 with "cannot write 'path': why" in err. */
int fsutil_write_atomic(const char *path, const char *data, size_t len, struct strbuf *err);

#endif

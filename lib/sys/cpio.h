/*
 * cpio: writing "newc" cpio archives in memory — what the kernel unpacks as
 * an initramfs. Only what an initramfs needs: directories, regular files,
 * symlinks; uid/gid 0, mtime 0 (so the same input gives the same archive).
 */
#ifndef LKP_CPIO_H
#define LKP_CPIO_H

#include "../util/strbuf.h"

#include <stddef.h>

struct cpio {
	struct strbuf out;
	unsigned ino;
};

void cpio_init(struct cpio *c);
void cpio_dir(struct cpio *c, const char *path, unsigned mode);
void cpio_file(struct cpio *c, const char *path, unsigned mode, const void *data, size_t len);
void cpio_symlink(struct cpio *c, const char *path, const char *target);
/* The trailer; c->out then holds the whole archive (caller releases it). */
void cpio_finish(struct cpio *c);

#endif

/*
 * cpio: newc archives. See cpio.h. Each entry is a 110-byte ASCII header
 * ("070701" and 13 eight-digit hex fields), the NUL-terminated name padded
 * to 4 bytes, then the data padded to 4 bytes.
 */
#include "cpio.h"

#include <string.h>
#include <sys/stat.h>

void cpio_init(struct cpio *c)
{
	strbuf_init(&c->out, 1 << 20);
	c->ino = 1;
}

static void pad4(struct strbuf *sb)
{
	while (sb->len % 4)
		strbuf_addch(sb, '\0');
}

static void entry(struct cpio *c, const char *path, unsigned mode, const void *data, size_t len)
{
	size_t namesize = strlen(path) + 1;

	strbuf_addf(&c->out, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08zX%08X",
		    c->ino++, mode, 0u, 0u, 1u, 0u, (unsigned)len, 0u, 0u, 0u, 0u,
		    namesize, 0u);
	strbuf_add(&c->out, path, namesize);
	pad4(&c->out);
	if (len)
		strbuf_add(&c->out, data, len);
	pad4(&c->out);
}

void cpio_dir(struct cpio *c, const char *path, unsigned mode)
{
	entry(c, path, S_IFDIR | (mode & 07777), NULL, 0);
}

void cpio_file(struct cpio *c, const char *path, unsigned mode, const void *data, size_t len)
{
	entry(c, path, S_IFREG | (mode & 07777), data, len);
}

void cpio_symlink(struct cpio *c, const char *path, const char *target)
{
	entry(c, path, S_IFLNK | 0777, target, strlen(target));
}

void cpio_finish(struct cpio *c)
{
	entry(c, "TRAILER!!!", 0, NULL, 0);
}

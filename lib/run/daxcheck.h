/*
 * daxcheck: is DAX really on for a mounted file system? A mount with
 * -o dax succeeds even where DAX is impossible (a raw NVDIMM namespace, a
 * loop device): the kernel silently turns it off. Asked three ways, as the
 * QEMU+NVDIMM recipes recommend — /sys/block/<dev>/queue/dax, the dax flag
 * in /proc/mounts, STATX_ATTR_DAX on a file — plus libpmem's verdict on a
 * mapping of that file. The only module that includes libpmem.
 */
#ifndef LKP_DAXCHECK_H
#define LKP_DAXCHECK_H

#include "../util/strbuf.h"

#include <stdbool.h>

struct daxcheck {
	bool queue_dax;		/* /sys/block/<dev>/queue/dax is 1 */
	bool mount_dax;		/* /proc/mounts says dax or dax=always */
	bool file_dax;		/* STATX_ATTR_DAX on a file there */
	bool pmem_mapping;	/* libpmem: a mapping of that file is persistent memory */
	char why[256];		/* a summary of the four answers */
};

/* Check `dev` (e.g. /dev/pmem0) mounted at `dir`; 0, or -1 if it could not be asked. */
int daxcheck_mount(const char *dev, const char *dir, struct daxcheck *out, struct strbuf *err);

/* All of queue, mount and file agree that DAX is on. */
bool daxcheck_on(const struct daxcheck *d);

#endif

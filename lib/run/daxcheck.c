/*
 * daxcheck: the four-way DAX check. See daxcheck.h.
 */
#include "daxcheck.h"
#include "../sys/dynlib.h"

#include <errno.h>
#include <fcntl.h>
#include <libpmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The libpmem functions this file calls, loaded on first use (dynlib.h). */
/* clang-format off */
#define PMEM_API(X) \
	X(pmem_map_file) \
	X(pmem_unmap)
/* clang-format on */
static struct {
	PMEM_API(DYNLIB_SLOT)
} pm;
#define PM_SYM(fn) DYNLIB_SYM(pm, fn)
static struct dynlib pm_lib = DYNLIB(LKP_SONAME_pmem, "libpmem1", PMEM_API(PM_SYM));

#ifndef STATX_ATTR_DAX
#define STATX_ATTR_DAX 0x00200000
#endif

static bool read_sys_flag(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = 0;

	if (!f)
		return false;
	if (fscanf(f, "%d", &v) != 1)
		v = 0;
	fclose(f);
	return v == 1;
}

static bool mounted_with_dax(const char *dir)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[4096], mnt[4096], type[256], opts[4096];
	bool dax = false;

	if (!f)
		return false;
	while (fscanf(f, "%4095s %4095s %255s %4095s %*d %*d", dev, mnt, type, opts) == 4) {
		if (strcmp(mnt, dir))
			continue;
		dax = false;	/* the last mount on dir counts */
		for (char *save = NULL, *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			if (!strcmp(o, "dax") || !strcmp(o, "dax=always"))
				dax = true;
	}
	fclose(f);
	return dax;
}

int daxcheck_mount(const char *dev, const char *dir, struct daxcheck *out, struct strbuf *err)
{
	const char *base = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	char *sys = xasprintf("/sys/block/%s/queue/dax", base);
	char *file = xasprintf("%s/.lkprobot-dax-check", dir);
	struct statx stx;
	size_t mapped_len;
	int is_pmem = 0, fd;
	void *addr;

	memset(out, 0, sizeof(*out));
	out->queue_dax = read_sys_flag(sys);
	out->mount_dax = mounted_with_dax(dir);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 1 << 21)) {
		strbuf_setf(err, "cannot create '%s' to check DAX: %s", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(sys);
		free(file);
		return -1;
	}
	close(fd);
	if (!statx(AT_FDCWD, file, 0, STATX_BASIC_STATS, &stx))
		out->file_dax = (stx.stx_attributes_mask & STATX_ATTR_DAX) &&
				(stx.stx_attributes & STATX_ATTR_DAX);
	/* the fourth opinion is informative only (daxcheck_on() does not use it) */
	addr = dynlib_load(&pm_lib, err) ? NULL : pm.pmem_map_file(file, 0, 0, 0, &mapped_len, &is_pmem);
	strbuf_reset(err);
	if (addr) {
		out->pmem_mapping = is_pmem != 0;
		pm.pmem_unmap(addr, mapped_len);
	}
	unlink(file);
	snprintf(out->why, sizeof(out->why),
		 "%s queue/dax=%d, /proc/mounts %s, STATX_ATTR_DAX %s, libpmem %s",
		 base, out->queue_dax, out->mount_dax ? "dax" : "no dax",
		 out->file_dax ? "set" : "not set", out->pmem_mapping ? "pmem" : "not pmem");
	free(sys);
	free(file);
	return 0;
}

bool daxcheck_on(const struct daxcheck *d)
{
	return d->queue_dax && d->mount_dax && d->file_dax;
}

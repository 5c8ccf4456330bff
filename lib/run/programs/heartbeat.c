/*
 * heartbeat and bdi_dev_mapping: two monitors of lkp-tests' default set
 * that leave a raw file and no metrics (lkp-tests has no parser for
 * either).
 *
 * heartbeat runs `vmstat --timestamp -n <interval>` (10 s, 100 s for a
 * runtime over 10 hours, as lkp-tests' programs/heartbeat): a line now
 * and then that shows the machine was alive, and when it stopped.
 *
 * bdi_dev_mapping writes, once at the start, "'<major>:<minor>': <disk>"
 * for each of the job's partitions' disk (lkp-tests'
 * programs/bdi_dev_mapping: pmem, dax and nfs devices skipped, the
 * partition number cut), which maps the backing-device names of the
 * kernel's writeback traces to disks.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../sys/fsutil.h"
#include "programs.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

static const char *const heartbeat_options[] = {
	"interval",
	NULL,
};

static int heartbeat_monitor(struct run *r, const struct program *p, int out_fd)
{
	const char *runtime = run_param(r, p, "runtime");
	struct strbuf err = STRBUF_INIT;
	double interval;

	monitor_catch_stop();
	if (monitor_interval(r, p, runtime && atol(runtime) > 36000 ? 100 : 10, &interval, &err) || interval < 1) {
		fprintf(stderr, "heartbeat: %s\n", err.len ? err.buf : "interval: vmstat takes whole seconds");
		strbuf_release(&err);
		return 2;
	}
	strbuf_release(&err);
	return vmstat_exec("heartbeat", interval, out_fd);
}

static const char *const heartbeat_debs[] = { "procps", NULL };

const struct program program_heartbeat = {
	.version = PROGRAM_VERSION,
	.name = "heartbeat",
	.kind = PROGRAM_MONITOR,
	.summary = "a vmstat line every 10 s, raw only: the machine was alive (lkp-tests parses none)",
	.options = heartbeat_options,
	.monitor = heartbeat_monitor,
	.debs = heartbeat_debs,
};

/* The disk of a partition as lkp-tests cuts it: md/ram/nvme up to a 'p', the others without digits. */
static void bdi_disk(struct strbuf *disk, const char *dev)
{
	strbuf_reset(disk);
	if (!strncmp(dev, "/dev/md", 7) || !strncmp(dev, "/dev/ram", 8) || !strncmp(dev, "/dev/nvme", 9)) {
		strbuf_add(disk, dev, strcspn(dev, "p"));
		return;
	}
	for (const char *c = dev; *c; c++)
		if (!isdigit((unsigned char)*c))
			strbuf_addch(disk, *c);
}

static int bdi_dev_mapping_monitor(struct run *r, const struct program *p, int out_fd)
{
	struct strbuf out = STRBUF_INIT, disk = STRBUF_INIT;
	int ret = 0;

	(void)p;
	monitor_catch_stop();
	for (size_t i = 0; i < r->npartitions; i++) {
		const char *dev = r->partitions[i];
		struct stat st;
		if (strstr(dev, ":/") || strstr(dev, "pmem") || strstr(dev, "dax"))
			continue;
		bdi_disk(&disk, dev);
		if (stat(disk.buf, &st) || !S_ISBLK(st.st_mode))
			continue;
		strbuf_addf(&out, "'%u:%u': %s\n", major(st.st_rdev), minor(st.st_rdev),
			    !strncmp(disk.buf, "/dev/", 5) ? disk.buf + 5 : disk.buf);
	}
	if (fsutil_write_all(out_fd, out.buf, out.len)) {
		fprintf(stderr, "bdi_dev_mapping: cannot write: %s\n", strerror(errno));
		ret = 1;
	}
	strbuf_release(&out);
	strbuf_release(&disk);
	return ret;
}

const struct program program_bdi_dev_mapping = {
	.version = PROGRAM_VERSION,
	.name = "bdi_dev_mapping",
	.kind = PROGRAM_MONITOR,
	.summary = "once at the start: the major:minor of each job disk (pmem skipped), raw only",
	.monitor = bdi_dev_mapping_monitor,
};

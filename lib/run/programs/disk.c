/*
 * disk: find the block devices a job runs on, after lkp-tests'
 * programs/disk/setup. "Npmem" uses /dev/pmem* (legacy memmap= pmem through
 * nd_e820, or NVDIMM namespaces); "NHDD"/"NSSD" use the machine's
 * hdd_partitions/ssd_partitions (from its hosts/ file, merged into the job).
 * With --loop-disks (machines without spare disks: tests, CI) loop devices
 * over sparse files stand in, and the run records that they did: a loop
 * device is neither persistent memory nor a disk, and has no DAX.
 */
#include "../program.h"
#include "../run.h"
#include "../../util/units.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const disk_options[] = {
	"nr_ssd", "nr_hdd", "nr_brd", "nr_srd", "nr_pmem", "wait_disks_timeout", NULL,
};

static int cmp_pmem(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	return atoi(x + 4) - atoi(y + 4);
}

/* /dev/pmemN for every pmemN block device, in numeric order. */
static size_t find_pmem(char ***out)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "pmem", 4) && de->d_name[4] >= '0' && de->d_name[4] <= '9')
			run_list_add(&names, &n, de->d_name);
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_pmem);
	for (size_t i = 0; i < n; i++) {
		char *dev = xasprintf("/dev/%s", names[i]);
		free(names[i]);
		names[i] = dev;
	}
	*out = names;
	return n;
}

static void free_list(char **l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

/* The machine's partitions of a kind: a space-separated list of paths or globs. */
static size_t machine_partitions(const struct run *r, const char *key, char ***out)
{
	const char *v = node_str(node_get(r->job, key));
	char **list = NULL;
	size_t n = 0;

	if (!v)
		return 0;
	char *copy = xstrdup(v);
	for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		glob_t g;
		if (!glob(w, 0, NULL, &g)) {
			for (size_t i = 0; i < g.gl_pathc; i++)
				run_list_add(&list, &n, g.gl_pathv[i]);
			globfree(&g);
		}
	}
	free(copy);
	*out = list;
	return n;
}

static int attach_loops(struct run *r, size_t count, const char *kind, struct strbuf *err)
{
	for (size_t i = 0; i < count; i++) {
		char *file = xasprintf("%s/disk%zu.img", r->tmpdir, i);
		int fd = open(file, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		struct strbuf dev = STRBUF_INIT;
		int rc;

		if (fd < 0 || ftruncate(fd, (off_t)r->loop_size)) {
			strbuf_setf(err, "disk: cannot make '%s' for a loop device: %s", file, strerror(errno));
			if (fd >= 0)
				close(fd);
			free(file);
			return -1;
		}
		close(fd);
		char *argv[] = { "losetup", "--find", "--show", file, NULL };
		rc = run_capture(r, argv, &dev, err);
		free(file);
		strbuf_rtrim(&dev);
		if (rc || strncmp(dev.buf, "/dev/loop", 9)) {
			if (rc >= 0)
				strbuf_setf(err, "disk: losetup could not attach a loop device (exit %d); is the loop module available?",
					    rc);
			strbuf_release(&dev);
			return -1;
		}
		run_list_add(&r->loops, &r->nloops, dev.buf);
		run_list_add(&r->partitions, &r->npartitions, dev.buf);
		strbuf_release(&dev);
	}
	struct strbuf fact = STRBUF_INIT;
	strbuf_addf(&fact, "%zu loop device(s) of %llu MiB over sparse files stand in for %s (--loop-disks): not %s, no DAX",
		    count, (unsigned long long)(r->loop_size >> 20), kind,
		    !strcmp(kind, "pmem") ? "persistent memory" : "a disk");
	run_fact(r, "disk", fact.buf);
	strbuf_release(&fact);
	return 0;
}

static int disk_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	const struct node *v = node_get(r->job, p->name);
	struct units_disk d = { 0 };
	const char *kind;
	int want;
	char **found = NULL;
	size_t nfound = 0;

	if (node_str(v)) {
		struct strbuf e = STRBUF_INIT;
		if (units_disk(v->str, &d, &e)) {
			strbuf_setf(err, "disk: %s", e.buf);
			strbuf_release(&e);
			return -1;
		}
		strbuf_release(&e);
	} else if (v && v->type == NODE_MAP) {
		const char *s;
		if ((s = node_str(node_get(v, "nr_pmem"))))
			d.nr_pmem = atoi(s);
		if ((s = node_str(node_get(v, "nr_hdd"))))
			d.nr_hdd = atoi(s);
		if ((s = node_str(node_get(v, "nr_ssd"))))
			d.nr_ssd = atoi(s);
		if ((s = node_str(node_get(v, "nr_brd"))))
			d.nr_brd = atoi(s);
	} else {
		return 0;	/* "disk:" with no value: nothing to find */
	}

	if (d.nr_pmem) {
		kind = "pmem";
		want = d.nr_pmem;
		nfound = find_pmem(&found);
		if ((int)nfound < want && !r->loop_disks) {
			/* legacy memmap= pmem needs nd_e820 (lkp-tests loads it too) */
			char *argv[] = { "modprobe", "-q", "nd_e820", NULL };
			struct strbuf e = STRBUF_INIT;
			if (run_have("modprobe"))
				run_cmd(r, argv, NULL, "stderr", NULL, &e);
			strbuf_release(&e);
			free_list(found, nfound);
			nfound = find_pmem(&found);
		}
	} else if (d.nr_hdd) {
		kind = "HDD";
		want = d.nr_hdd;
		nfound = machine_partitions(r, "hdd_partitions", &found);
	} else if (d.nr_ssd) {
		kind = "SSD";
		want = d.nr_ssd;
		nfound = machine_partitions(r, "ssd_partitions", &found);
	} else if (d.nr_brd) {
		kind = "BRD";
		want = d.nr_brd;
	} else {
		strbuf_setf(err, "disk: '%s' asks for no device lkprobot can provide (ramdisk sizes and SCSI_RAM are not supported yet)",
			    node_str(v) ? v->str : "(mapping)");
		return -1;
	}

	if (r->loop_disks) {
		free_list(found, nfound);
		return attach_loops(r, (size_t)want, kind, err);
	}
	if ((int)nfound < want) {
		if (!strcmp(kind, "pmem"))
			strbuf_setf(err, "disk: the job needs %d pmem device(s), this machine has %zu (/sys/block/pmem*); boot with memmap= or NVDIMMs (lkprobot qemu does), or run with --loop-disks for a functional check without pmem",
				    want, nfound);
		else
			strbuf_setf(err, "disk: the job needs %d %s partition(s), the machine description lists %zu (%s_partitions); add them to its hosts/ file or run with --loop-disks",
				    want, kind, nfound, !strcmp(kind, "HDD") ? "hdd" : !strcmp(kind, "SSD") ? "ssd" : "brd");
		free_list(found, nfound);
		return -1;
	}
	for (int i = 0; i < want; i++)
		run_list_add(&r->partitions, &r->npartitions, found[i]);
	free_list(found, nfound);
	return 0;
}

static const char *const disk_debs[] = { "util-linux", "kmod", NULL };

const struct program program_disk = {
	.version = PROGRAM_VERSION,
	.name = "disk",
	.kind = PROGRAM_SETUP,
	.summary = "find the job's block devices: Npmem, NHDD, NSSD, NBRD (value: e.g. 2pmem)",
	.options = disk_options,
	.setup = disk_setup,
	.debs = disk_debs,
};

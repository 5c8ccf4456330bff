/*
 * fio: the fio-setup-basic job writer and the fio test, after lkp-tests'
 * programs/fio-setup-basic/setup and programs/fio/run.
 *
 * fio-setup-basic writes fio.task: a [global] section from the job's
 * parameters (size per task = test_size / nr_task) and one [task_N] per
 * storage (mount point, or partition with raw_disk) with numjobs =
 * nr_task / storages. It lays the files out first with create_only=1, as
 * lkp-tests does, so that the test measures I/O and not file creation.
 * fio then runs that file with --output-format=json into fio.output.
 * Job values reach fio only as values in its job file, one per line: a
 * value with a line break could add fio options (exec_prerun runs shell
 * commands), so it is refused.
 */
#include "../program.h"
#include "../run.h"
#include "../../util/units.h"
#include "programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const fio_setup_basic_options[] = {
	"runtime", "rw", "bs", "ioengine", "iodepth", "direct",
	"offset_increment", "test_size", "nr_task", "fallocate",
	"time_based", "raw_disk", "invalidate", "nr_files", "filesize",
	"io_size", "file_service_type", "random_distribution",
	"numa_mem_policy", "numa_cpu_nodes", "pre_read", "rwmixread",
	"refill_buffers", "cpuload", "cpus_allowed_policy", "cpus_allowed",
	"donorname", "testfile", "buffered", "norandommap",
	"random_generator", "allrandrepeat", "group_reporting", "exitall",
	"ramp_time", "stonewall", NULL,
};

/* lkp-tests' parse_bool: empty, 0*, no*, false*, n* are false. */
static bool parse_bool(const char *v)
{
	if (!v || !*v)
		return false;
	return !(v[0] == '0' || !strncmp(v, "no", 2) || !strncmp(v, "false", 5) || v[0] == 'n');
}

static int check_value(const char *opt, const char *v, struct strbuf *err)
{
	for (const unsigned char *c = (const unsigned char *)v; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			strbuf_setf(err, "fio-setup-basic: %s: the value has a line break or control character; fio takes one value per line",
				    opt);
			return -1;
		}
	return 0;
}

/* Append "key=value" with the job's value or a default; NULL default: skip. */
static int add_opt(struct strbuf *ini, const struct run *r, const struct program *p,
		   const char *key, const char *def, struct strbuf *err)
{
	const char *v = run_param(r, p, key);

	if (!v)
		v = def;
	if (!v)
		return 0;
	if (check_value(key, v, err))
		return -1;
	strbuf_addf(ini, "%s=%s\n", key, v);
	return 0;
}

/* What fio-setup-basic lays out: the job's sizes, and the storages its tasks run on. */
struct fio_layout {
	uint64_t test_size, nr_task, runtime;
	uint64_t size;		/* a task's: test_size / nr_task */
	bool raw_disk;
	char **storages;	/* partitions (raw_disk) or mount points */
	size_t nstorages;
};

/* Each storage has room for what the job writes there. */
static int fio_check_space(const struct run *r, const struct fio_layout *l, struct strbuf *err)
{
	for (size_t i = 0; i < l->nstorages && !l->raw_disk; i++) {
		struct statvfs sv;
		/* pmem holds one task's files per device, as lkp-tests checks */
		uint64_t need = !strncmp(r->partitions && i < r->npartitions ? r->partitions[i] : "", "/dev/pmem", 9)
					? l->size : l->test_size / l->nstorages;
		if (!statvfs(l->storages[i], &sv) && (uint64_t)sv.f_bavail * sv.f_frsize < need) {
			strbuf_setf(err, "fio-setup-basic: %s has %llu bytes free, fewer than the %llu the job writes there; lower test_size",
				    l->storages[i], (unsigned long long)sv.f_bavail * sv.f_frsize,
				    (unsigned long long)need);
			return -1;
		}
	}
	return 0;
}

/* The job's sizes and storages, checked: they divide, and fit. */
static int fio_layout(struct run *r, const struct program *p, struct fio_layout *l, struct strbuf *err)
{
	l->raw_disk = parse_bool(run_param(r, p, "raw_disk"));
	l->storages = l->raw_disk ? r->partitions : r->mount_points;
	l->nstorages = l->raw_disk ? r->npartitions : r->nmounts;
	if (!run_param(r, p, "test_size")) {
		strbuf_setf(err, "fio-setup-basic: test_size must be set (e.g. test_size: 200G)");
		return -1;
	}
	if (run_param_bytes(r, p, "test_size", 0, &l->test_size, err) ||
	    run_param_tasks(r, p, "nr_task", 1, &l->nr_task, err) ||
	    run_param_seconds(r, p, "runtime", RUN_RUNTIME_DEFAULT, &l->runtime, err))
		return -1;
	if (!l->nr_task) {
		strbuf_setf(err, "fio-setup-basic: nr_task '%s' gives 0 tasks on %d CPUs; give at least one",
			    run_param(r, p, "nr_task"), r->machine->nr_cpu);
		return -1;
	}
	if (!l->nstorages) {
		strbuf_setf(err, "fio-setup-basic: no %s to run on; the job needs disk: and fs: (or raw_disk with disk:)",
			    l->raw_disk ? "partition" : "mounted file system");
		return -1;
	}
	if (l->nr_task % l->nstorages) {
		strbuf_setf(err, "fio-setup-basic: nr_task %llu does not divide among %zu storages; use a multiple of %zu",
			    (unsigned long long)l->nr_task, l->nstorages, l->nstorages);
		return -1;
	}
	l->size = l->test_size / l->nr_task;
	return fio_check_space(r, l, err);
}

/* fio.task's [global] section, as lkp-tests' fio-setup-basic writes it (with create_only=1). */
static int fio_global(struct strbuf *ini, struct run *r, const struct program *p, const struct fio_layout *l,
		      struct strbuf *err)
{
	struct strbuf num = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&num, "%llu", (unsigned long long)l->size);
	strbuf_addstr(ini, "[global]\n");
	if (add_opt(ini, r, p, "bs", "4k", err) ||
	    add_opt(ini, r, p, "ioengine", "sync", err) ||
	    add_opt(ini, r, p, "iodepth", "32", err))
		goto out;
	strbuf_addf(ini, "size=%s\n", num.buf);
	strbuf_addf(ini, "direct=%d\n", parse_bool(run_param(r, p, "direct")));
	strbuf_addf(ini, "runtime=%llu\n", (unsigned long long)l->runtime);
	if (add_opt(ini, r, p, "file_service_type", "roundrobin", err) ||
	    add_opt(ini, r, p, "random_distribution", "random", err))
		goto out;
	strbuf_addstr(ini, "group_reporting\n");
	strbuf_addstr(ini, "create_only=1\n");
	strbuf_addf(ini, "pre_read=%d\n", parse_bool(run_param(r, p, "pre_read")));
	if (!run_param(r, p, "offset_increment")) {
		if (add_opt(ini, r, p, "nr_files", "1", err) ||
		    add_opt(ini, r, p, "filesize", num.buf, err) ||
		    add_opt(ini, r, p, "invalidate", "1", err) ||
		    add_opt(ini, r, p, "fallocate", "posix", err) ||
		    add_opt(ini, r, p, "io_size", num.buf, err))
			goto out;
	} else if (add_opt(ini, r, p, "offset_increment", NULL, err)) {
		goto out;
	}
	if (parse_bool(run_param(r, p, "time_based")))
		strbuf_addstr(ini, "time_based\n");
	if (parse_bool(run_param(r, p, "cpuload")) && add_opt(ini, r, p, "cpuload", NULL, err))
		goto out;
	if (parse_bool(run_param(r, p, "refill_buffers")))
		strbuf_addstr(ini, "refill_buffers\n");
	if (parse_bool(run_param(r, p, "donorname")) && add_opt(ini, r, p, "donorname", NULL, err))
		goto out;
	strbuf_addf(ini, "buffered=%d\n", parse_bool(run_param(r, p, "buffered")));
	if (parse_bool(run_param(r, p, "norandommap")))
		strbuf_addstr(ini, "norandommap\n");
	if (add_opt(ini, r, p, "random_generator", NULL, err))
		goto out;
	strbuf_addf(ini, "allrandrepeat=%d\n", parse_bool(run_param(r, p, "allrandrepeat")));
	if (parse_bool(run_param(r, p, "exitall")))
		strbuf_addstr(ini, "exitall\n");
	if (add_opt(ini, r, p, "ramp_time", NULL, err))
		goto out;
	if (parse_bool(run_param(r, p, "stonewall")))
		strbuf_addstr(ini, "stonewall\n");
	ret = 0;
out:
	strbuf_release(&num);
	return ret;
}

/* One [task_N] section a storage, with its share of the tasks. */
static int fio_tasks(struct strbuf *ini, struct run *r, const struct program *p, const struct fio_layout *l,
		     struct strbuf *err)
{
	for (size_t i = 0; i < l->nstorages; i++) {
		strbuf_addf(ini, "\n[task_%zu]\n", i);
		if (add_opt(ini, r, p, "rw", "write", err))
			return -1;
		if (l->raw_disk) {
			strbuf_addf(ini, "filename=%s\n", l->storages[i]);
		} else {
			strbuf_addf(ini, "directory=%s\n", l->storages[i]);
			if (!strcmp(run_param(r, p, "testfile") ? run_param(r, p, "testfile") : "", "y"))
				strbuf_addstr(ini, "filename=fio_testfile\n");
		}
		strbuf_addf(ini, "numjobs=%llu\n", (unsigned long long)(l->nr_task / l->nstorages));
		if (add_opt(ini, r, p, "rwmixread", NULL, err))
			return -1;
	}
	return 0;
}

/* Lay the files out with fio (create_only=1), then save the task without that line as fio.task. */
static int fio_lay_out(struct run *r, struct strbuf *ini, struct strbuf *err)
{
	if (run_write(r, "fio.create", ini->buf, ini->len, err))
		return -1;
	char *argv[] = { "fio", "--output-format=json", "--output=fio.create.output", "fio.create", NULL };
	char *create = run_path(r, "fio.create");
	char *create_out = run_path(r, "fio.create.output");
	argv[2] = xasprintf("--output=%s", create_out);
	argv[3] = create;
	int rc = run_cmd(r, argv, NULL, "output", NULL, err);
	free(argv[2]);
	unlink(create);
	unlink(create_out);
	free(create);
	free(create_out);
	if (rc) {
		if (rc > 0)
			strbuf_setf(err, "fio-setup-basic: fio could not lay out the test files (exit %d); see 'output' in the result root",
				    rc);
		return -1;
	}
	char *line = strstr(ini->buf, "create_only=1\n");
	memmove(line, line + strlen("create_only=1\n"), strlen(line + strlen("create_only=1\n")) + 1);
	ini->len -= strlen("create_only=1\n");
	return run_write(r, "fio.task", ini->buf, ini->len, err);
}

static int fio_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	struct strbuf ini = STRBUF_INIT;
	struct fio_layout l;
	int ret = -1;

	if (fio_layout(r, p, &l, err))
		return -1;
	if (!fio_global(&ini, r, p, &l, err) && !fio_tasks(&ini, r, p, &l, err) && !fio_lay_out(r, &ini, err))
		ret = 0;
	strbuf_release(&ini);
	return ret;
}

static int fio_run(struct run *r, const struct program *p)
{
	struct strbuf err = STRBUF_INIT;
	char *task = run_path(r, "fio.task");
	char *out = run_path(r, "fio.output");
	char *out_opt = xasprintf("--output=%s", out);
	char *argv[] = { "fio", "--output-format=json", out_opt, task, NULL };
	int rc;

	(void)p;
	rc = run_cmd(r, argv, NULL, NULL, NULL, &err);
	if (rc < 0)
		fprintf(stderr, "fio: %s\n", err.buf);
	free(task);
	free(out);
	free(out_opt);
	strbuf_release(&err);
	return rc < 0 ? 127 : rc;
}

static const char *const fio_debs[] = { "fio", NULL };

const struct program program_fio_setup_basic = {
	.version = PROGRAM_VERSION,
	.name = "fio-setup-basic",
	.kind = PROGRAM_SETUP,
	.summary = "write the fio job file (fio.task) from the job's parameters",
	.options = fio_setup_basic_options,
	.setup = fio_setup,
	.setup_unprivileged = true,
	.debs = fio_debs,
};

/* bandwidth and IOPS up, latencies (completion, submission, total) down */
static const struct program_metric fio_metrics[] = {
	{ "*_bw_MBps", +1, true }, { "*_iops", +1, true },   { "*_clat_mean*", -1, true }, { "*_clat_*", -1, false },
	{ "*_slat_*", -1, false }, { "*_lat_*", -1, false }, { NULL, 0, false },
};

const struct program program_fio = {
	.version = PROGRAM_VERSION,
	.name = "fio",
	.kind = PROGRAM_TEST,
	.summary = "run fio on the job file written by fio-setup-basic",
	.description =
		"Fio is a tool that will spawn a number of threads or processes doing a particular "
		"type of I/O action as specified by the user.",
	.url = "https://github.com/axboe/fio",
	.run = fio_run,
	.parse = fio_parse,
	.raw = "fio.output",
	.combine = fio_combine,
	.debs = fio_debs,
	.metrics = fio_metrics,
};

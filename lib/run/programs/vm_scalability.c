/*
 * vm-scalability: the mm scalability test cases, after lkp-tests'
 * programs/vm-scalability/{run,parse}. Option names follow lkp-tests'.
 *
 * The cases are lkprobot's own C workers (lib/vmscal.c) unless
 * LKPROBOT_VM_SCALABILITY names an upstream vm-scalability checkout that
 * has case-<test>; then that script runs, with the job's values passed as
 * numbers in its environment (never through a shell command line).
 * Either way the raw file `vm-scalability` holds what lkp-tests' run
 * prints: "YYYY-MM-DD HH:MM:SS  ./case-<test>" before each run of the case,
 * then the workers' "N bytes / U usecs = K KB/s" and "U usecs to free
 * memory" lines.
 *
 * Sizes, as lkp-tests' run and the case scripts: one run of the case
 * covers unit_size bytes, split evenly over nr_task workers (default: the
 * case's own share of memory, vmscal_default_bytes()). With size, the case
 * runs size x nr_node / unit_size times, unit_size capped at that total
 * (lkp-tests caps only a unit_size the job gives; lkprobot caps the
 * default too, so a small size means a small run rather than MemTotal/2).
 * runtime (default 300 s) bounds the whole test: workers stop accessing
 * memory at the deadline (usemem --runtime) and no run starts after it; a
 * run after the first that the deadline cuts short is dropped from the raw
 * file, so that every sample is a whole run (lkp-tests would let it finish
 * past runtime, where the engine kills the test).
 *
 * Other options in the C cases: repeat (passes over the memory, usemem -r),
 * sync_free (usemem -x), bind_cpu (usemem -b; 0 means nr_cpu/2/nr_task as
 * lkp-tests' run), sync_rw (usemem -y: the C workers always map before the
 * start barrier); fs and pre_setup only shape upstream's sparse root, which
 * lkprobot does not make; cpu_delay and timed_wp need upstream's usemem and
 * are refused. Like lkp-tests' run, the test sets vm.overcommit_memory=1
 * (and, for upstream's cases, vm.max_map_count and kernel.threads-max),
 * logged to reproduce.sh; lkprobot puts the old values back afterwards.
 */
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "../vmscal.h"
#include "programs.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

static const char *const vm_scalability_options[] = {
	"runtime", "nr_task", "test", "size", "unit_size", "fs", "pre_setup",
	"sync_rw", "bind_cpu", "repeat", "cpu_delay", "sync_free",
	"timed_wp", NULL,
};

/* ---- run ----------------------------------------------------------------- */

struct vms_job {
	const char *test;
	uint64_t nr_task, runtime, size, unit_size, repeat, bind_cpu, cpu_delay, timed_wp;
	bool has_size, has_unit_size, has_repeat, has_bind_cpu, has_cpu_delay, has_timed_wp;
	bool sync_rw, sync_free;
	const char *fs;
	uint64_t nr_node;
};

/* A whole number option; *has says whether the job sets it. */
static int vms_number(const struct run *r, const struct program *p, const char *opt,
		      uint64_t *out, bool *has, struct strbuf *err)
{
	const char *v = run_param(r, p, opt);
	char *end;

	*has = v && *v;
	*out = 0;
	if (!*has)
		return 0;
	errno = 0;
	*out = strtoull(v, &end, 10);
	if (errno || *end || !(*v >= '0' && *v <= '9')) {
		strbuf_setf(err, "%s: '%s' is not a whole number", opt, v);
		return -1;
	}
	return 0;
}

/* lkp-tests passes these on when they are non-empty (hw_vars: [ -n "$SYNC_RW" ]). */
static bool vms_set(const struct run *r, const struct program *p, const char *opt)
{
	const char *v = run_param(r, p, opt);
	return v && *v;
}

static int vms_job_read(const struct run *r, const struct program *p, struct vms_job *j,
			struct strbuf *err)
{
	int nr_cpu = r->machine && r->machine->nr_cpu > 0 ? r->machine->nr_cpu : 1;

	memset(j, 0, sizeof(*j));
	j->test = run_param(r, p, "test");
	if (!j->test || !*j->test) {
		strbuf_setf(err, "test is not set; name a case, e.g. test: anon-w-seq");
		return -1;
	}
	/* the name becomes a path (case-<test>): only upstream's alphabet */
	if (strspn(j->test, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(j->test) ||
	    j->test[0] == '-') {
		strbuf_setf(err, "test: '%s' is not a case name (lower-case letters, digits and '-', like anon-w-seq)",
			    j->test);
		return -1;
	}
	if (run_param_tasks(r, p, "nr_task", (uint64_t)nr_cpu, &j->nr_task, err) ||
	    run_param_seconds(r, p, "runtime", RUN_RUNTIME_DEFAULT, &j->runtime, err) ||
	    run_param_bytes(r, p, "size", 0, &j->size, err) ||
	    run_param_bytes(r, p, "unit_size", 0, &j->unit_size, err) ||
	    vms_number(r, p, "repeat", &j->repeat, &j->has_repeat, err) ||
	    vms_number(r, p, "bind_cpu", &j->bind_cpu, &j->has_bind_cpu, err) ||
	    vms_number(r, p, "cpu_delay", &j->cpu_delay, &j->has_cpu_delay, err) ||
	    vms_number(r, p, "timed_wp", &j->timed_wp, &j->has_timed_wp, err))
		return -1;
	if (!j->nr_task || j->nr_task > 1U << 20) {
		strbuf_setf(err, "nr_task '%s' gives %" PRIu64 " workers on %d CPUs; give 1 to 1048576",
			    run_param(r, p, "nr_task") ? run_param(r, p, "nr_task") : "", j->nr_task, nr_cpu);
		return -1;
	}
	if (j->has_repeat && (!j->repeat || j->repeat > 1U << 30)) {
		strbuf_setf(err, "repeat: give a number of passes from 1 to 1073741824");
		return -1;
	}
	j->has_size = vms_set(r, p, "size");
	j->has_unit_size = vms_set(r, p, "unit_size");
	if ((j->has_size && !j->size) || (j->has_unit_size && !j->unit_size)) {
		strbuf_setf(err, "%s: 0 bytes; give a size like 64M or leave it out for the case's default",
			    j->has_size && !j->size ? "size" : "unit_size");
		return -1;
	}
	j->sync_rw = vms_set(r, p, "sync_rw");
	j->sync_free = vms_set(r, p, "sync_free");
	/* lkp-tests' run: bind_cpu 0 spreads the tasks over one hyperthread each */
	if (j->has_bind_cpu && !j->bind_cpu)
		j->bind_cpu = (uint64_t)nr_cpu / 2 / j->nr_task;
	j->fs = run_param(r, p, "fs");
	j->nr_node = r->machine && r->machine->nr_node > 0 ? (uint64_t)r->machine->nr_node : 1;
	if (j->has_size && j->size > UINT64_MAX / j->nr_node) {
		strbuf_setf(err, "size: %" PRIu64 " bytes x %" PRIu64 " nodes is too large", j->size, j->nr_node);
		return -1;
	}
	return 0;
}

/* Where file cases put their sparse files: lkp-tests' SPARSE_ROOT. */
static const char *vms_sparse_root(const struct run *r)
{
	return r->nmounts ? r->mount_points[0] : r->tmpdir;
}

/* lkp-tests' log_test line before each run of the case. */
static int vms_log_case(int fd, const char *test, struct strbuf *err)
{
	char date[64];
	time_t now = time(NULL);
	struct tm tm;

	if (!localtime_r(&now, &tm) || !strftime(date, sizeof(date), "%F %T", &tm))
		snprintf(date, sizeof(date), "%lld", (long long)now);
	if (dprintf(fd, "%s  ./case-%s\n", date, test) < 0) {
		strbuf_setf(err, "cannot write the raw file 'vm-scalability': %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* A sysctl lkp-tests' run sets; put back after the test (lkp-tests leaves it). */
struct vms_sysctl {
	const char *path;
	char *old;
};

static void vms_sysctl_set(const struct run *r, struct vms_sysctl *s, const char *path,
			   const char *value)
{
	struct strbuf old = STRBUF_INIT, e = STRBUF_INIT;

	s->path = path;
	s->old = NULL;
	if (!strbuf_read_file(&old, path)) {
		strbuf_rtrim(&old);
		/* best effort, as lkp-tests' echo: a failure shows in the case's own errors */
		if (strcmp(old.buf, value) && !run_write_sys(r, path, value, &e))
			s->old = strbuf_detach(&old);
	}
	strbuf_release(&old);
	strbuf_release(&e);
}

static void vms_sysctl_restore(struct vms_sysctl *s)
{
	if (!s->old)
		return;
	int fd = open(s->path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (write(fd, s->old, strlen(s->old)) < 0) {
			/* nothing better to do: the test is over */
		}
		close(fd);
	}
	free(s->old);
	s->old = NULL;
}

static int vms_open_raw(const struct run *r, struct strbuf *err)
{
	char *path = run_path(r, "vm-scalability");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		strbuf_setf(err, "cannot write '%s': %s", path, strerror(errno));
	free(path);
	return fd;
}

/* Our C cases. 0, or 1 with one line in err. */
static int vms_run_ours(struct run *r, const struct vms_job *j, const struct vmscal_case *c,
			struct strbuf *err)
{
	struct vmscal_meminfo mi;
	struct vms_sysctl overcommit;
	uint64_t unit, runs = 1;
	int fd, ret = 1;

	if (j->has_cpu_delay || j->has_timed_wp) {
		strbuf_setf(err, "%s is not supported by lkprobot's C cases; point LKPROBOT_VM_SCALABILITY at an upstream vm-scalability checkout to run it",
			    j->has_cpu_delay ? "cpu_delay" : "timed_wp");
		return 1;
	}
	if (vmscal_meminfo_read(&mi, err) || vmscal_check(c, &mi, err))
		return 1;
	unit = j->has_unit_size ? j->unit_size : vmscal_default_bytes(c, &mi, (unsigned)j->nr_task);
	if (j->has_size) {
		uint64_t total = j->size * j->nr_node;
		if (unit > total)
			unit = total;
		runs = total / unit;
	}

	long page = sysconf(_SC_PAGESIZE);
	struct vmscal_params vp = {
		.c = c,
		.nr_task = (unsigned)j->nr_task,
		.worker_bytes = unit / j->nr_task,
		.repeat = j->has_repeat ? (unsigned)j->repeat : 1,
		.bind_interval = (unsigned)j->bind_cpu,
		.sync_free = j->sync_free,
		.dir = vms_sparse_root(r),
	};
	if (vp.worker_bytes < (uint64_t)(page > 0 ? page : 4096)) {
		strbuf_setf(err, "%" PRIu64 " bytes over %" PRIu64 " workers is %" PRIu64 " bytes each, less than a page; raise %s",
			    unit, j->nr_task, vp.worker_bytes,
			    j->has_unit_size ? "unit_size" : j->has_size ? "size" : "the memory");
		return 1;
	}
	if (c->kind == VMSCAL_FILE && !vp.dir) {
		strbuf_setf(err, "%s needs a directory for its sparse files: the job mounts no file system and the run has no tmpdir",
			    c->name);
		return 1;
	}
	/* upstream's warning in hw_vars: holes of tmpfs files are read without page cache */
	struct statfs sfs;
	if (c->kind == VMSCAL_FILE && !statfs(vp.dir, &sfs) && sfs.f_type == TMPFS_MAGIC) {
		strbuf_setf(err, "%s: %s is tmpfs, where reading a sparse file fills no page cache; give the job a disk and fs:",
			    c->name, vp.dir);
		return 1;
	}
	if ((fd = vms_open_raw(r, err)) < 0)
		return 1;
	/* sync_rw (usemem -y: map before the start barrier) is what the C workers always do */
	vms_sysctl_set(r, &overcommit, "/proc/sys/vm/overcommit_memory", "1");
	if (j->has_size)
		dprintf(fd, "repeat count: %" PRIu64 "\n", runs);
	vp.deadline_ns = j->runtime ? vmscal_now_ns() + j->runtime * 1000000000ULL : 0;
	for (uint64_t i = 0; i < runs; i++) {
		off_t before = lseek(fd, 0, SEEK_END);
		bool cut = false;

		if (vms_log_case(fd, c->name, err) || vmscal_run(&vp, fd, &cut, err))
			goto out;
		/*
		 * A later run the deadline cut short would be a sample of another
		 * kind (usemem credits the whole allocation up front): drop it.
		 * lkp-tests lets that run finish, past runtime.
		 */
		if (cut && i > 0 && before >= 0 && ftruncate(fd, before)) {
			strbuf_setf(err, "cannot cut the raw file 'vm-scalability': %s", strerror(errno));
			goto out;
		}
		if (i + 1 < runs && (cut || (vp.deadline_ns && vmscal_now_ns() >= vp.deadline_ns))) {
			dprintf(fd, "runtime exceeded, consider adjust size configuration\n");
			break;
		}
	}
	ret = 0;
out:
	vms_sysctl_restore(&overcommit);
	close(fd);
	return ret;
}

/*
 * An upstream checkout: lkp-tests' run around case-<test>, the job's values
 * in the environment as numbers, through `env -C <checkout> NAME=VALUE ...
 * ./case-<test>` (an argv, and a line of reproduce.sh anyone can rerun).
 * lkprobot makes no tmpfs and no loop-mounted sparse root (pre_setup=0):
 * SPARSE_ROOT is the job's first mount point or the run's tmpdir.
 */
static int vms_run_upstream(struct run *r, const struct vms_job *j, const char *checkout,
			    struct strbuf *err)
{
	struct vms_sysctl sys[3];
	char **argv = xcalloc(24, sizeof(*argv));
	size_t argc = 0;
	uint64_t runs = 1;
	int fd = -1, ret = 1;
	const char *root = vms_sparse_root(r);
	const char *tmpfs_mnt = "/tmp/vm-scalability-tmp";
	bool made_tmpfs_mnt = false;

	argv[argc++] = xstrdup("env");
	argv[argc++] = xstrdup("-C");
	argv[argc++] = xstrdup(checkout);
	argv[argc++] = xasprintf("nr_task=%" PRIu64, j->nr_task);
	argv[argc++] = xasprintf("runtime=%" PRIu64, j->runtime);
	if (j->has_size) {
		struct vmscal_meminfo mi;
		uint64_t total = j->size * j->nr_node, unit;
		if (vmscal_meminfo_read(&mi, err))
			goto out;
		/* set_repeat_count(): a unit_size the job gives is capped and passed on */
		unit = j->has_unit_size ? j->unit_size : mi.mem_total / 2;
		if (unit > total)
			unit = total;
		runs = unit ? total / unit : 1;
		argv[argc++] = xasprintf("size=%" PRIu64, total);
		if (j->has_unit_size)
			argv[argc++] = xasprintf("unit_size=%" PRIu64, unit);
	} else if (j->has_unit_size) {
		argv[argc++] = xasprintf("unit_size=%" PRIu64, j->unit_size);
	}
	if (j->fs) {
		if (strspn(j->fs, "abcdefghijklmnopqrstuvwxyz0123456789") != strlen(j->fs)) {
			strbuf_setf(err, "fs: '%s' is not a file system type", j->fs);
			goto out;
		}
		argv[argc++] = xasprintf("fs=%s", j->fs);
	}
	if (root)
		argv[argc++] = xasprintf("SPARSE_ROOT=%s", root);
	if (j->sync_rw)
		argv[argc++] = xstrdup("SYNC_RW=1");
	if (j->sync_free)
		argv[argc++] = xstrdup("SYNC_FREE=1");
	if (j->has_bind_cpu)
		argv[argc++] = xasprintf("BIND_CPU=%" PRIu64, j->bind_cpu);
	if (j->has_repeat)
		argv[argc++] = xasprintf("REPEAT_COUNT=%" PRIu64, j->repeat);
	if (j->has_cpu_delay)
		argv[argc++] = xasprintf("DELAY=%" PRIu64, j->cpu_delay);
	if (j->has_timed_wp)
		argv[argc++] = xasprintf("TIMED_WP=%" PRIu64, j->timed_wp);
	argv[argc++] = xasprintf("./case-%s", j->test);

	if ((fd = vms_open_raw(r, err)) < 0)
		goto out;
	/* hw_vars keeps dd outputs and shm files in TMPFS_MNT */
	if (!mkdir(tmpfs_mnt, 0755))
		made_tmpfs_mnt = true;
	vms_sysctl_set(r, &sys[0], "/proc/sys/vm/overcommit_memory", "1");
	vms_sysctl_set(r, &sys[1], "/proc/sys/vm/max_map_count", "1073741824");
	vms_sysctl_set(r, &sys[2], "/proc/sys/kernel/threads-max", "1048576");
	if (j->has_size)
		dprintf(fd, "repeat count: %" PRIu64 "\n", runs);

	uint64_t start = vmscal_now_ns();
	int rc = 0;
	for (uint64_t i = 0; i < runs; i++) {
		if (vms_log_case(fd, j->test, err))
			break;
		rc = run_cmd(r, argv, NULL, "vm-scalability", "stderr", err);
		if (rc < 0)
			break;
		if (rc > 0) {
			strbuf_setf(err, "./case-%s of %s exited with status %d; see 'stderr' in the result root",
				    j->test, checkout, rc);
			break;
		}
		if (i + 1 < runs && (vmscal_now_ns() - start) / 1000000000ULL > j->runtime) {
			dprintf(fd, "runtime exceeded, consider adjust size configuration\n");
			break;
		}
	}
	ret = err->len ? 1 : 0;
	for (size_t i = 0; i < ARRAY_SIZE(sys); i++)
		vms_sysctl_restore(&sys[i]);
	if (made_tmpfs_mnt)
		rmdir(tmpfs_mnt);
out:
	if (fd >= 0)
		close(fd);
	for (size_t i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return ret;
}

static int vms_run(struct run *r, const struct program *p)
{
	struct strbuf err = STRBUF_INIT, list = STRBUF_INIT;
	const char *checkout = getenv("LKPROBOT_VM_SCALABILITY");
	const struct vmscal_case *c;
	struct vms_job j;
	int ret = 1;

	if (vms_job_read(r, p, &j, &err))
		goto out;
	if (checkout && *checkout) {
		char *script = xasprintf("%s/case-%s", checkout, j.test);
		bool have = !access(script, X_OK);
		free(script);
		if (have) {
			ret = vms_run_upstream(r, &j, checkout, &err);
			goto out;
		}
	}
	if (!(c = vmscal_find(j.test))) {
		vmscal_list(&list);
		if (checkout && *checkout)
			strbuf_setf(&err, "test '%s': %s has no executable case-%s, and lkprobot's C cases are %s",
				    j.test, checkout, j.test, list.buf);
		else
			strbuf_setf(&err, "test '%s' is not one of lkprobot's C cases (%s); set LKPROBOT_VM_SCALABILITY to an upstream vm-scalability checkout to run the others",
				    j.test, list.buf);
		goto out;
	}
	ret = vms_run_ours(r, &j, c, &err);
out:
	if (ret && err.len)
		fprintf(stderr, "vm-scalability: %s\n", err.buf);
	strbuf_release(&err);
	strbuf_release(&list);
	return ret;
}

/* the workers' throughput, the median worker's and the work done: up */
static const struct program_metric vms_metrics[] = {
	{ "throughput", +1, true },
	{ "median", +1, true },
	{ "workload", +1, false },
	{ NULL, 0, false },
};

const struct program program_vm_scalability = {
	.version = PROGRAM_VERSION,
	.name = "vm-scalability",
	.kind = PROGRAM_TEST,
	.summary = "exercise the kernel's mm (anon, swap, page cache cases)",
	.description =
		"The motivation behind this suite is to exercise functions and regions of the mm/ "
		"of the Linux kernel which are of interest to us.",
	.url = "https://git.kernel.org/cgit/linux/kernel/git/wfg/vm-scalability.git/",
	.options = vm_scalability_options,
	.run = vms_run,
	.parse = vm_scalability_parse,
	.raw = "vm-scalability",
	.debs = NULL,
	.metrics = vms_metrics,
};

/*
 * lkprobot qemu: run job files in a kernel booted under QEMU with emulated
 * NVDIMMs, as `lkp qemu` does: one boot per run, the same engine as
 * `lkprobot run` inside the guest, the result root written where the host
 * keeps its results, and the run recorded in the store by the host.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/store/store.h"
#include "../lib/job/engine.h"
#include "../lib/sys/fsutil.h"
#include "../lib/job/job.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/util/json.h"
#include "../lib/sys/machine.h"
#include "../lib/run/program.h"
#include "../lib/results/result.h"
#include "../lib/run/run.h"
#include "../lib/util/units.h"
#include "../lib/util/yml.h"
#include "../providers/provider.h"
#include "../providers/qemu.h"
#include "../flow/runjobs.h"
#include "../flow/runstore.h"

#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot qemu [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Boot a kernel in QEMU with one emulated NVDIMM per pmem the job asks for\n"
	"and run each atomic job in it (one boot per run). The host's root is the\n"
	"guest's root (9p, read-only); results go to <RESULT_ROOT_DIR>/... as with\n"
	"'lkprobot run', plus the serial console as dmesg. KVM when the kernel boots\n"
	"under it (a probe: the kernel to user space, 15 s at most, once a kernel:\n"
	"recorded in the cache), TCG otherwise (the reason on stderr and in\n"
	"job.yaml's facts: accel; TCG runs are functional checks, and job.yaml says\n"
	"so). A boot under KVM whose kernel prints nothing for 15 s or oopses before\n"
	"lkprobot starts in it is booted again under TCG.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 every run finished, 1 a run failed, timed out, panicked or\n"
	"did not boot, 2 bad job file or usage\n";


/* A run as `qemu` says it: each result root of its boot, the times and the accelerator, the key figures. */
static void print_run(const struct node *job, const struct provider_run *r)
{
	(void)job;
	for (size_t i = 0; i + 1 < r->nruns; i++)
		printf("%s %s (the same boot)\n", r->states[i], r->run_dirs[i]);
	printf("%s %s %s\n", r->job_state, r->run_dir ? r->run_dir : "(no result root)", r->summary ? r->summary : "");
	if (r->reason)
		printf("  reason: %s\n", r->reason);
	struct node *stats = r->run_dir ? runjobs_stats(r->run_dir) : NULL;
	for (size_t i = 0; stats && i < stats->n; i++) {
		const char *k = stats->keys[i];
		if (strstr(k, "bw_MBps") || strstr(k, "_iops") || strstr(k, "throughput"))
			printf("  %-40s %s\n", k, stats->vals[i]->str);
	}
	node_free(stats);
	if (!r->run_dir)
		return;
	/* which devices had DAX, as the guest checked each one, and why not KVM (job.yaml facts: dax, accel) */
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct node *facts = NULL;
	char *jp = xasprintf("%s/job.yaml", r->run_dir);
	if (!strbuf_read_bounded(&text, jp, JOB_MAX_BYTES, NULL) && (facts = yml_load_one(text.buf, jp, &err))) {
		const struct node *f = node_get(facts, "facts");
		const char *dax = node_str(node_get(f, "dax")), *acc = node_str(node_get(f, "accel"));
		const char *why = acc && !strncmp(acc, "tcg", 3) ? strstr(acc, "KVM not used: ") : NULL;
		if (dax)
			printf("  dax: %s\n", dax);
		if (acc && !strncmp(acc, "tcg", 3))
			printf("  accel: tcg — an emulated CPU: these numbers are a functional check, not a performance figure (KVM not used: %s)\n",
			       why ? why + strlen("KVM not used: ") : "?");
	}
	node_free(facts);
	free(jp);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The atomic jobs of the command line for qemu-pmem (or -t's box), each checked for QEMU. 0, or -1 with err. */
static int qemu_jobs(struct jobopts *jo, struct lkp_ctx *ctx, const struct provider_ops *qemu, struct atomic_list *jobs,
		     struct strbuf *err)
{
	struct job_env env;

	if (!jo->testbox)
		jo->testbox = "qemu-pmem";
	jobopts_env(jo, ctx->data_dir, &env);
	if (jobopts_atomic_jobs(jo, &env, jobs, err))
		return -1;
	for (size_t i = 0; i < jobs->n; i++)
		if (engine_check(jobs->v[i], err) || qemu->check_job(jobs->v[i], err))
			return -1;
	return 0;
}

/*
 * The kernel: the commit built (or found in the kernel cache), -k's, the
 * newest cached, or Debian's; said on stderr. EXIT_OK, else the exit code
 * with the failure said (a commit that does not build: build_failed).
 */
static int qemu_kernel_ready(const struct provider_ops *qemu, struct provider *p, const char *tree, const char *rev)
{
	int ret = runjobs_prepare(qemu, p, tree, rev);

	if (ret == EXIT_OK)
		fprintf(stderr, "lkprobot: kernel: %s\n", qemu->describe(p));
	return ret;
}

/* Each job `runs` times, each run recorded in the store (unless !use_store). The exit code. */
static int qemu_runs(const struct provider_ops *qemu, struct provider *p, const struct atomic_list *jobs, long runs,
		     bool use_store, const char *db, const char *result_dir)
{
	struct strbuf err = STRBUF_INIT;
	struct runstore rs;
	int ret;

	if (runstore_open(&rs, use_store, db, result_dir, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
	} else {
		struct runjobs rj = { .ops = qemu, .p = p, .rs = &rs, .runs = runs, .print = print_run };
		ret = runjobs(&rj, jobs->v, jobs->n);
		runstore_close(&rs);
	}
	strbuf_release(&err);
	return ret;
}

/*
 * Where things are: the cache (*cache, the default when NULL), the data
 * and the result directory (created) by their real paths. 0, or -1 with err.
 */
static int qemu_where(const struct lkp_ctx *ctx, const char *result_dir, char **cache, char *data_real, char *res_real,
		      struct strbuf *err)
{
	if (!*cache) {
		struct strbuf cd = STRBUF_INIT;
		kbuild_cache_dir(&cd);
		*cache = strbuf_detach(&cd);
	}
	if (!realpath(ctx->data_dir, data_real)) {
		strbuf_setf(err, "cannot tell where lkprobot and its data are");
		return -1;
	}
	if (fsutil_mkdir_p(result_dir) || !realpath(result_dir, res_real)) {
		strbuf_setf(err, "%s: cannot create the result directory", result_dir);
		return -1;
	}
	return 0;
}

/* --reuse-boot: one boot, the N runs in it */
static void reuse_boot(struct provider_options *opts, long *runs, struct strbuf *err)
{
	char n[32];

	snprintf(n, sizeof(n), "%ld", *runs);
	provider_options_set(opts, "runs_per_boot", n, err);
	*runs = 1;
}

int cmd_qemu(int argc, char **argv, struct lkp_ctx *ctx)
{
	const struct provider_ops *qemu = provider_find("qemu");
	struct provider_options *opts = provider_options_new(qemu);
	struct jobopts jo;
	const char *db = NULL, *tree = NULL, *rev = NULL, *kconfig = NULL, *kcflags = NULL, *accel = NULL,
		   *result_dir = STORE_RESULT_ROOT;
	char *cache = NULL;
	bool use_store = true, reuse = false;
	long runs = 1;
	/* the provider's options are set where their rows say */
	const struct opt table[] = {
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &result_dir),
		OPT_PROVIDER('k', "kernel", "IMAGE", "boot this vmlinux/bzImage", "kernel", opts),
		OPT_STRING(0, "tree", "DIR",
			   "with --commit: build that commit first ('lkprobot build'),\n"
			   "boot it (default kernel: the newest built in the kernel\n"
			   "cache, else Debian's packaged kernel, fetched once)",
			   &tree),
		OPT_STRING(0, "commit", "REV", "the commit of --tree to build and boot", &rev),
		OPT_STRING(0, "kconfig", "NAME|FILE", "the kernel config of that build (default x86_64-pmem)",
			   &kconfig),
		OPT_STRING(0, "kcflags", "FLAGS",
			   "make's KCFLAGS of that build (-falign-functions=32: the\n"
			   "layout check's), a kernel of its own in the cache",
			   &kcflags),
		OPT_PROVIDER(0, "modules", "DIR", "the /lib/modules/<release> of -k's kernel", "modules", opts),
		JOBOPTS_RUNS("boot and run each atomic job N times", &runs),
		OPT_BOOL(0, "reuse-boot", "one boot for the N runs (lkp-tests reboots between runs)", &reuse),
		OPT_DUP(0, "cache", "DIR",
			"kernels and NVDIMM files (default $LKPROBOT_CACHE,\n"
			"/var/cache/lkprobot as root, else ~/.cache/lkprobot)",
			&cache),
		OPT_PROVIDER(0, "pmem-size", "SIZE", "each NVDIMM (default 1G)", "pmem_size", opts),
		OPT_PROVIDER(0, "memory", "SIZE", "guest RAM (default 2G)", "memory", opts),
		OPT_PROVIDER(0, "cpus", "N", "guest CPUs (default 2)", "cpus", opts),
		OPT_PROVIDER(0, "boot-timeout", "S", "seconds for the guest to start lkprobot (default 120)",
			     "boot_timeout", opts),
		OPT_PROVIDER(0, "job-timeout", "S",
			     "seconds for the job once the guest runs it (default:\nits runtime + 600)", "job_timeout",
			     opts),
		OPT_PROVIDER(0, "append", "ARGS", "more kernel parameters (the job's boot_params are added)", "append",
			     opts),
		OPT_STRING(0, "accel", "A",
			   "kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto:\n"
			   "KVM when the probe boots the kernel under it, else TCG)",
			   &accel),
		OPT_STRING(0, "db", "FILE", "the store, as for 'lkprobot run'", &db),
		OPT_NO(0, "no-store", "do not record the runs in the store", &use_store),
		JOBOPTS_ROWS(&jo, "the test box (default qemu-pmem: hosts/qemu-pmem)"),
		OPT_END(),
	};
	struct provider *p = NULL;
	struct atomic_list jobs = { 0 };
	struct strbuf err = STRBUF_INIT;
	char data_real[PATH_MAX], res_real[PATH_MAX];
	int ret;

	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err) || qemu_accel_option(accel, &err) ||
	    qemu_jobs(&jo, ctx, qemu, &jobs, &err) || runjobs_commit_args(tree, rev, kcflags, &err))
		goto bad;
	if (reuse)
		reuse_boot(opts, &runs, &err);
	if (qemu_where(ctx, result_dir, &cache, data_real, res_real, &err))
		goto bad;
	struct provider_config pc = { .tree = tree,
				      .result_dir = res_real,
				      .cache = cache,
				      .data_dir = data_real,
				      .kconfig = kconfig,
				      .kcflags = kcflags,
				      .testbox = jo.testbox,
				      .progress = isatty(2),
				      .opts = opts };
	if (provider_check(qemu, &pc, &err))
		goto bad;
	if (fsutil_mkdir_p(cache) || !(p = provider_open(qemu, &pc, &err))) {
		ret = say_error(EXIT_FAIL, "%s", err.len ? err.buf : "cannot create the cache");
		goto out;
	}
	if ((ret = qemu_kernel_ready(qemu, p, tree, rev)) == EXIT_OK)
		ret = qemu_runs(qemu, p, &jobs, runs, use_store, db, res_real);
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	if (p)
		qemu->close(p);
	provider_options_free(opts);
	jobopts_atomic_release(&jobs);
	free(cache);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

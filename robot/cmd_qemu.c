/*
 * lkprobot qemu: run job files in a kernel booted under QEMU with emulated
 * NVDIMMs, as `lkp qemu` does: one boot per run, the same engine as
 * `lkprobot run` inside the guest, the result root written where the host
 * keeps its results, and the run recorded in the store by the host.
 */
#include "cmd.h"
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
#include "../providers/qemu.h"
#include "runstore.h"

#include <dirent.h>
#include <getopt.h>
#include <sys/stat.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot qemu [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Boot a kernel in QEMU with one emulated NVDIMM per pmem the job asks for\n"
	"and run each atomic job in it (one boot per run). The host's root is the\n"
	"guest's root (9p, read-only); results go to <RESULT_ROOT_DIR>/... as with\n"
	"'lkprobot run', plus the serial console as dmesg. KVM when a probe guest\n"
	"runs under it, TCG otherwise (the reason on stderr and in job.yaml's\n"
	"facts: accel; TCG runs are functional checks, and job.yaml says so).\n"
	"\n"
	"  -o, --result-root DIR  RESULT_ROOT_DIR (default /lkp/result)\n"
	"  -k, --kernel IMAGE     boot this vmlinux/bzImage\n"
	"      --tree DIR --commit REV [--kconfig NAME|FILE]\n"
	"                         build that commit first ('lkprobot build'), boot it\n"
	"                         (default kernel: the newest built in the kernel\n"
	"                         cache, else Debian's packaged kernel, fetched once)\n"
	"      --modules DIR      the /lib/modules/<release> of -k's kernel\n"
	"      --runs N           boot and run each atomic job N times\n"
	"      --reuse-boot       one boot for the N runs (lkp-tests reboots between runs)\n"
	"      --cache DIR        kernels and NVDIMM files (default $LKPROBOT_CACHE,\n"
	"                         /var/cache/lkprobot as root, else ~/.cache/lkprobot)\n"
	"      --pmem-size SIZE   each NVDIMM (default 1G)\n"
	"      --memory SIZE      guest RAM (default 2G)\n"
	"      --cpus N           guest CPUs (default 2)\n"
	"      --boot-timeout S   seconds for the guest to start lkprobot (default 120)\n"
	"      --job-timeout S    seconds for the job once the guest runs it (default:\n"
	"                         its runtime + 600)\n"
	"      --append ARGS      more kernel parameters (the job's boot_params are added)\n"
	"      --accel A          kvm, tcg or auto (default: $LKPROBOT_ACCEL, else auto:\n"
	"                         KVM when a probe guest runs under it, else TCG)\n"
	"      --db FILE, --no-store   the store, as for 'lkprobot run'\n"
	"  -t, --testbox NAME     the test box (default qemu-pmem: hosts/qemu-pmem)\n"
	"  -s, --set 'KEY: VALUE' override a key (also KEY=VALUE arguments)\n"
	"      --no-defaults      do not merge jobs/include defaults nor the host file\n"
	JOBOPTS_LKP_SRC_HELP
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 every run finished, 1 a run failed, timed out, panicked or\n"
	"did not boot, 2 bad job file or usage\n";

enum { OPT_RUNS = 0x400, OPT_CACHE, OPT_PMEM, OPT_MEM, OPT_CPUS, OPT_BOOT, OPT_DB, OPT_NOSTORE, OPT_MODULES, OPT_APPEND, OPT_JOBTIMEOUT, OPT_REUSE, OPT_TREE, OPT_COMMIT, OPT_KCONFIG, OPT_ACCEL };


/* The newest kernel built in the cache (<cache>/kernels/<commit>-<config>/vmlinux). */
static char *newest_cached_kernel(const char *cache, char **commit, char **kconfig)
{
	char *dir = xasprintf("%s/kernels", cache), *best = NULL;
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t best_t = 0;

	while (d && (de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		char *v = xasprintf("%s/%s/vmlinux", dir, de->d_name);
		if (!stat(v, &st) && st.st_mtime >= best_t) {
			best_t = st.st_mtime;
			free(best);
			best = v;
			free(*commit);
			*commit = xstrndup(de->d_name, strcspn(de->d_name, "-"));
		} else {
			free(v);
		}
	}
	if (d)
		closedir(d);
	free(dir);
	(void)kconfig;
	return best;
}

static void print_run(const struct qemu_result *qr)
{
	struct strbuf err = STRBUF_INIT;
	struct node *stats = NULL;

	for (size_t i = 0; i + 1 < qr->nruns; i++)
		printf("%s %s (the same boot)\n", qr->states[i], qr->run_dirs[i]);
	printf("%s %s (boot %.1f s, test %.1f..%.1f s, total %.1f s, %s)\n", qr->job_state,
	       qr->run_dir ? qr->run_dir : "(no result root)", qr->boot_seconds, qr->test_start,
	       qr->test_end, qr->wall_seconds, qr->accel);
	if (qr->reason)
		printf("  reason: %s\n", qr->reason);
	if (qr->run_dir) {
		char *sp = xasprintf("%s/stats.json", qr->run_dir);
		if (!result_load_json(sp, &stats, &err)) {
			for (size_t i = 0; i < stats->n; i++) {
				const char *k = stats->keys[i];
				if (strstr(k, "bw_MBps") || strstr(k, "_iops") || strstr(k, "throughput"))
					printf("  %-40s %s\n", k, stats->vals[i]->str);
			}
			node_free(stats);
		}
		free(sp);
		/* which devices had DAX, as the guest checked each one (job.yaml facts: dax) */
		struct strbuf text = STRBUF_INIT;
		struct node *job = NULL;
		char *jp = xasprintf("%s/job.yaml", qr->run_dir);
		if (!strbuf_read_file(&text, jp) && (job = yml_load_one(text.buf, jp, &err)) &&
		    node_str(node_get(node_get(job, "facts"), "dax")))
			printf("  dax: %s\n", node_str(node_get(node_get(job, "facts"), "dax")));
		node_free(job);
		free(jp);
		strbuf_release(&text);
	}
	if (!strcmp(qr->accel ? qr->accel : "", "tcg"))
		printf("  accel: tcg — an emulated CPU: these numbers are a functional check, not a performance figure (KVM not used: %s)\n",
		       qr->accel_why ? qr->accel_why : "?");
	strbuf_release(&err);
}

int cmd_qemu(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		JOBOPTS_LONGOPTS,
		{ "result-root", required_argument, NULL, 'o' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "modules", required_argument, NULL, OPT_MODULES },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "pmem-size", required_argument, NULL, OPT_PMEM },
		{ "memory", required_argument, NULL, OPT_MEM },
		{ "cpus", required_argument, NULL, OPT_CPUS },
		{ "boot-timeout", required_argument, NULL, OPT_BOOT },
		{ "db", required_argument, NULL, OPT_DB },
		{ "no-store", no_argument, NULL, OPT_NOSTORE },
		{ "append", required_argument, NULL, OPT_APPEND },
		{ "job-timeout", required_argument, NULL, OPT_JOBTIMEOUT },
		{ "reuse-boot", no_argument, NULL, OPT_REUSE },
		{ "tree", required_argument, NULL, OPT_TREE },
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "kconfig", required_argument, NULL, OPT_KCONFIG },
		{ "accel", required_argument, NULL, OPT_ACCEL },
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct job_env env;
	struct atomic_list jobs = { 0 };
	struct qemu_kernel k = { 0 };
	struct qemu_opts qo = { .result_dir = "/lkp/result" };
	struct strbuf err = STRBUF_INIT;
	const char *image = NULL, *modules = NULL, *db = NULL, *tree = NULL, *rev = NULL, *kconfig = NULL, *accel = NULL;
	char *cache = NULL, exe[PATH_MAX], data_real[PATH_MAX], res_real[PATH_MAX];
	bool use_store = true, reuse = false;
	long runs = 1;
	int ret = EXIT_USAGE, c, r;

	jobopts_init(&jo);
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:k:t:s:h", longopts, NULL)) != -1) {
		if ((r = jobopts_option(&jo, c, optarg, &err)) < 0)
			goto bad;
		if (r)
			continue;
		switch (c) {
		case 'o': qo.result_dir = optarg; break;
		case 'k': image = optarg; break;
		case OPT_MODULES: modules = optarg; break;
		case OPT_RUNS:
			if (jobopts_runs(optarg, &runs, &err))
				goto bad;
			break;
		case OPT_CACHE: cache = xstrdup(optarg); break;
		case OPT_PMEM:
		case OPT_MEM:
			if (units_bytes(optarg, c == OPT_PMEM ? &qo.pmem_size : &qo.memory, &err))
				goto bad;
			break;
		case OPT_CPUS: qo.cpus = atoi(optarg); break;
		case OPT_BOOT: qo.boot_timeout = (unsigned)atoi(optarg); break;
		case OPT_DB: db = optarg; break;
		case OPT_NOSTORE: use_store = false; break;
		case OPT_APPEND: qo.append = optarg; break;
		case OPT_JOBTIMEOUT: qo.job_timeout = (unsigned)atoi(optarg); break;
		case OPT_REUSE: reuse = true; break;
		case OPT_TREE: tree = optarg; break;
		case OPT_COMMIT: rev = optarg; break;
		case OPT_KCONFIG: kconfig = optarg; break;
		case OPT_ACCEL: accel = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err) || qemu_accel_option(accel, &err))
		goto bad;
	if (!jo.testbox)
		jo.testbox = "qemu-pmem";
	jobopts_env(&jo, ctx, &env);
	if (jobopts_atomic_jobs(&jo, &env, &jobs, &err))
		goto bad;
	for (size_t i = 0; i < jobs.n; i++)
		if (engine_check(jobs.v[i], &err) || qemu_check_job(jobs.v[i], &err))
			goto bad;
	if (!cache) {
		struct strbuf cd = STRBUF_INIT;
		kbuild_cache_dir(&cd);
		cache = strbuf_detach(&cd);
	}
	qo.cache = cache;
	if ((tree || rev) && !(tree && rev)) {
		strbuf_setf(&err, "--tree and --commit go together: the repository and the commit to build");
		goto bad;
	}
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0 || !realpath(ctx->data_dir, data_real)) {
		strbuf_setf(&err, "cannot tell where lkprobot and its data are");
		goto bad;
	}
	exe[n] = '\0';
	qo.lkprobot = exe;
	qo.data_dir = data_real;
	if (fsutil_mkdir_p(qo.result_dir) || !realpath(qo.result_dir, res_real)) {
		strbuf_setf(&err, "%s: cannot create the result directory", qo.result_dir);
		goto bad;
	}
	qo.result_dir = res_real;
	qo.progress = isatty(2);

	if (tree) {
		struct kbuild_opts ko = { .tree = tree, .rev = rev, .kconfig = kconfig, .data_dir = data_real,
					  .cache = cache, .progress = isatty(1) };
		struct kbuild_result kr;
		int br = kbuild_build(&ko, &kr, &err);
		if (br) {
			kbuild_result_release(&kr);
			ret = cmd_error(br == KBUILD_EINPUT ? EXIT_USAGE : EXIT_FAIL, "%s", err.buf);
			goto out;
		}
		if (!kr.built) {
			printf("build_failed %s\n  reason: %s\n", kr.dir, kr.error ? kr.error : "see build.log");
			kbuild_result_release(&kr);
			ret = EXIT_FAIL;
			goto out;
		}
		char *img = xasprintf("%s/vmlinux", kr.dir);
		if (access(img, R_OK)) {
			free(img);
			img = xasprintf("%s/bzImage", kr.dir);
		}
		int kf = qemu_kernel_file(&k, img, NULL, &err);
		free(img);
		if (!kf) {
			free(k.commit);
			k.commit = xstrdup(kr.commit);
			free(k.kconfig);
			k.kconfig = xstrdup(kconfig ? (strrchr(kconfig, '/') ? strrchr(kconfig, '/') + 1 : kconfig)
						    : KBUILD_DEFAULT_KCONFIG);
			free(k.source);
			k.source = xasprintf("commit %s of %s, %s (%s)", kr.commit, tree,
					     kr.cached ? "from the kernel cache" : "built now", kr.dir);
		}
		kbuild_result_release(&kr);
		if (kf) {
			ret = cmd_error(EXIT_FAIL, "%s", err.buf);
			goto out;
		}
	} else if (image) {
		if (qemu_kernel_file(&k, image, modules, &err)) {
			ret = cmd_error(EXIT_USAGE, "%s", err.buf);
			goto out;
		}
	} else {
		char *commit = NULL, *kc = NULL;
		char *cached = newest_cached_kernel(cache, &commit, &kc);
		int kr = cached ? qemu_kernel_file(&k, cached, NULL, &err) : qemu_kernel_debian(&k, cache, &err);
		if (cached && !kr) {
			free(k.commit);
			k.commit = commit;
			commit = NULL;
			free(k.kconfig);
			k.kconfig = xstrdup(KBUILD_DEFAULT_KCONFIG);
			free(k.source);
			k.source = xasprintf("%s (the newest kernel in the kernel cache)", cached);
		}
		free(commit);
		free(kc);
		free(cached);
		if (kr) {
			ret = cmd_error(EXIT_FAIL, "%s", err.buf);
			goto out;
		}
	}
	fprintf(stderr, "lkprobot: kernel: %s\n", k.source);

	struct runstore rs;
	if (runstore_open(&rs, use_store, db, qo.result_dir, &err))
		goto bad;
	ret = EXIT_OK;
	for (size_t i = 0; i < jobs.n; i++) {
		struct node *job = jobs.v[i];
		/* the result path names the kernel that ran */
		if (!node_get(job, "commit"))
			node_set(job, "commit", node_new_scalar(k.commit));
		if (!node_get(job, "kconfig"))
			node_set(job, "kconfig", node_new_scalar(k.kconfig));
		struct qemu_opts jq = qo;
		if (!jq.job_timeout)
			jq.job_timeout = run_job_timeout(job);
		if (reuse) {
			jq.runs = (int)runs;
			jq.job_timeout *= (unsigned)runs;
		}
		for (long run = 0; run < (reuse ? 1 : runs); run++) {
			struct qemu_result qr;
			if (qemu_run_job(&k, job, &jq, &qr, &err)) {
				ret = cmd_error(EXIT_FAIL, "%s", err.buf);
				continue;
			}
			print_run(&qr);
			for (size_t d = 0; d < qr.nruns; d++)
				if (runstore_record_dir(&rs, qr.run_dirs[d], &err))
					cmd_warn("%s", err.buf);
			if (strcmp(qr.job_state, "finished"))
				ret = EXIT_FAIL;
			qemu_result_release(&qr);
		}
	}
	runstore_close(&rs);
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	jobopts_atomic_release(&jobs);
	qemu_kernel_release(&k);
	free(cache);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

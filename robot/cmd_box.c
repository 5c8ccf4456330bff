/*
 * lkprobot box: the real test boxes of the ssh provider — list them and
 * whether they are in service, put one back in service (or take it out),
 * prepare a new one, run jobs on one with a given kernel; and, on the box
 * itself, boot the kernel the robot copied there (`box boot`, which the
 * robot runs over ssh).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/job/engine.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/job/job.h"
#include "../lib/sys/machine.h"
#include "../lib/run/run.h"
#include "../lib/store/store.h"
#include "../lib/util/yml.h"
#include "../providers/box.h"
#include "../providers/provider.h"
#include "../flow/runjobs.h"
#include "../flow/runstore.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot box list     [--boxes FILE] [--db FILE | -o DIR]\n"
	"       lkprobot box enable   NAME [--boxes FILE] [--db FILE | -o DIR]\n"
	"       lkprobot box disable  NAME [--reason TEXT] [--boxes FILE] [--db FILE | -o DIR]\n"
	"       lkprobot box install  NAME [--boxes FILE] [JOB.yaml...]\n"
	"       lkprobot box run      NAME [-k BZIMAGE | --tree DIR --commit REV [--kconfig K] [--kcflags F]\n"
	"                             [--cache DIR]] [--runs N] [-o DIR] [--db FILE] [--boxes FILE]\n"
	"                             JOB.yaml... [key=value...]\n"
	"       lkprobot box boot     BOOT.yaml          (on the box: run by the robot over ssh)\n"
	"\n"
	"Real test boxes are reached over ssh (the system's ssh, host keys checked)\n"
	"and described in the boxes file (--boxes, else $LKPROBOT_BOXES, else\n"
	"/etc/lkprobot/boxes.yaml; its keys: docs/configuration.md, or 'lkprobot\n"
	"help config'). For each run the robot copies the kernel and the job there,\n"
	"kexecs the box into the kernel with the job's boot_params (or runs its\n"
	"reboot_cmd), checks uname -r and /proc/cmdline when it answers again, runs\n"
	"`lkprobot run` there, and brings the result root home, where it is checked\n"
	"and its stats extracted again. A box that does not come back within\n"
	"boot_timeout is power-cycled (power_cycle_cmd) and the run is a recorded\n"
	"failure (boot_failed); after max_failures such runs in a row the box is\n"
	"out of service until enabled.\n"
	"\n"
	"  list      the boxes, in service or not, failures in a row, last error\n"
	"  enable    put a box back in service (its failure count cleared)\n"
	"  disable   take a box out of service\n"
	"  install   copy this lkprobot there, check kexec, and install what the\n"
	"            jobs need there ('lkprobot install' on the box, apt-get)\n"
	"  run       run jobs there, booted into the kernel of commit REV of the\n"
	"            tree, built here (kernel cache), or BZIMAGE, else the kernel it\n"
	"            runs now; results in -o DIR (default /lkp/result) and the store\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 done (run: every run finished), 1 a run failed or the box\n"
	"could not be reached, 2 bad usage, boxes file or job\n";

struct box_args {
	const char *boxes, *db, *result_dir, *reason, *kernel;
	const char *tree, *rev, *kconfig, *kcflags; /* run: the commit's kernel, built here */
	char *cache;
	long runs;
};

/* ---- on the box ---- */

static int detached_main(void *arg)
{
	char *const *argv = arg;

	signal(SIGHUP, SIG_IGN);
	sleep(1);
	sync();
	execvp(argv[0], argv);
	return 127;
}

/* Detach: the ssh session that asked for the boot ends before the kernel changes. */
static void detach_then_exec(char *const argv[])
{
	struct strbuf err = STRBUF_INIT;
	struct proc p = { .fn = detached_main, .arg = (void *)argv, .setsid = true, .in = PROC_NULL,
			  .out = PROC_NULL, .err = PROC_NULL };

	if (proc_start(&p, &err))
		say_warn("%s", err.buf);
	strbuf_release(&err);
}

static int box_boot_here(const char *file)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct node *boot;

	if (strbuf_read_file(&text, file))
		return say_error(EXIT_USAGE, "cannot read '%s': %s", file, strerror(errno));
	if (!(boot = yml_load_one(text.buf, file, &err)))
		return say_error(EXIT_USAGE, "%s", err.buf);
	const char *kernel = node_str(node_get(boot, "kernel")), *initrd = node_str(node_get(boot, "initrd"));
	const char *cmdline = node_str(node_get(boot, "cmdline")), *method = node_str(node_get(boot, "method"));
	int ret = EXIT_FAIL;

	setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
	if (!kernel || !cmdline || !method) {
		ret = say_error(EXIT_USAGE, "%s: kernel, cmdline and method are needed", file);
	} else if (!strcmp(method, "kexec")) {
		char *init = initrd ? xasprintf("--initrd=%s", initrd) : NULL, *app = xasprintf("--append=%s", cmdline);
		char *load[] = { "kexec", "-l", (char *)kernel, app, init, NULL };
		int rc = run_exec(load, -1, -1, &err);
		if (rc)
			ret = say_error(EXIT_FAIL, "kexec -l %s failed (%s%d)%s%s", kernel, rc < 0 ? "" : "status ", rc,
					err.len ? ": " : "", err.buf);
		else {
			char *exec[] = { "kexec", "-e", NULL };
			detach_then_exec(exec);
			printf("kexec: %s loaded; executing it in 1 s\n", kernel);
			ret = EXIT_OK;
		}
		free(init);
		free(app);
	} else if (!strcmp(method, "reboot")) {
		const struct node *cmd = node_get(boot, "reboot_cmd");
		char **argv = xcalloc((cmd ? cmd->n : 0) + 1, sizeof(*argv));
		for (size_t i = 0; cmd && i < cmd->n; i++)
			argv[i] = (char *)node_str(cmd->vals[i]);
		if (!argv[0]) {
			ret = say_error(EXIT_USAGE, "%s: method reboot needs reboot_cmd", file);
		} else {
			setenv("LKPROBOT_KERNEL", kernel, 1);
			setenv("LKPROBOT_CMDLINE", cmdline, 1);
			if (initrd)
				setenv("LKPROBOT_INITRD", initrd, 1);
			detach_then_exec(argv);
			printf("%s: running in 1 s\n", argv[0]);
			ret = EXIT_OK;
		}
		free(argv);
	} else {
		ret = say_error(EXIT_USAGE, "%s: method must be kexec or reboot", file);
	}
	node_free(boot);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}

/* ---- here ---- */

static int box_list(const struct box_args *a)
{
	struct strbuf err = STRBUF_INIT;
	char **names;
	size_t n;
	struct runstore rs = { 0 };
	int ret = EXIT_FAIL;

	if (box_names(a->boxes, &names, &n, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (runstore_open(&rs, true, a->db, a->result_dir, &err)) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
		goto out2;
	}
	printf("%-20s %-28s %-14s %-8s %s\n", "box", "address", "state", "failures", "last error");
	for (size_t i = 0; i < n; i++) {
		struct box b;
		struct node *row = NULL;
		if (box_load(a->boxes, names[i], &b, &err)) {
			printf("%-20s %s\n", names[i], err.buf);
			continue;
		}
		if (store_box_get(rs.store, names[i], &row, &err) < 0) {
			ret = say_error(EXIT_FAIL, "%s", err.buf);
			box_release(&b);
			goto out2;
		}
		char *addr = xasprintf("%s@%s:%d", b.user, b.host, b.port);
		const char *in = row ? node_str(node_get(row, "in_service")) : "1";
		const char *fails = row ? node_str(node_get(row, "failures")) : "0";
		const char *last = row ? node_str(node_get(row, "last_error")) : NULL;
		printf("%-20s %-28s %-14s %-8s %s\n", names[i], addr, in && !strcmp(in, "0") ? "out of service" : "in service",
		       fails ? fails : "0", last ? last : "-");
		free(addr);
		node_free(row);
		box_release(&b);
	}
	ret = EXIT_OK;
out2:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	runstore_close(&rs);
out:
	strbuf_release(&err);
	return ret;
}

static int box_service(const struct box_args *a, const char *name, bool in)
{
	struct strbuf err = STRBUF_INIT;
	struct box b;
	struct runstore rs = { 0 };
	int ret;

	if (box_load(a->boxes, name, &b, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		strbuf_release(&err);
		return ret;
	}
	box_release(&b);
	if (runstore_open(&rs, true, a->db, a->result_dir, &err) ||
	    store_box_service(rs.store, name, in, in ? NULL : a->reason ? a->reason : "taken out by hand", (int64_t)time(NULL), &err))
		ret = say_error(EXIT_FAIL, "%s", err.buf);
	else {
		printf("box %s is %s service\n", name, in ? "in" : "out of");
		ret = EXIT_OK;
	}
	runstore_close(&rs);
	strbuf_release(&err);
	return ret;
}

/* Copy an atomic job to the box and run `lkprobot install` there on it. */
static int install_job(const struct node *job, void *arg, struct strbuf *err)
{
	struct box *b = arg;
	struct strbuf yaml = STRBUF_INIT;
	char *cmd = xasprintf("mkdir -p %s/install && cat > %s/install/job.yaml && %s install --no-defaults %s/install/job.yaml",
			      b->workdir, b->workdir, b->agent, b->workdir);

	yml_emit(&yaml, job);
	fflush(stdout);
	int rc = box_ssh_text(b, cmd, yaml.buf, yaml.len, 1800, err);
	if (rc) {
		char *why = strbuf_detach(err);
		strbuf_setf(err, "box %s: 'lkprobot install' there failed (status %d)%s%s", b->name, rc, *why ? ": " : "", why);
		free(why);
	}
	free(cmd);
	strbuf_release(&yaml);
	return rc ? -1 : 0;
}

static int box_install(const struct box_args *a, struct jobopts *jo, struct lkp_ctx *ctx, const char *name)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct box b;
	struct job_env env;
	int ret = EXIT_FAIL;

	if (box_load(a->boxes, name, &b, &err)) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
		goto out;
	}
	if (box_connect(&b, &err)) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	printf("box %s: lkprobot is %s\n", name, b.agent);
	if (!b.reboot) {
		int rc = box_ssh(&b, "command -v kexec", -1, &out, 60, &err);
		if (rc) {
			ret = say_error(
				EXIT_FAIL,
				"box %s: kexec is not installed there (Debian package kexec-tools), and boot is kexec",
				name);
			goto out;
		}
		strbuf_rtrim(&out);
		printf("box %s: kexec is %s\n", name, out.buf);
	}
	if (jo->nfiles) {
		jo->testbox = b.tbox_group;
		jobopts_env(jo, ctx->data_dir, &env);
		if (jobopts_expand(jo, &env, install_job, &b, &err)) {
			ret = say_error(EXIT_FAIL, "%s", err.buf);
			goto out;
		}
	}
	printf("box %s is ready\n", name);
	ret = EXIT_OK;
out:
	box_release(&b);
	strbuf_release(&err);
	strbuf_release(&out);
	return ret;
}

/* A run as `box run` says it: its state and result root, and why when it did not finish. */
static void print_box_run(const struct node *job, const struct provider_run *r)
{
	(void)job;
	printf("%s %s\n", r->job_state, r->run_dir ? r->run_dir : "(no result root)");
	if (r->reason)
		printf("  reason: %s\n", r->reason);
}

static int box_run_jobs(const struct box_args *a, struct jobopts *jo, struct lkp_ctx *ctx, const char *name)
{
	const struct provider_ops *ssh = provider_find("ssh");
	struct provider_options *opts = provider_options_new(ssh);
	struct strbuf err = STRBUF_INIT;
	struct atomic_list jobs = { 0 };
	struct runstore rs = { 0 };
	struct job_env env;
	struct provider *p = NULL;
	char *testbox = NULL;
	bool have_rs = false;
	int ret = EXIT_USAGE;

	if (a->rev && a->kernel) {
		strbuf_setf(&err, "-k and --commit both name the kernel: give one");
		goto bad;
	}
	if (a->kconfig && !a->rev) {
		strbuf_setf(&err, "--kconfig is the configuration of a build: give --tree and --commit too");
		goto bad;
	}
	if (runjobs_commit_args(a->tree, a->rev, a->kcflags, &err))
		goto bad;
	provider_options_set(opts, "box", name, &err);
	provider_options_set(opts, "boxes", a->boxes, &err);
	if (a->kernel)
		provider_options_set(opts, "kernel", a->kernel, &err);
	/* the cache is kbuild's only (NULL: its default, which it makes) */
	struct provider_config pc = { .tree = a->tree,
				      .kconfig = a->kconfig,
				      .kcflags = a->kcflags,
				      .cache = a->cache,
				      .result_dir = a->result_dir,
				      .data_dir = ctx->data_dir,
				      .db = a->db,
				      .progress = isatty(2),
				      .opts = opts };
	/* one box (the provider would take a tbox_group's name for its boxes); its tbox_group is the test box */
	struct box b;
	if (box_load(a->boxes, name, &b, &err))
		goto bad;
	box_release(&b);
	if (provider_check(ssh, &pc, &err) || provider_testbox(ssh, &pc, &testbox, &err))
		goto bad;
	jo->testbox = testbox;
	jobopts_env(jo, ctx->data_dir, &env);
	if (jobopts_atomic_jobs(jo, &env, &jobs, &err))
		goto bad;
	for (size_t i = 0; i < jobs.n; i++)
		if (engine_check(jobs.v[i], &err))
			goto bad;
	if (fsutil_mkdir_p(a->result_dir) || runstore_open(&rs, true, a->db, a->result_dir, &err)) {
		if (!err.len)
			strbuf_setf(&err, "cannot create the result directory '%s': %s", a->result_dir, strerror(errno));
		ret = say_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	have_rs = true;
	/* the commit's kernel, built here; else the kernel -k names, else the one the box runs now */
	if (!(p = provider_open(ssh, &pc, &err))) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
		goto out;
	}
	if ((ret = runjobs_prepare(ssh, p, a->tree, a->rev)) != EXIT_OK)
		goto out;
	struct runjobs rj = { .ops = ssh, .p = p, .rs = &rs, .runs = a->runs, .stop_on_error = true,
			      .print = print_box_run };
	ret = runjobs(&rj, jobs.v, jobs.n);
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	if (p)
		ssh->close(p);
	if (have_rs)
		runstore_close(&rs);
	jobopts_atomic_release(&jobs);
	provider_options_free(opts);
	free(testbox);
	strbuf_release(&err);
	return ret;
}

int cmd_box(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct box_args a = { .boxes = box_default_file(), .result_dir = STORE_RESULT_ROOT, .runs = 1 };
	struct jobopts jo;
	const struct opt table[] = {
		OPT_STRING(0, "boxes", "FILE", "the boxes file (default $LKPROBOT_BOXES, /etc/lkprobot/boxes.yaml)",
			   &a.boxes),
		OPT_STRING(0, "db", "FILE", "the store (default RESULT_ROOT_DIR/lkprobot.db)", &a.db),
		OPT_STRING('o', "result-root", "DIR", "RESULT_ROOT_DIR (default " STORE_RESULT_ROOT ")", &a.result_dir),
		OPT_STRING(0, "reason", "TEXT", "disable: why the box is out of service", &a.reason),
		OPT_STRING('k', "kernel", "BZIMAGE", "run: boot this kernel (default: the one the box runs)",
			   &a.kernel),
		OPT_STRING(0, "tree", "DIR", "run: the git repository of --commit", &a.tree),
		OPT_STRING(0, "commit", "REV", "run: boot the kernel of this commit, built here", &a.rev),
		OPT_STRING(0, "kconfig", "NAME|FILE", "run: the kernel config of that build (default x86_64-pmem)",
			   &a.kconfig),
		OPT_STRING(0, "kcflags", "FLAGS", "run: make's KCFLAGS of that build (-falign-functions=32)",
			   &a.kcflags),
		OPT_DUP(0, "cache", "DIR",
			"run: the kernel cache (default $LKPROBOT_CACHE,\n"
			"/var/cache/lkprobot as root, else ~/.cache/lkprobot)",
			&a.cache),
		JOBOPTS_RUNS("run: run each atomic job N times (default 1)", &a.runs),
		JOBOPTS_SET_ROWS(&jo),
		OPT_END(),
	};
	struct strbuf err = STRBUF_INIT;
	int ret = EXIT_USAGE;

	if (argc < 2) {
		struct strbuf h = STRBUF_INIT;
		opt_help(&h, table, usage_head, usage_tail);
		fputs(h.buf, stderr);
		strbuf_release(&h);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "boot")) {
		/* on the box, run by the robot: nothing else on its command line */
		if (argc != 3)
			return say_error(EXIT_USAGE, "box boot needs one BOOT.yaml (the robot runs it on the box)");
		return box_boot_here(argv[2]);
	}
	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (optind >= argc) {
		strbuf_setf(&err, "box needs a command: list, enable, disable, install or run");
		goto bad;
	}
	const char *sub = argv[optind++];
	if (!strcmp(sub, "list")) {
		if (optind != argc) {
			strbuf_setf(&err, "box list takes no arguments");
			goto bad;
		}
		ret = box_list(&a);
		goto out;
	}
	if (strcmp(sub, "enable") && strcmp(sub, "disable") && strcmp(sub, "install") && strcmp(sub, "run")) {
		strbuf_setf(&err, "box: '%s' is not a box command (list, enable, disable, install, run)", sub);
		goto bad;
	}
	if (optind >= argc) {
		strbuf_setf(&err, "box %s needs the box's NAME", sub);
		goto bad;
	}
	const char *name = argv[optind++];
	if (!strcmp(sub, "enable") || !strcmp(sub, "disable")) {
		if (optind != argc) {
			strbuf_setf(&err, "box %s takes one NAME", sub);
			goto bad;
		}
		ret = box_service(&a, name, !strcmp(sub, "enable"));
		goto out;
	}
	if (optind < argc || !strcmp(sub, "run")) {
		if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
			goto bad;
	}
	ret = !strcmp(sub, "install") ? box_install(&a, &jo, ctx, name) : box_run_jobs(&a, &jo, ctx, name);
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	jobopts_release(&jo);
	free(a.cache);
	strbuf_release(&err);
	return ret;
}

/*
 * lkprobot build: build a kernel from a git commit into the kernel cache
 * (lib/kbuild), or find it there. Prints the kernel's directory, then
 * "cached", "built in N s" or "failed: <first error line>".
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/sys/machine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot build --tree DIR --commit REV [options]\n"
	"\n"
	"Check REV of the git repository DIR out into the kernel cache's work tree,\n"
	"configure it (a base config merged with the robot's fragment\n"
	"kconfig/" KBUILD_FRAGMENT ".config) and make bzImage in a build directory\n"
	"reused across commits, with ccache when it is installed. bzImage, vmlinux,\n"
	".config, build.log and a result file are kept in\n"
	"<cache>/kernels/<commit>-<config hash>/, whose path is printed first. A\n"
	"kernel (or failure) already in the cache is not built again.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"Builds in one cache run one at a time (they share its work tree); one\n"
	"waits for another for at most three of its timeouts and 10 minutes. A\n"
	"SIGTERM or Ctrl-C ends the make under way with it; nothing is recorded.\n"
	"On a terminal a line shows the build's progress.\n"
	"\n"
	"exit codes: 0 built or cached, 1 the build failed (recorded in the cache\n"
	"with its first error line) or the cache cannot be written, 2 no such tree,\n"
	"revision or kconfig, or usage\n";

int cmd_build(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct kbuild_opts o = { .data_dir = ctx->data_dir };
	int timeout = 0;
	const struct opt table[] = {
		OPT_STRING('C', "tree", "DIR", "the git repository (a work tree or a bare repository)", &o.tree),
		OPT_STRING('k', "commit", "REV", "what to build: an id, branch, tag or HEAD~2", &o.rev),
		OPT_STRING('c', "kconfig", "CONFIG",
			   "defconfig (make defconfig + fragment), a name from\n"
			   "kconfig/ built with make allnoconfig (default: " KBUILD_DEFAULT_KCONFIG ",\n"
			   "a minimal kernel for QEMU with NVDIMMs), or a .config\n"
			   "file (+ fragment, make olddefconfig)",
			   &o.kconfig),
		OPT_STRING(0, "cache", "DIR",
			   "the kernel cache (default: $LKPROBOT_CACHE, else\n"
			   "/var/cache/lkprobot as root, else ~/.cache/lkprobot)",
			   &o.cache),
		OPT_STRING(0, "kcflags", "FLAGS",
			   "make's KCFLAGS (-falign-functions=32, as the layout check\n"
			   "builds): a kernel of its own in the cache, its config name\n"
			   "x86_64-pmem+falign-functions=32 in result paths",
			   &o.kcflags),
		OPT_INT('j', "jobs", "N", "make -jN (default: the number of CPUs)", &o.jobs, 1, 4096,
			"a number of jobs; write a whole number like 4"),
		OPT_BOOL(0, "rebuild", "build even if the cache has the kernel or its failure", &o.rebuild),
		OPT_INT(0, "timeout", "S",
			"each make may run S seconds (default 21600, 6 h); longer:\n"
			"stopped, exit 1, nothing recorded",
			&timeout, 1, 7 * 86400, "seconds; write a whole number like 7200"),
		OPT_END(),
	};
	struct kbuild_result res;
	struct strbuf err = STRBUF_INIT;
	struct machine local = { 0 };
	int ret;

	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		return ret;
	if (optind < argc)
		return say_error(EXIT_USAGE, "build: unexpected argument '%s'; see 'lkprobot build --help'",
				 argv[optind]);
	if (!o.tree || !o.rev)
		return say_error(EXIT_USAGE, "build: --tree DIR and --commit REV are both needed");

	o.timeout = timeout;
	machine_detect(&local);
	o.compiler = local.compiler;
	o.progress = isatty(STDOUT_FILENO);
	ret = kbuild_build(&o, &res, &err);
	if (ret == KBUILD_EINPUT) {
		ret = say_error(EXIT_USAGE, "%s", err.buf);
	} else if (ret) {
		ret = say_error(EXIT_FAIL, "%s", err.buf);
	} else {
		printf("%s\n", res.dir);
		if (res.built && res.cached)
			printf("cached\n");
		else if (res.built)
			printf("built in %ld s\n", res.seconds);
		else
			printf("failed%s: %s\n", res.cached ? " (cached; --rebuild tries again)" : "",
			       res.error ? res.error : "");
		ret = EXIT_OK;
		if (!res.built)
			ret = say_error(EXIT_FAIL, "the build of %.12s failed; its log is %s/build.log", res.commit,
					res.dir);
	}
	kbuild_result_release(&res);
	machine_release(&local);
	strbuf_release(&err);
	return ret;
}

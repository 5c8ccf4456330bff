/*
 * lkprobot job-path: the result path of each atomic job of a job file,
 * "<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>",
 * as lkp-tests lays out result roots.
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/job/job.h"
#include "../lib/sys/machine.h"
#include "../lib/util/sset.h"

#include <stdio.h>
#include <string.h>

static const char usage_head[] =
	"usage: lkprobot job-path [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Print the result path of every atomic job of the job files, once each:\n"
	"<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>\n"
	"Axes the job does not set come from the test box: hosts/<NAME> with -t,\n"
	"else this machine (rootfs from os-release, kconfig defconfig, the gcc\n"
	"version, the running kernel's release as commit), as 'lkp run' does.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 printed, 2 bad job file or usage\n";

struct paths {
	const struct machine *m;
	struct lkpsrc *lkp;
	const char *prefix;
	bool old_order;
	bool short_form;
	struct sset seen;
};

static int one_path(const struct node *atomic, void *arg, struct strbuf *err)
{
	struct paths *ps = arg;
	struct strbuf p = STRBUF_INIT;
	int ret = 0;

	if (ps->prefix)
		strbuf_addf(&p, "%s/", ps->prefix);
	if (ps->short_form) {
		const char *tc = job_get_str(atomic, "testcase");
		if (!tc) {
			strbuf_setf(err, "the job has no 'testcase'; add testcase: <name> (e.g. fio-basic)");
			ret = -1;
			goto out;
		}
		strbuf_addf(&p, "%s/", tc);
		job_path_params(atomic, ps->lkp, ps->old_order, &p);
	} else if (job_result_path(atomic, ps->m, ps->lkp, ps->old_order, &p, err)) {
		ret = -1;
		goto out;
	}
	if (sset_add(&ps->seen, p.buf))
		printf("%s\n", p.buf);
out:
	strbuf_release(&p);
	return ret;
}

int cmd_job_path(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	struct paths ps = { 0 };
	const struct opt table[] = {
		JOBOPTS_ROWS(&jo, "the test box (default: this host)"),
		OPT_STRING('r', "result-root", "DIR", "prefix the paths with DIR (e.g. /lkp/result)", &ps.prefix),
		OPT_BOOL(0, "path-params", "print only <testcase>/<path_params>", &ps.short_form),
		OPT_BOOL(0, "old-order", "pre-2019 path_params order (order of appearance)", &jo.old_order),
		OPT_END(),
	};
	struct job_env env;
	struct machine m = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret;

	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	if (machine_get(&m, ctx->data_dir, jo.testbox, &err))
		goto bad;
	jo.testbox = m.hostname;
	ps.m = &m;
	ps.old_order = jo.old_order;
	ps.lkp = jo.lkp;
	jobopts_env(&jo, ctx->data_dir, &env);
	if (jobopts_expand(&jo, &env, one_path, &ps, &err))
		goto bad;
	ret = EXIT_OK;
	goto out;
bad:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	sset_release(&ps.seen);
	machine_release(&m);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

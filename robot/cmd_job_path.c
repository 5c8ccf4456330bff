/*
 * lkprobot job-path: the result path of each atomic job of a job file,
 * "<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>",
 * as lkp-tests lays out result roots.
 */
#include "cmd.h"
#include "../lib/job/job.h"
#include "../lib/sys/machine.h"
#include "../lib/util/sset.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage_text[] =
	"usage: lkprobot job-path [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Print the result path of every atomic job of the job files, once each:\n"
	"<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>\n"
	"Axes the job does not set come from the test box: hosts/<NAME> with -t,\n"
	"else this machine (rootfs from os-release, kconfig defconfig, the gcc\n"
	"version, the running kernel's release as commit), as 'lkp run' does.\n"
	"\n"
	"  -t, --testbox NAME      the test box (default: this host)\n"
	"  -s, --set 'KEY: VALUE'  override a key (also KEY=VALUE arguments)\n"
	"  -r, --result-root DIR   prefix the paths with DIR (e.g. /lkp/result)\n"
	"      --path-params       print only <testcase>/<path_params>\n"
	"      --no-defaults       do not merge jobs/include defaults nor the host file\n"
	JOBOPTS_LKP_SRC_HELP
	"      --compatible        pre-2019 path_params order (order of appearance)\n"
	"  -h, --help              this help\n"
	"\n"
	"exit codes: 0 printed, 2 bad job file or usage\n";

struct paths {
	const struct machine *m;
	struct lkpsrc *lkp;
	const char *prefix;
	bool compatible;
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
		job_path_params(atomic, ps->lkp, ps->compatible, &p);
	} else if (job_result_path(atomic, ps->m, ps->lkp, ps->compatible, &p, err)) {
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
	static const struct option longopts[] = {
		JOBOPTS_LONGOPTS,
		JOBOPTS_COMPATIBLE,
		{ "result-root", required_argument, NULL, 'r' },
		{ "path-params", no_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct job_env env;
	struct paths ps = { 0 };
	struct machine m = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret = EXIT_USAGE, c, r;

	jobopts_init(&jo);
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:s:r:h", longopts, NULL)) != -1) {
		if ((r = jobopts_option(&jo, c, optarg, &err)) < 0)
			goto bad;
		if (r)
			continue;
		switch (c) {
		case 'r': ps.prefix = optarg; break;
		case 'P': ps.short_form = true; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	if (machine_get(&m, ctx->data_dir, jo.testbox, &err))
		goto bad;
	jo.testbox = m.hostname;
	ps.m = &m;
	ps.compatible = jo.compatible;
	ps.lkp = jo.lkp;
	jobopts_env(&jo, ctx, &env);
	if (jobopts_expand(&jo, &env, one_path, &ps, &err))
		goto bad;
	ret = EXIT_OK;
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	sset_release(&ps.seen);
	machine_release(&m);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

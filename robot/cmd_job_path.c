/*
 * lkprobot job-path: the result path of each atomic job of a job file,
 * "<testcase>/<path_params>/<tbox_group>/<rootfs>/<kconfig>/<compiler>/<commit>",
 * as lkp-tests lays out result roots.
 */
#include "cmd.h"
#include "../lib/job.h"
#include "../lib/machine.h"
#include "../lib/sset.h"

#include <getopt.h>
#include <stdlib.h>
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
	"      --compatible        pre-2019 path_params order (order of appearance)\n"
	"  -h, --help              this help\n"
	"\n"
	"exit codes: 0 printed, 2 bad job file or usage\n";

struct paths {
	const struct machine *m;
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
		job_path_params(atomic, ps->compatible, &p);
	} else if (job_result_path(atomic, ps->m, ps->compatible, &p, err)) {
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
		{ "testbox", required_argument, NULL, 't' },
		{ "set", required_argument, NULL, 's' },
		{ "result-root", required_argument, NULL, 'r' },
		{ "path-params", no_argument, NULL, 'P' },
		{ "no-defaults", no_argument, NULL, 'D' },
		{ "compatible", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct paths ps = { 0 };
	struct machine m = { 0 };
	struct strbuf err = STRBUF_INIT;
	int ret = EXIT_USAGE, c;

	jobopts_init(&jo);
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:s:r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 't': jo.testbox = optarg; break;
		case 's':
			if (jobopts_set(&jo, optarg, &err))
				goto bad;
			break;
		case 'r': ps.prefix = optarg; break;
		case 'P': ps.short_form = true; break;
		case 'D': jo.no_defaults = true; break;
		case 'C': jo.compatible = true; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	for (int i = optind; i < argc; i++)
		if (jobopts_arg(&jo, argv[i], &err))
			goto bad;
	if (!jo.nfiles) {
		cmd_error(EXIT_USAGE, "job-path needs a job file; 'lkprobot job-path --help' shows how");
		goto out;
	}
	if (jo.testbox) {
		int r = machine_load(&m, ctx->data_dir, jo.testbox, &err);
		if (r < 0)
			goto bad;
		if (r > 0) {
			/* no host file: this machine's defaults under the given name */
			struct strbuf g = STRBUF_INIT;
			machine_detect(&m);
			free(m.hostname);
			m.hostname = xstrdup(jo.testbox);
			job_tbox_group(jo.testbox, &g);
			free(m.tbox_group);
			m.tbox_group = strbuf_detach(&g);
		}
	} else {
		machine_detect(&m);
		jo.testbox = m.hostname;
	}
	ps.m = &m;
	ps.compatible = jo.compatible;

	struct job_env env = {
		.data_dir = ctx->data_dir,
		.no_defaults = jo.no_defaults,
		.overrides = jo.overrides,
		.testbox = jo.testbox,
		.compatible = jo.compatible,
	};
	for (size_t f = 0; f < jo.nfiles; f++) {
		struct jobfile jf;
		if (job_load(&jf, jo.files[f], &env, &err))
			goto bad;
		int r = job_expand(&jf, &env, one_path, &ps, &err);
		job_release(&jf);
		if (r)
			goto bad;
	}
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

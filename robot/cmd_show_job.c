/*
 * lkprobot show-job: a job file fully merged — includes spliced, host file,
 * jobs/include defaults and overrides applied — printed as YAML, one YAML
 * document per document of the job file (lists not yet expanded).
 */
#include "cmd.h"
#include "../lib/job/job.h"
#include "../lib/util/yml.h"

#include <getopt.h>
#include <stdio.h>

static const char usage_text[] =
	"usage: lkprobot show-job [options] JOB.yaml [key=value...]\n"
	"\n"
	"Print the job fully merged, one YAML document per document of the file\n"
	"(document 0, then document 0 merged with each later one). Lines '#! FILE'\n"
	"say where the keys after them came from.\n"
	"\n"
	"  -t, --testbox NAME     add testbox/tbox_group and merge hosts/<tbox_group>\n"
	"  -s, --set 'KEY: VALUE' override a key (also KEY=VALUE arguments)\n"
	"      --no-defaults      do not merge jobs/include defaults nor the host file\n"
	JOBOPTS_LKP_SRC_HELP
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 printed, 2 bad job file or usage\n";

int cmd_show_job(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		JOBOPTS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct job_env env;
	struct jobfile jf;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int ret = EXIT_USAGE, c, r;

	jobopts_init(&jo);
	optind = 1;
	while ((c = getopt_long(argc, argv, "t:s:h", longopts, NULL)) != -1) {
		if ((r = jobopts_option(&jo, c, optarg, &err)) < 0)
			goto bad;
		if (r)
			continue;
		if (c == 'h') {
			fputs(usage_text, stdout);
			ret = EXIT_OK;
		} else {
			fputs(usage_text, stderr);
		}
		goto out;
	}
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	if (jo.nfiles != 1) {
		strbuf_setf(&err, "show-job takes one job file, not %zu", jo.nfiles);
		goto bad;
	}
	jobopts_env(&jo, ctx, &env);
	if (job_load(&jf, jo.files[0], &env, &err))
		goto bad;
	for (size_t d = 0; d < jf.ndocs; d++) {
		struct node *job = job_merged(&jf, &env, d, &err);
		if (!job) {
			job_release(&jf);
			goto bad;
		}
		strbuf_addstr(&out, "---\n");
		yml_emit(&out, job);
		node_free(job);
	}
	job_release(&jf);
	fputs(out.buf, stdout);
	ret = EXIT_OK;
	goto out;
bad:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	strbuf_release(&out);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

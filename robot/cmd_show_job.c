/*
 * lkprobot show-job: a job file fully merged — includes spliced, host file,
 * jobs/include defaults and overrides applied — printed as YAML, one YAML
 * document per document of the job file (lists not yet expanded).
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/job/job.h"
#include "../lib/util/yml.h"

#include <stdio.h>

static const char usage_head[] =
	"usage: lkprobot show-job [options] JOB.yaml [key=value...]\n"
	"\n"
	"Print the job fully merged, one YAML document per document of the file\n"
	"(document 0, then document 0 merged with each later one). Lines '#! FILE'\n"
	"say where the keys after them came from.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 printed, 2 bad job file or usage\n";

int cmd_show_job(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	const struct opt table[] = {
		JOBOPTS_ROWS(&jo, "add testbox/tbox_group and merge hosts/<tbox_group>"),
		OPT_END(),
	};
	struct job_env env;
	struct jobfile jf;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	int ret;

	jobopts_init(&jo);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto bad;
	if (jo.nfiles != 1) {
		strbuf_setf(&err, "show-job takes one job file, not %zu", jo.nfiles);
		goto bad;
	}
	jobopts_env(&jo, ctx->data_dir, &env);
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
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	strbuf_release(&out);
	strbuf_release(&err);
	jobopts_release(&jo);
	return ret;
}

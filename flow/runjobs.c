/*
 * runjobs: the run-and-record loop of the commands that run jobs on one
 * machine or box. See runjobs.h.
 */
#include "runjobs.h"
#include "flow.h"
#include "../lib/util/say.h"
#include "runstore.h"
#include "../lib/kernel/git.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/results/result.h"
#include "../lib/sys/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node *runjobs_stats(const char *run_dir)
{
	struct strbuf err = STRBUF_INIT;
	struct node *stats = NULL;
	char *sp = xasprintf("%s/stats.json", run_dir);

	if (result_load_json(sp, &stats, &err))
		stats = NULL;
	free(sp);
	strbuf_release(&err);
	return stats;
}

int runjobs(const struct runjobs *rj, struct node *const *jobs, size_t n)
{
	struct strbuf err = STRBUF_INIT;
	int ret = FLOW_OK;

	for (size_t i = 0; i < n; i++) {
		for (long k = 0; k < rj->runs; k++) {
			struct provider_run r;
			if (provider_run_job(rj->ops, rj->p, jobs[i], &r, &err)) {
				ret = say_error(FLOW_FAIL, "%s", err.buf);
				strbuf_reset(&err);
				if (rj->stop_on_error)
					goto out;
				continue;
			}
			rj->print(jobs[i], &r);
			/* every result root the run made (several runs in one boot), else its one */
			size_t nd = r.nruns ? r.nruns : r.run_dir ? 1 : 0;
			for (size_t d = 0; d < nd; d++)
				if (runstore_record_dir(rj->rs, r.nruns ? r.run_dirs[d] : r.run_dir, &err)) {
					say_warn("%s", err.buf);
					strbuf_reset(&err);
				}
			if (strcmp(r.job_state, "finished"))
				ret = FLOW_FAIL;
			bool stop = r.stop;
			provider_run_release(&r);
			if (stop || proc_stop_signal)
				goto out;
		}
	}
out:
	strbuf_release(&err);
	return ret;
}

int runjobs_commit_args(const char *tree, const char *rev, const char *kcflags, struct strbuf *err)
{
	char id[GITREPO_HEXSZ + 1];

	if ((tree || rev) && !(tree && rev)) {
		strbuf_setf(err, "--tree and --commit go together: the repository and the commit to build");
		return -1;
	}
	if (kcflags && !rev) {
		strbuf_setf(err, "--kcflags are the flags of a build: give --tree and --commit too");
		return -1;
	}
	if (kbuild_kcflags_check(kcflags, err))
		return -1;
	return tree ? gitrepo_resolve_in(tree, rev, id, err) : 0;
}

int runjobs_prepare(const struct provider_ops *ops, struct provider *p, const char *tree, const char *rev)
{
	struct strbuf why = STRBUF_INIT;
	int pr = ops->prepare(p, rev, &why), ret = FLOW_OK;

	if (pr > 0) {
		/* the reason is the build's first error line, as `lkprobot build` says it */
		const char *line = why.buf;
		if (!strncmp(line, PROVIDER_NO_BUILD, strlen(PROVIDER_NO_BUILD)))
			line += strlen(PROVIDER_NO_BUILD);
		printf("build_failed %s %s\n  reason: %s\n", tree, rev, line);
		ret = FLOW_FAIL;
	} else if (pr) {
		ret = say_error(FLOW_FAIL, "%s", why.buf);
	}
	strbuf_release(&why);
	return ret;
}

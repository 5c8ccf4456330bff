/*
 * job result paths: where an atomic job's results go, after lkp-tests'
 * ResultPath 'default' scheme. See job.h.
 */
#include "job.h"
#include "../sys/machine.h"

#include <string.h>

static int add_axis(struct strbuf *out, const char *axis, const char *v, struct strbuf *err)
{
	if (!v || !*v) {
		strbuf_setf(err, "the job has no '%s' and the machine gives none; set %s: <value> in the job or on the command line",
			    axis, axis);
		return -1;
	}
	if (strchr(v, '/') || !strcmp(v, ".") || !strcmp(v, "..") || strlen(v) > 255) {
		strbuf_setf(err, "%s: '%s' cannot be a path component of the result root; use a name without '/'",
			    axis, v);
		return -1;
	}
	strbuf_addf(out, "/%s", v);
	return 0;
}

int job_result_path(const struct node *job, const struct machine *m, struct lkpsrc *lk, bool old_order,
		    struct strbuf *out, struct strbuf *err)
{
	struct strbuf pp = STRBUF_INIT, rootfs = STRBUF_INIT;
	const char *testcase = job_get_str(job, "testcase");
	const char *group = job_get_str(job, "tbox_group");
	const char *r = job_get_str(job, "rootfs");
	const char *kconfig = job_get_str(job, "kconfig");
	const char *compiler = job_get_str(job, "compiler");
	const char *commit = job_get_str(job, "commit");
	size_t start = out->len;
	int ret = -1;

	if (!testcase) {
		strbuf_setf(err, "the job has no 'testcase'; add testcase: <name> (e.g. fio-basic)");
		return -1;
	}
	if (r)
		job_rootfs_filename(r, &rootfs);
	job_path_params(job, lk, old_order, &pp);
	if (add_axis(out, "testcase", testcase, err) ||
	    add_axis(out, "path_params", pp.buf, err) ||
	    add_axis(out, "tbox_group", group ? group : m->tbox_group, err) ||
	    add_axis(out, "rootfs", r ? rootfs.buf : m->rootfs, err) ||
	    add_axis(out, "kconfig", kconfig ? kconfig : m->kconfig, err) ||
	    add_axis(out, "compiler", compiler ? compiler : m->compiler, err) ||
	    add_axis(out, "commit", commit ? commit : m->commit, err))
		goto out;
	/* relative: drop the leading '/' added before testcase */
	memmove(out->buf + start, out->buf + start + 1, out->len - start);
	out->len--;
	ret = 0;
out:
	if (ret)
		strbuf_setlen(out, start);
	strbuf_release(&pp);
	strbuf_release(&rootfs);
	return ret;
}

/*
 * serve_measure: the service's measuring child — a fork that reads a job of
 * a tree into a bisect request, has a caller's function complete and run it
 * (a head's bisection, a recheck's or a test's comparison), and hands the
 * result back on stdout in the bisection result's JSON form. See serve_int.h.
 */
#include "serve_int.h"
#include "bisect.h"
#include "jobopts.h"
#include "../lib/results/compare.h"
#include "../lib/sys/proc.h"
#include "../lib/util/say.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

/* A measuring child: the job of tree t, read into a request that fn completes and runs. */
struct measure_child {
	const struct serve_conf *c;
	const struct tree_conf *t;
	const char *job;
	serve_measure_fn fn;
	void *arg;
};

/*
 * The child: its result on stdout in the bisection result's JSON form — a
 * failed one's short form too when it could not even start (bad input:
 * why says why).
 */
static int measure_child_main(void *arg)
{
	const struct measure_child *mc = arg;
	const struct serve_conf *c = mc->c;
	struct jobopts jo;
	struct compare_floors floors = { 0 };
	struct bisect_result res;
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	enum flow_status rc = FLOW_BAD;

	jobopts_init(&jo);
	serve_conf_floors(c, &floors);
	if (jobopts_add(&jo, (char *)mc->job, &err) || jobopts_lkp_src(&jo, &err)) {
		res = (struct bisect_result){ .status = BISECTION_FAILED, .why = xstrdup(err.buf) };
	} else {
		struct bisect_request req = { .tree = mc->t->path,
					      .provider = mc->t->provider,
					      .opts = mc->t->opts,
					      .kconfig = mc->t->kconfig,
					      .result_dir = c->result_root,
					      .db = c->db,
					      .cache = c->cache,
					      .data_dir = c->data_dir,
					      .jo = &jo,
					      .floors = &floors };
		if ((rc = mc->fn(&req, mc->arg, &res, &err)) != FLOW_OK) {
			free(res.why);
			res.why = xstrdup(err.buf);
			say_error(rc, "%s", err.buf);
		}
	}
	bisect_result_json(&out, &res);
	fwrite(out.buf, 1, out.len, stdout);
	fflush(stdout);
	bisect_result_release(&res);
	compare_floors_release(&floors);
	jobopts_release(&jo);
	strbuf_release(&err);
	strbuf_release(&out);
	return rc == FLOW_OK ? 0 : rc == FLOW_BAD ? 2 : 1;
}

int serve_measure(const struct serve_conf *c, const struct tree_conf *t, const char *job, serve_measure_fn fn,
		  void *arg, const char *what, struct bisect_result *res, struct strbuf *why)
{
	struct measure_child mc = { c, t, job, fn, arg };
	struct strbuf out = STRBUF_INIT, e = STRBUF_INIT;
	struct proc p = { .fn = measure_child_main,
			  .arg = &mc,
			  .in = PROC_NULL,
			  .out = PROC_CAPTURE,
			  .capture = &out,
			  .pgroup = true,
			  .death_sig = SIGKILL,
			  .stop = &proc_stop_signal,
			  .grace = 30 };

	*res = (struct bisect_result){ 0 };
	int rc = proc_run(&p, &e);
	proc_kill_group(&p, 5);
	int ret = out.len && !bisect_result_parse(out.buf, out.len, res, &e) ? 0 : -1;
	if (ret) {
		char buf[32];
		strbuf_setf(why, "%s ended (%s) without a result%s%s", what,
			    rc < 0 ? "not started" : proc_status_text(rc, buf), e.len ? ": " : "", e.buf);
	}
	strbuf_release(&out);
	strbuf_release(&e);
	return ret;
}

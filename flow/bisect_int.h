/*
 * bisect_int: what flow/bisect.c (a bisection session) and flow/prove.c
 * (the checks of its culprit) share and nobody else may see: the
 * session's resources. The public API is bisect.h.
 */
#ifndef LKP_FLOW_BISECT_INT_H
#define LKP_FLOW_BISECT_INT_H

#include "bisect.h"
#include "bisect_driver.h"
#include "jobopts.h"
#include "runstore.h"
#include "../lib/job/job.h"
#include "../lib/results/bisect.h"
#include "../lib/store/store.h"
#include "../lib/sys/machine.h"
#include "../providers/provider.h"

#include <limits.h>

/* One bisection's resources, from the store to the provider; session_release() lets them go. */
struct bsession {
	struct bisect_request a; /* the request, with a resumed bisection's recorded arguments */
	struct job_env env;
	struct atomic_list jobs;
	struct gitrepo *repo;
	struct gitrepo_range range;
	struct machine m;
	struct driver d;
	struct bisect_outcome outcome;
	struct runstore rs;
	struct store_bisection sb;
	struct provider_options *popts;
	struct provider_config pc;
	bool have_m, have_rs;
	char *cache, *picked, *picked_testbox;
	char res_real[PATH_MAX], data_real[PATH_MAX], bad_id[GITREPO_HEXSZ + 1];
	long long id;
	int lock_fd;
	bool measure; /* flow_measure: one commit, no bisection recorded */
	bool fresh;   /* flow_pair: only the rounds its comparisons make count */
};

/* The revert and layout checks of the culprit the session named, into res (prove.c). */
void bisect_prove(struct bsession *s, struct bisect_result *res);
/* flow_pair's comparison of the range's bad end against its good end, and its layout check (prove.c). */
enum flow_status bisect_pair(struct bsession *s, struct bisect_result *res, struct strbuf *err);

#endif

/*
 * bisect (flow): one bisection session, from a typed request to a typed
 * result — the store's record (new, the same one again, or --resume), the
 * job, the range, the head's lock, the provider opened, the metric picked
 * from the ends when none is asked for, lib/results/bisect's search with
 * flow/bisect_driver.c's callbacks, the outcome recorded. `lkprobot bisect`
 * and the service's bisect children both run it; its result, and that
 * result's one JSON form, are flow/bisect_result.h's.
 */
#ifndef LKP_FLOW_BISECT_H
#define LKP_FLOW_BISECT_H

#include "bisect_result.h"
#include "flow.h"
#include "../lib/kernel/git.h"
#include "../lib/stats/decide.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct compare_floors;
struct jobopts;
struct provider_cli;
struct provider_options;

/* The layout check's alignment when none is asked for: -falign-functions=32, as 0-day rebuilds. */
#define BISECT_LAYOUT_ALIGN 32

struct bisect_request {
	const char *tree, *good, *bad;	     /* a new bisection: all three */
	long long resume;		     /* or: go on with this one of the store (its recorded arguments) */
	const char *metric;		     /* NULL: the job's metric that changed most between the ends */
	const char *provider;		     /* by name (a resumed bisection: the store's) */
	const struct provider_options *opts; /* the provider's settings (NULL: its defaults) ... */
	const struct provider_cli *cli;	     /* ... and the command line's on top (NULL: none) */
	const char *accel;		     /* qemu: kvm, tcg or auto (NULL: $LKPROBOT_ACCEL) */
	const char *kconfig;		     /* qemu, ssh (NULL: the provider's default) */
	const char *result_dir;		     /* RESULT_ROOT_DIR */
	const char *db;			     /* the store (NULL: result_dir/lkprobot.db) */
	const char *cache;		     /* work trees and kernels (NULL: the default) */
	const char *data_dir;		     /* lkprobot's jobs/, hosts/ */
	size_t max_points;		     /* commits tested at once in a step (0: as the slots allow) */
	bool first_parent;
	int layout_align;	       /* the layout check's -falign-functions=N (kernel jobs); 0: none */
	struct jobopts *jo;	       /* the job file and its overrides (a resumed one's are added) */
	struct compare_floors *floors; /* the job's change_floor is added after these */
};

/*
 * Run the bisection req asks for. FLOW_OK with *res filled (whatever it
 * found: res->status), FLOW_FAIL when it could not be made (res->status
 * failed, recorded so in the store, res->known when the range was), or
 * FLOW_BAD on bad input; err says why in one line in both. Release res
 * with bisect_result_release() in every case.
 */
enum flow_status flow_bisect(const struct bisect_request *req, struct bisect_result *res, struct strbuf *err);

/*
 * Measure one commit on its own (req->bad; good and resume are not used):
 * `runs` runs of the job through the provider, recorded like a
 * bisection's — what a branch's first head gets when it has no parent to
 * be compared with (the base of the next head). FLOW_OK with res->status
 * baseline, FLOW_FAIL (the commit cannot be tested: res->untestable bad,
 * why its first error line) or FLOW_BAD, as flow_bisect.
 */
enum flow_status flow_measure(const struct bisect_request *req, size_t runs, struct bisect_result *res,
			      struct strbuf *err);

/*
 * Compare two commits of req->tree — req->bad against req->good, on
 * req->metric (required) — in interleaved rounds by the decision a
 * bisection confirms its culprit with, nothing recorded as a bisection:
 * a report's recheck, a patch tested on its culprit, a report's
 * follow-up. fresh: only the rounds made now count (the commits' earlier
 * ones are left out: measured again); else the rounds they share in the
 * store count too. With req->layout_align and a provider that builds
 * kernels, the layout check of the pair too (res->layout). FLOW_OK with
 * res named (culprit: bad, parent: good), res->confirm the decision and
 * res->again its figures and table, res->status found (changed),
 * not-reproduced (the same) or not-sure; FLOW_FAIL when it could not be
 * made (res->untestable: the end that cannot be tested, why its first
 * error line); FLOW_BAD on bad input. Release res in every case.
 */
enum flow_status flow_pair(const struct bisect_request *req, bool fresh, struct bisect_result *res, struct strbuf *err);

#endif

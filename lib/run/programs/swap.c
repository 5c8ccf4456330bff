/*
 * swap: make and enable swap on the job's devices (vm-scalability's swap
 * cases), after lkp-tests' programs/swap/setup; swap is turned off again
 * when the run ends.
 */
#include "../program.h"
#include "../run.h"

#include <string.h>

static const char *const swap_options[] = { "priority", "vma_swap_readahead", NULL };

static int swap_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	const char *prio = run_param(r, p, "priority");

	if (!r->npartitions) {
		strbuf_setf(err, "swap: no device for swap; the job needs disk: before swap:");
		return -1;
	}
	if (prio && strspn(prio, "-0123456789") != strlen(prio)) {
		strbuf_setf(err, "swap: priority '%s' is not a number", prio);
		return -1;
	}
	for (size_t i = 0; i < r->npartitions; i++) {
		char *dev = r->partitions[i];
		char *mk[] = { "mkswap", dev, NULL };
		char *on_prio[] = { "swapon", "-p", (char *)prio, dev, NULL };
		char *on[] = { "swapon", dev, NULL };
		int rc = run_cmd(r, mk, NULL, "stderr", NULL, err);
		if (!rc)
			rc = run_cmd(r, prio ? on_prio : on, NULL, "stderr", NULL, err);
		if (rc) {
			if (rc > 0)
				strbuf_setf(err, "swap: enabling swap on %s failed (exit %d); see 'stderr' in the result root",
					    dev, rc);
			return -1;
		}
		run_list_add(&r->swaps, &r->nswaps, dev);
	}
	return 0;
}

static const char *const swap_debs[] = { "util-linux", NULL };

const struct program program_swap = {
	.version = PROGRAM_VERSION,
	.name = "swap",
	.kind = PROGRAM_SETUP,
	.summary = "make and enable swap on the job's devices",
	.options = swap_options,
	.setup = swap_setup,
	.debs = swap_debs,
};

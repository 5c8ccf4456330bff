/*
 * machine: the description of a test box that job values are converted
 * against (nr_cpu for "50%", memory for memmap filters) and that fills the
 * result path when a job does not say (tbox_group, rootfs, kconfig,
 * compiler, commit). Either a hosts/<tbox_group> file in lkp-tests' format
 * or the machine we run on, detected from /proc, uname and os-release.
 */
#ifndef LKP_MACHINE_H
#define LKP_MACHINE_H

#include "../util/node.h"
#include "../util/strbuf.h"

#include <stdint.h>

struct machine {
	char *hostname;		/* testbox */
	char *tbox_group;
	int nr_cpu;
	int nr_node;
	uint64_t memory;	/* bytes */
	char *model;		/* CPU codename or model name */
	char *brand;		/* "Intel(R) Xeon(R) CPU E5-2695 v3 @ 2.30GHz" */
	char *arch;
	/* defaults for the result path of a local run, as lkp-tests' run-local */
	char *rootfs, *kconfig, *compiler, *commit;
	char *source;		/* "hosts/<name>" or "detected" */
};

/* Describe the machine we are running on. Never fails: unknowns stay empty. */
void machine_detect(struct machine *m);

/*
 * Load hosts/<name> from data_dir (name = a tbox_group or host name; the
 * tbox_group of a host name is tried too). Returns 0, 1 if there is no
 * such file, -1 with err set if it is malformed.
 */
int machine_load(struct machine *m, const char *data_dir, const char *name,
		 struct strbuf *err);

/*
 * The machine called `testbox`: its hosts/ file when there is one, else
 * this machine's description under that name; this machine when testbox
 * is NULL. Returns 0, or -1 with err set (a malformed host file).
 */
int machine_get(struct machine *m, const char *data_dir, const char *testbox,
		struct strbuf *err);

void machine_release(struct machine *m);

/* "56 threads Intel(R) ... with 256G memory", as reports describe a box. */
void machine_describe(const struct machine *m, struct strbuf *out);

/* lkp-tests' tbox_group of a host name: "lkp-hsw-ep6-2" -> "lkp-hsw-ep6". */
void machine_tbox_group(const char *hostname, struct strbuf *out);

#endif

/*
 * ssh_int: what the files of provider ssh share and nobody else may see
 * (provider.h is the public API): the provider's state.
 *   ssh.c        the provider: one box, or the boxes of a tbox_group
 *   ssh_group.c  a batch's runs on the boxes of a tbox_group at once
 */
#ifndef LKP_SSH_INT_H
#define LKP_SSH_INT_H

#include "box.h"
#include "provider.h"
#include "../lib/sys/machine.h"
#include "../lib/util/strbuf.h"

#include <limits.h>
#include <stddef.h>

struct provider {
	struct provider_config cfg;
	struct machine m;
	struct store *store;
	char *kconfig_name;
	struct provider_options *opts;	/* what it was opened with (reproduce.json) */
	const char *kconfig_arg;	/* --kconfig elsewhere (NULL: the default; reproduce.json) */
	char *built;		/* the commit the prepared kernel was built from (NULL: not built here) */
	/* one box (`box: NAME` names a box) */
	struct box box;
	char *kernel;		/* the prepared commit's bzImage (NULL: the box's own kernel) */
	char *given;		/* the kernel the options name */
	char *release;		/* ... its release: the result path's commit when the job names none */
	/* or the boxes of a tbox_group (`box: GROUP`): each run a child here, `run-commit` on one box */
	char *group;		/* its name (NULL: one box) */
	char **members;		/* its boxes, in the boxes file's order */
	size_t nmembers;
	char **gone;		/* why each box left the group's runs (NULL: it takes runs) */
	char *boxes;		/* the boxes file */
	char *spool;		/* <result_dir>/.ssh: job files, status files, the children's logs */
	char exe[PATH_MAX];	/* this lkprobot, which the children run */
};

/* How many runs the group can take now: its boxes in service that no other run holds (at least 1). */
size_t ssh_group_slots(struct provider *p);

/*
 * The batch's runs on the group's boxes, one child a box at a time
 * (provider_ops.run_batch). 0, or -1 with err set when no box of the group
 * can run them or a child cannot start.
 */
int ssh_group_run_batch(struct provider *p, struct provider_batch_item *items, size_t n, struct strbuf *err);

#endif

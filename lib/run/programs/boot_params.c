/*
 * boot_params: the kernel command-line parameters a job needs (bp_memmap:
 * 96G!18G -> memmap=96G!18G). As in lkp-tests, the setup only verifies:
 * the parameters are given when the kernel is booted (lkprobot qemu, or a
 * test box's boot configuration); a kernel booted without them fails the
 * job with the parameter that is missing.
 */
#include "../program.h"
#include "../run.h"

#include <stdio.h>
#include <string.h>

static const char *const boot_params_options[] = {
	"bp_memmap", "bp1_memmap", "bp2_memmap", "bp3_memmap", "bp4_memmap",
	"bp_disable_mtrr_trim", "bp_idle", "bp_maxcpus", "bp_intel_iommu", NULL,
};

static int boot_params_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	const struct node *bp = node_get(r->job, p->name);
	struct strbuf cmdline = STRBUF_INIT, want = STRBUF_INIT;
	int ret = 0;

	if (!bp || bp->type != NODE_MAP)
		return 0;
	if (strbuf_read_file(&cmdline, "/proc/cmdline")) {
		strbuf_setf(err, "boot_params: cannot read /proc/cmdline");
		return -1;
	}
	strbuf_rtrim(&cmdline);
	/* " name=value " must appear: pad so that the first and last match too */
	struct strbuf padded = STRBUF_INIT;
	strbuf_addf(&padded, " %s ", cmdline.buf);
	for (size_t i = 0; i < bp->n; i++) {
		const char *k = bp->keys[i], *v = node_str(bp->vals[i]);
		const char *name = strchr(k, '_');
		if (bp->vals[i]->comment || !name || !v)
			continue;
		strbuf_setf(&want, " %s=%s ", name + 1, v);
		if (!strstr(padded.buf, want.buf)) {
			strbuf_setf(err, "boot_params: the kernel was booted without %s=%s (%s); boot it with the job's boot parameters (lkprobot qemu does)",
				    name + 1, v, k);
			ret = -1;
			break;
		}
	}
	strbuf_release(&padded);
	strbuf_release(&cmdline);
	strbuf_release(&want);
	return ret;
}

const struct program program_boot_params = {
	.version = PROGRAM_VERSION,
	.name = "boot_params",
	.kind = PROGRAM_SETUP,
	.summary = "check that the kernel command line carries the job's boot parameters (memmap=... for legacy pmem)",
	.options = boot_params_options,
	.setup = boot_params_setup,
	.setup_unprivileged = true,
};

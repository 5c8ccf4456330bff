/*
 * transparent_hugepage: THP settings for mm benchmarks, written to
 * /sys/kernel/mm/transparent_hugepage; a kernel without THP is recorded
 * as such, not a failure.
 */
#include "../program.h"
#include "../run.h"

#include <unistd.h>

static const char *const transparent_hugepage_options[] = {
	"thp_enabled", "thp_defrag", "shmem_enabled", "enabled_64kB", "enabled_32kB",
	"enabled_16kB", NULL,
};

static int thp_setup(struct run *r, const struct program *p, struct strbuf *err)
{
	static const char *const map[][2] = {
		{ "thp_enabled", "/sys/kernel/mm/transparent_hugepage/enabled" },
		{ "thp_defrag", "/sys/kernel/mm/transparent_hugepage/defrag" },
		{ "shmem_enabled", "/sys/kernel/mm/transparent_hugepage/shmem_enabled" },
		{ "enabled_64kB", "/sys/kernel/mm/transparent_hugepage/hugepages-64kB/enabled" },
		{ "enabled_32kB", "/sys/kernel/mm/transparent_hugepage/hugepages-32kB/enabled" },
		{ "enabled_16kB", "/sys/kernel/mm/transparent_hugepage/hugepages-16kB/enabled" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const char *v = run_param(r, p, map[i][0]);
		if (!v)
			continue;
		if (access(map[i][1], W_OK)) {
			run_unavailable(r, map[i][0], "%s does not exist here (no THP?): not set", map[i][1]);
			continue;
		}
		if (run_write_sys(r, map[i][1], v, err))
			return -1;
	}
	return 0;
}

const struct program program_transparent_hugepage = {
	.version = PROGRAM_VERSION,
	.name = "transparent_hugepage",
	.kind = PROGRAM_SETUP,
	.summary = "set /sys/kernel/mm/transparent_hugepage knobs",
	.options = transparent_hugepage_options,
	.setup = thp_setup,
};

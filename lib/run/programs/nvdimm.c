/*
 * nvdimm: NVDIMM namespace configuration (ndctl).
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const nvdimm_options[] = {
	"mode", "nr_dev", "nr_part", "part_type", "ns_id", "ns_mode", NULL,
};

const struct program program_nvdimm = {
	.version = PROGRAM_VERSION,
	.name = "nvdimm",
	.kind = PROGRAM_SETUP,
	.summary = "configure NVDIMM namespaces with ndctl (fsdax, devdax, raw)",
	.options = nvdimm_options,
};

/*
 * fio: the fio-setup-basic job writer and the fio test.
 * Option names follow lkp-tests' program of the same name.
 */
#include "../program.h"

static const char *const fio_setup_basic_options[] = {
	"runtime", "rw", "bs", "ioengine", "iodepth", "direct",
	"offset_increment", "test_size", "nr_task", "fallocate",
	"time_based", "raw_disk", "invalidate", "nr_files", "filesize",
	"io_size", "file_service_type", "random_distribution",
	"numa_mem_policy", "numa_cpu_nodes", "pre_read", "rwmixread",
	"refill_buffers", "cpuload", "cpus_allowed_policy", "cpus_allowed",
	"donorname", "testfile", "buffered", "norandommap",
	"random_generator", "allrandrepeat", "group_reporting", "exitall",
	"ramp_time", "stonewall", NULL,
};

const struct program program_fio_setup_basic = {
	.version = PROGRAM_VERSION,
	.name = "fio-setup-basic",
	.kind = PROGRAM_SETUP,
	.summary = "write the fio job file (fio.task) from the job's parameters",
	.options = fio_setup_basic_options,
};

const struct program program_fio = {
	.version = PROGRAM_VERSION,
	.name = "fio",
	.kind = PROGRAM_TEST,
	.summary = "run fio on the job file written by fio-setup-basic",
};

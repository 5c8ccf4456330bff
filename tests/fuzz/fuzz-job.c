/*
 * Fuzz the job loader: the input is a job file (includes resolved against
 * the source tree's jobs/), loaded, merged with its defaults, expanded into
 * atomic jobs and each one validated and named, as split-job does. Seeds:
 * the shipped jobs/ files and tests/fuzz/regress/job (the alias bomb, deep
 * nesting, a NUL byte: each once a crash or a hang).
 */
#include "fuzzlib.h"
#include "../../lib/job/job.h"

#include <fcntl.h>

/* Each atomic job named; the first 1000 are enough (the cap of the expansion is tested elsewhere). */
static int named(const struct node *atomic, void *arg, struct strbuf *err)
{
	struct strbuf name = STRBUF_INIT;
	size_t *n = arg;

	(void)err;
	job_atomic_name(atomic, "fuzz", NULL, false, &name);
	strbuf_release(&name);
	return ++*n > 1000;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static char path[PATH_MAX];
	struct job_env env = { .data_dir = fuzz_src_dir(), .testbox = "fuzz-box" };
	struct jobfile jf;
	struct strbuf err = STRBUF_INIT;
	size_t n = 0;

	if (!*path)
		snprintf(path, sizeof(path), "%s/job.yaml", fuzz_scratch());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	close(fd);
	if (!job_load(&jf, path, &env, &err)) {
		job_expand(&jf, &env, named, &n, &err);
		job_release(&jf);
	}
	strbuf_release(&err);
	return 0;
}

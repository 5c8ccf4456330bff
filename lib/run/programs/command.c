/*
 * command: a generic benchmark — any program in a source tree. `build`
 * (optional) and `cmd` are argv lists split on whitespace, never a shell;
 * both run in the run's source tree (the bisected checkout; else the
 * current directory). cmd's stdout is the raw file `command`, whose
 * "key: value" lines (lkp-tests' parser protocol) become command.<key>.
 * A build that fails makes the test exit 125, as `git bisect run` reads a
 * commit that cannot be tested.
 */
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const command_options[] = { "build", "cmd", NULL };

/* Split on blanks into a NULL-terminated argv (freed with free(argv[0]), free(argv)). */
static char **split_words(const char *s)
{
	char *copy = xstrdup(s), **argv = xcalloc(strlen(s) / 2 + 2, sizeof(*argv));
	size_t n = 0;
	char *save = NULL;

	for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		argv[n++] = w;
	argv[n] = NULL;
	if (!n)
		free(copy);
	return argv;
}

static int command_exec(struct run *r, const char *words, const char *out_name, struct strbuf *err)
{
	char **argv = split_words(words);
	char *out_path = run_path(r, out_name), *log = run_path(r, "output");
	int out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int log_fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	int rc = -1;

	if (!argv[0])
		strbuf_setf(err, "an empty command");
	else if (out_fd < 0 || log_fd < 0)
		strbuf_setf(err, "cannot write '%s'", out_path);
	else {
		run_log_cmd(r, argv);
		rc = run_exec_in(r->src_dir, argv, out_fd, log_fd, err);
	}
	if (out_fd >= 0)
		close(out_fd);
	if (log_fd >= 0)
		close(log_fd);
	if (argv[0])
		free(argv[0]);
	free(argv);
	free(out_path);
	free(log);
	return rc;
}

static int command_run(struct run *r, const struct program *p)
{
	struct strbuf err = STRBUF_INIT;
	const char *build = run_param(r, p, "build"), *cmd = run_param(r, p, "cmd");
	int rc;

	if (!cmd) {
		fprintf(stderr, "command: the job gives no cmd to run\n");
		return 2;
	}
	if (build) {
		rc = command_exec(r, build, "command.build", &err);
		if (rc) {
			fprintf(stderr, "command: build '%s' failed (%s%d): the commit cannot be tested\n", build,
				rc < 0 ? err.buf : "exit ", rc < 0 ? 0 : rc);
			strbuf_release(&err);
			return 125;
		}
	}
	rc = command_exec(r, cmd, "command", &err);
	if (rc < 0)
		fprintf(stderr, "command: %s\n", err.buf);
	strbuf_release(&err);
	return rc < 0 ? 127 : rc == 125 ? 1 : rc;
}

static int command_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	char *copy = xstrndup(text, len);
	int ret = stats_add_lines(out, copy, err);

	free(copy);
	return ret;
}

const struct program program_command = {
	.version = PROGRAM_VERSION,
	.name = "command",
	.kind = PROGRAM_TEST,
	.summary = "any program: build, then run cmd in the source tree; its key: value lines are metrics",
	.options = command_options,
	.run = command_run,
	.parse = command_parse,
};

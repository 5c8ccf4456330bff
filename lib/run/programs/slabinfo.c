/*
 * slabinfo: the /proc/slabinfo monitor and its parser, after lkp-tests'
 * programs/slabinfo/{monitor,parse}.
 *
 * The monitor writes "time: <epoch>" and /proc/slabinfo (root only) every
 * `interval` seconds (default 1) and once more when stopped. The parser
 * reads version 2.1 of the file: after its "# name <active_objs> ..."
 * header, for each cache `<cache>.active_objs`, `.num_objs`,
 * `.active_slabs` and `.num_slabs` (slabinfo.kmalloc-64.num_objs, ...),
 * each a mean over the run.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const slabinfo_options[] = {
	"interval",
	NULL,
};

/* The header's columns lkp-tests keeps: "<active_objs>" -> "active_objs". */
static bool slabinfo_kept(const char *col)
{
	static const char *const kept[] = { "<active_objs>", "<num_objs>", "<active_slabs>", "<num_slabs>", NULL };

	for (const char *const *k = kept; *k; k++)
		if (!strcmp(col, *k))
			return true;
	return false;
}

struct slabinfo_state {
	char **cols; /* the header's columns after "# name" */
	size_t ncols;
	struct strbuf key;
};

static int slabinfo_header(struct slabinfo_state *st, char **w, size_t n)
{
	for (size_t i = 0; i < st->ncols; i++)
		free(st->cols[i]);
	free(st->cols);
	st->ncols = n - 2;
	st->cols = xcalloc(st->ncols + 1, sizeof(*st->cols));
	for (size_t i = 0; i < st->ncols; i++)
		st->cols[i] = xstrdup(w[i + 2]);
	return 0;
}

static int slabinfo_cache(struct slabinfo_state *st, char **w, size_t n, size_t lineno, struct stats_samples *out,
			  struct strbuf *err)
{
	if (!st->cols) {
		strbuf_setf(err, "slabinfo: line %zu: '%s' before the '# name' header line", lineno, w[0]);
		return -1;
	}
	if (n - 1 != st->ncols) {
		strbuf_setf(err, "slabinfo: line %zu: cache %s has %zu fields, the header %zu", lineno, w[0], n - 1,
			    st->ncols);
		return -1;
	}
	for (size_t i = 0; i < st->ncols; i++) {
		if (!slabinfo_kept(st->cols[i]))
			continue;
		size_t clen = strlen(st->cols[i]);
		strbuf_setf(&st->key, "%s.%.*s", w[0], (int)(clen - 2), st->cols[i] + 1);
		if (stats_add_text(out, st->key.buf, w[i + 1], err)) {
			strbuf_setf(err, "slabinfo: line %zu: %s: '%s' is not a number", lineno, st->key.buf, w[i + 1]);
			return -1;
		}
	}
	return 0;
}

static int slabinfo_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct slabinfo_state st = { .key = STRBUF_INIT };
	struct strbuf line = STRBUF_INIT;
	char **w = NULL;
	size_t walloc = 0, lineno = 0;
	int ret = -1, rc;

	if (memchr(text, '\0', len)) {
		strbuf_setf(err, "slabinfo: the file has NUL bytes; not /proc/slabinfo text");
		return -1;
	}
	const char *p = text, *end = text + len;

	while ((rc = monitor_snapshot_line(&p, end, &lineno, &line, "slabinfo", out, err)) > 0) {
		if (rc == 2)
			continue;
		if (strstr(line.buf, "slabinfo - version:")) {
			if (!strstr(line.buf, "2.1")) {
				strbuf_setf(err, "slabinfo: line %zu: '%s': only version 2.1 is known", lineno,
					    line.buf);
				goto out;
			}
			continue;
		}
		size_t n = monitor_words(line.buf, &w, &walloc);
		if (!n)
			continue;
		if (n >= 2 && !strcmp(w[0], "#") && !strcmp(w[1], "name")) {
			slabinfo_header(&st, w, n);
			continue;
		}
		if (slabinfo_cache(&st, w, n, lineno, out, err))
			goto out;
	}
	if (rc < 0)
		goto out;
	ret = 0;
out:
	for (size_t i = 0; i < st.ncols; i++)
		free(st.cols[i]);
	free(st.cols);
	free(w);
	strbuf_release(&st.key);
	strbuf_release(&line);
	return ret;
}

static int slabinfo_monitor(struct run *r, const struct program *p, int out_fd)
{
	return monitor_proc_file(r, p, "/proc/slabinfo", 1, 0, out_fd);
}

const struct program program_slabinfo = {
	.version = PROGRAM_VERSION,
	.name = "slabinfo",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/slabinfo every second (root): objects and slabs of each cache",
	.options = slabinfo_options,
	.monitor = slabinfo_monitor,
	.parse = slabinfo_parse,
};

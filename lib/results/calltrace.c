/*
 * calltrace: a dmesg.* row's call trace from the runs' kernel logs (see
 * calltrace.h).
 */
#include "calltrace.h"
#include "../run/programs/programs.h"
#include "matrix.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool calltrace_new_oops(const struct compare_row *r, size_t last)
{
	const char *id = r->metric + 6;

	return r->kind == COMPARE_FAILURE && !strncmp(r->metric, "dmesg.", 6) && strcmp(id, "boot_failures") &&
	       strncmp(id, "timestamp:", 10) && r->side[last].fails > 0 && !r->side[0].fails;
}

/*
 * The run directory of the first run whose value of `metric` is not 0: its
 * stats_source (a matrix.json's: the run's stats.json; a side made in
 * memory: the run directory); else the group's run. NULL: unknown.
 */
static char *run_with(const struct group *g, const char *metric)
{
	const struct matrix *m = g->matrix;
	const struct matrix_col *col = m ? matrix_get(m, metric) : NULL;

	for (size_t i = 0; col && m->has_source && i < col->n && i < m->nsource; i++) {
		const char *path = m->source[i];
		size_t n = path ? strlen(path) : 0;

		if (!path || !isfinite(col->v[i]) || col->v[i] == 0)
			continue;
		if (n > 11 && !strcmp(path + n - 11, "/stats.json"))
			n -= 11;
		return xstrndup(path, n);
	}
	return g->run_dir ? xstrdup(g->run_dir) : NULL;
}

char *calltrace_of(const struct group *g, const char *metric)
{
	static const char *const logs[] = { "dmesg", "kmsg" };
	char *dir = g && !strncmp(metric, "dmesg.", 6) ? run_with(g, metric) : NULL, *found = NULL;

	for (size_t i = 0; dir && i < 2 && !found; i++) {
		struct strbuf text = STRBUF_INIT;
		char *path = xasprintf("%s/%s", dir, logs[i]);
		struct klog_trace *t;
		size_t n;

		if (!strbuf_read_file(&text, path)) {
			n = klog_calltraces(text.buf, text.len, &t);
			const struct klog_trace *hit = klog_trace_of(t, n, metric + 6);
			if (hit) { /* the console's bytes as a mail may carry them: UTF-8, \xNN for the rest */
				struct strbuf clean = STRBUF_INIT;
				strbuf_add_lines(&clean, hit->text.buf, hit->text.len);
				found = strbuf_detach(&clean);
			}
			klog_traces_release(t, n);
		}
		strbuf_release(&text);
		free(path);
	}
	free(dir);
	return found;
}

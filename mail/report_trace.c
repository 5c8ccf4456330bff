/*
 * report_trace: the call traces a report quotes under its table — of each
 * oops or WARNING (a dmesg.* row) the commit's runs have and the base's do
 * not, the first trace of that signature in a run's kernel log.
 */
#include "report_int.h"
#include "reportjob.h"
#include "../lib/results/calltrace.h"

#include <stdlib.h>
#include <string.h>

void reportjob_traces(struct reportjob *rj, const struct compare_result *cmp, const struct group *g)
{
	size_t last = cmp->nsides - 1, n = 0;

	for (size_t i = 0; g && i < cmp->nrows && n < REPORT_MAX_TRACES; i++) {
		const struct compare_row *r = &cmp->rows[i];
		char *text;

		if (!calltrace_new_oops(r, last) || !(text = calltrace_of(g, r->metric)))
			continue;
		for (size_t j = 0; text && j < n; j++)
			if (!strcmp(rj->traces[j].text, text)) { /* one trace gives several rows (WARNING:, RIP:) */
				free(text);
				text = NULL;
			}
		if (!text)
			continue;
		rj->traces = xrealloc(rj->traces, (n + 1) * sizeof(*rj->traces));
		rj->traces[n++] = (struct report_trace){ xstrdup(r->metric), text };
	}
	rj->in.traces = rj->traces;
	rj->in.ntraces = n;
}

void reportjob_traces_release(struct reportjob *rj)
{
	for (size_t i = 0; i < rj->in.ntraces; i++) {
		free((char *)rj->traces[i].metric);
		free((char *)rj->traces[i].text);
	}
	free(rj->traces);
}

void report_traces(struct strbuf *out, const struct report_input *in)
{
	for (size_t i = 0; i < in->ntraces; i++) {
		strbuf_addstr(out, "\n\n");
		strbuf_addstr(out, in->traces[i].text);
		if (out->len && out->buf[out->len - 1] == '\n')
			strbuf_setlen(out, out->len - 1);
	}
}

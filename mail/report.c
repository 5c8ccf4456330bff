/*
 * report: the text of an LKP report, in the layout of the 2017–2020 robot
 * mails (../shared/examples) with today's tags (Reported-by, Closes, for a
 * regression) and a reply in the patch's thread, plus what those lack:
 * how sure the robot is (report_sure.c), steps that reproduce the change
 * when pasted (report_repro.c) and, for runs under QEMU's TCG, that the
 * numbers are no benchmark. One figure for the headline's change
 * throughout — the decision's estimate, in the subject, the greeting, the
 * table and "how sure". mime makes the message of it.
 */
#include "report_int.h"
#include "mime.h"
#include "../lib/job/job.h"
#include "../lib/results/plot.h"
#include "../lib/run/program.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const struct compare_row *report_headline(const struct compare_result *cmp, const char *metric)
{
	if (!metric)
		return compare_headline(cmp, true);
	for (size_t i = 0; i < cmp->nrows; i++) {
		const struct compare_row *r = &cmp->rows[i];
		if (!strcmp(r->metric, metric))
			return r->kind == COMPARE_PERF && r->decision.verdict == DECIDE_CHANGED && r->verdict &&
					       isfinite(r->decision.change)
				       ? r
				       : NULL;
	}
	return NULL;
}

void report_nothing(const struct compare_result *cmp, const char *metric, struct strbuf *err)
{
	const char *b = cmp->labels[0], *c = cmp->labels[cmp->nsides - 1];

	for (size_t i = 0; metric && i < cmp->nrows; i++) {
		const struct compare_row *r = &cmp->rows[i];
		if (strcmp(r->metric, metric))
			continue;
		if (r->kind != COMPARE_PERF || !*r->decision.why)
			strbuf_setf(err, "%s from %s to %s is no measurement to decide on: nothing to report", metric, b, c);
		else if (r->decision.verdict == DECIDE_CHANGED && !r->verdict)
			strbuf_setf(err,
				    "%s from %s to %s changed (%s), but which way is better is not known (not in "
				    "lkp-tests' index files nor the program's table; a job says it: metric_direction: "
				    "{%s: higher or lower}): nothing to report as a regression or improvement",
				    metric, b, c, r->decision.summary, metric);
		else
			strbuf_setf(err, "%s from %s to %s: %s: %s: nothing to report", metric, b, c,
				    decide_verdict_name(r->decision.verdict), r->decision.why);
		return;
	}
	if (metric)
		strbuf_setf(err, "%s is not a metric of the runs of %s and %s: nothing to report", metric, b, c);
	else
		strbuf_setf(err, "no metric with a direction changed between %s and %s: nothing to report", b, c);
}

void report_machine(const struct node *job, struct strbuf *out)
{
	/* what the run saw where it ran (its facts), else what the host file says */
	const struct node *facts = node_get(job, "facts");
	const char *cpus = node_str(node_get(facts, "nr_threads")), *brand = node_str(node_get(facts, "cpu"));
	const char *mem = node_str(node_get(facts, "memory"));
	const char *model = node_str(node_get(job, "model")), *box = node_str(node_get(job, "testbox"));

	if (!cpus)
		cpus = node_str(node_get(job, "nr_cpu"));
	if (!brand)
		brand = node_str(node_get(job, "brand"));
	if (!mem)
		mem = node_str(node_get(job, "memory"));
	if (cpus)
		strbuf_addf(out, "%s threads ", cpus);
	strbuf_addstr(out, brand ? brand : model ? model : box ? box : "an unnamed machine");
	if (mem)
		strbuf_addf(out, " with %s memory", mem);
}

/* The headline's change and what it is: "-20.5% regression", the decision's. */
static void change_text(struct strbuf *out, const struct compare_row *r)
{
	compare_format_decision(out, &r->decision);
	strbuf_addf(out, " %s", compare_kind_word(r));
}

/* The test program of a job: its PROGRAM_TEST key. */
static const struct program *job_test(const struct node *job)
{
	for (size_t i = 0; job && job->type == NODE_MAP && i < job->n; i++) {
		const struct program *p = program_find(job->keys[i]);
		if (!job->vals[i]->comment && p && p->kind == PROGRAM_TEST)
			return p;
	}
	return NULL;
}

static void params_lines(struct strbuf *out, const struct node *params)
{
	for (size_t i = 0; params && i < params->n; i++)
		strbuf_addf(out, "\t%s: %s\n", params->keys[i], node_str(params->vals[i]) ? node_str(params->vals[i]) : "");
}

/* The "In addition to that" box: two columns framed with + - | */
static void others_table(struct strbuf *out, const struct report_other *o, size_t n)
{
	struct strbuf cell = STRBUF_INIT;
	size_t w = 0;

	/* the right column is as wide as its widest cell */
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&cell);
		strbuf_addf(&cell, "%s: %s ", o[i].testcase, o[i].row->metric);
		change_text(&cell, o[i].row);
		if (cell.len > w)
			w = cell.len;
		if (o[i].machine && strlen(o[i].machine) > w)
			w = strlen(o[i].machine);
		for (size_t k = 0; o[i].params && k < o[i].params->n; k++) {
			size_t len = strlen(o[i].params->keys[k]) + 1 +
				     strlen(node_str(o[i].params->vals[k]) ? node_str(o[i].params->vals[k]) : "");
			if (len > w)
				w = len;
		}
	}
	struct strbuf border = STRBUF_INIT;
	strbuf_addstr(&border, "+------------------+");
	for (size_t i = 0; i < w + 2; i++)
		strbuf_addch(&border, '-');
	strbuf_addstr(&border, "+\n");
	strbuf_addstr(out, border.buf);
	for (size_t i = 0; i < n; i++) {
		strbuf_reset(&cell);
		strbuf_addf(&cell, "%s: %s ", o[i].testcase, o[i].row->metric);
		change_text(&cell, o[i].row);
		strbuf_addf(out, "| testcase: change | %-*s |\n", (int)w, cell.buf);
		strbuf_addf(out, "| test machine     | %-*s |\n", (int)w, o[i].machine ? o[i].machine : "");
		/* one key=value a line, sorted */
		size_t np = o[i].params ? o[i].params->n : 0;
		char **kv = xcalloc(np ? np : 1, sizeof(*kv));
		for (size_t k = 0; k < np; k++)
			kv[k] = xasprintf("%s=%s", o[i].params->keys[k],
					  node_str(o[i].params->vals[k]) ? node_str(o[i].params->vals[k]) : "");
		for (size_t a = 0; a < np; a++)
			for (size_t b = a + 1; b < np; b++)
				if (strcmp(kv[a], kv[b]) > 0) {
					char *t = kv[a];
					kv[a] = kv[b];
					kv[b] = t;
				}
		for (size_t k = 0; k < np; k++) {
			strbuf_addf(out, "| %-16s | %-*s |\n", k ? "" : "test parameters", (int)w, kv[k]);
			free(kv[k]);
		}
		free(kv);
		strbuf_addstr(out, border.buf);
	}
	strbuf_release(&border);
	strbuf_release(&cell);
}

/* Text from a commit made safe for one line: control characters become spaces. */
static char *one_line(const char *s, size_t max)
{
	struct strbuf sb = STRBUF_INIT;

	for (; s && *s && sb.len < max; s++)
		strbuf_addch(&sb, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
	return strbuf_detach(&sb);
}

/*
 * lkp-tests' report order of the table: the failure stats (fail:runs)
 * first, as compare has them, then the headline, the test's other
 * metrics, the test's time.*, then the monitors' — each group in
 * compare's order. report_order() returns the rows copied by value (the
 * caller frees the array; the rows' contents stay cmp's).
 */
static int report_rank(const struct compare_row *r, const struct compare_row *h)
{
	if (r->kind == COMPARE_FAILURE)
		return 0;
	if (r == h)
		return 1;
	if (compare_is_test_metric(r->metric))
		return strstr(r->metric, ".time.") ? 3 : 2;
	return 4;
}

static struct compare_row *report_order(const struct compare_result *cmp, const struct compare_row *h)
{
	struct compare_row *rows = xcalloc(cmp->nrows ? cmp->nrows : 1, sizeof(*rows));
	size_t n = 0;

	for (int rank = 0; rank <= 4; rank++)
		for (size_t i = 0; i < cmp->nrows; i++)
			if (report_rank(&cmp->rows[i], h) == rank)
				rows[n++] = cmp->rows[i];
	return rows;
}

/*
 * Which changed rows get a plot: the test's own metrics and time, and
 * the monitors the example reports plot (perf-stat, turbostat, vmstat);
 * the headline always.
 */
static bool report_plots(const struct compare_row *r, bool headline)
{
	static const char *const monitors[] = { "perf-stat.", "turbostat.", "vmstat." };

	if (headline)
		return true;
	if (!r->changed || r->kind != COMPARE_PERF)
		return false;
	if (compare_is_test_metric(r->metric))
		return true;
	for (size_t i = 0; i < sizeof(monitors) / sizeof(*monitors); i++)
		if (!strncmp(r->metric, monitors[i], strlen(monitors[i])))
			return true;
	return false;
}

/* The report's Message-ID: the same commit, job and metric on the same date give the same id. */
static void report_message_id(const struct report_input *in, const struct compare_row *h, struct strbuf *id)
{
	struct strbuf seed = STRBUF_INIT;

	strbuf_addf(&seed, "%s %s %s", in->commit, in->test_desc ? in->test_desc : "", h->metric);
	mime_message_id(id, in->date, seed.buf, in->domain ? in->domain : "localhost");
	strbuf_release(&seed);
}

/* A Message-ID's characters (RFC 5322 dot-atom text, and the @): nothing a URL could smuggle into a header. */
static bool msgid_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("!#$%&'*+/=?^_`{|}~.@-", c));
}

char *report_link_message_id(const char *msg)
{
	char *found = NULL;

	for (const char *l = msg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		size_t len = strcspn(l, "\n");
		if (len < 6 || strncasecmp(l, "Link:", 5))
			continue;
		const char *u = l + 5;
		while (*u == ' ' || *u == '\t')
			u++;
		const char *end = l + len;
		while (end > u && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r' || end[-1] == '/'))
			end--;
		const char *id = end;
		while (id > u && id[-1] != '/')
			id--;
		if (id == u || id == end || !memchr(id, '@', (size_t)(end - id)) || *id == '@' || end[-1] == '@')
			continue;
		bool ok = true;
		for (const char *c = id; c < end && ok; c++)
			ok = msgid_char(*c);
		if (!ok)
			continue;
		free(found);
		found = xasprintf("<%.*s>", (int)(end - id), id);
	}
	return found;
}

/* The head: what changed and which commit did it, the test, its machine and parameters. */
static void body_head(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	struct node *params = node_new(NODE_MAP);

	strbuf_addstr(out, "Greeting,\n\nFYI, we noticed a ");
	change_text(out, h);
	strbuf_addf(out, " of %s due to commit:\n\n\n", h->metric);
	strbuf_addf(out, "commit: %s", in->commit);
	if (in->commit_subject) {
		char *subj = one_line(in->commit_subject, 500);
		strbuf_addf(out, " (\"%s\")", subj);
		free(subj);
	}
	strbuf_addch(out, '\n');
	/* a URL after "url:" (the 2017 and 2020 mails' branch pages), a tree and its branch as they are */
	if (in->url)
		strbuf_addf(out, "%s%s\n", strchr(in->url, ' ') ? "" : "url: ", in->url);
	if (in->base_line) {
		char *b = one_line(in->base_line, 500);
		strbuf_addf(out, "%s\n", b);
		free(b);
	}
	strbuf_addstr(out, "\n\n");
	const char *testcase = node_str(node_get(in->job, "testcase"));
	strbuf_addf(out, "in testcase: %s\non test machine: ", testcase ? testcase : "?");
	report_machine(in->job, out);
	strbuf_addstr(out, "\nwith following parameters:\n\n");
	job_params(in->job, NULL, params);
	params_lines(out, params);
	strbuf_addch(out, '\n');
	const struct program *t = job_test(in->job);
	if (t && t->description)
		strbuf_addf(out, "test-description: %s\n", t->description);
	if (t && t->url)
		strbuf_addf(out, "test-url: %s\n", t->url);
	strbuf_addstr(out, "\n");
	node_free(params);
}

/*
 * The tags today's 0-day mails give the fix of a regression to carry:
 * Reported-by, and Closes (this mail's id after a URL's /). An
 * improvement asks for none.
 */
static void body_tags(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	strbuf_addf(out,
		    "If you fix the issue in a separate patch/commit (i.e. not just a new version of\n"
		    "the same patch/commit), kindly add following tags\n"
		    "| Reported-by: %s\n",
		    in->from);
	if (in->closes) {
		size_t n = strlen(in->closes);
		strbuf_addf(out, "| Closes: %s", in->closes);
		if (n && in->closes[n - 1] == '/') {
			struct strbuf id = STRBUF_INIT;
			report_message_id(in, h, &id);
			strbuf_add(out, id.buf + 1, id.len - 2); /* without its <> */
			strbuf_release(&id);
		}
		strbuf_addch(out, '\n');
	}
	strbuf_addch(out, '\n');
}

/* Before the details: the operator's note (wrapped), how sure we are (short lines), a TCG run's warning. */
static void body_summary(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	if (in->note) {
		char *note = one_line(in->note, 2000);
		report_wrap(out, note);
		strbuf_addch(out, '\n');
		free(note);
	}
	report_sure(out, in, h);
	if (in->checks) {
		/* the culprit's checks, as they were made: each its line, a table as it is */
		strbuf_addch(out, '\n');
		strbuf_addstr(out, in->checks);
	}
	const struct node *facts = node_get(in->job, "facts");
	const char *accel = node_str(node_get(facts, "accel"));
	if (accel && !strncmp(accel, "tcg", 3))
		report_wrap(out,
			    "\nNote: these runs were made in QEMU with TCG, an emulated CPU: the numbers are a "
			    "functional check, not a performance figure.");
}

/*
 * The lead row's footnote, when it needs one: the row is there though
 * lkp-tests' rule does not select it, or the means printed in it differ
 * from the decision's change (the paired estimate of a drifting machine,
 * a ratio of logarithms): the two figures labelled. Empty: no footnote.
 */
static void lead_note(struct strbuf *out, const struct compare_row *h, size_t last)
{
	struct strbuf ours = STRBUF_INIT, means = STRBUF_INIT;

	compare_format_decision(&ours, &h->decision);
	if (h->absolute)
		strbuf_addf(&means, "%+.2f (a difference)", h->change[last]);
	else
		strbuf_addf(&means, "%.1f%%", h->change[last]);
	bool differ = h->absolute || strcmp(ours.buf, means.buf);
	if (differ || !h->changed) {
		strbuf_addf(out, "[1] %s, the headline: its change, %s, is lkprobot's decision", h->metric, ours.buf);
		if (differ)
			strbuf_addf(out, "; the means of its runs shown here differ by %s (lkp-tests' change)",
				    means.buf);
		if (!h->changed)
			strbuf_addf(out, "; lkp-tests' rule alone would not show the row: %s", h->why);
		strbuf_addch(out, '.');
	}
	strbuf_release(&ours);
	strbuf_release(&means);
}

/*
 * The table and the plots in the report's order: the headline leads both,
 * selected by lkp-tests' rule or not, with the decision's change (marked
 * and explained below the table when that needs saying).
 */
static void body_details(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	struct compare_result view = *in->cmp;
	struct compare_row *rows = report_order(in->cmp, h);
	const struct compare_row *lead = NULL;
	size_t nplots = 0, last = view.nsides - 1;
	struct strbuf note = STRBUF_INIT;

	view.rows = rows;
	for (size_t i = 0; i < view.nrows && !lead; i++)
		if (!strcmp(rows[i].metric, h->metric))
			lead = &rows[i];
	lead_note(&note, h, last);
	compare_render_classic_lead(out, &view, in->test_desc, lead, note.len ? "[1]" : NULL);
	if (note.len) {
		strbuf_addch(out, '\n');
		report_wrap(out, note.buf);
	}
	for (size_t i = 0; i < view.nrows; i++) {
		const struct compare_row *r = &rows[i];
		if (!report_plots(r, r == lead))
			continue;
		strbuf_addstr(out, "\n");
		plot_samples(out, r->metric, r->side[0].v, r->side[0].n, r->side[last].v, r->side[last].n);
		nplots++;
	}
	free(rows);
	strbuf_release(&note);
	if (nplots) {
		strbuf_addstr(out, "\n\n");
		plot_legend(out);
	}
}

int report_body(const struct report_input *in, struct strbuf *out, struct strbuf *err)
{
	const struct compare_result *cmp = in->cmp;
	const struct compare_row *h = report_headline(cmp, in->metric);

	if (!h) {
		report_nothing(cmp, in->metric, err);
		return 1;
	}
	body_head(out, in, h);
	if (in->nothers) {
		strbuf_addstr(
			out, "In addition to that, the commit also has significant impact on the following tests:\n\n");
		others_table(out, in->others, in->nothers);
		strbuf_addstr(out, "\n");
	}
	/* a layout effect is no regression of the commit's: no tags asked for */
	if (in->from && h->verdict < 0 && !in->layout_effect)
		body_tags(out, in, h);
	body_summary(out, in, h);
	strbuf_addstr(out, "\n\nDetails are as below:\n");
	for (int i = 0; i < 98; i++)
		strbuf_addch(out, '-');
	strbuf_addstr(out, ">\n\n\n");
	report_reproduce(out, in, h);
	body_details(out, in, h);
	report_traces(out, in);
	strbuf_addstr(out, "\n\nDisclaimer:\n"
			   "Results have been estimated from the runs named above and are provided\n"
			   "for informational purposes only. Any difference in system hardware or software\n"
			   "design or configuration may affect actual performance.\n\n\n");
	strbuf_addf(out, "Thanks,\n%s\n", in->signature ? in->signature : "lkprobot");
	return 0;
}

int report_render(const struct report_input *in, struct strbuf *out, struct strbuf *err)
{
	struct strbuf body = STRBUF_INIT, subject = STRBUF_INIT, id = STRBUF_INIT;
	const struct compare_row *h = report_headline(in->cmp, in->metric);
	struct mime_attachment att[3];
	size_t natt = 0;
	int ret = -1;

	if ((ret = report_body(in, &body, err)))
		goto out;
	ret = -1;
	/* [<the commit subject's prefix>] <sha10>: <metric> <change> <verdict> */
	char *csubj = in->commit_subject ? one_line(in->commit_subject, 200) : NULL;
	const char *colon = csubj ? strstr(csubj, ": ") : NULL;
	if (colon)
		strbuf_addf(&subject, "[%.*s] ", (int)(colon - csubj), csubj);
	else
		strbuf_addstr(&subject, "[lkprobot] ");
	free(csubj);
	strbuf_addf(&subject, "%.10s: %s ", in->commit, h->metric);
	change_text(&subject, h);
	report_message_id(in, h, &id);
	if (in->job_yaml)
		att[natt++] = (struct mime_attachment){ "job.yaml", "text/plain", in->job_yaml, strlen(in->job_yaml) };
	if (in->reproduce)
		att[natt++] = (struct mime_attachment){ "reproduce", "text/plain", in->reproduce, strlen(in->reproduce) };
	if (in->kconfig)
		att[natt++] = (struct mime_attachment){ in->kconfig_name ? in->kconfig_name : "config", "text/plain",
							 in->kconfig, strlen(in->kconfig) };
	size_t nxh = 2 + in->nextra;
	char **xh = xcalloc(nxh, sizeof(*xh));
	xh[0] = xasprintf("X-lkprobot-Commit: %s", in->commit);
	xh[1] = xasprintf("X-lkprobot-Verdict: %s %s", compare_kind_word(h), h->metric);
	for (size_t i = 0; i < in->nextra; i++)
		xh[2 + i] = xstrdup(in->extra_headers[i]);
	if (in->message_id_out)
		strbuf_addstr(in->message_id_out, id.buf);
	struct mime_message m = {
		.from = in->from,
		.to = in->to,
		.nto = in->nto,
		.cc = in->cc,
		.ncc = in->ncc,
		.subject = subject.buf,
		.date = in->date,
		.message_id = id.buf,
		.in_reply_to = in->in_reply_to,
		.references = in->references,
		.extra_headers = (const char *const *)xh,
		.nextra = nxh,
		.body = body.buf,
		.att = att,
		.natt = natt,
		.lf = in->lf,
	};
	ret = mime_render(&m, out, err);
	for (size_t i = 0; i < nxh; i++)
		free(xh[i]);
	free(xh);
out:
	strbuf_release(&body);
	strbuf_release(&subject);
	strbuf_release(&id);
	return ret;
}

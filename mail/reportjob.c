/*
 * reportjob: a report's pieces from result roots, the store and the tree
 * (see reportjob.h). Reading is forgiving where a report can go without a
 * piece (an unreadable job.yaml of another job, a malformed
 * reproduce.json: a warning) and strict where the user named the input.
 */
#include "reportjob.h"
#include "report_int.h"
#include "recipients.h"
#include "mailread.h"
#include "../lib/results/result.h"
#include "../lib/results/sides.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/kernel/git.h"
#include "../lib/job/job.h"
#include "../lib/store/store.h"
#include "../lib/util/json.h"
#include "../lib/util/yml.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <unistd.h>

static char *read_text(const char *path)
{
	struct strbuf sb = STRBUF_INIT;

	if (!path || strbuf_read_file(&sb, path)) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

/* A file of a run directory (NULL: the group has none), newly allocated. */
static char *run_file(const struct group *g, const char *name)
{
	return g && g->run_dir ? xasprintf("%s/%s", g->run_dir, name) : NULL;
}

static void warn(struct reportjob *rj, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct reportjob *rj, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	rj->warnings = xrealloc(rj->warnings, (rj->nwarnings + 1) * sizeof(*rj->warnings));
	rj->warnings[rj->nwarnings++] = strbuf_detach(&sb);
}

/* A run's job.yaml as a map; NULL: none, or not a map (a list says nothing about the job). */
static struct node *run_job(const struct group *g, struct strbuf *err)
{
	char *path = run_file(g, "job.yaml"), *text = read_text(path);
	struct node *job = text ? yml_load_one(text, path, err) : NULL;

	if (job && job->type != NODE_MAP) {
		node_free(job);
		job = NULL;
	}
	free(text);
	free(path);
	return job;
}

/* Compare one job of both sides: the command line's floors first (they win), then the job's own. */
static int compare_group(struct reportjob *rj, const struct reportjob_opts *o, const struct group *bg,
			 const struct group *hit, struct compare_result *res, struct strbuf *err)
{
	const struct matrix *mats[2] = { bg->matrix, hit->matrix };
	const char *labels[2] = { rj->sides[0].label, rj->sides[1].label };
	const struct group *grs[2] = { bg, hit };
	const uint64_t *rounds[2];
	size_t nrounds[2], ours = o->floors->n;
	struct strbuf e2 = STRBUF_INIT;
	struct node *gj = run_job(hit, &e2);

	if (gj && compare_floors_add_job(o->floors, gj, &e2))
		warn(rj, "%s/job.yaml: %s; its floors and directions are ignored", hit->run_dir, e2.buf);
	node_free(gj);
	strbuf_release(&e2);
	sides_rounds(grs, 2, rounds, nrounds);
	struct compare_opts co = { .floors = o->floors, .rounds = rounds, .nrounds = nrounds };
	int cr = compare_tables(mats, labels, 2, &co, res, err);
	compare_floors_truncate(o->floors, ours);
	return cr;
}

/* Why nothing is worth a report: the decision's reason, of the job that has the metric (the first, else). */
static void nothing(const struct reportjob *rj, const char *metric, struct strbuf *err)
{
	size_t why = 0;

	for (size_t i = 0; metric && i < rj->nres && !why; i++)
		for (size_t k = 0; k < rj->res[i].nrows && !why; k++)
			if (!strcmp(rj->res[i].rows[k].metric, metric))
				why = i + 1;
	report_nothing(&rj->res[why ? why - 1 : 0], metric, err);
}

/*
 * Every job both sides ran, compared (bgs/ngs: its base and commit groups);
 * the one whose headline moved most leads. 0 with *lead set; 1 nothing to
 * report; -1 err.
 */
static int compare_all(struct reportjob *rj, const struct reportjob_opts *o, const struct group **bgs,
		       const struct group **ngs, size_t *lead, struct strbuf *err)
{
	const struct side *b = &rj->sides[0];
	ssize_t best = -1;

	rj->res = xcalloc(b->ng ? b->ng : 1, sizeof(*rj->res));
	for (size_t gi = 0; gi < b->ng; gi++) {
		const struct group *hit = side_match(&rj->sides[1], b, &b->g[gi]);
		if (!hit)
			continue;
		if (compare_group(rj, o, &b->g[gi], hit, &rj->res[rj->nres], err))
			return -1;
		bgs[rj->nres] = &b->g[gi];
		ngs[rj->nres] = hit;
		const struct compare_row *h = report_headline(&rj->res[rj->nres], o->metric);
		if (h && (best < 0 ||
			  fabs(h->decision.change) > fabs(report_headline(&rj->res[best], o->metric)->decision.change)))
			best = (ssize_t)rj->nres;
		rj->nres++;
	}
	if (!rj->nres) {
		strbuf_setf(err, "%s and %s share no job: nothing to compare", b->label, rj->sides[1].label);
		return -1;
	}
	if (best < 0) {
		nothing(rj, o->metric, err);
		return 1;
	}
	*lead = (size_t)best;
	return 0;
}

/* The highest 1-minute load average a group's runs recorded (each run's job.yaml loadavg); 0: none. */
static double group_load(const struct group *g)
{
	double most = 0;

	for (size_t i = 0; i < g->matrix->nsource; i++) {
		/* a run's stats.json, or its directory (the store's) */
		const char *st = g->matrix->source[i];
		size_t len = st ? strlen(st) : 0, tail = strlen("/stats.json");
		if (len > tail && !strcmp(st + len - tail, "/stats.json"))
			len -= tail;
		char *path = st ? xasprintf("%.*s/job.yaml", (int)len, st) : NULL, line[256];
		FILE *f = path ? fopen(path, "r") : NULL;
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "loadavg:", 8)) {
				const char *v = line + 8 + strspn(line + 8, " \t\"'");
				double l = strtod(v, NULL);
				most = l > most ? l : most;
				break;
			}
		if (f)
			fclose(f);
		free(path);
	}
	return most;
}

/* The other jobs that changed ("In addition to that"). */
static void other_jobs(struct reportjob *rj, const struct reportjob_opts *o, const struct group **bgs,
		       const struct group **ngs, size_t lead)
{
	rj->others = xcalloc(rj->nres, sizeof(*rj->others));
	rj->params = xcalloc(rj->nres, sizeof(*rj->params));
	rj->machines = xcalloc(rj->nres, sizeof(*rj->machines));
	for (size_t i = 0; i < rj->nres; i++) {
		const struct compare_row *h = report_headline(&rj->res[i], o->metric);
		if (i == lead || !h)
			continue;
		struct strbuf e2 = STRBUF_INIT, m = STRBUF_INIT;
		struct node *oj = run_job(ngs[i], &e2);
		rj->params[i] = node_new(NODE_MAP);
		if (oj) {
			job_params(oj, NULL, rj->params[i]);
			report_machine(oj, &m);
			rj->machines[i] = strbuf_detach(&m);
		}
		const char *tc = oj ? node_str(node_get(oj, "testcase")) : NULL;
		rj->others[rj->in.nothers++] = (struct report_other){
			tc ? xstrdup(tc) : xstrndup(bgs[i]->desc, strcspn(bgs[i]->desc, "/")), h, rj->machines[i],
			rj->params[i] };
		node_free(oj);
		strbuf_release(&e2);
		strbuf_release(&m);
	}
}

/* The kernel's release as the run's kernel log gives it ("Linux version <release> (...") ; NULL: unknown. */
static char *run_release(const struct group *g)
{
	char *path = run_file(g, "dmesg"), *log = read_text(path), *rel = NULL;
	const char *v = log ? strstr(log, "Linux version ") : NULL;

	if (v) {
		v += strlen("Linux version ");
		size_t n = strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-");
		if (n && n <= 64 && (v[n] == ' ' || v[n] == '\n'))
			rel = xstrndup(v, n);
	}
	free(log);
	free(path);
	return rel;
}

/*
 * The kernel config: --kconfig's, else the one the run kept
 * (kernel.config), named as 0-day names it: config-<release> (the run's
 * kernel log), else config-<the job's kconfig>, else config-kernel.
 */
static int kernel_config(struct reportjob *rj, const struct reportjob_opts *o, const struct group *g,
			 struct strbuf *err)
{
	char *path = o->kconfig ? NULL : run_file(g, "kernel.config");

	rj->config = read_text(o->kconfig ? o->kconfig : path);
	free(path);
	if (!rj->config && o->kconfig) {
		strbuf_setf(err, "--kconfig %s: cannot read it", o->kconfig);
		return -1;
	}
	if (rj->config) {
		char *rel = run_release(g);
		const char *name = rel ? rel : node_str(node_get(rj->job, "kconfig"));
		rj->config_name = xasprintf("config-%s", name ? name : "kernel");
		free(rel);
	}
	return 0;
}

/* The command the run recorded (reproduce.json: {"argv": [...]}); none, or a warning when it is malformed. */
static void recorded_command(struct reportjob *rj, const struct group *g)
{
	char *path = run_file(g, "reproduce.json"), *text = read_text(path);
	struct strbuf e2 = STRBUF_INIT;
	const struct node *argv = NULL;

	if (text && (rj->command_json = json_parse(text, strlen(text), path, &e2)))
		argv = node_get(rj->command_json, "argv");
	bool ok = argv && argv->type == NODE_SEQ && argv->n;
	for (size_t i = 0; ok && i < argv->n; i++)
		ok = argv->vals[i]->type == NODE_SCALAR && argv->vals[i]->quoted && *node_str(argv->vals[i]);
	if (text && !ok)
		warn(rj, "%s: %s; To reproduce names the command made up from the job instead", path,
		     e2.len ? e2.buf : "not {\"argv\": [\"lkprobot\", ...]} (non-empty strings)");
	if (ok) {
		rj->command = xcalloc(argv->n, sizeof(*rj->command));
		for (size_t i = 0; i < argv->n; i++)
			rj->command[i] = node_str(argv->vals[i]);
		rj->in.command = rj->command;
		rj->in.ncommand = argv->n;
	}
	strbuf_release(&e2);
	free(text);
	free(path);
}

/* Is line (of a job.yaml) a top-level key the run added (result_run_keys)? */
static bool run_key_line(const char *line)
{
	for (const char *const *k = result_run_keys; *k; k++) {
		size_t n = strlen(*k);
		if (!strncmp(line, *k, n) && line[n] == ':')
			return true;
	}
	return false;
}

/*
 * The job to attach: the run's job.yaml without what the run added (its
 * state, times, load, facts, interleave tag...), every other line as it
 * is (comments too): the atomic job as it was split, which a reader runs
 * again as it is (To reproduce).
 */
static char *atomic_text(const char *text)
{
	struct strbuf out = STRBUF_INIT;
	bool skipping = false;

	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		/* a run key's value goes on over its indented lines */
		if (run_key_line(l))
			skipping = true;
		else if (*l != ' ' && *l != '\t' && *l != '-')
			skipping = false;
		if (!skipping)
			strbuf_add(&out, l, len + (l[len] == '\n'));
		l += len + (l[len] == '\n');
	}
	return strbuf_detach(&out);
}

/* The lead run's job (parsed, and the text to attach), reproduce.sh, command and kernel config. */
static int lead_run(struct reportjob *rj, const struct reportjob_opts *o, const struct group *g, struct strbuf *err)
{
	char *jp = run_file(g, "job.yaml"), *text = read_text(jp);

	rj->job_text = o->jobfile ? read_text(o->jobfile) : NULL;
	if (text && !(rj->job = yml_load_one(text, jp, err))) {
		free(text);
		free(jp);
		return -1;
	}
	if (!o->jobfile && text)
		rj->job_text = atomic_text(text);
	free(text);
	free(jp);
	if (rj->job && rj->job->type != NODE_MAP) {
		node_free(rj->job);
		rj->job = NULL;
	}
	if (!rj->job)
		rj->job = node_new(NODE_MAP);
	char *rp = run_file(g, "reproduce.sh");
	rj->repro = read_text(rp);
	free(rp);
	recorded_command(rj, g);
	return kernel_config(rj, o, g, err);
}

static bool is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return false;
	return true;
}

char *reportjob_fixes(const char *msg, size_t nth)
{
	for (const char *l = msg; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncasecmp(l, "Fixes:", 6))
			continue;
		const char *s = l + 6;
		s += strspn(s, " \t");
		size_t n = strspn(s, "0123456789abcdefABCDEF");
		if (n < 7 || n > 40 || !is_hex(s, n) || (s[n] && !strchr(" \t\r\n", s[n])) || nth--)
			continue;
		char *id = xstrndup(s, n);
		for (char *c = id; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		return id;
	}
	return NULL;
}

/*
 * A fix's report in the thread of the first report of the commit it fixes
 * (a Fixes: trailer; the store's outbox, when there is a store; a live
 * mail only to a report that was not a dry run's): it
 * replies to that report, References its thread. A store that cannot be
 * read is a warning: the mail goes out unthreaded.
 */
static void fixes_thread(struct reportjob *rj, const struct reportjob_opts *o, const char *msg)
{
	char *db = store_default_path(o->db, o->result_dir);
	char *fixed = reportjob_fixes(msg, 0), *id = NULL, *headers = NULL;
	struct strbuf err = STRBUF_INIT;
	struct store *s = NULL;

	if (!fixed || access(db, F_OK))
		goto out;
	if (!(s = store_open(db, &err))) {
		warn(rj, "%s; the report does not reply to the first report of %s", err.buf, fixed);
		goto out;
	}
	for (size_t i = 1; fixed; i++) {
		int r = store_outbox_of_commit(s, fixed, o->live, &id, &headers, &err);
		if (r < 0)
			warn(rj, "%s; the report does not reply to the first report of %s", err.buf, fixed);
		if (r)
			break;
		free(fixed);
		fixed = reportjob_fixes(msg, i);
	}
	if (id) {
		char *refs = mailread_header(headers, strlen(headers), "References");
		if (!refs)
			refs = mailread_header(headers, strlen(headers), "In-Reply-To");
		rj->references = refs ? xasprintf("%s %s", refs, id) : NULL;
		free(rj->reply_to);	/* the first report's thread, not the fix's patch: see README */
		rj->reply_to = id;
		id = NULL;
		free(refs);
	}
out:
	if (s)
		store_close(s);
	free(id);
	free(headers);
	free(fixed);
	free(db);
	strbuf_release(&err);
}

/* The commit as the tree has it: full id, subject, author (To: unless the user named recipients), thread. */
static int commit_info(struct reportjob *rj, const struct reportjob_opts *o, struct strbuf *err)
{
	struct gitrepo *repo;
	struct gitrepo_commit gc;

	if (gitrepo_open(&repo, o->tree, err))
		return -1;
	if (gitrepo_commit_info(repo, rj->sides[1].label, &gc, err)) {
		gitrepo_close(repo);
		return -1;
	}
	rj->full = xstrdup(gc.id);
	struct gitrepo_commit bc;
	struct strbuf e2 = STRBUF_INIT;
	if (!gitrepo_commit_info(repo, rj->sides[0].label, &bc, &e2)) {
		rj->base_full = xstrdup(bc.id);
		gitrepo_commit_release(&bc);
	}
	strbuf_release(&e2);
	rj->subject = xstrdup(gc.subject);
	rj->reply_to = report_link_message_id(gc.message);
	char *raw = xasprintf("%s <%s>", gc.author_name, gc.author_email);
	rj->author = recipients_normalize(raw);	/* never a control character in a header */
	free(raw);
	fixes_thread(rj, o, gc.message);
	if (o->thread) {
		free(rj->reply_to);
		free(rj->references);
		rj->reply_to = xstrdup(o->thread);
		rj->references = NULL; /* the thread's first message: In-Reply-To alone */
	}
	gitrepo_commit_release(&gc);
	gitrepo_close(repo);
	return 0;
}

int reportjob_assemble(struct reportjob *rj, const struct reportjob_opts *o, struct strbuf *err)
{
	char *args[2] = { (char *)o->base, (char *)o->commit };
	const struct group **bgs = NULL, **ngs = NULL;
	size_t lead = 0;
	int ret = -1;

	memset(rj, 0, sizeof(*rj));
	if (lkpetc_load(err) || sides_load(args, 2, o->db, o->result_dir, &rj->sides, err))
		return -1;
	bgs = xcalloc(rj->sides[0].ng ? rj->sides[0].ng : 1, sizeof(*bgs));
	ngs = xcalloc(rj->sides[0].ng ? rj->sides[0].ng : 1, sizeof(*ngs));
	if ((ret = compare_all(rj, o, bgs, ngs, &lead, err)))
		goto out;
	ret = -1;
	if (lead_run(rj, o, ngs[lead], err))
		goto out;
	other_jobs(rj, o, bgs, ngs, lead);
	reportjob_traces(rj, &rj->res[lead], ngs[lead]);
	if (o->tree && commit_info(rj, o, err))
		goto out;
	rj->to = xcalloc(o->nto + 1, sizeof(*rj->to));
	for (size_t i = 0; i < o->nto; i++)
		rj->to[i] = o->to[i];
	rj->in.nto = o->nto;
	if (!o->nto && rj->author)
		rj->to[rj->in.nto++] = rj->author;
	rj->in.cmp = &rj->res[lead];
	rj->in.metric = o->metric;
	rj->in.job = rj->job;
	rj->in.test_desc = bgs[lead]->desc;
	rj->in.commit = rj->full ? rj->full : rj->sides[1].label;
	rj->in.base_commit = rj->base_full ? rj->base_full : rj->sides[0].label;
	rj->in.load_max = fmax(group_load(bgs[lead]), group_load(ngs[lead]));
	rj->in.commit_subject = rj->subject;
	rj->in.in_reply_to = rj->reply_to;
	rj->in.references = rj->references;
	rj->in.others = rj->others;
	rj->in.to = rj->to;
	rj->in.cc = o->cc;
	rj->in.ncc = o->ncc;
	rj->in.job_yaml = rj->job_text;
	rj->in.reproduce = rj->repro;
	rj->in.kconfig = rj->config;
	rj->in.kconfig_name = rj->config_name;
	ret = 0;
out:
	free(bgs);
	free(ngs);
	return ret;
}

void reportjob_release(struct reportjob *rj)
{
	for (size_t i = 0; i < rj->in.nothers; i++)
		free((char *)rj->others[i].testcase);
	free(rj->others);
	reportjob_traces_release(rj);
	for (size_t i = 0; rj->params && i < rj->nres; i++) {
		node_free(rj->params[i]);
		free(rj->machines[i]);
	}
	free(rj->params);
	free(rj->machines);
	for (size_t i = 0; rj->res && i < rj->nres; i++)
		compare_result_release(&rj->res[i]);
	free(rj->res);
	sides_release(rj->sides, 2);
	for (size_t i = 0; i < rj->nwarnings; i++)
		free(rj->warnings[i]);
	free(rj->warnings);
	node_free(rj->job);
	node_free(rj->command_json);
	free(rj->command);
	free(rj->to);
	free(rj->job_text);
	free(rj->repro);
	free(rj->config);
	free(rj->config_name);
	free(rj->full);
	free(rj->base_full);
	free(rj->subject);
	free(rj->author);
	free(rj->reply_to);
	free(rj->references);
	memset(rj, 0, sizeof(*rj));
}

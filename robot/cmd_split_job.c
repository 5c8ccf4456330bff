/*
 * lkprobot split-job: expand job files into atomic job files, named and
 * laid out as lkp-tests' split-job does. Every atomic job of a run is
 * expanded, validated and rendered in memory first; files are written only
 * when all of them were valid, so bad input leaves nothing half-written.
 * (Writing straight to the final names rather than through a hidden
 * directory and rename() halves the directory operations, which dominate
 * the time for 10,000 jobs.)
 */
#include "cmd.h"
#include "opt.h"
#include "../lib/sys/fsutil.h"
#include "../lib/job/job.h"
#include "../lib/sys/machine.h"
#include "../lib/util/sset.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_head[] =
	"usage: lkprobot split-job [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Expand each job file into atomic jobs (one value per expandable key) and\n"
	"write them as <outdir>/<job>-<path_params>.yaml, as lkp-tests' split-job.\n"
	"\n";
static const char usage_tail[] =
	"\n"
	"exit codes: 0 written, 1 cannot write the output, 2 bad job file or usage\n";

struct pending {
	char *name;
	char *origin;		/* the job file it came from */
	size_t off, len;	/* its YAML in split.arena */
};

struct split {
	struct jobopts *jo;
	char *base;		/* the current job file's name without .yaml */
	const char *jobfile;
	bool old_order;
	bool dry_run;
	struct sset names;
	struct pending *v;
	size_t n, alloc;
	struct strbuf arena;	/* every atomic job's YAML, back to back */
};

static int one_atomic(const struct node *atomic, void *arg, struct strbuf *err)
{
	struct split *sp = arg;
	struct strbuf name = STRBUF_INIT;
	int ret = -1;

	if (sp->jobfile != sp->jo->current) {
		/* a new job file: its atomic jobs are named after it */
		const char *file = sp->jo->current, *slash = strrchr(file, '/');
		size_t blen;

		free(sp->base);
		sp->base = xstrdup(slash ? slash + 1 : file);
		blen = strlen(sp->base);
		if (blen > 5 && !strcmp(sp->base + blen - 5, ".yaml"))
			sp->base[blen - 5] = '\0';
		sp->jobfile = file;
	}
	job_atomic_name(atomic, sp->base, sp->jo->lkp, sp->old_order, &name);
	if (strchr(name.buf, '/')) {
		/* only commit values reach the name unfiltered, as in lkp-tests */
		strbuf_setf(err, "%s: atomic job name '%s' would contain '/'; commit values must be plain ids",
			    sp->jobfile, name.buf);
		goto out;
	}
	if (name.len > 255) {
		strbuf_setf(err, "%s: atomic job name is %zu characters, more than a file name may have (255): %.60s...; shorten values or use fewer options",
			    sp->jobfile, name.len, name.buf);
		goto out;
	}
	bool again = !sset_add(&sp->names, name.buf);
	size_t off = sp->arena.len;
	if (!sp->dry_run) {
		strbuf_addstr(&sp->arena, "---\n");
		yml_emit(&sp->arena, atomic);
	}
	if (again) {
		/* lkp-tests writes both to the same file: the later one wins */
		say_warn(
			"%s: two atomic jobs are named '%s'; the later one is kept (vary a key that is part of "
			"path_params to keep both)",
			sp->jobfile, name.buf);
		for (size_t i = 0; i < sp->n; i++)
			if (!strcmp(sp->v[i].name, name.buf)) {
				sp->v[i].off = off;
				sp->v[i].len = sp->arena.len - off;
			}
		ret = 0;
		goto out;
	}
	ALLOC_GROW(sp->v, sp->n + 1, sp->alloc);
	sp->v[sp->n].name = strbuf_detach(&name);
	sp->v[sp->n].origin = xstrdup(sp->jobfile);
	sp->v[sp->n].off = off;
	sp->v[sp->n].len = sp->arena.len - off;
	sp->n++;
	ret = 0;
out:
	strbuf_release(&name);
	return ret;
}

/* -c, -k: set key o->key of the overrides of o->dst, a struct jobopts */
static int set_key(const struct opt *o, const char *value, struct strbuf *err)
{
	(void)err;
	node_set(((struct jobopts *)o->dst)->overrides, o->key, node_new_scalar(value));
	return 0;
}

int cmd_split_job(int argc, char **argv, struct lkp_ctx *ctx)
{
	struct jobopts jo;
	struct split sp = { .jo = &jo };
	const char *outdir = ".";
	const struct opt table[] = {
		OPT_STRING('o', "output", "DIR", "directory for the atomic jobs (default: .; created)", &outdir),
		JOBOPTS_ROWS(&jo,
			     "test box to add as testbox/tbox_group (default: this host);\n"
			     "hosts/<tbox_group> is merged when it exists"),
		{ .kind = OPTK_CALL,
		  .shrt = 'c',
		  .name = "kconfig",
		  .arg = "NAME",
		  .help = "set kconfig",
		  .fn = set_key,
		  .key = "kconfig",
		  .dst = &jo },
		{ .kind = OPTK_CALL,
		  .shrt = 'k',
		  .name = "commit",
		  .arg = "SHA",
		  .help = "set commit",
		  .fn = set_key,
		  .key = "commit",
		  .dst = &jo },
		OPT_BOOL(0, "compatible",
			 "refine a scheduled (\"dirty\") job file first, as lkp-tests':\n"
			 "keep only its job files' own sections (#! jobs/x.yaml),\n"
			 "not those of includes, hosts and overrides",
			 &jo.refine),
		OPT_BOOL(0, "old-order",
			 "name files with the pre-2019 path_params order\n(order of appearance instead of sorted)",
			 &jo.old_order),
		OPT_BOOL('n', "dry-run", "print the atomic job names, write nothing", &sp.dry_run),
		OPT_END(),
	};
	struct job_env env;
	struct strbuf err = STRBUF_INIT;
	struct machine local = { 0 };
	int ret;

	jobopts_init(&jo);
	strbuf_init(&sp.arena, 1 << 16);
	if ((ret = opt_parse(ctx->cmd, argc, argv, table, usage_head, usage_tail, false)) != OPT_GO)
		goto out;
	ret = EXIT_USAGE;
	if (jobopts_args(&jo, argc, argv, ctx->cmd, &err))
		goto usage_err;
	if (!jo.testbox) {
		machine_detect(&local);
		jo.testbox = local.hostname;
	}
	sp.old_order = jo.old_order;

	if (!sp.dry_run && fsutil_mkdir_p(outdir)) {
		say_error(EXIT_USAGE, "%s: cannot create the output directory: %s", outdir, strerror(errno));
		goto out;
	}
	jobopts_env(&jo, ctx->data_dir, &env);
	if (jobopts_expand(&jo, &env, one_atomic, &sp, &err))
		goto usage_err;

	/* everything is valid: write the atomic jobs */
	ret = EXIT_OK;
	for (size_t i = 0; i < sp.n; i++) {
		if (sp.dry_run) {
			printf("%s\n", sp.v[i].name);
			continue;
		}
		struct strbuf to = STRBUF_INIT;
		strbuf_addf(&to, "%s/%s", outdir, sp.v[i].name);
		if (fsutil_write(to.buf, sp.arena.buf + sp.v[i].off, sp.v[i].len)) {
			ret = say_error(EXIT_FAIL, "cannot write '%s': %s (%zu of %zu atomic jobs written)", to.buf,
					strerror(errno), i, sp.n);
			strbuf_release(&to);
			break;
		}
		printf("%s => %s\n", sp.v[i].origin, to.buf);
		strbuf_release(&to);
	}
	goto out;

usage_err:
	ret = say_error(EXIT_USAGE, "%s", err.buf);
out:
	for (size_t i = 0; i < sp.n; i++) {
		free(sp.v[i].name);
		free(sp.v[i].origin);
	}
	free(sp.v);
	free(sp.base);
	sset_release(&sp.names);
	strbuf_release(&sp.arena);
	strbuf_release(&err);
	machine_release(&local);
	jobopts_release(&jo);
	return ret;
}

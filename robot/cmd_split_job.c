/*
 * lkprobot split-job: expand job files into atomic job files, named and
 * laid out as lkp-tests' split-job does. All atomic jobs of a run are
 * written into a hidden directory inside -o first and moved into place
 * only when every one of them was valid, so bad input leaves nothing
 * half-written.
 */
#include "cmd.h"
#include "../lib/job.h"
#include "../lib/machine.h"
#include "../lib/sset.h"
#include "../lib/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: lkprobot split-job [options] JOB.yaml... [key=value...]\n"
	"\n"
	"Expand each job file into atomic jobs (one value per expandable key) and\n"
	"write them as <outdir>/<job>-<path_params>.yaml, as lkp-tests' split-job.\n"
	"\n"
	"  -o, --output DIR       directory for the atomic jobs (default: .; created)\n"
	"  -t, --testbox NAME     test box to add as testbox/tbox_group (default: this host);\n"
	"                         hosts/<tbox_group> is merged when it exists\n"
	"  -s, --set 'KEY: VALUE' override a key (also KEY=VALUE arguments)\n"
	"  -c, --kconfig NAME     set kconfig\n"
	"  -k, --commit SHA       set commit\n"
	"      --no-defaults      do not merge jobs/include defaults nor the host file\n"
	"      --compatible       name files with the pre-2019 path_params order\n"
	"                         (order of appearance instead of sorted)\n"
	"  -n, --dry-run          print the atomic job names, write nothing\n"
	"  -h, --help             this help\n"
	"\n"
	"exit codes: 0 written, 1 cannot write the output, 2 bad job file or usage\n";

struct pending {
	char *name;
	char *origin;		/* the job file it came from */
};

struct split {
	const char *tmpdir;
	const char *base;
	const char *jobfile;
	bool compatible;
	bool dry_run;
	struct sset names;
	struct pending *v;
	size_t n, alloc;
	struct strbuf yaml;
};

static int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	return close(fd);
}

static int one_atomic(const struct node *atomic, void *arg, struct strbuf *err)
{
	struct split *sp = arg;
	struct strbuf name = STRBUF_INIT;
	int ret = -1;

	job_atomic_name(atomic, sp->base, sp->compatible, &name);
	if (name.len > 255) {
		strbuf_setf(err, "%s: atomic job name is %zu characters, more than a file name may have (255): %.60s...; shorten values or use fewer options",
			    sp->jobfile, name.len, name.buf);
		goto out;
	}
	bool again = !sset_add(&sp->names, name.buf);
	if (again)
		/* lkp-tests writes both to the same file: the later one wins */
		cmd_warn("%s: two atomic jobs are named '%s'; the later one is kept (vary a key that is part of path_params to keep both)",
			 sp->jobfile, name.buf);
	if (!sp->dry_run) {
		struct strbuf path = STRBUF_INIT;
		strbuf_reset(&sp->yaml);
		strbuf_addstr(&sp->yaml, "---\n");
		yml_emit(&sp->yaml, atomic);
		strbuf_addf(&path, "%s/%s", sp->tmpdir, name.buf);
		if (write_file(path.buf, sp->yaml.buf, sp->yaml.len)) {
			strbuf_setf(err, "cannot write '%s': %s", path.buf, strerror(errno));
			strbuf_release(&path);
			goto out;
		}
		strbuf_release(&path);
	}
	if (again) {
		ret = 0;
		goto out;
	}
	ALLOC_GROW(sp->v, sp->n + 1, sp->alloc);
	sp->v[sp->n].name = strbuf_detach(&name);
	sp->v[sp->n].origin = xstrdup(sp->jobfile);
	sp->n++;
	ret = 0;
out:
	strbuf_release(&name);
	return ret;
}

static void warn_line(const char *msg)
{
	cmd_warn("%s", msg);
}

static void remove_tmp(const char *tmpdir, struct split *sp)
{
	struct strbuf p = STRBUF_INIT;

	for (size_t i = 0; i < sp->n; i++) {
		strbuf_setf(&p, "%s/%s", tmpdir, sp->v[i].name);
		unlink(p.buf);
	}
	rmdir(tmpdir);
	strbuf_release(&p);
}

static int mkdir_p(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&p, dir);
	for (size_t i = 1; i <= p.len; i++) {
		if (p.buf[i] != '/' && p.buf[i] != '\0')
			continue;
		char c = p.buf[i];
		p.buf[i] = '\0';
		if (mkdir(p.buf, 0755) && errno != EEXIST)
			ret = -1;
		p.buf[i] = c;
		if (ret)
			break;
	}
	strbuf_release(&p);
	return ret;
}

int cmd_split_job(int argc, char **argv, struct lkp_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "testbox", required_argument, NULL, 't' },
		{ "set", required_argument, NULL, 's' },
		{ "kconfig", required_argument, NULL, 'c' },
		{ "commit", required_argument, NULL, 'k' },
		{ "no-defaults", no_argument, NULL, 'D' },
		{ "compatible", no_argument, NULL, 'C' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct jobopts jo;
	struct split sp = { 0 };
	struct strbuf err = STRBUF_INIT, tmp = STRBUF_INIT;
	struct machine local = { 0 };
	const char *outdir = ".";
	int ret = EXIT_USAGE, c;

	jobopts_init(&jo);
	strbuf_init(&sp.yaml, 4096);
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:t:s:c:k:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': outdir = optarg; break;
		case 't': jo.testbox = optarg; break;
		case 's':
			if (jobopts_set(&jo, optarg, &err))
				goto usage_err;
			break;
		case 'c':
			node_set(jo.overrides, "kconfig", node_new_scalar(optarg));
			break;
		case 'k':
			node_set(jo.overrides, "commit", node_new_scalar(optarg));
			break;
		case 'D': jo.no_defaults = true; break;
		case 'C': jo.compatible = true; break;
		case 'n': sp.dry_run = true; break;
		case 'h':
			fputs(usage_text, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			fputs(usage_text, stderr);
			goto out;
		}
	}
	for (int i = optind; i < argc; i++)
		if (jobopts_arg(&jo, argv[i], &err))
			goto usage_err;
	if (!jo.nfiles) {
		cmd_error(EXIT_USAGE, "split-job needs a job file; 'lkprobot split-job --help' shows how");
		goto out;
	}
	if (!jo.testbox) {
		machine_detect(&local);
		jo.testbox = local.hostname;
	}
	sp.compatible = jo.compatible;

	if (!sp.dry_run) {
		if (mkdir_p(outdir)) {
			cmd_error(EXIT_USAGE, "%s: cannot create the output directory: %s", outdir, strerror(errno));
			goto out;
		}
		strbuf_addf(&tmp, "%s/.split-job.XXXXXX", outdir);
		if (!mkdtemp(tmp.buf)) {
			cmd_error(EXIT_FAIL, "%s: cannot write there: %s", outdir, strerror(errno));
			ret = EXIT_FAIL;
			goto out;
		}
		sp.tmpdir = tmp.buf;
	}

	struct job_env env = {
		.data_dir = ctx->data_dir,
		.no_defaults = jo.no_defaults,
		.overrides = jo.overrides,
		.testbox = jo.testbox,
		.compatible = jo.compatible,
		.warn = warn_line,
	};
	for (size_t f = 0; f < jo.nfiles; f++) {
		struct jobfile jf;
		const char *file = jo.files[f], *slash = strrchr(file, '/');
		size_t blen;
		char *base;

		if (job_load(&jf, file, &env, &err))
			goto job_err;
		base = xstrdup(slash ? slash + 1 : file);
		blen = strlen(base);
		if (blen > 5 && !strcmp(base + blen - 5, ".yaml"))
			base[blen - 5] = '\0';
		sp.base = base;
		sp.jobfile = file;
		int r = job_expand(&jf, &env, one_atomic, &sp, &err);
		free(base);
		job_release(&jf);
		if (r)
			goto job_err;
	}

	/* everything is valid: move the atomic jobs into place */
	ret = EXIT_OK;
	for (size_t i = 0; i < sp.n; i++) {
		if (!sp.dry_run) {
			struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;
			strbuf_addf(&from, "%s/%s", sp.tmpdir, sp.v[i].name);
			strbuf_addf(&to, "%s/%s", outdir, sp.v[i].name);
			if (rename(from.buf, to.buf)) {
				ret = cmd_error(EXIT_FAIL, "cannot move '%s' to '%s': %s", from.buf, to.buf,
						strerror(errno));
				strbuf_release(&from);
				strbuf_release(&to);
				break;
			}
			printf("%s => %s\n", sp.v[i].origin, to.buf);
			strbuf_release(&from);
			strbuf_release(&to);
		} else {
			printf("%s\n", sp.v[i].name);
		}
	}
	goto out;

job_err:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
	goto out;
usage_err:
	ret = cmd_error(EXIT_USAGE, "%s", err.buf);
out:
	if (sp.tmpdir)
		remove_tmp(sp.tmpdir, &sp);
	for (size_t i = 0; i < sp.n; i++) {
		free(sp.v[i].name);
		free(sp.v[i].origin);
	}
	free(sp.v);
	sset_release(&sp.names);
	strbuf_release(&sp.yaml);
	strbuf_release(&tmp);
	strbuf_release(&err);
	machine_release(&local);
	jobopts_release(&jo);
	return ret;
}

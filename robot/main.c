/*
 * lkprobot: the command table and the process-wide set-up (where the data
 * directory is, program table check). Each command lives in cmd_<name>.c.
 */
#include "cmd.h"
#include "opt.h"
#include "../flow/serve.h"
#include "../lib/run/program.h"
#include "../mail/mailconf.h"
#include "../providers/box.h"
#include "../providers/provider.h"
#include "../lib/stats/lkpetc.h"
#include "../lib/util/nearest.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LKPROBOT_VERSION
#define LKPROBOT_VERSION "0.1.0"
#endif
#ifndef LKPROBOT_DATADIR
#define LKPROBOT_DATADIR "/usr/local/share/lkprobot"
#endif

/* What a command touches besides its arguments (said in the help's list of commands). */
#define CMD_STORE 0x1  /* reads or writes the store (lkprobot.db: --db, else in the result root) */
#define CMD_CONFIG 0x2 /* reads lkprobot's configuration file (-c/--config, else $LKPROBOT_CONFIG) */

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv, struct lkp_ctx *ctx);
	unsigned flags;		/* CMD_* */
	const char *summary;	/* NULL: internal, not listed */
};

static const struct cmd commands[] = {
	{ "bisect", cmd_bisect, CMD_STORE, "find the first commit of a performance change (noise-aware, resumable)" },
	{ "box", cmd_box, CMD_STORE,
	  "real test boxes over ssh: list, enable, install, run jobs (kexec into a kernel)" },
	{ "box-init", cmd_box_init, 0, NULL },
	{ "build", cmd_build, 0, "build a kernel from a git commit into the kernel cache (or find it there)" },
	{ "check-config", cmd_serve, CMD_CONFIG, "check the service's configuration file (serve: and mail: sections)" },
	{ "compare", cmd_compare, CMD_STORE,
	  "compare the runs of commits metric by metric, as lkp ncompare (or the classic layout, JSON)" },
	{ "guest", cmd_guest, 0, NULL },
	{ "help", cmd_help, 0, "show the commands, one command's help, or the configuration's keys (config)" },
	{ "install", cmd_install, 0, "install the Debian packages a job needs; say what cannot be installed" },
	{ "job-path", cmd_job_path, 0, "print the result path of each atomic job of a job file" },
	{ "outbox", cmd_outbox, CMD_STORE | CMD_CONFIG, "list, show, retry and deliver the queued report mails" },
	{ "programs", cmd_programs, 0, "list the programs (setups, tests, monitors) and their options" },
	{ "qemu", cmd_qemu, CMD_STORE, "boot a kernel in QEMU with emulated NVDIMMs and run jobs in it" },
	{ "qemu-box", cmd_qemu_box, 0, "boot a QEMU guest that stands in for a pmem test box (ssh, kexec, NVDIMMs)" },
	{ "recipients", cmd_recipients, CMD_CONFIG,
	  "who a report on a commit goes to, and why (trailers, MAINTAINERS, lists)" },
	{ "report", cmd_report, CMD_STORE | CMD_CONFIG,
	  "render the LKP-style report mail of a change between two commits" },
	{ "run", cmd_run, CMD_STORE, "run jobs on this machine into LKP result roots (setups, monitors, test, stats)" },
	{ "run-commit", cmd_run_commit, CMD_STORE, NULL },
	{ "series", cmd_series, 0,
	  "the patch series of a public-inbox archive, their state; apply them as git am would (--apply)" },
	{ "serve", cmd_serve, CMD_STORE | CMD_CONFIG,
	  "the service: watch git trees, test new heads, bisect changes, mail reports" },
	{ "show-job", cmd_show_job, 0, "print a job fully merged (includes, defaults, overrides) as YAML" },
	{ "split-job", cmd_split_job, 0, "expand a job file into atomic jobs, named as lkp-tests names them" },
	{ "stats", cmd_stats, CMD_STORE, "re-extract a run's stats from its raw files; rebuild the store (--reindex)" },
	{ "status", cmd_serve, CMD_STORE | CMD_CONFIG, "the heads the service has seen and where each stands" },
};

static bool has_jobs(const char *dir)
{
	struct stat st;
	char *p = xasprintf("%s/jobs", dir);
	bool ok = !stat(p, &st) && S_ISDIR(st.st_mode);
	free(p);
	return ok;
}

/* $LKPROBOT_DATA, else next to the binary (a source tree), else the install. */
static char *find_data_dir(void)
{
	const char *env = getenv("LKPROBOT_DATA");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env)
		return xstrdup(env);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			/* the binary sits at the top of a source tree, or in build/<kind>/ */
			const char *up[] = { "%s", "%s/..", "%s/../..", "%s/../share/lkprobot" };
			for (size_t i = 0; i < ARRAY_SIZE(up); i++) {
				struct strbuf d = STRBUF_INIT;
				strbuf_addf(&d, up[i], exe);
				char *real = realpath(d.buf, NULL);
				strbuf_release(&d);
				if (real && has_jobs(real))
					return real;
				free(real);
			}
		}
	}
	return xstrdup(LKPROBOT_DATADIR);
}

/* A word that is no command: the listed one it is nearest to, when it is close (a typo). */
static int not_a_command(const char *word)
{
	const char *names[ARRAY_SIZE(commands)];

	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		names[i] = commands[i].summary ? commands[i].name : NULL;
	/* one edit in a short word, two in a longer one: "bisec", "sevre"; not "run" for "rm" */
	const char *near = nearest_word(word, names, ARRAY_SIZE(commands), strlen(word) > 4 ? 2 : 1);
	if (near)
		return say_error(EXIT_USAGE, "'%s' is not a command; did you mean %s? ('lkprobot help' lists them)",
				 word, near);
	return say_error(EXIT_USAGE, "'%s' is not a command; 'lkprobot help' lists them", word);
}

/* The help's head: how to call it and the commands (the options follow, then usage_tail). */
static void usage_head(struct strbuf *out)
{
	strbuf_addstr(out, "usage: lkprobot <command> [options]\n"
			   "       lkprobot --version\n\n"
			   "commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		unsigned f = commands[i].flags;
		if (commands[i].summary)
			strbuf_addf(out, "  %-12s %s%s%s%s%s%s\n", commands[i].name, commands[i].summary, f ? " [" : "",
				    f & CMD_STORE ? "store" : "", f == (CMD_STORE | CMD_CONFIG) ? ", " : "",
				    f & CMD_CONFIG ? "config" : "", f ? "]" : "");
	}
	strbuf_addstr(out,
		      "\n[store]: reads or writes the store (lkprobot.db); [config]: reads the configuration file\n"
		      "\noptions:\n");
}

static const char usage_tail[] =
	"\n'lkprobot <command> --help' shows a command's options.\n"
	"exit codes: 0 success, 1 the work failed, 2 bad input or usage\n";

/* lkprobot's own options, before the command */
static bool version;
static const struct opt global_options[] = {
	OPT_BOOL(0, "version", "print lkprobot's version", &version),
	OPT_END(),
};

static void usage(FILE *out)
{
	struct strbuf b = STRBUF_INIT;

	usage_head(&b);
	opt_help(&b, global_options, NULL, usage_tail);
	fputs(b.buf, out);
	strbuf_release(&b);
}

/*
 * help config: every key of the configuration files, as markdown, from the
 * tables that read them (docs/configuration.md is made of it: make docs).
 */
static void help_config(void)
{
	struct strbuf b = STRBUF_INIT;

	strbuf_addstr(&b,
		      "The keys of lkprobot's configuration files, made from the tables they are read by:\n"
		      "the configuration (`serve:` and `mail:`; `-c FILE`, else `$LKPROBOT_CONFIG`, else\n"
		      "`/etc/lkprobot/config.yaml`) and the boxes file. A key no table has is an error; a\n"
		      "text value left empty keeps its default.\n\n");
	serve_conf_doc(&b);
	strbuf_addch(&b, '\n');
	mailconf_doc(&b);
	strbuf_addch(&b, '\n');
	box_conf_doc(&b);
	fputs(b.buf, stdout);
	strbuf_release(&b);
}

int cmd_help(int argc, char **argv, struct lkp_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: lkprobot help [COMMAND]\n"
		       "       lkprobot help config\n\n"
		       "List the commands, or show one command's help; config: every key of the\n"
		       "configuration files (serve:, its trees, the providers' settings, mail:, the\n"
		       "boxes file) with its default, as markdown (docs/configuration.md).\n"
		       "exit codes: 0 shown, 2 unknown command\n");
		return EXIT_OK;
	}
	if (argc > 1 && !strcmp(argv[1], "config")) {
		help_config();
		return EXIT_OK;
	}
	if (argc > 1) {
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			if (!strcmp(argv[1], commands[i].name) && commands[i].fn != cmd_help) {
				char *args[] = { argv[1], (char *)"--help", NULL };
				struct lkp_ctx c = *ctx;
				c.cmd = argv[1];
				return commands[i].fn(2, args, &c);
			}
		if (strcmp(argv[1], "help"))
			return not_a_command(argv[1]);
	}
	usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct lkp_ctx ctx = { 0 };
	char msg[256];
	int ret;

	if (program_check(msg, sizeof(msg)))
		return say_error(EXIT_FAIL, "internal error: %s", msg);
	struct strbuf perr = STRBUF_INIT;
	if (provider_registry_check(&perr)) {
		ret = say_error(EXIT_FAIL, "internal error: %s", perr.buf);
		strbuf_release(&perr);
		return ret;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	struct strbuf head = STRBUF_INIT;
	usage_head(&head);
	ret = opt_parse(NULL, argc, argv, global_options, head.buf, usage_tail, true);
	strbuf_release(&head);
	if (ret != OPT_GO)
		return ret;
	if (version || (optind < argc && !strcmp(argv[optind], "version"))) {
		printf("lkprobot %s\n", LKPROBOT_VERSION);
		return EXIT_OK;
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	argc -= optind - 1;
	argv += optind - 1;
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		char *data = find_data_dir();
		ctx.data_dir = data;
		lkpetc_set_dir(data);
		ctx.cmd = commands[i].name;
		ret = commands[i].fn(argc - 1, argv + 1, &ctx);
		free(data);
		if (fflush(stdout) || ferror(stdout))
			return say_error(EXIT_FAIL, "cannot write the output: %s", strerror(errno));
		return ret;
	}
	return not_a_command(argv[1]);
}

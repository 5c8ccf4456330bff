/*
 * report_repro: "To reproduce", as commands that work when pasted into a
 * fresh shell in an empty directory (the attachments saved there): where
 * lkprobot comes from, the tree, where the job runs, the commit and its
 * base run one after the other as many times as the noise the robot saw
 * needs, into a result root under the current directory, then the
 * comparison that prints the same headline. A user-space job runs in the
 * tree's checkout (`lkprobot run`); a kernel job says how the kernel is
 * built and booted with lkprobot's own commands (`lkprobot qemu --tree
 * --commit`, `lkprobot box run`). See report_int.h.
 */
#include "report_int.h"

#include <string.h>

#define IND "        "
#define COMMIT_VAR "\"$c\""

/* A full commit id (40 hex digits): one a reader can check out. */
static bool is_commit_id(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

/*
 * How the runs were made: in user space (`lkprobot run`: the local
 * provider), in QEMU, or on a box booted into the commit — as the command
 * the run recorded says, else as its facts do (accel: QEMU's).
 */
enum where {
	WHERE_USER,
	WHERE_QEMU,
	WHERE_BOX
};

static enum where where_of(const struct report_input *in)
{
	const struct node *facts = node_get(in->job, "facts");

	if (in->command && in->ncommand >= 2)
		return !strcmp(in->command[1], "qemu")	? WHERE_QEMU
		       : !strcmp(in->command[1], "box") ? WHERE_BOX
							: WHERE_USER;
	return node_get(facts, "accel") ? WHERE_QEMU : node_get(facts, "box") ? WHERE_BOX : WHERE_USER;
}

/* A word of a command: the commit variable as it is, anything else quoted for the shell (display only). */
static void word(struct strbuf *out, const char *w)
{
	strbuf_addch(out, ' ');
	if (!strcmp(w, COMMIT_VAR))
		strbuf_addstr(out, w);
	else
		strbuf_add_shell_word(out, w);
}

/*
 * The command the run recorded (reproduce.json), for the commit in $c:
 * its commit (after --commit, or the culprit's id) made "$c", its result
 * root replaced by ./result, a config file it was given named as the
 * attachment. The words after "lkprobot" into out; false: none recorded.
 */
static bool recorded(struct strbuf *out, const struct report_input *in, const char *job)
{
	if (!in->command || in->ncommand < 2)
		return false;
	for (size_t i = 1; i < in->ncommand; i++) {
		const char *w = in->command[i], *prev = in->command[i - 1];
		if (!strcmp(w, "-o") || !strcmp(w, "--result-root") || !strcmp(w, "--runs")) {
			i++; /* ours: ./result, one run a commit each time round */
			continue;
		}
		if (!strcmp(w, "--reuse-boot"))
			continue;
		if (!strcmp(prev, "--commit") || !strcmp(w, in->commit)) {
			word(out, COMMIT_VAR);
		} else if (!strcmp(prev, "--kconfig") && in->kconfig && in->kconfig_name &&
			   !strcmp(w, "kernel.config")) {
			strbuf_addf(out, " ./");
			strbuf_add_shell_word(out, in->kconfig_name);
		} else if (!strcmp(w, "job.yaml")) {
			word(out, job);
		} else {
			word(out, w);
		}
	}
	return true;
}

/* The run of one commit ($c), as the robot made it, into ./result (../result from the tree): after "lkprobot". */
static void run_command(struct strbuf *out, const struct report_input *in, enum where wh)
{
	const char *kconfig = node_str(node_get(in->job, "kconfig"));
	const char *box = node_str(node_get(node_get(in->job, "facts"), "box"));
	const char *job = wh == WHERE_USER ? "../job.yaml" : "job.yaml";

	if (wh != WHERE_USER && recorded(out, in, job)) {
		strbuf_addstr(out, " -o result");
	} else if (wh == WHERE_USER) {
		strbuf_addstr(out, " run -o ../result");
		word(out, job);
	} else {
		strbuf_addstr(out, wh == WHERE_QEMU ? " qemu" : " box run");
		if (wh == WHERE_BOX)
			word(out, box ? box : "BOX");
		strbuf_addstr(out, " -o result --tree linux --commit " COMMIT_VAR);
		if (in->kconfig)
			strbuf_addf(out, " --kconfig ./%s", in->kconfig_name ? in->kconfig_name : "config");
		else if (kconfig) {
			strbuf_addstr(out, " --kconfig");
			word(out, kconfig);
		}
		word(out, job);
	}
	/* the commit the runs are of: the attached job names the one reported */
	strbuf_addstr(out, " commit=" COMMIT_VAR);
}

/* Where lkprobot comes from: its source, built, in the PATH. */
static void get_lkprobot(struct strbuf *out, const struct report_input *in)
{
	const char *version = node_str(node_get(in->job, "lkprobot_version"));

	if (in->lkprobot_url)
		strbuf_addf(out,
			    IND "git clone %s lkprobot\n" IND "make -C lkprobot\n" IND
				"export PATH=\"$PWD/lkprobot:$PATH\"\n",
			    in->lkprobot_url);
	else
		strbuf_addf(out, IND "# lkprobot%s%s, built from its source (make), in the PATH\n", version ? " " : "",
			    version ? version : "");
}

void report_reproduce(struct strbuf *out, const struct report_input *in, const struct compare_row *h)
{
	enum where wh = where_of(in);
	const char *tree = wh == WHERE_USER ? "src" : "linux";
	const char *base = is_commit_id(in->base_commit) ? in->base_commit : NULL;
	bool sha = is_commit_id(in->commit);
	size_t n = report_runs_needed(in->cmp, h);

	strbuf_addstr(out, "To reproduce:\n\n");
	strbuf_addf(out, IND "# in an empty directory, the job file%s attached in this email saved in it\n",
		    in->kconfig ? " and kernel config" : "");
	get_lkprobot(out, in);
	if (in->tree_url)
		strbuf_addf(out, IND "git clone %s %s\n", in->tree_url, tree);
	else
		strbuf_addf(out, IND "# %s: a clone of the tree that has the commit\n", tree);
	if (wh == WHERE_USER)
		strbuf_addf(out, IND "cd %s  # the job runs in the tree's checkout\n", tree);
	else if (wh == WHERE_BOX)
		strbuf_addstr(out, IND
			      "# BOX: a test box of yours in lkprobot's boxes file ('lkprobot box --help'), "
			      "booted into each commit's kernel\n");
	strbuf_addf(out, IND "lkprobot install %s\n", wh == WHERE_USER ? "../job.yaml" : "job.yaml");
	if (!base)
		strbuf_addstr(out, IND "# BASE: the commit it is compared with\n");
	if (!sha)
		strbuf_addf(out, IND "# COMMIT: the commit of %s\n", in->commit);
	/* one after the other, so that a machine that drifts moves both alike */
	strbuf_addf(out, IND "for i in $(seq %zu); do\n" IND "        for c in %s %s; do\n" IND "                ", n,
		    base ? base : "BASE", sha ? in->commit : "COMMIT");
	if (wh == WHERE_USER)
		strbuf_addstr(out, "git checkout -q " COMMIT_VAR " && ");
	strbuf_addstr(out, "lkprobot");
	run_command(out, in, wh);
	strbuf_addstr(out, " || break 2\n" IND "        done\n" IND "done\n");
	strbuf_addf(out, IND "lkprobot compare --headline -o %s %s %s\n\n", wh == WHERE_USER ? "../result" : "result",
		    base ? base : "BASE", sha ? in->commit : "COMMIT");
}

/*
 * box: real test boxes reached over ssh — their configuration, and one run
 * on one of them: the kernel under test and the atomic job copied over,
 * the box kexec'd (or rebooted by its own command) into that kernel with
 * the job's boot_params, its kernel release and command line checked,
 * `lkprobot run` run there, the result root brought home, checked and
 * extracted again with this robot's parsers. A box that does not come
 * back is power-cycled (a configured command, e.g. ipmitool), and the run
 * is a recorded failure.
 *
 * Every command is an argv array: the system's ssh (host keys checked
 * against the configured known_hosts, BatchMode) and, on the box, the
 * same lkprobot binary, content-addressed under <workdir>/bin. The remote
 * command lines hold only paths made of the configured workdir (checked
 * to be plain characters) and names made here; job values travel in files.
 *
 * The boxes file (YAML: boxes: maps each box's name to its keys) is read
 * by box_keys' rows in box.c, listed in docs/configuration.md ('lkprobot
 * help config' prints them).
 */
#ifndef LKP_BOX_H
#define LKP_BOX_H

#include "../lib/util/node.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>

struct machine;
struct store;

struct box {
	char *name, *host, *user, *key, *known_hosts, *tbox_group, *workdir, *fs_root;
	char *cmdline, *initrd;
	int port;
	bool reboot;			/* boot: reboot (reboot_cmd) instead of kexec */
	char **reboot_cmd, **power_cycle_cmd;	/* NULL-terminated argv, or NULL */
	int boot_timeout, max_failures;
	/* set by box_connect() */
	char *agent;			/* <workdir>/bin/lkprobot-<hash>: this binary on the box */
};

/*
 * The boxes file's box `name`, checked. 0, or -1 with one line in err
 * (file:line:col: boxes.NAME.KEY: what is wrong).
 */
int box_load(const char *file, const char *name, struct box *b, struct strbuf *err);
/* The names of the boxes in the file, in its order. */
int box_names(const char *file, char ***names, size_t *n, struct strbuf *err);
void box_release(struct box *b);
/* The boxes file's keys as markdown ('lkprobot help config'). */
void box_conf_doc(struct strbuf *out);

/* The default boxes file: $LKPROBOT_BOXES, else /etc/lkprobot/boxes.yaml. */
const char *box_default_file(void);

/*
 * Reach the box and make sure this lkprobot is there (copied once per
 * version). 0, or -1 with err set.
 */
int box_connect(struct box *b, struct strbuf *err);

/*
 * Run a command (one string, for the box's shell: only box_* callers build
 * it) on the box: stdin from in_fd (-1: /dev/null), stdout into out (may
 * be NULL), killed after timeout seconds (0: none). Returns the exit
 * status, 255 when ssh could not reach the box, -1 with err set when ssh
 * could not run; err gets the last line of its stderr.
 */
int box_ssh(const struct box *b, const char *command, int in_fd, struct strbuf *out, int timeout, struct strbuf *err);

/* box_ssh with text as its stdin (a file to write there: `cat > PATH`). */
int box_ssh_text(const struct box *b, const char *command, const char *text, size_t len, int timeout,
		 struct strbuf *err);

/* The release (uname -r) a bzImage says it is, from its setup header. */
int box_kernel_release(const char *bzimage, struct strbuf *out, struct strbuf *err);

/*
 * Could a run start on box name now? BOX_FREE; BOX_HELD (another run holds
 * its lock under result_dir) or BOX_OUT (out of service in store s, which
 * may be NULL), why said; -1 with why set when the store cannot say.
 */
enum { BOX_HELD = 0, BOX_FREE = 1, BOX_OUT = 2 };
int box_available(const char *name, const char *result_dir, struct store *s, struct strbuf *why);

struct box_run {
	char *run_dir;			/* the result root here (NULL when there is none) */
	const char *job_state;		/* the run's, or boot_failed */
	char *reason;
	bool box_failed;		/* the box did not come back, or with the wrong kernel */
	bool out_of_service;		/* ...and it is out of service now */
};

/*
 * One run of the atomic `job` on box b booted into `kernel` (a bzImage
 * here; NULL: the kernel it runs now), into result_dir; m (the box's
 * hosts/ file) gives the result path's axes the job leaves open. The box's state is
 * kept in store s (may be NULL). 0 with *r filled (whatever happened on
 * the box), -1 with err set when the run could not be attempted (the box
 * is out of service, unreachable, the kernel unreadable; *r is empty then).
 */
int box_run(struct box *b, const char *kernel, const struct node *job, const struct machine *m, const char *result_dir,
	    struct store *s, struct box_run *r, struct strbuf *err);
void box_run_release(struct box_run *r);

#endif

/*
 * box: real test boxes over ssh — the boxes file, and the commands (ssh, the
 * lkprobot copied over) a run sends to a box. See box.h; one run is box_run.c.
 */
#include "box.h"
#include "box_int.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"
#include "../lib/kernel/git.h"
#include "../lib/kernel/kbuild.h"
#include "../lib/job/job.h"
#include "../lib/sys/machine.h"
#include "../lib/results/result.h"
#include "../lib/run/run.h"
#include "../lib/store/store.h"
#include "../lib/util/conf.h"
#include "../lib/util/units.h"
#include "../lib/util/yml.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char plain_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._+-";

const char *box_default_file(void)
{
	const char *env = getenv("LKPROBOT_BOXES");
	return env && *env ? env : "/etc/lkprobot/boxes.yaml";
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void box_release(struct box *b)
{
	free(b->name);
	free(b->host);
	free(b->user);
	free(b->key);
	free(b->known_hosts);
	free(b->tbox_group);
	free(b->workdir);
	free(b->fs_root);
	free(b->cmdline);
	free(b->initrd);
	free(b->agent);
	free_argv(b->reboot_cmd);
	free_argv(b->power_cycle_cmd);
	memset(b, 0, sizeof(*b));
}

static const struct node *boxes_map(const char *file, struct node **doc, struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	const struct node *m = NULL;

	*doc = NULL;
	struct strbuf e = STRBUF_INIT;
	if (strbuf_read_bounded(&text, file, CONF_FILE_MAX, &e)) {
		strbuf_setf(err, "%s: cannot read the boxes file: %s (give one with --boxes or $LKPROBOT_BOXES)", file,
			    errno == EFBIG    ? "more than 1 MiB"
			    : errno == EINVAL ? "not a regular file"
					      : strerror(errno));
		strbuf_release(&e);
	} else if ((*doc = yml_load_one(text.buf, file, err))) {
		m = node_get(*doc, "boxes");
		if (!m || m->type != NODE_MAP || !m->n) {
			strbuf_setf(err, "%s: no boxes: map of boxes (see 'lkprobot box --help')", file);
			m = NULL;
		}
	}
	strbuf_release(&text);
	return m;
}

int box_names(const char *file, char ***names, size_t *n, struct strbuf *err)
{
	struct node *doc;
	const struct node *m = boxes_map(file, &doc, err);

	*names = NULL;
	*n = 0;
	if (!m) {
		node_free(doc);
		return -1;
	}
	*names = xcalloc(m->n + 1, sizeof(**names));
	for (size_t i = 0; i < m->n; i++)
		if (!m->vals[i]->comment)
			(*names)[(*n)++] = xstrdup(m->keys[i]);
	node_free(doc);
	return 0;
}

/* these travel in the box's command lines: plain characters only */
static int abs_plain_path(const char *p, struct strbuf *err)
{
	(void)err;
	return *p != '/' || strspn(p, plain_chars) != strlen(p) || strstr(p, "..") ? -1 : 0;
}

static int not_an_option(const char *v, struct strbuf *err)
{
	(void)err;
	return *v == '-' ? -1 : 0;
}

#define B(member) CONF_FIELD(struct box, member)
static const char *const boot_choices[] = { "kexec", "reboot", NULL };	/* reboot: index 1 */
#define BOX_ARGV(key, help_) \
	{ #key, CONF_LIST, B(key), .flags = CONF_NONEMPTY, .help = help_, \
	  .what = "must be a command as a list of arguments, e.g. [ipmitool, -H, bmc1, chassis, power, cycle]", \
	  .what_item = "each argument must be a string" }
static const struct conf_key box_keys[] = {
	{ "host", CONF_STRING, B(host), .check = not_an_option,
	  .what = "every box needs the host name or address to reach it by ssh", .form = "a host name or address",
	  .help = "where ssh reaches it (every box needs one)" },
	{ "port", CONF_NUMBER, B(port), .def = "22", .min = 1, .max = 65535, .help = "its ssh port" },
	{ "user", CONF_STRING, B(user), .def = "root", .check = not_an_option, .what = "not a user name",
	  .help = "who lkprobot logs in as" },
	{ "key", CONF_STRING, B(key), .form = "a file here", .help = "the ssh key" },
	{ "known_hosts", CONF_STRING, B(known_hosts), .form = "a file here",
	  .help = "the host keys ssh checks (StrictHostKeyChecking=yes)" },
	{ "tbox_group", CONF_STRING, B(tbox_group), .help = "its hosts/ file (default: the box's name)" },
	{ "workdir", CONF_STRING, B(workdir), .def = "/lkp/lkprobot", .check = abs_plain_path,
	  .what = "must be an absolute path of letters, digits and / . _ + -", .help = "lkprobot's directory there" },
	{ "fs_root", CONF_STRING, B(fs_root), .def = "/fs", .check = abs_plain_path,
	  .what = "must be an absolute path of letters, digits and / . _ + -",
	  .help = "where the job's file systems are mounted there" },
	{ "boot", CONF_CHOICE, B(reboot), .def = "kexec", .choices = boot_choices,
	  .help = "kexec, or reboot (by reboot_cmd)" },
	BOX_ARGV(reboot_cmd, "the command (argv, on the box) that makes it boot the kernel"),
	BOX_ARGV(power_cycle_cmd, "the command (argv, here) that power-cycles it"),
	{ "boot_timeout", CONF_NUMBER, B(boot_timeout), .def = "300", .min = 10, .max = 86400,
	  .help = "seconds for it to come back" },
	{ "max_failures", CONF_NUMBER, B(max_failures), .def = "3", .min = 1, .max = 1000,
	  .help = "failures in a row before it is out of service" },
	{ "cmdline", CONF_STRING, B(cmdline), .help = "the kernel command line (default: the box's own)" },
	{ "initrd", CONF_STRING, B(initrd), .form = "a file on the box",
	  .help = "the initrd of the kernel under test (default: none)" },
	{ 0 },
};
#undef BOX_ARGV
#undef B

void box_conf_doc(struct strbuf *out)
{
	strbuf_addstr(out,
		      "## The boxes file\n\n"
		      "The real test boxes of the ssh provider and `lkprobot box`: `boxes:` maps each box's\n"
		      "name to its keys (`--boxes FILE`, else `$LKPROBOT_BOXES`, else `/etc/lkprobot/boxes.yaml`;\n"
		      "the service's `serve.boxes`). In the errors a key is `boxes.NAME.KEY`.\n\n");
	conf_doc(out, box_keys);
}

int box_load(const char *file, const char *name, struct box *b, struct strbuf *err)
{
	struct node *doc;
	const struct node *m = boxes_map(file, &doc, err), *bx;
	char *prefix = xasprintf("boxes.%s.", name);
	int ret = -1;

	memset(b, 0, sizeof(*b));
	if (!m)
		goto out;
	if (!(bx = node_get(m, name))) {
		strbuf_setf(err, "%s: no box '%s' in boxes: ('lkprobot box list' shows them)", file, name);
		goto out;
	}
	if (bx->type != NODE_MAP) {
		conf_error(err, file, bx, prefix, NULL, "a box is a map (host, user, key, ...)");
		goto out;
	}
	if (conf_read(bx, box_keys, b, file, prefix, err))
		goto out;
	b->name = xstrdup(name);
	if (!b->host) {
		conf_error(err, file, node_get(bx, "host") ? node_get(bx, "host") : bx, prefix, "host",
			   "every box needs the host name or address to reach it by ssh");
		goto out;
	}
	if (!b->tbox_group)
		b->tbox_group = xstrdup(name);
	if (strspn(b->tbox_group, plain_chars) != strlen(b->tbox_group) || strchr(b->tbox_group, '/') ||
	    *b->tbox_group == '.' || *b->tbox_group == '-') {
		conf_error(err, file, node_get(bx, "tbox_group") ? node_get(bx, "tbox_group") : bx, prefix, "tbox_group",
			   "must be letters, digits and . _ + - (a hosts/ file name)");
		goto out;
	}
	if (b->reboot && !b->reboot_cmd) {
		conf_error(err, file, node_get(bx, "boot"), prefix, "boot",
			   "boot: reboot needs reboot_cmd, the command that makes the box boot the kernel (it gets LKPROBOT_KERNEL, LKPROBOT_CMDLINE)");
		goto out;
	}
	for (const char *const *f = (const char *const[]){ b->key, b->known_hosts, NULL }; *f; f++)
		if (access(*f, R_OK)) {
			char *what = xasprintf("cannot read '%s': %s", *f, strerror(errno));
			conf_error(err, file, node_get(bx, *f == b->key ? "key" : "known_hosts"), prefix,
				   *f == b->key ? "key" : "known_hosts", what);
			free(what);
			goto out;
		}
	ret = 0;
out:
	if (ret)
		box_release(b);
	node_free(doc);
	free(prefix);
	return ret;
}

/* ---- commands ---- */

/*
 * Run argv with stdin in_fd (-1: /dev/null), stdout out_fd (-1: /dev/null),
 * stderr err_fd; ended after timeout seconds (0: never). The exit status,
 * 128+signal, or -1 with err set when it could not start. ssh ends with us.
 */
int box_spawn(char *const argv[], int in_fd, int out_fd, int err_fd, int timeout, bool *timed_out,
	      struct strbuf *err)
{
	struct proc p = { .argv = argv, .in = in_fd >= 0 ? in_fd : PROC_NULL, .out = out_fd >= 0 ? out_fd : PROC_NULL,
			  .err = err_fd >= 0 ? err_fd : PROC_NULL, .timeout = timeout, .grace = 2,
			  .death_sig = SIGTERM };
	int rc = proc_run(&p, err);

	*timed_out = p.timed_out;
	return rc;
}

/* The last line of the file behind fd (rewound), trimmed, into out. */
void box_last_line(int fd, struct strbuf *out)
{
	char buf[4096];
	ssize_t n;

	strbuf_reset(out);
	if (lseek(fd, 0, SEEK_SET) == 0) {
		struct strbuf all = STRBUF_INIT;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			strbuf_add(&all, buf, (size_t)n);
		strbuf_rtrim(&all);
		const char *nl = strrchr(all.buf, '\n');
		strbuf_addstr(out, nl ? nl + 1 : all.buf);
		strbuf_release(&all);
	}
}

void box_read_all(int fd, struct strbuf *out)
{
	char buf[65536];
	ssize_t n;

	strbuf_reset(out);
	if (lseek(fd, 0, SEEK_SET) == 0)
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			strbuf_add(out, buf, (size_t)n);
}

int box_ssh_to(const struct box *b, const char *command, int in_fd, int out_fd, int timeout, struct strbuf *err)
{
	char port[16], kh[PATH_MAX + 32], *argv[32];
	FILE *ef = tmpfile();
	int a = 0;
	bool timed_out;

	snprintf(port, sizeof(port), "%d", b->port);
	argv[a++] = "ssh";
	argv[a++] = "-o";
	argv[a++] = "BatchMode=yes";
	argv[a++] = "-o";
	argv[a++] = "StrictHostKeyChecking=yes";	/* a box whose key changed is not our box */
	if (b->known_hosts) {
		snprintf(kh, sizeof(kh), "UserKnownHostsFile=%s", b->known_hosts);
		argv[a++] = "-o";
		argv[a++] = kh;
	}
	if (b->key) {
		argv[a++] = "-i";
		argv[a++] = b->key;
		argv[a++] = "-o";
		argv[a++] = "IdentitiesOnly=yes";
	}
	argv[a++] = "-o";
	argv[a++] = "ConnectTimeout=10";
	argv[a++] = "-o";
	argv[a++] = "ServerAliveInterval=15";
	argv[a++] = "-o";
	argv[a++] = "ServerAliveCountMax=4";
	argv[a++] = "-o";
	argv[a++] = "LogLevel=ERROR";
	argv[a++] = "-p";
	argv[a++] = port;
	argv[a++] = "-l";
	argv[a++] = b->user;
	argv[a++] = "--";
	argv[a++] = b->host;
	argv[a++] = (char *)command;
	argv[a] = NULL;
	if (!ef) {
		strbuf_setf(err, "cannot make a temporary file: %s", strerror(errno));
		return -1;
	}
	int rc = box_spawn(argv, in_fd, out_fd, fileno(ef), timeout, &timed_out, err);
	if (rc >= 0) {
		box_last_line(fileno(ef), err);
		if (timed_out)
			strbuf_setf(err, "no answer from box %s within %d s: ssh killed", b->name, timeout);
		else if (rc == 255 && !err->len)
			strbuf_setf(err, "ssh could not reach %s:%d", b->host, b->port);
	}
	fclose(ef);
	return rc;
}

int box_ssh(const struct box *b, const char *command, int in_fd, struct strbuf *out, int timeout, struct strbuf *err)
{
	FILE *of = out ? tmpfile() : NULL;
	int rc;

	if (out && !of) {
		strbuf_setf(err, "cannot make a temporary file: %s", strerror(errno));
		return -1;
	}
	rc = box_ssh_to(b, command, in_fd, of ? fileno(of) : -1, timeout, err);
	if (of) {
		box_read_all(fileno(of), out);
		fclose(of);
	}
	return rc;
}

int box_ssh_text(const struct box *b, const char *command, const char *text, size_t len, int timeout,
		 struct strbuf *err)
{
	FILE *f = tmpfile();
	int rc;

	if (!f || fwrite(text, 1, len, f) != len || fflush(f) || lseek(fileno(f), 0, SEEK_SET)) {
		strbuf_setf(err, "cannot write a temporary file: %s", strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	rc = box_ssh(b, command, fileno(f), NULL, timeout, err);
	fclose(f);
	return rc;
}

/* "box NAME (user@host:port): " in front of err. */
int box_err(const struct box *b, struct strbuf *err, const char *what)
{
	char *e = strbuf_detach(err);
	strbuf_setf(err, "box %s (%s@%s:%d): %s%s%s", b->name, b->user, b->host, b->port, what, *e ? ": " : "", e);
	free(e);
	return -1;
}

int box_connect(struct box *b, struct strbuf *err)
{
	char exe[PATH_MAX], hash[GITREPO_HEXSZ + 1];
	struct strbuf bin = STRBUF_INIT;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int rc = -1;

	if (n > 0)
		exe[n] = '\0';
	if (n <= 0 || strbuf_read_file(&bin, exe)) {
		strbuf_setf(err, "cannot read this lkprobot (/proc/self/exe)");
		goto out;
	}
	gitrepo_hash(bin.buf, bin.len, hash);
	free(b->agent);
	b->agent = xasprintf("%s/bin/lkprobot-%.12s", b->workdir, hash);
	char *test = xasprintf("test -x %s", b->agent);
	rc = box_ssh(b, test, -1, NULL, 60, err);
	free(test);
	if (rc == 1) {
		/* this version is not there yet: copy it, then rename (a half copy is never run) */
		char *put = xasprintf("mkdir -p %s/bin && cat > %s.tmp && chmod 755 %s.tmp && mv -f %s.tmp %s", b->workdir,
				      b->agent, b->agent, b->agent, b->agent);
		int fd = open(exe, O_RDONLY | O_CLOEXEC);
		rc = fd < 0 ? -1 : box_ssh(b, put, fd, NULL, 600, err);
		if (fd >= 0)
			close(fd);
		free(put);
		if (rc) {
			rc = box_err(b, err, "cannot copy lkprobot there");
			goto out;
		}
	} else if (rc) {
		rc = box_err(b, err, rc == 255 ? "cannot reach it" : "cannot look for lkprobot there");
		goto out;
	}
	rc = 0;
out:
	strbuf_release(&bin);
	return rc;
}

int box_kernel_release(const char *bzimage, struct strbuf *out, struct strbuf *err)
{
	unsigned char hdr[0x210];
	char ver[256];
	int fd = open(bzimage, O_RDONLY | O_CLOEXEC);
	int ret = -1;

	if (fd < 0) {
		strbuf_setf(err, "cannot read the kernel '%s': %s", bzimage, strerror(errno));
		return -1;
	}
	/* x86 boot protocol: "HdrS" at 0x202; kernel_version (0x20e) points 0x200 before its string */
	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || memcmp(hdr + 0x202, "HdrS", 4)) {
		strbuf_setf(err, "'%s' is not an x86 bzImage (no HdrS setup header)", bzimage);
		goto out;
	}
	unsigned off = (unsigned)hdr[0x20e] | (unsigned)hdr[0x20f] << 8;
	ssize_t n = off ? pread(fd, ver, sizeof(ver) - 1, (off_t)off + 0x200) : -1;
	if (n <= 0) {
		strbuf_setf(err, "'%s' has no kernel version string", bzimage);
		goto out;
	}
	ver[n] = '\0';
	strbuf_reset(out);
	strbuf_add(out, ver, strcspn(ver, " \n"));
	ret = out->len ? 0 : -1;
	if (ret)
		strbuf_setf(err, "'%s' has an empty kernel version string", bzimage);
out:
	close(fd);
	return ret;
}


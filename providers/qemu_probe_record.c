/*
 * qemu probe records: the KVM probe's answers kept across runs, one small
 * text file a kernel, under <cache>/kvm-probe/, named by what decides the
 * answer — the host (its kernel release and CPU), QEMU (its binary and
 * version) and the kernel image (its path, size and mtime) — so that a
 * QEMU or host kernel update, a new CPU under a cloud VM, or a rebuilt
 * kernel is probed again, and nothing else is. See qemu.h.
 */
#include "qemu.h"
#include "../lib/sys/fsutil.h"
#include "../lib/sys/proc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static const char record_head[] =
	"# lkprobot's KVM probe: did this kernel reach user space under KVM on this host and QEMU?\n"
	"# (booted under TCG instead when not; delete this file to probe again)\n";

void qemu_probe_key_release(struct qemu_probe_key *key)
{
	free(key->host);
	free(key->qemu);
	free(key->kernel);
	memset(key, 0, sizeof(*key));
}

void qemu_probe_record_release(struct qemu_probe_record *r)
{
	free(r->path);
	free(r->kernel);
	memset(r, 0, sizeof(*r));
}

/* "path size mtime" of a file, NULL when it cannot be stat'ed */
static char *file_identity(const char *path)
{
	struct stat st;
	char real[PATH_MAX];

	if (!realpath(path, real) || stat(real, &st))
		return NULL;
	return xasprintf("%s %lld %lld.%09ld", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
			 st.st_mtim.tv_nsec);
}

/* qemu-system-x86_64 as exec finds it in PATH, NULL when it is not there */
static char *qemu_binary(void)
{
	const char *path = getenv("PATH");
	struct strbuf dirs = STRBUF_INIT;
	char *found = NULL;

	strbuf_addstr(&dirs, path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *save = NULL, *d = strtok_r(dirs.buf, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/qemu-system-x86_64", *d ? d : ".");
		if (!access(p, X_OK))
			found = p;
		else
			free(p);
	}
	strbuf_release(&dirs);
	return found;
}

/* The CPU's model name (/proc/cpuinfo), "unknown CPU" when there is none */
static char *cpu_model(void)
{
	struct strbuf info = STRBUF_INIT;
	char *model = NULL;

	if (!strbuf_read_file(&info, "/proc/cpuinfo")) {
		const char *m = strstr(info.buf, "model name");
		const char *colon = m ? strchr(m, ':') : NULL;
		if (colon) {
			colon += 1 + strspn(colon + 1, " \t");
			model = xstrndup(colon, strcspn(colon, "\n"));
		}
	}
	strbuf_release(&info);
	return model ? model : xstrdup("unknown CPU");
}

/* QEMU's identity and the first line of its --version; NULL with err when it does not run */
static char *qemu_identity(struct strbuf *err)
{
	char *bin = qemu_binary(), *id = bin ? file_identity(bin) : NULL, *ret = NULL;
	struct strbuf out = STRBUF_INIT;

	if (!id) {
		strbuf_setf(err, "qemu-system-x86_64 is not in PATH; apt-get install qemu-system-x86");
		goto out;
	}
	char *argv[] = { bin, "--version", NULL };
	struct proc p = { .argv = argv,
			  .in = PROC_NULL,
			  .out = PROC_CAPTURE,
			  .err = PROC_NULL,
			  .capture = &out,
			  .capture_max = 4096,
			  .timeout = 10 };
	if (proc_run(&p, err) < 0)
		goto out;
	ret = xasprintf("%s; %.*s", id, (int)strcspn(out.buf, "\n"), out.buf);
out:
	free(bin);
	free(id);
	strbuf_release(&out);
	return ret;
}

int qemu_probe_key_get(struct qemu_probe_key *key, const char *image, struct strbuf *err)
{
	/* the host and QEMU do not change while lkprobot runs: asked once */
	static char *host, *qemu;

	memset(key, 0, sizeof(*key));
	if (!(key->kernel = file_identity(image))) {
		strbuf_setf(err, "%s: %s; give a kernel image (vmlinux or bzImage)", image, strerror(errno));
		return -1;
	}
	if (!host) {
		struct utsname u;
		char *cpu = cpu_model();
		bool known = !uname(&u);
		host = xasprintf("%s %s; %s", known ? u.release : "unknown", known ? u.machine : "", cpu);
		free(cpu);
	}
	if (!qemu && !(qemu = qemu_identity(err))) {
		qemu_probe_key_release(key);
		return -1;
	}
	key->host = xstrdup(host);
	key->qemu = xstrdup(qemu);
	return 0;
}

/* FNV-1a, 64 bits: a record's file name (the record holds its key, compared on reading) */
static unsigned long long fnv(const char *a, const char *b)
{
	unsigned long long h = 14695981039346656037ULL;

	for (const char *s = a; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ '\n') * 1099511628211ULL;
	for (const char *s = b ? b : ""; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* the records of this host and QEMU share a prefix: "<hash>-" */
static char *record_prefix(const struct qemu_probe_key *key)
{
	return xasprintf("%016llx-", fnv(key->host, key->qemu));
}

char *qemu_probe_record_path(const char *dir, const struct qemu_probe_key *key)
{
	char *prefix = record_prefix(key);
	char *path = xasprintf("%s/%s%016llx", dir, prefix, fnv(key->kernel, NULL));

	free(prefix);
	return path;
}

/* One line of a record ("name: value"), its value into out (size n); false when the name is not there. */
static bool record_field(const char *text, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, name, len) && l[len] == ':' && l[len + 1] == ' ') {
			const char *v = l + len + 2;
			snprintf(out, n, "%.*s", (int)strcspn(v, "\n"), v);
			return true;
		}
	}
	return false;
}

/*
 * The record at path: 1 read (r filled) when it is of this host and QEMU
 * (and of this kernel, when same_kernel), 0 not (or not a record).
 */
static int record_read(const char *path, const struct qemu_probe_key *key, bool same_kernel,
		       struct qemu_probe_record *r)
{
	struct strbuf text = STRBUF_INIT;
	char host[1024], qemu[2048], kernel[PATH_MAX + 128], boots[8];
	int ret = 0;

	memset(r, 0, sizeof(*r));
	if (strbuf_read_file(&text, path) || !record_field(text.buf, "host", host, sizeof(host)) ||
	    !record_field(text.buf, "qemu", qemu, sizeof(qemu)) ||
	    !record_field(text.buf, "kernel", kernel, sizeof(kernel)) ||
	    !record_field(text.buf, "boots", boots, sizeof(boots)))
		goto out;
	if (strcmp(host, key->host) || strcmp(qemu, key->qemu) || (same_kernel && strcmp(kernel, key->kernel)))
		goto out;
	if (strcmp(boots, "yes") && strcmp(boots, "no"))
		goto out;
	r->boots = !strcmp(boots, "yes");
	if (!record_field(text.buf, "why", r->why, sizeof(r->why)))
		snprintf(r->why, sizeof(r->why), "%s", r->boots ? "" : "(no reason recorded)");
	if (!record_field(text.buf, "when", r->when, sizeof(r->when)))
		snprintf(r->when, sizeof(r->when), "?");
	r->path = xstrdup(path);
	r->kernel = xstrndup(kernel, strcspn(kernel, " "));
	ret = 1;
out:
	strbuf_release(&text);
	return ret;
}

int qemu_probe_record_find(const char *dir, const struct qemu_probe_key *key, struct qemu_probe_record *r)
{
	char *path = qemu_probe_record_path(dir, key);
	int ret = record_read(path, key, true, r);

	free(path);
	return ret;
}

int qemu_probe_record_host(const char *dir, const struct qemu_probe_key *key, struct qemu_probe_record *r)
{
	char *prefix = record_prefix(key);
	DIR *d = opendir(dir);
	struct dirent *de;
	bool booted = false;

	memset(r, 0, sizeof(*r));
	while (d && (de = readdir(d)) && !booted) {
		struct qemu_probe_record one;
		char *path = xasprintf("%s/%s", dir, de->d_name);
		if (!strncmp(de->d_name, prefix, strlen(prefix)) && record_read(path, key, false, &one)) {
			booted = one.boots;
			if (!one.boots && !r->path) {
				*r = one; /* the first failure found stands for them */
				memset(&one, 0, sizeof(one));
			}
			qemu_probe_record_release(&one);
		}
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
	if (booted || !r->path) {
		qemu_probe_record_release(r);
		return 0;
	}
	return 1;
}

/* v on one line: a record's values never hold a line break */
static void add_line(struct strbuf *sb, const char *name, const char *v)
{
	strbuf_addf(sb, "%s: ", name);
	for (const char *s = v ? v : ""; *s; s++)
		strbuf_addch(sb, *s == '\n' || *s == '\r' ? ' ' : *s);
	strbuf_addch(sb, '\n');
}

int qemu_probe_record_save(const char *dir, const struct qemu_probe_key *key, bool boots, const char *why,
			   struct strbuf *err)
{
	struct strbuf text = STRBUF_INIT;
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int ret = -1;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	strbuf_addstr(&text, record_head);
	add_line(&text, "host", key->host);
	add_line(&text, "qemu", key->qemu);
	add_line(&text, "kernel", key->kernel);
	add_line(&text, "boots", boots ? "yes" : "no");
	if (!boots)
		add_line(&text, "why", why);
	add_line(&text, "when", when);
	if (fsutil_mkdir_p(dir)) {
		strbuf_setf(err, "cannot create '%s': %s", dir, strerror(errno));
	} else {
		char *path = qemu_probe_record_path(dir, key);
		ret = fsutil_write_atomic(path, text.buf, text.len, err);
		free(path);
	}
	strbuf_release(&text);
	return ret;
}

/*
 * maildir: new mail read from a Maildir's new/ and moved to cur/ once read,
 * a file still being written left for the next time. See maildir.h.
 */
#include "maildir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static bool is_dir(const char *dir, const char *sub)
{
	struct stat st;
	char *p = xasprintf("%s/%s", dir, sub);
	bool yes = !stat(p, &st) && S_ISDIR(st.st_mode);

	free(p);
	return yes;
}

bool maildir_is(const char *dir)
{
	return is_dir(dir, "new") && is_dir(dir, "cur");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir/new, sorted (dotfiles left out). -1 with err when there is no new/. */
static int new_names(const char *dir, char ***names, size_t *n, struct strbuf *err)
{
	char *path = xasprintf("%s/new", dir);
	DIR *d = maildir_is(dir) ? opendir(path) : NULL;
	struct dirent *e;

	*names = NULL;
	*n = 0;
	if (!d) {
		strbuf_setf(err, "'%s': not a Maildir (it needs new/ and cur/: mkdir -p %s/new %s/cur %s/tmp)", dir,
			    dir, dir, dir);
		free(path);
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		*names = xrealloc(*names, (*n + 1) * sizeof(**names));
		(*names)[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	free(path);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_names);
	return 0;
}

/* A mail still being written: young, and its header block not ended yet. */
static bool partial(const char *path, const struct strbuf *msg)
{
	struct stat st;

	if (stat(path, &st) || time(NULL) - st.st_mtime >= MAILDIR_PARTIAL_AGE)
		return false;
	return !strstr(msg->buf, "\n\n") && !strstr(msg->buf, "\r\n\r\n");
}

/* One mail of new/: 1 read (or skipped) and moved, 0 left for the next time, -1 with err set. */
static int one(const char *dir, const char *name, size_t max, maildir_fn fn, void *arg, size_t *skipped,
	       struct strbuf *err)
{
	char *from = xasprintf("%s/new/%s", dir, name),
	     *where = xasprintf("cur/%s%s", name, strchr(name, ':') ? "" : ":2,");
	char *to = xasprintf("%s/%s", dir, where);
	struct strbuf msg = STRBUF_INIT, e = STRBUF_INIT;
	int ret = 1;

	if (strbuf_read_bounded(&msg, from, max, &e)) {
		if (errno == ENOENT) {
			ret = 0; /* another reader took it */
			goto out;
		}
		(*skipped)++;
	} else if (partial(from, &msg)) {
		ret = 0;
		goto out;
	} else if (fn(where, msg.buf, msg.len, arg, err)) {
		ret = -1;
		goto out;
	}
	if (rename(from, to) && errno != ENOENT) {
		strbuf_setf(err, "cannot move '%s' to '%s': %s", from, to, strerror(errno));
		ret = -1;
	}
out:
	strbuf_release(&msg);
	strbuf_release(&e);
	free(from);
	free(where);
	free(to);
	return ret;
}

long maildir_each(const char *dir, size_t max, maildir_fn fn, void *arg, size_t *skipped, struct strbuf *err)
{
	char **names;
	size_t n;
	long read = 0;

	*skipped = 0;
	if (new_names(dir, &names, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		int rc = read >= 0 ? one(dir, names[i], max, fn, arg, skipped, err) : 0;
		read = rc < 0 ? -1 : read + rc;
		free(names[i]);
	}
	free(names);
	return read < 0 ? -1 : read - (long)*skipped;
}

int maildir_read(const char *dir, const char *where, size_t max, struct strbuf *out, struct strbuf *err)
{
	if (strncmp(where, "cur/", 4) || strchr(where + 4, '/') || strstr(where, "..")) {
		strbuf_setf(err, "'%s': not a mail of the Maildir's cur/", where);
		return -1;
	}
	char *path = xasprintf("%s/%s", dir, where);
	int ret = strbuf_read_bounded(out, path, max, err);
	free(path);
	return ret;
}

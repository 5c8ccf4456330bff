/*
 * gitdumb: git's dumb HTTP protocol over a bare repository. See gitdumb.h.
 */
#include "gitdumb.h"
#include "../lib/kernel/git.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* Is rel a file the protocol reads: HEAD, a loose object, a pack or its index? */
static const char *served_type(const char *rel)
{
	size_t n = strlen(rel);

	if (!strcmp(rel, "HEAD"))
		return "text/plain";
	if (n == 8 + 2 + 1 + 38 && !strncmp(rel, "objects/", 8) && all_hex(rel + 8, 2) && rel[10] == '/' &&
	    all_hex(rel + 11, 38))
		return "application/x-git-loose-object";
	if (!strncmp(rel, "objects/pack/pack-", 18) && all_hex(rel + 18, 40)) {
		if (!strcmp(rel + 58, ".pack"))
			return "application/x-git-packed-objects";
		if (!strcmp(rel + 58, ".idx"))
			return "application/x-git-packed-objects-toc";
	}
	return NULL;
}

static void not_found(struct web_response *rs, const char *why)
{
	rs->status = 404;
	rs->type = "text/plain; charset=utf-8";
	strbuf_addf(&rs->body, "%s\n", why);
}

/* "P pack-<id>.pack" for each pack of the repository, then an empty line. */
static void info_packs(const char *repo, struct web_response *rs)
{
	char *dir = xasprintf("%s/objects/pack", repo);
	DIR *d = opendir(dir);

	for (struct dirent *e; d && (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n == 5 + 40 + 5 && !strncmp(e->d_name, "pack-", 5) && all_hex(e->d_name + 5, 40) &&
		    !strcmp(e->d_name + 45, ".pack"))
			strbuf_addf(&rs->body, "P %s\n", e->d_name);
	}
	if (d)
		closedir(d);
	free(dir);
	strbuf_addch(&rs->body, '\n');
	rs->status = 200;
	rs->type = "text/plain; charset=utf-8";
}

static void info_refs(const char *repo, struct web_response *rs)
{
	struct strbuf err = STRBUF_INIT;
	struct gitrepo *r = NULL;

	if (gitrepo_open(&r, repo, &err) || gitrepo_info_refs(r, &rs->body, &err)) {
		strbuf_reset(&rs->body);
		not_found(rs, err.buf);
	} else {
		rs->status = 200;
		rs->type = "text/plain; charset=utf-8";
	}
	if (r)
		gitrepo_close(r);
	strbuf_release(&err);
}

void gitdumb_serve(const char *repo, const char *rel, struct web_response *rs)
{
	const char *type = served_type(rel);

	if (!strcmp(rel, "info/refs")) {
		info_refs(repo, rs);
		return;
	}
	if (!strcmp(rel, "objects/info/packs")) {
		info_packs(repo, rs);
		return;
	}
	if (!type) {
		not_found(rs, "not a file git's dumb protocol reads from this repository");
		return;
	}
	char *path = xasprintf("%s/%s", repo, rel);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	free(path);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		not_found(rs, "no such object in this repository");
		return;
	}
	rs->status = 200;
	rs->type = type;
	rs->fd = fd;
	rs->size = (uint64_t)st.st_size;
}

/*
 * fsutil: directories and whole-file writes. See fsutil.h.
 */
#include "fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int fsutil_mkdir_p(const char *dir)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
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
	if (!ret && (stat(p.buf, &st) || !S_ISDIR(st.st_mode))) {
		errno = ENOTDIR;
		ret = -1;
	}
	strbuf_release(&p);
	return ret;
}

static int write_fd(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

int fsutil_write(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (write_fd(fd, data, len)) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

int fsutil_write_atomic(const char *path, const char *data, size_t len, struct strbuf *err)
{
	char *tmp = xasprintf("%s.tmp.%d", path, (int)getpid());
	int ret = 0;

	if (fsutil_write(tmp, data, len) || rename(tmp, path)) {
		strbuf_setf(err, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp);
		ret = -1;
	}
	free(tmp);
	return ret;
}

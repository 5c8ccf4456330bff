/*
 * fsutil: directories and whole-file writes. See fsutil.h.
 */
#include "fsutil.h"
#include "proc.h"

#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
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

int fsutil_write_all(int fd, const char *data, size_t len)
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
	if (fsutil_write_all(fd, data, len)) {
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

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

int fsutil_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

int fsutil_lock_fd(int fd, const char *path, double wait, unsigned flags, struct strbuf *err)
{
	bool stoppable = flags & FSUTIL_LOCK_STOP;
	double end = proc_now() + wait;
	char pid[32];

	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR) {
			strbuf_setf(err, "cannot lock '%s': %s", path, strerror(errno));
			return -1;
		}
		if ((stoppable && proc_stop_signal) || proc_now() >= end) {
			ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			if (stoppable && proc_stop_signal)
				strbuf_setf(err, "interrupted by signal %d while waiting for '%s' (process %s has it)",
					    (int)proc_stop_signal, path, *pid ? pid : "(unknown)");
			else
				strbuf_setf(err, "'%s' is in use by process %s (waited %.0f s)", path,
					    *pid ? pid : "(unknown)", wait);
			return -1;
		}
		struct timespec ts = { 0, 100000000L };
		nanosleep(&ts, NULL);
	}
	int n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n) {
		/* who holds it is a courtesy for the message above */
	}
	return 0;
}

int fsutil_lock(const char *path, double wait, struct strbuf *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		strbuf_setf(err, "cannot open the lock '%s': %s", path, strerror(errno));
		return -1;
	}
	if (fsutil_lock_fd(fd, path, wait, 0, err)) {
		close(fd);
		return -1;
	}
	return fd;
}

int fsutil_read_regular(struct strbuf *sb, const char *path, size_t max, struct strbuf *err)
{
	return strbuf_read_bounded(sb, path, max, err);
}

bool fsutil_full(const char *path)
{
	struct statvfs st;

	return !statvfs(path, &st) && st.f_bavail == 0;
}

int fsutil_reserve(const char *path, size_t bytes)
{
	char *zeros = xcalloc(1, bytes);
	int ret = fsutil_write(path, zeros, bytes);

	free(zeros);
	if (ret) {
		int e = errno;
		unlink(path);
		errno = e;
	}
	return ret;
}

void fsutil_release(const char *path)
{
	unlink(path);
}

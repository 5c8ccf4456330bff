/*
 * fsutil: the few file operations several modules need — create a
 * directory and its parents, write a whole file or buffer, replace a file
 * atomically (temp file + rename, so a reader never sees half of it),
 * remove a tree.
 */
#ifndef LKP_FSUTIL_H
#define LKP_FSUTIL_H

#include "../util/strbuf.h"

#include <stdbool.h>

#include <stddef.h>

/* mkdir -p; 0, or -1 with errno set (ENOTDIR when a part is not a directory). */
int fsutil_mkdir_p(const char *dir);

/* Write all of data to fd (retrying short writes and EINTR); 0, or -1 with errno set. */
int fsutil_write_all(int fd, const char *data, size_t len);

/*
 * rm -rf: path and, for a directory, everything below it (symlinks removed,
 * never followed; other file systems mounted below are not entered). 0 (also
 * when nothing is there), or -1 with errno set.
 */
int fsutil_remove_tree(const char *path);

/*
 * An exclusive lock held for as long as the returned fd is open (flock on
 * `path`, created; our pid written into it). Waits up to `wait` seconds for
 * another holder; the fd, or -1 with err saying who holds it ("... is in use
 * by process N"). The fd is close-on-exec; a child forked without exec
 * holds the lock too until it ends.
 */
int fsutil_lock(const char *path, double wait, struct strbuf *err);
/*
 * The same on an open fd (a lock file another module opened): waits up to
 * `wait` seconds — with FSUTIL_LOCK_STOP, no longer once the process's stop
 * flag is set (SIGTERM: "interrupted by signal 15 while waiting for ...").
 * 0, or -1 with err set.
 */
#define FSUTIL_LOCK_STOP 1u
int fsutil_lock_fd(int fd, const char *path, double wait, unsigned flags, struct strbuf *err);

/*
 * Read a file from outside (a job file, a raw output, a result's JSON)
 * into sb, appended: only a regular file (a FIFO would block, /dev/zero
 * never ends; symlinks are followed, to a regular file only) of at most
 * `max` bytes. 0, or -1 with "cannot read 'path': why" in err and errno set.
 */
int fsutil_read_regular(struct strbuf *sb, const char *path, size_t max, struct strbuf *err);

/* Create or truncate `path` and write `len` bytes; 0, or -1 with errno set. */
int fsutil_write(const char *path, const char *data, size_t len);

/* Replace `path` atomically; 0, or -1 with "cannot write 'path': why" in err. */
int fsutil_write_atomic(const char *path, const char *data, size_t len, struct strbuf *err);

/* Whether the file system of `path` has no room left (for us: statvfs's f_bavail is 0). */
bool fsutil_full(const char *path);

/*
 * Room kept on a file system: `path` is made a file of `bytes` real bytes
 * (not a hole), to be removed (fsutil_release) when the room is needed —
 * a run's last words on a disk its test filled. 0, or -1 with errno set.
 */
int fsutil_reserve(const char *path, size_t bytes);
void fsutil_release(const char *path);

#endif

/*
 * box_int: what the files of box share and nobody else may see (box.h is
 * the public API): the commands box.c sends to a box, used by a run too.
 *   box.c      the boxes file; ssh and the commands to a box
 *   box_run.c  one run: boot, wait, check, bring the result home
 */
#ifndef LKP_BOX_INT_H
#define LKP_BOX_INT_H

#include "box.h"
#include "../lib/util/strbuf.h"

#include <stdbool.h>

/*
 * Run argv with stdin in_fd (-1: /dev/null), stdout out_fd (-1: /dev/null),
 * stderr err_fd; ended after timeout seconds (0: never). The exit status,
 * 128+signal, or -1 with err set when it could not start.
 */
int box_spawn(char *const argv[], int in_fd, int out_fd, int err_fd, int timeout, bool *timed_out,
	      struct strbuf *err);

/* The last line of the file behind fd (rewound), trimmed, into out. */
void box_last_line(int fd, struct strbuf *out);

/* All of the file behind fd (rewound) into out. */
void box_read_all(int fd, struct strbuf *out);

/* command on the box over ssh, stdout into out_fd: box_ssh's status, err its last stderr line. */
int box_ssh_to(const struct box *b, const char *command, int in_fd, int out_fd, int timeout, struct strbuf *err);

/* "box NAME (user@host:port): " in front of err; returns -1. */
int box_err(const struct box *b, struct strbuf *err, const char *what);

#endif

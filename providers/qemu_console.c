/*
 * qemu console: a running QEMU's serial console and stderr read from their
 * pipes, line by line, until QEMU closes the console or the watcher says
 * stop — shared by a job's boot (qemu.c) and the KVM probe (qemu_probe.c);
 * and what a console line tells: the kernel's own output, an oops. See
 * qemu.h.
 */
#include "qemu.h"

#include <ctype.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define QERR_KEPT 65536 /* QEMU's stderr kept for a reason: its first 64 KiB */

void qemu_console_init(struct qemu_console *c, int out, int err, struct strbuf *all, struct strbuf *qerr)
{
	memset(c, 0, sizeof(*c));
	c->out = out;
	c->err = err;
	c->all = all;
	c->qerr = qerr;
	strbuf_init(&c->line, 0);
}

/* QEMU's own messages: into the console, where they happened, and kept for the reason. */
static void console_stderr(struct qemu_console *c, const char *buf, size_t n)
{
	if (c->all)
		strbuf_add(c->all, buf, n);
	if (c->qerr && c->qerr->len < QERR_KEPT)
		strbuf_add(c->qerr, buf, n);
}

/* Console bytes: kept, and each whole line to on_line. */
static void console_out(struct qemu_console *c, const char *buf, size_t n)
{
	if (c->all)
		strbuf_add(c->all, buf, n);
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			strbuf_addch(&c->line, buf[i]);
			continue;
		}
		strbuf_rtrim(&c->line);
		c->on_line(c->arg, c->line.buf ? c->line.buf : "");
		strbuf_reset(&c->line);
	}
}

void qemu_console_watch(struct qemu_console *c)
{
	char buf[4096];

	for (;;) {
		struct pollfd p[2] = { { c->out, POLLIN, 0 }, { c->err, POLLIN, 0 } };
		int pr = poll(p, c->err >= 0 ? 2 : 1, 200);
		if (pr > 0 && c->err >= 0 && (p[1].revents & (POLLIN | POLLHUP))) {
			ssize_t n = read(c->err, buf, sizeof(buf));
			if (n > 0) {
				console_stderr(c, buf, (size_t)n);
			} else {
				close(c->err);
				c->err = -1;
			}
		}
		if (pr > 0 && (p[0].revents & (POLLIN | POLLHUP))) {
			ssize_t n = read(c->out, buf, sizeof(buf));
			if (n <= 0)
				break; /* QEMU closed the console: it exited */
			console_out(c, buf, (size_t)n);
		}
		if (c->stop(c->arg))
			break;
	}
}

void qemu_console_drain(struct qemu_console *c)
{
	char buf[4096];

	for (ssize_t n; c->err >= 0 && (n = read(c->err, buf, sizeof(buf))) > 0;)
		console_stderr(c, buf, (size_t)n);
}

void qemu_console_release(struct qemu_console *c)
{
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->out = c->err = -1;
	strbuf_release(&c->line);
}

bool qemu_console_kernel_line(const char *line)
{
	/* printk's "[    0.000000] " (the firmware and the boot loader print none), or a marker of ours */
	const char *s = line;
	if (*s++ == '[') {
		while (*s == ' ')
			s++;
		if (isdigit((unsigned char)*s)) {
			while (isdigit((unsigned char)*s) || *s == '.')
				s++;
			if (*s == ']')
				return true;
		}
	}
	return strstr(line, "@@LKPROBOT ") != NULL;
}

const char *qemu_console_oops(const char *line)
{
	/* how x86's oops, BUG and panic lines start; a WARNING is not one (the kernel goes on) */
	static const char *const starts[] = {
		"Oops: ", "BUG: ", "general protection fault", "invalid opcode: ", "Kernel panic - not syncing", NULL
	};
	for (const char *const *s = starts; *s; s++) {
		const char *hit = strstr(line, *s);
		if (hit)
			return hit;
	}
	return NULL;
}

void qemu_stderr_tail(const struct strbuf *text, struct strbuf *out)
{
	struct strbuf copy = STRBUF_INIT;
	const char *lines[2] = { NULL, NULL };

	strbuf_addstr(&copy, text->buf ? text->buf : "");
	for (char *save = NULL, *s = strtok_r(copy.buf, "\n", &save); s; s = strtok_r(NULL, "\n", &save)) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			continue;
		lines[0] = lines[1];
		lines[1] = s;
	}
	for (int i = 0; i < 2; i++)
		if (lines[i])
			strbuf_addf(out, "%s%s", out->len ? "; " : "", lines[i]);
	strbuf_release(&copy);
}

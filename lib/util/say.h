/*
 * say: the one way lkprobot tells its user something went wrong, on
 * stderr, one line each ("lkprobot: ..." or "lkprobot: warning: ...");
 * what a message quotes (a value with a line break, control characters)
 * is escaped so that it stays one line. Used by the commands (robot/) and
 * the flows (flow/); lib/ itself only returns errors.
 */
#ifndef LKP_SAY_H
#define LKP_SAY_H

/* Print "lkprobot: <msg>" on stderr; returns code (an exit status). */
int say_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "lkprobot: warning: <msg>" on stderr. */
void say_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

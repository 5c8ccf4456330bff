/*
 * calltrace: the call trace behind a dmesg.* row of a comparison — the
 * first trace of that signature (lkp-tests' cut, klog_calltraces) in the
 * kernel log of a run that has the row; what a report quotes under its
 * table and the dashboard shows beside the row.
 */
#ifndef LKP_CALLTRACE_H
#define LKP_CALLTRACE_H

#include "compare.h"
#include "sides.h"

#include <stdbool.h>
#include <stddef.h>

/* Is the row a new oops or WARNING: a dmesg.* failure stat the base's runs lack and side `last`'s have? */
bool calltrace_new_oops(const struct compare_row *r, size_t last);

/*
 * The trace of `metric` (dmesg.<id>) in g's runs: the first run whose value
 * is not 0 (the matrix's stats_source; else the group's run), its dmesg,
 * else kmsg. Newly allocated, each line ending in '\n', valid UTF-8 with
 * the console's other bytes and control characters as \xNN (a mail's body
 * must be UTF-8: one stray byte would stop the report); NULL: none.
 */
char *calltrace_of(const struct group *g, const char *metric);

#endif

/*
 * lkpetc: the data lkp-tests decides with — its etc/ files, shipped as
 * lkprobot's lkp-etc/ (see lkp-etc/README) — loaded once: which stats a
 * comparison shows (stat-denylist, stat-allowlist, report-allowlist),
 * which are perf metrics (perf-metrics-prefixes, -patterns) and their
 * floors (perf-metrics-threshold.yaml), which way is better (the index
 * files: index-perf-all.yaml ...), which are failure stats (failure,
 * pass), and what the kernel log parser looks for (oops-pattern,
 * oops-pattern-ignore, linux-device-names, kmsg-denylist.raw).
 *
 * The files come from <data dir>/lkp-etc/; a file of the same name in
 * $LKPROBOT_LKP_ETC (default /etc/lkprobot/lkp-etc) replaces one, whole.
 * Regexes are lkp-tests' (Ruby's), read as POSIX extended regexes by
 * lkpetc_regcomp(). Loading is lazy and thread-safe; a command calls
 * lkpetc_load() first to turn a bad file into its one-line error.
 * Knows nothing of stats, compare or the kernel log.
 */
#ifndef LKP_LKPETC_H
#define LKP_LKPETC_H

#include "../util/strbuf.h"

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* Where lkp-etc/ is: the data directory (jobs/, hosts/, lkp-etc/). Before any load. */
void lkpetc_set_dir(const char *data_dir);

/* Load now (once; later calls return the first outcome). 0, or -1 with one line in err. */
int lkpetc_load(struct strbuf *err);

/*
 * A Ruby regex (as lkp-tests' files and code write them) compiled as a
 * POSIX extended one: \d \h become classes, a { or } that is no
 * repetition count is literal, \X of punctuation is X. 0, or -1 with
 * "regex: why" in err.
 */
int lkpetc_regcomp(regex_t *re, const char *ruby, int cflags, struct strbuf *err);

/* One pattern of a list, with a literal prefix that settles most lookups without regexec. */
struct lkpetc_re {
	char *src;		/* as the file writes it */
	char *lit;		/* the literal text the pattern starts with ("" when none) */
	size_t litlen;
	bool anchored;		/* starts with ^ (lit must be at the start) */
	bool lit_only;		/* nothing after lit (or only ".*"): a match of lit is a match */
	char *need;		/* a literal every match contains (NULL: none known) */
	bool compiled;
	regex_t re;
};

struct lkpetc_list {
	struct lkpetc_re *v;
	size_t n;
	size_t *by_first[256];	/* the patterns a text starting with this byte may match */
	size_t nby_first[256];
};

/* Does any pattern of the list match (anywhere, unless it anchors itself)? */
bool lkpetc_list_match(const struct lkpetc_list *l, const char *text);
/*
 * Ruby's leftmost-first match of the list's alternation: the match that
 * starts first, the earlier pattern of those starting there. Its bounds
 * in *so, *eo. false: none.
 */
bool lkpetc_list_first(const struct lkpetc_list *l, const char *text, size_t *so, size_t *eo);

/* The selection (lkp-tests' lib/stats.rb, lib/perf_metrics.rb). */
bool lkpetc_bisectable(const char *stat);	/* in stat-allowlist, or not in stat-denylist */
bool lkpetc_report_allowed(const char *stat);	/* in report-allowlist */
bool lkpetc_perf_metric(const char *stat);	/* perf-metrics-prefixes or -patterns */
bool lkpetc_failure(const char *stat);		/* matches ^<a line of failure> */
bool lkpetc_pass(const char *stat);		/* matches ^<a line of pass> */
/*
 * The first perf-metrics-threshold.yaml entry whose ^regex$ matches: its
 * floor, and whether it is a whole number (lkp-tests then also wants the
 * change of the medians to reach half of it, in integer division).
 */
bool lkpetc_threshold(const char *stat, double *floor, bool *whole);
/*
 * Which way is better for stat, by lkp-tests' index files (regex ->
 * weight; the first whose ^regex$ matches, index-perf-all.yaml first, as
 * lib/stats.rb's kpi_stat_direction asks): +1 higher is better (a positive
 * weight), -1 lower is better, 0 no file says.
 */
int lkpetc_direction(const char *stat);

/* The kernel log's (lkp-tests' lib/dmesg.rb). */
const struct lkpetc_list *lkpetc_oops(void);		/* oops-pattern */
const struct lkpetc_list *lkpetc_oops_ignore(void);	/* oops-pattern-ignore */
/* linux-device-names, and kmsg-denylist.raw (fixed strings): NULL-terminated */
const char *const *lkpetc_device_names(void);
const char *const *lkpetc_kmsg_denylist(void);

#endif

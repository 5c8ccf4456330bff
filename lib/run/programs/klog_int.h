/*
 * klog_int: what the files of the klog programs share and nobody else may
 * see (programs.h declares klog_parse_dmesg and klog_parse_kmsg):
 *   klog.c           the programs: dmesg, kmsg, boot-time, uptime, last_state
 *   klog_parse.c     the dmesg and kmsg stats: lines, oopses, error ids
 *   klog_patterns.c  lib/dmesg.rb's regexes, as text
 *   klog_selftest.c  the boot self-tests' results (kmsg)
 */
#ifndef LKP_KLOG_INT_H
#define LKP_KLOG_INT_H

/* lib/dmesg.rb's regexes, by what uses them */
enum {
	/* fixup_dmesg */
	R_KBUILD, R_TMP_KBUILD, R_ISRA_0X, R_NO_SPLIT, R_SPLIT,
	/* grep_crash_head */
	R_LOCKDEP, R_LOCKDEP_CONTEXT, R_OOM, R_CALLTRACE, R_CALLTRACE_IGNORE, R_CALLTRACE_FUNC,
	/* the parse loop */
	R_STAMP, R_STAMP_LAST, R_HEX16, R_HEX4, R_HEX8,
	/* preprocess_line */
	R_FACILITY, R_CALLER, R_LEADING,
	/* handle_composite_patterns */
	R_COMP_LOCKS, R_COMP_BLOCKED,
	/* handle_complex_patterns */
	R_X_WARNING, R_X_AT, R_X_UBSAN, R_X_SMP_ID, R_X_ADDR, R_X_KEY, R_X_DENTRY, R_X_BACKTRACE, R_X_CALLTRACE,
	R_X_LOWMEM, R_X_LOWMEM_PHYS, R_X_LOWMEM_EQ, R_X_KOBJECT, R_X_KOBJECT_SUB, R_X_RSS, R_X_PAGETABLE,
	R_X_SLAB, R_X_END, R_X_SEGFAULT,
	/* oops_to_bisect_pattern */
	R_W_ISRA, R_W_0X, R_W_EQ, R_W_FILE, R_W_OTHER,
	/* generate_error_id and common_error_id */
	R_G_BRACKET, R_G_KTESTS, R_G_CWFG, R_G_LKP, R_G_KTLINUX, R_G_ISRA, R_G_BLOCKDEV, R_G_DEVICES, R_G_HEX8,
	R_G_HEX16, R_G_EQHEX, R_G_OFFSET0X, R_G_OFFSET, R_G_TAINTED, R_C_VERSION, R_C_DATE, R_C_HEX, R_C_SHA1,
	R_C_NUMBER, R_C_HASHX, R_C_QUOTE, R_C_BLANK, R_C_SPACES, R_C_AFTER, R_C_BEFORE, R_C_LEADING, R_C_TRAILING,
	R_G_LINENO, R_G_RIPADDR, R_G_WORDNUM1, R_G_WORDNUM2,
	/* grep_printk_errors (kmsg) */
	R_K_PRINTK, R_K_ANSI, R_K_SANITIZER, R_K_LEAK, R_K_FRAME,
	R_COUNT
};

/* The Ruby source of each regex; NULL for R_G_DEVICES, built from lkp-etc's device names. */
extern const char *const klog_rx_src[R_COUNT];

/* handle_simple_patterns: how many and their Ruby source */
#define KLOG_NSIMPLE 26
extern const char *const *const klog_simple_src;

struct stats_samples;
struct strbuf;

/* stat_unittest: the kernel's boot self-tests in the log's lines as <case>.pass samples; 0 or -1 (err). */
int klog_selftests(char *const *lines, size_t n, struct stats_samples *out, struct strbuf *err);

#endif

/*
 * interrupts: the /proc/interrupts monitor and its parser, after
 * lkp-tests' programs/interrupts/{monitor,parse}.
 *
 * The monitor writes "time: <s>.<ns>" and /proc/interrupts when it starts
 * and when it is stopped (and every `interval` seconds if the job sets
 * one). The parser emits, per snapshot, `time`, then for every line
 * `CPU<n>.<key>` per CPU column and `<key>` = the sum, where key is
 * "<irq>:" + the chip/name fields joined by '.' for numbered IRQs
 * ("35:PCI-MSI.524288-edge.eth0", with ",." made ",") and "<NAME>:" + the
 * description joined by '_' for the others ("CAL:Function_call_interrupts");
 * a line with a single count ("ERR:          0") gives `ERR`.
 */
#include "../monitor.h"
#include "../program.h"
#include "../run.h"
#include "../../stats/stats.h"
#include "programs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const interrupts_options[] = {
	"interval", NULL,
};

/* Split a line in place into words. */
static size_t interrupts_split(char *line, char ***w, size_t *alloc)
{
	size_t n = 0;
	char *save = NULL;

	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		ALLOC_GROW(*w, n + 1, *alloc);
		(*w)[n++] = t;
	}
	return n;
}

static bool interrupts_is_cpu(const char *s)
{
	if (strncmp(s, "CPU", 3) || !s[3])
		return false;
	for (s += 3; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool interrupts_is_count(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* What the parser keeps from line to line: the CPU columns of the last header line. */
struct interrupts_state {
	char **cpus;
	size_t ncpus;
	struct strbuf key, name;
};

static void interrupts_free_cpus(struct interrupts_state *st)
{
	for (size_t i = 0; i < st->ncpus; i++)
		free(st->cpus[i]);
	free(st->cpus);
	st->cpus = NULL;
	st->ncpus = 0;
}

/* "           CPU0       CPU1": the columns of the lines that follow. */
static int interrupts_header(struct interrupts_state *st, char **w, size_t n, size_t lineno, struct strbuf *err)
{
	interrupts_free_cpus(st);
	st->cpus = xcalloc(n, sizeof(*st->cpus));
	st->ncpus = n;
	for (size_t i = 0; i < n; i++) {
		if (!interrupts_is_cpu(w[i])) {
			strbuf_setf(err, "interrupts: line %zu: '%s' in the CPU header line", lineno, w[i]);
			return -1;
		}
		st->cpus[i] = xstrdup(w[i]);
	}
	return 0;
}

/* st->key: "35:" + fields joined by '.' (",." made ","), "CAL:" + words joined by '_' */
static void interrupts_key(struct interrupts_state *st, char **w, size_t n)
{
	size_t klen = strlen(w[0]);
	bool numbered = true;

	for (size_t i = 0; i + 1 < klen; i++)
		if (!isdigit((unsigned char)w[0][i]))
			numbered = false;
	strbuf_reset(&st->key);
	for (size_t i = st->ncpus + 1; i < n; i++) {
		if (i > st->ncpus + 1)
			strbuf_addch(&st->key, numbered ? '.' : '_');
		strbuf_addstr(&st->key, w[i]);
	}
	strbuf_setf(&st->name, "%s", w[0]);
	for (size_t i = 0; i < st->key.len; i++) {
		strbuf_addch(&st->name, st->key.buf[i]);
		if (numbered && st->key.buf[i] == ',' && st->key.buf[i + 1] == '.')
			i++; /* one left-to-right pass, as Ruby's gsub */
	}
	strbuf_reset(&st->key);
	strbuf_addstr(&st->key, st->name.buf);
}

/* An interrupt's line: "<key>: <count>" (ERR:), or a count per CPU and its name. */
static int interrupts_counts(struct interrupts_state *st, char **w, size_t n, size_t lineno, struct stats_samples *out,
			     struct strbuf *err)
{
	size_t klen = strlen(w[0]);

	if (klen < 2 || w[0][klen - 1] != ':') {
		strbuf_setf(err, "interrupts: line %zu: '%s' is neither an interrupt line nor a CPU header", lineno,
			    w[0]);
		return -1;
	}
	if (!st->ncpus) {
		strbuf_setf(err, "interrupts: line %zu: counts before the CPU header line", lineno);
		return -1;
	}
	if (n == 2) {
		/* "ERR:          0" */
		strbuf_reset(&st->key);
		strbuf_add(&st->key, w[0], klen - 1);
		if (!interrupts_is_count(w[1]) || stats_add_text(out, st->key.buf, w[1], err)) {
			strbuf_setf(err, "interrupts: line %zu: %s count '%s' is not a number", lineno, st->key.buf,
				    w[1]);
			return -1;
		}
		return 0;
	}
	if (n < st->ncpus + 1) {
		strbuf_setf(err, "interrupts: line %zu: %s has %zu counts for %zu CPUs", lineno, w[0], n - 1,
			    st->ncpus);
		return -1;
	}
	interrupts_key(st, w, n);
	unsigned long long sum = 0;
	for (size_t i = 0; i < st->ncpus; i++) {
		if (!interrupts_is_count(w[i + 1])) {
			strbuf_setf(err, "interrupts: line %zu: %s count '%s' of %s is not a number", lineno, w[0],
				    w[i + 1], st->cpus[i]);
			return -1;
		}
		sum += strtoull(w[i + 1], NULL, 10);
		strbuf_setf(&st->name, "%s.%s", st->cpus[i], st->key.buf);
		if (stats_add_text(out, st->name.buf, w[i + 1], err))
			return -1;
	}
	return stats_add(out, st->key.buf, (double)sum, false, err) ? -1 : 0;
}

/* One line of words (a monitor_line_fn; ctx: the state): the CPUs' header or an interrupt's counts. */
static int interrupts_line(void *ctx, char **w, size_t n, size_t lineno, struct stats_samples *out, struct strbuf *err)
{
	struct interrupts_state *st = ctx;

	return interrupts_is_cpu(w[0]) ? interrupts_header(st, w, n, lineno, err)
				       : interrupts_counts(st, w, n, lineno, out, err);
}

static int interrupts_parse(const char *text, size_t len, struct stats_samples *out, struct strbuf *err)
{
	struct interrupts_state st = { .key = STRBUF_INIT, .name = STRBUF_INIT };
	int ret = monitor_parse_lines(text, len, "interrupts", "/proc/interrupts text", interrupts_split,
				      interrupts_line, &st, out, err);

	interrupts_free_cpus(&st);
	strbuf_release(&st.key);
	strbuf_release(&st.name);
	return ret;
}

static int interrupts_monitor(struct run *r, const struct program *p, int out_fd)
{
	/* lkp-tests: no interval = one snapshot before and one after the test */
	return monitor_proc_file(r, p, "/proc/interrupts", 0, MONITOR_SNAP_NSEC, out_fd);
}

const struct program program_interrupts = {
	.version = PROGRAM_VERSION,
	.name = "interrupts",
	.kind = PROGRAM_MONITOR,
	.summary = "/proc/interrupts before and after the test (interval: also every N s): each IRQ per CPU and summed",
	.options = interrupts_options,
	.monitor = interrupts_monitor,
	.parse = interrupts_parse,
};

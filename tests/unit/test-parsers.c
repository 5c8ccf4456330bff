/*
 * Unit tests: the raw-output parsers and monitors of lib/programs/
 * (vmstat, time, interrupts, proc-vmstat, meminfo, turbostat, fio) and
 * lib/monitor, on outputs captured from the real tools
 * (tests/fixtures/tools/, see its README). Each parser is checked against
 * numbers read from its fixture, against what lkp-tests' own Ruby parser
 * printed for the same file (*.lkp), and on cut or garbled copies.
 *
 * `test-parsers capture PROGRAM SECONDS FILE` runs a monitor for SECONDS,
 * stops it with SIGTERM and leaves its raw output in FILE (how the
 * monitor fixtures were made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/util/json.h"
#include "../../lib/run/monitor.h"
#include "../../lib/run/program.h"
#include "../../lib/run/programs/programs.h"
#include "../../lib/run/run.h"
#include "../../lib/stats/lkpetc.h"
#include "../../lib/stats/stats.h"
#include "../../lib/util/yml.h"

typedef int (*parse_fn)(const char *, size_t, struct stats_samples *, struct strbuf *);

/* ---- helpers ---------------------------------------------------------- */

static char fixture_dir[4096];

static void find_fixtures(const char *argv0)
{
	(void)argv0;
	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "tools");
}

static void load(struct strbuf *sb, const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path))
		fail_msg("cannot read fixture %s", path);
}

static const struct program *prog(const char *name)
{
	const struct program *p = program_find(name);
	assert_non_null(p);
	return p;
}

static parse_fn parser(const char *name)
{
	const struct program *p = prog(name);
	assert_non_null(p->parse);
	return p->parse;
}

/* Parse a fixture; the parser must succeed. */
static void parse_ok(parse_fn fn, const char *name, struct stats_samples *ss)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

	load(&text, name);
	stats_samples_init(ss);
	if (fn(text.buf, text.len, ss, &err))
		fail_msg("%s: %s", name, err.buf);
	assert_int_equal(err.len, 0);
	strbuf_release(&text);
	strbuf_release(&err);
}

/* The parser must refuse text: -1 with a one-line message containing `what`. */
static void parse_bad(parse_fn fn, const char *text, size_t len, const char *what)
{
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;

	stats_samples_init(&ss);
	assert_int_equal(fn(text, len, &ss, &err), -1);
	assert_true(err.len > 0);
	assert_null(strchr(err.buf, '\n'));
	if (what && !strstr(err.buf, what))
		fail_msg("error '%s' does not mention '%s'", err.buf, what);
	stats_samples_release(&ss);
	strbuf_release(&err);
}

static void parse_bad_fixture(parse_fn fn, const char *name, const char *what)
{
	struct strbuf text = STRBUF_INIT;

	load(&text, name);
	parse_bad(fn, text.buf, text.len, what);
	strbuf_release(&text);
}

static const struct stats_series *series(const struct stats_samples *ss, const char *key)
{
	const struct stats_series *se = stats_find(ss, key);
	if (!se)
		fail_msg("no series '%s'", key);
	return se;
}

static double value(const struct stats_samples *ss, const char *key, size_t i)
{
	const struct stats_series *se = series(ss, key);
	if (i >= se->n)
		fail_msg("series '%s' has %zu samples, not %zu", key, se->n, i + 1);
	return se->v[i];
}

static void assert_close(double a, double b)
{
	if (!(fabs(a - b) <= 1e-9 * fmax(1, fmax(fabs(a), fabs(b)))))
		fail_msg("%.17g != %.17g", a, b);
}

/*
 * The samples equal what lkp-tests' parser printed for the same file
 * (`<fixture>.lkp`, "key: value" lines): same keys in the same order,
 * same sample counts, values and integer/float kinds.
 */
static void same_as_lkp_text(const struct stats_samples *ss, const char *lkp_file, const char *lkp_text)
{
	struct strbuf err = STRBUF_INIT;
	struct stats_samples want;

	stats_samples_init(&want);
	if (stats_add_lines(&want, lkp_text, &err))
		fail_msg("%s: %s", lkp_file, err.buf);
	for (size_t i = 0; i < want.n && i < ss->n; i++) {
		const struct stats_series *w = &want.s[i], *g = &ss->s[i];
		if (strcmp(w->key, g->key))
			fail_msg("%s: series %zu is '%s', lkp-tests has '%s'", lkp_file, i, g->key, w->key);
		if (w->n != g->n)
			fail_msg("%s: %s has %zu samples, lkp-tests %zu", lkp_file, w->key, g->n, w->n);
		if (w->is_float != g->is_float)
			fail_msg("%s: %s is %s, lkp-tests prints %s", lkp_file, w->key,
				 g->is_float ? "float" : "integer", w->is_float ? "float" : "integer");
		for (size_t k = 0; k < w->n; k++)
			if (!(fabs(w->v[k] - g->v[k]) <= 1e-12 * fmax(1, fabs(w->v[k]))))
				fail_msg("%s: %s[%zu] = %.17g, lkp-tests %.17g", lkp_file, w->key, k,
					 g->v[k], w->v[k]);
	}
	if (want.n != ss->n)
		fail_msg("%s: %zu series, lkp-tests %zu", lkp_file, ss->n, want.n);
	stats_samples_release(&want);
	strbuf_release(&err);
}

static void same_as_lkp(const struct stats_samples *ss, const char *lkp_file)
{
	struct strbuf text = STRBUF_INIT;

	load(&text, lkp_file);
	same_as_lkp_text(ss, lkp_file, text.buf);
	strbuf_release(&text);
}

/* The numbers of the line starting with `prefix` in a fixture, as text. */
static long long fixture_field(const char *text, const char *prefix, int field)
{
	const char *l = text;

	while (l && *l) {
		if (!strncmp(l, prefix, strlen(prefix))) {
			const char *p = l;
			for (int i = 0; i <= field; i++) {
				while (*p == ' ' || *p == '\t')
					p++;
				if (i == field)
					return strtoll(p, NULL, 10);
				p += strcspn(p, " \t\n");
			}
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	fail_msg("no line '%s' in the fixture", prefix);
	return 0;
}

/* The number right after `label` in a fixture ("\tSwaps: 0" -> 0). */
static long long fixture_after(const char *text, const char *label)
{
	const char *l = strstr(text, label);
	if (!l)
		fail_msg("no '%s' in the fixture", label);
	return strtoll(l + strlen(label), NULL, 10);
}

static bool json_has_prefix(const struct node *m, const char *prefix)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strncmp(m->keys[i], prefix, strlen(prefix)))
			return true;
	return false;
}

static const struct node *json_series(const struct node *m, const char *key)
{
	const struct node *n = node_get(m, key);
	if (!n || n->type != NODE_SEQ)
		fail_msg("no '%s' array in the program JSON", key);
	return n;
}

/* ---- monitors: fork, stop, collect ------------------------------------ */

struct monitor_run {
	struct node *job;
	struct run r;
};

static void monitor_run_init(struct monitor_run *mr, const char *job_yaml)
{
	struct strbuf err = STRBUF_INIT;

	memset(mr, 0, sizeof(*mr));
	mr->job = yml_load_one(job_yaml, "job", &err);
	if (!mr->job)
		fail_msg("job: %s", err.buf);
	mr->r.job = mr->job;
	mr->r.root = "/tmp";
	strbuf_release(&err);
}

/*
 * Run p->monitor in a child for `ms` milliseconds, then SIGTERM it; its
 * raw output lands in `out`, what it said on stderr in `said` (if not
 * NULL). Returns the child's exit status (or 128+signal).
 */
static int run_monitor_said(const struct program *p, const char *job_yaml, int ms,
			    struct strbuf *out, struct strbuf *said)
{
	struct monitor_run mr;
	char path[] = "/tmp/lkp-monitor-XXXXXX", epath[] = "/tmp/lkp-monitor-err-XXXXXX";
	int fd = mkstemp(path), efd = mkstemp(epath), status;
	pid_t pid;

	if (fd < 0 || efd < 0)
		fail_msg("mkstemp: %s", strerror(errno));
	monitor_run_init(&mr, job_yaml);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(efd, 2);
		_exit(p->monitor(&mr.r, p, fd) & 0xff);
	}
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts))
		;
	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0)
		;
	close(fd);
	close(efd);
	strbuf_reset(out);
	strbuf_read_file(out, path);
	if (said) {
		strbuf_reset(said);
		strbuf_read_file(said, epath);
	}
	unlink(path);
	unlink(epath);
	node_free(mr.job);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_monitor(const struct program *p, const char *job_yaml, int ms, struct strbuf *out)
{
	struct strbuf said = STRBUF_INIT;
	int rc = run_monitor_said(p, job_yaml, ms, out, &said);

	if (rc)
		fprintf(stderr, "(%s said: %s)", p->name, said.buf);
	else if (said.len)
		fail_msg("%s exited 0 but said: %s", p->name, said.buf);
	strbuf_release(&said);
	return rc;
}

/* One line on stderr, mentioning `what`. */
static void said_one_line(const struct strbuf *said, const char *what)
{
	if (!said->len || said->buf[said->len - 1] != '\n' || strchr(said->buf, '\n') != said->buf + said->len - 1)
		fail_msg("not one line: '%s'", said->buf);
	if (!strstr(said->buf, what))
		fail_msg("'%s' does not mention '%s'", said->buf, what);
}

/* ---- fio ---------------------------------------------------------------- */

static double jnum(const struct node *root, const char *op, const char *a, const char *b,
		   const char *c)
{
	const struct node *n = json_path(root, "jobs", "0", op, a, b, c, NULL);
	double v;
	if (!n || !json_number(n, &v))
		fail_msg("no number at jobs[0].%s.%s.%s.%s", op, a, b ? b : "", c ? c : "");
	return v;
}

static struct node *fio_json(const struct strbuf *text)
{
	struct strbuf err = STRBUF_INIT;
	const char *j = text->buf;

	while (*j != '{')
		j = strchr(j, '\n') + 1;
	struct node *root = json_parse(j, text->len - (size_t)(j - text->buf), "fixture", &err);
	if (!root)
		fail_msg("fixture JSON: %s", err.buf);
	strbuf_release(&err);
	return root;
}

/* The op's metrics equal the same numbers read from the fixture's JSON. */
static void check_fio_op(const struct stats_samples *ss, const struct node *root, const char *op)
{
	char k[64];

	snprintf(k, sizeof(k), "%s_bw_MBps", op);
	assert_close(value(ss, k, 0), jnum(root, op, "bw", NULL, NULL) / 1024);
	assert_true(series(ss, k)->is_float);
	snprintf(k, sizeof(k), "%s_iops", op);
	assert_close(value(ss, k, 0), jnum(root, op, "iops", NULL, NULL));
	snprintf(k, sizeof(k), "%s_clat_mean_ns", op);
	assert_close(value(ss, k, 0), jnum(root, op, "clat_ns", "mean", NULL));
	snprintf(k, sizeof(k), "%s_clat_stddev", op);
	assert_close(value(ss, k, 0), jnum(root, op, "clat_ns", "stddev", NULL));
	snprintf(k, sizeof(k), "%s_clat_90%%_ns", op);
	assert_close(value(ss, k, 0), jnum(root, op, "clat_ns", "percentile", "90.000000"));
	assert_false(series(ss, k)->is_float);
	snprintf(k, sizeof(k), "%s_clat_95%%_ns", op);
	assert_close(value(ss, k, 0), jnum(root, op, "clat_ns", "percentile", "95.000000"));
	snprintf(k, sizeof(k), "%s_clat_99%%_ns", op);
	assert_close(value(ss, k, 0), jnum(root, op, "clat_ns", "percentile", "99.000000"));
	snprintf(k, sizeof(k), "%s_slat_mean_us", op);
	assert_close(value(ss, k, 0), jnum(root, op, "slat_ns", "mean", NULL));
	snprintf(k, sizeof(k), "%s_slat_stddev", op);
	assert_close(value(ss, k, 0), jnum(root, op, "slat_ns", "stddev", NULL));
}

static void test_fio_parse_write_only(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	parse_ok(fio_parse, "fio-write.json", &ss);
	load(&text, "fio-write.json");
	struct node *root = fio_json(&text);
	check_fio_op(&ss, root, "write");
	assert_true(value(&ss, "write_bw_MBps", 0) > 0);
	assert_close(value(&ss, "workload", 0), jnum(root, "write", "total_ios", NULL, NULL));
	assert_close(value(&ss, "workload", 0), 8192);	/* 2 jobs x 16 MiB / 4 KiB */
	assert_close(value(&ss, "read_bw_MBps", 0), 0);

	struct node *pj = stats_program_json(&ss, "fio");
	assert_non_null(pj);
	json_series(pj, "fio.write_bw_MBps");
	json_series(pj, "fio.write_iops");
	json_series(pj, "fio.write_clat_mean_ns");
	json_series(pj, "fio.write_clat_99%_ns");
	json_series(pj, "fio.workload");
	assert_false(json_has_prefix(pj, "fio.read_"));	/* zero series dropped */
	assert_int_equal(json_series(pj, "fio.write_bw_MBps")->n, 1);
	node_free(pj);
	node_free(root);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_fio_parse_read_after_notes(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* fio prints "note: ..." lines on stdout before the JSON */
	load(&text, "fio-read.json");
	assert_true(!strncmp(text.buf, "note: ", 6));
	parse_ok(fio_parse, "fio-read.json", &ss);
	struct node *root = fio_json(&text);
	check_fio_op(&ss, root, "read");
	assert_close(value(&ss, "workload", 0), jnum(root, "read", "total_ios", NULL, NULL));
	struct node *pj = stats_program_json(&ss, "fio");
	json_series(pj, "fio.read_iops");
	assert_false(json_has_prefix(pj, "fio.write_"));
	node_free(pj);
	node_free(root);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_fio_parse_randrw(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	parse_ok(fio_parse, "fio-randrw.json", &ss);
	load(&text, "fio-randrw.json");
	struct node *root = fio_json(&text);
	check_fio_op(&ss, root, "read");
	check_fio_op(&ss, root, "write");
	assert_true(value(&ss, "read_slat_mean_us", 0) > 0);	/* libaio: real submission latency */
	assert_close(value(&ss, "workload", 0), jnum(root, "read", "total_ios", NULL, NULL) +
						     jnum(root, "write", "total_ios", NULL, NULL));
	double v;
	assert_true(json_number(json_path(root, "jobs", "0", "latency_ms", "2", NULL), &v));
	assert_close(value(&ss, "latency_2ms%", 0), v);
	assert_true(json_number(json_path(root, "jobs", "0", "latency_us", "250", NULL), &v));
	assert_close(value(&ss, "latency_250us%", 0), v);
	series(&ss, "latency_>=2000ms%");
	series(&ss, "latency_2000ms%");
	/* lkp-tests' order: read, write, latency_us, latency_ms, workload */
	assert_string_equal(ss.s[0].key, "read_bw_MBps");
	assert_string_equal(ss.s[ss.n - 1].key, "workload");
	same_as_lkp(&ss, "fio-randrw.json.lkp");
	node_free(root);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_fio_parse_same_as_lkp(void **state)
{
	struct stats_samples ss;
	(void)state;

	parse_ok(fio_parse, "fio-write.json", &ss);
	same_as_lkp(&ss, "fio-write.json.lkp");
	stats_samples_release(&ss);
	parse_ok(fio_parse, "fio-read.json", &ss);
	same_as_lkp(&ss, "fio-read.json.lkp");
	stats_samples_release(&ss);
}

/* Parse each text with fio's parser and combine them as instances 1..n. */
static void fio_instances(const char *const *texts, size_t n, struct stats_samples *out)
{
	struct stats_samples inst[4];
	long ids[4];
	struct strbuf err = STRBUF_INIT;

	assert_true(n <= 4);
	for (size_t i = 0; i < n; i++) {
		stats_samples_init(&inst[i]);
		ids[i] = (long)i + 1;
		if (fio_parse(texts[i], strlen(texts[i]), &inst[i], &err))
			fail_msg("instance %zu: %s", i + 1, err.buf);
	}
	stats_samples_init(out);
	if (prog("fio")->combine(inst, ids, n, out, &err))
		fail_msg("combine: %s", err.buf);
	for (size_t i = 0; i < n; i++)
		stats_samples_release(&inst[i]);
	strbuf_release(&err);
}

/*
 * nr_instances: two fios at once (iodepth 1 and 4), fio.output.1 and .2,
 * combined as lkp-tests' parse combines them (RESULT_ROOT with both).
 */
static void test_fio_instances_same_as_lkp(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	struct stats_samples ss, one;
	(void)state;

	load(&a, "fio-instances.output.1");
	load(&b, "fio-instances.output.2");
	fio_instances((const char *const[]){ a.buf, b.buf }, 2, &ss);
	same_as_lkp(&ss, "fio-instances.lkp");
	/* iops add up, latencies average, each instance's own under .instanceN */
	parse_ok(fio_parse, "fio-instances.output.1", &one);
	assert_close(value(&ss, "read_iops.instance1", 0), value(&one, "read_iops", 0));
	assert_true(value(&ss, "read_iops", 0) > value(&one, "read_iops", 0));
	assert_close(value(&ss, "read_clat_mean_ns", 0) * 2,
		     value(&one, "read_clat_mean_ns", 0) + value(&ss, "read_clat_mean_ns.instance2", 0));
	stats_samples_release(&one);
	stats_samples_release(&ss);
	strbuf_release(&a);
	strbuf_release(&b);
}

/*
 * lkp-tests' own inputs (spec/fixtures/stats/fio: three fio outputs and a
 * two-instance result root), read from a checkout when LKP_SRC names one:
 * our parse equals lkp-tests' N.yaml. Skipped without LKP_SRC.
 */
static void test_fio_lkp_spec_fixtures(void **state)
{
	static const char *const single[] = { "01", "02", "03" };
	const char *src = getenv("LKP_SRC");
	struct strbuf path = STRBUF_INIT, raw = STRBUF_INIT, raw2 = STRBUF_INIT, want = STRBUF_INIT;
	struct strbuf err = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	if (!src || !*src)
		skip();
	for (size_t i = 0; i < ARRAY_SIZE(single); i++) {
		strbuf_setf(&path, "%s/spec/fixtures/stats/fio/%s", src, single[i]);
		strbuf_reset(&raw);
		assert_int_equal(strbuf_read_file(&raw, path.buf), 0);
		strbuf_addstr(&path, ".yaml");
		strbuf_reset(&want);
		assert_int_equal(strbuf_read_file(&want, path.buf), 0);
		stats_samples_init(&ss);
		if (fio_parse(raw.buf, raw.len, &ss, &err))
			fail_msg("%s: %s", path.buf, err.buf);
		same_as_lkp_text(&ss, path.buf, want.buf);
		stats_samples_release(&ss);
	}
	strbuf_setf(&path, "%s/spec/fixtures/stats/fio/fio-multi-instance/fio.output.1", src);
	strbuf_reset(&raw);
	assert_int_equal(strbuf_read_file(&raw, path.buf), 0);
	path.buf[path.len - 1] = '2';
	assert_int_equal(strbuf_read_file(&raw2, path.buf), 0);
	strbuf_setf(&path, "%s/spec/fixtures/stats/fio/fio-multi-instance.yaml", src);
	strbuf_reset(&want);
	assert_int_equal(strbuf_read_file(&want, path.buf), 0);
	fio_instances((const char *const[]){ raw.buf, raw2.buf }, 2, &ss);
	same_as_lkp_text(&ss, path.buf, want.buf);
	stats_samples_release(&ss);
	strbuf_release(&path);
	strbuf_release(&raw);
	strbuf_release(&raw2);
	strbuf_release(&want);
	strbuf_release(&err);
}

/* The "key: number" lines of a parser's output (comments and message:/pattern: texts left out). */
static void numeric_lines(const char *text, struct stats_samples *out)
{
	struct strbuf err = STRBUF_INIT, line = STRBUF_INIT;

	stats_samples_init(out);
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");
		const char *sep;

		strbuf_reset(&line);
		strbuf_add(&line, p, n);
		p += n + (p[n] == '\n');
		sep = strstr(line.buf, ": ");
		if (line.buf[0] == '#' || !sep)
			continue;
		line.buf[sep - line.buf] = 0;
		if (strtod(sep + 2, NULL) == 0 && strcmp(sep + 2, "0") && strcmp(sep + 2, "0.0"))
			continue;
		if (stats_add_text(out, line.buf, sep + 2, &err))
			strbuf_reset(&err); /* a message's text: not a number */
	}
	strbuf_release(&err);
	strbuf_release(&line);
}

/*
 * lkp-tests' own kernel logs (spec/fixtures/stats/dmesg/N and kmsg/N, the
 * kmsg ones read as its boot test on a vm- box reads them, self-tests
 * included), from a checkout when LKP_SRC names one: the numbers our dmesg
 * and kmsg parsers give are N.yaml's, key for key. Skipped without LKP_SRC.
 */
static void test_klog_lkp_spec_fixtures(void **state)
{
	static const char *const progs[] = { "dmesg", "kmsg" };
	const char *src = getenv("LKP_SRC");
	struct strbuf path = STRBUF_INIT, raw = STRBUF_INIT, want = STRBUF_INIT, err = STRBUF_INIT;
	size_t checked = 0;
	(void)state;

	if (!src || !*src)
		skip();
	for (size_t pi = 0; pi < ARRAY_SIZE(progs); pi++) {
		strbuf_setf(&path, "%s/spec/fixtures/stats/%s", src, progs[pi]);
		DIR *d = opendir(path.buf);
		struct dirent *de;

		assert_non_null(d);
		while ((de = readdir(d))) {
			struct stats_samples ours, theirs;

			if (de->d_name[0] == '.' || strchr(de->d_name, '.'))
				continue;
			strbuf_setf(&path, "%s/spec/fixtures/stats/%s/%s", src, progs[pi], de->d_name);
			strbuf_reset(&raw);
			strbuf_reset(&want);
			assert_int_equal(strbuf_read_file(&raw, path.buf), 0);
			strbuf_addstr(&path, ".yaml");
			assert_int_equal(strbuf_read_file(&want, path.buf), 0);
			stats_samples_init(&ours);
			if (parser(progs[pi])(raw.buf, raw.len, &ours, &err))
				fail_msg("%s: %s", path.buf, err.buf);
			numeric_lines(want.buf, &theirs);
			for (size_t i = 0; i < theirs.n; i++) {
				const struct stats_series *a = &theirs.s[i], *b = stats_find(&ours, a->key);

				if (!b)
					fail_msg("%s: %s missing", path.buf, a->key);
				if (a->n != b->n || fabs(a->v[0] - b->v[0]) > 1e-9)
					fail_msg("%s: %s = %g, lkp-tests %g", path.buf, a->key, b->v[0], a->v[0]);
			}
			for (size_t i = 0; i < ours.n; i++)
				if (!stats_find(&theirs, ours.s[i].key))
					fail_msg("%s: %s is not lkp-tests'", path.buf, ours.s[i].key);
			stats_samples_release(&ours);
			stats_samples_release(&theirs);
			checked++;
		}
		closedir(d);
	}
	assert_true(checked >= 10);
	strbuf_release(&path);
	strbuf_release(&raw);
	strbuf_release(&want);
	strbuf_release(&err);
}

/*
 * kmsg's boot self-test keys: a unit test of lkp-tests' rules (its
 * stat_unittest) on lines written in the kernel's format — no kernel built
 * here runs its boot self-tests; lkp-tests' own capture is checked by
 * test_klog_lkp_spec_fixtures under LKP_SRC.
 */
static void test_kmsg_selftests(void **state)
{
	static const char log[] =
		"[    6.602542][    T1] Testing tracer nop: PASSED\n"
		"[    6.639444][    T1] prandom: 100 self tests passed\n"
		"[   65.498946][    T1] test_hexdump: all 1184 tests passed\n"
		"[   74.723110][    T1] IDA: 147357 of 147357 tests passed\n"
		"[   75.100000][    T1] test_meminit: all 11 tests in test_pages passed\n"
		"[   31.298444][    T1] Testing event initcall_finish: OK\n"
		"[  100.013275][    T1] Running tests again, along with the function tracer\n"
		"[  101.381916][    T1] Testing event initcall_finish: OK\n"
		"[  186.735200][    T1] Testing ftrace filter: OK\n"
		"[  187.000000][    T1] Testing event initcall_finish: OK\n"
		"[  424.814141][    T1] ### dt-test ### FAIL of_unittest_lifecycle():3294\n"
		"[  424.814142][    T1] ### dt-test ### pass of_unittest_lifecycle():3294\n"
		"[  429.000000][    T1] Kernel tests: Boot OK!\n"
		"[  430.000000][    T1] Testing tracer late: PASSED\n";
	static const char *const want[] = {
		"tracer_nop.pass",
		"test_hexdump.pass",
		"ida.pass",
		"test_meminit.test_pages.pass",
		"event_initcall_finish.pass",
		"function_tracer.event_initcall_finish.pass",
		"function_tracer.ftrace_filter.pass",
		"of-unittest.of_unittest_lifecycle_3294.pass",
	};
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;
	size_t pass = 0;
	(void)state;

	stats_samples_init(&ss);
	if (parser("kmsg")(log, strlen(log), &ss, &err))
		fail_msg("%s", err.buf);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		assert_close(value(&ss, want[i], 0), 1);
	for (size_t i = 0; i < ss.n; i++)
		pass += strstr(ss.s[i].key, ".pass") != NULL;
	/* none for prandom's "self tests", the second plain initcall_finish, the dt-test
	 * overwritten to pass, or after "Kernel tests: Boot OK" */
	assert_int_equal(pass, ARRAY_SIZE(want));
	assert_null(stats_find(&ss, "of-unittest.of_unittest_lifecycle_3294.fail"));
	assert_null(stats_find(&ss, "tracer_late.pass"));
	stats_samples_release(&ss);
	strbuf_release(&err);
}

/* Our cut of a kernel log's call traces, each followed by the separator line of the .calltraces fixtures. */
static void calltraces_text(const char *log, size_t len, struct strbuf *out, struct klog_trace **t, size_t *n)
{
	*n = klog_calltraces(log, len, t);
	for (size_t i = 0; i < *n; i++) {
		strbuf_add(out, (*t)[i].text.buf, (*t)[i].text.len);
		strbuf_addstr(out, "=== lkp-tests' get_crash_calltraces: end of one ===\n");
	}
}

/*
 * Call traces: a real guest's WARNING (tests/fixtures/klog) cut as
 * lkp-tests' get_crash_calltraces cuts it (its output: *.calltraces), the
 * trace found by the dmesg stat of the whole log. lkp-tests' spec logs,
 * under LKP_SRC, were compared with Ruby when this was written.
 */
static void test_klog_calltraces(void **state)
{
	struct strbuf log = STRBUF_INIT, want = STRBUF_INIT, got = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	struct klog_trace *t;
	size_t n;
	const char *warn = NULL;
	char dir[4096], path[8192];
	(void)state;

	testlib_fixture_dir(dir, sizeof(dir), "klog");
	snprintf(path, sizeof(path), "%s/dmesg-warning-6.1.0-57", dir);
	assert_int_equal(strbuf_read_file(&log, path), 0);
	snprintf(path, sizeof(path), "%s/dmesg-warning-6.1.0-57.calltraces", dir);
	assert_int_equal(strbuf_read_file(&want, path), 0);
	calltraces_text(log.buf, log.len, &got, &t, &n);
	/* the serial console's CRs are dropped (lkp-tests keeps them): a mail quotes the lines */
	for (size_t i = 0, j = 0; i <= want.len; i++)
		if (want.buf[i] != '\r')
			want.buf[j++] = want.buf[i];
	assert_string_equal(got.buf, want.buf);
	assert_int_equal(n, 1);
	stats_samples_init(&ss);
	assert_int_equal(klog_parse_dmesg(log.buf, log.len, &ss, &err), 0);
	for (size_t i = 0; i < ss.n; i++)
		if (!strncmp(ss.s[i].key, "WARNING:", 8))
			warn = ss.s[i].key;
	assert_non_null(warn);
	assert_ptr_equal(klog_trace_of(t, n, warn), &t[0]);
	assert_null(klog_trace_of(t, n, "BUG:no_such_thing"));
	klog_traces_release(t, n);
	/* no trace in a log without one; a cut log keeps what it has */
	assert_int_equal(klog_calltraces("[ 1.0] hello\n", 13, &t), 0);
	klog_traces_release(t, 0);
	n = klog_calltraces(log.buf, (size_t)(strstr(log.buf, "Call Trace:") - log.buf), &t);
	assert_int_equal(n, 1);
	assert_null(strstr(t[0].text.buf, "end trace"));
	klog_traces_release(t, n);
	stats_samples_release(&ss);
	strbuf_release(&log);
	strbuf_release(&want);
	strbuf_release(&got);
	strbuf_release(&err);
}

static void test_fio_parse_rejects(void **state)
{
	struct strbuf text = STRBUF_INIT;
	(void)state;

	parse_bad_fixture(fio_parse, "fio-randrw-truncated.json", "truncated JSON");
	parse_bad_fixture(fio_parse, "fio-write-garbled.json", "fio:");
	load(&text, "fio-write.json");
	const char *json = strstr(text.buf, "\n{") + 1;
	parse_bad(fio_parse, text.buf, text.len / 3, "truncated");
	parse_bad(fio_parse, text.buf, (size_t)(json - text.buf) + 1, "truncated");
	parse_bad(fio_parse, text.buf, text.len - 3, "truncated");
	parse_bad(fio_parse, text.buf, (size_t)(json - text.buf), "no JSON");
	parse_bad(fio_parse, "", strlen(""), "no JSON");
	parse_bad(fio_parse, "fio: failed to open file\n", strlen("fio: failed to open file\n"), "no JSON");
	parse_bad(fio_parse, "{\"jobs\": []}\n", strlen("{\"jobs\": []}\n"), "jobs[0]");
	parse_bad(fio_parse, "{\"jobs\": [{\"read\": {\"bw\": \"fast\"}}]}\n", strlen("{\"jobs\": [{\"read\": {\"bw\": \"fast\"}}]}\n"), "bw");
	parse_bad(fio_parse, "{\"jobs\": [{\"read\": {\"bw\": 1, \"iops\": 2}}]}\n", strlen("{\"jobs\": [{\"read\": {\"bw\": 1, \"iops\": 2}}]}\n"), "clat");
	strbuf_release(&text);
}

/* ---- time --------------------------------------------------------------- */

/*
 * latency_stats reads a line when lkp-tests' pattern /[0-9]+ [0-9]+ [0-9]+
 * [a-zA-Z]+/ is found anywhere in it: its own words, not a fixture of the
 * tool (this machine's kernel has no CONFIG_LATENCYTOP). A line of 200,000
 * digits is read in one pass (glibc's regexec took minutes on it).
 */
static void test_latency_stats_pattern(void **state)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	strbuf_addstr(&text,
		      "Latency Top version : v0.1\n"
		      "70 3085 1124 pipe_read vfs_read\n"
		      "5 10 7 9abc\n" /* a function that does not start with a letter */
		      "4 100 60 pipe_read vfs_read\n"
		      "2  4 6 poll\n"); /* two spaces: not the pattern */
	for (int i = 0; i < 200000; i++)
		strbuf_addch(&text, '7');
	strbuf_addstr(&text, " 1 2\n");
	stats_samples_init(&ss);
	if (parser("latency_stats")(text.buf, text.len, &ss, &err))
		fail_msg("%s", err.buf);
	assert_close(value(&ss, "hits.pipe_read.vfs_read", 0), 74);
	assert_close(value(&ss, "sum.pipe_read.vfs_read", 0), 3185);
	assert_close(value(&ss, "max.pipe_read.vfs_read", 0), 1124);
	assert_close(value(&ss, "hits.max", 0), 74);
	assert_null(stats_find(&ss, "hits.9abc"));
	assert_null(stats_find(&ss, "hits.poll"));
	stats_samples_release(&ss);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void test_time_parse_gnu_time(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	parse_fn fn = parser("time");
	(void)state;

	parse_ok(fn, "time-dd.txt", &ss);
	load(&text, "time-dd.txt");
	assert_close(value(&ss, "user_time", 0), 0.00);
	assert_true(series(&ss, "user_time")->is_float);
	assert_close(value(&ss, "system_time", 0), 0.44);
	assert_close(value(&ss, "percent_of_cpu_this_job_got", 0), 72);
	assert_false(series(&ss, "percent_of_cpu_this_job_got")->is_float);
	assert_close(value(&ss, "elapsed_time", 0), 0.61);
	assert_true(series(&ss, "elapsed_time")->is_float);
	assert_close(value(&ss, "maximum_resident_set_size", 0),
		     (double)fixture_after(text.buf, "\tMaximum resident set size (kbytes):"));
	assert_close(value(&ss, "file_system_outputs", 0),
		     (double)fixture_after(text.buf, "\tFile system outputs:"));
	assert_close(value(&ss, "minor_page_faults", 0),
		     (double)fixture_after(text.buf, "\tMinor (reclaiming a frame) page faults:"));
	assert_close(value(&ss, "page_size", 0), 4096);
	assert_close(value(&ss, "exit_status", 0), 0);
	series(&ss, "average_shared_text_size");
	series(&ss, "major_page_faults");
	series(&ss, "voluntary_context_switches");
	series(&ss, "socket_messages_received");
	series(&ss, "signals_delivered");
	assert_int_equal(ss.n, 22);
	same_as_lkp(&ss, "time-dd.txt.lkp");
	stats_samples_release(&ss);

	parse_ok(fn, "time-fail.txt", &ss);
	assert_close(value(&ss, "exit_status", 0), 2);
	same_as_lkp(&ss, "time-fail.txt.lkp");
	stats_samples_release(&ss);
	parse_ok(fn, "time-cpu.txt", &ss);
	assert_true(value(&ss, "user_time", 0) > 0.1);
	same_as_lkp(&ss, "time-cpu.txt.lkp");
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_time_parse_concatenated(void **state)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* the result root's `time` file: every <test>.time one after the other */
	load(&a, "time-dd.txt");
	load(&b, "time-fail.txt");
	strbuf_add(&a, b.buf, b.len);
	stats_samples_init(&ss);
	assert_int_equal(parser("time")(a.buf, a.len, &ss, &err), 0);
	assert_int_equal(series(&ss, "exit_status")->n, 2);
	assert_close(value(&ss, "exit_status", 0), 0);
	assert_close(value(&ss, "exit_status", 1), 2);
	assert_close(value(&ss, "system_time", 0), 0.44);
	stats_samples_release(&ss);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&err);
}

static void test_time_format_rusage_as_gnu_time(void **state)
{
	struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
	struct rusage ru;
	(void)state;

	/* the rusage behind time-dd.txt gives GNU time's text byte for byte */
	load(&text, "time-dd.txt");
	memset(&ru, 0, sizeof(ru));
	ru.ru_utime.tv_usec = 4000;		/* 0.00 */
	ru.ru_stime.tv_usec = 441234;		/* 0.44 */
	ru.ru_maxrss = fixture_after(text.buf, "\tMaximum resident set size (kbytes):");
	ru.ru_majflt = fixture_after(text.buf, "\tMajor (requiring I/O) page faults:");
	ru.ru_minflt = fixture_after(text.buf, "\tMinor (reclaiming a frame) page faults:");
	ru.ru_nvcsw = fixture_after(text.buf, "\tVoluntary context switches:");
	ru.ru_nivcsw = fixture_after(text.buf, "\tInvoluntary context switches:");
	ru.ru_inblock = fixture_after(text.buf, "\tFile system inputs:");
	ru.ru_oublock = fixture_after(text.buf, "\tFile system outputs:");
	time_format_rusage(&out, "dd if=/dev/zero of=/tmp/lkpfix/dd.out bs=1M count=256 conv=fsync",
			   &ru, 0.6149, 0);
	assert_string_equal(out.buf, text.buf);

	/* and a failed command the same way */
	load(&text, "time-fail.txt");
	memset(&ru, 0, sizeof(ru));
	ru.ru_maxrss = fixture_after(text.buf, "\tMaximum resident set size (kbytes):");
	ru.ru_minflt = fixture_after(text.buf, "\tMinor (reclaiming a frame) page faults:");
	ru.ru_nvcsw = fixture_after(text.buf, "\tVoluntary context switches:");
	ru.ru_nivcsw = fixture_after(text.buf, "\tInvoluntary context switches:");
	ru.ru_majflt = fixture_after(text.buf, "\tMajor (requiring I/O) page faults:");
	ru.ru_inblock = fixture_after(text.buf, "\tFile system inputs:");
	ru.ru_oublock = fixture_after(text.buf, "\tFile system outputs:");
	strbuf_reset(&out);
	time_format_rusage(&out, "ls /nonexistent", &ru, 0.001, 2);
	assert_true(!strncmp(out.buf, "Command exited with non-zero status 2\n", 38));
	assert_non_null(strstr(out.buf, "\tExit status: 2\n"));
	strbuf_release(&text);
	strbuf_release(&out);
}

static void test_time_format_rusage_roundtrip(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	struct rusage ru;
	(void)state;

	memset(&ru, 0, sizeof(ru));
	ru.ru_utime.tv_sec = 3725;
	ru.ru_utime.tv_usec = 999999;		/* 3725.99 (GNU time truncates) */
	ru.ru_stime.tv_sec = 12;
	ru.ru_stime.tv_usec = 345678;
	ru.ru_maxrss = 123456;
	ru.ru_minflt = 777;
	ru.ru_majflt = 3;
	ru.ru_nvcsw = 1000;
	ru.ru_nivcsw = 20;
	ru.ru_inblock = 8;
	ru.ru_oublock = 16;
	time_format_rusage(&out, "vm-scalability", &ru, 3723.5, 0);	/* 1:02:03 */
	assert_non_null(strstr(out.buf, "\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03\n"));
	stats_samples_init(&ss);
	assert_int_equal(parser("time")(out.buf, out.len, &ss, &err), 0);
	assert_close(value(&ss, "user_time", 0), 3725.99);
	assert_close(value(&ss, "system_time", 0), 12.34);
	assert_close(value(&ss, "elapsed_time", 0), 3723);
	/* (3725999 + 12345) ms * 100 / 3723500 ms */
	assert_close(value(&ss, "percent_of_cpu_this_job_got", 0), 100);
	assert_close(value(&ss, "maximum_resident_set_size", 0), 123456);
	assert_close(value(&ss, "minor_page_faults", 0), 777);
	assert_close(value(&ss, "major_page_faults", 0), 3);
	assert_close(value(&ss, "voluntary_context_switches", 0), 1000);
	assert_close(value(&ss, "involuntary_context_switches", 0), 20);
	assert_close(value(&ss, "file_system_inputs", 0), 8);
	assert_close(value(&ss, "file_system_outputs", 0), 16);
	assert_close(value(&ss, "page_size", 0), (double)sysconf(_SC_PAGESIZE));
	assert_close(value(&ss, "exit_status", 0), 0);
	assert_int_equal(ss.n, 22);
	stats_samples_release(&ss);

	/* no time at all: "?%", read as 0; a failed test; m:ss.cc */
	memset(&ru, 0, sizeof(ru));
	strbuf_reset(&out);
	time_format_rusage(&out, "true", &ru, 0, 1);
	assert_non_null(strstr(out.buf, "Percent of CPU this job got: ?%\n"));
	time_format_rusage(&out, "sleep", &ru, 75.256, 0);
	assert_non_null(strstr(out.buf, "(h:mm:ss or m:ss): 1:15.25\n"));
	stats_samples_init(&ss);
	assert_int_equal(parser("time")(out.buf, out.len, &ss, &err), 0);
	assert_close(value(&ss, "percent_of_cpu_this_job_got", 0), 0);
	assert_close(value(&ss, "exit_status", 0), 1);
	assert_close(value(&ss, "elapsed_time", 1), 75.25);
	assert_close(value(&ss, "exit_status", 1), 0);
	stats_samples_release(&ss);

	/* killed by a signal: GNU time's wording, exit status 0 */
	strbuf_reset(&out);
	time_format_rusage(&out, "fio", &ru, 1, -9);
	assert_true(!strncmp(out.buf, "Command terminated by signal 9\n", 31));
	assert_non_null(strstr(out.buf, "\tExit status: 0\n"));
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_time_parse_rejects(void **state)
{
	struct strbuf text = STRBUF_INIT;
	parse_fn fn = parser("time");
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	parse_bad_fixture(fn, "time-dd-truncated.txt", "truncated");
	load(&text, "time-dd.txt");
	/* cut inside "Maximum resident set size (kbytes): 2884": never a wrong 28 */
	const char *cut = strstr(text.buf, "(kbytes): 2884") + 12;
	parse_bad(fn, text.buf, (size_t)(cut - text.buf), "truncated");
	/* cut at a line end before the Exit status line */
	cut = strstr(text.buf, "\tSwaps:");
	parse_bad(fn, text.buf, (size_t)(cut - text.buf), "Exit status");
	parse_bad(fn, "\tUser time (seconds): fast\n\tExit status: 0\n", strlen("\tUser time (seconds): fast\n\tExit status: 0\n"), "not a number");
	const char *el = "\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:2:3:4\n\tExit status: 0\n";
	parse_bad(fn, el, strlen(el), "elapsed");
	parse_bad(fn, "hello\n", strlen("hello\n"), "Exit status");
	stats_samples_init(&ss);
	assert_int_equal(fn("", 0, &ss, &err), 0);
	assert_int_equal(ss.n, 0);
	stats_samples_release(&ss);
	strbuf_release(&err);
	strbuf_release(&text);
}

/* ---- vmstat ------------------------------------------------------------- */

static void test_vmstat_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	parse_fn fn = parser("vmstat");
	(void)state;

	parse_ok(fn, "vmstat.txt", &ss);
	load(&text, "vmstat.txt");
	static const char *const keys[] = {
		"time", "procs.r", "procs.b", "memory.swpd", "memory.free", "memory.buff",
		"memory.cache", "swap.si", "swap.so", "io.bi", "io.bo", "system.in", "system.cs",
		"cpu.us", "cpu.sy", "cpu.id", "cpu.wa", "cpu.st",
	};
	assert_int_equal(ss.n, ARRAY_SIZE(keys));
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		assert_string_equal(ss.s[i].key, keys[i]);
		assert_int_equal(ss.s[i].n, 4);		/* 4 lines, the since-boot one included */
	}
	/* the first data line (third line of the file), field by field */
	const char *l1 = strchr(strchr(text.buf, '\n') + 1, '\n') + 1;
	char date[16], hms[16];
	long long f[17];
	assert_int_equal(sscanf(l1, "%lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %15s %15s",
				&f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7], &f[8], &f[9],
				&f[10], &f[11], &f[12], &f[13], &f[14], &f[15], &f[16], date, hms), 19);
	for (size_t i = 0; i < 17; i++)
		assert_close(value(&ss, keys[i + 1], 0), (double)f[i]);
	struct tm tm = { 0 };
	assert_non_null(strptime(date, "%Y-%m-%d", &tm));
	assert_non_null(strptime(hms, "%H:%M:%S", &tm));
	assert_close(value(&ss, "time", 0), (double)timegm(&tm));
	assert_close(value(&ss, "time", 3) - value(&ss, "time", 0), 3);
	same_as_lkp(&ss, "vmstat.txt.lkp");

	struct node *pj = stats_program_json(&ss, "vmstat");
	assert_int_equal(json_series(pj, "vmstat.time")->n, 4);
	assert_int_equal(json_series(pj, "vmstat.memory.free")->n, 4);
	json_series(pj, "vmstat.system.in");
	json_series(pj, "vmstat.cpu.id");
	assert_null(node_get(pj, "vmstat.swap.si"));	/* all zero: dropped */
	node_free(pj);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_vmstat_parse_columns_by_name(void **state)
{
	struct stats_samples ss;
	parse_fn fn = parser("vmstat");
	(void)state;

	/* vmstat -a: inact/active where buff/cache are; lkp-tests would misname them */
	parse_ok(fn, "vmstat-a.txt", &ss);
	series(&ss, "memory.inact");
	series(&ss, "memory.active");
	assert_null(stats_find(&ss, "memory.buff"));
	assert_int_equal(series(&ss, "cpu.st")->n, 3);
	stats_samples_release(&ss);
	/* vmstat -w: "--procs--", wider columns, and procps' newer cpu.gu */
	parse_ok(fn, "vmstat-w.txt", &ss);
	assert_int_equal(series(&ss, "memory.cache")->n, 3);
	assert_int_equal(series(&ss, "cpu.gu")->n, 3);
	assert_int_equal(series(&ss, "time")->n, 3);
	same_as_lkp(&ss, "vmstat-w.txt.lkp");
	stats_samples_release(&ss);
}

static void test_vmstat_parse_rejects(void **state)
{
	struct strbuf text = STRBUF_INIT, cut = STRBUF_INIT, err = STRBUF_INIT;
	parse_fn fn = parser("vmstat");
	struct stats_samples ss;
	(void)state;

	parse_bad_fixture(fn, "vmstat-truncated.txt", "truncated");
	/* two lines run together */
	parse_bad_fixture(fn, "vmstat-garbled.txt", "fields");
	load(&text, "vmstat.txt");
	/* cut inside the last line, at every byte of it */
	const char *last = text.buf + text.len - 1;
	while (last[-1] != '\n')
		last--;
	for (const char *c = last + 1; c < text.buf + text.len; c++)
		parse_bad(fn, text.buf, (size_t)(c - text.buf), "vmstat");
	/* data without the header lines */
	const char *l1 = strchr(strchr(text.buf, '\n') + 1, '\n') + 1;
	parse_bad(fn, l1, strlen(l1), "header");
	/* a line with a field missing (header kept) */
	strbuf_add(&cut, text.buf, (size_t)(l1 - text.buf));
	strbuf_addstr(&cut, " 1  0      0 23779868  11548 802000    0    0   531   214  233  440  8 10 81  0 2026-11-30 06:02:51\n");
	parse_bad(fn, cut.buf, cut.len, "fields");
	/* only the header: no samples, no error */
	stats_samples_init(&ss);
	assert_int_equal(fn(text.buf, (size_t)(l1 - text.buf), &ss, &err), 0);
	assert_int_equal(ss.n, 0);
	assert_int_equal(fn("", 0, &ss, &err), 0);
	assert_int_equal(ss.n, 0);
	stats_samples_release(&ss);
	strbuf_release(&text);
	strbuf_release(&cut);
	strbuf_release(&err);
}

/* ---- interrupts ----------------------------------------------------------- */

static void test_interrupts_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	parse_fn fn = parser("interrupts");
	(void)state;

	parse_ok(fn, "interrupts", &ss);
	load(&text, "interrupts");
	assert_int_equal(series(&ss, "time")->n, 2);		/* before and after */
	assert_true(series(&ss, "time")->is_float);		/* date +%s.%N, as lkp-tests */
	/* first snapshot's LOC line, per CPU and summed */
	double c0 = (double)fixture_field(text.buf, "LOC:", 1);
	double c1 = (double)fixture_field(text.buf, "LOC:", 2);
	assert_close(value(&ss, "CPU0.LOC:Local_timer_interrupts", 0), c0);
	assert_close(value(&ss, "CPU1.LOC:Local_timer_interrupts", 0), c1);
	assert_close(value(&ss, "LOC:Local_timer_interrupts", 0), c0 + c1);
	assert_true(value(&ss, "LOC:Local_timer_interrupts", 1) >= c0 + c1);
	series(&ss, "CAL:Function_call_interrupts");
	series(&ss, "CPU0.RES:Rescheduling_interrupts");
	series(&ss, "NMI:Non-maskable_interrupts");
	series(&ss, "ERR");
	series(&ss, "24:IO-APIC.5-edge.ACPI:Ged");
	series(&ss, "CPU1.36:PCI-MSIX-0000:00:02.0.1-edge.virtio1-req.0");
	same_as_lkp(&ss, "interrupts.lkp");

	struct node *pj = stats_program_json(&ss, "interrupts");
	json_series(pj, "interrupts.CPU0.LOC:Local_timer_interrupts");
	json_series(pj, "interrupts.CAL:Function_call_interrupts");
	json_series(pj, "interrupts.time");
	assert_null(node_get(pj, "interrupts.ERR"));	/* zero */
	node_free(pj);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_interrupts_parse_rejects(void **state)
{
	struct strbuf text = STRBUF_INIT;
	parse_fn fn = parser("interrupts");
	(void)state;

	parse_bad_fixture(fn, "interrupts-truncated", "truncated");
	parse_bad_fixture(fn, "interrupts-garbled", "not a number");
	load(&text, "interrupts");
	/* the counts without the CPU header line */
	const char *l = strstr(text.buf, " 24:");
	parse_bad(fn, l, strlen(l), "CPU header");
	const char *one = "           CPU0       CPU1\n 24:          1  IO-APIC   5-edge      ACPI:Ged\n";
	parse_bad(fn, one, strlen(one), "not a number");
	const char *three = "           CPU0\n LOC:  12 13 14 Local timer\n";	/* 1 CPU: 13 is no word */
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;
	stats_samples_init(&ss);
	assert_int_equal(fn(three, strlen(three), &ss, &err), 0);
	series(&ss, "LOC:13_14_Local_timer");
	/* a single count is lkp-tests' "ERR: 0" form, with any CPU count */
	const char *err_line = "           CPU0       CPU1\nERR:          3\n";
	assert_int_equal(fn(err_line, strlen(err_line), &ss, &err), 0);
	assert_close(value(&ss, "ERR", 0), 3);
	stats_samples_release(&ss);
	strbuf_release(&err);
	parse_bad(fn, "time: soon\n", strlen("time: soon\n"), "time");
	strbuf_release(&text);
}

/* ---- proc-vmstat ---------------------------------------------------------- */

static void test_proc_vmstat_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	parse_fn fn = parser("proc-vmstat");
	(void)state;

	parse_ok(fn, "proc-vmstat", &ss);
	load(&text, "proc-vmstat");
	size_t snaps = series(&ss, "time")->n;
	assert_true(snaps >= 3);	/* 2 s at 1 s, plus the one when stopped */
	assert_close(value(&ss, "nr_free_pages", 0), (double)fixture_field(text.buf, "nr_free_pages ", 1));
	assert_close(value(&ss, "pgfault", 0), (double)fixture_field(text.buf, "pgfault ", 1));
	assert_int_equal(series(&ss, "pgfault")->n, snaps);
	assert_int_equal(series(&ss, "nr_free_pages")->n, snaps);
	same_as_lkp(&ss, "proc-vmstat.lkp");
	struct node *pj = stats_program_json(&ss, "proc-vmstat");
	json_series(pj, "proc-vmstat.pgfault");
	json_series(pj, "proc-vmstat.nr_free_pages");
	node_free(pj);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_proc_vmstat_parse_rejects(void **state)
{
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;
	parse_fn fn = parser("proc-vmstat");
	(void)state;

	parse_bad_fixture(fn, "proc-vmstat-truncated", "truncated");
	parse_bad_fixture(fn, "proc-vmstat-garbled", "proc-vmstat");
	parse_bad(fn, "time: 1\nnr_free_pages\n", strlen("time: 1\nnr_free_pages\n"), "counter value");
	/* a counter the kernel lists twice counts once per snapshot */
	stats_samples_init(&ss);
	assert_int_equal(fn("time: 1\na 1\na 2\ntime: 2\na 3\n", 28, &ss, &err), 0);
	assert_int_equal(series(&ss, "a")->n, 2);
	assert_close(value(&ss, "a", 1), 3);
	stats_samples_release(&ss);
	strbuf_release(&err);
}

/* ---- meminfo -------------------------------------------------------------- */

static void test_meminfo_parse(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	parse_fn fn = parser("meminfo");
	(void)state;

	parse_ok(fn, "meminfo", &ss);
	load(&text, "meminfo");
	size_t snaps = series(&ss, "time")->n;
	assert_true(snaps >= 3);
	double total = (double)fixture_field(text.buf, "MemTotal:", 1);
	double free0 = (double)fixture_field(text.buf, "MemFree:", 1);
	assert_close(value(&ss, "MemTotal", 0), total);
	assert_close(value(&ss, "MemFree", 0), free0);
	assert_close(value(&ss, "Memused", 0), total - free0);
	assert_close(value(&ss, "max_used_kB", 0), total - free0);
	assert_close(value(&ss, "Active(anon)", 0), (double)fixture_field(text.buf, "Active(anon):", 1));
	series(&ss, "HugePages_Total");
	assert_int_equal(series(&ss, "Memused")->n, snaps);
	/*
	 * Used memory rose and fell while the fixture was captured: each
	 * snapshot's Memused is MemTotal - its MemFree, and max_used_kB the
	 * highest so far (not the lowest, the first or the last).
	 */
	const char *at = text.buf;
	double most = 0;
	for (size_t i = 0; i < snaps; i++) {
		at = strstr(at, "\nMemFree:");
		assert_non_null(at);
		at++;
		double used = total - (double)fixture_field(at, "MemFree:", 1);
		most = used > most ? used : most;
		assert_close(value(&ss, "Memused", i), used);
		assert_close(value(&ss, "max_used_kB", i), most);
	}
	assert_true(value(&ss, "Memused", snaps - 1) < most);
	assert_true(value(&ss, "Memused", 0) < most);
	same_as_lkp(&ss, "meminfo.lkp");
	struct node *pj = stats_program_json(&ss, "meminfo");
	json_series(pj, "meminfo.MemTotal");
	json_series(pj, "meminfo.Memused");
	json_series(pj, "meminfo.max_used_kB");
	node_free(pj);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_meminfo_parse_rejects(void **state)
{
	parse_fn fn = parser("meminfo");
	(void)state;

	parse_bad_fixture(fn, "meminfo-truncated", "truncated");
	parse_bad_fixture(fn, "meminfo-garbled", "meminfo");
	parse_bad(fn, "time: 1\nMemFree: 12 kB\n", strlen("time: 1\nMemFree: 12 kB\n"), "MemTotal");
	parse_bad(fn, "time: 1\nMemTotal 12 kB\n", strlen("time: 1\nMemTotal 12 kB\n"), "Field");
}

/* ---- turbostat ------------------------------------------------------------ */

static void test_turbostat_parse_rejects(void **state)
{
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;
	parse_fn fn = parser("turbostat");
	(void)state;

	/* what turbostat prints in this VM: no summary at all */
	parse_bad_fixture(fn, "turbostat-vm.txt", "no summary");
	parse_bad(fn, "Avg_MHz\tBusy%\n12\t1.5\t3\n", strlen("Avg_MHz\tBusy%\n12\t1.5\t3\n"), "values");
	parse_bad(fn, "Avg_MHz\tBusy%\n12\tbusy\n", strlen("Avg_MHz\tBusy%\n12\tbusy\n"), "not a number");
	/* the monitor was unavailable: an empty raw file has no samples */
	stats_samples_init(&ss);
	assert_int_equal(fn("", 0, &ss, &err), 0);
	assert_int_equal(ss.n, 0);
	assert_int_equal(fn("x\tBusy%\n*\t-\n", 12, &ss, &err), 0);
	assert_int_equal(ss.n, 0);
	stats_samples_release(&ss);
	strbuf_release(&err);
}

/* ---- monitors ------------------------------------------------------------- */

static void test_vmstat_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	const struct program *p = prog("vmstat");
	time_t t0 = time(NULL);
	(void)state;

	assert_non_null(p->monitor);
	assert_int_equal(run_monitor(p, "vmstat:\n", 2300, &out), 0);
	stats_samples_init(&ss);
	if (p->parse(out.buf, out.len, &ss, &err))
		fail_msg("%s\n%s", err.buf, out.buf);
	size_t n = series(&ss, "time")->n;
	assert_true(n >= 2 && n <= 4);
	/* TZ=UTC: the timestamps are the real epoch */
	assert_true(fabs(value(&ss, "time", 0) - (double)t0) <= 2);
	assert_int_equal(series(&ss, "memory.free")->n, n);
	assert_true(value(&ss, "memory.free", n - 1) > 0);
	stats_samples_release(&ss);

	/* a bad interval is a failure with a message, not a silent default */
	struct strbuf said = STRBUF_INIT;
	assert_int_equal(run_monitor_said(p, "vmstat:\n  interval: 0.5\n", 100, &out, &said), 2);
	said_one_line(&said, "interval");
	assert_int_equal(run_monitor_said(p, "vmstat:\n  interval: often\n", 100, &out, &said), 2);
	said_one_line(&said, "often");
	strbuf_release(&said);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_proc_vmstat_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	const struct program *p = prog("proc-vmstat");
	(void)state;

	assert_int_equal(run_monitor(p, "proc-vmstat:\n", 2300, &out), 0);
	stats_samples_init(&ss);
	if (p->parse(out.buf, out.len, &ss, &err))
		fail_msg("%s", err.buf);
	/* at 0, 1, 2 s and when stopped (the interrupts test pins the last one down) */
	size_t n = series(&ss, "time")->n;
	assert_true(n >= 3 && n <= 4);
	assert_int_equal(series(&ss, "pgfault")->n, n);
	assert_false(series(&ss, "time")->is_float);
	stats_samples_release(&ss);

	/* interval: 0.5 from the job */
	assert_int_equal(run_monitor(p, "proc-vmstat:\n  interval: 0.5\n", 1200, &out), 0);
	stats_samples_init(&ss);
	assert_int_equal(p->parse(out.buf, out.len, &ss, &err), 0);
	assert_true(series(&ss, "time")->n >= 4);
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_interrupts_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	const struct program *p = prog("interrupts");
	(void)state;

	/* no interval: one snapshot at the start, one when stopped */
	assert_int_equal(run_monitor(p, "interrupts:\n", 1200, &out), 0);
	stats_samples_init(&ss);
	assert_int_equal(p->parse(out.buf, out.len, &ss, &err), 0);
	assert_int_equal(series(&ss, "time")->n, 2);
	assert_true(value(&ss, "time", 1) - value(&ss, "time", 0) >= 1.0);
	assert_int_equal(series(&ss, "LOC:Local_timer_interrupts")->n, 2);
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_meminfo_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	const struct program *p = prog("meminfo");
	(void)state;

	assert_int_equal(run_monitor(p, "meminfo:\n  interval: 1\n", 1300, &out), 0);
	stats_samples_init(&ss);
	assert_int_equal(p->parse(out.buf, out.len, &ss, &err), 0);
	assert_int_equal(series(&ss, "time")->n, 3);
	assert_int_equal(series(&ss, "Memused")->n, 3);
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_turbostat_monitor(void **state)
{
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples ss;
	const struct program *p = prog("turbostat");
	(void)state;

	struct strbuf said = STRBUF_INIT;
	int rc = run_monitor_said(p, "turbostat:\n", 1200, &out, &said);
	stats_samples_init(&ss);
	if (rc == MONITOR_UNAVAILABLE) {
		/* this VM: no msr driver; one line says why, nothing was written */
		said_one_line(&said, "turbostat: ");
		assert_int_equal(out.len, 0);
		assert_int_equal(p->parse(out.buf, out.len, &ss, &err), 0);
		assert_int_equal(ss.n, 0);
	} else {
		/* a machine with MSRs: one summary for the whole run */
		assert_int_equal(rc, 0);
		if (p->parse(out.buf, out.len, &ss, &err))
			fail_msg("%s", err.buf);
		series(&ss, "Busy%");
	}
	strbuf_release(&said);
	stats_samples_release(&ss);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_monitor_snapshots_unavailable(void **state)
{
	pid_t pid;
	int status;
	(void)state;

	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 2);
		_exit(monitor_snapshots("x", "/proc/no-such-file", 1, 0, fd));
	}
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), MONITOR_UNAVAILABLE);
}

static void test_monitor_exec_stop_and_missing(void **state)
{
	pid_t pid;
	int status;
	(void)state;

	/* a tool that never ends is ended by the stop, and that is success */
	pid = fork();
	if (pid == 0) {
		struct strbuf err = STRBUF_INIT;
		char *argv[] = { "sleep", "60", NULL };
		int fd = open("/dev/null", O_WRONLY);
		_exit(monitor_exec(argv, fd, 0, &err) == 0 && monitor_stopped() ? 0 : 1);
	}
	usleep(300000);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	/* a tool that ends by itself gives its status, not stopped */
	pid = fork();
	if (pid == 0) {
		struct strbuf err = STRBUF_INIT;
		char *argv[] = { "sh", "-c", "exit 7", NULL };
		int fd = open("/dev/null", O_WRONLY);
		_exit(monitor_exec(argv, fd, 0, &err) == 7 && !monitor_stopped() ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);

	/* EOF on stdin as the stop (turbostat's way) */
	pid = fork();
	if (pid == 0) {
		struct strbuf err = STRBUF_INIT;
		char *argv[] = { "cat", NULL };
		int fd = open("/dev/null", O_WRONLY);
		_exit(monitor_exec(argv, fd, MONITOR_EXEC_STOP_STDIN, &err) == 0 ? 0 : 1);
	}
	usleep(300000);
	kill(pid, SIGTERM);
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);

	/* not installed: -1, ENOENT */
	pid = fork();
	if (pid == 0) {
		struct strbuf err = STRBUF_INIT;
		char *argv[] = { "lkprobot-no-such-tool", NULL };
		int rc = monitor_exec(argv, 1, 0, &err);
		_exit(rc == -1 && errno == ENOENT && strstr(err.buf, "lkprobot-no-such-tool") ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_monitor_interval(void **state)
{
	struct monitor_run mr;
	struct strbuf err = STRBUF_INIT;
	const struct program *p = prog("proc-vmstat");
	double v;
	(void)state;

	monitor_run_init(&mr, "proc-vmstat:\n");
	assert_int_equal(monitor_interval(&mr.r, p, 1, &v, &err), 0);
	assert_close(v, 1);
	node_free(mr.job);
	monitor_run_init(&mr, "proc-vmstat:\n  interval: 0.25\n");
	assert_int_equal(monitor_interval(&mr.r, p, 1, &v, &err), 0);
	assert_close(v, 0.25);
	node_free(mr.job);
	monitor_run_init(&mr, "interval: 10s\nproc-vmstat:\n");	/* a job-level option */
	assert_int_equal(monitor_interval(&mr.r, p, 1, &v, &err), 0);
	assert_close(v, 10);
	node_free(mr.job);
	const char *bad[] = { "proc-vmstat:\n  interval: 0\n", "proc-vmstat:\n  interval: -1\n",
			      "proc-vmstat:\n  interval: soon\n", "proc-vmstat:\n  interval: nan\n" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		monitor_run_init(&mr, bad[i]);
		assert_int_equal(monitor_interval(&mr.r, p, 1, &v, &err), -1);
		assert_non_null(strstr(err.buf, "interval"));
		node_free(mr.job);
	}
	strbuf_release(&err);
}

static void test_programs_declare_debs(void **state)
{
	(void)state;
	assert_string_equal(prog("vmstat")->debs[0], "procps");
	assert_string_equal(prog("time")->debs[0], "time");
	assert_string_equal(prog("turbostat")->debs[0], "linux-cpupower");
	const char *mon[] = { "vmstat", "interrupts", "proc-vmstat", "meminfo", "turbostat" };
	for (size_t i = 0; i < ARRAY_SIZE(mon); i++) {
		assert_non_null(prog(mon[i])->monitor);
		assert_non_null(prog(mon[i])->parse);
	}
	assert_null(prog("time")->monitor);
	assert_non_null(prog("time")->parse);
}

/* ---- capture mode ----------------------------------------------------------- */

static int capture(const char *name, const char *secs, const char *file)
{
	const struct program *p = program_find(name);
	struct strbuf out = STRBUF_INIT, job = STRBUF_INIT;
	int rc;

	if (!p || !p->monitor) {
		fprintf(stderr, "capture: '%s' is no monitor\n", name);
		return 2;
	}
	strbuf_addf(&job, "%s:\n", name);
	rc = run_monitor(p, job.buf, (int)(atof(secs) * 1000), &out);
	FILE *f = fopen(file, "w");
	if (!f || fwrite(out.buf, 1, out.len, f) != out.len || fclose(f)) {
		fprintf(stderr, "capture: cannot write %s\n", file);
		return 1;
	}
	fprintf(stderr, "capture: %s exited %d, %zu bytes in %s\n", name, rc, out.len, file);
	strbuf_release(&out);
	strbuf_release(&job);
	return rc;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fio_parse_write_only),
		cmocka_unit_test(test_fio_parse_read_after_notes),
		cmocka_unit_test(test_fio_parse_randrw),
		cmocka_unit_test(test_fio_parse_same_as_lkp),
		cmocka_unit_test(test_fio_instances_same_as_lkp),
		cmocka_unit_test(test_fio_lkp_spec_fixtures),
		cmocka_unit_test(test_klog_lkp_spec_fixtures),
		cmocka_unit_test(test_kmsg_selftests),
		cmocka_unit_test(test_klog_calltraces),
		cmocka_unit_test(test_fio_parse_rejects),
		cmocka_unit_test(test_latency_stats_pattern),
		cmocka_unit_test(test_time_parse_gnu_time),
		cmocka_unit_test(test_time_parse_concatenated),
		cmocka_unit_test(test_time_format_rusage_as_gnu_time),
		cmocka_unit_test(test_time_format_rusage_roundtrip),
		cmocka_unit_test(test_time_parse_rejects),
		cmocka_unit_test(test_vmstat_parse),
		cmocka_unit_test(test_vmstat_parse_columns_by_name),
		cmocka_unit_test(test_vmstat_parse_rejects),
		cmocka_unit_test(test_interrupts_parse),
		cmocka_unit_test(test_interrupts_parse_rejects),
		cmocka_unit_test(test_proc_vmstat_parse),
		cmocka_unit_test(test_proc_vmstat_parse_rejects),
		cmocka_unit_test(test_meminfo_parse),
		cmocka_unit_test(test_meminfo_parse_rejects),
		cmocka_unit_test(test_turbostat_parse_rejects),
		cmocka_unit_test(test_vmstat_monitor),
		cmocka_unit_test(test_proc_vmstat_monitor),
		cmocka_unit_test(test_interrupts_monitor),
		cmocka_unit_test(test_meminfo_monitor),
		cmocka_unit_test(test_turbostat_monitor),
		cmocka_unit_test(test_monitor_snapshots_unavailable),
		cmocka_unit_test(test_monitor_exec_stop_and_missing),
		cmocka_unit_test(test_monitor_interval),
		cmocka_unit_test(test_programs_declare_debs),
	};

	find_fixtures(argv[0]);
	lkpetc_set_dir("."); /* the source tree's lkp-etc/ (make check runs from the top) */
	if (argc == 5 && !strcmp(argv[1], "capture"))
		return capture(argv[2], argv[3], argv[4]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

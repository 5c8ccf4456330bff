/*
 * Unit tests: lib/vmscal (vm-scalability's cases in C) and the
 * vm-scalability program (lib/programs/vm_scalability.c): the parser on
 * lkp-tests' own test data and on output of our cases, each checked
 * against what lkp-tests' Ruby parser printed for the same file (*.lkp,
 * tests/fixtures/vm-scalability/README); real runs of the cases; the
 * errors.
 *
 * `test-vmscal capture TEST NR_TASK SIZE UNIT_SIZE|- FILE [RUNTIME]` runs a case the
 * way a job does and leaves its raw output in FILE (how the fixtures of
 * our output were made).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib.h"
#include "../../lib/sys/machine.h"
#include "../../lib/run/program.h"
#include "../../lib/run/run.h"
#include "../../lib/stats/stats.h"
#include "../../lib/run/vmscal.h"
#include "../../lib/util/yml.h"

typedef int (*parse_fn)(const char *, size_t, struct stats_samples *, struct strbuf *);

/* ---- helpers ------------------------------------------------------------ */

static char fixture_dir[4096];

static void find_fixtures(void)
{
	testlib_fixture_dir(fixture_dir, sizeof(fixture_dir), "vm-scalability");
}

static void load(struct strbuf *sb, const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", fixture_dir, name);
	strbuf_reset(sb);
	if (strbuf_read_file(sb, path))
		fail_msg("cannot read fixture %s", path);
}

static const struct program *vms(void)
{
	const struct program *p = program_find("vm-scalability");
	assert_non_null(p);
	assert_non_null(p->run);
	assert_non_null(p->parse);
	return p;
}

static int parse_text(const char *text, size_t len, struct stats_samples *ss, struct strbuf *err)
{
	stats_samples_init(ss);
	return vms()->parse(text, len, ss, err);
}

static void parse_ok(const char *text, size_t len, struct stats_samples *ss)
{
	struct strbuf err = STRBUF_INIT;

	if (parse_text(text, len, ss, &err))
		fail_msg("parse: %s", err.buf);
	assert_int_equal(err.len, 0);
	strbuf_release(&err);
}

/* The parser must refuse text: -1 with a one-line message containing `what`. */
static void parse_bad(const char *text, size_t len, const char *what)
{
	struct stats_samples ss;
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(parse_text(text, len, &ss, &err), -1);
	assert_true(err.len > 0);
	assert_null(strchr(err.buf, '\n'));
	assert_true(!strncmp(err.buf, "vm-scalability: ", 16));
	if (what && !strstr(err.buf, what))
		fail_msg("error '%s' does not mention '%s'", err.buf, what);
	stats_samples_release(&ss);
	strbuf_release(&err);
}

static double value(const struct stats_samples *ss, const char *key)
{
	const struct stats_series *se = stats_find(ss, key);
	if (!se || !se->n)
		fail_msg("no series '%s'", key);
	return se->v[se->n - 1];
}

/*
 * The samples equal what lkp-tests' parser printed for the same file
 * (`<fixture>.lkp`): same keys in the same order, same values and
 * integer/float kinds.
 */
static void same_as_lkp(const struct stats_samples *ss, const char *lkp_file)
{
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct stats_samples want;

	load(&text, lkp_file);
	stats_samples_init(&want);
	if (stats_add_lines(&want, text.buf, &err))
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
			if (w->v[k] != g->v[k])
				fail_msg("%s: %s[%zu] = %.17g, lkp-tests %.17g", lkp_file, w->key, k,
					 g->v[k], w->v[k]);
	}
	if (want.n != ss->n)
		fail_msg("%s: %zu series, lkp-tests %zu", lkp_file, ss->n, want.n);
	stats_samples_release(&want);
	strbuf_release(&text);
	strbuf_release(&err);
}

static void same_as_lkp_fixture(const char *name)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	char lkp[256];

	load(&text, name);
	parse_ok(text.buf, text.len, &ss);
	snprintf(lkp, sizeof(lkp), "%s.lkp", name);
	same_as_lkp(&ss, lkp);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

/* The usemem lines of a raw file, as numbers read back from the text. */
struct usemem_lines {
	size_t n, frees, cases;
	uint64_t bytes[2048], usecs[2048], kbps[2048];	/* 2 x 1000 runs (drops_cut_run) */
};

static void usemem_lines(const char *text, struct usemem_lines *u)
{
	memset(u, 0, sizeof(*u));
	for (const char *l = text; *l;) {
		const char *eol = strchrnul(l, '\n');
		unsigned long long b, us, k;
		int end = 0;
		if (sscanf(l, "%llu bytes / %llu usecs = %llu KB/s", &b, &us, &k) == 3) {
			assert_true(u->n < 2048);
			u->bytes[u->n] = b;
			u->usecs[u->n] = us;
			u->kbps[u->n++] = k;
		} else if (sscanf(l, "%llu usecs to free memor%n", &us, &end) == 1 && end > 0) {
			u->frees++;
		} else if (memmem(l, (size_t)(eol - l), "./case-", 7)) {
			u->cases++;
		}
		l = *eol ? eol + 1 : eol;
	}
}

/* A job run in a temporary result root, with the machine we are on. */
struct job_run {
	struct node *job;
	struct machine m;
	struct run r;
	char dir[64];
	struct strbuf stderr_text;
	int status;
};

static void job_run_init(struct job_run *jr, const char *yaml)
{
	struct strbuf err = STRBUF_INIT;

	memset(jr, 0, sizeof(*jr));
	strbuf_init(&jr->stderr_text, 0);
	jr->job = yml_load_one(yaml, "job", &err);
	if (!jr->job)
		fail_msg("job: %s", err.buf);
	machine_detect(&jr->m);
	snprintf(jr->dir, sizeof(jr->dir), "/tmp/test-vmscal-XXXXXX");
	assert_non_null(mkdtemp(jr->dir));
	jr->r.job = jr->job;
	jr->r.machine = &jr->m;
	jr->r.root = jr->dir;
	jr->r.tmpdir = jr->dir;
	strbuf_release(&err);
}

/* Run the program's .run, its stderr caught in jr->stderr_text. */
static int job_run(struct job_run *jr)
{
	char path[128];
	int saved = dup(2), fd;

	snprintf(path, sizeof(path), "%s/test-stderr", jr->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(saved >= 0 && fd >= 0);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	jr->status = vms()->run(&jr->r, vms());
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	strbuf_reset(&jr->stderr_text);
	strbuf_read_file(&jr->stderr_text, path);
	unlink(path);
	return jr->status;
}

static void job_run_file(const struct job_run *jr, const char *name, struct strbuf *out)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", jr->dir, name);
	strbuf_reset(out);
	if (strbuf_read_file(out, path))
		fail_msg("the run left no '%s'", name);
}

static void job_run_release(struct job_run *jr)
{
	DIR *d = opendir(jr->dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		char path[512];
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", jr->dir, de->d_name);
		unlink(path);
	}
	if (d)
		closedir(d);
	rmdir(jr->dir);
	node_free(jr->job);
	machine_release(&jr->m);
	strbuf_release(&jr->stderr_text);
}

/* Run a case for real; it must pass and its raw file must parse. */
static void run_case(const char *yaml, struct strbuf *raw, struct stats_samples *ss)
{
	struct job_run jr;

	job_run_init(&jr, yaml);
	if (job_run(&jr))
		fail_msg("run failed (%d): %s", jr.status, jr.stderr_text.buf);
	assert_int_equal(jr.stderr_text.len, 0);
	job_run_file(&jr, "vm-scalability", raw);
	parse_ok(raw->buf, raw->len, ss);
	job_run_release(&jr);
}

/* ---- vmscal ------------------------------------------------------------- */

static void test_vmscal_find_cases(void **state)
{
	static const char *const want[] = {
		"anon-w-seq", "anon-w-rand", "anon-r-seq", "anon-r-rand", "swap-w-seq",
		"swap-w-rand", "swap-w-seq-mt", "swap-w-rand-mt", "lru-file-readonce",
		"anon-w-seq-mt", "anon-w-rand-mt", "anon-r-seq-mt", "anon-r-rand-mt",
	};
	struct strbuf list = STRBUF_INIT;
	(void)state;

	vmscal_list(&list);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		const struct vmscal_case *c = vmscal_find(want[i]);
		assert_non_null(c);
		assert_string_equal(c->name, want[i]);
		assert_non_null(strstr(list.buf, want[i]));
		assert_int_equal(c->threads, strstr(want[i], "-mt") != NULL);
		assert_int_equal(c->random, strstr(want[i], "rand") != NULL);
	}
	assert_int_equal(vmscal_find("swap-w-seq")->kind, VMSCAL_SWAP);
	assert_int_equal(vmscal_find("lru-file-readonce")->kind, VMSCAL_FILE);
	assert_true(vmscal_find("anon-w-seq")->write);
	assert_false(vmscal_find("anon-r-seq")->write);
	assert_null(vmscal_find("anon-cow-seq"));
	assert_null(vmscal_find(""));
	assert_null(vmscal_find(NULL));
	strbuf_release(&list);
}

static void test_vmscal_meminfo_and_defaults(void **state)
{
	struct vmscal_meminfo mi;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(vmscal_meminfo_read(&mi, &err), 0);
	assert_true(mi.mem_total > 0 && mi.mem_available > 0 && mi.mem_available <= mi.mem_total);
	/* upstream's hw_vars and case scripts */
	assert_true(vmscal_default_bytes(vmscal_find("anon-w-seq"), &mi, 4) == mi.mem_total / 2);
	assert_true(vmscal_default_bytes(vmscal_find("anon-w-rand-mt"), &mi, 4) == mi.mem_total / 2);
	assert_true(vmscal_default_bytes(vmscal_find("swap-w-seq"), &mi, 4) ==
		    (mi.mem_available + mi.swap_total) / 4 * 3);
	uint64_t pte = mi.mem_available << 8, rotate = pte < (1ULL << 42) ? pte : 1ULL << 42;
	assert_true(vmscal_default_bytes(vmscal_find("anon-r-rand"), &mi, 4) == rotate);
	assert_true(vmscal_default_bytes(vmscal_find("lru-file-readonce"), &mi, 4) == rotate);
	assert_true(vmscal_default_bytes(vmscal_find("anon-r-seq"), &mi, 4) ==
		    (pte < 4 * (1ULL << 46) ? pte : 4 * (1ULL << 46)));
	assert_true(vmscal_default_bytes(vmscal_find("anon-r-seq-mt"), &mi, 4) ==
		    (pte < (1ULL << 46) ? pte : 1ULL << 46));
	strbuf_release(&err);
}

static void test_vmscal_meminfo_parse_rejects(void **state)
{
	struct vmscal_meminfo mi;
	struct strbuf err = STRBUF_INIT, text = STRBUF_INIT;
	(void)state;

	assert_int_equal(strbuf_read_file(&text, "/proc/meminfo"), 0);
	assert_int_equal(vmscal_meminfo_parse(text.buf, &mi, &err), 0);
	/* a kernel without MemAvailable, or a garbled number */
	char *avail = strstr(text.buf, "MemAvailable:");
	assert_non_null(avail);
	avail[3] = 'X';
	assert_int_equal(vmscal_meminfo_parse(text.buf, &mi, &err), -1);
	assert_non_null(strstr(err.buf, "no MemAvailable"));
	avail[3] = 'A';
	char *num = strstr(text.buf, "SwapTotal:") + strlen("SwapTotal:");
	while (*num == ' ')
		num++;
	*num = 'x';
	assert_int_equal(vmscal_meminfo_parse(text.buf, &mi, &err), -1);
	assert_non_null(strstr(err.buf, "SwapTotal"));
	strbuf_release(&err);
	strbuf_release(&text);
}

static void test_vmscal_check_swap(void **state)
{
	struct vmscal_meminfo mi;
	struct strbuf err = STRBUF_INIT;
	(void)state;

	assert_int_equal(vmscal_meminfo_read(&mi, &err), 0);
	mi.swap_total = 0;
	for (const char *const *n = (const char *const[]){ "swap-w-seq", "swap-w-rand", "swap-w-seq-mt",
							   "swap-w-rand-mt", NULL }; *n; n++) {
		strbuf_reset(&err);
		assert_int_equal(vmscal_check(vmscal_find(*n), &mi, &err), -1);
		assert_non_null(strstr(err.buf, "needs active swap"));
		assert_non_null(strstr(err.buf, *n));
	}
	assert_int_equal(vmscal_check(vmscal_find("anon-w-seq"), &mi, &err), 0);
	mi.swap_total = mi.mem_total;
	assert_int_equal(vmscal_check(vmscal_find("swap-w-seq"), &mi, &err), 0);
	strbuf_release(&err);
}

/* vmscal_run directly: bytes, usecs and KB/s agree, as usemem prints them. */
static void test_vmscal_run_lines(void **state)
{
	char path[] = "/tmp/test-vmscal-run-XXXXXX";
	int fd = mkstemp(path);
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct usemem_lines u;
	struct vmscal_params p = {
		.c = vmscal_find("anon-w-seq"), .nr_task = 3, .worker_bytes = 4 << 20, .repeat = 2,
		.sync_free = true,
	};
	(void)state;

	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_SETFL, O_APPEND), 0);
	bool cut = true;
	if (vmscal_run(&p, fd, &cut, &err))
		fail_msg("%s", err.buf);
	close(fd);
	assert_int_equal(strbuf_read_file(&out, path), 0);
	unlink(path);
	assert_false(cut);
	usemem_lines(out.buf, &u);
	assert_int_equal(u.n, 3);
	assert_int_equal(u.frees, 3);
	for (size_t i = 0; i < u.n; i++) {
		/* two passes over every word, plus usemem's eighth for the allocation */
		assert_true(u.bytes[i] == 2 * p.worker_bytes + p.worker_bytes / 8);
		assert_true(u.usecs[i] > 0);
		assert_true(u.kbps[i] == ((u.bytes[i] * 1000000) >> 10) / u.usecs[i]);
	}
	strbuf_release(&err);
	strbuf_release(&out);
}

static void test_vmscal_run_nothing_to_do(void **state)
{
	struct strbuf err = STRBUF_INIT;
	struct vmscal_params p = { .c = vmscal_find("anon-w-seq"), .nr_task = 0, .worker_bytes = 4096 };
	(void)state;

	assert_int_equal(vmscal_run(&p, 1, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "nothing to do"));
	strbuf_reset(&err);
	p = (struct vmscal_params){ .c = vmscal_find("lru-file-readonce"), .nr_task = 1,
				    .worker_bytes = 4096, .dir = "/nonexistent/dir" };
	assert_int_equal(vmscal_run(&p, 1, NULL, &err), -1);
	assert_non_null(strstr(err.buf, "cannot make the sparse file"));
	strbuf_release(&err);
}

/* ---- parse ------------------------------------------------------------- */

static void test_vm_scalability_parse_lkp_fault_and_free(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	(void)state;

	/* our workers print usemem's "usecs to free memory" lines, no "faulted" ones */
	load(&text, "anon-w-seq.out");
	parse_ok(text.buf, text.len, &ss);
	assert_true(value(&ss, "free_time") > 0);
	assert_true(stats_find(&ss, "workload")->is_float);
	assert_false(stats_find(&ss, "throughput")->is_float);
	assert_null(stats_find(&ss, "throughput_fault"));
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_vm_scalability_parse_our_output(void **state)
{
	struct strbuf text = STRBUF_INIT;
	struct stats_samples ss;
	struct usemem_lines u;
	(void)state;

	same_as_lkp_fixture("anon-w-seq.out");
	same_as_lkp_fixture("anon-w-seq-3runs.out");

	/* throughput: the workers' KB/s summed; workload: their bytes / 1024 */
	load(&text, "anon-w-seq.out");
	usemem_lines(text.buf, &u);
	assert_int_equal(u.n, 2);
	assert_int_equal(u.frees, 2);
	assert_int_equal(u.cases, 1);
	parse_ok(text.buf, text.len, &ss);
	assert_true(value(&ss, "throughput") == (double)(u.kbps[0] + u.kbps[1]));
	assert_true(value(&ss, "median") == (double)(u.kbps[0] > u.kbps[1] ? u.kbps[0] : u.kbps[1]));
	assert_true(fabs(value(&ss, "workload") - (double)(u.bytes[0] + u.bytes[1]) / 1024) < 0.01);
	stats_samples_release(&ss);

	/* three runs: throughput is the mean of the runs' sums */
	load(&text, "anon-w-seq-3runs.out");
	usemem_lines(text.buf, &u);
	assert_int_equal(u.n, 6);
	assert_int_equal(u.cases, 3);
	parse_ok(text.buf, text.len, &ss);
	double mean = (double)(u.kbps[0] + u.kbps[1] + u.kbps[2] + u.kbps[3] + u.kbps[4] + u.kbps[5]) / 3;
	assert_true(value(&ss, "throughput") == floor(mean));
	assert_true(stats_find(&ss, "stddev%")->n == 1);
	stats_samples_release(&ss);
	strbuf_release(&text);
}

static void test_vm_scalability_parse_rejects(void **state)
{
	struct strbuf text = STRBUF_INIT, t = STRBUF_INIT;
	(void)state;

	load(&text, "anon-w-seq.out");
	/* cut inside the last line, and inside a usemem line */
	parse_bad(text.buf, text.len - 5, "no end");
	const char *l = strstr(text.buf, " usecs = ");
	strbuf_add(&t, text.buf, (size_t)(l - text.buf) + 9);
	strbuf_addstr(&t, "\n");
	parse_bad(t.buf, t.len, "not a whole usemem line");
	strbuf_reset(&t);
	l = strstr(text.buf, " bytes / ");
	strbuf_add(&t, text.buf, (size_t)(l - text.buf) + 4);
	strbuf_addstr(&t, "\n");
	parse_bad(t.buf, t.len, "ends after run 1");
	/* a free line whose number was cut */
	strbuf_reset(&t);
	l = strstr(text.buf, " usecs to free memory");
	strbuf_add(&t, text.buf, (size_t)(l - text.buf) + 10);
	strbuf_addstr(&t, "\n");
	parse_bad(t.buf, t.len, "not a whole usemem line");

	/* nothing, only log lines, a case that printed nothing */
	parse_bad("", 0, "no result lines");
	parse_bad("repeat count: 1\n", 16, "no result lines");
	l = strstr(text.buf, "./case-");
	const char *eol = strchr(l, '\n');
	strbuf_reset(&t);
	strbuf_add(&t, text.buf, (size_t)(eol + 1 - text.buf));
	parse_bad(t.buf, t.len, "ends after run 1");
	strbuf_reset(&t);
	strbuf_add(&t, text.buf, (size_t)(eol + 1 - text.buf));
	strbuf_addstr(&t, text.buf);
	parse_bad(t.buf, t.len, "printed no result line");

	/* NUL bytes */
	strbuf_reset(&t);
	strbuf_addstr(&t, text.buf);
	t.buf[3] = '\0';
	parse_bad(t.buf, t.len, "NUL");

	/* a run with a worker line missing (two runs of two, then one) */
	load(&text, "anon-w-seq-3runs.out");
	strbuf_reset(&t);
	strbuf_addstr(&t, text.buf);
	char *kb = NULL;
	for (char *s = strstr(t.buf, " KB/s\n"); s; s = strstr(s + 1, " KB/s\n"))
		kb = s;
	assert_non_null(kb);
	char *start = kb;
	while (start > t.buf && start[-1] != '\n')
		start--;
	memmove(start, kb + 6, strlen(kb + 6) + 1);
	t.len = strlen(t.buf);
	parse_bad(t.buf, t.len, "the first had 2");
	strbuf_release(&text);
	strbuf_release(&t);
}

/* ---- run ---------------------------------------------------------------- */

static void test_vm_scalability_run_anon_w_seq(void **state)
{
	struct strbuf raw = STRBUF_INIT;
	struct stats_samples ss;
	struct usemem_lines u;
	(void)state;

	run_case("vm-scalability:\n  test: anon-w-seq\n  size: 64M\nnr_task: 2\nruntime: 120\n", &raw, &ss);
	usemem_lines(raw.buf, &u);
	assert_int_equal(u.n, 2);
	assert_int_equal(u.frees, 2);
	assert_int_equal(u.cases, 1);
	assert_non_null(strstr(raw.buf, "  ./case-anon-w-seq\n"));
	assert_non_null(strstr(raw.buf, "repeat count: 1\n"));
	for (size_t i = 0; i < u.n; i++)
		assert_true(u.bytes[i] == (32ULL << 20) + (32ULL << 20) / 8);
	assert_true(value(&ss, "throughput") > 0);
	assert_true(value(&ss, "median") > 0);
	assert_true(value(&ss, "workload") > 0);
	stats_samples_release(&ss);
	strbuf_release(&raw);
}

static void test_vm_scalability_run_anon_r_seq(void **state)
{
	struct strbuf raw = STRBUF_INIT;
	struct stats_samples ss;
	struct usemem_lines u;
	(void)state;

	run_case("vm-scalability:\n  test: anon-r-seq\n  size: 64M\nnr_task: 2\nruntime: 120\n", &raw, &ss);
	usemem_lines(raw.buf, &u);
	assert_int_equal(u.n, 2);
	assert_int_equal(u.frees, 2);
	assert_true(value(&ss, "throughput") > 0);
	stats_samples_release(&ss);
	strbuf_release(&raw);
}

/* The other cases that run without swap, small. */
static void test_vm_scalability_run_more_cases(void **state)
{
	static const char *const cases[] = {
		"anon-w-rand", "anon-r-rand", "anon-w-seq-mt", "anon-w-rand-mt", "anon-r-seq-mt",
		"anon-r-rand-mt", "lru-file-readonce",
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf raw = STRBUF_INIT, yaml = STRBUF_INIT;
		struct stats_samples ss;
		struct usemem_lines u;

		strbuf_addf(&yaml, "vm-scalability:\n  test: %s\n  size: 16M\nnr_task: 2\nruntime: 120\n", cases[i]);
		run_case(yaml.buf, &raw, &ss);
		usemem_lines(raw.buf, &u);
		assert_int_equal(u.n, 2);
		/* the file case reads like dd: no free line; the others free their memory */
		assert_int_equal(u.frees, strcmp(cases[i], "lru-file-readonce") ? 2 : 0);
		if (!strcmp(cases[i], "lru-file-readonce"))
			assert_true(u.bytes[0] == 8 << 20 && u.bytes[1] == 8 << 20);
		assert_true(value(&ss, "throughput") > 0);
		stats_samples_release(&ss);
		strbuf_release(&raw);
		strbuf_release(&yaml);
	}
}

/* size over unit_size: several runs of the case, each with its ./case- line. */
static void test_vm_scalability_run_repeats(void **state)
{
	struct strbuf raw = STRBUF_INIT;
	struct stats_samples ss;
	struct usemem_lines u;
	(void)state;

	run_case("vm-scalability:\n  test: anon-w-seq\n  size: 48M\n  unit_size: 16M\n  sync_free: 1\n  bind_cpu: 1\n"
		 "nr_task: 2\n", &raw, &ss);
	usemem_lines(raw.buf, &u);
	assert_int_equal(u.cases, 3);
	assert_int_equal(u.n, 6);
	assert_non_null(strstr(raw.buf, "repeat count: 3\n"));
	assert_true(u.bytes[5] == (8ULL << 20) + (8ULL << 20) / 8);
	assert_true(value(&ss, "throughput") > 0);
	stats_samples_release(&ss);
	strbuf_release(&raw);
}

/* runtime bounds the run: the workers stop at the deadline and report what they did. */
static void test_vm_scalability_run_runtime_bounds(void **state)
{
	struct strbuf raw = STRBUF_INIT;
	struct stats_samples ss;
	struct usemem_lines u;
	uint64_t t0 = vmscal_now_ns();
	(void)state;

	/* reading 2 x 32 GiB of zero pages takes seconds; runtime says 1 s */
	run_case("vm-scalability:\n  test: anon-r-seq\n  size: 64G\nnr_task: 2\nruntime: 1\n", &raw, &ss);
	double secs = (double)(vmscal_now_ns() - t0) / 1e9;
	usemem_lines(raw.buf, &u);
	assert_int_equal(u.n, 2);
	assert_true(secs < 30);
	for (size_t i = 0; i < u.n; i++) {
		assert_true(u.bytes[i] < (32ULL << 30));
		assert_true(u.usecs[i] >= 900000);	/* the deadline was set just before the start */
	}
	stats_samples_release(&ss);
	strbuf_release(&raw);
}

/* A later run the deadline cuts short is dropped: every sample is a whole run. */
static void test_vm_scalability_run_drops_cut_run(void **state)
{
	struct strbuf raw = STRBUF_INIT;
	struct stats_samples ss;
	struct usemem_lines u;
	(void)state;

	/*
	 * 1000 runs of 2 x 32 MiB cannot all fit in 1 s (20-40 fit here, the
	 * machine's load deciding: once more than the 64 lines this counted)
	 */
	run_case("vm-scalability:\n  test: anon-w-seq\n  size: 64000M\n  unit_size: 64M\nnr_task: 2\nruntime: 1\n",
		 &raw, &ss);
	usemem_lines(raw.buf, &u);
	assert_true(u.cases >= 1 && u.cases < 1000);
	assert_int_equal(u.n, 2 * u.cases);
	assert_int_equal(u.frees, 2 * u.cases);
	/* the first run may be cut (usemem --runtime); later ones are whole */
	for (size_t i = 0; i < u.n; i++)
		assert_true(i < 2 ? u.bytes[i] <= (32ULL << 20) + (32ULL << 20) / 8
				  : u.bytes[i] == (32ULL << 20) + (32ULL << 20) / 8);
	assert_non_null(strstr(raw.buf, "\nruntime exceeded, consider adjust size configuration\n"));
	stats_samples_release(&ss);
	strbuf_release(&raw);
}

static void test_vm_scalability_run_swap_needs_swap(void **state)
{
	struct vmscal_meminfo mi;
	struct strbuf err = STRBUF_INIT, raw = STRBUF_INIT;
	struct job_run jr;
	(void)state;

	assert_int_equal(vmscal_meminfo_read(&mi, &err), 0);
	if (mi.swap_total) {
		strbuf_release(&err);
		skip();	/* this machine has swap on: the case would run */
	}
	job_run_init(&jr, "vm-scalability:\n  test: swap-w-seq\n  size: 64M\nnr_task: 2\n");
	assert_int_not_equal(job_run(&jr), 0);
	/* one line, and no anon case run in its place */
	assert_int_equal(strcspn(jr.stderr_text.buf, "\n") + 1, jr.stderr_text.len);
	assert_non_null(strstr(jr.stderr_text.buf, "vm-scalability: swap-w-seq needs active swap"));
	char path[128];
	snprintf(path, sizeof(path), "%s/vm-scalability", jr.dir);
	if (!strbuf_read_file(&raw, path))
		assert_null(strstr(raw.buf, "KB/s"));
	job_run_release(&jr);
	strbuf_release(&err);
	strbuf_release(&raw);
}

static void run_bad(const char *yaml, const char *what)
{
	struct job_run jr;

	job_run_init(&jr, yaml);
	assert_int_not_equal(job_run(&jr), 0);
	assert_int_equal(strcspn(jr.stderr_text.buf, "\n") + 1, jr.stderr_text.len);
	if (!strstr(jr.stderr_text.buf, what))
		fail_msg("stderr '%s' does not mention '%s'", jr.stderr_text.buf, what);
	job_run_release(&jr);
}

static void test_vm_scalability_run_rejects(void **state)
{
	(void)state;
	unsetenv("LKPROBOT_VM_SCALABILITY");
	run_bad("vm-scalability:\n  size: 64M\n", "test is not set");
	run_bad("vm-scalability:\n  test: anon-w-seq; touch /tmp/x\n", "is not a case name");
	run_bad("vm-scalability:\n  test: ../../bin/sh\n", "is not a case name");
	run_bad("vm-scalability:\n  test: anon-cow-seq\n", "not one of lkprobot's C cases");
	run_bad("vm-scalability:\n  test: anon-w-seq\n  cpu_delay: 10\n", "cpu_delay is not supported");
	run_bad("vm-scalability:\n  test: anon-w-seq\n  size: 8k\nnr_task: 4\n", "less than a page");
	run_bad("vm-scalability:\n  test: anon-w-seq\n  size: 5x\n", "size");
	run_bad("vm-scalability:\n  test: anon-w-seq\n  repeat: many\n", "repeat");
	run_bad("vm-scalability:\n  test: anon-w-seq\nnr_task: 0\n", "nr_task");
}

/* A worker that cannot map its memory fails the test, with its reason in one line. */
static void test_vm_scalability_run_worker_fails(void **state)
{
	static const char *const cases[] = { "anon-w-seq", "anon-w-seq-mt" };
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct strbuf yaml = STRBUF_INIT, raw = STRBUF_INIT;
		struct job_run jr;

		/* 2 x 512 TiB: more than a process's address space */
		strbuf_addf(&yaml, "vm-scalability:\n  test: %s\n  unit_size: 1024T\n  sync_free: 1\nnr_task: 2\n",
			    cases[i]);
		job_run_init(&jr, yaml.buf);
		assert_int_not_equal(job_run(&jr), 0);
		assert_int_equal(strcspn(jr.stderr_text.buf, "\n") + 1, jr.stderr_text.len);
		if (!strstr(jr.stderr_text.buf, "vm-scalability: worker ") ||
		    !strstr(jr.stderr_text.buf, ": mmap of 562949953421312 bytes: ") ||
		    !strstr(jr.stderr_text.buf, " (2 of 2 workers failed)"))
			fail_msg("%s: stderr '%s'", cases[i], jr.stderr_text.buf);
		job_run_file(&jr, "vm-scalability", &raw);
		assert_null(strstr(raw.buf, "KB/s"));
		job_run_release(&jr);
		strbuf_release(&yaml);
		strbuf_release(&raw);
	}
}

/* lru-file-readonce refuses tmpfs, where it would measure nothing of the page cache. */
static void test_vm_scalability_run_file_not_on_tmpfs(void **state)
{
	struct job_run jr;
	(void)state;

	job_run_init(&jr, "vm-scalability:\n  test: lru-file-readonce\n  size: 8M\nnr_task: 2\n");
	jr.r.tmpdir = "/dev/shm";
	assert_int_not_equal(job_run(&jr), 0);
	assert_non_null(strstr(jr.stderr_text.buf, "/dev/shm is tmpfs"));
	job_run_release(&jr);
}

/* An upstream checkout: its case-<test> runs, the job's values in its environment. */
static void test_vm_scalability_run_upstream_checkout(void **state)
{
	char dir[] = "/tmp/test-vmscal-up-XXXXXX";
	struct strbuf script = STRBUF_INIT, raw = STRBUF_INIT, text = STRBUF_INIT;
	struct stats_samples ss;
	struct job_run jr;
	(void)state;

	assert_non_null(mkdtemp(dir));
	/* stands in for upstream: prints a captured run's lines, says its environment */
	strbuf_addf(&script, "#!/bin/sh\ngrep -v ./case- '%s/anon-w-seq.out'\n"
			     "echo \"cwd=$(pwd) nr_task=$nr_task runtime=$runtime unit_size=$unit_size\" >&2\n",
		    fixture_dir);
	char *path = xasprintf("%s/case-anon-w-seq", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, script.buf, script.len), (ssize_t)script.len);
	close(fd);
	char *failing = xasprintf("%s/case-swap-w-seq", dir);
	fd = open(failing, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	const char *fail_script = "#!/bin/sh\necho 'No swap space. Please setup swap before running ./case-swap-w-seq' >&2\nexit 1\n";
	assert_int_equal(write(fd, fail_script, strlen(fail_script)), (ssize_t)strlen(fail_script));
	close(fd);
	setenv("LKPROBOT_VM_SCALABILITY", dir, 1);

	job_run_init(&jr, "vm-scalability:\n  test: anon-w-seq\n  unit_size: 64M\nnr_task: 2\n");
	if (job_run(&jr))
		fail_msg("run failed: %s", jr.stderr_text.buf);
	job_run_file(&jr, "vm-scalability", &raw);
	assert_non_null(strstr(raw.buf, "  ./case-anon-w-seq\n"));
	parse_ok(raw.buf, raw.len, &ss);
	same_as_lkp(&ss, "anon-w-seq.out.lkp");
	stats_samples_release(&ss);
	job_run_file(&jr, "stderr", &text);
	char *want = xasprintf("cwd=%s nr_task=2 runtime=300 unit_size=67108864\n", dir);
	assert_string_equal(text.buf, want);
	free(want);
	job_run_file(&jr, "reproduce.sh", &text);
	want = xasprintf("env -C %s nr_task=2 runtime=300 unit_size=67108864 SPARSE_ROOT=%s ./case-anon-w-seq\n",
			 dir, jr.dir);
	if (!strstr(text.buf, want))
		fail_msg("reproduce.sh '%s' has no '%s'", text.buf, want);
	free(want);
	job_run_release(&jr);

	/* the case's own failure is the test's */
	job_run_init(&jr, "vm-scalability:\n  test: swap-w-seq\nnr_task: 2\n");
	assert_int_not_equal(job_run(&jr), 0);
	assert_non_null(strstr(jr.stderr_text.buf, "./case-swap-w-seq of "));
	assert_non_null(strstr(jr.stderr_text.buf, "exited with status 1"));
	job_run_release(&jr);

	/* a case the checkout does not have: our C case */
	job_run_init(&jr, "vm-scalability:\n  test: anon-r-seq\n  size: 8M\nnr_task: 2\n");
	if (job_run(&jr))
		fail_msg("run failed: %s", jr.stderr_text.buf);
	job_run_release(&jr);

	unsetenv("LKPROBOT_VM_SCALABILITY");
	unlink(path);
	unlink(failing);
	rmdir(dir);
	free(path);
	free(failing);
	strbuf_release(&script);
	strbuf_release(&raw);
	strbuf_release(&text);
}

/* ---- capture ------------------------------------------------------------ */

static int capture(int argc, char **argv)
{
	struct strbuf yaml = STRBUF_INIT, raw = STRBUF_INIT;
	struct job_run jr;
	int rc;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: %s capture TEST NR_TASK SIZE UNIT_SIZE|- FILE [RUNTIME]\n", argv[0]);
		return 2;
	}
	strbuf_addf(&yaml, "vm-scalability:\n  test: %s\n  size: %s\n", argv[2], argv[4]);
	if (strcmp(argv[5], "-"))
		strbuf_addf(&yaml, "  unit_size: %s\n", argv[5]);
	strbuf_addf(&yaml, "nr_task: %s\n", argv[3]);
	if (argc == 8)
		strbuf_addf(&yaml, "runtime: %s\n", argv[7]);
	job_run_init(&jr, yaml.buf);
	rc = job_run(&jr);
	fputs(jr.stderr_text.buf, stderr);
	if (!rc) {
		job_run_file(&jr, "vm-scalability", &raw);
		FILE *f = fopen(argv[6], "w");
		if (!f || fwrite(raw.buf, 1, raw.len, f) != raw.len || fclose(f))
			rc = 1;
	}
	job_run_release(&jr);
	strbuf_release(&yaml);
	strbuf_release(&raw);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vmscal_find_cases),
		cmocka_unit_test(test_vmscal_meminfo_and_defaults),
		cmocka_unit_test(test_vmscal_meminfo_parse_rejects),
		cmocka_unit_test(test_vmscal_check_swap),
		cmocka_unit_test(test_vmscal_run_lines),
		cmocka_unit_test(test_vmscal_run_nothing_to_do),
		cmocka_unit_test(test_vm_scalability_parse_lkp_fault_and_free),
		cmocka_unit_test(test_vm_scalability_parse_our_output),
		cmocka_unit_test(test_vm_scalability_parse_rejects),
		cmocka_unit_test(test_vm_scalability_run_anon_w_seq),
		cmocka_unit_test(test_vm_scalability_run_anon_r_seq),
		cmocka_unit_test(test_vm_scalability_run_more_cases),
		cmocka_unit_test(test_vm_scalability_run_repeats),
		cmocka_unit_test(test_vm_scalability_run_runtime_bounds),
		cmocka_unit_test(test_vm_scalability_run_drops_cut_run),
		cmocka_unit_test(test_vm_scalability_run_swap_needs_swap),
		cmocka_unit_test(test_vm_scalability_run_rejects),
		cmocka_unit_test(test_vm_scalability_run_worker_fails),
		cmocka_unit_test(test_vm_scalability_run_file_not_on_tmpfs),
		cmocka_unit_test(test_vm_scalability_run_upstream_checkout),
	};

	find_fixtures();
	if (argc > 1 && !strcmp(argv[1], "capture"))
		return capture(argc, argv);
	unsetenv("LKPROBOT_VM_SCALABILITY");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * Unit tests: lib/job* — includes, merging, defaults, expansion, validation
 * and path_params, on job trees the tests write into a temporary directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/job/job.h"
#include "../../lib/job/lkpsrc.h"
#include "../../lib/sys/machine.h"
#include "../../lib/util/yml.h"

static char tmp[64];

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + strlen(tmp) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/lkp-job-XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	put("jobs/include/category/benchmark", "need_kconfig:\n- A: n\nvmstat:\nperf-stat:\n");
	put("jobs/include/disk/nr_pmem", "need_kconfig:\n- LIBNVDIMM\n");
	put("jobs/include/fs/xfs", "need_kconfig: XFS_FS\n");
	put("jobs/include/fs/OTHERS", "need_kconfig: OTHER_FS\n");
	put("jobs/include/tbox/ALL", "all_loaded: yes\n");
	put("jobs/include/tbox/vm-lkp", "vm_lkp_loaded: yes\n");
	put("hosts/box", "nr_cpu: 8\nmemory: 16G\nmodel: Test\nbrand: Test CPU\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd);
}

struct collected {
	struct node *jobs[512];
	char *names[512];
	size_t n;
	bool compatible;
	struct lkpsrc *lkp;
};

static int collect(const struct node *atomic, void *arg, struct strbuf *err)
{
	struct collected *c = arg;
	struct strbuf name = STRBUF_INIT;
	(void)err;
	assert_true(c->n < 512);
	job_atomic_name(atomic, "j", c->lkp, c->compatible, &name);
	c->names[c->n] = strbuf_detach(&name);
	c->jobs[c->n++] = node_dup(atomic);
	return 0;
}

static void collected_release(struct collected *c)
{
	for (size_t i = 0; i < c->n; i++) {
		node_free(c->jobs[i]);
		free(c->names[i]);
	}
	c->n = 0;
}

/* Expand jobs/<rel> (written with `text`); returns 0 or -1 with err. */
static int expand(const char *rel, const char *text, struct job_env *env,
		  struct collected *c, struct strbuf *err)
{
	struct jobfile jf;
	char path[512];
	int r;

	if (text)
		put(rel, text);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	if (job_load(&jf, path, env, err))
		return -1;
	r = job_expand(&jf, env, collect, c, err);
	job_release(&jf);
	return r;
}

static void test_job_expand_matrix_order_and_names(void **state)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(expand("jobs/m.yaml",
				"testcase: t\nfs:\n  fs: [ext4, xfs]\nfio-setup-basic:\n"
				"  rw: [read, write]\n  bs: [4k, 2M]\nfio:\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 8);
	/* the first list varies slowest, the last fastest */
	assert_string_equal(c.names[0], "j-4k-ext4-read.yaml");
	assert_string_equal(c.names[1], "j-2M-ext4-read.yaml");
	assert_string_equal(c.names[2], "j-4k-ext4-write.yaml");
	assert_string_equal(c.names[7], "j-2M-xfs-write.yaml");
	assert_true(job_is_atomic(c.jobs[0], NULL));
	collected_release(&c);
	strbuf_release(&err);
}

static void test_job_multi_document_merges_onto_doc0(void **state)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;
	assert_int_equal(expand("jobs/md.yaml",
				"testcase: t\nruntime: 10s\nfio-setup-basic:\n  rw: [read, write]\nfio:\n"
				"---\nfio-setup-basic:\n  rw: randread\n  bs: 4k\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.names[2], "j-4k-10s-randread.yaml");
	/* document 1 replaced fio-setup-basic of document 0 as a whole */
	assert_null(node_get(node_get(c.jobs[0], "fio-setup-basic"), "bs"));
	collected_release(&c);
	strbuf_release(&err);
}

static void test_job_path_params_sorted_and_compatible(void **state)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT, pp = STRBUF_INIT;
	(void)state;
	assert_int_equal(expand("jobs/pp.yaml",
				"testcase: fio-basic\ndisk: 2pmem\nfs:\n  fs: xfs\n  mount_option: dax\n"
				"runtime: 200s\nnr_task: 50%\ntime_based: tb\nfio-setup-basic:\n"
				"  rw: randwrite\n  bs: 2M\n  ioengine: sync\n  test_size: 200G\nfio:\n"
				"cpufreq_governor: performance\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 1);
	job_path_params(c.jobs[0], NULL, false, &pp);
	assert_string_equal(pp.buf, "2M-performance-2pmem-xfs-sync-dax-50%-200s-randwrite-200G-tb");
	strbuf_reset(&pp);
	job_path_params(c.jobs[0], NULL, true, &pp);
	/* the 2017 report's path: the order of appearance */
	assert_string_equal(pp.buf, "2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance");
	collected_release(&c);
	strbuf_release(&pp);
	strbuf_release(&err);
}

static void test_job_path_params_truncate_and_map_chars(void **state)
{
	struct node *job;
	struct strbuf pp = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;
	job = yml_load_one("testcase: t\nfio-setup-basic:\n  rw: 'a/b c!d'\n"
			   "  bs: 0123456789012345678901234567890123456789\n  ioengine:\nfio:\n", "x", &err);
	assert_non_null(job);
	job_path_params(job, NULL, false, &pp);
	assert_string_equal(pp.buf, "0123456789012345678901234567890-a_b_c_d");
	strbuf_reset(&pp);
	node_free(job);
	job = yml_load_one("testcase: t\n", "x", &err);
	job_path_params(job, NULL, false, &pp);
	assert_string_equal(pp.buf, "defaults");
	node_free(job);
	strbuf_release(&pp);
	strbuf_release(&err);
}

static void test_job_defaults_by_value_option_and_prefix(void **state)
{
	struct job_env env = { .data_dir = tmp };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;
	assert_int_equal(expand("jobs/d.yaml",
				"testcase: t\ncategory: benchmark\ndisk: 2pmem\ntbox: vm-lkp-x-4G\n"
				"need_kconfig: MINE\nfs:\n  fs: [xfs, ext4]\nfio:\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 2);
	const struct node *j = c.jobs[0];
	/* category/benchmark brought monitors; disk: 2pmem -> nr_pmem */
	assert_non_null(node_get(j, "vmstat") ? j : NULL);
	assert_true(node_index(j, "perf-stat") >= 0);
	assert_string_equal(job_get_str(j, "vm_lkp_loaded"), "yes");
	assert_string_equal(job_get_str(j, "all_loaded"), "yes");
	/* need_kconfig accumulates across the job and every default */
	yml_emit_flow(&out, node_get(j, "need_kconfig"));
	assert_string_equal(out.buf, "[MINE, {A: n}, LIBNVDIMM, XFS_FS]");
	strbuf_reset(&out);
	yml_emit_flow(&out, node_get(c.jobs[1], "need_kconfig"));
	assert_string_equal(out.buf, "[MINE, {A: n}, LIBNVDIMM, OTHER_FS]");
	/* and the job's own keys win over defaults */
	strbuf_reset(&out);
	yml_emit(&out, j);
	assert_non_null(strstr(out.buf, "#! jobs/include/category/benchmark\n"));
	assert_non_null(strstr(out.buf, "#! jobs/include/fs/xfs\n"));
	collected_release(&c);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_job_special_keys_plus_minus_dotted(void **state)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	(void)state;
	assert_int_equal(expand("jobs/s.yaml",
				"testcase: t\nlist: [a, b]\nlist+: [b, c]\nm:\n  x: 1\n  y: 2\nm-: x\n"
				"fio-setup-basic.rw: read\nfio:\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 1);
	yml_emit_flow(&out, c.jobs[0]);
	assert_non_null(strstr(out.buf, "list: [a, b, c]"));
	assert_non_null(strstr(out.buf, "m: {y: 2}"));
	assert_non_null(strstr(out.buf, "fio-setup-basic: {rw: read}"));
	assert_null(strstr(out.buf, "list+"));
	collected_release(&c);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_job_overrides_win_and_are_marked(void **state)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct node *ov = yml_load_one("{runtime: 5s, cpufreq_governor: performance}", "cmd", &err);
	struct job_env env = { .data_dir = tmp, .no_defaults = true, .overrides = ov };
	struct collected c = { 0 };
	(void)state;
	assert_int_equal(expand("jobs/o.yaml", "testcase: t\nruntime: 300s\nfio-setup-basic:\n  rw: read\nfio:\n",
				&env, &c, &err), 0);
	assert_string_equal(c.names[0], "j-performance-5s-read.yaml");
	yml_emit(&out, c.jobs[0]);
	assert_non_null(strstr(out.buf, "\n#! user overrides\ncpufreq_governor: performance\n"));
	collected_release(&c);
	node_free(ov);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_job_includes_relative_override_ignore(void **state)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;
	put("jobs/fam/base.yaml", "testcase: t\nruntime: 300s\ndisk:\nfio-setup-basic:\n  rw: [read, write]\nfio:\n");
	put("jobs/other/deep/shared.yaml", "suite: shared\n");
	assert_int_equal(expand("jobs/fam/child.yaml",
				"<<: {file: base.yaml, runtime: 5s, ignore: [disk]}\n<<: shared.yaml\ndisk: 2pmem\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.names[0], "j-2pmem-5s-read.yaml");
	assert_string_equal(job_get_str(c.jobs[0], "suite"), "shared");
	collected_release(&c);
	strbuf_release(&err);
}

/*
 * Split jobs/<rel> and check every atomic job as `lkprobot run` does:
 * loading and expansion errors, then job_check's.
 */
static void expect_error(const char *rel, const char *text, const char *want)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT;
	int r = expand(rel, text, &env, &c, &err);

	for (size_t i = 0; !r && i < c.n; i++)
		r = job_check(c.jobs[i], NULL, &err);
	if (r != -1)
		fail_msg("%s: expected an error containing '%s'", rel, want);
	if (!strstr(err.buf, want))
		fail_msg("%s: error '%s' lacks '%s'", rel, err.buf, want);
	assert_null(strchr(err.buf, '\n'));
	collected_release(&c);
	strbuf_release(&err);
}

static void test_job_errors_are_one_line_with_position(void **state)
{
	(void)state;
	expect_error("jobs/e1.yaml", "testcase: t\nfio-setup-basic:\n  rww: read\nfio:\n",
		     "e1.yaml:3:8: rww: not an option of 'fio-setup-basic'; did you mean 'rw'?");
	expect_error("jobs/e2.yaml", "testcase: t\nfio-setup-basic:\n  rw: {a: b}\nfio:\n",
		     "e2.yaml:3:7: rw: a mapping where a single value is needed");
	expect_error("jobs/e3.yaml", "testcase: [a, b]\nfio:\n",
		     "e3.yaml:1:11: testcase: a list where a single value is needed");
	expect_error("jobs/e4.yaml", "testcase: t\nruntime: 5x\nfio:\n",
		     "e4.yaml:2:10: runtime: '5x' is not a duration");
	expect_error("jobs/e5.yaml", "testcase: t\nfio-setup-basic:\n  test_size: 20Q\nfio:\n",
		     "e5.yaml:3:14: test_size: '20Q' is not a size");
	expect_error("jobs/e6.yaml", "testcase: t\n<<: ../../../etc/passwd\n",
		     "outside the jobs tree");
	put("jobs/e8.yaml", "<<: e7.yaml\n");
	expect_error("jobs/e7.yaml", "<<: e8.yaml\ntestcase: t\n", "include cycle");
	expect_error("jobs/e9.yaml", "testcase: t\n<<: nowhere.yaml\n",
		     "e9.yaml:2:5: included file 'nowhere.yaml' not found");
	expect_error("jobs/e10.yaml", "testcase: t\nrw: [\n", "e10.yaml:2:1: did not find expected node content");
	expect_error("jobs/e11.yaml", "testcase: t\n% if x\n", "ERB template lines");
	expect_error("jobs/e13.yaml", "testcase: t\nfio-setup-basic:\n  rw: '{{ system(1) }}'\nfio:\n",
		     "e13.yaml:3:7: rw: '{{ }}' expression: method calls are not supported");
	expect_error("jobs/e18.yaml", "testcase: t\nfio-setup-basic:\n  rw: '{{ nosuch }}'\nfio:\n",
		     "rw: '{{ }}' expression: unknown hash key: 'nosuch'");
	expect_error("jobs/e14.yaml", "- a\n", "a job is a mapping");
	expect_error("jobs/e15.yaml", "", "the job file is empty");
	expect_error("jobs/e16.yaml", "testcase: t\ndisk: 2floppy\nfio:\n", "'2floppy' is not a disk");
	expect_error("jobs/e17.yaml", "testcase: t\nvmstat: [a]\nfio:\n", "takes a value or a mapping");
	expect_error("jobs/e19.yaml", "testcase: aim9\naim9:\n  test: x\n",
		     "aim9: not a program lkprobot implements");
}

static char warned[512];
static int nwarn;

static void remember_warning(const char *msg)
{
	snprintf(warned, sizeof(warned), "%s", msg);
	nwarn++;
}

static void test_job_warns_unknown_program_maps(void **state)
{
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct job_env env = { .data_dir = tmp, .no_defaults = true, .warn = remember_warning };
	(void)state;
	nwarn = 0;
	assert_int_equal(expand("jobs/w.yaml", "testcase: t\nhackbench:\n  mode: x\n"
				"fio-setup-basic:\n  rw: [a, b]\nfio:\n", &env, &c, &err), 0);
	assert_int_equal(c.n, 2);
	/* once per job file, not once per atomic job */
	assert_int_equal(nwarn, 1);
	assert_non_null(strstr(warned, "w.yaml:3:3: 'hackbench' is not a program lkprobot knows"));
	collected_release(&c);
	/* unknown programs do not expand, as under lkp-tests without the program */
	assert_int_equal(expand("jobs/w2.yaml", "testcase: t\nhackbench:\n  mode: [a, b]\n", &env, &c, &err), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(node_get(node_get(c.jobs[0], "hackbench"), "mode")->type, NODE_SEQ);
	collected_release(&c);
	strbuf_release(&err);
}

/* A made-up lkp-tests checkout: what lkp-tests reads of one is the scripts' headers. */
static void put_exec(const char *rel, const char *text)
{
	char path[512];
	put(rel, text);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_job_lkp_src_programs_names_and_check(void **state)
{
	struct strbuf err = STRBUF_INIT;
	char dir[128];
	struct lkpsrc *lk;
	(void)state;
	snprintf(dir, sizeof(dir), "%s/lkp", tmp);
	put_exec("lkp/programs/aim9/run", "#!/bin/sh\n# - testtime\n# - test\n\n# - not_an_option\n");
	put("lkp/programs/aim9/meta.yaml", "parameters:\n  test:\n  documented_only:\n");
	put_exec("lkp/programs/cpuid/one-shot-monitor", "#!/bin/sh\n");
	put("lkp/programs/noexec/run", "#!/bin/sh\n# - x\n");	/* not executable: no program */
	put_exec("lkp/bin/run-test", "#!/bin/sh\n# - nr_instances\n");
	put("lkp/jobs/aim9.yaml", "testcase: aim9\ncategory: benchmark\n\n# kept as a comment\n"
	    "aim9:\n  testtime: 300s\n  test: [add_int, add_long]\n  not_an_option: [1, 2]\n"
	    "cpuid:\n  test: [x]\nnoexec:\n  x: [1, 2]\n");
	assert_null(lkpsrc_open(tmp, &err));	/* no programs/ */
	assert_non_null(strstr(err.buf, "is not an lkp-tests checkout"));
	lk = lkpsrc_open(dir, &err);
	assert_non_null(lk);

	struct job_env env = { .data_dir = tmp, .lkp = lk, .no_defaults = true };
	struct collected c = { .lkp = lk };
	assert_int_equal(expand("lkp/jobs/aim9.yaml", NULL, &env, &c, &err), 0);
	/* the header's options expand and name; the rest, as in lkp-tests, do not */
	assert_int_equal(c.n, 2);
	assert_string_equal(c.names[0], "j-add_int-300s.yaml");
	assert_string_equal(c.names[1], "j-add_long-300s.yaml");
	assert_int_equal(node_get(node_get(c.jobs[0], "aim9"), "not_an_option")->type, NODE_SEQ);
	/* the comment after an empty line stays a comment */
	struct strbuf out = STRBUF_INIT;
	yml_emit(&out, c.jobs[0]);
	assert_non_null(strstr(out.buf, "\n# kept as a comment\n"));
	/* without the checkout aim9 is unknown: one atomic job */
	struct job_env plain = { .data_dir = tmp, .no_defaults = true };
	struct collected c2 = { 0 };
	assert_int_equal(expand("lkp/jobs/aim9.yaml", NULL, &plain, &c2, &err), 0);
	assert_int_equal(c2.n, 1);
	assert_string_equal(c2.names[0], "j-defaults.yaml");
	/* and a run says exactly what is missing */
	assert_int_equal(job_check(c.jobs[0], lk, &err), -1);
	assert_string_equal(err.buf, "aim9: test not implemented by lkprobot (lkp-tests runs it with programs/aim9/run); also missing: cpuid (monitor)");
	const struct lkpsrc_program *const *all;
	assert_int_equal(lkpsrc_all(lk, &all), 2);
	assert_string_equal(all[0]->name, "aim9");
	assert_string_equal(all[0]->options[1], "test");
	assert_null(all[0]->options[2]);
	assert_true(all[1]->kinds == LKPSRC_MONITOR);
	collected_release(&c);
	collected_release(&c2);
	lkpsrc_free(lk);

	/* a checkout from before programs/: tests/, setup/, monitors/ */
	snprintf(dir, sizeof(dir), "%s/oldlkp", tmp);
	put_exec("oldlkp/tests/aim9", "#!/bin/sh\n# - testtime\n# - test\n");
	put_exec("oldlkp/setup/sysctl", "#!/bin/sh\n# - sc_x\n");
	put_exec("oldlkp/monitors/cpuid", "#!/bin/sh\n");
	lk = lkpsrc_open(dir, &err);
	assert_non_null(lk);
	assert_string_equal(lkpsrc_script(lkpsrc_program(lk, "aim9"), LKPSRC_TEST), "tests/aim9");
	assert_string_equal(lkpsrc_program(lk, "sysctl")->options[0], "sc_x");
	assert_true(lkpsrc_program(lk, "cpuid")->kinds == LKPSRC_MONITOR);
	assert_null(lkpsrc_program(lk, "../tests/aim9"));	/* no path tricks */
	lkpsrc_free(lk);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_job_braces_evaluate_as_lkp_tests(void **state)
{
	struct job_env env = { .data_dir = tmp, .no_defaults = true };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT;
	(void)state;
	/* lkp-tests' aim7-fs-raid: a nil entry drops that combination */
	assert_int_equal(expand("jobs/b.yaml",
				"testcase: t\nfs:\n  fs: [btrfs, f2fs]\nfio-setup-basic:\n"
				"  rw:\n    - {{ fs.fs == 'f2fs' ? nil : 'read' }}\n    - write\n"
				"  bs: {{\n          case job['fio-setup-basic']['rw']\n          when 'write' then 4096\n"
				"          else '2M'\n          end\n        }}\n"
				"  ioengine: 'x{{ fs.fs =~ /btr/ ? 1 : 2 }}y'\nfio:\n",
				&env, &c, &err), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(c.names[0], "j-2M-btrfs-x1y-read.yaml");
	assert_string_equal(c.names[1], "j-4096-btrfs-x1y-write.yaml");
	assert_string_equal(c.names[2], "j-4096-f2fs-x2y-write.yaml");
	collected_release(&c);
	strbuf_release(&err);
}

static void test_job_path_params_ruby_values(void **state)
{
	struct strbuf pp = STRBUF_INIT, err = STRBUF_INIT;
	struct node *job;
	(void)state;
	/* false and nil drop out; floats, octals and sexagesimals read as Ruby reads them */
	job = yml_load_one("testcase: t\nfio-setup-basic:\n  rw: off\n  bs: 10.10\n"
			   "  iodepth: 010\n  runtime: 1:30\n  direct: yes\n  nr_files: '010'\nfio:\n",
			   "x", &err);
	assert_non_null(job);
	job_path_params(job, NULL, false, &pp);
	assert_string_equal(pp.buf, "10.1-true-8-010-5400");
	node_free(job);
	strbuf_release(&pp);
	strbuf_release(&err);
}

static void test_job_tbox_group(void **state)
{
	const char *cases[][2] = {
		{ "lkp-hsw-ep6-2", "lkp-hsw-ep6" }, { "a-1-b-2", "a-b" },
		{ "vm-snb-7", "vm-snb" }, { "plain", "plain" }, { "x-y", "x-y" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf g = STRBUF_INIT;
		machine_tbox_group(cases[i][0], &g);
		assert_string_equal(g.buf, cases[i][1]);
		strbuf_release(&g);
	}
}

static void test_job_testbox_and_host_file(void **state)
{
	struct job_env env = { .data_dir = tmp, .testbox = "box-3" };
	struct collected c = { 0 };
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct machine m;
	(void)state;
	put("hosts/box", "nr_cpu: 8\nmemory: 16G\nmodel: Test\nbrand: Test CPU\n");
	assert_int_equal(expand("jobs/h.yaml", "testcase: t\nnr_cpu: 4\nfio:\n", &env, &c, &err), 0);
	assert_string_equal(job_get_str(c.jobs[0], "tbox_group"), "box");
	assert_string_equal(job_get_str(c.jobs[0], "testbox"), "box-3");
	assert_string_equal(job_get_str(c.jobs[0], "nr_cpu"), "4");	/* the job wins */
	assert_string_equal(job_get_str(c.jobs[0], "memory"), "16G");
	assert_int_equal(machine_load(&m, tmp, "box-3", &err), 0);
	assert_int_equal(m.nr_cpu, 8);
	assert_int_equal(m.memory, 16ULL << 30);
	assert_string_equal(m.tbox_group, "box");
	assert_int_equal(job_result_path(c.jobs[0], &m, NULL, false, &out, &err), 0);
	assert_true(!strncmp(out.buf, "t/defaults/box/", 15));
	machine_describe(&m, &out);
	assert_non_null(strstr(out.buf, "8 threads Test CPU with 16G memory"));
	machine_release(&m);
	assert_int_equal(machine_load(&m, tmp, "nosuch", &err), 1);
	collected_release(&c);
	strbuf_release(&out);
	strbuf_release(&err);
}

static void test_job_result_path_rejects_unsafe_axes(void **state)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct machine m;
	struct node *job = yml_load_one("testcase: t\ncommit: ../x\n", "x", &err);
	(void)state;
	machine_detect(&m);
	assert_int_equal(job_result_path(job, &m, NULL, false, &out, &err), -1);
	assert_non_null(strstr(err.buf, "commit"));
	assert_int_equal(out.len, 0);
	node_free(job);
	job = yml_load_one("suite: x\n", "x", &err);
	assert_int_equal(job_result_path(job, &m, NULL, false, &out, &err), -1);
	assert_non_null(strstr(err.buf, "testcase"));
	node_free(job);
	machine_release(&m);
	strbuf_release(&err);
	strbuf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_job_expand_matrix_order_and_names),
		cmocka_unit_test(test_job_multi_document_merges_onto_doc0),
		cmocka_unit_test(test_job_path_params_sorted_and_compatible),
		cmocka_unit_test(test_job_path_params_truncate_and_map_chars),
		cmocka_unit_test(test_job_defaults_by_value_option_and_prefix),
		cmocka_unit_test(test_job_special_keys_plus_minus_dotted),
		cmocka_unit_test(test_job_overrides_win_and_are_marked),
		cmocka_unit_test(test_job_includes_relative_override_ignore),
		cmocka_unit_test(test_job_errors_are_one_line_with_position),
		cmocka_unit_test(test_job_warns_unknown_program_maps),
		cmocka_unit_test(test_job_lkp_src_programs_names_and_check),
		cmocka_unit_test(test_job_braces_evaluate_as_lkp_tests),
		cmocka_unit_test(test_job_path_params_ruby_values),
		cmocka_unit_test(test_job_tbox_group),
		cmocka_unit_test(test_job_testbox_and_host_file),
		cmocka_unit_test(test_job_result_path_rejects_unsafe_axes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

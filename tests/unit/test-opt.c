/*
 * Unit tests: robot/opt — a table parsed (values where the rows say,
 * arguments behind the options), the help made from it, and the one-line
 * errors: a bad value, an unknown option, a missing value, a value given
 * to a flag. opt.c is compiled in here (robot/ is no archive); say_error
 * is caught instead of printed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../robot/opt.c"

/* the last error a parse said_err, and how many */
static struct strbuf said_err = STRBUF_INIT;
static int nsaid_err;

int say_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_reset(&said_err);
	strbuf_vaddf(&said_err, fmt, ap);
	va_end(ap);
	nsaid_err++;
	return code;
}

/* ... and its warnings (lib/util/say.h), so that say.o is not linked in */
void say_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

struct vals {
	const char *dir, *name;
	bool flag;
	long n;
	int k;
	const char *opt_size;
	bool opt_seen;
	bool on;
	char *copy;
};

static int take_size(const struct opt *o, const char *value, struct strbuf *err)
{
	struct vals *v = o->dst;

	if (value && !strcmp(value, "bad")) {
		strbuf_setf(err, "'%s' is not a size", value);
		return -1;
	}
	v->opt_seen = true;
	v->opt_size = value;
	return 0;
}

#define TABLE(v)                                                                                       \
	const struct opt table[] = {                                                                   \
		OPT_STRING('C', "dir", "DIR", "a directory\nthat goes on", &(v).dir),                   \
		OPT_STRING(0, "a-rather-long-name", "VALUE", "goes on the next line", &(v).name),      \
		OPT_BOOL('f', "flag", "a flag", &(v).flag),                                             \
		OPT_LONG(0, "runs", "N", "runs", &(v).n, 1, 10, "a number of runs (1-10)"),             \
		OPT_INT('k', "k", "K", "a small int", &(v).k, 0, 3, "from 0 to 3"),                      \
		OPT_CALL(0, "loop", "[=SIZE]", "an optional value", take_size, &(v)),                    \
		OPT_NO(0, "no-on", "clears on", &(v).on),                                               \
		OPT_DUP(0, "copy", "S", "a copy", &(v).copy),                                           \
		OPT_END(),                                                                              \
	}

static int parse(const struct opt *table, char **argv)
{
	int argc = 0;
	while (argv[argc])
		argc++;
	nsaid_err = 0;
	strbuf_reset(&said_err);
	return opt_parse("test", argc, argv, table, "head\n", "tail\n", false);
}

static void test_parse(void **state)
{
	struct vals v = { .on = true };
	TABLE(v);
	char *argv[] = { "test", "--copy", "one", "--copy=two", "--no-on", "a.yaml", "-C", "d", "--flag", "--runs=3", "b.yaml", "-k", "2", "--a-rather-long-name", "x",
			 "--loop", NULL };
	(void)state;

	assert_int_equal(parse(table, argv), OPT_GO);
	assert_int_equal(nsaid_err, 0);
	assert_string_equal(v.dir, "d");
	assert_string_equal(v.name, "x");
	assert_true(v.flag);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.k, 2);
	assert_true(v.opt_seen);
	assert_null(v.opt_size);
	/* the arguments behind the options, in their order */
	assert_int_equal(optind, 14);
	assert_false(v.on);
	assert_string_equal(v.copy, "two");	/* the last one; the first freed */
	free(v.copy);
	assert_string_equal(argv[optind], "a.yaml");
	assert_string_equal(argv[optind + 1], "b.yaml");

	char *argv2[] = { "test", "--loop=2G", "--di", "e", NULL };	/* a long name's prefix, as getopt_long */
	assert_int_equal(parse(table, argv2), OPT_GO);
	assert_string_equal(v.opt_size, "2G");
	assert_string_equal(v.dir, "e");
	assert_int_equal(optind, 4);
}

static void test_errors(void **state)
{
	struct vals v = { 0 };
	TABLE(v);
	static const struct {
		const char *argv[4];	/* a NULL after them */
		const char *said_err;
	} cases[] = {
		{ { "test", "--runs", "11" }, "--runs: '11' is not a number of runs (1-10)" },
		{ { "test", "--runs=x" }, "--runs: 'x' is not a number of runs (1-10)" },
		{ { "test", "-k", "4" }, "--k: '4' is not from 0 to 3" },
		{ { "test", "--loop=bad" }, "--loop: 'bad' is not a size" },
		{ { "test", "--bogus" }, "--bogus: not an option of test; 'lkprobot test --help' lists them" },
		{ { "test", "--bogus=1" }, "--bogus: not an option of test; 'lkprobot test --help' lists them" },
		{ { "test", "-x" }, "-x: not an option of test; 'lkprobot test --help' lists them" },
		{ { "test", "--dir" }, "--dir: needs a value (DIR)" },
		{ { "test", "a", "-C" }, "-C: needs a value (DIR)" },
		{ { "test", "--flag=yes" }, "--flag: takes no value" },
		{ { "test", "--fl=yes" }, "--flag: takes no value" },
		{ { "test", "--a-rather" }, "--a-rather-long-name: needs a value (VALUE)" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[4] = { 0 };
		memcpy(argv, cases[i].argv, sizeof(argv));
		assert_int_equal(parse(table, argv), 2);
		assert_int_equal(nsaid_err, 1);
		assert_string_equal(said_err.buf, cases[i].said_err);
	}
	/* main's: before the command, no command to name */
	char *argv[] = { "lkprobot", "--bogus", "run", NULL };
	nsaid_err = 0;
	assert_int_equal(opt_parse(NULL, 3, argv, table, NULL, NULL, true), 2);
	assert_string_equal(said_err.buf, "--bogus: not an option of lkprobot; 'lkprobot --help' lists them");
	/* ... and the first argument ends the options */
	char *argv2[] = { "lkprobot", "-f", "run", "--bogus", NULL };
	assert_int_equal(opt_parse(NULL, 4, argv2, table, NULL, NULL, true), OPT_GO);
	assert_int_equal(optind, 2);
}

static void test_usage(void **state)
{
	struct vals v = { 0 };
	TABLE(v);
	struct strbuf out = STRBUF_INIT;
	(void)state;

	opt_usage(&out, table);
	assert_string_equal(out.buf,
			    "  -C, --dir DIR          a directory\n"
			    "                         that goes on\n"
			    "      --a-rather-long-name VALUE\n"
			    "                         goes on the next line\n"
			    "  -f, --flag             a flag\n"
			    "      --runs N           runs\n"
			    "  -k, --k K              a small int\n"
			    "      --loop[=SIZE]      an optional value\n"
			    "      --no-on            clears on\n"
			    "      --copy S           a copy\n"
			    "  -h, --help             this help\n");
	strbuf_release(&out);
}

/* --help prints head, the options, tail, and the command stops with 0 */
static void test_help(void **state)
{
	struct vals v = { 0 };
	TABLE(v);
	char *argv[] = { "test", "--flag", "--help", "--bogus", NULL };
	char path[] = "/tmp/lkp-opt-test.XXXXXX";
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	fflush(stdout);
	int saved = dup(1);
	dup2(fd, 1);
	int r = parse(table, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_int_equal(r, 0);
	assert_int_equal(nsaid_err, 0);

	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;
	assert_int_equal(strbuf_read_file(&text, path), 0);
	opt_help(&want, table, "head\n", "tail\n");
	assert_string_equal(text.buf, want.buf);
	assert_true(!strncmp(text.buf, "head\n  -C, --dir", 16));
	assert_non_null(strstr(text.buf, "this help\ntail\n"));
	close(fd);
	unlink(path);
	strbuf_release(&text);
	strbuf_release(&want);
}

/* providers' flags as rows: shown with their provider, remembered for provider_cli_apply() */
static void test_provider_rows(void **state)
{
	struct provider_cli pc = { 0 };
	struct opt rows[32];
	size_t n = opt_provider_rows(rows, 32, &pc);
	bool flag = false;
	const struct opt table[] = {
		OPT_BOOL(0, "flag", "a flag", &flag),
		OPT_INCLUDE(rows),
		OPT_END(),
	};
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	(void)state;

	assert_true(n > 0);
	opt_usage(&out, table);
	assert_non_null(strstr(out.buf, "      --via local|qemu   slurm: what the box runs (default local)\n"));
	assert_non_null(strstr(out.buf, "      --sbatch-arg ARG   slurm: one more sbatch argument (repeatable)\n"));
	assert_non_null(strstr(out.buf, "      --box NAME         ssh: "));
	char *argv[] = { "test", "--via", "qemu", "--flag", "--sbatch-arg", "-x", "--sbatch-arg=-y", NULL };
	assert_int_equal(parse(table, argv), OPT_GO);
	assert_true(flag);
	assert_int_equal(pc.n, 3);
	assert_string_equal(pc.flags[0], "via");
	assert_string_equal(pc.values[0], "qemu");
	assert_string_equal(pc.values[2], "-y");

	/* applied once the provider is known: another provider's flag is refused */
	struct provider_options *o = provider_options_new(provider_find("slurm"));
	assert_int_equal(provider_cli_apply(&pc, o, &err), 0);
	provider_options_free(o);
	o = provider_options_new(provider_find("local"));
	assert_int_equal(provider_cli_apply(&pc, o, &err), -1);
	assert_string_equal(err.buf, "--via is an option of provider slurm, not local");
	provider_options_free(o);

	/* a provider option set by a command's own row: the flag named, the key not */
	o = provider_options_new(provider_find("qemu"));
	const struct opt qt[] = {
		OPT_PROVIDER(0, "cpus", "N", "guest CPUs", "cpus", o),
		OPT_END(),
	};
	char *argv2[] = { "test", "--cpus", "many", NULL };
	assert_int_equal(parse(qt, argv2), 2);
	assert_true(!strncmp(said_err.buf, "--cpus: must be a whole number", 30));
	provider_options_free(o);
	provider_cli_release(&pc);
	strbuf_release(&out);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_provider_rows),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	strbuf_release(&said_err);
	return r;
}

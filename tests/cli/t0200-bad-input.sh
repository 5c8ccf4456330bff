#!/bin/sh
# Bad input: one clear line naming file:line:col (or the key), exit 2, and
# nothing written in -o. What lkp-tests splits (unknown options, values it
# does not check) split-job splits too; run refuses it before anything runs.
. "$(dirname "$0")/lib.sh"

mkdir -p "$TMP/jobs/sub" "$TMP/out"
bad() {	# name, content
	printf "$2" >"$TMP/jobs/$1"
}
bad malformed.yaml 'testcase: x\nfio-setup-basic:\n  rw: [read\n'
bad unknown.yaml 'testcase: x\nfio-setup-basic:\n  rww: read\nfio:\n'
bad wrongtype.yaml 'testcase: x\nfio-setup-basic:\n  bs:\n    a: 1\nfio:\n'
bad array.yaml 'testcase:\n- a\n- b\nfio:\n'
bad unit.yaml 'testcase: x\nruntime: 5x\nfio:\n'
bad size.yaml 'testcase: x\nfio-setup-basic:\n  test_size: [1G, 2Q]\nfio:\n'
bad disk.yaml 'testcase: x\ndisk: 2floppy\nfio:\n'
bad cycle-a.yaml '<<: cycle-b.yaml\ntestcase: x\n'
bad cycle-b.yaml '<<: cycle-a.yaml\nfio:\n'
bad missing.yaml 'testcase: x\n<<: nothere.yaml\n'
bad erb.yaml 'testcase: x\n%% if true\nfio:\n%% end\n'
bad expr.yaml 'testcase: x\nfio-setup-basic:\n  rw: "{{ 1 + 1 }}"\nfio:\n'
bad badexpr.yaml 'testcase: x\nfio-setup-basic:\n  rw: "{{ `id` }}"\nfio:\n'
bad empty-list.yaml 'testcase: x\nfio-setup-basic:\n  rw: []\nfio:\n'
echo "secret: 1" >"$TMP/outside.yaml"
bad sub/escape.yaml 'testcase: x\n<<: ../../outside.yaml\nfio:\n'

check() {	# file, pattern: split-job refuses it, as lkp-tests would
	expect_exit 2 lkprobot split-job -t x -o "$TMP/out" "$TMP/jobs/$1" &&
	one_line_error "$2" &&
	[ -z "$(ls -A "$TMP/out")" ]
}

check_run() {	# file, pattern: split-job takes it as lkp-tests does, run refuses it
	lkprobot split-job -n -t x "$TMP/jobs/$1" >/dev/null &&
	expect_exit 2 lkprobot run --no-store -o "$TMP/res" "$TMP/jobs/$1" &&
	one_line_error "$2" &&
	[ ! -e "$TMP/res" ]
}

test_expect_success 'malformed YAML' 'check malformed.yaml "malformed.yaml:3:1: .*fix the YAML syntax"'
test_expect_success 'unknown option under a program, with a suggestion' \
	'check_run unknown.yaml "unknown.yaml:3:8: rww: not an option of .fio-setup-basic.; did you mean .rw.\?"'
test_expect_success 'a mapping where a value is needed' 'check_run wrongtype.yaml "wrongtype.yaml:4:5: bs: a mapping where a single value is needed"'
test_expect_success 'a list where a scalar is needed' 'check_run array.yaml "array.yaml:2:1: testcase: a list where a single value is needed"'
test_expect_success 'a duration that does not parse' 'check_run unit.yaml "unit.yaml:2:10: runtime: .5x. is not a duration"'
test_expect_success 'a size that does not parse, after expansion' 'check_run size.yaml "size.yaml:3:.*: test_size: .2Q. is not a size"'
test_expect_success 'a disk that does not parse' 'check_run disk.yaml "disk.yaml:2:7: disk: .2floppy. is not a disk"'
test_expect_success 'an include cycle' 'check cycle-a.yaml "cycle-b.yaml:1:1: include cycle"'
test_expect_success 'a missing include' 'check missing.yaml "missing.yaml:2:5: included file .nothere.yaml. not found"'
test_expect_success 'ERB templates' 'check erb.yaml "erb.yaml:2:1: ERB template lines"'
test_expect_success '{{ }} expressions are evaluated as lkp-tests does' '
	lkprobot split-job -n -t x "$TMP/jobs/expr.yaml" >"$TMP/names" &&
	grep -qx "expr-2.yaml" "$TMP/names"
'
test_expect_success '{{ }} outside the Ruby lkprobot evaluates' \
	'check badexpr.yaml "badexpr.yaml:3:7: rw: .\{\{ \}\}. expression: unexpected"'
test_expect_success 'an empty list gives no atomic job, with a warning' '
	lkprobot split-job -n -t x "$TMP/jobs/empty-list.yaml" >"$TMP/names" 2>"$TMP/err" &&
	[ ! -s "$TMP/names" ] &&
	one_line_error "empty-list.yaml:3:7: rw: an empty list gives no atomic job"
'
test_expect_success 'an include outside the jobs tree via ../..' \
	'check sub/escape.yaml "escape.yaml:2:5: included file .\.\./\.\./outside.yaml. resolves to .*outside the jobs tree"'

test_expect_success 'no such job file' '
	expect_exit 2 lkprobot split-job -o "$TMP/out" "$TMP/nope.yaml" &&
	one_line_error "nope.yaml: no such job file" && [ -z "$(ls -A "$TMP/out")" ]
'

test_expect_success 'a bad override' '
	expect_exit 2 lkprobot split-job -o "$TMP/out" -s "a: [1" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "override" && [ -z "$(ls -A "$TMP/out")" ]
'

test_expect_success 'one bad job among good ones writes nothing' '
	expect_exit 2 lkprobot split-job -t x -o "$TMP/out" jobs/fio-basic/fio-basic-smoke.yaml "$TMP/jobs/missing.yaml" &&
	[ -z "$(ls -A "$TMP/out")" ]
'

test_expect_success 'an output path that is a file' '
	: >"$TMP/afile" &&
	expect_exit 2 lkprobot split-job -o "$TMP/afile" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "cannot create the output directory"
'

test_expect_success 'a value with shell metacharacters is data, kept literally' '
	printf "testcase: x\nfio-setup-basic:\n  bs: \"2M; touch $TMP/pwned\"\nfio:\n" >"$TMP/jobs/meta.yaml" &&
	lkprobot split-job -t x -o "$TMP/meta" "$TMP/jobs/meta.yaml" >/dev/null &&
	[ ! -e "$TMP/pwned" ] &&
	grep -qx "  bs: 2M; touch $TMP/pwned" "$TMP/meta"/*.yaml &&
	ls "$TMP/meta" | grep -q "meta-2M__touch__"
'

# the peak resident memory of a command, in KiB (GNU time), into $TMP/rss; its exit code kept
peak_rss() {
	/usr/bin/time -f %M -o "$TMP/rss" "$@"
}

test_expect_success 'inputs that never end or are huge: /dev/zero, a 2 GiB file as a configuration, a boxes file, a password file (exit 2, one line, in bounded memory)' '
	truncate -s 2G "$TMP/huge.yaml" &&
	for c in check-config status "outbox send"; do
		expect_exit 2 peak_rss timeout 20 "$LKPROBOT" $c -c /dev/zero &&
		one_line_error "/dev/zero: cannot read the configuration: not a regular file$" &&
		[ "$(tail -n 1 "$TMP/rss")" -lt 200000 ] || return 1
	done &&
	expect_exit 2 peak_rss timeout 20 "$LKPROBOT" check-config -c "$TMP/huge.yaml" &&
	one_line_error "huge.yaml: cannot read the configuration: more than 1 MiB" &&
	[ "$(tail -n 1 "$TMP/rss")" -lt 200000 ] &&
	expect_exit 2 timeout 20 "$LKPROBOT" box list --boxes /dev/zero &&
	one_line_error "/dev/zero: cannot read the boxes file: not a regular file" &&
	printf "mail:\n  smtp:\n    url: smtp://localhost\n    password_file: /dev/zero\n" >"$TMP/pw.yaml" &&
	: >"$TMP/pw.db" && expect_exit 2 timeout 20 "$LKPROBOT" outbox -c "$TMP/pw.yaml" --db "$TMP/pw.db" send &&
	one_line_error "mail.smtp.password_file: cannot be read \(a regular file of at most 64 KiB\)" &&
	rm -f "$TMP/huge.yaml"
'

test_done

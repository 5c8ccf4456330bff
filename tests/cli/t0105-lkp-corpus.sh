#!/bin/sh
# The whole lkp-tests job corpus: with its programs (LKP_SRC), every one of
# lkp-tests' 141 top-level job files splits into the atomic job names
# lkp-tests' own split-job gives (captured: tests/fixtures/lkp-corpus/README),
# and run says what lkprobot cannot run before running anything.
. "$(dirname "$0")/lib.sh"

LKP=tests/fixtures/lkp-corpus

test_expect_success 'the fixture holds the 141 job files and their names' '
	[ $(ls $LKP/jobs/*.yaml | wc -l) = 141 ] &&
	[ $(ls $LKP/names/*.names | wc -l) = 141 ]
'

test_expect_success 'every job file gives the names lkp-tests gives (--lkp-src)' '
	bad=0 &&
	for f in $LKP/jobs/*.yaml; do
		b=$(basename "$f" .yaml)
		lkprobot split-job -n --no-defaults -t lkp-hsw-d01 --lkp-src $LKP "$f" 2>"$TMP/err.$b" |
			sort -u >"$TMP/got.$b" || { echo "refused: $b: $(cat "$TMP/err.$b")"; bad=1; continue; }
		cmp -s $LKP/names/$b.names "$TMP/got.$b" || {
			echo "differs: $b"; diff $LKP/names/$b.names "$TMP/got.$b" | head -4; bad=1; }
	done &&
	[ $bad = 0 ]
'

test_expect_success 'LKP_SRC in the environment serves the same' '
	LKP_SRC=$LKP lkprobot split-job -n --no-defaults -t lkp-hsw-d01 $LKP/jobs/aim9.yaml | sort >"$TMP/aim9" &&
	cmp $LKP/names/aim9.names "$TMP/aim9" &&
	[ $(wc -l <"$TMP/aim9") = 60 ]
'

test_expect_success 'without lkp-tests data lkprobot says what it does not know' '
	lkprobot split-job -n --no-defaults -t x $LKP/jobs/aim9.yaml >"$TMP/one" 2>"$TMP/err" &&
	[ "$(cat "$TMP/one")" = "aim9-defaults.yaml" ] &&
	grep -q "aim9.yaml:.*.aim9. is not a program lkprobot knows.*set LKP_SRC" "$TMP/err"
'

test_expect_success 'in an lkp-tests checkout, no LKP_SRC: the checkout of the job file (or of the current directory), said in one line' '
	cp -r "$LKP" "$TMP/lkp-tests" && mkdir -p "$TMP/lkp-tests/include" "$TMP/lkp-tests/lib" &&
	(cd "$TMP/lkp-tests" && "$LKPROBOT" split-job -n --no-defaults -t lkp-hsw-d01 jobs/aim9.yaml) 2>"$TMP/in.err" |
		sort | cmp $LKP/names/aim9.names - &&
	[ "$(cat "$TMP/in.err")" = "lkprobot: LKP_SRC=$TMP/lkp-tests: the lkp-tests checkout jobs/aim9.yaml is in (LKP_SRC or --lkp-src for another)" ] &&
	lkprobot split-job -n --no-defaults -t lkp-hsw-d01 "$TMP/lkp-tests/jobs/aim9.yaml" 2>"$TMP/in2.err" |
		sort | cmp $LKP/names/aim9.names - &&
	[ "$(cat "$TMP/in2.err")" = "lkprobot: LKP_SRC=$TMP/lkp-tests: the lkp-tests checkout $TMP/lkp-tests/jobs/aim9.yaml is in (LKP_SRC or --lkp-src for another)" ] &&
	mkdir "$TMP/elsewhere" && cp $LKP/jobs/aim9.yaml "$TMP/elsewhere/" &&
	(cd "$TMP/lkp-tests/programs" && "$LKPROBOT" split-job -n --no-defaults -t lkp-hsw-d01 "$TMP/elsewhere/aim9.yaml") 2>"$TMP/in3.err" |
		sort | cmp $LKP/names/aim9.names - &&
	[ "$(cat "$TMP/in3.err")" = "lkprobot: LKP_SRC=$TMP/lkp-tests: the lkp-tests checkout of the current directory (LKP_SRC or --lkp-src for another)" ] &&
	(cd "$TMP/lkp-tests" && LKP_SRC="$SRC/$LKP" "$LKPROBOT" split-job -n --no-defaults -t lkp-hsw-d01 jobs/aim9.yaml) 2>"$TMP/in4.err" >/dev/null &&
	[ ! -s "$TMP/in4.err" ]
'

test_expect_success 'an atomic job written by split-job splits into itself' '
	lkprobot split-job --no-defaults -t lkp-hsw-d01 --lkp-src $LKP -o "$TMP/fx" $LKP/jobs/fxmark.yaml >/dev/null &&
	[ $(ls "$TMP/fx" | wc -l) = 480 ] &&
	f=$(ls "$TMP/fx" | head -1) &&
	[ "$(lkprobot split-job -n --no-defaults -t lkp-hsw-d01 --lkp-src $LKP "$TMP/fx/$f")" = "${f%.yaml}-${f#fxmark-}" ]
'

test_expect_success 'run refuses a test lkprobot does not implement, naming it' '
	expect_exit 2 lkprobot run --no-store -o "$TMP/res" --lkp-src $LKP $LKP/jobs/aim9.yaml &&
	one_line_error "^lkprobot: aim9: test not implemented by lkprobot \(lkp-tests runs it with programs/aim9/run\)$" &&
	[ ! -e "$TMP/res" ]
'

test_expect_success 'run names every program it lacks, in one line' '
	expect_exit 2 lkprobot run --no-store -o "$TMP/res" --lkp-src $LKP $LKP/jobs/memtier.yaml &&
	one_line_error "sysctl: setup not implemented by lkprobot \(lkp-tests runs it with programs/sysctl/setup\); also missing: .*memtier \(test\)" &&
	[ ! -e "$TMP/res" ]
'

test_expect_success 'run without lkp-tests data names the testcase it cannot run' '
	expect_exit 2 lkprobot run --no-store -o "$TMP/res" $LKP/jobs/aim9.yaml &&
	grep -q "warning: .*aim9.yaml:6:3: .aim9. is not a program lkprobot knows" "$TMP/err" &&
	tail -1 "$TMP/err" | grep -q "^lkprobot: aim9: not a program lkprobot implements" &&
	[ $(wc -l <"$TMP/err") = 2 ] &&
	[ ! -e "$TMP/res" ]
'

test_expect_success 'options split as lkp-tests does are checked when the job runs' '
	lkprobot split-job -n --no-defaults -t lkp-hsw-d01 --lkp-src $LKP $LKP/jobs/fio-jbod-12hdd.yaml >"$TMP/n" &&
	[ "$(cat "$TMP/n")" = "fio-jbod-12hdd-12HDD-ext4.yaml" ] &&
	expect_exit 2 lkprobot run --no-store -o "$TMP/res" --lkp-src $LKP $LKP/jobs/fio-jbod-12hdd.yaml &&
	one_line_error "fio-jbod-12hdd.yaml:12:5: rw: not an option of .fio." &&
	[ ! -e "$TMP/res" ]
'

test_expect_success 'programs lists what lkprobot runs next to what lkp-tests knows' '
	lkprobot programs --lkp-src $LKP >"$TMP/p" &&
	grep -q "^aim9  *test  *lkp-tests  *lkp-tests runs programs/aim9/run$" "$TMP/p" &&
	grep -q "^fio  *test  *runs " "$TMP/p" &&
	grep -q "^kmsg  *monitor[+a-z]*  *runs " "$TMP/p" &&
	grep -q "^iostat  *monitor[+a-z]*  *runs " "$TMP/p" &&
	grep -q "^perf-node  *monitor[+a-z]*  *declared " "$TMP/p" &&
	grep -q "^lkprobot runs [0-9]* and declares [0-9]* programs; [0-9]* more are lkp-tests. only" "$TMP/p" &&
	LKP_SRC=$LKP lkprobot programs aim9 >"$TMP/a" &&
	grep -qx "aim9 (not implemented by lkprobot)" "$TMP/a" &&
	grep -qx "  - testtime" "$TMP/a"
'

test_expect_success 'a directory that is no lkp-tests checkout is refused' '
	expect_exit 2 lkprobot split-job -n --lkp-src "$TMP" $LKP/jobs/aim9.yaml &&
	one_line_error "is not an lkp-tests checkout"
'

test_done

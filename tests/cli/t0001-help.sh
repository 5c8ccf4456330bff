#!/bin/sh
# Every command answers --help; usage errors and unknown commands exit 2.
. "$(dirname "$0")/lib.sh"

test_expect_success 'no arguments: usage on stderr, exit 2' '
	expect_exit 2 lkprobot &&
	grep -q "usage: lkprobot <command>" "$TMP/err"
'

test_expect_success '--version' '
	lkprobot --version | grep -Eq "^lkprobot [0-9]+\.[0-9]+\.[0-9]+$"
'

test_expect_success 'help lists the commands of this issue' '
	lkprobot help >"$TMP/help" &&
	for c in split-job job-path show-job programs help; do
		grep -q "^  $c " "$TMP/help" || { echo "missing $c"; exit 1; }
	done
'

test_expect_success 'every listed command answers --help with its exit codes' '
	for c in $(lkprobot help | sed -n "s/^  \([a-z-]*\) .*/\1/p"); do
		lkprobot $c --help >"$TMP/h" || { echo "$c --help failed"; exit 1; }
		grep -q "exit codes" "$TMP/h" || [ "$c" = help ] || { echo "$c: no exit codes"; exit 1; }
		lkprobot help $c >"$TMP/h2" || exit 1
	done
'

test_expect_success 'unknown command: one line, exit 2' '
	expect_exit 2 lkprobot frobnicate &&
	one_line_error "not a command"
'

test_expect_success 'a mistyped command: the nearest one named, only when it is close' '
	expect_exit 2 lkprobot bisec &&
	one_line_error "^lkprobot: .bisec. is not a command; did you mean bisect\? \(.lkprobot help. lists them\)$" &&
	expect_exit 2 lkprobot stauts &&
	one_line_error "did you mean status\?" &&
	expect_exit 2 lkprobot frobnicate &&
	! grep -q "did you mean" "$TMP/err" &&
	expect_exit 2 lkprobot help bisec &&
	one_line_error "did you mean bisect\?"
'

test_expect_success 'unknown option: exit 2' '
	expect_exit 2 lkprobot split-job --bogus jobs/fio-basic/fio-basic-smoke.yaml
'

# The commands with options: the listed ones and run-commit (a farm's node runs it).
commands() {
	lkprobot help | sed -n "s/^  \([a-z-]*\) .*/\1/p" | grep -vx help
	echo run-commit
}

# The options a command's --help names anywhere (synopsis, prose, the
# options), other commands' quoted out ('lkprobot report --send'), and the
# short forms of its option lines; not -h/--help (it stops the parse).
documented() {
	lkprobot "$1" --help | sed "s/'lkprobot [^']*'//g" | grep -o -- "--[a-z][a-z-]*" | sort -u | grep -vx -- --help
	lkprobot "$1" --help | sed -n "s/^  \(-[a-zA-Z]\), --.*/\1/p" | grep -vx -- -h
}

test_expect_success 'every option a command documents is accepted (given a value, the next one is the unknown one)' '
	seen=0 &&
	for c in $(commands); do
		for o in $(documented $c); do
			expect_exit 2 lkprobot $c $o 1 --zz-not-an-option || exit 1
			one_line_error "^lkprobot: " || exit 1
			if grep -q -- "^lkprobot: $o: not an option" "$TMP/err"; then
				echo "lkprobot $c --help names $o; it is not an option"
				exit 1
			fi
			seen=$((seen + 1))
		done
	done &&
	[ "$seen" -gt 200 ]
'

# What each command accepted before its options were a table (main
# 14e26d8's getopt_long tables; box took -t and dropped it: its test box is
# the box's), and bisect's and run-commit's providers' flags.
cat >"$TMP/accepted" <<EOF
bisect tree good bad metric provider accel kconfig max-points first-parent floor json resume result-root cache db testbox set no-defaults lkp-src via constraint partition sbatch-arg pending-timeout max-boxes box boxes
box boxes db result-root reason kernel tree commit kconfig cache runs set no-defaults lkp-src
build tree commit kconfig cache jobs rebuild
compare classic field json stats all more show-noise perf-profile db floor result-root
install dry-run testbox set no-defaults lkp-src
job-path result-root path-params testbox set no-defaults lkp-src old-order
outbox config db result-root wait
programs lkp-src
qemu result-root kernel modules runs cache pmem-size memory cpus boot-timeout db no-store append job-timeout reuse-boot tree commit kconfig accel testbox set no-defaults lkp-src
qemu-box dir ssh-port authorized-keys name kernel modules pmem pmem-size memory cpus append cache accel
recipients tree config
report base commit tree url tree-url lkprobot-url closes from to cc job kconfig signature date domain body output db result-root send config metric note floor
run result-root runs loop-disks fs-root timeout-margin db no-store compatible-names testbox set no-defaults lkp-src
run-commit provider tree commit status cache kconfig accel db via constraint partition sbatch-arg pending-timeout max-boxes box boxes
serve config once listen json accel
show-job testbox set no-defaults lkp-src
split-job output kconfig commit dry-run testbox set no-defaults lkp-src compatible old-order
stats reindex missing db no-store compatible-names
EOF

test_expect_success 'every option a command takes is in its --help (box took --result-root and --kernel and did not say so)' '
	while read -r c opts; do
		lkprobot $c --help >"$TMP/h" || exit 1
		for o in $opts; do
			grep -Eq -- "^  (-[a-zA-Z], |    )--$o([ =[]|\$)" "$TMP/h" || { echo "$c --help does not list --$o"; exit 1; }
		done
	done <"$TMP/accepted"
'

test_expect_success 'lkprobot --help lists its own options; one before the command is refused in one line' '
	lkprobot --help >"$TMP/h" &&
	grep -q -- "^      --version " "$TMP/h" &&
	expect_exit 2 lkprobot --bogus run &&
	one_line_error "^lkprobot: --bogus: not an option of lkprobot; .lkprobot --help. lists them$"
'

test_expect_success 'option errors are one line: unknown, no value, a value to a flag, a bad value' '
	expect_exit 2 lkprobot build --bogus &&
	one_line_error "^lkprobot: --bogus: not an option of build; .lkprobot build --help. lists them$" &&
	expect_exit 2 lkprobot build --tree &&
	one_line_error "^lkprobot: --tree: needs a value \(DIR\)$" &&
	expect_exit 2 lkprobot build --rebuild=yes &&
	one_line_error "^lkprobot: --rebuild: takes no value$" &&
	expect_exit 2 lkprobot qemu --runs 0 jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: --runs: .0. is not a number of runs \(1-1000\)$" &&
	expect_exit 2 lkprobot bisect --via nowhere --tree . --good HEAD --bad HEAD jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: --via is an option of provider slurm, not local$"
'

test_done

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

test_expect_success 'unknown option: exit 2' '
	expect_exit 2 lkprobot split-job --bogus jobs/fio-basic/fio-basic-smoke.yaml
'

test_done

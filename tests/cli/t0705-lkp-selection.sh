#!/bin/sh
# lkprobot compare selects, orders and prints the rows lkp-tests' own
# ncompare selects, orders and prints, on held-out pairs of real matrices
# (tests/fixtures/lkp-compare: captured with lkp-tests at bbbc29c49 running
# its lib/compare.rb); its data (lkp-etc/) replaced by the operator's.
. "$(dirname "$0")/lib.sh"

FIX="$SRC/tests/fixtures/lkp-compare"

# the table below the header (lkp-tests' header names its own axes)
body() { sed -n '/%stddev\|fail:runs/,$p' "$1"; }

test_expect_success 'every held-out pair: the same rows in the same order, printed the same, as lkp-tests ncompare' '
	n=0 &&
	for p in "$FIX"/p*/; do
		read -r base new <"$p/sides" &&
		lkprobot compare "$p$base" "$p$new" >"$TMP/ours" &&
		body "$TMP/ours" >"$TMP/got" && body "$p/ncompare" >"$TMP/want" &&
		{ diff "$TMP/want" "$TMP/got" || { echo "in $p"; false; }; } &&
		n=$((n + 1)) || return 1
	done &&
	test "$n" -ge 6
'

test_expect_success '--more: the rows of lkp-tests ncompare --more (the stat-denylist ignored)' '
	for p in "$FIX"/p*/; do
		read -r base new <"$p/sides" &&
		lkprobot compare --more "$p$base" "$p$new" >"$TMP/ours" &&
		body "$TMP/ours" >"$TMP/got" && body "$p/ncompare-more" >"$TMP/want" &&
		{ diff "$TMP/want" "$TMP/got" || { echo "in $p"; false; }; } || return 1
	done
'

test_expect_success 'the data at work: interrupts.* only with --more; fio.time.system_time under its floor of 10 s not at all' '
	p="$FIX/p3-ioengine" && read -r base new <"$p/sides" &&
	lkprobot compare "$p/$base" "$p/$new" >"$TMP/o1" &&
	! grep -q " interrupts\\." "$TMP/o1" &&
	lkprobot compare --more "$p/$base" "$p/$new" >"$TMP/o2" &&
	grep -q " interrupts\\." "$TMP/o2" &&
	lkprobot compare --json "$p/$base" "$p/$new" >"$TMP/j" &&
	grep -q "stat-denylist" "$TMP/j" &&
	p="$FIX/p6-runs-2-5" && read -r base new <"$p/sides" &&
	lkprobot compare "$p/$base" "$p/$new" >"$TMP/o3" &&
	grep -q " time\\.system_time$" "$TMP/o3" && ! grep -q " fio\\.time\\.system_time$" "$TMP/o3" &&
	mkdir -p "$TMP/nofloor" && echo "{}" >"$TMP/nofloor/perf-metrics-threshold.yaml" &&
	LKPROBOT_LKP_ETC="$TMP/nofloor" lkprobot compare "$p/$base" "$p/$new" >"$TMP/o4" &&
	grep -q "  -8\\.0%  .* fio\\.time\\.system_time$" "$TMP/o4"
'

test_expect_success 'the operator replaces a file (LKPROBOT_LKP_ETC): vmstat.* leaves the report allow list, its rows go' '
	p="$FIX/p1-same" && read -r base new <"$p/sides" &&
	mkdir -p "$TMP/etc" &&
	grep -v "^.vmstat" "$SRC/lkp-etc/report-allowlist" >"$TMP/etc/report-allowlist" &&
	lkprobot compare "$p/$base" "$p/$new" >"$TMP/o1" &&
	grep -q " vmstat\\.system\\.in$" "$TMP/o1" &&
	LKPROBOT_LKP_ETC="$TMP/etc" lkprobot compare "$p/$base" "$p/$new" >"$TMP/o2" &&
	! grep -q " vmstat\\." "$TMP/o2" &&
	grep -q " proc-vmstat\\.nr_dirtied$" "$TMP/o2"
'

test_expect_success 'a bad regex in the operator'"'"'s file: one line naming the file and the pattern, exit 2' '
	p="$FIX/p1-same" && read -r base new <"$p/sides" &&
	mkdir -p "$TMP/bad" && printf "^fio\\\\.\\n^foo(bar\\n" >"$TMP/bad/stat-denylist" &&
	LKPROBOT_LKP_ETC="$TMP/bad" expect_exit 2 lkprobot compare "$p/$base" "$p/$new" &&
	one_line_error "bad/stat-denylist: \\^foo\\(bar: a regex that does not compile"
'

test_done

#!/bin/sh
# show-job prints the merged job: includes, host file, defaults, overrides.
. "$(dirname "$0")/lib.sh"

test_expect_success 'textual include spliced, later keys replace earlier ones in place' '
	lkprobot show-job --no-defaults jobs/vm-scalability/vm-scalability-swap-1pmem.yaml >"$TMP/s" &&
	grep -qx "  - swap-w-seq" "$TMP/s" &&
	grep -A1 -x "disk:" "$TMP/s" | grep -qx "  nr_pmem: 1" &&
	grep -qx "  bp_memmap: 96G!18G" "$TMP/s" &&
	! grep -q "#! jobs/include" "$TMP/s"
'

test_expect_success 'one YAML document per job document' '
	lkprobot show-job jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml >"$TMP/m" &&
	[ $(grep -cx -- "---" "$TMP/m") = 2 ] &&
	grep -qx "#! jobs/include/category/benchmark" "$TMP/m"
'

test_expect_success 'overrides and the host file' '
	lkprobot show-job -t lkp-hsw-ep6 jobs/fio-basic/fio-basic-smoke.yaml runtime=9s >"$TMP/o" &&
	grep -qx "#! hosts/lkp-hsw-ep6" "$TMP/o" &&
	grep -qx "nr_cpu: 56" "$TMP/o" &&
	grep -qx "#! user overrides" "$TMP/o" &&
	grep -qx "runtime: 9s" "$TMP/o" && ! grep -qx "runtime: 5s" "$TMP/o"
'

test_expect_success 'the output is a job lkprobot reads back to the same paths' '
	lkprobot show-job jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/back.yaml" &&
	a=$(lkprobot job-path --path-params jobs/fio-basic/fio-basic-smoke.yaml) &&
	b=$(lkprobot job-path --path-params "$TMP/back.yaml") &&
	[ "$a" = "$b" ]
'

test_expect_success 'programs lists the table and one program options' '
	lkprobot programs >"$TMP/p" &&
	grep -q "^fio-setup-basic *setup" "$TMP/p" &&
	grep -q "^perf-stat *monitor" "$TMP/p" &&
	lkprobot programs fio-setup-basic | grep -qx "  - test_size" &&
	expect_exit 2 lkprobot programs nope && one_line_error "not a program"
'

test_done

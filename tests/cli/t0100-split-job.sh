#!/bin/sh
# split-job gives the atomic jobs lkp-tests gives: the names below were
# captured from lkp-tests' own split-job on these job files
# (tests/fixtures/lkp-split/README).
. "$(dirname "$0")/lib.sh"

test_expect_success 'every shipped job splits into the names lkp-tests gives' '
	for f in jobs/*/*.yaml; do
		b=$(basename "$f" .yaml)
		want=tests/fixtures/lkp-split/$b.names
		[ -f "$want" ] || { echo "no fixture for $f"; exit 1; }
		lkprobot split-job -n -t lkp-hsw-d01 "$f" | sort >"$TMP/got"
		diff -u "$want" "$TMP/got" || { echo "differs: $f"; exit 1; }
	done
'

test_expect_success 'fio-basic-2pmem-dax-256g (two documents) writes 120 atomic jobs' '
	lkprobot split-job -t lkp-hsw-ep6 -o "$TMP/split" \
		jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml >"$TMP/lines" &&
	[ $(ls "$TMP/split" | wc -l) = 120 ] &&
	[ $(wc -l <"$TMP/lines") = 120 ] &&
	grep -q "^jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml => $TMP/split/fio-basic-2pmem-dax-256g-104G_8G-104G_132G-2M-2pmem-xfs-sync-dax-50%-200s-randwrite-200G-tb.yaml$" "$TMP/lines" &&
	[ -z "$(ls -A "$TMP/split" | grep "^\.")" ]
'

test_expect_success 'atomic jobs carry #! provenance, the host file and defaults' '
	f="$TMP/split/fio-basic-2pmem-dax-256g-104G_8G-104G_132G-2M-2pmem-ext2-mmap-dax-50%-200s-write-200G-tb.yaml" &&
	head -1 "$f" | grep -qx -- "---" &&
	grep -qx "#! jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml" "$f" &&
	grep -qx "#! hosts/lkp-hsw-ep6" "$f" &&
	grep -qx "#! jobs/include/category/benchmark" "$f" &&
	grep -qx "#! jobs/include/disk/nr_pmem" "$f" &&
	grep -qx "#! jobs/include/fs/ext2" "$f" &&
	grep -qx "  fs: ext2" "$f" &&
	grep -qx "tbox_group: lkp-hsw-ep6" "$f" &&
	grep -qx -- "- EXT2_FS" "$f"
'

test_expect_success 'an atomic job splits into itself' '
	f="$TMP/split/fio-basic-2pmem-dax-256g-104G_8G-104G_132G-4k-2pmem-xfs-io_uring-dax-50%-200s-read-200G-tb.yaml" &&
	lkprobot split-job -o "$TMP/again" -t lkp-hsw-ep6 "$f" >/dev/null &&
	[ $(ls "$TMP/again" | wc -l) = 1 ] &&
	a=$(lkprobot job-path --path-params -t lkp-hsw-ep6 "$f") &&
	b=$(lkprobot job-path --path-params -t lkp-hsw-ep6 "$TMP/again"/*.yaml) &&
	[ "$a" = "$b" ] &&
	[ "$a" = "fio-basic/104G_8G-104G_132G-4k-2pmem-xfs-io_uring-dax-50%-200s-read-200G-tb" ]
'

test_expect_success 'key=value and -s overrides change the names and are marked' '
	lkprobot split-job -n -t x jobs/fio-basic/fio-basic-smoke.yaml cpufreq_governor=performance -s "runtime: 7s" >"$TMP/names" &&
	grep -qx "fio-basic-smoke-2M-performance-2pmem-xfs-sync-dax-2-7s-randwrite-256M-tb.yaml" "$TMP/names" &&
	lkprobot split-job -o "$TMP/ov" -t x jobs/fio-basic/fio-basic-smoke.yaml cpufreq_governor=performance >/dev/null &&
	grep -A1 -x "#! user overrides" "$TMP/ov"/*.yaml | grep -qx "cpufreq_governor: performance"
'

test_expect_success '--old-order names files in the order of appearance (pre-2019 lkp-tests)' '
	lkprobot split-job -n --old-order -t lkp-hsw-ep6 jobs/fio-basic/fio-basic-2pmem-xfs-dax-randwrite-2M-sync.yaml >"$TMP/c" &&
	grep -qx "fio-basic-2pmem-xfs-dax-randwrite-2M-sync-2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance.yaml" "$TMP/c"
'

test_expect_success '--compatible cleans a scheduled (dirty) job to its job file.s sections, as lkp-tests: the new box.s host keys, not the old box.s' '
	dirty=$(ls tests/fixtures/lkp-split/dirty/fio-basic-*.yaml) &&
	grep -qx "#! hosts/lkp-hsw-d01" "$dirty" &&
	lkprobot split-job --compatible -t lkp-hsw-ep6 -o "$TMP/cl" "$dirty" >/dev/null &&
	ls "$TMP/cl" >"$TMP/cl.names" && diff -u tests/fixtures/lkp-split/dirty/compatible-lkp-hsw-ep6.names "$TMP/cl.names" &&
	f="$TMP/cl/$(cat "$TMP/cl.names")" &&
	grep -qx "#! hosts/lkp-hsw-ep6" "$f" && grep -qx "model: Haswell-EP" "$f" && grep -qx "nr_cpu: 56" "$f" &&
	! grep -q "lkp-hsw-d01\|^model: Haswell$\|^nr_cpu: 8$\|ST4000NM0035" "$f" &&
	grep -qx "tbox_group: lkp-hsw-ep6" "$f" &&
	lkprobot split-job -t lkp-hsw-ep6 -o "$TMP/dl" "$dirty" >/dev/null &&
	grep -qx "#! hosts/lkp-hsw-d01" "$TMP"/dl/*.yaml && grep -qx "nr_cpu: 8" "$TMP"/dl/*.yaml
'

test_expect_success '-c and -k set kconfig and commit; commit is part of the name' '
	lkprobot split-job -n -t x -c x86_64-rhel-8.3 -k 0123abc jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/k" &&
	grep -qx "fio-basic-smoke-2M-2pmem-xfs-sync-dax-2-5s-randwrite-256M-tb-0123abc.yaml" "$TMP/k"
'

test_expect_success 'the output directory is created' '
	lkprobot split-job -t x -o "$TMP/a/b/c" jobs/vm-scalability/vm-scalability-smoke.yaml >/dev/null &&
	[ -f "$TMP/a/b/c/vm-scalability-smoke-2-5s-256M-anon-w-seq.yaml" ]
'

test_expect_success 'several job files in one run' '
	lkprobot split-job -n -t x jobs/vm-scalability/vm-scalability-smoke.yaml jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/two" &&
	[ $(wc -l <"$TMP/two") = 2 ]
'

test_expect_success 'duplicate atomic names: warned, the later kept (as lkp-tests)' '
	mkdir -p "$TMP/dup" &&
	printf "testcase: t\nkconfig: [a, b]\nfio-setup-basic:\n  rw: read\nfio:\n" >"$TMP/dup/dup.yaml" &&
	lkprobot split-job -t x -o "$TMP/dupout" "$TMP/dup/dup.yaml" >/dev/null 2>"$TMP/err" &&
	grep -q "two atomic jobs are named" "$TMP/err" &&
	[ $(ls "$TMP/dupout" | wc -l) = 1 ] &&
	grep -qx "kconfig: b" "$TMP/dupout"/*.yaml
'

test_done

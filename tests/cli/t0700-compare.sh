#!/bin/sh
# lkprobot compare: the tables of the three example reports rendered again
# from samples that reproduce their means, stddevs and changes
# (tests/fixtures/compare/gen-samples.py finds them); sides from commit
# directories, run directories and the store; bad input.
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3

FIX="$SRC/tests/fixtures/compare"
GEN="python3 $FIX/gen-samples.py"

# rows of a classic table, whitespace collapsed, sorted (the report's own
# order is its mailer's; ours is lkp ncompare's)
rows() { tail -n +7 "$1" | grep . | tr -s ' ' | sed 's/^ //' | sort; }

test_expect_success 'example 1 (fio, 2017): every row of its table, as it printed them' '
	B="$TMP/e0/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6" &&
	$GEN "$FIX/example-000.rows" "$B/c42a4508649e40af0000" "$B/2e12109d1c32c810088820478d21b5b7cd87a805" &&
	lkprobot compare --classic "$B/c42a4508649e40af0000" "$B/2e12109d1c32c810088820478d21b5b7cd87a805" >"$TMP/c0" &&
	head -3 "$TMP/c0" | grep -qx "testcase/path_params/tbox_group/run: fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6" &&
	sed -n 3p "$TMP/c0" | grep -qx "c42a4508649e40af  2e12109d1c32c810088820478d  " &&
	rows "$TMP/c0" >"$TMP/got" && sort "$FIX/example-000.rows" >"$TMP/want" &&
	diff "$TMP/want" "$TMP/got"
'

test_expect_success 'example 3 (vm-scalability, 2017): every row with --more, the noisy latency row and its absolute change too' '
	B="$TMP/e3/vm-scalability/p/lkp-hsw-ep4/debian/k/gcc-6" &&
	$GEN "$FIX/example-003.rows" "$B/91526a72b886b53e0000" "$B/4b922b23ce8026a6cdd79ecd57aaa515d8144f2a" &&
	lkprobot compare --more --classic "$B/91526a72b886b53e0000" "$B/4b922b23ce8026a6cdd79ecd57aaa515d8144f2a" >"$TMP/c3" &&
	rows "$TMP/c3" >"$TMP/got" && sort "$FIX/example-003.rows" >"$TMP/want" &&
	diff "$TMP/want" "$TMP/got" &&
	grep -q "   -6e+03 .*latency_stats.sum.pipe_read" "$TMP/c3"
'

test_expect_success 'example 3 without --more: lkp-tests (since 2021) leaves interrupts.* out, the rest stays' '
	B="$TMP/e3/vm-scalability/p/lkp-hsw-ep4/debian/k/gcc-6" &&
	lkprobot compare --classic "$B/91526a72b886b53e0000" "$B/4b922b23ce8026a6cdd79ecd57aaa515d8144f2a" >"$TMP/c3b" &&
	rows "$TMP/c3b" >"$TMP/got" && grep -v "interrupts\\." "$FIX/example-003.rows" | sort >"$TMP/want" &&
	diff "$TMP/want" "$TMP/got"
'

test_expect_success 'example 2 (fio, 2020): --field with its GEO-MEAN row, byte for byte' '
	B="$TMP/e2/fio-basic/2M-performance-2pmem-xfs-libaio-dax-50%-200s-read-200G-tb-ucode=0x5002f01/lkp-csl-2sp6/debian/x86_64-rhel-8.3/gcc-9" &&
	echo "22103 -43% 12551 fio.read_iops" >"$TMP/rows2" &&
	$GEN "$TMP/rows2" "$B/7476b91d4db369d80000" "$B/a0ac629ebe7b3d248cb93807782a00d9142fdb98" &&
	lkprobot compare --field fio.read_iops "$B/7476b91d4db369d80000" "$B/a0ac629ebe7b3d248cb93807782a00d9142fdb98" >"$TMP/c2" &&
	diff "$FIX/example-002.txt" "$TMP/c2"
'

test_expect_success 'ncompare layout (the default): header, %change with one decimal, stddev above 2 %' '
	B="$TMP/e0/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6" &&
	lkprobot compare "$B/c42a4508649e40af0000" "$B/2e12109d1c32c810088820478d21b5b7cd87a805" >"$TMP/n0" &&
	head -1 "$TMP/n0" | grep -qx "=========================================================================================" &&
	grep -qx "  fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6" "$TMP/n0" &&
	grep -qx "         %stddev     %change         %stddev" "$TMP/n0" &&
	grep -q "^     68769 ±  3%     -74\.[0-9]%      17370        fio.write_bw_MBps$" "$TMP/n0" &&
	grep -q "^      0\.70 ± 20%     +98\.[0-9]       99\.39        fio.latency_4ms%$" "$TMP/n0" &&
	grep -q "^ 1\.431e+13 ±  3%     +13\.[0-9]%  1\.617e+13        perf-stat.cpu-cycles$" "$TMP/n0"
'

test_expect_success '--json: every metric with its reason; swapping the sides flips every change, identical sides change nothing' '
	B="$TMP/e0/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6" &&
	lkprobot compare --json "$B/c42a4508649e40af0000" "$B/2e12109d1c32c810088820478d21b5b7cd87a805" >"$TMP/j1" &&
	lkprobot compare --json "$B/2e12109d1c32c810088820478d21b5b7cd87a805" "$B/c42a4508649e40af0000" >"$TMP/j2" &&
	lkprobot compare --json "$B/c42a4508649e40af0000" "$B/c42a4508649e40af0000" >"$TMP/j3" &&
	python3 -c "import json,sys
a=json.load(open(sys.argv[1]))[0]; b=json.load(open(sys.argv[2]))[0]; c=json.load(open(sys.argv[3]))[0]
ra={r[\"metric\"]: r for r in a[\"rows\"]}; rb={r[\"metric\"]: r for r in b[\"rows\"]}
assert a[\"changed\"] == 33 == b[\"changed\"], (a[\"changed\"], b[\"changed\"])
for m, r in ra.items():
    s = rb[m]
    assert r[\"changed\"] == s[\"changed\"], m
    if r[\"change\"][0] is not None and s[\"change\"][0] is not None and r[\"change\"][0] != 0:
        assert (r[\"change\"][0] > 0) != (s[\"change\"][0] > 0), m
    if r[\"absolute\"]:
        assert abs(r[\"change\"][0] + s[\"change\"][0]) < 1e-9 * max(1, abs(r[\"change\"][0])), m
    if r[\"p_mwu\"] is not None:
        assert abs(r[\"p_mwu\"] - s[\"p_mwu\"]) < 1e-12, m
assert ra[\"fio.write_bw_MBps\"][\"verdict\"] == \"regression\"
assert ra[\"fio.write_clat_mean_us\"][\"verdict\"] == \"regression\"
assert rb[\"fio.write_bw_MBps\"][\"verdict\"] == \"improvement\"
assert c[\"changed\"] == 0 and all(r[\"why\"] for r in c[\"rows\"])
" "$TMP/j1" "$TMP/j2" "$TMP/j3"
'

test_expect_success 'run directories as sides (commas), one-run sides: no row changes, each says why' '
	for c in aaaa1111 bbbb2222; do for r in 0 1 2; do
		d="$TMP/rd/fio-basic/pp/tb/debian/kc/gcc-12/$c/$r"; mkdir -p "$d"
		printf "testcase: fio-basic\ntbox_group: tb\ncommit: %s\nkconfig: kc\ncompiler: gcc-12\nrootfs: debian\njob_state: finished\n" $c >"$d/job.yaml"
		v=$([ $c = aaaa1111 ] && echo 100 || echo 50)
		echo "{\"fio.write_bw_MBps\": $((v + r)), \"vmstat.cpu.us\": 3}" >"$d/stats.json"
	done; done &&
	R="$TMP/rd/fio-basic/pp/tb/debian/kc/gcc-12" &&
	lkprobot compare "$R/aaaa1111/0,$R/aaaa1111/1,$R/aaaa1111/2" "$R/bbbb2222/0,$R/bbbb2222/1" >"$TMP/r1" &&
	grep -qx "    101.00           -50.0%      50.50        fio.write_bw_MBps" "$TMP/r1" &&
	lkprobot compare --json "$R/aaaa1111/0" "$R/bbbb2222/0" >"$TMP/r2" &&
	grep -q "\"changed\": 0" "$TMP/r2" && grep -q "fewer than 3 runs on both sides" "$TMP/r2"
'

test_expect_success 'commits from the store: a prefix names the commit; a commit it does not know is one line, exit 2' '
	lkprobot stats --reindex "$TMP/rd" --db "$TMP/st.db" >/dev/null &&
	lkprobot compare --db "$TMP/st.db" aaaa bbbb >"$TMP/s1" &&
	grep -qx "  fio-basic/pp/tb/debian/kc/gcc-12" "$TMP/s1" &&
	grep -q "fio.write_bw_MBps" "$TMP/s1" &&
	expect_exit 2 lkprobot compare --db "$TMP/st.db" aaaa cccc &&
	one_line_error "cccc.: not a result directory, and no commit of that name in the store"
'

test_expect_success 'bad samples: NaN, inf, a zero or negative base mean, a metric on one side only (0 on the other, as lkp-tests counts it)' '
	mkdir -p "$TMP/bad/a" "$TMP/bad/b" &&
	echo "{\"fio.x\": [1, NaN, 3], \"fio.inf\": [1, 1e999, 3], \"fio.y\": [0, 0, 0], \"fio.z\": [-5, -5, -5], \"fio.only\": [1, 1, 1]}" >"$TMP/bad/a/matrix.json" &&
	echo "{\"fio.x\": [1, 2, 3], \"fio.inf\": [1, 2, 3], \"fio.y\": [1, 1, 1], \"fio.z\": [-2, -2, -2], \"fio.new\": [1, 1, 1]}" >"$TMP/bad/b/matrix.json" &&
	lkprobot compare "$TMP/bad/a" "$TMP/bad/b" >"$TMP/b1" &&
	grep -q "^      0.00             n/a        1.00        fio.y$" "$TMP/b1" &&
	grep -q "^      1.00          -100.0%       0.00        fio.only$" "$TMP/b1" &&
	! grep -q "fio.x\|fio.inf\|fio.new\|nan\|inf " "$TMP/b1" &&
	lkprobot compare --json "$TMP/bad/a" "$TMP/bad/b" >"$TMP/b2" &&
	python3 -c "import json,sys
r={x[\"metric\"]: x for x in json.load(open(sys.argv[1]))[0][\"rows\"]}
assert r[\"fio.x\"][\"why\"] and not r[\"fio.x\"][\"changed\"]
assert r[\"fio.inf\"][\"why\"] and not r[\"fio.inf\"][\"changed\"]
assert r[\"fio.y\"][\"change\"] == [None] and \"base mean is 0\" in r[\"fio.y\"][\"why\"]
assert \"negative\" in r[\"fio.z\"][\"why\"]
assert r[\"fio.only\"][\"changed\"] and r[\"fio.only\"][\"sides\"][1] is None
assert r[\"fio.new\"][\"why\"] == \"not in the base\"
" "$TMP/b2"
'

test_expect_success 'usage: one side, two outputs, a side that is not there' '
	expect_exit 2 lkprobot compare "$TMP/bad/a" &&
	one_line_error "compare needs a base" &&
	expect_exit 2 lkprobot compare --json --classic "$TMP/bad/a" "$TMP/bad/b" &&
	one_line_error "choose one" &&
	expect_exit 2 lkprobot compare "$TMP/bad/a" "$TMP/nowhere/x" &&
	one_line_error "nowhere/x: neither a commit directory"
'

test_done

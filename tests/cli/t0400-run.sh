#!/bin/sh
# lkprobot run: real end-to-end runs on this machine — fio on a loop-backed
# xfs (loop devices stand in for the disk: --loop-disks) and vm-scalability's
# anon case — checked against fio's own JSON; failures, timeouts and
# interruptions leave result roots that say so. Needs root (mkfs, mount).
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"
test_need_root
test_need_cmd fio fio
test_need_cmd mkfs.xfs xfsprogs
test_need_cmd losetup util-linux
test_need_cmd python3 python3
test_need_cmd sqlite3 sqlite3

RES="$TMP/result"
DB="$TMP/store.db"
FSROOT="$TMP/fs"
# the engine's scratch space (loop devices' backing files) under $TMP: what
# this script leaves attached is told apart from other runs on the machine
TMPDIR="$TMP/scratch"
mkdir -p "$TMPDIR"
export TMPDIR
run() { "$LKPROBOT" run -o "$RES" --db "$DB" --fs-root "$FSROOT" "$@"; }
jget() {	# jget FILE KEY...: a value from JSON, read independently of lkprobot
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2:]:
    d=d[int(k)] if isinstance(d,list) else d[k]
print(d)' "$@"
}
no_leftovers() {	# nothing of ours stays mounted or attached
	# a loop device lets go once the file system over it has (after a
	# killed test, a lazy unmount): 30 s at most
	for i in $(seq 1 60); do
		! losetup -a | grep -q "$TMPDIR/" && break
		sleep 0.5
	done
	! grep -q " $FSROOT/" /proc/mounts &&
	! losetup -a | grep -q "$TMPDIR/" || { cat /proc/mounts; losetup -a; false; }
}

test_expect_success 'fio smoke on a loop-backed xfs: a complete LKP result root' '
	run --loop-disks=512M -t lkp-hsw-ep6 jobs/fio-basic/fio-basic-smoke-1hdd.yaml >"$TMP/run.out" &&
	cat "$TMP/run.out" &&
	grep -q "^finished $RES/fio-basic/4k-1HDD-xfs-sync-2-3s-randwrite-128M-tb/lkp-hsw-ep6/" "$TMP/run.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/run.out") && echo "$R" >"$TMP/root" &&
	for f in job.yaml reproduce.sh fio.task fio.output fio.json fio.time time \
		 vmstat vmstat.json perf-stat perf-stat.json interrupts proc-vmstat meminfo stats.json; do
		[ -s "$R/$f" ] || { echo "missing $f"; exit 1; }
	done &&
	[ -e "$R/output" ] &&
	grep -qx "job_state: finished" "$R/job.yaml" &&
	no_leftovers
'

test_expect_success 'fio.task as lkp-tests writes it: size per task, one section per mount' '
	R=$(cat "$TMP/root") &&
	grep -qx "size=67108864" "$R/fio.task" &&
	grep -qx "numjobs=2" "$R/fio.task" &&
	grep -qx "\[task_0\]" "$R/fio.task" &&
	grep -q "^directory=$FSROOT/loop" "$R/fio.task" &&
	grep -qx "time_based" "$R/fio.task" && ! grep -q create_only "$R/fio.task" &&
	grep -q "^mkfs.xfs -f -q -m reflink=0 /dev/loop" "$R/reproduce.sh" &&
	grep -q "^mount -t xfs /dev/loop" "$R/reproduce.sh" &&
	grep -q "^fio --output-format=json" "$R/reproduce.sh"
'

test_expect_success 'stats.json holds fio JSON numbers, not approximations' '
	R=$(cat "$TMP/root") &&
	bw=$(jget "$R/fio.output" jobs 0 write bw) &&
	iops=$(jget "$R/fio.output" jobs 0 write iops) &&
	python3 -c "import json,sys
s=json.load(open(sys.argv[1])); bw=float(sys.argv[2]); iops=float(sys.argv[3])
assert s[\"fio.write_bw_MBps\"] > 0, s
assert abs(s[\"fio.write_bw_MBps\"] - bw/1024) < 1e-9 * max(1, bw), (s[\"fio.write_bw_MBps\"], bw)
assert abs(s[\"fio.write_iops\"] - iops) < 1e-6 * max(1, iops), (s[\"fio.write_iops\"], iops)
assert not any(k.startswith(\"fio.read_\") for k in s), \"a write-only job has no read metrics\"
assert s[\"fio.time.elapsed_time\"] >= 3, s[\"fio.time.elapsed_time\"]
assert \"vmstat.system.in\" in s and \"vmstat.cpu.id\" in s
" "$R/stats.json" "$bw" "$iops"
'

test_expect_success 'what cannot be measured here is recorded, not failed' '
	R=$(cat "$TMP/root") &&
	grep -q "^unavailable:" "$R/job.yaml" &&
	grep -q "^  turbostat: " "$R/job.yaml" &&
	grep -q "^facts:" "$R/job.yaml" &&
	grep -q "^  disk: .1 loop device(s) of 512 MiB over sparse files stand in for HDD" "$R/job.yaml" &&
	{ grep -q "^  lock_stat: .*CONFIG_LOCK_STAT is off" "$R/job.yaml" || [ -e /proc/lock_stat ]; } &&
	{ grep -q "^  numa-vmstat: .*no NUMA node 1 here" "$R/job.yaml" || [ -d /sys/devices/system/node/node1 ]; } &&
	grep -q "^  perf-stat events: .*not supported here: cpu-cycles" "$R/job.yaml"
'

test_expect_success 'the commit directory has matrix.json, avg.json, stddev.json; --runs adds columns' '
	R=$(cat "$TMP/root") && RT=$(dirname "$R") &&
	[ "$(jget "$RT/matrix.json" stats_source | tr -cd , | wc -c)" = 0 ] &&
	run --loop-disks=512M --runs 2 -t lkp-hsw-ep6 jobs/fio-basic/fio-basic-smoke-1hdd.yaml >/dev/null &&
	python3 -c "import json,sys
m=json.load(open(sys.argv[1])); a=json.load(open(sys.argv[2])); sd=json.load(open(sys.argv[3]))
assert len(m[\"stats_source\"]) == 3, m[\"stats_source\"]
col=m[\"fio.write_bw_MBps\"]; assert len(col) == 3
mean=sum(col)/3
assert abs(a[\"fio.write_bw_MBps\"] - mean) < 1e-6*mean
pop=(sum((x-mean)**2 for x in col)/3)**0.5
assert abs(sd[\"fio.write_bw_MBps\"] - pop) < 1e-6*max(1,pop)
" "$RT/matrix.json" "$RT/avg.json" "$RT/stddev.json" &&
	[ -d "$RT/2" ] && no_leftovers
'

test_expect_success 'every run is in the SQLite store; stats --reindex rebuilds the same rows' '
	n=$(sqlite3 "$DB" "select count(*) from runs") && [ "$n" = 3 ] &&
	before=$(sqlite3 "$DB" "select count(*) from stats") && [ "$before" -gt 20 ] &&
	lkprobot stats --reindex "$RES" --db "$DB" >"$TMP/reindex" &&
	grep -q "^3 result root(s) recorded" "$TMP/reindex" &&
	[ "$(sqlite3 "$DB" "select count(*) from runs")" = 3 ] &&
	[ "$(sqlite3 "$DB" "select count(*) from stats")" = "$before" ] &&
	[ "$(sqlite3 "$DB" "pragma journal_mode")" = wal ]
'

test_expect_success 'stats RUN_DIR re-parses the raw files into the same stats.json' '
	R=$(cat "$TMP/root") &&
	cp "$R/stats.json" "$TMP/stats.before" && rm "$R/stats.json" "$R/fio.json" &&
	lkprobot stats --db "$DB" "$R" >/dev/null &&
	cmp "$TMP/stats.before" "$R/stats.json"
'

test_expect_success '--compatible-names adds the older names next to the current ones' '
	R=$(cat "$TMP/root") &&
	lkprobot stats --no-store --compatible-names "$R" >/dev/null &&
	python3 -c "import json,sys
s=json.load(open(sys.argv[1]))
assert abs(s[\"fio.write_clat_mean_us\"] - s[\"fio.write_clat_mean_ns\"]/1000) < 1e-9
assert \"fio.write_clat_99%_us\" in s
assert \"perf-stat.task-clock\" in s and s[\"perf-stat.task-clock\"] == s[\"perf-stat.sum.task-clock\"]
" "$R/stats.json"
'

test_expect_success 'a truncated raw file is rejected by its parser, never half-read; the numbers it gave before are kept' '
	R=$(cat "$TMP/root") && mkdir -p "$TMP/trunc/t/p/g/r/k/c/x" &&
	cp -r "$R" "$TMP/trunc/t/p/g/r/k/c/x/0" && T="$TMP/trunc/t/p/g/r/k/c/x/0" &&
	head -c 2000 "$R/fio.output" >"$T/fio.output" &&
	cp "$T/stats.json" "$TMP/trunc.before" &&
	expect_exit 1 lkprobot stats --no-store "$T" &&
	grep -q "stats.json kept as it was: re-deriving it would lose .*fio\." "$TMP/err" &&
	cmp "$TMP/trunc.before" "$T/stats.json" &&
	rm "$T/stats.json" &&
	expect_exit 1 lkprobot stats --no-store "$T" &&
	grep -q "fio.output" "$TMP/err" &&
	! grep -q "fio.write_bw_MBps" "$T/stats.json"
'

test_expect_success 'vm-scalability anon-w-seq runs in C and reports throughput' '
	run jobs/vm-scalability/vm-scalability-smoke.yaml runtime=2s >"$TMP/vm.out" &&
	cat "$TMP/vm.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/vm.out") &&
	python3 -c "import json,sys
s=json.load(open(sys.argv[1]))
assert s[\"vm-scalability.throughput\"] > 0, s
assert s[\"vm-scalability.time.elapsed_time\"] > 0
" "$R/stats.json"
'

test_expect_success 'reproduce.json: the lkprobot command of each run, with the options it was given' '
	R=$(cat "$TMP/root") &&
	[ "$(jget "$R/reproduce.json" argv)" = "['\''lkprobot'\'', '\''run'\'', '\''--loop-disks=512M'\'', '\''job.yaml'\'']" ] &&
	V=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/vm.out") && [ -d "$V" ] &&
	[ "$(jget "$V/reproduce.json" argv)" = "['\''lkprobot'\'', '\''run'\'', '\''job.yaml'\'']" ] &&
	[ ! -e "$V/kernel.config" ]
'

test_expect_success 'DAX asked on a device without DAX: the run fails and says why' '
	expect_exit 1 run --loop-disks=512M jobs/fio-basic/fio-basic-smoke.yaml runtime=1s &&
	R=$(sed -n "s/^failed \([^ ]*\) .*/\1/p" "$TMP/.stdout") &&
	grep -qx "job_state: failed" "$R/job.yaml" &&
	grep -q "asks for DAX but it is off" "$R/job.yaml" &&
	no_leftovers
'

test_expect_success 'no pmem and no --loop-disks: one clear reason' '
	expect_exit 1 run jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "reason: setup disk: the job needs 2 pmem device(s), this machine has 0" "$TMP/.stdout"
'

test_expect_success 'a job value with shell syntax is data: one literal fio value, no shell' '
	{ run --loop-disks=512M jobs/fio-basic/fio-basic-smoke-1hdd.yaml "fio-setup-basic.bs=4k; touch $TMP/pwned" >"$TMP/inj.out" || true; } &&
	[ ! -e "$TMP/pwned" ] &&
	R=$(sed -n "s/^[a-z]* \([^ ]*\) (test.*/\1/p" "$TMP/inj.out") && [ -n "$R" ] &&
	grep -qx "bs=4k; touch $TMP/pwned" "$R/fio.task" &&
	grep -q "^fio --output-format=json" "$R/reproduce.sh"
'

test_expect_success 'a value with a line break never reaches fio: refused (exit 2) before anything runs or is written' '
	printf "testcase: x\ndisk: 1HDD\nfs: xfs\nfio-setup-basic:\n  test_size: 64M\n  bs: \"4k\\\\nexec_prerun=touch %s/pwned2\"\nfio:\n" "$TMP" >"$TMP/nl.yaml" &&
	find "$RES" "$DB" 2>/dev/null | sort >"$TMP/before" &&
	expect_exit 2 "$LKPROBOT" run -o "$RES" --db "$DB" --fs-root "$FSROOT" --loop-disks=512M "$TMP/nl.yaml" &&
	one_line_error "nl.yaml:6:7: bs: the value has a control character \(0x0a\)" &&
	[ ! -e "$TMP/pwned2" ] &&
	find "$RES" "$DB" 2>/dev/null | sort | diff "$TMP/before" - && no_leftovers
'

test_expect_success 'a test past its runtime is killed: job_state timeout, monitors kept' '
	printf "testcase: x\ndisk: 1HDD\nfs: xfs\nruntime: 1s\nvmstat:\nfio-setup-basic:\n  runtime: 30s\n  time_based: tb\n  test_size: 64M\nfio:\n" >"$TMP/slow.yaml" &&
	expect_exit 1 run --loop-disks=512M --timeout-margin 2 "$TMP/slow.yaml" &&
	R=$(sed -n "s/^timeout \([^ ]*\) .*/\1/p" "$TMP/.stdout") &&
	grep -qx "job_state: timeout" "$R/job.yaml" &&
	[ -s "$R/vmstat" ] && no_leftovers
'

test_expect_success 'SIGTERM mid-test: job_state killed, monitor data kept, nothing left mounted' '
	printf "testcase: x\ndisk: 1HDD\nfs: xfs\nruntime: 20s\nvmstat:\nfio-setup-basic:\n  time_based: tb\n  test_size: 64M\nfio:\n" >"$TMP/long.yaml" &&
	{ "$LKPROBOT" run -o "$RES" --db "$DB" --fs-root "$FSROOT" --loop-disks=512M "$TMP/long.yaml" >"$TMP/killed.out" 2>&1 & pid=$!; } &&
	for i in $(seq 1 300); do [ -n "$(find "$RES" -name fio.output 2>/dev/null)" ] && break; sleep 0.1; done &&
	sleep 2 && kill -TERM $pid && rc=0 && { wait $pid || rc=$?; } &&
	cat "$TMP/killed.out" && echo "exit $rc" &&
	[ "$rc" = 1 ] &&
	R=$(sed -n "s/^killed \([^ ]*\) .*/\1/p" "$TMP/killed.out") &&
	grep -qx "job_state: killed" "$R/job.yaml" &&
	[ -s "$R/vmstat" ] && no_leftovers
'

test_expect_success 'lkprobot install lists what the job needs' '
	lkprobot install -n jobs/fio-basic/fio-basic-smoke-1hdd.yaml >"$TMP/inst" &&
	grep -q "^fio  *installed" "$TMP/inst" && grep -q "^xfsprogs  *installed" "$TMP/inst"
'

test_done

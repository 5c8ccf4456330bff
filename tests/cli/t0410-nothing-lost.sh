#!/bin/sh
# No command loses a number it had, and a full disk is a fault, not bad
# input: stats re-deriving a run whose raw files are gone, a run whose
# output fills its result root's file system, a run on a full disk (a
# tmpfs in a mount namespace of its own: root only).
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"

printf 'suite: command\ntestcase: command\ncommand:\n  cmd: "echo throughput: 5"\n' >"$TMP/job.yaml"

test_expect_success 'stats on a run whose raw files are gone: the old stats kept, what is missing said, exit 1' '
	lkprobot run -o "$TMP/R" --no-store "$TMP/job.yaml" >"$TMP/run.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/run.out") && [ -d "$R" ] &&
	grep -q "\"command.throughput\": 5" "$R/stats.json" &&
	cp "$R/stats.json" "$TMP/stats.before" && cp "$R/../matrix.json" "$TMP/matrix.before" &&
	rm "$R/command" "$R/command.time" "$R/time" &&
	expect_exit 1 lkprobot stats --no-store "$R" &&
	one_line_error "stats.json kept as it was: re-deriving it would lose [0-9]+ of its numbers \(command.throughput, " &&
	cmp "$TMP/stats.before" "$R/stats.json" &&
	cmp "$TMP/matrix.before" "$R/../matrix.json" &&
	! grep -q is_incomplete_run "$R/stats.json" && [ ! -e "$R/last_state" ]
'

test_expect_success 'stats of nr_instances: fio.output.1 and .2 combined as lkp-tests does; no output at all is said, exit 1' '
	I="$TMP/I/fio-basic/p/vm/debian/defconfig/gcc-12/c0/0" && mkdir -p "$I" &&
	printf "suite: fio-basic\ntestcase: fio-basic\nnr_instances: 2\nfio:\n" >"$I/job.yaml" &&
	cp tests/fixtures/tools/fio-instances.output.1 "$I/fio.output.1" &&
	cp tests/fixtures/tools/fio-instances.output.2 "$I/fio.output.2" &&
	lkprobot stats --no-store "$I" >/dev/null &&
	python3 -c "import json,sys
s=json.load(open(sys.argv[1]))
assert abs(s[\"fio.read_iops\"] - s[\"fio.read_iops.instance1\"] - s[\"fio.read_iops.instance2\"]) < 1e-6, s
assert \"last_state.is_incomplete_run\" not in s
" "$I/stats.json" &&
	rm "$I/fio.output.1" "$I/fio.output.2" "$I/stats.json" "$I/fio.json" &&
	expect_exit 1 lkprobot stats --no-store "$I" &&
	one_line_error "fio.output: the test left no output \(the run is incomplete: last_state.is_incomplete_run\)" &&
	grep -q "\"last_state.is_incomplete_run\": 1" "$I/stats.json"
'

# a 4 MB tmpfs of its own under $TMP/full; full.sh runs in its mount namespace
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	test_set_prereq ROOT
else
	echo "needs root and mount namespaces (unshare -m): make check as root" >"$TMP/.why-ROOT"
fi
in_ns() {	# in_ns SCRIPT: SCRIPT with a fresh 4 MB tmpfs on $TMP/full, in a mount namespace
	mkdir -p "$TMP/full" &&
	unshare -m sh -c "mount -t tmpfs -o size=4m tmpfs \"\$TMP/full\" && . \"$1\""
}

test_expect_success ROOT 'a test whose output fills the disk: job_state failed, the reason the full disk, not the command' '
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: \"yes a-line-of-output\"\n" >"$TMP/fill.yaml" &&
	cat >"$TMP/fill.sh" <<-\EOF &&
	set +e
	timeout 120 "$LKPROBOT" run -o "$TMP/full/R" --db "$TMP/full/db" "$TMP/fill.yaml" >"$TMP/fill.out" 2>&1
	echo "exit $?" >>"$TMP/fill.out"
	cp "$(find "$TMP/full/R" -name job.yaml)" "$TMP/fill-job.yaml"
	ls -a "$(dirname "$(find "$TMP/full/R" -name job.yaml)")" >"$TMP/fill.ls"
	EOF
	in_ns "$TMP/fill.sh" &&
	cat "$TMP/fill.out" &&
	grep -q "^exit 1$" "$TMP/fill.out" &&
	grep -qx "job_state: failed" "$TMP/fill-job.yaml" &&
	grep -q "^job_state_reason: .no space left on $TMP/full/R/.*: its file system filled while command ran" "$TMP/fill-job.yaml" &&
	! grep -q lkprobot-room "$TMP/fill.ls"
'

test_expect_success ROOT 'run on a full disk: a fault (exit 1) saying no space on the path, not bad input (exit 2)' '
	cat >"$TMP/full.sh" <<-\EOF &&
	set +e
	"$LKPROBOT" run -o "$TMP/full/R" --db "$TMP/full/db" "$TMP/job.yaml" >/dev/null 2>&1
	dd if=/dev/zero of="$TMP/full/fill" bs=4k 2>/dev/null
	"$LKPROBOT" run -o "$TMP/full/R" --db "$TMP/full/db" "$TMP/job.yaml" >"$TMP/full.out" 2>"$TMP/full.err"
	echo "exit $?" >>"$TMP/full.out"
	rm -f "$TMP/full/db"*
	"$LKPROBOT" run -o "$TMP/full/R" --db "$TMP/full/db" "$TMP/job.yaml" >>"$TMP/full.out" 2>>"$TMP/full.err"
	echo "exit $?" >>"$TMP/full.out"
	EOF
	in_ns "$TMP/full.sh" &&
	cat "$TMP/full.out" "$TMP/full.err" &&
	[ "$(grep -c "^exit 1$" "$TMP/full.out")" = 2 ] &&
	[ "$(grep -c "no space left on $TMP/full\|No space left on device" "$TMP/full.err")" = 2 ] &&
	! grep -q "^exit 2" "$TMP/full.out"
'

test_done

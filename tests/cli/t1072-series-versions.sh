#!/bin/sh
# A series' versions across the service's passes, on a real public-inbox v2
# archive (public-inbox-init -V2, public-inbox-mda) and `serve --once`: a
# v1 still waiting for a part when its v2 comes is superseded, never
# applied; a v1 that comes after its v2 is recorded superseded, never
# applied; a v1 applied whose head was not tested yet (the service stopped
# while its test was under way) is superseded when its v2 comes — its head
# cancelled, not tested any more — and the v2 is tested; a RESEND of a
# series read before is not tested again; a v2 renamed in a new thread is
# tied to its v1 of an earlier pass by b4's change-id: (stored with the
# series); hostile mails are recorded
# refused with their reasons.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
test_need_cmd public-inbox-mda public-inbox

LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS HOME="$TMP/home" PI_CONFIG="$TMP/pi-config" BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.005
export HOLD_GO="$TMP/go"
A="$TMP/nvdimm"
test_at_exit 'spid=$(cat "$TMP/spid" 2>/dev/null); [ -z "$spid" ] || { stop_pid "$spid"; stop_session KILL "$spid"; }'

deliver() {	# deliver FILE...
	for f in "$@"; do
		ORIGINAL_RECIPIENT=nvdimm@lists.example.org public-inbox-mda --no-precheck <"$f" || return 1
	done
}
pass() {	# pass OUT: one pass of the service, its lines in OUT; fails when it does
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$1" 2>&1; echo "exit $?" >>"$1"; } &&
	cat "$1" && grep -q "^exit 0$" "$1"
}
held_pass() {	# held_pass OUT ST BRANCH: a pass in the background, stopped (by pid) once BRANCH's head is testing
	{ setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" --once >"$1" 2>&1 & echo $! >"$TMP/spid"; } &&
	for i in $(seq 1 300); do
		lkprobot status -c "$TMP/robot.yaml" >"$2" 2>&1 && grep -q "^nvdimm Dan-Williams/$3/.* testing" "$2" && break
		sleep 0.1
	done &&
	cat "$2" && grep -q "^nvdimm Dan-Williams/$3/.* testing" "$2" &&
	stop_pid "$(cat "$TMP/spid")" && rm "$TMP/spid" && cat "$1"
}
series_state() {	# series_state SUBJECT VERSION: "STATE: WHY" of that series as status says it (none: applied)
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" &&
	sed -n "s/^nvdimm: series \"$1\" v$2 by [^ ]* //p" "$TMP/st"
}
patches() {	# patches DIR VERSION N [git format-patch options]: the last N commits as [PATCH vV m/N] mails in DIR
	d=$1 v=$2 n=$3 && shift 3 &&
	git format-patch -q --thread -v"$v" -"$n" -o "$d" --to=nvdimm@lists.example.org "$@"
}

test_expect_success 'setup: a tree whose build waits while a series holds it, an archive, the service' '
	mkdir -p "$HOME" && git init -q -b master "$TMP/repo" && cd "$TMP/repo" &&
	git config user.name "Dan Williams" && git config user.email dan.j.williams@intel.com &&
	printf "all:\n\t@i=0; while [ -e hold ] && [ ! -e \"\$\$HOLD_GO\" ] && [ \$\$i -lt 150 ]; do sleep 0.1; i=\$\$((i+1)); done; echo 100 >speed\n" >Makefile &&
	printf "speed\n" >.gitignore && cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	git add -A && git commit -qm root && cd "$SRC" &&
	public-inbox-init -V2 nvdimm "$A" http://example.org/nvdimm nvdimm@lists.example.org &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	branch=master && write_serve_conf "$TMP/robot.yaml" "serve.series_repo=$TMP/series.git" "serve.series_url=file://$TMP/series.git" &&
	printf "  lists:\n    - name: nvdimm\n      archive: %s\n      tree: demo\n" "$A" >"$TMP/lists" &&
	sed -i "/^  trees:/e cat $TMP/lists" "$TMP/robot.yaml" &&
	lkprobot check-config -c "$TMP/robot.yaml" &&
	cd "$TMP/repo" &&
	git checkout -qb b1 master && echo 1 >b1 && git add b1 && git commit -qm "b: one" &&
	echo 2 >b2 && git add b2 && git commit -qm "b: two" && patches "$TMP/b1" 1 2 &&
	git checkout -qb b2 master && echo 1 >b1 && git add b1 && git commit -qm "b: one" &&
	echo 22 >b2 && git add b2 && git commit -qm "b: two" && patches "$TMP/b2" 2 2 &&
	git checkout -qb c1 master && echo 1 >c && git add c && git commit -qm "c: late" && patches "$TMP/c1" 1 1 &&
	git checkout -qb c2 master && echo 2 >c && git add c && git commit -qm "c: late" && patches "$TMP/c2" 2 1 &&
	git checkout -qb d1 master && echo 1 >hold && git add hold && git commit -qm "d: held" && patches "$TMP/d1" 1 1 &&
	git checkout -qb d2 master && echo 1 >d && git add d && git commit -qm "d: held" && patches "$TMP/d2" 2 1 &&
	git checkout -q master && cd "$SRC" &&
	ls "$TMP"/b1/*.patch "$TMP"/b2/*.patch "$TMP"/c1/*.patch "$TMP"/c2/*.patch "$TMP"/d1/*.patch "$TMP"/d2/*.patch | wc -l | grep -qx 8
'

test_expect_success 'a v1 waiting for a part, and a v2 of another series, in one pass: waiting; applied and tested' '
	deliver "$TMP"/b1/v1-0001-*.patch "$TMP"/c2/*.patch && pass "$TMP/p1" &&
	grep -q "nvdimm: series \"c: late\" v2 applied: " "$TMP/p1" &&
	series_state "b: one" 1 >"$TMP/s" && grep -q "^waiting: missing 2/2$" "$TMP/s"
'

test_expect_success 'the next pass: the waiting v1 superseded by its v2, never applied; a v1 that came after its v2 superseded too' '
	deliver "$TMP"/b2/*.patch "$TMP"/c1/*.patch && pass "$TMP/p2" &&
	grep -q "nvdimm: series \"b: one\" v2 applied: " "$TMP/p2" &&
	! grep -q "series \"b: one\" v1 applied" "$TMP/p2" && ! grep -q "series \"c: late\" v1 applied" "$TMP/p2" &&
	series_state "b: one" 1 >"$TMP/s" && grep -q "^superseded: superseded by v2$" "$TMP/s" &&
	series_state "c: late" 1 >"$TMP/s" && cat "$TMP/s" && grep -q "^superseded: superseded by v2, <.*>$" "$TMP/s" &&
	test -z "$(series_state "c: late" 2)" &&
	test "$(git -C "$TMP/series.git" for-each-ref refs/heads | wc -l)" = 2
'

test_expect_success 'a v1 applied, its test under way when the service stops; its v2 at the next pass: the v1 head cancelled, the v2 tested' '
	deliver "$TMP"/d1/*.patch &&
	held_pass "$TMP/p3" "$TMP/st3" d-held &&
	deliver "$TMP"/d2/*.patch && pass "$TMP/p4" &&
	grep -q "nvdimm: series \"d: held\" v1 superseded by v2, <.*>: its head is not tested$" "$TMP/p4" &&
	grep -q "nvdimm: series \"d: held\" v2 applied: " "$TMP/p4" &&
	series_state "d: held" 1 | grep -q "^superseded: superseded by v2, <.*>$" &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st4" && cat "$TMP/st4" &&
	grep -q "^nvdimm Dan-Williams/d-held/[0-9-]* .*cancelled" "$TMP/st4" &&
	grep -q "^nvdimm Dan-Williams/d-held/[0-9-]* .*done — job.yaml: no change" "$TMP/st4" &&
	test ! -e "$HOLD_GO"
'

test_expect_success 'b4: a v1 applied, its test under way when the service stops; its v2, renamed in a new thread, with the same change-id: the v1 head cancelled' '
	cd "$TMP/repo" &&
	git checkout -qb e1 master && echo 1 >hold && git add hold && git commit -qm "e: one" &&
	echo 2 >e2 && git add e2 && git commit -qm "e: two" && patches "$TMP/e1" 1 2 --cover-letter &&
	git checkout -qb e2 master && echo 1 >e1 && git add e1 && git commit -qm "e: one, again" &&
	echo 22 >e2 && git add e2 && git commit -qm "e: two, again" && patches "$TMP/e2" 2 2 --cover-letter &&
	git checkout -q master && cd "$SRC" &&
	for v in 1 2; do
		t="e: first name" && { [ $v = 1 ] || t="e: a new name"; } &&
		sed -i "s/\*\*\* SUBJECT HERE \*\*\*/$t/; s/^\*\*\* BLURB HERE \*\*\*/change-id: 20261207-e-0123456789ab/" \
			"$TMP"/e$v/v$v-0000-cover-letter.patch &&
		sed -i "s/<cover\./<cover-v$v./g" "$TMP"/e$v/*.patch || return 1
	done &&
	grep -q "^change-id: 20261207-e-0123456789ab$" "$TMP/e2/v2-0000-cover-letter.patch" &&
	deliver "$TMP"/e1/*.patch &&
	held_pass "$TMP/p7" "$TMP/st7" e-first-name &&
	deliver "$TMP"/e2/*.patch && pass "$TMP/p8" &&
	grep -q "nvdimm: series \"e: first name\" v1 superseded by v2, <.*>: its head is not tested$" "$TMP/p8" &&
	grep -q "nvdimm: series \"e: a new name\" v2 applied: " "$TMP/p8" &&
	series_state "e: first name" 1 | grep -q "^superseded: superseded by v2, <cover-v2\..*>$" &&
	test ! -e "$HOLD_GO"
'

test_expect_success 'a RESEND of a series read in an earlier pass: recorded, not applied or tested again' '
	sed "s/^Subject: \[PATCH v2\]/Subject: [PATCH RESEND v2]/; s/^Message-I[dD]: </Message-ID: <resend./" "$TMP"/c2/*.patch >"$TMP/resend.eml" &&
	grep -q "^Subject: \[PATCH RESEND v2\] c: late$" "$TMP/resend.eml" &&
	deliver "$TMP/resend.eml" && pass "$TMP/p6" &&
	! grep -q "applied" "$TMP/p6" &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st6" &&
	grep -q "^nvdimm: series \"c: late\" v2 by [^ ]* superseded: a RESEND of v2, read already: <.*>$" "$TMP/st6"
'

test_expect_success 'hostile mails read by the service: each recorded refused with its reason, nothing applied or written outside' '
	sed "s|a/d|a/../../outside|g; s|b/d|b/../../outside|g; s|\] d: held|] d: out of the tree|; s|^Message-I[dD]: <|Message-ID: <out.|" \
		"$TMP"/d2/*.patch >"$TMP/out.eml" &&
	grep -q "^+++ b/../../outside$" "$TMP/out.eml" &&
	python3 -c "
import sys
head = open(sys.argv[1]).read().split(\"\n\n\", 1)[0].replace(\"d: held\", \"d: big\").replace(\"Message-Id: <\", \"Message-Id: <big.\")
open(sys.argv[2], \"w\").write(head + \"\n\n\" + (\"x\" * 75 + \"\n\") * 150000)
" "$TMP"/d2/*.patch "$TMP/big.eml" &&
	deliver "$TMP/out.eml" "$TMP/big.eml" && pass "$TMP/p5" &&
	grep -q "nvdimm: 2 mails read: 0 series, 0 ignored, 2 refused$" "$TMP/p5" &&
	series_state "d: out of the tree" 2 >"$TMP/s" && cat "$TMP/s" &&
	grep -q "^refused: its diff names the path .a/../../outside., which leaves the tree (absolute, .... or .\.git.)$" "$TMP/s" &&
	lkprobot status -c "$TMP/robot.yaml" | grep "^nvdimm: series \"\" v1 by  refused: a mail of 1[0-9]* bytes: lkprobot reads mails of 10 MiB at most$" &&
	test ! -e "$TMP/outside" && test ! -e "$TMP/../outside" &&
	test "$(git -C "$TMP/series.git" for-each-ref refs/heads | wc -l)" = 6
'

test_done

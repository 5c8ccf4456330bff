#!/bin/sh
# The service under faults of the machine that pass, with real parts: its
# store held by another process (sqlite3's BEGIN IMMEDIATE) longer than the
# busy timeout, its result root on a tmpfs (a mount namespace of its own:
# root only) that fills for 12 s during a bisection. It waits them out and
# loses nothing: the head is tested, every run made is in the store. And
# what the world gives it to say — a deleted branch, a hostile commit
# subject — is said once, and escaped.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
test_need_cmd sqlite3 sqlite3
test_need_cmd python3 python3
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
branch=main

# a repository whose head is 30 % slower than its parent
repo() {
	rm -rf "$TMP/repo" && git init -q -b "$branch" "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	printf "all:\n\t@true\n" >Makefile && cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 100 >speed && git add -A && git commit -qm base &&
	echo 70 >speed && git add -A && git commit -qm "change 1" && cd "$SRC"
}
# every complete result root under $1 is a run of the store $2
all_recorded() {
	on_disk=$(find "$1" -name stats.json -path "*/[0-9]*/stats.json" | wc -l) &&
	in_store=$(sqlite3 "$2" "SELECT count(*) FROM runs") &&
	echo "$on_disk result roots, $in_store runs in the store" &&
	[ "$on_disk" -gt 0 ] && [ "$on_disk" = "$in_store" ]
}

test_expect_success 'setup: a repository, a job' '
	repo &&
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'the store held by another process past the busy timeout when a head is recorded: the pass tried again, not the end of the service' '
	write_serve_conf "$TMP/held.yaml" serve.result_root="$TMP/res-held" serve.poll=1 &&
	mkdir -p "$TMP/res-held" && lkprobot status -c "$TMP/held.yaml" >/dev/null &&
	{ { echo "BEGIN IMMEDIATE;"; sleep 30; echo "COMMIT;"; } | sqlite3 "$TMP/res-held/lkprobot.db" & holder=$!; } &&
	sleep 0.5 &&
	rc=0 && { timeout 200 "$LKPROBOT" serve -c "$TMP/held.yaml" --once 2>"$TMP/held.log" || rc=$?; } &&
	wait $holder && cat "$TMP/held.log" && [ $rc = 0 ] &&
	grep -q "cannot record .*database is locked.*: the pass again every 5 s for up to 600 s" "$TMP/held.log" &&
	grep -q "a pass went through again after" "$TMP/held.log" &&
	lkprobot status -c "$TMP/held.yaml" | grep -q " done — job.yaml: regression, culprit "
'

test_expect_success SETUP 'a branch deleted while the service watches it: said once, not at every pass; said again when it is back' '
	git -C "$TMP/repo" branch gone &&
	write_serve_conf "$TMP/gone.yaml" serve.result_root="$TMP/res-gone" serve.poll=1 tree.branches="[$branch,gone]" &&
	lkprobot serve -c "$TMP/gone.yaml" --once 2>"$TMP/gone.log" &&
	{ setsid "$LKPROBOT" serve -c "$TMP/gone.yaml" 2>"$TMP/gone.log" & sid=$!; } &&
	for i in $(seq 1 100); do [ "$(grep -c "watching 1 tree" "$TMP/gone.log")" = 1 ] && break; sleep 0.1; done &&
	git -C "$TMP/repo" branch -D gone >/dev/null &&
	sleep 5 && git -C "$TMP/repo" branch gone "$branch" && sleep 2 &&
	stop_session TERM $sid && cat "$TMP/gone.log" &&
	[ "$(grep -c "demo gone: .*(skipped until it can be read; said once)" "$TMP/gone.log")" = 1 ] &&
	[ "$(grep -c "demo gone: can be read again" "$TMP/gone.log")" = 1 ]
'

test_expect_success SETUP 'a commit subject with escape sequences and a CR: shown escaped in the log, no line forged, nothing a terminal acts on' '
	cd "$TMP/repo" && tree=$(git write-tree) && parent=$(git rev-parse HEAD) &&
	c=$(printf "tree %s\nparent %s\nauthor A <a@example.org> 1700000000 +0000\ncommitter A <a@example.org> 1700000000 +0000\n\nfix \033]0;owned\007\033[2J it\r2026-01-01T00:00:00Z lkprobot serve: all is well\n" "$tree" "$parent" |
		git hash-object -t commit -w --stdin) && git update-ref "refs/heads/$branch" "$c" && cd "$SRC" &&
	write_serve_conf "$TMP/subj.yaml" serve.result_root="$TMP/res-subj" serve.poll=1 &&
	lkprobot serve -c "$TMP/subj.yaml" --once 2>"$TMP/subj.log" && cat "$TMP/subj.log" &&
	! grep -q "$(printf "\033")" "$TMP/subj.log" && ! grep -q "$(printf "\r")" "$TMP/subj.log" &&
	grep -q "new head [0-9a-f]* (\"fix \\\\x1b\]0;owned\\\\x07\\\\x1b\[2J it\\\\r2026-01-01T00:00:00Z lkprobot serve: all is well\")" "$TMP/subj.log" &&
	[ "$(grep -c "lkprobot serve: all is well" "$TMP/subj.log")" = 1 ]
'

if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
	test_set_prereq ROOT
else
	echo "needs root and mount namespaces (unshare -m): make check as root" >"$TMP/.why-ROOT"
fi

test_expect_success SETUP,ROOT 'the result root full for 12 s during a bisection: waited out, the head tested, every run in the store' '
	repo && mkdir -p "$TMP/res-full" &&
	write_serve_conf "$TMP/full.yaml" serve.result_root="$TMP/res-full" serve.poll=1 &&
	cat >"$TMP/full.sh" <<-\EOF &&
	mount -t tmpfs -o size=8m tmpfs "$TMP/res-full" || exit 1
	BENCH_SLEEP=1 timeout 250 "$LKPROBOT" serve -c "$TMP/full.yaml" --once >"$TMP/full.log" 2>&1 & sp=$!
	for i in $(seq 1 300); do
		[ -n "$(find "$TMP/res-full" -name stats.json 2>/dev/null)" ] && break
		sleep 0.1
	done
	dd if=/dev/zero of="$TMP/res-full/fill" bs=4k 2>/dev/null
	sleep 12
	rm -f "$TMP/res-full/fill"
	wait $sp; echo "exit $?" >>"$TMP/full.log"
	"$LKPROBOT" status -c "$TMP/full.yaml" >"$TMP/full.status" 2>&1
	find "$TMP/res-full" -name stats.json -path "*/[0-9]*/stats.json" | wc -l >"$TMP/full.disk"
	sqlite3 "$TMP/res-full/lkprobot.db" "SELECT count(*) FROM runs" >"$TMP/full.store"
	EOF
	unshare -m sh "$TMP/full.sh" &&
	cat "$TMP/full.log" "$TMP/full.status" &&
	grep -q "^exit 0$" "$TMP/full.log" &&
	grep -q " done — job.yaml: regression, culprit " "$TMP/full.status" &&
	echo "$(cat "$TMP/full.disk") result roots, $(cat "$TMP/full.store") runs in the store" &&
	[ "$(cat "$TMP/full.disk")" -gt 0 ] && [ "$(cat "$TMP/full.disk")" = "$(cat "$TMP/full.store")" ]
'

test_done

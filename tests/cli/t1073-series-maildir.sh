#!/bin/sh
# The service on a mailing list delivered to a Maildir (serve.lists[].maildir
# instead of a public-inbox archive): the tests' SMTP server (aiosmtpd) gets
# a 3-patch series with a cover letter over SMTP and delivers it into the
# Maildir as an MDA does (--maildir). One pass of `serve --once` reads the
# new mails (moved to cur/), applies the series in serve.series_repo, tests
# its head against its base, bisects to patch 2 (30 % slower) and queues a
# report in reply to the cover letter; the next pass reads nothing again.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serieslib.sh"
test_need_cmd python3 python3
test_need_cmd curl curl

PY=/usr/bin/python3
port=$((20000 + ($$ + 72) % 20000))
# libgit2's fetch leaks inside libpcre2 (tests/lsan.supp, as make check runs it)
LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS HOME="$TMP/home" BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
test_at_exit 'stop_pid "$(cat "$TMP/smtpd.pid" 2>/dev/null)"'
test_log "$TMP/smtpd.log" "$TMP/serve.out"

test_expect_success 'setup: a tree, a series whose patch 2 makes it slower, mailed to a list delivered to a Maildir' '
	mkdir -p "$HOME" "$TMP/list/new" "$TMP/list/cur" "$TMP/list/tmp" "$TMP/spool" &&
	series_slow_repo &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port --spool "$TMP/spool" --maildir "$TMP/list" >"$TMP/smtpd.log" 2>&1 & echo $! >"$TMP/smtpd.pid"; } &&
	for i in $(seq 1 100); do curl -s "smtp://127.0.0.1:$port" -X NOOP >/dev/null && break; sleep 0.1; done &&
	for f in "$TMP"/s1/*.patch; do
		curl -s "smtp://127.0.0.1:$port" --mail-from dan.j.williams@intel.com \
			--mail-rcpt nvdimm@lists.example.org --upload-file "$f" || exit 1
	done &&
	test "$(ls "$TMP/list/new" | wc -l)" = 4 &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	branch=master &&
	write_serve_conf "$TMP/robot.yaml" "serve.series_repo=$TMP/series.git" &&
	printf "  lists:\n    - name: nvdimm\n      maildir: %s\n      tree: demo\n      address: nvdimm@lists.example.org\n" "$TMP/list" >"$TMP/lists" &&
	sed -i "/^  trees:/e cat $TMP/lists" "$TMP/robot.yaml" &&
	lkprobot check-config -c "$TMP/robot.yaml" &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'serve --once: the Maildir read, the series applied, tested and bisected to patch 2, reported to its thread' '
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/serve.out" 2>&1; echo "exit $?" >>"$TMP/serve.out"; } &&
	cat "$TMP/serve.out" && grep -q "^exit 0$" "$TMP/serve.out" &&
	grep -q "nvdimm: 4 mails read: 1 series, 0 ignored, 0 refused$" "$TMP/serve.out" &&
	test "$(ls "$TMP/list/new" | wc -l)" = 0 && test "$(ls "$TMP/list/cur" | wc -l)" = 4 &&
	b=$(sed -n "s/.*nvdimm: series \"speed: a slow path\" v1 applied: \([^ ]*\) (3 patches on .*, its base-commit:)$/\1/p" "$TMP/serve.out") &&
	case $b in Dan-Williams/speed-a-slow-path/[0-9]*-[0-9]*) ;; *) false ;; esac &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/status" && cat "$TMP/status" &&
	grep -q "^nvdimm $b .*regression, culprit $(git -C "$TMP/series.git" rev-parse "$b~1" | cut -c1-12)" "$TMP/status" &&
	id=$(lkprobot outbox -c "$TMP/robot.yaml" | sed -n "1s/^\([0-9]*\) .*/\1/p") &&
	lkprobot outbox -c "$TMP/robot.yaml" show "$id" | tr -d "\r" >"$TMP/mail" &&
	cover=$(sed -n "s/^Message-I[dD]: \(<.*>\)$/\1/p" "$TMP/s1/0000-cover-letter.patch") &&
	grep -q "^In-Reply-To: $cover$" "$TMP/mail" &&
	grep -q "^commit: [0-9a-f]* (\"slow: the slow path\")$" "$TMP/mail"
'

test_expect_success SETUP 'the next pass: nothing read again, nothing tested again' '
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/serve2.out" 2>&1; echo "exit $?" >>"$TMP/serve2.out"; } &&
	cat "$TMP/serve2.out" && grep -q "^exit 0$" "$TMP/serve2.out" &&
	! grep -q "applied\|bisect\|new head" "$TMP/serve2.out" &&
	test "$(lkprobot outbox -c "$TMP/robot.yaml" | grep -c "^[0-9]")" = 1
'

test_done

#!/bin/sh
# Talking to the robot: its report of a 30 % regression of the `command`
# benchmark gets replies — delivered over SMTP (the tests' aiosmtpd server)
# into the robot's own Maildir (serve.maildir) and into a real public-inbox
# archive of a watched list (public-inbox-mda) — with #lkprobot commands:
# ack, a forged one from an address not on the report (ignored, logged), a
# typo (answered with what was understood), invalid, dup, fixed-by, one
# whose service is killed (kill -9) after it queued the answer and whose
# mail is read again (answered once); recheck (the culprit and its parent
# again in rounds of their own, its service killed in the middle once) and
# test (a patch inline; a branch served by git daemon; what fails said),
# measured in check workers; a head that undoes the regression is followed
# up in the report's thread (more rounds when the store cannot tell) and the
# report marked fixed. The
# states in status --json, on /api/regressions and the report page, set
# from the dashboard with its token.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3
test_need_cmd sqlite3 sqlite3
test_need_cmd curl curl
test_need_cmd public-inbox-mda public-inbox

PY=/usr/bin/python3
port=$((20000 + ($$ + 75) % 20000))
wport=$((20000 + ($$ + 76) % 20000))
gport=$((20000 + ($$ + 77) % 20000))
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02 HOME="$TMP/home" PI_CONFIG="$TMP/pi-config"
LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
test_at_exit 'stop_pid "$(cat "$TMP/smtpd.pid" 2>/dev/null)"; stop_pid "$(cat "$TMP/gitd.pid" 2>/dev/null)"; for f in spid kpid; do spid=$(cat "$TMP/$f" 2>/dev/null); [ -z "$spid" ] || { stop_pid "$spid"; stop_session KILL "$spid"; }; done'
test_log "$TMP/smtpd.log" "$TMP/e[0-9]*" "$TMP/web.log" "$TMP/gitd.log"

# reply FROM IN-REPLY-TO BODY: a reply to a report, over SMTP to the robot's Maildir
# (each test runs in a subshell: the count is kept in a file; the last one: $(cat "$TMP/n"))
reply() {
	n=$(($(cat "$TMP/n" 2>/dev/null || echo 0) + 1)) && echo $n >"$TMP/n"
	printf "From: %s\nTo: kernel test robot <lkp@example.org>\nSubject: Re: the report\nMessage-ID: <reply%d@example.org>\nIn-Reply-To: %s\nReferences: %s\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n%s\n" \
		"$1" "$n" "$2" "$2" "$3" >"$TMP/reply$n.eml" &&
	curl -s "smtp://127.0.0.1:$port" --mail-from "$(echo "$1" | sed "s/.*<\(.*\)>.*/\1/")" \
		--mail-rcpt lkp@example.org --upload-file "$TMP/reply$n.eml"
}
# once FILE: one pass of the service, its log in FILE (exit status last)
once() {
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$1" 2>&1; echo "exit $?" >>"$1"; } && cat "$1"
}
# the outbox's mails replying to Message-ID $1: their count
answers_to() {
	for id in $(lkprobot outbox -c "$TMP/robot.yaml" | sed -n "s/^\([0-9][0-9]*\) .*/\1/p"); do
		lkprobot outbox -c "$TMP/robot.yaml" show "$id" | tr -d "\r" | sed "/^$/q" | grep -q "^In-Reply-To: $1$" && echo "$id"
	done | wc -l
}
# answer_of MID: the text of the outbox's mail replying to Message-ID MID (its body decoded as the reader sees it)
answer_of() {
	for id in $(lkprobot outbox -c "$TMP/robot.yaml" | sed -n "s/^\([0-9][0-9]*\) .*/\1/p"); do
		lkprobot outbox -c "$TMP/robot.yaml" show "$id" | tr -d "\r" | sed "1{/^# /d}" >"$TMP/answer.eml"
		sed "/^$/q" "$TMP/answer.eml" | grep -q "^In-Reply-To: $1$" && "$PY" -c "import email, sys
m = email.message_from_binary_file(open(sys.argv[1], \"rb\"))
print(m.get_payload(decode=True).decode())" "$TMP/answer.eml"
	done
	: the last mail need not be the answer
}
# expect WHAT VALUE: WHAT's output is VALUE (said when not)
expect() {
	got=$(eval "$1") && [ "$got" = "$2" ] || { echo "$1: $got, not $2"; return 1; }
}
state_of() {
	lkprobot status -c "$TMP/robot.yaml" --json | "$PY" -c "import json, sys
for h in json.load(sys.stdin):
    for j in h.get(\"result\") or []:
        if j.get(\"report_id\") == $1: print(j[\"state\"])"
}

test_expect_success 'setup: a tree, its regression found and reported; the robot s Maildir; a list archive' '
	mkdir -p "$HOME" "$TMP/mbox/new" "$TMP/mbox/cur" "$TMP/mbox/tmp" "$TMP/spool" &&
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	printf "all:\n\t@true\n" >Makefile && cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 100 >speed && git add -A && git commit -qm base && cd "$SRC" &&
	commit_n 1 2 && branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port --spool "$TMP/spool" --maildir "$TMP/mbox" >"$TMP/smtpd.log" 2>&1 & echo $! >"$TMP/smtpd.pid"; } &&
	public-inbox-init -V2 robot "$TMP/list" http://example.org/robot robot@lists.example.org &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none &&
	head -c 24 /dev/urandom | base64 >"$TMP/token" &&
	write_serve_conf "$TMP/robot.yaml" serve.maildir="$TMP/mbox" "serve.maintainers=[boss@example.org]" \
		serve.web_token_file="$TMP/token" serve.series_repo="$TMP/series.git" mail.smtp=smtp://127.0.0.1:$port &&
	printf "  lists:\n    - name: robot\n      archive: %s\n      tree: demo\n" "$TMP/list" >"$TMP/lists" &&
	sed -i "/^  trees:/e cat $TMP/lists" "$TMP/robot.yaml" &&
	for i in $(seq 1 50); do [ -s "$TMP/smtpd.log" ] || curl -s "smtp://127.0.0.1:$port" -X NOOP >/dev/null && break; sleep 0.1; done &&
	lkprobot check-config -c "$TMP/robot.yaml" && once "$TMP/e1" && grep -q "^exit 0$" "$TMP/e1" &&
	commit_n 3 5 4 70 && once "$TMP/e2" && grep -q "^exit 0$" "$TMP/e2" &&
	grep -q "found, culprit" "$TMP/e2" &&
	mid=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT message_id FROM reports WHERE id = 1") &&
	echo "$mid" >"$TMP/mid1" && test -n "$mid" &&
	expect "state_of 1" new &&
	test_set_prereq SETUP
'

test_expect_success SETUP '#lkprobot ack from the report s author: acknowledged, answered in the thread' '
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "Looking into it.

#lkprobot ack" && once "$TMP/e3" && grep -q "^exit 0$" "$TMP/e3" &&
	grep -q "<reply1@example.org> from dev@example.org: .#lkprobot ack. for report 1: queued" "$TMP/e3" &&
	expect "state_of 1" acknowledged && expect "answers_to \"<reply1@example.org>\"" 1
'

test_expect_success SETUP 'a forged command from an address not on the report: ignored, logged, not answered' '
	reply "Evil <evil@example.org>" "$(cat "$TMP/mid1")" "#lkprobot invalid nothing to see" &&
	once "$TMP/e4" && grep -q "^exit 0$" "$TMP/e4" &&
	grep -q "<reply2@example.org> from evil@example.org: .#lkprobot invalid nothing to see. ignored: evil@example.org is not on report 1 (its To and Cc) nor in serve.maintainers" "$TMP/e4" &&
	expect "state_of 1" acknowledged && expect "answers_to \"<reply2@example.org>\"" 0
'

test_expect_success SETUP 'a typo: answered with what was understood, nothing done' '
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot invlid flaky" &&
	once "$TMP/e5" && grep -q "^exit 0$" "$TMP/e5" && expect "state_of 1" acknowledged &&
	grep -q "did you mean .#lkprobot invalid flaky." "$TMP/e5" && expect "answers_to \"<reply3@example.org>\"" 1
'

test_expect_success SETUP 'a check whose worker dies by itself: answered once with why, not started again' '
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot recheck" &&
	{ LKPROBOT_FAULT=check-dies lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/e5d" 2>&1; echo "exit $?" >>"$TMP/e5d"; } &&
	cat "$TMP/e5d" && grep -q "^exit 0$" "$TMP/e5d" &&
	grep -q "#lkprobot recheck of <reply$(cat "$TMP/n")@example.org>: its worker ended (killed by signal 9) without an answer" "$TMP/e5d" &&
	answer_of "<reply$(cat "$TMP/n")@example.org>" >"$TMP/lost.txt" && cat "$TMP/lost.txt" &&
	grep -q "^The recheck could not be made: its worker ended (killed by signal 9) without an answer. Send the command again" "$TMP/lost.txt" &&
	once "$TMP/e5e" && ! grep -q "rechecking" "$TMP/e5e" && expect "answers_to \"<reply$(cat "$TMP/n")@example.org>\"" 1
'

test_expect_success SETUP '#lkprobot recheck: culprit and parent run again in rounds of their own (the service killed in the middle: once), the table in the thread' '
	culprit=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT culprit FROM reports WHERE id = 1") &&
	parent=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT parent FROM reports WHERE id = 1") &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "It would be nice to double check this.

#lkprobot recheck" &&
	# kill -9 to the service alone while its check worker measures: the worker and its runs die with it
	{ BENCH_SLEEP=0.2 setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" 2>"$TMP/e6k" & echo $! >"$TMP/kpid"; } &&
	for i in $(seq 1 300); do grep -q "report 1: rechecking" "$TMP/e6k" && break; sleep 0.1; done &&
	sleep 1 && kill -KILL "$(cat "$TMP/kpid")" && cat "$TMP/e6k" && wait_session_gone "$(cat "$TMP/kpid")" &&
	grep -q "report 1: rechecking" "$TMP/e6k" && expect "answers_to \"<reply$(cat "$TMP/n")@example.org>\"" 0 &&
	runs=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM runs") &&
	once "$TMP/e6r" && grep -q "^exit 0$" "$TMP/e6r" &&
	grep -q "report 1: rechecking $(echo $culprit | cut -c1-12) against $(echo $parent | cut -c1-12)" "$TMP/e6r" &&
	answer_of "<reply$(cat "$TMP/n")@example.org>" >"$TMP/recheck.txt" && cat "$TMP/recheck.txt" &&
	grep -q "^> #lkprobot recheck$" "$TMP/recheck.txt" &&
	grep -q "ran the culprit $(echo $culprit | cut -c1-12) and its parent $(echo $parent | cut -c1-12) again" "$TMP/recheck.txt" &&
	grep -q "^regression still exists:$" "$TMP/recheck.txt" &&
	grep -q "^$(echo $parent | cut -c1-16)  $(echo $culprit | cut -c1-26)  testcase/testparams/testbox$" "$TMP/recheck.txt" &&
	grep -q "^ *[0-9]* *-[23][0-9]% *[0-9]* *GEO-MEAN command.throughput$" "$TMP/recheck.txt" &&
	grep -q "The layout check: the local provider builds no kernel" "$TMP/recheck.txt" &&
	# rounds of their own: at least 5 new runs of each, though the bisection had confirmed them already
	test $(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM runs") -ge $((runs + 10)) &&
	expect "state_of 1" acknowledged && expect "answers_to \"<reply$(cat "$TMP/n")@example.org>\"" 1
'

test_expect_success SETUP '#lkprobot test with a patch: applied on the culprit in the robot s repository, Tested-by' '
	cd "$TMP/repo" && echo 100 >speed && git diff >"$TMP/fix.patch" && git checkout -q speed && cd "$SRC" &&
	grep -q "^+100$" "$TMP/fix.patch" &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "Could you test the patch below?

#lkprobot test

$(cat "$TMP/fix.patch")" && once "$TMP/e6t" && grep -q "^exit 0$" "$TMP/e6t" &&
	answer_of "<reply$(cat "$TMP/n")@example.org>" >"$TMP/test.txt" && cat "$TMP/test.txt" &&
	grep -q "applied the patch of dev@example.org on the culprit" "$TMP/test.txt" &&
	grep -q "the regression is gone.$" "$TMP/test.txt" &&
	grep -q "^Tested-by: kernel test robot <lkp@example.org>$" "$TMP/test.txt" &&
	grep -q "GEO-MEAN command.throughput$" "$TMP/test.txt" &&
	git --git-dir="$TMP/series.git" rev-parse -q --verify "refs/lkprobot/tested/$(sqlite3 "$TMP/res/lkprobot.db" "SELECT max(id) FROM report_commands")" &&
	expect "state_of 1" acknowledged
'

test_expect_success SETUP '#lkprobot test <git-url> <branch>: (git daemon) what it brings tested; no such branch, one that does not apply, a server that has none, a local path: said' '
	git clone -q "$TMP/repo" "$TMP/fixes" && cd "$TMP/fixes" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	git checkout -q -b nofix HEAD && echo "not the fix" >README && git add README && git commit -qm "README" &&
	git checkout -q -b bad HEAD~3 && echo 5 >speed && git commit -qam "speed: elsewhere" && cd "$SRC" &&
	{ git daemon --export-all --base-path="$TMP" --listen=127.0.0.1 --port=$gport --reuseaddr "$TMP/fixes" \
		>"$TMP/gitd.log" 2>&1 & echo $! >"$TMP/gitd.pid"; } &&
	for i in $(seq 1 100); do git ls-remote "git://127.0.0.1:$gport/fixes" >/dev/null 2>&1 && break; sleep 0.1; done &&
	G="git://127.0.0.1:$gport/fixes" &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot test $G nofix" &&
	n1=$(cat "$TMP/n") &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot test $G nosuchbranch" &&
	n2=$(cat "$TMP/n") &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot test $G bad" &&
	n3=$(cat "$TMP/n") &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot test git://127.0.0.1:$gport/nowhere master" &&
	n4=$(cat "$TMP/n") &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid1")" "#lkprobot test file://$TMP/fixes nofix" &&
	n5=$(cat "$TMP/n") && once "$TMP/e6u" && grep -q "^exit 0$" "$TMP/e6u" &&
	answer_of "<reply$n1@example.org>" >"$TMP/test2.txt" && cat "$TMP/test2.txt" &&
	grep -q "applied $G nofix ([0-9a-f]*: what it brings since its merge base with the culprit) on the culprit" "$TMP/test2.txt" &&
	grep -q "the regression is not gone.$" "$TMP/test2.txt" && ! grep -q "Tested-by" "$TMP/test2.txt" &&
	answer_of "<reply$n2@example.org>" >"$TMP/test3.txt" && cat "$TMP/test3.txt" &&
	grep -q "Nothing was tested: $G has no branch or commit nosuchbranch." "$TMP/test3.txt" &&
	answer_of "<reply$n3@example.org>" >"$TMP/test4.txt" && cat "$TMP/test4.txt" &&
	grep -q "Nothing was tested: $G bad ([0-9a-f]*: what it brings since its merge base with the culprit): speed: hunk #1 (@@ -1 +1 @@) does not apply on [0-9a-f]*." "$TMP/test4.txt" &&
	answer_of "<reply$n4@example.org>" >"$TMP/test5.txt" && cat "$TMP/test5.txt" &&
	grep -q "Nothing was tested: git://127.0.0.1:$gport/nowhere cannot be fetched: " "$TMP/test5.txt" &&
	answer_of "<reply$n5@example.org>" >"$TMP/test6.txt" && cat "$TMP/test6.txt" &&
	grep -q "Nothing was tested: file://$TMP/fixes is no git server.s address (git://, http://, https://, ssh://)." "$TMP/test6.txt"
'

test_expect_success SETUP 'a head that undoes the regression: the report followed up in its thread (more rounds: the store lost runs), fixed' '
	cd "$TMP/repo" && echo 100 >speed && git commit -qam "speed: back" && cd "$SRC" &&
	# the store keeps one run of the culprit s parent, as a process killed between its runs and their
	# records leaves it: its stored runs cannot say the change is gone, more interleaved rounds must
	parent=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT parent FROM reports WHERE id = 1") &&
	sqlite3 "$TMP/res/lkprobot.db" "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE commit_id = (SELECT id FROM commits WHERE name = '"'"'$parent'"'"') AND id > (SELECT min(r.id) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.name = '"'"'$parent'"'"')" &&
	test "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM runs r JOIN commits c ON c.id = r.commit_id WHERE c.name = '"'"'$parent'"'"'")" = 1 &&
	once "$TMP/e6" && grep -q "^exit 0$" "$TMP/e6" &&
	head=$(git -C "$TMP/repo" rev-parse HEAD | cut -c1-12) &&
	grep -q "report 1: not sure on the stored runs whether its change is gone at $head (.*): more rounds" "$TMP/e6" &&
	grep -q "report 1: fixed at $head (\"speed: back\"): replied" "$TMP/e6" &&
	answer_of "$(cat "$TMP/mid1")" >"$TMP/fixed.txt" && cat "$TMP/fixed.txt" &&
	grep -q "^fixed at $head (\"speed: back\")$" "$TMP/fixed.txt" &&
	grep -q "rounds paired), within the 5% floor" "$TMP/fixed.txt" &&
	# the accuracy record: the new report (the improvement) says it, the first one had nothing to say
	o2=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT outbox FROM reports WHERE id = 2") &&
	lkprobot outbox -c "$TMP/robot.yaml" show "$o2" | tr -d "\r" | tr "\n" " " >"$TMP/mail3" &&
	grep -q "Of the last 1 report of this test on this machine that were triaged, 1 was confirmed." "$TMP/mail3" &&
	! lkprobot outbox -c "$TMP/robot.yaml" show 1 | grep -q "Of the last" &&
	expect "state_of 1" fixed && test "$(answers_to "$(cat "$TMP/mid1")")" = 1 &&
	once "$TMP/e7" && test "$(answers_to "$(cat "$TMP/mid1")")" = 1
'

test_expect_success SETUP 'commands through the list archive (public-inbox), and a maintainer s: invalid, dup' '
	mid2=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT message_id FROM reports WHERE id = 2") && test -n "$mid2" &&
	echo "$mid2" >"$TMP/mid2" &&
	printf "From: Boss <boss@example.org>\nTo: robot@lists.example.org\nSubject: Re: x\nMessage-ID: <list1@example.org>\nIn-Reply-To: %s\nDate: Mon, 1 Jan 2024 00:00:00 +0000\n\n#lkprobot invalid the box was throttling\n" "$mid2" >"$TMP/list1.eml" &&
	ORIGINAL_RECIPIENT=robot@lists.example.org public-inbox-mda --no-precheck <"$TMP/list1.eml" &&
	once "$TMP/e8" && grep -q "^exit 0$" "$TMP/e8" && expect "state_of 2" invalid &&
	grep -q "robot 0:[0-9a-f]*: <list1@example.org> from boss@example.org: .#lkprobot invalid the box was throttling. for report 2: queued" "$TMP/e8" &&
	reply "Boss <boss@example.org>" "$mid2" "#lkprobot dup $(cat "$TMP/mid1")" &&
	once "$TMP/e9" && expect "state_of 2" duplicate
'

test_expect_success SETUP 'kill -9 after the answer is queued, the mail read again: answered once' '
	c=$(git -C "$TMP/repo" rev-parse HEAD) &&
	reply "A Developer <dev@example.org>" "$(cat "$TMP/mid2")" "#lkprobot fixed-by $c" &&
	{ LKPROBOT_FAULT=after-answer lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/e10" 2>&1; echo "exit $?" >>"$TMP/e10"; } &&
	cat "$TMP/e10" && grep -q "^exit 137$" "$TMP/e10" &&
	cp "$TMP"/mbox/cur/* "$TMP/mbox/new/" && once "$TMP/e11" && grep -q "^exit 0$" "$TMP/e11" &&
	expect "state_of 2" fixed && expect "answers_to \"<reply$(cat "$TMP/n")@example.org>\"" 1 &&
	test "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM report_history WHERE report = 2 AND state = '"'"'fixed'"'"'")" = 1
'

test_expect_success SETUP 'the dashboard: /api/regressions with its filters, the report page, an action with the token' '
	{ setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" --listen 127.0.0.1:$wport 2>"$TMP/web.log" & echo $! >"$TMP/spid"; } &&
	for i in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$wport/api/" && break; sleep 0.1; done &&
	curl -s "http://127.0.0.1:$wport/api/regressions" >"$TMP/r.json" &&
	"$PY" -c "import json, sys
rows = json.load(open(sys.argv[1]))
assert [r[\"state\"] for r in rows] == [\"fixed\", \"fixed\"], rows
r = rows[1]
assert r[\"id\"] == 1 and r[\"kind\"] == \"regression\" and r[\"metric\"] == \"command.throughput\", r
assert r[\"change\"] < -20 and r[\"lo\"] <= r[\"change\"] <= r[\"hi\"], r
assert r[\"culprit_ref\"][\"subject\"] == \"change 4\", r
assert [h[\"state\"] for h in r[\"history\"]] == [\"acknowledged\", \"fixed\"], r" "$TMP/r.json" &&
	test "$(curl -s "http://127.0.0.1:$wport/api/regressions?state=new")" = "[]" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$wport/api/regressions?state=bogus")" = 400 &&
	curl -s "http://127.0.0.1:$wport/regressions" | grep -q "change 4" &&
	curl -s "http://127.0.0.1:$wport/api/overview" | "$PY" -c "import json, sys
acc = json.load(sys.stdin)[\"accuracy\"]
assert [(a[\"reports\"], a[\"confirmed\"], a[\"invalid\"]) for a in acc] == [(2, 2, 0)], acc" &&
	curl -s "http://127.0.0.1:$wport/" | grep -q "Accuracy of the reports" &&
	out=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT outbox FROM reports WHERE id = 1") &&
	curl -s "http://127.0.0.1:$wport/reports/$out" | grep -q "Triage" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" -X POST "http://127.0.0.1:$wport/api/regressions/1/reopen")" = 403 &&
	curl -s -X POST -H "Authorization: Bearer $(cat "$TMP/token")" -d "why=not fixed after all" \
		"http://127.0.0.1:$wport/api/regressions/1/reopen" | grep -q "\"ok\": true" &&
	expect "state_of 1" new
'

test_done

#!/bin/sh
# lkprobot serve: a repository made here, commits added while the service
# watches it, one of them a 30 % regression of the `command` benchmark:
# the head is tested against the last tested head, the change bisected to
# that commit, its report delivered to a real SMTP server (aiosmtpd) — once,
# also when the service alone (not its process group) is killed with SIGKILL
# in the middle and started again: its children die with it, and every
# commit's matrix holds only that commit's samples.
# wall-clock limit: 900 s
. "$(dirname "$0")/lib.sh"
test_need_cmd sqlite3 sqlite3

PY=/usr/bin/python3
port=$((20000 + ($$ + 7) % 20000))
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02

test_need_cmd python3 python3
test_at_exit 'stop_pid "$(cat "$TMP/smtpd.pid" 2>/dev/null)"; stop_pid "$(cat "$TMP/smtpd2.pid" 2>/dev/null)"; stop_pid "$(cat "$TMP/silent.pid" 2>/dev/null)"'
# the service's stderr of each pass
test_log "$TMP/smtpd.log" "$TMP/smtpd2.log" "$TMP/silent.log" "$TMP/e[0-9]" "$TMP/u[0-9]"
# Every matrix.json under the result root holds only samples of its own
# commit: each command.throughput within 15 % of the commit's ./speed (the
# noise is 2 %; neighbouring speeds differ by 30 % or more). And the store
# has one bisection per head.
own_samples_only() {
	find "$TMP/res" -name matrix.json | while read -r m; do
		c=$(basename "$(dirname "$m")")
		speed=$(git -C "$TMP/repo" show "$c:speed") || exit 1
		"$PY" - "$m" "$speed" <<-'EOF' || exit 1
		import json, sys
		m, speed = json.load(open(sys.argv[1])), float(sys.argv[2])
		bad = [v for v in m.get("command.throughput", []) if abs(v / speed - 1) > 0.15]
		if bad:
		    sys.exit("%s: samples %s are not of speed %g" % (sys.argv[1], bad, speed))
		EOF
	done &&
	dup=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT bad FROM bisections GROUP BY tree, good, bad, job HAVING count(*) > 1") &&
	{ [ -z "$dup" ] || { echo "bisected twice: $dup"; return 1; }; }
}

# SIGKILL to the service alone, not its session (started with setsid): its
# children must die with it; any still running after 10 s fail the test and
# are ended.
kill_service_alone() {
	kill -KILL "$1" || return 1
	wait "$1" 2>/dev/null
	wait_session_gone "$1" || { stop_session KILL "$1"; return 1; }
}

test_expect_success 'setup: a repository, a job, an SMTP server, the configuration' '
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	printf "all:\n\t@true\n" >Makefile &&
	cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 100 >speed && git add -A && git commit -qm base && cd "$SRC" &&
	commit_n 1 4 &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	# a 5 % floor: a head that changes nothing is "no change" (its interval within it) in a few rounds of 2 % noise
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	mkdir -p "$TMP/spool" &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port --spool "$TMP/spool" >"$TMP/smtpd.log" 2>&1 & echo $! >"$TMP/smtpd.pid"; } &&
	write_serve_conf "$TMP/robot.yaml" serve.poll=1 mail.retry=1 mail.smtp=smtp://127.0.0.1:$port &&
	# mail: is the file.s last section: a subscriber of the tree by its name in serve.trees
	printf "  subscriptions:\n    - address: Tree Watch <tree-watch@example.org>\n      trees: [demo]\n" >>"$TMP/robot.yaml" &&
	lkprobot check-config -c "$TMP/robot.yaml" | grep -q "1 tree, mail a dry run (to the operator only), 1 subscription, 0 opted out" &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'the first head: tested against its parent, no change, no mail' '
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e1" &&
	cat "$TMP/e1" &&
	grep -q "new head .* (\"change 4\")" "$TMP/e1" &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st1" &&
	cat "$TMP/st1" &&
	grep -q "^demo [^ ]* [0-9a-f]\{12\} (base [0-9a-f]\{12\}) done — job.yaml: no change (no metric of the test changed .*: command.throughput [-+0-9.]*% (99.8% interval [-+0-9.]*% to [-+0-9.]*%, .*), within the 5% floor)$" "$TMP/st1" &&
	! grep -q "[{}\"]" "$TMP/st1" &&
	[ -z "$(ls "$TMP/spool")" ]
'

test_expect_success SETUP 'eight new commits, the fifth 30 % slower: bisected from the last tested head, one mail about it' '
	commit_n 5 12 9 70 &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e2" &&
	cat "$TMP/e2" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 9\$") &&
	grep -q "found, culprit $(echo $culprit | cut -c1-12)" "$TMP/e2" &&
	grep -q "base $(git -C "$TMP/repo" log --format=%H --grep="^change 4\$" | cut -c1-12)" "$TMP/e2" &&
	[ $(ls "$TMP/spool" | wc -l) = 1 ] &&
	grep -q "^Subject: \[lkprobot\] $(echo $culprit | cut -c1-10): command.throughput -[23][0-9].[0-9]% regression" "$TMP/spool/1/data" &&
	[ "$(cat "$TMP/spool/1/rcpt")" = "ops@example.org" ] &&
	grep -q "^Cc: Tree Watch <tree-watch@example.org>" "$TMP/spool/1/data"
'

test_expect_success SETUP 'nothing new: nothing tested again, no second mail' '
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e3" &&
	! grep -q "new head\|bisect" "$TMP/e3" &&
	[ $(ls "$TMP/spool" | wc -l) = 1 ]
'

test_expect_success SETUP 'SIGKILL in the middle of the next regression, then started again: one mail, the runs reused' '
	commit_n 13 20 16 50 &&
	{ BENCH_SLEEP=0.3 setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" 2>"$TMP/e4" & pid=$!; } &&
	for i in $(seq 1 200); do grep -q ": .*job.yaml" "$TMP/e4" 2>/dev/null && break; sleep 0.1; done &&
	sleep 2 && kill_service_alone $pid &&
	cat "$TMP/e4" &&
	! grep -q "found" "$TMP/e4" &&
	runs_before=$(find "$TMP/res" -name stats.json | wc -l) &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e5" &&
	cat "$TMP/e5" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 16\$") &&
	grep -q "found, culprit $(echo $culprit | cut -c1-12)" "$TMP/e5" &&
	[ $(ls "$TMP/spool" | wc -l) = 2 ] &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>/dev/null &&
	[ $(ls "$TMP/spool" | wc -l) = 2 ] &&
	[ $(lkprobot status -c "$TMP/robot.yaml" | grep -c " done ") = 3 ] &&
	own_samples_only &&
	echo "runs before the restart: $runs_before, after: $(find "$TMP/res" -name stats.json | wc -l)"
'

test_expect_success SETUP 'kill -9 at random points, five times, then one pass: one mail, every run in the store, none twice' '
	commit_n 25 32 29 60 &&
	spool_before=$(ls "$TMP/spool" | wc -l) &&
	for k in 1 2 3 4 5; do
		delay=$(od -An -N1 -tu1 /dev/urandom | awk "{ printf \"%.1f\", 0.3 + \$1 / 255 * 4 }") &&
		echo "kill $k after $delay s" &&
		{ BENCH_SLEEP=0.2 setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" 2>>"$TMP/e7" & pid=$!; } &&
		sleep "$delay" && kill_service_alone $pid || exit 1
	done &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e8" && cat "$TMP/e8" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 29\$") &&
	lkprobot status -c "$TMP/robot.yaml" | grep -q " done — job.yaml: improvement, culprit $(echo $culprit | cut -c1-12): command.throughput [0-9.]*% (99.8% interval [-+0-9.]*% to [-+0-9.]*%), mailed (a dry run: to the operator only)$" &&
	[ $(ls "$TMP/spool" | wc -l) = $((spool_before + 1)) ] &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>/dev/null &&
	[ $(ls "$TMP/spool" | wc -l) = $((spool_before + 1)) ] &&
	! lkprobot status -c "$TMP/robot.yaml" | grep -Eq " (testing|queued)( |$)" &&
	on_disk=$(find "$TMP/res" -name stats.json | wc -l) &&
	in_store=$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM runs") &&
	echo "runs on disk $on_disk, in the store $in_store" &&
	[ "$on_disk" = "$in_store" ] &&
	[ "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM (SELECT result_root FROM runs GROUP BY result_root HAVING count(*) > 1)")" = 0 ] &&
	own_samples_only
'

test_expect_success SETUP 'an improvement: recorded, not mailed (report_improvements: false); the regression it undoes followed up in its thread' '
	sed "s|^  poll: 1|  poll: 1\n  report_improvements: false|" "$TMP/robot.yaml" >"$TMP/robot-noimp.yaml" &&
	spool_before=$(ls "$TMP/spool" | wc -l) &&
	commit_n 21 24 22 100 &&
	lkprobot serve -c "$TMP/robot-noimp.yaml" --once 2>"$TMP/e6" &&
	cat "$TMP/e6" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 22\$") &&
	grep -q "found, culprit $(echo $culprit | cut -c1-12)" "$TMP/e6" &&
	grep -q "an improvement of command.throughput, recorded, not mailed" "$TMP/e6" &&
	lkprobot status -c "$TMP/robot.yaml" | grep -q "job.yaml: improvement, culprit $(echo $culprit | cut -c1-12): command.throughput [0-9.]*% (99.8% interval [-+0-9.]*% to [-+0-9.]*%), recorded, not mailed$" &&
	# no report of the improvement; the regression it undoes (the first report: change 9, 100 -> 70) is
	# followed up in its thread, once, fixed at the head (more rounds when the stored runs are not sure)
	head=$(git -C "$TMP/repo" rev-parse HEAD | cut -c1-12) &&
	grep -q "report 1: fixed at $head (\"change 24\"): replied" "$TMP/e6" &&
	[ "$(grep -c ": fixed at .*: replied" "$TMP/e6")" = 1 ] &&
	[ $(ls "$TMP/spool" | wc -l) = $((spool_before + 1)) ] &&
	last=$(ls "$TMP/spool" | sort -n | tail -1) &&
	grep -q "^In-Reply-To: $(sqlite3 "$TMP/res/lkprobot.db" "SELECT message_id FROM reports WHERE id = 1")" "$TMP/spool/$last/data" &&
	grep -q "^Subject: Re: \[lkprobot\] .*: command.throughput -[23][0-9].[0-9]% regression" "$TMP/spool/$last/data" &&
	printf "serve:\n  report_improvements: maybe\n  trees: []\n" >"$TMP/ri.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/ri.yaml" &&
	one_line_error "ri.yaml:2:[0-9]+: serve.report_improvements: must be true or false"
'

test_expect_success SETUP 'a report the SMTP server refuses for good (554 on DATA): recorded as a failed delivery with the reason, not "nothing to report"' '
	port2=$((port + 1)) && mkdir -p "$TMP/spool2" &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port2 --spool "$TMP/spool2" --data-reply "554 5.7.1 no thanks" >"$TMP/smtpd2.log" 2>&1 & echo $! >"$TMP/smtpd2.pid"; } &&
	for i in $(seq 1 100); do "$PY" -c "import socket; socket.create_connection((\"127.0.0.1\", $port2), 1)" 2>/dev/null && break; sleep 0.1; done &&
	sed "s|smtp://127.0.0.1:$port|smtp://127.0.0.1:$port2|" "$TMP/robot.yaml" >"$TMP/refuse.yaml" &&
	commit_n 33 36 34 40 &&
	rc=0 && { lkprobot serve -c "$TMP/refuse.yaml" --once 2>"$TMP/e9" || rc=$?; } &&
	kill "$(cat "$TMP/smtpd2.pid")" && cat "$TMP/e9" && [ $rc = 0 ] &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 34\$") &&
	lkprobot status -c "$TMP/robot.yaml" | grep "culprit $(echo $culprit | cut -c1-12)" >"$TMP/st9" &&
	grep -q "job.yaml: regression, culprit [0-9a-f]*: command.throughput -[0-9.]*% ([^)]*), mail failed: .*554 5.7.1 no thanks" "$TMP/st9" &&
	lkprobot status -c "$TMP/robot.yaml" --json | "$PY" -c "import json, sys
j = [x for h in json.load(sys.stdin) if isinstance(h[\"result\"], list) for x in h[\"result\"] if x.get(\"culprit\") == sys.argv[1]]
assert j[0][\"report\"] == \"delivery failed\" and \"554 5.7.1 no thanks\" in j[0][\"mail_error\"] and j[0][\"mail\"] == \"failed\", j
" "$culprit" &&
	[ -z "$(ls "$TMP/spool2")" ]
'

test_expect_success SETUP 'a tree by url (file://): mirrored with libgit2; a force-push is a new head on its parent, no crash' '
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	write_serve_conf "$TMP/url.yaml" serve.result_root="$TMP/res2" serve.cache="$TMP/cache2" tree.name=demo-url tree.path= \
		tree.url="file://$TMP/repo" mail=none &&
	lkprobot serve -c "$TMP/url.yaml" --once 2>"$TMP/u1" && cat "$TMP/u1" &&
	git --git-dir="$TMP/cache2/mirrors/demo-url.git" rev-parse --verify -q "refs/heads/$branch" >/dev/null &&
	grep -q "new head $(git -C "$TMP/repo" rev-parse HEAD | cut -c1-12)" "$TMP/u1" &&
	lkprobot status -c "$TMP/url.yaml" | grep -q "^demo-url $branch .* done" &&
	old=$(git -C "$TMP/repo" rev-parse HEAD) &&
	git -C "$TMP/repo" reset -q --hard HEAD~2 && echo x >"$TMP/repo/fp" &&
	git -C "$TMP/repo" add fp && git -C "$TMP/repo" commit -qm rewritten &&
	lkprobot serve -c "$TMP/url.yaml" --once 2>"$TMP/u2" && cat "$TMP/u2" &&
	grep -q "new head .* (\"rewritten\"), base $(git -C "$TMP/repo" rev-parse HEAD~1 | cut -c1-12)" "$TMP/u2" &&
	[ "$(git --git-dir="$TMP/cache2/mirrors/demo-url.git" rev-parse "refs/heads/$branch")" = "$(git -C "$TMP/repo" rev-parse HEAD)" ] &&
	git --git-dir="$TMP/cache2/mirrors/demo-url.git" cat-file -e "$old^{commit}" &&
	[ $(lkprobot status -c "$TMP/url.yaml" | grep -c " done ") = 2 ]
'

test_expect_success SETUP 'a url that cannot be fetched: said once a pass, the service goes on (exit 0); a bad url is a config error' '
	sed "s|url: file://.*|url: file://$TMP/nowhere|" "$TMP/url.yaml" >"$TMP/url-bad.yaml" &&
	lkprobot serve -c "$TMP/url-bad.yaml" --once 2>"$TMP/u3" && cat "$TMP/u3" &&
	grep -q "demo-url: file://$TMP/nowhere: fetch failed.*(skipped this time)" "$TMP/u3" &&
	sed "s|url: file://.*|url: ftp://example.org/linux.git|" "$TMP/url.yaml" >"$TMP/url-ftp.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/url-ftp.yaml" &&
	one_line_error "url-ftp.yaml:[0-9]+:[0-9]+: serve.trees.url: not a repository address"
'

test_expect_success SETUP 'a tree url whose server accepts and never answers: given up after fetch_timeout, said, the pass goes on (exit 0), and the next start too' '
	sport=$((port + 2)) &&
	{ "$PY" -c "
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((\"127.0.0.1\", int(sys.argv[1])))
s.listen(8)
held = []
while True:
    held.append(s.accept()[0])	# kept open, never read or answered
" $sport >"$TMP/silent.log" 2>&1 & echo $! >"$TMP/silent.pid"; } &&
	for i in $(seq 1 100); do "$PY" -c "import socket; socket.create_connection((\"127.0.0.1\", $sport), 1)" 2>/dev/null && break; sleep 0.1; done &&
	sed "s|^\( *\)url: file://.*|\1url: http://127.0.0.1:$sport/linux.git\n\1fetch_timeout: 2|; s|$TMP/cache2|$TMP/cache3|" \
		"$TMP/url.yaml" >"$TMP/url-silent.yaml" &&
	grep -q "^ *fetch_timeout: 2$" "$TMP/url-silent.yaml" && grep -q "cache: $TMP/cache3$" "$TMP/url-silent.yaml" &&
	for pass in 4 5; do
		t0=$(date +%s) &&
		lkprobot serve -c "$TMP/url-silent.yaml" --once 2>"$TMP/u$pass" && cat "$TMP/u$pass" &&
		t=$(($(date +%s) - t0)) && echo "the pass took $t s" &&
		[ "$t" -lt 60 ] &&
		grep -q "demo-url: http://127.0.0.1:$sport/linux.git: nothing received for 2 s (skipped this time)" "$TMP/u$pass" ||
		return 1
	done &&
	lkprobot check-config -c "$TMP/url-silent.yaml" &&
	sed "s|fetch_timeout: 2|fetch_timeout: 0|" "$TMP/url-silent.yaml" >"$TMP/url-zero.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/url-zero.yaml" &&
	one_line_error "url-zero.yaml:[0-9]+:[0-9]+: serve.trees.fetch_timeout: must be a number of seconds from 1 to 86400"
'

test_expect_success SETUP 'a tree by url: a culprit.s mail names where it is, <tree url> <branch> (as the 2017 mails wrote a tree and its branch)' '
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	write_serve_conf "$TMP/url-mail.yaml" serve.result_root="$TMP/res2" serve.cache="$TMP/cache2" tree.name=demo-url \
		tree.path= tree.url="file://$TMP/repo" mail.retry=1 mail.smtp=smtp://127.0.0.1:$port &&
	before=$(ls "$TMP/spool" | wc -l) &&
	echo 20 >"$TMP/repo/speed" && git -C "$TMP/repo" commit -qam "much slower" &&
	lkprobot serve -c "$TMP/url-mail.yaml" --once 2>"$TMP/u4" && cat "$TMP/u4" &&
	[ $(ls "$TMP/spool" | wc -l) = $((before + 1)) ] &&
	m="$TMP/spool/$(ls "$TMP/spool" | sort -n | tail -1)" &&
	grep -q "^Subject: \[lkprobot\] $(git -C "$TMP/repo" rev-parse HEAD | cut -c1-10): command.throughput" "$m/data" &&
	tr -d "\r" <"$m/data" | grep -qx "file://$TMP/repo $branch"
'

test_expect_success SETUP 'check-config: an unknown key and a tree that is not a repository (exit 2, file:line:col)' '
	printf "serve:\n  pol: 5\n  trees: []\n" >"$TMP/typo.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/typo.yaml" &&
	one_line_error "typo.yaml:2:[0-9]+: serve.pol: not a setting lkprobot knows" &&
	printf "serve:\n  trees:\n    - path: /nonexistent\n      branches: [main]\n      jobs: [%s]\n" "$TMP/job.yaml" >"$TMP/norepo.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/norepo.yaml" &&
	one_line_error "norepo.yaml:3:[0-9]+: serve.trees.path: .*/nonexistent"
'

test_expect_success SETUP 'check-config and serve refuse a job that run refuses: an option its program lacks, a program lkprobot does not run (exit 2, one line)' '
	printf "suite: command\ntestcase: command\ncommand:\n  rww: 5\n  cmd: sh bench.sh\n" >"$TMP/rww.yaml" &&
	expect_exit 2 lkprobot run --no-store -o "$TMP/rww-res" "$TMP/rww.yaml" &&
	one_line_error "rww.yaml:4:[0-9]+: rww: not an option of .command." &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	write_serve_conf "$TMP/rww-conf.yaml" tree.jobs="[$TMP/rww.yaml]" &&
	expect_exit 2 lkprobot check-config -c "$TMP/rww-conf.yaml" &&
	one_line_error "^lkprobot: $TMP/rww-conf.yaml: serve.trees.jobs of demo: $TMP/rww.yaml:4:[0-9]+: rww: not an option of .command." &&
	expect_exit 2 lkprobot serve -c "$TMP/rww-conf.yaml" --once &&
	one_line_error "rww: not an option of .command." &&
	printf "suite: aim9\ntestcase: aim9\naim9:\n" >"$TMP/aim9.yaml" &&
	write_serve_conf "$TMP/aim9-conf.yaml" tree.jobs="[$TMP/aim9.yaml]" &&
	expect_exit 2 lkprobot check-config -c "$TMP/aim9-conf.yaml" &&
	one_line_error "serve.trees.jobs of demo: aim9: not a program lkprobot implements"
'

test_expect_success SETUP 'check-config: provider ssh needs a box or a tbox_group of serve.boxes (file:line:col when not)' '
	printf "boxes:\n  pmem1:\n    host: 10.0.0.5\n    tbox_group: lkp-csl-2sp6\n" >"$TMP/boxes.yaml" &&
	printf "serve:\n  boxes: %s\n  trees:\n    - path: %s\n      branches: [%s]\n      jobs: [%s]\n      provider: ssh\n      box: %s\n" \
		"$TMP/boxes.yaml" "$TMP/repo" "$(git -C "$TMP/repo" symbolic-ref --short HEAD)" "$TMP/job.yaml" pmem1 >"$TMP/ssh.yaml" &&
	lkprobot check-config -c "$TMP/ssh.yaml" | grep -q "1 tree" &&
	sed "s/box: pmem1/box: pmem9/" "$TMP/ssh.yaml" >"$TMP/ssh-nobox.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/ssh-nobox.yaml" &&
	one_line_error "ssh-nobox.yaml:8:12: serve.trees.box: .*no box and no tbox_group .pmem9. in boxes: \(tbox_groups: lkp-csl-2sp6; " &&
	sed "s/box: pmem1/box: lkp-csl-2sp6/" "$TMP/ssh.yaml" >"$TMP/ssh-group.yaml" &&
	lkprobot check-config -c "$TMP/ssh-group.yaml" | grep -q "1 tree" &&
	sed "/box: pmem1/d" "$TMP/ssh.yaml" >"$TMP/ssh-none.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/ssh-none.yaml" &&
	one_line_error "serve.trees.box: provider: ssh needs box: NAME" &&
	sed "s/provider: ssh/provider: local/" "$TMP/ssh.yaml" >"$TMP/ssh-local.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/ssh-local.yaml" &&
	one_line_error "ssh-local.yaml:8:12: serve.trees.box: is a setting of provider: ssh"
'

test_expect_success SETUP 'check-config: the example as shipped says which path to change; a branch the tree lacks, an SMTP URL of another scheme: one line each' '
	expect_exit 2 lkprobot check-config -c "$SRC/docker/config.yaml" &&
	one_line_error "^lkprobot: $SRC/docker/config.yaml:[0-9]+:[0-9]+: serve.trees.path: ./srv/git/linux.: no such directory; set path: to a clone of the tree \(git clone URL /srv/git/linux\), or give url: instead for lkprobot to fetch it$" &&
	sed "s|^\(  *branches:\).*|\1 [mastr]|" "$TMP/robot.yaml" >"$TMP/mastr.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/mastr.yaml" &&
	one_line_error "^lkprobot: $TMP/mastr.yaml:[0-9]+:[0-9]+: serve.trees.branches: .mastr. is not a branch of $TMP/repo; give one it has \(git -C $TMP/repo branch -a lists them\)$" &&
	sed "s|url: smtp://|url: smtpx://|" "$TMP/robot.yaml" >"$TMP/smtpx.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/smtpx.yaml" &&
	one_line_error "^lkprobot: $TMP/smtpx.yaml:[0-9]+:[0-9]+: mail.smtp.url: must be smtp://HOST\[:PORT\] .* or smtps://HOST\[:PORT\] " &&
	sed "s|url: smtp://|url: smtps://|" "$TMP/robot.yaml" >"$TMP/smtps.yaml" &&
	lkprobot check-config -c "$TMP/smtps.yaml" >/dev/null
'

test_expect_success SETUP 'the example configuration in docker/ is valid once its paths exist' '
	sed -e "s|/srv/git/linux|$TMP/repo|" -e "s|/usr/local/share/lkprobot/jobs/fio-basic/fio-basic-smoke.yaml|$SRC/jobs/fio-basic/fio-basic-smoke.yaml|" \
		-e "s|branches: \[master\]|branches: [$(git -C "$TMP/repo" symbolic-ref --short HEAD)]|" -e "s|/lkp/|$TMP/lkp/|" \
		-e "s|/etc/lkprobot/smtp-password|$TMP/pw|" -e "/^  dkim:/,\$d" "$SRC/docker/config.yaml" >"$TMP/example.yaml" &&
	echo secret >"$TMP/pw" &&
	lkprobot check-config -c "$TMP/example.yaml" | grep -q "1 tree, mail a dry run" &&
	grep -q "^ExecStart=/usr/local/bin/lkprobot serve -c /etc/lkprobot/config.yaml" "$SRC/docker/lkprobot.service"
'

test_done

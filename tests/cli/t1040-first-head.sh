#!/bin/sh
# lkprobot serve on a branch whose only commit is a root commit: the head
# has no parent to be compared with, so it is measured on its own as the
# branch's baseline (status baseline, its runs recorded); the next push of
# six commits, the third 40 % slower, is bisected from it — the regression
# is found and mailed, where a service that skipped the root head compared
# only the last commit with its parent and saw nothing.
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3

PY=/usr/bin/python3
port=$((20000 + ($$ + 11) % 20000))
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
test_at_exit 'stop_pid "$(cat "$TMP/smtpd.pid" 2>/dev/null)"'
test_log "$TMP/smtpd.log" "$TMP/e[0-9]"

test_expect_success 'setup: a repository of one root commit, a job, an SMTP server, the configuration' '
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	printf "all:\n\t@true\n" >Makefile &&
	cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 100 >speed && git add -A && git commit -qm root && cd "$SRC" &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	mkdir -p "$TMP/spool" &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port --spool "$TMP/spool" >"$TMP/smtpd.log" 2>&1 & echo $! >"$TMP/smtpd.pid"; } &&
	write_serve_conf "$TMP/robot.yaml" serve.poll=1 mail.retry=1 mail.smtp=smtp://127.0.0.1:$port &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'the root commit: recorded and measured on its own as the baseline, no mail' '
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e1" &&
	cat "$TMP/e1" &&
	root=$(git -C "$TMP/repo" rev-parse HEAD) &&
	grep -q "new head $(echo $root | cut -c1-12) (\"root\"), a root commit: measured on its own" "$TMP/e1" &&
	lkprobot status -c "$TMP/robot.yaml" --json >"$TMP/st1" &&
	"$PY" - "$TMP/st1" "$root" <<-\EOF &&
	import json, sys
	heads = json.load(open(sys.argv[1]))
	assert len(heads) == 1 and heads[0]["head"] == sys.argv[2], heads
	h = heads[0]
	assert h["status"] == "baseline", h
	assert h["result"][0]["bisect"] == "baseline" and "measured on its own, 5 runs" in h["result"][0]["why"], h
	EOF
	[ "$(find "$TMP/res" -path "*/$root/*" -name stats.json | wc -l)" = 5 ] &&
	[ -z "$(ls "$TMP/spool")" ]
'

test_expect_success SETUP 'six new commits, the third 40 % slower: bisected from the baseline, found and mailed' '
	commit_n 1 6 3 60 &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e2" &&
	cat "$TMP/e2" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 3\$") &&
	grep -q "base $(git -C "$TMP/repo" rev-list --max-parents=0 HEAD | cut -c1-12)" "$TMP/e2" &&
	grep -q "found, culprit $(echo $culprit | cut -c1-12)" "$TMP/e2" &&
	[ $(ls "$TMP/spool" | wc -l) = 1 ] &&
	grep -q "^Subject: \[lkprobot\] $(echo $culprit | cut -c1-10): command.throughput -[34][0-9].[0-9]% regression" "$TMP/spool/1/data"
'

test_expect_success SETUP 'a root commit that does not build: build_failed with its first error line, not a baseline' '
	git init -q "$TMP/broken" && cd "$TMP/broken" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	printf "all:\n\t@echo \"bench.c:3:1: error: expected ; before }\" >&2; false\n" >Makefile &&
	git add -A && git commit -qm "broken root" && cd "$SRC" &&
	branch=$(git -C "$TMP/broken" symbolic-ref --short HEAD) &&
	write_serve_conf "$TMP/broken.yaml" serve.result_root=$TMP/res2 tree.path=$TMP/broken &&
	lkprobot serve -c "$TMP/broken.yaml" --once 2>"$TMP/e3" &&
	lkprobot status -c "$TMP/broken.yaml" --json >"$TMP/st3" &&
	"$PY" - "$TMP/st3" <<-\EOF
	import json, sys
	h = json.load(open(sys.argv[1]))[0]
	assert h["status"] == "build_failed", h
	assert "expected ; before }" in h["result"][0]["why"], h
	EOF
'

test_done

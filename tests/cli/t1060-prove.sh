#!/bin/sh
# Prove it before mailing: a named culprit's revert on top of the bad end,
# run against the bad end. A culprit whose revert restores the speed is
# confirmed (bisect says so, the service mails it); a "culprit" whose
# revert restores nothing — a later commit turns the slow path on again by
# another way — is in doubt: recorded with the revert's figures, never
# mailed by default; a revert that conflicts is said and blocks nothing.
# The layout check needs a provider that builds kernels (make
# check-bisect-kernel); with the local provider it says why it is not made.
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3

PY=/usr/bin/python3
port=$((20000 + ($$ + 13) % 20000))
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
test_at_exit 'stop_pid "$(cat "$TMP/smtpd.pid" 2>/dev/null)"'
test_log "$TMP/smtpd.log" "$TMP/e[0-9]"

# a repository whose build writes ./speed: 70 when a file slow or slow2 is there, else 100
make_repo() {	# make_repo DIR
	git init -q "$1" && cd "$1" &&
	git config user.email dev@example.org && git config user.name "A Developer" &&
	printf "all:\n\t@if [ -e slow ] || [ -e slow2 ]; then echo 70 >speed; else echo 100 >speed; fi\n" >Makefile &&
	printf "speed\n" >.gitignore &&
	cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 0 >code && echo "$1" >name && git add -A && git commit -qm root && cd "$SRC"
}
commit_file() {	# commit_file DIR FILE TEXT MESSAGE
	(cd "$1" && echo "$3" >"$2" && git add -A && git commit -qm "$4")
}
bisect_json() {	# bisect_json DIR OUT
	lkprobot bisect --tree "$1" --good "$(git -C "$1" rev-list --max-parents=0 HEAD)" --bad HEAD -o "$TMP/res" \
		--cache "$TMP/cache" --json "$TMP/job.yaml" >"$2" 2>"$2.err"
}
check_is() {	# check_is JSON KEY STATUS PATTERN
	"$PY" - "$@" <<-\EOF
	import json, re, sys
	j = json.load(open(sys.argv[1]))
	c = j[sys.argv[2]]
	assert j["status"] == "found", j
	assert c["status"] == sys.argv[3], c
	assert re.search(sys.argv[4], c["why"]), c["why"]
	EOF
}

test_expect_success 'setup: three repositories, a job, an SMTP server' '
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	make_repo "$TMP/a" && for i in 1 2 3 4 5 6; do
		if [ $i = 3 ]; then commit_file "$TMP/a" slow 1 "change 3: the slow path" || exit 1
		else commit_file "$TMP/a" f$i $i "change $i" || exit 1; fi
	done &&
	make_repo "$TMP/b" && for i in 1 2 3 4 5 6; do
		case $i in
		3) commit_file "$TMP/b" slow 1 "change 3: the slow path" ;;
		5) commit_file "$TMP/b" slow2 1 "change 5: the slow path, another way" ;;
		*) commit_file "$TMP/b" f$i $i "change $i" ;;
		esac || exit 1
	done &&
	make_repo "$TMP/c" && for i in 1 2 3 4 5 6; do
		case $i in
		3) (cd "$TMP/c" && echo 1 >slow && echo three >code && git add -A && git commit -qm "change 3: slow, and code") ;;
		5) commit_file "$TMP/c" code five "change 5: the same line of code" ;;
		*) commit_file "$TMP/c" f$i $i "change $i" ;;
		esac || exit 1
	done &&
	mkdir -p "$TMP/spool" &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port --spool "$TMP/spool" >"$TMP/smtpd.log" 2>&1 & echo $! >"$TMP/smtpd.pid"; } &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'a culprit whose revert restores the speed: confirmed, with the figures' '
	bisect_json "$TMP/a" "$TMP/a.json" &&
	culprit=$(git -C "$TMP/a" log --format=%H --grep="^change 3") &&
	grep -q "\"culprit\": \"$culprit\"" "$TMP/a.json" &&
	check_is "$TMP/a.json" revert confirms "^Reverting $(echo $culprit | cut -c1-12) on top of [0-9a-f]{12} restores command.throughput \(\+[3-5][0-9]\.[0-9]%" &&
	check_is "$TMP/a.json" layout not-made "the local provider builds no kernel" &&
	git -C "$TMP/a" show-ref | grep -q " refs/lkprobot/reverts/$(echo $culprit | cut -c1-12)-on-" &&
	[ "$(git -C "$TMP/a" rev-parse HEAD)" = "$(git -C "$TMP/a" rev-parse "$(git -C "$TMP/a" symbolic-ref --short HEAD)")" ] &&
	[ -z "$(git -C "$TMP/a" status --porcelain)" ] &&
	id=$("$PY" -c "import json,sys; print(json.load(open(sys.argv[1]))[\"id\"])" "$TMP/a.json") &&
	lkprobot report --base "$(git -C "$TMP/a" rev-parse "$culprit~1")" --commit "$culprit" --result-root "$TMP/res" \
		--tree "$TMP/a" --bisection "$id" --body >"$TMP/a.body" &&
	grep -q "^Reverting $(echo $culprit | cut -c1-12) on top of [0-9a-f]* restores command.throughput" "$TMP/a.body" &&
	expect_exit 2 lkprobot report --base x --commit y --result-root "$TMP/res" --bisection 999 &&
	one_line_error "no bisection 999 in the store"
'

test_expect_success SETUP 'a culprit whose revert restores nothing: found, and in doubt' '
	bisect_json "$TMP/b" "$TMP/b.json" &&
	check_is "$TMP/b.json" revert refutes "does not restore command.throughput .*: the culprit is in doubt" &&
	"$PY" -c "import json,sys; c = json.load(open(sys.argv[1]))[\"revert\"]; assert c[\"runs\"] >= 10 and c[\"decision\"][\"verdict\"] != \"changed\", c" "$TMP/b.json"
'

test_expect_success SETUP 'a revert that conflicts: said, the bisection stands' '
	bisect_json "$TMP/c" "$TMP/c.json" &&
	check_is "$TMP/c.json" revert cannot "^the revert of [0-9a-f]{12} does not apply on [0-9a-f]{12}: conflicts in code"
'

test_expect_success SETUP 'the service: the restoring culprit mailed, the one in doubt recorded and not mailed' '
	branch=$(git -C "$TMP/a" symbolic-ref --short HEAD) &&
	write_serve_conf "$TMP/robot.yaml" serve.result_root="$TMP/res2" tree.path="$TMP/a" \
		tree.base="$(git -C "$TMP/a" rev-list --max-parents=0 HEAD)" tree2.path="$TMP/b" \
		tree2.base="$(git -C "$TMP/b" rev-list --max-parents=0 HEAD)" mail.retry=1 mail.smtp=smtp://127.0.0.1:$port &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/e1" &&
	cat "$TMP/e1" &&
	[ "$(ls "$TMP/spool" | wc -l)" = 1 ] &&
	grep -q "^Subject: .*$(git -C "$TMP/a" log --format=%H --grep="^change 3" | cut -c1-10)" "$TMP/spool/1/data" &&
	tr -d "\r" <"$TMP/spool/1/data" | grep -q "^Reverting [0-9a-f]\{12\} on top of [0-9a-f]\{12\} restores command.throughput" &&
	grep -q "report held: its revert does not restore the metric" "$TMP/e1" &&
	lkprobot status -c "$TMP/robot.yaml" --json >"$TMP/st" &&
	"$PY" - "$TMP/st" <<-\EOF
	import json, sys
	jobs = {h["tree"]: h["result"][0] for h in json.load(open(sys.argv[1]))}
	assert jobs["demo"]["revert"] == "confirms" and jobs["demo"]["report"] == "queued", jobs
	assert jobs["next"]["revert"] == "refutes" and jobs["next"]["report"] == "held", jobs
	assert "does not restore" in jobs["next"]["report_why"], jobs
	EOF
'

test_done

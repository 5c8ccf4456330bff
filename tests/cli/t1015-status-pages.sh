#!/bin/sh
# `lkprobot status --json` a page at a time: 500 heads unless --limit says,
# after head --after ID; a bad --limit or --after, or either without --json,
# is one line and exit 2. The store's heads are rows of its own schema (the
# table store_head_add writes), 1,200 of them written with Python's sqlite3:
# the service would have to test 1,200 heads to make them.
# wall-clock limit: 120 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3
PY=/usr/bin/python3

test_expect_success 'setup: a configuration, its store with 1,200 heads' '
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name Dev &&
	echo 1 >f && git add -A && git commit -qm one && cd "$SRC" &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: true\n" >"$TMP/job.yaml" &&
	write_serve_conf "$TMP/robot.yaml" mail=none &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st0" && grep -q "^no heads yet" "$TMP/st0" &&
	"$PY" -c "import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executemany(\"INSERT INTO heads(tree, branch, head, base, status, first_seen, updated) VALUES (?, ?, ?, ?, ?, ?, ?)\",
               [(sys.argv[2], \"master\", \"%040x\" % i, \"\", \"done\", 1700000000 + i, 1700000000 + i) for i in range(1200)])
db.commit()" "$TMP/res/lkprobot.db" "$TMP/repo"
'

ids() { "$PY" -c "import json, sys; print(\" \".join(str(h[\"id\"]) for h in json.load(open(sys.argv[1]))))" "$1"; }

test_expect_success '--json: the first 500 heads; --limit and --after the next ones; past the last, none' '
	lkprobot status -c "$TMP/robot.yaml" --json >"$TMP/p1" &&
	[ "$(ids "$TMP/p1" | wc -w)" = 500 ] && ids "$TMP/p1" | grep -q "^1 2 3 .* 499 500$" &&
	lkprobot status -c "$TMP/robot.yaml" --json --limit 3 --after 500 >"$TMP/p2" &&
	[ "$(ids "$TMP/p2")" = "501 502 503" ] &&
	lkprobot status -c "$TMP/robot.yaml" --json --limit 10000 --after 1198 >"$TMP/p3" &&
	[ "$(ids "$TMP/p3")" = "1199 1200" ] &&
	lkprobot status -c "$TMP/robot.yaml" --json --after 1200 >"$TMP/p4" &&
	[ "$(cat "$TMP/p4")" = "[]" ] &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/text" && [ "$(wc -l <"$TMP/text")" = 1200 ]
'

test_expect_success 'a bad --limit or --after, or either without --json: one line, exit 2' '
	for a in "--limit 0" "--limit 10001" "--limit x" "--after -1" "--after 2x"; do
		# shellcheck disable=SC2086
		expect_exit 2 lkprobot status -c "$TMP/robot.yaml" --json $a &&
		one_line_error "^lkprobot: --(limit|after)=" || return 1
	done &&
	expect_exit 2 lkprobot status -c "$TMP/robot.yaml" --limit 3 &&
	one_line_error "add --json"
'

test_done

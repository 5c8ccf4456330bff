#!/bin/sh
# The dashboard of `lkprobot serve --listen` over a service that tested two
# heads (the second a 30 % regression, bisected, its report queued): the
# overview, commit, compare, metric history (SVG), bisection and report
# pages and the JSON behind each; the actions with and without the token;
# a tree and a commit subject named like script tags show as text, and
# paths that climb out of the result root find nothing. Drawn by headless
# Chromium (Debian's chromium) as a reader's browser would.
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"

port=$((20000 + ($$ + 13) % 20000))
test_need_cmd python3 python3
test_need_cmd curl curl
test_prereq_cmd CHROMIUM chromium chromium
# the service, started with setsid: SIGTERM, then whatever of its session is left
test_at_exit 'spid=$(cat "$TMP/spid" 2>/dev/null); [ -z "$spid" ] || { stop_pid "$spid"; stop_session KILL "$spid"; }'
test_log "$TMP/serve.log" "$TMP/chromium.err"
get() { "/usr/bin/python3" -c "import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10); print(r.status); print(r.headers.get(\"Content-Type\")); sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.headers.get(\"Content-Type\")); sys.stdout.write(e.read().decode())
" "$1"; }

export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
TOKEN=0123456789abcdef-web-token
post() { curl -s -o "$TMP/post.out" -w "%{http_code}" -X POST "$@"; }

test_expect_success 'setup: a repository, two heads tested (one a regression), the service serving the dashboard' '
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name Dev &&
	cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 100 >speed && git add -A && git commit -qm base &&
	echo 1 >f && git add -A && git commit -qm "one" && cd "$SRC" &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	# a 5 % floor: a head that changes nothing is "no change" (its interval within it) in a few rounds of 2 % noise
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	echo "$TOKEN" >"$TMP/token" &&
	write_serve_conf "$TMP/robot.yaml" serve.poll=1 serve.web_token_file="$TMP/token" "tree.name=\"<script>alert(1)</script>\"" &&
	{ setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" --listen 127.0.0.1:$port 2>"$TMP/serve.log" & echo $! >"$TMP/spid"; } &&
	# its store set up before lkprobot status opens it too
	for i in $(seq 1 300); do grep -q "watching 1 tree" "$TMP/serve.log" && break; sleep 0.1; done &&
	grep -q "watching 1 tree" "$TMP/serve.log" &&
	for i in $(seq 1 300); do
		lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" 2>/dev/null; grep -q " done " "$TMP/st" && break; sleep 0.2
	done &&
	grep -q " done " "$TMP/st" &&
	cd "$TMP/repo" && echo 2 >f && git commit -qam "two" &&
	echo 70 >speed && git commit -qam "<script>alert(2)</script> slow down" &&
	echo 3 >f && git commit -qam "three" && cd "$SRC" &&
	for i in $(seq 1 600); do
		lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" 2>/dev/null; [ $(grep -c " done " "$TMP/st") = 2 ] && break; sleep 0.2
	done &&
	cat "$TMP/st" && grep -q "regression, culprit" "$TMP/st" &&
	git -C "$TMP/repo" rev-parse HEAD >"$TMP/head" &&
	git -C "$TMP/repo" rev-parse HEAD~1 >"$TMP/culprit" &&
	git -C "$TMP/repo" rev-parse HEAD~3 >"$TMP/base" &&
	test_set_prereq SERVING
'

test_expect_success SERVING 'the overview: queue, machines, bisections, heads, mails; the tree name escaped, no script anywhere' '
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	get "http://127.0.0.1:$port/" >"$TMP/o" &&
	[ "$(sed -n 1p "$TMP/o")" = 200 ] &&
	sed -n 2p "$TMP/o" | grep -q "^text/html" &&
	grep -q "<h2>Queue (0)</h2>" "$TMP/o" &&
	grep -q "<h2>Machines (1)</h2>" "$TMP/o" &&
	grep -q "<tr><td>vm</td><td>vm</td><td>[1-9][0-9]*</td><td>[0-9.]* GiB</td><td>[^<][^<]*</td>" "$TMP/o" &&
	grep -q "<h2>&lt;script&gt;alert(1)&lt;/script&gt; · $branch (2 of 2 heads)</h2>" "$TMP/o" &&
	grep -q "<h2>Report mails (1)</h2>" "$TMP/o" &&
	grep -q "<a href=\"/bisections/[0-9]*\">" "$TMP/o" &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$TMP/o" &&
	! grep -q "<script" "$TMP/o" && ! grep -q "<style" "$TMP/o" && ! grep -q " style=" "$TMP/o" &&
	grep -q "<span class=\"state state-no-change\">no change</span>" "$TMP/o" &&
	grep -q "<span class=\"state state-found\">found</span> <span class=\"state state-regression\">regression</span>" "$TMP/o"
'

test_expect_success SERVING '/api/heads and /api/: the same as JSON, and an index of the API' '
	get "http://127.0.0.1:$port/api/heads" | tail -n +3 >"$TMP/j" &&
	python3 -c "import json,sys
h = json.load(open(sys.argv[1]))
assert len(h) == 2 and h[0][\"status\"] == \"done\" and h[0][\"tree\"] == \"<script>alert(1)</script>\", h
" "$TMP/j" &&
	get "http://127.0.0.1:$port/api/" | tail -n +3 | python3 -c "import json,sys; assert \"/api/reports/ID\" in json.load(sys.stdin)[\"pages\"]"
'

test_expect_success SERVING 'the commit page: the head against its base, the regression marked, its runs linked' '
	get "http://127.0.0.1:$port/commit/$(cat "$TMP/head")" >"$TMP/c" &&
	[ "$(sed -n 1p "$TMP/c")" = 200 ] &&
	grep -q "<tr class=\"regression\"><td><a href=\"/history?testcase=command&amp;path_params=[^\"]*&amp;metric=command.throughput\">" "$TMP/c" &&
	grep -q "<a href=\"/runs/command/" "$TMP/c" &&
	get "http://127.0.0.1:$port/api/commit/$(cat "$TMP/head")" | tail -n +3 >"$TMP/cj" &&
	python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
rows = d[\"against_base\"][\"groups\"][0][\"rows\"]
r = [x for x in rows if x[\"metric\"] == \"command.throughput\"][0]
assert r[\"verdict\"] == \"regression\" and r[\"change\"] < -20 and len(d[\"runs\"]) >= 1, r
" "$TMP/cj" &&
	get "http://127.0.0.1:$port/commit/no-such-commit" | head -1 | grep -qx 404 &&
	get "http://127.0.0.1:$port/commit/..%2f..%2fetc" | head -1 | grep -qx 400
'

test_expect_success SERVING 'compare: the table, and the report mails plots for what changed' '
	get "http://127.0.0.1:$port/compare?base=$(cat "$TMP/base")&commit=$(cat "$TMP/head")" >"$TMP/cmp" &&
	[ "$(sed -n 1p "$TMP/cmp")" = 200 ] &&
	grep -q "<pre class=\"plots\">" "$TMP/cmp" &&
	grep -q "\[\*\] bisect-good sample" "$TMP/cmp" &&
	grep -q "command.throughput" "$TMP/cmp" &&
	get "http://127.0.0.1:$port/compare?base=$(cat "$TMP/base")" | head -1 | grep -qx 400
'

test_expect_success SERVING 'metric history: an SVG chart, a dot a run, the culprit marked as a change point' '
	pp=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"runs\"][0][\"path_params\"])" "$TMP/cj") &&
	echo "$pp" >"$TMP/pp" &&
	get "http://127.0.0.1:$port/history?testcase=command&path_params=$pp&metric=command.throughput" >"$TMP/h" &&
	[ "$(sed -n 1p "$TMP/h")" = 200 ] &&
	grep -q "<svg " "$TMP/h" &&
	[ $(grep -o "<circle class=\"run series-0\"" "$TMP/h" | wc -l) -ge 6 ] &&
	grep -q "<line class=\"change\"" "$TMP/h" &&
	get "http://127.0.0.1:$port/api/history?testcase=command&path_params=$pp&metric=command.throughput" | tail -n +3 >"$TMP/hj" &&
	python3 -c "import json,sys
d = json.load(open(sys.argv[1]))
assert [c[\"commit\"] for c in d[\"change_points\"]] == [sys.argv[2]], d[\"change_points\"]
assert all(len(p[\"samples\"]) == p[\"runs\"] for p in d[\"points\"])
" "$TMP/hj" "$(cat "$TMP/culprit")"
'

test_expect_success SERVING 'the bisection page: the samples of each commit, the culprit, the progress' '
	id=$(get "http://127.0.0.1:$port/api/bisections" | tail -n +3 | python3 -c "import json,sys; print([b for b in json.load(sys.stdin) if b[\"status\"] == \"found\"][0][\"id\"])") &&
	get "http://127.0.0.1:$port/bisections/$id" >"$TMP/b" &&
	[ "$(sed -n 1p "$TMP/b")" = 200 ] &&
	grep -q "<tr class=\"culprit\"><td><a href=\"/commit/$(cat "$TMP/culprit")\">" "$TMP/b" &&
	grep -q "4 of 4 commits have runs, 4 with samples of the metric" "$TMP/b" &&
	get "http://127.0.0.1:$port/bisections/99999" | head -1 | grep -qx 404
'

test_expect_success SERVING 'the report page: the mail as text (its subject line escaped), its delivery state' '
	get "http://127.0.0.1:$port/reports/1" >"$TMP/r" &&
	[ "$(sed -n 1p "$TMP/r")" = 200 ] &&
	grep -q "<title>\[lkprobot\] [0-9a-f]*: command.throughput -[0-9.]*% regression" "$TMP/r" &&
	grep -q "&lt;script&gt;alert(2)&lt;/script&gt;" "$TMP/r" &&
	! grep -q "<script" "$TMP/r" &&
	grep -q "<form method=\"post\" action=\"/api/reports/1/resend\">" "$TMP/r"
'

test_expect_success SERVING 'actions: refused without the token or with a wrong one; with it, done once and then refused' '
	[ "$(post "http://127.0.0.1:$port/api/reports/1/resend")" = 403 ] &&
	[ "$(post -H "Authorization: Bearer wrong-token-0123456789" "http://127.0.0.1:$port/api/reports/1/resend")" = 403 ] &&
	[ "$(post -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/api/reports/1/resend")" = 200 ] &&
	grep -q "\"ok\": true" "$TMP/post.out" &&
	[ "$(post -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/api/heads/1/cancel")" = 409 ] &&
	grep -q "not queued" "$TMP/post.out" &&
	[ "$(post -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/api/heads/1/explode")" = 404 ] &&
	tested=$(grep -c "\.\.[0-9a-f]*: $TMP/job.yaml$" "$TMP/serve.log") &&
	[ "$(post --data-urlencode "token=$TOKEN" "http://127.0.0.1:$port/api/heads/1/retest")" = 303 ] &&
	for i in $(seq 1 300); do
		lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" 2>/dev/null
		[ "$(grep -c "\.\.[0-9a-f]*: $TMP/job.yaml$" "$TMP/serve.log")" -gt "$tested" ] &&
			[ $(grep -c " done " "$TMP/st") = 2 ] && break
		sleep 0.2
	done &&
	cat "$TMP/serve.log" &&
	[ "$(grep -c "\.\.[0-9a-f]*: $TMP/job.yaml$" "$TMP/serve.log")" = $((tested + 1)) ] &&
	[ $(grep -c " done " "$TMP/st") = 2 ] &&
	[ "$(post -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$port/api/heads/99/retest")" = 409 ] &&
	head -c 8000 /dev/zero | tr "\0" a >"$TMP/big" &&
	[ "$(post --data-binary @"$TMP/big" "http://127.0.0.1:$port/api/heads/1/retest")" = 413 ]
'

test_expect_success SERVING 'result files as text; nothing outside the result root, however the path climbs' '
	f=$(cd "$TMP/res" && find . -type f -name command | head -1 | sed "s|^\./||") && [ -n "$f" ] &&
	get "http://127.0.0.1:$port/runs/$f" >"$TMP/f" &&
	[ "$(sed -n 1p "$TMP/f")" = 200 ] && sed -n 2p "$TMP/f" | grep -q "^text/plain" &&
	grep -q "^throughput: [0-9]" "$TMP/f" &&
	for p in "runs/../../../../etc/passwd" "runs/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd" "runs/..%2f..%2f..%2fetc/passwd"; do
		curl -s --path-as-is -o "$TMP/t" -w "%{http_code}" "http://127.0.0.1:$port/$p" >"$TMP/code" &&
		[ "$(cat "$TMP/code")" = 404 ] && ! grep -q "root:" "$TMP/t" || { echo "$p: $(cat "$TMP/code")"; exit 1; }
	done &&
	[ "$(curl -s -o /dev/null -w "%{http_code}" -X POST "http://127.0.0.1:$port/")" = 405 ]
'

code() { curl -s -m 20 -o /dev/null -w "%{http_code}" "$@"; }

test_expect_success SERVING 'HTTP: bad ids (1%00x is no id 1, a control character in no path) and too many query arguments are 400, actions only by POST, the stylesheet and icon served' '
	for u in bisections/99999999999999999999999 bisections/-1 reports/0 api/reports/x1 api/bisections/1.5 \
		api/reports/1%00x reports/1%00 api/bisections/1%00x api/reports/1%0ax "runs/a%1b%5b2Jb"; do
		[ "$(code "http://127.0.0.1:$port/$u")" = 400 ] || { echo "$u: not 400"; exit 1; }
	done &&
	many=$(python3 -c "print(\"&\".join(\"a%d=1\" % i for i in range(3000)))") &&
	[ "$(code "http://127.0.0.1:$port/?$many")" = 400 ] &&
	many=$(python3 -c "print(\"&\".join(\"a%d=1\" % i for i in range(600)))") &&
	[ "$(code "http://127.0.0.1:$port/?$many")" = 400 ] &&
	[ "$(code "http://127.0.0.1:$port/?a=1&b=2")" = 200 ] &&
	[ "$(code "http://127.0.0.1:$port/api/heads/1/retest")" = 405 ] &&
	curl -sI "http://127.0.0.1:$port/api/heads/1/retest" | tr -d "\r" | grep -qi "^allow: POST$" &&
	[ "$(code "http://127.0.0.1:$port/api/reports/1/resend")" = 405 ] &&
	curl -sI "http://127.0.0.1:$port/static/style.css" | tr -d "\r" | grep -qi "^content-type: text/css" &&
	[ "$(code "http://127.0.0.1:$port/favicon.ico")" = 200 ] &&
	curl -sI "http://127.0.0.1:$port/" | tr -d "\r" | grep -qi "^content-security-policy: default-src .none.; style-src .self."
'

test_expect_success SERVING 'result files: streamed (a big file does not grow the service), FIFOs refused, the store never served or listed' '
	mkfifo "$TMP/res/a-fifo" &&
	[ "$(code "http://127.0.0.1:$port/runs/a-fifo")" = 403 ] &&
	for f in lkprobot.db lkprobot.db-wal lkprobot.db-shm; do
		[ "$(code "http://127.0.0.1:$port/runs/$f")" = 404 ] || { echo "$f: not 404"; exit 1; }
	done &&
	curl -s "http://127.0.0.1:$port/runs/" >"$TMP/l" &&
	! grep -q "lkprobot.db\|a-fifo" "$TMP/l" && grep -q "href=\"/runs/command/\"" "$TMP/l" &&
	d=$(cd "$TMP/res" && dirname "$(find . -type f -name command | head -1)" | sed "s|^\./||") &&
	curl -s "http://127.0.0.1:$port/runs/$d/" >"$TMP/l" &&
	grep -q "href=\"/runs/$d/command\">" "$TMP/l" && ! grep -q "href=\"/runs/$d/command/\"" "$TMP/l" &&
	truncate -s 300M "$TMP/res/big.log" &&
	before=$(awk "/^VmRSS/ {print \$2}" /proc/$(cat "$TMP/spid")/status) &&
	for i in 1 2 3 4; do curl -s -o /dev/null -w "%{size_download}\n" "http://127.0.0.1:$port/runs/big.log" & done >"$TMP/sizes" &&
	wait &&
	[ "$(sort -u "$TMP/sizes")" = 314572800 ] &&
	peak=$(awk "/^VmHWM/ {print \$2}" /proc/$(cat "$TMP/spid")/status) &&
	echo "RSS before $before kB, peak $peak kB" &&
	[ $((peak - before)) -lt 150000 ] &&
	rm -f "$TMP/res/big.log" "$TMP/res/a-fifo"
'

chrome() {	# chrome URL: the DOM headless Chromium builds from the page
	HOME="$TMP" timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
		--user-data-dir="$(mktemp -d "$TMP/chromium.XXXXXX")" --dump-dom "$1" 2>>"$TMP/chromium.err"
}

test_expect_success SERVING,CHROMIUM 'headless Chromium renders the pages: tables, the chart, the script tags as text' '
	chrome "http://127.0.0.1:$port/" >"$TMP/dom" &&
	grep -q "(2 of 2 heads)</h2>" "$TMP/dom" &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$TMP/dom" &&
	! grep -q "<script" "$TMP/dom" &&
	chrome "http://127.0.0.1:$port/history?testcase=command&path_params=$(cat "$TMP/pp")&metric=command.throughput" >"$TMP/hdom" &&
	grep -q "<svg" "$TMP/hdom" && grep -q "<polyline class=\"series series-0\"" "$TMP/hdom" &&
	[ $(grep -o "<circle class=\"run series-0\"" "$TMP/hdom" | wc -l) -ge 6 ] &&
	chrome "http://127.0.0.1:$port/reports/1" >"$TMP/rdom" &&
	grep -q "&lt;script&gt;alert(2)&lt;/script&gt;" "$TMP/rdom" && ! grep -q "<script" "$TMP/rdom"
'

test_expect_success SERVING 'kept pages are made again when the store changes: a new head shows at once' '
	get "http://127.0.0.1:$port/api/heads" | tail -n +3 >"$TMP/h1" &&
	get "http://127.0.0.1:$port/api/heads" | tail -n +3 | cmp -s - "$TMP/h1" &&
	cd "$TMP/repo" && echo 4 >f && git commit -qam "four" && cd "$SRC" &&
	for i in $(seq 1 40); do
		get "http://127.0.0.1:$port/api/heads" | tail -n +3 >"$TMP/h2"
		python3 -c "import json,sys; sys.exit(len(json.load(open(sys.argv[1]))) != 3)" "$TMP/h2" && break; sleep 0.1
	done &&
	python3 -c "import json,sys; sys.exit(len(json.load(open(sys.argv[1]))) != 3)" "$TMP/h2"
'

test_expect_success SERVING 'a test box taken out of service shows on the overview, its reason escaped' '
	printf "boxes:\n  pmem1:\n    host: 10.0.0.5\n" >"$TMP/boxes.yaml" &&
	lkprobot box --boxes "$TMP/boxes.yaml" --db "$TMP/res/lkprobot.db" disable pmem1 --reason "<script>x</script> BMC gone" &&
	for i in $(seq 1 40); do
		get "http://127.0.0.1:$port/" >"$TMP/ob"; grep -q "<h2>Test boxes (ssh)</h2>" "$TMP/ob" && break; sleep 0.1
	done &&
	grep -q "<td>pmem1</td><td>out of service (lkprobot box enable)</td><td>0</td><td>&lt;script&gt;x&lt;/script&gt; BMC gone</td>" "$TMP/ob" &&
	get "http://127.0.0.1:$port/api/overview" | tail -n +3 | python3 -c "import json,sys
b = json.load(sys.stdin)[\"boxes\"]
assert b[0][\"name\"] == \"pmem1\" and b[0][\"in_service\"] == 0, b"
'

# The dashboard's process: the service's child named lkprobot-web (the service itself has one thread).
dashboard_pid() { ps -o pid=,comm= --ppid "$(cat "$TMP/spid")" | awk '$2 == "lkprobot-web" {print $1}'; }

# How many heads' tests have ended, by the service's log.
outcomes() { grep -c ": \(not-reproduced\|found\|no change\|bisect failed\|failed\)" "$TMP/serve.log"; }
# Commit heads 5, 6 and 7, each when the one before has been tested; print how many were (60 s each at most).
hammered_heads() {
	hh_ended=0
	for k in 5 6 7; do
		hh_n=$(outcomes)
		(cd "$TMP/repo" && echo "$k" >f && git commit -qam "hammered $k") || break
		for i in $(seq 1 300); do [ "$(outcomes)" -gt "$hh_n" ] && break; sleep 0.2; done
		[ "$(outcomes)" -gt "$hh_n" ] || break
		hh_ended=$((hh_ended + 1))
	done
	echo "$hh_ended"
}
hammer() { while [ -e "$TMP/hammer" ]; do get "http://127.0.0.1:$port/" >/dev/null; get "http://127.0.0.1:$port/api/heads" >/dev/null; done; }

test_expect_success SERVING 'the dashboard hammered while heads are tested: each head ends (its worker is forked from a service with one thread, the dashboard in a process of its own)' '
	spid=$(cat "$TMP/spid") &&
	[ "$(awk "/^Threads:/ {print \$2}" /proc/$spid/status)" = 1 ] &&
	[ -n "$(dashboard_pid)" ] &&
	: >"$TMP/hammer" && { hammer & hammer & } &&
	ended=$(hammered_heads) &&
	rm -f "$TMP/hammer" && wait &&
	echo "heads tested under the load: $ended of 3" && [ "$ended" = 3 ] &&
	[ "$(awk "/^Threads:/ {print \$2}" /proc/$spid/status)" = 1 ]
'

test_expect_success SERVING 'the dashboard'"'"'s process killed: said, started again, it answers' '
	d=$(dashboard_pid) && [ -n "$d" ] &&
	kill -KILL "$d" &&
	for i in $(seq 1 100); do grep -q "the dashboard.s process ended (killed by signal 9); started again" "$TMP/serve.log" && break; sleep 0.1; done &&
	grep -q "the dashboard.s process ended (killed by signal 9); started again" "$TMP/serve.log" &&
	[ "$(get "http://127.0.0.1:$port/api/heads" | head -1)" = 200 ] &&
	[ -n "$(dashboard_pid)" ] && [ "$(dashboard_pid)" != "$d" ]
'

test_expect_success SERVING 'serve --listen where the dashboard already listens, or on a name that is no address: exit 2, one line, nothing of it left running' '
	{ setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" --listen "127.0.0.1:$port" 2>"$TMP/err" & p2=$!; } &&
	rc=0 && { wait "$p2" || rc=$?; } &&
	[ "$rc" = 2 ] && wait_session_gone "$p2" &&
	one_line_error "^lkprobot: --listen 127.0.0.1:$port: cannot listen there: .*Address already in use$" &&
	expect_exit 2 "$LKPROBOT" serve -c "$TMP/robot.yaml" --listen "nowhere.invalid:$port" &&
	one_line_error "^lkprobot: --listen nowhere.invalid:$port: .nowhere.invalid.: "
'

test_expect_success SERVING 'SIGTERM: the service stops, and its dashboard with it' '
	d=$(dashboard_pid) && [ -n "$d" ] &&
	kill -TERM "$(cat "$TMP/spid")" &&
	for i in $(seq 1 50); do test_alive_ "$(cat "$TMP/spid")" || break; sleep 0.2; done &&
	! test_alive_ "$(cat "$TMP/spid")" && ! test_alive_ "$d" &&
	grep -q "stopped" "$TMP/serve.log" &&
	! get "http://127.0.0.1:$port/" 2>/dev/null
'

test_done

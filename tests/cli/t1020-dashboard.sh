#!/bin/sh
# The dashboard as a maintainer uses it, in a real browser: the service
# watches two trees that run the same job (one gets a 30 % regression, the
# other changes nothing) with serve.public_url set; headless Chromium
# (Debian's chromium, driven over the DevTools protocol by crawl.py) visits
# every page reachable from the overview and finds no console error, no CSP
# violation and no link answered 4xx/5xx; the overview names the culprit
# and its mail; the metric's history has one series a tree. From the mail:
# its url: line is the bisection's page, which links the compare and the
# history (two clicks). Commit pages for commits never measured and for
# the 10-digit prefix of a mail's subject; a bisection whose test ended
# without it says so; status --json, outbox -c, check-config of public_url.
# wall-clock limit: 1500 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3
test_need_cmd curl curl
test_need_cmd chromium chromium

port=$((20000 + ($$ + 29) % 20000))
PY=/usr/bin/python3
# the service, started with setsid: SIGTERM, then whatever of its session is left
test_at_exit 'spid=$(cat "$TMP/spid" 2>/dev/null); [ -z "$spid" ] || { stop_pid "$spid"; stop_session KILL "$spid"; }'
test_log "$TMP/serve.log"
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
url=http://127.0.0.1:$port
get() { curl -s -m 30 "$@"; }
code() { curl -s -m 30 -o /dev/null -w "%{http_code}" "$@"; }
log_on_failure() { echo "the service's log:"; tail -n 30 "$TMP/serve.log"; }
wait_done() {	# wait_done N: until N heads are done (5 minutes at most)
	for i in $(seq 1 1500); do
		lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" 2>/dev/null
		[ "$(grep -c " done " "$TMP/st")" -ge "$1" ] && return 0
		sleep 0.2
	done
	cat "$TMP/st"; log_on_failure; return 1
}

test_expect_success 'setup: two trees running one job, a regression in one, the service with its dashboard and public_url' '
	for tree in mainline next; do
		git init -q "$TMP/$tree" && (cd "$TMP/$tree" &&
		git config user.email "dev@$tree.example.org" && git config user.name "Dev $tree" &&
		cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
		if [ $tree = mainline ]; then echo 100 >speed; else echo 200 >speed; fi &&
		git add -A && git commit -qm "$tree: base" &&
		echo 1 >f && git add -A && git commit -qm "$tree: one") || exit 1
	done &&
	branch=$(git -C "$TMP/mainline" symbolic-ref --short HEAD) &&
	# a 5 % floor: a head that changes nothing is "no change" (its interval within it) in a few rounds of 2 % noise
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	echo 0123456789abcdef-web-token >"$TMP/token" &&
	write_serve_conf "$TMP/robot.yaml" serve.poll=1 serve.web_token_file="$TMP/token" serve.public_url="$url/" \
		serve.lkprobot_url=https://git.example.org/lkprobot.git tree.name=mainline tree.path="$TMP/mainline" \
		tree2.name=next tree2.path="$TMP/next" &&
	lkprobot check-config -c "$TMP/robot.yaml" &&
	{ setsid "$LKPROBOT" serve -c "$TMP/robot.yaml" --listen "127.0.0.1:$port" 2>"$TMP/serve.log" & echo $! >"$TMP/spid"; } &&
	wait_done 2 &&
	(cd "$TMP/mainline" && echo 2 >f && git commit -qam "mm: two" &&
	 echo 70 >speed && git commit -qam "mm: slow down the page allocator" &&
	 echo 3 >f && git commit -qam "mm: three") &&
	(cd "$TMP/next" && echo 2 >f && git commit -qam "next: two") &&
	wait_done 4 &&
	grep -q "regression, culprit" "$TMP/st" &&
	git -C "$TMP/mainline" rev-parse HEAD~1 >"$TMP/culprit"
'

test_expect_success 'the crawler finds what it must: an inline style under the CSP, a console error, a broken link' '
	timeout 300 $PY "$SRC/tests/cli/crawl.py" --selftest --workdir "$TMP/selftest"
'

test_expect_success 'Chromium visits every page reachable from the overview: no console error, no CSP violation, no 4xx/5xx' '
	mail_subject=$(lkprobot outbox -c "$TMP/robot.yaml" show 1 | tr -d "\r" | sed -n "s/^Subject: //p" | head -1) &&
	[ -n "$mail_subject" ] &&
	if ! timeout 900 $PY "$SRC/tests/cli/crawl.py" --max-pages 4000 --workdir "$TMP/crawl" --shots "$TMP/shots" --report "$TMP/pages.json" \
		--expect-text "mm: slow down the page allocator" --expect-text "$mail_subject" \
		--expect-text "found" --expect-text "no change" "$url/" >"$TMP/crawl.out" 2>&1; then
		cat "$TMP/crawl.out"; shots=/tmp/lkp-t1020-shots.$$ && cp -r "$TMP/shots" "$shots" &&
		echo "screenshots of the pages with problems: $shots"; log_on_failure; exit 1
	fi &&
	cat "$TMP/crawl.out" &&
	$PY -c "import json, sys
pages = json.load(open(sys.argv[1]))
html = [p for p in pages if p[\"type\"].startswith(\"text/html\")]
assert len(html) >= 20, len(html)
kinds = {k: any(k in p[\"url\"] for p in html) for k in (\"/commit/\", \"/compare?\", \"/history?\", \"/bisections/\", \"/reports/\", \"/runs/\")}
assert all(kinds.values()), kinds
assert all(str(p.get(\"styled\")).startswith(\"system-ui\") for p in html), [p.get(\"styled\") for p in html][:3]
# the history of the job s metric: one series a tree (two), one when narrowed to a tree
hist = [p for p in html if \"metric=command.throughput\" in p[\"url\"]]
assert hist, \"no history page of command.throughput reached\"
for p in hist:
    want = 1 if \"tree=\" in p[\"url\"] else 2
    assert p[\"svg\"] == 1 and p[\"series\"] == want, (p[\"url\"], p[\"series\"])
" "$TMP/pages.json"
'

test_expect_success 'from the mail: its url: line is the bisection page, which links the compare and the metric history' '
	lkprobot outbox -c "$TMP/robot.yaml" show 1 >"$TMP/mail" &&
	bis=$(sed -n "s|^url: \($url/bisections/[0-9]*\)\r*$|\1|p" "$TMP/mail") &&
	[ -n "$bis" ] &&
	tr -d "\r" <"$TMP/mail" >"$TMP/mail.lf" &&
	grep -qx "| Closes: $bis" "$TMP/mail.lf" &&
	grep -qx "| Reported-by: kernel test robot <lkp@example.org>" "$TMP/mail.lf" &&
	grep -qx "        git clone https://git.example.org/lkprobot.git lkprobot" "$TMP/mail.lf" &&
	get "$bis" >"$TMP/bpage" &&
	grep -q "<span class=\"state state-found\">found</span>" "$TMP/bpage" &&
	cmp=$(grep -o "<a href=\"/compare?[^\"]*\">compare the culprit with its parent</a>" "$TMP/bpage" | sed "s/.*href=\"\([^\"]*\)\".*/\1/; s/&amp;/\&/g") &&
	hist=$(grep -o "<a href=\"/history?[^\"]*\">the history of command.throughput</a>" "$TMP/bpage" | sed "s/.*href=\"\([^\"]*\)\".*/\1/; s/&amp;/\&/g") &&
	[ -n "$cmp" ] && [ -n "$hist" ] &&
	get "$url$cmp" | grep -q "<tr class=\"regression\"><td><a href=\"/history?[^\"]*metric=command.throughput\"" &&
	get "$url$hist" | grep -q "<line class=\"change\"" &&
	grep -q "mm: slow down the page allocator" "$TMP/bpage"
'

test_expect_success 'commit pages: the 10-digit prefix of the mail subject, and a commit of the tree never measured' '
	c10=$(cut -c1-10 "$TMP/culprit") &&
	get "$url/commit/$c10" >"$TMP/c" &&
	grep -q "$(cat "$TMP/culprit")" "$TMP/c" && grep -q "culprit</span>" "$TMP/c" &&
	grep -q "href=\"/reports/1\"" "$TMP/c" &&
	(cd "$TMP/mainline" && git checkout -qb side && echo x >g && git add g && git commit -qm "side: never measured" &&
	 git checkout -q -) &&
	side=$(git -C "$TMP/mainline" rev-parse side) &&
	get "$url/commit/$(echo "$side" | cut -c1-7)" >"$TMP/c" &&
	grep -q "side: never measured" "$TMP/c" && grep -q "No run of this commit yet" "$TMP/c" &&
	grep -q "Dev mainline" "$TMP/c" &&
	[ "$(code "$url/commit/0000000")" = 404 ]
'

test_expect_success 'the overview by tree: only that tree; a bisection whose test ended without it is stopped, not running' '
	get "$url/?tree=next" >"$TMP/o" &&
	grep -q "<h2>next · " "$TMP/o" && ! grep -q "<h2>mainline · " "$TMP/o" &&
	q=$(printf "\047") &&
	id=$(sqlite3 "$TMP/res/lkprobot.db" "INSERT INTO bisections(tree, good, bad, job, overrides, provider,
		first_parent, status, created, updated) SELECT ${q}$TMP/next${q}, base, head, ${q}job.yaml${q}, ${q}${q},
		${q}local${q}, 0, ${q}running${q}, 1, 1 FROM heads WHERE tree = ${q}next${q} ORDER BY id LIMIT 1 RETURNING id") &&
	[ -n "$id" ] &&
	get "$url/bisections/$id" >"$TMP/b" &&
	grep -q "<span class=\"state state-stopped\">stopped</span>" "$TMP/b" &&
	! grep -q "http-equiv=\"refresh\"" "$TMP/b"
'

test_expect_success 'status --json: the heads, each result as data; outbox -c finds the service store; an empty one says so' '
	lkprobot status -c "$TMP/robot.yaml" --json >"$TMP/sj" &&
	$PY -c "import json, sys
h = json.load(open(sys.argv[1]))
assert len(h) == 4 and all(isinstance(x[\"result\"], list) for x in h), h
assert [j[\"bisect\"] for x in h for j in x[\"result\"]].count(\"found\") == 1
" "$TMP/sj" &&
	lkprobot outbox -c "$TMP/robot.yaml" list | grep -q "^1 queued" &&
	sed "s|result_root: .*|result_root: $TMP/empty|" "$TMP/robot.yaml" >"$TMP/empty.yaml" &&
	mkdir -p "$TMP/empty" && lkprobot status -c "$TMP/empty.yaml" >"$TMP/se" &&
	grep -q "^no heads yet" "$TMP/se" && [ "$(lkprobot status -c "$TMP/empty.yaml" --json)" = "[]" ] &&
	lkprobot outbox -c "$TMP/empty.yaml" list >"$TMP/e" &&
	grep -q "is empty" "$TMP/e"
'

test_expect_success 'check-config: serve.public_url must be an http(s) URL, serve.lkprobot_url one word (file:line:col, exit 2)' '
	sed "s|public_url: .*|public_url: ftp://lkp.example.org/|" "$TMP/robot.yaml" >"$TMP/bad.yaml" &&
	expect_exit 2 "$LKPROBOT" check-config -c "$TMP/bad.yaml" &&
	one_line_error "bad.yaml:[0-9]+:[0-9]+: serve.public_url: .*http:// or https://" &&
	sed "s|lkprobot_url: .*|lkprobot_url: \"x; rm -rf /\"|" "$TMP/robot.yaml" >"$TMP/bad2.yaml" &&
	expect_exit 2 "$LKPROBOT" check-config -c "$TMP/bad2.yaml" &&
	one_line_error "bad2.yaml:[0-9]+:[0-9]+: serve.lkprobot_url: must be a URL git can clone lkprobot from"
'

test_expect_success 'SIGTERM: the service stops' '
	kill -TERM "$(cat "$TMP/spid")" &&
	for i in $(seq 1 50); do kill -0 "$(cat "$TMP/spid")" 2>/dev/null || break; sleep 0.2; done &&
	! kill -0 "$(cat "$TMP/spid")" 2>/dev/null
'

test_done

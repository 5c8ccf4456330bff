#!/bin/sh
# The service on a mailing list: a real public-inbox v2 archive (made by
# public-inbox-init -V2, fed by public-inbox-mda) gets a 3-patch series
# with a cover letter and base-commit: on a tree whose `command` benchmark
# its patch 2 makes 30 % slower. One pass of `serve --once` applies it in
# serve.series_repo on 0-day's branch, tests its head against its base
# like a pushed head, bisects to patch 2, and queues a report in reply to
# the cover letter naming patch 2, whose url: is the branch, fetchable.
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serieslib.sh"
test_need_cmd public-inbox-mda public-inbox

# libgit2's fetch leaks inside libpcre2 (tests/lsan.supp, as make check runs it)
LSAN_OPTIONS="suppressions=$SRC/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS HOME="$TMP/home" PI_CONFIG="$TMP/pi-config" BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02
A="$TMP/nvdimm"
port=$((20000 + ($$ + 71) % 20000))
test_need_cmd curl curl
test_prereq_cmd CHROMIUM chromium chromium
# the service of the last test, started with setsid: SIGTERM, then whatever of its session is left
test_at_exit 'spid=$(cat "$TMP/spid" 2>/dev/null); [ -z "$spid" ] || { stop_pid "$spid"; stop_session KILL "$spid"; }'

test_expect_success 'setup: a tree with a command benchmark, a series whose patch 2 makes it slower, an archive' '
	series_slow_repo && cd "$TMP/repo" &&
	sed -i "/^To: /a Cc: Ross Zwisler <ross@example.org>, \"Mail, Some\" <some@example.org>" "$TMP/s1/0000-cover-letter.patch" &&
	sed -i "/^To: /a Cc: Vishal Verma <vishal@example.org>" "$TMP/s1/0002-slow-the-slow-path.patch" &&
	sed -i "/^To: /a Cc: Not Here <third@example.org>" "$TMP/s1/0003-c-add-c.patch" &&
	git checkout -q master && cd "$SRC" &&
	public-inbox-init -V2 nvdimm "$A" http://example.org/nvdimm nvdimm@lists.example.org &&
	git config -f "$PI_CONFIG" publicinboxmda.spamcheck none &&
	for f in "$TMP"/s1/*.patch; do
		ORIGINAL_RECIPIENT=nvdimm@lists.example.org public-inbox-mda --no-precheck <"$f" || exit 1
	done &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\nchange_floor:\n  command.throughput: 5%%\n" >"$TMP/job.yaml" &&
	branch=master &&
	write_serve_conf "$TMP/robot.yaml" "serve.series_url=file://$TMP/series.git" "serve.series_repo=$TMP/series.git" &&
	printf "  lists:\n    - name: nvdimm\n      archive: %s\n      tree: demo\n      url: https://lore.example.org/nvdimm\n      address: nvdimm@lists.example.org\n" "$A" >"$TMP/lists" &&
	sed -i "/^  trees:/e cat $TMP/lists" "$TMP/robot.yaml" &&
	lkprobot check-config -c "$TMP/robot.yaml"
'

test_expect_success 'serve --once: the series applied, its head tested against its base, bisected to patch 2' '
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/serve.out" 2>&1; echo "exit $?" >>"$TMP/serve.out"; } &&
	cat "$TMP/serve.out" && grep -q "^exit 0$" "$TMP/serve.out" &&
	grep -q "nvdimm: 4 mails read: 1 series, 0 ignored, 0 refused$" "$TMP/serve.out" &&
	b=$(sed -n "s/.*nvdimm: series \"speed: a slow path\" v1 applied: \([^ ]*\) (3 patches on .*, its base-commit:)$/\1/p" "$TMP/serve.out") &&
	case $b in Dan-Williams/speed-a-slow-path/[0-9]*-[0-9]*) ;; *) false ;; esac &&
	echo "$b" >"$TMP/branch" &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/status" && cat "$TMP/status" &&
	grep -q "^nvdimm $b .*regression, culprit $(git -C "$TMP/series.git" rev-parse "$b~1" | cut -c1-12)" "$TMP/status"
'

test_expect_success 'the report: in reply to the cover letter, naming patch 2, its url: the branch, which git fetches' '
	b=$(cat "$TMP/branch") &&
	id=$(lkprobot outbox -c "$TMP/robot.yaml" | sed -n "1s/^\([0-9]*\) .*/\1/p") &&
	lkprobot outbox -c "$TMP/robot.yaml" show "$id" >"$TMP/wire" && tr -d "\r" <"$TMP/wire" >"$TMP/mail" &&
	cover=$(sed -n "s/^Message-I[dD]: \(<.*>\)$/\1/p" "$TMP/s1/0000-cover-letter.patch") &&
	grep -q "^In-Reply-To: $cover$" "$TMP/mail" && grep -q "^References: $cover$" "$TMP/mail" &&
	grep -q "^To: Dan Williams <dan.j.williams@intel.com>$" "$TMP/mail" &&
	sed -n "/^Cc:/,/^[^ \t]/p" "$TMP/mail" | sed "\$d" | tr -d "\n" >"$TMP/cc" && cat "$TMP/cc" && echo &&
	test "$(cat "$TMP/cc")" = "Cc: nvdimm@lists.example.org, Ross Zwisler <ross@example.org>, \"Mail, Some\" <some@example.org>, Vishal Verma <vishal@example.org>" &&
	grep -q "^commit: [0-9a-f]* (\"slow: the slow path\")$" "$TMP/mail" &&
	grep -q "^base: the series. base-commit: $(git -C "$TMP/repo" rev-parse master)$" "$TMP/mail" &&
	grep -q "file://$TMP/series.git $b" "$TMP/mail" &&
	git clone -q --branch "$b" "file://$TMP/series.git" "$TMP/clone" && test -f "$TMP/clone/slow"
'

test_expect_success 'a v2 that fixes it: read alone at the next pass, tested, no change; one that does not apply: recorded, no mail' '
	cd "$TMP/repo" && git checkout -qb topic2 master &&
	echo a >a && git add a && git commit -qm "a: add a" &&
	echo c >c && git add c && git commit -qm "c: add c" &&
	git format-patch -q --thread --cover-letter --base=master -2 -v2 -o "$TMP/s2" --to=nvdimm@lists.example.org &&
	sed -i "s/\*\*\* SUBJECT HERE \*\*\*/speed: a slow path/" "$TMP/s2/v2-0000-cover-letter.patch" &&
	git checkout -qb other master && echo x >one && git commit -qam "one: x" &&
	git format-patch -q -1 -o "$TMP/s3" --to=nvdimm@lists.example.org &&
	git checkout -q master && git branch -qD other && cd "$SRC" &&
	sed -i "s/^-1$/-2/; s/^+x$/+y/" "$TMP"/s3/*.patch &&
	for f in "$TMP"/s2/*.patch "$TMP"/s3/*.patch; do
		ORIGINAL_RECIPIENT=nvdimm@lists.example.org public-inbox-mda --no-precheck <"$f" || exit 1
	done &&
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/serve2.out" 2>&1; echo "exit $?" >>"$TMP/serve2.out"; } &&
	cat "$TMP/serve2.out" && grep -q "^exit 0$" "$TMP/serve2.out" &&
	grep -q "nvdimm: 4 mails read: 2 series, 0 ignored, 0 refused$" "$TMP/serve2.out" &&
	! grep -q "v1 applied" "$TMP/serve2.out" &&
	grep -q "nvdimm: series \"speed: a slow path\" v2 applied: Dan-Williams/speed-a-slow-path/[0-9-]* (2 patches on " "$TMP/serve2.out" &&
	grep -q "nvdimm: series \"one: x\" v1 does not apply: patch 1/1 (one: x) does not apply: " "$TMP/serve2.out" &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/status2" && cat "$TMP/status2" &&
	grep -q "^nvdimm Dan-Williams/speed-a-slow-path/.* done — job.yaml: no change" "$TMP/status2" &&
	grep -q "^nvdimm: series \"one: x\" v1 by [^ ]* does not apply: patch 1/1 (one: x) does not apply: one: hunk #1 (@@ -1 +1 @@) does not apply on [0-9a-f]\{12\}$" "$TMP/status2" &&
	test "$(lkprobot outbox -c "$TMP/robot.yaml" | grep -c "^[0-9]")" = 1
'

test_expect_success 'serve.lists[].mail_not_applied: its author gets a one-line notice in reply to the patch, once (a dry run here)' '
	cd "$TMP/repo" && git checkout -qb other2 master && echo z >one &&
	git commit -qam "one: z" --author="Jane Doe <jane@example.org>" &&
	git format-patch -q -1 -o "$TMP/s4" --to=nvdimm@lists.example.org && git checkout -q master && git branch -qD other2 &&
	cd "$SRC" && p=$(echo "$TMP"/s4/*.patch) && sed -i "s/^-1$/-3/" "$p" &&
	ORIGINAL_RECIPIENT=nvdimm@lists.example.org public-inbox-mda --no-precheck <"$p" &&
	sed -i "/^      address: nvdimm@lists.example.org$/a \      mail_not_applied: true" "$TMP/robot.yaml" &&
	lkprobot check-config -c "$TMP/robot.yaml" &&
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/serve4.out" 2>&1; echo "exit $?" >>"$TMP/serve4.out"; } &&
	cat "$TMP/serve4.out" && grep -q "^exit 0$" "$TMP/serve4.out" &&
	grep -q "nvdimm: series \"one: z\" v1: the notice to its author queued 2 <.*> for 1 envelope recipient (a dry run: the operator)$" "$TMP/serve4.out" &&
	lkprobot outbox -c "$TMP/robot.yaml" show 2 | tr -d "\r" >"$TMP/notice" && cat "$TMP/notice" &&
	id=$(git -C "$A/git/0.git" show HEAD:m | sed -n "s/^Message-I[dD]: \(<.*>\)$/\1/p") && [ -n "$id" ] &&
	grep -q "^To: Jane Doe <jane@example.org>$" "$TMP/notice" &&
	grep -q "^Subject: Re: \[PATCH\] one: z$" "$TMP/notice" &&
	grep -q "^In-Reply-To: $id$" "$TMP/notice" &&
	grep -q "^X-lkprobot-Dry-Run: " "$TMP/notice" &&
	sed "1,/^$/d" "$TMP/notice" >"$TMP/notice.body" &&
	test "$(grep -c . "$TMP/notice.body")" = 1 &&
	grep -q "^lkprobot could not test this series: patch 1/1 (one: z) does not apply: one: hunk #1 (@@ -1 +1 @@) does not apply on $(git -C "$TMP/repo" rev-parse --short=12 master) (the base: the head of the list.s branch at the series. date).$" "$TMP/notice.body" &&
	{ lkprobot serve -c "$TMP/robot.yaml" --once >"$TMP/serve5.out" 2>&1 || { cat "$TMP/serve5.out"; false; }; } &&
	! grep -q "notice" "$TMP/serve5.out" &&
	test "$(lkprobot outbox -c "$TMP/robot.yaml" | grep -c "^[0-9]")" = 2
'

test_expect_success 'the series repository over the dashboard (git dumb HTTP): git clone and fetch take it, nothing else is served' '
	b=$(cat "$TMP/branch") && sed "/series_url:/d" "$TMP/robot.yaml" >"$TMP/robot2.yaml" &&
	{ setsid "$LKPROBOT" serve -c "$TMP/robot2.yaml" --listen 127.0.0.1:$port 2>"$TMP/serve3.log" & echo $! >"$TMP/spid"; } &&
	for i in $(seq 1 300); do grep -q "the series are at" "$TMP/serve3.log" && break; sleep 0.1; done &&
	cat "$TMP/serve3.log" &&
	grep -q "the series are at http://127.0.0.1:$port/git/series.git (git clone takes it; serve.series_url)$" "$TMP/serve3.log" &&
	{ git clone -q "http://127.0.0.1:$port/git/series.git" "$TMP/http-clone" 2>"$TMP/clone.err" || { cat "$TMP/clone.err"; false; }; } &&
	git -C "$TMP/http-clone" fetch -q origin "$b" &&
	test "$(git -C "$TMP/http-clone" rev-parse FETCH_HEAD)" = "$(git -C "$TMP/series.git" rev-parse "$b")" &&
	git -C "$TMP/http-clone" checkout -q FETCH_HEAD && test -f "$TMP/http-clone/slow" &&
	git -C "$TMP/http-clone" ls-remote origin >"$TMP/ls" && grep -q "refs/heads/$b$" "$TMP/ls" &&
	for p in ../lkprobot.db ../../etc/passwd config objects/../config objects/info/../../config info/refs/../HEAD; do
		code=$(curl -s --path-as-is -o /dev/null -w "%{http_code}" "http://127.0.0.1:$port/git/series.git/$p") &&
		echo "$p: $code" && test "$code" = 404 || exit 1
	done
'

test_expect_success 'the series page: each series with its head'"'"'s outcome, its branch, bisection, report and mail' '
	b=$(cat "$TMP/branch") && cover=$(sed -n "s/^Message-I[dD]: <\(.*\)>$/\1/p" "$TMP/s1/0000-cover-letter.patch") &&
	curl -s "http://127.0.0.1:$port/api/series?list=nvdimm" >"$TMP/series.json" &&
	python3 -c "import json,sys
rows = json.load(open(sys.argv[1]))
assert [r[\"id\"] for r in rows] == sorted((r[\"id\"] for r in rows), reverse=True), rows
by = {(r[\"subject\"], r[\"version\"]): r for r in rows}
r = by[(\"speed: a slow path\", 1)]
assert r[\"branch\"] == sys.argv[2] and r[\"state\"] == \"applied\" and r[\"author\"] == \"dan.j.williams@intel.com\", r
o = r[\"outcome\"]
assert o[\"state\"] == \"found\" and o[\"kind\"] == \"regression\", o
assert o[\"change\"].startswith(\"command.throughput -\") and \"interval\" in o[\"change\"], o
assert o[\"culprit\"][\"subject\"] == \"slow: the slow path\" and o[\"bisection\"] > 0 and o[\"mail\"][\"id\"] == 1, o
assert r[\"mail_url\"] == \"https://lore.example.org/nvdimm/\" + sys.argv[3], r
assert r[\"fetch\"] == \"git fetch http://127.0.0.1:%s/git/series.git %s\" % (sys.argv[4], sys.argv[2]), r
v2 = by[(\"speed: a slow path\", 2)][\"outcome\"]
assert v2[\"state\"] == \"no change\", v2
x = by[(\"one: x\", 1)]
assert x[\"outcome\"][\"state\"] == \"does not apply\" and \"one: hunk #1 (@@ -1 +1 @@)\" in x[\"outcome\"][\"reason\"], x
assert \"head\" not in x or not x[\"head\"], x
" "$TMP/series.json" "$b" "$cover" "$port" &&
	curl -s "http://127.0.0.1:$port/api/series?limit=1" >"$TMP/one.json" &&
	python3 -c "import json,sys; rows = json.load(open(sys.argv[1])); assert len(rows) == 1 and rows[0][\"list\"] == \"nvdimm\", rows" "$TMP/one.json" &&
	test "$(curl -s -o /dev/null -w "%{http_code}" "http://127.0.0.1:$port/api/series?limit=0")" = 400 &&
	curl -s "http://127.0.0.1:$port/series?list=nvdimm" >"$TMP/series.html" &&
	grep -q "<td class=\"subject\">speed: a slow path</td><td>v1</td>" "$TMP/series.html" &&
	grep -q "state-found\">found</span> <span class=\"state state-regression\">regression</span> <span class=\"change\">command.throughput -" "$TMP/series.html" &&
	grep -q "state-no-change\">no change</span>" "$TMP/series.html" &&
	grep -q "state-does-not-apply\">does not apply</span>" "$TMP/series.html" &&
	grep -q "<a href=\"/commit/$(git -C "$TMP/series.git" rev-parse "$b")\">$b</a><br><code>git fetch http://127.0.0.1:$port/git/series.git $b</code>" "$TMP/series.html" &&
	grep -q "<a href=\"/bisections/[0-9]*\">bisection</a>" "$TMP/series.html" &&
	grep -q "<a href=\"/reports/1\">report</a>" "$TMP/series.html" &&
	grep -q "<a href=\"/series\">series</a>" "$TMP/series.html"
'

test_expect_success CHROMIUM 'Chromium from the series page: no console error, no CSP violation, no 4xx/5xx' '
	if ! timeout 300 /usr/bin/python3 "$SRC/tests/cli/crawl.py" --max-pages 200 --depth 1 --workdir "$TMP/crawl" --shots "$TMP/shots" \
		--report "$TMP/pages.json" --expect-text "speed: a slow path" --expect-text "does not apply" \
		"http://127.0.0.1:$port/series" >"$TMP/crawl.out" 2>&1; then
		cat "$TMP/crawl.out"; tail -n 30 "$TMP/serve3.log"; exit 1
	fi &&
	cat "$TMP/crawl.out" &&
	/usr/bin/python3 -c "import json, sys
html = [p[\"url\"] for p in json.load(open(sys.argv[1])) if p[\"type\"].startswith(\"text/html\")]
kinds = {k: any(k in u for u in html) for k in (\"/commit/\", \"/bisections/\", \"/reports/\")}
assert all(kinds.values()), (kinds, html)" "$TMP/pages.json"
'

test_done

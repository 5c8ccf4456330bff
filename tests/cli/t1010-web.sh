#!/bin/sh
# The dashboard of `lkprobot serve --listen`: the overview (heads, outcomes,
# report mails) and the JSON behind it, the result roots' files; a tree
# named like a script tag shows as text, and paths that climb out of the
# result root find nothing. Drawn by headless Chromium (Debian's chromium)
# as a reader's browser would.
. "$(dirname "$0")/lib.sh"

port=$((20000 + ($$ + 13) % 20000))
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
trap '[ -s "$TMP/spid" ] && kill "$(cat "$TMP/spid")" 2>/dev/null; rm -rf "$TMP"' EXIT
get() { "/usr/bin/python3" -c "import sys, urllib.request, urllib.error
try:
    r = urllib.request.urlopen(sys.argv[1], timeout=10); print(r.status); print(r.headers.get(\"Content-Type\")); sys.stdout.write(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.headers.get(\"Content-Type\")); sys.stdout.write(e.read().decode())
" "$1"; }

test_expect_success 'setup: a repository, its first head tested, the service serving the dashboard' '
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name Dev &&
	printf "echo \"score: 42\"\n" >bench.sh && git add -A && git commit -qm base &&
	echo 1 >f && git add -A && git commit -qm "one" && cd "$SRC" &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	printf "suite: command\ntestcase: command\ncommand:\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	cat >"$TMP/robot.yaml" <<-EOF &&
	serve:
	  result_root: $TMP/res
	  cache: $TMP/cache
	  poll: 1
	  trees:
	    - name: "<script>alert(1)</script>"
	      path: $TMP/repo
	      branches: [$branch]
	      jobs: [$TMP/job.yaml]
	EOF
	"$LKPROBOT" serve -c "$TMP/robot.yaml" --listen 127.0.0.1:$port 2>"$TMP/serve.log" &
	spid=$! && echo $spid >"$TMP/spid" &&
	for i in $(seq 1 150); do
		lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" 2>/dev/null; grep -q " done " "$TMP/st" && break; sleep 0.2
	done &&
	grep -q " done " "$TMP/st"
'

test_expect_success 'the overview: heads and outcomes, the tree name escaped, no script anywhere' '
	get "http://127.0.0.1:$port/" >"$TMP/o" &&
	[ "$(sed -n 1p "$TMP/o")" = 200 ] &&
	sed -n 2p "$TMP/o" | grep -q "^text/html" &&
	grep -q "<h2>Heads tested (1)</h2>" "$TMP/o" &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$TMP/o" &&
	! grep -q "<script" "$TMP/o" &&
	grep -q "not-reproduced" "$TMP/o"
'

test_expect_success '/api/heads: the same as JSON' '
	get "http://127.0.0.1:$port/api/heads" | tail -n +3 >"$TMP/j" &&
	python3 -c "import json,sys
h = json.load(open(sys.argv[1]))
assert len(h) == 1 and h[0][\"status\"] == \"done\" and h[0][\"tree\"] == \"<script>alert(1)</script>\", h
" "$TMP/j"
'

test_expect_success 'result files as text; nothing outside the result root, however the path climbs' '
	f=$(cd "$TMP/res" && find . -type f -name command | head -1 | sed "s|^\./||") && [ -n "$f" ] &&
	get "http://127.0.0.1:$port/runs/$f" >"$TMP/f" &&
	[ "$(sed -n 1p "$TMP/f")" = 200 ] && sed -n 2p "$TMP/f" | grep -q "^text/plain" &&
	grep -q "^score: 42" "$TMP/f" &&
	for p in "runs/../../../../etc/passwd" "runs/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd" "runs/..%2f..%2f..%2fetc/passwd"; do
		curl -s --path-as-is -o "$TMP/t" -w "%{http_code}" "http://127.0.0.1:$port/$p" >"$TMP/code" &&
		[ "$(cat "$TMP/code")" = 404 ] && ! grep -q "root:" "$TMP/t" || { echo "$p: $(cat "$TMP/code")"; exit 1; }
	done &&
	[ "$(curl -s -o /dev/null -w "%{http_code}" -X POST "http://127.0.0.1:$port/")" = 405 ]
'

test_expect_success 'headless Chromium renders the overview: the table is there, the script tag is text' '
	[ -n "$CHROMIUM" ] || { echo "chromium is not installed (Debian package chromium)"; exit 1; } &&
	HOME="$TMP" timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
		--dump-dom "http://127.0.0.1:$port/" >"$TMP/dom" 2>"$TMP/chromium.err" &&
	grep -q "<h2>Heads tested (1)</h2>" "$TMP/dom" &&
	grep -q "&lt;script&gt;alert(1)&lt;/script&gt;" "$TMP/dom" &&
	! grep -q "<script" "$TMP/dom"
'

test_expect_success 'SIGTERM: the service stops' '
	kill -TERM "$(cat "$TMP/spid")" &&
	for i in $(seq 1 50); do kill -0 "$(cat "$TMP/spid")" 2>/dev/null || break; sleep 0.2; done &&
	! kill -0 "$(cat "$TMP/spid")" 2>/dev/null &&
	grep -q "stopped" "$TMP/serve.log"
'

test_done

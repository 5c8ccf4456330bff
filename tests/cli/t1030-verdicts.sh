#!/bin/sh
# Verdicts a maintainer can believe (issue 17): `lkprobot serve` on a real
# git tree with the `command` benchmark (tests/fixtures/command/bench.sh)
# on a machine that drifts (+-6 % over 8 runs, as a box whose load comes
# and goes) and a real SMTP server (aiosmtpd): heads that change nothing
# send nothing; a -30 % regression whose runs include one outlier (which
# breaks lkp-tests' range separation) is mailed all the same, with the
# decision in the "how sure" paragraph; a head that does not build is
# recorded as build_failed with its first error line, and the regression
# behind it is still found against the last head that was measured.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
port=$((20000 + ($$ + 11) % 20000))
export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02 BENCH_DRIFT=0.06 BENCH_PERIOD=8

# on failure, the SMTP server's log before it goes
trap '[ -n "$KEEP" ] && cp -r "$TMP" /tmp/keep-t1020; if [ -s "$TMP/smtpd.pid" ]; then [ "$FAILED" = 0 ] || cat "$TMP/smtpd.log"; kill "$(cat "$TMP/smtpd.pid")" 2>/dev/null; fi; rm -rf "$TMP"' EXIT

commit() {	# commit MESSAGE [FILE CONTENT]...
	msg=$1
	shift
	while [ $# -ge 2 ]; do
		printf '%s\n' "$2" >"$TMP/repo/$1"
		shift 2
	done
	git -C "$TMP/repo" add -A && git -C "$TMP/repo" commit -qm "$msg"
}
sha() { git -C "$TMP/repo" log --format=%H --grep="^$1\$"; }
serve() { lkprobot serve -c "$TMP/robot.yaml" --once; }
mails() { ls "$TMP/spool" | wc -l; }

test_expect_success 'setup: a repository, a drifting benchmark, an SMTP server, the configuration' '
	git init -q "$TMP/repo" && git -C "$TMP/repo" config user.email dev@example.org &&
	git -C "$TMP/repo" config user.name "A Developer" &&
	cp "$SRC/tests/fixtures/command/bench.sh" "$TMP/repo/bench.sh" &&
	commit base Makefile "$(printf "all:\n\t@true")" speed 100 README "a project" &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	mkdir -p "$TMP/spool" &&
	{ "$PY" "$SRC/tests/fixtures/smtp/smtpd.py" --port $port --spool "$TMP/spool" >"$TMP/smtpd.log" 2>&1 & echo $! >"$TMP/smtpd.pid"; } &&
	write_serve_conf "$TMP/robot.yaml" mail.retry=1 mail.smtp=smtp://127.0.0.1:$port &&
	lkprobot check-config -c "$TMP/robot.yaml" | grep -q "1 tree"
'

test_expect_success 'six heads that change only the documentation, on the drifting machine: measured, nothing mailed' '
	for i in 1 2 3 4 5 6; do
		commit "docs $i" README "a project, documented $i times" &&
		serve 2>"$TMP/d$i" || { cat "$TMP/d$i"; exit 1; }
	done &&
	cat "$TMP/d6" &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st" && cat "$TMP/st" &&
	[ "$(grep -c " done " "$TMP/st")" = 6 ] &&
	! grep -q "culprit\|regression\|improvement" "$TMP/st" &&
	grep -q "job.yaml: \(no change\|not sure\): command.throughput [-0-9.]*% (99.8% interval [-+0-9.]*% to [-+0-9.]*%) (.*)" "$TMP/st" &&
	[ "$(mails)" = 0 ] &&
	[ "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM outbox")" = 0 ]
'

test_expect_success 'the rounds are interleaved in a recorded random order: each run says its batch, round and place' '
	run=$(find "$TMP/res" -name job.yaml -path "*/0/*" | head -n 1) &&
	grep -Eq "^interleave: [0-9a-f]{16}-[0-9]+-[0-9]+$" "$run" &&
	[ "$(grep -h "^interleave:" $(find "$TMP/res" -name job.yaml) | sort | uniq -d | wc -l)" = 0 ]
'

test_expect_success 'a -30 % regression with one outlier run (lkp-tests would show no row): mailed, with the decision' '
	commit "slower by 30 %" speed 70 outlier 1.6 &&
	serve 2>"$TMP/r1" && cat "$TMP/r1" &&
	culprit=$(sha "slower by 30 %") &&
	grep -q "found, culprit $(echo $culprit | cut -c1-12)" "$TMP/r1" &&
	grep -q "$(echo $culprit | cut -c1-12): queued [0-9]* <" "$TMP/r1" &&
	[ "$(mails)" = 1 ] &&
	m="$TMP/spool/1/data" &&
	grep -q "^Subject: \[lkprobot\] $(echo $culprit | cut -c1-10): command.throughput -[23][0-9].[0-9]% regression" "$m" &&
	tr -d "\r" <"$m" | tr "\n" " " >"$TMP/flat" &&
	grep -q "How sure lkprobot is: *change: *-[1-3][0-9].[0-9]% regression of command.throughput, 99.8% confidence *interval" "$TMP/flat" &&
	grep -q "table: *lkp-tests. rule does not select this row (the ranges of the *samples *overlap" "$TMP/flat" &&
	[ -e "$BENCH_COUNTER.outlier" ] &&
	lkprobot status -c "$TMP/robot.yaml" | grep -q "regression, culprit $(echo $culprit | cut -c1-12)"
'

test_expect_success 'that mail: one figure for the headline.s change everywhere (subject, greeting, how sure, the table.s first row, status, status --json), the machine named' '
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st1" && lkprobot status -c "$TMP/robot.yaml" --json >"$TMP/st1.json" &&
	python3 -c "import email, email.policy, json, re, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
body = list(m.iter_parts())[0].get_content().replace(\"\\r\", \"\")
figs = {}
figs[\"subject\"] = re.search(r\"command\.throughput (-?[0-9.]+%) regression$\", m[\"Subject\"]).group(1)
figs[\"greeting\"] = re.search(r\"FYI, we noticed a (\S+) regression of command\.throughput due to commit:\", body).group(1)
figs[\"how sure\"] = re.search(r\"\n  change:  (\S+) regression of command\.throughput,\", body).group(1)
lines = body.split(\"\n\")
first = lines[next(i for i, l in enumerate(lines) if re.match(r\"^\s+\\\\\s+\|\s+\\\\\s*$\", l)) + 1].split()
assert \"command.throughput\" in first[-2:], (\"the table does not start with the headline\", first)
figs[\"table\"] = [w for k, w in enumerate(first) if re.fullmatch(r\"-?[0-9.]+%\", w) and first[k - 1] != \"\\u00b1\"][0]
job = [j for h in json.load(open(sys.argv[2])) for j in (h[\"result\"] or []) if j.get(\"culprit\")][0]
figs[\"status --json\"] = \"%.1f%%\" % job[\"change\"]
figs[\"status\"] = re.search(r\"culprit [0-9a-f]{12}: command\.throughput (\S+) \(99\.8% interval\", open(sys.argv[3]).read()).group(1)
print(figs)
assert len(set(figs.values())) == 1, figs
assert re.search(r\"\non test machine: [0-9]+ threads .+ with [0-9]+[GM] memory\n\", body), \"the machine is not named\"
assert \"Reported-by\" in body
" "$TMP/spool/1/data" "$TMP/st1.json" "$TMP/st1"
'

test_expect_success 'a head that does not build: build_failed with its first error line; the bisection ends as failed' '
	commit "break the build" Makefile "$(printf "all:\n\t@echo \"bench.c:3:1: error: expected ; before }\" >&2; false")" &&
	{ serve 2>"$TMP/b1" || :; } && cat "$TMP/b1" &&
	broken=$(sha "break the build") &&
	lkprobot status -c "$TMP/robot.yaml" >"$TMP/st2" && cat "$TMP/st2" &&
	grep "$(echo $broken | cut -c1-12) (base" "$TMP/st2" | grep -q " build_failed .*the build failed: bench.c:3:1: error: expected ; before }" &&
	! grep -q "unexpected end of input" "$TMP/b1" "$TMP/st2" &&
	[ "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT status FROM bisections WHERE bad = '"'"'$broken'"'"'")" = failed ] &&
	sqlite3 "$TMP/res/lkprobot.db" "SELECT why FROM bisections WHERE bad = '"'"'$broken'"'"'" | grep -q "cannot be tested: the build failed" &&
	[ "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM bisections WHERE status = '"'"'running'"'"'")" = 0 ]
'

test_expect_success 'the fix and a regression behind it: tested against the last measured head, the regression found and mailed' '
	measured=$(sha "slower by 30 %") &&
	commit "fix the build" Makefile "$(printf "all:\n\t@true")" &&
	commit "slower by another 30 %" speed 49 &&
	serve 2>"$TMP/f1" && cat "$TMP/f1" &&
	head=$(sha "slower by another 30 %") &&
	grep -q "new head $(echo $head | cut -c1-12) (\"slower by another 30 %\"), base $(echo $measured | cut -c1-12)" "$TMP/f1" &&
	grep -q "found, culprit $(echo $head | cut -c1-12)" "$TMP/f1" &&
	[ "$(mails)" = 2 ] &&
	lkprobot status -c "$TMP/robot.yaml" | grep -q "$(echo $head | cut -c1-12) (base $(echo $measured | cut -c1-12)) done"
'

test_expect_success 'a broken head, then one that fixes the build and is 30 % slower: mailed, the set named' '
	commit "break it again" Makefile "$(printf "all:\n\t@echo \"bench.c:9:1: error: stray }\" >&2; false")" &&
	serve 2>"$TMP/g1" && cat "$TMP/g1" &&
	broken=$(sha "break it again") &&
	commit "fix it, slower" Makefile "$(printf "all:\n\t@true")" speed 34 &&
	serve 2>"$TMP/g2" && cat "$TMP/g2" &&
	head=$(sha "fix it, slower") &&
	grep -q "ambiguous, culprit $(echo $head | cut -c1-12)" "$TMP/g2" &&
	[ "$(mails)" = 3 ] &&
	tr -d "\r" <"$TMP/spool/3/data" | tr "\n" " " >"$TMP/flat3" &&
	grep -q "Subject: \[lkprobot\] $(echo $head | cut -c1-10): command.throughput -[1-3][0-9].[0-9]% regression" "$TMP/flat3" &&
	grep -q "it is one of: $(echo $broken | cut -c1-12) (cannot be tested), $(echo $head | cut -c1-12)\." "$TMP/flat3"
'

test_expect_success 'the dashboard data says why a bisection ended' '
	sqlite3 "$TMP/res/lkprobot.db" "SELECT why FROM bisections WHERE status = '"'"'found'"'"'" | grep -q "reproduces against its parent: -" &&
	sqlite3 "$TMP/res/lkprobot.db" "SELECT why FROM bisections WHERE status IN ('"'"'not-reproduced'"'"', '"'"'not-sure'"'"')" | grep -q "%"
'

test_expect_success 'check-config: serve.change_floor is a map of metric -> percent (file:line:col when not)' '
	sed "s|^  cache: .*|&\n  change_floor:\n    command.throughput: 3%\n    \"fio.*\": 0.5|" "$TMP/robot.yaml" >"$TMP/floor.yaml" &&
	lkprobot check-config -c "$TMP/floor.yaml" | grep -q "1 tree" &&
	sed "s|    command.throughput: 3%|    command.throughput: lots|" "$TMP/floor.yaml" >"$TMP/floor-bad.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/floor-bad.yaml" &&
	one_line_error "floor-bad.yaml:5:25: serve.change_floor.command.throughput: not a percentage"
'

test_done

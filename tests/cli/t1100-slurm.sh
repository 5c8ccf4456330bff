#!/bin/sh
# The slurm provider against a real Slurm cluster the test starts: munged,
# slurmctld and two slurmd "boxes" on 127.0.0.1 (Debian's slurm-wlm and
# munge), everything in the test's directory, ports from the test's pid.
# node1 has the feature boxA, node2 boxB, both lkp. A bisection of the
# `command` benchmark runs each of its runs as a batch job: on the box with
# the feature asked for, never two on one box and two boxes at once, the
# results in the store once; a stopped bisection cancels its Slurm job; a
# box taken down mid-run is a node failure, submitted again once, then a
# clear failure (its slurmd killed and the node set down, as a box that
# crashed).
# wall-clock limit: 900 s
. "$(dirname "$0")/lib.sh"
test_need_root
test_need_cmd slurmctld slurm-wlm
test_need_cmd slurmd slurm-wlm
test_need_cmd munged munge
test_need_cmd python3 python3
test_need_cmd sqlite3 sqlite3
test_need_cmd curl curl

C="$TMP/cluster"
base=$((21000 + ($$ % 400) * 10))
export SLURM_CONF="$C/slurm.conf" BENCH_LOG="$TMP/bench.log" BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.02

# cluster_pids [JOBID]: the processes of this test's cluster (their
# environment names its slurm.conf: the daemons, and the batch jobs' processes,
# which inherit it), or those of one of its Slurm jobs
cluster_pids() {
	for e in /proc/[0-9]*/environ; do
		env=$({ tr "\0" "\n" <"$e"; } 2>/dev/null) || continue
		echo "$env" | grep -qx "SLURM_CONF=$C/slurm.conf" || continue
		[ -z "$1" ] || echo "$env" | grep -qx "SLURM_JOB_ID=$1" || continue
		p=${e#/proc/}
		echo "${p%/environ}"
	done
}
slurm_down() {
	for f in "$C"/run/slurmd-*.pid "$C"/run/slurmctld.pid "$C"/munge/munged.pid; do
		[ -f "$f" ] && stop_pid "$(cat "$f")"
	done
	for p in $(cluster_pids); do stop_pid "$p" KILL; done
}
test_at_exit 'stop_pid "$(cat "$TMP/wpid" 2>/dev/null)"; slurm_down'
test_log "$C/log/slurmctld.log" "$C/log/slurmd-node1.log" "$C/log/slurmd-node2.log" "$C/munge/munged.log" "$TMP/*.err"

# both_boxes_busy LOG: the runs BENCH_LOG lists ("node start end") never
# overlap on one box, and node1 and node2 ran at the same time at least once
both_boxes_busy() {
	python3 - "$1" <<-\EOF
	import sys
	runs = [l.split() for l in open(sys.argv[1]) if l.strip()]
	runs = [(n, float(a), float(b)) for n, a, b in runs]
	for n in ("node1", "node2"):
	    mine = sorted((a, b) for m, a, b in runs if m == n)
	    assert all(mine[i][1] <= mine[i + 1][0] for i in range(len(mine) - 1)), (n, "two runs at once")
	both = sum(1 for n1, a1, b1 in runs for n2, a2, b2 in runs if n1 == "node1" and n2 == "node2" and a1 < b2 and a2 < b1)
	assert both > 0, "the two boxes never ran at the same time"
	print(len(runs), "runs,", both, "overlapping pairs across the boxes")
	EOF
}

test_expect_success 'setup: a cluster of two boxes (munge, slurmctld, two slurmd) in the test directory' '
	chmod 755 "$TMP" &&
	sh "$SRC/tests/slurm-cluster.sh" up "$C" 2 $base lkp,boxA lkp,boxB &&
	sinfo -N -o "%N %f %T" &&
	[ "$(sinfo -h -N -t idle -o %N | wc -l)" = 2 ] &&
	test_set_prereq CLUSTER
'

test_expect_success 'setup: a repository whose benchmark logs on which box and when it ran' '
	git init -q "$TMP/repo" && cd "$TMP/repo" &&
	git config user.email dev@example.org && git config user.name Dev &&
	printf "all:\n\t@true\n" >Makefile &&
	cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	echo 100 >speed && git add -A && git commit -qm base &&
	for i in 1 2 3 4 5 6; do echo $i >f; [ $i = 4 ] && echo 70 >speed; git add -A; git commit -qm "change $i"; done &&
	cd "$SRC" &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	test_set_prereq REPO
'


test_expect_success CLUSTER,REPO 'a bisection on boxB only: its runs in batch jobs on node2, several a job (time limit from their runtimes), the culprit found, each run in the store once' '
	: >"$BENCH_LOG" &&
	lkprobot bisect --tree "$TMP/repo" --good HEAD~6 --bad HEAD --provider slurm --constraint boxB \
		--pending-timeout 300 -o "$TMP/res" --cache "$TMP/cache" --json "$TMP/job.yaml" >"$TMP/b.json" 2>"$TMP/b.err" &&
	cat "$TMP/b.err" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 4\$") &&
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"status\"] == \"found\" and d[\"culprit\"] == sys.argv[2], d" "$TMP/b.json" "$culprit" &&
	[ -s "$BENCH_LOG" ] && ! grep -v "^node2 " "$BENCH_LOG" &&
	squeue -h -t all -o "%l|%i" >"$TMP/limits" &&
	python3 - "$TMP/limits" <<-\EOF &&
	import sys
	# a job runs its runs one after another: its limit is 25 minutes a run (a 2 s run, 10 min to check it out, rounded up)
	for line in open(sys.argv[1]):
	    limit, command = line.rstrip("\n").split("|", 1)
	    parts = [int(x) for x in limit.replace("-", ":").split(":")]
	    minutes = sum(v * m for v, m in zip(reversed(parts), (1 / 60, 1, 60, 1440)))
	    assert minutes > 0 and minutes % 25 == 0, line
	print("time limits", sorted(set(l.split("|")[0] for l in open(sys.argv[1]))))
	EOF
	n=$(ls "$TMP/res/.slurm/"*.status | wc -l) && [ "$n" = "$(wc -l <"$BENCH_LOG")" ] &&
	jobs=$(wc -l <"$TMP/limits") && echo "$n runs in $jobs Slurm jobs" && [ "$jobs" -lt "$n" ] &&
	! grep -L "\"node\": \"node2\"" "$TMP/res/.slurm/"*.status | grep -q . &&
	[ "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(*) FROM runs")" = "$(find "$TMP/res" -name stats.json | wc -l)" ] &&
	[ "$(sqlite3 "$TMP/res/lkprobot.db" "SELECT count(DISTINCT result_root) FROM runs")" = "$(find "$TMP/res" -name stats.json | wc -l)" ] &&
	for s in $(find "$TMP/res" -name stats.json); do
		grep -qx "{\"argv\": \[\"lkprobot\", \"run\", \"job.yaml\"\]}" "$(dirname "$s")/reproduce.json" || exit 1
	done
'

test_expect_success CLUSTER,REPO 'two bisections at once on lkp boxes: both boxes busy together, never two runs on one box' '
	: >"$BENCH_LOG" &&
	{ BENCH_SLEEP=0.5 "$LKPROBOT" bisect --tree "$TMP/repo" --good HEAD~6 --bad HEAD --provider slurm --constraint lkp \
		--pending-timeout 300 -o "$TMP/res2" --cache "$TMP/cache" --json "$TMP/job.yaml" >"$TMP/p1.json" 2>"$TMP/p1.err" & p1=$!; } &&
	{ BENCH_SLEEP=0.5 "$LKPROBOT" bisect --tree "$TMP/repo" --good HEAD~6 --bad HEAD --provider slurm --constraint lkp \
		--pending-timeout 300 -o "$TMP/res3" --cache "$TMP/cache2" --json "$TMP/job.yaml" >"$TMP/p2.json" 2>"$TMP/p2.err" & p2=$!; } &&
	wait $p1 && wait $p2 &&
	cat "$BENCH_LOG" | sort -k2 | head -40 &&
	both_boxes_busy "$BENCH_LOG"
'

test_expect_success CLUSTER,REPO 'one bisection on both lkp boxes: its runs on both at once, never two on one box; the culprit and the builds of boxB alone' '
	: >"$BENCH_LOG" &&
	BENCH_SLEEP=0.5 lkprobot bisect --tree "$TMP/repo" --good HEAD~6 --bad HEAD --provider slurm --constraint lkp \
		--pending-timeout 300 -o "$TMP/res8" --cache "$TMP/cache" --json "$TMP/job.yaml" >"$TMP/b2.json" 2>"$TMP/b2.err" &&
	both_boxes_busy "$BENCH_LOG" &&
	python3 - "$TMP/b.json" "$TMP/b2.json" <<-\EOF
	import json, sys
	one, two = (json.load(open(f)) for f in sys.argv[1:3])
	assert two["status"] == "found" and two["culprit"] == one["culprit"], (one["culprit"], two)
	assert two["builds"] == one["builds"], ("builds", one["builds"], two["builds"])
	print("culprit", two["culprit"][:12], "builds", two["builds"], "runs", one["runs"], "on one box,", two["runs"], "on two")
	EOF
'

test_expect_success CLUSTER,REPO 'SIGTERM to a bisection while its run waits on a box: the Slurm job is cancelled' '
	{ BENCH_SLEEP=60 "$LKPROBOT" bisect --tree "$TMP/repo" --good HEAD~6 --bad HEAD --provider slurm --constraint boxA \
		-o "$TMP/res4" --cache "$TMP/cache" "$TMP/job.yaml" >/dev/null 2>"$TMP/c.err" & pid=$!; } &&
	for i in $(seq 1 300); do [ -n "$(squeue -h -t running -o %i)" ] && break; sleep 0.1; done &&
	kill -TERM $pid && rc=0 && { wait $pid || rc=$?; } && cat "$TMP/c.err" && echo "exit $rc" &&
	[ $rc = 143 ] &&
	id=$(sed -n "s/.*Slurm job \([0-9]*\) cancelled.*/\1/p" "$TMP/c.err") && [ -n "$id" ] &&
	for i in $(seq 1 100); do [ "$(squeue -h -t all -j "$id" -o %T)" = CANCELLED ] && break; sleep 0.1; done &&
	[ "$(squeue -h -t all -j "$id" -o %T)" = CANCELLED ]
'

test_expect_success CLUSTER,REPO 'a box taken down mid-run: node failure, submitted again once, then a failure that says so' '
	for i in $(seq 1 100); do [ -z "$(squeue -h -o %i)" ] && break; sleep 0.1; done &&
	{ BENCH_SLEEP=60 "$LKPROBOT" bisect --tree "$TMP/repo" --good HEAD~1 --bad HEAD --provider slurm --constraint boxA \
		--pending-timeout 3 -o "$TMP/res5" --cache "$TMP/cache" --json "$TMP/job.yaml" >"$TMP/d.json" 2>"$TMP/d.err" & pid=$!; } &&
	for i in $(seq 1 300); do [ -n "$(squeue -h -t running -o %i)" ] && break; sleep 0.1; done &&
	stop_pid "$(cat "$C/run/slurmd-node1.pid")" && scontrol update nodename=node1 state=down reason=lkprobot-test &&
	rc=0 && { wait $pid || rc=$?; } && cat "$TMP/d.err" &&
	job=$(sed -n "s/.*Slurm job \([0-9]*\): NODE_FAIL on node1; submitted again.*/\1/p" "$TMP/d.err") &&
	for p in $(cluster_pids "$job"); do stop_pid "$p" KILL; done &&
	slurmd -N node1 &&
	for i in $(seq 1 150); do
		[ "$(sinfo -h -n node1 -o %T)" = idle ] && break
		# ReturnToService=2 brings a node that registers again back by itself; else resume it
		scontrol update nodename=node1 state=resume 2>/dev/null
		sleep 0.1
	done &&
	[ "$(sinfo -h -n node1 -o %T)" = idle ] &&
	[ $rc = 1 ] &&
	[ -n "$job" ] &&
	grep -q "still pending after 3 s .*before that Slurm job $job: NODE_FAIL on node1" "$TMP/d.err"
'

test_expect_success CLUSTER,REPO 'the service with provider slurm: the new head bisected on boxA, its report queued' '
	: >"$BENCH_LOG" &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	write_serve_conf "$TMP/robot.yaml" serve.result_root="$TMP/res7" tree.base="$(git -C "$TMP/repo" rev-parse HEAD~6)" \
		tree.provider=slurm tree.via=local tree.constraint=boxA "tree.sbatch_args=[--time=10]" tree.pending_timeout=300 &&
	lkprobot check-config -c "$TMP/robot.yaml" &&
	lkprobot serve -c "$TMP/robot.yaml" --once 2>"$TMP/s.err" && cat "$TMP/s.err" &&
	culprit=$(git -C "$TMP/repo" log --format=%H --grep="^change 4\$") &&
	lkprobot status -c "$TMP/robot.yaml" | grep -q " done .*regression, culprit $(echo $culprit | cut -c1-12): command.throughput -[0-9.]*% ([^)]*), mail queued" &&
	[ -s "$BENCH_LOG" ] && ! grep -v "^node1 " "$BENCH_LOG" &&
	squeue -h -t all -o "%j %l" | grep -q " 10:00$" &&
	sed "s/via: local/via: vm/" "$TMP/robot.yaml" >"$TMP/bad.yaml" &&
	expect_exit 2 lkprobot check-config -c "$TMP/bad.yaml" &&
	one_line_error "bad.yaml:[0-9]+:[0-9]+: serve.trees.via: must be local or qemu"
'

test_expect_success CLUSTER,REPO 'the service with two new heads on lkp boxes: both bisected at the same time, each its own culprit' '
	base=$(git -C "$TMP/repo" rev-parse HEAD~6) &&
	git -C "$TMP/repo" branch side "$base" &&
	git -C "$TMP/repo" worktree add -q "$TMP/side" side &&
	for i in 1 2 3 4; do echo "s$i" >"$TMP/side/f"; [ $i = 2 ] && echo 60 >"$TMP/side/speed"; git -C "$TMP/side" add -A && git -C "$TMP/side" commit -qm "side $i" || exit 1; done &&
	branch=$(git -C "$TMP/repo" symbolic-ref --short HEAD) &&
	sed -e "s|res7|res9|; s|branches: .*|branches: [$branch, side]|; s|constraint: boxA|constraint: lkp|" "$TMP/robot.yaml" >"$TMP/two.yaml" &&
	lkprobot serve -c "$TMP/two.yaml" --once 2>"$TMP/s2.err" && cat "$TMP/s2.err" &&
	lkprobot status -c "$TMP/two.yaml" >"$TMP/st9" && cat "$TMP/st9" &&
	grep -q " done .*culprit $(git -C "$TMP/repo" log --format=%H --grep="^change 4\$" | cut -c1-12)" "$TMP/st9" &&
	grep -q " done .*culprit $(git -C "$TMP/repo" log side --format=%H --grep="^side 2\$" | cut -c1-12)" "$TMP/st9" &&
	squeue -h -t all -o "%k|%S|%e" >"$TMP/q9" &&
	python3 - "$TMP/q9" "$(git -C "$TMP/repo" rev-parse --short=12 "$branch")" "$(git -C "$TMP/repo" rev-parse --short=12 side)" <<-\EOF
	import sys
	rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
	spans = []
	for head in sys.argv[2:4]:
	    mine = [(s, e) for k, s, e in rows if (".." + head + " ") in k]
	    assert mine, ("no Slurm job of the bisection of", head)
	    spans.append((min(s for s, e in mine), max(e for s, e in mine)))
	(a0, a1), (b0, b1) = spans
	assert a0 < b1 and b0 < a1, ("the two bisections ran one after the other", spans)
	print("the two bisections ran at the same time:", spans)
	EOF
'

test_expect_success CLUSTER,REPO 'the dashboard of a service with provider slurm shows the farm: its boxes, features and states' '
	port=$((base + 5)) &&
	{ "$LKPROBOT" serve -c "$TMP/robot.yaml" --listen 127.0.0.1:$port 2>"$TMP/w.err" & echo $! >"$TMP/wpid"; } &&
	for i in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done &&
	curl -s "http://127.0.0.1:$port/" >"$TMP/o.html" &&
	curl -s "http://127.0.0.1:$port/api/overview" >"$TMP/o.json" &&
	stop_pid "$(cat "$TMP/wpid")" &&
	python3 -c "import json,sys; f = json.load(open(sys.argv[1]))[\"farm\"]; assert sorted(b[\"name\"] for b in f) == [\"node1\", \"node2\"], f" "$TMP/o.json" &&
	grep -q "<h2>The Slurm farm (2 boxes, [0-9]* busy)</h2>" "$TMP/o.html" &&
	grep -q "<td>node1</td><td>lkp,boxA</td>" "$TMP/o.html" &&
	grep -q "<td>node2</td><td>lkp,boxB</td>" "$TMP/o.html"
'

test_expect_success CLUSTER,REPO 'a feature no box has: one line before anything is submitted (exit 1)' '
	expect_exit 1 lkprobot bisect --tree "$TMP/repo" --good HEAD~1 --bad HEAD --provider slurm --constraint nosuch \
		-o "$TMP/res6" --cache "$TMP/cache" "$TMP/job.yaml" &&
	one_line_error "no node of the cluster has the feature .nosuch."
'

test_done

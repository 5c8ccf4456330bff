#!/bin/sh
# provider ssh over a tbox_group: a bisection's runs go to its two boxes
# at once, one run a box, a third box that cannot be reached is left out
# (said) and its runs go to the others, the culprit is named and each
# commit tested is built once. Two QEMU guests stand in for the boxes
# (`lkprobot qemu-box` under TCG, as in t1300). Their kernels come from a
# git repository whose Makefile stands in for Kbuild and "builds" every
# commit into Debian's kernel, the one the boxes run (a real kernel build
# is out of make check: see `make check-bisect-box`), so every run still
# kexecs the box into the commit's bzImage and checks it came back with
# it. The benchmark on the box (tests/fixtures/box/commit-bench.sh) prints
# the speed the test gave the commit it runs, with bench.sh's noise (each
# box its own seeds). The one mock: there is no real pmem DIMM.
# wall-clock limit: 1800 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boxlib.sh"

port1=$((23000 + $$ % 1000))
port2=$((port1 + 1000))
test_at_exit 'stop_pid "$(cat "$TMP/ga.pid" 2>/dev/null)"; stop_pid "$(cat "$TMP/gb.pid" 2>/dev/null)"'
test_log "$TMP/ga.out" "$TMP/gb.out" "$TMP/ga/console" "$TMP/gb/console" "$TMP/*.err" "$TMP/res/.ssh/*.log"

# the repository: a base and 4 commits; speed 100, 50 from commit 3 on
REPO=$TMP/repo
speeds() {
	n=0
	for c in $(git -C "$REPO" rev-list --reverse HEAD); do
		for d in "$TMP/ga/disk" "$TMP/gb/disk"; do
			mkdir -p "$d/commits/$c" && { [ $n -lt 3 ] && echo 100 || echo 50; } >"$d/commits/$c/speed"
		done
		n=$((n + 1))
	done
	# the culprit (commit 3) reverted on top of the bad end: the speed before it
	for d in "$TMP/ga/disk" "$TMP/gb/disk"; do
		mkdir -p "$d/commits/revert" && echo 100 >"$d/commits/revert/speed"
	done
	for d in "$TMP/ga/disk" "$TMP/gb/disk"; do
		cp "$SRC/tests/fixtures/command/bench.sh" "$SRC/tests/fixtures/box/commit-bench.sh" "$d/commits/"
	done
	echo 1000 >"$TMP/gb/disk/commits/counter"	# the boxes' noise independent
}
make_repo() {
	git init -q "$REPO" && cd "$REPO" && git config user.email t@example.org && git config user.name T &&
	K=$(kernel) &&
	printf '%s\n' 'O ?= .' '.PHONY: allnoconfig defconfig olddefconfig bzImage' 'allnoconfig defconfig:' \
		"	@{ echo CONFIG_BOX=y; if [ -n \"\$(KCONFIG_ALLCONFIG)\" ]; then cat \"\$(KCONFIG_ALLCONFIG)\"; fi; } | grep '^CONFIG_' | sort -u > \$(O)/.config" \
		'olddefconfig:' '	@true' 'bzImage:' "	@mkdir -p \$(O)/arch/x86/boot && cat $K > \$(O)/arch/x86/boot/bzImage" >Makefile &&
	git add -A && git commit -qm base &&
	for i in 1 2 3 4; do echo "$i" >"f$i" && git add -A && git commit -qm "change $i" || return 1; done
	cd "$SRC"
}

# the boxes file: ga and gb, and gc that cannot be reached (port 1)
write_boxes() {
	{
		echo "boxes:"
		box_entry ga "$port1" "$TMP/ga" && echo "    boot_timeout: 300"
		box_entry gb "$port2" "$TMP/gb" && echo "    boot_timeout: 300"
		box_entry gc 1 "$TMP/gc"
	} >"$TMP/boxes.yaml"
}

start_box() {
	name=$1 port=$2
	mkdir -p "$TMP/$name" && dropbearkey -t ed25519 -f "$TMP/$name/host_key" >/dev/null &&
	echo "[127.0.0.1]:$port $(dropbearkey -y -f "$TMP/$name/host_key" | grep ^ssh-)" >>"$TMP/known_hosts" &&
	("$LKPROBOT" qemu-box --dir "$TMP/$name" --name "$name" --ssh-port "$port" --authorized-keys "$TMP/id.pub" \
		--cache "$CACHE" --cpus 1 --memory 1536M >"$TMP/$name.out" 2>&1 & echo $! >"$TMP/$name.pid")
}

printf 'suite: command\ntestcase: command\ncommand:\n  cmd: sh /mnt/commits/commit-bench.sh /mnt/commits\n' >"$TMP/job.yaml"
B() { lkprobot bisect -o "$TMP/res" --cache "$TMP/cache" --provider ssh --boxes "$TMP/boxes.yaml" --tree "$REPO" "$@"; }
sha() { git -C "$REPO" log --format=%H --grep="^change $1\$"; }

test_expect_success 'setup: two QEMU boxes of tbox_group qemu-pmem answer ssh; a repository whose commit 3 halves the speed' '
	ssh-keygen -q -t ed25519 -N "" -f "$TMP/id" &&
	start_box ga "$port1" && start_box gb "$port2" &&
	wait_box "$port1" "$TMP/ga" && wait_box "$port2" "$TMP/gb" && [ -n "$(kernel)" ] &&
	make_repo && speeds &&
	test_set_prereq BOXES
'

test_expect_success BOXES 'bisect --box qemu-pmem: the runs on both boxes at once, the unreachable third left out, the culprit named' '
	write_boxes &&
	{ B --box qemu-pmem --good HEAD~3 --bad HEAD --json "$TMP/job.yaml" >"$TMP/j2" 2>"$TMP/b2.err" || { cat "$TMP/b2.err"; false; }; } &&
	cat "$TMP/b2.err" &&
	grep -q "^lkprobot: box gc left out of tbox_group qemu-pmem.s runs: box gc (root@127.0.0.1:1): cannot reach it" "$TMP/b2.err" &&
	python3 -c "import json,sys
j = json.load(open(sys.argv[1]))
assert j[\"status\"] == \"found\" and j[\"culprit\"] == sys.argv[2], j
tested = 2 + len(j[\"steps\"])
print(\"builds\", j[\"builds\"], \"commits tested\", tested, \"runs\", j[\"runs\"], \"batches\", j[\"batches\"])
# each commit tested (the ends and the steps) built once, as on one box: the children share the kernel cache;
# the culprit'"'"'s checks add theirs (its revert; culprit and parent with aligned functions)
checks = j[\"revert\"][\"builds\"] + j[\"layout\"][\"builds\"]
print(\"revert\", j[\"revert\"][\"status\"], \"layout\", j[\"layout\"][\"status\"], \"their builds\", checks)
assert j[\"builds\"] == tested + checks, j
# the revert restores the speed; the change survives culprit and parent built with aligned functions
assert j[\"revert\"][\"status\"] == \"confirms\", j[\"revert\"]
assert j[\"layout\"][\"status\"] == \"confirms\", j[\"layout\"]
" "$TMP/j2" "$(sha 3)" &&
	cat "$TMP/ga/disk/commits/bench.log" "$TMP/gb/disk/commits/bench.log" >"$TMP/log2" &&
	python3 -c "import sys
runs = [l.split() for l in open(sys.argv[1])]
runs = [(h, float(a), float(b)) for h, a, b in runs]
hosts = sorted(set(r[0] for r in runs))
span = max(r[2] for r in runs) - min(r[1] for r in runs)
print(len(runs), \"runs on\", hosts, \"in\", round(span), \"s\")
assert hosts == [\"ga\", \"gb\"], hosts
assert abs(sum(r[0] == \"ga\" for r in runs) - sum(r[0] == \"gb\" for r in runs)) <= 2, runs
" "$TMP/log2" &&
	[ -z "$(ls "$TMP/res/.ssh")" ] &&
	for s in $(find "$TMP/res" -name stats.json); do
		d=$(dirname "$s") && grep -qx "job_state: finished" "$d/job.yaml" && [ -s "$d/dmesg" ] &&
		grep -q "Command line: .* lkprobot.run=" "$d/dmesg" || { echo "$d"; exit 1; }
	done
'

test_expect_success BOXES 'a run as its reproduce.json says: box run ga --tree linux --commit C, the kernel built here (cached), the same command recorded' '
	c3=$(sha 3) &&
	rj= && for rj in $(grep -l "\"$c3\"" $(find "$TMP/res" -name reproduce.json | grep -v "+falign-functions=")); do
		python3 -c "import json,sys
a = json.load(open(sys.argv[1]))[\"argv\"]
assert a[:3] == [\"lkprobot\", \"box\", \"run\"] and a[3] in (\"ga\", \"gb\") and a[4:] == [\"--tree\", \"linux\", \"--commit\", sys.argv[2], \"job.yaml\"], a
" "$rj" "$c3" || exit 1
	done &&
	[ -n "$rj" ] &&
	# the layout check.s runs, on kernels built with -falign-functions=32: their command builds that kernel again
	aj= && for aj in $(find "$TMP/res" -path "*+falign-functions=32*" -name reproduce.json); do
		python3 -c "import json,sys
a = json.load(open(sys.argv[1]))[\"argv\"]
assert a[:3] == [\"lkprobot\", \"box\", \"run\"] and a[3] in (\"ga\", \"gb\") and a[4:7] == [\"--tree\", \"linux\", \"--commit\"], a
assert a[8:] == [\"--kcflags\", \"-falign-functions=32\", \"job.yaml\"], a
" "$aj" || exit 1
	done &&
	[ -n "$aj" ] &&
	{ lkprobot box run ga --boxes "$TMP/boxes.yaml" -o "$TMP/res3" --cache "$TMP/cache" --tree "$REPO" --commit "$c3" \
		"$TMP/job.yaml" >"$TMP/r3" 2>"$TMP/r3.err" || { cat "$TMP/r3" "$TMP/r3.err"; false; }; } &&
	cat "$TMP/r3" && d=$(sed -n "s/^finished //p" "$TMP/r3") && [ -d "$d" ] &&
	grep -q "Command line: .* lkprobot.run=" "$d/dmesg" &&
	python3 -c "import json,sys
a = json.load(open(sys.argv[1]))[\"argv\"]
assert a == [\"lkprobot\", \"box\", \"run\", \"ga\", \"--tree\", \"linux\", \"--commit\", sys.argv[2], \"job.yaml\"], a
" "$d/reproduce.json" "$c3" &&
	grep -q "^commit: $c3" "$d/job.yaml" && grep -q "^kconfig: x86_64-pmem" "$d/job.yaml" &&
	rb=$(dirname "$rj") && rel1=${rb#"$TMP/res/"} && rel2=${d#"$TMP/res3/"} &&
	{ [ "${rel1%/*}" = "${rel2%/*}" ] || { echo "result paths differ: $rel1 $rel2"; false; }; }
'

test_expect_success BOXES 'box run --tree/--commit: bad input in one line (exit 2) before any box is reached' '
	write_boxes &&
	expect_exit 2 lkprobot box run ga --boxes "$TMP/boxes.yaml" -o "$TMP/res4" --tree "$REPO" "$TMP/job.yaml" &&
	one_line_error "^lkprobot: --tree and --commit go together" &&
	expect_exit 2 lkprobot box run ga --boxes "$TMP/boxes.yaml" -o "$TMP/res4" --tree "$REPO" --commit nosuch "$TMP/job.yaml" &&
	one_line_error "^lkprobot: cannot resolve .nosuch. in " &&
	expect_exit 2 lkprobot box run ga --boxes "$TMP/boxes.yaml" -o "$TMP/res4" --tree "$REPO" --commit HEAD -k /nonexistent "$TMP/job.yaml" &&
	one_line_error "^lkprobot: -k and --commit both name the kernel" &&
	[ ! -e "$TMP/res4" ]
'

test_done

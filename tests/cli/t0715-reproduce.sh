#!/bin/sh
# A report's "To reproduce" as a reader runs it: the block copied out of a
# mail lkprobot made of a real bisection (a git tree and the `command`
# benchmark, tests/fixtures/command/bench.sh, a commit 30 % slower), pasted
# into a fresh shell in an empty directory with the attached job file, the
# clone URLs pointing at local repositories — the tree's, and lkprobot's
# (a repository whose `make` links the binary under test: building
# lkprobot from a clone of an uncommitted work tree would test the last
# commit instead) — must run both commits and print the same headline
# change, the same way. And a metric with no direction is never mailed as
# a regression, an improvement or an "N% change"; the job gives it one. A
# run on a kernel built with KCFLAGS (the layout check's aligned kernels)
# records them (--kcflags: tests/unit/test-provider.c, test-report.c, and
# t1310 on boxes); the command pasted builds that kernel again, not the
# plain one.
# wall-clock limit: 600 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3

export BENCH_COUNTER="$TMP/counter" BENCH_NOISE=0.03

commit() {	# commit REPO MESSAGE [FILE CONTENT]...
	r=$1 msg=$2
	shift 2
	while [ $# -ge 2 ]; do
		printf '%s\n' "$2" >"$r/$1"
		shift 2
	done
	git -C "$r" add -A && git -C "$r" -c user.name=A -c user.email=a@example.org commit -qm "$msg"
}
sha() { git -C "$1" log --format=%H --grep="^$2\$"; }

# the mail's body and its job.yaml attachment, as a reader saves them: BODY and DIR/job.yaml
save_mail() {	# save_mail MAIL BODY DIR
	python3 -c "import email, email.policy, os, sys
m = email.message_from_bytes(open(sys.argv[1], \"rb\").read(), policy=email.policy.default)
parts = list(m.iter_parts())
open(sys.argv[2], \"w\").write(parts[0].get_content())
os.makedirs(sys.argv[3], exist_ok=True)
for p in parts:
    if p.get_filename() == \"job.yaml\":
        open(os.path.join(sys.argv[3], \"job.yaml\"), \"w\").write(p.get_content())
" "$@"
}

# the "To reproduce" block of a body, its commands unindented, as pasted
block_of() {	# block_of BODY
	sed -n "/^To reproduce:$/,/^testcase\/path_params/p" "$1" | sed "1d;\$d" | sed "s/^        //"
}

test_expect_success 'setup: a tree with a commit 30 % slower, lkprobot.s repository, the bisection that finds it' '
	git init -q "$TMP/repo" && cp "$SRC/tests/fixtures/command/bench.sh" "$TMP/repo/bench.sh" &&
	commit "$TMP/repo" base Makefile "$(printf "all:\n\t@true")" speed 100 &&
	commit "$TMP/repo" "docs" README "words" &&
	commit "$TMP/repo" "slower by 30 %" speed 70 &&
	commit "$TMP/repo" "more docs" README "more words" &&
	git init -q "$TMP/lkprobot-src" &&
	commit "$TMP/lkprobot-src" "lkprobot" Makefile "$(printf "all:\n\tln -sf %s lkprobot\n" "$LKPROBOT")" &&
	printf "suite: command\ntestcase: command\ncommand:\n  build: make\n  cmd: sh bench.sh\n" >"$TMP/job.yaml" &&
	lkprobot bisect -o "$TMP/res" --cache "$TMP/cache" --tree "$TMP/repo" --good HEAD~3 --bad HEAD "$TMP/job.yaml" >"$TMP/b.out" &&
	cat "$TMP/b.out" &&
	grep -q "^first bad commit: $(sha "$TMP/repo" "slower by 30 %")" "$TMP/b.out"
'

test_expect_success 'the block pasted into an empty directory runs both commits and prints the same headline, a regression' '
	c=$(sha "$TMP/repo" "slower by 30 %") && p=$(sha "$TMP/repo" docs) &&
	lkprobot report --db "$TMP/res/lkprobot.db" --base "$p" --commit "$c" --tree "$TMP/repo" --date 1485000000 \
		--tree-url "$TMP/repo" --lkprobot-url "$TMP/lkprobot-src" -o "$TMP/m.eml" &&
	save_mail "$TMP/m.eml" "$TMP/body" "$TMP/paste" &&
	block_of "$TMP/body" >"$TMP/block.sh" && cat "$TMP/block.sh" &&
	grep -q "^lkprobot compare --headline -o ../result $p $c$" "$TMP/block.sh" &&
	! grep -q "kernel\|/lkp/result" "$TMP/block.sh" &&
	[ -z "$(ls -A "$TMP/paste" | grep -v "^job.yaml$")" ] &&
	if ! (cd "$TMP/paste" && sh "$TMP/block.sh") >"$TMP/paste.out" 2>&1; then cat "$TMP/paste.out"; false; fi &&
	tail -n 3 "$TMP/paste.out" &&
	subj=$(sed -n "s/^Subject: .*command\.throughput \(-[0-9.]*%\) regression$/\1/p" "$TMP/m.eml") && [ -n "$subj" ] &&
	grep -q "^headline: command.throughput -[0-9.]*% regression (" "$TMP/paste.out" &&
	runs=$(sed -n "s/^for i in \$(seq \([0-9]*\)); do$/\1/p" "$TMP/block.sh") && [ "$runs" -ge 5 ] &&
	[ "$(ls "$TMP"/paste/result/command/*/*/*/*/*/"$c" | grep -c "^[0-9]*$")" = "$runs" ] &&
	[ "$(ls "$TMP"/paste/result/command/*/*/*/*/*/"$p" | grep -c "^[0-9]*$")" = "$runs" ]
'

test_expect_success 'a change of a metric with no direction is never mailed (no "N% change"); the job.s metric_direction gives it one' '
	git init -q "$TMP/lat" && cp "$SRC/tests/fixtures/command/bench.sh" "$TMP/lat/bench.sh" &&
	commit "$TMP/lat" base Makefile "$(printf "all:\n\t@true")" speed 100 latency 1000 &&
	commit "$TMP/lat" "slower replies" latency 1500 &&
	c=$(sha "$TMP/lat" "slower replies") && p=$(sha "$TMP/lat" base) &&
	expect_exit 1 lkprobot bisect -o "$TMP/lres" --cache "$TMP/cache" --tree "$TMP/lat" --good HEAD~1 --bad HEAD "$TMP/job.yaml" &&
	cat "$TMP/.stdout" "$TMP/err" && ! grep -q "first bad commit" "$TMP/.stdout" &&
	expect_exit 1 lkprobot report --db "$TMP/lres/lkprobot.db" --base "$p" --commit "$c" &&
	one_line_error "no metric with a direction changed" &&
	expect_exit 1 lkprobot report --db "$TMP/lres/lkprobot.db" --base "$p" --commit "$c" --metric command.latency_ns &&
	one_line_error "command.latency_ns from .* changed .*, but which way is better is not known .*metric_direction" &&
	! grep -q "% change" "$TMP/.stdout" &&
	printf "metric_direction:\n  command.latency_ns: lower\n" >>"$TMP/job.yaml" &&
	lkprobot bisect -o "$TMP/lres2" --cache "$TMP/cache" --tree "$TMP/lat" --good HEAD~1 --bad HEAD "$TMP/job.yaml" >"$TMP/l2.out" &&
	grep -q "^first bad commit: $c" "$TMP/l2.out" && grep -q "command.latency_ns: +[0-9.]*% against its parent" "$TMP/l2.out" &&
	lkprobot report --db "$TMP/lres2/lkprobot.db" --base "$p" --commit "$c" -o "$TMP/l2.eml" &&
	grep -q "^Subject: .*command.latency_ns [0-9.]*% regression$" "$TMP/l2.eml"
'

# a tree whose Makefile stands in for Kbuild (as t0500's): its bzImage no kernel, make's KCFLAGS in build.log
fake_kbuild() {	# fake_kbuild DIR
	git init -q "$1" &&
	printf "%s\n" "O ?= ." ".PHONY: allnoconfig defconfig olddefconfig bzImage" "allnoconfig defconfig:" \
		"	@{ echo CONFIG_X=y; if [ -n \"\$(KCONFIG_ALLCONFIG)\" ]; then cat \"\$(KCONFIG_ALLCONFIG)\"; fi; } | grep \"^CONFIG_\" | sort -u > \$(O)/.config" \
		"olddefconfig:" "	@true" "bzImage:" "	@echo \"  KCFLAGS \$(KCFLAGS)\"" \
		"	@mkdir -p \$(O)/arch/x86/boot && echo not a kernel > \$(O)/arch/x86/boot/bzImage" >"$1/Makefile" &&
	commit "$1" base
}
test_prereq_cmd QEMU qemu-system-x86_64 qemu-system-x86

test_expect_success QEMU 'a kernel built with KCFLAGS (a layout check.s): qemu --kcflags builds that kernel again, not the plain one' '
	fake_kbuild "$TMP/kbuild" && c=$(git -C "$TMP/kbuild" rev-parse HEAD) &&
	plain=$(lkprobot build --cache "$TMP/kcache" --tree "$TMP/kbuild" --commit "$c" | sed -n 1p) &&
	aligned=$(lkprobot build --cache "$TMP/kcache" --tree "$TMP/kbuild" --commit "$c" --kcflags -falign-functions=32 | sed -n 1p) &&
	[ "$plain" != "$aligned" ] && grep -qx "  KCFLAGS -falign-functions=32" "$aligned/build.log" &&
	# the guest does not boot (no kernel): the kernel it was given is what counts here
	expect_exit 1 lkprobot qemu -o "$TMP/kres" --cache "$TMP/kcache" --no-store --accel tcg --boot-timeout 2 \
		--tree "$TMP/kbuild" --commit "$c" --kcflags -falign-functions=32 jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^lkprobot: kernel: commit $c of $TMP/kbuild, from the kernel cache ($aligned)$" "$TMP/err" &&
	expect_exit 1 lkprobot qemu -o "$TMP/kres" --cache "$TMP/kcache" --no-store --accel tcg --boot-timeout 2 \
		--tree "$TMP/kbuild" --commit "$c" jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^lkprobot: kernel: commit $c of $TMP/kbuild, from the kernel cache ($plain)$" "$TMP/err"
'

test_expect_success '--kcflags: only with the build (--tree and --commit), only flags make may be given; one line, exit 2' '
	for cmd in "qemu" "box run ga"; do
		expect_exit 2 lkprobot $cmd --kcflags -falign-functions=32 jobs/fio-basic/fio-basic-smoke.yaml &&
		one_line_error "^lkprobot: --kcflags are the flags of a build: give --tree and --commit too$" &&
		expect_exit 2 lkprobot $cmd --tree "$TMP/repo" --commit HEAD --kcflags "-O2;reboot" jobs/fio-basic/fio-basic-smoke.yaml &&
		one_line_error "^lkprobot: KCFLAGS .-O2;reboot.: only letters, digits, spaces and" || return 1
	done
'

test_done

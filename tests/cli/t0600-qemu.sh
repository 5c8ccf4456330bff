#!/bin/sh
# lkprobot qemu: Debian's packaged kernel (fetched with apt-get download the
# first time) booted under QEMU — TCG here, KVM where it works — with two
# emulated NVDIMMs, the smoke fio job on xfs -o dax run inside by the same
# engine as 'lkprobot run'; and kernels that panic or never come up. Needs
# root, qemu-system-x86, busybox-static, ndctl. The accelerator: KVM only
# where a probe guest runs under it, TCG otherwise and said why; a host
# without /dev/kvm is tried by pointing the probe elsewhere, and a KVM whose
# guests abort (this CI host's nested KVM) by a probe turned off.
# wall-clock limit: 1800 s
. "$(dirname "$0")/lib.sh"
test_need_root
test_need_cmd qemu-system-x86_64 qemu-system-x86
test_need_cmd busybox busybox-static
test_need_cmd ndctl ndctl
test_need_cmd python3 python3
test_need_cmd sqlite3 sqlite3

RES="$TMP/result"
CACHE=${LKPROBOT_TEST_CACHE:-/var/cache/lkprobot-test}
q() { lkprobot qemu -o "$RES" --cache "$CACHE" --db "$TMP/store.db" "$@"; }
qe() {	# qe VAR=VALUE... -- ARGS: q with these in the environment
	vars=
	while [ "$1" != -- ]; do vars="$vars $1"; shift; done
	shift
	env $vars "$LKPROBOT" qemu -o "$RES" --cache "$CACHE" --db "$TMP/store.db" "$@"
}
# the consoles of boots that left no result root
test_log "$RES/.lkprobot-qemu.*/dmesg"

test_expect_success 'two NVDIMMs, xfs with DAX, the smoke fio job: a complete result root' '
	q jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/q.out" 2>"$TMP/q.err" &&
	cat "$TMP/q.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/q.out") && [ -d "$R" ] && echo "$R" >"$TMP/root" &&
	case "$R" in "$RES"/fio-basic/2M-2pmem-xfs-sync-dax-2-5s-randwrite-256M-tb/qemu-pmem/*) ;; *) exit 1;; esac &&
	grep -q "kernel: Debian.s linux-image-" "$TMP/q.err" &&
	for f in job.yaml dmesg fio.task fio.output stats.json vmstat.json; do
		[ -s "$R/$f" ] || { echo "missing $f"; exit 1; }
	done &&
	grep -qx "job_state: finished" "$R/job.yaml" &&
	test_set_prereq BOOTED &&
	if grep -q "^lkprobot: KVM not used, TCG instead: a QEMU guest under KVM died" "$TMP/q.err"; then
		test_set_prereq KVM_GUESTS_ABORT
	fi
'

test_expect_success BOOTED 'kernel.config is the booted kernel.s config; reproduce.json the qemu command that ran it' '
	R=$(cat "$TMP/root") && rel=$(basename "$(dirname "$R")") &&
	[ -s "$R/kernel.config" ] &&
	cmp "$R/kernel.config" "$CACHE/debian/$rel/root/boot/config-$rel" &&
	python3 -c "import json,sys
a=json.load(open(sys.argv[1]))[\"argv\"]
assert a == [\"lkprobot\", \"qemu\", \"job.yaml\"], a
" "$R/reproduce.json"
'

test_expect_success BOOTED 'fio wrote, and its numbers are in stats.json' '
	R=$(cat "$TMP/root") &&
	python3 -c "import json,sys
s=json.load(open(sys.argv[1])); f=json.load(open(sys.argv[2]))
bw=f[\"jobs\"][0][\"write\"][\"bw\"]
assert s[\"fio.write_bw_MBps\"] > 0
assert abs(s[\"fio.write_bw_MBps\"] - bw/1024) < 1e-9*max(1,bw)
" "$R/stats.json" "$R/fio.output"
'

test_expect_success BOOTED 'DAX was really on (queue, mount, statx) on both NVDIMMs, said on stdout and in job.yaml' '
	R=$(cat "$TMP/root") &&
	dax="pmem0 queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set, libpmem [a-z ]*; pmem1 queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set" &&
	grep -q "^  dax: $dax" "$R/job.yaml" &&
	grep -q "^  dax: $dax" "$TMP/q.out"
'

test_expect_success BOOTED 'the accelerator is in job.yaml; TCG says it is no benchmark and why KVM was not used (stderr too)' '
	R=$(cat "$TMP/root") &&
	accel=$(sed -n "s/^  accel: .\(kvm\|tcg\).*/\1/p" "$R/job.yaml") && [ -n "$accel" ] &&
	grep -q "^finished .*, $accel)$" "$TMP/q.out" &&
	{ [ "$accel" = kvm ] || {
		grep -q "^  accel: .tcg: an emulated CPU; the numbers are a functional check, not a performance figure; KVM not used: ." "$R/job.yaml" &&
		grep -q "^lkprobot: KVM not used, TCG instead: ." "$TMP/q.err" &&
		grep -q "^  accel: tcg .*(KVM not used: ." "$TMP/q.out"
	}; }
'

test_expect_success 'no /dev/kvm (the probe pointed at a missing device): TCG, the reason on stderr and in facts: accel' '
	qe LKPROBOT_KVM_DEVICE="$TMP/no-kvm" -- jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/nokvm.out" 2>"$TMP/nokvm.err" &&
	cat "$TMP/nokvm.out" "$TMP/nokvm.err" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*, tcg)$/\1/p" "$TMP/nokvm.out") && [ -d "$R" ] &&
	grep -qx "lkprobot: KVM not used, TCG instead: $TMP/no-kvm: No such file or directory" "$TMP/nokvm.err" &&
	grep -q "^  accel: .tcg: an emulated CPU; .*; KVM not used: $TMP/no-kvm: No such file or directory.$" "$R/job.yaml"
'

test_expect_success '--accel kvm where KVM cannot run a guest, or a word that is no accelerator: exit 2, one line' '
	expect_exit 2 env LKPROBOT_KVM_DEVICE="$TMP/no-kvm" "$LKPROBOT" qemu -o "$RES" --accel kvm jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: --accel kvm: KVM cannot run a guest here \(.*/no-kvm: No such file or directory\); use --accel tcg or auto$" &&
	expect_exit 2 env LKPROBOT_KVM_DEVICE="$TMP/no-kvm" LKPROBOT_ACCEL=kvm "$LKPROBOT" qemu -o "$RES" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: LKPROBOT_ACCEL=kvm: KVM cannot run a guest here" &&
	expect_exit 2 "$LKPROBOT" qemu -o "$RES" --accel kmv jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: --accel: .kmv. is not an accelerator; use kvm, tcg or auto$" &&
	expect_exit 2 "$LKPROBOT" qemu-box --dir "$TMP/box" --ssh-port 2222 --authorized-keys /dev/null --accel kmv &&
	one_line_error "^lkprobot: --accel: .kmv. is not an accelerator" &&
	expect_exit 2 env LKPROBOT_KVM_DEVICE="$TMP/no-kvm" "$LKPROBOT" bisect --accel kvm --tree . --good HEAD --bad HEAD -o "$TMP/b" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: --accel kvm: KVM cannot run a guest here"
'

test_expect_success KVM_GUESTS_ABORT 'a KVM the probe trusts whose guest aborts (the probe off): booted again under TCG, said so' '
	qe LKPROBOT_KVM_PROBE=off -- jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/retry.out" 2>"$TMP/retry.err" &&
	cat "$TMP/retry.out" "$TMP/retry.err" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*, tcg)$/\1/p" "$TMP/retry.out") && [ -d "$R" ] &&
	grep -q "^lkprobot: QEMU under KVM exited (signal 6) before the guest started: qemu-system-x86_64: .*; booting again under TCG$" "$TMP/retry.err" &&
	grep -q "^  accel: .tcg: .*; KVM not used: QEMU under KVM exited (signal 6) before the guest started: qemu-system-x86_64: .*; booted again under TCG.$" "$R/job.yaml" &&
	expect_exit 1 env LKPROBOT_KVM_PROBE=off "$LKPROBOT" qemu -o "$RES" --cache "$CACHE" --no-store --accel kvm jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^boot_failed (no result root) .*, kvm)$" "$TMP/.stdout" &&
	grep -q "^  reason: QEMU exited (signal 6) before the guest reported a result: qemu-system-x86_64: .* (console: $RES/.lkprobot-qemu.[^/]*/dmesg)$" "$TMP/.stdout"
'

test_expect_success 'legacy pmem from the job.s boot_params (memmap=), no NVDIMMs: DAX too' '
	q -s "boot_params: {bp1_memmap: 512M!512M, bp2_memmap: 512M!1G}" jobs/fio-basic/fio-basic-smoke.yaml runtime=2s >"$TMP/mm.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/mm.out") && [ -d "$R" ] &&
	case "$R" in "$RES"/fio-basic/512M_512M-512M_1G-2M-2pmem-*) ;; *) exit 1;; esac &&
	grep -q "^  dax: pmem0 queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set.*; pmem1 queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set" "$R/job.yaml" &&
	! grep -q "@@LKPROBOT fsdax" "$R/dmesg"
'

test_expect_success BOOTED 'the guest loaded only the job.s modules, mkfs ran on both NVDIMMs at once, the host extracted' '
	R=$(cat "$TMP/root") &&
	! grep "insmod .* failed" "$R/dmesg" &&
	grep -q "^@@LKPROBOT ready (" "$R/dmesg" &&
	grep -q "^@@LKPROBOT setup fs (" "$R/dmesg" &&
	grep -qx "mkfs.xfs -f -q -m reflink=0 /dev/pmem0 &" "$R/reproduce.sh" &&
	grep -qx "mkfs.xfs -f -q -m reflink=0 /dev/pmem1 &" "$R/reproduce.sh" &&
	grep -qx "wait" "$R/reproduce.sh" &&
	! grep -q "^stats_problems:" "$R/job.yaml" &&
	[ -s "$R/fio.json" ] && [ -s "$(dirname "$R")/matrix.json" ]
'

test_expect_success BOOTED 'a test module built against the booted Debian kernel (headers here)' '
	R=$(cat "$TMP/root") && rel=$(basename "$(dirname "$R")") &&
	if [ -d "/usr/src/linux-headers-$rel" ]; then
		cp -r tests/fixtures/warn-module "$TMP/warn" &&
		make -s -C "/usr/src/linux-headers-$rel" M="$TMP/warn" modules >"$TMP/warn.log" 2>&1 &&
		[ -s "$TMP/warn/lkprobot_warn.ko" ] &&
		test_set_prereq WARN_MODULE
	else
		echo "no kernel headers for the booted $rel (Debian package linux-headers-$rel)" >"$TMP/.why-WARN_MODULE"
	fi
'

test_expect_success WARN_MODULE 'a kernel WARNING while fio runs (the module loaded then): the whole kernel log in dmesg, a dmesg.WARNING failure row in compare' '
	R=$(cat "$TMP/root") &&
	"$LKPROBOT" qemu -o "$TMP/warned" --cache "$CACHE" --no-store --append "lkprobot.insmod=$TMP/warn/lkprobot_warn.ko" \
		jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/w.out" &&
	W=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/w.out") && [ -d "$W" ] &&
	grep -q "^@@LKPROBOT insmod $TMP/warn/lkprobot_warn.ko (" "$W/dmesg" &&
	grep -q "^\[ *[0-9.]*\] WARNING: CPU: [0-9]* PID: [0-9]* at .*lkprobot_warn.c:[0-9]* lkprobot_warn_init+" "$W/dmesg" &&
	grep -q "^\[ *[0-9.]*\] Linux version " "$W/dmesg" &&
	! grep -q " oops=panic" "$W/dmesg" &&
	grep -q "\"dmesg.WARNING:at.*lkprobot_warn.c:#lkprobot_warn_init\[lkprobot_warn\]\": 1" "$W/stats.json" &&
	! grep -q "\"dmesg.WARNING" "$R/stats.json" &&
	"$LKPROBOT" compare "$(dirname "$R")" "$(dirname "$W")" >"$TMP/w.cmp" && cat "$TMP/w.cmp" &&
	grep -q "^ *:1 *100% *1:1 *dmesg.WARNING:at.*lkprobot_warn.c:#lkprobot_warn_init\[lkprobot_warn\]$" "$TMP/w.cmp" &&
	grep -q "^ *fail:runs *%reproduction *fail:runs$" "$TMP/w.cmp"
'

test_expect_success BOOTED 'turbostat: numbers, or (an emulated CPU) unavailable with the reason, never a parse failure' '
	R=$(cat "$TMP/root") &&
	! grep -q "^  turbostat:.*no header line" "$R/job.yaml" &&
	{ grep -q "^  turbostat: .*no APERF/MPERF" "$R/job.yaml" || grep -q "\"turbostat.Busy%\"" "$R/stats.json"; }
'

test_expect_success 'a memmap= reservation in q35.s 2G-4G hole is refused before booting (exit 2)' '
	expect_exit 2 q -s "boot_params: {bp1_memmap: 4G!2G}" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "bp1_memmap: memmap=4G!2G reaches into the 2G-4G hole.*memmap=4G!4G"
'

test_expect_success BOOTED 'the host recorded the run in the store' '
	n=$(find "$RES" -name job.yaml ! -path "*/.lkprobot-qemu.*" -exec grep -lx "job_state: finished" {} + | wc -l) &&
	[ "$n" -ge 2 ] &&
	[ "$(sqlite3 "$TMP/store.db" "select count(*) from runs where job_state = '\''finished'\''")" = "$n" ]
'

test_expect_success '--runs 2 --reuse-boot: two runs in one boot, two matrix columns' '
	q --runs 2 --reuse-boot --job-timeout 300 jobs/fio-basic/fio-basic-smoke.yaml runtime=2s >"$TMP/r.out" &&
	[ $(grep -c "^finished " "$TMP/r.out") = 2 ] &&
	grep -q "(the same boot)" "$TMP/r.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) (boot.*/\1/p" "$TMP/r.out") &&
	[ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"stats_source\"]))" "$(dirname "$R")/matrix.json")" = 2 ] &&
	for d in $(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/r.out"); do
		[ -s "$d/kernel.config" ] &&
		python3 -c "import json,sys
a=json.load(open(sys.argv[1]))[\"argv\"]
assert a == [\"lkprobot\", \"qemu\", \"--job-timeout\", \"300\", \"--runs\", \"2\", \"--reuse-boot\", \"job.yaml\"], a
" "$d/reproduce.json" || exit 1
	done
'

test_expect_success 'a kernel that panics: job_state panic, with the console kept' '
	expect_exit 1 q --append rdinit=/bin/echo jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^panic " "$TMP/.stdout" &&
	grep -q "Kernel panic.* (console: $RES/.lkprobot-qemu.[^/]*/dmesg)$" "$TMP/.stdout" &&
	ls "$RES"/.lkprobot-qemu.*/dmesg >/dev/null &&
	! pgrep -f "qemu-system-x86_64.*$RES" >/dev/null
'

test_expect_success 'a guest that never comes up: boot timeout, QEMU killed' '
	expect_exit 1 q --boot-timeout 1 jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^boot_failed " "$TMP/.stdout" &&
	grep -q "did not start lkprobot within 1 s" "$TMP/.stdout" &&
	! pgrep -f "qemu-system-x86_64.*$RES" >/dev/null
'

test_expect_success 'a guest stuck in its job past --job-timeout: timeout, QEMU killed' '
	expect_exit 1 q --job-timeout 4 jobs/fio-basic/fio-basic-smoke.yaml runtime=120s &&
	grep -q "^timeout " "$TMP/.stdout" &&
	grep -q "ran the job for more than 4 s: QEMU killed" "$TMP/.stdout" &&
	! pgrep -f "qemu-system-x86_64.*$RES" >/dev/null
'

test_expect_success 'SIGTERM while the guest runs its job: the console is kept, QEMU killed, lkprobot dies of the signal' '
	rm -rf "$RES"/.lkprobot-qemu.* &&
	{ "$LKPROBOT" qemu -o "$RES" --cache "$CACHE" --db "$TMP/store.db" jobs/fio-basic/fio-basic-smoke.yaml runtime=120s \
		>"$TMP/t.out" 2>"$TMP/t.err" & pid=$!; } &&
	for i in $(seq 1 1800); do [ -n "$(find "$RES" -name fio.task -newer "$TMP/t.err" 2>/dev/null)" ] && break; sleep 0.1; done &&
	kill -TERM $pid && rc=0 && { wait $pid || rc=$?; } && cat "$TMP/t.err" &&
	[ $rc = 143 ] &&
	grep -q "lkprobot was stopped (Terminated): QEMU killed; the console is in .*/dmesg" "$TMP/t.err" &&
	grep -q "@@LKPROBOT guest" "$RES"/.lkprobot-qemu.*/dmesg &&
	! pgrep -f "qemu-system-x86_64.*$RES" >/dev/null
'

test_expect_success '--tree/--commit: a commit that does not build ends as build_failed; one not in the tree is bad input' '
	REPO="$TMP/repo" && mkdir -p "$REPO" &&
	printf ".PHONY: allnoconfig olddefconfig defconfig bzImage\nallnoconfig defconfig olddefconfig:\n\t@echo CONFIG_X=y > \$(O)/.config\nbzImage:\n\t@echo \"pmem.c:3:5: error: expected ; before }\" >&2\n\t@false\n" >"$REPO/Makefile" &&
	git -C "$REPO" init -q -b main && git -C "$REPO" add -A &&
	git -C "$REPO" -c user.name=T -c user.email=t@example.org commit -q -m broken &&
	expect_exit 1 q --tree "$REPO" --commit HEAD jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^build_failed " "$TMP/.stdout" &&
	grep -q "reason: pmem.c:3:5: error: expected ; before }" "$TMP/.stdout" &&
	expect_exit 2 q --tree "$REPO" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "go together" &&
	expect_exit 2 q --tree "$REPO" --commit nosuch jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "^lkprobot: cannot resolve .nosuch. in .$REPO.: "
'

test_done

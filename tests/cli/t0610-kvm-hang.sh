#!/bin/sh
# A host whose KVM runs firmware but not a Linux kernel (a nested host:
# silent after "Probing EDD... ok", or an oops before user space), played
# by a qemu-system-x86_64 wrapper first on PATH: for -accel kvm it passes
# the firmware probe (-bios: isa-debug-exit's exit status) and then hangs
# or oopses, in the kernel probe (lkprobot.probe= on its command line) or
# only in the job's boot; everything else runs the real QEMU under TCG. So
# it runs the same where KVM works, hangs, aborts or is absent
# (LKPROBOT_KVM_PROBE=no-device: QEMU alone says whether KVM runs). The
# demo and `lkprobot qemu` finish under TCG with the reason, in bounded
# time; the answer is recorded and the next run pays no probe; --accel kvm
# fails with the reason; qemu-box boots under TCG. Needs root, as t0600.
# wall-clock limit: 1500 s
. "$(dirname "$0")/lib.sh"
test_need_root
test_need_cmd qemu-system-x86_64 qemu-system-x86
test_need_cmd busybox busybox-static
test_need_cmd ndctl ndctl

RES="$TMP/result"
CACHE=${LKPROBOT_TEST_CACHE:-/var/cache/lkprobot-test}
REAL_QEMU=$(command -v qemu-system-x86_64)
mkdir -p "$TMP/bin"
cat >"$TMP/bin/qemu-system-x86_64" <<EOF
#!/bin/sh
# t0610's KVM: LKPROBOT_TEST_KVM says how it fails a kernel
#   hang, oops:           every boot under KVM (the kernel probe's too)
#   boot-hang, boot-oops: the job's boot only (the kernel probe passes)
kvm= bios= probe= prev=
for a in "\$@"; do
	case "\$prev" in
	-accel) [ "\$a" = kvm ] && kvm=1;;
	-bios) bios=1;;
	-append) case "\$a" in *lkprobot.probe=*) probe=1;; esac;;
	esac
	prev=\$a
done
echo "kvm=\$kvm bios=\$bios probe=\$probe" >>"$TMP/kvm.log"
[ -n "\$kvm" ] || exec "$REAL_QEMU" "\$@"
# the firmware probe: the exit status of its write to isa-debug-exit, (0x2a << 1) | 1
[ -z "\$bios" ] || exit 85
case "\${LKPROBOT_TEST_KVM:-hang}" in
boot-*) if [ -n "\$probe" ]; then
		echo "[    0.000000] Linux version 6.1.0 (t0610's KVM)"
		echo "@@LKPROBOT probe-init (0.50 s since boot)"
		exit 0
	fi;;
esac
case "\${LKPROBOT_TEST_KVM:-hang}" in
*hang) echo "Probing EDD (edd=off to disable)... ok";;
*oops) echo "[    0.000000] Linux version 6.1.0 (t0610's KVM)"
	echo "[    0.912345] BUG: kernel NULL pointer dereference, address: 0000000000000008"
	echo "[    0.912350] Oops: 0000 [#1] PREEMPT SMP NOPTI"
	echo "[    0.912360] Code: 24 5b 80 41 00 00 00 00";;
esac
exec sleep 600
EOF
chmod +x "$TMP/bin/qemu-system-x86_64"
# this wrapper's records (its path is in their key) go with the test
forget() {
	grep -l "^qemu: $TMP/bin/" "$CACHE"/kvm-probe/* 2>/dev/null | xargs -r rm -f
	: >"$TMP/kvm.log"
}
test_at_exit forget
test_log "$TMP/kvm.log"
export LKPROBOT_KVM_PROBE=no-device
kvm_env() {	# kvm_env MODE CMD...: CMD with the wrapper's KVM failing kernels as MODE says
	mode=$1
	shift
	env PATH="$TMP/bin:$PATH" LKPROBOT_TEST_KVM="$mode" "$@"
}
kq() {	# kq MODE ARGS...: lkprobot qemu there
	mode=$1
	shift
	kvm_env "$mode" "$LKPROBOT" qemu -o "$RES" --cache "$CACHE" --no-store --boot-timeout 300 "$@"
}
# the result root of a run that finished under TCG, from its stdout $1
tcg_root() {
	R=$(sed -n "s/^finished \([^ ]*\) .*, tcg)$/\1/p" "$1") && [ -d "$R" ] && echo "$R"
}
probes() {	# the kernel probes the wrapper saw
	grep -c "^kvm=1 bios= probe=1$" "$TMP/kvm.log" || true
}
boots_kvm() {	# the job's boots under KVM it saw
	grep -c "^kvm=1 bios= probe=$" "$TMP/kvm.log" || true
}

test_expect_success 'make demo where KVM hangs every kernel: the probe sees it, the job runs under TCG with DAX, the reason said' '
	forget && start=$(date +%s) &&
	kvm_env hang env LKPROBOT_DEMO_BIN="$LKPROBOT" LKPROBOT_CACHE="$CACHE" LKPROBOT_DEMO_RESULTS="$TMP/demo" \
		sh tests/demo.sh >"$TMP/demo.out" 2>"$TMP/demo.err" &&
	took=$(($(date +%s) - start)) && cat "$TMP/demo.out" "$TMP/demo.err" && echo "took $took s" &&
	R=$(tcg_root "$TMP/demo.out") &&
	why="the kernel probe: $CACHE/debian/[^ ]*/vmlinux under KVM printed no kernel line within 15 s (the last line on its console: Probing EDD (edd=off to disable)... ok)" &&
	grep -qx "lkprobot: KVM not used, TCG instead: $why" "$TMP/demo.err" &&
	grep -q "^  accel: tcg .*(KVM not used: $why)$" "$TMP/demo.out" &&
	grep -q "^  accel: .tcg: an emulated CPU; .*; KVM not used: $why.$" "$R/job.yaml" &&
	grep -q "^  dax: pmem0 queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set.*; pmem1 queue/dax=1" "$R/job.yaml" &&
	grep -qx "job_state: finished" "$R/job.yaml" &&
	[ "$(probes)" = 1 ] && [ "$(boots_kvm)" = 0 ] &&
	[ "$took" -lt 240 ]
'

test_expect_success 'the next run: the record answers at once, no probe, no boot under KVM; another kernel: the host.s record' '
	: >"$TMP/kvm.log" &&
	kq hang jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/again.out" 2>"$TMP/again.err" &&
	cat "$TMP/again.err" && R=$(tcg_root "$TMP/again.out") &&
	grep -q "^lkprobot: KVM not used, TCG instead: the kernel probe: .* printed no kernel line within 15 s .* (probed [0-9T:-]*Z, recorded in $CACHE/kvm-probe/[0-9a-f-]*: delete it to probe again)$" "$TMP/again.err" &&
	[ "$(probes)" = 0 ] && [ "$(boots_kvm)" = 0 ] &&
	rec=$(grep -l "^qemu: $TMP/bin/" "$CACHE"/kvm-probe/*) && cat "$rec" &&
	grep -qx "boots: no" "$rec" && grep -q "^kernel: $CACHE/debian/.*/vmlinux [0-9]* [0-9.]*$" "$rec" &&
	grep -q "^host: $(uname -r) " "$rec" &&
	cp "$(sed -n "s/^kernel: \([^ ]*\) .*/\1/p" "$rec")" "$TMP/vmlinux" && : >"$TMP/kvm.log" &&
	expect_exit 1 kq hang -k "$TMP/vmlinux" --boot-timeout 1 jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^lkprobot: KVM not used, TCG instead: KVM booted no kernel here: the kernel probe: .* (probed .*, recorded in $CACHE/kvm-probe/[0-9a-f-]*: delete it, or use --accel kvm, to probe again)$" "$TMP/err" &&
	[ "$(probes)" = 0 ] && [ "$(boots_kvm)" = 0 ]
'

test_expect_success '--accel kvm where KVM hangs the kernel: probed again, then exit 1 and the reason, no boot' '
	: >"$TMP/kvm.log" &&
	expect_exit 1 kq hang --accel kvm jobs/fio-basic/fio-basic-smoke.yaml runtime=1s &&
	grep -qx "lkprobot: LKPROBOT_ACCEL=kvm (--accel kvm): KVM cannot boot the kernel here (the kernel probe: .* printed no kernel line within 15 s (.*)); use --accel tcg or auto" "$TMP/err" &&
	[ "$(probes)" = 1 ] && [ "$(boots_kvm)" = 0 ] && ! grep -q "^finished" "$TMP/.stdout"
'

test_expect_success 'a KVM that oopses the kernel: the probe ends at the oops, TCG, the oops said' '
	forget && start=$(date +%s) &&
	kq oops jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/oops.out" 2>"$TMP/oops.err" &&
	took=$(($(date +%s) - start)) && cat "$TMP/oops.err" && echo "took $took s" &&
	R=$(tcg_root "$TMP/oops.out") &&
	why="the kernel probe: .*/vmlinux under KVM failed before user space: BUG: kernel NULL pointer dereference, address: 0000000000000008" &&
	grep -qx "lkprobot: KVM not used, TCG instead: $why" "$TMP/oops.err" &&
	grep -q "^  accel: .tcg: .*; KVM not used: $why.$" "$R/job.yaml" &&
	[ "$(probes)" = 1 ] && [ "$(boots_kvm)" = 0 ]
'

test_expect_success 'the probe passes, the job.s boot hangs silently: QEMU killed after 15 s, booted again under TCG' '
	forget && start=$(date +%s) &&
	kq boot-hang jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/bh.out" 2>"$TMP/bh.err" &&
	took=$(($(date +%s) - start)) && cat "$TMP/bh.err" && echo "took $took s" &&
	R=$(tcg_root "$TMP/bh.out") &&
	grep -qx "lkprobot: the kernel under KVM printed no line in its first 15 s; booting again under TCG" "$TMP/bh.err" &&
	grep -q "^  accel: .tcg: .*; KVM not used: the kernel under KVM printed no line in its first 15 s; booted again under TCG.$" "$R/job.yaml" &&
	[ "$(probes)" = 1 ] && [ "$(boots_kvm)" = 1 ] && [ "$took" -lt 240 ]
'

test_expect_success 'the probe passes, the kernel oopses in the job.s boot: TCG at once; the next run knows (the record)' '
	forget &&
	kq boot-oops jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/bo.out" 2>"$TMP/bo.err" &&
	cat "$TMP/bo.err" && R=$(tcg_root "$TMP/bo.out") &&
	why="the kernel under KVM failed before the guest started: BUG: kernel NULL pointer dereference, address: 0000000000000008" &&
	grep -qx "lkprobot: $why; booting again under TCG" "$TMP/bo.err" &&
	grep -q "^  accel: .tcg: .*; KVM not used: $why; booted again under TCG.$" "$R/job.yaml" &&
	[ "$(probes)" = 1 ] && [ "$(boots_kvm)" = 1 ] &&
	: >"$TMP/kvm.log" &&
	kq boot-oops jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/bo2.out" 2>"$TMP/bo2.err" &&
	cat "$TMP/bo2.err" && tcg_root "$TMP/bo2.out" &&
	grep -q "^lkprobot: KVM not used, TCG instead: $why (a boot of this kernel) (probed .*, recorded in $CACHE/kvm-probe/" "$TMP/bo2.err" &&
	[ "$(probes)" = 0 ] && [ "$(boots_kvm)" = 0 ]
'

test_expect_success 'qemu-box where KVM hangs the kernel: the box boots under TCG, said why' '
	forget && mkdir -p "$TMP/box" && : >"$TMP/box/keys" &&
	{ env PATH="$TMP/bin:$PATH" LKPROBOT_TEST_KVM=hang "$LKPROBOT" qemu-box --dir "$TMP/box/state" --ssh-port $((24000 + $$ % 1000)) \
		--authorized-keys "$TMP/box/keys" --cache "$CACHE" >"$TMP/box.out" 2>"$TMP/box.err" & pid=$!; } &&
	for i in $(seq 1 600); do grep -q "^lkprobot: box qemu-box: " "$TMP/box.err" && break; sleep 0.1; done &&
	stop_pid $pid && cat "$TMP/box.err" &&
	grep -q "^lkprobot: KVM not used, TCG instead: the kernel probe: .* printed no kernel line within 15 s" "$TMP/box.err" &&
	grep -q "^lkprobot: box qemu-box: TCG, ssh on 127.0.0.1:" "$TMP/box.err"
'

test_done

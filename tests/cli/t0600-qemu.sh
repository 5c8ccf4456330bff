#!/bin/sh
# lkprobot qemu: Debian's packaged kernel (fetched with apt-get download the
# first time) booted under QEMU — TCG here, KVM where it works — with two
# emulated NVDIMMs, the smoke fio job on xfs -o dax run inside by the same
# engine as 'lkprobot run'; and kernels that panic or never come up. Needs
# root, qemu-system-x86, busybox-static, ndctl.
. "$(dirname "$0")/lib.sh"

RES="$TMP/result"
CACHE=${LKPROBOT_TEST_CACHE:-/var/cache/lkprobot-test}
q() { lkprobot qemu -o "$RES" --cache "$CACHE" --db "$TMP/store.db" "$@"; }

test_expect_success 'two NVDIMMs, xfs with DAX, the smoke fio job: a complete result root' '
	q jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/q.out" 2>"$TMP/q.err" &&
	cat "$TMP/q.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/q.out") && [ -d "$R" ] && echo "$R" >"$TMP/root" &&
	case "$R" in "$RES"/fio-basic/2M-2pmem-xfs-sync-dax-2-5s-randwrite-256M-tb/qemu-pmem/*) ;; *) exit 1;; esac &&
	grep -q "kernel: Debian.s linux-image-" "$TMP/q.err" &&
	for f in job.yaml dmesg fio.task fio.output stats.json vmstat.json; do
		[ -s "$R/$f" ] || { echo "missing $f"; exit 1; }
	done &&
	grep -qx "job_state: finished" "$R/job.yaml"
'

test_expect_success 'fio wrote, and its numbers are in stats.json' '
	R=$(cat "$TMP/root") &&
	python3 -c "import json,sys
s=json.load(open(sys.argv[1])); f=json.load(open(sys.argv[2]))
bw=f[\"jobs\"][0][\"write\"][\"bw\"]
assert s[\"fio.write_bw_MBps\"] > 0
assert abs(s[\"fio.write_bw_MBps\"] - bw/1024) < 1e-9*max(1,bw)
" "$R/stats.json" "$R/fio.output"
'

test_expect_success 'DAX was really on (queue, mount, statx, libpmem), and the run says TCG is no benchmark' '
	R=$(cat "$TMP/root") &&
	grep -q "^  dax: pmem[01] queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set" "$R/job.yaml" &&
	accel=$(sed -n "s/^  accel: .\(kvm\|tcg\).*/\1/p" "$R/job.yaml") && [ -n "$accel" ] &&
	if [ "$accel" = tcg ]; then grep -q "functional check, not a performance figure" "$R/job.yaml"; fi &&
	grep -q "@@LKPROBOT fsdax namespace" "$R/dmesg" || grep -q "dax" "$R/dmesg"
'

test_expect_success 'legacy pmem from the job.s boot_params (memmap=), no NVDIMMs: DAX too' '
	q -s "boot_params: {bp1_memmap: 512M!512M, bp2_memmap: 512M!1G}" jobs/fio-basic/fio-basic-smoke.yaml runtime=2s >"$TMP/mm.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) .*/\1/p" "$TMP/mm.out") && [ -d "$R" ] &&
	case "$R" in "$RES"/fio-basic/512M_512M-512M_1G-2M-2pmem-*) ;; *) exit 1;; esac &&
	grep -q "^  dax: pmem[01] queue/dax=1, /proc/mounts dax, STATX_ATTR_DAX set" "$R/job.yaml" &&
	! grep -q "fsdax namespace" "$R/dmesg"
'

test_expect_success 'the guest loaded only the job.s modules, mkfs ran on both NVDIMMs at once, the host extracted' '
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

test_expect_success 'turbostat: numbers, or (an emulated CPU) unavailable with the reason, never a parse failure' '
	R=$(cat "$TMP/root") &&
	! grep -q "^  turbostat:.*no header line" "$R/job.yaml" &&
	{ grep -q "^  turbostat: .*no APERF/MPERF" "$R/job.yaml" || grep -q "\"turbostat.Busy%\"" "$R/stats.json"; }
'

test_expect_success 'a memmap= reservation in q35.s 2G-4G hole is refused before booting (exit 2)' '
	expect_exit 2 q -s "boot_params: {bp1_memmap: 4G!2G}" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "bp1_memmap: memmap=4G!2G reaches into the 2G-4G hole.*memmap=4G!4G"
'

test_expect_success 'the host recorded the run in the store' '
	[ "$(sqlite3 "$TMP/store.db" "select count(*) from runs where job_state = '\''finished'\''")" = 2 ]
'

test_expect_success '--runs 2 --reuse-boot: two runs in one boot, two matrix columns' '
	q --runs 2 --reuse-boot --job-timeout 300 jobs/fio-basic/fio-basic-smoke.yaml runtime=2s >"$TMP/r.out" &&
	[ $(grep -c "^finished " "$TMP/r.out") = 2 ] &&
	grep -q "(the same boot)" "$TMP/r.out" &&
	R=$(sed -n "s/^finished \([^ ]*\) (boot.*/\1/p" "$TMP/r.out") &&
	[ "$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"stats_source\"]))" "$(dirname "$R")/matrix.json")" = 2 ]
'

test_expect_success 'a kernel that panics: job_state panic, with the console kept' '
	expect_exit 1 q --append rdinit=/bin/echo jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^panic " "$TMP/.stdout" &&
	grep -q "Kernel panic" "$TMP/.stdout" &&
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
	for i in $(seq 1 600); do [ -n "$(find "$RES" -name fio.task -newer "$TMP/t.err" 2>/dev/null)" ] && break; sleep 0.1; done &&
	kill -TERM $pid; wait $pid; rc=$?; cat "$TMP/t.err";
	[ $rc = 143 ] &&
	grep -q "lkprobot was stopped (Terminated): QEMU killed; the console is in .*/dmesg" "$TMP/t.err" &&
	grep -q "@@LKPROBOT guest" "$RES"/.lkprobot-qemu.*/dmesg &&
	! pgrep -f "qemu-system-x86_64.*$RES" >/dev/null
'

test_expect_success '--tree/--commit: a commit that does not build ends as build_failed' '
	REPO="$TMP/repo" && mkdir -p "$REPO" &&
	printf ".PHONY: allnoconfig olddefconfig defconfig bzImage\nallnoconfig defconfig olddefconfig:\n\t@echo CONFIG_X=y > \$(O)/.config\nbzImage:\n\t@echo \"pmem.c:3:5: error: expected ; before }\" >&2\n\t@false\n" >"$REPO/Makefile" &&
	git -C "$REPO" init -q -b main && git -C "$REPO" add -A &&
	git -C "$REPO" -c user.name=T -c user.email=t@example.org commit -q -m broken &&
	expect_exit 1 q --tree "$REPO" --commit HEAD jobs/fio-basic/fio-basic-smoke.yaml &&
	grep -q "^build_failed " "$TMP/.stdout" &&
	grep -q "reason: pmem.c:3:5: error: expected ; before }" "$TMP/.stdout" &&
	expect_exit 2 q --tree "$REPO" jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "go together"
'

test_done

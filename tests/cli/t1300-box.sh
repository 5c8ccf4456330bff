#!/bin/sh
# The ssh provider's real test boxes, with a QEMU guest standing in for the
# box (`lkprobot qemu-box`: TCG, Debian's kernel, the host's root over 9p,
# user-mode network with an ssh port forward, dropbear, kexec-tools, two
# NVDIMMs, QEMU's monitor as the power switch). `lkprobot box run` kexecs
# it into a second kernel with a memmap= parameter, runs the smoke fio job
# and brings the result root home; a box that comes back with another
# kernel and one that never comes back are recorded failures, and the
# second takes the box out of service until `box enable`. The one mock:
# there is no real pmem DIMM, the NVDIMMs are QEMU's.
# wall-clock limit: 1800 s
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/boxlib.sh"
test_need_cmd sqlite3 sqlite3

B="$TMP/box"
port=$((22000 + $$ % 1000))
test_at_exit 'stop_pid "$(cat "$TMP/qbox.pid" 2>/dev/null)"'
test_log "$TMP/qbox.out" "$B/console" "$TMP/*.err"
box() { lkprobot box --boxes "$TMP/boxes.yaml" -o "$TMP/result" "$@"; }

# the boxes file: name, then more keys (already indented), for each box
write_boxes() {
	file=$1
	shift
	{
		echo "boxes:"
		while [ $# -gt 0 ]; do
			box_entry "$1" "$port" "$B" && printf '%s\n' "$2"
			shift 2
		done
	} >"$file"
}

test_expect_success 'setup: a QEMU box with NVDIMMs answers ssh on a forwarded port' '
	ssh-keygen -q -t ed25519 -N "" -f "$TMP/id" &&
	mkdir -p "$B" && dropbearkey -t ed25519 -f "$B/host_key" >/dev/null &&
	echo "[127.0.0.1]:$port $(dropbearkey -y -f "$B/host_key" | grep ^ssh-)" >"$TMP/known_hosts" &&
	("$LKPROBOT" qemu-box --dir "$B" --ssh-port "$port" --authorized-keys "$TMP/id.pub" --cache "$CACHE" \
		>"$TMP/qbox.out" 2>&1 & echo $! >"$TMP/qbox.pid") &&
	write_boxes "$TMP/boxes.yaml" qbox "    boot_timeout: 120" &&
	wait_box "$port" "$B" && grep -q "@@LKPROBOT box up" "$B/console" &&
	test_set_prereq BOX
'

test_expect_success BOX 'box install: this lkprobot is copied there once, kexec is found, lkprobot install runs there' '
	box install qbox >"$TMP/i1" && cat "$TMP/i1" &&
	grep -q "^box qbox: lkprobot is /mnt/lkprobot/bin/lkprobot-[0-9a-f]\{12\}$" "$TMP/i1" &&
	grep -q "^box qbox: kexec is /.*kexec$" "$TMP/i1" && ls "$B"/disk/lkprobot/bin/lkprobot-* &&
	box install qbox >/dev/null && [ $(ls "$B"/disk/lkprobot/bin | wc -l) = 1 ] &&
	box install qbox jobs/fio-basic/fio-basic-smoke.yaml >"$TMP/i2" 2>&1 && cat "$TMP/i2" &&
	grep -q "^box qbox is ready$" "$TMP/i2" && [ -s "$B/disk/lkprobot/install/job.yaml" ]
'

test_expect_success BOX 'box run: kexec into the kernel with memmap=, the smoke fio job, the result root home' '
	K=$(kernel) && [ -n "$K" ] &&
	box run qbox -k "$K" -s "boot_params: {bp1_memmap: 256M!1G}" jobs/fio-basic/fio-basic-smoke.yaml runtime=2s \
		>"$TMP/r1" 2>"$TMP/r1.err" && cat "$TMP/r1" "$TMP/r1.err" &&
	R=$(sed -n "s/^finished \([^ ]*\)$/\1/p" "$TMP/r1") && [ -d "$R" ] && echo "$R" >"$TMP/root" &&
	case "$R" in "$TMP"/result/fio-basic/256M_1G-2M-2pmem-xfs-sync-dax-2-2s-randwrite-256M-tb/qemu-pmem/*) ;; *) exit 1;; esac &&
	grep -q "booting .* (kexec) with lkprobot.run=[0-9-]* memmap=256M!1G" "$TMP/r1.err" &&
	for f in job.yaml dmesg fio.output stats.json reproduce.sh; do [ -s "$R/$f" ] || { echo "no $f"; exit 1; }; done &&
	grep -qx "job_state: finished" "$R/job.yaml" &&
	cmp "$R/kernel.config" "$(dirname "$K")/config-${K##*/vmlinuz-}" &&
	python3 -c "import json,sys
a=json.load(open(sys.argv[1]))[\"argv\"]
assert a == [\"lkprobot\", \"box\", \"run\", \"qbox\", \"--kernel\", sys.argv[2], \"job.yaml\"], a
" "$R/reproduce.json" "$K"
'

test_expect_success BOX 'the dmesg brought home shows the new kernel.s command line; the job ran on its pmem' '
	R=$(cat "$TMP/root") &&
	grep -q "Command line: .* lkprobot.run=[0-9-]* memmap=256M!1G" "$R/dmesg" &&
	grep -q "^  dax: pmem[0-9] queue/dax=1" "$R/job.yaml" &&
	grep -q "^  accel: .tcg: an emulated CPU; the numbers are a functional check" "$R/job.yaml" &&
	python3 -c "import json,sys; s=json.load(open(sys.argv[1])); assert s[\"fio.write_bw_MBps\"] > 0" "$R/stats.json" &&
	[ -s "$(dirname "$R")/matrix.json" ] &&
	[ "$(sqlite3 "$TMP/result/lkprobot.db" "select job_state from runs")" = finished ] &&
	[ -z "$(ls "$B"/disk/lkprobot/runs)" ]
'

test_expect_success BOX 'a box that comes back with another kernel: a recorded failure, counted' '
	write_boxes "$TMP/boxes.yaml" flaky "    boot: reboot
    reboot_cmd: [/bin/busybox, reboot, -f]
    boot_timeout: 120
    max_failures: 2" &&
	expect_exit 1 box run flaky -k "$(kernel)" jobs/fio-basic/fio-basic-smoke.yaml runtime=2s &&
	cat "$TMP/.stdout" &&
	grep -q "^boot_failed $TMP/result/.*/qemu-pmem/" "$TMP/.stdout" &&
	grep -q "reason: box flaky came back running .* not .* with .lkprobot.run=.*: it did not boot the kernel under test" "$TMP/.stdout" &&
	R=$(sed -n "s/^boot_failed \(.*\)/\1/p" "$TMP/.stdout") && grep -qx "job_state: boot_failed" "$R/job.yaml" &&
	K=$(kernel) && cmp "$R/kernel.config" "$(dirname "$K")/config-${K##*/vmlinuz-}" && [ -s "$R/reproduce.json" ] &&
	box list >"$TMP/l1" && cat "$TMP/l1" && grep -q "^flaky .* in service  *1 .*did not boot the kernel under test" "$TMP/l1"
'

test_expect_success BOX 'a box that never comes back: power-cycled, a recorded failure, out of service' '
	printf "not an initramfs" >"$TMP/junk.cpio" &&
	write_boxes "$TMP/boxes.yaml" flaky "    boot_timeout: 45
    max_failures: 2" &&
	sed -i "s|initrd: .*|initrd: $TMP/junk.cpio|" "$TMP/boxes.yaml" &&
	expect_exit 1 box run flaky -k "$(kernel)" jobs/fio-basic/fio-basic-smoke.yaml runtime=2s &&
	cat "$TMP/.stdout" &&
	grep -Eq "reason: box flaky did not answer within 45 s of kexec into .*; power-cycled(: it is back|, and it did not answer within 45 s either); box flaky is out of service after 2 failures in a row" "$TMP/.stdout" &&
	[ "$(sqlite3 "$TMP/result/lkprobot.db" "select count(*) from runs where job_state = '\''boot_failed'\''")" = 2 ] &&
	wait_box "$port" "$B"
'

test_expect_success BOX 'out of service: runs refused in one line until box enable' '
	expect_exit 1 box run flaky jobs/fio-basic/fio-basic-smoke.yaml runtime=2s &&
	one_line_error "box flaky is out of service \(box flaky did not answer .*\); .lkprobot box enable flaky. puts it back" &&
	box list | grep -q "^flaky .* out of service  *2 " &&
	box enable flaky | grep -qx "box flaky is in service" &&
	box list | grep -q "^flaky .* in service  *0 "
'

# the second run starts once the first holds the box (a loaded machine may take
# seconds to start it): flock -n fails while another holds the file; bounded, 120 s
held_by_first() {
	i=0
	while [ $i -lt 1200 ] && kill -0 "$2" 2>/dev/null; do
		[ -e "$1" ] && ! flock -n "$1" true && return 0
		sleep 0.1
		i=$((i + 1))
	done
	echo "the first run never took the box ($1)"
	return 1
}

test_expect_success BOX 'two runs on one box at once: the second waits for the first (no kexec under a run)' '
	{ box run flaky jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/c1" 2>"$TMP/c1.err" & p1=$!; } &&
	held_by_first "$TMP/result/.boxes/flaky.lock" $p1 && box run flaky jobs/fio-basic/fio-basic-smoke.yaml runtime=1s >"$TMP/c2" 2>"$TMP/c2.err" &&
	wait $p1 && cat "$TMP/c1" "$TMP/c2" "$TMP/c1.err" "$TMP/c2.err" &&
	grep -q "^finished " "$TMP/c1" && grep -q "^finished " "$TMP/c2" &&
	grep -q "box flaky: another run has it (.*/.boxes/flaky.lock); waiting" "$TMP/c2.err" &&
	a=$(sed -n "s/^finished //p" "$TMP/c1") && b=$(sed -n "s/^finished //p" "$TMP/c2") &&
	[ "$(sed -n "s/^end_time: //p" "$a/job.yaml")" -le "$(sed -n "s/^start_time: //p" "$b/job.yaml")" ]
'

test_expect_success BOX 'a box whose host key is not the known one is not used' '
	sed -i "s/ssh-ed25519 .*/ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKPgLn9angedwQYVwYQ3m3ctdVxzK898GUCuHHknbUL0/" "$TMP/known_hosts" &&
	write_boxes "$TMP/boxes.yaml" qbox "" &&
	expect_exit 1 box install qbox && one_line_error "box qbox \(root@127.0.0.1:$port\): cannot reach it: .*[Hh]ost key verification failed"
'

test_expect_success 'a bad boxes file: one line with file:line:col, exit 2' '
	printf "boxes:\n  b1:\n    host: h\n    hots: x\n" >"$TMP/bad.yaml" &&
	expect_exit 2 lkprobot box --boxes "$TMP/bad.yaml" run b1 jobs/fio-basic/fio-basic-smoke.yaml &&
	one_line_error "bad.yaml:4:11: boxes.b1.hots: not a setting lkprobot knows" &&
	printf "boxes:\n  b1:\n    host: h\n    workdir: \"/a b\"\n" >"$TMP/bad.yaml" &&
	expect_exit 2 lkprobot box --boxes "$TMP/bad.yaml" install b1 &&
	one_line_error "bad.yaml:4:14: boxes.b1.workdir: must be an absolute path" &&
	expect_exit 2 lkprobot box --boxes "$TMP/bad.yaml" enable nosuch && one_line_error "no box .nosuch."
'

test_done

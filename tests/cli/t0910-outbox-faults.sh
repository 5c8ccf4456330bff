#!/bin/sh
# The outbox under faults, with real parts: a store another process holds
# (sqlite3's BEGIN IMMEDIATE), a store on a tmpfs that fills (a mount
# namespace: root only), and SMTP servers (tests/fixtures/smtp/smtpd.py)
# that take the mail and then drop the connection or say nothing. Every
# mail is sent at most once; the ones whose fate is unknown are in doubt.
# wall-clock limit: 300 s
. "$(dirname "$0")/lib.sh"
test_need_cmd python3 python3
test_need_cmd sqlite3 sqlite3

PY=/usr/bin/python3
FIX="$SRC/tests/fixtures"
port=$((40000 + $$ % 20000))
B="$TMP/r/fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian/x86_64-rhel-7.2/gcc-6"
ID=0123456789abcdef0123456789abcdef01234567
export B ID

. "$(dirname "$0")/smtplib.sh"
stop_holder() {
	[ -s "$TMP/holder.pid" ] && stop_pid "$(cat "$TMP/holder.pid")"
	rm -f "$TMP/holder.pid"
}
test_at_exit "stop_smtpd; stop_holder"
test_log "$TMP/smtpd.log"

# conf FILE TIMEOUT: a live mail: section for the server on $port
conf() {
	printf "mail:\n  live: true\n  operator: Robot Operator <ops@example.org>\n  from: kernel test robot <lkp@example.org>\n  domain: lkp.example.org\n  retry: 1\n  smtp:\n    url: smtp://localhost:%s\n    tls: none\n    timeout: %s\n" \
		"$port" "$2" >"$1"
}
# The helpers the tests run here and in a mount namespace of their own (full.sh).
cat >"$TMP/fns.sh" <<\EOF
# queue DB: one report queued in the store DB, not sent (the sender dies between)
queue() {
	set +e
	LKPROBOT_FAULT=after-queue "$LKPROBOT" report --send --config "$TMP/c.yaml" --db "$1" --to a@example.org \
		--base "$B/base" --commit "$B/$ID" --date 1485000000 >/dev/null 2>"$TMP/queue.err"
	rc=$?
	set -e
	[ $rc = 137 ] || { echo "queue: exit $rc"; cat "$TMP/queue.err"; return 1; }
	"$LKPROBOT" outbox --db "$1" list | grep -q "^1 queued attempts 0 "
}
# until_connecting DB: wait (20 s at most) until a sender has claimed message 1
until_connecting() {
	for i in $(seq 1 200); do
		"$LKPROBOT" outbox --db "$1" list 2>/dev/null | grep -q "^1 connecting " && return 0
		sleep 0.1
	done
	echo "message 1 never connecting:"; "$LKPROBOT" outbox --db "$1" list; return 1
}
EOF
. "$TMP/fns.sh"
spooled() { ls "$1" | wc -l; }

test_expect_success 'setup: the samples of a report, its job' '
	python3 "$FIX/compare/gen-samples.py" "$FIX/compare/example-000.rows" "$B/base" "$B/$ID" &&
	mkdir -p "$B/$ID/0" &&
	lkprobot split-job -t lkp-hsw-ep6 -o "$TMP/sj" jobs/fio-basic/fio-basic-2pmem-xfs-dax-randwrite-2M-sync.yaml >/dev/null &&
	cp "$TMP"/sj/*.yaml "$B/$ID/0/job.yaml" &&
	conf "$TMP/c.yaml" 60 &&
	test_set_prereq SETUP
'

test_expect_success SETUP 'another writer holds the store while the mail goes: it does not leave, and is sent once when the store is free' '
	db=$TMP/held.db && queue "$db" &&
	start_smtpd "$TMP/spool-held" --rcpt-delay 3 &&
	{ "$LKPROBOT" outbox --config "$TMP/c.yaml" --db "$db" send >"$TMP/held.out" 2>"$TMP/held.err" & sender=$!; } &&
	until_connecting "$db" &&
	{ { echo "BEGIN IMMEDIATE;"; sleep 25; echo "COMMIT;"; } | sqlite3 "$db" & echo $! >"$TMP/holder.pid"; } &&
	rc=0 && { wait $sender || rc=$?; } &&
	cat "$TMP/held.out" "$TMP/held.err" &&
	[ $rc = 1 ] &&
	[ "$(spooled "$TMP/spool-held")" = 0 ] &&
	grep -q "cannot mark outbox message 1 as being sent: database is locked" "$TMP/held.out" "$TMP/held.err" &&
	wait "$(cat "$TMP/holder.pid")" && rm -f "$TMP/holder.pid" &&
	lkprobot outbox --config "$TMP/c.yaml" --db "$db" send >"$TMP/held2.out" &&
	lkprobot outbox --config "$TMP/c.yaml" --db "$db" send >>"$TMP/held2.out" &&
	stop_smtpd && cat "$TMP/held2.out" &&
	[ "$(spooled "$TMP/spool-held")" = 1 ] &&
	lkprobot outbox --db "$db" list | grep -q "^1 sent attempts 2 "
'

test_expect_success SETUP 'a sender killed once "sending" is recorded, as the message starts to leave: in doubt, never sent on its own' '
	db=$TMP/ondata.db && queue "$db" &&
	start_smtpd "$TMP/spool-ondata" &&
	expect_exit 137 env LKPROBOT_FAULT=on-data "$LKPROBOT" outbox --config "$TMP/c.yaml" --db "$db" send &&
	lkprobot outbox --config "$TMP/c.yaml" --db "$db" send >"$TMP/ondata.out" &&
	sleep 1.5 && lkprobot outbox --config "$TMP/c.yaml" --db "$db" send >>"$TMP/ondata.out" &&
	stop_smtpd && cat "$TMP/ondata.out" &&
	grep -q "1 message left being sent by a sender that stopped: in doubt, not sent again" "$TMP/ondata.out" &&
	[ "$(spooled "$TMP/spool-ondata")" = 0 ] &&
	lkprobot outbox --db "$db" list | grep -q "^1 in-doubt attempts 1 "
'

test_expect_success SETUP 'the server drops the connection after the final dot: in doubt, never sent again on its own; retry sends it' '
	db=$TMP/drop.db && queue "$db" &&
	start_smtpd "$TMP/spool-drop" --after-dot drop &&
	expect_exit 1 lkprobot outbox --config "$TMP/c.yaml" --db "$db" send &&
	cat "$TMP/.stdout" &&
	grep -q "^in doubt 1 <.*>: the message went out and the server.s answer to its end never came (.*): the server may have it; not sent again on its own" "$TMP/.stdout" &&
	grep -q "lkprobot outbox retry 1. sends it again" "$TMP/.stdout" &&
	lkprobot outbox --db "$db" list | grep -q "^1 in-doubt attempts 1 " &&
	sleep 1.5 &&
	lkprobot outbox --config "$TMP/c.yaml" --db "$db" send --wait 3 &&
	[ "$(spooled "$TMP/spool-drop")" = 1 ] &&
	stop_smtpd && start_smtpd "$TMP/spool-drop" &&
	lkprobot outbox --db "$db" retry 1 &&
	lkprobot outbox --config "$TMP/c.yaml" --db "$db" send &&
	stop_smtpd &&
	[ "$(spooled "$TMP/spool-drop")" = 2 ]
'

test_expect_success SETUP 'the server says nothing after the final dot (timeout 4 s): in doubt within the timeout, not sent again' '
	db=$TMP/stall.db && queue "$db" && conf "$TMP/c4.yaml" 4 &&
	start_smtpd "$TMP/spool-stall" --after-dot stall &&
	t0=$(date +%s) &&
	expect_exit 1 lkprobot outbox --config "$TMP/c4.yaml" --db "$db" send &&
	t1=$(date +%s) && cat "$TMP/.stdout" && echo "took $((t1 - t0)) s" &&
	[ $((t1 - t0)) -le 8 ] &&
	grep -q "^in doubt 1 .*timed out after 4 s" "$TMP/.stdout" &&
	sleep 1.5 &&
	lkprobot outbox --config "$TMP/c4.yaml" --db "$db" send &&
	stop_smtpd &&
	[ "$(spooled "$TMP/spool-stall")" = 1 ] &&
	lkprobot outbox --db "$db" list | grep -q "^1 in-doubt "
'

# The store on a 2 MB tmpfs in a mount namespace of its own, filled while the mail goes.
test_prereq_root() {
	if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
		test_set_prereq ROOT
	else
		echo "needs root and mount namespaces (unshare -m): make check as root" >"$TMP/.why-ROOT"
	fi
}
test_prereq_root

test_expect_success SETUP,ROOT 'the disk fills while the mail goes: it does not leave, and is sent once when there is room' '
	start_smtpd "$TMP/spool-full" --rcpt-delay 2 &&
	mkdir -p "$TMP/full" &&
	cat >"$TMP/full.sh" <<-\EOF &&
	set -e
	mount -t tmpfs -o size=2m tmpfs "$TMP/full"
	db=$TMP/full/lkprobot.db
	queue "$db"
	"$LKPROBOT" outbox --config "$TMP/c.yaml" --db "$db" send >"$TMP/full.out" 2>&1 & sender=$!
	until_connecting "$db"
	dd if=/dev/zero of="$TMP/full/fill" bs=4k 2>/dev/null || :
	set +e; wait $sender; echo "exit $?" >>"$TMP/full.out"; set -e
	ls "$TMP/spool-full" | wc -l >"$TMP/full.n1"
	rm "$TMP/full/fill"
	"$LKPROBOT" outbox --config "$TMP/c.yaml" --db "$db" send >>"$TMP/full.out" 2>&1
	"$LKPROBOT" outbox --db "$db" list >>"$TMP/full.out"
	EOF
	unshare -m sh -c ". \"$TMP/fns.sh\"; . \"$TMP/full.sh\"" &&
	stop_smtpd && cat "$TMP/full.out" &&
	[ "$(cat "$TMP/full.n1")" = 0 ] &&
	grep -q "^exit 1" "$TMP/full.out" &&
	grep -q "cannot mark outbox message 1 as being sent: database or disk is full" "$TMP/full.out" &&
	[ "$(spooled "$TMP/spool-full")" = 1 ] &&
	grep -q "^1 sent attempts 2 " "$TMP/full.out"
'

test_done

# The SMTP server the mail tests deliver to (tests/fixtures/smtp/smtpd.py,
# python3-aiosmtpd) on 127.0.0.1:$port, started and stopped by pid; its
# output in $TMP/smtpd.log. Sourced after lib.sh, by t0900, t0910 and t0920;
# uses their $PY, $FIX and $port when called.

# start_smtpd SPOOL [smtpd.py options...]: after stopping one a failed test left
start_smtpd() {
	stop_smtpd
	spool=$1
	shift
	mkdir -p "$spool"
	echo "== smtpd.py --spool $spool $*" >>"$TMP/smtpd.log"
	"$PY" "$FIX/smtp/smtpd.py" --port $port --spool "$spool" "$@" >>"$TMP/smtpd.log" 2>&1 &
	echo $! >"$TMP/smtpd.pid"
	listening && return 0
	echo "smtpd did not start:"; cat "$TMP/smtpd.log"; return 1
}

# something accepts connections on $port (10 s at most)
listening() {
	for i in $(seq 1 100); do
		"$PY" -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

stop_smtpd() {
	pid=$(cat "$TMP/smtpd.pid" 2>/dev/null)
	rm -f "$TMP/smtpd.pid"
	stop_pid "$pid"
}

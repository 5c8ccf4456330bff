# Helpers for the CLI tests (sourced). Each test is a description and a
# shell snippet, an &&-chain run in a subshell with `set -e`; test_done
# prints "N passed, N failed" for the script and records the counts (and
# what was skipped, and why) for run.sh and tests/run-all.sh.
#
#   test_expect_success [PREREQ,...] 'what it checks' 'body'
#       Before the body runs, git's chain-lint runs it once behind
#       `(exit 117) &&`: a body whose &&-chain is broken gets past that (its
#       commands after the break run) and the test fails without running.
#       With PREREQs, the test is skipped, with the reason, unless each was
#       set by test_set_prereq.
#   test_set_prereq NAME        (in a setup's body, as its last link)
#   test_prereq_cmd NAME CMD PACKAGE   NAME is set when CMD is here; when
#                               not, the tests that need NAME say so
#   test_need_cmd CMD PACKAGE   (at the top) skip the whole file without CMD
#   test_need_root              (at the top) skip the whole file unless root
#   test_skip_all REASON        (at the top) skip the whole file, saying why
#   test_log FILE...            a server's log: printed, its last lines, when
#                               a test of the file failed or it was stopped
#                               (patterns allowed: expanded at the end)
#   test_at_exit 'COMMANDS'     run when the file ends, however it ends
#                               (stop the servers it started, by pid),
#                               before the logs are printed and $TMP removed
#   stop_pid PID [SIGNAL]       end a process the test started, and wait
#   stop_session SIGNAL SID     end what `setsid CMD &` started, all of it
#   write_serve_conf FILE serve.KEY=V tree.KEY=V mail.KEY=V ...
#                               the serve tests' configuration (defaults below)
#   commit_n FROM TO [AT SPEED]  commits "change N" in $TMP/repo, N = AT writing SPEED to ./speed
# Never end a process by name (pkill -f, killall): it may be anyone's.
: "${LKPROBOT:?set LKPROBOT to the lkprobot binary under test}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/lkp-cli.XXXXXX)
export LKPROBOT SRC TMP
PASSED=0
FAILED=0
SKIPPED=0
TEST_FILE=$(basename "$0")
TEST_SKIP_ALL=
TEST_AT_EXIT=
TEST_LOGS=
cd "$SRC" || exit 1

lkprobot() { "$LKPROBOT" "$@"; }

test_exit_() {
	rc=$?
	trap - EXIT
	eval "$TEST_AT_EXIT"
	if [ "$FAILED" != 0 ] || [ "$rc" -gt 128 ]; then
		for f in $TEST_LOGS; do
			[ -s "$f" ] || continue
			echo "# --- ${f#"$TMP"/} (its last 40 lines)"
			tail -n 40 "$f" | sed 's/^/#   /'
		done
	fi
	# never rm -rf into a file system a failed test left mounted
	grep -o " $TMP/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null
	rm -rf "$TMP"
	exit "$rc"
}
trap test_exit_ EXIT
# a signal (run.sh's wall-clock limit, ^C) ends the file through test_exit_
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

test_at_exit() {
	TEST_AT_EXIT="$1${TEST_AT_EXIT:+; $TEST_AT_EXIT}"
}

test_log() {
	TEST_LOGS="$TEST_LOGS $*"
}

test_set_prereq() {
	: >"$TMP/.prereq-$1"
}

test_prereq_cmd() {
	if command -v "$2" >/dev/null 2>&1; then
		test_set_prereq "$1"
	else
		echo "no $2 here (Debian package $3; make deps installs it)" >"$TMP/.why-$1"
	fi
}

# The first prerequisite of $1 (comma-separated) not set, or nothing.
test_missing_prereq_() {
	old_ifs=$IFS
	IFS=,
	for p in $1; do
		[ -e "$TMP/.prereq-$p" ] || { IFS=$old_ifs; echo "$p"; return; }
	done
	IFS=$old_ifs
}

test_skip_() {
	SKIPPED=$((SKIPPED + 1))
	echo "ok - $1 # skip ($2)"
	[ -n "$CLI_SKIPS" ] && echo "$TEST_FILE: $1 ($2)" >>"$CLI_SKIPS"
	return 0
}

test_need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		TEST_SKIP_ALL="${TEST_SKIP_ALL:-no $1 here (Debian package $2; make deps installs it)}"
}

test_need_root() {
	[ "$(id -u)" = 0 ] || TEST_SKIP_ALL="${TEST_SKIP_ALL:-needs root (make check as root)}"
}

test_skip_all() {
	TEST_SKIP_ALL="${TEST_SKIP_ALL:-$1}"
}

test_expect_success() {
	prereq=
	if [ $# = 3 ]; then
		prereq=$1
		shift
	fi
	desc=$1
	if [ -n "$TEST_SKIP_ALL" ]; then
		test_skip_ "$desc" "$TEST_SKIP_ALL"
		return
	fi
	missing=$(test_missing_prereq_ "$prereq")
	if [ -n "$missing" ] && [ -s "$TMP/.why-$missing" ]; then
		test_skip_ "$desc" "$(cat "$TMP/.why-$missing")"
		return
	elif [ -n "$missing" ]; then
		test_skip_ "$desc" "$missing not there: a test before it that sets it failed or did not run"
		return
	fi
	# git's chain-lint: a whole &&-chain stops at the first link
	(eval "(exit 117) && $2") >/dev/null 2>&1 </dev/null
	lint=$?
	if [ "$lint" != 117 ]; then
		FAILED=$((FAILED + 1))
		echo "not ok - $desc"
		echo "#   broken &&-chain: the body got past '(exit 117) &&' (exit $lint); every command must be linked with &&"
		return 1
	fi
	# outside any `if`, where set -e would do nothing
	(set -e; eval "$2") >"$TMP/.out" 2>&1
	rc=$?
	if [ "$rc" = 0 ]; then
		PASSED=$((PASSED + 1))
		echo "ok - $desc"
	else
		FAILED=$((FAILED + 1))
		echo "not ok - $desc"
		sed 's/^/#   /' "$TMP/.out" | tail -n 20
	fi
}

# Run a command expecting exit code $1; its stderr is left in $TMP/err.
expect_exit() {
	want=$1
	shift
	set +e
	"$@" >"$TMP/.stdout" 2>"$TMP/err"
	got=$?
	set -e
	if [ "$got" != "$want" ]; then
		echo "expected exit $want, got $got from: $*"
		cat "$TMP/err"
		return 1
	fi
}

# stderr must be exactly one line matching the pattern (grep -E).
one_line_error() {
	n=$(wc -l <"$TMP/err")
	if [ "$n" != 1 ]; then
		echo "expected one line on stderr, got $n:"
		cat "$TMP/err"
		return 1
	fi
	grep -Eq "$1" "$TMP/err" || { echo "stderr does not match '$1':"; cat "$TMP/err"; return 1; }
}

# Is pid $1 running (a zombie not reaped yet is not)?
test_alive_() {
	[ -r "/proc/$1/stat" ] && [ "$(sed -n 's/.*) \(.\) .*/\1/p' "/proc/$1/stat")" != Z ]
}

# Stop a process this test started, by pid: signal $2 (default TERM), then
# up to 10 s for it to end, then SIGKILL. Never fails.
stop_pid() {
	[ -n "$1" ] || return 0
	kill "-${2:-TERM}" "$1" 2>/dev/null || return 0
	for i in $(seq 1 100); do
		test_alive_ "$1" || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null
	return 0
}

# Wait (10 s at most) until no process of session $1 runs (a zombie left
# to init does not count); else list them and return 1.
wait_session_gone() {
	for i in $(seq 1 100); do
		ps -o stat= -s "$1" | grep -qv "^Z" || return 0
		sleep 0.1
	done
	echo "processes of session $1 still running:"
	ps -o pid,stat,args -s "$1"
	return 1
}

# Kill (signal $1) the session $2 a test started with `setsid CMD &` — the
# process and whatever it started — and wait until none of it runs.
stop_session() {
	kill "-$1" "-$2" 2>/dev/null
	wait "$2" 2>/dev/null
	wait_session_gone "$2"
}

# write_serve_conf FILE [WHERE.KEY=VALUE...]: the configuration the serve
# tests give the service. serve: with result_root $TMP/res and cache
# $TMP/cache first, then the serve.KEY=VALUE given (serve.result_root and
# serve.cache replace those two); one tree, name demo, path $TMP/repo,
# branches [$branch], jobs [$TMP/job.yaml], then its tree.KEY=VALUE
# (tree.name/path/url/branches/jobs replace; an empty value drops the key:
# tree.path= with tree.url=...); a second tree when tree2.KEY=VALUE is
# given (branches and jobs as the first's); and a dry-run mail: section
# (operator, from and domain of the tests' mails; smtp://127.0.0.1:1,
# tls none, retry 3600: mail.smtp=URL and mail.retry=N change those;
# mail=none: no mail: section).
write_serve_conf() {
	wsc_file=$1
	shift
	wsc_root=$TMP/res wsc_cache=$TMP/cache wsc_serve="" wsc_mail=yes wsc_smtp=smtp://127.0.0.1:1 wsc_retry=3600
	wsc_t1="name=demo path=$TMP/repo url= branches=[$branch] jobs=[$TMP/job.yaml]" wsc_t2="" wsc_x1="" wsc_x2=""
	for wsc_kv; do
		wsc_k=${wsc_kv%%=*} wsc_v=${wsc_kv#*=}
		case $wsc_k in
		serve.result_root) wsc_root=$wsc_v ;;
		serve.cache) wsc_cache=$wsc_v ;;
		serve.*) wsc_serve="$wsc_serve  ${wsc_k#serve.}: $wsc_v
" ;;
		tree.name | tree.path | tree.url | tree.branches | tree.jobs) wsc_t1="$wsc_t1 ${wsc_k#tree.}=$wsc_v" ;;
		tree.*) wsc_x1="$wsc_x1      ${wsc_k#tree.}: $wsc_v
" ;;
		tree2.name | tree2.path | tree2.url | tree2.branches | tree2.jobs) wsc_t2="$wsc_t2 ${wsc_k#tree2.}=$wsc_v" ;;
		tree2.*) wsc_x2="$wsc_x2      ${wsc_k#tree2.}: $wsc_v
" ;;
		mail) wsc_mail=$wsc_v ;;
		mail.smtp) wsc_smtp=$wsc_v ;;
		mail.retry) wsc_retry=$wsc_v ;;
		*) echo "write_serve_conf: $wsc_kv: not serve., tree., tree2. or mail." >&2; return 1 ;;
		esac
	done
	{
		printf "serve:\n  result_root: %s\n  cache: %s\n%s  trees:\n" "$wsc_root" "$wsc_cache" "$wsc_serve"
		write_serve_tree_ "$wsc_t1" "$wsc_x1"
		[ -z "$wsc_t2$wsc_x2" ] || write_serve_tree_ "name=next branches=[$branch] jobs=[$TMP/job.yaml]$wsc_t2" "$wsc_x2"
		[ "$wsc_mail" = none ] || printf "mail:\n  live: false\n  operator: Robot Operator <ops@example.org>\n  from: kernel test robot <lkp@example.org>\n  domain: lkp.example.org\n  retry: %s\n  smtp:\n    url: %s\n    tls: none\n" "$wsc_retry" "$wsc_smtp"
	} >"$wsc_file"
}

# One tree of write_serve_conf: "KEY=VALUE ..." of its main keys (later
# ones win; an empty value drops the key), then its other keys' lines.
write_serve_tree_() {
	wst_name="" wst_path="" wst_url="" wst_branches="" wst_jobs=""
	set -f	# [$branch] is a value, not a pattern
	for wst_kv in $1; do
		eval "wst_${wst_kv%%=*}=\${wst_kv#*=}"
	done
	set +f
	printf "    - name: %s\n" "$wst_name"
	[ -z "$wst_path" ] || printf "      path: %s\n" "$wst_path"
	[ -z "$wst_url" ] || printf "      url: %s\n" "$wst_url"
	printf "      branches: %s\n      jobs: %s\n%s" "$wst_branches" "$wst_jobs" "$2"
}

# commit_n FROM TO [SPEED_AT SPEED]: commits "change FROM" .. "change TO" in
# $TMP/repo (a file each), the one numbered SPEED_AT also writing SPEED into
# ./speed (the `command` benchmark's speed: tests/fixtures/command/bench.sh).
commit_n() {
	(
		cd "$TMP/repo" || exit 1
		for i in $(seq "$1" "$2"); do
			echo "$i" >"f$i"
			[ "$i" = "${3:-x}" ] && echo "$4" >speed
			git add -A && git commit -qm "change $i" || exit 1
		done
	)
}

test_done() {
	[ "$SKIPPED" = 0 ] || echo "# $SKIPPED skipped"
	echo "$PASSED passed, $FAILED failed"
	[ -n "$CLI_RESULTS" ] && echo "$PASSED $FAILED $SKIPPED" >>"$CLI_RESULTS"
	[ "$FAILED" = 0 ]
}

# Helpers for the CLI tests (sourced). Each test is a description and a
# shell snippet run in a subshell with `set -e`; test_done prints
# "N passed, N failed" for the script and records the counts for run.sh.
: "${LKPROBOT:?set LKPROBOT to the lkprobot binary under test}"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/lkp-cli.XXXXXX)
# never rm -rf into a file system a failed test left mounted
trap 'grep -o " $TMP/[^ ]*" /proc/mounts | xargs -r umount -l 2>/dev/null; rm -rf "$TMP"' EXIT
export LKPROBOT SRC TMP
PASSED=0
FAILED=0
cd "$SRC" || exit 1

lkprobot() { "$LKPROBOT" "$@"; }

test_expect_success() {
	desc=$1
	if (set -e; eval "$2") >"$TMP/.out" 2>&1; then
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

test_done() {
	echo "$PASSED passed, $FAILED failed"
	[ -n "$CLI_RESULTS" ] && echo "$PASSED $FAILED" >>"$CLI_RESULTS"
	[ "$FAILED" = 0 ]
}

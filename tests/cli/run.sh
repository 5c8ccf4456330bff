#!/bin/sh
# Run every tests/cli/t*.sh (or the ones named), each under a wall-clock
# limit: 300 s, or what its "# wall-clock limit: N s" line says. A file
# past its limit is stopped — SIGTERM to its process group (its exit trap
# stops its servers and prints their logs), SIGKILL 30 s later — and counts
# as a failure, as does a file that ends before its test_done. Each file
# appends "passed failed skipped" to $CLI_RESULTS and its skipped tests to
# $CLI_SKIPS; run alone (make cli), the last line sums them up.
dir=$(cd "$(dirname "$0")" && pwd)
own=
if [ -z "$CLI_RESULTS" ]; then
	own=1
	CLI_RESULTS=$(mktemp)
	CLI_SKIPS=$(mktemp)
fi
export CLI_RESULTS CLI_SKIPS
[ $# -gt 0 ] || set -- "$dir"/t*.sh
status=0
for t in "$@"; do
	name=$(basename "$t")
	limit=$(sed -n 's/^# wall-clock limit: \([0-9]*\) s$/\1/p' "$t" | head -n 1)
	limit=${limit:-300}
	echo "== $name"
	before=$(wc -l <"$CLI_RESULTS")
	start=$(date +%s)
	# timeout puts the file in a process group of its own and signals that group
	timeout -k 30 "$limit" sh "$t"
	rc=$?
	secs=$(($(date +%s) - start))
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "not ok - $name: stopped after $secs s, its wall-clock limit is $limit s"
		echo "0 1 0" >>"$CLI_RESULTS"
		status=1
	elif [ "$(wc -l <"$CLI_RESULTS")" = "$before" ]; then
		echo "not ok - $name: ended (exit $rc) before its test_done"
		echo "0 1 0" >>"$CLI_RESULTS"
		status=1
	elif [ "$rc" != 0 ]; then
		status=1
	fi
	echo "== $name: $secs s"
done
if [ -n "$own" ]; then
	if [ -s "$CLI_SKIPS" ]; then
		echo "skipped ($(wc -l <"$CLI_SKIPS")):"
		sed 's/^/  /' "$CLI_SKIPS"
	fi
	awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}' "$CLI_RESULTS"
	rm -f "$CLI_RESULTS" "$CLI_SKIPS"
fi
exit $status

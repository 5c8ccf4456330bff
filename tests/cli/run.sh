#!/bin/sh
# Run every tests/cli/t*.sh; the last line sums them up.
dir=$(cd "$(dirname "$0")" && pwd)
CLI_RESULTS=$(mktemp)
export CLI_RESULTS
status=0
for t in "$dir"/t*.sh; do
	echo "== $(basename "$t")"
	sh "$t" || status=1
done
awk '{p += $1; f += $2} END {printf "%d passed, %d failed\n", p, f}' "$CLI_RESULTS"
rm -f "$CLI_RESULTS"
exit $status

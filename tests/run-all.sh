#!/bin/sh
# make check: the cmocka unit tests, then the CLI tests against the
# sanitizer build (tests/cli/run.sh: each file under a wall-clock limit),
# then the fuzz harnesses over their seeds and briefly (FUZZ_BIN, from the
# Makefile; empty without clang); what was skipped, and why, is listed, and the last line is the total
# "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
# leaks inside Debian's libraries, each with its reason in the file
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
passed=0
failed=0
status=0
CLI_RESULTS=$(mktemp)
CLI_SKIPS=$(mktemp)
export CLI_RESULTS CLI_SKIPS
for t in "$@"; do
	echo "== $t"
	# a unit test has 300 s: none needs more than a few
	out=$(timeout -k 10 300 "$t" 2>&1)
	rc=$?
	echo "$out" | grep -v '^\[ RUN\|^\[       OK'
	[ "$rc" = 124 ] && echo "not ok - $t: stopped after 300 s"
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	# what a unit test skipped (cmocka's skip(): a permission this user lacks)
	echo "$out" | sed -n 's/^\[  SKIPPED \] \(test_[a-z0-9_]*\)$/\1/p' | sort -u |
		sed "s|^|$(basename "$t"): |; s|\$| (skipped by the test: see its comment)|" >>"$CLI_SKIPS"
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ $rc != 0 ]; then
		status=1
		[ -z "$f" ] && failed=$((failed + 1))	# crashed, leaked, stopped
	fi
done
LKPROBOT=$(pwd)/build/san/lkprobot
export LKPROBOT
sh tests/cli/run.sh || status=1
echo "== tests/fuzz"
if [ -n "$FUZZ_BIN" ]; then
	sh tests/fuzz/run.sh $FUZZ_BIN || status=1
else
	echo "tests/fuzz: the fuzz harnesses (clang is not installed; 'make deps' installs clang and libclang-rt-14-dev)" >>"$CLI_SKIPS"
fi
read -r p f <<EOT
$(awk '{p += $1; f += $2} END {print p+0, f+0}' "$CLI_RESULTS")
EOT
if [ -s "$CLI_SKIPS" ]; then
	echo "skipped ($(wc -l <"$CLI_SKIPS")):"
	sed 's/^/  /' "$CLI_SKIPS"
fi
rm -f "$CLI_RESULTS" "$CLI_SKIPS"
passed=$((passed + p))
failed=$((failed + f))
echo "$passed passed, $failed failed"
[ $failed = 0 ] && exit $status
exit 1

#!/bin/sh
# make check: the cmocka unit tests, then the CLI tests against the
# sanitizer build, then the fuzz harnesses over their seeds and briefly;
# the last line is the total "N passed, N failed".
cd "$(dirname "$0")/.." || exit 1
# leaks inside Debian's libraries, each with its reason in the file
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
passed=0
failed=0
status=0
for t in "$@"; do
	echo "== $t"
	out=$("$t" 2>&1)
	rc=$?
	echo "$out" | grep -v '^\[ RUN\|^\[       OK' 
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p')
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p')
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ $rc != 0 ]; then
		status=1
		[ -z "$f" ] && failed=$((failed + 1))	# crashed, leaked
	fi
done
CLI_RESULTS=$(mktemp)
export CLI_RESULTS
LKPROBOT=$(pwd)/build/san/lkprobot
export LKPROBOT
for t in tests/cli/t*.sh; do
	echo "== $t"
	sh "$t" || status=1
done
# the fuzz harnesses (FUZZ_BIN, from the Makefile; empty without clang): seeds and a short run
echo "== tests/fuzz"
sh tests/fuzz/run.sh $FUZZ_BIN || status=1
read -r p f <<EOT
$(awk '{p += $1; f += $2} END {print p+0, f+0}' "$CLI_RESULTS")
EOT
rm -f "$CLI_RESULTS"
passed=$((passed + p))
failed=$((failed + f))
echo "$passed passed, $failed failed"
[ $failed = 0 ] && exit $status
exit 1

#!/bin/sh
# Run the libFuzzer harnesses given as arguments: each over its seeds (the
# fixtures its input is made of, and regress/<name>: inputs that once
# crashed or hung lkprobot), then FUZZ_SECONDS of fuzzing (default 3: the
# short bounded run of `make check`; `make fuzz` gives more). New inputs go
# to FUZZ_KEEP/<name> (default: a scratch directory, removed). Prints one
# line per harness and "N passed, N failed"; appends "N N" to $CLI_RESULTS
# when set (make check adds them to its total). No harness: says why.
cd "$(dirname "$0")/../.." || exit 1
seconds=${FUZZ_SECONDS:-3}
if [ $# = 0 ]; then
	echo "fuzz: skipped: clang is not installed ('make deps' installs clang and libclang-rt-14-dev)"
	exit 0
fi
scratch=$(mktemp -d /tmp/lkp-fuzz.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
# leaks inside Debian's libraries, each with its reason in the file
LSAN_OPTIONS="suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS TMPDIR="$scratch"
passed=0
failed=0
for bin in "$@"; do
	name=$(basename "$bin" | sed 's/^fuzz-//')
	case $name in
	parsers) seeds="tests/fixtures/tools tests/fixtures/perf-stat tests/fixtures/vm-scalability tests/fixtures/klog" ;;
	json|compare) seeds="tests/fixtures/tools tests/fixtures/perf-stat" ;;
	job) seeds="jobs" ;;
	series) seeds="tests/fixtures/series" ;;
	*) seeds="" ;;
	esac
	[ -d "tests/fuzz/regress/$name" ] && seeds="$seeds tests/fuzz/regress/$name"
	keep=${FUZZ_KEEP:+$FUZZ_KEEP/$name}
	keep=${keep:-$scratch/corpus-$name}
	mkdir -p "$keep"
	log="$scratch/$name.log"
	# every seed once, then the bounded run; -timeout: one input may take 10 s at most
	if "$bin" -runs=0 -timeout=10 -rss_limit_mb=2048 $seeds >"$log" 2>&1 &&
	   "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$scratch/$name-" \
		"$keep" $seeds >>"$log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -1)
		echo "ok - fuzz-$name: its seeds and ${runs:-?} runs in $seconds s, clean"
		passed=$((passed + 1))
	else
		echo "not ok - fuzz-$name"
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written|==[0-9]+==' "$log" | head -20 | sed 's/^/#   /'
		for a in "$scratch/$name-"*; do
			[ -f "$a" ] && cp "$a" "build/fuzz/" 2>/dev/null && echo "#   the input: build/fuzz/$(basename "$a")"
		done
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ -n "$CLI_RESULTS" ] && echo "$passed $failed" >>"$CLI_RESULTS"
[ "$failed" = 0 ]

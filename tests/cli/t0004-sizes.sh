#!/bin/sh
# The house stays readable: no function of the product (robot/, flow/,
# providers/, mail/, web/, lib/, bench/) longer than 100 lines and no file
# longer than 800 (tests/sizes.sh, which names what is over).
. "$(dirname "$0")/lib.sh"

test_expect_success 'no function over 100 lines, no file over 800, in the product' '
	if ! sh "$SRC/tests/sizes.sh" robot flow providers mail web lib bench >"$TMP/over" 2>&1; then
		cat "$TMP/over" && false
	fi
'

test_expect_success 'sizes.sh names a function over the limit (it can fail)' '
	mkdir -p "$TMP/long" &&
	{ echo "int f(void)"; echo "{"; seq 1 101 | sed "s/.*/\\tx();/"; echo "}"; } >"$TMP/long/f.c" &&
	! sh "$SRC/tests/sizes.sh" "$TMP/long" >"$TMP/named" &&
	grep -q "function f .*f.c:1" "$TMP/named"
'

test_done

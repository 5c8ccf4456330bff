#!/bin/sh
# Every C line changed since .clang-format was added is formatted by it:
# `git clang-format --diff BASE`, BASE the commit that added the file, finds
# nothing to change (committed or not). Lines nobody touched keep their
# shape. Where that cannot be told — no git, no git-clang-format, not a git
# checkout (a tarball), a shallow clone (the base may be cut off) — the file
# is skipped and says why. `git clang-format BASE` formats what it names.
. "$(dirname "$0")/lib.sh"

test_need_cmd git git
test_need_cmd git-clang-format clang-format
if [ -z "$TEST_SKIP_ALL" ]; then
	if ! why=$(git rev-parse --is-shallow-repository 2>&1); then
		test_skip_all "not a git checkout, or git cannot read it (a tarball?): $(echo "$why" | head -n 1)"
	elif [ "$why" = true ]; then
		test_skip_all "a shallow clone: the commit that added .clang-format may not be in it"
	else
		BASE=$(git log --diff-filter=A --format=%H -1 -- .clang-format)
		[ -n "$BASE" ] || test_skip_all "no commit adds .clang-format here: nothing to check the changed lines against"
	fi
fi

test_expect_success 'the C lines changed since .clang-format was added are formatted' '
	git clang-format --diff --extensions c,h "$BASE" -- >"$TMP/fmt" 2>&1 &&
	if grep -q "^diff --git" "$TMP/fmt"; then
		echo "lines changed since $BASE are not formatted; git clang-format $BASE formats them:" &&
		cat "$TMP/fmt" &&
		false
	fi
'

test_done

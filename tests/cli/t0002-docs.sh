#!/bin/sh
# docs/ says what the binary says: every command has its page, each page's
# "## --help" block is the command's --help, docs/configuration.md's
# reference is `lkprobot help config` (made from the configuration
# tables), and the links between README.md and docs/ lead to files that are
# there. `make docs` makes the blocks again (tests/docs.sh).
. "$(dirname "$0")/lib.sh"

# the commands lkprobot help lists, and run-commit (internal: what a farm's box runs)
commands() {
	lkprobot help | sed -n "s/^  \([a-z][a-z-]*\) .*/\1/p"
	echo run-commit
}

test_expect_success 'every command has its page docs/lkprobot-COMMAND.md, and every page a command' '
	commands >"$TMP/commands" &&
	[ "$(wc -l <"$TMP/commands")" -gt 15 ] &&
	while read -r c; do
		[ -f "docs/lkprobot-$c.md" ] || { echo "no docs/lkprobot-$c.md (robot/cmd.h: adding a command)"; exit 1; }
	done <"$TMP/commands" &&
	for p in docs/lkprobot-*.md; do
		c=${p#docs/lkprobot-} &&
		grep -qx "${c%.md}" "$TMP/commands" || { echo "$p: lkprobot has no command ${c%.md}"; exit 1; }
	done
'

for page in docs/lkprobot-*.md; do
	c=${page#docs/lkprobot-}
	test_expect_success "$page: its --help block is 'lkprobot ${c%.md} --help' (make docs)" "
		grep -qx -- '## --help' $page &&
		sh tests/docs.sh --check \"\$LKPROBOT\" $page
	"
done

test_expect_success 'docs/configuration.md: its reference is lkprobot help config (make docs)' '
	sh tests/docs.sh --check "$LKPROBOT" docs/configuration.md
'

test_expect_success 'help config names every key its tables read (one of each section)' '
	lkprobot help config >"$TMP/config" &&
	for k in result_root max_bisections branches provider pending_timeout box live smtp.url dkim.key host power_cycle_cmd; do
		grep -q "^| \`$k\` |" "$TMP/config" || { echo "help config lacks $k"; exit 1; }
	done
'

# [text](target#anchor) links of a markdown file to a file of this tree (not a URL), one a line
links() {
	grep -o "\](\([^)#:]*\)\(#[^)]*\)\?)" "$1" | sed "s/^](//; s/)\$//" | grep -v "^#" | sort -u
}

# the anchors of a markdown file's headings, as GitHub makes them
anchors() {
	sed -n "s/^#\{1,6\} //p" "$1" | tr "A-Z" "a-z" | sed "s/[^a-z0-9 _-]//g; s/ /-/g"
}

test_expect_success 'the links of README.md and docs/*.md lead to files that are there, and to their headings' '
	for f in README.md docs/*.md; do
		for l in $(links "$f"); do
			t=$(dirname "$f")/${l%%#*} &&
			[ -e "$t" ] || { echo "$f links $l: no such file"; exit 1; }
			case $l in
			*#*) anchors "$t" | grep -qx -- "${l#*#}" || { echo "$f links $l: no such heading"; exit 1; } ;;
			esac
		done
	done
'

test_done

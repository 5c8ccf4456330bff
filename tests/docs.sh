#!/bin/sh
# make docs: the parts of docs/ that are made from the binary, made again —
# each docs/lkprobot-<command>.md's block under its "## --help" heading is
# `lkprobot <command> --help`, and docs/configuration.md below its marker
# line is `lkprobot help config` (the configuration tables). The rest of a
# page is written by hand and left as it is.
#   sh tests/docs.sh LKPROBOT [PAGE...]           rewrite what differs
#   sh tests/docs.sh --check LKPROBOT [PAGE...]   print the differences; exit 1 when there are
# Without PAGEs: docs/lkprobot-*.md and docs/configuration.md. A page
# without its heading (or marker) gets it at its end. tests/cli/t0002-docs.sh
# runs the check.
set -eu
check=
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
[ $# -ge 1 ] || { echo "usage: sh tests/docs.sh [--check] LKPROBOT [PAGE...]" >&2; exit 2; }
lkprobot=$1
shift
case $lkprobot in /*) ;; *) lkprobot=$(pwd)/$lkprobot ;; esac
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- docs/lkprobot-*.md docs/configuration.md
MARKER="<!-- Everything below this line is made by 'make docs' from 'lkprobot help config' (the configuration tables in the code): edit the tables, not this. -->"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# page_help PAGE: PAGE with its --help block made again, on stdout
page_help() {
	c=${1##*/lkprobot-}
	c=${c%.md}
	"$lkprobot" "$c" --help >"$tmp/gen" || { echo "docs: $1: 'lkprobot $c --help' failed" >&2; return 1; }
	awk -v gen="$tmp/gen" '
	function block() {
		print ""
		print "```text"
		while ((getline l < gen) > 0)
			print l
		print "```"
		done = 1
	}
	state == 1 && /^```/ { state = 2; next }	# the old block: its fence,
	state == 1 && /^$/ { next }
	state == 1 { state = 0; print "" }		# (no block after the heading)
	state == 2 { if (/^```$/) state = 0; next }	# its lines, its end
	$0 == "## --help" && !done { print; block(); state = 1; next }
	{ print }
	END { if (!done) { print ""; print "## --help"; block() } }
	' "$1"
}

# page_config PAGE: its hand-written head, the marker, then lkprobot help config
page_config() {
	"$lkprobot" help config >"$tmp/gen" || { echo "docs: 'lkprobot help config' failed" >&2; return 1; }
	awk -v marker="$MARKER" '$0 == marker { exit } { print }' "$1"
	echo "$MARKER"
	echo
	cat "$tmp/gen"
}

status=0
for page in "$@"; do
	if [ ! -f "$page" ]; then
		echo "docs: $page: no such page" >&2
		status=1
		continue
	fi
	case $page in
	*/configuration.md) page_config "$page" >"$tmp/new" || { status=1; continue; } ;;
	*/lkprobot-*.md) page_help "$page" >"$tmp/new" || { status=1; continue; } ;;
	*) echo "docs: $page: nothing in it is made by make docs" >&2; status=1; continue ;;
	esac
	cmp -s "$page" "$tmp/new" && continue
	if [ -n "$check" ]; then
		echo "docs: $page is stale ('make docs' makes it again):"
		diff -u "$page" "$tmp/new" | sed 1,2d || true
		status=1
	else
		cp "$tmp/new" "$page"
		echo "docs: wrote $page"
	fi
done
exit $status

#!/bin/sh
# The functions longer than FUNC lines (default 100: from the line of the
# name to the closing brace) and the files longer than FILE lines (default
# 800) among the C files under the paths given; one line each, longest
# first, and exit 1 when there is one.
#   sh tests/sizes.sh [-f FUNC] [-F FILE] [-x GLOB]... PATH...
# -x leaves out the files whose path matches GLOB (e.g. -x 'providers/qemu*').
# Expects the layout the code has: a function's braces in column 0.
func=100 file=800 skip=
while getopts f:F:x: o; do
	case $o in
	f) func=$OPTARG ;;
	F) file=$OPTARG ;;
	x) skip="$skip $OPTARG" ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || { echo "usage: sh tests/sizes.sh [-f FUNC] [-F FILE] [-x GLOB]... PATH..." >&2; exit 2; }
files=$(find "$@" -name '*.[ch]' | sort | while read -r f; do
	keep=1
	for g in $skip; do
		case $f in $g) keep=0 ;; esac
	done
	[ $keep = 1 ] && echo "$f"
done)
[ -n "$files" ] || exit 0
bad=$(
	# shellcheck disable=SC2086
	awk -v max="$func" '
	FNR == 1 { cand = start = 0 }
	/^[A-Za-z_].*\(/ && !/;[[:space:]]*$/ && !/^(static[[:space:]]+)?(const[[:space:]]+)?(struct|enum|union)[[:space:]]+[A-Za-z_0-9]+[[:space:]]*(\{|=)/ {
		cand = FNR; name = $0
	}
	/^\{/ { if (cand) { start = cand; nm = name } }
	/^\}/ {
		if (start) {
			n = FNR - start + 1
			sub(/__attribute__\(\([^)]*\)\)[[:space:]]*/, "", nm)
			sub(/\(.*/, "", nm)
			k = split(nm, w, /[ *]+/)
			if (n > max)
				printf "%d function %s %s:%d\n", n, w[k], FILENAME, start
		}
		start = cand = 0
	}' $files
	# shellcheck disable=SC2086
	wc -l $files | awk -v max="$file" '$2 != "total" && $1 > max { printf "%d file %s\n", $1, $2 }'
)
[ -z "$bad" ] && exit 0
echo "$bad" | sort -rn
exit 1

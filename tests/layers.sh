#!/bin/sh
# The layers, checked at every build: a file of lib/<layer>/ may include
# and call only its own layer and the layers below it, and lib/ never
# reaches into robot/, flow/, providers/, mail/ or web/; above lib/, the
# outer ring (providers/, mail/, web/) never reaches into flow/ or robot/,
# and flow/ never into robot/ (the commands sit on top of everything).
#   tests/layers.sh "util sys ..." [ARCHIVE_DIR]
# With ARCHIVE_DIR (holding lib<layer>.a), the calls are checked too: no
# archive may leave undefined a symbol that a higher layer's archive defines.
# Prints one line per wrong-way edge and exits 1 when there is one.
layers=$1
dir=$2
cd "$(dirname "$0")/.." || exit 1
bad=0
rank() {	# the position of a layer in $layers, or nothing
	i=0
	for l in $layers; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
}
for f in $(find lib -name '*.[ch]' | sort); do
	from=$(echo "$f" | cut -d/ -f2)
	rf=$(rank "$from")
	[ -n "$rf" ] || { echo "layers: $f: lib/$from is not a layer (Makefile LIB_LAYERS)"; bad=1; continue; }
	d=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		t=$(realpath -m --relative-to=. "$d/$inc")
		case $t in
		lib/*) ;;
		*) echo "layers: $f includes $t: lib/ never includes outside lib/"; bad=1; continue ;;
		esac
		to=$(echo "$t" | cut -d/ -f2)
		rt=$(rank "$to")
		if [ -n "$rt" ] && [ "$rt" -gt "$rf" ]; then
			echo "layers: $f includes $t: lib/$from is below lib/$to"
			bad=1
		fi
	done
done
# the outer ring and the flows: includes that go up
for f in $(find providers mail web flow -name '*.[ch]' | sort); do
	from=${f%%/*}
	d=$(dirname "$f")
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		t=$(realpath -m --relative-to=. "$d/$inc")
		case $from/${t%%/*} in
		*/robot | providers/flow | mail/flow | web/flow)
			echo "layers: $f includes $t: $from/ is below ${t%%/*}/"
			bad=1 ;;
		esac
	done
done
if [ -n "$dir" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for l in $layers; do
		nm -g --defined-only "$dir/lib$l.a" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$tmp/def.$l"
		nm -u "$dir/lib$l.a" 2>/dev/null | awk 'NF == 2 {print $2}' | sort -u >"$tmp/undef.$l"
	done
	below=""
	for l in $layers; do
		above=""
		seen=0
		for m in $layers; do
			[ $seen = 1 ] && above="$above $m"
			[ "$m" = "$l" ] && seen=1
		done
		for m in $above; do
			for s in $(comm -12 "$tmp/undef.$l" "$tmp/def.$m"); do
				echo "layers: lib/$l calls $s of lib/$m, a higher layer"
				bad=1
			done
		done
	done
	# the archives above lib/: libapp (providers, mail, web), libflow, the commands' objects
	nm -g --defined-only "$dir/libflow.a" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$tmp/def.flow"
	nm -u "$dir/libflow.a" 2>/dev/null | awk 'NF == 2 {print $2}' | sort -u >"$tmp/undef.flow"
	nm -u "$dir/libapp.a" 2>/dev/null | awk 'NF == 2 {print $2}' | sort -u >"$tmp/undef.app"
	# the objects of robot/'s sources now (a build directory may hold older ones)
	robj=$(for c in robot/*.c; do b=${c%.c}; echo "$dir/$b.o"; done)
	nm -g --defined-only $robj 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$tmp/def.robot"
	for s in $(comm -12 "$tmp/undef.app" "$tmp/def.flow"); do
		echo "layers: providers/, mail/ or web/ calls $s of flow/, a higher layer"
		bad=1
	done
	for s in $(sort -u "$tmp/undef.app" "$tmp/undef.flow" | comm -12 - "$tmp/def.robot"); do
		echo "layers: a file below robot/ calls $s of robot/ (the commands)"
		bad=1
	done
	for l in $layers; do
		for s in $(sort -u "$tmp/def.flow" "$tmp/def.robot" | comm -12 "$tmp/undef.$l" -); do
			echo "layers: lib/$l calls $s of flow/ or robot/"
			bad=1
		done
	done
fi
exit $bad

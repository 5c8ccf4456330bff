# What the tests of a series on a list share (t1071, t1073): a tree with the
# command benchmark whose branch topic holds three patches, the second of
# which makes it 30 % slower, mailed as a threaded series with a cover
# letter ("speed: a slow path", base-commit: master) into $TMP/s1. Sourced
# after lib.sh; ends back in $SRC.
series_slow_repo() {
	mkdir -p "$HOME" && git init -q -b master "$TMP/repo" && cd "$TMP/repo" &&
	git config user.name "Dan Williams" && git config user.email dan.j.williams@intel.com &&
	printf "all:\n\t@if [ -e slow ]; then echo 70 >speed; else echo 100 >speed; fi\n" >Makefile &&
	printf "speed\n" >.gitignore && cp "$SRC/tests/fixtures/command/bench.sh" bench.sh &&
	git add -A && git commit -qm root && echo 1 >one && git add -A && git commit -qm "one" &&
	git checkout -qb topic &&
	echo a >a && git add a && git commit -qm "a: add a" &&
	echo s >slow && git add slow && git commit -qm "slow: the slow path" &&
	echo c >c && git add c && git commit -qm "c: add c" &&
	git format-patch -q --thread --cover-letter --base=master -3 -o "$TMP/s1" --to=nvdimm@lists.example.org &&
	sed -i "s/\*\*\* SUBJECT HERE \*\*\*/speed: a slow path/" "$TMP/s1/0000-cover-letter.patch" &&
	git checkout -q master && cd "$SRC"
}

#!/bin/sh
# make install puts the binary, jobs/ and hosts/ where the installed binary
# finds them without LKPROBOT_DATA, and the documentation: docs/, and the
# man pages made from it when pandoc is here (else it says it skips them).
. "$(dirname "$0")/lib.sh"

test_expect_success 'make install PREFIX=... gives a working lkprobot' '
	make -s install PREFIX="$TMP/prefix" >"$TMP/install.log" 2>&1 &&
	[ -x "$TMP/prefix/bin/lkprobot" ] &&
	[ -f "$TMP/prefix/share/lkprobot/jobs/include/category/benchmark" ] &&
	[ -f "$TMP/prefix/share/lkprobot/hosts/qemu-pmem" ] &&
	[ -f "$TMP/prefix/share/doc/lkprobot/README.md" ] &&
	[ -f "$TMP/prefix/share/doc/lkprobot/docs/configuration.md" ] &&
	if command -v pandoc >/dev/null 2>&1; then
		[ -s "$TMP/prefix/share/man/man1/lkprobot-bisect.1" ]
	else
		grep -q "^install: no pandoc here: the man pages .* are skipped$" "$TMP/install.log"
	fi &&
	cd "$TMP" &&
	env -u LKPROBOT_DATA "$TMP/prefix/bin/lkprobot" split-job -n -t x \
		"$TMP/prefix/share/lkprobot/jobs/fio-basic/fio-basic-smoke.yaml" >"$TMP/n" &&
	grep -qx "fio-basic-smoke-2M-2pmem-xfs-sync-dax-2-5s-randwrite-256M-tb.yaml" "$TMP/n" &&
	env -u LKPROBOT_DATA "$TMP/prefix/bin/lkprobot" show-job \
		"$TMP/prefix/share/lkprobot/jobs/fio-basic/fio-basic-smoke.yaml" | grep -qx "#! jobs/include/category/benchmark"
'

test_done

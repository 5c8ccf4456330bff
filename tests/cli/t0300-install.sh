#!/bin/sh
# make install puts the binary, jobs/ and hosts/ where the installed binary
# finds them without LKPROBOT_DATA.
. "$(dirname "$0")/lib.sh"

test_expect_success 'make install PREFIX=... gives a working lkprobot' '
	make -s install PREFIX="$TMP/prefix" >"$TMP/install.log" 2>&1 &&
	[ -x "$TMP/prefix/bin/lkprobot" ] &&
	[ -f "$TMP/prefix/share/lkprobot/jobs/include/category/benchmark" ] &&
	[ -f "$TMP/prefix/share/lkprobot/hosts/qemu-pmem" ] &&
	[ -f "$TMP/prefix/share/doc/lkprobot/README.md" ] &&
	cd "$TMP" &&
	env -u LKPROBOT_DATA "$TMP/prefix/bin/lkprobot" split-job -n -t x \
		"$TMP/prefix/share/lkprobot/jobs/fio-basic/fio-basic-smoke.yaml" >"$TMP/n" &&
	grep -qx "fio-basic-smoke-2M-2pmem-xfs-sync-dax-2-5s-randwrite-256M-tb.yaml" "$TMP/n" &&
	env -u LKPROBOT_DATA "$TMP/prefix/bin/lkprobot" show-job \
		"$TMP/prefix/share/lkprobot/jobs/fio-basic/fio-basic-smoke.yaml" | grep -qx "#! jobs/include/category/benchmark"
'

test_done

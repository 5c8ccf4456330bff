#!/bin/sh
# job-path gives lkp-tests' result paths; the three example reports' paths.
. "$(dirname "$0")/lib.sh"

test_expect_success 'example 1 (2017, fio randwrite): the older order with --old-order' '
	p=$(lkprobot job-path --old-order -t lkp-hsw-ep6 \
		jobs/fio-basic/fio-basic-2pmem-xfs-dax-randwrite-2M-sync.yaml \
		commit=2e12109d1c32c810088820478d21b5b7cd87a805 kconfig=x86_64-rhel-7.2 \
		compiler=gcc-6 rootfs=debian-x86_64-2016-08-31.cgz) &&
	[ "$p" = "fio-basic/2pmem-xfs-dax-200s-50%-tb-randwrite-2M-sync-200G-performance/lkp-hsw-ep6/debian-x86_64-2016-08-31.cgz/x86_64-rhel-7.2/gcc-6/2e12109d1c32c810088820478d21b5b7cd87a805" ]
'

test_expect_success 'example 2 (2020, fio read libaio): sorted path_params' '
	p=$(lkprobot job-path --path-params -t lkp-csl-2sp6 jobs/fio-basic/fio-basic-2pmem-xfs-dax-read-2M-libaio.yaml) &&
	[ "$p" = "fio-basic/2M-performance-2pmem-xfs-libaio-dax-50%-200s-read-200G-tb" ]
'

test_expect_success 'example 3 (2017, vm-scalability swap-w-seq)' '
	p=$(lkprobot job-path --path-params --old-order -t lkp-hsw-ep4 jobs/vm-scalability/vm-scalability-swap-w-seq-1pmem.yaml) &&
	[ "$p" = "vm-scalability/never-never-16-1pmem-swap-w-seq-96G-96G-performance" ]
'

test_expect_success 'a job file with 120 atomic jobs gives 120 paths, with -r prefix' '
	lkprobot job-path -t lkp-hsw-ep6 -r /lkp/result jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml >"$TMP/p" &&
	[ $(wc -l <"$TMP/p") = 120 ] &&
	[ $(grep -c "^/lkp/result/fio-basic/.*/lkp-hsw-ep6/" "$TMP/p") = 120 ]
'

test_expect_success 'local defaults: this host, os-release ID, defconfig, gcc, kernel release' '
	p=$(lkprobot job-path jobs/fio-basic/fio-basic-smoke.yaml) &&
	id=$(sed -n "s/^ID=//p" /etc/os-release | tr -d "\"") &&
	echo "$p" | grep -q "^fio-basic/2M-2pmem-xfs-sync-dax-2-5s-randwrite-256M-tb/[^/]*/$id/defconfig/gcc[^/]*/$(uname -r)$"
'

test_expect_success 'no testcase: one line, exit 2' '
	printf "fio-setup-basic:\n  rw: read\nfio:\n" >"$TMP/nt.yaml" &&
	expect_exit 2 lkprobot job-path "$TMP/nt.yaml" &&
	one_line_error "has no .testcase."
'

test_done

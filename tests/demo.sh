#!/bin/sh
# make demo: what lkprobot does today, on the jobs it ships — expand the
# fio-on-pmem job of the 2020 report into its atomic job, show where its
# results go, and expand the 120-job lkp-tests matrix.
set -eu
cd "$(dirname "$0")/.."
out=$(mktemp -d /tmp/lkprobot-demo.XXXXXX)
echo "== lkprobot split-job jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml (two documents)"
./lkprobot split-job -t lkp-hsw-ep6 -o "$out/split" jobs/fio-basic/fio-basic-2pmem-dax-256g.yaml | tail -n 3
echo "   ... $(ls "$out/split" | wc -l) atomic jobs in $out/split"
echo
echo "== the job of the 2020 report (fio.read_iops -43.3% on lkp-csl-2sp6)"
./lkprobot job-path -r /lkp/result -t lkp-csl-2sp6 \
	jobs/fio-basic/fio-basic-2pmem-xfs-dax-read-2M-libaio.yaml \
	commit=a0ac629ebe7b3d248cb93807782a00d9142fdb98 kconfig=x86_64-rhel-8.3 compiler=gcc-9
echo
echo "== the smoke job as this machine would run it"
./lkprobot show-job jobs/fio-basic/fio-basic-smoke.yaml | sed -n '1,22p'
echo "   ..."
echo
echo "Booting a kernel in QEMU with NVDIMMs and running this job comes with"
echo "'lkprobot run' and 'lkprobot qemu' (issues 3 and 4); see README.md."

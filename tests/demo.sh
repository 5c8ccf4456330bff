#!/bin/sh
# make demo: boot a kernel in QEMU with two emulated NVDIMMs and run the
# smoke fio job on xfs with DAX inside it — Debian's packaged kernel, fetched
# once with apt-get download. As root, or as a user (the cache is then
# ~/.cache/lkprobot, and QEMU runs under TCG without access to /dev/kvm).
# Where KVM runs firmware but not a kernel, the probe sees it (15 s at
# most, once: recorded in the cache) and the job runs under TCG, said why.
# LKPROBOT_DEMO_BIN: another lkprobot binary (the tests' sanitized one).
set -eu
cd "$(dirname "$0")/.."
out=${LKPROBOT_DEMO_RESULTS:-/tmp/lkprobot-demo}
echo "== lkprobot qemu jobs/fio-basic/fio-basic-smoke.yaml   (results under $out)"
"${LKPROBOT_DEMO_BIN:-./lkprobot}" qemu -o "$out" jobs/fio-basic/fio-basic-smoke.yaml
echo
echo "The result root above holds job.yaml (job_state, facts: dax, accel), the"
echo "raw outputs, stats.json, and dmesg (the guest's console)."

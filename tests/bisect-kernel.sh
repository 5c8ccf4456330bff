#!/bin/sh
# make check-bisect-kernel: lkprobot bisect on real kernels, end to end (not
# in `make check`: it builds and boots kernels for about a quarter of an
# hour). On the scratch git tree of Debian's linux-source-6.1 that `make
# check-kernel` made, a branch of 16 commits touching drivers/nvdimm, fs/xfs
# and mm, one of which (the 11th) adds a per-page delay to pmem's DAX access
# path — what DAX writes go through — large enough to stand far out of TCG's
# noise; then `lkprobot bisect --provider qemu` with the smoke fio job (xfs,
# DAX, two NVDIMMs) over the branch: incremental builds in the kernel
# cache's O= directory, boots, fio, the culprit named. Prints the wall time,
# builds and runs; exit 0 when the culprit is the delay commit.
#
# PROVIDER=ssh (make check-bisect-box): the same bisection with
# `--provider ssh` on a QEMU guest standing in for a real pmem box
# (`lkprobot qemu-box`, Debian's kernel as its own): each commit's kernel
# (--kconfig qemu-box: x86_64-pmem plus virtio-net and kexec) is copied to
# the box and kexec'd into, the job run there, the result root brought home.
set -e
cd "$(dirname "$0")/.."
SCRATCH=${KERNEL_SCRATCH:-/var/tmp/lkprobot-linux}
src=$SCRATCH/linux-source-6.1
cache=$SCRATCH/cache
out=$SCRATCH/bisect-result
git="git -C $src -c user.name=lkprobot -c user.email=lkprobot@localhost"

if [ ! -d "$src/.git" ]; then
	echo "check-bisect-kernel: no kernel tree in $src; run 'make check-kernel' first (it makes one)" >&2
	exit 2
fi
# the branch check-kernel builds on; ours starts there every time
main=$($git rev-parse --verify -q master >/dev/null && echo master || echo main)
base=$($git rev-parse "$main")
$git checkout -q -B lkprobot-bisect "$base"
n=0
for f in drivers/nvdimm/bus.c fs/xfs/xfs_file.c mm/filemap.c drivers/nvdimm/region.c fs/xfs/xfs_iomap.c \
	 mm/memory.c drivers/nvdimm/namespace_devs.c fs/xfs/xfs_super.c mm/page_alloc.c fs/xfs/xfs_aops.c \
	 drivers/nvdimm/pmem.c mm/truncate.c drivers/nvdimm/dimm.c fs/xfs/xfs_buf.c mm/readahead.c \
	 drivers/nvdimm/core.c; do
	n=$((n + 1))
	if [ $n = 11 ]; then
		# the regression: 150 us per page in __pmem_direct_access (a 2M write: ~77 ms)
		sed -i 's|^\tresource_size_t offset = PFN_PHYS(pgoff) + pmem->data_offset;|&\n\tlong lkprobot_delay;\n\n\tfor (lkprobot_delay = 0; lkprobot_delay < nr_pages \&\& lkprobot_delay < 512; lkprobot_delay++)\n\t\tudelay(150);|' "$src/$f"
		grep -q 'udelay(150)' "$src/$f"
		grep -q '^#include <linux/delay.h>' "$src/$f" || sed -i 's|^#include <linux/module.h>|&\n#include <linux/delay.h>|' "$src/$f"
		$git commit -q -a -m "nvdimm/pmem: wait 150 us per page in __pmem_direct_access (lkprobot check-bisect-kernel)"
		culprit=$($git rev-parse HEAD)
	else
		echo "/* lkprobot check-bisect-kernel: commit $n */" >>"$src/$f"
		$git commit -q -a -m "$(dirname "$f" | sed 's|.*/||'): a comment, commit $n of 16 (lkprobot check-bisect-kernel)"
	fi
done
bad=$($git rev-parse HEAD)
$git checkout -q "$main"
rm -rf "$out"
provider="--provider qemu --kconfig x86_64-pmem"
if [ "${PROVIDER:-qemu}" = ssh ]; then
	box=$SCRATCH/box
	port=$((23000 + $$ % 1000))
	rm -rf "$box" && mkdir -p "$box/state"
	ssh-keygen -q -t ed25519 -N "" -f "$box/id"
	dropbearkey -t ed25519 -f "$box/state/host_key" >/dev/null
	echo "[127.0.0.1]:$port $(dropbearkey -y -f "$box/state/host_key" | grep ^ssh-)" >"$box/known_hosts"
	./lkprobot qemu-box --dir "$box/state" --ssh-port "$port" --authorized-keys "$box/id.pub" --cache "$cache" \
		>"$box/qemu-box.out" 2>&1 &
	boxpid=$!
	trap 'kill $boxpid 2>/dev/null' EXIT
	cat >"$box/boxes.yaml" <<-EOF
	boxes:
	  qbox:
	    host: 127.0.0.1
	    port: $port
	    key: $box/id
	    known_hosts: $box/known_hosts
	    tbox_group: qemu-pmem
	    workdir: /mnt/lkprobot
	    fs_root: /run/fs
	    initrd: /mnt/initramfs.cpio
	    power_cycle_cmd: [python3, $(pwd)/tests/fixtures/box/power-cycle.py, $box/state/monitor]
	    boot_timeout: 180
	EOF
	for i in $(seq 1 180); do
		ssh -i "$box/id" -p "$port" -o BatchMode=yes -o UserKnownHostsFile="$box/known_hosts" \
			-o ConnectTimeout=5 root@127.0.0.1 true 2>/dev/null && break
		sleep 1
	done
	provider="--provider ssh --box qbox --boxes $box/boxes.yaml --kconfig qemu-box"
fi
start=$(date +%s)
./lkprobot bisect $provider --tree "$src" --good "$base" --bad "$bad" \
	--cache "$cache" -o "$out" --metric fio.write_bw_MBps --json \
	jobs/fio-basic/fio-basic-smoke.yaml >"$SCRATCH/bisect.json" || true
end=$(date +%s)
cat "$SCRATCH/bisect.json"
python3 - "$SCRATCH/bisect.json" "$culprit" $((end - start)) <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
print("check-bisect-kernel: %s in %s s: %s, %d builds, %d runs, %d steps, culprit %s"
      % (j["status"], sys.argv[3], "right" if j["culprit"] == sys.argv[2] else "WRONG",
         j["builds"], j["runs"], len(j["steps"]), j["culprit"]))
# the culprit's checks: its revert at the bad end, and its change in kernels built with -falign-functions=32
for k in ("revert", "layout"):
    c = j.get(k) or {}
    print("check-bisect-kernel: %s check: %s (%s builds, %s runs): %s"
          % (k, c.get("status"), c.get("builds"), c.get("runs"), c.get("why")))
ok = j["status"] == "found" and j["culprit"] == sys.argv[2]
# a real slow-down of pmem by the culprit: its revert restores it, and it survives aligned builds
ok = ok and j["revert"]["status"] == "confirms" and j["layout"]["status"] in ("confirms", "not-sure")
sys.exit(0 if ok else 1)
EOF

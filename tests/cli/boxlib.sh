# What the tests of the ssh provider's boxes share (t1300, t1310): the tools
# a QEMU box needs, an entry of the boxes file for one, and the wait for its
# ssh. Sourced after lib.sh; the boxes are reached with the key $TMP/id and
# checked against $TMP/known_hosts.
test_need_root
test_need_cmd qemu-system-x86_64 qemu-system-x86
test_need_cmd dropbearkey dropbear-bin
test_need_cmd ssh openssh-client
test_need_cmd kexec kexec-tools
test_need_cmd python3 python3

# the cache of QEMU boxes (their NVDIMM files), and Debian's kernel in it (qemu-box fetches it)
CACHE=${LKPROBOT_TEST_CACHE:-/var/cache/lkprobot-test}
kernel() { ls "$CACHE"/debian/*/root/boot/vmlinuz-* 2>/dev/null | head -n 1; }

# box_entry NAME PORT DIR: the boxes file's entry for the QEMU box whose state
# directory is DIR (its monitor the power switch), tbox_group qemu-pmem
box_entry() {
	cat <<-EOF
	  $1:
	    host: 127.0.0.1
	    port: $2
	    key: $TMP/id
	    known_hosts: $TMP/known_hosts
	    tbox_group: qemu-pmem
	    workdir: /mnt/lkprobot
	    fs_root: /run/fs
	    initrd: /mnt/initramfs.cpio
	    power_cycle_cmd: [python3, $SRC/tests/fixtures/box/power-cycle.py, $3/monitor]
	EOF
}

# wait_box PORT DIR: up to 240 s for the box's ssh to answer (else its console's end)
wait_box() {
	for i in $(seq 1 240); do
		ssh -i "$TMP/id" -p "$1" -o BatchMode=yes -o UserKnownHostsFile="$TMP/known_hosts" \
			-o ConnectTimeout=5 root@127.0.0.1 true 2>/dev/null && return 0
		sleep 1
	done
	echo "the box did not answer on port $1"; tail -n 30 "$2/console"; return 1
}

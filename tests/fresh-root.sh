#!/bin/sh
# make check-fresh: the README's two commands where nothing is installed. A
# fresh Debian 12 root is made with debootstrap (minbase, plus git and make
# only) and the commit at HEAD is cloned inside it (from a git bundle), twice:
#
#   as a user with sudo, in a root whose /dev has no kvm (a host without
#   KVM): `make demo` — its deps step installs the packages through sudo —
#   and `make check` (the tests that need root are skipped, and say so);
#   as root, /dev bound from this host (here a /dev/kvm whose guests abort):
#   `make demo`, then `make check`.
#
# proc is mounted, sys and dev are bound with what is mounted under them
# (cgroup2 at /sys/fs/cgroup: slurmd needs it; /dev/pts, /dev/shm), made
# slaves so that nothing done inside reaches this host's mounts; they are
# unmounted however the script ends (an error, a signal), after the
# processes left running inside the roots are ended, by pid. Nothing is
# cached between two runs: a package the project forgets to install is
# missing here. Needs root, debootstrap and the network (a Debian mirror).
# Prints each step's time, and as its last line the `N passed, N failed`
# of the make check it ran. Exit status: that of the make checks; 2 not
# root; 75 when debootstrap could not make the root (the mirror, the
# network: nothing of the project's was run).
#
# Each run has a directory of its own (/var/tmp/lkprobot-fresh.XXXXXX, or
# LKPROBOT_FRESH_DIR) and holds a lock on its .lock for its life: two runs
# on one machine (a developer's and CI's) do not touch each other's roots,
# and what a run that was killed left (mounts, processes, loop devices, a
# root kept after a failure) is cleaned up by the next one, which knows it
# is dead because nothing holds its lock.
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
MIRROR=${LKPROBOT_FRESH_MIRROR:-http://deb.debian.org/debian}
SUMMARY=
TIMES=

say() { echo "check-fresh: $*"; }
die() { say "$*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { say "needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || die "no debootstrap here (Debian package debootstrap)"

# the mount points under directory $1 (default $WORK), deepest first
mounts_under() {
	awk -v w="${1:-$WORK}/" 'index($2, w) == 1 { print $2 }' /proc/mounts | sort -r
}

# end the processes still running inside directory $1 (a daemon a failed test left), by pid
end_processes() {
	for p in /proc/[0-9]*; do
		r=$(readlink "$p/root" 2>/dev/null) || continue
		case "$r/" in "$1"/*) kill -KILL "${p#/proc/}" 2>/dev/null || true ;; esac
	done
}

# end what runs and is mounted in run directory $1: processes, mounts, loop
# devices over its files (a test killed before its teardown); 1 when
# something stays mounted
release() {
	end_processes "$1"
	for m in $(mounts_under "$1"); do
		umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "cannot unmount $m" >&2
	done
	losetup -a 2>/dev/null | awk -v w="($1/" 'index($0, w) { sub(/:.*/, ""); print }' |
		while read -r d; do losetup -d "$d" 2>/dev/null || say "cannot detach $d" >&2; done
	[ -z "$(mounts_under "$1")" ] || { say "still mounted under $1:" >&2; mounts_under "$1" >&2; return 1; }
}

# the directories of runs that ended without cleaning up (killed, or a
# failure's roots kept for a look): nothing holds their lock
for d in /var/tmp/lkprobot-fresh.*; do
	[ -d "$d" ] && [ -f "$d/.lock" ] || continue
	if flock -n "$d/.lock" true; then
		say "cleaning up $d (a run that is over)"
		release "$d" && rm -rf "$d"
	else
		say "another check-fresh is running in $d; this one runs beside it"
	fi
done

if [ -n "${LKPROBOT_FRESH_DIR:-}" ]; then
	WORK=$LKPROBOT_FRESH_DIR
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d /var/tmp/lkprobot-fresh.XXXXXX)
fi
WORK=$(cd "$WORK" && pwd -P)
# every path below is in $WORK: never / (a root copied over the host's
# /root, a bound /sys removed file by file)
[ -n "${WORK%/*}" ] ||
	die "'$WORK' cannot be the work directory (/ or a directory of /); give LKPROBOT_FRESH_DIR one of its own"
BASE=$WORK/base
ROOT=$WORK/root
USERROOT=$WORK/user
exec 9>>"$WORK/.lock"
flock -n 9 || die "$WORK is used by a check-fresh that is running; give another LKPROBOT_FRESH_DIR"

cleanup() {
	rc=$?
	trap - EXIT HUP INT TERM
	release "$WORK" || rc=1
	case "$rc" in 0 | 75) [ -n "$(mounts_under)" ] || rm -rf "$WORK" ;; esac
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
# what a run that was killed left here (LKPROBOT_FRESH_DIR given again)
release "$WORK" || die "cannot unmount what is mounted under $WORK"
find "$WORK" -mindepth 1 -maxdepth 1 ! -name .lock -exec rm -rf {} +

# step NAME COMMAND...: run it, note its time
step() {
	name=$1
	shift
	say "$name ..."
	t0=$(date +%s)
	st=0
	"$@" || st=$?
	t=$(($(date +%s) - t0))
	TIMES="$TIMES$name: $t s
"
	say "$name: $t s"
	return $st
}

# proc, and sys and dev with their submounts, in root $1 (dev: $2 = host or bare)
mount_root() {
	mount -t proc proc "$1/proc"
	mount --rbind /sys "$1/sys"
	mount --make-rslave "$1/sys"
	if [ "$2" = host ]; then
		mount --rbind /dev "$1/dev"
		mount --make-rslave "$1/dev"
	else
		# a /dev of a machine without KVM: the usual nodes, its own pts
		mount -t tmpfs -o mode=755,nosuid dev "$1/dev"
		for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
			IFS=: read -r node major minor <<-EOF
			$n
			EOF
			mknod -m 666 "$1/dev/$node" c "$major" "$minor"
		done
		mkdir "$1/dev/pts" "$1/dev/shm"
		mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$1/dev/pts"
		ln -s pts/ptmx "$1/dev/ptmx"
		mount -t tmpfs -o mode=1777,nosuid,nodev shm "$1/dev/shm"
		ln -s /proc/self/fd "$1/dev/fd"
		ln -s /proc/self/fd/0 "$1/dev/stdin"
		ln -s /proc/self/fd/1 "$1/dev/stdout"
		ln -s /proc/self/fd/2 "$1/dev/stderr"
	fi
	# what a Debian host has that debootstrap does not make
	cp /etc/resolv.conf "$1/etc/resolv.conf"
	printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$1/etc/hosts"
}

# in ROOT as root: a login-like environment, nothing of ours
in_root() {
	r=$1
	shift
	chroot "$r" /usr/bin/env -i HOME=/root USER=root LOGNAME=root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@" 9>&-
}

# how long the apt-get install of make deps took in root $1 (apt's own log)
deps_time() {
	awk '/^Start-Date:/ { s = $2 " " $3 } /^Commandline: .*apt-get install/ { c = 1 }
	     /^End-Date:/ { if (c) { e = $2 " " $3; c = 0; last_s = s } }
	     END { print last_s "|" e }' "$1/var/log/apt/history.log" |
	{
		IFS='|' read -r from to
		[ -n "$to" ] && echo "$(($(date -d "$to" +%s) - $(date -d "$from" +%s))) s" || echo "?"
	}
}

clone_and() {	# the commands after a fresh clone of the bundle, in ~/lkprobot
	echo "cd && git -c advice.detachedHead=false clone -q /srv/lkprobot.bundle lkprobot && cd lkprobot && $1"
}

bootstrap() {
	debootstrap --variant=minbase --include=git,make bookworm "$BASE" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$WORK/debootstrap.log"; say "debootstrap failed (see above): no root was made" >&2; exit 75; }
}
step debootstrap bootstrap
git -C "$SRC" bundle create "$WORK/lkprobot.bundle" HEAD 2>/dev/null
for r in "$USERROOT" "$ROOT"; do
	cp -a "$BASE" "$r"
	mkdir -p "$r/srv"
	install -m 644 "$WORK/lkprobot.bundle" "$r/srv/lkprobot.bundle"
done
rm -rf "$BASE"

# a user with sudo, and no /dev/kvm: make demo, make check
mount_root "$USERROOT" bare
step "user: apt-get install sudo (the premise, not the project's)" \
	in_root "$USERROOT" sh -c 'apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q sudo >/dev/null'
in_root "$USERROOT" sh -c 'useradd -m -s /bin/sh dev && echo "dev ALL=(ALL) NOPASSWD: ALL" >/etc/sudoers.d/dev && chmod 440 /etc/sudoers.d/dev'
as_dev() {
	chroot "$USERROOT" /usr/sbin/runuser -u dev -- /usr/bin/env -i HOME=/home/dev USER=dev LOGNAME=dev TERM=dumb \
		LANG=C.UTF-8 PATH=/usr/local/bin:/usr/bin:/bin sh -c "$1" 9>&-
}
step "user: make demo (deps through sudo, build, demo without /dev/kvm)" as_dev "$(clone_and "make demo")"
# the tests that need root skip, and say so; the others run as this user
user_rc=0
step "user: make check" as_dev 'cd ~/lkprobot && { make check 2>&1; echo $? >~/check.rc; } | tee ~/check.log
	exit "$(cat ~/check.rc)"' || user_rc=$?
USER_SUMMARY=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$USERROOT/home/dev/check.log" | tail -n 1)
TIMES="${TIMES}user: of which make deps' apt-get install: $(deps_time "$USERROOT")
"
end_processes "$USERROOT"
for m in $(mounts_under); do
	case "$m" in "$USERROOT"/*) umount "$m" 2>/dev/null || umount -l "$m" ;; esac
done
[ "$user_rc" != 0 ] || [ -n "$(mounts_under "$USERROOT")" ] || rm -rf "$USERROOT"

# root, this host's /dev: make demo, then make check
mount_root "$ROOT" host
step "root: make demo (deps, build, demo)" in_root "$ROOT" sh -c "$(clone_and "make demo")"
TIMES="${TIMES}root: of which make deps' apt-get install: $(deps_time "$ROOT")
"
# its output as it comes, and its exit status, kept inside the root
check() {
	in_root "$ROOT" sh -c 'cd /root/lkprobot && { make check 2>&1; echo $? >/root/check.rc; } | tee /root/check.log
		exit "$(cat /root/check.rc)"'
}
rc=0
step "root: make check" check || rc=$?
# its last line, or the line before make's own "*** [...] Error" when it failed
SUMMARY=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$ROOT/root/check.log" | tail -n 1)
[ -n "$SUMMARY" ] || die "make check ended without its summary line"
printf '%s' "$TIMES" | sed 's/^/check-fresh: /'
say "user: make check: ${USER_SUMMARY:-no summary line} (exit $user_rc)"
[ "$rc" = 0 ] && [ "$user_rc" = 0 ] || say "a make check failed; the roots are kept in $WORK for a look (until the next run)"
echo "$SUMMARY"
[ "$user_rc" = 0 ] || exit "$user_rc"
exit "$rc"

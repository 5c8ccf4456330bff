#!/bin/sh
# A real Slurm cluster in a directory, for the farm's tests and bench/farm
# (Debian's slurm-wlm and munge): munged, slurmctld and one slurmd a box,
# every box a node on 127.0.0.1 with its own port, everything under DIR,
# stopped by the pids it wrote there (never by name).
#   sh tests/slurm-cluster.sh up DIR NODES PORT [FEATURES...]   (FEATURES: node i's, default lkp)
#   sh tests/slurm-cluster.sh down DIR
# or sourced: slurm_up DIR NODES PORT [FEATURES...]; slurm_down DIR.
# Up exports SLURM_CONF=DIR/slurm.conf and waits (15 s at most) for every
# node to be idle; the daemons log to DIR/log (slurmctld.log: when each job
# was allocated a box and when it completed, to the millisecond).

slurm_down() {
	for f in "$1"/run/slurmd-*.pid "$1"/run/slurmctld.pid "$1"/munge/munged.pid; do
		[ -f "$f" ] || continue
		pid=$(cat "$f")
		kill "$pid" 2>/dev/null && for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	done
	return 0
}

slurm_up() {
	dir=$1 nodes=$2 port=$3
	shift 3
	mkdir -p "$dir/munge" "$dir/state" "$dir/log" "$dir/run" || return 1
	chmod 755 "$dir" && chown munge:munge "$dir/munge" && chmod 755 "$dir/munge" || return 1
	[ -f "$dir/munge/munge.key" ] || runuser -u munge -- mungekey -c -k "$dir/munge/munge.key" || return 1
	runuser -u munge -- munged -S "$dir/munge/munge.socket.2" --key-file="$dir/munge/munge.key" \
		--log-file="$dir/munge/munged.log" --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munged.seed" ||
		return 1
	mem=$(( $(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024 / (2 * nodes) ))
	cat >"$dir/slurm.conf" <<-EOF
	ClusterName=lkprobot
	SlurmctldHost=localhost
	SlurmUser=root
	SlurmdUser=root
	SlurmctldPort=$port
	AuthType=auth/munge
	CredType=cred/munge
	AuthInfo=socket=$dir/munge/munge.socket.2
	StateSaveLocation=$dir/state
	SlurmdSpoolDir=$dir/spool/%n
	SlurmctldPidFile=$dir/run/slurmctld.pid
	SlurmdPidFile=$dir/run/slurmd-%n.pid
	SlurmctldLogFile=$dir/log/slurmctld.log
	SlurmdLogFile=$dir/log/slurmd-%n.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	MailProg=/usr/bin/true
	MpiDefault=none
	SchedulerType=sched/backfill
	SchedulerParameters=batch_sched_delay=0
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core_Memory
	DefMemPerCPU=512
	ReturnToService=2
	SlurmdTimeout=30
	EOF
	for i in $(seq 1 "$nodes"); do
		f=${1:-lkp}
		[ $# -gt 0 ] && shift
		mkdir -p "$dir/spool/node$i"
		echo "NodeName=node$i NodeHostname=node$i NodeAddr=127.0.0.1 Port=$((port + i)) CPUs=$(nproc) RealMemory=$mem Feature=$f State=UNKNOWN" >>"$dir/slurm.conf"
	done
	echo "PartitionName=lkp Nodes=ALL Default=YES MaxTime=INFINITE State=UP" >>"$dir/slurm.conf"
	export SLURM_CONF="$dir/slurm.conf"
	slurmctld -c || return 1
	for i in $(seq 1 "$nodes"); do slurmd -N "node$i" || return 1; done
	for i in $(seq 1 150); do
		[ "$(sinfo -h -N -t idle -o %N 2>/dev/null | wc -l)" = "$nodes" ] && return 0
		sleep 0.1
	done
	echo "slurm-cluster: the $nodes nodes are not idle after 15 s:" >&2
	sinfo -N >&2
	return 1
}

case $1 in
up) shift; slurm_up "$@" ;;
down) shift; slurm_down "$@" ;;
esac

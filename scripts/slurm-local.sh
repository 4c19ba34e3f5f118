#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying scripts/slurm-sweep.sh without a real
# cluster (and for crate/tests/slurm.rs): munge, slurmctld and slurmd on 127.0.0.1, every file
# (key, sockets, state, spool, logs, pid files) under DIR, nothing system-wide.
#
#   scripts/slurm-local.sh start DIR   start the daemons, wait until the node is idle, and print
#                                      `export SLURM_CONF=DIR/slurm.conf` for the shell
#   scripts/slurm-local.sh stop DIR    stop them by their pid files (DIR/pids lists them)
#
# Needs Debian's slurm-wlm and munge (22.05: `apt-get install --no-install-recommends slurm-wlm
# munge`; `make test` installs them) and root, as slurmd starts jobs as their users. The ports
# are SLURM_LOCAL_PORTS ("controller node", default "16817 16818"). The node has every core of
# the machine (nproc) and all of its memory but 256 MB.
set -euo pipefail

usage() { sed -n '2,13s/^# \{0,1\}//p' "$0"; }
die() { echo "slurm-local.sh: $*" >&2; exit 2; }

case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  start|stop) ;;
  *) usage >&2; exit 2 ;;
esac
[ $# -eq 2 ] || { usage >&2; exit 2; }
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)

stop() {
  # slurmd first (it runs the jobs), then the controller, then munge.
  for name in slurmd slurmctld munged; do
    local pidfile="$dir/$name.pid" pid
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi

for c in munged slurmctld slurmd sinfo; do
  command -v "$c" >/dev/null || die "$c is not installed: apt-get install --no-install-recommends slurm-wlm munge"
done
[ "$(id -u)" = 0 ] || die "slurmd starts jobs as their users, so it runs as root: run this as root"

read -r ctl_port node_port <<<"${SLURM_LOCAL_PORTS:-16817 16818}"
host=$(hostname -s)
cpus=$(nproc)
mem=$(( $(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo) - 256 ))
mkdir -p "$dir"/{munge,state,spool,log}
chmod 700 "$dir/munge"

# munge: a fresh key, its own socket.
key=$dir/munge/munge.key
[ -f "$key" ] || { dd if=/dev/urandom bs=1024 count=1 of="$key" status=none; chmod 400 "$key"; }
socket=$dir/munge/munge.socket
munged --key-file="$key" --socket="$socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" --force
echo "munged $(cat "$dir/munged.pid")" >"$dir/pids"

cat >"$dir/slurm.conf" <<EOF
ClusterName=election-lab-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
SlurmctldPort=$ctl_port
SlurmdPort=$node_port
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$dir/slurm.conf

slurmctld -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$dir/slurmctld.pid" ] && break; sleep 0.1; done
echo "slurmctld $(cat "$dir/slurmctld.pid")" >>"$dir/pids"
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$dir/slurmd.pid" ] && break; sleep 0.1; done
echo "slurmd $(cat "$dir/slurmd.pid")" >>"$dir/pids"

# The node is up when sinfo shows it idle (a few seconds).
for _ in $(seq 300); do
  [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && { echo "export SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.1
done
echo "slurm-local.sh: the node did not become idle within 30 s; the logs:" >&2
tail -n 20 "$dir"/log/*.log >&2 || true
stop
exit 1

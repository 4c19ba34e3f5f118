#!/usr/bin/env bash
# Runs a real 3-member etcd or ZooKeeper cluster on 127.0.0.1, kills (or freezes) its leader,
# waits for the new election, stops everything and leaves the logs (and, when the election-lab
# CLI is at hand, the imported trace) in a directory it prints. `sentinel`: a Redis master, two
# replicas and three Sentinels; the master is killed and the Sentinels elect one of themselves
# to promote a replica.
#
#   scripts/real-cluster.sh etcd|zookeeper|sentinel [--freeze] [--zap] [--out DIR] [--timeout SECONDS]
#
#   --freeze     stop the leader with SIGSTOP instead of killing it (a pause: a long GC, a stuck
#                disk), wait for the new election, then resume it with SIGCONT: it wakes still
#                believing it leads, at its old term, until its peers tell it otherwise
#   --zap        etcd only: the JSON logger (--logger=zap, millisecond timestamps) instead of
#                the default text logger (one-second timestamps)
#   --out DIR    where to leave the logs (default: a new directory under ${TMPDIR:-/tmp})
#   --timeout S  bound on each wait (default 60)
#
# Uses Debian's packages (etcd-server + etcd-client 3.4, zookeeper 3.8 + a headless JRE,
# redis-server + redis-sentinel 7.0) and
# installs them when missing (as root, or through sudo). Every process it starts is stopped on
# exit, also on failure or Ctrl-C. Only loopback addresses; ports are picked free.
#
# In DIR: one log per member (etcd: a.log b.log c.log; zookeeper: 1.log 2.log 3.log; sentinel:
# s1.log s2.log s3.log, the Sentinels, and redis-PORT.log for the servers),
# status.txt (who led before, who leads after, by the cluster's own account), faults.jsonl (the
# kill, or the freeze and the resume, at their wall times, in the event format; etcd and
# zookeeper), pids, and
# trace.json when the CLI could be run (ELECTION_LAB=path/to/election-lab, or cargo in this repo).

set -euo pipefail

usage() {
  sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'
}
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
esac
kind="${1:-}"
shift || true
freeze=0
zap=0
out=""
timeout=60
while [ $# -gt 0 ]; do
  case "$1" in
    --freeze) freeze=1 ;;
    --zap) zap=1 ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    --timeout) timeout="${2:?--timeout needs seconds}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "real-cluster.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
case "$kind" in
  etcd|zookeeper|sentinel) ;;
  *) echo "usage: scripts/real-cluster.sh etcd|zookeeper|sentinel [--freeze] [--zap] [--out DIR] [--timeout S]" >&2; exit 2 ;;
esac

# Every member logs in UTC, as the importers read its times and as faults.jsonl is written.
export TZ=UTC

SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
install_if_missing() {
  if [ "$kind" = etcd ]; then
    command -v etcd >/dev/null && command -v etcdctl >/dev/null && return 0
    echo "installing etcd-server and etcd-client from Debian's packages" >&2
    $SUDO apt-get update >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y etcd-server etcd-client >&2
  elif [ "$kind" = sentinel ]; then
    command -v redis-server >/dev/null && command -v redis-sentinel >/dev/null && command -v redis-cli >/dev/null && return 0
    echo "installing redis-server and redis-sentinel from Debian's packages" >&2
    $SUDO apt-get update >&2 && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y redis-server redis-sentinel >&2
  else
    [ -f /usr/share/java/zookeeper.jar ] && command -v java >/dev/null && return 0
    echo "installing zookeeper and a headless JRE from Debian's packages" >&2
    $SUDO apt-get update >&2 &&
      DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends zookeeper default-jre-headless >&2
  fi
}
install_if_missing

if [ -z "$out" ]; then
  out="$(mktemp -d "${TMPDIR:-/tmp}/election-lab-$kind.XXXXXX")"
else
  mkdir -p "$out"
fi
out="$(cd "$out" && pwd)"
: >"$out/pids"

declare -A PID=()
cleanup() {
  # SIGKILL at once: a graceful stop would add a leadership transfer to the logs.
  for m in "${!PID[@]}"; do
    kill -KILL "${PID[$m]}" 2>/dev/null || true
  done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# A base port with base..base+9 free, below the kernel's ephemeral range: a port in that range
# can be taken by any outgoing connection (another member's, the other cluster's) between the
# check and the bind, which once left an etcd member dead with "address already in use".
low=32768
read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
[ "$low" -gt 11000 ] || low=32768
pick_base() {
  local base tries=0
  while [ $tries -lt 50 ]; do
    base=$((10000 + (RANDOM % ((low - 10000) / 100 - 1)) * 100))
    local ok=1 p
    for p in $(seq "$base" $((base + 9))); do port_free "$p" || { ok=0; break; }; done
    [ $ok = 1 ] && { echo "$base"; return 0; }
    tries=$((tries + 1))
  done
  echo "real-cluster.sh: no free ports found" >&2
  return 1
}
base="$(pick_base)"
# Runs "$2"... every $1 seconds until it succeeds, its output then in $found; past the timeout,
# exits saying what did not happen: "$what within ${timeout}s".
wait_for() {
  local pause="$1" end=$(($(date +%s) + timeout))
  shift
  until found="$("$@")"; do
    [ "$(date +%s)" -lt "$end" ] || { echo "real-cluster.sh: $what within ${timeout}s (logs in $out)" >&2; exit 1; }
    sleep "$pause"
  done
}
# faults.jsonl: the kill (or freeze) as it happened, in the event format, for
# `election-lab import --mapping KIND LOGS --faults faults.jsonl`: "$1" the vocabulary, "$2" the
# member id as the logs write it, $fault_at the wall time in ms, $what and the pid.
write_fault() {
  local kind=crash how="SIGKILL"
  [ "$what" = froze ] && kind=pause how="SIGSTOP: frozen, its state kept"
  {
    echo "{\"format\": \"election-lab-events/1\", \"system\": \"scripts/real-cluster.sh\", \"vocabulary\": \"$1\"}"
    echo "{\"time\": $fault_at, \"node\": \"$2\", \"kind\": \"$kind\", \"raw\": \"$what $victim (pid ${PID[$victim]}, $how)\"}"
  } >"$out/faults.jsonl"
}
# After a freeze, once the others have elected: SIGCONT, and the resume appended to faults.jsonl
# ("$1" the member id as written there). The woken member logs at its old term, then steps down.
resume_frozen() {
  [ "$what" = froze ] || return 0
  local at
  at="$(date +%s%3N)"
  kill -CONT "${PID[$victim]}"
  echo "resumed $victim (pid ${PID[$victim]})" | tee -a "$out/status.txt"
  echo "{\"time\": $at, \"node\": \"$1\", \"kind\": \"resume\", \"raw\": \"resumed $victim (pid ${PID[$victim]}, SIGCONT)\"}" >>"$out/faults.jsonl"
  sleep 2
}

# ---------------------------------------------------------------- etcd
if [ "$kind" = etcd ]; then
  names=(a b c)
  logger=()
  [ $zap = 1 ] && logger=(--logger=zap --log-outputs=stderr)
  start_etcd() {
    local k n cluster=""
    endpoints=""
    for k in 0 1 2; do
      cluster+="${cluster:+,}${names[$k]}=http://127.0.0.1:$((base + 2 * k))"
      endpoints+="${endpoints:+,}http://127.0.0.1:$((base + 2 * k + 1))"
    done
    : >"$out/pids"
    for k in 0 1 2; do
      n="${names[$k]}"
      rm -rf "$out/$n.data"
      etcd --name "$n" --data-dir "$out/$n.data" \
        --listen-peer-urls "http://127.0.0.1:$((base + 2 * k))" \
        --initial-advertise-peer-urls "http://127.0.0.1:$((base + 2 * k))" \
        --listen-client-urls "http://127.0.0.1:$((base + 2 * k + 1))" \
        --advertise-client-urls "http://127.0.0.1:$((base + 2 * k + 1))" \
        --initial-cluster "$cluster" --initial-cluster-state new \
        --initial-cluster-token "election-lab-$base" "${logger[@]}" >"$out/$n.log" 2>&1 &
      PID[$n]=$!
      disown "$!" # no "Killed" notice from bash when it is killed
      echo "$n ${PID[$n]}" >>"$out/pids"
    done
  }
  # A member that could not bind its port exits at once: start all three again on other ports.
  for attempt in 1 2 3 4 5; do
    start_etcd
    sleep 1
    lost=0
    for n in "${names[@]}"; do kill -0 "${PID[$n]}" 2>/dev/null || lost=1; done
    [ $lost = 0 ] && break
    grep -q "address already in use" "$out"/?.log || { echo "real-cluster.sh: an etcd member exited at start (logs in $out)" >&2; exit 1; }
    cleanup
    PID=()
    [ $attempt = 5 ] && { echo "real-cluster.sh: etcd ports kept being taken (logs in $out)" >&2; exit 1; }
    echo "real-cluster.sh: a port was taken, starting again on other ports" >&2
    base="$(pick_base)"
  done
  # The member that leads, by the cluster's own account: "name id term".
  leader_of() {
    local ep="$1" json
    json="$(ETCDCTL_API=3 timeout 5 etcdctl --endpoints="$ep" --dial-timeout=2s endpoint status -w json 2>/dev/null)" || return 1
    python3 - "$json" <<'EOF'
import json, sys
rows = json.loads(sys.argv[1])
for r in rows:
    s = r["Status"]
    if s["leader"] == s["header"]["member_id"]:
        print(r["Endpoint"], format(s["leader"], "016x"), s.get("raftTerm", s["header"].get("raft_term")))
        sys.exit(0)
sys.exit(1)
EOF
  }
  what="no etcd leader" wait_for 0.2 leader_of "$endpoints"
  read -r ep1 id1 term1 <<<"$found"
  k1=$(( ($(echo "$ep1" | sed 's/.*://') - base - 1) / 2 ))
  victim="${names[$k1]}"
  echo "before: leader $victim (member $id1) at term $term1" | tee "$out/status.txt"
  sleep 1
  # The time is read before the signal: the peers notice a killed member's closed connections
  # within a millisecond, before a clock read after the kill would return.
  fault_at="$(date +%s%3N)"
  if [ $freeze = 1 ]; then kill -STOP "${PID[$victim]}"; what=froze; else kill -KILL "${PID[$victim]}"; what=killed; fi
  echo "$what $victim (pid ${PID[$victim]})" | tee -a "$out/status.txt"
  # raft's own lines write member ids without leading zeros.
  write_fault raft "$(echo "$id1" | sed 's/^0*//')"
  survivors=""
  for k in 0 1 2; do [ "$k" = "$k1" ] || survivors+="${survivors:+,}http://127.0.0.1:$((base + 2 * k + 1))"; done
  what="no new etcd leader" wait_for 0.2 leader_of "$survivors"
  read -r ep2 id2 term2 <<<"$found"
  k2=$(( ($(echo "$ep2" | sed 's/.*://') - base - 1) / 2 ))
  echo "after: leader ${names[$k2]} (member $id2) at term $term2" | tee -a "$out/status.txt"
  resume_frozen "$(echo "$id1" | sed 's/^0*//')"
  sleep 1
  logs=("$out/a.log" "$out/b.log" "$out/c.log")
fi

# ---------------------------------------------------------------- zookeeper
if [ "$kind" = zookeeper ]; then
  J=/usr/share/java
  cp="$J/zookeeper.jar:$J/zookeeper-jute.jar:$J/slf4j-api.jar:$J/slf4j-log4j12.jar:$J/log4j-1.2.jar"
  for j in netty-buffer netty-codec netty-common netty-handler netty-resolver netty-transport \
    netty-transport-native-epoll netty-transport-native-unix-common commons-cli jackson-core \
    jackson-databind jackson-annotations metrics-core snappy-java; do
    [ -f "$J/$j.jar" ] && cp+=":$J/$j.jar"
  done
  for a in "$J"/audience-annotations*.jar "$J"/jline*.jar; do [ -f "$a" ] && cp+=":$a"; done
  # Millisecond timestamps; FastLeaderElection at DEBUG so that sent notifications are logged too.
  cat >"$out/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, CONSOLE
log4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender
log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout
log4j.appender.CONSOLE.layout.ConversionPattern=%d{ISO8601} [myid:%X{myid}] %-5p [%t] %c{1} - %m%n
log4j.logger.org.apache.zookeeper.server.quorum.FastLeaderElection=DEBUG
EOF
  for s in 1 2 3; do
    mkdir -p "$out/$s.data"
    echo "$s" >"$out/$s.data/myid"
    {
      echo "tickTime=200"
      echo "initLimit=10"
      echo "syncLimit=5"
      echo "dataDir=$out/$s.data"
      echo "clientPort=$((base + s))"
      echo "admin.enableServer=false"
      echo "4lw.commands.whitelist=srvr,stat"
      for t in 1 2 3; do echo "server.$t=127.0.0.1:$((base + 3 + t)):$((base + 6 + t))"; done
    } >"$out/$s.cfg"
    java -Xmx128m -cp "$cp" -Dlog4j.configuration="file:$out/log4j.properties" \
      -Dzookeeper.admin.enableServer=false \
      org.apache.zookeeper.server.quorum.QuorumPeerMain "$out/$s.cfg" >"$out/$s.log" 2>&1 &
    PID[$s]=$!
    disown "$!"
    echo "$s ${PID[$s]}" >>"$out/pids"
  done
  # "Mode: leader" from the srvr four-letter command; prints "mode zxid".
  srvr() {
    local reply
    reply="$({ exec 3<>"/dev/tcp/127.0.0.1/$((base + $1))" && printf 'srvr' >&3 && timeout 3 cat <&3; } 2>/dev/null)" || return 1
    echo "$(echo "$reply" | sed -n 's/^Mode: //p') $(echo "$reply" | sed -n 's/^Zxid: //p')"
  }
  leader_among() {
    local s
    for s in "$@"; do
      read -r mode zxid <<<"$(srvr "$s" || echo none)"
      [ "${mode:-}" = leader ] && { echo "$s $zxid"; return 0; }
    done
    return 1
  }
  what="no ZooKeeper leader" wait_for 0.3 leader_among 1 2 3
  read -r victim zxid1 <<<"$found"
  echo "before: leader $victim zxid $zxid1" | tee "$out/status.txt"
  sleep 1
  # The time is read before the signal: the peers notice a killed member's closed connections
  # within a millisecond, before a clock read after the kill would return.
  fault_at="$(date +%s%3N)"
  if [ $freeze = 1 ]; then kill -STOP "${PID[$victim]}"; what=froze; else kill -KILL "${PID[$victim]}"; what=killed; fi
  echo "$what $victim (pid ${PID[$victim]})" | tee -a "$out/status.txt"
  write_fault zookeeper "$victim"
  others=()
  for s in 1 2 3; do [ "$s" = "$victim" ] || others+=("$s"); done
  what="no new ZooKeeper leader" wait_for 0.3 leader_among "${others[@]}"
  read -r s2 zxid2 <<<"$found"
  echo "after: leader $s2 zxid $zxid2" | tee -a "$out/status.txt"
  resume_frozen "$victim"
  sleep 1
  logs=("$out/1.log" "$out/2.log" "$out/3.log")
fi

# ---------------------------------------------------------------- sentinel
if [ "$kind" = sentinel ]; then
  [ $freeze = 1 ] && { echo "real-cluster.sh: --freeze is for etcd and zookeeper" >&2; exit 2; }
  master=$base
  redis_port() { echo $((base + $1)); }        # 0: the master, 1 and 2: replicas
  sentinel_port() { echo $((base + 3 + $1)); } # 0, 1, 2: the three Sentinels
  : >"$out/pids"
  for r in 0 1 2; do
    p="$(redis_port $r)"
    mkdir -p "$out/redis-$p.data"
    args=(--port "$p" --bind 127.0.0.1 --dir "$out/redis-$p.data" --save '' --appendonly no --logfile "$out/redis-$p.log")
    [ $r = 0 ] || args+=(--replicaof 127.0.0.1 "$master")
    redis-server "${args[@]}" &
    PID[r$r]=$!
    disown "$!"
    echo "redis-$p ${PID[r$r]}" >>"$out/pids"
  done
  for s in 1 2 3; do
    p="$(sentinel_port $((s - 1)))"
    mkdir -p "$out/s$s.data"
    # Each Sentinel rewrites its own configuration file: one private copy each.
    {
      echo "port $p"
      echo "bind 127.0.0.1"
      echo "dir $out/s$s.data"
      echo "logfile $out/s$s.log"
      echo "sentinel monitor m 127.0.0.1 $master 2"
      echo "sentinel down-after-milliseconds m 1000"
      echo "sentinel failover-timeout m 5000"
    } >"$out/s$s.conf"
    redis-sentinel "$out/s$s.conf" --loglevel verbose &
    PID[s$s]=$!
    disown "$!"
    echo "s$s ${PID[s$s]}" >>"$out/pids"
  done
  # What Sentinel $1 says the master is: "PORT".
  master_of() {
    timeout 3 redis-cli -p "$(sentinel_port "$1")" --raw sentinel get-master-addr-by-name m 2>/dev/null | sed -n 2p
  }
  # The number of Sentinels and replicas Sentinel $1 knows of: "sentinels replicas".
  known_by() {
    timeout 3 redis-cli -p "$(sentinel_port "$1")" --raw sentinel master m 2>/dev/null |
      awk 'prev == "num-other-sentinels" { s = $0 } prev == "num-slaves" { r = $0 } { prev = $0 } END { print s + 0, r + 0 }'
  }
  # Every Sentinel knows the two others and both replicas before the master is killed.
  all_known() { [ "$(known_by 0)" = "2 2" ] && [ "$(known_by 1)" = "2 2" ] && [ "$(known_by 2)" = "2 2" ]; }
  what="the Sentinels did not find each other" wait_for 0.2 all_known
  echo "before: master 127.0.0.1:$master" | tee "$out/status.txt"
  kill -KILL "${PID[r0]}"
  echo "killed redis-$master (pid ${PID[r0]})" | tee -a "$out/status.txt"
  unset 'PID[r0]'
  # Every Sentinel names the same new master.
  new_master() {
    local a b c
    a="$(master_of 0)" b="$(master_of 1)" c="$(master_of 2)"
    [ -n "$a" ] && [ "$a" != "$master" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] && echo "$a"
  }
  what="the Sentinels named no new master" wait_for 0.2 new_master
  a="$found"
  epoch="$(timeout 3 redis-cli -p "$(sentinel_port 0)" --raw sentinel master m | awk 'prev == "config-epoch" { print; exit } { prev = $0 }')"
  echo "after: master 127.0.0.1:$a config-epoch $epoch" | tee -a "$out/status.txt"
  sleep 1
  logs=("$out/s1.log" "$out/s2.log" "$out/s3.log")
fi

cleanup
PID=()
# The members' data directories (etcd preallocates 64 MB write-ahead logs) are not needed for
# the trace: the logs are. Leave only those.
rm -rf "$out"/*.data

# The imported trace, when the CLI is at hand.
here="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${ELECTION_LAB:-}" ]; then
  cli=("$ELECTION_LAB")
elif [ -f "$here/Cargo.toml" ] && command -v cargo >/dev/null; then
  echo "ELECTION_LAB is not set: building the election-lab CLI of $here (cargo run --release) to import the logs" >&2
  cli=(cargo run --quiet --release --offline --manifest-path "$here/Cargo.toml" -p election-lab --)
else
  cli=()
fi
imp=(import "$kind")
[ "$kind" = sentinel ] && imp=(import --mapping sentinel)
if [ ${#cli[@]} -gt 0 ] && "${cli[@]}" "${imp[@]}" "${logs[@]}" -o "$out/trace.json" 2>"$out/import-report.txt"; then
  echo "trace: $out/trace.json (open it with Import… in the page; report in $out/import-report.txt)"
else
  echo "no trace written (the election-lab CLI was not run or failed; see $out/import-report.txt)"
fi
echo "logs: ${logs[*]}"
echo "status: $out/status.txt"

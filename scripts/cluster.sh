#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# An emulated cluster on one Linux machine (root): N nodes node1..nodeN, each a network +
# UTS namespace with its own hostname and an address on one bridge, each node's link
# optionally shaped with tc (rate, latency). Open MPI reaches the nodes through
# scripts/cluster-rsh (its plm_rsh_agent), which enters a node's namespaces with nsenter:
# no sshd. Everything lives in namespaces this script made; the addresses come from one
# private range (10.213.7.0/24) and exist only inside them, so nothing outside this
# machine is ever contacted.
#
#   cluster.sh up N [--rate 1gbit] [--delay 100us] [--slots S] [--slurm [--no-expansion] [--no-accounting]]
#   cluster.sh down                 remove every namespace, link, /etc/hosts line, process
#                                   and the jobs' ~/.malleable/slurm/<its ClusterName>
#   cluster.sh status               what exists now (exit 1 if no cluster is up)
#   cluster.sh exec NODE CMD...     run CMD inside NODE (mpiexec runs inside node1)
#   cluster.sh lose NODE...         the nodes are lost at once: every process in them
#                                   SIGKILLed, their link down, cluster-rsh refuses them
#   cluster.sh mpi-env              the environment Open MPI needs (KEY=VALUE lines)
#   cluster.sh hostfile             an Open MPI hostfile of the nodes (with slots)
#   cluster.sh check                exit 0 if namespaces can be made here, else 77 + why
#   cluster.sh slurm-env            SLURM_CONF=... for Slurm's commands (with --slurm)
#
# --slurm also starts Debian's Slurm 22.05: munged (its socket is a file, shared by every
# namespace), slurmctld in a namespace "head" (10.213.7.10, hostname head) and one slurmd
# per node inside that node's namespaces, from a generated slurm.conf (whole nodes,
# CPUs = slots, no cgroups, SchedulerParameters=permit_job_expansion; --no-expansion leaves
# it out, as stock Slurm since 19.05: jobs grow by restart into a new allocation) and
# accounting through slurmdbd, its MariaDB server (mariadbd) in the head's namespace with
# its data under the cluster's state directory: both end with `down` and leave nothing.
# Without accounting (--no-accounting, or no slurmdbd/mariadbd installed) Slurm 22.05
# lets a running job change size only once (docs/measurements/workload.md).
# With Slurm up, scripts/cluster-rsh refuses a launch from a Slurm job onto a node the job
# does not hold, as pam_slurm_adopt does at a site (logged to $STATE/slurm/log/adopt.log).
# Slurm's commands work from the head:
#   cluster.sh exec head sinfo        cluster.sh exec head sbatch -N 2 job.sh
#
# --rate shapes each node's link in both directions (token bucket); --delay adds a one-way
# delay to each node's link (node to node crosses two links) and needs the kernel's netem
# qdisc. `up` twice with the same arguments is harmless; `up` with others while a cluster
# is up is refused; `down` with nothing up is harmless. One cluster per machine at a time:
# tests hold the lock file /run/malleable-cluster.lock (flock) while they use it.
set -Eeuo pipefail

readonly STATE=/run/malleable-cluster
readonly NS_PREFIX=mallc-          # network namespaces mallc-node1 ...; mallc-switch
readonly SUBNET=10.213.7
readonly HOSTS_TAG="# malleable-cluster"
# Every edit of /etc/hosts holds this lock: `down` rewrites the file (truncate, then
# write), and a second cluster.sh reading it meanwhile (an `up` or `down` not under the
# tests' lock, e.g. by hand) read it empty and wrote it back empty, taking the machine's
# own lines with it (seen: MPI_Init then waited ~10 s for DNS to resolve the hostname).
readonly HOSTS_LOCK=/run/malleable-cluster.hosts.lock
# The hosts file the nodes' names go to; another file only for the test of that lock
# (tests/cluster/hosts_edits_locked.sh), never the machine's.
readonly HOSTS_FILE=${MALLEABLE_CLUSTER_HOSTS_FILE:-/etc/hosts}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

in_up=0
# A failed `up` takes down what it made (die exits: the ERR trap does not see it).
die() {
  echo "cluster.sh: $*" >&2
  if ((in_up)); then in_up=0; echo "cluster.sh: up failed; cleaning up" >&2; down >/dev/null 2>&1 || true; fi
  exit 1
}
usage() { sed -n '2,33p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }

node_addr() { echo "$SUBNET.$((10 + ${1#node}))"; }
nodes_up() { if [[ -f $STATE/nodes ]]; then cat "$STATE/nodes"; fi; }

check() {
  local why=""
  if [[ $(id -u) -ne 0 ]]; then
    why="not root (network namespaces need root)"
  elif ! command -v ip >/dev/null || ! command -v nsenter >/dev/null || ! command -v unshare >/dev/null; then
    why="ip (iproute2), nsenter and unshare (util-linux) are needed"
  elif ! ip netns add mallc-probe 2>/dev/null; then
    why="cannot create a network namespace here (ip netns add failed)"
  else
    ip netns del mallc-probe 2>/dev/null || true
    if ! ip link add mallc-probe0 type veth peer name mallc-probe1 2>/dev/null; then
      why="cannot create veth links here"
    else
      ip link del mallc-probe0 2>/dev/null || true
    fi
  fi
  if [[ -n $why ]]; then
    echo "cluster.sh: emulated cluster unavailable: $why"
    return 77
  fi
  return 0
}

# Can tc add a delay here (netem is a kernel module some kernels lack)?
netem_available() {
  ip netns add mallc-probe 2>/dev/null || return 1
  local ok=1
  if ip netns exec mallc-probe tc qdisc add dev lo root netem delay 1ms 2>/dev/null; then ok=0; fi
  ip netns del mallc-probe 2>/dev/null || true
  return $ok
}

# Shapes egress of one interface inside a namespace: netem when a delay is asked (with
# its rate), else a token bucket at `rate`.
shape() {  # <netns> <dev> <rate> <delay>
  local ns=$1 dev=$2 rate=$3 delay=$4
  if [[ -n $delay ]]; then
    local args=(delay "$delay")
    [[ -n $rate ]] && args+=(rate "$rate")
    ip netns exec "$ns" tc qdisc replace dev "$dev" root netem "${args[@]}" limit 10000
  elif [[ -n $rate ]]; then
    # burst: a few timer ticks of data at the rate; latency bounds the queue
    ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "$rate" burst 256kb latency 100ms
  fi
}

up() {
  local n=${1:-} rate="" delay="" slots=8 slurm=0 expansion=1 accounting=1
  [[ $n =~ ^[1-9][0-9]?$ ]] || die "up: N must be 1..99 nodes, got '${n}'"
  shift
  while (($#)); do
    case $1 in
      --rate) rate=${2:?--rate needs a value such as 1gbit}; shift 2 ;;
      --delay) delay=${2:?--delay needs a value such as 100us}; shift 2 ;;
      --slots) slots=${2:?--slots needs a number}; shift 2 ;;
      --slurm) slurm=1; shift ;;
      --no-expansion) expansion=0; shift ;;
      --no-accounting) accounting=0; shift ;;
      *) die "up: unknown option '$1'" ;;
    esac
  done
  local exp_tag=""
  if ((!expansion)); then
    ((slurm)) || die "up: --no-expansion is an option of --slurm"
    exp_tag=" no-expansion"
  fi
  if ((!accounting)); then
    ((slurm)) || die "up: --no-accounting is an option of --slurm"
    exp_tag+=" no-accounting"
  fi
  [[ $slots =~ ^[1-9][0-9]*$ ]] || die "up: --slots must be a positive integer, got '$slots'"
  [[ -z $rate || $rate =~ ^[0-9.]+[kmg]?(bit|bps)$ ]] || die "up: --rate must look like 1gbit or 100mbit, got '$rate'"
  [[ -z $delay || $delay =~ ^[0-9.]+(us|ms|s)$ ]] || die "up: --delay must look like 100us or 2ms, got '$delay'"
  local why
  why=$(check) || die "${why#cluster.sh: }"
  if [[ -f $STATE/nodes ]]; then
    local have
    have=$(wc -l <"$STATE/nodes")
    if [[ $have -eq $n && "$(cat "$STATE/shape" 2>/dev/null)" == "$rate $delay $slots $slurm$exp_tag" ]] &&
      grep -q "^${NS_PREFIX}node$n\b" <<<"$(ip netns list)"; then
      echo "cluster.sh: $n nodes already up"
      return 0
    fi
    die "up: a cluster of $have nodes is up ($(cat "$STATE/shape" 2>/dev/null): rate delay slots); run 'cluster.sh down' first"
  fi
  if [[ -n $delay ]] && ! netem_available; then
    die "up: --delay needs the netem qdisc, which this kernel does not have (sch_netem); --rate works without it"
  fi
  mkdir -p "$STATE/uts"
  in_up=1
  # Record intent first, so that `down` cleans a half-made cluster too.
  : >"$STATE/nodes"
  echo "$rate $delay $slots $slurm$exp_tag" >"$STATE/shape"
  trap 'echo "cluster.sh: up failed; cleaning up" >&2; trap - ERR; down >/dev/null 2>&1 || true; exit 1' ERR
  local sw=${NS_PREFIX}switch
  ip netns add "$sw"
  ip -n "$sw" link set lo up
  ip -n "$sw" link add br0 type bridge
  ip -n "$sw" link set br0 up
  local i
  for ((i = 1; i <= n; i++)); do
    echo "node$i" >>"$STATE/nodes"
    add_node "node$i" $((10 + i)) "$rate" "$delay"
  done
  : >"$STATE/hostfile"
  for ((i = 1; i <= n; i++)); do echo "node$i slots=$slots" >>"$STATE/hostfile"; done
  if ((slurm)); then
    add_node head 10 "$rate" ""
    slurm_up "$n" "$slots" "$expansion" "$accounting"
  fi
  trap - ERR
  in_up=0
  echo "cluster.sh: $n nodes up (node1..node$n at $SUBNET.11-$((10 + n)), link ${rate:-unshaped}${delay:+, delay $delay}, $slots slots each)"
}

# One namespace host on the bridge: <name> at $SUBNET.<last octet>, its own hostname.
add_node() {  # <name> <last octet> <rate> <delay>
  local name=$1 ns=${NS_PREFIX}$1 ip=$SUBNET.$2 port=mallc$2 sw=${NS_PREFIX}switch
  ip netns add "$ns"
  ip -n "$ns" link set lo up
  # veth: eth0 inside the node, the other end a port of the switch's bridge
  ip link add "$port" type veth peer name "${port}p"
  ip link set "$port" netns "$ns"
  ip link set "${port}p" netns "$sw"
  ip -n "$ns" link set "$port" name eth0
  ip -n "$ns" addr add "$ip/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$sw" link set "${port}p" master br0
  ip -n "$sw" link set "${port}p" up
  shape "$ns" eth0 "$3" "$4"
  shape "$sw" "${port}p" "$3" "$4"
  # a UTS namespace of its own, kept by a bind mount: the node's hostname
  touch "$STATE/uts/$name"
  unshare --uts="$STATE/uts/$name" hostname "$name"
  (flock -w 30 8 || die "cannot lock $HOSTS_LOCK"; echo "$ip $name $HOSTS_TAG" >>"$HOSTS_FILE") 8>"$HOSTS_LOCK"
}

in_node() {  # <name> <command...>: run inside a namespace host
  local name=$1
  shift
  nsenter --net="/run/netns/${NS_PREFIX}$name" --uts="$STATE/uts/$name" -- "$@"
}

# Slurm 22.05 on the nodes: munged, slurmctld on the head, one slurmd per node.
slurm_up() {  # <nodes> <cpus per node> <permit job expansion: 1 or 0> <accounting: 1 or 0>
  local n=$1 cpus=$2 expansion=${3:-1} accounting=${4:-1} d=$STATE/slurm i
  for bin in munged slurmctld slurmd sinfo; do
    command -v $bin >/dev/null || die "up --slurm: $bin missing (Debian packages munge slurmctld slurmd slurm-client; scripts/setup.sh installs them)"
  done
  if ((accounting)); then
    for bin in slurmdbd mariadbd mariadb-install-db sacctmgr; do
      command -v $bin >/dev/null || die "up --slurm: $bin missing for accounting (Debian packages slurmdbd mariadb-server; scripts/setup.sh installs them; --no-accounting runs without)"
    done
  fi
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
  dd if=/dev/urandom of="$d/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 400 "$d/munge/munge.key"
  munged --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" --seed-file="$d/munge/seed"
  local cluster_name
  cluster_name=mallc$(date +%s)
  {
    echo "# Generated by scripts/cluster.sh up $n --slurm: the emulated cluster's Slurm."
    # A name of its own per `up` (its job ids start again at 1): the Slurm policy's shared
    # directory defaults to ~/.malleable/slurm/<ClusterName>, so no ledger of an earlier
    # cluster's jobs is read by this one's.
    echo "ClusterName=$cluster_name"
    echo "SlurmctldHost=head($SUBNET.10)"
    echo "SlurmUser=root"
    echo "SlurmdUser=root"
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$d/munge/munge.socket"
    echo "CredType=cred/munge"
    echo "StateSaveLocation=$d/state"
    echo "SlurmdSpoolDir=$d/spool/%n"
    echo "SlurmctldPidFile=$d/slurmctld.pid"
    echo "SlurmdPidFile=$d/slurmd.%n.pid"
    echo "SlurmctldLogFile=$d/log/slurmctld.log"
    echo "SlurmdLogFile=$d/log/slurmd.%n.log"
    echo "# no cgroups: processes are tracked by parentage, tasks not bound"
    echo "ProctrackType=proctrack/linuxproc"
    echo "TaskPlugin=task/none"
    echo "# whole nodes per job; CPUs as configured, whatever the (shared) hardware says"
    echo "SelectType=select/linear"
    echo "SlurmdParameters=config_overrides"
    echo "SchedulerType=sched/backfill"
    if ((expansion)); then
      echo "SchedulerParameters=sched_interval=2,bf_interval=2,permit_job_expansion"
    else
      echo "SchedulerParameters=sched_interval=2,bf_interval=2"
    fi
    # 1: a node DOWN for not responding returns to service when its slurmd registers;
    # one an administrator set DOWN (scontrol update State=DOWN, as the tests take a node
    # back) stays DOWN. (2 returned those too, within seconds, and a job could get the
    # node again while the test held it taken.)
    echo "ReturnToService=1"
    echo "MpiDefault=none"
    echo "JobAcctGatherType=jobacct_gather/none"
    if ((accounting)); then
      echo "AccountingStorageType=accounting_storage/slurmdbd"
      echo "AccountingStorageHost=head"
      echo "AccountingStoragePort=6819"
      echo "# for slurmdbd, the munge socket is given here (AuthInfo is slurmctld's and slurmd's)"
      echo "AccountingStoragePass=$d/munge/munge.socket"
    else
      echo "AccountingStorageType=accounting_storage/none"
    fi
    echo "JobCompType=jobcomp/filetxt"
    echo "JobCompLoc=$d/log/jobcomp.txt"
    echo "InactiveLimit=0"
    echo "KillWait=5"
    echo "MinJobAge=600"
    for ((i = 1; i <= n; i++)); do
      echo "NodeName=node$i NodeAddr=$(node_addr node$i) CPUs=$cpus State=UNKNOWN"
    done
    echo "PartitionName=box Nodes=node[1-$n] Default=YES MaxTime=INFINITE State=UP"
  } >"$d/slurm.conf"
  if ((accounting)); then accounting_up "$cluster_name"; fi
  in_node head slurmctld -f "$d/slurm.conf"
  for ((i = 1; i <= n; i++)); do in_node "node$i" slurmd -f "$d/slurm.conf"; done
  local t
  for t in $(seq 1 60); do
    [[ $(in_node head env SLURM_CONF="$d/slurm.conf" sinfo -h -t idle -o %D 2>/dev/null | head -1) == "$n" ]] && return 0
    sleep 0.5
  done
  in_node head env SLURM_CONF="$d/slurm.conf" sinfo >&2 || true
  die "up --slurm: the $n nodes did not become idle in Slurm within 30 s (logs in $d/log)"
}

# Accounting: a MariaDB server and slurmdbd in the head's namespace (its own loopback,
# 127.0.0.1:3306 exists only there), the database under $STATE, root without a password
# (nobody outside the namespace can reach it). Registers the cluster's name.
accounting_up() {  # <cluster name>
  local name=$1 d=$STATE/slurm t
  mkdir -p "$d/db"
  in_node head mariadb-install-db --no-defaults --datadir="$d/db" --user=root \
    --auth-root-authentication-method=normal --skip-test-db >"$d/log/mariadb-install.log" 2>&1 ||
    die "up --slurm: mariadb-install-db failed (log $d/log/mariadb-install.log)"
  in_node head mariadbd --no-defaults --datadir="$d/db" --socket="$d/db/mariadb.sock" \
    --pid-file="$d/db/mariadbd.pid" --bind-address=127.0.0.1 --port=3306 --user=root \
    --log-error="$d/log/mariadb.log" --skip-log-bin --skip-name-resolve \
    --innodb-buffer-pool-size=32M --innodb-lock-wait-timeout=900 --innodb-flush-log-at-trx-commit=0 \
    </dev/null >/dev/null 2>&1 &
  for t in $(seq 1 100); do
    in_node head mariadb-admin --no-defaults -h 127.0.0.1 -P 3306 -u root ping >/dev/null 2>&1 && break
    ((t < 100)) || die "up --slurm: the MariaDB server did not answer within 20 s (log $d/log/mariadb.log)"
    sleep 0.2
  done
  {
    echo "# Generated by scripts/cluster.sh: the emulated cluster's accounting daemon."
    echo "AuthType=auth/munge"
    echo "AuthInfo=socket=$d/munge/munge.socket"
    echo "DbdHost=head"
    echo "DbdPort=6819"
    echo "SlurmUser=root"
    echo "PidFile=$d/slurmdbd.pid"
    echo "LogFile=$d/log/slurmdbd.log"
    echo "StorageType=accounting_storage/mysql"
    echo "StorageHost=127.0.0.1"
    echo "StoragePort=3306"
    echo "StorageUser=root"
    echo "StorageLoc=slurm_acct_db"
  } >"$d/slurmdbd.conf"
  chmod 600 "$d/slurmdbd.conf"
  # slurmdbd reads slurmdbd.conf from the directory of SLURM_CONF
  in_node head env SLURM_CONF="$d/slurm.conf" slurmdbd
  for t in $(seq 1 120); do
    in_node head env SLURM_CONF="$d/slurm.conf" sacctmgr -i add cluster "$name" >/dev/null 2>&1 && return 0
    sleep 0.5
  done
  die "up --slurm: slurmdbd did not register cluster $name within 60 s (logs in $d/log)"
}

# Every process whose network namespace is one of ours.
cluster_pids() {
  local inodes=() ns pid me
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${NS_PREFIX}" || true); do
    inodes+=("$(stat -L -c %i "/run/netns/$ns" 2>/dev/null || true)")
  done
  ((${#inodes[@]})) || return 0
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    me=$(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) || continue
    for ns in "${inodes[@]}"; do
      if [[ $me == "$ns" ]]; then echo "$pid"; fi
    done
  done
}

down() {
  local pids t
  # munged lives in the root namespace; the Slurm daemons in the nodes' (killed below)
  if [[ -f $STATE/slurm/munge/munged.pid ]]; then
    kill "$(cat "$STATE/slurm/munge/munged.pid")" 2>/dev/null || true
  fi
  pids=$(cluster_pids)
  if [[ -n $pids ]]; then
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null || true
    for t in 1 2 3 4 5 6 7 8 9 10; do
      sleep 0.3
      pids=$(cluster_pids)
      [[ -z $pids ]] && break
    done
    # shellcheck disable=SC2086
    if [[ -n $pids ]]; then kill -KILL $pids 2>/dev/null || true; fi
  fi
  local ns l f
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${NS_PREFIX}" || true); do
    ip netns del "$ns" 2>/dev/null || true
  done
  # veth ends left in the root namespace by a half-made `up`
  for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1 | grep '^mallc' || true); do
    ip link del "$l" 2>/dev/null || true
  done
  if [[ -d $STATE/uts ]]; then
    for f in "$STATE"/uts/*; do
      [[ -e $f ]] || continue
      umount "$f" 2>/dev/null || true
      rm -f "$f"
    done
  fi
  (
    flock -w 30 8 || die "cannot lock $HOSTS_LOCK"
    if grep -q "$HOSTS_TAG" "$HOSTS_FILE" 2>/dev/null; then
      # /etc/hosts may be a bind mount: rewrite it in place, never replace the file
      keep=$(grep -v "$HOSTS_TAG" "$HOSTS_FILE" || true)
      if [[ -n $keep ]]; then printf '%s\n' "$keep" >"$HOSTS_FILE"; else : >"$HOSTS_FILE"; fi
    fi
  ) 8>"$HOSTS_LOCK"
  # The Slurm policy's default shared directory of this cluster's jobs,
  # ~/.malleable/slurm/<ClusterName> (a name of its own per `up`, from slurm.conf): only
  # this one, never another cluster's or one a job was pointed at (RESIZE_SLURM_SHARED).
  local name
  name=$(sed -n 's/^ClusterName=//p' "$STATE/slurm/slurm.conf" 2>/dev/null || true)
  if [[ $name =~ ^mallc[0-9]+$ && -n ${HOME:-} ]]; then rm -rf "$HOME/.malleable/slurm/$name"; fi
  rm -rf "$STATE"
  echo "cluster.sh: down (no namespace, link, hosts line or process of the cluster left)"
}

status() {
  local nodes node pids
  nodes=$(nodes_up)
  if [[ -z $nodes ]]; then
    echo "cluster.sh: no cluster is up"
    if grep -q "^${NS_PREFIX}" <<<"$(ip netns list 2>/dev/null)"; then
      echo "(namespaces of a half-made cluster exist: run down)"
    fi
    return 1
  fi
  echo "nodes: $(echo $nodes) (rate delay slots slurm: $(cat "$STATE/shape"))"
  for node in $nodes; do
    local q
    q=$(ip netns exec "${NS_PREFIX}$node" tc qdisc show dev eth0 2>/dev/null | head -1)
    printf '  %-7s %-12s hostname=%s  %s\n' "$node" "$(node_addr $node)" \
      "$(nsenter --uts="$STATE/uts/$node" hostname 2>/dev/null)" "$q"
  done
  if [[ -f $STATE/slurm/slurm.conf ]]; then
    echo "Slurm (SLURM_CONF=$STATE/slurm/slurm.conf; commands: cluster.sh exec head sinfo ...):"
    in_node head env SLURM_CONF="$STATE/slurm/slurm.conf" sinfo 2>&1 | sed 's/^/  /'
  fi
  pids=$(cluster_pids)
  echo "processes in the cluster's namespaces: $(echo $pids | wc -w)"
  echo "/etc/hosts lines: $(grep -c "$HOSTS_TAG" "$HOSTS_FILE" || true)"
}

# A lost node (two nodes at once): nothing of it runs or answers any more. Every
# process in its network namespace is SIGKILLed (the nodes' together, so that no survivor
# of one sees the other die first), its link goes down and cluster-rsh refuses it (exit
# 255, as ssh to a dead host), so Open MPI can start no daemon there. `down` clears it.
lose() {
  (($#)) || die "lose: which node(s)?"
  local node inodes=() pid me ns pids=()
  for node in "$@"; do
    grep -qx "$node" "$STATE/nodes" 2>/dev/null || die "lose: no node '$node' (nodes: $(nodes_up | tr '\n' ' '))"
    inodes+=("$(stat -L -c %i "/run/netns/${NS_PREFIX}$node")")
  done
  mkdir -p "$STATE/lost"
  for node in "$@"; do : >"$STATE/lost/$node"; done
  for pid in /proc/[0-9]*; do
    me=$(stat -L -c %i "$pid/ns/net" 2>/dev/null) || continue
    for ns in "${inodes[@]}"; do [[ $me == "$ns" ]] && pids+=("${pid#/proc/}"); done
  done
  if ((${#pids[@]})); then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
  # The link goes down once they are gone and the kernel has closed their connections
  # (Open MPI 4.1.4 notices a peer that falls silent without closing only after TCP's
  # timeouts, minutes; a dead node's switch port, or the batch system, tells sooner).
  local t alive
  for ((t = 0; t < 50; ++t)); do
    alive=0
    for pid in "${pids[@]}"; do [[ -d /proc/$pid ]] && alive=1; done
    ((alive)) || break
    sleep 0.1
  done
  sleep 0.5
  for node in "$@"; do ip -n "${NS_PREFIX}$node" link set eth0 down; done
  echo "cluster.sh: lost $* (${#pids[@]} processes killed, link down, unreachable)"
}

node_exec() {
  local node=${1:?exec needs a node}
  shift
  [[ $node == head && -e /run/netns/${NS_PREFIX}head ]] || grep -qx "$node" "$STATE/nodes" 2>/dev/null ||
    die "exec: no node '$node' (is the cluster up? nodes: $(nodes_up | tr '\n' ' '))"
  if [[ -f $STATE/slurm/slurm.conf ]]; then export SLURM_CONF=$STATE/slurm/slurm.conf; fi
  exec nsenter --net="/run/netns/${NS_PREFIX}$node" --uts="$STATE/uts/$node" -- "$@"
}

mpi_env() {
  [[ -f $STATE/nodes ]] || die "mpi-env: no cluster is up"
  cat <<EOF
OMPI_MCA_plm_rsh_agent=$here/cluster-rsh
OMPI_MCA_btl_tcp_if_include=$SUBNET.0/24
OMPI_MCA_oob_tcp_if_include=$SUBNET.0/24
OMPI_MCA_orte_default_hostfile=$STATE/hostfile
EOF
}

cmd=${1:-}
[[ -n $cmd ]] || usage
shift
case $cmd in
  up) up "$@" ;;
  down) down ;;
  status) status ;;
  exec) node_exec "$@" ;;
  lose) lose "$@" ;;
  mpi-env) mpi_env ;;
  slurm-env) if [[ -f $STATE/slurm/slurm.conf ]]; then echo "SLURM_CONF=$STATE/slurm/slurm.conf"; else die "slurm-env: no Slurm is up (cluster.sh up N --slurm)"; fi ;;
  hostfile) if [[ -f $STATE/hostfile ]]; then cat "$STATE/hostfile"; else die "hostfile: no cluster is up"; fi ;;
  check) check ;;
  -h | --help | help) usage ;;
  *) echo "cluster.sh: unknown command '$cmd'" >&2; usage ;;
esac

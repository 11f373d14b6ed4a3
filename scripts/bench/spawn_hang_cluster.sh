#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The spawn hang's per-node kind on the emulated cluster (scripts/cluster.sh): kind
# "nodes" of scripts/bench/spawn_hang.sh, the job's 2 processes on node1 and one newcomer
# onto each other node in every expansion (blacs_dyn_expand_hosts through the cluster's
# launcher: mpiexec inside node1, its daemons reach the nodes over cluster-rsh). The
# cluster is shared, so one call holds its lock for one short stretch: it waits for the
# lock, brings up NODES nodes, runs spawn_hang.sh for --budget seconds (whole blocks: the
# last block may run past it), takes the cluster down and lets the lock go. Call it again
# for more: the rows add up in spawns.csv like every other kind's.
# Usage: spawn_hang_cluster.sh [--nodes N] [--budget SECONDS] [spawn_hang.sh options]
#   defaults: 3 nodes (newcomers onto node2 and node3), budget 360 s, --block 25
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
nodes=3 budget=360 rest=()
while (($#)); do
  case $1 in
    --nodes) nodes=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    *) rest+=("$1"); shift ;;
  esac
done
((nodes >= 2)) || { echo "spawn_hang_cluster: --nodes must be at least 2" >&2; exit 2; }
cluster=$here/scripts/cluster.sh
if ! why=$("$cluster" check); then echo "spawn_hang_cluster: $why" >&2; exit 77; fi
exec 9>/run/malleable-cluster.lock
echo "spawn_hang_cluster: $(date -u +%T) waiting for the cluster lock"
flock -w 1800 9 || { echo "spawn_hang_cluster: the cluster lock is held by another run for 30 min" >&2; exit 1; }
finish() {
  local rc=$?
  "$cluster" down >/dev/null 2>&1 || true
  flock -u 9 2>/dev/null || true
  echo "spawn_hang_cluster: $(date -u +%T) cluster down, lock released"
  exit "$rc"
}
trap finish EXIT
echo "spawn_hang_cluster: $(date -u +%T) lock held; cluster up ($nodes nodes)"
"$cluster" down >/dev/null  # a cluster left by a killed run
"$cluster" up "$nodes" --rate 1gbit 9>&-  # the daemons it starts must not hold the lock
eval "export $("$cluster" mpi-env | tr '\n' ' ')"
SPAWN_HANG_NODES=$(seq -s, -f 'node%g' 2 "$nodes")
export SPAWN_HANG_NODES
"$here/scripts/bench/spawn_hang.sh" --kinds nodes --cures hash,keep --block 25 --budget "$budget" "${rest[@]}" 9>&-

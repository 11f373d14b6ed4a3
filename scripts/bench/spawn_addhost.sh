#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A raw MPI_Comm_spawn + merge of 2 processes onto node2 of the emulated cluster, from a
# job started two ways (docs/measurements/resize.md, "A resize against its limits"):
#   pool     the job started with the cluster's hostfile (node2 in its allocation), as
#            resize_phases.sh's raw spawns are;
#   add-host the job started on node1 alone (--host node1:2), node2 reached with Open MPI's
#            "add-host" info key, as a resize's per-host spawn does (the launcher starts
#            node2's daemon inside the spawn).
# Each prints the median of 5 spawns after a warm-up and the warm-up (the job's first
# spawn); ROUNDS rounds, the order alternating. Takes the cluster lock.
#   scripts/bench/spawn_addhost.sh [--rounds 3] [--out DIR]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$here/docs/data/resize_phases/spawn_addhost rounds=3
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,13p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "spawn_addhost.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
CLUSTER=$here/scripts/cluster.sh
# shellcheck source=scripts/bench/raw_spawn_lib.sh
. "$here/scripts/bench/raw_spawn_lib.sh"
mkdir -p "$out"
rm -f "$out"/*.txt
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
raw_spawn_build "$scratch/spawn_pingpong"
(
  exec 9>/run/malleable-cluster.lock
  flock -w 1800 9 || { echo "spawn_addhost.sh: cluster lock busy for 30 min" >&2; exit 1; }
  trap '"$CLUSTER" down >/dev/null 2>&1 || true' EXIT
  raw_cluster_up
  echo "# $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg); raw_spawn_merge_ms K MEDIAN FIRST" >"$out/meta.txt"
  for ((r = 1; r <= rounds; ++r)); do
    order=(pool add-host)
    ((r % 2)) || order=(add-host pool)
    for how in "${order[@]}"; do
      raw_spawn_cluster "$how" "$scratch/spawn_pingpong" 5 300 >"$out/$how.$r.txt" 2>&1 || echo "round $r $how failed" >&2
    done
  done
)
grep -H raw_spawn "$out"/*.txt | sed "s|$out/||"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# the measurements on the emulated cluster (scripts/cluster.sh, links shaped to
# 1 Gbit/s per node like the thesis's cluster), all in one run:
#   1. growing onto nodes (one spawn group per node, spawned at the same time) against
#      one raw MPI_Comm_spawn + merge of the same processes, and giving the nodes back
#      (malleable-blacs-dyn-bench expand-nodes);
#   2. redistribution 4 -> 9 and 9 -> 16 processes over 3-16 nodes, N = 4000, every
#      placement (Global, Local1, Local2, optimal, node-aware optimal) and schedule beside
#      PDGEMR2D, with the link bound (the busiest node link's bytes / its rate) and the
#      wait/transfer split of the thesis Tables 4.4-4.6;
#   3. the same 4 -> 9 redistribution on one node beside the memcpy floor.
# Results: JSON in docs/data/cluster/ (or --out DIR), rendered into docs/measurements/results.md by
# scripts/bench/report.py (section "On the emulated cluster"); a summary is printed.
#   scripts/bench/cluster_bench.sh [--quick] [--out DIR] [--build-dir DIR]
# --quick: N = 1500, one repetition, fewer cases (a couple of minutes). Needs root (the
# cluster); leaves no namespace or process behind.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
out=$here/docs/data/cluster
quick=0
while (($#)); do
  case $1 in
    --quick) quick=1; shift ;;
    --out) out=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    -h | --help) sed -n '2,18p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "cluster_bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $build = /* ]] || build=$here/$build
for exe in blacs-dyn/malleable-blacs-dyn-bench apps/reproduce/repro_redist; do
  [[ -x $build/$exe ]] || { echo "cluster_bench.sh: $build/$exe missing: build first (scripts/setup.sh)" >&2; exit 1; }
done
SRC=$here BUILD=$build
# shellcheck source=../../tests/cluster/harness.sh
. "$here/tests/cluster/harness.sh"
mkdir -p "$out"
n=4000 reps=3 nodes_reps=6
((quick)) && n=1500 reps=1 nodes_reps=3

start=$(date +%s)
# 1. growing onto nodes and giving them back
cluster_begin 4 --rate 1gbit
echo "== 1. growing onto nodes vs raw spawn + merge (4 parents on node1, 2 processes per node)"
mpirun_on node1 -n 4 "$build/blacs-dyn/malleable-blacs-dyn-bench" expand-nodes $nodes_reps 2 node2 node3 node4 | tee "$out/nodes.txt"
"$CLUSTER" down >/dev/null

# 2. redistribution over shaped links. A case: name, nodes, slots per node (mapping by slot,
# so the old grid's ranks fill the first nodes), grids, block size (0 = block distribution).
redist_case() {  # <name> <slots per node, comma list> <from> <to> <nb>
  local name=$1 slots=$2 from=$3 to=$4 nb=$5 hf=$out/.hostfile i=0 procs=0
  local -a s
  IFS=, read -r -a s <<<"$slots"
  "$CLUSTER" up ${#s[@]} --rate 1gbit >/dev/null
  eval "export $("$CLUSTER" mpi-env | tr '\n' ' ')"
  : >"$hf"
  for k in "${s[@]}"; do
    i=$((i + 1))
    procs=$((procs + k))
    echo "node$i slots=$k" >>"$hf"
  done
  echo "== 2. $name: $from -> $to over ${#s[@]} nodes (slots $slots), N=$n, nb=$nb"
  mpirun_on node1 --hostfile "$hf" --map-by slot -n "$procs" "$build/apps/reproduce/repro_redist" \
    -n "$n" --nb "$nb" --from "$from" --to "$to" --placements global,local1,local2,optimal,optimal-nodes \
    --schedules allatonce,matching,caterpillar,pdgemr2d --split caterpillar,allatonce --reps "$reps" \
    --link-rate 1e9 --json "$out/redist_$name.json" >/dev/null
  rm -f "$hf"
  "$CLUSTER" down >/dev/null
}
redist_case 4to9_3nodes 3,3,3 2x2 3x3 0
redist_case 9to16_4nodes 4,4,4,4 3x3 4x4 0
if ((!quick)); then
  redist_case 9to16_5nodes 4,3,3,3,3 3x3 4x4 0
  redist_case 9to16_4nodes_nb64 4,4,4,4 3x3 4x4 64
  # the thesis's cluster: one process per node
  redist_case 4to9_9nodes 1,1,1,1,1,1,1,1,1 2x2 3x3 0
  redist_case 9to16_16nodes 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 3x3 4x4 0
fi

# 3. one node: the same redistribution beside the memcpy floor (no cluster settings)
unset OMPI_MCA_plm_rsh_agent OMPI_MCA_btl_tcp_if_include OMPI_MCA_oob_tcp_if_include OMPI_MCA_orte_default_hostfile
echo "== 3. one node: 2x2 -> 3x3, N=$n"
OMPI_MCA_btl_vader_single_copy_mechanism=none mpiexec --oversubscribe --bind-to none -n 9 \
  "$build/apps/reproduce/repro_redist" -n "$n" --nb 0 --from 2x2 --to 3x3 \
  --placements global,local1,local2,optimal --schedules allatonce,matching,caterpillar,pdgemr2d \
  --split "" --reps "$reps" --json "$out/redist_4to9_1node.json" >/dev/null

python3 - "$out" "$(( $(date +%s) - start ))" "$quick" <<'PY'
import json, os, sys, platform, subprocess
out, secs, quick = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True).stdout.strip()
load = open("/proc/loadavg").read().split()[:3]
json.dump({"seconds": secs, "quick": quick, "commit": commit, "load_at_end": load,
           "machine": platform.node(), "cores": os.cpu_count()}, open(os.path.join(out, "meta.json"), "w"), indent=1)
PY
python3 "$here/scripts/bench/cluster_report.py" --data "$out" --plot "$here/docs/img/cluster_redist.png" --summary
python3 "$here/scripts/bench/splice_sections.py" --only cluster --data "$(dirname "$out")" || true
# the raw runs go into OUT/runs.tar.xz (scripts/bench/data_archive.py; the report reads them there)
python3 "$here/scripts/bench/data_archive.py" pack "$out" >/dev/null

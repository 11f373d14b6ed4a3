#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The expected checkpoint overhead at 1,000 and 10,000 nodes, global-only against
# multi-level (model: resize/src/checkpoint/levels/model.hpp, docs/measurements/checkpoint.md
# "Expected overhead at scale"), from the costs levels_bench.sh / levels_cluster_bench.sh
# measured (their kept outputs in DATA) and the relaunch time levels_recovery_bench.sh
# measured (DATA/recovery.tsv; 4 s without it). Writes DATA/overhead.md and replaces the
# text between the markers "<!-- levels-overhead -->" and "<!-- /levels-overhead -->" in
# docs/measurements/checkpoint.md with it; levels_report.py then refreshes the measured tables there.
# The at-scale tables (from the emulated cluster's costs only: the partner copy's efficiency
# on its 1 Gbit/s link) take the assumptions below: a node's client bandwidth to the file
# system, the interconnect the partner copies cross at scale, and the local level's rate
# assumed in the second break-even sweep.
# LEVELS_TAG=T: from the emulated cluster's run tagged T (levels_cluster_bench.sh,
# cluster-T-2x2.txt) into DATA/overhead-T.md only (docs/measurements/checkpoint.md untouched).
# Usage: levels_overhead.sh [build dir] [data dir] [fs bandwidth B/s] [global share]
#                           [fs node bandwidth B/s (5e9)] [interconnect B/s (12.5e9)]
#                           [assumed local rate B/s (10e9)]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd "${1:-$here/build}" && pwd) data=${2:-$here/docs/data/levels} bw=${3:-1e12} share=${4:-0.1}
node_bw=${5:-5e9} interconnect=${6:-12.5e9} local_rate=${7:-10e9}
tool=("$build/resize/malleable-resize-bench" levels-overhead)
pick() {  # <key> <file>: the value of a "key value" line
  awk -v k="$1" '$1 == k { print $2; exit }' "$2"
}
tag=${LEVELS_TAG:-}
src=$data/cluster-${tag:+$tag-}2x2.txt where="the emulated cluster (2x2 over node1, node2; partner copies over 1 Gbit/s links${tag:+; run $tag})"
[[ -n $tag && ! -f $src ]] && { echo "levels_overhead: no $src" >&2; exit 1; }
[[ -f $src ]] || { src=$data/2x2.txt where="one machine (2x2 as 2 emulated nodes; partner copies through shared memory)"; }
[[ -f $src ]] || { echo "levels_overhead: no $data/cluster-2x2.txt or 2x2.txt (run levels_bench.sh / levels_cluster_bench.sh with an output dir)" >&2; exit 1; }
local_s=$(pick local_s "$src") partner_s=$(pick local_partner_s "$src") global_s=$(pick global_s "$src")
per_proc=$(sed -nE 's/.*, ([0-9]+) bytes on the busiest process.*/\1/p' "$src")
node_bytes=$((per_proc * 2))
restart=4 restart_from="not measured: 4 s assumed"
if [[ -f $data/recovery.tsv ]]; then
  restart=$(awk -F'\t' '$1 == "levels" { s += $3; n++ } END { if (n) printf "%.1f", s / n }' "$data/recovery.tsv")
  restart_from="the mean time from the kill until computing again with the levels, levels_recovery_bench.sh"
fi
md=$data/overhead${tag:+-$tag}.md
{
  echo "Inputs: measured on $where, N = 4000 doubles: local level ${local_s} s, local+partner ${partner_s} s,"
  echo "global HDF5 alone ${global_s} s, ${node_bytes} bytes per node ($(sed -nE 's/^(levels N=.*)/\1/p' "$src" | cut -c1-60)...);"
  echo "relaunch and rebuild D = ${restart} s ($restart_from); file system $bw B/s shared by all nodes;"
  echo "failures needing the global level: $share of all (the rest: one node lost, covered by the partner level)."
  echo
  echo "**As measured** (${node_bytes} bytes per node):"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global "$share"
  echo
  echo "**Scaled to 16 GB per node** (every measured cost x 16e9 / ${node_bytes}):"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global "$share" --scale-to 16e9
  echo
  echo "**16 GB per node, 2% of the failures need the global level:**"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global 0.02 --scale-to 16e9
  echo
  echo "**What if** (not measured): 16 GB per node, the partner level = the local level as measured plus the node's"
  echo "bytes at 12.5 GB/s (a 100 Gbit/s link, not overlapped), 2% of the failures need the global level:"
  echo
  "${tool[@]}" --local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes" \
    --restart "$restart" --recover-local 0 --recover-partner 0 --fs-bandwidth "$bw" --share-global 0.02 --scale-to 16e9 \
    --partner-rate 12.5e9
  if [[ $src == */cluster-*2x2.txt ]]; then
    common=(--local "$local_s" --partner "$partner_s" --global "$global_s" --bytes-per-node "$node_bytes"
            --restart "$restart" --link-rate 125e6 --interconnect "$interconnect" --fs-node-bandwidth "$node_bw")
    eff=$(awk -v b="$node_bytes" -v p="$partner_s" -v l="$local_s" 'BEGIN { printf "%.2f", b / 125e6 / (p - l) }')
    echo
    echo "**At scale** (not measured; the node count now matters): 16 GB per node; global level = 16 GB x nodes /"
    echo "file-system bandwidth, each node at most $node_bw B/s (its client link; no floor from this VM's disk);"
    echo "local level = the measured local rate ($(awk -v b="$node_bytes" -v t="$local_s" 'BEGIN { printf "%.0f", b / t / 1e6 }') MB/s per node);"
    echo "partner level = local + 16 GB over an assumed $interconnect B/s interconnect at the efficiency the measured partner"
    echo "copy reached on its 1 Gbit/s link ($eff: the link bound ${node_bytes} B / 125e6 B/s over the measured partner time minus the local);"
    echo "each level's recovery = its cost, relaunch D = ${restart} s."
    echo
    "${tool[@]}" "${common[@]}" --share-global 0.1,0.02 --at-scale 1 --scale-to 16e9 --fs-bandwidth 1e12,1e13
    echo
    echo "**Break-even at 10,000 nodes, local level as measured** (the same model; ratio = global only / multi-level,"
    echo "bold where >= 5x; the header gives the first-order global / partner cost ratio each share needs):"
    echo
    "${tool[@]}" "${common[@]}" --sweep 1 --nodes 10000 --fs-bandwidth 1e11,1e12,1e13 --share-global 0.1,0.02,0.005 \
      --sweep-bytes 1e9,16e9,64e9
    echo
    echo "**Break-even at 10,000 nodes, local level at an assumed $local_rate B/s per node** (a copy at memory speed;"
    echo "not measured here):"
    echo
    "${tool[@]}" "${common[@]}" --sweep 1 --nodes 10000 --fs-bandwidth 1e11,1e12,1e13 --share-global 0.1,0.02,0.005 \
      --sweep-bytes 1e9,16e9,64e9 --local-rate "$local_rate"
  fi
} >"$md"
cat "$md"
[[ -n $tag ]] && { echo "levels_overhead: $md written (docs/measurements/checkpoint.md untouched)"; exit 0; }
doc=$here/docs/measurements/checkpoint.md
python3 - "$doc" "$md" <<'PY'
import sys
doc, md = sys.argv[1], sys.argv[2]
s = open(doc).read()
a, b = "<!-- levels-overhead -->", "<!-- /levels-overhead -->"
if a not in s or b not in s:
    sys.exit("levels_overhead: the markers are not in " + doc)
i, j = s.index(a) + len(a), s.index(b)
s = s[:i] + "\n" + open(md).read() + s[j:]
open(doc, "w").write(s)
PY
echo "docs/measurements/checkpoint.md: the table between the levels-overhead markers replaced"
python3 "$here/scripts/bench/levels_report.py" --data "$data" --doc "$doc"

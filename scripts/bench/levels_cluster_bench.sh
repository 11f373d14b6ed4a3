#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint levels on the emulated cluster: N x N doubles on 2x2 over node1,
# node2 (2 processes each) and on 3x3 over node1-3 (3 each), every node's link shaped to
# 1 Gbit/s (scripts/cluster.sh --rate 1gbit). The partner copies cross the links; the
# partner level's time is set against the link bound of the bytes each node sends (its
# processes' payload / 125 MB/s: every node sends to one partner while it receives from
# another, full duplex). Levels in /dev/shm/<dir>/<host> (each node its own directory),
# the global file on this machine's disk. Takes the cluster lock, leaves nothing behind.
# LEVELS_MCA="--mca NAME VALUE ...": Open MPI parameters for the runs, and LEVELS_TAG=T
# names their outputs cluster-T-<grid>.txt (e.g. LEVELS_MCA="--mca btl_tcp_links 2"
# LEVELS_TAG=links2: two TCP connections per pair of processes; with one, a pair's two
# directions shared one connection here and one of them ran at half the link's rate).
# Usage: levels_cluster_bench.sh [build dir] [N] [NB] [repeats] [output dir]
set -euo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) n=${2:-4000} nb=${3:-64} reps=${4:-5} out=${5:-}
. "$SRC/tests/cluster/harness.sh"
cluster_begin 3 --rate 1gbit
levels=$(mktemp -d /dev/shm/malleable-levels-cbench.XXXXXX)
global=$(mktemp -d)
trap 'rc=$?; rm -rf "$levels" "$global"; cluster_end $rc' EXIT
export RESIZE_HISTORY=off
[[ -n $out ]] && mkdir -p "$out"
link=125000000  # bytes/s of 1 Gbit/s
read -r -a mca <<<"${LEVELS_MCA:-}"
tag=${LEVELS_TAG:+$LEVELS_TAG-}
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); links 1 Gbit/s (tc)${LEVELS_MCA:+; Open MPI $LEVELS_MCA}"
for p in 2 3; do
  hosts=node1:$p,node2:$p
  [[ $p -eq 3 ]] && hosts+=,node3:$p
  echo "== ${p}x$p over $p nodes ($hosts)"
  mpirun_on node1 -n $((p * p)) --host "$hosts" "${mca[@]}" -x OPENBLAS_NUM_THREADS=1 -x RESIZE_HISTORY=off \
    timeout 900 "$BUILD/resize/malleable-resize-bench" levels "$n" "$nb" "${p}x$p" "$levels/grid$p" "$global" "$reps" >"$global/run.txt"
  cat "$global/run.txt"
  [[ -n $out ]] && cp "$global/run.txt" "$out/cluster-$tag${p}x$p.txt"
  awk -v ppn=$p -v link=$link '
    /bytes on the busiest process/ { for (i = 1; i <= NF; ++i) if ($(i+1) == "bytes") b = $i }
    $1 == "local_s" { l = $2 } $1 == "local_partner_s" { lp = $2 } $1 == "mpi_ring_s" { r = $2 }
    END { sent = b * ppn; bound = sent / link
          printf "partner: %.1f MB sent per node (%d processes x %.1f MB), link bound %.3f s; local+partner %.3f s = %.2fx the bound (local alone %.3f s); the same bytes sent by MPI alone %.3f s = %.2fx the bound\n",
                 sent / 1e6, ppn, b / 1e6, bound, lp, lp / bound, l, r, r / bound }' "$global/run.txt"
  rm -rf "${levels:?}"/grid$p "${global:?}"/*.h5
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint levels against a raw memcpy of the same bytes and the global parallel HDF5
# checkpoint, on one machine: N x N doubles in NB blocks on 2x2 (4 processes
# as 2 emulated nodes) and 3x3 (9 processes as 3 emulated nodes), each after one process
# alone with the same bytes as one process of that grid (local level and global only: no
# core shared with another process). MALLEABLE_NODE_MAP=every=K: the partner copies go
# through MPI's shared memory here, not a network link (scripts/bench/levels_cluster_bench.sh
# measures them over the emulated cluster's 1 Gbit/s links). Levels in /dev/shm, the global
# file in a directory on disk. Timings on a shared machine are noisy, so ratios are
# measured side by side and the load average is printed. With an output directory, each
# run's lines are kept there (one-<grid>.txt, <grid>.txt) for levels_overhead.sh.
# Usage: levels_bench.sh [build dir] [N] [NB] [repeats] [output dir]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64} reps=${4:-5} out=${5:-}
build=$(cd "$build" && pwd)
levels=$(mktemp -d /dev/shm/malleable-levels-bench.XXXXXX)
global=$(mktemp -d)
trap 'rm -rf "$levels" "$global"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
[[ -n $out ]] && mkdir -p "$out"
keep() { if [[ -n $out ]]; then tee "$out/$1.txt"; else cat; fi; }
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); levels in $levels ($(df -T "$levels" | awk 'NR==2{print $2}')), global in $global ($(df -T "$global" | awk 'NR==2{print $2}'))"
for p in 2 3; do
  echo "== one node, 1 process (N/$p x N/$p: the same bytes as one process of ${p}x$p), local and global only"
  timeout 900 mpiexec --oversubscribe --bind-to none -n 1 "$build/resize/malleable-resize-bench" levels "$((n / p))" "$nb" 1x1 \
    "$levels/one$p" "$global" "$reps" | keep "one-${p}x$p"
  rm -rf "$levels/one$p" "$global"/*
  echo "== ${p}x$p, $((p * p)) processes as $p emulated nodes (every=$p)"
  MALLEABLE_NODE_MAP=every=$p timeout 900 mpiexec --oversubscribe --bind-to none -n $((p * p)) \
    "$build/resize/malleable-resize-bench" levels "$n" "$nb" "${p}x$p" "$levels/grid$p" "$global" "$reps" | keep "${p}x$p"
  rm -rf "$levels/grid$p" "$global"/*
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

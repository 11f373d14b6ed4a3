#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint levels against a raw memcpy of the same bytes and the global parallel HDF5
# checkpoint (issue 35 §3): N x N doubles in NB blocks on 2x2 (4 processes) on one
# machine as 2 emulated nodes, after one process alone with the same bytes (local level and
# global only: no core shared with another process)
# (MALLEABLE_NODE_MAP=every=2: the partner copies go through MPI's shared memory here,
# not a network link). Levels in /dev/shm, the global file in a directory on disk. The
# numbers feed the table in docs/checkpoint.md "Levels"; timings on a shared machine are
# noisy, so ratios are measured side by side and the load average is printed.
# Usage: levels_bench.sh [build dir] [N] [NB] [repeats]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64} reps=${4:-5}
build=$(cd "$build" && pwd)
levels=$(mktemp -d /dev/shm/malleable-levels-bench.XXXXXX)
global=$(mktemp -d)
trap 'rm -rf "$levels" "$global"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); levels in $levels ($(df -T "$levels" | awk 'NR==2{print $2}')), global in $global ($(df -T "$global" | awk 'NR==2{print $2}'))"
echo "== one node, 1 process (N/2 x N/2: the same bytes as one process of 2x2), local and global only"
timeout 900 mpiexec --oversubscribe --bind-to none -n 1 "$build/resize/levels_bench" "$((n / 2))" "$nb" 1x1 "$levels/one" "$global" "$reps"
echo "== 2 emulated nodes (every=2)"
MALLEABLE_NODE_MAP=every=2 timeout 900 mpiexec --oversubscribe --bind-to none -n 4 \
  "$build/resize/levels_bench" "$n" "$nb" 2x2 "$levels/two" "$global" "$reps"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

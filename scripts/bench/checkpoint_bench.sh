#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Checkpoint write / restart read bandwidth against raw MPI-IO of the same bytes from the
# same processes to the same directory, measured side by side in one run (issue 20,
# "Measure"; target >= 0.7x). Each grid (2x2 on 4, 3x3 on 9 processes) writes and reads
# back on the same grid, with the union path (MALLEABLE_CHECKPOINT_BLOCKS=never, one
# collective H5Dwrite) and the default per-block path, one after the other in one run;
# then 2x2 -> 3x3. Each line also times raw MPI-IO in the checkpoint's own pattern.
# Usage: checkpoint_bench.sh [build dir] [N] [NB] [repeats]   (DIR: $CHECKPOINT_BENCH_DIR or a mktemp dir)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4000} nb=${3:-64} reps=${4:-3}
dir=${CHECKPOINT_BENCH_DIR:-$(mktemp -d)}
trap '[[ -z ${CHECKPOINT_BENCH_DIR:-} ]] && rm -rf "$dir"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
echo "host: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), directory $dir ($(df -T "$dir" | awk 'NR==2{print $2}'))"
for g in 2x2:4 3x3:9; do
  for path in never auto; do
    echo "== path: $([[ $path == never ]] && echo "union, collective" || echo "per block, chunked")"
    MALLEABLE_CHECKPOINT_BLOCKS=$path timeout 900 mpiexec --oversubscribe --bind-to none -n "${g#*:}" \
      "$build/resize/checkpoint_bench" "$n" "$nb" "${g%:*}" "${g%:*}" "$dir" "$reps"
  done
done
echo "== path: per block, chunked"
timeout 900 mpiexec --oversubscribe --bind-to none -n 9 "$build/resize/checkpoint_bench" "$n" "$nb" 2x2 3x3 "$dir" "$reps"
echo "after: load $(cut -d' ' -f1-3 /proc/loadavg)"

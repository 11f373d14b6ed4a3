#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# How a checkpoint's cost grows with the number of blocks (the audit of per-resize
# structures): one N x N double matrix written from 2x2 and read back on 2x2 by
# checkpoint_bench for block sizes from 8 to 1024 (N = 4096: 262,144 down to 16 blocks),
# each beside raw MPI-IO of the same bytes in the same run. The ratio checkpoint / raw is
# what to read; the machine's load is printed before every size.
# Usage: checkpoint_blocks.sh [build dir] [N] [repeats]   (output: $CHECKPOINT_BLOCKS_OUT,
# default docs/data/scale/checkpoint_blocks.txt)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$here/build} n=${2:-4096} reps=${3:-3}
build=$(cd "$build" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
out=${CHECKPOINT_BLOCKS_OUT:-$here/docs/data/scale/checkpoint_blocks.txt}
mkdir -p "$(dirname "$out")"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 RESIZE_HISTORY=off
{
  echo "# checkpoint_blocks.sh: N=$n, 2x2 -> 2x2, median of $reps; $(nproc) cores; commit $(git -C "$here" rev-parse --short HEAD)"
  for nb in 8 16 32 64 256 1024; do
    blocks=$(( ((n + nb - 1) / nb) * ((n + nb - 1) / nb) ))
    echo "== NB $nb: $blocks blocks; load $(cut -d' ' -f1-3 /proc/loadavg)"
    timeout 900 mpiexec --oversubscribe --bind-to none -n 4 "$build/resize/malleable-resize-bench" checkpoint "$n" "$nb" 2x2 2x2 "$dir" "$reps" |
      grep -E 'write  checkpoint|read   restart|paired'
  done
} | tee "$out"

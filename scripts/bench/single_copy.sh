#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Single copy on a node (docs/reference/redist.md, "Single copy on a node"): what a cross-memory
# read costs here (malleable-redist-bench cma: process_vm_readv against memcpy and against pack +
# unpack through a staging area, per piece size), and redist's default (single_copy Auto:
# a transfer within the node read in one copy when its pieces average 1 MiB, else through
# the node window) beside each transport forced for every transfer within the node
# ("window": single_copy Off; "single-copy": On) and COSTA's native transform on cases of
# the shapes suite, under both Open MPI shared-memory settings (vader's CMA single copy,
# Open MPI's default, and none). The "##   window" and "##   single-copy" lines give
# each variant's total and phases; the case line's redist_s is the default.
# Output: docs/data/single_copy.txt (or $OUT). Needs a build (scripts/setup.sh); COSTA
# optional: --costa DIR as in redist_shapes_bench.sh.
#   scripts/bench/single_copy.sh [--costa DIR] [--cases "0 1 5 7 8 9 14"] [--reps 5]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT:-$here/docs/data/single_copy.txt}
costa="" cases="0 1 2 3 4 5 6 7 8 9 10 14" reps=5
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "single_copy.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
bench=$build/redist/malleable-redist-bench
[[ -x $bench ]] || { echo "single_copy.sh: build first (scripts/setup.sh)" >&2; exit 2; }
. "$here/scripts/bench/costa_native.sh"
native=()
if [[ -n $costa ]]; then
  so=$(costa_native "$costa" "$build" "$here") || exit 2
  native=(--costa-native "$so")
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
       OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
mkdir -p "$(dirname "$out")"
{
  echo "# scripts/bench/single_copy.sh on $(hostname), $(env -u OMP_NUM_THREADS nproc) cpus, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "# load: $(uptime | sed 's/.*load average: //')"
  "$bench" cma 128 5
  for sc in cma none; do
    for k in $cases; do
      np=$("$bench" redist --suite --list | awk -v k="$k" '$1 == k { print $2 }')
      echo "## vader single copy: $sc; case $k; load $(uptime | sed 's/.*load average: //')"
      OMPI_MCA_btl_vader_single_copy_mechanism=$sc timeout 900 mpiexec --bind-to none -n "$np" "$bench" redist --suite --case "$k" \
        --reps "$reps" --variants window,single-copy "${native[@]}" 2>&1 | grep -E '^"|^##   (window|single-copy|floor)' || echo "case $k failed"
    done
  done
} | tee "$out"

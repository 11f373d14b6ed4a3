#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What limits redist against COSTA where their ratio stays below the 1.5x (docs/reference/redist.md,
# "Single copy on a node"): malleable-redist-bench exec on the given shapes, under both Open MPI
# shared-memory settings, redist (default, the window forced, single copy forced), COSTA's
# native transform, PDGEMR2D and the memcpy floor interleaved rep by rep, each with its wall
# time (slowest rank) and the CPU time its ranks spent, summed (kernel time of a
# cross-memory copy included: it is the calling process's). With more ranks than cores the
# wall time is set by scheduling; the summed CPU time is the work each one does.
# Output: docs/data/redist_cpu_probe.txt (or $OUT).
#   scripts/bench/redist_cpu_probe.sh --costa DIR [--reps 9] [--shapes "SHAPE:P ..."]
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$here/build}
out=${OUT:-$here/docs/data/redist_cpu_probe.txt}
costa="" reps=9
shapes="4000x4000:64x64@2x2:64x64@3x3:9 4000x4000:64x64@3x3:64x64@2x2:9 4000x4000:64x64@3x3:100x100@3x3:9 4000x4000:4000x1000@1x4:1000x4000@4x1:4"
while [[ $# -gt 0 ]]; do
  case $1 in
    --costa) costa=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    *) echo "redist_cpu_probe.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
probe=$build/redist/malleable-redist-bench
[[ -x $probe ]] || { echo "redist_cpu_probe.sh: $probe missing (cmake --build $build --target malleable_redist_bench)" >&2; exit 2; }
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
  echo "# scripts/bench/redist_cpu_probe.sh on $(hostname), $(env -u OMP_NUM_THREADS nproc) cpus, $(date -u +%FT%TZ), source $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown), reps $reps"
  for s in $shapes; do
    np=${s##*:} shape=${s%:*}
    for sc in cma none; do
      echo "## vader single copy: $sc; load $(uptime | sed 's/.*load average: //')"
      OMPI_MCA_btl_vader_single_copy_mechanism=$sc timeout 900 mpiexec --bind-to none -n "$np" "$probe" exec --shape "$shape" \
        --reps "$reps" --variants auto,shm-only,single-copy "${native[@]}" 2>&1 || echo "$shape ($sc) failed"
    done
  done
} | tee "$out"

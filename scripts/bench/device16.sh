#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The 16-core figures in one run (a lent 16-core machine, ../shared/device/pack.sh's runtime
# and build unpacked at their absolute paths; run from the checkout's root):
#   growth  PDGEMM (N = 6,000) and PDGETRF (N = 8,000): a job started on 2x2 grows to 4x4 by
#           spawn after iteration 1 against the same driver started on 4x4, ROUNDS rounds each,
#           the order alternating (all --bind-to none: a spawned job's ranks would be bound over
#           the parent's cores) (the same growth under Open MPI's UCX PML: device16_ucx.sh,
#           which runs Debian's Open MPI whole; the machine's own could not open pml ucx);
#   redist  malleable-redist-bench redist --shapes, 8 grid changes x N = 4,000 and 8,000 (2 to 16 ranks) with
#           PDGEMR2D, redist and COSTA's native transform (OMP_NUM_THREADS=1), one mpiexec of
#           16 ranks bound to cores.
# Every record lands in OUT (default $OUT, else docs/data/device16/raw); the report is
# scripts/bench/device16_report.py OUT.
#   scripts/bench/device16.sh [BUILD_DIR] [ROUNDS]
# (GEMM_N, LU_N, REDIST_NS override the orders for a quick check)
set -uo pipefail
build=${1:-build} rounds=${2:-3}
out=${OUT:-docs/data/device16/raw}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
{ echo "date $(date -u +%FT%TZ)"; echo "cpus $(nproc)"; lscpu | grep -E 'Model name|Socket|Thread|NUMA node\(s\)'
  mpiexec --version | head -1; echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; } >"$out/machine.txt" 2>&1
run() {  # <file> <mpiexec args...>
  local f=$1; shift
  timeout 240 mpiexec --oversubscribe "$@" >"$out/$f.log" 2>&1 || echo "FAILED $f rc=$?" | tee -a "$out/failures.txt"
}
growth() {  # <driver> <N> <iters> <tag> [mca args...]
  local d=$1 n=$2 it=$3 tag=$4; shift 4
  local r
  for ((r = 1; r <= rounds; ++r)); do
    local order=(grow fresh) w
    ((r % 2)) || order=(fresh grow)
    for w in "${order[@]}"; do
      echo "$(date -u +%T) $tag $d $w round $r"
      if [[ $w == grow ]]; then
        run "${tag}_${d}_grow.$r" --bind-to none -n 4 "$@" "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 2x2 -i "$it" \
          -p scripted -s 1:expand:4x4 --no-check -q --json "$out/${tag}_${d}_grow.$r.json"
      else
        run "${tag}_${d}_fresh.$r" --bind-to none -n 16 "$@" "$build/apps/${d}_resizable" -n "$n" --nb 64 -g 4x4 \
          -i "$((it - 1))" --no-check -q --json "$out/${tag}_${d}_fresh.$r.json"
      fi
    done
  done
}
growth pdgemm "${GEMM_N:-6000}" 6 node
growth pdgetrf "${LU_N:-8000}" 6 node
# shellcheck source=device16_shapes.sh
. "$(dirname "${BASH_SOURCE[0]}")/device16_shapes.sh"
echo "$(date -u +%T) redist"
run redist --bind-to core -n 16 "$build/redist/malleable-redist-bench" redist --shapes "${shapes[@]}" --reps 5 \
  --costa-native "$build/redist/costa_native.so" --json "$out/redist.json"
echo "$(date -u +%T) done"

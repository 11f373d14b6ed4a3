#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The generation check (docs/reference/apps.md, "The generations' reach under UCX") under
# Open MPI's ob1 (RESIZE_UCX_CHECK=on: its generations meet over TCP loopback) and under
# its UCX PML (BLACS_DYN_PML=ucx: through shared memory), the arms alternating: each run is
# tests/resize/session_respawn merge on 4 processes grown to 6 by spawn, whose first
# expansion runs the check; prints the load and each run's verdict line, then the
# latency ratio (newcomer over original, 8 B) per arm: the numbers kSlowLatencyRatio
# (resize/src/policy/generation_reach.hpp) is chosen between.
#   scripts/bench/generation_check.sh [BUILD_DIR] [ROUNDS]
set -uo pipefail
build=${1:-build} rounds=${2:-10}
prog=$build/tests/resize/session_respawn
[[ -x $prog ]] || { echo "generation_check.sh: build $build first (target session_respawn)" >&2; exit 1; }
ompi_info 2>/dev/null | grep -q "MCA pml: ucx" || { echo "generation_check.sh: this Open MPI has no pml/ucx"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_RECONFIGURE=merge
echo "generation_check: $(nproc --all) cores, $(mpiexec --version | head -1), $rounds rounds, $(date -u +%FT%TZ)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((r = 1; r <= rounds; r++)); do
  echo "round $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
  RESIZE_UCX_CHECK=on timeout 120 mpiexec --oversubscribe -x RESIZE_UCX_CHECK -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 |
    grep "generation check" | sed 's/^/ob1 /' | tee -a "$out"
  BLACS_DYN_PML=ucx timeout 120 mpiexec --oversubscribe -x BLACS_DYN_PML -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 |
    grep "generation check" | sed 's/^/ucx /' | tee -a "$out"
done
for arm in ob1 ucx; do
  grep "^$arm " "$out" | sed -n 's/.*latency \([0-9.]*\)x.*took \([0-9.]*\) ms.*/\1 \2/p' | sort -n |
    awk -v arm="$arm" '{r[NR]=$1; t[NR]=$2} END {
      if (NR == 0) { print arm ": no verdict"; exit }
      n = asort(t); printf "%s: latency ratio %s-%s over %d runs; the check took %s ms (median, %s-%s)\n",
        arm, r[1], r[NR], NR, t[int((n + 1) / 2)], t[1], t[n] }'
done

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The generation check (docs/reference/apps.md, "The generations' reach under UCX") in three
# arms, alternating: Open MPI's ob1 (RESIZE_UCX_CHECK=on: its generations meet over TCP
# loopback), its UCX PML chosen by hand (OMPI_MCA_pml=ucx: blacs-dyn keeps PMIx's hash
# store, so the generations meet over UCX's TCP) and BLACS_DYN_PML=ucx (through shared
# memory). Each run is
# tests/resize/session_respawn merge on 4 processes grown to 6 by spawn, whose first
# expansion runs the check; prints the load and each run's verdict line, then the
# ratio (newcomer over original: the geometric mean of 8 B's and 64 KiB's) per arm: kSlowRatio
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
  OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any timeout 120 mpiexec --oversubscribe \
    -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 | grep "generation check" | sed 's/^/ucx-hash /' | tee -a "$out"
  BLACS_DYN_PML=ucx timeout 120 mpiexec --oversubscribe -x BLACS_DYN_PML -x RESIZE_RECONFIGURE -n 4 "$prog" merge 2>&1 |
    grep "generation check" | sed 's/^/ucx /' | tee -a "$out"
done
for arm in ob1 ucx-hash ucx; do
  grep "^$arm " "$out" | sed -n 's/.*times \([0-9.]*\)x at 8 B, \([0-9.]*\)x at 64 KiB.*took \([0-9.]*\) ms.*/\1 \2 \3/p' |
    awk '{printf "%.2f %s\n", sqrt($1 * $2), $3}' | sort -n |
    awk -v arm="$arm" '{r[NR]=$1; t[NR]=$2; if ($0 ~ /./) n++} END {
      if (NR == 0) { print arm ": no verdict"; exit }
      m = asort(t); printf "%s: ratio %s-%s over %d runs; the check took %s ms (median, %s-%s)\n",
        arm, r[1], r[NR], NR, t[int((m + 1) / 2)], t[1], t[m] }'
  echo "$arm: TCP between the pair: $(grep "^$arm " "$out" | grep -o '[a-z]* TCP connection joins them' | sort | uniq -c | tr '\n' ';')"
  echo "$arm: verdicts: $(grep "^$arm " "$out" | grep -o 'through shared memory\|but not through shared memory\|do not reach' | sort | uniq -c | tr '\n' ';')"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# device16.sh's redist cases (16 ranks bound to cores, N = 4,000 and 8,000, COSTA's native
# transform beside) for two builds side by side: ROUNDS rounds, each running OLD's bench then
# NEW's (the order alternating from round to round). Records into OUT (default $OUT);
# scripts/bench/device16_report.py --ab OUT prints new/old per case.
#   scripts/bench/device16_ab.sh OLD_BUILD NEW_BUILD [ROUNDS]
set -uo pipefail
old=$1 new=$2 rounds=${3:-2}
out=${OUT:-docs/data/device16/ab}
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1
{ echo "date $(date -u +%FT%TZ)"; lscpu | grep -E 'Model name'; mpiexec --version | head -1
  echo "load $(cut -d' ' -f1-3 /proc/loadavg)"; } >"$out/machine.txt" 2>&1
# shellcheck source=device16_shapes.sh
. "$(dirname "${BASH_SOURCE[0]}")/device16_shapes.sh"
for ((r = 1; r <= rounds; ++r)); do
  order=(old new)
  ((r % 2)) || order=(new old)
  for w in "${order[@]}"; do
    b=$old
    [[ $w == new ]] && b=$new
    echo "$(date -u +%T) round $r $w"
    timeout 240 mpiexec --oversubscribe --bind-to "${BIND:-core}" -n 16 "$b/redist/malleable-redist-bench" redist --shapes "${shapes[@]}" --reps 5 \
      --costa-native "$b/redist/costa_native.so" --json "$out/$w.$r.json" >"$out/$w.$r.log" 2>&1 ||
      echo "FAILED $w.$r rc=$?" | tee -a "$out/failures.txt"
  done
done

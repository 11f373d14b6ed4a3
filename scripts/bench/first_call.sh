#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `redistribute` of a one-node resize's matrices (1x2 -> 2x2 on 4 ranks of one job, N = 4,000,
# blocks of 64; Life: one block per process) timed warm (fastest and median of REPS), cold
# (its first call into fresh pages) and as a first call on a new communicator into arrays
# written before, caches flushed (malleable-redist-bench redist --shapes' redist_touched_s): what separates a
# resize's move from a warm `redistribute` (docs/measurements/results.md, "A resize against
# its limits"). One JSON and log per driver into OUT.
#   scripts/bench/first_call.sh [--reps K] [--n N] [--out DIR]   (--n: the order, default 4000)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
reps=5 n=4000 out=$here/docs/data/resize_phases/first_call
while (($#)); do
  case $1 in
    --reps) reps=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -h | --help) sed -n '2,9p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "first_call.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
mkdir -p "$out"
m="${n}x${n}:64x64@1x2:64x64@2x2"
declare -A shapes=([pdgemm]="$m $m" [pdgetrf]="$m ${n}x1:64x1@1x2:64x1@2x2" [life]="${n}x${n}:${n}x$((n / 2))@1x2:$((n / 2))x$((n / 2))@2x2")
for d in pdgemm pdgetrf life; do
  # shellcheck disable=SC2086
  timeout 600 mpiexec --oversubscribe --bind-to none -n 4 "$build/redist/malleable-redist-bench" redist --shapes ${shapes[$d]} \
    --reps "$reps" --json "$out/$d.json" >"$out/$d.log" 2>&1
  python3 - "$out/$d.json" "$d" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
s = lambda k: sum(r[k] for r in rows)
print(f"{sys.argv[2]:8s} warm best {s('redist_s')*1e3:6.1f} ms  median {s('redist_med_s')*1e3:6.1f}  "
      f"cold {s('redist_cold_s')*1e3:6.1f}  first call, touched {s('redist_touched_s')*1e3:6.1f} "
      f"({s('redist_touched_s')/s('redist_s'):.2f}x warm best)")
PY
done | tee "$out/summary.txt"
echo "# $(date -u +%FT%TZ), $(env -u OMP_NUM_THREADS nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/summary.txt"
# The raw runs go into the study's runs.tar.xz (docs/data/README.md; a folder that is no packed study is left as it is).
python3 "$here/scripts/bench/data_archive.py" pack "$(dirname "$out")"

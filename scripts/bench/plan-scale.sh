#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One rank's redist planning time and heap for P = 4 .. 66,049 (docs/measurements/scale.md's table):
# builds the benchmark in ${BUILD_DIR:-build} and writes its output to docs/data/plan-scale.txt;
# then the coprime blocks-of-1 case at 16,641 alone with more repetitions (the target's
# hardest case, 33,024 transfers a rank) to docs/data/plan-scale-coprime1.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD_DIR:-build}
cmake --build "$build" -j "${JOBS:-2}" --target redist_plan_scale_bench >/dev/null
mkdir -p docs/data
"$build/redist/redist_plan_scale_bench" --n "${N:-100000}" --max-p 65536 --budget-s "${BUDGET_S:-0.05}" "$@" |
  tee docs/data/plan-scale.txt
"$build/redist/redist_plan_scale_bench" --n "${N:-100000}" --family coprime --blocks 1 --min-p 16000 --max-p 17000 \
  --budget-s "${FOCUS_BUDGET_S:-2}" | tee docs/data/plan-scale-coprime1.txt

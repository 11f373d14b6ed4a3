#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What a move budget (SessionOptions::move_budget_bytes, --move-budget; docs/reference/apps.md
# "Memory of a resize") costs and saves: pdgemm_resizable (its matrices A and B, N x N
# doubles) expands 2x2 -> 2x3 and shrinks back to 2x2, once with no budget (every matrix
# in one exchange) and once with a budget that puts each matrix in its own batch, R times
# each, alternating. Prints per resize the batches, the most bytes one process held during
# the move (move_peak_bytes) and the redistribution time, then the medians and their
# ratios (budget / none). Timings on a shared machine are noisy: compare the ratios of one
# run, and read the load average it prints.
#   scripts/bench/move_budget_bench.sh [--n N] [--budget SIZE] [--reps R] [--build-dir DIR]
# Defaults: N 2000, budget 8M (a process's share of one matrix on 2x2 is 8 MB), 3 reps.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${MALLEABLE_BUILD_DIR:-$here/build}
n=2000 budget=8M reps=3
while (($#)); do
  case $1 in
    --n) n=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --build-dir) build=$2; shift 2 ;;
    *) echo "usage: $0 [--n N] [--budget SIZE] [--reps R] [--build-dir DIR]" >&2; exit 2 ;;
  esac
done
exe=$build/apps/pdgemm_resizable
[[ -x $exe ]] || { echo "no $exe (build the project first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_HISTORY=off
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < reps; ++r)); do
  for mode in none budget; do
    extra=()
    [[ $mode == budget ]] && extra=(--move-budget "$budget")
    mpiexec --oversubscribe -n 4 "$exe" -n "$n" --nb 64 -i 3 -p scripted -s "1:expand:2x3,2:shrink:2x2" -q \
      "${extra[@]}" --json "$tmp/$mode.$r.json" > "$tmp/$mode.$r.log" 2>&1 ||
      { echo "run $mode $r failed:" >&2; tail -5 "$tmp/$mode.$r.log" >&2; exit 1; }
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$tmp" "$reps" "$n" "$budget" <<'PY'
import json, statistics, sys
tmp, reps, n, budget = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rows = {}
for mode in ("none", "budget"):
    for r in range(reps):
        d = json.load(open(f"{tmp}/{mode}.{r}.json"))
        for k, x in enumerate(d["resizes"]):
            key = (k, f'{x["action"]} {x["from"]["rows"]}x{x["from"]["cols"]}->{x["to"]["rows"]}x{x["to"]["cols"]}')
            rows.setdefault(key, {}).setdefault(mode, []).append((x["move_batches"], x["move_peak_bytes"], x["t_redist_s"]))
print(f"pdgemm_resizable -n {n}: A and B, {reps} runs each; budget {budget}")
print(f'{"resize":<22}{"mode":<8}{"batches":>8}{"peak MiB":>10}{"t_redist ms (median)":>22}')
for key in sorted(rows):
    med = {}
    for mode in ("none", "budget"):
        v = rows[key][mode]
        med[mode] = (v[0][0], statistics.median(p for _, p, _ in v), statistics.median(t for _, _, t in v))
        print(f"{key[1]:<22}{mode:<8}{med[mode][0]:>8}{med[mode][1] / 2**20:>10.1f}{med[mode][2] * 1e3:>22.1f}")
    print(f'{"":<22}{"ratio":<8}{"":>8}{med["budget"][1] / med["none"][1]:>10.2f}{med["budget"][2] / med["none"][2]:>22.2f}')
PY

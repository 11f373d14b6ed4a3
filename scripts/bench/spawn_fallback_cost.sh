#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What the expansion fallback adds to an expansion that succeeds: the checkpoint of the
# state before the spawn (and the marker), against the same expansion with
# RESIZE_SPAWN_FALLBACK=off, side by side (on and off alternate, R pairs per size).
#   spawn_fallback_cost.sh BUILD OUT_CSV [R] [SIZES]
# pdgemm_resizable, 2x2 -> 3x3 after iteration 2 (every matrix of the job: A, B and the
# work matrix, n x n doubles each), --checkpoint into a fresh directory (no other
# checkpoint before the end). Per run: the resize's total (spawn, redistribution, other:
# the progress line) and, with the fallback on, the checkpoint's time (its line).
# Writes OUT_CSV (n, fallback, resize_ms, checkpoint_ms) and prints per size the medians,
# the checkpoint over the resize without the fallback, and (resize + checkpoint with the
# fallback) / (resize without).
set -uo pipefail
build=${1:?usage: spawn_fallback_cost.sh BUILD OUT_CSV [R] [SIZES]}
csv=${2:?usage: spawn_fallback_cost.sh BUILD OUT_CSV [R] [SIZES]}
reps=${3:-5} sizes=${4:-"240 960 1920"}
pdgemm=$build/apps/pdgemm_resizable
[[ -x $pdgemm ]] || { echo "no $pdgemm" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_HISTORY=off
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "n,fallback,resize_ms,checkpoint_ms" >"$csv"
for n in $sizes; do
  for ((k = 0; k < reps; ++k)); do
    for fb in on off; do
      rm -rf "$work/ck"
      out=$(RESIZE_SPAWN_FALLBACK=$fb timeout 300 mpiexec --oversubscribe --bind-to none -n 4 "$pdgemm" -n "$n" --nb 32 -i 3 \
            -p scripted -s 2:expand:3x3 --checkpoint "$work/ck" 2>&1) || { echo "run failed (n $n, $fb): $out" >&2; continue; }
      t=$(grep -o 'expand 2x2 -> 3x3 .*total [0-9.]* ms' <<<"$out" | grep -o 'total [0-9.]*' | awk '{print $2}')
      c=$(grep -o 'before the spawn after iter 2: checkpoint [^ ]* in [0-9.]* ms' <<<"$out" | awk '{print $(NF-1)}')
      echo "$n,$fb,$t,${c:-0}" >>"$csv"
    done
  done
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for n in sorted({int(r["n"]) for r in rows}):
    on = [r for r in rows if int(r["n"]) == n and r["fallback"] == "on" and r["resize_ms"]]
    off = [r for r in rows if int(r["n"]) == n and r["fallback"] == "off" and r["resize_ms"]]
    if not on or not off:
        continue
    r_on = statistics.median(float(r["resize_ms"]) for r in on)
    c_on = statistics.median(float(r["checkpoint_ms"]) for r in on)
    r_off = statistics.median(float(r["resize_ms"]) for r in off)
    # The checkpoint is the work the fallback adds; the resize itself is the same work on
    # and off (its time varies with the load: both ratios are printed).
    print(f"n {n}: resize {r_off:.1f} ms without the fallback, {r_on:.1f} ms with it, plus its checkpoint {c_on:.1f} ms: "
          f"added {c_on / r_off:.1%} of the resize; (resize + checkpoint) on / resize off = {(r_on + c_on) / r_off:.2f}x "
          f"(medians of {len(on)} and {len(off)} runs)")
PY

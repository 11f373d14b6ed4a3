#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# What the expansion fallback adds to an expansion that succeeds, by the level that secures
# the state before the spawn: the global checkpoint (HDF5 file in --checkpoint DIR) against
# the local checkpoint level (node memory: each process's blocks in a node-local
# directory, --checkpoint-local never --checkpoint-local-dir under /dev/shm), and the same
# expansion with RESIZE_SPAWN_FALLBACK=off, side by side: the three alternate, R rounds per
# size.
#   spawn_fallback_levels_cost.sh BUILD OUT_CSV [R] [SIZES]
# pdgemm_resizable, 2x2 -> 3x3 after iteration 2 (A, B and the work matrix, n x n doubles
# each), fresh directories per run. Per run: the resize's total (its progress line) and the
# checkpoint before the spawn (its line, "in X ms"). Writes OUT_CSV (n, mode, resize_ms,
# checkpoint_ms) and prints per size the medians and each level's checkpoint over the resize
# without the fallback, with the load.
set -uo pipefail
build=${1:?usage: spawn_fallback_levels_cost.sh BUILD OUT_CSV [R] [SIZES]}
csv=${2:?usage: spawn_fallback_levels_cost.sh BUILD OUT_CSV [R] [SIZES]}
reps=${3:-5} sizes=${4:-"240 960 1920"}
pdgemm=$build/apps/pdgemm_resizable
[[ -x $pdgemm ]] || { echo "no $pdgemm" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 RESIZE_HISTORY=off RESIZE_SPAWN_DEADLINE=150
work=$(mktemp -d)
shm=$(mktemp -d /dev/shm/fallback-levels-XXXXXX)
trap 'rm -rf "$work" "$shm"' EXIT
echo "n,mode,resize_ms,checkpoint_ms" >"$csv"
load0=$(cut -d' ' -f1-3 /proc/loadavg)
for n in $sizes; do
  for ((k = 0; k < reps; ++k)); do
    for mode in global local off; do
      rm -rf "$work/ck" "$shm/lv"
      extra=() fb=on
      [[ $mode == local ]] && extra=(--checkpoint-local never --checkpoint-local-dir "$shm/lv")
      [[ $mode == off ]] && fb=off
      out=$(RESIZE_SPAWN_FALLBACK=$fb timeout 300 mpiexec --oversubscribe --bind-to none -n 4 "$pdgemm" -n "$n" --nb 32 -i 3 \
            -p scripted -s 2:expand:3x3 --checkpoint "$work/ck" "${extra[@]}" 2>&1) ||
        { echo "run failed (n $n, $mode): $out" >&2; continue; }
      t=$(grep -o 'expand 2x2 -> 3x3 .*total [0-9.]* ms' <<<"$out" | grep -o 'total [0-9.]*' | awk '{print $2}')
      c=$(grep -o 'before the spawn after iter 2: checkpoint .* in [0-9.]* ms' <<<"$out" | awk '{print $(NF-1)}')
      [[ $mode != off && -z $c ]] && { echo "no checkpoint line (n $n, $mode): $out" >&2; continue; }
      echo "$n,$mode,$t,${c:-0}" >>"$csv"
    done
  done
done
echo "load before: $load0; after: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def med(n, mode, key):
    v = [float(r[key]) for r in rows if int(r["n"]) == n and r["mode"] == mode and r[key]]
    return (statistics.median(v), len(v)) if v else (None, 0)
for n in sorted({int(r["n"]) for r in rows}):
    off, k_off = med(n, "off", "resize_ms")
    g, k_g = med(n, "global", "checkpoint_ms")
    l, k_l = med(n, "local", "checkpoint_ms")
    if off is None or g is None or l is None:
        continue
    print(f"n {n}: checkpoint before the spawn: global {g:.1f} ms ({g / off:.1%} of the resize), local level {l:.1f} ms "
          f"({l / off:.1%}); global / local = {g / l:.1f}x; resize without the fallback {off:.1f} ms "
          f"(medians of {k_g}, {k_l}, {k_off} runs)")
PY

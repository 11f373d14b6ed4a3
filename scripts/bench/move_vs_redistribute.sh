#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A resize's move against `redistribute` alone on the same matrices, side by side in one
# run (the target: the move at most 1.1x `redistribute`). Same world, no spawn: the driver starts
# on 6 processes with a 2x2 grid and expands to 2x3 after iteration 1 (the two idle
# processes join); its JSON record gives the move (t_redist_s) and its phases (stage,
# local copy, exchange). Beside it malleable-redist-bench redist --shapes moves the driver's registered
# matrices 2x2 -> 2x3 on 6 ranks of one job (--reps warm calls: the fastest, the median,
# and the cold first call into fresh pages). The two alternate their order from round to
# round (ABAB, BABA). Prints per round and case, then medians, ranges and move/redistribute.
# --before-env "VAR=VALUE": each round also runs the driver with that setting (the code
# before a change that the setting switches off), its order alternating with the other
# two; its rows are labelled "before" and a last table sets the two moves side by side
# (with the whole resize, t_total_s, since work moved ahead of the move is not gone).
# The "touched" column is that bench's first call on a new communicator into a B
# faulted in before, caches flushed (redist_touched_s): the move's situation once its
# arrays are populated ahead. --keep DIR keeps the runs' JSON records and logs there.
#   scripts/bench/move_vs_redistribute.sh [BUILD] [--rounds N] [--cases "pdgemm:2000 ..."] [--before-env VAR=VALUE] [--keep DIR]
set -euo pipefail
build=${1:-build}; [[ $# -ge 1 ]] && shift
rounds=3 cases="pdgemm:2000 pdgemm:3000 pdgetrf:2000" nb=64 reps=5 before_env="" keep=""
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --before-env) before_env=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "move_vs_redistribute.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
mpi=(timeout 300 mpiexec --oversubscribe --bind-to none -n 6)
shapes() {  # <driver> <N>: the registered matrices, 2x2 -> 2x3
  local n=$2 s="${nb}x${nb}@2x2:${nb}x${nb}@2x3"
  case $1 in
    pdgemm) echo "${n}x${n}:$s ${n}x${n}:$s" ;;                                # A and B
    pdgetrf) echo "${n}x${n}:$s ${n}x1:${nb}x1@2x2:${nb}x1@2x3" ;;             # A and b
  esac
}
tmp=$(mktemp -d)
trap '[[ -z $keep ]] || { mkdir -p "$keep" && cp "$tmp"/* "$keep"/; }; rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), 6 ranks on $(nproc) cores (oversubscribed); rounds $rounds, nb $nb${before_env:+, before: $before_env}"
resize() {  # driver n r [tag env...]
  local tag=${4:-resize}
  env "${@:5}" "${mpi[@]}" "$build/apps/${1}_resizable" -n "$2" --nb "$nb" -g 2x2 -i 3 -p scripted -s 1:expand:2x3 \
    --no-check -q --json "$tmp/$tag.$1.$2.$3.json" >"$tmp/$tag.$1.$2.$3.log" 2>&1
}
before() { [[ -z $before_env ]] || resize "$1" "$2" "$3" before "$before_env"; }
redist() {  # driver n r
  # shellcheck disable=SC2046
  "${mpi[@]}" "$build/redist/malleable-redist-bench" redist --shapes $(shapes "$1" "$2") --reps "$reps" \
    --json "$tmp/redist.$1.$2.$3.json" >"$tmp/redist.$1.$2.$3.log" 2>&1
}
for r in $(seq 1 "$rounds"); do
  for c in $cases; do
    d=${c%%:*} n=${c##*:}
    if ((r % 2)); then before "$d" "$n" "$r"; resize "$d" "$n" "$r"; redist "$d" "$n" "$r"
    else redist "$d" "$n" "$r"; resize "$d" "$n" "$r"; before "$d" "$n" "$r"; fi
  done
done
python3 - "$tmp" "$rounds" "$cases" "$before_env" <<'PY'
import json, statistics, sys
tmp, rounds, cases, before_env = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
print("round | case | move ms | stage ms | local copy ms | exchange ms | redistribute warm ms (fastest) | median | cold first call ms | touched first call ms | move/warm")
agg = {}
for c in cases:
    d, n = c.split(":")
    for r in range(1, rounds + 1):
        x = json.load(open(f"{tmp}/resize.{d}.{n}.{r}.json"))["resizes"][0]
        ph = x["move_phases"]
        rd = json.load(open(f"{tmp}/redist.{d}.{n}.{r}.json"))
        w = sum(e["redist_s"] for e in rd); m = sum(e["redist_med_s"] for e in rd); cold = sum(e["redist_cold_s"] for e in rd)
        touched = sum(e["redist_touched_s"] for e in rd)
        mv = x["t_redist_s"]
        row = (mv, ph["stage_s"], ph["local_copy_s"], ph["exchange_s"], w, m, cold, touched)
        agg.setdefault(c, []).append(row)
        print(f"{r} | {c} | " + " | ".join(f"{v * 1e3:.1f}" for v in row) + f" | {mv / w:.2f}x")
print()
print("case | move ms median (range) | redistribute warm ms median (range) | warm median-of-reps ms | cold ms | touched ms | move/warm median (range of per-round ratios) | move/median | move/cold | move/touched")
for c, rows in agg.items():
    col = lambda i: [row[i] for row in rows]
    med = lambda i: statistics.median(col(i))
    rat = [row[0] / row[4] for row in rows]
    print(f"{c} | {med(0) * 1e3:.1f} ({min(col(0)) * 1e3:.1f}-{max(col(0)) * 1e3:.1f}) | {med(4) * 1e3:.1f} ({min(col(4)) * 1e3:.1f}-{max(col(4)) * 1e3:.1f}) | "
          f"{med(5) * 1e3:.1f} | {med(6) * 1e3:.1f} | {med(7) * 1e3:.1f} | {statistics.median(rat):.2f}x ({min(rat):.2f}-{max(rat):.2f}x) | {med(0) / med(5):.2f}x | {med(0) / med(6):.2f}x | {med(0) / med(7):.2f}x")
if before_env:
    print()
    print(f"before ({before_env}) and after, side by side: round | case | move ms before | after | stage ms before | after | prefault ms after (its thread, not the move) | whole resize ms before | after")
    pair = {}
    for c in cases:
        d, n = c.split(":")
        for r in range(1, rounds + 1):
            b = json.load(open(f"{tmp}/before.{d}.{n}.{r}.json"))["resizes"][0]
            a = json.load(open(f"{tmp}/resize.{d}.{n}.{r}.json"))["resizes"][0]
            row = (b["t_redist_s"], a["t_redist_s"], b["move_phases"]["stage_s"], a["move_phases"]["stage_s"],
                   a["move_phases"]["prefault_s"], b["t_total_s"], a["t_total_s"])
            pair.setdefault(c, []).append(row)
            print(f"{r} | {c} | " + " | ".join(f"{v * 1e3:.1f}" for v in row))
    print()
    print("case | move ms before, median (range) | after | after/before (median of per-round ratios, range) | whole resize ms before | after | move/warm before | after")
    for c, rows in pair.items():
        col = lambda i: [row[i] for row in rows]
        med = lambda i: statistics.median(col(i))
        rat = [row[1] / row[0] for row in rows]
        warm = statistics.median([row[4] for row in agg[c]])
        print(f"{c} | {med(0) * 1e3:.1f} ({min(col(0)) * 1e3:.1f}-{max(col(0)) * 1e3:.1f}) | {med(1) * 1e3:.1f} ({min(col(1)) * 1e3:.1f}-{max(col(1)) * 1e3:.1f}) | "
              f"{statistics.median(rat):.2f}x ({min(rat):.2f}-{max(rat):.2f}x) | {med(5) * 1e3:.1f} | {med(6) * 1e3:.1f} | {med(0) / warm:.2f}x | {med(1) / warm:.2f}x")
PY

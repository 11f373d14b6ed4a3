#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A resize's move against `redistribute` alone on the same matrices, side by side in one
# run (the target: the move at most 1.1x `redistribute`). Same world, no spawn: the driver starts
# on 6 processes with a 2x2 grid and expands to 2x3 after iteration 1 (the two idle
# processes join); its JSON record gives the move (t_redist_s) and its phases (stage,
# local copy, exchange). Beside it redist_bench --shapes moves the driver's registered
# matrices 2x2 -> 2x3 on 6 ranks of one job (--reps warm calls: the fastest, the median,
# and the cold first call into fresh pages). The two alternate their order from round to
# round (ABAB, BABA). Prints per round and case, then medians, ranges and move/redistribute.
#   scripts/bench/move_vs_redistribute.sh [BUILD] [--rounds N] [--cases "pdgemm:2000 ..."]
set -euo pipefail
build=${1:-build}; [[ $# -ge 1 ]] && shift
rounds=3 cases="pdgemm:2000 pdgemm:3000 pdgetrf:2000" nb=64 reps=5
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
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
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg), 6 ranks on $(nproc) cores (oversubscribed); rounds $rounds, nb $nb"
resize() {  # driver n r
  "${mpi[@]}" "$build/apps/${1}_resizable" -n "$2" --nb "$nb" -g 2x2 -i 3 -p scripted -s 1:expand:2x3 \
    --no-check -q --json "$tmp/resize.$1.$2.$3.json" >"$tmp/resize.$1.$2.$3.log" 2>&1
}
redist() {  # driver n r
  # shellcheck disable=SC2046
  "${mpi[@]}" "$build/redist/redist_bench" --shapes $(shapes "$1" "$2") --reps "$reps" \
    --json "$tmp/redist.$1.$2.$3.json" >"$tmp/redist.$1.$2.$3.log" 2>&1
}
for r in $(seq 1 "$rounds"); do
  for c in $cases; do
    d=${c%%:*} n=${c##*:}
    if ((r % 2)); then resize "$d" "$n" "$r"; redist "$d" "$n" "$r"; else redist "$d" "$n" "$r"; resize "$d" "$n" "$r"; fi
  done
done
python3 - "$tmp" "$rounds" "$cases" <<'PY'
import json, statistics, sys
tmp, rounds, cases = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
print("round | case | move ms | stage ms | local copy ms | exchange ms | redistribute warm ms (fastest) | median | cold first call ms | move/warm")
agg = {}
for c in cases:
    d, n = c.split(":")
    for r in range(1, rounds + 1):
        x = json.load(open(f"{tmp}/resize.{d}.{n}.{r}.json"))["resizes"][0]
        ph = x["move_phases"]
        rd = json.load(open(f"{tmp}/redist.{d}.{n}.{r}.json"))
        w = sum(e["redist_s"] for e in rd); m = sum(e["redist_med_s"] for e in rd); cold = sum(e["redist_cold_s"] for e in rd)
        mv = x["t_redist_s"]
        row = (mv, ph["stage_s"], ph["local_copy_s"], ph["exchange_s"], w, m, cold)
        agg.setdefault(c, []).append(row)
        print(f"{r} | {c} | " + " | ".join(f"{v * 1e3:.1f}" for v in row) + f" | {mv / w:.2f}x")
print()
print("case | move ms median (range) | redistribute warm ms median (range) | warm median-of-reps ms | cold ms | move/warm median (range of per-round ratios) | move/median | move/cold")
for c, rows in agg.items():
    col = lambda i: [row[i] for row in rows]
    med = lambda i: statistics.median(col(i))
    rat = [row[0] / row[4] for row in rows]
    print(f"{c} | {med(0) * 1e3:.1f} ({min(col(0)) * 1e3:.1f}-{max(col(0)) * 1e3:.1f}) | {med(4) * 1e3:.1f} ({min(col(4)) * 1e3:.1f}-{max(col(4)) * 1e3:.1f}) | "
          f"{med(5) * 1e3:.1f} | {med(6) * 1e3:.1f} | {statistics.median(rat):.2f}x ({min(rat):.2f}-{max(rat):.2f}x) | {med(0) / med(5):.2f}x | {med(0) / med(6):.2f}x")
PY
